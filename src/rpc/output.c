/* output.c — a connection's output: any thread packs envelopes into the connection's queue
 * under c->mu (frames up to RPC_COALESCE_MAX share 64 KiB chunks, larger ones get their own
 * buffer, packed outside the lock) and wakes the loop once per batch; the loop thread swaps the
 * queue out and writes every chunk with one uv_write. Bytes queued or in flight are counted
 * for back-pressure (cs_rpc_conn_queued, cs_rpc_conn_wait_writable).
 * Locks and lifetimes: rpc_internal.h. Called by every sender through endpoint.h, by call.c
 * and handshake.c; flushed from endpoint.c's async callback.
 *
 * Threads: cs_rpc_send/send_raw/reply, cs_rpc_enqueue and the waits are thread-safe;
 * cs_rpc_flush, cs_rpc_send_now and on_write run on the loop thread.
 */
#include <stdlib.h>

#include "common/clock.h"
#include "common/sync.h"
#include "rpc/rpc_internal.h"

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
    k->cap = n > RPC_CHUNK_CAP ? n : RPC_CHUNK_CAP;
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
    if (!cs_rpc_kick(c->e, &c->e->dirty, it)) {
        pthread_mutex_lock(&c->mu);
        c->kicked = 0;
        pthread_mutex_unlock(&c->mu);
        cs_rpc_conn_unref(c);
        free(it);
    }
}

int cs_rpc_enqueue(rpc_conn *c, const Cspark__Envelope *msg, pending_call *call)
{
    size_t body = cspark__envelope__get_packed_size(msg);
    if (body > cs_rpc_endpoint_max_frame(c->e) || body == 0) return CS_EINVAL;
    size_t n = FRAME_HEADER + body;
    uint8_t *big = NULL;
    if (n > RPC_COALESCE_MAX) { /* pack outside the lock */
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
    return cs_rpc_enqueue(c, msg, NULL);
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

size_t cs_rpc_conn_queued(rpc_conn *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->queued;
    pthread_mutex_unlock(&c->mu);
    return n;
}

int cs_rpc_conn_wait_writable(rpc_conn *c, size_t below, int timeout_ms)
{
    int64_t deadline = cs_mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    while (!c->closed && c->queued >= below) {
        int64_t left = deadline - cs_mono_ms();
        if (left <= 0) {
            rc = CS_ETIMEOUT;
            break;
        }
        cs_cond_wait_ms(&c->cv, &c->mu, left);
    }
    if (c->closed) rc = CS_EIO;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* ---- writing (loop thread) --------------------------------------------------------------- */

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
        cs_rpc_conn_close_now(c, uv_strerror(status));
    } else if (c->state != C_CLOSING) {
        cs_rpc_flush(c);
    }
    cs_rpc_conn_unref(c);
}

void cs_rpc_flush(rpc_conn *c)
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
        if (c->close_after_flush) cs_rpc_conn_close_now(c, c->drain_reason);
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
        cs_rpc_conn_close_now(c, uv_strerror(rc));
        return;
    }
    c->writing = 1;
}

void cs_rpc_send_now(rpc_conn *c, const Cspark__Envelope *m)
{
    if (cs_rpc_enqueue(c, m, NULL) == 0) cs_rpc_flush(c);
}
