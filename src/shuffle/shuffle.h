/*
 * shuffle.h — the shuffle: partitioners, the map-side writer (Spark's SortShuffleWriter with
 * spill), index files (IndexShuffleBlockResolver), block sources and the reduce-side reader.
 *
 * Map side: the task runner creates one shuffle_writer per map task, feeds it batches and
 * commits it. Without a combiner, records are serialized straight into per-partition recio
 * block streams (lz4 when spec->compress); with a combiner, they are combined in a hash table
 * (the same code as ext_agg) whose entries carry their partition id. Over the memory budget the
 * writer spills: every partition's segment goes to one spill file. Commit writes
 * <dir>/shuffle_<shuffle>_<map>_0.data (for each partition: its segments from every spill, then
 * from memory; compressed blocks are concatenated without decoding) and .index
 * ((num_reduces + 1) big-endian u64 offsets), both under temp names, then renames them into place,
 * so a retried map task replaces a previous attempt. With map-side combine, spills are written
 * sorted by (hash, key) per partition and merged at commit, so each key appears once per map
 * output.
 *
 * Reduce side: a shuffle_reader fetches each map's segment for one reduce partition through a
 * shuffle_block_source (local files now, the network later) and decodes it into batches.
 *
 * Ownership is stated per function; statuses, partitioners, aggregators, dirs and memory are
 * borrowed and must outlive the objects that use them.
 */
#ifndef CSPARK_SHUFFLE_SHUFFLE_H
#define CSPARK_SHUFFLE_SHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cspark.h"
#include "records/batch.h"
#include "records/checksum.h"
#include "common/conf.h"
#include "common/err.h"
#include "records/recio.h"
#include "shuffle/map_status.h"
#include "shuffle/memory.h"

/* XXH3_64bits of the key: the hash every shuffle structure uses. Inlined (xxhash in header-only
 * mode) because it runs once per record. */
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>
static inline uint64_t shuffle_key_hash(cspark_slice key)
{
    return XXH3_64bits(key.ptr, key.len);
}

/* x % d for a divisor fixed in advance, with a multiply instead of a division (Granlund and
 * Montgomery, "Division by invariant integers using multiplication", fig. 4.1): the writer
 * computes a partition per record, and a 64-bit DIV was ~7% of a word count's CPU. Exact for
 * every x and every d >= 1. */
typedef struct shuffle_divisor {
    uint64_t d, m;
    int shift; /* -1: d == 1 */
} shuffle_divisor;
static inline shuffle_divisor shuffle_divisor_make(uint64_t d)
{
    shuffle_divisor v = {d, 0, -1};
    if (d > 1) {
        int l = 64 - __builtin_clzll(d - 1); /* ceil(log2 d), >= 1 */
        unsigned __int128 two_l = (unsigned __int128)1 << l;
        v.m = (uint64_t)((((unsigned __int128)1 << 64) * (two_l - d)) / d) + 1;
        v.shift = l - 1;
    }
    return v;
}
static inline uint64_t shuffle_mod(const shuffle_divisor *v, uint64_t x)
{
    if (v->shift < 0) return 0;
    uint64_t t = (uint64_t)(((unsigned __int128)v->m * x) >> 64);
    uint64_t q = (t + ((x - t) >> 1)) >> v->shift;
    return x - q * v->d;
}

/* PASSTHROUGH: the key is the partition, a 4-byte big-endian int (Spark's
 * PartitionIdPassthrough: the SQL engine's exchanges, whose map side computed it). */
typedef enum { PART_HASH, PART_RANGE, PART_ROUND_ROBIN, PART_PASSTHROUGH } cs_partitioner_kind;
typedef struct cs_partitioner {
    cs_partitioner_kind kind;
    int num_partitions;
    cspark_slice *bounds; /* RANGE: num_partitions-1 ascending upper bounds (memcmp order, shorter
                             prefix first); a key goes to the first partition whose bound >= key
                             (binary search); borrowed. Fewer bounds are accepted: keys above the
                             last bound go to partition num_bounds, later ones stay empty */
    int num_bounds;
    bool ascending; /* RANGE: false = partition order reversed */
} cs_partitioner;
/* HASH: key_hash % n (key_hash = shuffle_key_hash(key)). RANGE: as above (key_hash unused).
 * PASSTHROUGH: the key's big-endian int mod n (0 for a key that is not 4 bytes).
 * ROUND_ROBIN is stateful and handled by the writer (a counter starting at
 * cs_shuffle_round_robin_start(map_id, n), like Spark's repartition); here it returns key_hash % n.
 */
int cs_partitioner_get(const cs_partitioner *p, cspark_slice key, uint64_t key_hash);
int cs_shuffle_round_robin_start(int map_id, int num_partitions);

/* Spark's Aggregator. create: if has_zero, acc = copy(zero) then merge_value(acc, v); else if
 * create != NULL, create(acc, v) with acc empty (len 0); else acc = copy(v). */
typedef struct cs_aggregator {
    cspark_reduce_fn create;          /* may be NULL */
    cspark_reduce_fn merge_value;     /* acc = f(acc, value) */
    cspark_reduce_fn merge_combiners; /* acc = f(acc, other acc) */
    const uint8_t *zero;
    uint32_t zero_len;
    bool has_zero;
    cspark_task_context *tc; /* passed to the functions (borrowed) */
} cs_aggregator;

/* What a finished map task reports: cs_map_status, shuffle/map_status.h. */

typedef struct shuffle_write_spec {
    int shuffle_id;
    int map_id;
    int64_t attempt_id;
    const cs_partitioner *partitioner;
    const cs_aggregator *combiner; /* non-NULL: map-side combine (output values are combiners) */
    bool compress;                 /* spark.shuffle.compress (lz4); also used for spills */
    cs_checksum_algo checksum;     /* spark.shuffle.checksum.*: every block, spills too */
    const char *dir;               /* existing directory for data, index and spill files */
    cs_task_memory *mem;
    const cs_map_status_opts *status_opts; /* the form of the map status (NULL: Spark's defaults) */
} shuffle_write_spec;
typedef struct shuffle_writer shuffle_writer;
/* The spec and everything it points to are borrowed until free. NULL + err on a bad spec. */
shuffle_writer *cs_shuffle_writer_new(const shuffle_write_spec *spec, cs_error *err);
int cs_shuffle_writer_write(shuffle_writer *w, const cs_batch *b, cs_error *err); /* may spill */
/* Writes data + index, renames them into place, fills *out (its stored and raw sizes through
 * cs_map_status_set_sizes with spec->status_opts and cs_map_status_set_raw_sizes;
 * cs_map_status_free releases them). Once. A
 * combining writer that spilled merges its spills here (each key once per map output), calling the
 * combiner's merge_combiners: run it in the same function context as write. Location fields
 * of *out are left as they are. */
int cs_shuffle_writer_commit(shuffle_writer *w, cs_map_status *out, cs_error *err);
/* After commit, or to abort: removes temp and spill files, releases memory. NULL is fine. */
void cs_shuffle_writer_free(shuffle_writer *w);
int cs_shuffle_writer_spills(const shuffle_writer *w);
/* The checksum of shuffle and spill blocks from spark.shuffle.checksum.enabled (default true;
 * false = CS_CHECKSUM_NONE) and spark.shuffle.checksum.algorithm (ADLER32, CRC32, CRC32C or
 * XXH3, any case; default CS_CHECKSUM_DEFAULT_NAME). CS_EINVAL naming the key for a bad value. */
int cs_shuffle_checksum_conf(const cs_conf *conf, cs_checksum_algo *out, cs_error *err);
/* Files of one map output: <dir>/shuffle_<shuffle>_<map>_0.data and .index (cap bytes each). */
void cs_shuffle_file_paths(const char *dir, int shuffle_id, int map_id, char *data, char *index,
                           size_t cap);
/* Deletes the files of shuffles ids[0..n) in dir (every map's data and index files, and temporary
 * ones): Spark's IndexShuffleBlockResolver removing an unregistered shuffle's data. Returns how
 * many files went; a file that cannot be deleted is logged and skipped. */
int cs_shuffle_remove_files(const char *dir, const int *ids, int n);
/* The segment of reduce_id in the data file, from the index file. CS_ENOTFOUND/CS_EIO/CS_EPROTO. */
int cs_shuffle_index_read(const char *dir, int shuffle_id, int map_id, int reduce_id,
                          uint64_t *offset, uint64_t *length, cs_error *err);

/* Where reduce-side bytes come from. fetch returns the raw (still encoded) segment bytes of
 * (map, reduce) in *out (malloc'd, caller frees; may be NULL when *len == 0) and 0, or a negative
 * code (CS_EIO for a missing/unreadable output) with err set. */
typedef struct shuffle_block_source {
    int (*fetch)(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out, size_t *len,
                 cs_error *err);
    void *arg;
    /* Optional (added): the segment as a range of an open file, which the reader then streams
     * with pread through a 1 MB buffer instead of fetching it whole, so memory stays bounded
     * whatever the segment size. *fd becomes the reader's (closed by it). Same errors as fetch.
     * The local source sets it; leave NULL for sources that only fetch. */
    int (*open_range)(void *arg, const cs_map_status *st, int reduce_id, int *fd, uint64_t *off,
                      uint64_t *len, cs_error *err);
    /* Optional (added): the segment as a stream of parts, for a source that receives it in
     * pieces (the network), so the reader decodes the first parts while later ones arrive and
     * no whole-segment buffer is assembled. open_stream sets *stream and returns 0, or returns
     * CS_EUNSUPPORTED to decline (the reader then calls fetch), or fails like fetch.
     * stream_next(stream, ...) delivers the parts in order (a recio_pull_fn: parts borrowed
     * until the next call); a failure there is CS_EIO with err set. stream_close releases the
     * stream (also before its end). Tried after open_range. */
    int (*open_stream)(void *arg, const cs_map_status *st, int reduce_id, void **stream,
                       cs_error *err);
    recio_pull_fn stream_next;
    void (*stream_close)(void *stream);
} shuffle_block_source;
/* Reads <dir>/shuffle_* files through their index; arg = dir (borrowed). Sets fetch and
 * open_range. */
shuffle_block_source cs_shuffle_local_source(const char *dir);

typedef struct shuffle_reader shuffle_reader;
/* Reads reduce partition reduce_id from every map output (maps[] and statuses borrowed until
 * free). Empty segments (cs_map_status_block_empty) are skipped without a fetch. One segment in
 * memory at a time. */
shuffle_reader *cs_shuffle_reader_new(const cs_map_status *const *maps, int num_maps, int reduce_id,
                                      const shuffle_block_source *src, cs_error *err);
/* Appends the next records to out (until batch_full); 1 = records added, 0 = end, <0 on error
 * (then *failed_map_id is the map whose block could not be fetched or decoded). */
int cs_shuffle_reader_next(shuffle_reader *r, cs_batch *out, int *failed_map_id, cs_error *err);
/* The records of the next block without copying them (cs_recio_reader_view_block): *out is the
 * reader's batch, pointing into the block, valid until the next call on r or its free; nothing
 * may be appended to it. 1 = records, 0 = end, <0 as cs_shuffle_reader_next. */
int cs_shuffle_reader_next_view(shuffle_reader *r, const cs_batch **out, int *failed_map_id,
                                cs_error *err);
/* The bytes read so far from the segment of maps[map_index], as stored (a whole segment read
 * counts its length): Spark's shuffle read bytes, which the statuses' sizes (approximate above
 * one byte) cannot give. */
uint64_t cs_shuffle_reader_map_bytes(const shuffle_reader *r, int map_index);
void cs_shuffle_reader_free(shuffle_reader *r);

#endif /* CSPARK_SHUFFLE_SHUFFLE_H */
