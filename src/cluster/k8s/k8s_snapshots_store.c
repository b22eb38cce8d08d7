/*
 * k8s_snapshots_store.c — the executor pod table and the merging of snapshots into it (see
 * k8s_snapshots_store.h). In Spark's order, a pod being deleted is Deleted (not a failure of the
 * application) unless it still runs, a finished pod is handed to the lifecycle manager, and a
 * Pending one is recorded for the allocator (unschedulable ones reported once at WARN). Each pod
 * also says whether it still holds its PersistentVolumeClaims (for their reuse, k8s_claims.c).
 */
#include "cluster/k8s/k8s_snapshots_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_lifecycle_manager.h"
#include "common/clock.h"
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
    memset(t, 0, sizeof *t);
}

static const json_t *label(const json_t *pod, const char *key)
{
    return json_object_get(json_object_get(json_object_get(pod, "metadata"), "labels"), key);
}

int cs_k8s_pod_exec_id(const json_t *pod)
{
    const char *id = json_string_value(label(pod, "spark-exec-id"));
    if (!id || !*id) return -1;
    char *end;
    long v = strtol(id, &end, 10);
    return *end || v < 0 || v > INT32_MAX ? -1 : (int)v;
}

bool cs_k8s_pod_inactive(const json_t *pod)
{
    const char *v = json_string_value(label(pod, "spark-exec-inactive"));
    return v && strcmp(v, "true") == 0;
}

/* ---- merging snapshots ---------------------------------------------------------------------- */

/* Pending with PodScheduled=False: the scheduler's message, once at WARN. As Spark, the pod is
 * left to wait (for a node, or for its claim): it is never timed out once seen. */
static void note_pending(k8s_exec_pod *p, const json_t *pod)
{
    p->pending = true;
    const json_t *conds = json_object_get(json_object_get(pod, "status"), "conditions");
    bool unsched = false;
    const char *msg = NULL, *reason = NULL;
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        const char *type = json_string_value(json_object_get(c, "type"));
        const char *status = json_string_value(json_object_get(c, "status"));
        if (type && status && strcmp(type, "PodScheduled") == 0 && strcmp(status, "False") == 0) {
            unsched = true;
            msg = json_string_value(json_object_get(c, "message"));
            reason = json_string_value(json_object_get(c, "reason"));
        }
    }
    p->unschedulable = unsched;
    if (unsched && !p->unsched_reported) {
        p->unsched_reported = true;
        CS_WARN("k8s",
                "event=executor_pod_unschedulable executor=%d pod=%s reason=%s message=%s "
                "action=wait",
                p->id, cs_log_value(p->name), cs_log_value(reason ? reason : "Unschedulable"),
                cs_log_quote(msg ? msg : ""));
    }
}

void cs_k8s_store_update_pod(k8s_backend *b, const char *type, const json_t *pod)
{
    int id = cs_k8s_pod_exec_id(pod);
    if (id < 0 || cs_k8s_pod_inactive(pod)) return;
    k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, id);
    if (!p) return;
    b->pods.updates++;
    const json_t *md = json_object_get(pod, "metadata");
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    /* gone, or its containers have all ended: another pod may take its claims (also once the
     * executor was removed, as its pod may outlive it) */
    if (strcmp(type, "DELETED") == 0 ||
        (phase && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0)))
        p->released = true;
    if (p->done) return;
    if (!p->seen) {
        p->seen = true;
        p->seen_ms = cs_mono_ms();
    }
    static const char deleted[] = "The executor pod was deleted (by a user or the framework)";
    if (strcmp(type, "DELETED") == 0) {
        cs_k8s_lifecycle_executor_gone(b, p, deleted, false, false);
        return;
    }
    /* Spark's order: a pod being deleted is Deleted (not a failure of the application) unless it
     * still runs; it is removed when it goes */
    if (json_object_get(md, "deletionTimestamp") && !(phase && strcmp(phase, "Running") == 0)) {
        cs_k8s_lifecycle_executor_gone(b, p, deleted, false, false);
        return;
    }
    char why[1500];
    bool failed = false;
    if (cs_k8s_pod_ended(b->set.check_all_containers, id, pod, why, sizeof why, &failed)) {
        cs_k8s_lifecycle_executor_gone(b, p, why, failed,
                                       !json_object_get(md, "deletionTimestamp"));
        return;
    }
    if (phase && strcmp(phase, "Pending") == 0) {
        note_pending(p, pod);
    } else {
        p->pending = false;
        p->unschedulable = false;
    }
}

void cs_k8s_store_replace_snapshot(k8s_backend *b, const json_t *items, int64_t snapshot_ms,
                                   const char *source)
{
    size_t n = json_array_size(items);
    unsigned snap = ++b->pods.snapshots;
    for (size_t i = 0; i < n; i++) {
        const json_t *pod = json_array_get(items, i);
        k8s_exec_pod *listed =
            cs_k8s_pod_inactive(pod) ? NULL : cs_k8s_pods_find(&b->pods, cs_k8s_pod_exec_id(pod));
        if (listed) listed->snapshot = snap;
        cs_k8s_store_update_pod(b, "MODIFIED", pod);
    }
    b->pods.updates++;
    /* a pod that existed before the list was taken and is not in it is gone */
    for (int k = 0; k < b->pods.npods; k++) {
        k8s_exec_pod *p = &b->pods.pods[k];
        if (p->seen && p->seen_ms < snapshot_ms && p->snapshot != snap) p->released = true;
    }
    cs_k8s_lifecycle_missing(b, snap, snapshot_ms, source);
}
