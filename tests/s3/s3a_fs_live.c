/*
 * s3a_fs_live.c — src/fs's s3a file system against a real S3 server (run by tests/s3/fs_s3a.sh
 * under scripts/s3-run, which exports AWS_ENDPOINT_URL and the credentials and creates the
 * bucket "live"): put/get, listing of files, directories and globs, ranged parallel reads
 * across block boundaries and past the split, multipart writers that stay invisible until their
 * pending commit, aborted attempts that leave nothing stored, compressed input read from the
 * store, and the one-line errors for wrong credentials, a missing bucket, an unreachable
 * endpoint and a malformed URL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fs/codec.h"
#include "fs/fs.h"

static void configure(const char *k1, const char *v1, ...)
{
    cs_conf *c = cs_conf_new();
    va_list ap;
    va_start(ap, v1);
    for (const char *k = k1, *v = v1; k; k = va_arg(ap, const char *), v = va_arg(ap, const char *))
        cs_conf_set(c, k, v);
    va_end(ap);
    cs_fs_configure(c);
    cs_conf_free(c);
}

static void put(const char *uri, const char *s)
{
    cs_error err;
    assert_int_equal(cs_fs_put(uri, s, strlen(s), &err), 0);
}

static void test_put_get_stat_delete(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    cs_error err;
    put("s3a://live/pg/a.txt", "alpha\n");
    uint8_t *data;
    size_t len;
    assert_int_equal(cs_fs_get("s3a://live/pg/a.txt", &data, &len, &err), 0);
    assert_int_equal(len, 6);
    assert_memory_equal(data, "alpha\n", 6);
    free(data);
    cs_fs_status st;
    assert_int_equal(cs_fs_stat("s3a://live/pg/a.txt", &st, &err), 0);
    assert_true(st.exists && !st.is_dir && st.size == 6);
    assert_int_equal(cs_fs_stat("s3a://live/pg", &st, &err), 0);
    assert_true(st.exists && st.is_dir);
    assert_int_equal(cs_fs_stat("s3a://live/nothing/here", &st, &err), 0);
    assert_false(st.exists);
    assert_int_equal(cs_fs_delete("s3a://live/pg", true, &err), 0);
    assert_int_equal(cs_fs_stat("s3a://live/pg", &st, &err), 0);
    assert_false(st.exists);
}

static void test_expand_dirs_and_globs(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    put("s3a://live/in/b.txt", "b\n");
    put("s3a://live/in/a.txt", "a\n");
    put("s3a://live/in/_SUCCESS", "");
    put("s3a://live/in/.hidden", "h\n");
    put("s3a://live/in/sub/deep.txt", "d\n");
    put("s3a://live/logs/2024-01/x.log", "x\n");
    put("s3a://live/logs/2024-02/y.log", "y\n");
    put("s3a://live/logs/2025-01/z.log", "z\n");
    cs_fs_listing l = {0};
    cs_error err;
    assert_int_equal(cs_fs_expand("s3a://live/in", &l, &err), 0);
    assert_int_equal(l.n, 2); /* hidden names and subdirectories are not inputs */
    assert_string_equal(l.v[0].uri, "s3a://live/in/a.txt");
    assert_string_equal(l.v[1].uri, "s3a://live/in/b.txt");
    assert_int_equal(l.v[0].size, 2);
    cs_fs_listing_free(&l);
    assert_int_equal(cs_fs_expand("s3a://live/logs/2024-*/*.log", &l, &err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[1].uri, "s3a://live/logs/2024-02/y.log");
    cs_fs_listing_free(&l);
    assert_int_equal(cs_fs_expand("s3a://live/logs/{2024-01,2025-01}", &l, &err), 0);
    assert_int_equal(l.n, 2); /* matched directories give their files */
    assert_string_equal(l.v[1].uri, "s3a://live/logs/2025-01/z.log");
    cs_fs_listing_free(&l);
    assert_int_equal(cs_fs_expand("s3a://live/nope", &l, &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "Input path does not exist: s3a://live/nope");
    assert_int_equal(cs_fs_expand("s3a://live/logs/19*", &l, &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "Input Pattern s3a://live/logs/19* matches 0 files");
    cs_fs_listing_free(&l);
}

/* A listing longer than one page (the server's page is 1000 keys; ask for small pages by
 * listing many keys) comes back whole. */
static void test_expand_pages(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    char uri[128];
    for (int i = 0; i < 1100; i++) {
        snprintf(uri, sizeof uri, "s3a://live/many/f%04d", i);
        put(uri, "");
    }
    cs_fs_listing l = {0};
    cs_error err;
    assert_int_equal(cs_fs_expand("s3a://live/many/", &l, &err), 0);
    assert_int_equal(l.n, 1100);
    assert_string_equal(l.v[1099].uri, "s3a://live/many/f1099");
    cs_fs_listing_free(&l);
}

static uint8_t *pattern_bytes(size_t n)
{
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)((i * 2654435761u) >> 13);
    return b;
}

/* Ranged reads in parallel 64 KiB blocks: every offset and length, reads past the split. */
static void test_ranged_reads(void **state)
{
    (void)state;
    configure("spark.hadoop.fs.s3a.prefetch.block.size", "64k",
              "spark.hadoop.fs.s3a.prefetch.block.count", "3", NULL, NULL);
    size_t n = 1000 * 1000 + 7;
    uint8_t *src = pattern_bytes(n);
    cs_error err;
    assert_int_equal(cs_fs_put("s3a://live/r/blob", src, n, &err), 0);
    const uint64_t offs[] = {0, 1, 65535, 65536, 300001, n - 1};
    const uint64_t lens[] = {1, 65536, 200000, n};
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
            cs_fs_reader *r = cs_fs_open("s3a://live/r/blob", offs[i], lens[j], n, &err);
            assert_non_null(r);
            size_t got = 0;
            ssize_t k;
            while ((k = cs_fs_read(r, buf + got, 7777, &err)) > 0)
                got += (size_t)k;
            assert_int_equal(k, 0);
            assert_int_equal(got, n - offs[i]); /* reads run on to the end of the object */
            assert_memory_equal(buf, src + offs[i], got);
            cs_fs_reader_close(r);
        }
    }
    /* closing mid-way with blocks in flight */
    cs_fs_reader *r = cs_fs_open("s3a://live/r/blob", 0, n, UINT64_MAX, &err);
    assert_non_null(r);
    assert_int_equal(cs_fs_read(r, buf, 10, &err), 10);
    cs_fs_reader_close(r);
    free(buf);
    free(src);
}

static void test_writer_invisible_until_commit(void **state)
{
    (void)state;
    configure("spark.hadoop.fs.s3a.multipart.size", "5m", NULL, NULL);
    cs_error err;
    size_t n = 11 * 1024 * 1024 + 5; /* three parts */
    uint8_t *src = pattern_bytes(n);
    cs_fs_writer *w = cs_fs_create("s3a://live/out/part-00000", NULL, NULL, &err);
    assert_non_null(w);
    for (size_t off = 0; off < n; off += 100000)
        assert_int_equal(cs_fs_write(w, src + off, n - off < 100000 ? n - off : 100000, &err), 0);
    cs_fs_pending *p = NULL;
    assert_int_equal(cs_fs_writer_finish(w, &p, &err), 0);
    assert_non_null(p);
    cs_fs_status st;
    assert_int_equal(cs_fs_stat("s3a://live/out/part-00000", &st, &err), 0);
    assert_false(st.exists); /* uploaded, not visible */
    /* the pending commit travels as bytes */
    size_t len;
    char *enc = cs_fs_pending_encode(p, &len);
    cs_fs_pending *q = cs_fs_pending_decode(enc, len, &err);
    assert_non_null(q);
    assert_string_equal(cs_fs_pending_uri(q), "s3a://live/out/part-00000");
    assert_int_equal(cs_fs_pending_commit(q, &err), 0);
    assert_int_equal(cs_fs_stat("s3a://live/out/part-00000", &st, &err), 0);
    assert_true(st.exists);
    assert_int_equal(st.size, n);
    uint8_t *back;
    assert_int_equal(cs_fs_get("s3a://live/out/part-00000", &back, &len, &err), 0);
    assert_int_equal(len, n);
    assert_memory_equal(back, src, n);
    free(back);
    free(enc);
    cs_fs_pending_free(p);
    cs_fs_pending_free(q);
    free(src);

    /* an empty file is one empty part */
    w = cs_fs_create("s3a://live/out/empty", NULL, NULL, &err);
    assert_non_null(w);
    assert_int_equal(cs_fs_writer_finish(w, NULL, &err), 0); /* no deferral: visible now */
    assert_int_equal(cs_fs_stat("s3a://live/out/empty", &st, &err), 0);
    assert_true(st.exists && st.size == 0);
}

static void test_abort_leaves_nothing(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    cs_error err;
    cs_fs_writer *w = cs_fs_create("s3a://live/ab/part-00001", NULL, NULL, &err);
    assert_int_equal(cs_fs_write(w, "x\n", 2, &err), 0);
    cs_fs_writer_abort(w);
    /* a finished attempt whose pending commit never reached anyone, and one that did */
    cs_fs_pending *lost = NULL, *kept = NULL;
    w = cs_fs_create("s3a://live/ab/part-00002", NULL, NULL, &err);
    assert_int_equal(cs_fs_write(w, "y\n", 2, &err), 0);
    assert_int_equal(cs_fs_writer_finish(w, &lost, &err), 0);
    w = cs_fs_create("s3a://live/ab/part-00003", NULL, NULL, &err);
    assert_int_equal(cs_fs_write(w, "z\n", 2, &err), 0);
    assert_int_equal(cs_fs_writer_finish(w, &kept, &err), 0);
    const cs_fs_pending *keep[] = {kept};
    assert_int_equal(cs_fs_abort_uploads_under("s3a://live/ab", keep, 1, &err), 0);
    assert_int_equal(cs_fs_pending_commit(kept, &err), 0);
    assert_int_not_equal(cs_fs_pending_commit(lost, &err), 0); /* it was swept */
    cs_fs_listing l = {0};
    assert_int_equal(cs_fs_expand("s3a://live/ab", &l, &err), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].uri, "s3a://live/ab/part-00003");
    cs_fs_listing_free(&l);
    cs_fs_pending_free(lost);
    cs_fs_pending_free(kept);
}

static void test_compressed_from_store(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    cs_error err;
    const char *names[] = {"gzip", "bzip2", "zstd", "lz4"};
    for (size_t i = 0; i < 4; i++) {
        const cs_codec *c = cs_codec_for_name(names[i]);
        char uri[128];
        snprintf(uri, sizeof uri, "s3a://live/z/words%s", c->extension);
        cs_fs_writer *w = cs_fs_create(uri, NULL, c, &err);
        assert_non_null(w);
        for (int k = 0; k < 20000; k++)
            assert_int_equal(cs_fs_write(w, "the quick brown fox\n", 20, &err), 0);
        assert_int_equal(cs_fs_writer_finish(w, NULL, &err), 0);
        cs_fs_status st;
        assert_int_equal(cs_fs_stat(uri, &st, &err), 0);
        assert_true(st.size < 20 * 20000 / 4);
        const cs_codec *got;
        cs_fs_reader *r = cs_fs_open_input(uri, 0, st.size, st.size, &got, &err);
        assert_non_null(r);
        assert_ptr_equal(got, c);
        char buf[4096];
        size_t total = 0;
        ssize_t k;
        while ((k = cs_fs_read(r, buf, sizeof buf, &err)) > 0) {
            assert_memory_equal(buf, "the quick brown fox\n" + (total % 20), 1);
            total += (size_t)k;
        }
        assert_int_equal(k, 0);
        assert_int_equal(total, 20 * 20000);
        cs_fs_reader_close(r);
    }
}

static void test_errors_name_the_cause(void **state)
{
    (void)state;
    cs_error err;
    cs_fs_listing l = {0};
    cs_fs_status st;
    /* wrong secret: the message says which setting gave the credentials */
    configure("spark.hadoop.fs.s3a.access.key", getenv("AWS_ACCESS_KEY_ID"),
              "spark.hadoop.fs.s3a.secret.key", "wrong", NULL, NULL);
    assert_int_equal(cs_fs_expand("s3a://live/in", &l, &err), CS_EAUTH);
    assert_non_null(strstr(err.msg, "s3a://live/in: access denied"));
    assert_non_null(strstr(err.msg, "check spark.hadoop.fs.s3a.access.key and "
                                    "spark.hadoop.fs.s3a.secret.key"));
    assert_null(cs_fs_create("s3a://live/out2/part-00000", NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "access denied"));
    /* per-bucket keys win over the global ones */
    configure("spark.hadoop.fs.s3a.secret.key", "wrong", "spark.hadoop.fs.s3a.access.key", "x",
              "spark.hadoop.fs.s3a.bucket.live.access.key", getenv("AWS_ACCESS_KEY_ID"),
              "spark.hadoop.fs.s3a.bucket.live.secret.key", getenv("AWS_SECRET_ACCESS_KEY"), NULL,
              NULL);
    assert_int_equal(cs_fs_stat("s3a://live/in/a.txt", &st, &err), 0);
    assert_true(st.exists);
    /* a missing bucket */
    cs_fs_configure(NULL);
    assert_int_equal(cs_fs_expand("s3a://no-such-bucket/x", &l, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "bucket 'no-such-bucket' does not exist"));
    /* an unreachable endpoint (a closed port), retried twice */
    configure("spark.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9",
              "spark.hadoop.fs.s3a.retry.limit", "2", "spark.hadoop.fs.s3a.retry.interval", "10ms",
              NULL, NULL);
    assert_int_equal(cs_fs_stat("s3a://live/in", &st, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "cannot reach the S3 endpoint http://127.0.0.1:9 "
                                    "(spark.hadoop.fs.s3a.endpoint) for s3a://live/in"));
    /* a malformed endpoint, a malformed URL, a scheme nobody serves */
    configure("spark.hadoop.fs.s3a.endpoint", "ftp://x", NULL, NULL);
    assert_int_equal(cs_fs_stat("s3a://live/in", &st, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "invalid value for spark.hadoop.fs.s3a.endpoint: 'ftp://x'"));
    cs_fs_configure(NULL);
    assert_int_equal(cs_fs_stat("s3a://Bad_Bucket/x", &st, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "malformed URL 's3a://Bad_Bucket/x'"));
    assert_int_equal(cs_fs_stat("s3a:///x", &st, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "no bucket"));
    assert_int_equal(cs_fs_stat("hdfs://nn/x", &st, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "No FileSystem for scheme \"hdfs\""));
}

int main(void)
{
    if (!getenv("AWS_ENDPOINT_URL")) {
        fprintf(stderr, "s3a_fs_live: run me under scripts/s3-run (AWS_ENDPOINT_URL unset)\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_stat_delete),
        cmocka_unit_test(test_expand_dirs_and_globs),
        cmocka_unit_test(test_expand_pages),
        cmocka_unit_test(test_ranged_reads),
        cmocka_unit_test(test_writer_invisible_until_commit),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_compressed_from_store),
        cmocka_unit_test(test_errors_name_the_cause),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_fs_configure(NULL);
    return rc;
}
