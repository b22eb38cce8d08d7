/*
 * exec_ctx.h — what every physical SQL operator and expression evaluation of one task sees:
 * the allocator its batches come from (charged to the task's execution memory), the task memory
 * to ask before growing a hash table or sort buffer (spill when over), where spills go, the
 * batch size, the session settings that change results (ANSI mode, time zone), the task's
 * cancellation flag, and the per-process values built from the stage's broadcasts.
 *
 * Filled by whoever runs a physical plan: the SQL plan kind's task body on an executor, the
 * driver for local work, unit tests. Ownership: the caller's; every pointer is borrowed for the
 * life of the operators opened with it.
 */
#ifndef CSPARK_SQLEXEC_EXEC_CTX_H
#define CSPARK_SQLEXEC_EXEC_CTX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_memory.h"
#include "common/err.h"

/* Builds a value from a broadcast's bytes (its batches, each preceded by its u32 little-endian
 * length): NULL with err on failure. team: the tasks waiting for the same value, to run the
 * build's parallel loops with (common/work_team.h); NULL: build alone. */
struct cs_work_team;
typedef void *(*cs_sql_broadcast_build_fn)(void *arg, const void *value, size_t len,
                                           struct cs_work_team *team, cs_error *err);

typedef struct cs_sql_exec_ctx {
    cs_col_allocator *alloc;      /* every column an operator builds; never NULL */
    cs_task_memory *task_memory;  /* NULL: no limit (driver-side work, tests) */
    const char *spill_dir;        /* a directory of the task's local dirs for spill files */
    int64_t batch_rows;           /* rows per output batch at most (Spark's 4096 when 0) */
    bool ansi;                    /* spark.sql.ansi.enabled (true by default, as Spark 4) */
    const char *session_tz;       /* spark.sql.session.timeZone, an IANA name ("UTC") */
    const _Atomic int *cancelled; /* non-zero: the task is killed (its own flag); NULL: never */
    int64_t partition_id;         /* for spark_partition_id(), monotonically_increasing_id() */
    /* the executor's Python workers (python_worker_factory.h), borrowed for the task; NULL: each
     * Python operator starts a simple worker of its own */
    struct cs_py_worker_factory *py_workers;
    bool py_reuse; /* spark.python.worker.reuse */
    /* a barrier task's BarrierTaskContext service (exec/barrier_task.h): its loopback port
     * (0: not a barrier task), secret and the tasks' addresses, for the Python workers */
    int barrier_port;
    const char *barrier_secret, *barrier_addresses;
    /* the TaskContext the Python workers see (partition_id above) */
    int stage_id, attempt_number; /* attemptNumber: the task's attempt */
    int64_t task_attempt_id;
    /* The value built from the stage's broadcast input `input` under key, once per process
     * (Spark's broadcast relation, built once per executor): the first task to ask runs build
     * while the others help it (build's team) and wait, then every task of the process that asks
     * gets the same value, to read only, until its attempt ends; free_fn frees it when the
     * broadcast is removed. NULL: none here (each operator builds its own). */
    int (*broadcast_shared)(void *arg, int input, const char *key, cs_sql_broadcast_build_fn build,
                            void *build_arg, void (*free_fn)(void *value), void **out,
                            cs_error *err);
    void *broadcast_arg;
} cs_sql_exec_ctx;

static inline int64_t cs_sql_batch_rows(const cs_sql_exec_ctx *ctx)
{
    return ctx->batch_rows > 0 ? ctx->batch_rows : 4096;
}

#endif /* CSPARK_SQLEXEC_EXEC_CTX_H */
