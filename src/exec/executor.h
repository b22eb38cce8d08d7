/*
 * executor.h — an executor process (Spark's CoarseGrainedExecutorBackend + Executor): connects
 * to the driver, fetches the application's configuration, loads the same job .so, registers
 * with its cores and block-server port, runs the tasks it is sent on `cores` worker threads,
 * reports their status, heartbeats, serves its shuffle files to peers, and exits on
 * StopExecutor (0) or when the driver goes away (1). Called by src/executor/main.c.
 *
 * Decommissioning (proto/cspark.proto, docs/distributed.md): with spark.decommission.enabled,
 * SIGTERM or spark.executor.decommission.signal (PWR) sends DecommissionExecutor to the driver
 * instead of ending the process; after the driver's DecommissionExecutor it sends ExecutorDrained
 * once no task is queued or running, keeps serving its blocks, and exits 0 on StopExecutor.
 * MigrateShuffle makes it copy a leaving peer's map outputs (answered with ShuffleMigrated), or,
 * marked to_fallback, its own to spark.storage.decommission.fallbackStorage.path; MigrateRddBlocks
 * makes it store a leaving peer's cached partitions (answered with RddBlocksMigrated).
 * Without decommissioning every termination signal has the effect it had before cs_executor_run.
 *
 * Ownership: the options are borrowed for the duration of cs_executor_run.
 */
#ifndef CSPARK_EXEC_EXECUTOR_H
#define CSPARK_EXEC_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct executor_options {
    const char *driver_url; /* spark://CoarseGrainedScheduler@host:port */
    const char *executor_id;
    const char *hostname; /* address peers and the driver use to reach this executor */
    const char *app_id;
    int cores;
    int64_t memory_bytes; /* 0: spark.executor.memory from the application's conf */
    const char *secret;   /* spark.authenticate secret, NULL when off */
} executor_options;

/* Parses spark://NAME@host:port (or host:port). */
int cs_executor_parse_driver_url(const char *url, char *host, size_t host_cap, int *port);

/* Runs the executor to completion; returns the process exit status. */
int cs_executor_run(const executor_options *opt);

#endif
