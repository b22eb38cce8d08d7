/*
 * shuffle_partitions_util.c — coalescing small shuffle partitions between stages, as Spark's
 * ShufflePartitionsUtil (see shuffle_partitions_util.h for the rule). A single pass over the
 * partitions' summed sizes: a partition that would bring the open range over the target starts
 * a new range; a range is emitted only when it holds bytes, so only an all-empty input gives
 * the one forced (empty) range.
 */
#include <math.h>

#include "sqlexec/shuffle_partitions_util.h"

int64_t cs_coalesce_target_size(const uint64_t *const *bytes, int n_shuffles, int n_partitions,
                                int64_t advisory, int min_partitions, int64_t min_partition_size)
{
    double total = 0;
    for (int s = 0; s < n_shuffles; s++)
        for (int p = 0; p < n_partitions; p++)
            total += (double)bytes[s][p];
    if (min_partitions < 1) min_partitions = 1;
    int64_t max_target = (int64_t)ceil(total / (double)min_partitions);
    if (max_target < 16) max_target = 16; /* an empty input still gets one partition */
    int64_t target = max_target < advisory ? max_target : advisory;
    return target > min_partition_size ? target : min_partition_size;
}

int cs_coalesce_partitions(const uint64_t *const *bytes, int n_shuffles, int n_partitions,
                           int64_t target, int *starts, int *ends)
{
    if (n_shuffles <= 0 || n_partitions <= 0) return 0;
    int n = 0, split = 0;
    uint64_t open = 0; /* bytes of partitions [split, p) */
    for (int p = 0; p < n_partitions; p++) {
        uint64_t size = 0;
        for (int s = 0; s < n_shuffles; s++)
            size += bytes[s][p];
        if (p > split && open + size > (uint64_t)target) {
            if (open > 0) { /* an empty range is not worth a task */
                starts[n] = split;
                ends[n++] = p;
            }
            split = p;
            open = size;
        } else {
            open += size;
        }
    }
    if (open > 0 || n == 0) {
        starts[n] = split;
        ends[n++] = n_partitions;
    }
    return n < n_partitions ? n : 0;
}
