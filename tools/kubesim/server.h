/* kubesim HTTP server: libmicrohttpd daemon (thread per connection, HTTP or HTTPS) that
 * authenticates bearer tokens, authorizes with RBAC, injects faults, routes /api/v1 REST paths to
 * the store, serves discovery, Table output, watches, /metrics, /healthz and the /kubesim admin
 * endpoints. Called by main.c. The server borrows store, rbac, faults and metrics: they must
 * outlive ks_server_stop. */
#ifndef KUBESIM_SERVER_H
#define KUBESIM_SERVER_H

#include "faults.h"
#include "metrics.h"
#include "rbac.h"
#include "store.h"

#include <stddef.h>

/* Container log provider (the kubelet): new malloc'd text with *len set, or NULL if none. */
typedef char *(*ks_pod_log_fn)(void *arg, const char *ns, const char *name, const char *container,
                               size_t *len);

typedef struct ks_server_opts {
    ks_store *store;
    ks_rbac *rbac;
    ks_faults *faults;
    ks_metrics *metrics;
    const char *tls_cert_pem, *tls_key_pem; /* both NULL = plain HTTP */
    int port;                               /* 0 = any free port */
    int all_addresses;    /* listen on every address (pod network: pods reach it), not 127.0.0.1 */
    int bookmark_ms;      /* watch bookmark period */
    int verbose;          /* one log line per request on stderr */
    ks_pod_log_fn log_fn; /* may be NULL (no kubelet) */
    void *log_arg;
} ks_server_opts;

typedef struct ks_server ks_server;

/* Starts listening on 127.0.0.1 (or every address). Returns NULL and writes a message into err on
 * failure. */
ks_server *ks_server_start(const ks_server_opts *o, char *err, size_t errlen);
int ks_server_port(const ks_server *s);
void ks_server_stop(ks_server *s);

#endif
