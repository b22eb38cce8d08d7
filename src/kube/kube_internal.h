/* kube_internal.h — the kube_client structure and the transport shared by kube_client.c,
 * kube_http.c, kube_errors.c and kube_watch.c. Not for use outside src/kube/.
 *
 * kube_http.c owns the CURL handle pool, the rate limiter, request counters, retries and the
 * per-request curl setup (TLS material is held in memory and passed as blobs, so a client does not
 * depend on the kube_config's files after cs_kube_client_new). kube_errors.c turns a failed HTTP
 * exchange into one cs_error line.
 *
 * Ownership: kube_resp bodies are malloc'd and released by cs_kube_resp_free; handles taken with
 * cs_kube_handle_get go back with cs_kube_handle_put (or curl_easy_cleanup when broken).
 */
#ifndef CSPARK_KUBE_INTERNAL_H
#define CSPARK_KUBE_INTERNAL_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/curl_pool.h"
#include "common/strutil.h"
#include "common/token_bucket.h"
#include "kube/kube_client.h"

enum {
    KV_GET,
    KV_LIST,
    KV_WATCH,
    KV_CREATE,
    KV_UPDATE,
    KV_PATCH,
    KV_DELETE,
    KV_DELETECOLLECTION,
    KV_OTHER,
    KV_COUNT
};

#define KUBE_POOL_MAX 8

typedef struct kube_blob {
    char *data;
    size_t len;
} kube_blob;

struct kube_client {
    char *server, *ns, *auth_source;
    char *token, *token_file;
    int64_t token_read_ms;
    char *exec_json, *exec_dir; /* exec credential plugin, run again at exec_refresh_at_ms */
    int64_t exec_refresh_at_ms; /* epoch ms (cs_kube_exec_refresh_at), 0 = never */
    pthread_mutex_t token_mu;
    kube_blob ca, cert, key;
    bool insecure;
    char field_validation[8]; /* cspark.kubernetes.fieldValidation: Strict, Warn or Ignore */
    long timeout_ms, connect_timeout_ms;
    int max_tries;
    int64_t backoff_ms, backoff_max_ms;

    cs_curl_pool pool; /* KUBE_POOL_MAX idle handles */

    pthread_mutex_t rl_mu;
    cs_token_bucket rl; /* cspark.kubernetes.client.qps / burst */

    _Atomic int64_t counts[KV_COUNT];
};

/* What a request is about, for messages (all but verb/method/path may be NULL). */
typedef struct kube_req {
    const char *verb;   /* RBAC verb: get list watch create update patch delete deletecollection */
    const char *method; /* HTTP method */
    const char *path;   /* "/api/v1/..." with query */
    const char *resource, *ns, *name;
    const char *content_type;
    const char *body;
    size_t body_len;
} kube_req;

typedef struct kube_resp {
    long status;      /* 0 when no HTTP answer */
    CURLcode curl_rc; /* CURLE_OK when an answer came */
    char curl_msg[CURL_ERROR_SIZE];
    long retry_after_s; /* from Retry-After, -1 if absent */
    cs_sbuf body;       /* the answer's body */
} kube_resp;

void cs_kube_resp_free(kube_resp *r);
int cs_kube_verb_index(const char *verb);

CURL *cs_kube_handle_get(kube_client *c);
void cs_kube_handle_put(kube_client *c, CURL *h);
/* curl_easy_reset + every option common to all requests: URL, method, TLS, auth header list
 * (returned in *hdrs, freed by the caller with curl_slist_free_all after the transfer),
 * timeouts (timeout_ms 0 = none). The write callback/data are left to the caller. */
void cs_kube_http_setup(kube_client *c, CURL *h, const kube_req *q, long timeout_ms,
                        struct curl_slist **hdrs, char *errbuf);
/* Blocks until the rate limiter lets one request through; counts it under `verb`. */
void cs_kube_rate_acquire(kube_client *c, const char *verb);
/* Performs q with retries (see kube_client.h); fills *r with the final exchange. Returns CS_OK
 * for a 2xx answer, else the error code with err filled (cs_kube_error_from). */
int cs_kube_http_do(kube_client *c, const kube_req *q, kube_resp *r, cs_error *err);

/* True for statuses and curl codes worth retrying. */
bool cs_kube_retryable(const kube_resp *r);
/* The wait before the next attempt: the backoff, or the server's Retry-After (seconds, -1 when
 * absent) when longer, at most max_ms. Pure. */
int64_t cs_kube_retry_delay_ms(int64_t backoff_ms, long retry_after_s, int64_t max_ms);
/* Fills err from a failed exchange (code, kind, http_status and the one line); returns the CS_E*
 * code. */
int cs_kube_error_from(const kube_client *c, const kube_req *q, const kube_resp *r, cs_error *err);
/* The kind of an answer with HTTP status `status` and Status.reason `status_reason` (may be
 * NULL): the reason's when it is one the API defines, else the status's. Pure. */
cs_error_kind cs_kube_error_kind(long status, const char *status_reason);

/* Sleeps ms milliseconds, or less if *stop becomes true (polled every 20 ms); stop may be NULL. */
void cs_kube_sleep_ms(int64_t ms, const atomic_bool *stop);

#endif /* CSPARK_KUBE_INTERNAL_H */
