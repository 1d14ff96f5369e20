// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold flamegraph`: placeholder until its owner lands it. */
#include "cli/cmd.h"
#include "util/log.h"

int cmd_flamegraph(int argc, char **argv)
{
	pr_warn("flamegraph: not implemented yet\n");
	return EXIT_RUNTIME;
}
