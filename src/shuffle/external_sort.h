/*
 * external_sort.h — sorting records by key with spill (Spark's ExternalSorter for sortByKey).
 *
 * Records are copied into an arena and indexed by (first 8 key bytes as a big-endian u64,
 * record pointer); a run is sorted by LSD radix sort on that prefix, then ties are ordered by
 * memcmp of the whole key (shorter prefix first). When the task is over its memory budget and
 * this sorter holds at least the spill floor, the sorted run is written to a spill file (lz4
 * blocks, unlinked at creation). Iteration is a k-way heap merge of the runs and the in-memory
 * run (multi-pass when there are more than EXT_MERGE_WAYS runs). Descending order reverses the
 * comparison. Order among equal keys is unspecified.
 *
 * Ownership: mem and spill_dir are borrowed until cs_ext_sorter_free. Records appended by
 * cs_ext_sorter_next are copies (the caller owns `out`).
 */
#ifndef CSPARK_SHUFFLE_EXTERNAL_SORT_H
#define CSPARK_SHUFFLE_EXTERNAL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "records/batch.h"
#include "records/checksum.h"
#include "common/err.h"
#include "shuffle/memory.h"

typedef struct ext_sorter ext_sorter;

ext_sorter *cs_ext_sorter_new(bool ascending, cs_task_memory *mem, const char *spill_dir,
                              cs_error *err);
/* spark.shuffle.spill.compress (default true): lz4 for spill runs. Call before inserting. */
void cs_ext_sorter_set_spill_compress(ext_sorter *s, bool compress);
/* spark.shuffle.checksum.* (default CS_CHECKSUM_DEFAULT): the checksum of spill blocks, verified
 * when the runs are read back. Call before inserting. */
void cs_ext_sorter_set_spill_checksum(ext_sorter *s, cs_checksum_algo algo);
/* May spill a sorted run. Not allowed after cs_ext_sorter_next. */
int cs_ext_sorter_insert(ext_sorter *s, const cs_batch *b, cs_error *err);
/* Appends records in key order (memcmp, shorter prefix first; reversed when !ascending) until
 * out is batch_full. 1 = records added, 0 = end, <0 error. */
int cs_ext_sorter_next(ext_sorter *s, cs_batch *out, cs_error *err);
int cs_ext_sorter_spills(const ext_sorter *s);
/* Sources merged at once (default EXT_MERGE_WAYS); with more spilled runs, the oldest are first
 * merged into new runs, so merge buffers stay bounded. For tests and tuning. */
#define EXT_MERGE_WAYS 64
void cs_ext_sorter_set_merge_ways(ext_sorter *s, int ways);
void cs_ext_sorter_free(ext_sorter *s);

/* Compares keys in memcmp order, a shorter key first when it is a prefix of the other. */
int cs_ext_key_compare(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen);

/* The key order's first step: the first 8 key bytes as a big-endian number, zero-padded.
 * Prefixes compare like the keys (cs_ext_key_compare) whenever they differ; equal prefixes
 * need the full comparison. The sorter's runs and the range partitioner's bounds use it. */
static inline uint64_t cs_ext_key_prefix(const uint8_t *k, uint32_t len)
{
    uint64_t p;
    if (len >= 8) {
        memcpy(&p, k, 8);
        return __builtin_bswap64(p);
    }
    p = 0;
    for (uint32_t i = 0; i < 8; i++)
        p = (p << 8) | (i < len ? k[i] : 0);
    return p;
}

#endif /* CSPARK_SHUFFLE_EXTERNAL_SORT_H */
