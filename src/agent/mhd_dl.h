/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmicrohttpd's functions, dlopen()ed by the web view (agent --http) alone:
 * linked in, it and gnutls, p11-kit, nettle, gmp... were mapped and their
 * constructors run in every agent. <microhttpd.h> still gives the types and
 * constants; http.c and http_args.c call through @mhd.
 */
#ifndef HC_AGENT_MHD_DL_H
#define HC_AGENT_MHD_DL_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#define MHD_DL_SO	"libmicrohttpd.so.12"

struct mhd_fns {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc, void *apc_cls,
					   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind,
					       const char *key);
	char *(*basic_auth_get_username_password)(struct MHD_Connection *c, char **password);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
							    enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
					  struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
	void (*free)(void *p);
};

/*
 * Filled by mhd_dl_load(); all NULL before (a test may fill what it calls).
 * Written before MHD_start_daemon creates the threads that read it.
 */
extern struct mhd_fns mhd;

/*
 * Load MHD_DL_SO into @mhd (once; kept open for the process's life). Call
 * from one thread, before any server runs. 0, or -ENOENT said in one line.
 */
int mhd_dl_load(void);

#endif /* HC_AGENT_MHD_DL_H */
