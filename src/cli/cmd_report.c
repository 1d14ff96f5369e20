// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold report`: placeholder until its owner lands it. */
#include "cli/cmd.h"
#include "util/log.h"

int cmd_report(int argc, char **argv)
{
	pr_warn("report: not implemented yet\n");
	return EXIT_RUNTIME;
}
