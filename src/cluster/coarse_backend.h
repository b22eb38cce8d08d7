/*
 * coarse_backend.h — the driver side of Spark's CoarseGrainedSchedulerBackend: an RPC endpoint
 * that executors connect to; it answers RetrieveSparkAppConfig, registers executors, offers
 * the free cores of its executors to the task scheduler and launches the tasks it places there
 * (sending each stage's plan once per executor),
 * turns StatusUpdates into scheduler completions (fetching large results from the executor's
 * block server), expires executors silent for longer than spark.network.timeout, and reports
 * lost executors to the scheduler. Launchers (local-cluster, Kubernetes) start the processes
 * and tell it when one exits.
 *
 * Launchers (local-cluster, Kubernetes) plug in through the hooks of coarse_options, so the
 * scheduler drives the coarse backend itself (Spark: KubernetesClusterSchedulerBackend extends
 * CoarseGrainedSchedulerBackend).
 *
 * Ownership: the backend is a sched_backend owned by the scheduler (stopped through ops.stop);
 * strings in coarse_options are copied. Threads: the RPC loop thread, a housekeeping thread
 * (heartbeat expiry) and a result-fetching thread; every public function is thread-safe.
 */
#ifndef CSPARK_CLUSTER_COARSE_BACKEND_H
#define CSPARK_CLUSTER_COARSE_BACKEND_H

#include <stdint.h>

#include "cluster/cluster_manager.h"
#include "common/err.h"
#include "sched/scheduler.h"

typedef struct coarse_backend coarse_backend;

typedef struct coarse_options {
    const char *bind_host; /* address to listen on (spark.driver.bindAddress) */
    int port;              /* spark.driver.port, 0 = any free port */
    const char *secret;    /* spark.authenticate secret, NULL = off */
    const char *app_file;  /* the job's .so as executors should load it */
    /* The configuration executors are given (RetrieveSparkAppConfig), when it differs from the
     * application's (e.g. shipped files at the URIs executors fetch them from); NULL: the
     * application's. Borrowed: it outlives the backend. */
    const cs_conf *exec_conf;
    /* Called (any thread) when the backend removes an executor it knew: heartbeat timeout or
     * disconnection. The launcher may kill the process. */
    void (*executor_removed)(void *arg, const char *executor_id, const char *reason);
    /* Optional: may this executor register? false refuses it (Spark's isExecutorExcluded: e.g. a
     * pod the launcher already deleted). Called without the backend's lock. */
    bool (*admit)(void *arg, const char *executor_id);
    /* The launcher's part of the backend (Spark's subclasses of CoarseGrainedSchedulerBackend),
     * all optional, called on the caller's thread without the backend's lock:
     * request_total — dynamic allocation's target (Spark's doRequestTotalExecutors; without it the
     *   backend has no request_total and dynamic allocation stays off);
     * removing — executors about to be removed or decommissioned, before they are told (Spark's
     *   doKillExecutors: e.g. label their pods);
     * stopping — the backend stops: end the executors (cs_coarse_backend_stop_executors, processes,
     *   pods) while the endpoint still runs; stopped — after it closed: free the launcher.
     * The task reaper (sched_backend.reap) closes the connections of executors whose tasks did
     * not stop, marks them removed (removing is called) and calls kill. */
    void (*request_total)(void *arg, int total);
    void (*removing)(void *arg, const char *const *ids, int n);
    void (*stopping)(void *arg);
    void (*stopped)(void *arg);
    /* Optional: the task reaper gave up on the tasks of this executor (already marked removed,
     * its connection closing): end it now — kill its process, delete its pod. */
    void (*kill)(void *arg, const char *executor_id);
    /* The launcher reports every executor's end (cs_coarse_backend_executor_exited: exit code,
     * signal, pod state): an executor whose connection closes without a reason known yet is
     * reported lost once that reason arrives, or after CS_COARSE_EXIT_REASON_WAIT_MS with the
     * connection's (Spark's executorsPendingLossReason). */
    bool reports_exits;
    void *hooks_arg;
} coarse_options;

coarse_backend *cs_coarse_backend_new(const cluster_env *env, const coarse_options *o,
                                      cs_error *err);
/* The sched_backend the scheduler drives (stop frees the coarse backend, after the hooks). */
sched_backend *cs_coarse_backend_base(coarse_backend *b);
/* The launcher behind a coarse backend's sched_backend (coarse_options.hooks_arg). */
void *cs_coarse_backend_launcher(const sched_backend *base);
int cs_coarse_backend_port(const coarse_backend *b);
/* Waits until n executors are registered or timeout_ms passes; returns the number registered. */
int cs_coarse_backend_wait_registered(coarse_backend *b, int n, int64_t timeout_ms);
/* How long a closed connection's loss waits for the launcher's exit reason (reports_exits). */
#define CS_COARSE_EXIT_REASON_WAIT_MS 30000
/* The launcher saw the executor's process exit (reason explains the exit status, e.g. "Command
 * exited with code 134"): the executor is lost with that reason, now or, when its connection
 * already closed, in place of the connection's. Any thread. */
void cs_coarse_backend_executor_exited(coarse_backend *b, const char *executor_id,
                                       const char *reason);
/* Asks every executor to stop (StopExecutor) without freeing anything yet. */
void cs_coarse_backend_stop_executors(coarse_backend *b);
/* Dynamic allocation / decommissioning (see sched_backend.remove_executors): the executors get
 * no new tasks; with decommission they get DecommissionExecutor (finish tasks, hand shuffle files
 * to peers, then StopExecutor), otherwise StopExecutor at once. */
void cs_coarse_backend_remove_executors(coarse_backend *b, const char *const *ids, int n,
                                        bool decommission, const char *reason);
/* Dynamic allocation's kill (Spark's killExecutors with force = false): of these executors, those
 * running no task — checked under the lock the offers take, so none is given a task meanwhile —
 * get no new tasks, are announced to the launcher (coarse_options.removing) and get
 * StopExecutor; killed[k] is false for ids[k] running a task (it stays), true otherwise (killed
 * now, or gone or going already). Returns how many were told to stop. */
int cs_coarse_backend_kill_idle(coarse_backend *b, const char *const *ids, int n,
                                const char *reason, bool *killed);
/* One live executor as the executor roller ranks it (the fields of Spark's ExecutorSummary its
 * ExecutorRollDriverPlugin reads): kept by the driver from registrations, task ends and
 * heartbeats. */
typedef struct coarse_exec_stats {
    char id[64];
    int64_t add_time_ms;               /* wall clock of its registration */
    int64_t total_tasks, failed_tasks; /* tasks ended on it, those of them failed */
    int64_t total_duration_ms;         /* the run time of those tasks */
    int64_t total_shuffle_write;       /* shuffle bytes they wrote */
    int64_t active_tasks;              /* tasks running on it now */
    int64_t peak_rss_bytes;            /* its process's largest RSS its heartbeats reported */
} coarse_exec_stats;
/* The executors alive, connected and neither removed nor decommissioning, in registration order:
 * *out is malloc'd (the caller frees it), the count is returned. Any thread. */
int cs_coarse_backend_executor_stats(coarse_backend *b, coarse_exec_stats **out);
/* True when the executor was asked to go (removed or decommissioned): its exit is no failure. */
bool cs_coarse_backend_exit_expected(coarse_backend *b, const char *executor_id);
/* Waits until every executor has disconnected or timeout_ms passes; returns how many remain. */
int cs_coarse_backend_wait_disconnected(coarse_backend *b, int64_t timeout_ms);

#endif
