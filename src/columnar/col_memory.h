/*
 * col_memory.h — the allocator behind every column buffer: 64-byte aligned, zero-padded to a
 * multiple of 64 bytes (Arrow's recommended alignment and padding, so a vector loop may read a
 * whole cache line past the last value), and counted against execution memory.
 *
 * A cs_col_allocator counts the bytes its buffers hold (allocated, peak) and, when it is given a
 * task's cs_task_memory (src/shuffle/memory.h, Spark's TaskMemoryManager for one task), charges
 * every growth to it and releases every shrink, as the shuffle's arenas do; an operator asks
 * cs_col_allocator_over() before it builds more and spills when it is over. Allocation never
 * fails (cs_x* semantics: abort after one log line on exhaustion).
 *
 * Threads: the counters are atomic, so buffers of one allocator may be freed on any thread; the
 * task memory it charges is single-threaded, so an allocator with task memory is used (and its
 * batches freed) on that task's thread, before the task ends — as Spark frees a task's pages.
 * An allocator without task memory (results kept by the driver, tests) is free of that rule.
 *
 * Ownership: the allocator struct is the caller's (often a field of an operator or a task);
 * it must outlive every buffer it handed out. cs_col_default_allocator() is a process-wide one
 * that counts but charges no task.
 */
#ifndef CSPARK_COLUMNAR_COL_MEMORY_H
#define CSPARK_COLUMNAR_COL_MEMORY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shuffle/memory.h"

#define CS_COL_ALIGN 64

typedef struct cs_col_allocator {
    cs_task_memory *task_memory; /* charged for every byte held (NULL: count only) */
    _Atomic int64_t allocated;   /* bytes held by live buffers (capacities) */
    _Atomic int64_t peak;
} cs_col_allocator;

/* task_memory may be NULL; it is borrowed for the allocator's life. */
void cs_col_allocator_init(cs_col_allocator *a, cs_task_memory *task_memory);
/* The process-wide allocator that charges no task. */
cs_col_allocator *cs_col_default_allocator(void);
/* The task this allocator charges is over its share of execution memory: spill or stop growing. */
bool cs_col_allocator_over(const cs_col_allocator *a);

/* Rounds n up to the padding every buffer gets (a multiple of 64; 0 stays 0). */
size_t cs_col_padded(size_t n);
/* A buffer of at least n bytes (its capacity is cs_col_padded(n)), 64-byte aligned, all zero.
 * n == 0 gives NULL. Free with cs_col_buffer_free(a, p, n) passing the same n. */
void *cs_col_buffer_alloc(cs_col_allocator *a, size_t n);
/* cs_col_buffer_alloc for a caller that writes every one of the n bytes itself before anyone
 * reads them (a gather, a decoded page's values, offsets): only the padding past n is zeroed,
 * so a fresh buffer is written once, not twice. A byte the caller leaves unwritten is
 * indeterminate, so a loop that skips null rows uses cs_col_buffer_alloc. */
void *cs_col_buffer_alloc_unset(cs_col_allocator *a, size_t n);
/* A buffer holding a copy of src[0, n) (zeros after it up to the padding): one pass, not two. */
void *cs_col_buffer_copy(cs_col_allocator *a, const void *src, size_t n);
/* Grows (or shrinks) a buffer from old_n to new_n bytes, keeping the first min(old_n, new_n)
 * bytes; bytes past old_n are zero. p may be NULL when old_n is 0. */
void *cs_col_buffer_realloc(cs_col_allocator *a, void *p, size_t old_n, size_t new_n);
void cs_col_buffer_free(cs_col_allocator *a, void *p, size_t n);

#endif /* CSPARK_COLUMNAR_COL_MEMORY_H */
