/*
 * cluster_manager.h — the cluster managers behind one registry, as Spark's ExternalClusterManager:
 * the context asks each registered manager whether it can serve the master URL (can_create) and
 * drives the one that can through this table; it never names a backend. Registered, in order:
 * local[N] (src/cluster/local/), local-cluster[N,C,M] (src/cluster/local_cluster/) and k8s://
 * (src/cluster/k8s/). A new cluster manager is one folder and one row in cluster_manager.c.
 *
 * Order of calls (the context's thread): default_parallelism and new_app_id while the context
 * reads its settings; create; cs_scheduler_new over the backend; start (the backend may now
 * report to the scheduler); dynamic allocation's first request; wait_registered; at the end
 * stopping (the very first step of the context's stop), exit_code, then the scheduler stops the
 * backend (sched_backend.stop).
 *
 * Backends receive a cluster_env, never the context. Ownership: the env and everything it points
 * to belong to the context and outlive the backend (the context frees them after the scheduler
 * has stopped the backend); backends copy the struct and borrow its pointers.
 */
#ifndef CSPARK_CLUSTER_CLUSTER_MANAGER_H
#define CSPARK_CLUSTER_CLUSTER_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "records/checksum.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/master.h"
#include "common/strutil.h"
#include "sched/scheduler.h"

/* What a backend needs from the application. */
typedef struct cluster_env {
    cs_conf *conf;         /* the application's configuration: backends may add defaults */
    const char *app_id;    /* spark.app.id */
    const char *app_name;  /* spark.app.name */
    const char *local_dir; /* the driver's <spark.local.dir>/cspark-<app id> */
    const cs_master *master;
    struct listener_bus *bus;          /* executor added / removed events */
    int64_t task_memory_budget;        /* local mode: each task's execution memory */
    int64_t local_memory;              /* local mode: the process's memory (cached blocks) */
    bool shuffle_compress;             /* local mode: spark.shuffle.compress */
    cs_checksum_algo shuffle_checksum; /* local mode: spark.shuffle.checksum.* */
    bool dynamic_allocation;           /* spark.dynamicAllocation.enabled (and not local mode) */
    /* broadcast variables: the driver's values (tasks of local mode read them in place; the
     * coarse backend serves them to executors) and where executors hold their pieces */
    struct broadcast_store *broadcasts;
    struct broadcast_tracker *broadcast_tracker;
} cluster_env;

typedef struct cluster_manager {
    const char *name; /* "local", "local-cluster", "k8s" */
    /* Executors come and go on request: dynamic allocation may run (Spark: not in local mode). */
    bool dynamic_allocation;
    /* Spark's canCreate(masterURL): this manager serves the URL. */
    bool (*can_create)(const char *master_url);
    /* Spark's SchedulerBackend.applicationId: a new application id (64 bytes with the NUL);
     * NULL: "local-<epoch ms>". */
    int (*new_app_id)(char *out, cs_error *err);
    /* Tasks that can run at once before any executor registers (default parallelism and the
     * share of memory of each task in local mode). */
    int (*default_parallelism)(const cs_conf *conf, const cs_master *m, int *out, cs_error *err);
    /* Checks the master URL and settings against what this host can run, before anything is
     * created (local-cluster: executors, cores and memory). NULL: nothing to check. */
    int (*check)(const cs_conf *conf, const cs_master *m, cs_error *err);
    /* Creates the backend (executors may start; no task yet). NULL + err (nothing left behind). */
    sched_backend *(*create)(const cluster_env *env, cs_error *err);
    /* After cs_scheduler_new: the backend may report to its scheduler; starts allocating.
     * NULL: nothing to do. */
    int (*start)(sched_backend *b, cs_error *err);
    /* Waits for executors as the manager's keys say (spark.scheduler.maxRegisteredResources-
     * WaitingTime, ...) and logs how many registered. NULL: nothing to wait for. */
    int (*wait_registered)(sched_backend *b, cs_error *err);
    /* The application stops (the context's first step, before its jobs, the task reaper and the
     * executors stop): from now on no executor is started, requested or replaced (Kubernetes: the
     * allocator stops; local-cluster: no relaunch); returns once none is being started. Executors
     * the stop then removes are not replaced. NULL: nothing to do. */
    void (*stopping)(sched_backend *b);
    /* The exit status the driver should end with (Kubernetes: 11 after
     * spark.executor.maxNumFailures), 0 for none. NULL: always 0. */
    int (*exit_code)(sched_backend *b);
    /* Where executor exec_id's "stdout" or "stderr" is kept under the application's local dir,
     * for the web UI's log pages; CS_EINVAL for an id or type that names none. NULL: the
     * driver cannot read its executors' logs. */
    int (*executor_log_path)(const char *local_dir, const char *exec_id, const char *type,
                             char *buf, size_t cap);
    /* For managers whose executors' logs live elsewhere (Kubernetes: the container log, read
     * through the API server, or the copy the driver kept of a failed pod before deleting it):
     * appends the end of executor exec_id's log, at most max bytes, to out. 0, or CS_ENOTFOUND
     * for an executor this application never had. Called from the web UI's threads while the
     * backend runs. NULL: none. */
    int (*fetch_executor_log)(sched_backend *b, const char *exec_id, size_t max, cs_sbuf *out,
                              cs_error *err);
} cluster_manager;

/* The first registered manager that can serve master_url, NULL when none can. */
const cluster_manager *cs_cluster_manager_for(const char *master_url);

/* The master URL whose manager runs the application: spark.master, except in a driver pod
 * (spark.kubernetes.submitInDriver) whose spark.kubernetes.driver.master is local, local[N] or
 * local[*]: Spark 4's driver-pod-only mode, the tasks run in the driver pod and no executor pod
 * is made. Borrowed from conf (or the table's default). */
const char *cs_cluster_master_url(const cs_conf *conf);

/* ---- helpers for managers that start executor processes ------------------------------------ */

typedef sched_backend *(*cluster_backend_new_fn)(const cluster_env *env, const char *secret,
                                                 cs_error *err);
/* create() of a manager whose executors are processes or pods: checks the decommissioning
 * settings executors will read, then calls new_backend with the application's spark.authenticate
 * secret (NULL when off): given (env, file or conf) or generated per application, and on by
 * default — stricter than Spark, whose spark.authenticate defaults to false. The secret is wiped
 * after the call. */
sched_backend *cs_cluster_create_with_secret(const cluster_env *env,
                                             cluster_backend_new_fn new_backend, cs_error *err);

/* spark.executor.maxNumFailures, or its default as Spark's ExecutorFailureTracker computes it:
 * max(3, 2 × the executors wanted), capped at INT32_MAX; at least 1. CS_EINVAL on a malformed
 * value. Used by the backends that count executor failures (local-cluster, k8s). */
int cs_cluster_max_executor_failures(const cs_conf *conf, int64_t wanted, int *out, cs_error *err);

#endif
