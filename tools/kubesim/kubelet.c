/*
 * kubelet.c — the frame of the kubesim kubelet: the queue of API changes (kl_enqueue, any thread),
 * the pod table, the worker thread with its libuv loop (pods and Services arriving, the 50 ms timer
 * for probes, preStop hooks and memory sampling), start (kl_start: nodes, their bridges, the Node
 * objects) and stop, and the container logs of ks_kubelet_pod_log. What a pod goes through is in
 * kubelet_run.c, what is reported in kubelet_status.c, kubesim's scheduler in kubelet_sched.c,
 * what a container gets in kubelet_pod.c and kubelet_env.c, probes in kubelet_probe.c, pod
 * networking in kubelet_net.c; the API itself is kubelet_store.c (kubesim's store) or
 * kubelet_http.c (any API server).
 *
 * Store or watch callbacks only queue events; everything else runs on one worker thread: one
 * uv_timer per pod (fake delay, grace deadline, restart back-off, retries), one uv_poll per running
 * container (its pidfd), one 50 ms timer. No thread per pod.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"
#include "store.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---------------- event queue (API changes, from any thread) ---------------- */

typedef struct kevent {
    struct kevent *next;
    int services;
    char type[12];
    json_t *obj;
} kevent;

void kl_enqueue(ks_kubelet *k, const char *type, const json_t *obj, int services)
{
    if (k->stopping) return;
    kevent *e = calloc(1, sizeof *e);
    if (!e) return;
    e->services = services;
    snprintf(e->type, sizeof e->type, "%s", type);
    e->obj = json_incref((json_t *)obj); /* committed objects are immutable */
    pthread_mutex_lock(&k->qmu);
    if (k->qtail)
        k->qtail->next = e;
    else
        k->qhead = e;
    k->qtail = e;
    pthread_mutex_unlock(&k->qmu);
    uv_async_send(&k->async);
}

/* ---------------- small helpers ---------------- */

int64_t kl_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void kl_now_rfc3339(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *kl_meta(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

void kl_random_hex(char *out, int n)
{
    static const char hex[] = "0123456789abcdef";
    static unsigned long long x;
    if (!x)
        x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32) ^
            0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = hex[x & 15];
    }
    out[n] = 0;
}

unsigned long long kl_fnv(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void kl_event(ks_kubelet *k, kpod *p, const char *type, const char *reason, const char *fmt, ...)
{
    if (k->opt.fake) return; /* scale mode: no events */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    k->api->record_event(k->api_ctx, p->ns, p->obj, type, reason, msg, "kubelet");
}

/* An Event reported by the scheduler (source default-scheduler). */
void kl_sched_event(ks_kubelet *k, kpod *p, const char *type, const char *reason, const char *msg)
{
    if (k->opt.fake) return;
    k->api->record_event(k->api_ctx, p->ns, p->obj, type, reason, msg, "default-scheduler");
}

/* ---------------- pod table ---------------- */

static size_t hkey(const char *s, size_t cap)
{
    return (size_t)(kl_fnv(s) & (cap - 1));
}

kpod *kl_pod_find(ks_kubelet *k, const char *key)
{
    for (kpod *p = k->htab[hkey(key, k->hcap)]; p; p = p->hnext)
        if (!strcmp(p->key, key)) return p;
    return NULL;
}

void kl_pod_insert(ks_kubelet *k, kpod *p)
{
    if (k->hcount * 2 >= k->hcap) {
        size_t ncap = k->hcap * 2;
        kpod **nt = calloc(ncap, sizeof(kpod *));
        if (nt) {
            for (size_t b = 0; b < k->hcap; b++)
                for (kpod *q = k->htab[b], *nx; q; q = nx) {
                    nx = q->hnext;
                    size_t h = hkey(q->key, ncap);
                    q->hnext = nt[h];
                    nt[h] = q;
                }
            free(k->htab);
            k->htab = nt;
            k->hcap = ncap;
        }
    }
    size_t h = hkey(p->key, k->hcap);
    p->hnext = k->htab[h];
    k->htab[h] = p;
    k->hcount++;
}

void kl_pod_unlink(ks_kubelet *k, kpod *p)
{
    kpod **pp = &k->htab[hkey(p->key, k->hcap)];
    while (*pp && *pp != p)
        pp = &(*pp)->hnext;
    if (*pp) {
        *pp = p->hnext;
        k->hcount--;
    }
}

/* container names/images are borrowed from p->obj: re-point them after obj changes */
void kl_pod_rebind(kpod *p)
{
    p->spec = json_object_get(p->obj, "spec");
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        const json_t *ct = json_array_get(
            json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
        c->name = json_string_value(json_object_get(ct, "name"));
        c->image = json_string_value(json_object_get(ct, "image"));
        if (!c->name) c->name = "";
        if (!c->image) c->image = "";
    }
}

/* A pod is freed when its table reference (taken in pod_new, dropped in pod_drop) and every libuv
 * handle it owns (timer, container polls) are gone. */
void kl_pod_unref(kpod *p)
{
    if (--p->open_handles > 0) return;
    json_decref(p->obj);
    free(p->key);
    free(p->ns);
    free(p->name);
    free(p->uid);
    free(p->dir);
    free(p->cs);
    free(p);
}

void kl_pod_handle_closed(uv_handle_t *h)
{
    kl_pod_unref(h->data);
}

void kl_poll_closed(uv_handle_t *h)
{
    kpod *p = h->data;
    free(h);
    kl_pod_unref(p);
}

void kl_cont_stop_poll(kcont *c)
{
    if (c->poll_active) {
        uv_poll_stop(c->poll);
        c->poll_active = 0;
        c->poll->data = c->pod;
        uv_close((uv_handle_t *)c->poll, kl_poll_closed);
        c->poll = NULL;
    }
}

/* ---------------- nodes and IPs ---------------- */

static kpod *pod_new(ks_kubelet *k, const char *key, json_t *obj)
{
    kpod *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->k = k;
    p->key = strdup(key);
    p->ns = strdup(kl_meta(obj, "namespace") ? kl_meta(obj, "namespace") : "default");
    p->name = strdup(kl_meta(obj, "name") ? kl_meta(obj, "name") : "");
    p->uid = strdup(kl_meta(obj, "uid") ? kl_meta(obj, "uid") : "");
    p->obj = json_incref(obj);
    p->spec = json_object_get(obj, "spec");
    p->created_seq = k->seq++;
    p->open_handles = 1; /* the table's reference */
    p->n_init = (int)json_array_size(json_object_get(p->spec, "initContainers"));
    p->n_cont = (int)json_array_size(json_object_get(p->spec, "containers"));
    p->cs = calloc((size_t)(p->n_init + p->n_cont) + 1, sizeof(kcont));
    p->init_done = p->n_init == 0;
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        c->pod = p;
        c->init = i < p->n_init;
        c->index = c->init ? i : i - p->n_init;
        c->state = CS_WAITING;
        snprintf(c->wait_reason, sizeof c->wait_reason, "%s",
                 c->init ? "PodInitializing" : "ContainerCreating");
    }
    if (p->n_init > 0)
        snprintf(p->cs[0].wait_reason, sizeof p->cs[0].wait_reason, "ContainerCreating");
    kl_pod_rebind(p);
    kl_pod_requests(p->spec, &p->cpu_req, &p->mem_req);
    p->ext_req = kl_pod_extended_request(p->spec, k->opt.node_resource_name);
    return p;
}

static void handle_pod(ks_kubelet *k, const char *type, json_t *obj)
{
    const char *ns = kl_meta(obj, "namespace"), *name = kl_meta(obj, "name"),
               *uid = kl_meta(obj, "uid");
    if (!name) return;
    char key[600];
    snprintf(key, sizeof key, "%s/%s", ns ? ns : "default", name);
    kpod *p = kl_pod_find(k, key);
    if (p && uid && strcmp(p->uid, uid)) {
        /* same name, new object: the old one is gone */
        kl_pod_drop(p);
        kl_schedule_pending(k);
        p = NULL;
    }
    if (!strcmp(type, "DELETED")) {
        if (p) {
            kl_log("INFO", "pod=%s event=removed", key);
            kl_pod_drop(p);
            kl_schedule_pending(k);
        }
        return;
    }
    int deleting = json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;
    if (!p) {
        const char *ph =
            json_string_value(json_object_get(json_object_get(obj, "status"), "phase"));
        if (ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"))) return;
        const char *node_name =
            json_string_value(json_object_get(json_object_get(obj, "spec"), "nodeName"));
        if (node_name && *node_name) {
            int ours = 0;
            for (int i = 0; i < k->n_nodes; i++)
                ours |= !strcmp(k->nodes[i].name, node_name);
            if (!ours) return;
        }
        p = pod_new(k, key, obj);
        if (!p) return;
        kl_pod_insert(k, p);
        if (deleting) {
            kl_pod_begin_delete(p);
            return;
        }
        kl_try_schedule(p);
        return;
    }
    if (p->obj != obj) {
        json_t *old = p->obj;
        p->obj = json_incref(obj);
        kl_pod_rebind(p);
        /* relabelled: headless Services may now select it, or no longer */
        const json_t *ol = json_object_get(json_object_get(old, "metadata"), "labels");
        const json_t *nl = json_object_get(json_object_get(obj, "metadata"), "labels");
        if (p->ip[0] && !k->opt.fake && (ol || nl) && !json_equal((json_t *)ol, (json_t *)nl))
            k->hosts_dirty = 1;
        json_decref(old);
    }
    if (deleting) kl_pod_begin_delete(p);
}

/* ---------------- worker ---------------- */

static void rewrite_all_hosts(ks_kubelet *k)
{
    k->hosts_dirty = 0;
    if (k->opt.fake || k->opt.cluster_dns) return;
    json_t *svcs = NULL;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b]; q; q = q->hnext) {
            if (!q->dir || q->closing || q->state == POD_DONE) continue;
            if (!svcs) svcs = k->api->list(k->api_ctx, "services", NULL);
            kl_write_hosts(k, q, svcs);
        }
    json_decref(svcs);
}

static void close_all(ks_kubelet *k)
{
    for (size_t b = 0; b < k->hcap; b++) {
        kpod *q = k->htab[b];
        while (q) {
            kpod *nx = q->hnext;
            kl_pod_drop(q);
            q = nx;
        }
    }
    uv_close((uv_handle_t *)&k->async, NULL);
    uv_close((uv_handle_t *)&k->mem_timer, NULL);
}

static void async_cb(uv_async_t *a)
{
    ks_kubelet *k = a->data;
    for (;;) {
        pthread_mutex_lock(&k->qmu);
        kevent *e = k->qhead;
        k->qhead = k->qtail = NULL;
        pthread_mutex_unlock(&k->qmu);
        if (!e) break;
        while (e) {
            kevent *nx = e->next;
            if (!k->stopping) {
                if (e->services)
                    k->hosts_dirty = 1;
                else
                    handle_pod(k, e->type, e->obj);
            }
            json_decref(e->obj);
            free(e);
            e = nx;
        }
    }
    if (k->stopping) {
        close_all(k);
        return;
    }
    if (k->hosts_dirty) rewrite_all_hosts(k);
}

static void mem_timer_cb(uv_timer_t *t)
{
    ks_kubelet *k = t->data;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b], *nx; q; q = nx) {
            nx = q->hnext;
            for (int i = 0; i < q->n_init + q->n_cont && !q->closing; i++) {
                kcont *c = &q->cs[i];
                int code;
                const char *reason;
                if (c->hook && ks_container_reap(c->hook, &code, &reason) == 0) {
                    if (code != 0)
                        kl_event(k, q, "Warning", "FailedPreStopHook",
                                 "PreStopHook failed: command exited with %d", code);
                    ks_container_free(c->hook);
                    c->hook = NULL;
                    kl_send_term(c);
                }
                if (!c->proc) continue;
                if (kl_probes_tick(c)) {
                    kl_publish(q);
                    k->hosts_dirty = 1;
                }
                ks_container_check_memory(c->proc);
                if (!c->poll_active) kl_on_container_exit(c); /* no pidfd: reap by polling */
            }
        }
    if (k->hosts_dirty) rewrite_all_hosts(k);
}

static void *worker(void *arg)
{
    ks_kubelet *k = arg;
    uv_run(&k->loop, UV_RUN_DEFAULT);
    return NULL;
}

ks_kubelet *kl_start(const kl_api_ops *api, void *api_ctx, const ks_kubelet_options *opt)
{
    ks_kubelet *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->api = api;
    k->api_ctx = api_ctx;
    k->slot = -1;
    k->opt = *opt;
    if (k->opt.nodes <= 0) k->opt.nodes = 1;
    if (k->opt.node_cpu_millis <= 0) k->opt.node_cpu_millis = 4000;
    if (k->opt.node_memory_bytes <= 0) k->opt.node_memory_bytes = 8LL << 30;
    k->image_names = calloc((size_t)opt->n_images + 1, sizeof(char *));
    k->image_dirs = calloc((size_t)opt->n_images + 1, sizeof(char *));
    for (int i = 0; i < opt->n_images; i++) {
        k->image_names[i] = strdup(opt->image_names[i]);
        char *rp = realpath(opt->image_dirs[i], NULL);
        k->image_dirs[i] = rp ? rp : strdup(opt->image_dirs[i]);
    }
    if (opt->state_dir && *opt->state_dir)
        k->state_dir = strdup(opt->state_dir);
    else if (asprintf(&k->state_dir, "/tmp/kubesim-%d", (int)getpid()) < 0)
        k->state_dir = NULL;
    else
        k->own_state_dir = 1;
    if (!k->state_dir || asprintf(&k->pods_dir, "%s/kubelet/pods", k->state_dir) < 0) {
        free(k);
        return NULL;
    }
    kl_mkdirs(k->pods_dir, 0755);
    pthread_mutex_init(&k->qmu, NULL);
    pthread_mutex_init(&k->api_mu, NULL);
    k->hcap = 1024;
    k->htab = calloc(k->hcap, sizeof(kpod *));
    if (k->opt.node_name) k->opt.nodes = 1;
    if (k->opt.pod_cidr) k->opt.pod_network = 1;
    k->n_nodes = k->opt.nodes;
    k->nodes = calloc((size_t)k->n_nodes, sizeof(knode));
    for (int i = 0; i < k->n_nodes; i++) {
        knode *n = &k->nodes[i];
        n->index = i;
        snprintf(n->name, sizeof n->name, "%s", k->opt.node_name ? k->opt.node_name : "");
        if (!k->opt.node_name) snprintf(n->name, sizeof n->name, "kubesim-node-%d", i + 1);
        /* concurrent kubesims (parallel tests) start at different ranges so pod addresses rarely
         * meet */
        n->octet = 1 + (int)(((unsigned)getpid() % 200 + (unsigned)i) % 254);
        if (k->opt.node_ip)
            snprintf(n->host_ip, sizeof n->host_ip, "%s", k->opt.node_ip);
        else
            snprintf(n->host_ip, sizeof n->host_ip, "127.%d.0.1", n->octet);
        if (k->opt.pod_cidr)
            snprintf(n->pod_cidr, sizeof n->pod_cidr, "%s", k->opt.pod_cidr);
        else if (k->opt.pod_network)
            snprintf(n->pod_cidr, sizeof n->pod_cidr, "10.244.%d.0/24", i + 1);
        n->cpu_alloc = k->opt.node_cpu_millis;
        n->mem_alloc = k->opt.node_memory_bytes;
        n->ext_alloc = k->opt.node_resource_name ? k->opt.node_resource_count : 0;
        n->pods_alloc = k->opt.max_pods > 0 ? k->opt.max_pods : k->opt.fake ? 1000000 : 110;
        n->next_ip = 2;
        char err[256];
        if (n->pod_cidr[0] && kl_net_node_up(n, err, sizeof err) != 0) {
            kl_log("ERROR", "node=%s msg=\"pod network: %s\"", n->name, err);
            free(k->nodes);
            free(k->htab);
            free(k);
            return NULL;
        }
        if (n->pod_cidr[0] && !k->opt.node_ip) /* the node's address is its bridge's */
            snprintf(n->host_ip, sizeof n->host_ip, "%s", n->gateway);
    }
    if (!k->opt.fake) {
        const ks_container_caps *caps = ks_container_probe();
        if (!caps->mount_ns || !caps->cgroup)
            kl_log(
                "WARN", "unavailable=\"%s%s%s\" msg=\"%s%s\"",
                !caps->mount_ns ? "mount+pid namespaces (needs root)" : "",
                !caps->mount_ns && !caps->cgroup ? ", " : "",
                !caps->cgroup ? "writable cgroup v1 memory controller" : "",
                !caps->mount_ns
                    ? "volumes, service-account dir, /etc/hosts and /etc/resolv.conf are not at "
                      "their "
                      "paths (env values under a mountPath are rewritten to the host directory); "
                    : "",
                !caps->cgroup
                    ? "memory limits are enforced by sampling the RSS of each container's process "
                      "group every 50 ms"
                    : "");
        kl_log("INFO",
               "mode=process nodes=%d cpu=%dm memory=%lld mountns=%d pidns=%d cgroup=%d "
               "cpucgroup=%d state=%s",
               k->n_nodes, k->opt.node_cpu_millis, k->opt.node_memory_bytes, caps->mount_ns,
               caps->pid_ns, caps->cgroup, caps->cpu_cgroup, k->state_dir);
    } else {
        kl_log("INFO", "mode=fake nodes=%d delay_ms=%d", k->n_nodes, k->opt.fake_delay_ms);
    }
    kl_register_nodes(k);
    uv_loop_init(&k->loop);
    uv_async_init(&k->loop, &k->async, async_cb);
    k->async.data = k;
    uv_timer_init(&k->loop, &k->mem_timer);
    k->mem_timer.data = k;
    if (!k->opt.fake) uv_timer_start(&k->mem_timer, mem_timer_cb, 50, 50);

    if (pthread_create(&k->thread, NULL, worker, k) != 0) {
        ks_kubelet_stop(k);
        return NULL;
    }
    k->thread_started = 1;
    return k;
}

void ks_kubelet_set_apiserver(ks_kubelet *k, const ks_kubelet_apiserver *api)
{
    if (!k || !api) return;
    pthread_mutex_lock(&k->api_mu);
    free(k->api_host);
    free(k->api_ca_pem);
    free(k->api_token);
    k->api_host = api->host ? strdup(api->host) : NULL;
    k->api_port = api->port;
    k->api_ca_pem = api->ca_pem ? strdup(api->ca_pem) : NULL;
    k->api_token = api->token ? strdup(api->token) : NULL;
    k->token_fn = api->token_fn;
    k->token_arg = api->token_arg;
    pthread_mutex_unlock(&k->api_mu);
    /* pods on the pod network reach the API server at the kubernetes Service's address: make it
     * an address of this (kubesim's own) network namespace */
    char err[256];
    if (k->opt.pod_network && api->host && strncmp(api->host, "127.", 4) &&
        kl_net_add_local_address(api->host, err, sizeof err) != 0)
        kl_log("ERROR", "msg=\"pod network: %s\"", err);
}

void ks_kubelet_stop(ks_kubelet *k)
{
    if (!k) return;
    if (k->slot >= 0) kl_store_detach(k); /* no more store callbacks */
    k->stopping = 1;
    if (k->thread_started) {
        uv_async_send(&k->async);
        pthread_join(k->thread, NULL);
    } else {
        close_all(k);
        uv_run(&k->loop, UV_RUN_DEFAULT);
    }
    uv_run(&k->loop, UV_RUN_NOWAIT);
    uv_loop_close(&k->loop);
    kevent *e = k->qhead;
    while (e) {
        kevent *nx = e->next;
        json_decref(e->obj);
        free(e);
        e = nx;
    }
    if (!k->opt.fake) ks_container_cleanup_all();
    if (k->own_state_dir) kl_remove_tree(k->state_dir);
    for (int i = 0; i < k->opt.n_images; i++) {
        free(k->image_names[i]);
        free(k->image_dirs[i]);
    }
    free(k->image_names);
    free(k->image_dirs);
    free(k->htab);
    free(k->nodes);
    free(k->state_dir);
    free(k->pods_dir);
    free(k->api_host);
    free(k->api_ca_pem);
    free(k->api_token);
    if (k->api_free) k->api_free(k->api_ctx);
    pthread_mutex_destroy(&k->qmu);
    pthread_mutex_destroy(&k->api_mu);
    free(k);
}

char *ks_kubelet_pod_log(ks_kubelet *k, const char *ns, const char *name, const char *container,
                         size_t *len)
{
    if (len) *len = 0;
    if (!k || !name) return NULL;
    if (!ns) ns = "default";
    json_t *pod = k->api->get(k->api_ctx, "pods", ns, name);
    if (!pod) return NULL;
    const json_t *cts[2] = {json_object_get(json_object_get(pod, "spec"), "containers"),
                            json_object_get(json_object_get(pod, "spec"), "initContainers")};
    const char *cname = NULL;
    if (container && *container) {
        for (int l = 0; l < 2 && !cname; l++) {
            size_t i;
            json_t *c;
            json_array_foreach(cts[l], i, c)
            {
                const char *n = json_string_value(json_object_get(c, "name"));
                if (n && !strcmp(n, container)) {
                    cname = container;
                    break;
                }
            }
        }
    } else {
        cname = json_string_value(json_object_get(json_array_get(cts[0], 0), "name"));
    }
    char *out = NULL;
    if (cname) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s_%s/%s.log", k->pods_dir, ns, name, cname);
        FILE *f = fopen(path, "re");
        if (f) {
            size_t cap = 4096, n = 0;
            out = malloc(cap);
            size_t r;
            while (out && (r = fread(out + n, 1, cap - n, f)) > 0) {
                n += r;
                if (n == cap) {
                    char *nb = realloc(out, cap * 2);
                    if (!nb) {
                        free(out);
                        out = NULL;
                        break;
                    }
                    out = nb;
                    cap *= 2;
                }
            }
            fclose(f);
            if (out && len) *len = n;
        } else if (k->opt.fake) {
            out = calloc(1, 1);
        }
    }
    json_decref(pod);
    return out;
}
