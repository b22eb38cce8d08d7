/*
 * external_agg.h — hash aggregation with spill (Spark's ExternalAppendOnlyMap), used on the
 * reduce side of reduce_by_key / aggregate_by_key / group_by_key / cogroup and anywhere a task
 * needs to combine values by key.
 *
 * Records are combined in an open-addressing hash table (stored XXH3 64-bit hashes) whose keys and
 * values live in an arena. When the task is over its memory budget and this aggregator holds at
 * least the spill floor, the table is sorted by (hash, key) and written as one run to a spill file
 * (lz4 blocks, unlinked at creation, so nothing is left behind even on a crash). Iteration merges
 * the runs and the in-memory table by (hash, key), combining equal keys with merge_combiners
 * (multi-pass when there are more than EXT_MERGE_WAYS runs).
 *
 * Ownership: agg, mem and spill_dir are borrowed until cs_ext_agg_free. Records appended by
 * cs_ext_agg_next are copies (the caller owns `out`).
 */
#ifndef CSPARK_SHUFFLE_EXTERNAL_AGG_H
#define CSPARK_SHUFFLE_EXTERNAL_AGG_H

#include <stdbool.h>

#include "records/batch.h"
#include "common/err.h"
#include "shuffle/external_sort.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

typedef struct ext_agg ext_agg;

ext_agg *cs_ext_agg_new(const cs_aggregator *agg, cs_task_memory *mem, const char *spill_dir,
                        cs_error *err);
/* values_are_combiners: true when the batch holds map-side-combined values (merge_combiners),
 * false for raw values (create / merge_value). May spill. Not allowed after cs_ext_agg_next. */
int cs_ext_agg_insert(ext_agg *a, const cs_batch *b, bool values_are_combiners, cs_error *err);
/* Appends (key, combined value) records to out (until it is batch_full); each key exactly once.
 * 1 = records added, 0 = end, <0 error. */
int cs_ext_agg_next(ext_agg *a, cs_batch *out, cs_error *err);
/* Distinct keys currently in memory, and number of spills so far (for tests and metrics). */
size_t cs_ext_agg_size(const ext_agg *a);
int cs_ext_agg_spills(const ext_agg *a);
/* Sources merged at once (default EXT_MERGE_WAYS, 64); with more spilled runs, the oldest are
 * first merged into new runs, so merge buffers stay bounded. For tests and tuning. */
void cs_ext_agg_set_merge_ways(ext_agg *a, int ways);
/* spark.shuffle.checksum.* (default CS_CHECKSUM_DEFAULT): the checksum of spill blocks, verified
 * when the runs are read back. Call before inserting. */
void cs_ext_agg_set_spill_checksum(ext_agg *a, cs_checksum_algo algo);
void cs_ext_agg_free(ext_agg *a);

#endif /* CSPARK_SHUFFLE_EXTERNAL_AGG_H */
