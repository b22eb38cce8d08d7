/*
 * s3a_conf.c — the settings and credentials of one bucket, as Hadoop's S3A reads them (see
 * fs_s3a.h). Every setting is looked up first as spark.hadoop.fs.s3a.bucket.NAME.<option>, then
 * as spark.hadoop.fs.s3a.<option>, then in the AWS environment where the SDK has a variable:
 *
 *   endpoint             AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL; default
 * https://s3.REGION.amazonaws.com (a host without a scheme gets https://, or http:// when
 *                        connection.ssl.enabled=false)
 *   endpoint.region      AWS_REGION, AWS_DEFAULT_REGION; default us-east-1
 *   path.style.access    default false; an endpoint that is an IP address is always path-style
 *   access.key, secret.key, session.token
 *                        then AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, then a
 *                        web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN (+
 *                        AWS_ROLE_SESSION_NAME) exchanged at STS (AWS_ENDPOINT_URL_STS,
 *                        assumed.role.sts.endpoint, AWS_ENDPOINT_URL, or sts.REGION.amazonaws.com)
 *                        with AssumeRoleWithWebIdentity, refreshed 5 minutes before they expire
 *                        — what IRSA and EKS Pod Identity give a pod
 *   aws.credentials.provider  containing "Anonymous": unsigned requests (public buckets)
 *   connection.maximum   96: pooled connections, and the ceiling of a reader's parallel GETs
 *   retry.limit, retry.interval   7, 500ms: retries of throttled/failed requests, doubling
 *   connection.establish.timeout, connection.timeout, connection.request.timeout   30s, 200s (no
 *                        byte for that long), 60s (a whole request; a stalled one is retried)
 *   multipart.size       64M: bytes per uploaded part (at least 5M, S3's minimum)
 *   prefetch.block.size, prefetch.block.count   8M, 8: a split's ranged GETs and how many run
 *                        at once
 * A malformed value is refused with one line naming the key that holds it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/conf.h"
#include "fs/fs_s3a.h"

#define PREFIX "spark.hadoop.fs.s3a."

/* The value of option `name` for the bucket and the key it came from (written to key). */
static const char *opt(const cs_conf *c, const char *bucket, const char *name, char *key,
                       size_t cap)
{
    const char *v = NULL;
    if (c) {
        snprintf(key, cap, PREFIX "bucket.%s.%s", bucket, name);
        if ((v = cs_conf_get(c, key)) && *v) return v;
        snprintf(key, cap, PREFIX "%s", name);
        if ((v = cs_conf_get(c, key)) && *v) return v;
    }
    snprintf(key, cap, PREFIX "%s", name);
    return NULL;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int opt_int(const cs_conf *c, const char *bucket, const char *name, int64_t dflt,
                   int64_t min, int64_t *out, cs_error *err)
{
    char key[512];
    const char *v = opt(c, bucket, name, key, sizeof key);
    *out = dflt;
    if (!v) return 0;
    if (cs_conf_parse_int(key, v, out, err) < 0) return CS_EINVAL;
    if (*out < min)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for %s: '%s' (expected an integer of "
                            "at least %lld)",
                            key, v, (long long)min);
    return 0;
}

static int opt_size(const cs_conf *c, const char *bucket, const char *name, const char *dflt,
                    int64_t min, int64_t *out, cs_error *err)
{
    char key[512];
    const char *v = opt(c, bucket, name, key, sizeof key);
    if (cs_conf_parse_size(key, v ? v : dflt, CS_BYTE, out, err) < 0) return CS_EINVAL;
    if (*out < min)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for %s: '%s' (expected a size of at "
                            "least %lldk)",
                            key, v, (long long)(min / 1024));
    return 0;
}

static int opt_duration(const cs_conf *c, const char *bucket, const char *name, const char *dflt,
                        int64_t *out, cs_error *err)
{
    char key[512];
    const char *v = opt(c, bucket, name, key, sizeof key);
    if (cs_conf_parse_duration_ms(key, v ? v : dflt, CS_MS, out, err) < 0) return CS_EINVAL;
    if (*out < 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for %s: '%s' (expected a duration of "
                            "0 or more)",
                            key, v);
    return 0;
}

static int opt_bool(const cs_conf *c, const char *bucket, const char *name, bool dflt, bool *out,
                    cs_error *err)
{
    char key[512];
    const char *v = opt(c, bucket, name, key, sizeof key);
    *out = dflt;
    return v ? cs_conf_parse_bool(key, v, out, err) : 0;
}

/* Checks an endpoint URL and strips its trailing slashes; sets *ip when the host is an address. */
static int check_endpoint(s3a_fs *fs, const char *from, bool *ip, cs_error *err)
{
    CURLU *u = curl_url();
    char *host = NULL, *scheme = NULL, *path = NULL;
    int rc = 0;
    if (curl_url_set(u, CURLUPART_URL, fs->endpoint, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for %s: '%s' (expected a URL such as "
                          "https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000)",
                          from, fs->endpoint);
        goto out;
    }
    curl_url_get(u, CURLUPART_PATH, &path, 0);
    if (path && strcmp(path, "/") && *path) {
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for %s: '%s' (expected no path after the host)", from,
                          fs->endpoint);
        goto out;
    }
    unsigned char a[16];
    const char *h = host;
    char bare[256];
    if (h[0] == '[') { /* [::1] */
        snprintf(bare, sizeof bare, "%.*s", (int)strlen(h) - 2, h + 1);
        h = bare;
    }
    *ip = inet_pton(AF_INET, h, a) == 1 || inet_pton(AF_INET6, h, a) == 1;
    size_t n = strlen(fs->endpoint);
    while (n > 0 && fs->endpoint[n - 1] == '/')
        fs->endpoint[--n] = 0;
out:
    curl_free(host);
    curl_free(scheme);
    curl_free(path);
    curl_url_cleanup(u);
    return rc;
}

static int read_settings(s3a_fs *fs, const cs_conf *c, cs_error *err)
{
    const char *b = fs->bucket;
    char key[512];
    const char *v;
    /* region */
    if ((v = opt(c, b, "endpoint.region", key, sizeof key)) || (v = env("AWS_REGION")) ||
        (v = env("AWS_DEFAULT_REGION")))
        fs->region = cs_xstrdup(v);
    else
        fs->region = cs_xstrdup("us-east-1");
    /* endpoint */
    bool ssl;
    if (opt_bool(c, b, "connection.ssl.enabled", true, &ssl, err) < 0) return CS_EINVAL;
    const char *from = NULL;
    if ((v = opt(c, b, "endpoint", key, sizeof key)))
        from = key;
    else if ((v = env("AWS_ENDPOINT_URL_S3")))
        from = "AWS_ENDPOINT_URL_S3";
    else if ((v = env("AWS_ENDPOINT_URL")))
        from = "AWS_ENDPOINT_URL";
    char buf[1024];
    if (!v) {
        snprintf(buf, sizeof buf, "https://s3.%s.amazonaws.com", fs->region);
        v = buf;
        from = "spark.hadoop.fs.s3a.endpoint";
    } else if (!strstr(v, "://")) {
        snprintf(buf, sizeof buf, "%s://%s", ssl ? "https" : "http", v);
        v = buf;
    }
    fs->endpoint = cs_xstrdup(v);
    fs->endpoint_from = cs_xstrdup(from);
    bool ip = false;
    if (check_endpoint(fs, fs->endpoint_from, &ip, err) < 0) return CS_EINVAL;
    if (opt_bool(c, b, "path.style.access", false, &fs->path_style, err) < 0) return CS_EINVAL;
    if (ip || strchr(fs->bucket, '.')) fs->path_style = true; /* no virtual host possible */
    /* limits */
    int64_t i;
    if (opt_int(c, b, "connection.maximum", 96, 1, &i, err) < 0) return CS_EINVAL;
    fs->max_connections = (int)(i > 100000 ? 100000 : i);
    if (opt_int(c, b, "retry.limit", 7, 0, &i, err) < 0) return CS_EINVAL;
    fs->retry_limit = (int)(i > 1000 ? 1000 : i);
    if (opt_duration(c, b, "retry.interval", "500ms", &fs->retry_interval_ms, err) < 0 ||
        opt_duration(c, b, "connection.establish.timeout", "30s", &fs->connect_timeout_ms, err) <
            0 ||
        opt_duration(c, b, "connection.timeout", "200s", &fs->idle_timeout_ms, err) < 0 ||
        opt_duration(c, b, "connection.request.timeout", "60s", &fs->request_timeout_ms, err) < 0)
        return CS_EINVAL;
    if (opt_size(c, b, "multipart.size", "64M", 5 * CS_MiB, &fs->multipart_size, err) < 0 ||
        opt_size(c, b, "prefetch.block.size", "8M", 64 * CS_KiB, &fs->block_size, err) < 0)
        return CS_EINVAL;
    if (opt_int(c, b, "prefetch.block.count", 8, 1, &i, err) < 0) return CS_EINVAL;
    fs->block_count = (int)(i > 256 ? 256 : i);
    return 0;
}

static int read_credentials(s3a_fs *fs, const cs_conf *c, cs_error *err)
{
    const char *b = fs->bucket;
    char key[512], skey[512], tkey[512];
    const char *v = opt(c, b, "aws.credentials.provider", key, sizeof key);
    if (v && strstr(v, "Anonymous")) {
        fs->anonymous = true;
        fs->creds.source = "spark.hadoop.fs.s3a.aws.credentials.provider";
        return 0;
    }
    const char *ak = opt(c, b, "access.key", key, sizeof key);
    const char *sk = opt(c, b, "secret.key", skey, sizeof skey);
    const char *st = opt(c, b, "session.token", tkey, sizeof tkey);
    if (ak || sk) {
        if (!ak || !sk)
            return cs_error_set(err, CS_EINVAL,
                                "%s is set but %s is not (both are needed for "
                                "s3a://%s)",
                                ak ? key : skey, ak ? skey : key, b);
        fs->creds.access_key = cs_xstrdup(ak);
        fs->creds.secret_key = cs_xstrdup(sk);
        fs->creds.session_token = cs_xstrdup(st);
        fs->creds.source = strstr(key, ".bucket.") ? "spark.hadoop.fs.s3a.bucket.NAME.access.key "
                                                     "and .secret.key"
                                                   : "spark.hadoop.fs.s3a.access.key and "
                                                     "spark.hadoop.fs.s3a.secret.key";
        return 0;
    }
    if (env("AWS_ACCESS_KEY_ID") || env("AWS_SECRET_ACCESS_KEY")) {
        if (!env("AWS_ACCESS_KEY_ID") || !env("AWS_SECRET_ACCESS_KEY"))
            return cs_error_set(
                err, CS_EINVAL, "%s is set but %s is not",
                env("AWS_ACCESS_KEY_ID") ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                env("AWS_ACCESS_KEY_ID") ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
        fs->creds.access_key = cs_xstrdup(env("AWS_ACCESS_KEY_ID"));
        fs->creds.secret_key = cs_xstrdup(env("AWS_SECRET_ACCESS_KEY"));
        fs->creds.session_token = cs_xstrdup(env("AWS_SESSION_TOKEN"));
        fs->creds.source = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";
        return 0;
    }
    if (env("AWS_WEB_IDENTITY_TOKEN_FILE")) {
        if (!env("AWS_ROLE_ARN"))
            return cs_error_set(err, CS_EINVAL,
                                "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");
        fs->web_token_file = cs_xstrdup(env("AWS_WEB_IDENTITY_TOKEN_FILE"));
        fs->web_role_arn = cs_xstrdup(env("AWS_ROLE_ARN"));
        char name[64];
        snprintf(name, sizeof name, "cspark-%d", (int)getpid());
        fs->web_session_name =
            cs_xstrdup(env("AWS_ROLE_SESSION_NAME") ? env("AWS_ROLE_SESSION_NAME") : name);
        const char *sts = env("AWS_ENDPOINT_URL_STS");
        if (!sts) sts = opt(c, b, "assumed.role.sts.endpoint", key, sizeof key);
        if (!sts) sts = env("AWS_ENDPOINT_URL");
        char def[256];
        if (!sts) {
            snprintf(def, sizeof def, "https://sts.%s.amazonaws.com", fs->region);
            sts = def;
        }
        fs->sts_endpoint = cs_xstrdup(sts);
        fs->creds.source = "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN (STS "
                           "AssumeRoleWithWebIdentity)";
        return 0;
    }
    return cs_error_set(err, CS_EAUTH,
                        "no AWS credentials for s3a://%s: set spark.hadoop.fs.s3a.access.key and "
                        "spark.hadoop.fs.s3a.secret.key, AWS_ACCESS_KEY_ID and "
                        "AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN",
                        b);
}

s3a_fs *cs_s3a_fs_new(const cs_conf *conf, const char *bucket, cs_error *err)
{
    s3a_fs *fs = cs_xcalloc(1, sizeof *fs);
    fs->bucket = cs_xstrdup(bucket);
    pthread_mutex_init(&fs->creds_lock, NULL);
    if (read_settings(fs, conf, err) < 0 || read_credentials(fs, conf, err) < 0) {
        cs_s3a_fs_free(fs);
        return NULL;
    }
    cs_curl_pool_init(&fs->pool, fs->max_connections);
    return fs;
}

void cs_s3a_creds_clear(s3a_creds *c)
{
    free(c->access_key);
    free(c->secret_key);
    free(c->session_token);
    c->access_key = c->secret_key = c->session_token = NULL;
}

void cs_s3a_fs_free(s3a_fs *fs)
{
    if (!fs) return;
    cs_curl_pool_destroy(&fs->pool);
    cs_s3a_creds_clear(&fs->creds);
    free(fs->bucket);
    free(fs->endpoint);
    free(fs->endpoint_from);
    free(fs->region);
    free(fs->web_token_file);
    free(fs->web_role_arn);
    free(fs->web_session_name);
    free(fs->sts_endpoint);
    pthread_mutex_destroy(&fs->creds_lock);
    free(fs);
}

/* ---- web identity ------------------------------------------------------------------------- */

int64_t cs_s3a_iso8601_ms(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!end) return 0;
    int64_t ms = 0;
    if (*end == '.') /* fractional seconds: the first three digits are milliseconds */
        for (int i = 0, scale = 100; i < 3 && end[1 + i] >= '0' && end[1 + i] <= '9';
             i++, scale /= 10)
            ms += (end[1 + i] - '0') * scale;
    return (int64_t)timegm(&tm) * 1000 + ms;
}

/* AssumeRoleWithWebIdentity: the token file's current content for temporary credentials. */
static int web_identity_fetch(s3a_fs *fs, s3a_creds *out, cs_error *err)
{
    FILE *f = fopen(fs->web_token_file, "r");
    if (!f)
        return cs_error_set(err, CS_EAUTH, "cannot read AWS_WEB_IDENTITY_TOKEN_FILE %s: %s",
                            fs->web_token_file, strerror(errno));
    char *token = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&token, &cap, 0, f);
    fclose(f);
    if (n <= 0) {
        free(token);
        return cs_error_set(err, CS_EAUTH, "AWS_WEB_IDENTITY_TOKEN_FILE %s is empty",
                            fs->web_token_file);
    }
    while (n > 0 && (token[n - 1] == '\n' || token[n - 1] == '\r' || token[n - 1] == ' '))
        token[--n] = 0;
    s3a_buf body = {0};
    cs_s3a_query_add(&body, "Action", "AssumeRoleWithWebIdentity");
    cs_s3a_query_add(&body, "RoleArn", fs->web_role_arn);
    cs_s3a_query_add(&body, "RoleSessionName", fs->web_session_name);
    cs_s3a_query_add(&body, "Version", "2011-06-15");
    cs_s3a_query_add(&body, "WebIdentityToken", token);
    free(token);
    char url[1100];
    snprintf(url, sizeof url, "%s/", fs->sts_endpoint);
    s3a_call c = {.method = "POST",
                  .url = url,
                  .unsigned_req = true,
                  .body = body.data,
                  .body_len = body.len,
                  .content_type = "application/x-www-form-urlencoded"};
    char what[1200];
    snprintf(what, sizeof what, "STS AssumeRoleWithWebIdentity at %s for role %s", fs->sts_endpoint,
             fs->web_role_arn);
    int rc = cs_s3a_call(fs, &c, what, err);
    cs_s3a_buf_free(&body);
    if (rc < 0) {
        cs_s3a_call_reset(&c);
        return rc;
    }
    xmlDocPtr doc = cs_s3a_xml_parse(&c.resp);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    xmlNodePtr result = root ? cs_s3a_xml_child(root, "AssumeRoleWithWebIdentityResult") : NULL;
    xmlNodePtr cr = result ? cs_s3a_xml_child(result, "Credentials") : NULL;
    if (cr) {
        out->access_key = cs_s3a_xml_text(cr, "AccessKeyId");
        out->secret_key = cs_s3a_xml_text(cr, "SecretAccessKey");
        out->session_token = cs_s3a_xml_text(cr, "SessionToken");
        char *exp = cs_s3a_xml_text(cr, "Expiration");
        out->expires_ms = exp ? cs_s3a_iso8601_ms(exp) : 0;
        free(exp);
    }
    if (doc) xmlFreeDoc(doc);
    cs_s3a_call_reset(&c);
    if (!out->access_key || !out->secret_key) {
        cs_s3a_creds_clear(out);
        return cs_error_set(err, CS_EPROTO, "%s: the answer holds no credentials", what);
    }
    if (!out->expires_ms) out->expires_ms = cs_now_ms() + 15 * 60 * 1000;
    return 0;
}

int cs_s3a_creds_get(s3a_fs *fs, s3a_creds *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&fs->creds_lock);
    int rc = 0;
    if (fs->web_token_file &&
        (!fs->creds.access_key || cs_now_ms() > fs->creds.expires_ms - 5 * 60 * 1000)) {
        s3a_creds fresh = {0};
        /* the lock serialises refreshes: one STS call however many tasks need credentials */
        rc = web_identity_fetch(fs, &fresh, err);
        if (rc == 0) {
            cs_s3a_creds_clear(&fs->creds);
            fs->creds.access_key = fresh.access_key;
            fs->creds.secret_key = fresh.secret_key;
            fs->creds.session_token = fresh.session_token;
            fs->creds.expires_ms = fresh.expires_ms;
        }
    }
    if (rc == 0) {
        out->access_key = cs_xstrdup(fs->creds.access_key);
        out->secret_key = cs_xstrdup(fs->creds.secret_key);
        out->session_token = cs_xstrdup(fs->creds.session_token);
        out->source = fs->creds.source;
        out->expires_ms = fs->creds.expires_ms;
    }
    pthread_mutex_unlock(&fs->creds_lock);
    return rc;
}
