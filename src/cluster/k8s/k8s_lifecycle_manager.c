/*
 * k8s_lifecycle_manager.c — executors whose pods ended, were deleted or went missing (see
 * k8s_lifecycle_manager.h): the explained exit, the failure count against
 * spark.executor.maxNumFailures, and the ended pod deleted or labelled inactive.
 */
#include "cluster/k8s/k8s_lifecycle_manager.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/exit_codes.h"
#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_event_batch.h"
#include "cluster/k8s/k8s_executor_logs.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"

static const char *str_or(const json_t *v, const char *dflt)
{
    const char *s = json_string_value(v);
    return s && *s ? s : dflt;
}

/* "name: terminated, exitCode N, reason R; name: waiting, reason R; ..." into states. */
static size_t describe_containers(const json_t *cs, char *states, size_t cap)
{
    size_t sl = 0;
    for (size_t i = 0; i < json_array_size(cs) && sl < cap - 1; i++) {
        const json_t *c = json_array_get(cs, i);
        const json_t *state = json_object_get(c, "state");
        const json_t *t = json_object_get(state, "terminated");
        const json_t *w = json_object_get(state, "waiting");
        const char *name = json_string_value(json_object_get(c, "name"));
        if (t)
            sl += (size_t)snprintf(
                states + sl, cap - sl, "%s%s: terminated, exitCode %lld, reason %s", sl ? "; " : "",
                name ? name : "?", (long long)json_integer_value(json_object_get(t, "exitCode")),
                str_or(json_object_get(t, "reason"), "-"));
        else if (w)
            sl +=
                (size_t)snprintf(states + sl, cap - sl, "%s%s: waiting, reason %s", sl ? "; " : "",
                                 name ? name : "?", str_or(json_object_get(w, "reason"), "-"));
        else
            sl += (size_t)snprintf(states + sl, cap - sl, "%s%s: %s", sl ? "; " : "",
                                   name ? name : "?",
                                   json_object_get(state, "running") ? "running" : "unknown");
        if (sl >= cap) sl = cap - 1;
    }
    return sl;
}

/* Spark's message for pod, which ended in status st, into why. */
static void explain_end(int id, const json_t *pod, const k8s_pod_status *st, char *why, size_t cap)
{
    const json_t *status = json_object_get(pod, "status");
    const char *phase = json_string_value(json_object_get(status, "phase"));
    char states[600] = "";
    size_t sl =
        describe_containers(json_object_get(status, "containerStatuses"), states, sizeof states);
    char explained[256];
    if (st->exit_code >= 0)
        cs_describe_exit_code(st->exit_code, explained, sizeof explained);
    else
        snprintf(explained, sizeof explained, "exit code -1 (unknown: no terminated container)");
    snprintf(
        why, cap,
        "The executor with id %d (pod %s, phase %s) exited with %s. The API gave the following "
        "brief "
        "reason: %s. The API gave the following message: %s. The API gave the following container "
        "statuses: %s",
        id, str_or(json_object_get(json_object_get(pod, "metadata"), "name"), "?"),
        phase ? phase : "?", explained, str_or(json_object_get(status, "reason"), "N/A"),
        str_or(json_object_get(status, "message"), "N/A"), sl ? states : "none");
}

bool cs_k8s_pod_ended(bool check_all_containers, int id, const json_t *pod, char *why, size_t cap,
                      bool *failed)
{
    k8s_pod_status st =
        cs_k8s_pod_status_of(pod, false, K8S_EXECUTOR_CONTAINER, check_all_containers);
    if (st.state != K8S_POD_SUCCEEDED && st.state != K8S_POD_FAILED) return false;
    *failed = st.state == K8S_POD_FAILED;
    explain_end(id, pod, &st, why, cap);
    return true;
}

/* The ended pod goes: deleted, or labelled spark-exec-inactive=true and kept for its logs. */
static void release_pod(k8s_backend *b, const char *name)
{
    cs_error err;
    cs_error_clear(&err);
    if (b->set.delete_on_termination) {
        cs_kube_delete(b->kc, "pods", b->app.namespace_, name, -1, &err);
        return;
    }
    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "spark-exec-inactive", "true");
    if (cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) < 0 &&
        err.code != CS_ENOTFOUND)
        CS_WARN("k8s", "event=label_inactive_failed pod=%s error=%s", cs_log_value(name),
                cs_log_quote(err.msg));
    json_decref(patch);
}

/* Executor p is gone at now_ms (why explains it; failed: counts against maxNumFailures).
 * finished_pod: the pod still exists and has ended: delete it, or label it inactive. Releases the
 * lock around the API calls and the scheduler's notification. */
static void executor_gone(k8s_backend *b, k8s_exec_pod *p, const char *why, bool failed,
                          bool finished_pod, int64_t now_ms)
{
    if (p->done) return;
    cs_k8s_pod_mark_done(p, now_ms);
    int id = p->id;
    char name[256];
    snprintf(name, sizeof name, "%s", p->name);
    bool abort_now = false;
    int failures = cs_k8s_failures_count(&b->failures, now_ms);
    if (failed && !b->stopping) {
        failures = cs_k8s_failures_add(&b->failures, now_ms);
        if (failures >= b->set.max_failures && !b->exit_code) {
            b->exit_code = 11;
            abort_now = true;
        }
    }
    bool stopping = b->stopping;
    int max = b->set.max_failures;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (!stopping) {
        CS_WARN("k8s",
                "event=executor_pod_ended executor=%d pod=%s failed=%s failures=%d max=%d "
                "reason=%s",
                id, cs_log_value(name), failed ? "true" : "false", failures, max,
                cs_log_quote(why));
        char sid[32];
        snprintf(sid, sizeof sid, "%d", id);
        cs_coarse_backend_executor_exited(b->coarse, sid, why);
        if (abort_now) {
            char msg[2048];
            snprintf(
                msg, sizeof msg,
                "Max number of executor failures (%d) reached (spark.executor.maxNumFailures); "
                "the last: %s",
                max, why);
            CS_ERROR("k8s", "event=max_executor_failures failures=%d exit_code=11 reason=%s",
                     failures, cs_log_quote(msg));
            cs_scheduler_abort(b->backend->sched, msg);
        }
        /* its log goes with the pod: the end of it stays readable from the UI */
        if (finished_pod && failed && b->set.delete_on_termination)
            cs_k8s_keep_executor_log(b, id, name);
        if (finished_pod) release_pod(b, name);
    }
    pthread_mutex_lock(&b->lock);
}

bool cs_k8s_pod_missing(const k8s_settings *s, const k8s_exec_pod *p, unsigned snap,
                        int64_t snapshot_ms)
{
    if (p->done || p->state == K8S_POD_UNSEEN || snapshot_ms - p->seen_ms <= s->missing_delta_ms)
        return false;
    return p->snapshot != snap;
}

/* After full snapshot number snap taken at snapshot_ms: an executor seen before but absent from
 * it, for longer than missingPodDetectDelta since it was first seen, is removed with exit -1
 * (Spark: the driver missed its deletion). */
static void remove_missing(k8s_backend *b, unsigned snap, int64_t snapshot_ms, const char *source)
{
    int *missing = cs_xcalloc((size_t)b->pods.npods + 1, sizeof *missing);
    int nmissing = 0;
    for (int k = 0; k < b->pods.npods; k++) {
        const k8s_exec_pod *p = &b->pods.pods[k];
        if (cs_k8s_pod_missing(&b->set, p, snap, snapshot_ms)) missing[nmissing++] = p->id;
    }
    for (int i = 0; i < nmissing; i++) {
        k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, missing[i]);
        if (!p || p->done) continue;
        char why[600];
        snprintf(why, sizeof why,
                 "The executor with id %d (pod %s) was not found in the cluster at the polling "
                 "time (%s), "
                 "more than %lld ms (spark.kubernetes.executor.missingPodDetectDelta) after it was "
                 "first seen; "
                 "it may have been deleted but the driver missed the deletion event; exit code -1",
                 p->id, p->name, source, (long long)b->set.missing_delta_ms);
        executor_gone(b, p, why, false, false, snapshot_ms);
    }
    free(missing);
}

/* One update as Spark's ExecutorPodsLifecycleManager.onNewSnapshots handles a snapshot. Lock held;
 * released around API calls. */
static void handle_update(k8s_backend *b, const k8s_snapshot_update *u)
{
    if (!u->entry) {
        remove_missing(b, u->snapshot, u->at_ms, u->source);
        return;
    }
    k8s_exec_pod *p = u->entry;
    if (p->done || !cs_k8s_pod_state_final(u->status.state)) return;
    if (u->status.state == K8S_POD_DELETED) {
        /* Spark's order: a pod being deleted is Deleted (not a failure of the application)
         * unless it still runs; it is removed when it goes */
        executor_gone(b, p, "The executor pod was deleted (by a user or the framework)", false,
                      false, u->at_ms);
        return;
    }
    char why[1500];
    explain_end(p->id, u->pod, &u->status, why, sizeof why);
    executor_gone(b, p, why, u->status.state == K8S_POD_FAILED, !u->status.being_deleted, u->at_ms);
}

/* One round: every update queued since the previous one, in arrival order, then the latest full
 * snapshot's missing executors. Lock held; released around API calls (updates queued meanwhile
 * wait for the next round). */
static void run_round(k8s_backend *b, int64_t now_ms)
{
    k8s_event_batch batch = {0};
    cs_k8s_event_batch_take(&b->events, now_ms, &batch);
    for (int i = 0; i < batch.npods; i++) {
        const k8s_queued_pod *q = &batch.pods[i];
        k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, q->id);
        if (!p) continue; /* forgotten meanwhile */
        k8s_snapshot_update u = {
            .entry = p, .pod = q->pod, .status = q->status, .at_ms = q->at_ms, .source = q->source};
        handle_update(b, &u);
    }
    if (batch.full) {
        k8s_snapshot_update u = {.snapshot = batch.full_snapshot,
                                 .at_ms = batch.full_at_ms,
                                 .source = batch.full_source};
        handle_update(b, &u);
    }
    cs_k8s_event_batch_free(&batch);
}

void cs_k8s_lifecycle_on_snapshot(void *backend, const k8s_snapshot_update *u)
{
    k8s_backend *b = backend;
    /* only final states and full snapshots matter to the lifecycle */
    if (u->entry && (u->entry->done || !cs_k8s_pod_state_final(u->status.state))) return;
    cs_k8s_event_batch_add(&b->events, u);
    if (b->stopping || !b->lifecycle_started) {
        /* no rounds any more (or not yet): at once, after what waits */
        run_round(b, cs_mono_ms());
        return;
    }
    pthread_cond_broadcast(&b->cond);
}

static void *lifecycle_main(void *arg)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->stopping) {
        int64_t now = cs_mono_ms(), wait_ms;
        if (cs_k8s_event_batch_due(&b->events, now, &wait_ms)) {
            run_round(b, now);
            continue;
        }
        /* woken by every snapshot; otherwise at the next round, or to look at stopping */
        cs_cond_wait_ms(&b->cond, &b->lock, wait_ms >= 0 ? wait_ms : b->set.event_interval_ms);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

void cs_k8s_lifecycle_start(k8s_backend *b)
{
    b->events.interval_ms = b->set.event_interval_ms;
    b->lifecycle_started = pthread_create(&b->lifecycle, NULL, lifecycle_main, b) == 0;
}

void cs_k8s_lifecycle_stop(k8s_backend *b)
{
    if (b->lifecycle_started) pthread_join(b->lifecycle, NULL);
    pthread_mutex_lock(&b->lock);
    b->lifecycle_started = false;
    run_round(b, cs_mono_ms()); /* what the last round left */
    pthread_mutex_unlock(&b->lock);
}
