/*
 * executor_internal.h — the executor process's state (struct executor, one per process, and the
 * tasks it has queued or running), shared by the files that make up the executor: executor.c
 * (start-up, driver messages, worker threads, heartbeats, stop) and executor_decommission.c
 * (leaving on purpose: drained, signals, block migration). Not for other folders.
 *
 * Ownership: executor.c creates and frees the executor and everything it points to; the
 * decommissioning functions borrow it for their call and take x->lock for the fields marked
 * "under lock".
 */
#ifndef CSPARK_EXEC_EXECUTOR_INTERNAL_H
#define CSPARK_EXEC_EXECUTOR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "broadcast/broadcast_fetch.h"
#include "common/conf.h"
#include "exec/decom_signals.h"
#include "exec/executor.h"
#include "exec/executor_resources.h"
#include "exec/fallback_storage.h"
#include "exec/plan_cache.h"
#include "exec/rdd_migration.h"
#include "exec/shuffle_migration.h"
#include "exec/task.h"
#include "rpc/endpoint.h"
#include "storage/block_manager.h"

typedef struct exec_task {
    struct exec_task *next;
    cs_cached_plan *plan;
    task_desc desc;
    atomic_int cancelled;
    task_result *live; /* while running: the result being filled (metrics read by heartbeats) */
    int64_t start_ms;
    cs_block_location *block_locs; /* desc.block_locs (malloc'd) */
    cspark_resource *resources;    /* desc.resources (one malloc'd block) */
    cs_barrier_launch barrier;     /* desc.barrier of a barrier task (addresses malloc'd) */
} exec_task;

typedef struct executor {
    const executor_options *opt;
    rpc_endpoint *ep;
    rpc_conn *driver;
    cs_conf *conf;
    void *app;
    char *app_file;
    char *local_dir;
    block_server *blocks;
    int block_port;
    block_fetcher *fetcher;
    broadcast_store *broadcasts; /* values fetched for this executor's tasks */
    broadcast_fetcher *bfetch;
    block_manager *bm; /* cached partitions */
    exec_env env;
    int64_t max_direct_result;
    int64_t max_status_update; /* what a StatusUpdate's result may take: maxSize less 64 KiB */
    int64_t max_result_size;   /* spark.driver.maxResultSize: larger results are dropped */

    pthread_mutex_t lock;
    pthread_cond_t work_cond; /* workers wait for tasks */
    pthread_cond_t main_cond; /* the main thread waits for stop / heartbeat time */
    cs_plan_cache *plans;     /* stage plans (exec/plan_cache.h), under lock */
    exec_task *queue_head, *queue_tail;
    exec_task **running; /* one slot per worker */
    bool stopping, driver_gone;
    int64_t reaper_ms; /* spark.task.reaper.killTimeout at stop, -1: wait for tasks */
    pthread_t *workers;
    int nworkers;

    /* decommissioning (see cspark.proto) */
    decom_signals *signals;
    int decom_signal;     /* spark.executor.decommission.signal, when enabled */
    bool decom_requested; /* we sent DecommissionExecutor (a signal) */
    bool decommissioning; /* the driver sent DecommissionExecutor: no more LaunchTask */
    bool drained_sent;
    int active; /* tasks queued, running, or being reported */
    /* totals of the tasks finished so far, for the heartbeat's executor metrics (under lock) */
    int64_t tasks_completed, tasks_failed, shuffle_read, shuffle_written, mem_spilled, disk_spilled;
    shuffle_migrator *migrator;      /* started on the first MigrateShuffle */
    rdd_migrator *rdd_migrator;      /* started on the first MigrateRddBlocks */
    cs_fallback_storage *fallback;   /* spark.storage.decommission.fallbackStorage.path, or NULL */
    cs_executor_resources resources; /* custom resources found at start (GPUs, ...) */
} executor;

/* ---- executor_decommission.c ---- */
/* Once decommissioning and with nothing queued, running or being reported: ExecutorDrained,
 * once. Called when the driver's DecommissionExecutor arrives and after each task's report. */
void cs_executor_check_drained(executor *x);
/* The signal watcher's callback (decom_signals.h): SIGTERM or the decommission signal. */
void cs_executor_on_decom_signal(void *arg, int sig);
/* Loop thread: the driver's DecommissionExecutor (its decision, or its echo of ours). */
void cs_executor_on_decommission(executor *x, const Cspark__DecommissionExecutor *de);
/* Loop thread: MigrateShuffle — copy these outputs of a leaving executor (on the migration
 * thread), answered with ShuffleMigrated. */
void cs_executor_on_migrate_shuffle(executor *x, const Cspark__MigrateShuffle *ms);
/* Loop thread: MigrateRddBlocks — copy these cached partitions of a leaving executor into this
 * one's block manager (on the rdd migration thread), answered with RddBlocksMigrated. */
void cs_executor_on_migrate_rdd_blocks(executor *x, const Cspark__MigrateRddBlocks *mr);

#endif /* CSPARK_EXEC_EXECUTOR_INTERNAL_H */
