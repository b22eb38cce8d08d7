/*
 * block_status.h — the identity and state of a cached partition (Spark's RDDBlockId and
 * BlockStatus), shared by the executor's block manager (src/storage), the task results that
 * report blocks to the driver (plan/task.h) and the driver's block registry (src/sched).
 * Plain values; no ownership.
 */
#ifndef CSPARK_COMMON_BLOCK_STATUS_H
#define CSPARK_COMMON_BLOCK_STATUS_H

#include <stdint.h>

/* rdd_<rdd_id>_<partition> on one executor. level is a cspark_storage_level; a status with
 * level CSPARK_STORAGE_NONE says the block is gone (dropped, evicted without disk, removed). */
typedef struct cs_block_status {
    int rdd_id, partition;
    int level;
    int64_t memory_size, disk_size;
} cs_block_status;

#endif /* CSPARK_COMMON_BLOCK_STATUS_H */
