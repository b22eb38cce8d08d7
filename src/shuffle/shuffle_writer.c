/*
 * shuffle_writer.c — the map-side shuffle writer (see shuffle.h): Spark's SortShuffleWriter,
 * reshaped for C.
 *
 * Without a combiner each reduce partition has its own open raw block; records are serialized
 * into it as they arrive, and a full block is lz4-compressed into an arena and chained to the
 * partition's block list. So every record is copied once and compressed once, memory holds
 * compressed bytes, and nothing needs sorting. The raw block size shrinks with many partitions
 * (budget / (8 * partitions), 4..64 KB) so open blocks stay a small part of the budget.
 * Without compression (local mode, or spark.shuffle.compress=false) a record bigger than the
 * block target (a SQL exchange's encoded batch) is written once, straight into the arena as a
 * stored block of its own; and at commit a partition's blocks go to the data file with writev
 * from the arena. Commit reports each block's stored and raw sizes (cs_map_status).
 * With a combiner the records go into an aggmap (hash table) whose entries carry their
 * partition; at spill/commit the entries are grouped by partition with a counting sort.
 *
 * A spill writes every partition's segment, in partition order, to one anonymous spill file and
 * remembers the segment offsets. Commit writes the data file partition by partition: the
 * partition's segments from each spill (copied as bytes: blocks are self-contained), then its
 * in-memory part; then the index; both under temp names renamed into place. With a combiner the
 * segments are sorted by (hash, key) and commit merges them instead (aggmerge.c), folding equal
 * keys with merge_combiners, so each key appears once per map output.
 * Called by the task runner (src/exec) for ShuffleMapTasks.
 */
#include "shuffle/shuffle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "records/recio.h"
#include "shuffle/aggmap.h"
#include "shuffle/aggmerge.h"
#include "shuffle/external_sort.h"
#include "shuffle/arena.h"
#include "shuffle/spill.h"

#define BLOCKS_CHUNK ((size_t)1 << 20)

typedef struct enc_block {
    uint8_t *ptr;
    uint32_t len;
    int32_t next;
} enc_block;

typedef struct part_stream {
    uint8_t *raw;
    uint32_t raw_len, raw_cap;
    int32_t head, tail; /* encoded blocks, -1 = none */
} part_stream;

typedef struct spill_run {
    int fd;
    uint64_t *offs; /* n + 1 segment offsets */
} spill_run;

struct shuffle_writer {
    shuffle_write_spec spec;
    int n;
    shuffle_divisor nmod; /* % n without a division */
    cs_task_memory *mem;
    cs_task_memory own_mem;
    bool combine;
    uint64_t rr;
    uint64_t *bound_prefix; /* RANGE: first 8 bytes of each bound (big-endian, zero-padded) */
    /* no combine */
    part_stream *parts;
    cs_arena blocks_arena;
    enc_block *blocks;
    size_t nblocks, bcap;
    int64_t raw_bytes;   /* raw block capacity, charged */
    int64_t block_bytes; /* blocks array, charged */
    uint32_t block_target;
    uint8_t *enc_tmp;
    size_t enc_cap;
    struct iovec *iov; /* write_mem_part's */
    int iov_cap;
    /* combine */
    aggmap map;
    uint64_t *hashes; /* of the batch being inserted (grown to the largest batch) */
    uint32_t *hparts;
    size_t hcap;
    /* spills */
    spill_run *spills;
    int nspills;
    uint64_t records;
    char tmp_data[4096], tmp_index[4096];
    bool committed;
};

/* cs_partitioner_get for RANGE, comparing cached bound prefixes first. */
static inline int range_partition(const shuffle_writer *w, const uint8_t *k, uint32_t klen)
{
    const cs_partitioner *p = w->spec.partitioner;
    uint64_t kp = cs_ext_key_prefix(k, klen);
    int lo = 0, hi = p->num_bounds;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        uint64_t bp = w->bound_prefix[mid];
        int c = bp < kp ? -1 : bp > kp;
        if (c == 0) c = cs_ext_key_compare(p->bounds[mid].ptr, p->bounds[mid].len, k, klen);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int n = w->n;
    int part = lo < n ? lo : n - 1;
    return p->ascending ? part : n - 1 - part;
}

static void charge(shuffle_writer *w, int64_t *field, int64_t delta)
{
    *field += delta;
    if (delta > 0)
        cs_task_memory_acquire(w->mem, delta);
    else if (delta < 0)
        cs_task_memory_release(w->mem, -delta);
}

/* The blocks arena uses chunks of several blocks, so blocks are encoded in place (seal_block)
 * rather than through a temporary buffer; and chunks of at most 1 MB, which come from the
 * malloc heap and are reused by the next task, where mmap'd ones (>= 2 MB) are fresh memory for
 * every task: on a VM first-touch faults of fresh (huge) pages took up to half the CPU of the
 * 1 GB all-to-all map stage. */
static void blocks_arena_prime(shuffle_writer *w)
{
    cs_arena *a = &w->blocks_arena;
    if (a->max_size > BLOCKS_CHUNK) a->max_size = BLOCKS_CHUNK;
    a->next_size = a->max_size;
}

shuffle_writer *cs_shuffle_writer_new(const shuffle_write_spec *spec, cs_error *err)
{
    if (!spec || !spec->partitioner || spec->partitioner->num_partitions <= 0 || !spec->dir) {
        cs_error_set(err, CS_EINVAL,
                     "shuffle writer: a partitioner with >= 1 partitions and a "
                     "directory are required");
        return NULL;
    }
    const cs_partitioner *p = spec->partitioner;
    if (p->kind == PART_RANGE) {
        /* fewer bounds than partitions - 1 is fine (a sample with few distinct keys): the last
         * partitions then stay empty */
        if (p->num_bounds < 0 || p->num_bounds > p->num_partitions - 1 ||
            (p->num_bounds > 0 && !p->bounds)) {
            cs_error_set(err, CS_EINVAL,
                         "shuffle writer: range partitioner with %d partitions "
                         "takes at most %d bounds, got %d",
                         p->num_partitions, p->num_partitions - 1, p->num_bounds);
            return NULL;
        }
        for (int i = 1; i < p->num_bounds; i++) {
            if (cs_ext_key_compare(p->bounds[i - 1].ptr, p->bounds[i - 1].len, p->bounds[i].ptr,
                                   p->bounds[i].len) > 0) {
                cs_error_set(err, CS_EINVAL,
                             "shuffle writer: range bounds are not ascending "
                             "(bound %d > bound %d)",
                             i - 1, i);
                return NULL;
            }
        }
    }
    if (spec->combiner && (!spec->combiner->merge_value || !spec->combiner->merge_combiners)) {
        cs_error_set(err, CS_EINVAL, "shuffle writer: combiner without merge functions");
        return NULL;
    }
    shuffle_writer *w = cs_xcalloc(1, sizeof *w);
    w->spec = *spec;
    w->n = p->num_partitions;
    w->nmod = shuffle_divisor_make((uint64_t)w->n);
    cs_task_memory_init(&w->own_mem, 0);
    w->mem = spec->mem ? spec->mem : &w->own_mem;
    w->combine = spec->combiner != NULL;
    w->rr = (uint64_t)cs_shuffle_round_robin_start(spec->map_id, w->n);
    if (p->kind == PART_RANGE && p->num_bounds > 0) {
        w->bound_prefix = cs_xmalloc((size_t)p->num_bounds * sizeof *w->bound_prefix);
        for (int i = 0; i < p->num_bounds; i++)
            w->bound_prefix[i] = cs_ext_key_prefix(p->bounds[i].ptr, p->bounds[i].len);
    }
    if (w->combine) {
        cs_aggmap_init(&w->map, spec->combiner, w->mem);
        if (p->kind == PART_HASH) w->map.part_of_hash = &w->nmod;
    } else {
        w->parts = cs_xcalloc((size_t)w->n, sizeof *w->parts);
        for (int i = 0; i < w->n; i++)
            w->parts[i].head = w->parts[i].tail = -1;
        cs_arena_init(&w->blocks_arena, w->mem);
        blocks_arena_prime(w);
        int64_t t = RECIO_BLOCK_TARGET;
        if (w->mem->budget > 0) {
            t = w->mem->budget / (8 * (int64_t)w->n);
            if (t > RECIO_BLOCK_TARGET) t = RECIO_BLOCK_TARGET;
            if (t < 4096) t = 4096;
        }
        w->block_target = (uint32_t)t;
    }
    return w;
}

int cs_shuffle_writer_spills(const shuffle_writer *w)
{
    return w->nspills;
}

/* Appends the encoded block dst (len bytes, in the arena) to partition p's list. */
static void chain_block(shuffle_writer *w, int p, uint8_t *dst, size_t len)
{
    part_stream *ps = &w->parts[p];
    if (w->nblocks == w->bcap) {
        size_t nc = w->bcap ? w->bcap * 2 : 256;
        w->blocks = cs_xrealloc(w->blocks, nc * sizeof *w->blocks);
        charge(w, &w->block_bytes, (int64_t)((nc - w->bcap) * sizeof *w->blocks));
        w->bcap = nc;
    }
    int32_t id = (int32_t)w->nblocks++;
    w->blocks[id].ptr = dst;
    w->blocks[id].len = (uint32_t)len;
    w->blocks[id].next = -1;
    if (ps->tail >= 0)
        w->blocks[ps->tail].next = id;
    else
        ps->head = id;
    ps->tail = id;
}

/* Encodes partition p's open raw block and chains it to the partition's list. */
static void seal_block(shuffle_writer *w, int p)
{
    part_stream *ps = &w->parts[p];
    if (!ps->raw_len) return;
    size_t bound = cs_recio_block_bound(ps->raw_len);
    cs_arena *a = &w->blocks_arena;
    uint8_t *dst;
    size_t len;
    if (bound <= a->next_size / 4) {
        /* lands in the current chunk: encoded in place with room for the worst case, the
         * unused end given back (no copy through a temporary buffer) */
        dst = arena_alloc(a, bound);
        len = cs_recio_encode_block(ps->raw, ps->raw_len, w->spec.compress, w->spec.checksum, dst);
        arena_shrink_last(a, dst, bound, len);
    } else {
        /* a block bigger than a quarter chunk gets a chunk of its own, sized to fit */
        if (bound > w->enc_cap) {
            free(w->enc_tmp);
            w->enc_tmp = cs_xmalloc(bound);
            w->enc_cap = bound;
        }
        len = cs_recio_encode_block(ps->raw, ps->raw_len, w->spec.compress, w->spec.checksum,
                                    w->enc_tmp);
        dst = arena_alloc(a, len);
        memcpy(dst, w->enc_tmp, len);
    }
    chain_block(w, p, dst, len);
    ps->raw_len = 0;
}

/* A record that makes a block of its own (bigger than the block target: a SQL exchange's
 * encoded batch), stored without compression: written straight into the arena as a stored block
 * (header, the record's varints, key and value), not copied through the raw buffer first. */
static void store_record_block(shuffle_writer *w, int p, const uint8_t *kv, uint32_t klen,
                               uint32_t vlen, size_t rs)
{
    uint8_t *dst = arena_alloc(&w->blocks_arena, RECIO_HEADER_LEN + rs);
    uint8_t *o = dst + RECIO_HEADER_LEN;
    o += recio_put_header(o, klen, vlen);
    memcpy(o, kv, (size_t)klen + vlen);
    size_t len = cs_recio_seal_stored_block(dst, (uint32_t)rs, w->spec.checksum);
    chain_block(w, p, dst, len);
}

static int64_t writer_memory(const shuffle_writer *w)
{
    if (w->combine) return aggmap_memory(&w->map);
    return w->blocks_arena.bytes + w->raw_bytes + w->block_bytes;
}

/* Writes partition p's in-memory part (no combine) to rw: its blocks handed over together
 * (written from the arena with writev when they are large, not copied to rw's buffer). */
static int write_mem_part(shuffle_writer *w, recio_writer *rw, int p, cs_error *err)
{
    seal_block(w, p);
    int n = 0;
    for (int32_t b = w->parts[p].head; b >= 0; b = w->blocks[b].next) {
        if (n == w->iov_cap) {
            w->iov_cap = w->iov_cap ? 2 * w->iov_cap : 64;
            w->iov = cs_xrealloc(w->iov, sizeof *w->iov * (size_t)w->iov_cap);
        }
        w->iov[n++] = (struct iovec){w->blocks[b].ptr, w->blocks[b].len};
    }
    return n ? cs_recio_writer_add_raw_iov(rw, w->iov, n, err) : 0;
}

static void reset_mem_parts(shuffle_writer *w)
{
    for (int i = 0; i < w->n; i++) {
        part_stream *ps = &w->parts[i];
        free(ps->raw);
        ps->raw = NULL;
        ps->raw_len = ps->raw_cap = 0;
        ps->head = ps->tail = -1;
    }
    charge(w, &w->raw_bytes, -w->raw_bytes);
    free(w->blocks);
    w->blocks = NULL;
    w->nblocks = w->bcap = 0;
    charge(w, &w->block_bytes, -w->block_bytes);
    cs_arena_reset(&w->blocks_arena);
    blocks_arena_prime(w);
    free(w->enc_tmp);
    w->enc_tmp = NULL;
    w->enc_cap = 0;
}

static int spill(shuffle_writer *w, cs_error *err)
{
    int fd = cs_spill_file_open(w->spec.dir, err);
    if (fd < 0) return fd;
    uint64_t *offs = cs_xmalloc(((size_t)w->n + 1) * sizeof *offs);
    recio_writer *rw = cs_recio_writer_new(fd, w->spec.compress, 0);
    cs_recio_writer_set_checksum(rw, w->spec.checksum);
    int rc = 0;
    if (w->combine) {
        /* each partition's segment sorted by (hash, key), so commit can merge spills */
        uint32_t *order;
        size_t *starts;
        cs_aggmap_sort_by_hash(&w->map);
        cs_aggmap_group_by_part(&w->map, w->n, &order, &starts);
        for (int p = 0; p < w->n && rc == 0; p++) {
            offs[p] = cs_recio_writer_offset(rw);
            for (size_t i = starts[p]; i < starts[p + 1] && rc == 0; i++) {
                if (i + 16 < starts[p + 1]) __builtin_prefetch(w->map.ents[order[i + 16]]);
                const aggmap_entry *e = w->map.ents[order[i]];
                rc = cs_recio_writer_add(rw, aggmap_key(e), e->klen, e->vptr, e->vlen, err);
            }
            if (rc == 0) rc = cs_recio_writer_end_block(rw, err);
        }
        free(order);
        free(starts);
    } else {
        for (int p = 0; p < w->n && rc == 0; p++) {
            offs[p] = cs_recio_writer_offset(rw);
            rc = write_mem_part(w, rw, p, err);
        }
    }
    if (rc == 0) rc = cs_recio_writer_flush(rw, err);
    offs[w->n] = cs_recio_writer_offset(rw);
    cs_recio_writer_free(rw);
    if (rc < 0) {
        close(fd);
        free(offs);
        return rc;
    }
    w->spills = cs_xrealloc(w->spills, ((size_t)w->nspills + 1) * sizeof *w->spills);
    w->spills[w->nspills].fd = fd;
    w->spills[w->nspills].offs = offs;
    w->nspills++;
    cs_task_memory_note_spill(w->mem, writer_memory(w), (int64_t)offs[w->n]);
    if (w->combine)
        cs_aggmap_clear(&w->map);
    else
        reset_mem_parts(w);
    return 0;
}

static inline int should_spill(const shuffle_writer *w)
{
    return cs_task_memory_over(w->mem) && writer_memory(w) >= cs_task_memory_spill_floor(w->mem);
}

/* Map-side combine: the hashes and partitions of the whole batch first, then prefetching batch
 * inserts of COMBINE_CHUNK records (the prefetch pipeline runs on across chunks); the spill
 * check runs between chunks. */
#define COMBINE_CHUNK 256

/* The keys' hashes, with XXH3 inlined into the loop (the compiler would otherwise call it once
 * per record: it is large because of its long-input paths, never taken by short keys). */
static __attribute__((flatten)) void hash_keys(const cs_batch *b, uint64_t *hashes)
{
    const uint8_t *data = b->data;
    const cs_rec *recs = b->recs;
    for (size_t i = 0; i < b->n; i++)
        hashes[i] = shuffle_key_hash((cspark_slice){data + recs[i].off, recs[i].klen});
}

static int write_combine(shuffle_writer *w, const cs_batch *b, cs_error *err)
{
    const cs_partitioner *pt = w->spec.partitioner;
    const shuffle_divisor nmod = w->nmod;
    if (b->n > w->hcap) {
        free(w->hashes);
        free(w->hparts);
        w->hcap = b->n;
        w->hashes = cs_xmalloc(w->hcap * sizeof *w->hashes);
        w->hparts = cs_xmalloc(w->hcap * sizeof *w->hparts);
    }
    uint64_t *hashes = w->hashes;
    uint32_t *parts = w->hparts;
    if (pt->kind == PART_HASH) {
        /* the partition follows from the hash: the map computes it for new keys only */
        hash_keys(b, hashes);
        parts = NULL;
    } else {
        for (size_t i = 0; i < b->n; i++) {
            const cs_rec *r = &b->recs[i];
            cspark_slice key = {b->data + r->off, r->klen};
            uint64_t h = shuffle_key_hash(key);
            hashes[i] = h;
            if (pt->kind == PART_ROUND_ROBIN)
                parts[i] = (uint32_t)shuffle_mod(&nmod, w->rr++);
            else if (w->bound_prefix)
                parts[i] = (uint32_t)range_partition(w, key.ptr, key.len);
            else
                parts[i] = (uint32_t)cs_partitioner_get(pt, key, h);
        }
    }
    for (size_t from = 0; from < b->n; from += COMBINE_CHUNK) {
        size_t to = from + COMBINE_CHUNK < b->n ? from + COMBINE_CHUNK : b->n;
        cs_aggmap_insert_batch(&w->map, b, from, to, b->n, hashes, parts, false);
        if (should_spill(w)) {
            int rc = spill(w, err);
            if (rc < 0) return rc;
        }
    }
    return 0;
}

int cs_shuffle_writer_write(shuffle_writer *w, const cs_batch *b, cs_error *err)
{
    if (w->committed) return cs_error_set(err, CS_EINVAL, "shuffle writer already committed");
    if (w->combine) return write_combine(w, b, err);
    const cs_partitioner *pt = w->spec.partitioner;
    const shuffle_divisor nmod = w->nmod;
    for (size_t i = 0; i < b->n; i++) {
        const cs_rec *r = &b->recs[i];
        const uint8_t *k = b->data + r->off;
        int p;
        if (pt->kind == PART_HASH) {
            cspark_slice key = {k, r->klen};
            p = (int)shuffle_mod(&nmod, shuffle_key_hash(key));
        } else if (pt->kind == PART_ROUND_ROBIN) {
            p = (int)shuffle_mod(&nmod, w->rr++);
        } else if (w->bound_prefix) {
            p = range_partition(w, k, r->klen);
        } else {
            cspark_slice key = {k, r->klen};
            p = cs_partitioner_get(pt, key, 0);
        }
        part_stream *ps = &w->parts[p];
        size_t rs = recio_record_size(r->klen, r->vlen);
        if (rs > RECIO_MAX_BLOCK)
            return cs_error_set(err, CS_EINVAL,
                                "shuffle record of %zu bytes exceeds the %u byte "
                                "limit",
                                rs, RECIO_MAX_BLOCK);
        if (ps->raw_len > 0 && ps->raw_len + rs > w->block_target) seal_block(w, p);
        if (rs > w->block_target && !w->spec.compress &&
            RECIO_HEADER_LEN + rs <= w->blocks_arena.next_size / 4) {
            store_record_block(w, p, k, r->klen, r->vlen, rs);
            w->records++;
            if (should_spill(w)) {
                int rc = spill(w, err);
                if (rc < 0) return rc;
            }
            continue;
        }
        if (ps->raw_len + rs > ps->raw_cap) {
            size_t c = ps->raw_cap ? ps->raw_cap : 1024;
            while (c < ps->raw_len + rs)
                c *= 2;
            ps->raw = cs_xrealloc(ps->raw, c);
            charge(w, &w->raw_bytes, (int64_t)(c - ps->raw_cap));
            ps->raw_cap = (uint32_t)c;
        }
        uint8_t *o = ps->raw + ps->raw_len;
        o += recio_put_header(o, r->klen, r->vlen);
        memcpy(o, k, (size_t)r->klen + r->vlen);
        ps->raw_len += (uint32_t)rs;
        w->records++;
        if (should_spill(w)) {
            int rc = spill(w, err);
            if (rc < 0) return rc;
        }
    }
    return 0;
}

/* Copies the blocks of a spill file's range to rw without decoding them, each one's checksum
 * verified on the way (a spill damaged on disk fails the task instead of reaching the map
 * output). */
static int copy_range(int from, uint64_t off, uint64_t len, recio_writer *rw, cs_error *err)
{
    if (len == 0) return 0;
    recio_reader *rd = cs_recio_reader_fd(from, off, len, RECIO_WRITE_BUF);
    const uint8_t *blk;
    size_t n;
    int rc;
    while ((rc = cs_recio_reader_next_raw(rd, &blk, &n, err)) > 0) {
        rc = cs_recio_writer_add_raw(rw, blk, n, err);
        if (rc < 0) break;
    }
    cs_recio_reader_free(rd);
    if (rc < 0) cs_error_prefix(err, "spill file");
    return rc;
}

/* Combine with spills: partition p's segments of every spill and its in-memory entries, all
 * sorted by (hash, key), merged so that each key appears once in the map output. */
static int merge_combined_part(shuffle_writer *w, recio_writer *rw, int p, const uint32_t *order,
                               const size_t *starts, cs_error *err)
{
    size_t bufsz = cs_spill_merge_buffer(w->mem, w->nspills + 1);
    agg_merger *m = cs_agg_merger_new(w->spec.combiner);
    for (int s = 0; s < w->nspills; s++) {
        const spill_run *sr = &w->spills[s];
        if (sr->offs[p + 1] > sr->offs[p])
            cs_agg_merger_add_run(
                m, cs_recio_reader_fd(sr->fd, sr->offs[p], sr->offs[p + 1] - sr->offs[p], bufsz));
    }
    cs_agg_merger_add_mem(m, w->map.ents, order + starts[p], starts[p + 1] - starts[p]);
    int rc;
    cspark_slice k, v;
    while ((rc = cs_agg_merger_next(m, &k, &v, err)) > 0) {
        rc = cs_recio_writer_add(rw, k.ptr, k.len, v.ptr, v.len, err);
        if (rc < 0) break;
    }
    cs_agg_merger_free(m);
    if (rc < 0) return rc;
    return cs_recio_writer_end_block(rw, err);
}

int cs_shuffle_writer_commit(shuffle_writer *w, cs_map_status *out, cs_error *err)
{
    if (w->committed) return cs_error_set(err, CS_EINVAL, "shuffle writer already committed");
    char data[4096], index[4096];
    cs_shuffle_file_paths(w->spec.dir, w->spec.shuffle_id, w->spec.map_id, data, index,
                          sizeof data);
    uint64_t *sizes = cs_xcalloc((size_t)w->n, sizeof *sizes);
    uint64_t *raw = cs_xcalloc((size_t)w->n, sizeof *raw); /* before stream compression */
    uint32_t *order = NULL;
    size_t *starts = NULL;
    recio_writer *rw = NULL;
    int ifd = -1, rc = 0;
    int fd = cs_temp_file_beside(w->tmp_data, sizeof w->tmp_data, data, err);
    if (fd < 0) {
        rc = fd;
        goto done;
    }
    rw = cs_recio_writer_new(fd, w->spec.compress, 0);
    cs_recio_writer_set_checksum(rw, w->spec.checksum);
    if (w->combine) {
        if (w->nspills) cs_aggmap_sort_by_hash(&w->map);
        cs_aggmap_group_by_part(&w->map, w->n, &order, &starts);
    }
    for (int p = 0; p < w->n; p++) {
        uint64_t start = cs_recio_writer_offset(rw), raw_start = cs_recio_writer_raw_bytes(rw);
        if (w->combine && w->nspills) {
            rc = merge_combined_part(w, rw, p, order, starts, err);
            if (rc < 0) goto done;
            sizes[p] = cs_recio_writer_offset(rw) - start;
            raw[p] = cs_recio_writer_raw_bytes(rw) - raw_start;
            continue;
        }
        for (int s = 0; s < w->nspills; s++) {
            const spill_run *sr = &w->spills[s];
            rc = copy_range(sr->fd, sr->offs[p], sr->offs[p + 1] - sr->offs[p], rw, err);
            if (rc < 0) goto done;
        }
        if (w->combine) {
            for (size_t i = starts[p]; i < starts[p + 1]; i++) {
                /* entries of one partition are scattered over the arena: prefetched ahead */
                if (i + 16 < starts[p + 1]) __builtin_prefetch(w->map.ents[order[i + 16]]);
                const aggmap_entry *e = w->map.ents[order[i]];
                rc = cs_recio_writer_add(rw, aggmap_key(e), e->klen, e->vptr, e->vlen, err);
                if (rc < 0) goto done;
            }
            rc = cs_recio_writer_end_block(rw, err);
        } else {
            rc = write_mem_part(w, rw, p, err);
        }
        if (rc < 0) goto done;
        sizes[p] = cs_recio_writer_offset(rw) - start;
        raw[p] = cs_recio_writer_raw_bytes(rw) - raw_start;
    }
    rc = cs_recio_writer_flush(rw, err);
    if (rc < 0) goto done;
    if (w->combine) w->records = cs_recio_writer_records(rw);
    uint64_t total = cs_recio_writer_offset(rw);
    if (close(fd) < 0) {
        fd = -1;
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", w->tmp_data, strerror(errno));
        goto done;
    }
    fd = -1;

    /* index */
    ifd = cs_temp_file_beside(w->tmp_index, sizeof w->tmp_index, index, err);
    if (ifd < 0) {
        rc = ifd;
        goto done;
    }
    size_t ilen = ((size_t)w->n + 1) * 8;
    uint8_t *ib = cs_xmalloc(ilen);
    uint64_t off = 0;
    for (int p = 0; p <= w->n; p++) {
        for (int j = 0; j < 8; j++)
            ib[p * 8 + j] = (uint8_t)(off >> (56 - 8 * j));
        if (p < w->n) off += sizes[p];
    }
    size_t done_n = 0;
    while (done_n < ilen) {
        ssize_t k = write(ifd, ib + done_n, ilen - done_n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done_n += (size_t)k;
    }
    free(ib);
    if (done_n != ilen || close(ifd) < 0) {
        ifd = -1;
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", w->tmp_index, strerror(errno));
        goto done;
    }
    ifd = -1;
    if (rename(w->tmp_data, data) < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot rename %s to %s: %s", w->tmp_data, data,
                          strerror(errno));
        goto done;
    }
    w->tmp_data[0] = '\0';
    if (rename(w->tmp_index, index) < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot rename %s to %s: %s", w->tmp_index, index,
                          strerror(errno));
        unlink(data);
        goto done;
    }
    w->tmp_index[0] = '\0';
    w->committed = true;
    out->shuffle_id = w->spec.shuffle_id;
    out->map_id = w->spec.map_id;
    cs_map_status_set_sizes(out, sizes, w->n, w->spec.status_opts);
    cs_map_status_set_raw_sizes(out, raw);
    out->records_written = w->records;
    out->bytes_written = total;
done:
    if (fd >= 0) close(fd);
    if (ifd >= 0) close(ifd);
    cs_recio_writer_free(rw);
    free(order);
    free(starts);
    free(sizes);
    free(raw);
    if (rc < 0) {
        if (w->tmp_data[0]) unlink(w->tmp_data);
        if (w->tmp_index[0]) unlink(w->tmp_index);
        w->tmp_data[0] = w->tmp_index[0] = '\0';
    }
    return rc;
}

void cs_shuffle_writer_free(shuffle_writer *w)
{
    if (!w) return;
    if (w->tmp_data[0]) unlink(w->tmp_data);
    if (w->tmp_index[0]) unlink(w->tmp_index);
    for (int s = 0; s < w->nspills; s++) {
        close(w->spills[s].fd);
        free(w->spills[s].offs);
    }
    free(w->spills);
    free(w->iov);
    free(w->bound_prefix);
    if (w->combine) {
        cs_aggmap_free(&w->map);
        free(w->hashes);
        free(w->hparts);
    } else {
        reset_mem_parts(w);
        free(w->parts);
    }
    free(w);
}
