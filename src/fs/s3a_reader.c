/*
 * s3a_reader.c — reads a byte range of an object with ranged GETs in large parallel pieces (see
 * fs_s3a.h). The split [offset, offset + length) is cut into blocks of prefetch.block.size, of
 * which up to prefetch.block.count (bounded by connection.maximum) are fetched at once on one
 * curl multi handle, each straight into its own buffer; the caller consumes them in order, the
 * head block's bytes as soon as they arrive, and each block consumed starts the next. Past the
 * split (a line that runs over its end) blocks of 1 MiB are fetched one at a time, on demand.
 *
 * Costs per byte are what bound a fast store (measured on loopback, bench/s3_bench.sh): libcurl
 * receives into a 512 KiB buffer (16 KiB by default: many more recv calls and ACKs), and block
 * buffers are huge-page backed and kept in a small process-wide pool, so that a task's reader
 * does not fault in and zero 64 MiB of fresh pages for every split.
 *
 * A block whose transfer fails is resumed from the byte it reached, after the client's backoff,
 * when the failure is retryable (cs_s3a_retry_delay); otherwise the read fails with the
 * client's one-line message. Everything runs on the reading task's thread.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>

#include "common/clock.h"
#include "common/log.h"
#include "fs/fs_s3a.h"

#define TAIL_BLOCK (1u << 20)
#define RECV_BUFFER (512L * 1024)     /* CURLOPT_BUFFERSIZE (libcurl's maximum) */
#define HUGE_PAGE (2u << 20)          /* block buffers are rounded up to and aligned on this */
#define POOL_MAX_BYTES (128ull << 20) /* idle block buffers kept for the next reader */

/* ---- the pool of block buffers ------------------------------------------------------------ */

typedef struct pooled {
    uint8_t *buf;
    size_t cap;
} pooled;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pooled pool[64];
static int pool_n;
static uint64_t pool_bytes;

/* A buffer of at least len bytes (*cap receives its size): from the pool, else new. */
static uint8_t *buf_get(size_t len, size_t *cap)
{
    pthread_mutex_lock(&pool_lock);
    for (int i = pool_n - 1; i >= 0; i--) {
        if (pool[i].cap < len) continue;
        uint8_t *b = pool[i].buf;
        *cap = pool[i].cap;
        pool_bytes -= pool[i].cap;
        pool[i] = pool[--pool_n];
        pthread_mutex_unlock(&pool_lock);
        return b;
    }
    pthread_mutex_unlock(&pool_lock);
    size_t n = (len + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n) != 0) return cs_xmalloc(len); /* (cs_xmalloc aborts) */
    madvise(p, n, MADV_HUGEPAGE); /* advice only: without transparent huge pages, 4 KiB pages */
    *cap = n;
    return p;
}

static void buf_put(uint8_t *buf, size_t cap)
{
    if (!buf) return;
    pthread_mutex_lock(&pool_lock);
    if (pool_n < (int)(sizeof pool / sizeof *pool) && pool_bytes + cap <= POOL_MAX_BYTES) {
        pool[pool_n++] = (pooled){buf, cap};
        pool_bytes += cap;
        buf = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free(buf);
}

/* ---- one reader --------------------------------------------------------------------------- */

enum { B_FREE, B_RUNNING, B_WAITING, B_DONE };

typedef struct block {
    int state;
    uint64_t start, len; /* the range this block holds */
    uint8_t *buf;
    size_t cap, got;
    CURL *h;
    struct curl_slist *hdrs;
    s3a_call call; /* error bodies land in call.resp */
    char range[64];
    char errbuf[CURL_ERROR_SIZE];
    int attempt;
    int64_t retry_at_ms;
} block;

typedef struct s3a_reader {
    cs_fs_reader base;
    s3a_fs *fs;
    char *uri, *key;
    CURLM *multi;
    block *blocks; /* a ring: blocks[head] holds `pos` */
    int nblocks, head, active;
    int window;          /* blocks allowed in flight now: 2..nblocks (see adapt) */
    bool head_seen;      /* the head block was looked at by the consumer */
    bool head_was_ready; /* ... and was complete then: the consumer is the slower side */
    bool waited;         /* the consumer waited for the store during this epoch */
    bool grow_blocked;   /* more streams were tried and did not read faster */
    int probe_from;      /* the window before the last growth (0: no growth being tried) */
    double rate_before;  /* bytes/ms of the epoch before that growth */
    int64_t epoch_ms;    /* start of the current epoch of consumption */
    uint64_t epoch_bytes;
    uint64_t pos;        /* next byte to return */
    uint64_t next_fetch; /* start of the next block to schedule */
    uint64_t ahead_end;  /* end of the split: fetched ahead in parallel */
    uint64_t file_end;
    uint64_t bytes;
    bool failed;
} s3a_reader;

static size_t on_block_body(char *p, size_t size, size_t n, void *arg)
{
    block *b = arg;
    size_t len = size * n;
    if (b->call.status == 0) curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &b->call.status);
    if (b->call.status != 206 && b->call.status != 200) { /* an error body */
        cs_s3a_buf_append(&b->call.resp, p, len);
        return len;
    }
    if (b->got + len > b->len) return 0; /* more than asked for: fail the transfer */
    memcpy(b->buf + b->got, p, len);
    b->got += len;
    return len;
}

static int block_start(s3a_reader *r, block *b, cs_error *err)
{
    s3a_creds creds = {0};
    if (!r->fs->anonymous && cs_s3a_creds_get(r->fs, &creds, err) < 0)
        return err ? err->code : CS_EAUTH;
    if (!b->h) b->h = cs_s3a_handle_get(r->fs);
    cs_s3a_call_reset(&b->call);
    snprintf(b->range, sizeof b->range, "bytes=%llu-%llu", (unsigned long long)(b->start + b->got),
             (unsigned long long)(b->start + b->len - 1));
    b->call.method = "GET";
    b->call.key = r->key;
    b->call.range = b->range;
    int rc = cs_s3a_prepare(r->fs, b->h, &b->call, &creds, &b->hdrs, b->errbuf, err);
    cs_s3a_creds_clear(&creds);
    if (rc < 0) return rc;
    curl_easy_setopt(b->h, CURLOPT_BUFFERSIZE, RECV_BUFFER);
    curl_easy_setopt(b->h, CURLOPT_WRITEFUNCTION, on_block_body);
    curl_easy_setopt(b->h, CURLOPT_WRITEDATA, b);
    curl_multi_add_handle(r->multi, b->h);
    b->state = B_RUNNING;
    return 0;
}

/* The bytes in flight stay within prefetch.block.size x prefetch.block.count: fewer streams
 * get longer ranges (fewer requests: each costs the store a request's work, and S3 a GET). */
static uint64_t block_len(const s3a_reader *r)
{
    uint64_t base = (uint64_t)r->fs->block_size, len = base * (uint64_t)r->nblocks / r->window;
    return len > base ? len / base * base : base;
}

/* Schedules blocks while there is room: ahead within the split; one tail block on demand. */
static int schedule(s3a_reader *r, bool need_tail, cs_error *err)
{
    while (r->active < r->window && r->next_fetch < r->file_end) {
        bool in_split = r->next_fetch < r->ahead_end;
        if (!in_split && !(need_tail && r->active == 0)) break;
        uint64_t len = in_split ? block_len(r) : TAIL_BLOCK;
        uint64_t limit = in_split ? r->ahead_end : r->file_end;
        if (len > limit - r->next_fetch) len = limit - r->next_fetch;
        block *b = &r->blocks[(r->head + r->active) % r->nblocks];
        if (b->cap < len) {
            buf_put(b->buf, b->cap);
            b->buf = buf_get((size_t)len, &b->cap);
        }
        b->start = r->next_fetch;
        b->len = len;
        b->got = 0;
        b->attempt = 0;
        r->active++;
        r->next_fetch += len;
        if (block_start(r, b, err) < 0) return err ? err->code : CS_EIO;
        need_tail = false;
    }
    return 0;
}

/* A transfer ended: done, waiting for a retry, or an error. */
static int block_ended(s3a_reader *r, block *b, CURLcode cc, cs_error *err)
{
    curl_multi_remove_handle(r->multi, b->h);
    curl_slist_free_all(b->hdrs);
    b->hdrs = NULL;
    long status = 0;
    curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &status);
    b->call.status = status;
    bool ok =
        cc == CURLE_OK && (status == 206 || (status == 200 && b->start == 0)) && b->got == b->len;
    if (ok) {
        b->state = B_DONE;
        r->bytes += b->len;
        return 0;
    }
    if (cc == CURLE_OK && (status == 206 || status == 200) && b->got < b->len)
        cc = CURLE_PARTIAL_FILE; /* a cut-off body is a transfer failure: resume it */
    if (cc != CURLE_OK) {        /* the connection may be broken: do not reuse it */
        curl_easy_cleanup(b->h);
        b->h = NULL;
    }
    char *code = NULL;
    if (cc == CURLE_OK && b->call.resp.len) {
        xmlDocPtr doc = cs_s3a_xml_parse(&b->call.resp);
        xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
        code = root ? cs_s3a_xml_text(root, "Code") : NULL;
        if (doc) xmlFreeDoc(doc);
    }
    int64_t delay = cs_s3a_retry_delay(status, (int)cc, code, b->attempt, r->fs->retry_limit,
                                       r->fs->retry_interval_ms, (uint64_t)cs_mono_ms() ^ b->start);
    free(code);
    if (delay < 0) {
        r->failed = true;
        b->call.method = "GET";
        return cs_s3a_fail(r->fs, &b->call, (int)cc, b->errbuf, r->uri, err);
    }
    CS_WARN("s3a", "uri=%s range=%s attempt=%d status=%ld error=%s retry_in_ms=%lld",
            cs_log_quote(r->uri), b->range, b->attempt + 1, status,
            cs_log_quote(cc != CURLE_OK ? (b->errbuf[0] ? b->errbuf : curl_easy_strerror(cc))
                                        : "server error"),
            (long long)delay);
    b->attempt++;
    b->state = B_WAITING;
    b->retry_at_ms = cs_mono_ms() + delay;
    return 0;
}

/* Bytes of the head block at pos that can be returned now (it may still be arriving). */
static size_t head_ready(const s3a_reader *r)
{
    const block *b = &r->blocks[r->head];
    if (b->state == B_DONE) return (size_t)(b->start + b->len - r->pos);
    /* a block still arriving has received [start, start + got); a 200 instead of a 206 is
     * checked only when it ends, so nothing is returned from one before that */
    if (b->call.status != 206) return 0;
    uint64_t have = b->start + b->got;
    return have > r->pos ? (size_t)(have - r->pos) : 0;
}

/* Runs transfers until blocks[head] holds bytes at pos. */
static int wait_head(s3a_reader *r, cs_error *err)
{
    while (head_ready(r) == 0) {
        int running = 0;
        curl_multi_perform(r->multi, &running);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(r->multi, &left))) {
            if (m->msg != CURLMSG_DONE) continue;
            for (int i = 0; i < r->nblocks; i++) {
                block *b = &r->blocks[i];
                if (b->state == B_RUNNING && b->h == m->easy_handle) {
                    if (block_ended(r, b, m->data.result, err) < 0) return err ? err->code : -1;
                    break;
                }
            }
        }
        int64_t now = cs_mono_ms(), wait = 100;
        for (int i = 0; i < r->nblocks; i++) {
            block *b = &r->blocks[i];
            if (b->state != B_WAITING) continue;
            if (b->retry_at_ms <= now) {
                if (block_start(r, b, err) < 0) return err ? err->code : -1;
            } else if (b->retry_at_ms - now < wait) {
                wait = b->retry_at_ms - now;
            }
        }
        if (head_ready(r) > 0) break;
        curl_multi_poll(r->multi, NULL, 0, (int)(wait > 0 ? wait : 1), NULL);
    }
    return 0;
}

/* After each consumed block: how many streams to run. A block found complete when the consumer
 * reached it means the store is ahead, and bytes fetched further ahead only wait in memory (cold
 * in cache when copied out): one stream fewer, down to 2. When the consumer waits for the store,
 * twice as many streams are tried for an epoch (about two blocks' worth of bytes); they stay
 * only if they read at least 20% faster — a store far away limits each connection and gains,
 * a store near by (or one short of CPU) does not, and then needs the fewer, longer requests. */
static void adapt(s3a_reader *r, uint64_t consumed)
{
    if (r->head_was_ready && r->window > 2) r->window--;
    if (!r->head_was_ready) r->waited = true;
    int64_t now = cs_mono_ms();
    if (r->epoch_ms == 0) { /* the first block carries the first request's latency: not timed */
        r->epoch_ms = now;
        return;
    }
    r->epoch_bytes += consumed;
    if (r->epoch_bytes < 2 * block_len(r)) return;
    double rate = (double)r->epoch_bytes / (double)(now - r->epoch_ms + 1);
    if (r->probe_from > 0) {
        if (rate < 1.2 * r->rate_before) {
            r->window = r->probe_from;
            r->grow_blocked = true;
        }
        r->probe_from = 0;
    } else if (r->waited && !r->grow_blocked && r->window < r->nblocks) {
        r->rate_before = rate;
        r->probe_from = r->window;
        r->window = r->window * 2 < r->nblocks ? r->window * 2 : r->nblocks;
    }
    r->waited = false;
    r->epoch_bytes = 0;
    r->epoch_ms = now;
}

static ssize_t s3a_read(cs_fs_reader *base, void *out, size_t n, cs_error *err)
{
    s3a_reader *r = (s3a_reader *)base;
    if (r->failed) return cs_error_set(err, CS_EIO, "%s: read after an error", r->uri);
    if (r->pos >= r->file_end || n == 0) return 0;
    if (r->active == 0 && schedule(r, true, err) < 0) return -1;
    block *b = &r->blocks[r->head];
    if (!r->head_seen) {
        r->head_seen = true;
        r->head_was_ready = b->state == B_DONE && r->active > 0;
    }
    if (wait_head(r, err) < 0) {
        r->failed = true;
        return -1;
    }
    size_t off = (size_t)(r->pos - b->start), k = head_ready(r);
    if (k > n) k = n;
    memcpy(out, b->buf + off, k);
    r->pos += k;
    if (b->state == B_DONE && r->pos == b->start + b->len) { /* consumed: next */
        adapt(r, b->len);
        r->head_seen = false;
        b->state = B_FREE;
        buf_put(b->buf, b->cap); /* only the blocks in flight hold buffers */
        b->buf = NULL;
        b->cap = 0;
        r->head = (r->head + 1) % r->nblocks;
        r->active--;
        if (schedule(r, false, err) < 0) {
            r->failed = true;
            return -1;
        }
    }
    return (ssize_t)k;
}

static uint64_t s3a_bytes(const cs_fs_reader *base)
{
    return ((const s3a_reader *)base)->bytes;
}

static void s3a_close(cs_fs_reader *base)
{
    s3a_reader *r = (s3a_reader *)base;
    for (int i = 0; i < r->nblocks; i++) {
        block *b = &r->blocks[i];
        if (b->state == B_RUNNING) curl_multi_remove_handle(r->multi, b->h);
        curl_slist_free_all(b->hdrs);
        if (b->h) {
            if (b->state == B_RUNNING) /* cut off mid-transfer: not reusable */
                curl_easy_cleanup(b->h);
            else
                cs_s3a_handle_put(r->fs, b->h);
        }
        cs_s3a_call_reset(&b->call);
        buf_put(b->buf, b->cap);
    }
    free(r->blocks);
    if (r->multi) curl_multi_cleanup(r->multi);
    cs_s3a_fs_release(r->fs);
    free(r->uri);
    free(r->key);
    free(r);
}

cs_fs_reader *cs_s3a_reader_open(const char *uri, uint64_t offset, uint64_t length,
                                 uint64_t file_size, cs_error *err)
{
    char *bucket, *key;
    if (cs_s3a_parse_uri(uri, &bucket, &key, err) < 0) return NULL;
    s3a_fs *fs = cs_s3a_fs_get(bucket, err);
    free(bucket);
    if (!fs) {
        free(key);
        return NULL;
    }
    if (file_size == UINT64_MAX) { /* not listed: ask */
        s3a_call c = {.method = "HEAD", .key = key};
        int rc = cs_s3a_call(fs, &c, uri, err);
        file_size = c.content_length;
        cs_s3a_call_reset(&c);
        if (rc < 0) {
            if (rc == CS_ENOTFOUND) cs_error_set(err, CS_ENOTFOUND, "%s: no such object", uri);
            free(key);
            cs_s3a_fs_release(fs);
            return NULL;
        }
    }
    s3a_reader *r = cs_xcalloc(1, sizeof *r);
    r->base.read = s3a_read;
    r->base.bytes = s3a_bytes;
    r->base.close = s3a_close;
    r->fs = fs;
    r->uri = cs_xstrdup(uri);
    r->key = key;
    r->pos = r->next_fetch = offset;
    r->file_end = file_size;
    r->ahead_end = length > file_size - (offset < file_size ? offset : file_size) ? file_size
                                                                                  : offset + length;
    r->nblocks = fs->block_count < fs->max_connections ? fs->block_count : fs->max_connections;
    r->blocks = cs_xcalloc((size_t)r->nblocks, sizeof *r->blocks);
    r->window = r->nblocks < 2 ? r->nblocks : 2; /* grows while that reads faster (adapt) */
    r->multi = curl_multi_init();
    curl_multi_setopt(r->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)r->nblocks);
    return &r->base;
}
