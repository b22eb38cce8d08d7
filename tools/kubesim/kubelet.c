/*
 * kubelet.c — the kubesim kubelet: registers Node objects, schedules pods by CPU/memory requests
 * and nodeSelector (Pending + PodScheduled=False/Unschedulable otherwise, retried when capacity
 * frees), runs each bound pod's init and regular containers as process trees (container.c) or, in
 * fake mode, marks them Running after a delay without processes, and reports pod status (phase,
 * conditions, containerStatuses) the way a real kubelet does; handles restartPolicy with back-off,
 * graceful deletion (preStop hook, SIGTERM, grace period, SIGKILL, ks_store_finalize_pod) and keeps
 * per-container logs for the `log` subresource. Probes live in kubelet_probe.c, what a container
 * gets (env, argv, volumes, /etc/hosts) in kubelet_pod.c.
 *
 * Called by kubesim's main through kubelet.h. Store observer callbacks (any thread) only queue
 * events; everything else runs on one worker thread with a libuv loop: one uv_timer per pod (fake
 * delay, grace deadline, restart back-off, retries), one uv_poll per running container (its pidfd),
 * one 50 ms timer for probes, preStop hooks and (without cgroups) memory sampling. No thread per
 * pod.
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

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void now_rfc3339(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *meta(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

static void random_hex(char *out, int n)
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

static unsigned long long fnv(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void event(ks_kubelet *k, kpod *p, const char *type, const char *reason, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
static void event(ks_kubelet *k, kpod *p, const char *type, const char *reason, const char *fmt,
                  ...)
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
static void sched_event(ks_kubelet *k, kpod *p, const char *type, const char *reason,
                        const char *msg)
{
    if (k->opt.fake) return;
    k->api->record_event(k->api_ctx, p->ns, p->obj, type, reason, msg, "default-scheduler");
}

/* ---------------- pod table ---------------- */

static size_t hkey(const char *s, size_t cap)
{
    return (size_t)(fnv(s) & (cap - 1));
}

static kpod *pod_find(ks_kubelet *k, const char *key)
{
    for (kpod *p = k->htab[hkey(key, k->hcap)]; p; p = p->hnext)
        if (!strcmp(p->key, key)) return p;
    return NULL;
}

static void pod_insert(ks_kubelet *k, kpod *p)
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

static void pod_unlink(ks_kubelet *k, kpod *p)
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
static void pod_rebind(kpod *p)
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
static void pod_unref(kpod *p)
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

static void pod_handle_closed(uv_handle_t *h)
{
    pod_unref(h->data);
}

static void poll_closed(uv_handle_t *h)
{
    kpod *p = h->data;
    free(h);
    pod_unref(p);
}

static void cont_stop_poll(kcont *c)
{
    if (c->poll_active) {
        uv_poll_stop(c->poll);
        c->poll_active = 0;
        c->poll->data = c->pod;
        uv_close((uv_handle_t *)c->poll, poll_closed);
        c->poll = NULL;
    }
}

/* ---------------- nodes and IPs ---------------- */

static void register_nodes(ks_kubelet *k)
{
    char ts[32];
    now_rfc3339(ts, sizeof ts);
    for (int i = 0; i < k->n_nodes; i++) {
        knode *n = &k->nodes[i];
        char cpu[32], mem[32], pods[16], cidr[32];
        if (n->cpu_alloc % 1000 == 0)
            snprintf(cpu, sizeof cpu, "%lld", n->cpu_alloc / 1000);
        else
            snprintf(cpu, sizeof cpu, "%lldm", n->cpu_alloc);
        snprintf(mem, sizeof mem, "%lldKi", n->mem_alloc / 1024);
        snprintf(pods, sizeof pods, "%d", n->pods_alloc);
        if (n->pod_cidr[0])
            snprintf(cidr, sizeof cidr, "%s", n->pod_cidr);
        else
            snprintf(cidr, sizeof cidr, "127.%d.0.0/16", n->octet);
        struct utsname un;
        char kernel[128] = "", boot[64];
        if (uname(&un) == 0) snprintf(kernel, sizeof kernel, "%s", un.release);
        snprintf(boot, sizeof boot, "%016llx", fnv(n->name) ^ (unsigned long long)getpid());
        json_t *cap = json_pack("{s:s,s:s,s:s,s:s}", "cpu", cpu, "memory", mem, "pods", pods,
                                "ephemeral-storage", "104857600Ki");
        json_t *node = json_pack(
            "{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s,s:s,s:s}},s:{s:s,s:[s]},"
            "s:{s:O,s:O,s:[{s:s,s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s,s:"
            "s,s:s},"
            "{s:s,s:s,s:s,s:s,s:s,s:s}],s:[{s:s,s:s},{s:s,s:s}],"
            "s:{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s},s:{s:{s:i}}}}",
            "apiVersion", "v1", "kind", "Node", "metadata", "name", n->name, "labels",
            "kubernetes.io/hostname", n->name, "kubernetes.io/os", "linux", "kubernetes.io/arch",
            "amd64", "beta.kubernetes.io/os", "linux", "beta.kubernetes.io/arch", "amd64", "spec",
            "podCIDR", cidr, "podCIDRs", cidr, "status", "capacity", cap, "allocatable", cap,
            "conditions", "type", "MemoryPressure", "status", "False", "reason",
            "KubeletHasSufficientMemory", "message", "kubelet has sufficient memory available",
            "lastHeartbeatTime", ts, "lastTransitionTime", ts, "type", "DiskPressure", "status",
            "False", "reason", "KubeletHasNoDiskPressure", "message",
            "kubelet has no disk pressure", "lastHeartbeatTime", ts, "lastTransitionTime", ts,
            "type", "PIDPressure", "status", "False", "reason", "KubeletHasSufficientPID",
            "message", "kubelet has sufficient PID available", "lastHeartbeatTime", ts,
            "lastTransitionTime", ts, "type", "Ready", "status", "True", "reason", "KubeletReady",
            "message", "kubelet is posting ready status", "lastHeartbeatTime", ts,
            "lastTransitionTime", ts, "addresses", "type", "InternalIP", "address", n->host_ip,
            "type", "Hostname", "address", n->name, "nodeInfo", "kubeletVersion", "v1.31.0",
            "kubeProxyVersion", "v1.31.0", "containerRuntimeVersion",
            k->opt.fake ? "kwok://kubesim" : "kubesim://1.0", "operatingSystem", "linux",
            "architecture", "amd64", "osImage", "kubesim", "kernelVersion", kernel, "machineID",
            n->name, "systemUUID", n->name, "bootID", boot, "daemonEndpoints", "kubeletEndpoint",
            "Port", 10250);
        json_decref(cap);
        if (node) k->api->put_node(k->api_ctx, node);
        json_decref(node);
    }
}

static void alloc_ip(kpod *p)
{
    knode *n = p->node;
    if (json_is_true(json_object_get(p->spec, "hostNetwork"))) {
        snprintf(p->ip, sizeof p->ip, "%s",
                 n->host_ip); /* the node's address, as with hostNetwork */
        return;
    }
    if (n->pod_cidr[0]) {
        if (kl_net_alloc_ip(n, p->ip, sizeof p->ip) == 0) p->own_ip = 1;
        return;
    }
    unsigned v;
    do {
        v = n->next_ip++;
    } while ((v & 0xFF) == 0 || (v & 0xFF) == 255 || v < 2);
    snprintf(p->ip, sizeof p->ip, "127.%d.%u.%u", n->octet, (v >> 8) & 0xFF, v & 0xFF);
}

static void pod_release(kpod *p)
{
    if (p->own_ip) {
        kl_net_free_ip(p->node, p->ip);
        p->own_ip = 0;
    }
    if (p->node && p->state != POD_DONE) {
        p->node->cpu_used -= p->cpu_req;
        p->node->mem_used -= p->mem_req;
        p->node->pods_used--;
    }
}

/* ---------------- status ---------------- */

enum { C_READYTOSTART, C_INITIALIZED, C_READY, C_CONTAINERSREADY, C_SCHEDULED };
static const char *cond_names[5] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                    "ContainersReady", "PodScheduled"};

static void set_cond(kpod *p, int idx, int status)
{
    if (p->cond_status[idx] != status + 1 || !p->cond_time[idx][0]) {
        p->cond_status[idx] = status + 1;
        now_rfc3339(p->cond_time[idx], sizeof p->cond_time[idx]);
    }
}

static const char *restart_policy(const kpod *p)
{
    const char *r = json_string_value(json_object_get(p->spec, "restartPolicy"));
    return r ? r : "Always";
}

/* kubelet's getPhase: from the regular containers' states */
static const char *compute_phase(kpod *p, int *terminal)
{
    *terminal = 0;
    const char *rp = restart_policy(p);
    if (p->state == POD_NEW || p->state == POD_UNSCHEDULABLE) return "Pending";
    if (!p->init_done) {
        for (int i = 0; i < p->n_init; i++) {
            kcont *c = &p->cs[i];
            if (c->state == CS_TERMINATED && c->term.exit_code != 0 && !strcmp(rp, "Never")) {
                *terminal = 1;
                return "Failed";
            }
        }
        return "Pending";
    }
    int running = 0, waiting = 0, stopped = 0, succeeded = 0;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->state == CS_RUNNING)
            running++;
        else if (c->state == CS_TERMINATED) {
            stopped++;
            if (c->term.exit_code == 0) succeeded++;
        } else if (c->last.set)
            stopped++;
        else
            waiting++;
    }
    if (waiting > 0) return "Pending";
    if (running > 0) return "Running";
    if (p->deleting) {
        *terminal = 1;
        return stopped == succeeded ? "Succeeded" : "Failed";
    }
    if (!strcmp(rp, "Always")) return "Running";
    /* every container stopped; with a pending restart the pod keeps running */
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].state != CS_TERMINATED) return "Running";
    *terminal = 1;
    return stopped == succeeded ? "Succeeded" : "Failed";
}

static json_t *term_json(const kterm *t)
{
    json_t *o = json_pack("{s:i,s:s,s:s,s:s}", "exitCode", t->exit_code, "reason", t->reason,
                          "startedAt", t->started_at, "finishedAt", t->finished_at);
    if (t->container_id[0]) json_object_set_new(o, "containerID", json_string(t->container_id));
    if (t->message[0]) json_object_set_new(o, "message", json_string(t->message));
    return o;
}

static json_t *container_status(kpod *p, kcont *c)
{
    json_t *state;
    if (c->state == CS_RUNNING)
        state = json_pack("{s:{s:s}}", "running", "startedAt", c->started_at);
    else if (c->state == CS_TERMINATED)
        state = json_pack("{s:o}", "terminated", term_json(&c->term));
    else {
        json_t *w =
            json_pack("{s:s}", "reason", c->wait_reason[0] ? c->wait_reason : "ContainerCreating");
        if (c->wait_message[0]) json_object_set_new(w, "message", json_string(c->wait_message));
        state = json_pack("{s:o}", "waiting", w);
    }
    json_t *last =
        c->last.set ? json_pack("{s:o}", "terminated", term_json(&c->last)) : json_object();
    char image[512], image_id[600];
    const char *img = c->image;
    if (!strchr(img, '/'))
        snprintf(image, sizeof image, "docker.io/library/%s%s", img,
                 strchr(img, ':') ? "" : ":latest");
    else
        snprintf(image, sizeof image, "%s", img);
    unsigned long long h = fnv(img);
    char base[512];
    snprintf(base, sizeof base, "%s", image);
    char *colon = strrchr(base, ':');
    if (colon && !strchr(colon, '/')) *colon = 0;
    snprintf(image_id, sizeof image_id, "%s@sha256:%016llx%016llx%016llx%016llx", base, h, h * 31,
             h * 131, h * 1031);
    int running = c->state == CS_RUNNING;
    json_t *o = json_pack("{s:s,s:o,s:o,s:b,s:i,s:s,s:s,s:b}", "name", c->name, "state", state,
                          "lastState", last, "ready", running && c->ready && !p->deleting,
                          "restartCount", c->restart_count, "image", image, "imageID",
                          c->ever_started ? image_id : "", "started", running && c->startup_done);
    if (c->container_id[0] && c->state != CS_WAITING)
        json_object_set_new(o, "containerID", json_string(c->container_id));
    return o;
}

static void publish(kpod *p)
{
    ks_kubelet *k = p->k;
    int terminal;
    const char *phase = compute_phase(p, &terminal);
    json_t *st = json_object();
    json_object_set_new(st, "phase", json_string(phase));
    json_t *conds = json_array();
    char names[1024];
    size_t nl = 0;
    names[0] = 0;
    int all_ready = 1;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].state != CS_RUNNING || !p->cs[i].ready || p->deleting) {
            all_ready = 0;
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? " " : "",
                                   p->cs[i].name);
            if (nl >= sizeof names) nl = sizeof names - 1;
        }
    set_cond(p, C_READYTOSTART, !terminal);
    set_cond(p, C_INITIALIZED, p->init_done);
    set_cond(p, C_READY, all_ready && !terminal);
    set_cond(p, C_CONTAINERSREADY, all_ready && !terminal);
    set_cond(p, C_SCHEDULED, 1);
    for (int c = 0; c < 5; c++) {
        int ok = p->cond_status[c] == 2;
        json_t *cj =
            json_pack("{s:s,s:s,s:n,s:s}", "type", cond_names[c], "status", ok ? "True" : "False",
                      "lastProbeTime", "lastTransitionTime", p->cond_time[c]);
        if (!ok && c == C_INITIALIZED) {
            char inc[512];
            size_t il = 0;
            inc[0] = 0;
            for (int i = 0; i < p->n_init; i++)
                if (!(p->cs[i].state == CS_TERMINATED && p->cs[i].term.exit_code == 0)) {
                    il += (size_t)snprintf(inc + il, sizeof inc - il, "%s%s", il ? " " : "",
                                           p->cs[i].name);
                    if (il >= sizeof inc) il = sizeof inc - 1;
                }
            json_object_set_new(cj, "reason", json_string("ContainersNotInitialized"));
            char m[600];
            snprintf(m, sizeof m, "containers with incomplete status: [%s]", inc);
            json_object_set_new(cj, "message", json_string(m));
        } else if (!ok && (c == C_READY || c == C_CONTAINERSREADY)) {
            if (terminal) {
                json_object_set_new(cj, "reason", json_string("PodCompleted"));
            } else {
                char m[1100];
                snprintf(m, sizeof m, "containers with unready status: [%s]", names);
                json_object_set_new(cj, "reason", json_string("ContainersNotReady"));
                json_object_set_new(cj, "message", json_string(m));
            }
        }
        json_array_append_new(conds, cj);
    }
    json_object_set_new(st, "conditions", conds);
    if (p->node) {
        json_object_set_new(st, "hostIP", json_string(p->node->host_ip));
        json_object_set_new(st, "hostIPs", json_pack("[{s:s}]", "ip", p->node->host_ip));
    }
    if (p->ip[0]) {
        json_object_set_new(st, "podIP", json_string(p->ip));
        json_object_set_new(st, "podIPs", json_pack("[{s:s}]", "ip", p->ip));
    }
    if (p->start_time[0]) json_object_set_new(st, "startTime", json_string(p->start_time));
    if (p->n_init) {
        json_t *a = json_array();
        for (int i = 0; i < p->n_init; i++)
            json_array_append_new(a, container_status(p, &p->cs[i]));
        json_object_set_new(st, "initContainerStatuses", a);
    }
    json_t *a = json_array();
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++)
        json_array_append_new(a, container_status(p, &p->cs[i]));
    json_object_set_new(st, "containerStatuses", a);
    json_object_set_new(st, "qosClass", json_string(kl_qos_class(p->spec)));
    k->api->set_pod_status(k->api_ctx, p->ns, p->name, p->uid, st);
}

static void publish_unschedulable(kpod *p, const char *msg)
{
    if (p->state == POD_UNSCHEDULABLE && !strcmp(p->unsched_msg, msg)) return;
    char ts[32];
    now_rfc3339(ts, sizeof ts);
    snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", msg);
    p->state = POD_UNSCHEDULABLE;
    json_t *st =
        json_pack("{s:s,s:[{s:s,s:s,s:n,s:s,s:s,s:s}],s:s}", "phase", "Pending", "conditions",
                  "type", "PodScheduled", "status", "False", "lastProbeTime", "lastTransitionTime",
                  ts, "reason", "Unschedulable", "message", msg, "qosClass", kl_qos_class(p->spec));
    p->k->api->set_pod_status(p->k->api_ctx, p->ns, p->name, p->uid, st);
    sched_event(p->k, p, "Warning", "FailedScheduling", msg);
}

/* ---------------- timers ---------------- */

static void pod_timer_cb(uv_timer_t *t);

static void arm(kpod *p, int64_t delay_ms)
{
    if (p->closing) return;
    if (!p->timer_init) {
        uv_timer_init(&p->k->loop, &p->timer);
        p->timer.data = p;
        p->timer_init = 1;
        p->open_handles++;
    }
    if (delay_ms < 0) delay_ms = 0;
    /* keep the earliest deadline */
    if (uv_is_active((uv_handle_t *)&p->timer)) {
        uint64_t due = uv_timer_get_due_in(&p->timer);
        if (due <= (uint64_t)delay_ms) return;
    }
    uv_timer_start(&p->timer, pod_timer_cb, (uint64_t)delay_ms, 0);
}

/* ---------------- pod lifecycle ---------------- */

static void schedule_pending(ks_kubelet *k);
static void pod_sync(kpod *p);
static void try_schedule(kpod *p);

static void pod_drop(kpod *p)
{
    ks_kubelet *k = p->k;
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        cont_stop_poll(c);
        kl_probes_stop(c);
        if (c->hook) {
            ks_container_free(c->hook);
            c->hook = NULL;
        }
        if (c->proc) {
            ks_container_free(c->proc); /* SIGKILLs and reaps */
            c->proc = NULL;
        }
    }
    pod_release(p);
    if (p->ip[0] && !k->opt.fake) k->hosts_dirty = 1;
    pod_unlink(k, p);
    if (p->netns) kl_net_pod_down(p);
    if (p->dir) kl_remove_tree(p->dir);
    p->closing = 1;
    if (p->timer_init) {
        uv_timer_stop(&p->timer);
        uv_close((uv_handle_t *)&p->timer, pod_handle_closed);
    }
    pod_unref(p);
}

static void pod_finalize(kpod *p)
{
    ks_kubelet *k = p->k;
    char ns[256], name[256], uid[128];
    snprintf(ns, sizeof ns, "%s", p->ns);
    snprintf(name, sizeof name, "%s", p->name);
    snprintf(uid, sizeof uid, "%s", p->uid);
    pod_drop(p);
    k->api->finalize_pod(k->api_ctx, ns, name, uid);
    schedule_pending(k);
}

static int running_containers(kpod *p)
{
    int n = 0;
    for (int i = 0; i < p->n_init + p->n_cont; i++)
        if (p->cs[i].proc) n++;
    return n;
}

static void run_pre_stop(kcont *c);

static void pod_begin_delete(kpod *p)
{
    ks_kubelet *k = p->k;
    json_t *g = json_object_get(json_object_get(p->obj, "metadata"), "deletionGracePeriodSeconds");
    long long grace = json_is_integer(g) ? json_integer_value(g) : 30;
    int64_t deadline = mono_ms() + grace * 1000;
    if (p->deleting) {
        if (p->kill_deadline && deadline < p->kill_deadline) {
            p->kill_deadline = deadline;
            arm(p, grace * 1000);
        }
        return;
    }
    p->deleting = 1;
    if (k->opt.fake || (p->state != POD_STARTING && p->state != POD_ACTIVE) ||
        running_containers(p) == 0) {
        if (!k->opt.fake && (p->state == POD_STARTING || p->state == POD_ACTIVE)) {
            /* nothing runs any more: report the final state before the object goes */
            for (int i = 0; i < p->n_init + p->n_cont; i++)
                p->cs[i].next_start_ms = 0;
            publish(p);
        }
        pod_finalize(p);
        return;
    }
    p->kill_deadline = deadline;
    for (int i = 0; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->proc) {
            event(k, p, "Normal", "Killing", "Stopping container %s", c->name);
            run_pre_stop(c);
        }
    }
    k->hosts_dirty = 1;
    arm(p, grace * 1000);
    publish(p);
}

/* SIGTERM to a container whose preStop hook (if any) is done. */
static void send_term(kcont *c)
{
    if (c->term_sent || !c->proc) return;
    c->term_sent = 1;
    ks_container_signal(c->proc, SIGTERM);
}

/* Deletion of a running container: the preStop hook first (exec or sleep; httpGet is not supported
 * and counts as done), then SIGTERM. The pod's grace deadline bounds both. */
static void run_pre_stop(kcont *c)
{
    kpod *p = c->pod;
    ks_kubelet *k = p->k;
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    const json_t *pre = json_object_get(json_object_get(ct, "lifecycle"), "preStop");
    const json_t *cmd = json_object_get(json_object_get(pre, "exec"), "command");
    const json_t *sl = json_object_get(json_object_get(pre, "sleep"), "seconds");
    if (json_array_size(cmd) > 0) {
        kl_spec spec;
        char reason[64], msg[1024], err[1024] = "";
        char **argv = calloc(json_array_size(cmd) + 1, sizeof(char *));
        size_t i;
        json_t *a;
        json_array_foreach(cmd, i, a) argv[i] =
            (char *)(json_string_value(a) ? json_string_value(a) : "");
        int rc = -1;
        if (argv && kl_build_spec(c, &spec, reason, sizeof reason, msg, sizeof msg) == 0) {
            rc = ks_container_exec(c->proc, argv, spec.envp, spec.workdir, &c->hook, err,
                                   sizeof err);
            kl_spec_free(&spec);
        } else {
            snprintf(err, sizeof err, "%s", msg);
        }
        free(argv);
        if (rc == 0) {
            kl_log("INFO", "pod=%s/%s container=%s event=prestop-hook", p->ns, p->name, c->name);
            return; /* SIGTERM when the hook ends (mem_timer_cb) */
        }
        event(k, p, "Warning", "FailedPreStopHook", "PreStopHook failed: %s", err);
    } else if (json_is_integer(sl) && json_integer_value(sl) > 0) {
        c->term_at = mono_ms() + json_integer_value(sl) * 1000;
        arm(p, json_integer_value(sl) * 1000);
        return;
    }
    send_term(c);
}

static void pod_maybe_finish_delete(kpod *p)
{
    if (!p->deleting || running_containers(p) > 0) return;
    /* containers that never ran (or wait for a restart) are reported as they are */
    publish(p);
    pod_finalize(p);
}

static void on_container_exit(kcont *c);

static void poll_cb(uv_poll_t *h, int status, int events)
{
    (void)status, (void)events;
    kcont *c = h->data;
    on_container_exit(c);
}

static int64_t backoff_ms(int restarts)
{
    if (restarts <= 0) return 0;
    int64_t d = 10000;
    for (int i = 1; i < restarts && d < 300000; i++)
        d *= 2;
    return d > 300000 ? 300000 : d;
}

static void start_container(kcont *c)
{
    kpod *p = c->pod;
    ks_kubelet *k = p->k;
    kl_spec spec;
    char reason[64] = "", msg[1024] = "";
    if (kl_build_spec(c, &spec, reason, sizeof reason, msg, sizeof msg) != 0) {
        int again = !strcmp(c->wait_reason, reason);
        if (!strcmp(reason, "ErrImagePull") && again)
            snprintf(reason, sizeof reason, "ImagePullBackOff");
        if (strcmp(c->wait_reason, reason) || strcmp(c->wait_message, msg)) {
            event(k, p, "Warning",
                  !strncmp(reason, "ErrImage", 8) || !strcmp(reason, "ImagePullBackOff") ? "Failed"
                                                                                         : "Failed",
                  "Error: %s", msg);
        }
        snprintf(c->wait_reason, sizeof c->wait_reason, "%s", reason);
        snprintf(c->wait_message, sizeof c->wait_message, "%s", msg);
        c->state = CS_WAITING;
        c->next_start_ms = mono_ms() + 2000;
        return;
    }
    char id[200], log_path[4200], prev[4300], scratch[4200], netns[4200];
    snprintf(scratch, sizeof scratch, "%s/.root-%s", p->dir, c->name);
    snprintf(netns, sizeof netns, "%s/netns", p->dir);
    snprintf(id, sizeof id, "%s-%s-%d", p->uid, c->name,
             c->restart_count + (c->ever_started ? 1 : 0));
    snprintf(log_path, sizeof log_path, "%s/%s.log", p->dir, c->name);
    snprintf(prev, sizeof prev, "%s/%s.exited", p->dir, c->name);
    unlink(prev);
    if (c->ever_started || c->term.set) {
        snprintf(prev, sizeof prev, "%s.previous", log_path);
        rename(log_path, prev);
        c->restart_count++;
        c->last = c->term;
        c->last.set = 1;
    }
    ks_container_spec cs = {.id = id,
                            .argv = spec.argv,
                            .envp = spec.envp,
                            .mounts = spec.mounts,
                            .n_mounts = spec.n_mounts,
                            .workdir = spec.workdir,
                            .hostname =
                                json_string_value(json_object_get(p->spec, "hostname"))
                                    ? json_string_value(json_object_get(p->spec, "hostname"))
                                    : p->name,
                            .log_path = log_path,
                            .memory_limit = spec.memory_limit,
                            .cpu_request = spec.cpu_request,
                            .cpu_limit = spec.cpu_limit,
                            .run_as_user = spec.run_as_user,
                            .run_as_group = spec.run_as_group,
                            .supplemental_groups = spec.groups,
                            .n_supplemental_groups = spec.n_groups,
                            .scratch_dir = scratch,
                            .netns_path = p->netns ? netns : NULL};
    char err[1024];
    if (!c->ever_started && !c->term.set)
        event(k, p, "Normal", "Pulled", "Container image \"%s\" already present on machine",
              c->image);
    char hex[65];
    random_hex(hex, 64);
    snprintf(c->container_id, sizeof c->container_id, "containerd://%s", hex);
    int rc = ks_container_start(&cs, &c->proc, err, sizeof err);
    kl_spec_free(&spec);
    c->wait_reason[0] = c->wait_message[0] = 0;
    if (rc != 0) {
        memset(&c->term, 0, sizeof c->term);
        c->term.set = 1;
        c->term.exit_code = 128;
        snprintf(c->term.reason, sizeof c->term.reason, "StartError");
        snprintf(c->term.message, sizeof c->term.message,
                 "failed to create containerd task: failed to create shim task: "
                 "OCI runtime create failed: runc create failed: unable to start container "
                 "process: %s: unknown",
                 err);
        snprintf(c->term.started_at, sizeof c->term.started_at, "1970-01-01T00:00:00Z");
        now_rfc3339(c->term.finished_at, sizeof c->term.finished_at);
        snprintf(c->term.container_id, sizeof c->term.container_id, "%s", c->container_id);
        c->state = CS_TERMINATED;
        event(k, p, "Warning", "Failed", "Error: %s", c->term.message);
        kl_log("INFO", "pod=%s/%s container=%s event=start-failed msg=\"%s\"", p->ns, p->name,
               c->name, err);
        c->proc = NULL;
        /* decide like an exit */
        c->ever_started = 1;
        return;
    }
    c->ever_started = 1;
    c->state = CS_RUNNING;
    kl_probes_init(c);
    now_rfc3339(c->started_at, sizeof c->started_at);
    event(k, p, "Normal", "Created", "Created container %s", c->name);
    event(k, p, "Normal", "Started", "Started container %s", c->name);
    kl_log("INFO", "pod=%s/%s container=%s pid=%d ip=%s event=started", p->ns, p->name, c->name,
           (int)ks_container_pid(c->proc), p->ip);
    int fd = ks_container_pidfd(c->proc);
    uv_poll_t *h = fd >= 0 ? malloc(sizeof *h) : NULL;
    if (h && uv_poll_init(&k->loop, h, fd) == 0) {
        h->data = c;
        uv_poll_start(h, UV_READABLE, poll_cb);
        c->poll = h;
        c->poll_active = 1;
        p->open_handles++;
    } else {
        free(h); /* reaped by the 50 ms timer instead */
    }
    if (!c->init) k->hosts_dirty = 1;
}

/* after a container terminated (or failed to start): restart or stay terminated */
static void after_termination(kcont *c)
{
    kpod *p = c->pod;
    const char *rp = restart_policy(p);
    int restart;
    if (p->deleting)
        restart = 0;
    else if (c->init)
        restart = c->term.exit_code != 0 && strcmp(rp, "Never");
    else
        restart = !strcmp(rp, "Always") || (!strcmp(rp, "OnFailure") && c->term.exit_code != 0);
    if (!restart) return;
    int64_t d = backoff_ms(c->restart_count);
    c->next_start_ms = mono_ms() + d;
    if (d > 0) {
        c->state = CS_WAITING;
        snprintf(c->wait_reason, sizeof c->wait_reason, "CrashLoopBackOff");
        snprintf(c->wait_message, sizeof c->wait_message,
                 "back-off %llds restarting failed container=%s pod=%s_%s(%s)",
                 (long long)(d / 1000), c->name, p->name, p->ns, p->uid);
        c->last = c->term;
        c->last.set = 1;
        event(p->k, p, "Warning", "BackOff",
              "Back-off restarting failed container %s in pod %s_%s(%s)", c->name, p->name, p->ns,
              p->uid);
    } else {
        c->state = CS_WAITING;
        c->wait_reason[0] = 0;
    }
}

/* terminationMessagePolicy FallbackToLogsOnError: the end of the log (at most 80 lines and 2048
 * bytes, as the kubelet; here also bounded by the status field) becomes state.terminated.message.
 */
static void fallback_message(kcont *c)
{
    kpod *p = c->pod;
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    const char *pol = json_string_value(json_object_get(ct, "terminationMessagePolicy"));
    if (!pol || strcmp(pol, "FallbackToLogsOnError") || !p->dir) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.log", p->dir, c->name);
    FILE *f = fopen(path, "re");
    if (!f) return;
    size_t cap = sizeof c->term.message - 1;
    if (cap > 2048) cap = 2048;
    char buf[2049];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long off = size > (long)cap ? size - (long)cap : 0;
    fseek(f, off, SEEK_SET);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    buf[n] = 0;
    char *start = buf;
    int lines = 0;
    for (char *q = buf + n; q > buf; q--)
        if (q[-1] == '\n' && q != buf + n && ++lines >= 80) {
            start = q;
            break;
        }
    size_t l = strlen(start);
    if (l >= sizeof c->term.message) {
        start += l - (sizeof c->term.message - 1); /* keep the end */
        l = sizeof c->term.message - 1;
    }
    memcpy(c->term.message, start, l);
    c->term.message[l] = 0;
}

static void on_container_exit(kcont *c)
{
    kpod *p = c->pod;
    if (!c->proc) return;
    int code;
    const char *reason;
    if (ks_container_reap(c->proc, &code, &reason) != 0) return; /* spurious */
    cont_stop_poll(c);
    kl_probes_stop(c);
    ks_container_free(c->proc);
    c->proc = NULL;
    memset(&c->term, 0, sizeof c->term);
    c->term.set = 1;
    c->term.exit_code = code;
    snprintf(c->term.reason, sizeof c->term.reason, "%s", reason);
    snprintf(c->term.started_at, sizeof c->term.started_at, "%s", c->started_at);
    now_rfc3339(c->term.finished_at, sizeof c->term.finished_at);
    snprintf(c->term.container_id, sizeof c->term.container_id, "%s", c->container_id);
    if (code != 0) fallback_message(c);
    c->state = CS_TERMINATED;
    kl_log("INFO", "pod=%s/%s container=%s exitCode=%d reason=%s event=terminated", p->ns, p->name,
           c->name, code, reason);
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/%s.exited", p->dir, c->name);
    kl_write_file(marker, "", 0, 0644); /* ends `kubectl logs -f` (node_agent.c) */
    if (!c->init) p->k->hosts_dirty = 1;
    if (p->deleting) {
        pod_maybe_finish_delete(p);
        return;
    }
    after_termination(c);
    pod_sync(p);
}

/* Drives a bound pod forward: volumes, init containers in order, then the containers; publishes
 * status. */
static void pod_sync(kpod *p)
{
    ks_kubelet *k = p->k;
    if (p->deleting || p->state == POD_DONE || p->closing) return;
    int64_t now = mono_ms();
    if (!p->netns && p->node->pod_cidr[0] &&
        !json_is_true(json_object_get(p->spec, "hostNetwork"))) {
        /* the pod sandbox: its network namespace on the node's bridge */
        char err[512];
        if (!p->ip[0]) alloc_ip(p);
        if (!p->ip[0] || kl_net_pod_up(p, err, sizeof err) != 0) {
            if (!p->ip[0]) snprintf(err, sizeof err, "no free address in %s", p->node->pod_cidr);
            if (strcmp(p->unsched_msg, err)) {
                snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", err);
                event(k, p, "Warning", "FailedCreatePodSandBox",
                      "Failed to create pod sandbox: plugin type=\"bridge\" failed (add): %s", err);
                kl_log("WARN", "pod=%s/%s event=sandbox-failed msg=\"%s\"", p->ns, p->name, err);
            }
            arm(p, 2000);
            return;
        }
        p->netns = 1;
        p->unsched_msg[0] = 0;
    }
    if (!p->volumes_ready) {
        char err[1024];
        if (kl_prepare_volumes(p, err, sizeof err) != 0) {
            if (strcmp(p->unsched_msg, err)) {
                snprintf(p->unsched_msg, sizeof p->unsched_msg, "%s", err);
                event(k, p, "Warning", "FailedMount", "%s", err);
            }
            arm(p, 1000);
            return;
        }
        p->unsched_msg[0] = 0;
        p->volumes_ready = 1;
    }
    int64_t next = -1;
    if (!p->init_done) {
        for (int i = 0; i < p->n_init; i++) {
            kcont *c = &p->cs[i];
            if (c->state == CS_TERMINATED && c->term.exit_code == 0) continue;
            if (c->state == CS_RUNNING) goto publish;
            if (c->state == CS_TERMINATED) {
                after_termination(c);
                if (c->state == CS_TERMINATED) goto publish; /* failed for good */
            }
            if (c->next_start_ms <= now) {
                start_container(c);
                if (c->state == CS_TERMINATED) { /* could not start */
                    after_termination(c);
                    pod_sync(p);
                    return;
                }
            }
            if (c->state == CS_WAITING) next = c->next_start_ms - now;
            goto publish;
        }
        p->init_done = 1;
    }
    p->state = POD_ACTIVE;
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        if (c->state != CS_WAITING) continue;
        if (c->next_start_ms <= now) {
            start_container(c);
            if (c->state == CS_TERMINATED) {
                after_termination(c);
                if (c->state == CS_WAITING)
                    i--; /* immediate retry only when no back-off: after_termination set
                            next_start_ms */
                continue;
            }
        }
        if (c->state == CS_WAITING) {
            int64_t d = c->next_start_ms - now;
            if (next < 0 || d < next) next = d;
        }
    }
publish:
    if (next >= 0) arm(p, next < 10 ? 10 : next);
    publish(p);
    int terminal;
    compute_phase(p, &terminal);
    if (terminal) {
        pod_release(p);
        p->state = POD_DONE;
        kl_log("INFO", "pod=%s/%s event=terminal", p->ns, p->name);
        schedule_pending(k);
    }
}

static void fake_running(kpod *p)
{
    p->state = POD_ACTIVE;
    p->init_done = 1;
    for (int i = 0; i < p->n_init; i++) {
        kcont *c = &p->cs[i];
        c->state = CS_TERMINATED;
        c->ever_started = 1;
        c->term.set = 1;
        snprintf(c->term.reason, sizeof c->term.reason, "Completed");
        now_rfc3339(c->term.started_at, sizeof c->term.started_at);
        snprintf(c->term.finished_at, sizeof c->term.finished_at, "%s", c->term.started_at);
    }
    for (int i = p->n_init; i < p->n_init + p->n_cont; i++) {
        kcont *c = &p->cs[i];
        char hex[65];
        random_hex(hex, 64);
        snprintf(c->container_id, sizeof c->container_id, "containerd://%s", hex);
        c->state = CS_RUNNING;
        c->ever_started = 1;
        c->ready = c->startup_done = 1;
        now_rfc3339(c->started_at, sizeof c->started_at);
    }
    publish(p);
}

static void pod_timer_cb(uv_timer_t *t)
{
    kpod *p = t->data;
    ks_kubelet *k = p->k;
    if (p->closing) return;
    if (p->deleting) {
        int64_t now = mono_ms();
        for (int i = 0; i < p->n_init + p->n_cont; i++) {
            kcont *c = &p->cs[i];
            if (c->term_at && !c->term_sent) {
                if (now >= c->term_at - 5)
                    send_term(c);
                else
                    arm(p, c->term_at - now);
            }
        }
        if (p->kill_deadline && !p->killed_hard && now < p->kill_deadline - 5) {
            arm(p, p->kill_deadline -
                       now); /* an earlier timer (a back-off, a preStop sleep) fired first */
            return;
        }
        if (p->kill_deadline && !p->killed_hard) {
            p->killed_hard = 1;
            for (int i = 0; i < p->n_init + p->n_cont; i++) {
                if (p->cs[i].hook) ks_container_signal(p->cs[i].hook, SIGKILL);
                if (p->cs[i].proc) ks_container_signal(p->cs[i].proc, SIGKILL);
            }
            kl_log("INFO", "pod=%s/%s event=grace-expired action=SIGKILL", p->ns, p->name);
        }
        return;
    }
    if (k->opt.fake) {
        if (p->state == POD_STARTING) fake_running(p);
        return;
    }
    pod_sync(p);
}

static void rewrite_one_hosts(ks_kubelet *k, kpod *p)
{
    json_t *svcs = k->api->list(k->api_ctx, "services", NULL);
    kl_write_hosts(k, p, svcs);
    json_decref(svcs);
}

static void pod_start(kpod *p)
{
    ks_kubelet *k = p->k;
    now_rfc3339(p->start_time, sizeof p->start_time);
    alloc_ip(p);
    p->state = POD_STARTING;
    if (k->opt.fake) {
        if (k->opt.fake_delay_ms <= 0) {
            fake_running(p);
        } else {
            publish(p);
            arm(p, k->opt.fake_delay_ms);
        }
        return;
    }
    if (asprintf(&p->dir, "%s/%s_%s", k->pods_dir, p->ns, p->name) < 0) {
        p->dir = NULL;
        return;
    }
    kl_remove_tree(p->dir);
    kl_mkdirs(p->dir, 0755);
    kl_write_resolv(p);
    if (!k->api->sa_token) /* kubesim; a real API server's admission mounts a projected token */
        kl_prepare_service_account(p);
    rewrite_one_hosts(k, p);
    kl_log("INFO", "pod=%s/%s node=%s ip=%s event=starting", p->ns, p->name, p->node->name, p->ip);
    publish(p);
    pod_sync(p);
}

static int node_selector_ok(const kpod *p, const knode *n)
{
    const json_t *sel = json_object_get(p->spec, "nodeSelector");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)sel, key, v)
    {
        const char *want = json_string_value(v);
        const char *have = NULL;
        if (!strcmp(key, "kubernetes.io/hostname"))
            have = n->name;
        else if (!strcmp(key, "kubernetes.io/os") || !strcmp(key, "beta.kubernetes.io/os"))
            have = "linux";
        else if (!strcmp(key, "kubernetes.io/arch") || !strcmp(key, "beta.kubernetes.io/arch"))
            have = "amd64";
        if (!have || !want || strcmp(have, want)) return 0;
    }
    return 1;
}

static void bind_to(kpod *p, knode *n)
{
    p->node = n;
    n->cpu_used += p->cpu_req;
    n->mem_used += p->mem_req;
    n->pods_used++;
}

static void try_schedule(kpod *p)
{
    ks_kubelet *k = p->k;
    const char *node_name = json_string_value(json_object_get(p->spec, "nodeName"));
    if (node_name && *node_name) {
        for (int i = 0; i < k->n_nodes; i++)
            if (!strcmp(k->nodes[i].name, node_name)) {
                bind_to(p, &k->nodes[i]);
                pod_start(p);
                return;
            }
        return; /* bound to a node no kubelet serves: stays Pending, as in a real cluster */
    }
    const char *sched = json_string_value(json_object_get(p->spec, "schedulerName"));
    if (sched && *sched && strcmp(sched, "default-scheduler")) return; /* another scheduler's pod */
    int n_sel = 0, n_cpu = 0, n_mem = 0, n_pods = 0;
    knode *best = NULL;
    for (int i = 0; i < k->n_nodes; i++) {
        knode *n = &k->nodes[i];
        if (!node_selector_ok(p, n)) {
            n_sel++;
            continue;
        }
        int fits = 1;
        if (n->pods_used + 1 > n->pods_alloc) {
            n_pods++;
            fits = 0;
        }
        if (n->cpu_used + p->cpu_req > n->cpu_alloc) {
            n_cpu++;
            fits = 0;
        }
        if (n->mem_used + p->mem_req > n->mem_alloc) {
            n_mem++;
            fits = 0;
        }
        if (fits && (!best || n->mem_alloc - n->mem_used > best->mem_alloc - best->mem_used))
            best = n;
    }
    if (!best) {
        char msg[256], parts[200] = "";
        size_t l = 0;
        if (n_cpu)
            l += (size_t)snprintf(parts + l, sizeof parts - l, "%s%d Insufficient cpu",
                                  l ? ", " : "", n_cpu);
        if (n_mem)
            l += (size_t)snprintf(parts + l, sizeof parts - l, "%s%d Insufficient memory",
                                  l ? ", " : "", n_mem);
        if (n_sel)
            l += (size_t)snprintf(parts + l, sizeof parts - l,
                                  "%s%d node(s) didn't match Pod's node affinity/selector",
                                  l ? ", " : "", n_sel);
        if (n_pods)
            l += (size_t)snprintf(parts + l, sizeof parts - l, "%s%d Too many pods", l ? ", " : "",
                                  n_pods);
        snprintf(msg, sizeof msg, "0/%d nodes are available: %s.", k->n_nodes, parts);
        if (p->state != POD_UNSCHEDULABLE)
            kl_log("INFO", "pod=%s/%s event=unschedulable msg=\"%s\"", p->ns, p->name, msg);
        publish_unschedulable(p, msg);
        return;
    }
    if (!k->api->bind_pod || k->api->bind_pod(k->api_ctx, p->ns, p->name, best->name) != 0) return;
    bind_to(p, best);
    char smsg[600];
    snprintf(smsg, sizeof smsg, "Successfully assigned %s/%s to %s", p->ns, p->name, best->name);
    sched_event(k, p, "Normal", "Scheduled", smsg);
    pod_start(p);
}

typedef struct pend {
    kpod *p;
} pend;

static int cmp_seq(const void *a, const void *b)
{
    const kpod *x = ((const pend *)a)->p, *y = ((const pend *)b)->p;
    return x->created_seq < y->created_seq ? -1 : x->created_seq > y->created_seq;
}

/* Retries unschedulable pods in arrival order (capacity was freed). */
static void schedule_pending(ks_kubelet *k)
{
    size_t n = 0;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b]; q; q = q->hnext)
            if (q->state == POD_UNSCHEDULABLE && !q->deleting) n++;
    if (!n) return;
    pend *list = calloc(n, sizeof *list);
    if (!list) return;
    size_t i = 0;
    for (size_t b = 0; b < k->hcap; b++)
        for (kpod *q = k->htab[b]; q; q = q->hnext)
            if (q->state == POD_UNSCHEDULABLE && !q->deleting) list[i++].p = q;
    qsort(list, n, sizeof *list, cmp_seq);
    for (i = 0; i < n; i++)
        try_schedule(list[i].p);
    free(list);
}

static kpod *pod_new(ks_kubelet *k, const char *key, json_t *obj)
{
    kpod *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->k = k;
    p->key = strdup(key);
    p->ns = strdup(meta(obj, "namespace") ? meta(obj, "namespace") : "default");
    p->name = strdup(meta(obj, "name") ? meta(obj, "name") : "");
    p->uid = strdup(meta(obj, "uid") ? meta(obj, "uid") : "");
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
    pod_rebind(p);
    kl_pod_requests(p->spec, &p->cpu_req, &p->mem_req);
    return p;
}

static void handle_pod(ks_kubelet *k, const char *type, json_t *obj)
{
    const char *ns = meta(obj, "namespace"), *name = meta(obj, "name"), *uid = meta(obj, "uid");
    if (!name) return;
    char key[600];
    snprintf(key, sizeof key, "%s/%s", ns ? ns : "default", name);
    kpod *p = pod_find(k, key);
    if (p && uid && strcmp(p->uid, uid)) {
        /* same name, new object: the old one is gone */
        pod_drop(p);
        schedule_pending(k);
        p = NULL;
    }
    if (!strcmp(type, "DELETED")) {
        if (p) {
            kl_log("INFO", "pod=%s event=removed", key);
            pod_drop(p);
            schedule_pending(k);
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
        pod_insert(k, p);
        if (deleting) {
            pod_begin_delete(p);
            return;
        }
        try_schedule(p);
        return;
    }
    if (p->obj != obj) {
        json_t *old = p->obj;
        p->obj = json_incref(obj);
        pod_rebind(p);
        /* relabelled: headless Services may now select it, or no longer */
        const json_t *ol = json_object_get(json_object_get(old, "metadata"), "labels");
        const json_t *nl = json_object_get(json_object_get(obj, "metadata"), "labels");
        if (p->ip[0] && !k->opt.fake && (ol || nl) && !json_equal((json_t *)ol, (json_t *)nl))
            k->hosts_dirty = 1;
        json_decref(old);
    }
    if (deleting) pod_begin_delete(p);
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
            pod_drop(q);
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
                        event(k, q, "Warning", "FailedPreStopHook",
                              "PreStopHook failed: command exited with %d", code);
                    ks_container_free(c->hook);
                    c->hook = NULL;
                    send_term(c);
                }
                if (!c->proc) continue;
                if (kl_probes_tick(c)) {
                    publish(q);
                    k->hosts_dirty = 1;
                }
                ks_container_check_memory(c->proc);
                if (!c->poll_active) on_container_exit(c); /* no pidfd: reap by polling */
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
    register_nodes(k);
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
