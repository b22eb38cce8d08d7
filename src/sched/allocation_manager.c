/*
 * allocation_manager.c — see allocation_manager.h. The policy follows Spark's
 * ExecutorAllocationManager.updateAndSyncNumExecutorsTarget / addExecutors and
 * ExecutorMonitor.timedOutExecutors; the manager keeps the task counters and an executor table
 * indexed by id, all under one mutex, and runs one round every 100 ms on its thread. The backend
 * may refuse to kill an executor found idle (it was given a task meanwhile, Spark's
 * killExecutors with force = false): that one is no longer marked removing and stays.
 */
#define _GNU_SOURCE
#include "sched/allocation_manager.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/sync.h"
#include "sched/listener.h"
#include "sched/scheduler.h"

#define ROUND_MS 100

/* ---- settings -------------------------------------------------------------------------------- */

static int bad(cs_error *err, const char *fmt, const char *key, long long v)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, key, v);
    return cs_error_set(err, CS_EINVAL, "%s", msg);
}

int cs_alloc_settings_read(const cs_conf *c, bool local_master, int executor_cores,
                           alloc_settings *st, cs_error *err)
{
    memset(st, 0, sizeof *st);
    if (cs_conf_entry_bool(c, "spark.dynamicAllocation.enabled", &st->enabled, err) < 0)
        return err->code;
    if (!st->enabled) return 0;
    if (local_master) {
        CS_WARN("allocation", "event=dynamic_allocation_disabled reason=\"Dynamic Allocation is "
                              "not supported in local mode\"");
        st->enabled = false;
        return 0;
    }
    int64_t min, max, initial, instances = 0, cpus;
    if (cs_conf_get_int(c, "spark.dynamicAllocation.minExecutors", "0", &min, err) < 0 ||
        cs_conf_entry_int(c, "spark.dynamicAllocation.maxExecutors", &max, err) < 0 ||
        cs_conf_get_int(c, "spark.dynamicAllocation.initialExecutors", "-1", &initial, err) < 0 ||
        /* as Spark's getDynamicAllocationInitialExecutors: counted only when set */
        (cs_conf_contains(c, "spark.executor.instances") &&
         cs_conf_entry_int(c, "spark.executor.instances", &instances, err) < 0) ||
        cs_conf_entry_int(c, "spark.task.cpus", &cpus, err) < 0)
        return err->code;
    if (!cs_conf_get(c, "spark.dynamicAllocation.initialExecutors")) initial = min;
    if (min < 0 || max < 0)
        return cs_error_set(err, CS_EINVAL,
                            "spark.dynamicAllocation.minExecutors (%lld) and "
                            "spark.dynamicAllocation.maxExecutors (%lld) must be positive",
                            (long long)min, (long long)max);
    if (max == 0)
        return bad(err, "%s cannot be 0 (got %lld)", "spark.dynamicAllocation.maxExecutors", max);
    if (min > max)
        return cs_error_set(err, CS_EINVAL,
                            "spark.dynamicAllocation.minExecutors (%lld) must be less than or "
                            "equal to spark.dynamicAllocation.maxExecutors (%lld)",
                            (long long)min, (long long)max);
    if (initial < min)
        CS_WARN(
            "allocation",
            "event=bad_setting reason=\"spark.dynamicAllocation.initialExecutors (%lld) less "
            "than spark.dynamicAllocation.minExecutors (%lld) is invalid, ignoring its setting, "
            "please update your configs\"",
            (long long)initial, (long long)min);
    if (instances > 0 && instances < min)
        CS_WARN("allocation",
                "event=bad_setting reason=\"spark.executor.instances (%lld) less than "
                "spark.dynamicAllocation.minExecutors (%lld) is invalid, ignoring its setting, "
                "please update your configs\"",
                (long long)instances, (long long)min);
    if (initial > max)
        return cs_error_set(err, CS_EINVAL,
                            "spark.dynamicAllocation.initialExecutors (%lld) must be less than or "
                            "equal to spark.dynamicAllocation.maxExecutors (%lld)",
                            (long long)initial, (long long)max);
    if (instances > max)
        CS_WARN("allocation",
                "event=bad_setting reason=\"spark.executor.instances (%lld) is greater than "
                "spark.dynamicAllocation.maxExecutors (%lld); the initial target is capped at the "
                "maximum\"",
                (long long)instances, (long long)max);
    st->min_executors = (int)min;
    st->max_executors = (int)(max > 1000000 ? 1000000 : max);
    int64_t init = initial > min ? initial : min;
    if (instances > init) init = instances;
    st->initial_executors = (int)(init > st->max_executors ? st->max_executors : init);

    if (cs_conf_get_duration_ms(c, "spark.dynamicAllocation.schedulerBacklogTimeout", "1s", CS_SEC,
                                &st->backlog_timeout_ms, err) < 0)
        return err->code;
    const char *sustained =
        cs_conf_get(c, "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout");
    if (sustained) {
        if (cs_conf_get_duration_ms(c, "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout",
                                    NULL, CS_SEC, &st->sustained_backlog_timeout_ms, err) < 0)
            return err->code;
    } else {
        st->sustained_backlog_timeout_ms = st->backlog_timeout_ms;
    }
    if (st->backlog_timeout_ms <= 0)
        return bad(err, "%s must be > 0 (got %lld ms)",
                   "spark.dynamicAllocation.schedulerBacklogTimeout", st->backlog_timeout_ms);
    if (st->sustained_backlog_timeout_ms <= 0)
        return bad(err, "%s must be > 0 (got %lld ms)",
                   "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout",
                   st->sustained_backlog_timeout_ms);
    if (cs_conf_entry_duration_ms(c, "spark.dynamicAllocation.executorIdleTimeout",
                                  &st->idle_timeout_ms, err) < 0 ||
        cs_conf_get_duration_ms(c, "spark.dynamicAllocation.cachedExecutorIdleTimeout",
                                "2147483647s", CS_SEC, &st->cached_idle_timeout_ms, err) < 0)
        return err->code;
    if (st->idle_timeout_ms < 0)
        return bad(err, "%s must be >= 0 (got %lld ms)",
                   "spark.dynamicAllocation.executorIdleTimeout", st->idle_timeout_ms);
    if (st->cached_idle_timeout_ms < 0)
        return bad(err, "%s must be >= 0 (got %lld ms)",
                   "spark.dynamicAllocation.cachedExecutorIdleTimeout", st->cached_idle_timeout_ms);
    if (cs_conf_get_double(c, "spark.dynamicAllocation.executorAllocationRatio", "1.0",
                           &st->allocation_ratio, err) < 0)
        return err->code;
    if (!(st->allocation_ratio > 0 && st->allocation_ratio <= 1.0))
        return cs_error_set(err, CS_EINVAL,
                            "spark.dynamicAllocation.executorAllocationRatio must be > 0 and <= "
                            "1.0 (got %g)",
                            st->allocation_ratio);
    if (cs_conf_get_bool(c, "spark.dynamicAllocation.shuffleTracking.enabled", "true",
                         &st->shuffle_tracking, err) < 0)
        return err->code;
    st->shuffle_tracking_timeout_ms = INT64_MAX;
    if (cs_conf_get(c, "spark.dynamicAllocation.shuffleTracking.timeout")) {
        if (cs_conf_get_duration_ms(c, "spark.dynamicAllocation.shuffleTracking.timeout", NULL,
                                    CS_MS, &st->shuffle_tracking_timeout_ms, err) < 0)
            return err->code;
        if (st->shuffle_tracking_timeout_ms < 0)
            return bad(err, "%s must be >= 0 (got %lld ms)",
                       "spark.dynamicAllocation.shuffleTracking.timeout",
                       st->shuffle_tracking_timeout_ms);
    }
    bool decom = false, storage = false, blocks = true;
    if (cs_conf_entry_bool(c, "spark.decommission.enabled", &decom, err) < 0 ||
        cs_conf_entry_bool(c, "spark.storage.decommission.enabled", &storage, err) < 0 ||
        cs_conf_entry_bool(c, "spark.storage.decommission.shuffleBlocks.enabled", &blocks, err) < 0)
        return err->code;
    st->decommission = decom;
    if (!st->shuffle_tracking && !(decom && storage && blocks))
        return cs_error_set(
            err, CS_EINVAL,
            "Dynamic allocation of executors requires one of the following conditions: 1) "
            "enabling shuffle tracking through spark.dynamicAllocation.shuffleTracking.enabled; "
            "2) enabling shuffle blocks decommission through spark.decommission.enabled, "
            "spark.storage.decommission.enabled and "
            "spark.storage.decommission.shuffleBlocks.enabled (cspark has no external shuffle "
            "service)");
    if (cpus < 1) return bad(err, "%s must be positive (got %lld)", "spark.task.cpus", cpus);
    st->tasks_per_executor = executor_cores / (int)cpus;
    if (st->tasks_per_executor < 1)
        return cs_error_set(
            err, CS_EINVAL,
            "spark.executor.cores (%d) must not be less than spark.task.cpus (%lld)",
            executor_cores, (long long)cpus);
    return 0;
}

int cs_alloc_initial_target(const alloc_settings *st)
{
    return st->initial_executors;
}

/* ---- policy ---------------------------------------------------------------------------------- */

void cs_alloc_policy_init(alloc_policy *p, const alloc_settings *st)
{
    p->st = st;
    p->target = cs_alloc_initial_target(st);
    p->to_add = 1;
    p->add_time_ms = -1;
    p->initializing = true;
}

void cs_alloc_policy_backlog(alloc_policy *p, bool backlogged, int64_t now_ms)
{
    if (backlogged) {
        if (p->add_time_ms < 0) p->add_time_ms = now_ms + p->st->backlog_timeout_ms;
    } else { /* Spark's onSchedulerQueueEmpty */
        p->add_time_ms = -1;
        p->to_add = 1;
    }
}

void cs_alloc_policy_stage_submitted(alloc_policy *p)
{
    p->initializing = false;
}

int cs_alloc_policy_max_needed(const alloc_policy *p, int tasks)
{
    double need = (double)tasks * p->st->allocation_ratio / p->st->tasks_per_executor;
    int n = (int)need;
    return (double)n < need ? n + 1 : n;
}

/* Spark's addExecutors: grow the target by to_add (from at least the executors we have), within
 * what the tasks need and the bounds; double to_add when the whole step was taken. */
static void add_executors(alloc_policy *p, int max_needed, int executors)
{
    int old = p->target;
    if (old >= p->st->max_executors) {
        p->to_add = 1;
        return;
    }
    int64_t t = old > executors ? old : executors;
    t += p->to_add;
    if (t > max_needed) t = max_needed;
    if (t > p->st->max_executors) t = p->st->max_executors;
    if (t < p->st->min_executors) t = p->st->min_executors;
    int delta = (int)t - old;
    p->target = (int)t;
    if (delta == 0)
        p->to_add = 1;
    else
        p->to_add = delta == p->to_add ? p->to_add * 2 : 1;
}

int cs_alloc_policy_update(alloc_policy *p, int64_t now_ms, int pending, int running, int executors)
{
    if (p->initializing) return p->target;
    int max_needed = cs_alloc_policy_max_needed(p, pending + running);
    if (max_needed < p->target) {
        /* the need fell: lower the target at once (Spark's decrement), start growth afresh */
        int t = max_needed > p->st->min_executors ? max_needed : p->st->min_executors;
        p->target = t;
        p->to_add = 1;
    } else if (p->add_time_ms >= 0 && now_ms >= p->add_time_ms) {
        add_executors(p, max_needed, executors);
        p->add_time_ms = now_ms + p->st->sustained_backlog_timeout_ms;
    }
    return p->target;
}

/* ---- the manager ----------------------------------------------------------------------------- */

typedef struct am_exec {
    char id[64];
    int running;
    int64_t idle_since_ms;
    bool removing;
    int holds;         /* map outputs registered here (refreshed each round) */
    bool holds_active; /* ... of a shuffle of the running job */
} am_exec;

struct allocation_manager {
    alloc_settings st;
    alloc_policy policy;
    scheduler *sched;
    sched_backend *backend;
    listener_bus *bus;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending, running;
    am_exec *execs;
    int nexecs, cap;
    cs_hmap index; /* executor id -> index in execs */
    bool stopping;
    pthread_t thread;
};

static am_exec *exec_find(allocation_manager *am, const char *id)
{
    uint64_t i;
    return cs_hmap_sget(&am->index, id, &i) ? &am->execs[i] : NULL;
}

static void post_target(allocation_manager *am, int target, int previous, int pending, int running,
                        const char *reason)
{
    CS_INFO("allocation",
            "event=target_changed target=%d previous=%d pending_tasks=%d running_tasks=%d "
            "reason=%s",
            target, previous, pending, running, cs_log_quote(reason));
    if (!am->bus) return;
    cs_event ev = {.kind = CS_EV_ALLOCATION_TARGET,
                   .target_executors = target,
                   .previous_target = previous,
                   .pending_tasks = pending,
                   .running_tasks = running,
                   .reason = reason,
                   .time_ms = cs_now_ms()};
    cs_listener_bus_post(am->bus, &ev);
}

static void note_holding(void *arg, const char *executor_id, bool active)
{
    allocation_manager *am = arg;
    am_exec *e = exec_find(am, executor_id);
    if (!e) return;
    e->holds++;
    e->holds_active |= active;
}

/* Spark's ExecutorMonitor.timedOutExecutors + removeExecutors. Lock held; returns ids to remove
 * (malloc'd array of pointers into a malloc'd block: free both with free(ids)). */
static char **idle_to_remove(allocation_manager *am, int64_t now, int *n_out)
{
    *n_out = 0;
    bool any_idle = false;
    for (int i = 0; i < am->nexecs; i++)
        any_idle |= !am->execs[i].removing && am->execs[i].running == 0;
    if (!any_idle) return NULL;
    if (am->st.shuffle_tracking) {
        for (int i = 0; i < am->nexecs; i++) {
            am->execs[i].holds = 0;
            am->execs[i].holds_active = false;
        }
        cs_scheduler_shuffle_holdings(am->sched, note_holding, am);
    }
    int existing = 0;
    for (int i = 0; i < am->nexecs; i++)
        existing += !am->execs[i].removing;
    char **ids = NULL;
    int n = 0;
    for (int i = 0; i < am->nexecs; i++) {
        am_exec *e = &am->execs[i];
        if (e->removing || e->running > 0) continue;
        if (am->st.shuffle_tracking && e->holds_active) continue; /* not idle */
        int64_t timeout = am->st.shuffle_tracking && e->holds ? am->st.shuffle_tracking_timeout_ms
                                                              : am->st.idle_timeout_ms;
        if (timeout == INT64_MAX || now - e->idle_since_ms < timeout) continue;
        int left = existing - n;
        if (left - 1 < am->st.min_executors) {
            CS_DEBUG("allocation",
                     "event=keep_idle executor=%s reason=\"only %d executor(s) left (minimum "
                     "number of executor limit %d)\"",
                     cs_log_value(e->id), left, am->st.min_executors);
            continue;
        }
        if (left - 1 < am->policy.target) {
            CS_DEBUG("allocation",
                     "event=keep_idle executor=%s reason=\"only %d executor(s) left (number of "
                     "executor target %d)\"",
                     cs_log_value(e->id), left, am->policy.target);
            continue;
        }
        e->removing = true;
        ids = cs_xrealloc(ids, (size_t)(n + 1) * sizeof *ids);
        ids[n++] = cs_xstrdup(e->id);
    }
    *n_out = n;
    return ids;
}

static void *am_main(void *arg)
{
    allocation_manager *am = arg;
    pthread_mutex_lock(&am->lock);
    while (!am->stopping) {
        cs_cond_wait_ms(&am->cond, &am->lock, ROUND_MS);
        if (am->stopping) break;
        int64_t now = cs_mono_ms();
        int alive = 0;
        for (int i = 0; i < am->nexecs; i++)
            alive += !am->execs[i].removing;
        int old = am->policy.target;
        int target = cs_alloc_policy_update(&am->policy, now, am->pending, am->running, alive);
        int pending = am->pending, running = am->running;
        int nremove = 0;
        char **remove = idle_to_remove(am, now, &nremove);
        if (nremove) am->policy.initializing = false;
        pthread_mutex_unlock(&am->lock);

        if (target != old) {
            post_target(am, target, old, pending, running,
                        target > old ? "tasks are waiting (scheduler backlog)"
                                     : "fewer executors are needed for the pending and running "
                                       "tasks");
            am->backend->request_total(am->backend, target);
        }
        if (nremove) {
            for (int i = 0; i < nremove; i++)
                CS_INFO("allocation", "event=remove_idle executor=%s mode=%s",
                        cs_log_value(remove[i]), am->st.decommission ? "decommission" : "kill");
            bool *removed = cs_xcalloc((size_t)nremove, sizeof *removed);
            am->backend->remove_executors(am->backend, (const char *const *)remove, nremove,
                                          am->st.decommission, "idle (dynamic allocation)",
                                          removed);
            pthread_mutex_lock(&am->lock);
            /* refused: it was given tasks after this round found it idle; it stays */
            for (int i = 0; i < nremove; i++) {
                am_exec *e = removed[i] ? NULL : exec_find(am, remove[i]);
                if (e) e->removing = false;
                free(remove[i]);
            }
            pthread_mutex_unlock(&am->lock);
            free(removed);
            free(remove);
        }
        pthread_mutex_lock(&am->lock);
    }
    pthread_mutex_unlock(&am->lock);
    return NULL;
}

allocation_manager *cs_allocation_manager_new(const alloc_settings *st, scheduler *sched,
                                              sched_backend *backend, listener_bus *bus)
{
    allocation_manager *am = cs_xcalloc(1, sizeof *am);
    am->st = *st;
    cs_alloc_policy_init(&am->policy, &am->st);
    am->sched = sched;
    am->backend = backend;
    am->bus = bus;
    cs_hmap_init_strings(&am->index);
    pthread_mutex_init(&am->lock, NULL);
    cs_cond_init_monotonic(&am->cond);
    post_target(am, am->policy.target, 0, 0, 0, "initial executors");
    backend->request_total(backend, am->policy.target);
    pthread_create(&am->thread, NULL, am_main, am);
    return am;
}

void cs_allocation_manager_free(allocation_manager *am)
{
    if (!am) return;
    pthread_mutex_lock(&am->lock);
    am->stopping = true;
    pthread_cond_broadcast(&am->cond);
    pthread_mutex_unlock(&am->lock);
    pthread_join(am->thread, NULL);
    free(am->execs);
    cs_hmap_free(&am->index);
    pthread_mutex_destroy(&am->lock);
    pthread_cond_destroy(&am->cond);
    free(am);
}

void cs_am_task_submitted(allocation_manager *am)
{
    pthread_mutex_lock(&am->lock);
    if (am->pending++ == 0) cs_alloc_policy_backlog(&am->policy, true, cs_mono_ms());
    pthread_mutex_unlock(&am->lock);
}

void cs_am_task_started(allocation_manager *am, const char *executor_id)
{
    pthread_mutex_lock(&am->lock);
    if (am->pending > 0 && --am->pending == 0) cs_alloc_policy_backlog(&am->policy, false, 0);
    am->running++;
    am_exec *e = executor_id ? exec_find(am, executor_id) : NULL;
    if (e) e->running++;
    pthread_mutex_unlock(&am->lock);
}

void cs_am_task_ended(allocation_manager *am, const char *executor_id)
{
    pthread_mutex_lock(&am->lock);
    if (!executor_id) {
        if (am->pending > 0 && --am->pending == 0) cs_alloc_policy_backlog(&am->policy, false, 0);
    } else {
        if (am->running > 0) am->running--;
        am_exec *e = exec_find(am, executor_id);
        if (e && e->running > 0 && --e->running == 0) e->idle_since_ms = cs_mono_ms();
    }
    pthread_mutex_unlock(&am->lock);
}

void cs_am_stage_submitted(allocation_manager *am)
{
    pthread_mutex_lock(&am->lock);
    cs_alloc_policy_stage_submitted(&am->policy);
    pthread_mutex_unlock(&am->lock);
}

void cs_am_executor_added(allocation_manager *am, const char *executor_id)
{
    pthread_mutex_lock(&am->lock);
    if (!exec_find(am, executor_id)) {
        if (am->nexecs == am->cap) {
            am->cap = am->cap ? am->cap * 2 : 16;
            am->execs = cs_xrealloc(am->execs, (size_t)am->cap * sizeof *am->execs);
        }
        am_exec *e = &am->execs[am->nexecs];
        memset(e, 0, sizeof *e);
        snprintf(e->id, sizeof e->id, "%s", executor_id);
        cs_hmap_sput(&am->index, e->id, (uint64_t)am->nexecs++);
        e->idle_since_ms = cs_mono_ms();
    }
    pthread_mutex_unlock(&am->lock);
}

void cs_am_executor_removed(allocation_manager *am, const char *executor_id)
{
    pthread_mutex_lock(&am->lock);
    am_exec *e = exec_find(am, executor_id);
    if (e) {
        am->running -= e->running;
        if (am->running < 0) am->running = 0;
        cs_hmap_sdel(&am->index, e->id);
        *e = am->execs[--am->nexecs];
        if (e != &am->execs[am->nexecs]) cs_hmap_sput(&am->index, e->id, (uint64_t)(e - am->execs));
    }
    pthread_mutex_unlock(&am->lock);
}

int cs_am_target(allocation_manager *am)
{
    pthread_mutex_lock(&am->lock);
    int t = am->policy.target;
    pthread_mutex_unlock(&am->lock);
    return t;
}
