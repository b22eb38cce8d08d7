/*
 * shuffle_partitions_util.h — Spark's ShufflePartitionsUtil.coalescePartitions (adaptive
 * execution's CoalesceShufflePartitions): once the map stages of the shuffles a stage reads have
 * run, their reduce partitions' sizes (MapOutputStatistics.bytesByPartitionId, summed over the
 * maps; cspark's are the blocks' raw bytes before stream compression, cs_scheduler_shuffle_sizes)
 * decide how many tasks read them. Neighbouring partitions are packed into one task
 * (CoalescedPartitionSpec: partitions [start, end) of every shuffle the stage reads) until the
 * next one would bring it over the target size:
 *
 *   target = max(min(max(ceil(total / min_partitions), 16), advisory), min_partition_size)
 *
 * where total is every shuffle's bytes, advisory spark.sql.adaptive.advisoryPartitionSizeInBytes
 * (64m), min_partition_size spark.sql.adaptive.coalescePartitions.minPartitionSize (1m) and
 * min_partitions spark.sql.adaptive.coalescePartitions.minPartitionNum, else (parallelismFirst,
 * the default) the default parallelism, else 1. A range of empty partitions that a split leaves
 * behind is not read at all (no task for nothing); everything empty is one task. The shuffles
 * must have the same number of partitions; nothing is coalesced when they do not, or when the
 * result has as many partitions as before.
 *
 * Called by the session's query runner (session/query_run.c) between stages. Pure: no state,
 * the caller's arrays.
 */
#ifndef CSPARK_SQLEXEC_SHUFFLE_PARTITIONS_UTIL_H
#define CSPARK_SQLEXEC_SHUFFLE_PARTITIONS_UTIL_H

#include <stdint.h>

/* The target size of a coalesced partition (the formula above; min_partitions >= 1). */
int64_t cs_coalesce_target_size(const uint64_t *const *bytes, int n_shuffles, int n_partitions,
                                int64_t advisory, int min_partitions, int64_t min_partition_size);

/* Coalesces n_partitions partitions of n_shuffles shuffles (bytes[s][p]: partition p's bytes in
 * shuffle s) to the target size: returns how many coalesced partitions (starts[i], ends[i]:
 * partitions [start, end) of every shuffle; arrays of room n_partitions), or 0 when nothing is
 * coalesced (no shuffle, or no fewer partitions than before). */
int cs_coalesce_partitions(const uint64_t *const *bytes, int n_shuffles, int n_partitions,
                           int64_t target, int *starts, int *ends);

#endif /* CSPARK_SQLEXEC_SHUFFLE_PARTITIONS_UTIL_H */
