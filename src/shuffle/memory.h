/*
 * memory.h — per-task execution memory (Spark's execution memory, TaskMemoryManager for one task).
 *
 * budget = spark.executor.memory * spark.memory.fraction / executor cores, set by the task runner.
 * Consumers (shuffle writer, external aggregator, external sorter, and their arenas) call acquire
 * as they grow and release as they shrink; acquire never fails. A consumer spills when
 * cs_task_memory_over() and its own usage is >= cs_task_memory_spill_floor() (1/8 of the budget),
 * so two consumers in one task do not make each other spill tiny runs.
 *
 * Unified memory (Spark's UnifiedMemoryManager): when the process keeps cached blocks, the tasks'
 * execution memory and the block manager's storage memory share one cs_memory_pool of
 * spark.memory.fraction x the executor memory. A task attached to the pool adds what it acquires
 * to the pool's execution total; when execution and storage together pass the pool, storage
 * above its protected region (spark.memory.storageFraction of the pool) is asked to give memory
 * back (reclaim: the block manager evicts blocks), and a task's share is at most the pool minus
 * the protected storage it cannot evict, divided by the task slots.
 *
 * Single-threaded: a cs_task_memory is owned by one task (usually a field of its context) and
 * borrowed by the consumers until they are freed. Nothing to free. A cs_memory_pool is shared by
 * every task of a process (atomics) and owned by whoever made it (the block manager).
 */
#ifndef CSPARK_SHUFFLE_MEMORY_H
#define CSPARK_SHUFFLE_MEMORY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct cs_memory_pool {
    int64_t max;            /* execution + storage: spark.memory.fraction x executor memory */
    int64_t storage_region; /* max x spark.memory.storageFraction: storage execution cannot evict */
    int slots;              /* task slots sharing execution memory (executor cores) */
    _Atomic int64_t execution_used;
    _Atomic int64_t storage_used;
    /* Execution needs `bytes` more than the pool has free: storage above its region gives back
     * up to that much (called on the task's thread, never with the pool owner's lock held). */
    void (*reclaim)(void *arg, int64_t bytes);
    void *reclaim_arg;
} cs_memory_pool;

/* Bytes storage must free before it may take n more (0: it fits now). Storage may use whatever
 * execution leaves free, its region included. */
int64_t cs_memory_pool_storage_shortfall(const cs_memory_pool *p, int64_t n);
/* Bytes execution asks storage to give back after it grew: how far execution + storage is over
 * max, at most what storage holds above its region (0: nothing to reclaim). */
int64_t cs_memory_pool_execution_excess(const cs_memory_pool *p);

typedef struct cs_task_memory {
    int64_t budget;
    int64_t used;
    int64_t peak;
    int64_t spilled_bytes;        /* bytes written to spill files (Spark's diskBytesSpilled) */
    int64_t memory_spilled_bytes; /* in-memory size of what was spilled (memoryBytesSpilled) */
    int spill_count;
    cs_memory_pool *pool; /* shared with storage (NULL: this task's budget only) */
} cs_task_memory;

/* budget <= 0 means unlimited (never over). */
void cs_task_memory_init(cs_task_memory *m, int64_t budget);
/* From now on the task's usage counts in pool (borrowed until cs_task_memory_detach). */
void cs_task_memory_attach(cs_task_memory *m, cs_memory_pool *pool);
/* The task ends: what it still holds leaves the pool. */
void cs_task_memory_detach(cs_task_memory *m);
void cs_task_memory_acquire(cs_task_memory *m, int64_t n);
void cs_task_memory_release(cs_task_memory *m, int64_t n);
bool cs_task_memory_over(const cs_task_memory *m);
/* Minimum usage of one consumer before it spills: budget / 8 (at least 64 KB). */
int64_t cs_task_memory_spill_floor(const cs_task_memory *m);
/* Records a spill: the consumer held memory_bytes when it spilled and wrote disk_bytes to its
 * spill file (spill_count++, memory_spilled_bytes += memory_bytes, spilled_bytes += disk_bytes),
 * as Spark's memoryBytesSpilled and diskBytesSpilled. */
void cs_task_memory_note_spill(cs_task_memory *m, int64_t memory_bytes, int64_t disk_bytes);

#endif /* CSPARK_SHUFFLE_MEMORY_H */
