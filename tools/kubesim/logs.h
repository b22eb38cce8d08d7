/* kubesim log following: `GET .../pods/NAME/log?follow=true` as a chunked stream that re-reads the
 * container log from the kubelet every 200 ms and sends what is new, until the pod is terminal or
 * gone (then one last read), the client leaves, or the server stops. Called by server.c. */
#ifndef KUBESIM_LOGS_H
#define KUBESIM_LOGS_H

#include "server.h"
#include "store.h"

#include <microhttpd.h>

/* New MHD response; strings are copied. start_offset: bytes already known to the client (tail). */
struct MHD_Response *ks_log_follow_response(ks_store *store, ks_pod_log_fn fn, void *arg,
                                            const char *ns, const char *name, const char *container,
                                            size_t start_offset, int *stopping, int fd);

#endif
