/*
 * s3a_hostile.c — src/fs's s3a client against an endpoint that misbehaves on purpose
 * (tests/s3/hostile_s3.py, started by tests/s3/s3a_hostile.sh, which exports HOSTILE_S3_URL):
 * a listing that repeats its continuation token, or pages on with empty truncated pages, fails
 * naming the bucket, the prefix and what the server did (it looped for ever); a listing or an
 * error body that never ends fails at its cap (it grew to gigabytes); keys with "." and ".."
 * segments are their own keys, read and written at the path that names them (libcurl used to
 * remove dot segments and read another key).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fs/fs.h"

static void configure_hostile(void)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.hadoop.fs.s3a.endpoint", getenv("HOSTILE_S3_URL"));
    cs_conf_set(c, "spark.hadoop.fs.s3a.path.style.access", "true");
    cs_conf_set(c, "spark.hadoop.fs.s3a.access.key", "AKHOSTILE");
    cs_conf_set(c, "spark.hadoop.fs.s3a.secret.key", "hostile");
    cs_conf_set(c, "spark.hadoop.fs.s3a.retry.limit", "1");
    cs_conf_set(c, "spark.hadoop.fs.s3a.retry.interval", "10ms");
    cs_fs_configure(c);
    cs_conf_free(c);
}

static void test_listing_repeating_its_token_fails(void **state)
{
    (void)state;
    configure_hostile();
    cs_fs_listing l = {0};
    cs_error err;
    assert_int_equal(cs_fs_expand("s3a://repeat-token/k", &l, &err), CS_EPROTO);
    fprintf(stderr, "  (error: %s)\n", err.msg);
    assert_non_null(strstr(err.msg, "bucket 'repeat-token'"));
    assert_non_null(strstr(err.msg, "prefix 'k/'"));
    assert_non_null(strstr(err.msg, "continuation token 'same-token' again"));
    cs_fs_listing_free(&l);
}

static void test_listing_of_empty_truncated_pages_fails(void **state)
{
    (void)state;
    configure_hostile();
    cs_fs_listing l = {0};
    cs_error err;
    assert_int_equal(cs_fs_expand("s3a://empty-pages/k", &l, &err), CS_EPROTO);
    fprintf(stderr, "  (error: %s)\n", err.msg);
    assert_non_null(strstr(err.msg, "bucket 'empty-pages'"));
    assert_non_null(strstr(err.msg, "prefix 'k/'"));
    assert_non_null(strstr(err.msg, "truncated page with no key and no prefix"));
    cs_fs_listing_free(&l);
}

/* A listing page that never ends stops at its cap (it grew to gigabytes and aborted). */
static void test_endless_listing_body_stops_at_cap(void **state)
{
    (void)state;
    configure_hostile();
    cs_fs_listing l = {0};
    cs_error err;
    assert_int_equal(cs_fs_expand("s3a://endless-list/k", &l, &err), CS_EPROTO);
    fprintf(stderr, "  (error: %s)\n", err.msg);
    assert_non_null(strstr(err.msg, "s3a://endless-list/k: the answer of S3 GET at "));
    assert_non_null(strstr(err.msg, "is over 64 MiB"));
    cs_fs_listing_free(&l);
}

/* Error bodies that never end stop at 1 MiB: of a request (a PUT) and of a reader's GET. */
static void test_endless_error_body_stops_at_cap(void **state)
{
    (void)state;
    configure_hostile();
    cs_error err;
    assert_int_equal(cs_fs_put("s3a://endless-error/k/a.txt", "x", 1, &err), CS_EPROTO);
    fprintf(stderr, "  (error: %s)\n", err.msg);
    assert_non_null(strstr(err.msg, "S3 PUT at "));
    assert_non_null(strstr(err.msg, "answered HTTP 400 with an error body over 1024 KiB"));
    cs_fs_reader *r = cs_fs_open("s3a://endless-error/k/a.txt", 0, 10, 10, &err);
    char buf[16];
    ssize_t k = r ? cs_fs_read(r, buf, sizeof buf, &err) : -1;
    assert_true(k < 0);
    fprintf(stderr, "  (error: %s)\n", err.msg);
    assert_non_null(strstr(err.msg, "answered HTTP 400 with an error body over 1024 KiB"));
    cs_fs_reader_close(r);
}

/* Two keys the request path must keep apart: the first, with dot segments, is not the second. */
static void test_dot_segment_keys_read_their_own_bytes(void **state)
{
    (void)state;
    configure_hostile();
    cs_error err;
    const char *secret = "s3a://verbatim/secret/s.txt",
               *dotted = "s3a://verbatim/in/sub/../../secret/s.txt";
    assert_int_equal(cs_fs_put(secret, "secret bytes\n", 13, &err), 0);
    assert_int_equal(cs_fs_put(dotted, "dotted bytes\n", 13, &err), 0);
    assert_int_equal(cs_fs_put("s3a://verbatim/in/./x.txt", "dot\n", 4, &err), 0);
    /* read as a job reads a listed key: through the listing and a reader */
    cs_fs_listing l = {0};
    assert_int_equal(cs_fs_expand("s3a://verbatim/in/sub/../../secret", &l, &err), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].uri, dotted);
    cs_fs_reader *r = cs_fs_open(l.v[0].uri, 0, l.v[0].size, l.v[0].size, &err);
    assert_non_null(r);
    char buf[64];
    size_t got = 0;
    for (ssize_t k; (k = cs_fs_read(r, buf + got, sizeof buf - got, &err)) > 0;)
        got += (size_t)k;
    cs_fs_reader_close(r);
    cs_fs_listing_free(&l);
    assert_int_equal(got, 13);
    assert_memory_equal(buf, "dotted bytes\n", 13);
    uint8_t *data;
    size_t len;
    assert_int_equal(cs_fs_get(secret, &data, &len, &err), 0);
    assert_int_equal(len, 13);
    assert_memory_equal(data, "secret bytes\n", 13);
    free(data);
    assert_int_equal(cs_fs_get("s3a://verbatim/in/./x.txt", &data, &len, &err), 0);
    assert_memory_equal(data, "dot\n", 4);
    free(data);
    cs_fs_status st;
    assert_int_equal(cs_fs_stat("s3a://verbatim/in/x.txt", &st, &err), 0);
    assert_false(st.exists);
}

int main(void)
{
    if (!getenv("HOSTILE_S3_URL")) {
        fprintf(stderr,
                "s3a_hostile: run me from tests/s3/s3a_hostile.sh (HOSTILE_S3_URL unset)\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listing_repeating_its_token_fails),
        cmocka_unit_test(test_listing_of_empty_truncated_pages_fails),
        cmocka_unit_test(test_endless_listing_body_stops_at_cap),
        cmocka_unit_test(test_endless_error_body_stops_at_cap),
        cmocka_unit_test(test_dot_segment_keys_read_their_own_bytes),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_fs_configure(NULL);
    return rc;
}
