/*
 * test_s3a_rules.c — the s3a client's pure rules: which failures are retried and how long to
 * wait (no clock: explicit attempts and seeds), SigV4's canonical encoding of keys and queries,
 * URL parsing, and the settings read for a bucket (per-bucket keys over global ones over the AWS
 * environment; malformed values named by their key; no credentials named by what to set).
 */
#include <curl/curl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fs/fs_s3a.h"

static void test_retry_rule(void **state)
{
    (void)state;
    /* retried: throttling, server errors, broken connections */
    assert_true(cs_s3a_retry_delay(503, 0, "SlowDown", 0, 7, 500, 1) >= 250);
    assert_true(cs_s3a_retry_delay(500, 0, NULL, 0, 7, 500, 1) >= 0);
    assert_true(cs_s3a_retry_delay(429, 0, NULL, 0, 7, 500, 1) >= 0);
    assert_true(cs_s3a_retry_delay(400, 0, "RequestTimeout", 0, 7, 500, 1) >= 0);
    assert_true(cs_s3a_retry_delay(0, CURLE_COULDNT_CONNECT, NULL, 0, 7, 500, 1) >= 0);
    assert_true(cs_s3a_retry_delay(0, CURLE_RECV_ERROR, NULL, 0, 7, 500, 1) >= 0);
    assert_true(cs_s3a_retry_delay(0, CURLE_PARTIAL_FILE, NULL, 0, 7, 500, 1) >= 0);
    /* not retried: the client's own mistakes */
    assert_int_equal(cs_s3a_retry_delay(403, 0, "SignatureDoesNotMatch", 0, 7, 500, 1), -1);
    assert_int_equal(cs_s3a_retry_delay(404, 0, "NoSuchBucket", 0, 7, 500, 1), -1);
    assert_int_equal(cs_s3a_retry_delay(0, CURLE_COULDNT_RESOLVE_HOST, NULL, 0, 7, 500, 1), -1);
    /* the limit, and doubling delays with jitter in [d/2, d], capped at 20 s */
    assert_int_equal(cs_s3a_retry_delay(503, 0, NULL, 7, 7, 500, 1), -1);
    for (uint64_t seed = 0; seed < 50; seed++) {
        int64_t d0 = cs_s3a_retry_delay(503, 0, NULL, 0, 9, 500, seed);
        int64_t d3 = cs_s3a_retry_delay(503, 0, NULL, 3, 9, 500, seed);
        int64_t d8 = cs_s3a_retry_delay(503, 0, NULL, 8, 9, 500, seed);
        assert_true(d0 >= 250 && d0 <= 500);
        assert_true(d3 >= 2000 && d3 <= 4000);
        assert_true(d8 >= 10000 && d8 <= 20000);
    }
}

static void test_canonical_encoding(void **state)
{
    (void)state;
    s3a_buf b = {0};
    cs_s3a_encode(&b, "dir/a b+c=d~e_f.g-h%ü", true);
    assert_string_equal((char *)b.data, "dir/a%20b%2Bc%3Dd~e_f.g-h%25%C3%BC");
    cs_s3a_buf_free(&b);
    cs_s3a_query_add(&b, "list-type", "2");
    cs_s3a_query_add(&b, "prefix", "a/b c");
    cs_s3a_query_add(&b, "uploads", NULL);
    assert_string_equal((char *)b.data, "list-type=2&prefix=a%2Fb%20c&uploads=");
    cs_s3a_buf_free(&b);
}

static void test_parse_uri(void **state)
{
    (void)state;
    char *b, *k;
    cs_error err;
    assert_int_equal(cs_s3a_parse_uri("s3a://my-bucket.x/a/b.txt", &b, &k, &err), 0);
    assert_string_equal(b, "my-bucket.x");
    assert_string_equal(k, "a/b.txt");
    free(b);
    free(k);
    assert_int_equal(cs_s3a_parse_uri("s3a://bkt", &b, &k, &err), 0);
    assert_string_equal(k, "");
    free(b);
    free(k);
    assert_int_equal(cs_s3a_parse_uri("s3a://-bad/x", &b, &k, &err), CS_EINVAL);
    assert_int_equal(cs_s3a_parse_uri("s3a://UPPER/x", &b, &k, &err), CS_EINVAL);
    assert_int_equal(cs_s3a_parse_uri("s3a:///x", &b, &k, &err), CS_EINVAL);
    assert_string_equal(err.msg, "malformed URL 's3a:///x': no bucket (expected s3a://BUCKET/KEY)");
}

static void clear_env(void)
{
    const char *vars[] = {"AWS_ACCESS_KEY_ID",  "AWS_SECRET_ACCESS_KEY",       "AWS_SESSION_TOKEN",
                          "AWS_ENDPOINT_URL",   "AWS_ENDPOINT_URL_S3",         "AWS_REGION",
                          "AWS_DEFAULT_REGION", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

static void test_settings(void **state)
{
    (void)state;
    clear_env();
    cs_error err;
    cs_conf *c = cs_conf_new();
    /* nothing at all: say what to set */
    assert_null(cs_s3a_fs_new(c, "data", &err));
    assert_non_null(strstr(err.msg, "no AWS credentials for s3a://data: set "
                                    "spark.hadoop.fs.s3a.access.key"));
    /* the environment */
    setenv("AWS_ACCESS_KEY_ID", "envkey", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
    setenv("AWS_REGION", "eu-west-3", 1);
    s3a_fs *fs = cs_s3a_fs_new(c, "data", &err);
    assert_non_null(fs);
    assert_string_equal(fs->endpoint, "https://s3.eu-west-3.amazonaws.com");
    assert_false(fs->path_style);
    assert_string_equal(fs->creds.access_key, "envkey");
    assert_string_equal(fs->creds.source, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
    assert_int_equal(fs->multipart_size, 64 * 1024 * 1024);
    cs_s3a_fs_free(fs);
    /* keys over the environment, per-bucket over global; an IP endpoint is path-style */
    cs_conf_set(c, "spark.hadoop.fs.s3a.access.key", "k1");
    cs_conf_set(c, "spark.hadoop.fs.s3a.secret.key", "s1");
    cs_conf_set(c, "spark.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000/");
    cs_conf_set(c, "spark.hadoop.fs.s3a.bucket.data.access.key", "k2");
    cs_conf_set(c, "spark.hadoop.fs.s3a.bucket.data.secret.key", "s2");
    cs_conf_set(c, "spark.hadoop.fs.s3a.bucket.data.multipart.size", "8m");
    fs = cs_s3a_fs_new(c, "data", &err);
    assert_non_null(fs);
    assert_string_equal(fs->creds.access_key, "k2");
    assert_string_equal(fs->endpoint, "http://127.0.0.1:9000");
    assert_true(fs->path_style);
    assert_int_equal(fs->multipart_size, 8 * 1024 * 1024);
    cs_s3a_fs_free(fs);
    fs = cs_s3a_fs_new(c, "other", &err);
    assert_string_equal(fs->creds.access_key, "k1");
    cs_s3a_fs_free(fs);
    /* a host without a scheme, and ssl off */
    cs_conf_set(c, "spark.hadoop.fs.s3a.endpoint", "minio.local:9000");
    cs_conf_set(c, "spark.hadoop.fs.s3a.connection.ssl.enabled", "false");
    fs = cs_s3a_fs_new(c, "other", &err);
    assert_string_equal(fs->endpoint, "http://minio.local:9000");
    cs_s3a_fs_free(fs);
    /* malformed values are named by their key */
    cs_conf_set(c, "spark.hadoop.fs.s3a.bucket.data.multipart.size", "1m");
    assert_null(cs_s3a_fs_new(c, "data", &err));
    assert_non_null(strstr(err.msg, "spark.hadoop.fs.s3a.bucket.data.multipart.size: '1m'"));
    cs_conf_unset(c, "spark.hadoop.fs.s3a.bucket.data.multipart.size");
    cs_conf_set(c, "spark.hadoop.fs.s3a.connection.maximum", "lots");
    assert_null(cs_s3a_fs_new(c, "data", &err));
    assert_non_null(strstr(err.msg, "spark.hadoop.fs.s3a.connection.maximum"));
    cs_conf_unset(c, "spark.hadoop.fs.s3a.connection.maximum");
    cs_conf_unset(c, "spark.hadoop.fs.s3a.bucket.data.secret.key");
    cs_conf_unset(c, "spark.hadoop.fs.s3a.secret.key");
    assert_null(cs_s3a_fs_new(c, "data", &err));
    assert_non_null(strstr(err.msg, "access.key is set but"));
    /* web identity */
    cs_conf_free(c);
    c = cs_conf_new();
    clear_env();
    setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/secrets/eks/token", 1);
    assert_null(cs_s3a_fs_new(c, "data", &err));
    assert_string_equal(err.msg, "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");
    setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/spark", 1);
    fs = cs_s3a_fs_new(c, "data", &err);
    assert_non_null(fs);
    assert_string_equal(fs->sts_endpoint, "https://sts.us-east-1.amazonaws.com");
    cs_s3a_fs_free(fs);
    clear_env();
    cs_conf_free(c);
}

/* Regression (issue 21 item 14): a bucket in another region (HTTP 301 PermanentRedirect) failed
 * with no hint; the message now names fs.s3a.endpoint.region and the bucket's region, from the
 * x-amz-bucket-region header, the body's Region, or its Endpoint's host name. */
static void test_redirect_names_the_region(void **state)
{
    (void)state;
    s3a_fs fs = {.bucket = "logs",
                 .endpoint = "https://s3.us-east-1.amazonaws.com",
                 .endpoint_from = "default",
                 .region = "us-east-1"};
    static const char *const bodies[] = {
        "<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access "
        "must be addressed using the specified endpoint.</Message><Endpoint>"
        "logs.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>logs</Bucket></Error>",
        "<Error><Code>PermanentRedirect</Code><Region>eu-west-1</Region></Error>", "", ""};
    for (int i = 0; i < 4; i++) {
        s3a_call c = {.method = i == 3 ? "HEAD" : "GET", .status = 301};
        cs_s3a_resp_append(&c, bodies[i], strlen(bodies[i]));
        if (i == 2) snprintf(c.bucket_region, sizeof c.bucket_region, "eu-west-1");
        cs_error err = {0};
        assert_true(cs_s3a_fail(&fs, &c, CURLE_OK, NULL, "s3a://logs/in/", &err) < 0);
        assert_non_null(strstr(err.msg, "fs.s3a.endpoint.region"));
        assert_non_null(strstr(err.msg, "fs.s3a.bucket.logs.endpoint.region"));
        if (i < 3) {
            assert_non_null(strstr(err.msg, "the bucket's region is eu-west-1"));
        } else {
            assert_non_null(strstr(err.msg, "get-bucket-location")); /* no body, no header */
        }
        cs_s3a_call_reset(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retry_rule),
        cmocka_unit_test(test_canonical_encoding),
        cmocka_unit_test(test_parse_uri),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_redirect_names_the_region),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
