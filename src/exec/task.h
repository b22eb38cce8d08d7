/*
 * task.h — what a task is (a partition of a stage's final RDD plus where its output goes), what
 * it needs from the process it runs in (exec_env), and what it reports (task_result).
 *
 * The DAG scheduler builds task_desc values and a backend runs them with cs_task_run
 * (task_runner.c) on a worker thread. A task computes its partition by pulling batches through the
 * stage's narrow lineage and hands them to its sink: a shuffle writer for map stages, or one of the
 * action sinks (count, collect, take, fold, save, foreach, sample) for result stages.
 *
 * Ownership: a task_desc and everything it points to (sink, shuffle inputs, RDD nodes) are
 * borrowed by the runner for the duration of cs_task_run. The task_result is filled by cs_task_run
 * and owned by the caller, released with cs_task_result_free.
 */
#ifndef CSPARK_EXEC_TASK_H
#define CSPARK_EXEC_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "api/rdd.h"
#include "common/batch.h"
#include "sched/listener.h"
#include "shuffle/shuffle.h"

typedef enum {
    SINK_SHUFFLE, /* map stage: partition, combine, write data + index files */
    SINK_COUNT,   /* number of records */
    SINK_COLLECT, /* all records */
    SINK_TAKE,    /* the first take_n records */
    SINK_FOLD,    /* values folded with fold_fn (from zero when has_zero) */
    SINK_SAVE,    /* text lines into part-NNNNN under save_path */
    SINK_FOREACH, /* foreach_fn on every record */
    SINK_SAMPLE   /* reservoir sample of keys + the record count (range partitioner bounds) */
} sink_kind;

/* SINK_SAVE on an object store: the task result's record with this key holds the attempt's
 * pending commit (src/fs/fs.h cs_fs_pending_encode), completed by the driver at job commit. */
#define CS_SAVE_PENDING_KEY "cspark.pending-commit"

typedef struct task_sink {
    sink_kind kind;
    shuffle_dep *dep; /* SINK_SHUFFLE */
    size_t take_n;    /* SINK_TAKE */
    fn_ref fn;        /* SINK_FOLD, SINK_FOREACH */
    const uint8_t *zero;
    uint32_t zero_len;
    bool has_zero;
    const char *save_path; /* SINK_SAVE: the output directory (exists) */
    int sample_size;       /* SINK_SAMPLE: keys to keep per partition */
} task_sink;

/* The map outputs a task reads for one shuffle (snapshot made when the task is launched). */
typedef struct shuffle_input {
    int shuffle_id;
    const cs_map_status *const *maps; /* num_maps entries, borrowed */
    int num_maps;
} shuffle_input;

typedef struct task_desc {
    int64_t task_id;
    int job_id;
    int stage_id;
    int stage_attempt;
    int partition;
    int attempt; /* 0 for the first attempt of this partition in this stage attempt */
    cspark_rdd *rdd;
    const task_sink *sink;
    const shuffle_input *inputs;
    int num_inputs;
    const volatile int *cancelled; /* non-zero: stop at the next batch (job ended or aborted) */
} task_desc;

/* What a process offers its tasks. */
typedef struct exec_env {
    const char *executor_id;
    const char *host;
    int block_port;        /* where this process serves its shuffle files (0: not served) */
    const char *local_dir; /* shuffle and spill files */
    int64_t task_memory_budget;
    bool shuffle_compress;
    cs_checksum_algo shuffle_checksum; /* spark.shuffle.checksum.*: shuffle and spill blocks */
    shuffle_block_source blocks;       /* where reduce-side segments come from */
    struct block_fetcher
        *fetcher; /* executors: per-reader prefetching sources (NULL: use blocks) */
} exec_env;

/* TASK_UNLAUNCHABLE is set by a backend only, never sent by an executor: the task cannot be
 * launched anywhere (its serialized stage plan exceeds spark.rpc.message.maxSize), so its stage is
 * aborted at once with the error, as Spark's TaskSetManager.abort — retrying cannot help. */
typedef enum {
    TASK_OK = 0,
    TASK_FAILED = 1,
    TASK_FETCH_FAILED = 2,
    TASK_UNLAUNCHABLE = 3
} task_status;

typedef struct task_result {
    task_status status;
    char *error; /* failure description (malloc'd) */
    int fetch_shuffle_id, fetch_map_id;
    cs_batch data;            /* COLLECT/TAKE/SAMPLE records; FOLD: zero or one record */
    int64_t count;            /* COUNT, SAMPLE: records seen */
    cs_map_status map_status; /* SHUFFLE */
    bool has_map_status;
    cs_task_metrics metrics;
} task_result;

/* Runs one task to completion on the calling thread. Never returns an error code: failures are
 * reported in the result (status, error). */
void cs_task_run(const exec_env *env, const task_desc *t, task_result *out);
void cs_task_result_init(task_result *r);
void cs_task_result_free(task_result *r);

/* Crash reporting: installs SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers that print which task and
 * function crashed before the process dies. Idempotent; per-thread alternate stacks are set up
 * by cs_task_thread_init on each worker thread. */
void cs_task_install_crash_handlers(void);
void cs_task_thread_init(void);
void cs_task_thread_fini(void); /* before a thread that called cs_task_thread_init exits */

#endif
