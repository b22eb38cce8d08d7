/* kubesim discovery documents: /version, /api, /api/v1 and /apis/GROUP/v1 (APIResourceLists), /apis
 * and /apis/GROUP (the coordination.k8s.io and rbac.authorization.k8s.io groups), and per group a
 * minimal /openapi/v3 document so kubectl can check server-side field validation.
 * Called by server.c; every function returns a new JSON reference (NULL = not found). */
#ifndef KUBESIM_DISCOVERY_H
#define KUBESIM_DISCOVERY_H

#include <jansson.h>

/* Returns the document for path (exact match on the path without query), or NULL. host_port is the
 * address clients use ("127.0.0.1:6443"). */
json_t *ks_discovery(const char *path, const char *host_port);

#endif
