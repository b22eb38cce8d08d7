/* block_prefetch.c — the prefetching source of one shuffle reader (block_fetcher.h,
 * cs_block_fetcher_prefetch): the blocks of one reduce partition are requested ahead, several per
 * request to the same peer, up to spark.reducer.maxSizeInFlight bytes in flight; their BlockData
 * parts are queued as they arrive (no copy) and the reader decodes them as they come, or waits for
 * them. Local blocks and those of lost executors go through the fetcher's own path.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/sync.h"
#include "blocktransfer/block_fetcher_internal.h"

static const char *COMP = "block-fetcher";

enum { PF_IDLE, PF_WAIT, PF_DONE, PF_FAILED, PF_DIRECT, PF_USED };

/* One received piece of a block (a BlockData message's data, kept without a copy). */
typedef struct pf_part {
    uint8_t *data;
    size_t len;
    struct pf_part *next;
} pf_part;

typedef struct pf_block {
    const cs_map_status *st;
    size_t size; /* from the map status (an estimate), raised to what arrives when larger */
    int state;
    pf_part *head, *tail; /* received, not yet consumed */
    size_t recv;          /* bytes received */
    size_t taken;         /* bytes consumed by the reader (released from in_flight) */
    char error[256];
} pf_block;

struct block_prefetch {
    atomic_int refs;
    block_fetcher *f;
    int n, reduce;
    pf_block *b;
    int next_issue; /* no PF_IDLE block before this index */
    int cursor;     /* where the reader's next block is looked up first */
    size_t in_flight;
    int cancelled;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

typedef struct pf_req {
    block_prefetch *p;
    int *idx;
    int nidx, cur;
    size_t got; /* bytes received of block idx[cur] */
} pf_req;

#define PF_SCAN 64 /* how far ahead one request looks for blocks of the same peer */

static int is_remote(const block_fetcher *f, const cs_map_status *st)
{
    return !(f->local_dir && f->local_id && strcmp(st->executor_id, f->local_id) == 0) &&
           !cs_block_fetcher_is_external(f, st);
}

static void free_parts(pf_block *b)
{
    for (pf_part *q = b->head, *nx; q; q = nx) {
        nx = q->next;
        free(q->data);
        free(q);
    }
    b->head = b->tail = NULL;
}

static void pf_unref(block_prefetch *p)
{
    if (atomic_fetch_sub(&p->refs, 1) != 1) return;
    for (int i = 0; i < p->n; i++)
        free_parts(&p->b[i]);
    free(p->b);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

/* Under p->mu: block i ends in state s. */
static void pf_end(block_prefetch *p, int i, int s, const char *why)
{
    pf_block *b = &p->b[i];
    if (b->state != PF_WAIT) return;
    b->state = s;
    if (s == PF_FAILED) {
        snprintf(b->error, sizeof b->error, "%s", why);
        free_parts(b);
    }
    if (p->cancelled) free_parts(b);
    pthread_cond_broadcast(&p->cv);
}

/* Under p->mu: the reader is done with block b; what it did not consume leaves in_flight. */
static void pf_release(block_prefetch *p, pf_block *b)
{
    if (b->state == PF_IDLE || b->state == PF_DIRECT) return;
    p->in_flight -= b->size - b->taken;
    b->taken = b->size;
}

/* Loop thread: one message of a prefetch request's reply stream. Each part is queued as it
 * comes (its buffer taken from the message, not copied), so the reader can decode the first
 * parts of a block while the rest is on its way. */
static int pf_reply(void *arg, rpc_conn *c, Cspark__Envelope *m, const char *reason)
{
    pf_req *r = arg;
    block_prefetch *p = r->p;
    int more = 0;
    pthread_mutex_lock(&p->mu);
    if (!m) {
        for (; r->cur < r->nidx; r->cur++)
            pf_end(p, r->idx[r->cur], PF_FAILED, reason);
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_BLOCK_DATA) {
        Cspark__BlockData *bd = m->block_data;
        int map = bd->block ? bd->block->map_id : -1;
        /* blocks come in request order; skip any the server did not answer */
        while (r->cur < r->nidx && p->b[r->idx[r->cur]].st->map_id != map) {
            pf_end(p, r->idx[r->cur], PF_FAILED, "missing from the reply");
            r->cur++;
        }
        if (r->cur < r->nidx) {
            int i = r->idx[r->cur];
            pf_block *b = &p->b[i];
            size_t n = bd->data.len;
            if (bd->error && *bd->error) {
                pf_end(p, i, PF_FAILED, bd->error);
                r->cur++;
                r->got = 0;
            } else {
                /* the map status gave an estimate: a larger block takes more of the budget */
                if (r->got + n > b->size) {
                    p->in_flight += r->got + n - b->size;
                    b->size = r->got + n;
                }
                if (b->state == PF_WAIT && !p->cancelled && n > 0) {
                    pf_part *q = cs_xmalloc(sizeof *q);
                    q->data = bd->data.data;
                    q->len = n;
                    q->next = NULL;
                    bd->data.data = NULL;
                    bd->data.len = 0;
                    if (b->tail)
                        b->tail->next = q;
                    else
                        b->head = q;
                    b->tail = q;
                    b->recv += n;
                    pthread_cond_broadcast(&p->cv);
                }
                /* else: the reader gave up on this block (timeout) or cancelled: drop the data */
                r->got += n;
                if (bd->block_end) {
                    if (cs_map_status_size_agrees(b->st, p->reduce, r->got))
                        pf_end(p, i, PF_DONE, NULL);
                    else
                        pf_end(p, i, PF_FAILED, "a block size the map status disagrees with");
                    r->cur++;
                    r->got = 0;
                }
            }
        }
        more = !bd->last;
        if (!more)
            for (; r->cur < r->nidx; r->cur++)
                pf_end(p, r->idx[r->cur], PF_FAILED, "incomplete reply");
    } else {
        for (; r->cur < r->nidx; r->cur++)
            pf_end(p, r->idx[r->cur], PF_FAILED, "unexpected reply");
    }
    pthread_mutex_unlock(&p->mu);
    if (m) cspark__envelope__free_unpacked(m, NULL);
    if (!more) {
        free(r->idx);
        free(r);
        pf_unref(p);
    }
    return more;
}

/* Reader thread: requests blocks ahead while the in-flight budget allows. */
static void pf_issue(block_prefetch *p)
{
    block_fetcher *f = p->f;
    size_t max = (size_t)f->max_in_flight;
    size_t target = max / 5 > 0 ? max / 5 : 1;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->next_issue < p->n && p->b[p->next_issue].state != PF_IDLE)
            p->next_issue++;
        int i = p->next_issue;
        if (i >= p->n || (p->in_flight > 0 && p->in_flight + p->b[i].size > max)) {
            pthread_mutex_unlock(&p->mu);
            return;
        }
        const cs_map_status *lead = p->b[i].st;
        int *idx = cs_xmalloc(PF_SCAN * sizeof *idx);
        int k = 0;
        size_t bytes = 0;
        for (int j = i; j < p->n && j < i + PF_SCAN; j++) {
            pf_block *b = &p->b[j];
            if (b->state != PF_IDLE || b->st->port != lead->port ||
                strcmp(b->st->host, lead->host) != 0)
                continue;
            if (k > 0 && (bytes + b->size > target || p->in_flight + b->size > max)) break;
            b->state = PF_WAIT;
            p->in_flight += b->size;
            bytes += b->size;
            idx[k++] = j;
        }
        pthread_mutex_unlock(&p->mu);

        cs_error err = {0};
        char why[512];
        rpc_conn *c = NULL;
        if (cs_block_fetcher_lost_reason(f, lead->executor_id, why, sizeof why))
            cs_error_set(&err, CS_EIO, "executor %s is lost (%s)", lead->executor_id, why);
        else
            c = cs_block_fetcher_conn(f, lead->host, lead->port, lead->executor_id, &err);
        int rc = CS_EIO;
        if (c) {
            Cspark__BlockId *ids = cs_xcalloc((size_t)k, sizeof *ids);
            Cspark__BlockId **pids = cs_xcalloc((size_t)k, sizeof *pids);
            for (int q = 0; q < k; q++) {
                cspark__block_id__init(&ids[q]);
                ids[q].shuffle_id = p->b[idx[q]].st->shuffle_id;
                ids[q].map_id = p->b[idx[q]].st->map_id;
                ids[q].reduce_id = p->reduce;
                pids[q] = &ids[q];
            }
            Cspark__FetchBlocks fb = CSPARK__FETCH_BLOCKS__INIT;
            fb.n_blocks = (size_t)k;
            fb.blocks = pids;
            Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
            env.body_case = CSPARK__ENVELOPE__BODY_FETCH_BLOCKS;
            env.fetch_blocks = &fb;
            pf_req *r = cs_xcalloc(1, sizeof *r);
            r->p = p;
            r->idx = idx;
            r->nidx = k;
            atomic_fetch_add(&p->refs, 1);
            rc = cs_rpc_call_async(c, &env, pf_reply, r);
            if (rc < 0) {
                atomic_fetch_sub(&p->refs, 1);
                free(r);
            } else {
                idx = NULL; /* the request owns it */
            }
            free(ids);
            free(pids);
            cs_rpc_conn_unref(c);
        }
        if (rc < 0) {
            /* leave them to the direct path, which retries */
            pthread_mutex_lock(&p->mu);
            for (int q = 0; q < k; q++)
                pf_end(p, idx[q], PF_FAILED, c ? "connection closed" : err.msg);
            pthread_mutex_unlock(&p->mu);
            free(idx);
            return;
        }
    }
}

/* The index of st's block for the reader's next request, or -1 (not one of ours). */
static int pf_find(block_prefetch *p, const cs_map_status *st, int reduce_id)
{
    if (reduce_id != p->reduce) return -1;
    for (int j = p->cursor; j < p->n; j++)
        if (p->b[j].st == st) {
            p->cursor = j + 1;
            return j;
        }
    return -1;
}

/* Under p->mu (released while waiting): waits until block i has ended, or (part = 1) has a
 * part queued; a block still in flight after the fetch timeout fails. */
static void pf_wait(block_prefetch *p, int i, int part)
{
    pf_block *b = &p->b[i];
    if ((part && b->head) || b->state != PF_WAIT) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += p->f->timeout_ms / 1000;
    ts.tv_nsec += (long)(p->f->timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (!(part && b->head) && b->state == PF_WAIT) {
        if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) != 0 && !(part && b->head) &&
            b->state == PF_WAIT) {
            pf_end(p, i, PF_FAILED, "timed out");
            break;
        }
    }
}

static int pf_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out, size_t *len,
                    cs_error *err)
{
    block_prefetch *p = arg;
    *out = NULL;
    *len = 0;
    int i = pf_find(p, st, reduce_id);
    if (i < 0) return cs_block_fetcher_fetch(p->f, st, reduce_id, out, len, err);
    pf_block *b = &p->b[i];
    pthread_mutex_lock(&p->mu);
    int state = b->state;
    pthread_mutex_unlock(&p->mu);
    if (state == PF_IDLE) pf_issue(p);
    pthread_mutex_lock(&p->mu);
    if (b->state == PF_DIRECT || b->state == PF_IDLE || b->state == PF_USED) {
        b->state = PF_USED;
        pthread_mutex_unlock(&p->mu);
        return cs_block_fetcher_fetch(p->f, st, reduce_id, out, len, err);
    }
    /* the whole block: wait for its end, then join its parts (one part is handed over) */
    pf_wait(p, i, 0);
    int ok = b->state == PF_DONE;
    if (ok) {
        if (b->head && !b->head->next) {
            *out = b->head->data;
            b->head->data = NULL;
        } else if (b->head) {
            *out = cs_xmalloc(b->recv);
            for (pf_part *q = b->head; q; q = q->next) {
                memcpy(*out + *len, q->data, q->len);
                *len += q->len;
            }
        }
        *len = b->recv;
    } else {
        CS_DEBUG(COMP,
                 "peer=%s:%d event=prefetch_failed shuffle=%d map=%d reduce=%d "
                 "reason=%s",
                 cs_log_value(st->host), st->port, st->shuffle_id, st->map_id, reduce_id,
                 cs_log_quote(b->error));
    }
    free_parts(b);
    pf_release(p, b);
    b->state = PF_USED;
    pthread_mutex_unlock(&p->mu);
    pf_issue(p);
    if (ok) return 0;
    return cs_block_fetcher_fetch(p->f, st, reduce_id, out, len, err);
}

/* Local blocks are streamed from this executor's data file (bounded memory, one copy) instead
 * of being read whole into a buffer of the segment's size. */
static int pf_open_range(void *arg, const cs_map_status *st, int reduce_id, int *fd, uint64_t *off,
                         uint64_t *len, cs_error *err)
{
    block_prefetch *p = arg;
    if (is_remote(p->f, st) || cs_block_fetcher_is_external(p->f, st)) return CS_EUNSUPPORTED;
    /* remote blocks are requested before the local one is read, so they travel meanwhile */
    pf_issue(p);
    shuffle_block_source local = cs_shuffle_local_source(p->f->local_dir);
    return local.open_range(local.arg, st, reduce_id, fd, off, len, err);
}

/* A remote block read part by part as the parts arrive. */
typedef struct pf_stream {
    block_prefetch *p;
    int i;
    pf_part *cur;    /* the part the reader is decoding (owned) */
    uint8_t *direct; /* after a failed prefetch: the block fetched whole (with retries) */
    size_t direct_len;
    size_t delivered; /* bytes handed to the reader */
} pf_stream;

static int pf_open_stream(void *arg, const cs_map_status *st, int reduce_id, void **stream,
                          cs_error *err)
{
    block_prefetch *p = arg;
    int save = p->cursor;
    int i = pf_find(p, st, reduce_id);
    if (i < 0) return CS_EUNSUPPORTED;
    pthread_mutex_lock(&p->mu);
    int state = p->b[i].state;
    pthread_mutex_unlock(&p->mu);
    if (state == PF_DIRECT || state == PF_USED) {
        p->cursor = save; /* pf_fetch will look it up again */
        return CS_EUNSUPPORTED;
    }
    if (state == PF_IDLE) pf_issue(p);
    pf_stream *s = cs_xcalloc(1, sizeof *s);
    s->p = p;
    s->i = i;
    *stream = s;
    return 0;
}

static int pf_stream_next(void *arg, const uint8_t **data, size_t *len, cs_error *err)
{
    pf_stream *s = arg;
    block_prefetch *p = s->p;
    pf_block *b = &p->b[s->i];
    if (s->cur) {
        free(s->cur->data);
        free(s->cur);
        s->cur = NULL;
    }
    if (s->direct) {
        if (s->delivered >= s->direct_len) return 0;
        *data = s->direct + s->delivered;
        *len = s->direct_len - s->delivered;
        s->delivered = s->direct_len;
        return 1;
    }
    pthread_mutex_lock(&p->mu);
    pf_wait(p, s->i, 1);
    if (b->head) {
        pf_part *q = b->head;
        b->head = q->next;
        if (!b->head) b->tail = NULL;
        b->taken += q->len;
        p->in_flight -= q->len;
        pthread_mutex_unlock(&p->mu);
        s->cur = q;
        s->delivered += q->len;
        *data = q->data;
        *len = q->len;
        pf_issue(p); /* room for the following blocks */
        return 1;
    }
    int ok = b->state == PF_DONE;
    char why[256];
    snprintf(why, sizeof why, "%s", b->error);
    pf_release(p, b);
    b->state = PF_USED;
    pthread_mutex_unlock(&p->mu);
    pf_issue(p);
    if (ok) return 0;
    /* the prefetch failed: fetch the block whole as the direct path does (with retries) and
     * hand over what the reader has not had yet */
    const cs_map_status *st = b->st;
    CS_DEBUG(COMP,
             "peer=%s:%d event=prefetch_failed shuffle=%d map=%d reduce=%d delivered=%zu "
             "reason=%s",
             cs_log_value(st->host), st->port, st->shuffle_id, st->map_id, p->reduce, s->delivered,
             cs_log_quote(why));
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = cs_block_fetcher_fetch(p->f, st, p->reduce, &buf, &n, err);
    if (rc < 0) return rc;
    if (n < s->delivered) {
        free(buf);
        return cs_error_set(err, CS_EIO,
                            "shuffle %d map %d reduce %d from %s:%d: refetched block is shorter "
                            "(%zu bytes) than what was read (%zu)",
                            st->shuffle_id, st->map_id, p->reduce, st->host, st->port, n,
                            s->delivered);
    }
    s->direct = buf;
    s->direct_len = n;
    if (s->delivered >= n) return 0;
    *data = buf + s->delivered;
    *len = n - s->delivered;
    s->delivered = n;
    return 1;
}

static void pf_stream_close(void *arg)
{
    pf_stream *s = arg;
    if (!s) return;
    block_prefetch *p = s->p;
    pf_block *b = &p->b[s->i];
    pthread_mutex_lock(&p->mu);
    if (b->state != PF_USED) {
        /* closed before its end (the task stopped): what is left is dropped as it comes */
        if (b->state == PF_WAIT) pf_end(p, s->i, PF_FAILED, "abandoned by the reader");
        free_parts(b);
        pf_release(p, b);
        b->state = PF_USED;
    }
    pthread_mutex_unlock(&p->mu);
    if (s->cur) {
        free(s->cur->data);
        free(s->cur);
    }
    free(s->direct);
    free(s);
}

block_prefetch *cs_block_fetcher_prefetch(block_fetcher *f, const cs_map_status *const *maps,
                                          int num_maps, int reduce_id)
{
    block_prefetch *p = cs_xcalloc(1, sizeof *p);
    atomic_init(&p->refs, 1);
    p->f = f;
    p->n = num_maps > 0 ? num_maps : 0;
    p->reduce = reduce_id;
    p->b = cs_xcalloc(p->n ? (size_t)p->n : 1, sizeof *p->b);
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < p->n; i++) {
        const cs_map_status *st = maps ? maps[i] : NULL;
        p->b[i].st = st;
        p->b[i].size = st ? (size_t)cs_map_status_size(st, reduce_id) : 0;
        /* only remote blocks of known, non-zero size are prefetched */
        p->b[i].state = st && p->b[i].size > 0 && is_remote(f, st) ? PF_IDLE : PF_DIRECT;
    }
    return p;
}

shuffle_block_source cs_block_prefetch_source(block_prefetch *p)
{
    shuffle_block_source s;
    memset(&s, 0, sizeof s);
    s.fetch = pf_fetch;
    s.arg = p;
    if (p->f->local_dir && p->f->local_id) s.open_range = pf_open_range;
    s.open_stream = pf_open_stream;
    s.stream_next = pf_stream_next;
    s.stream_close = pf_stream_close;
    return s;
}

void cs_block_prefetch_free(block_prefetch *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->cancelled = 1;
    for (int i = 0; i < p->n; i++)
        free_parts(&p->b[i]); /* pf_reply queues nothing more once cancelled */
    pthread_mutex_unlock(&p->mu);
    pf_unref(p);
}
