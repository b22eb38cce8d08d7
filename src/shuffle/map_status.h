/*
 * map_status.h — what a finished map task reports and what the driver keeps per map output
 * (Spark's MapStatus): where the output is, and the size of each reduce partition's block in a
 * compact form, so that a shuffle of M maps and R reduces costs the driver about M x R bits, not
 * M x R x 8 bytes (4,096 x 8,192 statuses: a few MB instead of 268 MB).
 *
 * Two forms, chosen by cs_map_status_set_sizes as Spark's MapStatus.apply does:
 *   - COMPRESSED (R <= spark.shuffle.minNumPartitionsToHighlyCompress, 2000): one byte per
 *     block, its size on a log scale of base 1.1 (Spark's compressSize/decompressSize: 0 is 0,
 *     1 is 1, larger sizes within 10%, up to ~35 GB);
 *   - HIGHLY_COMPRESSED (more reduces): a bitmap of the empty blocks, the average size of the
 *     other blocks, and the blocks at or above the accurate threshold kept exactly (sorted by
 *     reduce id): spark.shuffle.accurateBlockThreshold (100 MiB), lowered to
 *     max(median x spark.shuffle.accurateBlockSkewedFactor, the size of the
 *     spark.shuffle.maxAccurateSkewedBlockNumber-th largest block) when the factor is set (> 0).
 *     Spark keeps those on the log scale too; cspark keeps them exactly (they are few).
 * In both forms a block reads as empty exactly when it is: readers skip empty blocks (never a
 * non-empty one), and every non-empty block reads as at least 1 byte.
 *
 * Beside the stored sizes (the bytes a reader fetches, compressed when spark.shuffle.compress
 * compressed the blocks), a status may carry the blocks' raw sizes: their records' bytes before
 * stream compression, in the same form (COMPRESSED: a second log-scale byte per block;
 * HIGHLY_COMPRESSED: the average raw size of the blocks not kept exactly, and each huge block's
 * raw size exactly). Spark has only the stored sizes; cspark's SQL blocks are encoded column
 * batches whose raw size follows the batches' size in memory, where the compressed size follows
 * how well LZ4 did, so adaptive execution sizes its decisions by the raw bytes
 * (cs_map_status_raw_size; the stored size where a status carries none).
 *
 * The same form travels on the wire (task_codec.c, MapStatus in proto/cspark.proto) and stays in
 * the driver's map-output tracker. Called by the shuffle writer (construction), the task codec,
 * the scheduler (copies) and every reader of block sizes (the shuffle reader, block fetchers,
 * shuffle migration, reduce-side size estimates).
 *
 * Ownership: a cs_map_status owns `blocks`, `raw_blocks` and `huge` (malloc'd); cs_map_status_free
 * releases them (not the struct). A struct copy moves ownership; cs_map_status_copy makes a deep
 * copy.
 */
#ifndef CSPARK_SHUFFLE_MAP_STATUS_H
#define CSPARK_SHUFFLE_MAP_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

typedef struct cs_map_status_opts {
    int min_partitions_to_highly_compress; /* spark.shuffle.minNumPartitionsToHighlyCompress */
    int64_t accurate_block_threshold;      /* spark.shuffle.accurateBlockThreshold (bytes) */
    double accurate_block_skewed_factor;   /* spark.shuffle.accurateBlockSkewedFactor (<= 0: off) */
    int max_accurate_skewed_blocks;        /* spark.shuffle.maxAccurateSkewedBlockNumber */
} cs_map_status_opts;

/* Spark's defaults: 2000, 100 MiB, -1 (off), 100. */
extern const cs_map_status_opts cs_map_status_default_opts;
/* Reads the four keys above (defaults as Spark's); CS_EINVAL naming the key on a bad value. */
int cs_map_status_opts_read(const cs_conf *conf, cs_map_status_opts *o, cs_error *err);

typedef enum {
    CS_MAP_SIZES_COMPRESSED = 0,        /* blocks: one log-scale byte per reduce */
    CS_MAP_SIZES_HIGHLY_COMPRESSED = 1, /* blocks: bitmap, bit r set = block r is empty */
} cs_map_sizes_kind;

typedef struct cs_map_huge_block {
    uint32_t reduce_id;
    uint64_t size;     /* exact, > 0 */
    uint64_t raw_size; /* exact when the status has raw sizes (else 0) */
} cs_map_huge_block;

typedef struct cs_map_status {
    int shuffle_id;
    int map_id;
    int num_reduces;
    int sizes_kind;          /* cs_map_sizes_kind */
    uint8_t *blocks;         /* cs_map_status_blocks_len() bytes (see the kinds), malloc'd */
    uint64_t avg_size;       /* HIGHLY_COMPRESSED: non-empty blocks not in huge */
    int num_huge;            /* HIGHLY_COMPRESSED */
    cs_map_huge_block *huge; /* num_huge entries by ascending reduce_id, malloc'd (or NULL) */
    bool has_raw;            /* the raw sizes below are set (cs_map_status_set_raw_sizes) */
    uint8_t *raw_blocks;     /* COMPRESSED: a log-scale byte per block, malloc'd (or NULL) */
    uint64_t raw_avg_size;   /* HIGHLY_COMPRESSED: the raw size of the blocks not in huge */
    char executor_id[64];    /* location fields: filled by the caller */
    char host[256];
    int port;
    uint64_t records_written; /* Spark's shuffle write metrics */
    uint64_t bytes_written;   /* data file size */
} cs_map_status;

/* Spark's MapStatus.compressSize / decompressSize. */
uint8_t cs_map_status_compress_size(uint64_t size);
uint64_t cs_map_status_decompress_size(uint8_t b);

/* The constructor: stores sizes[0..num_reduces) in the form the options choose (NULL: the
 * defaults). Sizes st held before are not freed (call it on a zeroed or freed status); other
 * fields are left as they are. */
void cs_map_status_set_sizes(cs_map_status *st, const uint64_t *sizes, int num_reduces,
                             const cs_map_status_opts *opts);
/* Adds the blocks' raw sizes (raw[0..num_reduces), the same blocks as the sizes given to
 * cs_map_status_set_sizes, which must come first) in st's form; sets has_raw. */
void cs_map_status_set_raw_sizes(cs_map_status *st, const uint64_t *raw);
/* Length of st->blocks for a kind and a reduce count. */
size_t cs_map_status_blocks_len(int sizes_kind, int num_reduces);
/* Spark's getSizeForBlock: the estimated size of block reduce_id (0 exactly when it is empty;
 * 0 for an id out of range). */
uint64_t cs_map_status_size(const cs_map_status *st, int reduce_id);
/* The estimated raw size of block reduce_id (its records' bytes before stream compression): 0
 * exactly when it is empty, at least 1 otherwise; cs_map_status_size when st has no raw sizes. */
uint64_t cs_map_status_raw_size(const cs_map_status *st, int reduce_id);
/* True only when block reduce_id is known to be empty (then it need not be fetched). */
bool cs_map_status_block_empty(const cs_map_status *st, int reduce_id);
/* Whether a block found to be `len` bytes agrees with what st says of it: the same log-scale
 * byte (COMPRESSED); empty exactly when st says so, and the exact size of a huge block
 * (HIGHLY_COMPRESSED). True for an id out of range (st says nothing). */
bool cs_map_status_size_agrees(const cs_map_status *st, int reduce_id, uint64_t len);
/* The sum of the estimated sizes of every block. */
uint64_t cs_map_status_total_size(const cs_map_status *st);
/* Bytes st holds: the struct and its allocations. */
size_t cs_map_status_footprint(const cs_map_status *st);
/* Checks a status received from elsewhere (lengths, order and range of huge blocks, a non-zero
 * estimate for every non-empty block); CS_EPROTO naming the map output otherwise. */
int cs_map_status_validate(const cs_map_status *st, cs_error *err);
/* *dst = a deep copy of *src. */
void cs_map_status_copy(cs_map_status *dst, const cs_map_status *src);
/* Frees blocks and huge (not st). NULL is fine. */
void cs_map_status_free(cs_map_status *st);

#endif /* CSPARK_SHUFFLE_MAP_STATUS_H */
