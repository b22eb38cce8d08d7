/*
 * map_status.c — the compact block sizes of a map output (see map_status.h): Spark's
 * CompressedMapStatus and HighlyCompressedMapStatus, their construction from the exact sizes a
 * shuffle writer measured, the size of one block as readers see it, copies and checks.
 */
#include "shuffle/map_status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const cs_map_status_opts cs_map_status_default_opts = {
    .min_partitions_to_highly_compress = 2000,
    .accurate_block_threshold = 100 * CS_MiB,
    .accurate_block_skewed_factor = -1.0,
    .max_accurate_skewed_blocks = 100,
};

int cs_map_status_opts_read(const cs_conf *conf, cs_map_status_opts *o, cs_error *err)
{
    int64_t min_parts = 0, threshold = 0, max_skewed = 0;
    double factor = 0;
    if (cs_conf_get_int(conf, "spark.shuffle.minNumPartitionsToHighlyCompress", "2000", &min_parts,
                        err) < 0 ||
        cs_conf_get_size(conf, "spark.shuffle.accurateBlockThreshold", "104857600", CS_BYTE,
                         &threshold, err) < 0 ||
        cs_conf_get_double(conf, "spark.shuffle.accurateBlockSkewedFactor", "-1", &factor, err) <
            0 ||
        cs_conf_get_int(conf, "spark.shuffle.maxAccurateSkewedBlockNumber", "100", &max_skewed,
                        err) < 0)
        return err ? err->code : CS_EINVAL;
    if (min_parts < 1 || min_parts > INT32_MAX)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.shuffle.minNumPartitionsToHighlyCompress: "
                            "'%s' (expected a positive int)",
                            cs_conf_get(conf, "spark.shuffle.minNumPartitionsToHighlyCompress"));
    if (threshold < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.shuffle.accurateBlockThreshold: '%s' "
                            "(expected a positive size)",
                            cs_conf_get(conf, "spark.shuffle.accurateBlockThreshold"));
    if (max_skewed < 1 || max_skewed > INT32_MAX)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.shuffle.maxAccurateSkewedBlockNumber: '%s' "
                            "(expected a positive int)",
                            cs_conf_get(conf, "spark.shuffle.maxAccurateSkewedBlockNumber"));
    o->min_partitions_to_highly_compress = (int)min_parts;
    o->accurate_block_threshold = threshold;
    o->accurate_block_skewed_factor = factor;
    o->max_accurate_skewed_blocks = (int)max_skewed;
    return 0;
}

/* ---- Spark's log-scale byte ------------------------------------------------------------------ */

static const double LOG_BASE = 1.1;

uint8_t cs_map_status_compress_size(uint64_t size)
{
    if (size == 0) return 0;
    if (size <= 1) return 1;
    double b = ceil(log((double)size) / log(LOG_BASE));
    return b >= 255 ? 255 : (uint8_t)b;
}

uint64_t cs_map_status_decompress_size(uint8_t b)
{
    return b == 0 ? 0 : (uint64_t)pow(LOG_BASE, b);
}

/* ---- construction ---------------------------------------------------------------------------- */

size_t cs_map_status_blocks_len(int sizes_kind, int num_reduces)
{
    if (num_reduces <= 0) return 0;
    return sizes_kind == CS_MAP_SIZES_HIGHLY_COMPRESSED ? ((size_t)num_reduces + 7) / 8
                                                        : (size_t)num_reduces;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* HighlyCompressedMapStatus.apply: blocks at or above the accurate threshold, or (with a skew
 * factor) above both median x factor and the cutoff below the largest blocks, are huge. */
static void set_highly_compressed(cs_map_status *st, const uint64_t *sizes, int n,
                                  const cs_map_status_opts *o)
{
    uint64_t accurate = (uint64_t)o->accurate_block_threshold;
    double skew_threshold = (double)accurate;
    uint64_t skew_cutoff = UINT64_MAX;
    if (o->accurate_block_skewed_factor > 0) {
        uint64_t *sorted = cs_xmalloc((size_t)n * sizeof *sorted);
        memcpy(sorted, sizes, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_u64);
        double median =
            n % 2 ? (double)sorted[n / 2] : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
        int keep = o->max_accurate_skewed_blocks < n ? o->max_accurate_skewed_blocks : n;
        skew_cutoff = sorted[n - keep];
        double by_median = median * o->accurate_block_skewed_factor;
        double t = by_median > (double)skew_cutoff ? by_median : (double)skew_cutoff;
        if (t < skew_threshold) skew_threshold = t;
        free(sorted);
    }
    st->blocks = cs_xcalloc(cs_map_status_blocks_len(CS_MAP_SIZES_HIGHLY_COMPRESSED, n), 1);
    int num_huge = 0, cap_huge = 0, num_small = 0;
    uint64_t small_total = 0;
    for (int r = 0; r < n; r++) {
        uint64_t size = sizes[r];
        if (size == 0) {
            st->blocks[r / 8] |= (uint8_t)(1u << (r % 8));
            continue;
        }
        bool huge = size >= accurate || ((double)size >= skew_threshold && size > skew_cutoff);
        if (!huge) {
            small_total += size;
            num_small++;
            continue;
        }
        if (num_huge == cap_huge) {
            cap_huge = cap_huge ? cap_huge * 2 : 4;
            st->huge = cs_xrealloc(st->huge, (size_t)cap_huge * sizeof *st->huge);
        }
        st->huge[num_huge++] = (cs_map_huge_block){(uint32_t)r, size, 0};
    }
    if (num_huge && num_huge < cap_huge)
        st->huge = cs_xrealloc(st->huge, (size_t)num_huge * sizeof *st->huge);
    st->num_huge = num_huge;
    st->avg_size = num_small ? small_total / (uint64_t)num_small : 0;
}

void cs_map_status_set_sizes(cs_map_status *st, const uint64_t *sizes, int num_reduces,
                             const cs_map_status_opts *opts)
{
    const cs_map_status_opts *o = opts ? opts : &cs_map_status_default_opts;
    st->blocks = NULL;
    st->huge = NULL;
    st->has_raw = false;
    st->raw_blocks = NULL;
    st->raw_avg_size = 0;
    st->num_reduces = num_reduces > 0 ? num_reduces : 0;
    st->avg_size = 0;
    st->num_huge = 0;
    if (num_reduces > o->min_partitions_to_highly_compress) {
        st->sizes_kind = CS_MAP_SIZES_HIGHLY_COMPRESSED;
        set_highly_compressed(st, sizes, num_reduces, o);
        return;
    }
    st->sizes_kind = CS_MAP_SIZES_COMPRESSED;
    if (st->num_reduces == 0) return;
    st->blocks = cs_xmalloc((size_t)num_reduces);
    for (int r = 0; r < num_reduces; r++)
        st->blocks[r] = cs_map_status_compress_size(sizes[r]);
}

void cs_map_status_set_raw_sizes(cs_map_status *st, const uint64_t *raw)
{
    st->has_raw = true;
    if (st->sizes_kind != CS_MAP_SIZES_HIGHLY_COMPRESSED) {
        if (st->num_reduces == 0) return;
        st->raw_blocks = cs_xmalloc((size_t)st->num_reduces);
        for (int r = 0; r < st->num_reduces; r++) /* an empty block stays 0, others >= 1 */
            st->raw_blocks[r] =
                st->blocks[r] ? cs_map_status_compress_size(raw[r] ? raw[r] : 1) : 0;
        return;
    }
    uint64_t total = 0, n = 0;
    for (int r = 0, h = 0; r < st->num_reduces; r++) {
        if ((st->blocks[r / 8] >> (r % 8)) & 1u) continue; /* empty */
        if (h < st->num_huge && st->huge[h].reduce_id == (uint32_t)r) {
            st->huge[h++].raw_size = raw[r] ? raw[r] : 1;
            continue;
        }
        total += raw[r];
        n++;
    }
    st->raw_avg_size = n ? (total / n ? total / n : 1) : 0;
}

/* ---- reading --------------------------------------------------------------------------------- */

static bool bitmap_has(const uint8_t *bits, int r)
{
    return (bits[r / 8] >> (r % 8)) & 1u;
}

/* The huge entry of reduce_id, or NULL. */
static const cs_map_huge_block *find_huge(const cs_map_status *st, int reduce_id)
{
    int lo = 0, hi = st->num_huge - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        uint32_t id = st->huge[mid].reduce_id;
        if (id == (uint32_t)reduce_id) return &st->huge[mid];
        if (id < (uint32_t)reduce_id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static bool in_range(const cs_map_status *st, int reduce_id)
{
    return st && st->blocks && reduce_id >= 0 && reduce_id < st->num_reduces;
}

bool cs_map_status_block_empty(const cs_map_status *st, int reduce_id)
{
    if (!in_range(st, reduce_id)) return false;
    if (st->sizes_kind == CS_MAP_SIZES_HIGHLY_COMPRESSED) return bitmap_has(st->blocks, reduce_id);
    return st->blocks[reduce_id] == 0;
}

uint64_t cs_map_status_size(const cs_map_status *st, int reduce_id)
{
    if (!in_range(st, reduce_id)) return 0;
    if (st->sizes_kind != CS_MAP_SIZES_HIGHLY_COMPRESSED)
        return cs_map_status_decompress_size(st->blocks[reduce_id]);
    if (bitmap_has(st->blocks, reduce_id)) return 0;
    const cs_map_huge_block *h = find_huge(st, reduce_id);
    return h ? h->size : st->avg_size;
}

uint64_t cs_map_status_raw_size(const cs_map_status *st, int reduce_id)
{
    if (!in_range(st, reduce_id)) return 0;
    if (!st->has_raw) return cs_map_status_size(st, reduce_id);
    if (st->sizes_kind != CS_MAP_SIZES_HIGHLY_COMPRESSED)
        return cs_map_status_decompress_size(st->raw_blocks[reduce_id]);
    if (bitmap_has(st->blocks, reduce_id)) return 0;
    const cs_map_huge_block *h = find_huge(st, reduce_id);
    return h ? h->raw_size : st->raw_avg_size;
}

bool cs_map_status_size_agrees(const cs_map_status *st, int reduce_id, uint64_t len)
{
    if (!in_range(st, reduce_id)) return true;
    if (st->sizes_kind != CS_MAP_SIZES_HIGHLY_COMPRESSED)
        return cs_map_status_compress_size(len) == st->blocks[reduce_id];
    if (bitmap_has(st->blocks, reduce_id)) return len == 0;
    const cs_map_huge_block *h = find_huge(st, reduce_id);
    return h ? h->size == len : len > 0;
}

uint64_t cs_map_status_total_size(const cs_map_status *st)
{
    uint64_t total = 0;
    for (int r = 0; st && r < st->num_reduces; r++)
        total += cs_map_status_size(st, r);
    return total;
}

size_t cs_map_status_footprint(const cs_map_status *st)
{
    if (!st) return 0;
    return sizeof *st +
           (st->blocks ? cs_map_status_blocks_len(st->sizes_kind, st->num_reduces) : 0) +
           (st->raw_blocks ? (size_t)st->num_reduces : 0) + (size_t)st->num_huge * sizeof *st->huge;
}

int cs_map_status_validate(const cs_map_status *st, cs_error *err)
{
    const char *bad = NULL;
    if (st->num_reduces < 0)
        bad = "a negative reduce count";
    else if (st->sizes_kind != CS_MAP_SIZES_COMPRESSED &&
             st->sizes_kind != CS_MAP_SIZES_HIGHLY_COMPRESSED)
        bad = "an unknown kind of sizes";
    else if (st->num_reduces > 0 && !st->blocks)
        bad = "no sizes";
    else if (st->sizes_kind == CS_MAP_SIZES_COMPRESSED && st->num_huge)
        bad = "huge blocks in a compressed status";
    else if (st->num_huge < 0 || (st->num_huge > 0 && !st->huge))
        bad = "a bad huge block count";
    else if (st->has_raw && st->sizes_kind == CS_MAP_SIZES_COMPRESSED && st->num_reduces > 0 &&
             !st->raw_blocks)
        bad = "no raw sizes";
    else if (!st->has_raw && (st->raw_blocks || st->raw_avg_size))
        bad = "raw sizes without their flag";
    for (int r = 0; !bad && st->raw_blocks && r < st->num_reduces; r++)
        if ((st->raw_blocks[r] == 0) != (st->blocks[r] == 0))
            bad = "a raw size empty where the block is not, or the other way";
    for (int i = 0; !bad && i < st->num_huge; i++) {
        const cs_map_huge_block *h = &st->huge[i];
        if (h->reduce_id >= (uint32_t)st->num_reduces || h->size == 0 ||
            (st->has_raw && h->raw_size == 0) || bitmap_has(st->blocks, (int)h->reduce_id) ||
            (i > 0 && h->reduce_id <= st->huge[i - 1].reduce_id))
            bad = "a huge block out of order, out of range, empty or marked empty";
    }
    /* every non-empty block must read as non-empty: readers skip zero-size blocks */
    if (!bad && st->sizes_kind == CS_MAP_SIZES_HIGHLY_COMPRESSED && st->avg_size == 0) {
        int empty = 0;
        for (int r = 0; r < st->num_reduces; r++)
            empty += bitmap_has(st->blocks, r);
        if (empty + st->num_huge < st->num_reduces) bad = "non-empty blocks of average size 0";
    }
    if (!bad && st->sizes_kind == CS_MAP_SIZES_HIGHLY_COMPRESSED && st->has_raw &&
        st->raw_avg_size == 0) {
        int empty = 0;
        for (int r = 0; r < st->num_reduces; r++)
            empty += bitmap_has(st->blocks, r);
        if (empty + st->num_huge < st->num_reduces) bad = "non-empty blocks of raw size 0";
    }
    if (!bad) return 0;
    return cs_error_set(err, CS_EPROTO, "map status of shuffle %d map %d: %s", st->shuffle_id,
                        st->map_id, bad);
}

void cs_map_status_copy(cs_map_status *dst, const cs_map_status *src)
{
    *dst = *src;
    size_t n = cs_map_status_blocks_len(src->sizes_kind, src->num_reduces);
    dst->blocks = NULL;
    dst->raw_blocks = NULL;
    dst->huge = NULL;
    if (src->blocks && n) {
        dst->blocks = cs_xmalloc(n);
        memcpy(dst->blocks, src->blocks, n);
    }
    if (src->raw_blocks && src->num_reduces > 0) {
        dst->raw_blocks = cs_xmalloc((size_t)src->num_reduces);
        memcpy(dst->raw_blocks, src->raw_blocks, (size_t)src->num_reduces);
    }
    if (src->num_huge > 0) {
        dst->huge = cs_xmalloc((size_t)src->num_huge * sizeof *dst->huge);
        memcpy(dst->huge, src->huge, (size_t)src->num_huge * sizeof *dst->huge);
    }
}

void cs_map_status_free(cs_map_status *st)
{
    if (!st) return;
    free(st->blocks);
    free(st->raw_blocks);
    free(st->huge);
    st->blocks = NULL;
    st->raw_blocks = NULL;
    st->huge = NULL;
    st->num_huge = 0;
    st->has_raw = false;
    st->raw_avg_size = 0;
}
