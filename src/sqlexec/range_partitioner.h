/*
 * range_partitioner.h — the bounds of a range exchange (Exchange rangepartitioning, a global
 * ORDER BY's), chosen as Spark's RangePartitioner chooses them for ShuffleExchangeExec:
 *
 *   1. a sampling job over the exchange's input: each input partition keeps a reservoir sample of
 *      its rows' sort keys (cs_range_reservoir: SamplingUtils.reservoirSampleAndCount over
 *      XORShiftRandom) and counts its rows; the sample size per input partition is
 *      ceil(3 * min(hint * partitions, 1e6) / input partitions), the hint being
 *      spark.sql.execution.rangeExchange.sampleSizePerPartition (100);
 *   2. on the driver, cs_range_bounds: every sampled key weighted by its partition's rows over
 *      its sample's size, sorted in the sort's order, and the keys where the cumulated weight
 *      crosses each 1/partitions step taken as bounds, skipping a key not above the previous
 *      bound (RangePartitioner.determineBounds) — so there may be fewer than partitions - 1.
 *
 * A row goes to the number of bounds strictly below its key in the sort's order (ties with a
 * bound go to the bound's partition: exchange_codec.c), so the reduce partitions, read in order,
 * are the rows in the sort's order. Spark re-samples a partition holding more than three times
 * its share of rows with a Bernoulli sample of the overall fraction; cspark weights that
 * partition's reservoir sample instead (the bounds are a little less even; the order is the same).
 *
 * Called by the SQL node's task (plan/kinds/sql_exec.c: the sampling) and by the driver
 * (session/query_run.c: the bounds). Ownership: a reservoir owns the rows it keeps (small
 * batches of the key columns, compacted as they grow); batches passed in are borrowed.
 */
#ifndef CSPARK_SQLEXEC_RANGE_PARTITIONER_H
#define CSPARK_SQLEXEC_RANGE_PARTITIONER_H

#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_ops.h"

/* Spark's sampleSizePerPartition: ceil(3 * min(hint * partitions, 1e6) / input_partitions). */
int cs_range_sample_per_partition(int partitions, int input_partitions, int hint);

/* Spark's seed of the sketch of input partition `partition` of RDD `rdd_id`:
 * byteswap32(partition ^ (rdd_id << 16)). */
int64_t cs_range_sample_seed(int rdd_id, int partition);

typedef struct cs_range_reservoir cs_range_reservoir;

/* A reservoir of k rows of the key columns keys[*].ordinal of batches of `input` (a struct
 * type; one reference taken), drawing with XORShiftRandom(seed). */
cs_range_reservoir *cs_range_reservoir_new(const cs_col_type *input, const cs_sort_key *keys,
                                           int n_keys, int k, int64_t seed);
/* Offers every row of b (of the input type) to the reservoir, in order. */
int cs_range_reservoir_add(cs_range_reservoir *r, cs_col_batch *b, cs_col_allocator *alloc,
                           cs_error *err);
/* The rows seen so far. */
int64_t cs_range_reservoir_count(const cs_range_reservoir *r);
/* The sample: a new batch of the key columns (min(k, count) rows), or NULL + err. */
cs_col_batch *cs_range_reservoir_sample(cs_range_reservoir *r, cs_col_allocator *alloc,
                                        cs_error *err);
void cs_range_reservoir_free(cs_range_reservoir *r);

/* The bounds for `partitions` output partitions from the samples of n input partitions:
 * samples[i] (a batch whose columns are the sort keys, in order: key j is column j, ordered by
 * dirs[j]'s descending / nulls_first) drawn from counts[i] rows. hint as above. *out: a new
 * batch of the chosen bound rows (0 .. partitions - 1 rows, strictly increasing in the sort's
 * order), or NULL when there is none (no rows, or partitions <= 1). */
int cs_range_bounds(cs_col_batch *const *samples, const int64_t *counts, int n,
                    const cs_sort_key *dirs, int n_keys, int partitions, int hint,
                    cs_col_allocator *alloc, cs_col_batch **out, cs_error *err);

/* The bounds of RANGE exchange ex (over its child) from its sampling job: input partition p
 * counted counts[p] rows and sampled the encoded batch values[p][0..lens[p]) of its sort keys.
 * Appends the encoded bounds batch to *bounds (nothing when there is none) and sets
 * *num_partitions to the bounds + 1. */
int cs_range_bounds_of_samples(const cs_phys_node *ex, const int64_t *counts,
                               const uint8_t *const *values, const size_t *lens, int n, int hint,
                               cs_sbuf *bounds, int *num_partitions, cs_error *err);

#endif /* CSPARK_SQLEXEC_RANGE_PARTITIONER_H */
