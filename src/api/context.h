/*
 * context.h — the application context (cspark_context): configuration, identifiers, the lineage
 * graph, the scheduler and the listener bus. Created by cs_app_run (app.c) before the
 * job's entry function is called and stopped after it returns.
 *
 * Ownership: the context owns its conf copy, the lineage graph (every RDD node, released at
 * cs_context_stop), the scheduler and the listener bus. Threads: the job may call the public API
 * from several threads at once (each action runs its job, beside the others'); job properties
 * are each thread's own; tasks run on scheduler worker threads and only read immutable RDD nodes.
 */
#ifndef CSPARK_API_CONTEXT_H
#define CSPARK_API_CONTEXT_H

#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster_manager.h"
#include "records/checksum.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/master.h"
#include "cspark.h"
#include "plan/rdd.h"

struct scheduler;
struct listener_bus;
struct ui_live;

struct cspark_context {
    cs_conf *conf;
    cs_master master;
    char app_id[64];
    char *app_name;
    char *app_file_name; /* base name of the job's .so, for call sites in stage names */
    int default_parallelism;
    int max_task_failures;

    /* execution settings read once */
    int64_t task_memory_budget;
    int64_t local_memory; /* local mode: the executor's memory (spark.executor/driver.memory) */
    bool shuffle_compress;
    cs_checksum_algo shuffle_checksum; /* spark.shuffle.checksum.enabled / .algorithm */
    char *local_dir;                   /* <spark.local.dir>/cspark-<app_id>, removed at stop */

    lineage_graph graph;  /* every RDD and shuffle dependency of the application */
    pthread_mutex_t lock; /* guards error, failed and the job properties below */

    /* the local properties of the jobs each thread runs from now on (jobs.c), one entry per
     * thread that set some (Spark keeps them per thread): spark.job.description,
     * spark.jobGroup.id, spark.job.interruptOnCancel; freed with the context */
    struct cs_local_props *local_props;
    /* errors cspark_last_error returned earlier: kept until the context stops, since another
     * thread may still read one when a later error replaces it */
    char **old_errors;
    int num_old_errors;

    struct scheduler *sched;
    struct listener_bus *bus;
    struct ui_live *ui; /* the web UI, NULL when spark.ui.enabled=false */

    char *error;      /* the failure that failed the context (else the latest cancelled job's
                         reason): the application's last line and termination message */
    char *last_error; /* the latest error recorded, for cspark_last_error */
    bool failed;
    const cluster_manager *manager; /* the one serving spark.master */
    cluster_env env;                /* what the backend borrows from the context */
    struct sched_backend *backend;  /* borrowed: the scheduler owns it */
    atomic_int interrupted;         /* the signal that interrupted the application, or 0 */
    /* the application's own answer to SIGINT/SIGTERM (cs_app_set_interrupt_hook), under lock */
    bool (*interrupt_hook)(void *arg, int sig);
    void *interrupt_hook_arg;

    /* shared variables (broadcast.c, accumulators.c) */
    struct broadcast_store *broadcasts;   /* values created by cspark_broadcast */
    struct broadcast_tracker *bc_tracker; /* where executors hold their pieces */
    int64_t next_broadcast_id;
    int64_t broadcast_piece_size; /* spark.broadcast.blockSize */
    struct acc_registry *accums;
    struct custom_merge *custom_merges; /* custom accumulators' merge functions (accumulators.c) */
};

/* Shared variables' part of the context's life: before the backend starts (0, or <0 with err on a
 * bad spark.broadcast.blockSize) and after the scheduler stopped (broadcast.c). */
int cs_context_shared_vars_init(cspark_context *sc, cs_error *err);
void cs_context_shared_vars_free(cspark_context *sc);
/* cspark_broadcast taking data (malloc'd, or NULL when len is 0) instead of copying it: the
 * broadcast store frees it with the variable (broadcast.c). */
cspark_broadcast_var cs_context_broadcast_take(cspark_context *sc, void *data, size_t len);
/* jobs.c: frees every thread's local properties. */
void cs_context_local_props_free(cspark_context *sc);
/* accumulators.c: frees the custom accumulators' merge references. */
void cs_context_custom_merges_free(cspark_context *sc);

/* Creates a context from conf (copied). NULL with err on bad configuration. */
cspark_context *cs_context_new(const cs_conf *conf, const char *app_file, cs_error *err);
/* Stops the scheduler and the bus, removes local files, frees everything. */
void cs_context_stop(cspark_context *sc, bool succeeded);
/* A signal asked the application to stop: the running job and every later one fail. */
void cs_context_interrupt(cspark_context *sc, int sig);

/* Exit status the backend asks for (Kubernetes: 11 after spark.executor.maxNumFailures), or 0. */
int cs_context_exit_code(cspark_context *sc);

/* Records err as the context's latest error (cspark_last_error) and, when it is the first
 * failure, as its error (the application's last line); marks the context failed: later actions
 * fail at once and the application exits non-zero. Returns err->code. */
int cs_context_fail(cspark_context *sc, const cs_error *err);
/* A job cancelled on request (the web UI's kill, cspark_cancel_job_group): as Spark's, only its
 * action fails and the driver may go on with other jobs. err becomes the context's latest error
 * (cspark_last_error), and its error unless the context has failed; a later error replaces it.
 * The context is not marked failed. Returns err->code. */
int cs_context_job_cancelled(cspark_context *sc, const cs_error *err);
/* A public function `op` was given a NULL RDD (or context): records "OP: the RDD is NULL ..."
 * on the process's running context (a process runs one at a time) unless the context has
 * already failed — then the NULL is that failure's consequence (a refused transformation earlier
 * in the chain), which stays the reason — and returns CS_EINVAL. */
int cs_context_null_argument(const char *op, const char *what);
/* A public function was called in a way it cannot serve and has no error to return (an index
 * out of range): in a task, the task fails with the message (as an exception in a Spark task);
 * elsewhere, as a Spark driver's uncaught exception, the running context is stopped (its
 * executors and files removed), the message is the process's last line
 * ("cspark-submit: MESSAGE") and the process exits with status 1. Does not return. */
_Noreturn void cs_context_misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
