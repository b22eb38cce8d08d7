/*
 * fs_s3a.h — private to src/fs: the S3A file system's pieces and what they share.
 *
 *   s3a_conf.c    settings of one bucket (Spark's spark.hadoop.fs.s3a.* keys, per-bucket
 *                 overrides spark.hadoop.fs.s3a.bucket.NAME.*, the AWS environment) and its
 *                 credentials (keys, environment, web-identity token through STS)
 *   s3a_client.c  one request: URL and query in SigV4 canonical form, signing by libcurl
 *                 (CURLOPT_AWS_SIGV4), retries with backoff, S3 errors turned into one line
 *                 naming the URL and the key to check; XML responses parsed with libxml2
 *   fs_s3a.c      the backend of fs.c's table: list (ListObjectsV2, paged; globs), stat,
 *                 delete, put, and pending multipart uploads (commit, abort, encode)
 *   s3a_reader.c  a split in one GET, or in parallel ranged GETs when that reads faster
 *   s3a_writer.c  multipart upload of a file, completed only by its pending commit
 *
 * An s3a_fs is created on first use of a bucket, cached (fs_s3a.c) and never freed before the
 * process ends or cs_fs_configure replaces the configuration (then it is freed when its last
 * user releases it). Its handle pool (common/curl_pool) and its credentials (creds_lock) are safe
 * from any thread; everything else in it is read-only after creation.
 */
#ifndef CSPARK_FS_FS_S3A_H
#define CSPARK_FS_FS_S3A_H

#include <curl/curl.h>
#include <libxml/tree.h>
#include <pthread.h>

#include "common/curl_pool.h"
#include "fs/fs_internal.h"

/* ---- a bucket's file system (s3a_conf.c) --------------------------------------------------- */

typedef struct s3a_creds {
    char *access_key, *secret_key, *session_token;
    const char *source; /* what to check when they are refused: a key or variable name */
    int64_t expires_ms; /* web identity: when to refresh (0: never) */
} s3a_creds;

typedef struct s3a_fs {
    char *bucket;
    char *endpoint;      /* scheme://host[:port], no trailing slash */
    char *endpoint_from; /* the key or variable that gave it, for messages */
    char *region;
    bool path_style;
    bool anonymous;
    int max_connections;
    int retry_limit;
    int64_t retry_interval_ms;
    int64_t connect_timeout_ms;
    int64_t idle_timeout_ms;    /* no byte for this long: the connection is dead */
    int64_t request_timeout_ms; /* a whole request (0: none) */
    int64_t multipart_size;     /* bytes per uploaded part */
    int64_t block_size;         /* bytes per ranged GET of a split */
    int block_count;            /* ranged GETs in flight per reader */
    char *web_token_file;       /* AWS_WEB_IDENTITY_TOKEN_FILE */
    char *web_role_arn;         /* AWS_ROLE_ARN */
    char *web_session_name;     /* AWS_ROLE_SESSION_NAME */
    char *sts_endpoint;         /* where AssumeRoleWithWebIdentity goes */
    pthread_mutex_t creds_lock; /* creds, and one STS exchange at a time */
    s3a_creds creds;            /* guarded by creds_lock */
    cs_curl_pool pool;          /* max_connections idle handles */
    int refs;                   /* guarded by the cache's lock (fs_s3a.c) */
    unsigned generation;
} s3a_fs;

/* Reads the bucket's settings from conf (may be NULL) and the environment. NULL + one line naming
 * the key when a value is malformed. */
s3a_fs *cs_s3a_fs_new(const cs_conf *conf, const char *bucket, cs_error *err);
void cs_s3a_fs_free(s3a_fs *fs);
/* Copies the credentials to use now into *out (fetching or refreshing web-identity ones). */
int cs_s3a_creds_get(s3a_fs *fs, s3a_creds *out, cs_error *err);
void cs_s3a_creds_clear(s3a_creds *c);

/* The s3a_fs of a bucket, from the cache (created on first use); release it when done. */
s3a_fs *cs_s3a_fs_get(const char *bucket, cs_error *err);
void cs_s3a_fs_release(s3a_fs *fs);

/* Splits "s3a://bucket/key" (key may be empty); CS_EINVAL naming the URL when malformed. */
int cs_s3a_parse_uri(const char *uri, char **bucket, char **key, cs_error *err);
/* An ISO 8601 UTC time as S3 writes them ("2026-11-29T18:30:00.000Z", STS's Expiration) in ms
 * since the epoch; 0 when s is NULL or not such a time. */
int64_t cs_s3a_iso8601_ms(const char *s);

/* ---- one request (s3a_client.c) ------------------------------------------------------------ */

typedef struct s3a_buf {
    uint8_t *data;
    size_t len, cap;
} s3a_buf;

typedef struct s3a_call {
    const char *method; /* GET, HEAD, PUT, POST, DELETE */
    const char *key;    /* the object key, unencoded; NULL or "" for the bucket */
    const char *query;  /* already canonical: sorted, values encoded (s3a_query_add) */
    const void *body;
    size_t body_len;
    const char *range; /* "bytes=a-b" or NULL */
    const char *url;   /* an absolute URL instead of the bucket's (STS) */
    bool unsigned_req; /* sent without credentials (STS AssumeRoleWithWebIdentity) */
    const char *content_type;
    /* results */
    long status;
    s3a_buf resp;           /* response body (errors, XML), at most the cap below */
    bool resp_over_cap;     /* the body passed its cap: the transfer was stopped */
    char etag[128];         /* ETag response header */
    char bucket_region[64]; /* x-amz-bucket-region response header (a redirect names it) */
    uint64_t content_length;
} s3a_call;

/* The caps on a response body kept in memory: an error body (status >= 300), and any other
 * (XML answers: listing pages, upload ids). Object bytes never land in resp. */
#define S3A_ERROR_BODY_MAX ((size_t)1 << 20)
#define S3A_XML_BODY_MAX ((size_t)64 << 20)

/* Appends a piece of c's response body within its cap (by c->status); false and
 * c->resp_over_cap once past it (the write callback then stops the transfer). */
bool cs_s3a_resp_append(s3a_call *c, const void *p, size_t n);

/* Builds the canonical query string: call s3a_query_add for each parameter in sorted order. */
void cs_s3a_query_add(s3a_buf *q, const char *name, const char *value);
/* Appends s to b, percent-encoded as SigV4 wants (unreserved kept; '/' kept when keep_slash). */
void cs_s3a_encode(s3a_buf *b, const char *s, bool keep_slash);
void cs_s3a_buf_append(s3a_buf *b, const void *p, size_t n);
void cs_s3a_buf_free(s3a_buf *b);

/* A handle from the fs's pool (set up for nothing yet) and back. */
CURL *cs_s3a_handle_get(s3a_fs *fs);
void cs_s3a_handle_put(s3a_fs *fs, CURL *h);
/* Prepares h for call c signed with creds: URL, method, body, headers (*headers to free with
 * curl_slist_free_all after the transfer), response capture into c. `errbuf` has
 * CURL_ERROR_SIZE bytes. */
int cs_s3a_prepare(s3a_fs *fs, CURL *h, s3a_call *c, const s3a_creds *creds,
                   struct curl_slist **headers, char *errbuf, cs_error *err);

/* Runs one call with retries (5xx, 429/SlowDown, connection reset or refused, timeouts) and
 * backoff. 2xx: 0. Otherwise an error naming `uri`, the status and S3's code, and what to
 * check; c->status keeps the last status (404 for a missing object, for callers that expect it:
 * then no error is set and CS_ENOTFOUND returned). */
int cs_s3a_call(s3a_fs *fs, s3a_call *c, const char *uri, cs_error *err);
void cs_s3a_call_reset(s3a_call *c);

/* Whether a failed attempt is retried: the delay in ms before attempt `attempt` + 1 (attempts
 * count from 0), or -1 to give up. A pure function of its inputs (jitter from `seed`). */
int64_t cs_s3a_retry_delay(long status, int curl_code, const char *s3_code, int attempt, int limit,
                           int64_t interval_ms, uint64_t seed);
/* One line for a failed response: "URI: S3 CODE (HTTP n): message; check ..." */
int cs_s3a_fail(s3a_fs *fs, const s3a_call *c, int curl_code, const char *curl_msg, const char *uri,
                cs_error *err);

/* XML (libxml2): parse a response; find a direct child by local name; its text (malloc'd). */
xmlDocPtr cs_s3a_xml_parse(const s3a_buf *b);
xmlNodePtr cs_s3a_xml_child(xmlNodePtr parent, const char *name);
char *cs_s3a_xml_text(xmlNodePtr parent, const char *name);

/* ---- pending uploads (fs_s3a.c) and the reader/writer ------------------------------------- */

typedef struct s3a_part {
    int number;
    char *etag;
} s3a_part;

struct cs_fs_pending {
    char *uri, *bucket, *key, *upload_id;
    s3a_part *parts;
    int n_parts;
};

cs_fs_pending *cs_s3a_pending_new(const char *bucket, const char *key, const char *upload_id);
void cs_s3a_pending_add_part(cs_fs_pending *p, int number, const char *etag);
char *cs_s3a_pending_encode(const cs_fs_pending *p, size_t *len);
cs_fs_pending *cs_s3a_pending_decode(const void *data, size_t len, cs_error *err);
const char *cs_s3a_pending_uri(const cs_fs_pending *p);
int cs_s3a_pending_commit(const cs_fs_pending *p, cs_error *err);
int cs_s3a_pending_abort(const cs_fs_pending *p, cs_error *err);
void cs_s3a_pending_free(cs_fs_pending *p);

cs_fs_reader *cs_s3a_reader_open(const char *uri, uint64_t offset, uint64_t length,
                                 uint64_t file_size, cs_error *err);
cs_fs_writer *cs_s3a_writer_create(const char *uri, cs_error *err);

#endif
