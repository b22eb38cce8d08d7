/*
 * top_heap.h — a bounded heap of the k best records, for top and take_ordered (Spark's
 * BoundedPriorityQueue): each task of a top job keeps its partition's k best records in one
 * (exec/task_runner.c, SINK_TOP / SINK_TAKE_ORDERED), and the driver merges the tasks' results
 * through another (api/ordered_actions.c). Records compare by key (memcmp order, a shorter prefix
 * first), then by value. Memory is O(k records): records replaced in the heap leave their bytes
 * behind until the store is compacted, which happens once the dead bytes outweigh the live ones.
 *
 * Ownership: the heap owns copies of the records it keeps (cs_top_heap_free). One thread.
 */
#ifndef CSPARK_EXEC_TOP_HEAP_H
#define CSPARK_EXEC_TOP_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records/batch.h"

typedef struct cs_top_heap {
    size_t k;       /* records kept at most */
    int sign;       /* +1: keep the largest; -1: keep the smallest */
    cs_batch store; /* the kept records' bytes (and dead ones until compaction) */
    uint32_t *heap; /* indexes into store; heap[0] is the worst record kept */
    size_t n, cap;  /* records in the heap, room in heap[] */
    size_t live_bytes;
} cs_top_heap;

void cs_top_heap_init(cs_top_heap *t, size_t k, bool largest);
void cs_top_heap_add_batch(cs_top_heap *t, const cs_batch *b);
/* Appends the kept records to out, best first (largest first for top). */
void cs_top_heap_result(cs_top_heap *t, cs_batch *out);
void cs_top_heap_free(cs_top_heap *t);
/* The order top and take_ordered use: key, then value, each in memcmp order. */
int cs_record_compare(const cspark_record *a, const cspark_record *b);

#endif
