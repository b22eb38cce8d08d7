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
#include <unistd.h>

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

/* Opens uri (n bytes, src) at off for a split of len bytes, reads `step` bytes at a time to the
 * end of the object (reads run on past the split) and checks every byte. buf holds n bytes. */
static void read_check(const char *uri, const uint8_t *src, size_t n, uint64_t off, uint64_t len,
                       size_t step, uint8_t *buf)
{
    cs_error err;
    cs_fs_reader *r = cs_fs_open(uri, off, len, n, &err);
    assert_non_null(r);
    size_t got = 0;
    ssize_t k;
    while ((k = cs_fs_read(r, buf + got, step < n - got ? step : n - got + 1, &err)) > 0)
        got += (size_t)k;
    if (k < 0) fail_msg("%s at %llu: %s", uri, (unsigned long long)off, err.msg);
    assert_int_equal(got, n - off);
    assert_memory_equal(buf, src + off, got);
    cs_fs_reader_close(r);
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
    uint8_t *buf = malloc(n + 1);
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++)
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++)
            read_check("s3a://live/r/blob", src, n, offs[i], lens[j], 7777, buf);
    /* closing mid-way with blocks in flight */
    cs_fs_reader *r = cs_fs_open("s3a://live/r/blob", 0, n, UINT64_MAX, &err);
    assert_non_null(r);
    assert_int_equal(cs_fs_read(r, buf, 10, &err), 10);
    cs_fs_reader_close(r);
    free(buf);
    free(src);
}

/* Blocks of 3 MiB are kept in 2 MiB chunks, and bytes the reader waits for go straight into its
 * buffer: reads that start next to a chunk's end, and reads smaller and larger than a chunk. */
static void test_ranged_reads_across_chunks(void **state)
{
    (void)state;
    configure("spark.hadoop.fs.s3a.prefetch.block.size", "3m",
              "spark.hadoop.fs.s3a.prefetch.block.count", "2", NULL, NULL);
    size_t n = (10u << 20) + 7, mib = 1u << 20;
    uint8_t *src = pattern_bytes(n);
    cs_error err;
    assert_int_equal(cs_fs_put("s3a://live/r/big", src, n, &err), 0);
    const uint64_t offs[] = {0, 2 * mib - 1, 2 * mib, 3 * mib + 5, n - 1};
    const uint64_t lens[] = {1, 3 * mib, n};
    const size_t steps[] = {7777, 3 * mib + 1};
    uint8_t *buf = malloc(n + 1);
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++)
        for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++)
            for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++)
                read_check("s3a://live/r/big", src, n, offs[i], lens[j], steps[s], buf);
    free(buf);
    free(src);
}

/* Puts n pattern bytes at uri (*src receives them: free it) and returns the URL of the fault
 * proxy fs_s3a.sh started and named in the environment variable env. */
static const char *behind_proxy(const char *env, const char *uri, size_t n, uint8_t **src)
{
    const char *proxy = getenv(env);
    if (!proxy) fail_msg("%s is unset: run me through tests/s3/fs_s3a.sh", env);
    cs_fs_configure(NULL);
    *src = pattern_bytes(n);
    cs_error err;
    assert_int_equal(cs_fs_put(uri, *src, n, &err), 0);
    return proxy;
}

/* Through a proxy that cuts every third ranged GET's body half-way (S3A_CUT_PROXY_URL, started
 * by fs_s3a.sh): each cut block is resumed from the byte it reached, also when the bytes before
 * the cut went straight into the reader's buffer, and every byte comes back once, in order. */
static void test_reads_resume_cut_bodies(void **state)
{
    (void)state;
    size_t n = (10u << 20) + 7, mib = 1u << 20;
    uint8_t *src;
    const char *proxy = behind_proxy("S3A_CUT_PROXY_URL", "s3a://live/r/cut", n, &src);
    configure("spark.hadoop.fs.s3a.endpoint", proxy, "spark.hadoop.fs.s3a.retry.interval", "10ms",
              "spark.hadoop.fs.s3a.prefetch.block.size", "3m",
              "spark.hadoop.fs.s3a.prefetch.block.count", "2", NULL, NULL);
    uint8_t *buf = malloc(n + 1);
    read_check("s3a://live/r/cut", src, n, 0, n, mib, buf);
    read_check("s3a://live/r/cut", src, n, 3 * mib + 5, 3 * mib, 7777, buf);
    free(buf);
    free(src);
}

/* Through a proxy that never answers the first ranged GET and every second one after it
 * (S3A_STALL_PROXY_URL): the reader gives up on each after connection.request.timeout and asks
 * again. */
static void test_reads_retry_unanswered_requests(void **state)
{
    (void)state;
    size_t n = (3u << 20) + 7;
    uint8_t *src;
    const char *proxy = behind_proxy("S3A_STALL_PROXY_URL", "s3a://live/r/stall", n, &src);
    configure("spark.hadoop.fs.s3a.endpoint", proxy, "spark.hadoop.fs.s3a.retry.interval", "10ms",
              "spark.hadoop.fs.s3a.connection.request.timeout", "300ms",
              "spark.hadoop.fs.s3a.prefetch.block.size", "1m", NULL, NULL);
    uint8_t *buf = malloc(n + 1);
    read_check("s3a://live/r/stall", src, n, 0, n, 1u << 20, buf);
    free(buf);
    free(src);
}

/* Through a proxy whose answers to ranged GETs say 200 (S3A_AS200_PROXY_URL), as a store that
 * ignores ranges: a read from byte 0 uses the bytes; a read from elsewhere fails with one line
 * naming the object and the range. */
static void test_range_answered_200(void **state)
{
    (void)state;
    size_t n = 100000;
    uint8_t *src;
    const char *proxy = behind_proxy("S3A_AS200_PROXY_URL", "s3a://live/r/as200", n, &src);
    cs_error err;
    configure("spark.hadoop.fs.s3a.endpoint", proxy, NULL, NULL);
    uint8_t *buf = malloc(n + 1);
    read_check("s3a://live/r/as200", src, n, 0, n, 7777, buf);
    cs_fs_reader *r = cs_fs_open("s3a://live/r/as200", 5, n - 5, n, &err);
    assert_non_null(r);
    assert_int_equal(cs_fs_read(r, buf, n, &err), -1);
    assert_non_null(strstr(err.msg, "s3a://live/r/as200: the S3 endpoint "));
    assert_non_null(strstr(err.msg, "answered the ranged GET bytes=5-99999 with the whole object "
                                    "(HTTP 200): it does not serve byte ranges"));
    cs_fs_reader_close(r);
    free(buf);
    free(src);
}

/* connection.request.timeout bounds the wait for a GET's answer, not its body: a consumer slower
 * than the timeout reads its whole split in one request without a retry (retry.limit 0), the
 * request pausing while the consumer is behind. */
static void test_slow_consumer_outlives_request_timeout(void **state)
{
    (void)state;
    cs_fs_configure(NULL);
    size_t n = (10u << 20) + 7, mib = 1u << 20;
    uint8_t *src = pattern_bytes(n);
    cs_error err;
    assert_int_equal(cs_fs_put("s3a://live/r/slow", src, n, &err), 0);
    configure("spark.hadoop.fs.s3a.connection.request.timeout", "200ms",
              "spark.hadoop.fs.s3a.retry.limit", "0", NULL, NULL);
    uint8_t *buf = malloc(n);
    cs_fs_reader *r = cs_fs_open("s3a://live/r/slow", 0, n, n, &err);
    assert_non_null(r);
    size_t got = 0;
    ssize_t k;
    while ((k = cs_fs_read(r, buf + got, mib, &err)) > 0) {
        got += (size_t)k;
        usleep(40 * 1000); /* a consumer busy with each MiB: 10 MiB take longer than 200 ms */
    }
    if (k < 0) fail_msg("%s", err.msg);
    assert_int_equal(got, n);
    assert_memory_equal(buf, src, n);
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

/* The lines of the record proxy's log (S3A_RECORD_PROXY_LOG) that begin with `line`. */
static int recorded(const char *line)
{
    const char *path = getenv("S3A_RECORD_PROXY_LOG");
    if (!path) fail_msg("S3A_RECORD_PROXY_LOG is unset: run me through tests/s3/fs_s3a.sh");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    int n = 0;
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        const char *sp = strchr(buf, ' '); /* after "request=N" */
        if (sp && strncmp(sp + 1, line, strlen(line)) == 0) n++;
    }
    fclose(f);
    return n;
}

/* A key is sent as its own path, byte for byte, and the server accepts the signature: "." and
 * ".." segments stay (libcurl removed them, so in/sub/../../secret/s.txt was read from
 * secret/s.txt), other bytes are percent-encoded as SigV4 wants. (This server stores objects as
 * files, so it cannot keep in/sub/../../secret/s.txt apart from secret/s.txt itself: that the
 * two are read apart is shown against a store that keeps keys verbatim, tests/s3/s3a_hostile.)
 * Through the record proxy (S3A_RECORD_PROXY_URL), which logs each path as it arrives. */
static void test_dot_segment_keys_sent_as_named(void **state)
{
    (void)state;
    const char *proxy = getenv("S3A_RECORD_PROXY_URL");
    if (!proxy) fail_msg("S3A_RECORD_PROXY_URL is unset: run me through tests/s3/fs_s3a.sh");
    configure("spark.hadoop.fs.s3a.endpoint", proxy, NULL, NULL);
    cs_error err;
    put("s3a://live/dots/in/sub/../../secret/s.txt", "dotted\n");
    assert_int_equal(recorded("PUT /live/dots/in/sub/../../secret/s.txt status=200"), 1);
    put("s3a://live/dots/./x.txt", "x\n");
    assert_int_equal(recorded("PUT /live/dots/./x.txt status=200"), 1);
    put("s3a://live/dots/a b+c%=\xc3\xa9~.txt", "odd\n");
    assert_int_equal(recorded("PUT /live/dots/a%20b%2Bc%25%3D%C3%A9~.txt status=200"), 1);
    uint8_t *data;
    size_t len;
    assert_int_equal(cs_fs_get("s3a://live/dots/in/sub/../../secret/s.txt", &data, &len, &err), 0);
    assert_int_equal(len, 7);
    assert_memory_equal(data, "dotted\n", 7);
    free(data);
    assert_int_equal(recorded("GET /live/dots/in/sub/../../secret/s.txt status=20"), 1);
    assert_int_equal(cs_fs_get("s3a://live/dots/a b+c%=\xc3\xa9~.txt", &data, &len, &err), 0);
    assert_memory_equal(data, "odd\n", 4);
    free(data);
    cs_fs_configure(NULL);
    assert_int_equal(cs_fs_delete("s3a://live/dots", true, &err), 0);
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
        cmocka_unit_test(test_ranged_reads_across_chunks),
        cmocka_unit_test(test_reads_resume_cut_bodies),
        cmocka_unit_test(test_reads_retry_unanswered_requests),
        cmocka_unit_test(test_range_answered_200),
        cmocka_unit_test(test_slow_consumer_outlives_request_timeout),
        cmocka_unit_test(test_writer_invisible_until_commit),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_compressed_from_store),
        cmocka_unit_test(test_dot_segment_keys_sent_as_named),
        cmocka_unit_test(test_errors_name_the_cause),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_fs_configure(NULL);
    return rc;
}
