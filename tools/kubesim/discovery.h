/* kubesim discovery documents: /version, /api, /api/v1 (APIResourceList), /apis (empty
 * APIGroupList), and a minimal /openapi/v3 so kubectl can check server-side field validation.
 * Called by server.c; every function returns a new JSON reference (NULL = not found). */
#ifndef KUBESIM_DISCOVERY_H
#define KUBESIM_DISCOVERY_H

#include <jansson.h>

/* Returns the document for path (exact match on the path without query), or NULL. host_port is the
 * address clients use ("127.0.0.1:6443"). */
json_t *ks_discovery(const char *path, const char *host_port);

#endif
