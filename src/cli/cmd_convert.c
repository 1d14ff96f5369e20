// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold convert`: placeholder until its owner lands it. */
#include "cli/cmd.h"
#include "util/log.h"

int cmd_convert(int argc, char **argv)
{
	pr_warn("convert: not implemented yet\n");
	return EXIT_RUNTIME;
}
