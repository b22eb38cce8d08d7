/*
 * k8s_allocator.c — Spark's ExecutorPodsAllocator (see k8s_allocator.h): the pure round, the
 * creation token bucket, and the allocator thread that carries rounds out against the API
 * server.
 */
#include "cluster/k8s/k8s_allocator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_claims.h"
#include "cluster/k8s/k8s_statefulset.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/sync.h"

/* ---- the round (pure) ----------------------------------------------------------------------- */

static void add_id(k8s_alloc_round *r, int id, int cap)
{
    if (!r->ids) r->ids = cs_xcalloc((size_t)cap + 1, sizeof *r->ids);
    r->ids[r->n++] = id;
}

/* A request Spark still counts as newly created: neither seen in a snapshot nor registered. */
static bool newly_created(const k8s_exec_pod *p)
{
    return p->state == K8S_POD_UNSEEN && !p->registered;
}

/* Requests still newly created after executor.timeout. */
static bool give_ups(const k8s_settings *s, const k8s_pod_table *t, int64_t now,
                     k8s_alloc_round *out)
{
    for (int i = 0; i < t->npods; i++) {
        const k8s_exec_pod *p = &t->pods[i];
        if (!p->done && newly_created(p) && now - p->created_ms > s->executor_timeout_ms)
            add_id(out, p->id, t->npods);
    }
    out->kind = K8S_ALLOC_GIVE_UP;
    return out->n > 0;
}

void cs_k8s_allocator_removing(const k8s_settings *s, k8s_exec_pod *p, int64_t now_ms)
{
    p->delete_at_ms = now_ms + (s->delete_grace_ms > 0 ? s->delete_grace_ms : 1);
}

/* Pods of executors removed by dynamic allocation, deleteGracePeriod after their removal. */
static bool removed_due(const k8s_pod_table *t, int64_t now, k8s_alloc_round *out)
{
    for (int i = 0; i < t->npods; i++) {
        const k8s_exec_pod *p = &t->pods[i];
        if (!p->done && p->delete_at_ms && now >= p->delete_at_ms) add_id(out, p->id, t->npods);
    }
    out->kind = K8S_ALLOC_DELETE_REMOVED;
    return out->n > 0;
}

/* Downscale: when the pods outnumber the target, excess requests not seen yet, then Pending
 * pods, both only when older than executorIdleTimeout (so that a fluctuating target does not
 * churn pods) and only when their executors did not register; Running pods are left to dynamic
 * allocation. */
static bool excess(const k8s_settings *s, int target, const k8s_pod_table *t, int64_t now,
                   k8s_alloc_round *out)
{
    int alive = 0;
    for (int i = 0; i < t->npods; i++)
        alive += !t->pods[i].done && !t->pods[i].delete_at_ms;
    int want = alive - target;
    for (int pass = 0; pass < 2 && out->n < want; pass++)
        for (int i = 0; i < t->npods && out->n < want; i++) {
            const k8s_exec_pod *p = &t->pods[i];
            bool candidate = pass == 0 ? newly_created(p) : p->state == K8S_POD_PENDING;
            if (p->done || p->delete_at_ms || !candidate || p->registered ||
                now - p->created_ms <= s->idle_timeout_ms)
                continue;
            add_id(out, p->id, t->npods);
        }
    out->kind = K8S_ALLOC_DELETE_EXCESS;
    return out->n > 0;
}

void cs_k8s_allocator_round(const k8s_settings *s, int target, bool failed, bool claims_wait,
                            const k8s_pod_table *t, int64_t now_ms, k8s_alloc_round *out)
{
    memset(out, 0, sizeof *out);
    if (give_ups(s, t, now_ms, out) || removed_due(t, now_ms, out) ||
        excess(s, target, t, now_ms, out))
        return;
    int alive = 0, unseen = 0, pending = 0, newly = 0;
    for (int i = 0; i < t->npods; i++) {
        const k8s_exec_pod *p = &t->pods[i];
        if (p->done) continue;
        alive++;
        unseen += p->state == K8S_POD_UNSEEN; /* not running: counted against maxPendingPods */
        newly += newly_created(p);
        pending += p->state == K8S_POD_PENDING;
    }
    int64_t n = 0;
    if (!newly && alive < target && !failed && !claims_wait) {
        n = target - alive < s->batch_size ? target - alive : s->batch_size;
        int64_t slots = s->max_pending - (pending + unseen);
        if (n > slots) n = slots;
    }
    out->kind = n > 0 ? K8S_ALLOC_CREATE : K8S_ALLOC_WAIT;
    out->create = n > 0 ? (int)n : 0;
}

void cs_k8s_alloc_round_free(k8s_alloc_round *r)
{
    free(r->ids);
    memset(r, 0, sizeof *r);
}

/* ---- carrying rounds out -------------------------------------------------------------------- */

/* Waits for a creation token; lock held. False once the allocator is told to stop. */
static bool take_create_token(k8s_backend *b)
{
    while (!b->allocator_stopping) {
        int64_t wait = cs_token_bucket_take(&b->tokens, cs_mono_ms());
        if (wait == 0) return true;
        cs_cond_wait_ms(&b->cond, &b->lock, wait);
    }
    return false;
}

static void delete_pod(k8s_backend *b, const char *name, int grace)
{
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_delete(b->kc, "pods", b->app.namespace_, name, grace, &err) < 0 &&
        err.code != CS_ENOTFOUND)
        CS_WARN("k8s", "event=executor_pod_delete_failed pod=%s error=%s", cs_log_value(name),
                cs_log_quote(err.msg));
}

/* The claims the pod mounts, "a,b", into buf (for the log). */
static const char *claim_list(const json_t *pod, char *buf, size_t cap)
{
    size_t len = 0, i;
    const json_t *v;
    buf[0] = '\0';
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "volumes"), i, v)
    {
        const char *c = json_string_value(
            json_object_get(json_object_get(v, "persistentVolumeClaim"), "claimName"));
        if (c && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", c);
    }
    return buf;
}

/* Spark's requestNewExecutors for one pod: the pod with its claims (reusable ones taken from
 * reusable, the others created after the pod); on any failure after the pod exists, the pod is
 * deleted again. */
static int create_executor_pod(k8s_backend *b, json_t *reusable, cs_error *err)
{
    pthread_mutex_lock(&b->lock);
    if ((int64_t)b->next_id > b->set.allocation_maximum) {
        int64_t max = b->set.allocation_maximum;
        pthread_mutex_unlock(&b->lock);
        cs_error_set(err, CS_EINVAL,
                     "Exceed the pod creation limit: %lld (spark.kubernetes.allocation.maximum); "
                     "no more executor pods may be created for this application",
                     (long long)max);
        return cs_error_set_kind(err, CS_KIND_LIMIT_REACHED, 0);
    }
    int id = b->next_id++;
    pthread_mutex_unlock(&b->lock);
    json_t *pod =
        cs_k8s_executor_pod(b->conf, &b->app, id, b->set.cores, b->driver_pod, b->driver_url, err);
    json_t *claims = NULL;
    if (pod)
        claims =
            b->on_demand_claims ? cs_k8s_executor_pvcs(b->conf, &b->app, pod, err) : json_array();
    if (!claims) {
        json_decref(pod);
        return err->code ? err->code : CS_EINVAL;
    }
    int reused = cs_k8s_claims_reuse(pod, claims, reusable);
    const char *pod_name =
        json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
    char name[256], mounted[1024];
    snprintf(name, sizeof name, "%s", pod_name ? pod_name : "");
    /* registered before the create call: the watch may report the pod before it returns */
    pthread_mutex_lock(&b->lock);
    cs_k8s_pod_set_claims(cs_k8s_pods_add(&b->pods, id, name, cs_mono_ms()), pod);
    pthread_mutex_unlock(&b->lock);
    json_t *created = NULL;
    int rc = cs_kube_create(b->kc, "pods", b->app.namespace_, pod, &created, err);
    if (rc < 0 && err->code == CS_EEXIST) {
        /* a retried create whose first attempt went through: the pod is ours */
        CS_INFO("k8s", "event=executor_pod_exists executor=%d pod=%s", id, cs_log_value(name));
        cs_error_clear(err);
        rc = cs_kube_get(b->kc, "pods", b->app.namespace_, name, &created, err);
    }
    if (rc == 0 && json_array_size(claims)) rc = cs_k8s_claims_create(b, created, claims, err);
    if (rc < 0) {
        pthread_mutex_lock(&b->lock);
        k8s_exec_pod *q = cs_k8s_pods_find(&b->pods, id);
        if (q) {
            cs_k8s_pod_mark_done(q, cs_mono_ms());
            q->released = true;
        }
        pthread_mutex_unlock(&b->lock);
        /* as Spark: whatever may have been created for this request goes */
        cs_error e2;
        cs_kube_delete(b->kc, "pods", b->app.namespace_, name, 0, &e2);
    } else if (reused || json_array_size(claims)) {
        CS_INFO("k8s", "event=executor_pod_created executor=%d pod=%s claims=%s reused=%d", id,
                cs_log_value(name), claim_list(pod, mounted, sizeof mounted), reused);
    } else {
        CS_INFO("k8s", "event=executor_pod_created executor=%d pod=%s", id, cs_log_value(name));
    }
    json_decref(created);
    json_decref(claims);
    json_decref(pod);
    return rc;
}

/* The claims new executors may take instead of new ones (k8s_claims.h); lock held, released
 * around the list call. An empty array when claims are not reused. */
static json_t *reusable_claims(k8s_backend *b)
{
    if (!b->on_demand_claims || !cs_k8s_claims_reusing(&b->set, b->driver_pod != NULL))
        return json_array();
    pthread_mutex_unlock(&b->lock);
    json_t *items = cs_k8s_claims_list_new(b);
    pthread_mutex_lock(&b->lock);
    json_t *reusable = cs_k8s_claims_reusable_new(items, &b->pods);
    json_decref(items);
    return reusable;
}

/* Creates up to n pods; lock held (released around each creation). */
static void create_pods(k8s_backend *b, int n)
{
    json_t *reusable = reusable_claims(b);
    for (int i = 0; i < n; i++) {
        if (b->on_demand_claims &&
            cs_k8s_claims_must_wait(&b->set, b->driver_pod != NULL, json_array_size(reusable),
                                    b->pvcs_created)) {
            CS_INFO(
                "k8s",
                "event=executor_waits_for_claim claims=%lld reason=\"wait to reuse one of "
                "the existing claims (spark.kubernetes.driver.waitToReusePersistentVolumeClaim)\"",
                (long long)b->pvcs_created);
            break;
        }
        if (!take_create_token(b) || b->exit_code || cs_shutdown_requested()) break;
        pthread_mutex_unlock(&b->lock);
        cs_error err;
        cs_error_clear(&err);
        int rc = create_executor_pod(b, reusable, &err);
        pthread_mutex_lock(&b->lock);
        if (rc == 0) continue;
        CS_ERROR("k8s", "event=executor_pod_create_failed error=%s", cs_log_quote(err.msg));
        /* retrying cannot help: refused (RBAC, admission, quota), no namespace, or the limit */
        bool fatal = err.code == CS_EAUTH || err.kind == CS_KIND_FORBIDDEN ||
                     err.kind == CS_KIND_NAMESPACE_NOT_FOUND || err.kind == CS_KIND_LIMIT_REACHED;
        if (fatal && !b->exit_code) {
            b->exit_code = 1;
            pthread_mutex_unlock(&b->lock);
            cs_scheduler_abort(b->backend->sched, err.msg); /* retrying cannot help */
            pthread_mutex_lock(&b->lock);
        }
        cs_cond_wait_ms(&b->cond, &b->lock, b->set.batch_delay_ms); /* no hot loop on errors */
        break;
    }
    json_decref(reusable);
}

/* Deletes the pods a round gave up on or found in excess, and those of removed executors whose
 * grace period is over. Lock held (released around the API calls). */
static void delete_pods(k8s_backend *b, const k8s_alloc_round *r, int64_t now)
{
    int n = 0;
    char(*names)[256] = cs_xcalloc((size_t)r->n, sizeof *names);
    int *ids = cs_xcalloc((size_t)r->n, sizeof *ids);
    for (int i = 0; i < r->n; i++) {
        k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, r->ids[i]);
        if (!p || p->done) continue;
        if (r->kind == K8S_ALLOC_DELETE_REMOVED) {
            p->delete_at_ms = 0; /* its deletion event removes the executor */
        } else {
            cs_k8s_pod_mark_done(p, now); /* forgotten: its deletion event changes nothing */
        }
        if (r->kind == K8S_ALLOC_GIVE_UP) {
            CS_WARN("k8s",
                    "event=executor_pod_timeout executor=%d pod=%s waited_ms=%lld "
                    "action=request_again reason=\"not detected in the Kubernetes cluster after "
                    "%lld ms (spark.kubernetes.allocation.executor.timeout) although it was "
                    "requested; it may have been deleted without the driver seeing the event\"",
                    p->id, cs_log_value(p->name), (long long)(now - p->created_ms),
                    (long long)b->set.executor_timeout_ms);
            if (!b->set.delete_on_termination) continue; /* as Spark: kept, only forgotten */
        }
        ids[n] = p->id;
        snprintf(names[n++], sizeof names[0], "%s", p->name);
    }
    pthread_mutex_unlock(&b->lock);
    for (int i = 0; i < n; i++) {
        if (r->kind == K8S_ALLOC_DELETE_REMOVED)
            CS_INFO("k8s",
                    "event=executor_pod_delete executor=%d pod=%s reason=\"still there %lld ms "
                    "after its removal (spark.kubernetes.dynamicAllocation.deleteGracePeriod)\"",
                    ids[i], cs_log_value(names[i]), (long long)b->set.delete_grace_ms);
        else if (r->kind == K8S_ALLOC_DELETE_EXCESS)
            CS_INFO("k8s",
                    "event=executor_pod_excess executor=%d pod=%s action=delete reason=\"the "
                    "target fell below the pods requested\"",
                    ids[i], cs_log_value(names[i]));
        delete_pod(b, names[i], r->kind == K8S_ALLOC_DELETE_REMOVED ? -1 : 0);
    }
    free(names);
    free(ids);
    pthread_mutex_lock(&b->lock);
}

static void *allocator_main(void *arg)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->allocator_stopping) {
        int64_t now = cs_mono_ms();
        cs_k8s_pods_expire(&b->pods, now, b->set.deleted_cache_ms);
        /* Spark requests no executor while it waits to reuse a claim until a snapshot came */
        bool news = b->pods.updates != b->round_updates;
        b->round_updates = b->pods.updates;
        bool claims_wait =
            !news && b->on_demand_claims &&
            cs_k8s_claims_must_wait(&b->set, b->driver_pod != NULL, 0, b->pvcs_created);
        k8s_alloc_round r;
        /* once the application is asked to stop (SIGINT, SIGTERM) no pod is created: the task
         * reaper deletes the pods of stuck executors then, and replacing them would start new
         * executors for an application that is going away */
        cs_k8s_allocator_round(&b->set, b->target, b->exit_code != 0 || cs_shutdown_requested(),
                               claims_wait, &b->pods, now, &r);
        if (r.kind == K8S_ALLOC_WAIT)
            cs_cond_wait_ms(&b->cond, &b->lock, b->set.batch_delay_ms);
        else if (r.kind == K8S_ALLOC_CREATE)
            create_pods(b, r.create); /* then at once: the batch is now unseen */
        else
            delete_pods(b, &r, now); /* then at once: the table changed */
        cs_k8s_alloc_round_free(&r);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

int cs_k8s_allocator_start(k8s_backend *b)
{
    /* spark.kubernetes.allocation.pods.allocator=statefulset: the set's controller makes the pods
     */
    void *(*main_fn)(void *) = b->set.statefulset ? cs_k8s_statefulset_main : allocator_main;
    b->allocator_started = pthread_create(&b->allocator, NULL, main_fn, b) == 0;
    return b->allocator_started ? 0 : CS_EIO;
}

void cs_k8s_allocator_stop(k8s_backend *b)
{
    pthread_mutex_lock(&b->lock);
    b->allocator_stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (!b->allocator_started) return;
    pthread_join(b->allocator, NULL); /* a creation under way ends first */
    b->allocator_started = false;
    CS_INFO("k8s", "event=allocator_stopped");
}
