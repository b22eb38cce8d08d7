/*
 * block_registry.h — the driver's view of where cached partitions are (Spark's
 * BlockManagerMasterEndpoint): for each block rdd_<id>_<partition>, the executors holding it with
 * its storage level and sizes, as their task results reported it (cs_block_status). The DAG
 * scheduler asks it where a task's cached partitions are (the task prefers those executors and
 * fetches from them), forgets an executor's blocks when the executor is lost (they are then
 * recomputed from lineage) and an RDD's when it is unpersisted, and sums an RDD's blocks for the
 * event log's RDD Info (the Storage view).
 *
 * Thread-safe (one mutex): results arrive on backend threads, lookups run on the job thread.
 * Ownership: the scheduler owns the registry; executor ids are copied.
 */
#ifndef CSPARK_SCHED_BLOCK_REGISTRY_H
#define CSPARK_SCHED_BLOCK_REGISTRY_H

#include <stdint.h>

#include "common/block_status.h"
#include "plan/rdd.h"
#include "plan/task.h"
#include "sched/listener.h"

typedef struct block_registry block_registry;

block_registry *cs_block_registry_new(void);
void cs_block_registry_free(block_registry *r);
/* executor_id reports st: held (level != NONE) or gone (level NONE). */
void cs_block_registry_update(block_registry *r, const char *executor_id,
                              const cs_block_status *st);
/* The blocks a task result reports, from executor_id at host ("" = localhost), whose block
 * server listens on res->block_port (0: none, local mode); posted to bus (NULL: none) as a
 * block-updated event for the listeners (the event log writes them when
 * spark.eventLog.logBlockUpdates.enabled). */
void cs_block_registry_task_done(block_registry *r, struct listener_bus *bus,
                                 const char *executor_id, const char *host, const task_result *res);
/* Forgets every block of the executor (logging how many); returns how many. */
int cs_block_registry_executor_lost(block_registry *r, const char *executor_id);
/* The blocks executor_id holds, their statuses into *out (malloc'd, NULL when none); returns how
 * many. */
int cs_block_registry_blocks_of(block_registry *r, const char *executor_id, cs_block_status **out);
/* Forgets every block of the RDD. */
void cs_block_registry_remove_rdd(block_registry *r, int rdd_id);
/* Up to max executors holding rdd_<rdd_id>_<partition>, into out[i] (64 bytes each); returns how
 * many were written. Memory holders come first. */
int cs_block_registry_locations(block_registry *r, int rdd_id, int partition, char (*out)[64],
                                int max);
/* The RDD's blocks: partitions held anywhere, and the memory and disk they take in all. */
void cs_block_registry_rdd_totals(block_registry *r, int rdd_id, int *cached_partitions,
                                  int64_t *memory_size, int64_t *disk_size);

/* The cached partitions that computing `partition` of rdd reads through its narrow lineage
 * (map, union, coalesce, ...) and the executors holding them, at most max; the lineage below a
 * cached partition is not looked into (it is read, not computed). Returns how many. */
#define CS_MAX_BLOCK_LOCS 16
int cs_block_registry_task_locations(block_registry *r, const cspark_rdd *rdd, int partition,
                                     cs_block_location *out, int max);
/* Fills the cached partitions and sizes of the persisted RDDs among a stage's RDD infos. */
void cs_block_registry_fill_rdd_infos(block_registry *r, cs_rdd_info *infos, int n);

#endif /* CSPARK_SCHED_BLOCK_REGISTRY_H */
