/*
 * memory.h — per-task execution memory (Spark's execution memory, TaskMemoryManager for one task).
 *
 * budget = spark.executor.memory * spark.memory.fraction / executor cores, set by the task runner.
 * Consumers (shuffle writer, external aggregator, external sorter, and their arenas) call acquire
 * as they grow and release as they shrink; acquire never fails. A consumer spills when
 * cs_task_memory_over() and its own usage is >= cs_task_memory_spill_floor() (1/8 of the budget),
 * so two consumers in one task do not make each other spill tiny runs.
 *
 * Single-threaded: a cs_task_memory is owned by one task (usually a field of its context) and
 * borrowed by the consumers until they are freed. Nothing to free.
 */
#ifndef CSPARK_SHUFFLE_MEMORY_H
#define CSPARK_SHUFFLE_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cs_task_memory {
    int64_t budget;
    int64_t used;
    int64_t peak;
    int64_t spilled_bytes;        /* bytes written to spill files (Spark's diskBytesSpilled) */
    int64_t memory_spilled_bytes; /* in-memory size of what was spilled (memoryBytesSpilled) */
    int spill_count;
} cs_task_memory;

/* budget <= 0 means unlimited (never over). */
void cs_task_memory_init(cs_task_memory *m, int64_t budget);
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
