/*
 * k8s_backend.c — executor pods for a k8s:// master (see k8s_backend.h), after Spark 4.1's
 * ExecutorPodsAllocator, snapshot sources and ExecutorPodsLifecycleManager
 * (docs/kubernetes-backend.md describes the rules and the keys):
 *
 *  - allocator thread: every spark.kubernetes.allocation.batch.delay (1 s), or at once when a
 *    snapshot shows the previous batch, creates up to spark.kubernetes.allocation.batch.size (10)
 *    pods until spark.executor.instances are alive, capped by
 *    spark.kubernetes.allocation.maxPendingPods (pending + not yet seen) and paced by
 *    cspark.kubernetes.allocation.maxCreateRate (token bucket, 50 pods/s). A batch whose pods have
 *    not all been seen in a snapshot blocks the next one; a pod unseen after
 *    spark.kubernetes.allocation.executor.timeout (600 s, at least 5 × batch delay) is deleted and
 *    replaced, and so is (a cspark addition) a pod that stays unschedulable that long. Creating
 *    more than spark.kubernetes.allocation.maximum pods fails the application.
 *  - snapshots: one label-selected watch (spark-app-selector=<app>, spark-role=executor) that
 *    lists first and re-lists after 410 Gone (src/kube/kube_watch.c), and a full LIST every
 *    spark.kubernetes.executor.apiPollingInterval (30 s) without spark-exec-inactive pods;
 *    spark.kubernetes.executor.enableApiWatcher / enableApiPolling switch either off.
 *  - lifecycle: a Failed or Succeeded pod (any container terminated non-zero counts as failed,
 *    spark.kubernetes.executor.checkAllContainers) or a deleted one is an executor lost, with the
 *    exit code explained and the pod's reason, message and container statuses; failed pods are
 *    deleted (spark.kubernetes.executor.deleteOnTermination) or labelled spark-exec-inactive=true;
 *    an executor missing from a full snapshot for longer than
 *    spark.kubernetes.executor.missingPodDetectDelta is removed (exit -1, missed deletion event);
 *    removed executors are remembered for spark.kubernetes.executor.deletedExecutorsCacheTimeout;
 *    failures reaching spark.executor.maxNumFailures fail every job and the driver exits 11.
 *  - dynamic allocation: the allocation manager sets the target (request_total); when the
 *    pods outnumber it, excess requests not seen yet and Pending pods older than
 *    spark.dynamicAllocation.executorIdleTimeout are deleted (Spark's rule; Running pods never
 *    are). Executors it removes (remove_executors) are told over RPC to exit or decommission,
 *    their pods get spark.kubernetes.executor.decommissionLabel when set, and pods still there
 *    after spark.kubernetes.dynamicAllocation.deleteGracePeriod (5 s) are deleted.
 *  - stop: StopExecutor to every executor, then delete the executor pods (unless
 *    deleteOnTermination=false), the executor ConfigMap and (client mode) the authentication
 *    Secret.
 */
#define _GNU_SOURCE
#include "cluster/k8s/k8s_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/context.h"
#include "cluster/coarse_backend.h"
#include "cluster/exit_codes.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/sync.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_watch.h"

typedef struct exec_pod {
    int id;
    char name[256];
    int64_t created_ms; /* requested */
    int64_t seen_ms;    /* first seen in a snapshot */
    int64_t done_ms;    /* removed (start of its time in the removed-executors cache) */
    bool seen;          /* appeared in a snapshot */
    bool done;          /* removed: failed, succeeded, deleted, missing or timed out */
    bool pending;       /* last seen in phase Pending */
    bool unschedulable; /* Pending with PodScheduled=False */
    bool unsched_reported;
    unsigned snapshot;    /* the full snapshot that last listed it */
    int64_t delete_at_ms; /* removed by dynamic allocation: delete the pod then, 0 = no */
} exec_pod;

typedef struct k8s_backend {
    sched_backend base;
    coarse_backend *coarse;
    cspark_context *sc;
    kube_client *kc;
    k8s_app app;
    bool app_ready;
    json_t *driver_pod; /* owner of everything we create; NULL in client mode without one */
    char driver_url[600];
    char *secret;
    char exec_app_file[512];
    int target, batch_size, cores;
    int64_t batch_delay_ms, executor_timeout_ms;
    int64_t poll_interval_ms, missing_delta_ms, deleted_cache_ms;
    int64_t max_pending, allocation_maximum;
    int64_t idle_timeout_ms, delete_grace_ms; /* dynamic allocation */
    char *decom_label, *decom_label_value;
    double max_create_rate, tokens;
    int64_t tokens_ms;
    bool enable_polling, enable_watcher;
    int max_failures, failures, exit_code;
    bool delete_on_termination, check_all_containers, delete_service;
    bool created_secret, created_exec_cm, in_driver_pod;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    exec_pod *pods;
    int npods, cap;
    int *pos_of; /* executor id -> 1 + index in pods, 0 when not kept (ids are small and dense) */
    int cap_pos;
    unsigned snapshots; /* full snapshots taken so far */
    int next_id;
    kube_watch *watch;
    pthread_t allocator, poller;
    bool allocator_started, poller_started, stopping;
} k8s_backend;

static int64_t mono_ms(void)
{
    return cs_now_ns() / 1000000;
}

static exec_pod *find_pod(k8s_backend *b, int id)
{
    return id >= 0 && id < b->cap_pos && b->pos_of[id] ? &b->pods[b->pos_of[id] - 1] : NULL;
}

/* Records where executor id lives in pods (index -1: forgotten). Lock held. */
static void index_pod(k8s_backend *b, int id, int index)
{
    if (id >= b->cap_pos) {
        int cap = b->cap_pos ? b->cap_pos : 64;
        while (cap <= id)
            cap *= 2;
        b->pos_of = cs_xrealloc(b->pos_of, (size_t)cap * sizeof *b->pos_of);
        memset(b->pos_of + b->cap_pos, 0, (size_t)(cap - b->cap_pos) * sizeof *b->pos_of);
        b->cap_pos = cap;
    }
    b->pos_of[id] = index + 1;
}

static void mark_done(exec_pod *p)
{
    p->done = true;
    p->done_ms = mono_ms();
}

static char *selector(const k8s_backend *b, bool active_only)
{
    char *s = NULL;
    if (asprintf(&s, "spark-app-selector=%s,spark-role=executor%s", b->app.app_id,
                 active_only ? ",!spark-exec-inactive" : "") < 0)
        abort();
    return s;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

static const char *str_or(const json_t *v, const char *dflt)
{
    const char *s = json_string_value(v);
    return s && *s ? s : dflt;
}

/* Spark's message for a finished pod: the exit code of the executor container (or any container's
 * non-zero one with checkAllContainers) explained, then the pod's reason and message and every
 * container's state. Returns false while the pod has not finished. */
static bool pod_failure(k8s_backend *b, int id, const json_t *pod, char *why, size_t cap,
                        bool *failed)
{
    const json_t *st = json_object_get(pod, "status");
    const char *phase = json_string_value(json_object_get(st, "phase"));
    int code = -1;
    bool terminated = false;
    const json_t *cs = json_object_get(st, "containerStatuses");
    char states[600] = "";
    size_t sl = 0;
    for (size_t i = 0; i < json_array_size(cs); i++) {
        const json_t *c = json_array_get(cs, i);
        const json_t *state = json_object_get(c, "state");
        const json_t *t = json_object_get(state, "terminated");
        const char *name = json_string_value(json_object_get(c, "name"));
        if (sl < sizeof states - 1) {
            const json_t *w = json_object_get(state, "waiting");
            if (t)
                sl += (size_t)snprintf(
                    states + sl, sizeof states - sl, "%s%s: terminated, exitCode %lld, reason %s",
                    sl ? "; " : "", name ? name : "?",
                    (long long)json_integer_value(json_object_get(t, "exitCode")),
                    str_or(json_object_get(t, "reason"), "-"));
            else if (w)
                sl += (size_t)snprintf(states + sl, sizeof states - sl, "%s%s: waiting, reason %s",
                                       sl ? "; " : "", name ? name : "?",
                                       str_or(json_object_get(w, "reason"), "-"));
            else
                sl += (size_t)snprintf(states + sl, sizeof states - sl, "%s%s: %s", sl ? "; " : "",
                                       name ? name : "?",
                                       json_object_get(state, "running") ? "running" : "unknown");
            if (sl >= sizeof states) sl = sizeof states - 1;
        }
        if (!t) continue;
        int ec = (int)json_integer_value(json_object_get(t, "exitCode"));
        bool mine = name && strcmp(name, "spark-kubernetes-executor") == 0;
        if (mine || (b->check_all_containers && ec != 0)) {
            terminated = true;
            if (mine || code <= 0) code = ec;
        }
    }
    bool finished = (phase && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0)) ||
                    (terminated && phase && strcmp(phase, "Running") == 0 &&
                     (code != 0 || b->check_all_containers));
    if (!finished) return false;
    *failed = !(phase && strcmp(phase, "Succeeded") == 0) || code != 0;
    char explained[256];
    if (code >= 0)
        cs_describe_exit_code(code, explained, sizeof explained);
    else
        snprintf(explained, sizeof explained, "exit code -1 (unknown: no terminated container)");
    snprintf(
        why, cap,
        "The executor with id %d (pod %s, phase %s) exited with %s. The API gave the following "
        "brief "
        "reason: %s. The API gave the following message: %s. The API gave the following container "
        "statuses: %s",
        id, str_or(json_object_get(json_object_get(pod, "metadata"), "name"), "?"),
        phase ? phase : "?", explained, str_or(json_object_get(st, "reason"), "N/A"),
        str_or(json_object_get(st, "message"), "N/A"), sl ? states : "none");
    return true;
}

static int pod_exec_id(const json_t *pod)
{
    const char *id = json_string_value(json_object_get(
        json_object_get(json_object_get(pod, "metadata"), "labels"), "spark-exec-id"));
    if (!id || !*id) return -1;
    char *end;
    long v = strtol(id, &end, 10);
    return *end || v < 0 || v > INT32_MAX ? -1 : (int)v;
}

static bool pod_inactive(const json_t *pod)
{
    const char *v = json_string_value(json_object_get(
        json_object_get(json_object_get(pod, "metadata"), "labels"), "spark-exec-inactive"));
    return v && strcmp(v, "true") == 0;
}

/* Called with the lock held; releases it around API calls and scheduler notifications.
 * finished_pod: the pod still exists and has ended: delete it, or label it inactive when
 * spark.kubernetes.executor.deleteOnTermination=false. */
static void executor_gone(k8s_backend *b, exec_pod *p, const char *why, bool failed,
                          bool finished_pod)
{
    if (p->done) return;
    mark_done(p);
    int id = p->id;
    char name[256];
    snprintf(name, sizeof name, "%s", p->name);
    bool abort_now = false;
    if (failed && !b->stopping) {
        b->failures++;
        if (b->failures >= b->max_failures && !b->exit_code) {
            b->exit_code = 11;
            abort_now = true;
        }
    }
    bool stopping = b->stopping;
    int failures = b->failures, max = b->max_failures;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (!stopping) {
        CS_WARN("k8s",
                "event=executor_pod_ended executor=%d pod=%s failed=%s failures=%d max=%d "
                "reason=\"%s\"",
                id, name, failed ? "true" : "false", failures, max, why);
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
            CS_ERROR("k8s", "event=max_executor_failures failures=%d exit_code=11 reason=\"%s\"",
                     failures, msg);
            cs_scheduler_abort(b->base.sched, msg);
        }
        if (finished_pod) {
            cs_error err;
            cs_error_clear(&err);
            if (b->delete_on_termination) {
                cs_kube_delete(b->kc, "pods", b->app.namespace_, name, -1, &err);
            } else {
                json_t *patch =
                    json_pack("{s:{s:{s:s}}}", "metadata", "labels", "spark-exec-inactive", "true");
                if (cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) <
                        0 &&
                    err.code != CS_ENOTFOUND)
                    CS_WARN("k8s", "event=label_inactive_failed pod=%s error=\"%s\"", name,
                            err.msg);
                json_decref(patch);
            }
        }
    }
    pthread_mutex_lock(&b->lock);
}

/* Pending with PodScheduled=False: the scheduler's message, once at WARN. */
static void note_pending(k8s_backend *b, exec_pod *p, const json_t *pod)
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
                "event=executor_pod_unschedulable executor=%d pod=%s reason=%s message=\"%s\" "
                "retry_after_ms=%lld (spark.kubernetes.allocation.executor.timeout)",
                p->id, p->name, reason ? reason : "Unschedulable", msg ? msg : "",
                (long long)b->executor_timeout_ms);
    }
}

/* One pod of a snapshot (watch event or list item). Lock held. */
static void on_pod(k8s_backend *b, const char *type, const json_t *pod)
{
    int id = pod_exec_id(pod);
    if (id < 0 || pod_inactive(pod)) return;
    exec_pod *p = find_pod(b, id);
    if (!p || p->done) return;
    if (!p->seen) {
        p->seen = true;
        p->seen_ms = mono_ms();
    }
    const json_t *md = json_object_get(pod, "metadata");
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    if (strcmp(type, "DELETED") == 0) {
        executor_gone(b, p, "The executor pod was deleted (by a user or the framework)", false,
                      false);
        return;
    }
    /* Spark's order: a pod being deleted is Deleted (not a failure of the application) unless it
     * still runs; it is removed when it goes */
    if (json_object_get(md, "deletionTimestamp") && !(phase && strcmp(phase, "Running") == 0)) {
        executor_gone(b, p, "The executor pod was deleted (by a user or the framework)", false,
                      false);
        return;
    }
    char why[1500];
    bool failed = false;
    if (pod_failure(b, id, pod, why, sizeof why, &failed)) {
        executor_gone(b, p, why, failed, !json_object_get(md, "deletionTimestamp"));
        return;
    }
    if (phase && strcmp(phase, "Pending") == 0) {
        note_pending(b, p, pod);
    } else {
        p->pending = false;
        p->unschedulable = false;
    }
}

/* A full snapshot (the watch's LIST or RELIST, or the periodic poll) taken at snapshot_ms: every
 * pod in it is merged; an executor seen before but absent, for longer than missingPodDetectDelta
 * since it was first seen, is removed with exit -1 (Spark: the driver missed its deletion).
 * Lock held. */
static void full_snapshot(k8s_backend *b, const json_t *items, int64_t snapshot_ms,
                          const char *source)
{
    size_t n = json_array_size(items);
    unsigned snap = ++b->snapshots;
    for (size_t i = 0; i < n; i++) {
        const json_t *pod = json_array_get(items, i);
        exec_pod *listed = pod_inactive(pod) ? NULL : find_pod(b, pod_exec_id(pod));
        if (listed) listed->snapshot = snap;
        on_pod(b, "MODIFIED", pod);
    }
    int *missing = cs_xcalloc((size_t)b->npods + 1, sizeof *missing);
    int nmissing = 0;
    for (int k = 0; k < b->npods; k++) {
        exec_pod *p = &b->pods[k];
        if (p->done || !p->seen || snapshot_ms - p->seen_ms <= b->missing_delta_ms) continue;
        if (p->snapshot != snap) missing[nmissing++] = p->id;
    }
    for (int i = 0; i < nmissing; i++) {
        exec_pod *p = find_pod(b, missing[i]);
        if (!p || p->done) continue;
        char why[600];
        snprintf(why, sizeof why,
                 "The executor with id %d (pod %s) was not found in the cluster at the polling "
                 "time (%s), "
                 "more than %lld ms (spark.kubernetes.executor.missingPodDetectDelta) after it was "
                 "first seen; "
                 "it may have been deleted but the driver missed the deletion event; exit code -1",
                 p->id, p->name, source, (long long)b->missing_delta_ms);
        executor_gone(b, p, why, false, false);
    }
    free(missing);
}

static void on_watch(void *arg, const char *type, const json_t *obj)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    if (strcmp(type, "RELIST") == 0)
        full_snapshot(b, json_object_get(obj, "items"), mono_ms(), "watch list");
    else
        on_pod(b, type, obj);
    pthread_cond_broadcast(&b->cond); /* a new snapshot: the allocator may go on */
    pthread_mutex_unlock(&b->lock);
}

/* Spark's polling snapshot source: a full LIST every apiPollingInterval, without the pods
 * labelled spark-exec-inactive=true. */
static void *poller_main(void *arg)
{
    k8s_backend *b = arg;
    char *sel = selector(b, true);
    pthread_mutex_lock(&b->lock);
    /* with the watch on, its first LIST is the first snapshot */
    int64_t next = b->enable_watcher ? mono_ms() + b->poll_interval_ms : mono_ms();
    while (!b->stopping) {
        int64_t now = mono_ms();
        if (now < next) {
            cs_cond_wait_ms(&b->cond, &b->lock, next - now);
            continue;
        }
        pthread_mutex_unlock(&b->lock);
        json_t *list = NULL;
        cs_error err;
        cs_error_clear(&err);
        int64_t at = mono_ms();
        int rc = cs_kube_list(b->kc, "pods", b->app.namespace_, sel, NULL, &list, &err);
        pthread_mutex_lock(&b->lock);
        if (rc < 0) {
            if (!b->stopping) CS_WARN("k8s", "event=executor_poll_failed error=\"%s\"", err.msg);
        } else if (!b->stopping) {
            CS_DEBUG("k8s", "event=executor_poll pods=%zu",
                     json_array_size(json_object_get(list, "items")));
            full_snapshot(b, json_object_get(list, "items"), at, "full poll");
            pthread_cond_broadcast(&b->cond);
        }
        json_decref(list);
        next = mono_ms() + b->poll_interval_ms;
    }
    pthread_mutex_unlock(&b->lock);
    free(sel);
    return NULL;
}

/* ---- allocation --------------------------------------------------------------------------- */

/* cspark.kubernetes.allocation.maxCreateRate: a token bucket (burst = one second's worth).
 * Lock held; false when stopping. */
static bool take_create_token(k8s_backend *b)
{
    if (b->max_create_rate <= 0) return !b->stopping;
    double burst = b->max_create_rate < 1 ? 1 : b->max_create_rate;
    while (!b->stopping) {
        int64_t now = mono_ms();
        b->tokens += (double)(now - b->tokens_ms) * b->max_create_rate / 1000.0;
        if (b->tokens > burst) b->tokens = burst;
        b->tokens_ms = now;
        if (b->tokens >= 1) {
            b->tokens -= 1;
            return true;
        }
        int64_t wait = (int64_t)ceil((1 - b->tokens) * 1000.0 / b->max_create_rate);
        cs_cond_wait_ms(&b->cond, &b->lock, wait < 1 ? 1 : wait);
    }
    return false;
}

static int create_executor_pod(k8s_backend *b, cs_error *err)
{
    pthread_mutex_lock(&b->lock);
    if ((int64_t)b->next_id > b->allocation_maximum) {
        int64_t max = b->allocation_maximum;
        pthread_mutex_unlock(&b->lock);
        return cs_error_set(
            err, CS_EINVAL,
            "Exceed the pod creation limit: %lld (spark.kubernetes.allocation.maximum); "
            "no more executor pods may be created for this application",
            (long long)max);
    }
    int id = b->next_id++;
    pthread_mutex_unlock(&b->lock);
    json_t *pod =
        cs_k8s_executor_pod(b->sc->conf, &b->app, id, b->cores, b->driver_pod, b->driver_url, err);
    if (!pod) return err->code ? err->code : CS_EINVAL;
    const char *name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
    exec_pod p = {.id = id, .created_ms = mono_ms()};
    snprintf(p.name, sizeof p.name, "%s", name ? name : "");
    /* registered before the create call: the watch may report the pod before it returns */
    pthread_mutex_lock(&b->lock);
    if (b->npods == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->pods = cs_xrealloc(b->pods, (size_t)b->cap * sizeof *b->pods);
    }
    index_pod(b, id, b->npods);
    b->pods[b->npods++] = p;
    pthread_mutex_unlock(&b->lock);
    json_t *created = NULL;
    int rc = cs_kube_create(b->kc, "pods", b->app.namespace_, pod, &created, err);
    json_decref(pod);
    json_decref(created);
    if (rc < 0 && err->code == CS_EEXIST) {
        /* a retried create whose first attempt went through: the pod is ours */
        CS_INFO("k8s", "event=executor_pod_exists executor=%d pod=%s", id, p.name);
        cs_error_clear(err);
        rc = 0;
    }
    if (rc < 0) {
        pthread_mutex_lock(&b->lock);
        exec_pod *q = find_pod(b, id);
        if (q) mark_done(q);
        pthread_mutex_unlock(&b->lock);
        /* as Spark: whatever may have been created for this request goes */
        cs_error e2;
        cs_kube_delete(b->kc, "pods", b->app.namespace_, p.name, 0, &e2);
        return rc;
    }
    CS_INFO("k8s", "event=executor_pod_created executor=%d pod=%s", id, p.name);
    return 0;
}

/* Deletes a pod the allocator gave up on (unseen or unschedulable too long); lock held. */
static void give_up(k8s_backend *b, exec_pod *p, const char *what, int64_t now)
{
    char name[256];
    snprintf(name, sizeof name, "%s", p->name);
    CS_WARN("k8s", "event=%s executor=%d pod=%s waited_ms=%lld action=delete_and_request_again",
            what, p->id, name, (long long)(now - p->created_ms));
    mark_done(p); /* forgotten, deleted, and requested again */
    pthread_mutex_unlock(&b->lock);
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_delete(b->kc, "pods", b->app.namespace_, name, 0, &err) < 0)
        CS_WARN("k8s", "event=executor_pod_delete_failed pod=%s error=\"%s\"", name, err.msg);
    pthread_mutex_lock(&b->lock);
}

/* Pods of executors removed by dynamic allocation that are still there after deleteGracePeriod
 * are deleted (Spark deletes the still-Running ones). Lock held; true when one was deleted. */
static bool delete_removed(k8s_backend *b, int64_t now)
{
    for (int i = 0; i < b->npods; i++) {
        exec_pod *p = &b->pods[i];
        if (p->done || !p->delete_at_ms || now < p->delete_at_ms) continue;
        p->delete_at_ms = 0;
        char name[256];
        snprintf(name, sizeof name, "%s", p->name);
        int id = p->id;
        pthread_mutex_unlock(&b->lock);
        CS_INFO("k8s",
                "event=executor_pod_delete executor=%d pod=%s reason=\"still there %lld ms after "
                "its removal (spark.kubernetes.dynamicAllocation.deleteGracePeriod)\"",
                id, name, (long long)b->delete_grace_ms);
        cs_error err;
        cs_error_clear(&err);
        if (cs_kube_delete(b->kc, "pods", b->app.namespace_, name, -1, &err) < 0 &&
            err.code != CS_ENOTFOUND)
            CS_WARN("k8s", "event=executor_pod_delete_failed pod=%s error=\"%s\"", name, err.msg);
        pthread_mutex_lock(&b->lock);
        return true;
    }
    return false;
}

/* Downscale (Spark's ExecutorPodsAllocator): when the pods outnumber the target, delete excess
 * requests not seen yet, then Pending pods, both only when older than executorIdleTimeout (so
 * that a fluctuating target does not churn pods); Running pods are left to dynamic allocation.
 * Lock held; true when pods were deleted. */
static bool delete_excess(k8s_backend *b, int64_t now)
{
    int alive = 0;
    for (int i = 0; i < b->npods; i++)
        alive += !b->pods[i].done && !b->pods[i].delete_at_ms;
    int excess = alive - b->target;
    if (excess <= 0) return false;
    int *victims = cs_xcalloc((size_t)excess, sizeof *victims);
    char(*names)[256] = cs_xcalloc((size_t)excess, sizeof *names);
    int n = 0;
    for (int pass = 0; pass < 2 && n < excess; pass++)
        for (int i = 0; i < b->npods && n < excess; i++) {
            exec_pod *p = &b->pods[i];
            bool candidate = pass == 0 ? !p->seen : p->seen && p->pending;
            if (p->done || p->delete_at_ms || !candidate ||
                now - p->created_ms <= b->idle_timeout_ms)
                continue;
            victims[n] = p->id;
            snprintf(names[n], sizeof names[n], "%s", p->name);
            mark_done(p); /* forgotten: its deletion event changes nothing */
            n++;
        }
    if (n == 0) {
        free(victims);
        free(names);
        return false;
    }
    pthread_mutex_unlock(&b->lock);
    for (int i = 0; i < n; i++) {
        CS_INFO("k8s",
                "event=executor_pod_excess executor=%d pod=%s action=delete reason=\"the target "
                "fell below the pods requested\"",
                victims[i], names[i]);
        cs_error err;
        cs_error_clear(&err);
        if (cs_kube_delete(b->kc, "pods", b->app.namespace_, names[i], 0, &err) < 0 &&
            err.code != CS_ENOTFOUND)
            CS_WARN("k8s", "event=executor_pod_delete_failed pod=%s error=\"%s\"", names[i],
                    err.msg);
    }
    free(victims);
    free(names);
    pthread_mutex_lock(&b->lock);
    return true;
}

static void *allocator_main(void *arg)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->stopping) {
        int64_t now = mono_ms();
        /* the removed-executors cache: forget entries older than deletedExecutorsCacheTimeout */
        int w = 0;
        for (int i = 0; i < b->npods; i++) {
            exec_pod *p = &b->pods[i];
            if (p->done && now - p->done_ms > b->deleted_cache_ms) {
                index_pod(b, p->id, -1);
                continue;
            }
            index_pod(b, p->id, w);
            b->pods[w++] = *p;
        }
        b->npods = w;
        bool gave_up = false;
        for (int i = 0; i < b->npods && !gave_up; i++) {
            exec_pod *p = &b->pods[i];
            if (p->done) continue;
            if (!p->seen && now - p->created_ms > b->executor_timeout_ms) {
                give_up(b, p, "executor_pod_timeout", now);
                gave_up = true; /* the array may have moved: scan again */
            } else if (p->seen && p->pending && p->unschedulable &&
                       now - p->created_ms > b->executor_timeout_ms) {
                give_up(b, p, "executor_pod_unschedulable_timeout", now);
                gave_up = true;
            }
        }
        if (gave_up) continue;
        if (delete_removed(b, now) || delete_excess(b, now)) continue; /* the array may move */
        int alive = 0, unseen = 0, pending = 0;
        for (int i = 0; i < b->npods; i++) {
            exec_pod *p = &b->pods[i];
            if (p->done) continue;
            alive++;
            unseen += !p->seen;
            pending += p->seen && p->pending;
        }
        int64_t n = 0;
        if (!unseen && alive < b->target && !b->exit_code) {
            n = b->target - alive < b->batch_size ? b->target - alive : b->batch_size;
            int64_t slots = b->max_pending - (pending + unseen);
            if (n > slots) n = slots;
        }
        if (n > 0) {
            bool failed_create = false;
            for (int64_t i = 0; i < n; i++) {
                if (!take_create_token(b) || b->exit_code) break;
                pthread_mutex_unlock(&b->lock);
                cs_error err;
                cs_error_clear(&err);
                int rc = create_executor_pod(b, &err);
                pthread_mutex_lock(&b->lock);
                if (rc < 0) {
                    CS_ERROR("k8s", "event=executor_pod_create_failed error=\"%s\"", err.msg);
                    bool fatal = err.code == CS_EAUTH || strstr(err.msg, "forbidden") ||
                                 strstr(err.msg, "does not exist") ||
                                 strstr(err.msg, "pod creation limit");
                    if (fatal && !b->exit_code) {
                        b->exit_code = 1;
                        pthread_mutex_unlock(&b->lock);
                        cs_scheduler_abort(b->base.sched, err.msg); /* retrying cannot help */
                        pthread_mutex_lock(&b->lock);
                    }
                    failed_create = true;
                    break;
                }
            }
            if (failed_create)
                cs_cond_wait_ms(&b->cond, &b->lock,
                                b->batch_delay_ms); /* no hot loop on API errors */
            continue; /* re-evaluate at once: the batch is now unseen */
        }
        cs_cond_wait_ms(&b->cond, &b->lock, b->batch_delay_ms);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- sched_backend ----------------------------------------------------------------------- */

static void k8s_launch(sched_backend *base, const task_desc *t)
{
    k8s_backend *b = (k8s_backend *)base;
    cs_coarse_backend_base(b->coarse)->launch(cs_coarse_backend_base(b->coarse), t);
}

static int k8s_total_cores(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    return cs_coarse_backend_base(b->coarse)->total_cores(cs_coarse_backend_base(b->coarse));
}

/* Dynamic allocation's target: the allocator creates or deletes pending pods to follow it. */
static void k8s_request_total(sched_backend *base, int total)
{
    k8s_backend *b = (k8s_backend *)base;
    pthread_mutex_lock(&b->lock);
    b->target = total < 0 ? 0 : total;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

/* Spark's doKillExecutors / decommissionExecutors: the pods are labelled (decommissionLabel),
 * the executors told over RPC, and the pods deleted after deleteGracePeriod if still there. */
static void k8s_remove_executors(sched_backend *base, const char *const *ids, int n,
                                 bool decommission, const char *reason)
{
    k8s_backend *b = (k8s_backend *)base;
    /* labelled first, so that the label is there before the executor can end its pod */
    for (int k = 0; k < n; k++) {
        char *end;
        long id = strtol(ids[k], &end, 10);
        if (*end || id < 0 || id > INT32_MAX) continue;
        char name[256] = "";
        pthread_mutex_lock(&b->lock);
        exec_pod *p = find_pod(b, (int)id);
        if (p && !p->done) {
            p->delete_at_ms = mono_ms() + (b->delete_grace_ms > 0 ? b->delete_grace_ms : 1);
            snprintf(name, sizeof name, "%s", p->name);
        }
        pthread_mutex_unlock(&b->lock);
        if (!name[0] || !b->decom_label) continue;
        json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", b->decom_label,
                                  b->decom_label_value ? b->decom_label_value : "");
        cs_error err;
        cs_error_clear(&err);
        if (cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) < 0 &&
            err.code != CS_ENOTFOUND)
            CS_WARN("k8s", "event=decommission_label_failed pod=%s error=\"%s\"", name, err.msg);
        json_decref(patch);
    }
    cs_coarse_backend_remove_executors(b->coarse, ids, n, decommission, reason);
}

static void k8s_cancel_all(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    cs_coarse_backend_base(b->coarse)->cancel_all(cs_coarse_backend_base(b->coarse));
}

/* deleteOnTermination=false: every executor pod still without the label gets
 * spark-exec-inactive=true, so that later watches and polls ignore it. */
static void label_kept_pods(k8s_backend *b)
{
    cs_error err;
    cs_error_clear(&err);
    char *sel = selector(b, true);
    json_t *list = NULL;
    if (cs_kube_list(b->kc, "pods", b->app.namespace_, sel, NULL, &list, &err) < 0) {
        CS_WARN("k8s", "event=cleanup_failed what=label_inactive error=\"%s\"", err.msg);
        free(sel);
        return;
    }
    free(sel);
    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "spark-exec-inactive", "true");
    const json_t *items = json_object_get(list, "items");
    for (size_t i = 0; i < json_array_size(items); i++) {
        const char *name = json_string_value(
            json_object_get(json_object_get(json_array_get(items, i), "metadata"), "name"));
        if (name &&
            cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) < 0 &&
            err.code != CS_ENOTFOUND)
            CS_WARN("k8s", "event=label_inactive_failed pod=%s error=\"%s\"", name, err.msg);
    }
    json_decref(patch);
    json_decref(list);
}

static void k8s_stop(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (b->allocator_started) pthread_join(b->allocator, NULL);
    if (b->poller_started) pthread_join(b->poller, NULL);
    if (b->coarse) {
        /* executors exit 0 on StopExecutor; their pods are deleted after, as Spark's stop() */
        cs_coarse_backend_stop_executors(b->coarse);
        cs_coarse_backend_wait_disconnected(b->coarse, 3000);
    }
    if (b->watch) cs_kube_watch_stop(b->watch);
    if (b->kc && b->app_ready) {
        cs_error err;
        /* with deleteOnTermination=false the finished executor pods stay (for their logs), as
         * Spark's stop(); they are owned by the driver pod when there is one */
        if (b->delete_on_termination) {
            char *sel = selector(b, false);
            if (cs_kube_delete_collection(b->kc, "pods", b->app.namespace_, sel, -1, &err) < 0)
                CS_WARN("k8s", "event=cleanup_failed what=executor_pods error=\"%s\"", err.msg);
            free(sel);
        } else {
            label_kept_pods(b); /* including those that ended while stopping */
        }
        if (b->created_exec_cm)
            cs_kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.exec_conf_map_name, -1,
                           &err);
        if (b->created_secret)
            cs_kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        if (b->in_driver_pod) {
            /* cluster mode: what the submit client made for this driver goes with it, so only
             * the completed driver pod (and its log) remains */
            if (b->delete_service)
                cs_kube_delete(b->kc, "services", b->app.namespace_, b->app.driver_svc_name, -1,
                               &err);
            cs_kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.conf_map_name, -1, &err);
            cs_kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        }
    }
    if (b->coarse) {
        sched_backend *cb = cs_coarse_backend_base(b->coarse);
        cb->sched = b->base.sched;
        cb->stop(cb);
    }
    if (b->app_ready) cs_k8s_app_free(&b->app);
    json_decref(b->driver_pod);
    cs_kube_client_free(b->kc);
    free(b->pods);
    free(b->pos_of);
    free(b->secret);
    free(b->decom_label);
    free(b->decom_label_value);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

/* Spark's isExecutorExcluded: an executor whose pod was already given up (deleted as excess or
 * timed out, or ended) may not register — its pod is going away. Unknown ids (forgotten after
 * deletedExecutorsCacheTimeout, or not ours) are refused too. */
static bool admit_executor(void *arg, const char *executor_id)
{
    k8s_backend *b = arg;
    char *end;
    long id = strtol(executor_id, &end, 10);
    if (*end || id < 0 || id > INT32_MAX) return false;
    pthread_mutex_lock(&b->lock);
    const exec_pod *p = find_pod(b, (int)id);
    bool ok = p && !p->done;
    pthread_mutex_unlock(&b->lock);
    if (!ok)
        CS_WARN("k8s", "event=executor_refused executor=%s reason=\"its pod was %s\"", executor_id,
                p ? "given up (deleted or ended)" : "not requested by this driver");
    return ok;
}

/* The job's .so as executors load it: from their ConfigMap (shipped by us), or from the image
 * for local:// paths outside the conf directory. *bytes is malloc'd when it must be shipped. */
static int app_for_executors(k8s_backend *b, uint8_t **bytes, size_t *len, cs_error *err)
{
    const char *resource = cs_conf_get(b->sc->conf, "cspark.app.resource");
    const char *file = cs_conf_get(b->sc->conf, "cspark.app.file");
    if (resource && strncmp(resource, "local://", 8) == 0 &&
        strncmp(resource + 8, "/opt/spark/conf/", 16) != 0) {
        snprintf(b->exec_app_file, sizeof b->exec_app_file, "%s", resource + 8);
        return 0;
    }
    if (!file)
        return cs_error_set(err, CS_EINVAL, "the application file is unknown (cspark.app.file)");
    if (cs_read_file(file, bytes, len, err) < 0) return err->code;
    snprintf(b->exec_app_file, sizeof b->exec_app_file, "/opt/spark/conf/%s",
             b->app.upload_name ? b->app.upload_name : "app.so");
    return 0;
}

static int read_settings(k8s_backend *b, cs_error *err)
{
    const cs_conf *c = b->sc->conf;
    int64_t v;
    if (cs_conf_get_int(c, "spark.executor.instances", "2", &v, err) < 0) return err->code;
    b->target = (int)(v < 0 ? 0 : v);
    if (cs_conf_get_int(c, "spark.executor.cores", "1", &v, err) < 0) return err->code;
    b->cores = (int)(v < 1 ? 1 : v);
    if (cs_conf_get_int(c, "spark.kubernetes.allocation.batch.size", "10", &v, err) < 0)
        return err->code;
    if (v < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.allocation.batch.size: '%lld' "
                            "(expected a positive integer)",
                            (long long)v);
    b->batch_size = (int)v;
    if (cs_conf_get_duration_ms(c, "spark.kubernetes.allocation.batch.delay", "1s", CS_MS,
                                &b->batch_delay_ms, err) < 0)
        return err->code;
    if (b->batch_delay_ms <= 100)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.allocation.batch.delay: '%s' (must "
                            "be greater than 100ms)",
                            cs_conf_get(c, "spark.kubernetes.allocation.batch.delay"));
    if (cs_conf_get_duration_ms(c, "spark.kubernetes.allocation.executor.timeout", "600s", CS_MS,
                                &b->executor_timeout_ms, err) < 0)
        return err->code;
    if (b->executor_timeout_ms < 5 * b->batch_delay_ms)
        b->executor_timeout_ms = 5 * b->batch_delay_ms;
    /* Spark: max(3, 2 × the executors wanted), with dynamic allocation 2 × maxExecutors */
    bool dynamic = false;
    int64_t wanted = b->target;
    if (cs_conf_get_bool(c, "spark.dynamicAllocation.enabled", "false", &dynamic, err) < 0 ||
        (dynamic && cs_conf_get_int(c, "spark.dynamicAllocation.maxExecutors", "1073741823",
                                    &wanted, err) < 0))
        return err->code;
    char dflt[24];
    long long failures = 2 * wanted > 3 ? (2 * wanted < INT32_MAX ? 2 * wanted : INT32_MAX) : 3;
    snprintf(dflt, sizeof dflt, "%lld", failures);
    if (cs_conf_get_int(c, "spark.executor.maxNumFailures", dflt, &v, err) < 0) return err->code;
    b->max_failures = (int)(v < 1 ? 1 : v > INT32_MAX ? INT32_MAX : v);
    if (cs_conf_get_bool(c, "spark.kubernetes.executor.deleteOnTermination", "true",
                         &b->delete_on_termination, err) < 0)
        return err->code;
    if (cs_conf_get_bool(c, "spark.kubernetes.executor.checkAllContainers", "true",
                         &b->check_all_containers, err) < 0)
        return err->code;
    if (cs_conf_get_bool(c, "spark.kubernetes.driver.service.deleteOnTermination", "true",
                         &b->delete_service, err) < 0)
        return err->code;
    if (cs_conf_get_duration_ms(c, "spark.kubernetes.executor.apiPollingInterval", "30s", CS_MS,
                                &b->poll_interval_ms, err) < 0)
        return err->code;
    if (b->poll_interval_ms < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.executor.apiPollingInterval: '%s' "
                            "(must be positive)",
                            cs_conf_get(c, "spark.kubernetes.executor.apiPollingInterval"));
    if (cs_conf_get_duration_ms(c, "spark.kubernetes.executor.missingPodDetectDelta", "30s", CS_MS,
                                &b->missing_delta_ms, err) < 0)
        return err->code;
    if (cs_conf_get_duration_ms(c, "spark.kubernetes.executor.deletedExecutorsCacheTimeout", "180",
                                CS_SEC, &b->deleted_cache_ms, err) < 0)
        return err->code;
    if (cs_conf_get_bool(c, "spark.kubernetes.executor.enableApiPolling", "true",
                         &b->enable_polling, err) < 0)
        return err->code;
    if (cs_conf_get_bool(c, "spark.kubernetes.executor.enableApiWatcher", "true",
                         &b->enable_watcher, err) < 0)
        return err->code;
    if (cs_conf_get_int(c, "spark.kubernetes.allocation.maxPendingPods", "2147483647",
                        &b->max_pending, err) < 0)
        return err->code;
    if (b->max_pending < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.allocation.maxPendingPods: '%lld' "
                            "(expected a positive integer)",
                            (long long)b->max_pending);
    if (cs_conf_get_int(c, "spark.kubernetes.allocation.maximum", "2147483647",
                        &b->allocation_maximum, err) < 0)
        return err->code;
    if (b->allocation_maximum < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.allocation.maximum: '%lld' "
                            "(expected a positive integer)",
                            (long long)b->allocation_maximum);
    if (cs_conf_get_double(c, "cspark.kubernetes.allocation.maxCreateRate", "50",
                           &b->max_create_rate, err) < 0)
        return err->code;
    if (cs_conf_get_duration_ms(c, "spark.dynamicAllocation.executorIdleTimeout", "60s", CS_SEC,
                                &b->idle_timeout_ms, err) < 0 ||
        cs_conf_get_duration_ms(c, "spark.kubernetes.dynamicAllocation.deleteGracePeriod", "5s",
                                CS_MS, &b->delete_grace_ms, err) < 0)
        return err->code;
    const char *label = cs_conf_get(c, "spark.kubernetes.executor.decommissionLabel");
    const char *value = cs_conf_get(c, "spark.kubernetes.executor.decommissionLabelValue");
    b->decom_label = label && *label ? cs_xstrdup(label) : NULL;
    b->decom_label_value = value ? cs_xstrdup(value) : NULL;
    b->tokens = b->max_create_rate < 1 ? 1 : b->max_create_rate;
    b->tokens_ms = mono_ms();
    return 0;
}

sched_backend *cs_k8s_backend_new(cspark_context *sc, const char *secret, cs_error *err)
{
    k8s_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.launch = k8s_launch;
    b->base.total_cores = k8s_total_cores;
    b->base.cancel_all = k8s_cancel_all;
    b->base.stop = k8s_stop;
    b->base.request_total = k8s_request_total;
    b->base.remove_executors = k8s_remove_executors;
    b->sc = sc;
    b->next_id = 1;
    b->secret = secret ? cs_xstrdup(secret) : NULL;
    pthread_mutex_init(&b->lock, NULL);
    cs_cond_init_monotonic(&b->cond);
    uint8_t *app_bytes = NULL;
    size_t app_len = 0;
    json_t *obj = NULL;

    if (read_settings(b, err) < 0) goto fail;
    bool in_driver_pod = cs_conf_get(sc->conf, "spark.kubernetes.submitInDriver") != NULL;
    b->in_driver_pod = in_driver_pod;
    kube_config kcfg;
    memset(&kcfg, 0, sizeof kcfg);
    /* in the driver pod: spark.kubernetes.driver.master, else the pod's in-cluster configuration
     * (KUBERNETES_SERVICE_HOST/PORT and the service account), which is what Spark's default
     * https://kubernetes.default.svc names */
    const char *master =
        cs_conf_get(sc->conf, in_driver_pod ? "spark.kubernetes.driver.master" : "spark.master");
    if (cs_kube_config_load(sc->conf, master,
                            in_driver_pod ? "spark.kubernetes.authenticate.driver.mounted"
                                          : "spark.kubernetes.authenticate",
                            &kcfg, err) < 0)
        goto fail;
    b->kc = cs_kube_client_new(&kcfg, sc->conf, "spark.kubernetes.driver", err);
    cs_kube_config_free(&kcfg);
    if (!b->kc) goto fail;
    const char *resource = cs_conf_get(sc->conf, "cspark.app.resource");
    if (cs_k8s_app_init(&b->app, sc->conf, cs_conf_get(sc->conf, "cspark.app.entry"),
                        resource ? resource : "", 0, NULL, err) < 0)
        goto fail;
    b->app_ready = true;

    const char *driver_pod_name = cs_conf_get(sc->conf, "spark.kubernetes.driver.pod.name");
    if (driver_pod_name &&
        cs_kube_get(b->kc, "pods", b->app.namespace_, driver_pod_name, &b->driver_pod, err) < 0) {
        cs_error_prefix(err, "cannot find the driver pod %s (spark.kubernetes.driver.pod.name)",
                        driver_pod_name);
        goto fail;
    }

    /* executors reach the driver here; they load the job from their ConfigMap or the image */
    if (app_for_executors(b, &app_bytes, &app_len, err) < 0) goto fail;
    const char *host = cs_conf_get(sc->conf, "spark.driver.host");
    const char *bind = cs_conf_get(sc->conf, "spark.driver.bindAddress");
    if (!host) host = "127.0.0.1";
    if (!bind) bind = in_driver_pod ? "0.0.0.0" : host;
    int64_t port = 0;
    if (cs_conf_get_int(sc->conf, "spark.driver.port", in_driver_pod ? "7078" : "0", &port, err) <
        0)
        goto fail;
    coarse_options o = {.bind_host = bind,
                        .port = (int)port,
                        .secret = secret,
                        .app_file = b->exec_app_file,
                        .admit = admit_executor,
                        .hooks_arg = b};
    b->coarse = cs_coarse_backend_new(sc, &o, err);
    if (!b->coarse) goto fail;
    snprintf(b->driver_url, sizeof b->driver_url, "spark://CoarseGrainedScheduler@%s:%d", host,
             cs_coarse_backend_port(b->coarse));

    /* the Secret executors read the authentication secret from (the submit client made it in
     * cluster mode), and the executor ConfigMap */
    if (secret && !in_driver_pod) {
        cs_conf *c2 = cs_conf_clone(sc->conf);
        cs_conf_set(c2, "spark.authenticate.secret", secret);
        obj = cs_k8s_auth_secret(c2, &b->app, err);
        cs_conf_free(c2);
        if (!obj || (b->driver_pod && cs_k8s_set_owner(obj, b->driver_pod, err) < 0) ||
            cs_kube_create(b->kc, "secrets", b->app.namespace_, obj, NULL, err) < 0)
            goto fail;
        json_decref(obj);
        obj = NULL;
        b->created_secret = true;
    }
    obj = cs_k8s_executor_configmap(sc->conf, &b->app, app_bytes, app_len, err);
    if (!obj || (b->driver_pod && cs_k8s_set_owner(obj, b->driver_pod, err) < 0) ||
        cs_kube_create(b->kc, "configmaps", b->app.namespace_, obj, NULL, err) < 0)
        goto fail;
    json_decref(obj);
    obj = NULL;
    b->created_exec_cm = true;
    free(app_bytes);
    return &b->base;
fail:
    json_decref(obj);
    free(app_bytes);
    k8s_stop(&b->base);
    return NULL;
}

int cs_k8s_backend_start(sched_backend *base, cs_error *err)
{
    k8s_backend *b = (k8s_backend *)base;
    cs_coarse_backend_base(b->coarse)->sched = b->base.sched;
    if (b->enable_watcher) {
        char *sel = selector(b, false);
        b->watch = cs_kube_watch_start(b->kc, "pods", b->app.namespace_, sel, on_watch, b, err);
        free(sel);
        if (!b->watch) return err->code ? err->code : CS_EIO;
    }
    if (b->enable_polling)
        b->poller_started = pthread_create(&b->poller, NULL, poller_main, b) == 0;
    b->allocator_started = pthread_create(&b->allocator, NULL, allocator_main, b) == 0;
    CS_INFO("k8s",
            "event=allocator_started app=%s namespace=%s target=%d batch=%d driver_url=%s watch=%s "
            "poll_interval_ms=%lld max_pending=%lld max_create_rate=%g",
            b->app.app_id, b->app.namespace_, b->target, b->batch_size, b->driver_url,
            b->enable_watcher ? "on" : "off",
            b->enable_polling ? (long long)b->poll_interval_ms : -1LL, (long long)b->max_pending,
            b->max_create_rate);
    return 0;
}

int cs_k8s_backend_exit_code(sched_backend *base);

int cs_k8s_backend_wait_registered(sched_backend *base, double ratio, int64_t timeout_ms)
{
    k8s_backend *b = (k8s_backend *)base;
    int want = (int)(ratio * b->target + 0.999999);
    /* in slices, so that an application failed meanwhile (maxNumFailures, allocation limit)
     * stops waiting at once */
    int64_t deadline = mono_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - mono_ms();
        int n = cs_coarse_backend_wait_registered(b->coarse, want,
                                                  left < 200 ? (left > 0 ? left : 0) : 200);
        if (n >= want || left <= 200 || cs_k8s_backend_exit_code(base)) return n;
    }
}

int cs_k8s_backend_exit_code(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    pthread_mutex_lock(&b->lock);
    int rc = b->exit_code;
    pthread_mutex_unlock(&b->lock);
    return rc;
}
