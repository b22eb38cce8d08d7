/*
 * task.h — what a task is, as the scheduler hands it out and an executor runs it: a partition of a
 * stage's final RDD plus where its output goes (task_sink), the map outputs it reads
 * (shuffle_input), and what it reports back (task_result with its task_metrics). The DAG scheduler
 * builds task_desc values; a backend runs them in-process (exec/task.h: cs_task_run) or sends
 * them to executors (stage_plan.h, task_codec.h).
 *
 * Ownership: a task_desc and everything it points to (sink, shuffle inputs, RDD nodes) are
 * borrowed by whoever runs it until it reports the result. A task_result owns its error string,
 * data batch and map status (cs_task_result_free).
 */
#ifndef CSPARK_PLAN_TASK_H
#define CSPARK_PLAN_TASK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "records/batch.h"
#include "common/block_status.h"
#include "plan/rdd.h"
#include "shuffle/shuffle.h"

typedef enum {
    SINK_SHUFFLE,      /* map stage: partition, combine, write data + index files */
    SINK_COUNT,        /* number of records */
    SINK_COLLECT,      /* all records */
    SINK_TAKE,         /* the first take_n records */
    SINK_FOLD,         /* values folded with fold_fn (from zero when has_zero) */
    SINK_SAVE,         /* text lines into part-NNNNN under save_path */
    SINK_FOREACH,      /* foreach_fn on every record */
    SINK_SAMPLE,       /* reservoir sample of keys + the record count (range partitioner bounds) */
    SINK_TOP,          /* the take_n largest records (bounded heap), largest first */
    SINK_TAKE_ORDERED, /* the take_n smallest records (bounded heap), smallest first */
    SINK_CHECKPOINT    /* records into save_path/part-NNNNN (recio blocks), renamed at commit */
} sink_kind;
#define SINK_KIND_LAST SINK_CHECKPOINT

/* SINK_SAVE on an object store: the task result's record with this key holds the attempt's
 * pending commit (src/fs/fs.h cs_fs_pending_encode), completed by the driver at job commit. */
#define CS_SAVE_PENDING_KEY "cspark.pending-commit"

typedef struct task_sink {
    sink_kind kind;
    shuffle_dep *dep; /* SINK_SHUFFLE */
    size_t take_n;    /* SINK_TAKE, SINK_TOP, SINK_TAKE_ORDERED */
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

/* Where a cached partition the task may read is kept: the scheduler names the executor (from its
 * block registry); the coarse backend fills in that executor's block server address. */
typedef struct cs_block_location {
    int rdd_id, partition;
    char executor_id[64];
    char host[256];
    int port;
} cs_block_location;

/* What every task of one barrier stage attempt shares (Spark's barrier TaskDescription and the
 * "addresses" local property BarrierTaskContext.getTaskInfos reads): the attempt's task count and
 * where each task runs, "host:port" in partition order joined by ",", written by the task scheduler
 * when it launches the attempt (all its tasks at once, before any is handed to a backend). Owned by
 * the DAG scheduler's stage; addresses has room for addresses_cap bytes. */
typedef struct cs_barrier_launch {
    int num_tasks;
    char *addresses;
    size_t addresses_cap;
} cs_barrier_launch;

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
    /* non-zero: stop at the next batch (no active job needs its stage any more: its job ended,
     * failed or was cancelled); the task's own flag, so other jobs' tasks run on */
    const atomic_int *cancelled;
    const cs_block_location *block_locs; /* cached partitions of the lineage and their holders */
    int num_block_locs;
    const cspark_resource *resources; /* custom resources assigned to this attempt (cspark.h) */
    int num_resources;
    cs_barrier_launch *barrier; /* a barrier stage's task (BarrierTaskContext); NULL: none */
} task_desc;

/* Spark's TaskMetrics: what one task did, reported with its result (and in heartbeats).
 * shuffle_bytes_read is local + remote (block bytes as stored). */
typedef struct cs_task_metrics {
    int64_t run_time_ms, cpu_time_ns, result_size, records_read, bytes_read, records_written,
        bytes_written, shuffle_bytes_written, shuffle_records_written, shuffle_bytes_read,
        shuffle_records_read, memory_bytes_spilled, disk_bytes_spilled, peak_execution_memory,
        shuffle_remote_bytes_read, shuffle_local_blocks_fetched, shuffle_remote_blocks_fetched;
} cs_task_metrics;

/* TASK_UNLAUNCHABLE is set by a backend only, never sent by an executor: the task cannot be
 * launched anywhere (its serialized stage plan exceeds spark.rpc.message.maxSize), so its stage is
 * aborted at once with the error, as Spark's TaskSetManager.abort — retrying cannot help.
 * TASK_KILLED is Spark's TaskState.KILLED (end reason TaskKilled): the task was stopped on
 * request — its job ended, or the task reaper gave up on it — and does not count as a failure;
 * an executor sends it as the status update's state KILLED. Decisions read the status, never
 * the error text. */
typedef enum {
    TASK_OK = 0,
    TASK_FAILED = 1,
    TASK_FETCH_FAILED = 2,
    TASK_UNLAUNCHABLE = 3,
    TASK_KILLED = 4
} task_status;

/* The error text of a task stopped because its job ended (status TASK_KILLED). */
#define CS_TASK_CANCELLED "task cancelled: its job has ended"
/* The error text of a task the task reaper gave up on in this process (local mode; status
 * TASK_KILLED): Spark's TaskKilled, its kill reason following the prefix. */
#define CS_TASK_REAPED "Task killed: "
/* The error text of a task sent to an executor that does not hold its stage's plan (it freed
 * it, or could not decode it), the reason following the prefix; such a result has plan_missing
 * set, which makes the driver send the plan again with the task's retry. */
#define CS_TASK_NO_PLAN "Stage plan missing on the executor: "

typedef struct task_result {
    task_status status;
    char *error;       /* failure description (malloc'd), for people: decide on status */
    bool plan_missing; /* TASK_FAILED because the executor lacked the stage's plan */
    int fetch_shuffle_id, fetch_map_id;
    cs_batch data;            /* COLLECT/TAKE/SAMPLE records; FOLD: zero or one record */
    int64_t count;            /* COUNT, SAMPLE: records seen */
    cs_map_status map_status; /* SHUFFLE */
    bool has_map_status;
    cs_task_metrics metrics;
    cs_batch accum_updates; /* successful attempts: key = accumulator id (cspark_i64_encode),
                               value = the task's value of it (sched/accumulators.h) */
    /* driver side: the task was running on an executor that was lost (Spark's
     * ExecutorLostFailure); both malloc'd, NULL otherwise */
    char *lost_executor;
    char *loss_reason;
    bool exit_caused_by_app;         /* the executor exited on its own, not removed by the driver */
    cs_block_status *updated_blocks; /* blocks stored or dropped by this executor (malloc'd) */
    int num_updated_blocks;
    int block_port; /* driver side: the block server of the executor that ran it (0: none) */
} task_result;

void cs_task_result_init(task_result *r);
void cs_task_result_free(task_result *r);

/* Whether the scheduler has asked task t to stop (its cancelled flag is set). */
static inline bool cs_task_desc_cancelled(const task_desc *t)
{
    return t->cancelled && atomic_load(t->cancelled) != 0;
}

#endif
