/*
 * test_shuffle.c — partitioners, and the shuffle writer + reader for hash / range / round-robin
 * partitioning, with and without map-side combine, with budgets tiny enough to force several
 * spills; results are checked against in-memory references computed here. Also: a retried map
 * replaces the previous attempt, aborted writers leave no files, zero-size segments are not
 * fetched, corrupt or missing outputs report the failed map, a flipped bit anywhere in a data
 * file is a fetch failure (block checksums), and a damaged spill file fails the commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "records/batch.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"
#include "spill_damage.h"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-shuffle-test-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static void rm_dir_files(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
}

static int teardown(void **state)
{
    (void)state;
    rm_dir_files();
    rmdir(g_dir);
    return 0;
}

/* Files in g_dir that are not committed shuffle outputs. */
static int stray_files(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t l = strlen(e->d_name);
        bool ok = strncmp(e->d_name, "shuffle_", 8) == 0 &&
                  ((l > 5 && strcmp(e->d_name + l - 5, ".data") == 0) ||
                   (l > 6 && strcmp(e->d_name + l - 6, ".index") == 0));
        if (!ok) n++;
    }
    closedir(d);
    return n;
}

void test_sum_i64(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    (void)tc;
    uint8_t o[8];
    cspark_i64_encode(cspark_slice_i64((cspark_slice){acc->ptr, acc->len}) + cspark_slice_i64(v),
                      o);
    cspark_value_set(acc, o, 8);
}

static const cs_aggregator SUM = {NULL, test_sum_i64, test_sum_i64, NULL, 0, false, NULL};

/* Map m's input: n records, key "<g_key_prefix>k<j>" for j in [0, nkeys), value = i64(i). */
static const char *g_key_prefix = "";
static int g_big_every; /* > 0: every so many records gets a value of ~70 KB */

static void make_input(cs_batch *b, int m, int n, int nkeys)
{
    for (int i = 0; i < n; i++) {
        char k[32];
        int j = (int)(((uint64_t)(i + m * 7919) * 2654435761u) % (uint64_t)nkeys);
        int kl = snprintf(k, sizeof k, "%sk%d", g_key_prefix, j);
        uint8_t v[8];
        cspark_i64_encode(i + m * 1000000, v);
        if (g_big_every && i % g_big_every == 0) { /* a record over the block target */
            static uint8_t big[80000];
            uint32_t len = 70000 + (uint32_t)(i % 997);
            memcpy(big, v, 8);
            uint64_t z = (uint64_t)i * 2654435761u + 1; /* incompressible: LZ4 keeps the size */
            for (uint32_t x = 8; x < len; x++) {
                z = z * 6364136223846793005ull + 1442695040888963407ull;
                big[x] = (uint8_t)(z >> 56);
            }
            cs_batch_append_record(b, k, (uint32_t)kl, big, len);
            continue;
        }
        cs_batch_append_record(b, k, (uint32_t)kl, v, 8);
    }
}

static int cmp_rec(const void *a, const void *b)
{
    const cspark_record *x = a, *y = b;
    uint32_t n = x->key.len < y->key.len ? x->key.len : y->key.len;
    int c = memcmp(x->key.ptr, y->key.ptr, n);
    if (c) return c;
    if (x->key.len != y->key.len) return x->key.len < y->key.len ? -1 : 1;
    n = x->value.len < y->value.len ? x->value.len : y->value.len;
    c = memcmp(x->value.ptr, y->value.ptr, n);
    if (c) return c;
    return (int)x->value.len - (int)y->value.len;
}

static cspark_record *sorted_recs(const cs_batch *b)
{
    cspark_record *r = malloc((b->n + 1) * sizeof *r);
    for (size_t i = 0; i < b->n; i++)
        r[i] = batch_get(b, i);
    qsort(r, b->n, sizeof *r, cmp_rec);
    return r;
}

static void assert_same_multiset(const cs_batch *a, const cs_batch *b)
{
    assert_int_equal(a->n, b->n);
    cspark_record *x = sorted_recs(a), *y = sorted_recs(b);
    for (size_t i = 0; i < a->n; i++)
        assert_int_equal(cmp_rec(&x[i], &y[i]), 0);
    free(x);
    free(y);
}

/* Sums values by key (the reduce side of a combine), output sorted by key. */
static void fold_by_key(const cs_batch *in, cs_batch *out)
{
    cspark_record *r = sorted_recs(in);
    for (size_t i = 0; i < in->n;) {
        size_t j = i;
        int64_t s = 0;
        while (j < in->n && r[j].key.len == r[i].key.len &&
               memcmp(r[j].key.ptr, r[i].key.ptr, r[i].key.len) == 0)
            s += cspark_slice_i64(r[j++].value);
        uint8_t v[8];
        cspark_i64_encode(s, v);
        cs_batch_append_record(out, r[i].key.ptr, r[i].key.len, v, 8);
        i = j;
    }
    free(r);
}

static int ref_partition(const cs_partitioner *p, cspark_record r, int idx_in_map, int map_id)
{
    int n = p->num_partitions;
    if (p->kind == PART_HASH) return (int)(XXH3_64bits(r.key.ptr, r.key.len) % (uint64_t)n);
    if (p->kind == PART_ROUND_ROBIN)
        return (cs_shuffle_round_robin_start(map_id, n) + idx_in_map) % n;
    int part = 0; /* linear scan: first bound >= key */
    while (part < p->num_bounds) {
        cspark_slice b = p->bounds[part];
        uint32_t m = b.len < r.key.len ? b.len : r.key.len;
        int c = memcmp(b.ptr, r.key.ptr, m);
        if (c > 0 || (c == 0 && b.len >= r.key.len)) break;
        part++;
    }
    return p->ascending ? part : n - 1 - part;
}

static int fetch_count;
static int counting_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                          size_t *len, cs_error *err)
{
    fetch_count++;
    shuffle_block_source s = cs_shuffle_local_source(arg);
    return s.fetch(s.arg, st, reduce_id, out, len, err);
}

static int counting_open(void *arg, const cs_map_status *st, int reduce_id, int *fd, uint64_t *off,
                         uint64_t *len, cs_error *err)
{
    fetch_count++;
    shuffle_block_source s = cs_shuffle_local_source(arg);
    return s.open_range(s.arg, st, reduce_id, fd, off, len, err);
}

/* Writes NMAPS map outputs with partitioner p (and combiner), then reads every reduce partition
 * and checks it against the reference. Returns total spills. */
#define NMAPS 3
static int run_shuffle(const cs_partitioner *p, const cs_aggregator *comb, bool compress,
                       int64_t budget, int nrec, int nkeys)
{
    int n = p->num_partitions;
    cs_map_status st[NMAPS];
    const cs_map_status *stp[NMAPS];
    cs_batch expect[16];
    for (int r = 0; r < n; r++)
        cs_batch_init(&expect[r]);
    int spills = 0;
    cs_error err = {0};
    for (int m = 0; m < NMAPS; m++) {
        cs_task_memory mem;
        cs_task_memory_init(&mem, budget);
        shuffle_write_spec spec = {.shuffle_id = 4,
                                   .map_id = m,
                                   .attempt_id = m,
                                   .partitioner = p,
                                   .combiner = comb,
                                   .compress = compress,
                                   .checksum = m % 2 ? CS_CHECKSUM_XXH3 : CS_CHECKSUM_CRC32C,
                                   .dir = g_dir,
                                   .mem = &mem};
        shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
        assert_non_null(w);
        cs_batch in;
        cs_batch_init(&in);
        make_input(&in, m, nrec, nkeys);
        for (size_t i = 0; i < in.n; i++) {
            cspark_record r = batch_get(&in, i);
            int part = ref_partition(p, r, (int)i, m);
            assert_int_equal(part,
                             p->kind == PART_ROUND_ROBIN
                                 ? part
                                 : cs_partitioner_get(p, r.key, XXH3_64bits(r.key.ptr, r.key.len)));
            cs_batch_append_record(&expect[part], r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        }
        /* feed in slices of 1000 records */
        for (size_t i = 0; i < in.n; i += 1000) {
            cs_batch part;
            cs_batch_init(&part);
            for (size_t j = i; j < in.n && j < i + 1000; j++) {
                cspark_record r = batch_get(&in, j);
                cs_batch_append_record(&part, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
            }
            assert_int_equal(cs_shuffle_writer_write(w, &part, &err), 0);
            cs_batch_free(&part);
        }
        spills += cs_shuffle_writer_spills(w);
        if (getenv("SHUFFLE_TEST_VERBOSE"))
            fprintf(stderr, "map %d spills %d peak %lld\n", m, cs_shuffle_writer_spills(w),
                    (long long)mem.peak);
        assert_int_equal(mem.spill_count, cs_shuffle_writer_spills(w));
        assert_int_equal(cs_shuffle_writer_commit(w, &st[m], &err), 0);
        assert_int_equal(st[m].num_reduces, n);
        assert_int_equal(st[m].map_id, m);
        if (!comb) assert_int_equal(st[m].records_written, (uint64_t)nrec);
        cs_shuffle_writer_free(w);
        assert_true(mem.used == 0);
        if (budget > 0) assert_true(mem.peak < 2 * budget);
        /* index agrees with the status */
        uint64_t total = 0;
        for (int r = 0; r < n; r++) {
            uint64_t off, len;
            assert_int_equal(cs_shuffle_index_read(g_dir, 4, m, r, &off, &len, &err), 0);
            assert_int_equal(off, total);
            assert_true(cs_map_status_size_agrees(&st[m], r, len));
            assert_int_equal(len == 0, cs_map_status_block_empty(&st[m], r));
            total += len;
        }
        assert_int_equal(total, st[m].bytes_written);
        stp[m] = &st[m];
        cs_batch_free(&in);
    }
    assert_int_equal(stray_files(), 0);
    for (int r = 0; r < n; r++) {
        /* even partitions: whole-segment fetch; odd: streamed file ranges */
        shuffle_block_source src = {counting_fetch, g_dir, r % 2 ? counting_open : NULL};
        fetch_count = 0;
        shuffle_reader *rd = cs_shuffle_reader_new(stp, NMAPS, r, &src, &err);
        assert_non_null(rd);
        cs_batch got, all;
        cs_batch_init(&got);
        cs_batch_init(&all);
        int rc, failed = -1;
        while ((rc = cs_shuffle_reader_next(rd, &got, &failed, &err)) == 1) {
            cs_batch_append_batch(&all, &got);
            cs_batch_reset(&got);
        }
        assert_int_equal(rc, 0);
        cs_shuffle_reader_free(rd);
        int nonempty = 0;
        for (int m = 0; m < NMAPS; m++)
            nonempty += !cs_map_status_block_empty(&st[m], r);
        assert_int_equal(fetch_count, nonempty);
        /* views of the blocks (no copy) hold the same records in the same order */
        {
            shuffle_reader *rv = cs_shuffle_reader_new(stp, NMAPS, r, &src, &err);
            cs_batch seen;
            cs_batch_init(&seen);
            const cs_batch *v;
            while ((rc = cs_shuffle_reader_next_view(rv, &v, &failed, &err)) == 1) {
                assert_true(v->n > 0);
                cs_batch_append_batch(&seen, v);
            }
            assert_int_equal(rc, 0);
            cs_shuffle_reader_free(rv);
            assert_int_equal(seen.n, all.n);
            for (size_t i = 0; i < seen.n; i++) {
                cspark_record x = batch_get(&seen, i), y = batch_get(&all, i);
                assert_int_equal(x.key.len, y.key.len);
                assert_int_equal(x.value.len, y.value.len);
                assert_memory_equal(x.key.ptr, y.key.ptr, x.key.len);
                assert_memory_equal(x.value.ptr, y.value.ptr, x.value.len);
            }
            cs_batch_free(&seen);
        }
        if (comb) {
            cs_batch a, b;
            cs_batch_init(&a);
            cs_batch_init(&b);
            fold_by_key(&all, &a);
            fold_by_key(&expect[r], &b);
            assert_same_multiset(&a, &b);
            /* spills of a combining writer are merged: a key at most once per map output */
            assert_true(all.n <= (size_t)NMAPS * b.n);
            cs_batch_free(&a);
            cs_batch_free(&b);
        } else {
            assert_same_multiset(&all, &expect[r]);
        }
        cs_batch_free(&got);
        cs_batch_free(&all);
        cs_batch_free(&expect[r]);
    }
    for (int m = 0; m < NMAPS; m++)
        cs_map_status_free(&st[m]);
    rm_dir_files();
    return spills;
}

static void test_partitioners(void **state)
{
    (void)state;
    cs_partitioner h = {PART_HASH, 7, NULL, 0, true};
    for (int i = 0; i < 1000; i++) {
        /* not 16 bytes: gcc -O3 cannot see the key is short, and warns of XXH3's longer paths */
        char k[256];
        int kl = snprintf(k, sizeof k, "key%d", i);
        uint64_t x = XXH3_64bits(k, (size_t)kl);
        cspark_slice s = {(const uint8_t *)k, (uint32_t)kl};
        assert_int_equal(shuffle_key_hash(s), x);
        assert_int_equal(cs_partitioner_get(&h, s, x), (int)(x % 7));
    }
    cspark_slice bounds[3] = {
        {(const uint8_t *)"b", 1}, {(const uint8_t *)"d", 1}, {(const uint8_t *)"dd", 2}};
    cs_partitioner r = {PART_RANGE, 4, bounds, 3, true};
    const char *keys[] = {"", "a", "b", "ba", "c", "d", "d\0", "dd", "dda", "z"};
    uint32_t lens[] = {0, 1, 1, 2, 1, 1, 2, 2, 3, 1};
    int want[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
    for (int i = 0; i < 10; i++) {
        cspark_slice s = {(const uint8_t *)keys[i], lens[i]};
        assert_int_equal(cs_partitioner_get(&r, s, 0), want[i]);
        r.ascending = false;
        assert_int_equal(cs_partitioner_get(&r, s, 0), 3 - want[i]);
        r.ascending = true;
    }
    /* round-robin start depends on the map id and is in range */
    int distinct = 0, seen[16] = {0};
    for (int m = 0; m < 64; m++) {
        int s = cs_shuffle_round_robin_start(m, 16);
        assert_true(s >= 0 && s < 16);
        if (!seen[s]++) distinct++;
    }
    assert_true(distinct > 4);
    /* bad specs */
    cs_error err = {0};
    cs_partitioner bad = {PART_RANGE, 3, bounds, 3, true}; /* too many bounds */
    shuffle_write_spec spec = {.partitioner = &bad, .dir = g_dir};
    assert_null(cs_shuffle_writer_new(&spec, &err));
    assert_int_equal(err.code, CS_EINVAL);
    cspark_slice desc[2] = {{(const uint8_t *)"d", 1}, {(const uint8_t *)"b", 1}};
    cs_partitioner bad2 = {PART_RANGE, 3, desc, 2, true}; /* not ascending */
    spec.partitioner = &bad2;
    err.code = 0;
    assert_null(cs_shuffle_writer_new(&spec, &err));
    assert_int_equal(err.code, CS_EINVAL);
    /* fewer bounds than partitions - 1: accepted, upper partitions empty */
    cs_partitioner few = {PART_RANGE, 5, bounds, 2, true};
    spec.partitioner = &few;
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    assert_non_null(w);
    cs_shuffle_writer_free(w);
    cspark_slice zk = {(const uint8_t *)"zzz", 3};
    assert_int_equal(cs_partitioner_get(&few, zk, 0), 2);
}

static void test_hash_no_combine(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 5, NULL, 0, true};
    assert_int_equal(run_shuffle(&p, NULL, true, 0, 20000, 3000), 0);
    assert_true(run_shuffle(&p, NULL, true, 256 * 1024, 60000, 3000) >= 2 * NMAPS);
    assert_true(run_shuffle(&p, NULL, false, 256 * 1024, 60000, 3000) >= 3 * NMAPS);
}

/* Records bigger than the block target (a SQL exchange's encoded batches) among small ones,
 * stored with and without compression (without, each is written into the arena as a block of
 * its own), with and without spills: every record comes back. */
static void test_big_records(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 5, NULL, 0, true};
    g_big_every = 50;
    for (int compress = 0; compress <= 1; compress++) {
        assert_int_equal(run_shuffle(&p, NULL, compress, 0, 3000, 500), 0);
        assert_true(run_shuffle(&p, NULL, compress, 2 * 1024 * 1024, 6000, 500) >= NMAPS);
    }
    g_big_every = 0;
}

static void test_hash_combine(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 4, NULL, 0, true};
    assert_int_equal(run_shuffle(&p, &SUM, true, 0, 30000, 2000), 0);
    assert_true(run_shuffle(&p, &SUM, true, 256 * 1024, 60000, 20000) >= 2 * NMAPS);
}

static void test_range(void **state)
{
    (void)state;
    cspark_slice bounds[3] = {
        {(const uint8_t *)"k2", 2}, {(const uint8_t *)"k5", 2}, {(const uint8_t *)"k7777", 5}};
    cs_partitioner p = {PART_RANGE, 4, bounds, 3, true};
    assert_true(run_shuffle(&p, NULL, true, 256 * 1024, 60000, 10000) >= NMAPS);
    p.ascending = false;
    assert_int_equal(run_shuffle(&p, NULL, true, 0, 10000, 10000), 0);
    cs_partitioner few = {PART_RANGE, 6, bounds, 3, false}; /* partitions 0, 1 stay empty */
    run_shuffle(&few, NULL, true, 256 * 1024, 30000, 10000);
    assert_true(run_shuffle(&p, &SUM, true, 256 * 1024, 60000, 20000) >= NMAPS);
    /* long keys: bounds compared by their 8-byte prefixes first, then in full */
    cspark_slice lb[4] = {{(const uint8_t *)"abcdefgk1", 9},
                          {(const uint8_t *)"abcdefgk3", 9},
                          {(const uint8_t *)"abcdefgk3", 9},
                          {(const uint8_t *)"abcdefgk61", 10}};
    cs_partitioner lp = {PART_RANGE, 5, lb, 4, true};
    g_key_prefix = "abcdefg";
    run_shuffle(&lp, NULL, true, 0, 20000, 10000);
    lp.ascending = false;
    run_shuffle(&lp, &SUM, true, 0, 20000, 10000);
    g_key_prefix = "";
}

static void test_round_robin(void **state)
{
    (void)state;
    cs_partitioner p = {PART_ROUND_ROBIN, 6, NULL, 0, true};
    assert_true(run_shuffle(&p, NULL, true, 256 * 1024, 60000, 1000) >= NMAPS);
    assert_int_equal(run_shuffle(&p, NULL, false, 0, 1000, 1000), 0);
}

/* Few records into many partitions: most segments are empty and must not be fetched. */
static void test_zero_size_segments_skipped(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 16, NULL, 0, true};
    run_shuffle(&p, NULL, true, 0, 3, 3);
}

static void write_map_with(int map_id, int nrec, int salt, cs_map_status *st, bool commit,
                           bool compress)
{
    cs_partitioner p = {PART_HASH, 3, NULL, 0, true};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 0);
    cs_error err = {0};
    shuffle_write_spec spec = {.shuffle_id = 9,
                               .map_id = map_id,
                               .attempt_id = salt,
                               .partitioner = &p,
                               .compress = compress,
                               .checksum = CS_CHECKSUM_DEFAULT,
                               .dir = g_dir,
                               .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    cs_batch in;
    cs_batch_init(&in);
    make_input(&in, salt, nrec, 100);
    assert_int_equal(cs_shuffle_writer_write(w, &in, &err), 0);
    if (commit) assert_int_equal(cs_shuffle_writer_commit(w, st, &err), 0);
    cs_shuffle_writer_free(w);
    cs_batch_free(&in);
}

static void write_map(int map_id, int nrec, int salt, cs_map_status *st, bool commit)
{
    write_map_with(map_id, nrec, salt, st, commit, true);
}

static char g_read_error[1024];

static size_t read_all(const cs_map_status *st, int reduce, int *failed, int *rc_out)
{
    const cs_map_status *stp[1] = {st};
    shuffle_block_source src = cs_shuffle_local_source(g_dir);
    cs_error err = {0};
    shuffle_reader *rd = cs_shuffle_reader_new(stp, 1, reduce, &src, &err);
    cs_batch b;
    cs_batch_init(&b);
    int rc;
    while ((rc = cs_shuffle_reader_next(rd, &b, failed, &err)) == 1) {
    }
    *rc_out = rc;
    snprintf(g_read_error, sizeof g_read_error, "%s", rc < 0 ? err.msg : "");
    size_t n = b.n;
    cs_batch_free(&b);
    cs_shuffle_reader_free(rd);
    return n;
}

static void test_retry_replaces_attempt(void **state)
{
    (void)state;
    cs_map_status a, b;
    write_map(0, 1000, 1, &a, true);
    write_map(0, 3000, 2, &b, true); /* retry of map 0 */
    int failed = -1, rc;
    size_t total = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t off, len;
        cs_error err = {0};
        assert_int_equal(cs_shuffle_index_read(g_dir, 9, 0, r, &off, &len, &err), 0);
        assert_true(cs_map_status_size_agrees(&b, r, len));
        total += read_all(&b, r, &failed, &rc);
        assert_int_equal(rc, 0);
    }
    assert_int_equal(total, 3000);
    /* an aborted third attempt leaves the committed output and no stray files */
    write_map(0, 500, 3, NULL, false);
    assert_int_equal(stray_files(), 0);
    total = 0;
    for (int r = 0; r < 3; r++)
        total += read_all(&b, r, &failed, &rc);
    assert_int_equal(total, 3000);
    cs_map_status_free(&a);
    cs_map_status_free(&b);
    rm_dir_files();
}

static void test_spill_files_removed(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 3, NULL, 0, true};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 128 * 1024);
    cs_error err = {0};
    shuffle_write_spec spec = {.shuffle_id = 1,
                               .map_id = 1,
                               .partitioner = &p,
                               .compress = true,
                               .dir = g_dir,
                               .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    cs_batch in;
    cs_batch_init(&in);
    make_input(&in, 0, 50000, 50000);
    assert_int_equal(cs_shuffle_writer_write(w, &in, &err), 0);
    assert_true(cs_shuffle_writer_spills(w) > 0);
    assert_true(mem.spilled_bytes > 0);
    cs_shuffle_writer_free(w); /* abort */
    assert_int_equal(stray_files(), 0);
    char data[512], index[512];
    cs_shuffle_file_paths(g_dir, 1, 1, data, index, sizeof data);
    assert_int_not_equal(access(data, F_OK), 0);
    assert_int_equal(mem.used, 0);
    cs_batch_free(&in);
}

static void test_corrupt_and_missing_report_map(void **state)
{
    (void)state;
    cs_map_status st;
    write_map(5, 2000, 1, &st, true);
    char data[512], index[512];
    cs_shuffle_file_paths(g_dir, 9, 5, data, index, sizeof data);
    /* corrupt the middle of the data file */
    FILE *f = fopen(data, "r+");
    uint64_t off0 = 0, len0 = 0;
    cs_error ierr = {0};
    assert_int_equal(cs_shuffle_index_read(g_dir, 9, 5, 0, &off0, &len0, &ierr), 0);
    fseek(f, (long)(len0 + 20), SEEK_SET);
    fwrite("\xff\xff\xff\xff\xff\xff\xff\xff", 1, 8, f);
    fclose(f);
    int failed = -1, rc;
    read_all(&st, 1, &failed, &rc);
    assert_int_equal(rc, CS_EIO);
    assert_int_equal(failed, 5);
    /* missing output */
    unlink(data);
    unlink(index);
    failed = -1;
    read_all(&st, 0, &failed, &rc);
    assert_int_equal(rc, CS_EIO);
    assert_int_equal(failed, 5);
    cs_map_status_free(&st);
    rm_dir_files();
}

/* The red-team finding (issue 10 item 15): one flipped bit in a shuffle_*.data file was read as
 * records — a value's top bit turned a word count's total into -9223372036852007078. Every bit
 * of a segment, stored or lz4, is now a fetch failure naming the map and a checksum mismatch. */
static void test_flipped_bit_in_data_file_is_fetch_failure(void **state)
{
    (void)state;
    for (int compress = 0; compress < 2; compress++) {
        cs_map_status st;
        write_map_with(6, 3000, 4, &st, true, compress);
        char data[512], index[512];
        cs_shuffle_file_paths(g_dir, 9, 6, data, index, sizeof data);
        uint64_t seg_start = 0, seg_len = 0;
        cs_error ierr = {0};
        assert_int_equal(cs_shuffle_index_read(g_dir, 9, 6, 1, &seg_start, &seg_len, &ierr), 0);
        assert_true(seg_len > 1000);
        /* the last byte of the segment (a value byte when stored), its middle, its first */
        uint64_t offs[] = {seg_start + seg_len - 1, seg_start + seg_len / 2, seg_start};
        for (size_t k = 0; k < 3; k++) {
            FILE *f = fopen(data, "r+");
            fseek(f, (long)offs[k], SEEK_SET);
            int c = fgetc(f);
            fseek(f, (long)offs[k], SEEK_SET);
            fputc(c ^ 0x80, f);
            fclose(f);
            int failed = -1, rc;
            read_all(&st, 1, &failed, &rc);
            assert_int_equal(rc, CS_EIO);
            assert_int_equal(failed, 6);
            assert_non_null(strstr(g_read_error, "map 6 reduce 1 corrupt"));
            if (k < 2) assert_non_null(strstr(g_read_error, "checksum mismatch"));
            f = fopen(data, "r+"); /* restored: the segment reads again */
            fseek(f, (long)offs[k], SEEK_SET);
            fputc(c, f);
            fclose(f);
            size_t n = read_all(&st, 1, &failed, &rc);
            assert_int_equal(rc, 0);
            assert_true(n > 0);
        }
        cs_map_status_free(&st);
        rm_dir_files();
    }
}

/* A spill file damaged between the spill and the commit fails the commit (its blocks are copied
 * into the map output verified), instead of reaching the data file. */
static void test_damaged_spill_fails_commit(void **state)
{
    (void)state;
    cs_partitioner p = {PART_HASH, 3, NULL, 0, true};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 128 * 1024);
    cs_error err = {0};
    shuffle_write_spec spec = {.shuffle_id = 2,
                               .map_id = 0,
                               .partitioner = &p,
                               .compress = false,
                               .checksum = CS_CHECKSUM_ADLER32,
                               .dir = g_dir,
                               .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    cs_batch in;
    cs_batch_init(&in);
    make_input(&in, 0, 20000, 20000);
    assert_int_equal(cs_shuffle_writer_write(w, &in, &err), 0);
    assert_true(cs_shuffle_writer_spills(w) > 0);
    assert_int_equal(spill_damage(g_dir, 1000), 0); /* one of them: every spill is copied */
    cs_map_status st;
    memset(&st, 0, sizeof st);
    assert_int_equal(cs_shuffle_writer_commit(w, &st, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "spill file"));
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    cs_shuffle_writer_free(w);
    assert_int_equal(stray_files(), 0);
    char data[512];
    cs_shuffle_file_paths(g_dir, 2, 0, data, NULL, sizeof data);
    assert_int_not_equal(access(data, F_OK), 0);
    cs_batch_free(&in);
}

static void test_corrupt_index(void **state)
{
    (void)state;
    cs_map_status st;
    write_map(7, 500, 1, &st, true);
    char data[512], index[512];
    cs_shuffle_file_paths(g_dir, 9, 7, data, index, sizeof data);
    cs_error err = {0};
    uint64_t off, len;
    assert_int_equal(cs_shuffle_index_read(g_dir, 9, 7, 3, &off, &len, &err),
                     CS_EPROTO); /* past end */
    /* decreasing offsets */
    FILE *f = fopen(index, "r+");
    fseek(f, 8, SEEK_SET);
    fwrite("\xff\xff\xff\xff\xff\xff\xff\xff", 1, 8, f);
    fclose(f);
    assert_int_equal(cs_shuffle_index_read(g_dir, 9, 7, 1, &off, &len, &err), CS_EPROTO);
    int failed = -1, rc;
    read_all(&st, 1, &failed, &rc);
    assert_int_equal(rc, CS_EIO);
    assert_int_equal(failed, 7);
    /* truncated index */
    assert_int_equal(truncate(index, 12), 0);
    assert_true(cs_shuffle_index_read(g_dir, 9, 7, 1, &off, &len, &err) < 0);
    assert_int_equal(cs_shuffle_index_read(g_dir, 9, 8, 0, &off, &len, &err), CS_ENOTFOUND);
    cs_map_status_free(&st);
    rm_dir_files();
}

/* shuffle_mod equals % for every divisor kind (1, powers of two, odd, large) and for values
 * around the boundaries where a rounding error would show. */
static void test_divisor_exact(void **state)
{
    (void)state;
    uint64_t ds[] = {1,
                     2,
                     3,
                     4,
                     5,
                     6,
                     7,
                     8,
                     10,
                     12,
                     64,
                     100,
                     200,
                     1000,
                     4096,
                     65535,
                     65536,
                     1000003,
                     0x7fffffff,
                     0xffffffffULL,
                     0x100000001ULL,
                     0x8000000000000000ULL,
                     0xfffffffffffffffeULL,
                     0xffffffffffffffffULL};
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t k = 0; k < sizeof ds / sizeof *ds; k++) {
        uint64_t d = ds[k];
        shuffle_divisor v = shuffle_divisor_make(d);
        uint64_t edges[] = {0,
                            1,
                            d - 1,
                            d,
                            d + 1,
                            2 * d - 1,
                            2 * d,
                            UINT64_MAX,
                            UINT64_MAX - 1,
                            UINT64_MAX - d,
                            (UINT64_MAX / d) * d,
                            (UINT64_MAX / d) * d - 1};
        for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
            assert_int_equal(shuffle_mod(&v, edges[e]), edges[e] % d);
        for (int i = 0; i < 200000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_int_equal(shuffle_mod(&v, x), x % d);
            uint64_t y = x >> (i % 64);
            assert_int_equal(shuffle_mod(&v, y), y % d);
        }
    }
    for (uint64_t d = 1; d < 3000; d++) {
        shuffle_divisor v = shuffle_divisor_make(d);
        for (uint64_t y = 0; y < 5000; y++)
            assert_int_equal(shuffle_mod(&v, y), y % d);
        assert_int_equal(shuffle_mod(&v, UINT64_MAX), UINT64_MAX % d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partitioners),
        cmocka_unit_test(test_divisor_exact),
        cmocka_unit_test(test_hash_no_combine),
        cmocka_unit_test(test_big_records),
        cmocka_unit_test(test_hash_combine),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_zero_size_segments_skipped),
        cmocka_unit_test(test_retry_replaces_attempt),
        cmocka_unit_test(test_spill_files_removed),
        cmocka_unit_test(test_corrupt_and_missing_report_map),
        cmocka_unit_test(test_corrupt_index),
        cmocka_unit_test(test_flipped_bit_in_data_file_is_fetch_failure),
        cmocka_unit_test(test_damaged_spill_fails_commit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
