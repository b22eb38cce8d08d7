/*
 * allocation_manager.h — dynamic allocation (Spark's ExecutorAllocationManager and
 * ExecutorMonitor): scales the executors of an application to its work.
 *
 * Every 100 ms the manager compares the executors the pending and running tasks need with its
 * target. While tasks wait (a backlog for spark.dynamicAllocation.schedulerBacklogTimeout, then
 * every sustainedSchedulerBacklogTimeout) it raises the target by 1, 2, 4, 8, ... executors per
 * round, never above what the tasks need or maxExecutors; when the need falls below the target
 * the target falls with it (not below minExecutors). Executors idle for executorIdleTimeout are
 * removed through the backend (decommissioned when spark.decommission.enabled), as long as
 * minExecutors and the target stay covered; with shuffle tracking an executor holding map
 * outputs of a running job is not idle, and one holding any map output times out only after
 * shuffleTracking.timeout. Target changes are posted on the listener bus (and so reach the event
 * log) and sent to the backend's request_total.
 *
 * The policy (alloc_policy_*) is a pure state machine over explicit times, so that its rules
 * are unit-tested without threads; allocation_manager_* wraps it with the scheduler's counters,
 * the executor table and the timer thread.
 *
 * Ownership: the scheduler owns the manager (created in cs_scheduler_new when dynamic allocation is
 * on, freed in cs_scheduler_free before the backend stops). Threads: the am_* notifications are
 * called from the job thread and the backends' threads; the timer thread calls the backend
 * (request_total, remove_executors) without holding the manager's lock.
 */
#ifndef CSPARK_SCHED_ALLOCATION_MANAGER_H
#define CSPARK_SCHED_ALLOCATION_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

/* spark.dynamicAllocation.* and the keys they depend on, validated as Spark validates them. */
typedef struct alloc_settings {
    bool enabled;
    int min_executors, max_executors, initial_executors;
    int64_t backlog_timeout_ms, sustained_backlog_timeout_ms;
    int64_t idle_timeout_ms, cached_idle_timeout_ms;
    double allocation_ratio;
    bool shuffle_tracking;
    int64_t shuffle_tracking_timeout_ms; /* INT64_MAX = never */
    bool decommission;                   /* spark.decommission.enabled: remove by decommissioning */
    int tasks_per_executor;              /* spark.executor.cores / spark.task.cpus */
} alloc_settings;

/* Reads the settings. local_master: in local mode dynamic allocation is off (with Spark's
 * warning). executor_cores: cores of each executor. Returns 0 (out->enabled may be false) or a
 * negative code with a one-line error naming the key. Warnings (initialExecutors below
 * minExecutors, as Spark) are logged. */
int cs_alloc_settings_read(const cs_conf *conf, bool local_master, int executor_cores,
                           alloc_settings *out, cs_error *err);
/* The first target: max(initialExecutors, minExecutors, spark.executor.instances), as Spark. */
int cs_alloc_initial_target(const alloc_settings *st);

/* ---- the policy ------------------------------------------------------------------------------ */

typedef struct alloc_policy {
    const alloc_settings *st;
    int target;
    int to_add;          /* executors added in the next round (1, 2, 4, ...) */
    int64_t add_time_ms; /* when the next round may add, -1 = no backlog */
    bool initializing;   /* no stage yet: the initial target is kept */
} alloc_policy;

void cs_alloc_policy_init(alloc_policy *p, const alloc_settings *st);
/* The scheduler has tasks waiting (backlogged) or none (queue empty); a stage was submitted. */
void cs_alloc_policy_backlog(alloc_policy *p, bool backlogged, int64_t now_ms);
void cs_alloc_policy_stage_submitted(alloc_policy *p);
/* One round at now_ms: pending + running tasks and the executors alive. Returns the new target
 * (== p->target; compare with the old one to see a change). */
int cs_alloc_policy_update(alloc_policy *p, int64_t now_ms, int pending, int running,
                           int executors);
/* Executors wanted for this many tasks: ceil(tasks * ratio / tasks per executor). */
int cs_alloc_policy_max_needed(const alloc_policy *p, int tasks);

/* ---- the manager ----------------------------------------------------------------------------- */

struct scheduler;
struct sched_backend;
struct listener_bus;
typedef struct allocation_manager allocation_manager;

/* Starts the timer thread and asks the backend for the initial target. */
allocation_manager *cs_allocation_manager_new(const alloc_settings *st, struct scheduler *sched,
                                              struct sched_backend *backend,
                                              struct listener_bus *bus);
/* Stops the timer thread; no backend call happens after it returns. NULL is fine. */
void cs_allocation_manager_free(allocation_manager *am);

/* Notifications (any thread). A task launched (pending) / began running on an executor / ended
 * (executor_id NULL when it never started). */
void cs_am_task_submitted(allocation_manager *am);
void cs_am_task_started(allocation_manager *am, const char *executor_id);
void cs_am_task_ended(allocation_manager *am, const char *executor_id);
void cs_am_stage_submitted(allocation_manager *am);
void cs_am_executor_added(allocation_manager *am, const char *executor_id);
void cs_am_executor_removed(allocation_manager *am, const char *executor_id);
/* The current target (for tests and logs). */
int cs_am_target(allocation_manager *am);

#endif
