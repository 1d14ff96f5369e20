/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The version, shared by --version and what the agent tells a back end (push.c). */
#ifndef HC_UTIL_VERSION_H
#define HC_UTIL_VERSION_H

#define HOTCOLD_VERSION "0.1.0"

#endif /* HC_UTIL_VERSION_H */
