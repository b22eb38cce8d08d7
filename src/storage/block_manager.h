/*
 * block_manager.h — the cached partitions of one process (Spark's BlockManager with its
 * MemoryStore, DiskStore and UnifiedMemoryManager): every executor, and the driver in local
 * mode, has one. A task that computes a persisted RDD's partition stores it through a
 * block_writer as the batches pass (the partition is never materialised twice); a later task
 * reads it with a block_reader; the block server hands its bytes to tasks on other executors.
 *
 * Memory: one cs_memory_pool (shuffle/memory.h) of spark.memory.fraction x the executor memory
 * is shared by the tasks' execution memory and the blocks; blocks may take whatever execution
 * leaves free, and execution takes back what blocks hold above spark.memory.storageFraction of
 * the pool. A block that does not fit evicts the least recently used blocks of other RDDs (as
 * Spark, never one of its own RDD); an evicted MEMORY_AND_DISK block moves to disk, a MEMORY_ONLY
 * one is dropped. A MEMORY_ONLY partition larger than what can be freed is not stored at all
 * (the task goes on; the partition is recomputed when next needed), a MEMORY_AND_DISK one goes
 * to disk, never an out-of-memory failure. Blocks being read are pinned: never evicted or freed
 * under a reader.
 *
 * A block is computed once per process (Spark's block-level write locks): the task that claims a
 * missing block first holds its write lock until its writer commits or aborts (the task
 * succeeded, failed or was cancelled: its iterators are freed either way); other tasks claiming
 * it meanwhile wait for that and then read the block, or, when it was not stored, claim it
 * again. A wait that would close a cycle of tasks waiting on each other's blocks is not taken.
 *
 * Every change of a block (stored, moved to disk, dropped) is queued as a cs_block_status for
 * the driver's block registry; the task runner drains the queue into each task result.
 *
 * Thread-safe (one mutex). Ownership: the manager owns its blocks and files (removed by
 * cs_block_manager_free); readers and writers are the caller's and must be freed before the
 * manager; options are copied.
 */
#ifndef CSPARK_STORAGE_BLOCK_MANAGER_H
#define CSPARK_STORAGE_BLOCK_MANAGER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "records/batch.h"
#include "common/block_status.h"
#include "records/checksum.h"
#include "common/conf.h"
#include "common/err.h"
#include "shuffle/memory.h"

typedef struct block_manager block_manager;

typedef struct block_manager_options {
    const char *local_dir;   /* where DISK blocks go (rdd_<id>_<partition>) */
    int64_t executor_memory; /* bytes: spark.executor.memory (local mode: the driver's) */
    double memory_fraction;  /* spark.memory.fraction */
    double storage_fraction; /* spark.memory.storageFraction */
    int slots;               /* task slots (executor cores, local threads) */
    bool compress;           /* spark.rdd.compress */
    cs_checksum_algo checksum;
} block_manager_options;

/* Reads spark.memory.fraction (0.6), spark.memory.storageFraction (0.5) and spark.rdd.compress
 * (false) into o; CS_EINVAL naming the key on a bad value. */
int cs_block_manager_options_read(const cs_conf *conf, block_manager_options *o, cs_error *err);
block_manager *cs_block_manager_new(const block_manager_options *o);
void cs_block_manager_free(block_manager *bm);
/* The pool the tasks of this process attach their execution memory to. */
cs_memory_pool *cs_block_manager_pool(block_manager *bm);

/* ---- reading ---- */
typedef struct block_reader block_reader;
/* The block rdd_<rdd_id>_<partition> pinned for reading, or NULL when this process does not
 * hold it. Touches it (most recently used). */
block_reader *cs_block_manager_get(block_manager *bm, int rdd_id, int partition);
/* 1 and *out = the next batch (borrowed until the next call), 0 at the end, <0 + err when a
 * disk block is unreadable or corrupt (the caller recomputes). */
int cs_block_reader_next(block_reader *r, const cs_batch **out, cs_error *err);
void cs_block_reader_free(block_reader *r);
/* The block as a recio stream (memory_store.h) for the block server: malloc'd copy in *data.
 * CS_ENOTFOUND when not held. */
int cs_block_manager_get_bytes(block_manager *bm, int rdd_id, int partition, uint8_t **data,
                               size_t *len, cs_error *err);

/* ---- writing ---- */
typedef struct block_writer block_writer;
/* Starts storing rdd_<rdd_id>_<partition> at level (a cspark_storage_level other than NONE). */
block_writer *cs_block_manager_writer(block_manager *bm, int rdd_id, int partition, int level);
/* Adds a copy of b's records (memory, or disk when the level says so or memory ran out). Never
 * fails the task: a write error or a MEMORY_ONLY block that cannot fit just stops storing. */
void cs_block_writer_add(block_writer *w, const cs_batch *b);
/* The partition is complete: the block becomes readable. Returns true and *st when stored (and
 * queues the status); false when it was given up (too large for memory, disk error) or the block
 * was already stored by another task. Frees w. */
bool cs_block_writer_commit(block_writer *w, cs_block_status *st);
/* The partition was not computed to its end: nothing is stored. Frees w. NULL is fine. */
void cs_block_writer_abort(block_writer *w);

/* ---- computing a block once (Spark's BlockInfoManager.lockNewBlockForWriting) ---- */
typedef enum {
    CS_BLOCK_CLAIM_WRITE,   /* *w holds the block's write lock: compute it and store it */
    CS_BLOCK_CLAIM_READ,    /* *r reads the block (stored by another task, possibly meanwhile) */
    CS_BLOCK_CLAIM_COMPUTE, /* compute without storing: waiting would deadlock, or cancelled */
} cs_block_claim;
/* For task task_id, which needs rdd_<rdd_id>_<partition>: a reader when the block is held; else
 * the write lock when no other task holds it; else waits until its writer commits or aborts (on
 * the task thread: the wait ends with the writer's fate, not a timeout; *cancelled, which may be
 * NULL, is checked twice a second) and tries again. COMPUTE when the writer (through other
 * writers) waits for a block task_id writes, or when *cancelled is set. */
cs_block_claim cs_block_manager_claim(block_manager *bm, int rdd_id, int partition, int level,
                                      int64_t task_id, const atomic_int *cancelled,
                                      block_writer **w, block_reader **r);

/* ---- management ---- */
/* Removes every block of the RDD (memory and files); pinned ones go when their readers finish. */
void cs_block_manager_remove_rdd(block_manager *bm, int rdd_id);
/* Removes one block (e.g. found corrupt on disk), reporting it gone. */
void cs_block_manager_remove(block_manager *bm, int rdd_id, int partition);
/* Takes the block changes queued since the last call (malloc'd array in *out, NULL when none);
 * returns their number. */
int cs_block_manager_drain_updates(block_manager *bm, cs_block_status **out);
/* Totals of what is held now. */
typedef struct block_manager_usage {
    int64_t memory_used, disk_used, storage_max;
    int blocks_in_memory, blocks_on_disk;
} block_manager_usage;
void cs_block_manager_usage(block_manager *bm, block_manager_usage *u);

#endif /* CSPARK_STORAGE_BLOCK_MANAGER_H */
