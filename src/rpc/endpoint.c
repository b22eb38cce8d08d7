/* endpoint.c — rpc endpoints: one libuv loop thread per endpoint serving TCP connections that
 * carry length-prefixed Envelopes (frame.h), the spark.authenticate handshake (auth.h), batched
 * writes queued from any thread, and request/reply correlation. See endpoint.h for the API.
 * Used by the driver's cluster backend, the executor, the block server and the block fetcher.
 *
 * Threads and locks. Every uv handle is touched only by the loop thread. Other threads talk to
 * the loop through three lists under e->mu (posted functions, connections with queued output,
 * connections to close) and one uv_async_t. Each connection has its own mutex guarding its
 * output queue, its pending calls, its `closed` flag and the connect result. Lock order: a
 * connection's mutex may be held while taking e->mu, never the reverse.
 *
 * Request ids: a connection opened with cs_rpc_connect numbers its requests with odd ids, an
 * accepted one with even ids, so a message whose id has our parity is a reply to us and one
 * with the other parity is the peer's request (delivered to on_message).
 *
 * Lifetime: a connection holds one reference per open uv handle (its TCP handle and, while
 * authenticating a peer, a timer) plus one per list entry and per caller; it is freed at zero.
 */
#include "rpc/endpoint.h"

#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uv.h>

#include "common/log.h"
#include "rpc/auth.h"
#include "rpc/frame.h"

#define READ_BUF (64 * 1024)
#define COALESCE_MAX (8 * 1024) /* frames up to this size are packed into shared chunks */
#define CHUNK_CAP (64 * 1024)
#define AUTH_TIMEOUT_MS 30000

typedef struct chunk {
    uint8_t *base;
    size_t len, cap;
    int coalesce; /* small frames may be appended */
} chunk;

typedef struct pending_call {
    uint64_t id;
    rpc_reply_fn fn;
    void *arg;
    struct pending_call *next;
} pending_call;

enum conn_state {
    C_NEW,        /* handle not yet initialized (client before connect runs) */
    C_CONNECTING, /* client: TCP connect in progress */
    C_AUTH,       /* handshake in progress */
    C_OPEN,
    C_DRAIN,   /* refusing: flushing the last message, then closing */
    C_CLOSING, /* uv_close called */
};

enum auth_step { A_NONE, A_SRV_HELLO, A_SRV_RESPONSE, A_CLI_CHALLENGE, A_CLI_RESULT };

struct rpc_conn {
    atomic_int refs;
    rpc_endpoint *e;
    int client;
    char peer[300];

    /* loop thread only */
    uv_tcp_t tcp;
    uv_connect_t creq;
    uv_write_t wreq;
    uv_timer_t timer;
    int timer_on;
    int handle_inited;
    enum conn_state state;
    enum auth_step step;
    int writing;
    int close_after_flush;
    int announce; /* on_close is due */
    char close_reason[256];
    char drain_reason[256];
    frame_decoder dec;
    uint8_t *rbuf;
    chunk *fl; /* chunks being written */
    int fln, flcap;
    uv_buf_t *bufs;
    int bufcap;
    uint8_t server_nonce[AUTH_NONCE_LEN];
    uint8_t client_nonce[AUTH_NONCE_LEN];
    char *auth_app;
    struct sockaddr_storage addr;
    rpc_conn *next_open, *prev_open; /* e->conns */

    /* under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int closed;
    chunk *q;
    int qn, qcap;
    int kicked;    /* on e->dirty */
    size_t queued; /* bytes in q and in flight */
    pending_call *calls;
    int connect_done, connect_rc;
    char connect_msg[300];
    void *data;
};

typedef struct post_item {
    void (*fn)(void *);
    void *arg;
    rpc_conn *conn; /* dirty/close lists */
    struct post_item *next;
} post_item;

typedef struct item_list {
    post_item *head, *tail;
} item_list;

struct rpc_endpoint {
    uv_loop_t loop;
    uv_thread_t thread;
    uv_async_t async;
    uv_sem_t started;
    pthread_t loop_tid;
    char *name, *app_id, *secret;
    size_t max_frame;
    rpc_handlers h;
    atomic_uint_fast64_t next_id;

    pthread_mutex_t mu;
    item_list posts, dirty, closes;
    int stopping; /* cs_rpc_endpoint_free called */
    int stopped;  /* the loop has shut the async handle: no more kicks */

    /* loop thread only */
    rpc_conn *conns;
    uv_tcp_t **listeners;
    int nlisteners;
};

static const char *COMP = "rpc";

static void deadline_after(struct timespec *ts, int timeout_ms);

/* ---- small helpers -------------------------------------------------------------------------- */

static void list_push(item_list *l, post_item *it)
{
    it->next = NULL;
    if (l->tail)
        l->tail->next = it;
    else
        l->head = it;
    l->tail = it;
}

static post_item *list_take(item_list *l)
{
    post_item *h = l->head;
    l->head = l->tail = NULL;
    return h;
}

static void conn_free(rpc_conn *c)
{
    for (int i = 0; i < c->qn; i++)
        free(c->q[i].base);
    free(c->q);
    for (int i = 0; i < c->fln; i++)
        free(c->fl[i].base);
    free(c->fl);
    free(c->bufs);
    free(c->rbuf);
    free(c->auth_app);
    cs_frame_decoder_free(&c->dec);
    pending_call *p = c->calls;
    while (p) {
        pending_call *n = p->next;
        free(p);
        p = n;
    }
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

void cs_rpc_conn_ref(rpc_conn *c)
{
    atomic_fetch_add(&c->refs, 1);
}

void cs_rpc_conn_unref(rpc_conn *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) conn_free(c);
}

const char *cs_rpc_conn_peer(const rpc_conn *c)
{
    return c->peer;
}

void cs_rpc_conn_set_data(rpc_conn *c, void *data)
{
    pthread_mutex_lock(&c->mu);
    c->data = data;
    pthread_mutex_unlock(&c->mu);
}

void *cs_rpc_conn_data(const rpc_conn *c)
{
    rpc_conn *m = (rpc_conn *)c;
    pthread_mutex_lock(&m->mu);
    void *d = m->data;
    pthread_mutex_unlock(&m->mu);
    return d;
}

rpc_endpoint *cs_rpc_conn_endpoint(const rpc_conn *c)
{
    return c->e;
}

size_t cs_rpc_conn_queued(rpc_conn *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->queued;
    pthread_mutex_unlock(&c->mu);
    return n;
}

int cs_rpc_conn_wait_writable(rpc_conn *c, size_t below, int timeout_ms)
{
    struct timespec ts;
    deadline_after(&ts, timeout_ms < 0 ? 0 : timeout_ms);
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    while (!c->closed && c->queued >= below) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0 && !c->closed && c->queued >= below) {
            rc = CS_ETIMEOUT;
            break;
        }
    }
    if (c->closed) rc = CS_EIO;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int cs_rpc_conn_is_closed(rpc_conn *c)
{
    pthread_mutex_lock(&c->mu);
    int r = c->closed;
    pthread_mutex_unlock(&c->mu);
    return r;
}

int cs_rpc_endpoint_in_loop(const rpc_endpoint *e)
{
    return pthread_equal(pthread_self(), e->loop_tid);
}

/* Queues an item for the loop thread; false (item not queued) once the loop has stopped. */
static int kick(rpc_endpoint *e, item_list *l, post_item *it)
{
    pthread_mutex_lock(&e->mu);
    int ok = !e->stopped;
    if (ok) {
        list_push(l, it);
        uv_async_send(&e->async);
    }
    pthread_mutex_unlock(&e->mu);
    return ok;
}

static rpc_conn *conn_new(rpc_endpoint *e, int client)
{
    rpc_conn *c = cs_xcalloc(1, sizeof *c);
    atomic_init(&c->refs, 1); /* the TCP handle's reference */
    c->e = e;
    c->client = client;
    c->state = C_NEW;
    pthread_mutex_init(&c->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cv, &ca);
    pthread_condattr_destroy(&ca);
    cs_frame_decoder_init(&c->dec, e->max_frame);
    return c;
}

static void deadline_after(struct timespec *ts, int timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* ---- output queue -----------------------------------------------------------------------------
 */

/* Under c->mu: room for a frame of n bytes; returns where to write it (the chunk's len is
 * advanced by the caller). */
static chunk *queue_room(rpc_conn *c, size_t n)
{
    if (c->qn > 0) {
        chunk *last = &c->q[c->qn - 1];
        if (last->coalesce && last->cap - last->len >= n) return last;
    }
    if (c->qn == c->qcap) {
        c->qcap = c->qcap ? 2 * c->qcap : 8;
        c->q = cs_xrealloc(c->q, (size_t)c->qcap * sizeof *c->q);
    }
    chunk *k = &c->q[c->qn++];
    k->cap = n > CHUNK_CAP ? n : CHUNK_CAP;
    k->base = cs_xmalloc(k->cap);
    k->len = 0;
    k->coalesce = 1;
    return k;
}

static void queue_chunk(rpc_conn *c, uint8_t *buf, size_t len)
{
    if (c->qn == c->qcap) {
        c->qcap = c->qcap ? 2 * c->qcap : 8;
        c->q = cs_xrealloc(c->q, (size_t)c->qcap * sizeof *c->q);
    }
    c->q[c->qn++] = (chunk){buf, len, len, 0};
}

/* Under c->mu, after queueing: make sure the loop will flush c. Returns the item to kick with
 * (outside the lock), or NULL. */
static post_item *need_kick(rpc_conn *c)
{
    if (c->kicked) return NULL;
    c->kicked = 1;
    cs_rpc_conn_ref(c);
    post_item *it = cs_xcalloc(1, sizeof *it);
    it->conn = c;
    return it;
}

static void do_kick(rpc_conn *c, post_item *it)
{
    if (!it) return;
    if (!kick(c->e, &c->e->dirty, it)) {
        pthread_mutex_lock(&c->mu);
        c->kicked = 0;
        pthread_mutex_unlock(&c->mu);
        cs_rpc_conn_unref(c);
        free(it);
    }
}

/* Packs msg into c's queue; optionally registers a pending call in the same critical section. */
static int enqueue(rpc_conn *c, const Cspark__Envelope *msg, pending_call *call)
{
    size_t body = cspark__envelope__get_packed_size(msg);
    if (body > c->e->max_frame || body == 0) return CS_EINVAL;
    size_t n = FRAME_HEADER + body;
    uint8_t *big = NULL;
    if (n > COALESCE_MAX) { /* pack outside the lock */
        big = cs_xmalloc(n);
        cs_frame_encode(msg, big);
    }
    pthread_mutex_lock(&c->mu);
    if (c->closed) {
        pthread_mutex_unlock(&c->mu);
        free(big);
        return CS_EIO;
    }
    c->queued += n;
    if (big) {
        queue_chunk(c, big, n);
    } else {
        chunk *k = queue_room(c, n);
        k->len += cs_frame_encode(msg, k->base + k->len);
    }
    if (call) {
        call->next = c->calls;
        c->calls = call;
    }
    post_item *it = need_kick(c);
    pthread_mutex_unlock(&c->mu);
    do_kick(c, it);
    return 0;
}

int cs_rpc_send(rpc_conn *c, const Cspark__Envelope *msg)
{
    if (!c || !msg) return CS_EINVAL;
    return enqueue(c, msg, NULL);
}

int cs_rpc_send_raw(rpc_conn *c, uint8_t *buf, size_t len)
{
    if (!c || !buf || len < FRAME_HEADER) {
        free(buf);
        return CS_EINVAL;
    }
    pthread_mutex_lock(&c->mu);
    if (c->closed) {
        pthread_mutex_unlock(&c->mu);
        free(buf);
        return CS_EIO;
    }
    c->queued += len;
    queue_chunk(c, buf, len);
    post_item *it = need_kick(c);
    pthread_mutex_unlock(&c->mu);
    do_kick(c, it);
    return 0;
}

int cs_rpc_reply(rpc_conn *c, uint64_t request_id, Cspark__Envelope *reply)
{
    if (!reply) return CS_EINVAL;
    reply->request_id = request_id;
    return cs_rpc_send(c, reply);
}

static uint64_t next_request_id(rpc_conn *c)
{
    uint64_t n = atomic_fetch_add(&c->e->next_id, 1) + 1;
    return n * 2 + (c->client ? 1 : 0);
}

int cs_rpc_call_async(rpc_conn *c, Cspark__Envelope *req, rpc_reply_fn fn, void *arg)
{
    if (!c || !req || !fn) return CS_EINVAL;
    pending_call *p = cs_xcalloc(1, sizeof *p);
    p->id = next_request_id(c);
    p->fn = fn;
    p->arg = arg;
    req->request_id = p->id;
    int rc = enqueue(c, req, p);
    if (rc < 0) free(p);
    return rc;
}

/* ---- synchronous call -------------------------------------------------------------------------
 */

typedef struct sync_waiter {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, abandoned;
    Cspark__Envelope *reply;
    char reason[256];
} sync_waiter;

static void waiter_unref(sync_waiter *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1) return;
    if (w->reply) cspark__envelope__free_unpacked(w->reply, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

static int sync_reply(void *arg, rpc_conn *c, Cspark__Envelope *msg, const char *reason)
{
    sync_waiter *w = arg;
    pthread_mutex_lock(&w->mu);
    if (msg) {
        if (w->abandoned)
            cspark__envelope__free_unpacked(msg, NULL);
        else
            w->reply = msg;
    } else {
        snprintf(w->reason, sizeof w->reason, "%s", reason ? reason : "closed");
    }
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    waiter_unref(w);
    return 0;
}

int cs_rpc_call(rpc_conn *c, Cspark__Envelope *req, Cspark__Envelope **reply, int timeout_ms,
                cs_error *err)
{
    *reply = NULL;
    if (cs_rpc_endpoint_in_loop(c->e))
        return cs_error_set(err, CS_EINVAL, "cs_rpc_call on the loop thread of endpoint %s",
                            c->e->name);
    sync_waiter *w = cs_xcalloc(1, sizeof *w);
    atomic_init(&w->refs, 2);
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = cs_rpc_call_async(c, req, sync_reply, w);
    if (rc < 0) {
        atomic_store(&w->refs, 1);
        waiter_unref(w);
        if (rc == CS_EINVAL)
            return cs_error_set(err, CS_EINVAL,
                                "rpc call to %s: message of %zu bytes refused "
                                "(over spark.rpc.message.maxSize or empty)",
                                c->peer, cspark__envelope__get_packed_size(req));
        return cs_error_set(err, CS_EIO, "rpc call to %s failed: connection closed", c->peer);
    }
    struct timespec ts;
    deadline_after(&ts, timeout_ms < 0 ? 0 : timeout_ms);
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        if (pthread_cond_timedwait(&w->cv, &w->mu, &ts) != 0 && !w->done) break;
    }
    if (w->done && w->reply) {
        *reply = w->reply;
        w->reply = NULL;
        rc = 0;
    } else if (w->done) {
        rc = cs_error_set(err, CS_EIO, "rpc call to %s failed: connection closed (%s)", c->peer,
                          w->reason);
    } else {
        w->abandoned = 1;
        rc = cs_error_set(err, CS_ETIMEOUT, "rpc call to %s timed out after %d ms", c->peer,
                          timeout_ms);
    }
    pthread_mutex_unlock(&w->mu);
    waiter_unref(w);
    return rc;
}

/* ---- closing -------------------------------------------------------------------------------- */

static void unlink_open(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    if (c->prev_open)
        c->prev_open->next_open = c->next_open;
    else if (e->conns == c)
        e->conns = c->next_open;
    if (c->next_open) c->next_open->prev_open = c->prev_open;
    c->next_open = c->prev_open = NULL;
}

static void link_open(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    c->prev_open = NULL;
    c->next_open = e->conns;
    if (e->conns) e->conns->prev_open = c;
    e->conns = c;
}

static void free_handle(uv_handle_t *h)
{
    free(h);
}

static void on_timer_closed(uv_handle_t *h)
{
    cs_rpc_conn_unref(h->data);
}

static void on_tcp_closed(uv_handle_t *h)
{
    rpc_conn *c = h->data;
    rpc_endpoint *e = c->e;
    if (c->announce && e->h.on_close) e->h.on_close(e->h.arg, c, c->close_reason);
    cs_rpc_conn_unref(c);
}

/* Loop thread: starts closing c (idempotent). Pending calls fail; a connecting caller wakes. */
static void conn_close(rpc_conn *c, const char *reason)
{
    if (c->state == C_CLOSING) return;
    int was_open = c->state == C_OPEN;
    c->state = C_CLOSING;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    pthread_mutex_lock(&c->mu);
    c->closed = 1;
    pthread_cond_broadcast(&c->cv);
    pending_call *calls = c->calls;
    c->calls = NULL;
    if (c->client && !c->connect_done) {
        c->connect_done = 1;
        if (!c->connect_rc) {
            c->connect_rc = CS_EIO;
            snprintf(c->connect_msg, sizeof c->connect_msg, "%s", reason);
        }
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    while (calls) {
        pending_call *n = calls->next;
        calls->fn(calls->arg, c, NULL, reason);
        free(calls);
        calls = n;
    }
    CS_DEBUG(COMP, "endpoint=%s peer=%s event=closed reason=\"%s\"", c->e->name, c->peer, reason);
    (void)was_open;
    unlink_open(c);
    if (c->timer_on) {
        c->timer_on = 0;
        uv_close((uv_handle_t *)&c->timer, on_timer_closed);
    }
    if (c->handle_inited) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
    } else {
        cs_rpc_conn_unref(c);
    }
}

void cs_rpc_conn_close(rpc_conn *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    int closed = c->closed;
    pthread_mutex_unlock(&c->mu);
    if (closed) return;
    if (cs_rpc_endpoint_in_loop(c->e)) {
        conn_close(c, "closed locally");
        return;
    }
    cs_rpc_conn_ref(c);
    post_item *it = cs_xcalloc(1, sizeof *it);
    it->conn = c;
    if (!kick(c->e, &c->e->closes, it)) {
        cs_rpc_conn_unref(c);
        free(it);
    }
}

/* ---- writing (loop thread) --------------------------------------------------------------------
 */

static void flush(rpc_conn *c);

static void on_write(uv_write_t *req, int status)
{
    rpc_conn *c = req->data;
    size_t done = 0;
    for (int i = 0; i < c->fln; i++) {
        done += c->fl[i].len;
        free(c->fl[i].base);
    }
    c->fln = 0;
    pthread_mutex_lock(&c->mu);
    c->queued -= done < c->queued ? done : c->queued;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    c->writing = 0;
    if (status < 0) {
        conn_close(c, uv_strerror(status));
    } else if (c->state != C_CLOSING) {
        flush(c);
    }
    cs_rpc_conn_unref(c);
}

static void flush(rpc_conn *c)
{
    if (c->writing || c->state == C_CLOSING || c->state == C_NEW || c->state == C_CONNECTING)
        return;
    pthread_mutex_lock(&c->mu);
    /* swap the queue with the (empty) in-flight array */
    chunk *q = c->q;
    int qn = c->qn, qcap = c->qcap;
    c->q = c->fl;
    c->qcap = c->flcap;
    c->qn = 0;
    pthread_mutex_unlock(&c->mu);
    c->fl = q;
    c->fln = qn;
    c->flcap = qcap;
    if (qn == 0) {
        if (c->close_after_flush) conn_close(c, c->drain_reason);
        return;
    }
    if (c->bufcap < qn) {
        c->bufcap = qn;
        c->bufs = cs_xrealloc(c->bufs, (size_t)qn * sizeof *c->bufs);
    }
    for (int i = 0; i < qn; i++)
        c->bufs[i] = uv_buf_init((char *)q[i].base, (unsigned)q[i].len);
    c->wreq.data = c;
    cs_rpc_conn_ref(c);
    int rc = uv_write(&c->wreq, (uv_stream_t *)&c->tcp, c->bufs, (unsigned)qn, on_write);
    if (rc < 0) {
        cs_rpc_conn_unref(c);
        for (int i = 0; i < c->fln; i++)
            free(c->fl[i].base);
        c->fln = 0;
        conn_close(c, uv_strerror(rc));
        return;
    }
    c->writing = 1;
}

/* Loop thread: queue and flush at once. */
static void send_now(rpc_conn *c, const Cspark__Envelope *m)
{
    if (enqueue(c, m, NULL) == 0) flush(c);
}

/* ---- authentication ---------------------------------------------------------------------------
 */

static void auth_refuse(rpc_conn *c, const char *reason)
{
    CS_WARN(COMP, "peer=%s event=auth_failed reason=\"%s\" endpoint=%s", c->peer, reason,
            c->e->name);
    Cspark__AuthResult res = CSPARK__AUTH_RESULT__INIT;
    res.ok = 0;
    res.reason = (char *)reason;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &res;
    snprintf(c->drain_reason, sizeof c->drain_reason, "authentication failed: %s", reason);
    c->state = C_DRAIN;
    c->close_after_flush = 1;
    if (c->timer_on) uv_timer_stop(&c->timer);
    send_now(c, &env);
}

/* Client side: the handshake failed; the connecting caller gets CS_EAUTH. */
static void auth_client_fail(rpc_conn *c, const char *reason)
{
    CS_WARN(COMP, "peer=%s event=auth_failed reason=\"%s\" endpoint=%s", c->peer, reason,
            c->e->name);
    char msg[300];
    snprintf(msg, sizeof msg, "authentication failed: %s", reason);
    pthread_mutex_lock(&c->mu);
    if (!c->connect_done) {
        c->connect_rc = CS_EAUTH;
        snprintf(c->connect_msg, sizeof c->connect_msg, "%s", msg);
    }
    pthread_mutex_unlock(&c->mu);
    conn_close(c, msg);
}

static void on_auth_timeout(uv_timer_t *t)
{
    rpc_conn *c = t->data;
    if (c->state == C_AUTH) auth_refuse(c, "authentication timed out");
}

static void connect_succeeded(rpc_conn *c)
{
    c->state = C_OPEN;
    pthread_mutex_lock(&c->mu);
    if (!c->connect_done) {
        c->connect_done = 1;
        c->connect_rc = 0;
        c->announce = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
}

static void server_open(rpc_conn *c)
{
    c->state = C_OPEN;
    if (c->timer_on) uv_timer_stop(&c->timer);
    if (c->e->h.on_accept) c->e->h.on_accept(c->e->h.arg, c);
}

static void auth_message(rpc_conn *c, Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (c->step == A_SRV_HELLO) {
        if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_HELLO) {
            char why[128];
            snprintf(why, sizeof why, "message before authentication (%s)", cs_frame_body_name(m));
            auth_refuse(c, why);
            return;
        }
        const char *app = m->auth_hello->app_id ? m->auth_hello->app_id : "";
        if (e->app_id && *e->app_id && strcmp(app, e->app_id) != 0) {
            auth_refuse(c, "application id mismatch");
            return;
        }
        c->auth_app = cs_xstrdup(app);
        if (cs_auth_nonce(c->server_nonce) < 0) {
            auth_refuse(c, "no random nonce");
            return;
        }
        Cspark__AuthChallenge ch = CSPARK__AUTH_CHALLENGE__INIT;
        ch.nonce.data = c->server_nonce;
        ch.nonce.len = AUTH_NONCE_LEN;
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE;
        env.auth_challenge = &ch;
        c->step = A_SRV_RESPONSE;
        send_now(c, &env);
    } else if (c->step == A_SRV_RESPONSE) {
        if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_RESPONSE) {
            auth_refuse(c, "expected an authentication response");
            return;
        }
        Cspark__AuthResponse *r = m->auth_response;
        uint8_t want[AUTH_MAC_LEN], proof[AUTH_MAC_LEN];
        if (r->client_nonce.len != AUTH_NONCE_LEN) {
            auth_refuse(c, "bad client nonce");
            return;
        }
        memcpy(c->client_nonce, r->client_nonce.data, AUTH_NONCE_LEN);
        if (cs_auth_client_mac(e->secret, c->server_nonce, c->client_nonce, c->auth_app, want) <
                0 ||
            !cs_auth_mac_equal(want, r->mac.data, r->mac.len)) {
            auth_refuse(c, "bad MAC");
            return;
        }
        if (cs_auth_server_mac(e->secret, c->server_nonce, c->client_nonce, c->auth_app, proof) <
            0) {
            auth_refuse(c, "cannot compute proof");
            return;
        }
        Cspark__AuthResult res = CSPARK__AUTH_RESULT__INIT;
        res.ok = 1;
        res.server_mac.data = proof;
        res.server_mac.len = AUTH_MAC_LEN;
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESULT;
        env.auth_result = &res;
        send_now(c, &env);
        c->step = A_NONE;
        server_open(c);
    } else if (c->step == A_CLI_CHALLENGE) {
        if (m->body_case == CSPARK__ENVELOPE__BODY_AUTH_RESULT && !m->auth_result->ok) {
            auth_client_fail(c, m->auth_result->reason && *m->auth_result->reason
                                    ? m->auth_result->reason
                                    : "refused by server");
            return;
        }
        if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE ||
            m->auth_challenge->nonce.len != AUTH_NONCE_LEN) {
            auth_client_fail(c, "expected an authentication challenge");
            return;
        }
        memcpy(c->server_nonce, m->auth_challenge->nonce.data, AUTH_NONCE_LEN);
        uint8_t mac[AUTH_MAC_LEN];
        if (cs_auth_nonce(c->client_nonce) < 0 ||
            cs_auth_client_mac(e->secret, c->server_nonce, c->client_nonce, e->app_id, mac) < 0) {
            auth_client_fail(c, "cannot compute proof");
            return;
        }
        Cspark__AuthResponse r = CSPARK__AUTH_RESPONSE__INIT;
        r.client_nonce.data = c->client_nonce;
        r.client_nonce.len = AUTH_NONCE_LEN;
        r.mac.data = mac;
        r.mac.len = AUTH_MAC_LEN;
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESPONSE;
        env.auth_response = &r;
        c->step = A_CLI_RESULT;
        send_now(c, &env);
    } else if (c->step == A_CLI_RESULT) {
        if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_RESULT) {
            auth_client_fail(c, "expected an authentication result");
            return;
        }
        Cspark__AuthResult *r = m->auth_result;
        if (!r->ok) {
            auth_client_fail(c, r->reason && *r->reason ? r->reason : "refused by server");
            return;
        }
        uint8_t want[AUTH_MAC_LEN];
        if (cs_auth_server_mac(e->secret, c->server_nonce, c->client_nonce, e->app_id, want) < 0 ||
            !cs_auth_mac_equal(want, r->server_mac.data, r->server_mac.len)) {
            auth_client_fail(c, "server proof mismatch (wrong secret?)");
            return;
        }
        c->step = A_NONE;
        connect_succeeded(c);
    }
}

/* ---- reading (loop thread) --------------------------------------------------------------------
 */

static void dispatch(rpc_conn *c, Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (c->state == C_AUTH) {
        auth_message(c, m);
        cspark__envelope__free_unpacked(m, NULL);
        return;
    }
    if (c->state != C_OPEN) {
        cspark__envelope__free_unpacked(m, NULL);
        return;
    }
    switch (m->body_case) {
    case CSPARK__ENVELOPE__BODY_AUTH_HELLO:
        if (!c->client) {
            /* a peer expects authentication that this endpoint does not do */
            auth_refuse(c, "authentication is not enabled on this endpoint");
        } else {
            conn_close(c, "protocol error: unexpected auth_hello");
        }
        cspark__envelope__free_unpacked(m, NULL);
        return;
    case CSPARK__ENVELOPE__BODY_AUTH_RESULT: {
        char why[300];
        snprintf(why, sizeof why, "authentication failed: %s",
                 m->auth_result->reason && *m->auth_result->reason ? m->auth_result->reason
                                                                   : "refused by peer");
        CS_WARN(COMP, "peer=%s event=auth_failed reason=\"%s\" endpoint=%s", c->peer,
                m->auth_result->reason ? m->auth_result->reason : "", e->name);
        cspark__envelope__free_unpacked(m, NULL);
        conn_close(c, why);
        return;
    }
    case CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE:
    case CSPARK__ENVELOPE__BODY_AUTH_RESPONSE:
        cspark__envelope__free_unpacked(m, NULL);
        conn_close(c, "protocol error: unexpected authentication message");
        return;
    default:
        break;
    }
    if (m->request_id && (m->request_id & 1) == (uint64_t)(c->client ? 1 : 0)) {
        pthread_mutex_lock(&c->mu);
        pending_call *p = c->calls;
        while (p && p->id != m->request_id)
            p = p->next;
        pthread_mutex_unlock(&c->mu);
        if (!p) {
            CS_DEBUG(COMP, "endpoint=%s peer=%s event=late_reply request=%llu", e->name, c->peer,
                     (unsigned long long)m->request_id);
            cspark__envelope__free_unpacked(m, NULL);
            return;
        }
        /* only this thread removes calls, so p stays valid across the callback */
        if (!p->fn(p->arg, c, m, NULL)) {
            pthread_mutex_lock(&c->mu);
            pending_call **pp = &c->calls;
            while (*pp && *pp != p)
                pp = &(*pp)->next;
            if (*pp) *pp = p->next;
            pthread_mutex_unlock(&c->mu);
            free(p);
        }
        return;
    }
    if (e->h.on_message) e->h.on_message(e->h.arg, c, m);
    cspark__envelope__free_unpacked(m, NULL);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    rpc_conn *c = h->data;
    size_t room = 0;
    uint8_t *direct = cs_frame_decoder_direct(&c->dec, &room);
    if (direct && room >= READ_BUF / 4) {
        *buf = uv_buf_init((char *)direct, room > (1u << 30) ? (1u << 30) : (unsigned)room);
        return;
    }
    if (!c->rbuf) c->rbuf = cs_xmalloc(READ_BUF);
    *buf = uv_buf_init((char *)c->rbuf, READ_BUF);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    rpc_conn *c = s->data;
    if (nread < 0) {
        conn_close(c, nread == UV_EOF ? "peer closed" : uv_strerror((int)nread));
        return;
    }
    if (c->state == C_DRAIN || c->state == C_CLOSING) return;
    const uint8_t *p = (const uint8_t *)buf->base;
    size_t off = 0, n = (size_t)nread;
    cs_rpc_conn_ref(c); /* handlers may close c */
    while (off < n && (c->state == C_OPEN || c->state == C_AUTH)) {
        size_t used = 0;
        Cspark__Envelope *m = NULL;
        const char *why = NULL;
        int rc = cs_frame_decoder_feed(&c->dec, p + off, n - off, &used, &m, &why);
        off += used;
        if (rc < 0) {
            CS_WARN(COMP, "peer=%s event=bad_frame reason=\"%s\" endpoint=%s", c->peer, why,
                    c->e->name);
            char r[300];
            snprintf(r, sizeof r, "malformed frame: %s", why);
            conn_close(c, r);
            break;
        }
        if (rc == 0) break;
        dispatch(c, m);
    }
    cs_rpc_conn_unref(c);
}

static void start_reading(rpc_conn *c)
{
    uv_tcp_nodelay(&c->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc < 0) conn_close(c, uv_strerror(rc));
}

/* ---- server -----------------------------------------------------------------------------------
 */

static void on_connection(uv_stream_t *server, int status)
{
    rpc_endpoint *e = server->data;
    if (status < 0) {
        CS_WARN(COMP, "endpoint=%s event=accept_failed reason=\"%s\"", e->name,
                uv_strerror(status));
        return;
    }
    rpc_conn *c = conn_new(e, 0);
    uv_tcp_init(&e->loop, &c->tcp);
    c->tcp.data = c;
    c->handle_inited = 1;
    c->announce = 1;
    c->state = C_OPEN;
    link_open(c);
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
        c->announce = 0;
        conn_close(c, "accept failed");
        return;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
        char ip[INET6_ADDRSTRLEN] = "?";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
    }
    if (e->secret) {
        c->state = C_AUTH;
        c->step = A_SRV_HELLO;
        uv_timer_init(&e->loop, &c->timer);
        c->timer.data = c;
        cs_rpc_conn_ref(c); /* the timer's reference */
        c->timer_on = 1;
        uv_timer_start(&c->timer, on_auth_timeout, AUTH_TIMEOUT_MS, 0);
    }
    start_reading(c);
    if (c->state == C_OPEN) server_open(c);
}

static int resolve(const char *host, int port, struct sockaddr_storage *out, cs_error *err,
                   const char *what)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host && *host ? host : "0.0.0.0", ps, &hints, &res);
    if (rc != 0 || !res)
        return cs_error_set(err, CS_EIO, "cannot %s %s:%d: %s", what, host ? host : "", port,
                            gai_strerror(rc));
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

typedef struct sync_job {
    void (*fn)(struct sync_job *);
    rpc_endpoint *e;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int rc;
    char msg[256];
    const struct sockaddr_storage *addr;
    int port;
} sync_job;

static void run_job(void *arg)
{
    sync_job *j = arg;
    j->fn(j);
    pthread_mutex_lock(&j->mu);
    j->done = 1;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

/* Runs j->fn on the loop thread and waits for it. */
static int run_sync(rpc_endpoint *e, sync_job *j)
{
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->e = e;
    cs_rpc_endpoint_post(e, run_job, j);
    pthread_mutex_lock(&j->mu);
    while (!j->done)
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    return j->rc;
}

static void listen_job(sync_job *j)
{
    rpc_endpoint *e = j->e;
    uv_tcp_t *t = cs_xcalloc(1, sizeof *t);
    uv_tcp_init(&e->loop, t);
    t->data = e;
    e->listeners = cs_xrealloc(e->listeners, (size_t)(e->nlisteners + 1) * sizeof *e->listeners);
    e->listeners[e->nlisteners++] = t;
    int rc = uv_tcp_bind(t, (const struct sockaddr *)j->addr, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)t, 511, on_connection);
    if (rc < 0) {
        snprintf(j->msg, sizeof j->msg, "%s", uv_strerror(rc));
        j->rc = CS_EIO;
        e->nlisteners--;
        uv_close((uv_handle_t *)t, free_handle);
        return;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
    uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len);
    j->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
}

int cs_rpc_listen(rpc_endpoint *e, const char *host, int port, int *bound_port, cs_error *err)
{
    if (cs_rpc_endpoint_in_loop(e))
        return cs_error_set(err, CS_EINVAL, "cs_rpc_listen on the loop thread");
    struct sockaddr_storage addr;
    int rc = resolve(host, port, &addr, err, "listen on");
    if (rc < 0) return rc;
    sync_job j;
    memset(&j, 0, sizeof j);
    j.fn = listen_job;
    j.addr = &addr;
    rc = run_sync(e, &j);
    if (rc < 0)
        return cs_error_set(err, rc, "cannot listen on %s:%d: %s", host ? host : "", port, j.msg);
    if (bound_port) *bound_port = j.port;
    CS_INFO(COMP, "endpoint=%s event=listening address=%s:%d auth=%s", e->name,
            host ? host : "0.0.0.0", j.port, e->secret ? "on" : "off");
    return 0;
}

/* ---- client -----------------------------------------------------------------------------------
 */

static void on_connected(uv_connect_t *req, int status)
{
    rpc_conn *c = req->data;
    if (c->state == C_CLOSING) return;
    if (status < 0) {
        conn_close(c, uv_strerror(status));
        return;
    }
    rpc_endpoint *e = c->e;
    if (e->secret) {
        c->state = C_AUTH;
        c->step = A_CLI_CHALLENGE;
        start_reading(c);
        if (c->state == C_CLOSING) return;
        Cspark__AuthHello hello = CSPARK__AUTH_HELLO__INIT;
        hello.app_id = e->app_id ? e->app_id : "";
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_AUTH_HELLO;
        env.auth_hello = &hello;
        send_now(c, &env);
    } else {
        c->state = C_OPEN;
        start_reading(c);
        if (c->state == C_OPEN) {
            connect_succeeded(c);
            flush(c);
        }
    }
}

static void connect_job(void *arg)
{
    rpc_conn *c = arg;
    rpc_endpoint *e = c->e;
    pthread_mutex_lock(&c->mu);
    int abandoned = c->closed;
    pthread_mutex_unlock(&c->mu);
    if (abandoned || e->stopping) {
        conn_close(c, abandoned ? "connect abandoned" : "endpoint stopped");
        cs_rpc_conn_unref(c); /* the job's reference */
        return;
    }
    uv_tcp_init(&e->loop, &c->tcp);
    c->tcp.data = c;
    c->handle_inited = 1;
    c->state = C_CONNECTING;
    link_open(c);
    c->creq.data = c;
    int rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&c->addr, on_connected);
    if (rc < 0) conn_close(c, uv_strerror(rc));
    cs_rpc_conn_unref(c);
}

rpc_conn *cs_rpc_connect(rpc_endpoint *e, const char *host, int port, int timeout_ms, cs_error *err)
{
    if (cs_rpc_endpoint_in_loop(e)) {
        cs_error_set(err, CS_EINVAL, "cs_rpc_connect on the loop thread");
        return NULL;
    }
    rpc_conn *c = conn_new(e, 1);
    snprintf(c->peer, sizeof c->peer, "%s:%d", host ? host : "", port);
    if (resolve(host, port, &c->addr, err, "connect to") < 0) {
        conn_free(c);
        return NULL;
    }
    atomic_store(&c->refs, 3); /* handle, caller, connect job */
    post_item *job = cs_xcalloc(1, sizeof *job);
    job->fn = connect_job;
    job->arg = c;
    if (!kick(e, &e->posts, job)) {
        free(job);
        cs_error_set(err, CS_EIO, "cannot connect to %s: endpoint %s is stopped", c->peer, e->name);
        conn_free(c);
        return NULL;
    }
    struct timespec ts;
    deadline_after(&ts, timeout_ms < 0 ? 0 : timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (!c->connect_done) {
        if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0 && !c->connect_done) {
            c->connect_done = 1;
            c->connect_rc = CS_ETIMEOUT;
            snprintf(c->connect_msg, sizeof c->connect_msg, "timed out after %d ms", timeout_ms);
            break;
        }
    }
    int rc = c->connect_rc;
    char msg[300];
    snprintf(msg, sizeof msg, "%s", c->connect_msg);
    pthread_mutex_unlock(&c->mu);
    if (rc < 0) {
        cs_error_set(err, rc, "cannot connect to %s: %s", c->peer, msg);
        cs_rpc_conn_close(c);
        cs_rpc_conn_unref(c);
        return NULL;
    }
    return c;
}

/* ---- the loop ---------------------------------------------------------------------------------
 */

static void shutdown_all(rpc_endpoint *e)
{
    while (e->conns)
        conn_close(e->conns, "endpoint stopped");
    for (int i = 0; i < e->nlisteners; i++)
        uv_close((uv_handle_t *)e->listeners[i], free_handle);
    e->nlisteners = 0;
    uv_close((uv_handle_t *)&e->async, NULL);
}

static void on_async(uv_async_t *a)
{
    rpc_endpoint *e = a->data;
    pthread_mutex_lock(&e->mu);
    post_item *posts = list_take(&e->posts);
    post_item *dirty = list_take(&e->dirty);
    post_item *closes = list_take(&e->closes);
    int stopping = e->stopping;
    if (stopping) e->stopped = 1;
    pthread_mutex_unlock(&e->mu);
    while (posts) {
        post_item *n = posts->next;
        posts->fn(posts->arg);
        free(posts);
        posts = n;
    }
    while (dirty) {
        post_item *n = dirty->next;
        rpc_conn *c = dirty->conn;
        pthread_mutex_lock(&c->mu);
        c->kicked = 0;
        pthread_mutex_unlock(&c->mu);
        flush(c);
        cs_rpc_conn_unref(c);
        free(dirty);
        dirty = n;
    }
    while (closes) {
        post_item *n = closes->next;
        conn_close(closes->conn, "closed locally");
        cs_rpc_conn_unref(closes->conn);
        free(closes);
        closes = n;
    }
    if (stopping) shutdown_all(e);
}

static void loop_main(void *arg)
{
    rpc_endpoint *e = arg;
    e->loop_tid = pthread_self();
    uv_sem_post(&e->started);
    uv_run(&e->loop, UV_RUN_DEFAULT);
}

void cs_rpc_endpoint_post(rpc_endpoint *e, void (*fn)(void *arg), void *arg)
{
    post_item *it = cs_xcalloc(1, sizeof *it);
    it->fn = fn;
    it->arg = arg;
    if (!kick(e, &e->posts, it)) {
        free(it);
        CS_WARN(COMP, "endpoint=%s event=post_after_stop", e->name);
    }
}

rpc_endpoint *cs_rpc_endpoint_new(const rpc_options *opt, const rpc_handlers *h, cs_error *err)
{
    rpc_endpoint *e = cs_xcalloc(1, sizeof *e);
    e->name = cs_xstrdup(opt && opt->name ? opt->name : "rpc");
    e->app_id = cs_xstrdup(opt && opt->app_id ? opt->app_id : "");
    e->secret = opt && opt->secret && *opt->secret ? cs_xstrdup(opt->secret) : NULL;
    e->max_frame = opt && opt->max_frame ? opt->max_frame : RPC_DEFAULT_MAX_FRAME;
    if (e->max_frame > 0x7fffffffu) e->max_frame = 0x7fffffffu;
    if (h) e->h = *h;
    atomic_init(&e->next_id, 0);
    pthread_mutex_init(&e->mu, NULL);
    int rc = uv_loop_init(&e->loop);
    if (rc == 0) {
        rc = uv_async_init(&e->loop, &e->async, on_async);
        if (rc < 0) uv_loop_close(&e->loop);
    }
    if (rc < 0) {
        cs_error_set(err, CS_EIO, "rpc endpoint %s: cannot start event loop: %s", e->name,
                     uv_strerror(rc));
        goto fail;
    }
    e->async.data = e;
    uv_sem_init(&e->started, 0);
    rc = uv_thread_create(&e->thread, loop_main, e);
    if (rc < 0) {
        cs_error_set(err, CS_EIO, "rpc endpoint %s: cannot start loop thread: %s", e->name,
                     uv_strerror(rc));
        uv_close((uv_handle_t *)&e->async, NULL);
        uv_run(&e->loop, UV_RUN_DEFAULT);
        uv_loop_close(&e->loop);
        uv_sem_destroy(&e->started);
        goto fail;
    }
    uv_sem_wait(&e->started);
    return e;
fail:
    pthread_mutex_destroy(&e->mu);
    free(e->name);
    free(e->app_id);
    cs_auth_secret_free(e->secret);
    free(e);
    return NULL;
}

static void drain_list(post_item *l, int conns)
{
    while (l) {
        post_item *n = l->next;
        if (conns) cs_rpc_conn_unref(l->conn);
        free(l);
        l = n;
    }
}

void cs_rpc_endpoint_free(rpc_endpoint *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->stopping = 1;
    uv_async_send(&e->async);
    pthread_mutex_unlock(&e->mu);
    uv_thread_join(&e->thread);
    /* items queued after the loop's last pass */
    pthread_mutex_lock(&e->mu);
    post_item *posts = list_take(&e->posts);
    post_item *dirty = list_take(&e->dirty);
    post_item *closes = list_take(&e->closes);
    pthread_mutex_unlock(&e->mu);
    drain_list(posts, 0);
    drain_list(dirty, 1);
    drain_list(closes, 1);
    uv_loop_close(&e->loop);
    uv_sem_destroy(&e->started);
    pthread_mutex_destroy(&e->mu);
    free(e->listeners);
    free(e->name);
    free(e->app_id);
    cs_auth_secret_free(e->secret);
    free(e);
}
