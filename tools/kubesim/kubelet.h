/*
 * kubelet.h — the kubelet half of kubesim: registers Node objects, schedules pods onto them by CPU
 * and memory requests, and either runs each pod's containers as real process trees (process
 * kubelet, see container.h) or marks them Running after a delay without processes (fake kubelet,
 * kwok-like).
 *
 * Called by kubesim's main (tools/kubesim/main.c): ks_kubelet_start() once the store exists, before
 * the HTTP server accepts requests; ks_kubelet_pod_log() from the `log` subresource handler (any
 * thread); ks_kubelet_stop() at shutdown, before the store is destroyed.
 *
 * The kubelet reacts to store observer callbacks on "pods" and "services" (it never polls the
 * store) and does all its work on one worker thread (a libuv loop). Ownership: the options and the
 * strings they point to are copied by ks_kubelet_start(); the caller keeps its own. The store must
 * outlive the kubelet.
 */
#ifndef KS_KUBELET_H
#define KS_KUBELET_H

#include <stddef.h>

typedef struct ks_store ks_store;
typedef struct ks_kubelet ks_kubelet;

typedef struct ks_kubelet_options {
    int nodes;                   /* number of Node objects to register (0 -> 1) */
    int node_cpu_millis;         /* CPU capacity per node in millicores (0 -> 4000) */
    long long node_memory_bytes; /* memory capacity per node in bytes (0 -> 8 GiB) */
    /* an extended resource every node has (a device plugin's, e.g. example.com/gpu), or NULL */
    const char *node_resource_name;
    long long node_resource_count;
    int fake;                       /* non-zero: fake kubelet (no processes) */
    int fake_delay_ms;              /* fake mode: delay between binding and Running */
    const char *const *image_names; /* image references, e.g. "cspark:dev" */
    const char *const *image_dirs; /* host directory for each image (see docs/kubesim-kubelet.md) */
    int n_images;
    const char *state_dir; /* per-pod volumes, logs, hosts files live under <state_dir>/kubelet */
    /* Pod network: 0 = a distinct loopback address per pod (127.b.x.y, no namespace); 1 = a
     * network namespace per pod on a bridge per node (kubelet_net.c; needs root in a network
     * namespace of kubesim's own), node i's pod CIDR being 10.244.i.0/24 unless pod_cidr is set. */
    int pod_network;
    const char *node_name;   /* node agent: the one node's name (NULL: kubesim-node-1..N) */
    const char *node_ip;     /* node agent: its InternalIP */
    const char *pod_cidr;    /* node agent: its spec.podCIDR (implies pod_network) */
    const char *cluster_dns; /* nameserver of the pods' resolv.conf (cluster DNS such as CoreDNS);
                                NULL: kubesim writes Service names into each pod's /etc/hosts */
    int max_pods;            /* pods capacity per node (0: 110, fake: 1,000,000) */
} ks_kubelet_options;

/* Adds a --image NAME=DIR argument (arg is split in place) to the first *n of names/dirs (cap
 * entries each): 0, or -1 when it has no '=' or the arrays are full. */
int ks_kubelet_image_arg(char *arg, const char **names, const char **dirs, int *n, int cap);
/* A --node-resource NAME=COUNT argument (arg is split in place) into o: 0, or -1 without '=', a
 * name or a whole COUNT >= 0. */
int ks_kubelet_resource_arg(char *arg, ks_kubelet_options *o);

/* Registers the nodes and starts the worker thread. Returns NULL (with one log line) on failure. */
ks_kubelet *ks_kubelet_start(ks_store *s, const ks_kubelet_options *opt);

/* Kills every pod process (SIGKILL to each process group and cgroup), joins the worker thread,
 * frees k. NULL is accepted. */
void ks_kubelet_stop(ks_kubelet *k);

/* In-cluster access for pods (KUBERNETES_SERVICE_HOST/PORT and the service-account directory
 * /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}). Optional: without it
 * pods get no KUBERNETES_* variables and an empty token. Main calls it once the server listens (the
 * port is then known), e.g. {.host = "127.0.0.1", .port = port, .ca_pem = tls.ca_pem, .token =
 * admin_token}. Strings are copied. token_fn, when set, is called on the kubelet's worker thread at
 * each pod start and returns a malloc'd bearer token (or NULL) the API server accepts for
 * system:serviceaccount:<ns>:<service_account>; otherwise every pod gets `token`. Thread-safe. */
typedef struct ks_kubelet_apiserver {
    const char *host; /* address as pods reach it, e.g. "127.0.0.1" */
    int port;
    const char *ca_pem; /* PEM text of the serving CA, NULL for plain HTTP */
    const char *token;  /* bearer token for every pod, may be NULL */
    char *(*token_fn)(void *arg, const char *ns, const char *service_account);
    void *token_arg;
} ks_kubelet_apiserver;
void ks_kubelet_set_apiserver(ks_kubelet *k, const ks_kubelet_apiserver *api);

/* Log of one container of a pod (stdout and stderr interleaved, as written). container NULL or ""
 * means the pod's first container. Returns a malloc'd buffer the caller frees, its length in *len,
 * or NULL if the pod/container is unknown to this kubelet. Thread-safe. */
char *ks_kubelet_pod_log(ks_kubelet *k, const char *ns, const char *name, const char *container,
                         size_t *len);

#endif
