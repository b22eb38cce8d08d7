/* kube_http.c — HTTP transport of the Kubernetes client: pooled CURL handles, per-request curl
 * setup (TLS blobs, bearer token, timeouts), the token-bucket rate limiter, per-verb request
 * counters and the retry loop with exponential backoff and Retry-After.
 *
 * Called by kube_client.c (every CRUD call) and kube_watch.c (handle setup, rate limit).
 * Thread-safe: the pool, the limiter and the token refresh each have their own mutex; counters are
 * atomics. No allocation survives a call except pooled handles (freed by cs_kube_client_free).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "kube/kube_exec.h"
#include "common/sync.h"
#include "kube/kube_internal.h"

static const char *const verb_names[KV_COUNT] = {
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "other"};

int cs_kube_verb_index(const char *verb)
{
    for (int i = 0; i < KV_COUNT; i++) {
        if (verb && !strcmp(verb, verb_names[i])) return i;
    }
    return KV_OTHER;
}

void cs_kube_resp_free(kube_resp *r)
{
    cs_sbuf_free(&r->body);
}

void cs_kube_sleep_ms(int64_t ms, const atomic_bool *stop)
{
    int64_t end = cs_mono_ms() + ms;
    for (;;) {
        if (stop && atomic_load(stop)) return;
        int64_t left = end - cs_mono_ms();
        if (left <= 0) return;
        cs_sleep_ms(left > 20 ? 20 : left);
    }
}

/* ---------------------------------------------------------------- handle pool */

CURL *cs_kube_handle_get(kube_client *c)
{
    CURL *h = cs_curl_pool_get(&c->pool);
    if (!h) {
        CS_ERROR("kube", "curl_easy_init failed");
        abort();
    }
    return h;
}

void cs_kube_handle_put(kube_client *c, CURL *h)
{
    cs_curl_pool_put(&c->pool, h);
}

/* ---------------------------------------------------------------- setup */

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    kube_resp *r = ud;
    size_t n = size * nmemb;
    cs_sbuf_append(&r->body, ptr, n);
    return n;
}

/* Runs the exec credential plugin again when its token expires within a minute (EKS tokens last
 * 15 minutes; cs_kube_exec_refresh_at also keeps a plugin that answers with an expired token
 * from running before every request); on failure the old token is kept and the server's 401
 * will say why. */
static void refresh_exec(kube_client *c)
{
    int64_t now = cs_now_ms();
    if (!c->exec_refresh_at_ms || now < c->exec_refresh_at_ms) return;
    json_t *exec = json_loads(c->exec_json, 0, NULL);
    kube_exec_cred cred;
    cs_error err = {0};
    if (exec && cs_kube_exec_run(exec, c->exec_dir, 0, &cred, &err) == CS_OK) {
        if (cred.token) {
            if (c->token) memset(c->token, 0, strlen(c->token));
            free(c->token);
            c->token = cs_xstrdup(cred.token);
        }
        if (cred.expires_ms && cred.expires_ms <= now)
            CS_WARN("kube", "event=exec_credential_expired expired_ms_ago=%lld",
                    (long long)(now - cred.expires_ms));
        c->exec_refresh_at_ms = cs_kube_exec_refresh_at(cred.expires_ms, now);
        cs_kube_exec_cred_free(&cred);
    } else {
        CS_WARN("kube", "event=exec_credential_refresh_failed msg=%s", cs_log_quote(err.msg));
        c->exec_refresh_at_ms = now + CS_KUBE_EXEC_MIN_REFRESH_MS; /* not in a loop */
    }
    json_decref(exec);
}

/* Re-reads a token file (projected service-account tokens rotate) at most once a minute. */
static void refresh_token(kube_client *c)
{
    if (c->exec_json) refresh_exec(c);
    if (!c->token_file) return;
    int64_t now = cs_mono_ms();
    if (now - c->token_read_ms < 60000) return;
    c->token_read_ms = now;
    FILE *f = fopen(c->token_file, "rb");
    if (!f) return;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    buf[n] = 0;
    if (n > 0 && (!c->token || strcmp(c->token, buf))) {
        free(c->token);
        c->token = cs_xstrdup(buf);
    }
}

static void set_blob(CURL *h, CURLoption opt, const kube_blob *b)
{
    struct curl_blob blob = {.data = b->data, .len = b->len, .flags = CURL_BLOB_COPY};
    curl_easy_setopt(h, opt, &blob);
}

void cs_kube_http_setup(kube_client *c, CURL *h, const kube_req *q, long timeout_ms,
                        struct curl_slist **hdrs, char *errbuf)
{
    curl_easy_reset(h);
    char url[4096];
    snprintf(url, sizeof url, "%s%s", c->server, q->path);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    errbuf[0] = 0;
    curl_easy_setopt(h, CURLOPT_USERAGENT,
                     "cspark/"
                     "0.1");
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    if (c->ca.data) set_blob(h, CURLOPT_CAINFO_BLOB, &c->ca);
    if (c->cert.data) {
        set_blob(h, CURLOPT_SSLCERT_BLOB, &c->cert);
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    }
    if (c->key.data) {
        set_blob(h, CURLOPT_SSLKEY_BLOB, &c->key);
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (c->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }

    struct curl_slist *l = NULL;
    l = curl_slist_append(l, "Accept: application/json");
    char line[512];
    if (q->body) {
        snprintf(line, sizeof line, "Content-Type: %s",
                 q->content_type ? q->content_type : "application/json");
        l = curl_slist_append(l, line);
    }
    pthread_mutex_lock(&c->token_mu);
    refresh_token(c);
    if (c->token) {
        size_t n = strlen(c->token) + 32;
        char *auth = cs_xmalloc(n);
        snprintf(auth, n, "Authorization: Bearer %s", c->token);
        l = curl_slist_append(l, auth);
        free(auth);
    }
    pthread_mutex_unlock(&c->token_mu);
    l = curl_slist_append(l, "Expect:"); /* no 100-continue round trip */
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
    *hdrs = l;

    const char *m = q->method;
    if (!strcmp(m, "GET")) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (q->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, q->body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->body_len);
        if (strcmp(m, "POST")) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
    }
}

/* ---------------------------------------------------------------- rate limit */

void cs_kube_rate_acquire(kube_client *c, const char *verb)
{
    atomic_fetch_add(&c->counts[cs_kube_verb_index(verb)], 1);
    for (;;) {
        pthread_mutex_lock(&c->rl_mu);
        int64_t wait_ms = cs_token_bucket_take(&c->rl, cs_mono_ms());
        pthread_mutex_unlock(&c->rl_mu);
        if (!wait_ms) return;
        cs_sleep_ms(wait_ms);
    }
}

/* ---------------------------------------------------------------- retries */

bool cs_kube_retryable(const kube_resp *r)
{
    if (r->status) {
        return r->status == 429 || r->status == 500 || r->status == 502 || r->status == 503 ||
               r->status == 504;
    }
    switch (r->curl_rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
        return true;
    default:
        return false;
    }
}

/* The server's Warning headers (RFC 7234 style: `299 - "unknown field \"spec.x\""`), e.g. fields
 * it dropped under fieldValidation=Warn, are logged at WARN with the request they answer. */
static size_t header_cb(char *data, size_t size, size_t n, void *arg)
{
    const kube_req *q = arg;
    size_t len = size * n;
    if (len > 8 && !strncasecmp(data, "Warning:", 8)) {
        const char *v = data + 8;
        size_t vl = len - 8;
        while (vl && (*v == ' ' || *v == '\t'))
            v++, vl--;
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
            vl--;
        char *warning = cs_xstrndup(v, vl);
        CS_WARN("kube", "event=server_warning verb=%s resource=%s name=%s warning=%s", q->verb,
                cs_log_value(q->resource ? q->resource : "-"),
                cs_log_value(q->name ? q->name : "-"), cs_log_quote(warning));
        free(warning);
    }
    return len;
}

int64_t cs_kube_retry_delay_ms(int64_t backoff_ms, long retry_after_s, int64_t max_ms)
{
    int64_t delay = backoff_ms;
    if (retry_after_s > 0 && (int64_t)retry_after_s * 1000 > delay)
        delay = (int64_t)retry_after_s * 1000;
    return delay > max_ms ? max_ms : delay;
}

static void perform_once(kube_client *c, const kube_req *q, kube_resp *r)
{
    cs_kube_resp_free(r);
    r->status = 0;
    r->retry_after_s = -1;
    CURL *h = cs_kube_handle_get(c);
    struct curl_slist *hdrs = NULL;
    cs_kube_http_setup(c, h, q, c->timeout_ms, &hdrs, r->curl_msg);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, (void *)q);
    cs_kube_rate_acquire(c, q->verb);
    r->curl_rc = curl_easy_perform(h);
    if (r->curl_rc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
        curl_off_t ra = -1;
        if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0) {
            r->retry_after_s = (long)ra;
        }
    } else if (!r->curl_msg[0]) {
        snprintf(r->curl_msg, sizeof r->curl_msg, "%s", curl_easy_strerror(r->curl_rc));
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, NULL);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, NULL);
    curl_slist_free_all(hdrs);
    if (r->curl_rc != CURLE_OK) {
        curl_easy_cleanup(h); /* a broken connection is not worth keeping */
    } else {
        cs_kube_handle_put(c, h);
    }
}

int cs_kube_http_do(kube_client *c, const kube_req *q, kube_resp *r, cs_error *err)
{
    memset(r, 0, sizeof *r);
    int64_t backoff = c->backoff_ms;
    for (int attempt = 1;; attempt++) {
        perform_once(c, q, r);
        if (r->curl_rc == CURLE_OK && r->status >= 200 && r->status < 300) return CS_OK;
        if (attempt >= c->max_tries || !cs_kube_retryable(r)) break;
        int64_t delay = cs_kube_retry_delay_ms(backoff, r->retry_after_s, c->backoff_max_ms);
        CS_DEBUG("kube", "verb=%s path=%s attempt=%d status=%ld curl=%s retry_in_ms=%lld", q->verb,
                 cs_log_value(q->path), attempt, r->status,
                 cs_log_quote(r->status ? "" : r->curl_msg), (long long)delay);
        cs_kube_sleep_ms(delay, NULL);
        backoff *= 2;
    }
    return cs_kube_error_from(c, q, r, err);
}
