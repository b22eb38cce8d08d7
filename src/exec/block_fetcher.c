/* block_fetcher.c — the executor's network shuffle_block_source (block_fetcher.h): local blocks
 * from disk, remote ones from the owning executor's block server over one cached rpc connection
 * per peer, with Spark's retry policy (spark.shuffle.io.maxRetries / retryWait) on connection
 * errors and timeouts — except for executors the driver has declared lost, whose blocks fail
 * at once (their connections are closed, and a retry wait in progress ends early). For
 * cs_block_fetcher_source, a reply stream of BlockData parts is assembled on the endpoint's
 * loop thread (a single-part block's buffer is handed over without a copy); a block_prefetch
 * queues the parts and lets its reader decode them as they come.
 * Used by the executor's task runner (one fetcher per executor, shared by its task threads).
 */
#include "exec/block_fetcher.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"

typedef struct peer {
    char *host;
    int port;
    char *exec_id; /* the executor serving host:port (from the map status that connected) */
    rpc_conn *c;   /* referenced */
    struct peer *next;
} peer;

/* An executor the driver declared lost (RemoveExecutor). */
typedef struct lost_exec {
    char *id, *reason;
    struct lost_exec *next;
} lost_exec;

struct block_fetcher {
    char *local_id, *local_dir;
    rpc_endpoint *ep;
    int64_t max_retries, retry_wait_ms, timeout_ms, max_in_flight;
    pthread_mutex_t mu;
    pthread_cond_t lost_cv; /* signalled when an executor is declared lost */
    peer *peers;
    lost_exec *lost;
};

static const char *COMP = "block-fetcher";

/* ---- one request ------------------------------------------------------------------------------
 */

typedef struct fetch_req {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int closed; /* the connection went away: retryable */
    char error[1024];
    uint8_t *buf;
    size_t len, cap;
    int parts;
} fetch_req;

static void req_unref(fetch_req *r)
{
    if (atomic_fetch_sub(&r->refs, 1) != 1) return;
    free(r->buf);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

/* Loop thread: one message of the reply stream (or NULL: the connection closed). */
static int on_reply(void *arg, rpc_conn *c, Cspark__Envelope *m, const char *reason)
{
    fetch_req *r = arg;
    int more = 0;
    pthread_mutex_lock(&r->mu);
    if (!m) {
        r->closed = 1;
        snprintf(r->error, sizeof r->error, "%s", reason ? reason : "connection closed");
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_BLOCK_DATA) {
        Cspark__BlockData *bd = m->block_data;
        if (bd->error && *bd->error) {
            snprintf(r->error, sizeof r->error, "%s", bd->error);
            more = !bd->last;
        } else if (!r->error[0]) {
            if (r->parts == 0 && bd->last) { /* the whole block in one part: keep its buffer */
                r->buf = bd->data.data;
                r->len = bd->data.len;
                bd->data.data = NULL;
                bd->data.len = 0;
            } else if (bd->data.len > 0) {
                if (r->len + bd->data.len > r->cap) {
                    size_t cap = r->cap ? r->cap : bd->data.len;
                    while (cap < r->len + bd->data.len)
                        cap *= 2;
                    r->buf = cs_xrealloc(r->buf, cap);
                    r->cap = cap;
                }
                memcpy(r->buf + r->len, bd->data.data, bd->data.len);
                r->len += bd->data.len;
            }
            r->parts++;
            more = !bd->last;
        } else {
            more = !bd->last;
        }
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_ERROR) {
        snprintf(r->error, sizeof r->error, "%s",
                 m->error->message ? m->error->message : "error reply");
    } else {
        snprintf(r->error, sizeof r->error, "unexpected reply %d", (int)m->body_case);
    }
    if (m) cspark__envelope__free_unpacked(m, NULL);
    if (!more) {
        r->done = 1;
        pthread_cond_signal(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    if (!more) req_unref(r);
    return more;
}

/* ---- connections ------------------------------------------------------------------------------
 */

static void peer_free(peer *p)
{
    cs_rpc_conn_unref(p->c);
    free(p->host);
    free(p->exec_id);
    free(p);
}

/* 1 and the reason in why when the driver declared executor_id lost. */
static int lost_reason(block_fetcher *f, const char *executor_id, char *why, size_t cap)
{
    int lost = 0;
    pthread_mutex_lock(&f->mu);
    for (lost_exec *l = f->lost; l && !lost; l = l->next)
        if (strcmp(l->id, executor_id) == 0) {
            lost = 1;
            snprintf(why, cap, "%s", l->reason);
        }
    pthread_mutex_unlock(&f->mu);
    return lost;
}

static rpc_conn *get_conn(block_fetcher *f, const char *host, int port, const char *exec_id,
                          cs_error *err)
{
    pthread_mutex_lock(&f->mu);
    for (peer **pp = &f->peers; *pp; pp = &(*pp)->next) {
        peer *p = *pp;
        if (p->port == port && strcmp(p->host, host) == 0) {
            if (!cs_rpc_conn_is_closed(p->c)) {
                rpc_conn *c = p->c;
                cs_rpc_conn_ref(c);
                pthread_mutex_unlock(&f->mu);
                return c;
            }
            *pp = p->next;
            peer_free(p);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    rpc_conn *c = cs_rpc_connect(f->ep, host, port, (int)f->timeout_ms, err);
    if (!c) return NULL;
    pthread_mutex_lock(&f->mu);
    for (peer *p = f->peers; p; p = p->next) {
        if (p->port == port && strcmp(p->host, host) == 0 && !cs_rpc_conn_is_closed(p->c)) {
            /* another thread connected meanwhile: use its connection */
            rpc_conn *mine = c;
            c = p->c;
            cs_rpc_conn_ref(c);
            pthread_mutex_unlock(&f->mu);
            cs_rpc_conn_close(mine);
            cs_rpc_conn_unref(mine);
            return c;
        }
    }
    peer *p = cs_xcalloc(1, sizeof *p);
    p->host = cs_xstrdup(host);
    p->port = port;
    p->exec_id = cs_xstrdup(exec_id);
    p->c = c;
    cs_rpc_conn_ref(c);
    p->next = f->peers;
    f->peers = p;
    pthread_mutex_unlock(&f->mu);
    return c;
}

static void drop_conn(block_fetcher *f, rpc_conn *c)
{
    pthread_mutex_lock(&f->mu);
    for (peer **pp = &f->peers; *pp; pp = &(*pp)->next) {
        if ((*pp)->c == c) {
            peer *p = *pp;
            *pp = p->next;
            peer_free(p);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    cs_rpc_conn_close(c);
}

/* Waits spark.shuffle.io.retryWait before another attempt at executor_id's block server, or
 * less when the driver declares that executor lost meanwhile. */
static void retry_wait(block_fetcher *f, const char *executor_id)
{
    int64_t deadline = cs_mono_ms() + f->retry_wait_ms, left;
    pthread_mutex_lock(&f->mu);
    while ((left = deadline - cs_mono_ms()) > 0) {
        int lost = 0;
        for (lost_exec *l = f->lost; l && !lost; l = l->next)
            lost = strcmp(l->id, executor_id) == 0;
        if (lost) break;
        cs_cond_wait_ms(&f->lost_cv, &f->mu, left);
    }
    pthread_mutex_unlock(&f->mu);
}

void cs_block_fetcher_executor_lost(block_fetcher *f, const char *executor_id, const char *reason)
{
    if (!f || !executor_id) return;
    pthread_mutex_lock(&f->mu);
    for (lost_exec *l = f->lost; l; l = l->next)
        if (strcmp(l->id, executor_id) == 0) {
            pthread_mutex_unlock(&f->mu);
            return;
        }
    lost_exec *l = cs_xcalloc(1, sizeof *l);
    l->id = cs_xstrdup(executor_id);
    l->reason = cs_xstrdup(reason && *reason ? reason : "lost");
    l->next = f->lost;
    f->lost = l;
    /* its connections go: requests waiting on them fail now rather than at the fetch timeout
     * (a hung executor's socket stays open) */
    peer *gone = NULL;
    for (peer **pp = &f->peers; *pp;) {
        peer *p = *pp;
        if (p->exec_id && strcmp(p->exec_id, executor_id) == 0) {
            *pp = p->next;
            p->next = gone;
            gone = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_cond_broadcast(&f->lost_cv);
    pthread_mutex_unlock(&f->mu);
    CS_INFO(COMP, "event=peer_lost executor=%s reason=\"%s\"", executor_id, l->reason);
    while (gone) {
        peer *n = gone->next;
        cs_rpc_conn_close(gone->c);
        peer_free(gone);
        gone = n;
    }
}

/* One attempt over c. 0 = block in *out; CS_EIO with *retryable set or not. */
static int fetch_once(block_fetcher *f, rpc_conn *c, const cs_map_status *st, int reduce_id,
                      uint8_t **out, size_t *len, int *retryable, char *why, size_t whycap)
{
    fetch_req *r = cs_xcalloc(1, sizeof *r);
    atomic_init(&r->refs, 2);
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);

    Cspark__BlockId id = CSPARK__BLOCK_ID__INIT;
    id.shuffle_id = st->shuffle_id;
    id.map_id = st->map_id;
    id.reduce_id = reduce_id;
    Cspark__BlockId *ids[1] = {&id};
    Cspark__FetchBlocks fb = CSPARK__FETCH_BLOCKS__INIT;
    fb.n_blocks = 1;
    fb.blocks = ids;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_FETCH_BLOCKS;
    env.fetch_blocks = &fb;
    if (cs_rpc_call_async(c, &env, on_reply, r) < 0) {
        atomic_store(&r->refs, 1);
        req_unref(r);
        *retryable = 1;
        snprintf(why, whycap, "connection closed");
        return CS_EIO;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += f->timeout_ms / 1000;
    ts.tv_nsec += (long)(f->timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int timed_out = 0;
    pthread_mutex_lock(&r->mu);
    while (!r->done) {
        if (!timed_out && pthread_cond_timedwait(&r->cv, &r->mu, &ts) != 0 && !r->done) {
            /* closing the connection fails the pending call, which ends the wait */
            timed_out = 1;
            pthread_mutex_unlock(&r->mu);
            cs_rpc_conn_close(c);
            pthread_mutex_lock(&r->mu);
            continue;
        }
        if (timed_out) pthread_cond_wait(&r->cv, &r->mu);
    }
    int rc = 0;
    if (timed_out) {
        *retryable = 1;
        snprintf(why, whycap, "no reply within %lld ms", (long long)f->timeout_ms);
        rc = CS_EIO;
    } else if (r->closed) {
        *retryable = 1;
        snprintf(why, whycap, "%s", r->error);
        rc = CS_EIO;
    } else if (r->error[0]) {
        *retryable = 0;
        snprintf(why, whycap, "%s", r->error);
        rc = CS_EIO;
    } else {
        *out = r->buf;
        *len = r->len;
        r->buf = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    req_unref(r);
    return rc;
}

static int fetcher_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                         size_t *len, cs_error *err)
{
    block_fetcher *f = arg;
    *out = NULL;
    *len = 0;
    if (f->local_dir && f->local_id && strcmp(st->executor_id, f->local_id) == 0) {
        shuffle_block_source local = cs_shuffle_local_source(f->local_dir);
        return local.fetch(local.arg, st, reduce_id, out, len, err);
    }
    char why[1024] = "";
    int attempts = 0;
    for (;;) {
        if (lost_reason(f, st->executor_id, why, sizeof why))
            return cs_error_set(err, CS_EIO,
                                "shuffle %d map %d reduce %d not fetched from %s:%d: executor %s "
                                "is lost (%s)",
                                st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                st->executor_id, why);
        cs_error cerr = {0};
        int retryable = 1;
        rpc_conn *c = get_conn(f, st->host, st->port, st->executor_id, &cerr);
        if (!c) {
            snprintf(why, sizeof why, "%s", cerr.msg);
        } else {
            int rc = fetch_once(f, c, st, reduce_id, out, len, &retryable, why, sizeof why);
            if (rc == 0) {
                cs_rpc_conn_unref(c);
                if (reduce_id < st->num_reduces && st->sizes && st->sizes[reduce_id] != *len) {
                    size_t got = *len;
                    free(*out);
                    *out = NULL;
                    *len = 0;
                    return cs_error_set(err, CS_EIO,
                                        "shuffle %d map %d reduce %d from %s:%d (executor %s): "
                                        "got %zu bytes, map status says %llu",
                                        st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                        st->executor_id, got,
                                        (unsigned long long)st->sizes[reduce_id]);
                }
                return 0;
            }
            if (retryable) drop_conn(f, c);
            cs_rpc_conn_unref(c);
        }
        if (!retryable)
            return cs_error_set(err, CS_EIO,
                                "failed to fetch shuffle %d map %d reduce %d from %s:%d "
                                "(executor %s): %s",
                                st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                st->executor_id, why);
        if (attempts >= f->max_retries) break;
        attempts++;
        CS_WARN(COMP,
                "peer=%s:%d event=fetch_retry shuffle=%d map=%d reduce=%d attempt=%d/%lld "
                "wait_ms=%lld reason=\"%s\"",
                st->host, st->port, st->shuffle_id, st->map_id, reduce_id, attempts,
                (long long)f->max_retries, (long long)f->retry_wait_ms, why);
        retry_wait(f, st->executor_id);
    }
    return cs_error_set(err, CS_EIO,
                        "failed to fetch shuffle %d map %d reduce %d from %s:%d (executor %s) "
                        "after %lld retries: %s",
                        st->shuffle_id, st->map_id, reduce_id, st->host, st->port, st->executor_id,
                        (long long)f->max_retries, why);
}

/* ---- lifecycle --------------------------------------------------------------------------------
 */

block_fetcher *cs_block_fetcher_new(const char *local_executor_id, const char *local_dir,
                                    const rpc_options *opt, const cs_conf *conf, cs_error *err)
{
    cs_conf *empty = conf ? NULL : cs_conf_new();
    const cs_conf *cf = conf ? conf : empty;
    int64_t retries = 3, wait = 5000, tmo = 120000, inflight = 48 * CS_MiB, net = 120000;
    int rc = cs_conf_get_int(cf, "spark.shuffle.io.maxRetries", "3", &retries, err);
    if (rc == 0)
        rc = cs_conf_get_duration_ms(cf, "spark.shuffle.io.retryWait", "5s", CS_SEC, &wait, err);
    if (rc == 0)
        rc = cs_conf_get_duration_ms(cf, "spark.network.timeout", "120s", CS_SEC, &net, err);
    if (rc == 0) {
        char d[32];
        snprintf(d, sizeof d, "%lldms", (long long)net);
        rc =
            cs_conf_get_duration_ms(cf, "spark.shuffle.io.connectionTimeout", d, CS_SEC, &tmo, err);
    }
    if (rc == 0)
        rc = cs_conf_get_size(cf, "spark.reducer.maxSizeInFlight", "48m", CS_MiB, &inflight, err);
    cs_conf_free(empty);
    if (rc == 0 && retries < 0)
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for spark.shuffle.io.maxRetries: '%lld' (expected >= 0)",
                          (long long)retries);
    if (rc < 0) return NULL;
    block_fetcher *f = cs_xcalloc(1, sizeof *f);
    f->local_id = cs_xstrdup(local_executor_id);
    f->local_dir = cs_xstrdup(local_dir);
    f->max_retries = retries;
    f->retry_wait_ms = wait;
    f->timeout_ms = tmo > 0 ? tmo : 120000;
    f->max_in_flight = inflight;
    pthread_mutex_init(&f->mu, NULL);
    cs_cond_init_monotonic(&f->lost_cv);
    rpc_options o = {.name = "block-fetcher"};
    if (opt) o = *opt;
    if (!o.name) o.name = "block-fetcher";
    f->ep = cs_rpc_endpoint_new(&o, NULL, err);
    if (!f->ep) {
        cs_block_fetcher_free(f);
        return NULL;
    }
    return f;
}

shuffle_block_source cs_block_fetcher_source(block_fetcher *f)
{
    shuffle_block_source s;
    memset(&s, 0, sizeof s);
    s.fetch = fetcher_fetch;
    s.arg = f;
    s.open_range = NULL; /* the reader would use it for every block; remote blocks cannot */
    return s;
}

void cs_block_fetcher_free(block_fetcher *f)
{
    if (!f) return;
    peer *p = f->peers;
    while (p) {
        peer *n = p->next;
        peer_free(p);
        p = n;
    }
    while (f->lost) {
        lost_exec *l = f->lost;
        f->lost = l->next;
        free(l->id);
        free(l->reason);
        free(l);
    }
    cs_rpc_endpoint_free(f->ep);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->lost_cv);
    free(f->local_id);
    free(f->local_dir);
    free(f);
}

/* ---- prefetching for one reader ---------------------------------------------------------------
 */

enum { PF_IDLE, PF_WAIT, PF_DONE, PF_FAILED, PF_DIRECT, PF_USED };

/* One received piece of a block (a BlockData message's data, kept without a copy). */
typedef struct pf_part {
    uint8_t *data;
    size_t len;
    struct pf_part *next;
} pf_part;

typedef struct pf_block {
    const cs_map_status *st;
    size_t size; /* from the map status */
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
    return !(f->local_dir && f->local_id && strcmp(st->executor_id, f->local_id) == 0);
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
            } else if (r->got + n > b->size) {
                pf_end(p, i, PF_FAILED, "more data than the map status says");
                r->cur++;
                r->got = 0;
            } else {
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
                if (r->got == b->size) {
                    pf_end(p, i, PF_DONE, NULL);
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
        if (lost_reason(f, lead->executor_id, why, sizeof why))
            cs_error_set(&err, CS_EIO, "executor %s is lost (%s)", lead->executor_id, why);
        else
            c = get_conn(f, lead->host, lead->port, lead->executor_id, &err);
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
    if (i < 0) return fetcher_fetch(p->f, st, reduce_id, out, len, err);
    pf_block *b = &p->b[i];
    pthread_mutex_lock(&p->mu);
    int state = b->state;
    pthread_mutex_unlock(&p->mu);
    if (state == PF_IDLE) pf_issue(p);
    pthread_mutex_lock(&p->mu);
    if (b->state == PF_DIRECT || b->state == PF_IDLE || b->state == PF_USED) {
        b->state = PF_USED;
        pthread_mutex_unlock(&p->mu);
        return fetcher_fetch(p->f, st, reduce_id, out, len, err);
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
                 "reason=\"%s\"",
                 st->host, st->port, st->shuffle_id, st->map_id, reduce_id, b->error);
    }
    free_parts(b);
    pf_release(p, b);
    b->state = PF_USED;
    pthread_mutex_unlock(&p->mu);
    pf_issue(p);
    if (ok) return 0;
    return fetcher_fetch(p->f, st, reduce_id, out, len, err);
}

/* Local blocks are streamed from this executor's data file (bounded memory, one copy) instead
 * of being read whole into a buffer of the segment's size. */
static int pf_open_range(void *arg, const cs_map_status *st, int reduce_id, int *fd, uint64_t *off,
                         uint64_t *len, cs_error *err)
{
    block_prefetch *p = arg;
    if (is_remote(p->f, st)) return CS_EUNSUPPORTED;
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
             "reason=\"%s\"",
             st->host, st->port, st->shuffle_id, st->map_id, p->reduce, s->delivered, why);
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = fetcher_fetch(p->f, st, p->reduce, &buf, &n, err);
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
        int sized = st && st->sizes && reduce_id >= 0 && reduce_id < st->num_reduces;
        p->b[i].size = sized ? (size_t)st->sizes[reduce_id] : 0;
        /* only remote blocks of known, non-zero size are prefetched */
        p->b[i].state = st && sized && p->b[i].size > 0 && is_remote(f, st) ? PF_IDLE : PF_DIRECT;
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
