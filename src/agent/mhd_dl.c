// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libmicrohttpd opened at run time (see mhd_dl.h), as sym/dbgfetch.c opens libdebuginfod. */
#include "agent/mhd_dl.h"

#include <errno.h>

#include "util/compiler.h"
#include "util/dynlib.h"
#include "util/log.h"

struct mhd_fns mhd;

/* POSIX: a function pointer through a void * */
#define MHD_DL_SYM(f) { "MHD_" #f, (void **)&mhd.f }

static const struct dynlib_sym mhd_syms[] = {
	MHD_DL_SYM(start_daemon), MHD_DL_SYM(stop_daemon), MHD_DL_SYM(lookup_connection_value),
	MHD_DL_SYM(basic_auth_get_username_password), MHD_DL_SYM(create_response_from_buffer),
	MHD_DL_SYM(add_response_header), MHD_DL_SYM(queue_response),
	MHD_DL_SYM(destroy_response), MHD_DL_SYM(free),
};

int mhd_dl_load(void)
{
	char why[256];

	if (mhd.start_daemon)
		return 0;
	if (!dynlib_load(MHD_DL_SO, mhd_syms, ARRAY_SIZE(mhd_syms), why, sizeof(why)))
		return 0;
	pr_warn("agent: --http: cannot load '%s' (Debian package libmicrohttpd12): %s\n",
		MHD_DL_SO, why);
	return -ENOENT;
}
