/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The option value parsers moved to util/parse.h (agent/ and pmu/ use them,
 * and nothing below cli/ may include cli/). This name stays for the cli/
 * files until their includes are switched; new code includes util/parse.h.
 */
#ifndef HC_CLI_PARSE_H
#define HC_CLI_PARSE_H

#include "util/parse.h"

#endif /* HC_CLI_PARSE_H */
