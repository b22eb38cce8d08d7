/*
 * k8s_snapshots_store.c — the executor pod table and the merging of snapshots into it (see
 * k8s_snapshots_store.h). Each pod's state comes from k8s_pod_states.c; the store records it
 * for the allocator (unschedulable Pending pods reported once at WARN), notes whether the pod
 * still holds its PersistentVolumeClaims (for their reuse, k8s_claims.c), and hands every update
 * to its subscribers, which decide what a final state means.
 */
#include "cluster/k8s/k8s_snapshots_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_pod_spec.h"
#include "common/err.h"
#include "common/log.h"

/* ---- the table ------------------------------------------------------------------------------ */

k8s_exec_pod *cs_k8s_pods_find(k8s_pod_table *t, int id)
{
    return id >= 0 && id < t->cap_pos && t->pos_of[id] ? &t->pods[t->pos_of[id] - 1] : NULL;
}

/* Records where executor id lives in pods (index -1: forgotten). */
static void index_pod(k8s_pod_table *t, int id, int index)
{
    if (id >= t->cap_pos) {
        int cap = t->cap_pos ? t->cap_pos : 64;
        while (cap <= id)
            cap *= 2;
        t->pos_of = cs_xrealloc(t->pos_of, (size_t)cap * sizeof *t->pos_of);
        memset(t->pos_of + t->cap_pos, 0, (size_t)(cap - t->cap_pos) * sizeof *t->pos_of);
        t->cap_pos = cap;
    }
    t->pos_of[id] = index + 1;
}

k8s_exec_pod *cs_k8s_pods_add(k8s_pod_table *t, int id, const char *name, int64_t now_ms)
{
    if (t->npods == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->pods = cs_xrealloc(t->pods, (size_t)t->cap * sizeof *t->pods);
    }
    k8s_exec_pod *p = &t->pods[t->npods];
    memset(p, 0, sizeof *p);
    p->id = id;
    p->created_ms = now_ms;
    snprintf(p->name, sizeof p->name, "%s", name ? name : "");
    index_pod(t, id, t->npods++);
    return p;
}

static void free_claims(k8s_exec_pod *p)
{
    for (int i = 0; i < p->nclaims; i++)
        free(p->claims[i]);
    free(p->claims);
    p->claims = NULL;
    p->nclaims = 0;
}

void cs_k8s_pod_set_claims(k8s_exec_pod *p, const json_t *pod)
{
    free_claims(p);
    const json_t *vols = json_object_get(json_object_get(pod, "spec"), "volumes");
    p->claims = cs_xcalloc(json_array_size(vols) + 1, sizeof *p->claims);
    size_t i;
    const json_t *v;
    json_array_foreach(vols, i, v)
    {
        const char *claim = json_string_value(
            json_object_get(json_object_get(v, "persistentVolumeClaim"), "claimName"));
        if (claim) p->claims[p->nclaims++] = cs_xstrdup(claim);
    }
}

void cs_k8s_pods_expire(k8s_pod_table *t, int64_t now_ms, int64_t cache_ms)
{
    int w = 0;
    for (int i = 0; i < t->npods; i++) {
        k8s_exec_pod *p = &t->pods[i];
        if (p->done && now_ms - p->done_ms > cache_ms) {
            index_pod(t, p->id, -1);
            free_claims(p);
            continue;
        }
        index_pod(t, p->id, w);
        t->pods[w++] = *p;
    }
    t->npods = w;
}

void cs_k8s_pod_mark_done(k8s_exec_pod *p, int64_t now_ms)
{
    p->done = true;
    p->done_ms = now_ms;
}

void cs_k8s_pods_free(k8s_pod_table *t)
{
    for (int i = 0; i < t->npods; i++)
        free_claims(&t->pods[i]);
    free(t->pods);
    free(t->pos_of);
    free(t->subscribers);
    memset(t, 0, sizeof *t);
}

static const json_t *label(const json_t *pod, const char *key)
{
    return json_object_get(json_object_get(json_object_get(pod, "metadata"), "labels"), key);
}

int cs_k8s_pod_exec_id(const json_t *pod)
{
    const char *id = json_string_value(label(pod, "spark-exec-id"));
    /* a StatefulSet's pod (k8s_statefulset.c): executor <ordinal + 1>, the ordinal being the
     * index the StatefulSet controller labels it with */
    const char *index = json_string_value(label(pod, "apps.kubernetes.io/pod-index"));
    bool ordinal = (!id || !*id) && index && *index;
    if (ordinal) id = index;
    if (!id || !*id) return -1;
    char *end;
    long v = strtol(id, &end, 10);
    if (*end || v < 0 || v >= INT32_MAX) return -1;
    return ordinal ? (int)v + 1 : (int)v;
}

bool cs_k8s_pod_inactive(const json_t *pod)
{
    const char *v = json_string_value(label(pod, "spark-exec-inactive"));
    return v && strcmp(v, "true") == 0;
}

/* ---- merging snapshots ---------------------------------------------------------------------- */

void cs_k8s_store_add_subscriber(k8s_pod_table *t, k8s_snapshot_subscriber fn, void *arg)
{
    t->subscribers =
        cs_xrealloc(t->subscribers, (size_t)(t->nsubscribers + 1) * sizeof *t->subscribers);
    t->subscribers[t->nsubscribers].fn = fn;
    t->subscribers[t->nsubscribers++].arg = arg;
}

/* Every subscriber gets u. A subscriber may release the caller's lock: u->entry is re-found
 * before each call, and skipped once the executor is no longer kept. */
static void deliver(k8s_pod_table *t, k8s_snapshot_update *u)
{
    int id = u->entry ? u->entry->id : -1;
    for (int i = 0; i < t->nsubscribers; i++) {
        if (id >= 0 && !(u->entry = cs_k8s_pods_find(t, id))) return;
        t->subscribers[i].fn(t->subscribers[i].arg, u);
    }
}

/* Pending with PodScheduled=False: the scheduler's message, once at WARN. As Spark, the pod is
 * left to wait (for a node, or for its claim): it is never timed out once seen. */
static void warn_unschedulable(k8s_exec_pod *p, const json_t *pod)
{
    const json_t *conds = json_object_get(json_object_get(pod, "status"), "conditions");
    for (size_t i = 0; i < json_array_size(conds) && !p->unschedulable_warned; i++) {
        const json_t *c = json_array_get(conds, i);
        const char *type = json_string_value(json_object_get(c, "type"));
        const char *status = json_string_value(json_object_get(c, "status"));
        if (!type || !status || strcmp(type, "PodScheduled") != 0 || strcmp(status, "False") != 0)
            continue;
        const char *msg = json_string_value(json_object_get(c, "message"));
        const char *reason = json_string_value(json_object_get(c, "reason"));
        p->unschedulable_warned = true;
        CS_WARN("k8s",
                "event=executor_pod_unschedulable executor=%d pod=%s reason=%s message=%s "
                "action=wait",
                p->id, cs_log_value(p->name), cs_log_value(reason ? reason : "Unschedulable"),
                cs_log_quote(msg ? msg : ""));
    }
}

void cs_k8s_store_update_pod(k8s_pod_table *t, const char *type, const json_t *pod, int64_t at_ms,
                             const char *source)
{
    int id = cs_k8s_pod_exec_id(pod);
    if (id < 0 || cs_k8s_pod_inactive(pod)) return;
    k8s_exec_pod *p = cs_k8s_pods_find(t, id);
    if (!p) return;
    t->updates++;
    k8s_snapshot_update u = {
        .entry = p,
        .pod = pod,
        .status = cs_k8s_pod_status_of(pod, strcmp(type, "DELETED") == 0, K8S_EXECUTOR_CONTAINER,
                                       t->check_all_containers),
        .at_ms = at_ms,
        .source = source,
    };
    /* another pod may take its claims (also once the executor was removed: its pod may outlive
     * it) */
    if (u.status.containers_done) p->released = true;
    if (p->done) return;
    if (p->state == K8S_POD_UNSEEN) p->seen_ms = at_ms;
    p->state = u.status.state;
    if (p->state == K8S_POD_PENDING) warn_unschedulable(p, pod);
    deliver(t, &u);
}

void cs_k8s_store_replace_snapshot(k8s_pod_table *t, const json_t *items, int64_t snapshot_ms,
                                   const char *source)
{
    size_t n = json_array_size(items);
    unsigned snap = ++t->snapshots;
    for (size_t i = 0; i < n; i++) {
        const json_t *pod = json_array_get(items, i);
        k8s_exec_pod *listed =
            cs_k8s_pod_inactive(pod) ? NULL : cs_k8s_pods_find(t, cs_k8s_pod_exec_id(pod));
        if (listed) listed->snapshot = snap;
        cs_k8s_store_update_pod(t, "MODIFIED", pod, snapshot_ms, source);
    }
    t->updates++;
    /* a pod that existed before the list was taken and is not in it is gone */
    for (int k = 0; k < t->npods; k++) {
        k8s_exec_pod *p = &t->pods[k];
        if (p->state != K8S_POD_UNSEEN && p->seen_ms < snapshot_ms && p->snapshot != snap)
            p->released = true;
    }
    k8s_snapshot_update end = {.snapshot = snap, .at_ms = snapshot_ms, .source = source};
    deliver(t, &end);
}
