/*
 * kubelet_int.h — internals shared by the kubesim kubelet files: kubelet.c (queue, pod table,
 * worker thread, start/stop), kubelet_run.c (pod life cycle), kubelet_status.c (Node and pod
 * status), kubelet_sched.c (kubesim's scheduler), kubelet_pod.c (quantities, images, fieldRefs,
 * file helpers), kubelet_env.c (a container's argv, env and mounts), kubelet_volumes.c (volumes,
 * hosts, resolv.conf), kubelet_probe.c (probes), kubelet_net.c (pod network namespaces), and the
 * two APIs: kubelet_store.c (kubesim's store) and kubelet_http.c (any API server). Not for other
 * kubesim files: they use kubelet.h (node_agent.c also kubelet_http.h).
 *
 * Every structure here is owned by the kubelet and touched by its worker thread only, except where
 * noted.
 */
#ifndef KS_KUBELET_INT_H
#define KS_KUBELET_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <uv.h>

#include "container.h"
#include "kubelet.h"
#include "quantity.h"

typedef struct kpod kpod;

/* The API server as the kubelet sees it. Two implementations: kubelet_store.c (kubesim's own store,
 * in process) and kubelet_http.c (any API server over HTTPS, as a node agent). Every function is
 * called on the kubelet's worker thread only. */
typedef struct kl_api_ops {
    /* New reference to one object ("configmaps", "secrets", "services", "pods"), NULL if absent. */
    json_t *(*get)(void *ctx, const char *resource, const char *ns, const char *name);
    /* New JSON array (never NULL); ns NULL = all namespaces. */
    json_t *(*list)(void *ctx, const char *resource, const char *ns);
    /* Registers (or refreshes) a Node object (borrowed). */
    void (*put_node)(void *ctx, const json_t *node);
    /* Reports a pod's status (stolen) through the status subresource. */
    void (*set_pod_status)(void *ctx, const char *ns, const char *name, const char *uid,
                           json_t *status);
    /* Graceful deletion done (or a pod that never ran): the object goes. */
    void (*finalize_pod)(void *ctx, const char *ns, const char *name, const char *uid);
    /* An Event about a pod (involved object borrowed), source component `component`. */
    void (*record_event)(void *ctx, const char *ns, const json_t *pod, const char *type,
                         const char *reason, const char *message, const char *component);
    /* Sets spec.nodeName (kubesim's own scheduler); NULL when the cluster's scheduler binds. */
    int (*bind_pod)(void *ctx, const char *ns, const char *name, const char *node);
    /* A service-account token for a pod (TokenRequest), malloc'd, or NULL. audience NULL = the
     * API server's; expiration 0 = default. */
    char *(*sa_token)(void *ctx, const char *ns, const char *service_account, const char *pod,
                      const char *pod_uid, const char *audience, long long expiration_s);
} kl_api_ops;

typedef struct knode {
    char name[64];
    char host_ip[32];
    char pod_cidr[32]; /* e.g. "10.244.1.0/24" (bridge pod network), "" = loopback addresses */
    int index;
    int octet;                      /* second octet of its 127.<octet>.0.0/16 pod range */
    long long cpu_alloc, mem_alloc; /* millicores, bytes */
    long long cpu_used, mem_used;
    long long ext_alloc, ext_used; /* the extended resource of the options (0 when none) */
    int pods_alloc, pods_used;
    unsigned next_ip; /* next pod address (offset) to try */
    /* bridge pod network (kubelet_net.c), when pod_cidr is set */
    uint32_t net_base, net_size; /* pod CIDR, host byte order */
    char bridge[16], gateway[32];
    uint8_t ip_used[32]; /* addresses in use, by offset in the CIDR (a /24 at most) */
} knode;

/* Container runtime state, as reported in containerStatuses. */
enum { CS_WAITING, CS_RUNNING, CS_TERMINATED };

typedef struct kterm {
    int set;
    int exit_code;
    char reason[32];
    char message[1280];
    char started_at[32], finished_at[32];
    char container_id[96];
} kterm;

enum { KL_PROBE_STARTUP, KL_PROBE_LIVENESS, KL_PROBE_READINESS, KL_NPROBES };

typedef struct kprobe {
    int defined;
    int64_t initial_ms, period_ms, timeout_ms;
    int success_threshold, failure_threshold;
    int successes, failures;
    int ok;             /* verdict after the thresholds */
    int64_t next_ms;    /* monotonic time of the next run */
    ks_container *exec; /* exec handler in flight */
    int64_t exec_deadline;
} kprobe;

typedef struct kcont {
    kpod *pod;
    int init;          /* an init container */
    int index;         /* in spec.containers / spec.initContainers */
    const char *name;  /* borrowed from pod->spec */
    const char *image; /* borrowed from pod->spec */
    int state;
    char wait_reason[64];
    char wait_message[1024];
    char started_at[32];
    char container_id[96];
    kterm term; /* state.terminated when state == CS_TERMINATED */
    kterm last; /* lastState.terminated */
    int restart_count;
    int ever_started;
    int64_t next_start_ms; /* monotonic; 0 = start when its turn comes */
    ks_container *proc;
    kprobe probes[KL_NPROBES];
    int ready;             /* containerStatuses[].ready (readiness probe, or running) */
    int startup_done;      /* startup probe passed (or none) */
    int64_t probe_kill_at; /* liveness/startup failure: SIGKILL due at (after SIGTERM), 0 = none */
    ks_container *hook;    /* preStop exec hook while it runs */
    int64_t term_at; /* deletion: monotonic ms at which SIGTERM is due (after preStop), 0 = none */
    int term_sent;
    uv_poll_t *poll; /* on the container's pidfd; freed by its close callback */
    int poll_active;
} kcont;

enum { POD_NEW, POD_UNSCHEDULABLE, POD_STARTING, POD_ACTIVE, POD_DONE };

struct kpod {
    struct ks_kubelet *k;
    char *key; /* "ns/name" */
    char *ns, *name, *uid;
    json_t *obj;  /* latest object seen (reference; never modified) */
    json_t *spec; /* borrowed from obj */
    int state;
    int deleting;
    int64_t kill_deadline; /* monotonic ms, 0 = none */
    int killed_hard;
    knode *node;
    char ip[32];
    int own_ip; /* ip taken from the node's pod CIDR (freed at release) */
    int netns;  /* p->dir/netns is the pod's network namespace */
    char start_time[32];
    long long cpu_req, mem_req;
    long long ext_req; /* of the node's extended resource */
    char *dir;         /* <state>/kubelet/pods/<ns>_<name> */
    int n_init, n_cont;
    kcont *cs; /* n_init init containers, then n_cont containers */
    int init_done;
    int volumes_ready;
    char unsched_msg[1024];
    int64_t created_seq; /* order of arrival, for the pending queue */
    /* condition transition times: PodScheduled, Initialized, ContainersReady, Ready,
     * PodReadyToStartContainers */
    int cond_status[5];
    char cond_time[5][32];
    uv_timer_t timer;
    int timer_init;
    int closing;
    int open_handles;
    kpod *hnext; /* hash chain */
};

struct ks_kubelet {
    const kl_api_ops *api;
    void *api_ctx;
    int scheduler; /* kubesim's own scheduler binds pods (api->bind_pod set) */
    ks_kubelet_options opt;
    char **image_names, **image_dirs;
    char *state_dir;
    int own_state_dir; /* defaulted: removed at stop */
    char *pods_dir;
    int slot; /* in the store observer registry (kubelet_store.c), -1 = none */
    void (*api_free)(void *api_ctx); /* called at stop, after the worker thread ended */
    knode *nodes;
    int n_nodes;
    pthread_t thread;
    int thread_started;
    uv_loop_t loop;
    uv_async_t async;
    uv_timer_t mem_timer; /* RSS sampling when no memory cgroup is available */
    pthread_mutex_t qmu;
    struct kevent *qhead, *qtail;
    int stopping;
    kpod **htab;
    size_t hcap, hcount;
    int64_t seq;
    int hosts_dirty;
    int unschedulable_count;
    /* in-cluster access (set once before serving) */
    pthread_mutex_t api_mu;
    char *api_host;
    int api_port;
    char *api_ca_pem;
    char *api_token;
    char *(*token_fn)(void *, const char *, const char *);
    void *token_arg;
};

/* ---- kubelet.c ---- */
/* Starts a kubelet over an API (the ops and ctx must outlive it): the nodes' bridges when the pod
 * network is on, Node objects, the worker thread. NULL (one log line) on failure. */
ks_kubelet *kl_start(const kl_api_ops *api, void *api_ctx, const ks_kubelet_options *opt);
/* A pod ("ADDED", "MODIFIED", "DELETED") or, services=1, a Service changed; any thread. */
void kl_enqueue(ks_kubelet *k, const char *type, const json_t *obj, int services);

/* ---- shared by kubelet.c, kubelet_run.c, kubelet_status.c, kubelet_sched.c ---- */
int64_t kl_mono_ms(void);
void kl_now_rfc3339(char *buf, size_t len);
const char *kl_meta(const json_t *o, const char *k);
void kl_random_hex(char *out, int n);
unsigned long long kl_fnv(const char *s);
void kl_event(struct ks_kubelet *k, kpod *p, const char *type, const char *reason, const char *fmt,
              ...) __attribute__((format(printf, 5, 6)));
void kl_sched_event(struct ks_kubelet *k, kpod *p, const char *type, const char *reason,
                    const char *msg);
kpod *kl_pod_find(struct ks_kubelet *k, const char *key);
void kl_pod_insert(struct ks_kubelet *k, kpod *p);
void kl_pod_unlink(struct ks_kubelet *k, kpod *p);
void kl_pod_rebind(kpod *p);
void kl_pod_unref(kpod *p);
void kl_cont_stop_poll(kcont *c);
void kl_pod_handle_closed(uv_handle_t *h);
void kl_poll_closed(uv_handle_t *h);
void kl_register_nodes(struct ks_kubelet *k);
void kl_set_cond(kpod *p, int idx, int status);
const char *kl_restart_policy(const kpod *p);
const char *kl_compute_phase(kpod *p, int *terminal);
void kl_publish(kpod *p);
void kl_publish_unschedulable(kpod *p, const char *msg);
void kl_arm(kpod *p, int64_t delay_ms);
void kl_pod_drop(kpod *p);
void kl_pod_finalize(kpod *p);
int kl_running_containers(kpod *p);
void kl_pod_begin_delete(kpod *p);
void kl_send_term(kcont *c);
void kl_run_pre_stop(kcont *c);
void kl_pod_maybe_finish_delete(kpod *p);
void kl_start_container(kcont *c);
void kl_after_termination(kcont *c);
void kl_on_container_exit(kcont *c);
void kl_pod_sync(kpod *p);
void kl_fake_running(kpod *p);
void kl_pod_start(kpod *p);
void kl_rewrite_one_hosts(struct ks_kubelet *k, kpod *p);
void kl_pod_timer_cb(uv_timer_t *t);
void kl_alloc_ip(kpod *p);
void kl_pod_release(kpod *p);
void kl_try_schedule(kpod *p);
void kl_schedule_pending(struct ks_kubelet *k);

/* ---- kubelet_store.c ---- */
void kl_store_detach(ks_kubelet *k); /* no more store callbacks reach k */

/* ---- kubelet_pod.c ---- */

/* Sum of container requests (requests default to limits) with init containers' max, per real
 * scheduler. */
void kl_pod_requests(const json_t *spec, long long *cpu_millis, long long *mem_bytes);
/* The same for an extended resource (whole units; 0 when name is NULL or not asked for). */
long long kl_pod_extended_request(const json_t *spec, const char *name);
/* "Guaranteed", "Burstable" or "BestEffort". */
const char *kl_qos_class(const json_t *spec);

/* Image directory for an image reference, or NULL when not mapped. */
const char *kl_image_dir(struct ks_kubelet *k, const char *image);

/* ---- kubelet_image.c (images in OCI form: config.json + layers/N) ---- */
typedef struct kl_image {
    json_t *root;   /* the image config */
    json_t *config; /* its "config" (Entrypoint, Cmd, Env, WorkingDir, User), borrowed */
    char **layers;  /* <dir>/layers/<i>, lowest first */
    int n_layers;
} kl_image;
/* 1 and img filled for an OCI image directory, 0 for the host-overlay form, -1 with a message. */
int kl_image_open(const char *imgdir, kl_image *img, char *msg, size_t mlen);
void kl_image_close(kl_image *img);
typedef struct kl_image_user_out {
    long long uid, gid;
    long long groups[32]; /* supplementary, from the image's /etc/group */
    int n_groups;
    char name[256], home[256];
} kl_image_user_out;
/* The container's user: the image's User (name or number, optional :group) unless overridden by
 * securityContext (uid/gid_override >= 0), resolved against the image's /etc/passwd and /etc/group.
 * 0, or -1 with the runtime's message. */
int kl_image_user(const kl_image *img, long long uid_override, long long gid_override,
                  kl_image_user_out *out, char *msg, size_t mlen);

/* Value of a fieldRef path for the pod ("metadata.name", "metadata.labels['x']",
 * "status.podIP"...). Returns a malloc'd string, or NULL with a message in err for an unsupported
 * path. */
char *kl_field_ref(kpod *p, const char *path, char *err, size_t errlen);

/* Host directory backing a volume (malloc'd): hostPath's path, <state>/pvc/<ns>/<claim>, else
 * p->dir/volumes/<name>. */
char *kl_volume_host_path(kpod *p, const json_t *vol);
/* Materialises the pod's volumes under p->dir/volumes. Returns 0, or -1 with a FailedMount message.
 */
int kl_prepare_volumes(kpod *p, char *err, size_t errlen);
/* A service-account token for a pod: the API's TokenRequest, or kubesim's token function. */
char *kl_sa_token(struct ks_kubelet *k, const char *ns, const char *sa, const char *pod,
                  const char *uid, const char *audience, long long expiration_s);
/* Writes token, ca.crt, namespace into p->dir/serviceaccount. */
void kl_prepare_service_account(kpod *p);
/* (Re)writes p->dir/hosts (in place, so bind mounts see it), resolv.conf and hostname. */
void kl_write_hosts(struct ks_kubelet *k, kpod *p, const json_t *services);
void kl_write_resolv(kpod *p);

/* Builds a container's argv, envp, mounts, workdir. On success returns 0 and malloc'd arrays freed
 * with kl_spec_free(); on failure -1 with reason (CreateContainerConfigError, ErrImagePull) and
 * message. */
typedef struct kl_spec {
    char **argv;
    char **envp;
    ks_mount *mounts;
    int n_mounts;
    char *workdir;
    char **layers; /* an OCI image's layer directories (the container's root), or NULL */
    int n_layers;
    long long memory_limit;
    long long cpu_request, cpu_limit;    /* millicores */
    long long run_as_user, run_as_group; /* -1 = unset */
    long long groups[64];
    int n_groups;
    char **strings; /* every string the above point to that was allocated here */
    int n_strings, cap_strings;
} kl_spec;
int kl_build_spec(kcont *c, kl_spec *out, char *reason, size_t rlen, char *msg, size_t mlen);
void kl_spec_free(kl_spec *s);

/* ---- kubelet_pod.c helpers shared with kubelet_volumes.c and kubelet_env.c ---- */
char *kl_read_small_file(const char *path);
const char *kl_meta_s(const json_t *obj, const char *k);
unsigned char *kl_object_key(const json_t *obj, int secret, const char *key, size_t *len);
const char *kl_res_str(const json_t *resources, const char *kind, const char *name);
const char *kl_pod_hostname(const kpod *p);
int kl_json_mode(const json_t *v, int dflt);

/* ---- kubelet_net.c (pod network namespaces on a bridge per node) ---- */
int kl_net_node_up(knode *n, char *err, size_t errlen); /* the bridge for n->pod_cidr */
int kl_net_alloc_ip(knode *n, char *out, size_t len);
void kl_net_free_ip(knode *n, const char *ip);
int kl_net_pod_up(kpod *p, char *err, size_t errlen); /* p->dir/netns with p->ip on eth0 */
void kl_net_pod_down(kpod *p);
int kl_net_add_local_address(const char *ip, char *err, size_t errlen); /* ip/32 on lo */

/* ---- kubelet_probe.c ---- */
void kl_probes_init(kcont *c); /* container started */
void kl_probes_stop(kcont *c); /* container ended or pod dropped */
int kl_probes_tick(kcont *c);  /* runs due probes; 1 when ready/started changed (publish) */

/* rm -rf */
void kl_remove_tree(const char *path);
/* mkdir -p */
int kl_mkdirs(const char *path, mode_t mode);
/* Writes len bytes to path (created/truncated), mode applied. */
int kl_write_file(const char *path, const void *data, size_t len, mode_t mode);

void kl_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
