/*
 * kubelet_store.c — the kubelet over kubesim's own store (in process): the kl_api_ops that read and
 * write objects with the store's functions, the observer registry that turns store changes into
 * kubelet events, and ks_kubelet_start(), kubesim's entry point. Here the kubelet also schedules
 * (kubesim has no kube-scheduler): bind_pod is the store's binding, and scheduler Events carry the
 * source default-scheduler.
 *
 * Called by kubesim's main (ks_kubelet_start) and by kubelet.c through the ops. The registry lives
 * as long as the process: the store cannot unregister an observer, so a stopped kubelet's slot
 * stays taken and merely points nowhere.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"
#include "store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KUBELETS 16
static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static ks_kubelet *g_reg[MAX_KUBELETS];
static int g_reg_used[MAX_KUBELETS];

static void observe_cb(void *arg, const char *type, const json_t *obj, int services)
{
    int slot = (int)(intptr_t)arg;
    pthread_mutex_lock(&g_reg_mu);
    ks_kubelet *k = g_reg[slot];
    if (k) kl_enqueue(k, type, obj, services);
    pthread_mutex_unlock(&g_reg_mu);
}

static void observe_pods(void *arg, const char *type, const json_t *obj)
{
    observe_cb(arg, type, obj, 0);
}

static void observe_services(void *arg, const char *type, const json_t *obj)
{
    observe_cb(arg, type, obj, 1);
}

void kl_store_detach(ks_kubelet *k)
{
    pthread_mutex_lock(&g_reg_mu);
    if (k->slot >= 0) g_reg[k->slot] = NULL; /* the slot stays used: the store keeps its observer */
    k->stopping = 1;
    pthread_mutex_unlock(&g_reg_mu);
}

/* ---------------- the ops ---------------- */

static json_t *st_get(void *ctx, const char *resource, const char *ns, const char *name)
{
    return ks_store_get(ctx, resource, ns, name);
}

static json_t *st_list(void *ctx, const char *resource, const char *ns)
{
    json_t *a = ks_store_list(ctx, resource, ns);
    return a ? a : json_array();
}

static void st_put_node(void *ctx, const json_t *node)
{
    if (ks_store_put_node(ctx, json_deep_copy(node)) != 0)
        kl_log("WARN", "node=%s msg=\"registering the Node object failed\"",
               json_string_value(json_object_get(json_object_get(node, "metadata"), "name")));
}

static void st_set_pod_status(void *ctx, const char *ns, const char *name, const char *uid,
                              json_t *status)
{
    (void)uid;
    ks_store_set_pod_status(ctx, ns, name, status);
}

static void st_finalize_pod(void *ctx, const char *ns, const char *name, const char *uid)
{
    (void)uid;
    ks_store_finalize_pod(ctx, ns, name);
}

static void st_record_event(void *ctx, const char *ns, const json_t *pod, const char *type,
                            const char *reason, const char *message, const char *component)
{
    if (strcmp(component, "default-scheduler") != 0) {
        ks_store_record_event(ctx, ns, pod, type, reason, message);
        return;
    }
    /* built like ks_store_record_event's, with the scheduler as source */
    const json_t *md = json_object_get(pod, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    char ts[32], gen[300];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(gen, sizeof gen, "%s.", name ? name : "pod");
    json_t *ev = json_pack(
        "{s:{s:s},s:{s:s,s:s,s:s,s:s?,s:s?,s:s?},s:s,s:s,s:s,s:{s:s},s:s,s:s,s:i,s:s,s:s}",
        "metadata", "generateName", gen, "involvedObject", "kind", "Pod", "apiVersion", "v1",
        "namespace", ns, "name", name, "uid", json_string_value(json_object_get(md, "uid")),
        "resourceVersion", json_string_value(json_object_get(md, "resourceVersion")), "type", type,
        "reason", reason, "message", message, "source", "component", "default-scheduler",
        "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "reportingComponent",
        "default-scheduler", "action", !strcmp(reason, "Scheduled") ? "Binding" : "Scheduling");
    if (ev) ks_store_create(ctx, "events", ns, ev, NULL, NULL);
}

static int st_bind_pod(void *ctx, const char *ns, const char *name, const char *node)
{
    return ks_store_bind_pod(ctx, ns, name, node);
}

static const kl_api_ops g_store_ops = {
    .get = st_get,
    .list = st_list,
    .put_node = st_put_node,
    .set_pod_status = st_set_pod_status,
    .finalize_pod = st_finalize_pod,
    .record_event = st_record_event,
    .bind_pod = st_bind_pod,
    .sa_token = NULL, /* kubesim signs no tokens: see kl_sa_token */
};

ks_kubelet *ks_kubelet_start(ks_store *s, const ks_kubelet_options *opt)
{
    ks_kubelet *k = kl_start(&g_store_ops, s, opt);
    if (!k) return NULL;
    pthread_mutex_lock(&g_reg_mu);
    for (int i = 0; i < MAX_KUBELETS; i++)
        if (!g_reg_used[i]) {
            g_reg_used[i] = 1;
            g_reg[i] = k;
            k->slot = i;
            break;
        }
    pthread_mutex_unlock(&g_reg_mu);
    if (k->slot < 0) {
        kl_log("ERROR", "msg=\"too many kubelets in one process\"");
        ks_kubelet_stop(k);
        return NULL;
    }
    /* existing pods first, then live changes */
    ks_store_observe(s, "pods", observe_pods, (void *)(intptr_t)k->slot);
    ks_store_observe(s, "services", observe_services, (void *)(intptr_t)k->slot);
    json_t *pods = ks_store_list(s, "pods", NULL);
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) observe_pods((void *)(intptr_t)k->slot, "ADDED", pod);
    json_decref(pods);
    return k;
}
