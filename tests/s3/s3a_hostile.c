/*
 * s3a_hostile.c — src/fs's s3a client against an endpoint that misbehaves on purpose
 * (tests/s3/hostile_s3.py, started by tests/s3/s3a_hostile.sh, which exports HOSTILE_S3_URL):
 * a listing that repeats its continuation token, or pages on with empty truncated pages, fails
 * naming the bucket, the prefix and what the server did (it looped for ever).
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
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_fs_configure(NULL);
    return rc;
}
