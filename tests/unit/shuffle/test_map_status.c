/*
 * test_map_status.c — map statuses in Spark's compact forms (shuffle/map_status.h): the log-scale
 * byte of CompressedMapStatus against Spark's values and error bound; the form chosen by the
 * reduce count and spark.shuffle.minNumPartitionsToHighlyCompress; empty blocks read as empty
 * exactly and non-empty ones never do, in both forms; huge blocks (accurate threshold, skew
 * factor) kept exactly; the keys' bad values refused naming the key; a shuffle of 2,500 reduces
 * written and read back through the real writer and reader, fetching exactly the non-empty
 * blocks. And the regression of issue 20 item 9: 4,096 maps x 8,192 reduces of statuses took
 * 8 bytes per block (268 MB); built through the real constructor they now take under 20 MB,
 * measured both by their own footprint and by the heap's growth. Raw sizes (before stream
 * compression) beside the stored ones: in both forms, copied, checked, falling back to the
 * stored size when a status has none, and measured by the writer with and without LZ4.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/batch.h"
#include "common/conf.h"
#include "shuffle/map_status.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_compress_size_as_spark(void **state)
{
    (void)state;
    /* MapStatusSuite's values */
    assert_int_equal(cs_map_status_compress_size(0), 0);
    assert_int_equal(cs_map_status_compress_size(1), 1);
    assert_int_equal(cs_map_status_compress_size(2), 8);
    assert_int_equal(cs_map_status_compress_size(10), 25);
    assert_int_equal(cs_map_status_compress_size(1000000ull), 145);
    assert_int_equal(cs_map_status_compress_size(1000000000ull), 218);
    assert_int_equal(cs_map_status_compress_size(UINT64_MAX), 255);
    assert_int_equal(cs_map_status_decompress_size(0), 0);
    /* within 10% above 2 bytes, never 0 for a non-empty block */
    for (uint64_t size = 1; size < 1ull << 34; size = size * 3 / 2 + 1) {
        uint64_t est = cs_map_status_decompress_size(cs_map_status_compress_size(size));
        assert_true(est >= 1);
        if (size > 2) assert_true(est >= size * 99 / 100 && est <= size * 111 / 100);
    }
}

/* Sizes with about one empty block in `empty_one_in`, the others from 1 byte to 1 MB. */
static void random_sizes(uint64_t *sizes, int n, int empty_one_in)
{
    for (int r = 0; r < n; r++)
        sizes[r] = rnd() % (uint64_t)empty_one_in == 0 ? 0 : 1 + rnd() % (1u << 20);
}

static void test_empty_blocks_exact_in_both_forms(void **state)
{
    (void)state;
    int counts[] = {1, 7, 2000, 2001, 5000};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        for (int empty_one_in = 1; empty_one_in <= 1000; empty_one_in *= 10) {
            uint64_t *sizes = calloc((size_t)n, sizeof *sizes);
            random_sizes(sizes, n, empty_one_in + 1);
            if (n > 3) sizes[n - 1] = 1; /* a one-byte block is still non-empty */
            cs_map_status st = {0};
            cs_map_status_set_sizes(&st, sizes, n, NULL);
            assert_int_equal(st.num_reduces, n);
            assert_int_equal(st.sizes_kind,
                             n > 2000 ? CS_MAP_SIZES_HIGHLY_COMPRESSED : CS_MAP_SIZES_COMPRESSED);
            assert_int_equal(cs_map_status_validate(&st, NULL), 0);
            for (int r = 0; r < n; r++) {
                assert_int_equal(cs_map_status_block_empty(&st, r), sizes[r] == 0);
                assert_int_equal(cs_map_status_size(&st, r) == 0, sizes[r] == 0);
                assert_true(cs_map_status_size_agrees(&st, r, sizes[r]));
            }
            /* ids out of range say nothing: never skipped */
            assert_false(cs_map_status_block_empty(&st, n));
            assert_false(cs_map_status_block_empty(&st, -1));
            cs_map_status copy;
            cs_map_status_copy(&copy, &st);
            for (int r = 0; r < n; r++)
                assert_int_equal(cs_map_status_size(&copy, r), cs_map_status_size(&st, r));
            cs_map_status_free(&copy);
            cs_map_status_free(&st);
            free(sizes);
        }
    }
}

static void test_huge_blocks_exact(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t sizes[N];
    for (int r = 0; r < N; r++)
        sizes[r] = r % 2 ? 1000 : 0;
    sizes[5] = (100ull << 20) + 12345; /* above spark.shuffle.accurateBlockThreshold */
    sizes[7] = 50000;                  /* 50x the median of non-empty blocks */
    cs_map_status st = {0};
    cs_map_status_set_sizes(&st, sizes, N, NULL);
    assert_int_equal(st.num_huge, 1);
    assert_int_equal(cs_map_status_size(&st, 5), sizes[5]);
    assert_true(cs_map_status_size_agrees(&st, 5, sizes[5]));
    assert_false(cs_map_status_size_agrees(&st, 5, sizes[5] - 1));
    assert_false(cs_map_status_size_agrees(&st, 4, 10)); /* empty */
    assert_false(cs_map_status_size_agrees(&st, 3, 0));  /* not empty */
    /* without the huge block, the average of the others */
    assert_int_equal(cs_map_status_size(&st, 3), (1000ull * 1498 + 50000) / 1499);
    cs_map_status_free(&st);

    /* spark.shuffle.accurateBlockSkewedFactor: above factor x median (and among the largest) */
    cs_map_status_opts o = cs_map_status_default_opts;
    o.accurate_block_skewed_factor = 5;
    o.max_accurate_skewed_blocks = 10;
    for (int r = 0; r < N; r++)
        sizes[r] = 1000 + (uint64_t)(r % 10);
    sizes[7] = 50000;
    sizes[9] = 4000; /* below 5 x median: averaged */
    cs_map_status_set_sizes(&st, sizes, N, &o);
    assert_int_equal(st.num_huge, 1);
    assert_int_equal(cs_map_status_size(&st, 7), 50000);
    assert_true(cs_map_status_size(&st, 9) < 1100);
    cs_map_status_free(&st);

    /* a lower minNumPartitionsToHighlyCompress picks the bitmap form for fewer reduces */
    o = cs_map_status_default_opts;
    o.min_partitions_to_highly_compress = 100;
    cs_map_status_set_sizes(&st, sizes, 101, &o);
    assert_int_equal(st.sizes_kind, CS_MAP_SIZES_HIGHLY_COMPRESSED);
    cs_map_status_free(&st);
    cs_map_status_set_sizes(&st, sizes, 100, &o);
    assert_int_equal(st.sizes_kind, CS_MAP_SIZES_COMPRESSED);
    cs_map_status_free(&st);
}

static void test_conf_keys(void **state)
{
    (void)state;
    cs_map_status_opts o;
    cs_error err = {0};
    cs_conf *c = cs_conf_new();
    assert_int_equal(cs_map_status_opts_read(c, &o, &err), 0);
    assert_int_equal(o.min_partitions_to_highly_compress, 2000);
    assert_int_equal(o.accurate_block_threshold, 100 * CS_MiB);
    assert_true(o.accurate_block_skewed_factor < 0);
    assert_int_equal(o.max_accurate_skewed_blocks, 100);
    cs_conf_set(c, "spark.shuffle.accurateBlockThreshold", "1m");
    cs_conf_set(c, "spark.shuffle.minNumPartitionsToHighlyCompress", "10");
    assert_int_equal(cs_map_status_opts_read(c, &o, &err), 0);
    assert_int_equal(o.accurate_block_threshold, CS_MiB);
    assert_int_equal(o.min_partitions_to_highly_compress, 10);
    const char *bad[][2] = {{"spark.shuffle.minNumPartitionsToHighlyCompress", "0"},
                            {"spark.shuffle.accurateBlockThreshold", "0"},
                            {"spark.shuffle.maxAccurateSkewedBlockNumber", "x"}};
    for (size_t i = 0; i < 3; i++) {
        cs_conf *b = cs_conf_new();
        cs_conf_set(b, bad[i][0], bad[i][1]);
        assert_int_equal(cs_map_status_opts_read(b, &o, &err), CS_EINVAL);
        assert_non_null(strstr(err.msg, bad[i][0]));
        cs_conf_free(b);
    }
    cs_conf_free(c);
}

/* ---- a shuffle of 2,500 reduces through the writer and the reader ---------------------------- */

static char g_dir[256];
static int g_fetches;

static int counting_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                          size_t *len, cs_error *err)
{
    g_fetches++;
    shuffle_block_source local = cs_shuffle_local_source(arg);
    return local.fetch(local.arg, st, reduce_id, out, len, err);
}

static void test_highly_compressed_shuffle_reads_every_record(void **state)
{
    (void)state;
    enum { NRED = 2500, NMAPS = 3, NREC = 700 };
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-mapstatus-test-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    cs_partitioner p = {PART_HASH, NRED, NULL, 0, true};
    cs_map_status st[NMAPS];
    const cs_map_status *stp[NMAPS];
    memset(st, 0, sizeof st);
    for (int m = 0; m < NMAPS; m++) {
        cs_task_memory mem;
        cs_task_memory_init(&mem, 0);
        cs_error err = {0};
        shuffle_write_spec spec = {.shuffle_id = 2,
                                   .map_id = m,
                                   .partitioner = &p,
                                   .compress = m % 2,
                                   .checksum = CS_CHECKSUM_DEFAULT,
                                   .dir = g_dir,
                                   .mem = &mem};
        shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
        assert_non_null(w);
        cs_batch in;
        cs_batch_init(&in);
        for (int i = 0; i < NREC; i++) {
            char key[32];
            int n = snprintf(key, sizeof key, "key-%d-%d", m, i);
            cs_batch_append_record(&in, key, (uint32_t)n, "v", 1);
        }
        assert_int_equal(cs_shuffle_writer_write(w, &in, &err), 0);
        assert_int_equal(cs_shuffle_writer_commit(w, &st[m], &err), 0);
        assert_int_equal(st[m].sizes_kind, CS_MAP_SIZES_HIGHLY_COMPRESSED);
        cs_shuffle_writer_free(w);
        cs_batch_free(&in);
        stp[m] = &st[m];
    }
    long records = 0;
    for (int r = 0; r < NRED; r++) {
        int nonempty = 0;
        for (int m = 0; m < NMAPS; m++) {
            uint64_t off, len;
            cs_error err = {0};
            assert_int_equal(cs_shuffle_index_read(g_dir, 2, m, r, &off, &len, &err), 0);
            assert_int_equal(len == 0, cs_map_status_block_empty(&st[m], r));
            nonempty += len > 0;
        }
        shuffle_block_source src = {.fetch = counting_fetch, .arg = g_dir};
        cs_error err = {0};
        g_fetches = 0;
        shuffle_reader *rd = cs_shuffle_reader_new(stp, NMAPS, r, &src, &err);
        cs_batch got;
        cs_batch_init(&got);
        int rc, failed = -1;
        while ((rc = cs_shuffle_reader_next(rd, &got, &failed, &err)) == 1) {
            records += (long)got.n;
            cs_batch_reset(&got);
        }
        assert_int_equal(rc, 0);
        assert_int_equal(g_fetches, nonempty); /* every non-empty block, no empty one */
        cs_batch_free(&got);
        cs_shuffle_reader_free(rd);
    }
    assert_int_equal(records, (long)NMAPS * NREC);
    for (int m = 0; m < NMAPS; m++) {
        char data[512], index[512];
        cs_shuffle_file_paths(g_dir, 2, m, data, index, sizeof data);
        unlink(data);
        unlink(index);
        cs_map_status_free(&st[m]);
    }
    rmdir(g_dir);
}

/* ---- raw sizes beside the stored ones ------------------------------------------------------- */

static void test_raw_sizes_in_both_forms(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t sizes[N], raw[N];
    for (int r = 0; r < N; r++) {
        sizes[r] = r % 3 ? 1000 + (uint64_t)r : 0;
        raw[r] = sizes[r] ? 4 * sizes[r] : 0;
    }
    sizes[5] = (100ull << 20) + 1; /* huge: its raw size kept exactly */
    raw[5] = 400ull << 20;
    for (int n = 200; n <= N; n += N - 200) { /* COMPRESSED, then HIGHLY_COMPRESSED */
        cs_map_status st = {0}, copy;
        cs_map_status_set_sizes(&st, sizes, n, NULL);
        for (int r = 0; r < n; r++) /* without raw sizes: the stored ones */
            assert_int_equal(cs_map_status_raw_size(&st, r), cs_map_status_size(&st, r));
        cs_map_status_set_raw_sizes(&st, raw);
        assert_true(st.has_raw);
        cs_error err = {0};
        assert_int_equal(cs_map_status_validate(&st, &err), 0);
        cs_map_status_copy(&copy, &st);
        uint64_t total = 0, total_raw = 0;
        for (int r = 0; r < n; r++) {
            uint64_t est = cs_map_status_raw_size(&copy, r);
            assert_int_equal(est == 0, raw[r] == 0);
            total += raw[r];
            total_raw += est;
            if (st.sizes_kind == CS_MAP_SIZES_COMPRESSED && raw[r] > 2)
                assert_true(est >= raw[r] * 99 / 100 && est <= raw[r] * 111 / 100);
        }
        if (n == N) assert_int_equal(cs_map_status_raw_size(&copy, 5), raw[5]);
        /* the average keeps the total within rounding */
        assert_true(total_raw >= total * 99 / 100 && total_raw <= total * 111 / 100);
        cs_map_status_free(&copy);
        if (st.sizes_kind == CS_MAP_SIZES_COMPRESSED) { /* a raw size empty where a block is not */
            st.raw_blocks[1] = 0;
            assert_int_equal(cs_map_status_validate(&st, &err), CS_EPROTO);
        } else {
            st.raw_avg_size = 0;
            assert_int_equal(cs_map_status_validate(&st, &err), CS_EPROTO);
        }
        cs_map_status_free(&st);
    }
}

/* The writer measures each block's raw bytes: LZ4 shrinks repetitive records' stored size far
 * below them, and without compression the two agree (block headers aside). */
static void test_writer_reports_raw_sizes(void **state)
{
    (void)state;
    enum { NRED = 16, NREC = 4000 };
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-mapstatus-test-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    cs_partitioner p = {PART_HASH, NRED, NULL, 0, true};
    char val[200];
    memset(val, 'v', sizeof val);
    for (int compress = 0; compress <= 1; compress++) {
        cs_task_memory mem;
        cs_task_memory_init(&mem, 0);
        cs_error err = {0};
        shuffle_write_spec spec = {.shuffle_id = 3,
                                   .map_id = compress,
                                   .partitioner = &p,
                                   .compress = compress,
                                   .checksum = CS_CHECKSUM_DEFAULT,
                                   .dir = g_dir,
                                   .mem = &mem};
        shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
        assert_non_null(w);
        cs_batch in;
        cs_batch_init(&in);
        uint64_t expect[NRED] = {0};
        char *key = malloc(64); /* on the heap: the inlined hash's reads confuse -Warray-bounds */
        for (int i = 0; i < NREC; i++) {
            int n = snprintf(key, 64, "key-%d", i);
            cs_batch_append_record(&in, key, (uint32_t)n, val, sizeof val);
            cspark_slice k = {(const uint8_t *)key, (uint32_t)n};
            expect[cs_partitioner_get(&p, k, shuffle_key_hash(k))] +=
                recio_record_size((uint32_t)n, sizeof val);
        }
        free(key);
        cs_map_status st = {0};
        assert_int_equal(cs_shuffle_writer_write(w, &in, &err), 0);
        assert_int_equal(cs_shuffle_writer_commit(w, &st, &err), 0);
        assert_true(st.has_raw);
        for (int r = 0; r < NRED; r++) {
            uint64_t got = cs_map_status_raw_size(&st, r), stored = cs_map_status_size(&st, r);
            assert_true(got >= expect[r] * 99 / 100 && got <= expect[r] * 111 / 100);
            if (compress)
                assert_true(stored < got / 4);
            else
                assert_true(stored >= got * 9 / 10 && stored <= got * 12 / 10);
        }
        cs_shuffle_writer_free(w);
        cs_batch_free(&in);
        char data[512], index[512];
        cs_shuffle_file_paths(g_dir, 3, compress, data, index, sizeof data);
        unlink(data);
        unlink(index);
        cs_map_status_free(&st);
    }
    rmdir(g_dir);
}

/* ---- issue 20 item 9: 4,096 x 8,192 statuses under 20 MB ------------------------------------- */

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* 4,096 statuses of 8,192 blocks each as the writer builds them; returns the heap they take and
 * their footprint in *footprint. sparse: 2,000,000 records over the maps (about 490 per map,
 * so most blocks are empty, as in the job that reached 22 GB); else every block non-empty. */
static size_t build_statuses(bool sparse, size_t *footprint)
{
    enum { MAPS = 4096, REDUCES = 8192 };
    uint64_t *sizes = calloc(REDUCES, sizeof *sizes);
    cs_map_status *all = calloc(MAPS, sizeof *all);
    size_t before = heap_in_use();
    for (int m = 0; m < MAPS; m++) {
        memset(sizes, 0, REDUCES * sizeof *sizes);
        if (sparse) {
            for (int i = 0; i < 2000000 / MAPS; i++)
                sizes[rnd() % REDUCES] += 20 + rnd() % 40;
        } else {
            for (int r = 0; r < REDUCES; r++)
                sizes[r] = 1 + rnd() % 100000;
        }
        cs_map_status_set_sizes(&all[m], sizes, REDUCES, NULL);
        all[m].shuffle_id = 1;
        all[m].map_id = m;
    }
    size_t grown = heap_in_use() - before + MAPS * sizeof *all; /* the structs, as the driver's */
    *footprint = 0;
    for (int m = 0; m < MAPS; m++) {
        *footprint += cs_map_status_footprint(&all[m]);
        cs_map_status_free(&all[m]);
    }
    free(all);
    free(sizes);
    return grown;
}

static void test_4096_by_8192_statuses_under_20mb(void **state)
{
    (void)state;
    for (int sparse = 1; sparse >= 0; sparse--) {
        size_t footprint = 0, heap = build_statuses(sparse, &footprint);
        print_message("4096 x 8192 map statuses (%s blocks): heap %.1f MB, footprint %.1f MB "
                      "(8 bytes per block: %.1f MB)\n",
                      sparse ? "mostly empty" : "all non-empty", heap / 1e6, footprint / 1e6,
                      4096.0 * 8192 * 8 / 1e6);
        assert_true(heap < 20u * 1000 * 1000);
        assert_true(footprint < 20u * 1000 * 1000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compress_size_as_spark),
        cmocka_unit_test(test_empty_blocks_exact_in_both_forms),
        cmocka_unit_test(test_huge_blocks_exact),
        cmocka_unit_test(test_conf_keys),
        cmocka_unit_test(test_highly_compressed_shuffle_reads_every_record),
        cmocka_unit_test(test_raw_sizes_in_both_forms),
        cmocka_unit_test(test_writer_reports_raw_sizes),
        cmocka_unit_test(test_4096_by_8192_statuses_under_20mb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
