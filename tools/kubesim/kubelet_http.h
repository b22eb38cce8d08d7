/*
 * kubelet_http.h — the kubelet's view of a real API server over HTTPS (kubelet_http.c), used by the
 * node agent (node_agent.c): the API ops, the pod watch of one node and its Lease heartbeat.
 *
 * Ownership: kl_http_new copies nothing: the option strings must outlive the kl_http (the agent's
 * argv). kl_http_free stops every thread, sends what is queued, and frees the kl_http.
 */
#ifndef KL_HTTP_H
#define KL_HTTP_H

typedef struct ks_kubelet ks_kubelet;
typedef struct kl_api_ops kl_api_ops;
typedef struct kl_http kl_http;

typedef struct kl_http_options {
    const char *server;    /* "https://10.250.0.1:443" */
    const char *ca_file;   /* CA bundle of the server */
    const char *cert_file; /* client certificate (CN system:node:<name>, O system:nodes) */
    const char *key_file;
    const char *token; /* bearer token instead of (or besides) the certificate */
    const char *node_name;
} kl_http_options;

kl_http *kl_http_new(const kl_http_options *o);
const kl_api_ops *kl_http_ops(void);
/* Creates the Node object with its labels only (no status yet), so the controller manager can
 * assign its pod CIDR. */
void kl_http_register_minimal(kl_http *h);
/* Polls the Node until spec.podCIDR is set; malloc'd, NULL after timeout_s. */
char *kl_http_wait_pod_cidr(kl_http *h, int timeout_s);
/* Starts the pod watch (events to k) and the Lease heartbeat. */
int kl_http_start_watch(kl_http *h, ks_kubelet *k);
/* Stops the watch and the heartbeat (before the kubelet stops). */
void kl_http_stop_watch(kl_http *h);
void kl_http_free(void *h);

#endif
