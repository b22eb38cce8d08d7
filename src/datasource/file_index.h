/*
 * file_index.h — the files of a data source and their splits, as Spark's DataSource,
 * InMemoryFileIndex and FilePartition:
 *   - paths: several, each a file, a directory (listed at every depth) or a glob (its matches,
 *     files or directories), on any file system of src/fs; names starting with '_' (unless they
 *     hold '=') or '.' are skipped at every level, as shouldFilterOutPathName; options
 *     `pathGlobFilter` (a glob on file names), `recursiveFileLookup` (no partition discovery) and
 *     `basePath` (where partition discovery stops);
 *   - partition discovery of the files' folders (partitioning.h); a file in a folder without
 *     partition values is left out when the table has partition columns, as Spark's
 *     PartitioningAwareFileIndex does;
 *   - splits: files cut into ceil(size / maxSplitBytes) ranges of equal length (when the format
 *     may split them; Spark cuts whole maxSplitBytes ranges and a short last one, see
 *     docs/datasource.md) and packed into partitions by Spark's "next fit decreasing"
 *     (FilePartition.getFilePartitions), with
 *     maxSplitBytes = min(maxPartitionBytes, max(openCostInBytes, bytesPerCore)).
 *
 * Called on the driver by the API (api/datasource_api.c). Ownership: an index owns its strings,
 * partition spec and arrays (cs_ds_file_index_free); plans are malloc'd arrays of the caller's.
 */
#ifndef CSPARK_DATASOURCE_FILE_INDEX_H
#define CSPARK_DATASOURCE_FILE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "datasource/partitioning.h"
#include "formats/file_format.h"

#define CS_DS_MAX_PARTITION_BYTES_DEFAULT (128LL << 20) /* spark.sql.files.maxPartitionBytes */
#define CS_DS_OPEN_COST_DEFAULT (4LL << 20)             /* spark.sql.files.openCostInBytes */

typedef struct cs_ds_file {
    char *uri;
    uint64_t size;
    int partition; /* row of the partition spec's values, -1 when not partitioned */
} cs_ds_file;

typedef struct cs_ds_file_index {
    cs_ds_file *files;
    int n_files;
    cs_ds_partition_spec parts;
} cs_ds_file_index;

/* Lists paths[0..n) with the options and infers their partitioning. type_inference is
 * spark.sql.sources.partitionColumnTypeInference.enabled. Errors name the path ("[PATH_NOT_FOUND]
 * Path does not exist: ..."). */
int cs_ds_file_index_build(const char *const *paths, int n, const cs_format_options *options,
                           bool type_inference, cs_ds_file_index *out, cs_error *err);
void cs_ds_file_index_free(cs_ds_file_index *ix);

/* Spark's FilePartition.maxSplitBytes: total = sum(size + open_cost); bytesPerCore = total /
 * min_partitions; min(max_partition_bytes, max(open_cost, bytesPerCore)). */
int64_t cs_ds_max_split_bytes(int64_t max_partition_bytes, int64_t open_cost, int min_partitions,
                              const uint64_t *sizes, int n);

typedef struct cs_ds_split {
    int file; /* index in the caller's files */
    uint64_t start, length;
} cs_ds_split;

/* Cuts files (sizes[i], splittable[i]) into splits of at most max_split bytes (a file's splits of
 * equal length, to a byte), sorts them by
 * length (largest first, stable) and packs them into partitions; returns the splits in partition
 * order (*n_splits), partition p holding splits group_start[p]..group_start[p+1]-1 (*group_start
 * has *n_partitions + 1 entries). Both arrays are the caller's to free. */
cs_ds_split *cs_ds_plan_partitions(const uint64_t *sizes, const bool *splittable, int n,
                                   int64_t max_split, int64_t open_cost, int *n_splits,
                                   int **group_start, int *n_partitions);

#endif
