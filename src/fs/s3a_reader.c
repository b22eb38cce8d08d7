/*
 * s3a_reader.c — reads a byte range of an object with ranged GETs (see fs_s3a.h), on one curl
 * multi handle, all on the reading task's thread. `window` transfers run at once, adapted while
 * reading (adapt):
 *   - one, to begin with and for a store that keeps ahead of the consumer (a near one): the rest
 *     of the split [pos, offset + length) in a single GET, as S3A's sequential reads and curl do
 *     (each request costs the store a request's work and a wait for its first byte, and S3 a
 *     GET). Its bytes stay in the socket until the consumer wants them: the request pauses once
 *     it holds STREAM_HOLD bytes the consumer has not taken;
 *   - several, for a store whose connections are slow (a far one): the split in ranges of
 *     prefetch.block.size x prefetch.block.count / window bytes, and the bytes requested and
 *     not yet consumed within that budget (the count bounded by connection.maximum). Going from
 *     one to two cuts the single request short.
 * The caller consumes blocks in order, the head block's bytes as soon as they arrive; a block is
 * requested as soon as a transfer slot and the budget allow. Past the split (a line that runs
 * over its end) blocks of 1 MiB are fetched one at a time, on demand.
 *
 * Costs per byte are what bound a near store (measured on loopback, bench/s3_bench.sh, where
 * the store and the reader share the CPUs):
 *   - while the consumer waits for the head block, the head block's bytes are copied from
 *     libcurl's receive buffer straight into the consumer's buffer (on_block_body); only bytes
 *     that arrive beyond it, or for blocks ahead, are kept — one copy instead of two;
 *   - kept bytes go into chunks of 2 MiB (one huge page) from a small process-wide pool, given
 *     back as soon as consumed and reused last-in first-out (still in the cache): a reader's
 *     footprint is what it holds, not its blocks' sizes, and a new task's reader does not fault
 *     in and zero fresh pages (on a virtual machine the first touch of a page costs more than
 *     copying it many times over);
 *   - libcurl receives into a 512 KiB buffer (16 KiB by default: many more recv calls and ACKs).
 *
 * Failures: a block whose transfer fails is resumed from the byte it reached, after the
 * client's backoff, when the failure is retryable (cs_s3a_retry_delay; the count of attempts
 * starts again once bytes arrive); otherwise the read fails with the client's one-line message.
 * connection.request.timeout bounds the wait for a GET's answer, connection.timeout the silences
 * of its body (which the consumer takes at its own pace). A store that answers a range with the
 * whole object (HTTP 200) is used only from byte 0, and fails the read naming the range
 * otherwise.
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
#define RECV_BUFFER (512L * 1024) /* CURLOPT_BUFFERSIZE (libcurl's maximum) */
#define CHUNK ((size_t)2 << 20)   /* a unit of received bytes: one (huge) page of 2 MiB */
#define POOL_MAX_CHUNKS 64        /* idle chunks kept for the next block (128 MiB) */
#define STREAM_HOLD (2 * CHUNK)   /* a rest-of-split request pauses holding this much unread */

/* ---- the pool of chunks ------------------------------------------------------------------- */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pool[POOL_MAX_CHUNKS];
static int pool_n;

/* A chunk of CHUNK bytes: the one put back last (its lines may still be in the cache), else a
 * new one. */
static uint8_t *chunk_get(void)
{
    pthread_mutex_lock(&pool_lock);
    uint8_t *c = pool_n > 0 ? pool[--pool_n] : NULL;
    pthread_mutex_unlock(&pool_lock);
    if (c) return c;
    void *p = NULL;
    if (posix_memalign(&p, CHUNK, CHUNK) != 0) return cs_xmalloc(CHUNK); /* (cs_xmalloc aborts) */
    madvise(p, CHUNK, MADV_HUGEPAGE); /* advice only: without transparent huge pages, 4 KiB pages */
    return p;
}

static void chunk_put(uint8_t *c)
{
    if (!c) return;
    pthread_mutex_lock(&pool_lock);
    if (pool_n < POOL_MAX_CHUNKS) {
        pool[pool_n++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free(c);
}

/* ---- one reader --------------------------------------------------------------------------- */

enum { B_FREE, B_RUNNING, B_WAITING, B_DONE };

typedef struct s3a_reader s3a_reader;

typedef struct block {
    s3a_reader *r;
    int state;
    uint64_t start, len; /* the range this block holds */
    uint64_t got;        /* bytes received and checked: [start, start + got) */
    uint64_t from;       /* got when the running request was sent */
    uint8_t **chunks;    /* chunks[i] holds [start + i * CHUNK, ...), NULL until written */
    size_t nchunks, chunks_cap;
    size_t released; /* chunks before this one were consumed and given back */
    bool cut;        /* len was shortened while its request ran: its transfer stops there */
    bool whole;      /* the store answered with the whole object (HTTP 200) where it cannot */
    bool stream;     /* the rest of the split in one request (window 1) */
    bool paused;     /* ... holding STREAM_HOLD bytes not consumed: its socket waits */
    int64_t sent_ms; /* when the running request was sent */
    CURL *h;
    struct curl_slist *hdrs;
    s3a_call call; /* error bodies land in call.resp */
    char range[64];
    char errbuf[CURL_ERROR_SIZE];
    int attempt;
    int64_t retry_at_ms;
} block;

struct s3a_reader {
    cs_fs_reader base;
    s3a_fs *fs;
    char *uri, *key;
    CURLM *multi;
    block *blocks; /* a ring: blocks[head] holds `pos` */
    int nblocks, head;
    int active;          /* blocks from head on: transferring, or holding bytes not consumed */
    int streams;         /* ... of which transferring (or waiting to retry) */
    int window;          /* transfers allowed now: 1..nblocks (see adapt); 1: the rest of the
                          * split in one request */
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
    uint8_t *direct; /* while the consumer waits: its buffer, which the head block fills */
    size_t direct_room, direct_len;
    bool failed;
};

/* Bytes b holds that the consumer has not taken (counting those it is being given now). */
static uint64_t held(const s3a_reader *r, const block *b)
{
    uint64_t taken = r->pos + r->direct_len, have = b->start + b->got;
    if (taken < b->start) taken = b->start;
    return have > taken ? have - taken : 0;
}

/* Gives back the head block's chunks that lie wholly before pos (all of them when it is
 * consumed). */
static void release_before(block *b, uint64_t pos)
{
    size_t upto = pos >= b->start + b->len ? b->nchunks : (size_t)((pos - b->start) / CHUNK);
    for (; b->released < upto; b->released++) {
        chunk_put(b->chunks[b->released]);
        b->chunks[b->released] = NULL;
    }
}

static size_t on_block_body(char *p, size_t size, size_t n, void *arg)
{
    block *b = arg;
    s3a_reader *r = b->r;
    size_t len = size * n, k = 0;
    if (b->call.status == 0) curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &b->call.status);
    if (b->call.status != 206 && b->call.status != 200) /* an error body, capped */
        return cs_s3a_resp_append(&b->call, p, len) ? len : 0;
    bool over = b->got + len > b->len;
    if (b->call.status == 200 && (b->start + b->from != 0 || (over && !b->cut))) {
        b->whole = true; /* a store that ignores ranges: its bytes start at 0, and run on */
        return 0;
    }
    if (b->stream && held(r, b) >= STREAM_HOLD) { /* the consumer is behind: leave the rest in */
        b->paused = true;                         /* the socket (libcurl keeps this piece) */
        return CURL_WRITEFUNC_PAUSE;
    }
    b->attempt = 0; /* bytes again: a later failure retries from the start of the backoff */
    size_t take = len;
    if (over) {
        if (!b->cut) return 0;            /* more than asked for: fail the transfer */
        take = (size_t)(b->len - b->got); /* a shortened request ends at its cut */
    }
    if (r->direct && b == &r->blocks[r->head] &&
        b->start + b->got == r->pos + r->direct_len) { /* the bytes the consumer waits for */
        k = r->direct_room - r->direct_len < take ? r->direct_room - r->direct_len : take;
        memcpy(r->direct + r->direct_len, p, k);
        r->direct_len += k;
        b->got += k;
    }
    while (k < take) {
        size_t i = (size_t)(b->got / CHUNK), at = (size_t)(b->got % CHUNK);
        size_t m = CHUNK - at < take - k ? CHUNK - at : take - k;
        if (!b->chunks[i]) b->chunks[i] = chunk_get();
        memcpy(b->chunks[i] + at, p + k, m);
        k += m;
        b->got += m;
    }
    return take == len ? len : 0;
}

static int block_start(s3a_reader *r, block *b, cs_error *err)
{
    s3a_creds creds = {0};
    if (!r->fs->anonymous && cs_s3a_creds_get(r->fs, &creds, err) < 0)
        return err ? err->code : CS_EAUTH;
    if (!b->h) b->h = cs_s3a_handle_get(r->fs);
    cs_s3a_call_reset(&b->call);
    b->cut = b->whole = false;
    b->from = b->got;
    snprintf(b->range, sizeof b->range, "bytes=%llu-%llu", (unsigned long long)(b->start + b->got),
             (unsigned long long)(b->start + b->len - 1));
    b->call.method = "GET";
    b->call.key = r->key;
    b->call.range = b->range;
    int rc = cs_s3a_prepare(r->fs, b->h, &b->call, &creds, &b->hdrs, b->errbuf, err);
    cs_s3a_creds_clear(&creds);
    if (rc < 0) return rc;
    /* connection.request.timeout bounds the wait for the answer (wait_head), not the body, which
     * the consumer takes at its own pace: connection.timeout bounds its silences */
    curl_easy_setopt(b->h, CURLOPT_TIMEOUT_MS, 0L);
    b->sent_ms = cs_mono_ms();
    curl_easy_setopt(b->h, CURLOPT_BUFFERSIZE, RECV_BUFFER);
    curl_easy_setopt(b->h, CURLOPT_WRITEFUNCTION, on_block_body);
    curl_easy_setopt(b->h, CURLOPT_WRITEDATA, b);
    curl_multi_add_handle(r->multi, b->h);
    b->state = B_RUNNING;
    return 0;
}

/* With several transfers, the bytes requested and not yet consumed stay within
 * prefetch.block.size x prefetch.block.count (the budget), in ranges of budget / window bytes:
 * fewer streams get longer ranges (fewer requests: each costs the store a request's work and a
 * wait for its first byte, and S3 a GET). One transfer asks for the rest of the split at once,
 * as S3A's sequential reads and curl do: its bytes are only taken from the socket while the
 * consumer waits for them, so it holds little memory whatever its length. */
static uint64_t budget(const s3a_reader *r)
{
    return (uint64_t)r->fs->block_size * (uint64_t)r->nblocks;
}

static uint64_t block_len(const s3a_reader *r, int window)
{
    uint64_t base = (uint64_t)r->fs->block_size, len = budget(r) / (window < 2 ? 2 : window);
    return len > base ? len / base * base : base;
}

/* Schedules blocks while there is room (fewer than `window` transfers, the budget): ahead within
 * the split; one tail block on demand. */
static int schedule(s3a_reader *r, bool need_tail, cs_error *err)
{
    while (r->streams < r->window && r->active < r->nblocks && r->next_fetch < r->file_end) {
        bool in_split = r->next_fetch < r->ahead_end;
        if (!in_split && !(need_tail && r->active == 0)) break;
        uint64_t limit = in_split ? r->ahead_end : r->file_end;
        uint64_t len = !in_split ? TAIL_BLOCK : r->window == 1 ? limit : block_len(r, r->window);
        if (len > limit - r->next_fetch) len = limit - r->next_fetch;
        if (r->window > 1 && r->active > 0 && r->next_fetch + len - r->pos > budget(r)) break;
        block *b = &r->blocks[(r->head + r->active) % r->nblocks];
        size_t nchunks = (size_t)((len + CHUNK - 1) / CHUNK);
        if (b->chunks_cap < nchunks) {
            free(b->chunks);
            b->chunks = cs_xcalloc(nchunks, sizeof *b->chunks);
            b->chunks_cap = nchunks;
        }
        b->nchunks = nchunks;
        b->released = 0;
        b->stream = in_split && r->window == 1;
        b->paused = false;
        b->start = r->next_fetch;
        b->len = len;
        b->got = 0;
        b->attempt = 0;
        r->active++;
        r->streams++;
        r->next_fetch += len;
        if (block_start(r, b, err) < 0) return err ? err->code : CS_EIO;
        need_tail = false;
    }
    return 0;
}

/* More transfers are to run while the rest of the split is one request: that request is cut
 * `keep` bytes past what it has received (it stops there), and the blocks after it are
 * scheduled in ranges. */
static void cut_last(s3a_reader *r, uint64_t keep)
{
    if (r->active == 0) return;
    block *b = &r->blocks[(r->head + r->active - 1) % r->nblocks];
    if (b->state == B_DONE || b->start >= r->ahead_end || b->start + b->len != r->next_fetch ||
        b->got + keep >= b->len)
        return; /* done, a block past the split, or near its end anyway */
    if (keep < RECV_BUFFER) keep = RECV_BUFFER; /* what a paused transfer keeps fits before it */
    if (b->got + keep >= b->len) return;
    b->len = b->got + keep;
    b->cut = b->state == B_RUNNING; /* a request waiting to be retried asks for the new range */
    r->next_fetch = b->start + b->len;
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
    if (cc == CURLE_WRITE_ERROR && b->cut && b->got == b->len) cc = CURLE_OK; /* stopped at it */
    if (b->whole) {
        r->failed = true;
        return cs_error_set(err, CS_EIO,
                            "%s: the S3 endpoint %s answered the ranged GET %s with the whole "
                            "object (HTTP 200): it does not serve byte ranges",
                            r->uri, r->fs->endpoint, b->range);
    }
    bool ok = cc == CURLE_OK && (status == 206 || status == 200) && b->got == b->len;
    if (ok) {
        b->state = B_DONE;
        r->streams--;
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
    uint64_t have = b->start + b->got; /* checked as they arrived (on_block_body) */
    return have > r->pos ? (size_t)(have - r->pos) : 0;
}

/* Runs transfers until blocks[head] holds bytes at pos, or has put some straight into the
 * consumer's buffer `out` (r->direct_len bytes: one copy fewer), or has ended (a transfer can
 * end after its last byte was consumed: a cut request learns it only from the next bytes). */
static int wait_head(s3a_reader *r, uint8_t *out, size_t n, cs_error *err)
{
    r->direct = out;
    r->direct_room = n;
    r->direct_len = 0;
    int rc = 0;
    while (head_ready(r) == 0 && r->direct_len == 0 && r->blocks[r->head].state != B_DONE) {
        int streams = r->streams;
        for (int i = 0; i < r->nblocks; i++) { /* the consumer has caught up with a paused one */
            block *b = &r->blocks[i];
            if (b->state == B_RUNNING && b->paused && held(r, b) < STREAM_HOLD) {
                b->paused = false;
                curl_easy_pause(b->h, CURLPAUSE_CONT); /* gives the kept piece (on_block_body) */
            }
        }
        if (head_ready(r) > 0 || r->direct_len > 0) break;
        int running = 0;
        curl_multi_perform(r->multi, &running);
        CURLMsg *m;
        int left;
        while (rc == 0 && (m = curl_multi_info_read(r->multi, &left))) {
            if (m->msg != CURLMSG_DONE) continue;
            for (int i = 0; i < r->nblocks; i++) {
                block *b = &r->blocks[i];
                if (b->state == B_RUNNING && b->h == m->easy_handle) {
                    if (block_ended(r, b, m->data.result, err) < 0) rc = err ? err->code : -1;
                    break;
                }
            }
        }
        if (rc == 0 && r->streams < streams) rc = schedule(r, false, err); /* the next range */
        if (rc < 0) break;
        int64_t now = cs_mono_ms(), wait = 100;
        for (int i = 0; i < r->nblocks && rc == 0; i++) {
            block *b = &r->blocks[i];
            long code = 0;
            if (b->state == B_RUNNING && r->fs->request_timeout_ms > 0 &&
                now - b->sent_ms >= r->fs->request_timeout_ms &&
                curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 0) {
                snprintf(b->errbuf, sizeof b->errbuf,
                         "no answer in %lld ms (spark.hadoop.fs.s3a.connection.request.timeout)",
                         (long long)r->fs->request_timeout_ms);
                if (block_ended(r, b, CURLE_OPERATION_TIMEDOUT, err) < 0) rc = err ? err->code : -1;
                continue;
            }
            if (b->state != B_WAITING) continue;
            if (b->retry_at_ms <= now) {
                if (block_start(r, b, err) < 0) rc = err ? err->code : -1;
            } else if (b->retry_at_ms - now < wait) {
                wait = b->retry_at_ms - now;
            }
        }
        if (rc < 0 || head_ready(r) > 0 || r->direct_len > 0) break;
        if (r->blocks[r->head].state == B_DONE) break;
        r->waited = true; /* the consumer is ahead of the store */
        curl_multi_poll(r->multi, NULL, 0, (int)(wait > 0 ? wait : 1), NULL);
    }
    r->direct = NULL;
    return rc;
}

/* How many transfers to run, after each read (`consumed` bytes; `block_end`: the head block was
 * consumed). A block found complete when the consumer reached it means the store is ahead, and
 * bytes fetched further ahead only wait in memory (cold in cache when copied out, and fresh
 * memory to fault in): one transfer fewer, down to 1 — the rest of the split in one request,
 * whose bytes the consumer takes as they arrive, most of them straight into its own buffer —
 * and no more growth for this reader.
 * When the consumer had to wait for the store during an epoch (the budget's worth of bytes, or
 * two ranges' worth), twice as many transfers are tried for the next epoch; they stay only if
 * they read at least 20% faster — a store far away limits each connection and gains, a store
 * near by (or one short of CPU) does not, and then needs the fewer, longer requests. */
static void adapt(s3a_reader *r, uint64_t consumed, bool block_end)
{
    if (block_end && r->head_was_ready && r->window > 1) {
        r->window--;
        r->grow_blocked = true; /* the store keeps ahead: more transfers would only buffer */
    }
    int64_t now = cs_mono_ms();
    if (r->epoch_ms == 0) { /* the first bytes carry the first request's latency: not timed */
        r->epoch_ms = now;
        r->waited = false;
        return;
    }
    r->epoch_bytes += consumed;
    if (r->epoch_bytes < 2 * block_len(r, r->window)) return;
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
        if (r->probe_from == 1) cut_last(r, block_len(r, r->window));
    }
    r->waited = false;
    r->epoch_bytes = 0;
    r->epoch_ms = now;
}

/* The head block was consumed: the next one is the head. */
static void next_block(s3a_reader *r)
{
    r->head_seen = false;
    r->blocks[r->head].state = B_FREE;
    r->head = (r->head + 1) % r->nblocks;
    r->active--;
}

static ssize_t s3a_read(cs_fs_reader *base, void *out, size_t n, cs_error *err)
{
    s3a_reader *r = (s3a_reader *)base;
    if (r->failed) return cs_error_set(err, CS_EIO, "%s: read after an error", r->uri);
    uint8_t *dst = out;
    size_t done = 0;
    block *b;
    for (;;) {
        if (r->pos >= r->file_end || n == 0) return 0;
        if (r->active == 0 && schedule(r, true, err) < 0) goto fail;
        b = &r->blocks[r->head];
        if (!r->head_seen) {
            r->head_seen = true;
            r->head_was_ready = b->state == B_DONE && r->active > 0;
        }
        if (head_ready(r) == 0 && b->state != B_DONE) {
            if (wait_head(r, dst, n, err) < 0) goto fail;
            done = r->direct_len;
            r->pos += done;
        }
        if (done > 0 || head_ready(r) > 0) break;
        adapt(r, 0, true); /* it ended after its last byte was taken */
        next_block(r);
    }
    size_t k = head_ready(r);
    if (k > n - done) k = n - done;
    for (size_t m; k > 0; k -= m, done += m) { /* the rest from the block's chunks */
        uint64_t off = r->pos - b->start;
        size_t at = (size_t)(off % CHUNK);
        m = CHUNK - at < k ? CHUNK - at : k;
        memcpy(dst + done, b->chunks[off / CHUNK] + at, m);
        r->pos += m;
    }
    release_before(b, r->pos);
    bool block_end = b->state == B_DONE && r->pos == b->start + b->len;
    adapt(r, done, block_end);
    if (block_end) next_block(r);
    if (schedule(r, false, err) < 0) goto fail;
    return (ssize_t)done;
fail:
    r->failed = true;
    return -1;
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
        for (size_t c = 0; c < b->nchunks; c++)
            chunk_put(b->chunks[c]);
        free(b->chunks);
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
    for (int i = 0; i < r->nblocks; i++)
        r->blocks[i].r = r;
    r->window = 1; /* grows while that reads faster (adapt) */
    r->multi = curl_multi_init();
    curl_multi_setopt(r->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)r->nblocks);
    return &r->base;
}
