/*
 * s3a_reader.c — reads a byte range of an object with ranged GETs in large parallel pieces (see
 * fs_s3a.h). The split [offset, offset + length) is cut into blocks of prefetch.block.size, of
 * which up to prefetch.block.count (bounded by connection.maximum) are fetched at once on one
 * curl multi handle, each straight into its own buffer; the caller consumes them in order, and
 * each block consumed starts the next. Past the split (a line that runs over its end) blocks of
 * 1 MiB are fetched one at a time, on demand.
 *
 * A block whose transfer fails is resumed from the byte it reached, after the client's backoff,
 * when the failure is retryable (cs_s3a_retry_delay); otherwise the read fails with the
 * client's one-line message. Everything runs on the reading task's thread.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "fs/fs_s3a.h"

#define TAIL_BLOCK (1u << 20)

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
    curl_easy_setopt(b->h, CURLOPT_WRITEFUNCTION, on_block_body);
    curl_easy_setopt(b->h, CURLOPT_WRITEDATA, b);
    curl_multi_add_handle(r->multi, b->h);
    b->state = B_RUNNING;
    return 0;
}

/* Schedules blocks while there is room: ahead within the split; one tail block on demand. */
static int schedule(s3a_reader *r, bool need_tail, cs_error *err)
{
    while (r->active < r->nblocks && r->next_fetch < r->file_end) {
        bool in_split = r->next_fetch < r->ahead_end;
        if (!in_split && !(need_tail && r->active == 0)) break;
        uint64_t len = in_split ? (uint64_t)r->fs->block_size : TAIL_BLOCK;
        uint64_t limit = in_split ? r->ahead_end : r->file_end;
        if (len > limit - r->next_fetch) len = limit - r->next_fetch;
        block *b = &r->blocks[(r->head + r->active) % r->nblocks];
        if (b->cap < len) {
            free(b->buf);
            b->cap = (size_t)len;
            b->buf = cs_xmalloc(b->cap);
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

/* Runs transfers until blocks[head] is done. */
static int wait_head(s3a_reader *r, cs_error *err)
{
    block *head = &r->blocks[r->head];
    while (head->state != B_DONE) {
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
        if (head->state == B_DONE) break;
        curl_multi_poll(r->multi, NULL, 0, (int)(wait > 0 ? wait : 1), NULL);
    }
    return 0;
}

static ssize_t s3a_read(cs_fs_reader *base, void *out, size_t n, cs_error *err)
{
    s3a_reader *r = (s3a_reader *)base;
    if (r->failed) return cs_error_set(err, CS_EIO, "%s: read after an error", r->uri);
    if (r->pos >= r->file_end || n == 0) return 0;
    if (r->active == 0 && schedule(r, true, err) < 0) return -1;
    if (wait_head(r, err) < 0) {
        r->failed = true;
        return -1;
    }
    block *b = &r->blocks[r->head];
    size_t off = (size_t)(r->pos - b->start), k = (size_t)(b->len - off);
    if (k > n) k = n;
    memcpy(out, b->buf + off, k);
    r->pos += k;
    if (r->pos == b->start + b->len) { /* consumed: free its slot, start the next */
        b->state = B_FREE;
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
        free(b->buf);
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
    r->multi = curl_multi_init();
    curl_multi_setopt(r->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)r->nblocks);
    return &r->base;
}
