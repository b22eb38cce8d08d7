/*
 * k8s_executor_roll.h — executor rolling (Spark's ExecutorRollPlugin / ExecutorRollDriverPlugin):
 * every spark.kubernetes.executor.rollInterval one executor is decommissioned, so that the
 * allocator, whose target is unchanged, replaces it by a new pod — executors are replaced one by
 * one while jobs run, their shuffle files handed to peers by decommissioning.
 *
 * Keys (docs/configuration.md):
 *  - spark.kubernetes.executor.rollInterval (0s: off). As Spark, rolling needs
 *    spark.decommission.enabled=true; cspark refuses the pair otherwise (conf_k8s_keys.c) where
 *    Spark logs a warning and does nothing.
 *  - spark.kubernetes.executor.rollPolicy (OUTLIER): which executor, ranked on the figures the
 *    driver keeps for each live executor (coarse_exec_stats, Spark's ExecutorSummary):
 *      ID                      the smallest executor id
 *      ADD_TIME                the earliest registered
 *      TOTAL_DURATION          the largest total task run time
 *      AVERAGE_DURATION        the largest total task run time / max(1, tasks)
 *      FAILED_TASKS            the most failed tasks
 *      PEAK_JVM_ONHEAP_MEMORY  the largest peak RSS of the executor process (a cspark executor
 *                              has no JVM heap: its process's memory is the nearest meaning)
 *      TOTAL_SHUFFLE_WRITE     the most shuffle bytes written
 *      ACTIVE_TASKS            the fewest running tasks, then the earliest registered
 *      OUTLIER                 the first outlier (value - mean > 2 standard deviations) of, in
 *                              this order: average duration (executors with tasks), total
 *                              duration, failed tasks, peak RSS, shuffle write; else as
 *                              TOTAL_DURATION
 *      OUTLIER_NO_FALLBACK     the same, or none
 *    TOTAL_GC_TIME, PEAK_JVM_OFFHEAP_MEMORY and DISK_USED are refused (conf_k8s_keys.c).
 *    Ties go to the earliest registered executor (Spark's sorts are stable).
 *  - spark.kubernetes.executor.minTasksPerExecutorBeforeRolling (0): executors that ran fewer
 *    tasks are never chosen.
 * Executors already removed or decommissioning are not candidates. The roll decommissions
 * without lowering the target (Spark's adjustTargetNumExecutors = false): reason "Rolling via
 * POLICY at MS", the pod labelled with spark.kubernetes.executor.decommissionLabel when set.
 *
 * The decisions are pure functions of the figures and times they are given (unit tests:
 * tests/unit/k8s/test_k8s_executor_roll.c); the roller thread (cs_k8s_roll_start) runs one at
 * fixed rate, first one interval after the backend starts, as Spark's scheduleAtFixedRate.
 *
 * Ownership: k8s_roll_settings holds no pointers but policy_name, a static string.
 */
#ifndef CSPARK_CLUSTER_K8S_EXECUTOR_ROLL_H
#define CSPARK_CLUSTER_K8S_EXECUTOR_ROLL_H

#include <stdint.h>

#include "cluster/coarse_backend.h"
#include "common/conf.h"
#include "common/err.h"

typedef enum {
    K8S_ROLL_ID,
    K8S_ROLL_ADD_TIME,
    K8S_ROLL_TOTAL_DURATION,
    K8S_ROLL_AVERAGE_DURATION,
    K8S_ROLL_FAILED_TASKS,
    K8S_ROLL_PEAK_MEMORY,
    K8S_ROLL_TOTAL_SHUFFLE_WRITE,
    K8S_ROLL_ACTIVE_TASKS,
    K8S_ROLL_OUTLIER,
    K8S_ROLL_OUTLIER_NO_FALLBACK
} k8s_roll_policy;

typedef struct k8s_roll_settings {
    int64_t interval_ms; /* 0: rolling is off */
    k8s_roll_policy policy;
    const char *policy_name; /* Spark's spelling, static */
    int64_t min_tasks;
} k8s_roll_settings;

/* Reads the three keys. CS_EINVAL naming the key on a bad or refused value. */
int cs_k8s_roll_settings_read(const cs_conf *conf, k8s_roll_settings *s, cs_error *err);

/* The policy named (case-insensitive, as Spark upper-cases it); -1 when cspark has none by that
 * name (an unknown name, or one refused as JVM-only). */
int cs_k8s_roll_policy_parse(const char *name);

/* The index in execs (the live executors, in registration order) of the executor to roll, or -1
 * when none qualifies. Pure. */
int cs_k8s_roll_choose(const coarse_exec_stats *execs, int n, k8s_roll_policy policy,
                       int64_t min_tasks);

/* When the roll after now_ms is due, for a roller started at start_ms: start + k × interval for
 * the smallest k ≥ 1 with that time > now_ms (a fixed rate: late rounds do not shift the next).
 * Pure. */
int64_t cs_k8s_roll_next_ms(int64_t start_ms, int64_t interval_ms, int64_t now_ms);

struct k8s_backend;
/* Starts the roller thread when rolling is on (a no-op otherwise). Context's thread. */
int cs_k8s_roll_start(struct k8s_backend *b);
/* Stops it for good (the application stops; a no-op when not running or already stopped): no
 * executor is rolled once it returns. Backend's lock not held. */
void cs_k8s_roll_stop(struct k8s_backend *b);

#endif
