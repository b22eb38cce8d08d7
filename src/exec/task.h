/*
 * task.h — running a task (plan/task.h) in this process: what the process offers its tasks
 * (exec_env) and cs_task_run (task_runner.c), which computes the task's partition by pulling
 * batches through the stage's narrow lineage and hands them to its sink: a shuffle writer for
 * map stages, or one of the action sinks (count, collect, take, fold, save, foreach, sample).
 *
 * Called by backends on their worker threads (cluster/local, the executor's core slots).
 * Ownership: a task_desc and everything it points to are borrowed for the duration of
 * cs_task_run; the task_result is filled by cs_task_run and owned by the caller
 * (cs_task_result_free).
 */
#ifndef CSPARK_EXEC_TASK_H
#define CSPARK_EXEC_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "records/checksum.h"
#include "plan/task.h"
#include "shuffle/shuffle.h"

/* What a process offers its tasks. */
typedef struct exec_env {
    const char *executor_id;
    const char *host;
    int block_port;        /* where this process serves its shuffle files (0: not served) */
    const char *local_dir; /* shuffle and spill files */
    int64_t task_memory_budget;
    bool shuffle_compress; /* spark.shuffle.compress: spills, and map outputs read elsewhere */
    /* every map output this process writes is read by this process only (local mode): its
     * blocks are stored without stream compression whatever spark.shuffle.compress says (they
     * never cross the network or another process; LZ4 would cost CPU on both sides and
     * nothing else) */
    bool shuffle_in_process;
    cs_checksum_algo shuffle_checksum;  /* spark.shuffle.checksum.*: shuffle and spill blocks */
    cs_map_status_opts map_status_opts; /* the form of map statuses (all zero: Spark's defaults) */
    shuffle_block_source blocks;        /* where reduce-side segments come from */
    struct block_fetcher
        *fetcher; /* executors: per-reader prefetching sources (NULL: use blocks) */
    struct broadcast_store *broadcasts;  /* broadcast values (exec/broadcast_store.h) */
    struct block_manager *block_manager; /* cached partitions of this process (NULL: none) */
    /* the application's conf (SQL tasks read spark.sql.*); NULL: none */
    const struct cs_conf *conf;
    int cores; /* the task slots of this process (0: unknown, taken as 1) */
    /* what higher layers keep for the executor's life (exec_services.h): made by the process
     * that runs the tasks, freed at its stop; NULL: none */
    struct cs_exec_services *services;
    /* BarrierTaskContext.barrier() / allGather of barrier task t at its epoch (method 1: barrier,
     * 2: allGather; exec/barrier_task.h): asks the driver's coordinator and waits for every
     * task of t's stage attempt; 0 with *msgs (n malloc'd strings and the array, the caller's), or
     * an error in err. Called on the task's service thread. NULL: this process runs no barrier
     * task. */
    int (*barrier_sync)(void *arg, const task_desc *t, int epoch, int method, const char *message,
                        char ***msgs, int *n, cs_error *err);
    void *barrier_arg;
} exec_env;

/* Runs one task to completion on the calling thread. Never returns an error code: failures are
 * reported in the result (status, error). */
void cs_task_run(const exec_env *env, const task_desc *t, task_result *out);

#endif
