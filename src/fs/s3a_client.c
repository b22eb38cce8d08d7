/*
 * s3a_client.c — one S3 request (see fs_s3a.h). libcurl signs it (CURLOPT_AWS_SIGV4, service
 * s3); we give it what its signer takes as is: the path and query already in SigV4's canonical
 * form for S3 (each byte outside A-Za-z0-9-._~ percent-encoded, '/' kept in the path, query
 * parameters sorted, "name=" for an empty value; S3 never normalises a path, so a key's "." and
 * ".." segments are sent as they are: CURLOPT_PATH_AS_IS) and the x-amz-content-sha256 header
 * (SHA-256 of the body, OpenSSL), which S3 requires and which libcurl then signs with the other
 * x-amz-* headers.
 *
 * Retries (cs_s3a_retry_delay, a pure function): connection refused/reset, timeouts, an empty
 * or cut-off answer, HTTP 500/502/503/504 and 429, and S3's SlowDown, InternalError,
 * RequestTimeout and Throttling codes; up to retry.limit times, the delay doubling from
 * retry.interval to at most 20 s, with jitter. Anything else fails at once with one line.
 *
 * Bodies kept in memory are capped (cs_s3a_resp_append): 1 MiB for an error body, 64 MiB for an
 * XML answer; past the cap the transfer stops and the call fails with one line (an endless
 * listing or error body once took the driver to 2 GB in 2 s).
 */
#define _GNU_SOURCE
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "fs/fs_s3a.h"

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    xmlInitParser();
}

/* ---- buffers and encoding ----------------------------------------------------------------- */

void cs_s3a_buf_append(s3a_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = cs_xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void cs_s3a_buf_free(s3a_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void cs_s3a_encode(s3a_buf *b, const char *s, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '.' || ch == '_' || ch == '~' || (ch == '/' && keep_slash)) {
            cs_s3a_buf_append(b, p, 1);
        } else {
            char e[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            cs_s3a_buf_append(b, e, 3);
        }
    }
}

void cs_s3a_query_add(s3a_buf *q, const char *name, const char *value)
{
    if (q->len) cs_s3a_buf_append(q, "&", 1);
    cs_s3a_encode(q, name, false);
    cs_s3a_buf_append(q, "=", 1);
    if (value) cs_s3a_encode(q, value, false);
}

/* ---- handles ------------------------------------------------------------------------------ */

CURL *cs_s3a_handle_get(s3a_fs *fs)
{
    pthread_once(&init_once, global_init);
    return cs_curl_pool_get(&fs->pool);
}

void cs_s3a_handle_put(s3a_fs *fs, CURL *h)
{
    cs_curl_pool_put(&fs->pool, h);
}

/* ---- one request -------------------------------------------------------------------------- */

bool cs_s3a_resp_append(s3a_call *c, const void *p, size_t n)
{
    size_t cap = c->status >= 300 ? S3A_ERROR_BODY_MAX : S3A_XML_BODY_MAX;
    if (n > cap - c->resp.len) {
        c->resp_over_cap = true;
        return false;
    }
    cs_s3a_buf_append(&c->resp, p, n);
    return true;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    s3a_call *c = arg;
    return cs_s3a_resp_append(c, p, size * n) ? size * n : 0; /* 0: over the cap, stop */
}

/* A header's value without surrounding blanks and the line end, cut to fit out. */
static void header_value(const char *v, size_t k, char *out, size_t cap)
{
    while (k && (*v == ' ' || *v == '\t')) {
        v++;
        k--;
    }
    while (k && (v[k - 1] == '\r' || v[k - 1] == '\n' || v[k - 1] == ' '))
        k--;
    if (k >= cap) k = cap - 1;
    memcpy(out, v, k);
    out[k] = 0;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    s3a_call *c = arg;
    size_t len = size * n;
    if (len > 9 && strncmp(p, "HTTP/", 5) == 0) { /* a status line: the body's cap follows it */
        const char *sp = memchr(p, ' ', len);
        if (sp) c->status = strtol(sp + 1, NULL, 10);
    }
    if (len > 5 && strncasecmp(p, "etag:", 5) == 0)
        header_value(p + 5, len - 5, c->etag, sizeof c->etag);
    if (len > 20 && strncasecmp(p, "x-amz-bucket-region:", 20) == 0)
        header_value(p + 20, len - 20, c->bucket_region, sizeof c->bucket_region);
    return len;
}

static void sha256_hex(const void *data, size_t n, char out[65])
{
    unsigned char md[32];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int cs_s3a_prepare(s3a_fs *fs, CURL *h, s3a_call *c, const s3a_creds *creds,
                   struct curl_slist **headers, char *errbuf, cs_error *err)
{
    curl_easy_reset(h);
    s3a_buf url = {0};
    if (c->url) {
        cs_s3a_buf_append(&url, c->url, strlen(c->url));
    } else {
        if (fs->path_style) {
            cs_s3a_buf_append(&url, fs->endpoint, strlen(fs->endpoint));
            cs_s3a_buf_append(&url, "/", 1);
            cs_s3a_buf_append(&url, fs->bucket, strlen(fs->bucket));
        } else {
            const char *host = strstr(fs->endpoint, "://") + 3;
            cs_s3a_buf_append(&url, fs->endpoint, (size_t)(host - fs->endpoint));
            cs_s3a_buf_append(&url, fs->bucket, strlen(fs->bucket));
            cs_s3a_buf_append(&url, ".", 1);
            cs_s3a_buf_append(&url, host, strlen(host));
        }
        cs_s3a_buf_append(&url, "/", 1);
        if (c->key) cs_s3a_encode(&url, c->key, true);
    }
    if (c->query && *c->query) {
        cs_s3a_buf_append(&url, "?", 1);
        cs_s3a_buf_append(&url, c->query, strlen(c->query));
    }
    curl_easy_setopt(h, CURLOPT_URL, (char *)url.data);
    /* the path is the key, byte for byte: libcurl would otherwise remove "." and ".." segments
     * (RFC 3986) and ask for another key; its SigV4 signer signs the path as sent */
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
    cs_s3a_buf_free(&url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    errbuf[0] = 0;
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)fs->connect_timeout_ms);
    if (fs->idle_timeout_ms > 0) { /* no byte for that long: the connection is dead */
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        long secs = (long)((fs->idle_timeout_ms + 999) / 1000);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, secs);
    }
    if (fs->request_timeout_ms > 0)
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)fs->request_timeout_ms);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cspark-s3a");

    const char *m = c->method;
    struct curl_slist *l = NULL;
    char line[4200];
    if (strcmp(m, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(m, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(m, "PUT") == 0 || strcmp(m, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->body ? (const char *)c->body : "");
        if (strcmp(m, "PUT") == 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
        snprintf(line, sizeof line, "Content-Type: %s",
                 c->content_type ? c->content_type : "application/octet-stream");
        l = curl_slist_append(l, line);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
    }
    if (!c->unsigned_req) {
        char hash[65];
        if (c->body_len)
            sha256_hex(c->body, c->body_len, hash);
        else
            memcpy(hash, EMPTY_SHA256, sizeof hash);
        snprintf(line, sizeof line, "x-amz-content-sha256: %s", hash);
        l = curl_slist_append(l, line);
    }
    if (c->range) {
        snprintf(line, sizeof line, "Range: %s", c->range);
        l = curl_slist_append(l, line);
    }
    if (!c->unsigned_req && !fs->anonymous) {
        if (!creds || !creds->access_key) {
            curl_slist_free_all(l);
            return cs_error_set(err, CS_EAUTH, "no credentials for s3a://%s", fs->bucket);
        }
        if (creds->session_token && *creds->session_token) {
            snprintf(line, sizeof line, "x-amz-security-token: %s", creds->session_token);
            l = curl_slist_append(l, line);
        }
        char provider[160];
        snprintf(provider, sizeof provider, "aws:amz:%s:s3", fs->region);
        curl_easy_setopt(h, CURLOPT_AWS_SIGV4, provider);
        curl_easy_setopt(h, CURLOPT_USERNAME, creds->access_key);
        curl_easy_setopt(h, CURLOPT_PASSWORD, creds->secret_key);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
    *headers = l;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
    return 0;
}

void cs_s3a_call_reset(s3a_call *c)
{
    cs_s3a_buf_free(&c->resp);
    c->resp_over_cap = false;
    c->status = 0;
    c->etag[0] = 0;
    c->bucket_region[0] = 0;
    c->content_length = 0;
}

static bool retryable_curl(int code)
{
    switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

int64_t cs_s3a_retry_delay(long status, int curl_code, const char *s3_code, int attempt, int limit,
                           int64_t interval_ms, uint64_t seed)
{
    bool retry;
    if (curl_code != CURLE_OK)
        retry = retryable_curl(curl_code);
    else
        retry = status == 500 || status == 502 || status == 503 || status == 504 || status == 429 ||
                (s3_code &&
                 (strcmp(s3_code, "SlowDown") == 0 || strcmp(s3_code, "InternalError") == 0 ||
                  strcmp(s3_code, "RequestTimeout") == 0 || strcmp(s3_code, "Throttling") == 0));
    if (!retry || attempt >= limit) return -1;
    int64_t d = interval_ms;
    for (int i = 0; i < attempt && d < 20000; i++)
        d *= 2;
    if (d > 20000) d = 20000;
    /* jitter: between half and all of the delay */
    uint64_t z = seed + (uint64_t)attempt * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ULL;
    int64_t half = d / 2;
    return half + (half > 0 ? (int64_t)(z % (uint64_t)(half + 1)) : 0);
}

/* The Code and Message of an S3 error body (both malloc'd or NULL); region (when not NULL): the
 * bucket's region a redirect names (its Region, else the region of its Endpoint's host name,
 * "<bucket>.s3.<region>.amazonaws.com"), malloc'd or NULL. */
static void s3_error_of_region(const s3a_call *c, char **code, char **msg, char **region)
{
    *code = *msg = NULL;
    if (region) *region = NULL;
    if (!c->resp.len) return;
    xmlDocPtr doc = cs_s3a_xml_parse(&c->resp);
    if (!doc) return;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (root && strcmp((const char *)root->name, "ErrorResponse") == 0)
        root = cs_s3a_xml_child(root, "Error"); /* STS wraps it */
    if (root) {
        *code = cs_s3a_xml_text(root, "Code");
        *msg = cs_s3a_xml_text(root, "Message");
        if (region) *region = cs_s3a_xml_text(root, "Region");
        char *ep = region && !*region ? cs_s3a_xml_text(root, "Endpoint") : NULL;
        const char *s3 = ep ? strstr(ep, "s3.") : NULL,
                   *aws = s3 ? strstr(s3, ".amazonaws.") : NULL;
        if (aws && aws > s3 + 3) *region = strndup(s3 + 3, (size_t)(aws - (s3 + 3)));
        if (aws && aws == s3 + 2) *region = NULL; /* s3.amazonaws.com: us-east-1's global name */
        free(ep);
    }
    xmlFreeDoc(doc);
}

static void s3_error_of(const s3a_call *c, char **code, char **msg)
{
    s3_error_of_region(c, code, msg, NULL);
}

int cs_s3a_fail(s3a_fs *fs, const s3a_call *c, int curl_code, const char *curl_msg, const char *uri,
                cs_error *err)
{
    if (c->resp_over_cap && c->status >= 300)
        return cs_error_set(err, CS_EPROTO,
                            "%s: S3 %s at %s answered HTTP %ld with an error body over %u KiB; "
                            "stopped reading it",
                            uri, c->method, c->url ? c->url : fs->endpoint, c->status,
                            (unsigned)(S3A_ERROR_BODY_MAX >> 10));
    if (c->resp_over_cap)
        return cs_error_set(err, CS_EPROTO,
                            "%s: the answer of S3 %s at %s is over %u MiB (a listing page of "
                            "1,000 keys is a few hundred KiB); stopped reading it",
                            uri, c->method, c->url ? c->url : fs->endpoint,
                            (unsigned)(S3A_XML_BODY_MAX >> 20));
    if (curl_code != CURLE_OK)
        return cs_error_set(err, CS_EIO, "cannot reach the S3 endpoint %s (%s) for %s: %s",
                            c->url ? c->url : fs->endpoint, c->url ? "STS" : fs->endpoint_from, uri,
                            curl_msg && *curl_msg ? curl_msg : curl_easy_strerror(curl_code));
    char *code, *msg, *region;
    s3_error_of_region(c, &code, &msg, &region);
    const char *cd = code ? code : "";
    if (c->bucket_region[0]) {
        free(region);
        region = cs_xstrdup(c->bucket_region);
    }
    char detail[512];
    snprintf(detail, sizeof detail, "%s%s%s", cd, code && msg ? ": " : "", msg ? msg : "");
    int rc;
    /* the credentials were refused (some servers answer an unknown key with 404 and a code of
     * their own, e.g. versitygw's XAdminUserNotFound) */
    if (c->status == 403 || c->status == 401 || strcmp(cd, "InvalidAccessKeyId") == 0 ||
        strcmp(cd, "SignatureDoesNotMatch") == 0 || strcmp(cd, "ExpiredToken") == 0 ||
        strcmp(cd, "InvalidToken") == 0 || strstr(cd, "UserNotFound"))
        rc = cs_error_set(err, CS_EAUTH, "%s: access denied (HTTP %ld %s); check %s", uri,
                          c->status, detail,
                          c->unsigned_req    ? "AWS_ROLE_ARN and the token"
                          : fs->creds.source ? fs->creds.source
                                             : "the credentials");
    else if (c->status == 301 || strcmp(cd, "PermanentRedirect") == 0)
        /* as Hadoop's AWSRedirectException: the bucket lives in another region */
        rc =
            cs_error_set(err, CS_EINVAL,
                         "%s: bucket '%s' is not in region %s: S3 answered HTTP %ld %s%s%s; set "
                         "fs.s3a.endpoint.region (or fs.s3a.bucket.%s.endpoint.region) to %s%s "
                         "(endpoint %s from %s)",
                         uri, fs->bucket, fs->region ? fs->region : "(none)", c->status,
                         code ? cd : "PermanentRedirect", region ? ", the bucket's region is " : "",
                         region ? region : "", fs->bucket, region ? region : "the bucket's region",
                         region ? "" : " (aws s3api get-bucket-location names it)", fs->endpoint,
                         fs->endpoint_from);
    else if (strcmp(cd, "NoSuchBucket") == 0)
        rc = cs_error_set(err, CS_ENOTFOUND, "%s: bucket '%s' does not exist at %s (%s)", uri,
                          fs->bucket, fs->endpoint, fs->endpoint_from);
    else if (c->status == 404)
        rc = cs_error_set(err, CS_ENOTFOUND, "%s: not found (HTTP 404 %s)", uri, detail);
    else
        rc = cs_error_set(err, CS_EIO, "%s: S3 %s failed: HTTP %ld %s", uri, c->method, c->status,
                          detail);
    free(code);
    free(msg);
    free(region);
    return rc;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int cs_s3a_call(s3a_fs *fs, s3a_call *c, const char *uri, cs_error *err)
{
    for (int attempt = 0;; attempt++) {
        cs_s3a_call_reset(c);
        s3a_creds creds = {0};
        if (!c->unsigned_req && !fs->anonymous && cs_s3a_creds_get(fs, &creds, err) < 0)
            return err ? err->code : CS_EAUTH;
        CURL *h = cs_s3a_handle_get(fs);
        struct curl_slist *hdrs = NULL;
        char errbuf[CURL_ERROR_SIZE];
        int rc = cs_s3a_prepare(fs, h, c, &creds, &hdrs, errbuf, err);
        cs_s3a_creds_clear(&creds);
        if (rc < 0) {
            cs_s3a_handle_put(fs, h);
            return rc;
        }
        CURLcode cc = curl_easy_perform(h);
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status);
        curl_off_t cl = -1;
        curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        c->content_length = cl >= 0 ? (uint64_t)cl : 0;
        curl_slist_free_all(hdrs);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
        if (cc != CURLE_OK) {
            curl_easy_cleanup(h); /* a broken connection is not pooled */
        } else {
            cs_s3a_handle_put(fs, h);
        }
        if (cc == CURLE_OK && c->status >= 200 && c->status < 300) return 0;
        if (cc == CURLE_OK && c->status == 404 && c->key && strcmp(c->method, "HEAD") == 0)
            return CS_ENOTFOUND; /* a HEAD has no body: the caller tells what is missing */
        char *code = NULL, *msg = NULL;
        if (cc == CURLE_OK) s3_error_of(c, &code, &msg);
        int64_t delay = cs_s3a_retry_delay(c->status, (int)cc, code, attempt, fs->retry_limit,
                                           fs->retry_interval_ms,
                                           (uint64_t)cs_mono_ms() ^ (uint64_t)(uintptr_t)c);
        free(code);
        free(msg);
        if (delay < 0) return cs_s3a_fail(fs, c, (int)cc, errbuf, uri, err);
        CS_WARN("s3a", "uri=%s attempt=%d status=%ld error=%s retry_in_ms=%lld", cs_log_quote(uri),
                attempt + 1, c->status,
                cs_log_quote(cc != CURLE_OK ? (errbuf[0] ? errbuf : curl_easy_strerror(cc))
                                            : "server error"),
                (long long)delay);
        sleep_ms(delay);
    }
}

/* ---- XML ---------------------------------------------------------------------------------- */

xmlDocPtr cs_s3a_xml_parse(const s3a_buf *b)
{
    pthread_once(&init_once, global_init);
    if (!b->len) return NULL;
    return xmlReadMemory((const char *)b->data, (int)b->len, NULL, NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                             XML_PARSE_NOBLANKS);
}

xmlNodePtr cs_s3a_xml_child(xmlNodePtr parent, const char *name)
{
    for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0) return n;
    return NULL;
}

char *cs_s3a_xml_text(xmlNodePtr parent, const char *name)
{
    xmlNodePtr n = cs_s3a_xml_child(parent, name);
    if (!n) return NULL;
    xmlChar *t = xmlNodeGetContent(n);
    char *s = cs_xstrdup(t ? (const char *)t : "");
    xmlFree(t);
    return s;
}
