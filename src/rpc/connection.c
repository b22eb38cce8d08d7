/* connection.c — one rpc connection's lifetime and input: creation, references, the open list,
 * closing (pending calls fail, a connecting caller wakes, on_close runs once the handle is
 * closed), and the read path: libuv reads into a buffer (or straight into the body of a large
 * frame), the frame decoder cuts envelopes, and each goes to the handshake while the peer is
 * not authenticated, to the call waiting for its request id, or to on_message.
 * Locks, request ids and reference counts: rpc_internal.h. Called by the other endpoint files
 * and, through endpoint.h, by every user of a connection.
 *
 * Threads: cs_rpc_conn_ref/unref, the accessors and cs_rpc_conn_close are thread-safe; the
 * rest runs on the loop thread.
 *
 * States (enum conn_state, rpc_internal.h); every state may go to C_CLOSING on an error, a
 * peer's close or cs_rpc_conn_close, and C_CLOSING is final (on_close runs once the handle is
 * closed and the last reference is dropped):
 *
 *   client:  C_NEW --connect job runs--> C_CONNECTING --TCP connected--+--no secret-->  C_OPEN
 *                                                                      +--secret--> C_AUTH
 *   server:  (accepted) C_OPEN --secret--> C_AUTH            (no secret: stays C_OPEN)
 *
 *   C_AUTH --handshake proves the secret (handshake.c)--> C_OPEN
 *   C_AUTH --bad proof, timeout, oversize frame--> C_DRAIN --AuthResult flushed--> C_CLOSING
 *   C_OPEN  --cs_rpc_conn_close / read error / EOF--> C_CLOSING
 *
 * Input is read in C_AUTH and C_OPEN only; output is written in every state but C_NEW,
 * C_CONNECTING and C_CLOSING.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/sync.h"
#include "rpc/rpc_internal.h"

#define COMP cs_rpc_log_component

rpc_conn *cs_rpc_conn_new(rpc_endpoint *e, int client)
{
    rpc_conn *c = cs_xcalloc(1, sizeof *c);
    atomic_init(&c->refs, 1); /* the TCP handle's reference */
    c->e = e;
    c->client = client;
    c->state = C_NEW;
    pthread_mutex_init(&c->mu, NULL);
    cs_cond_init_monotonic(&c->cv);
    cs_frame_decoder_init(&c->dec, cs_rpc_endpoint_max_frame(e));
    /* until the peer proves the secret, only handshake-sized frames (handshake.c lifts this) */
    if (e->secret)
        cs_frame_decoder_set_limit(&c->dec, RPC_HANDSHAKE_MAX_FRAME, 0,
                                   "frame larger than 4096 bytes before authentication");
    return c;
}

void cs_rpc_conn_destroy(rpc_conn *c)
{
    for (int i = 0; i < c->qn; i++)
        free(c->q[i].base);
    free(c->q);
    for (int i = 0; i < c->fln; i++)
        free(c->fl[i].base);
    free(c->fl);
    free(c->bufs);
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
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) cs_rpc_conn_destroy(c);
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

int cs_rpc_conn_is_closed(rpc_conn *c)
{
    pthread_mutex_lock(&c->mu);
    int r = c->closed;
    pthread_mutex_unlock(&c->mu);
    return r;
}

/* ---- the open list and closing ----------------------------------------------------------- */

void cs_rpc_conn_link(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    c->prev_open = NULL;
    c->next_open = e->conns;
    if (e->conns) e->conns->prev_open = c;
    e->conns = c;
}

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

void cs_rpc_conn_close_now(rpc_conn *c, const char *reason)
{
    if (c->state == C_CLOSING) return;
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
    CS_DEBUG(COMP, "endpoint=%s peer=%s event=closed reason=%s", cs_log_value(c->e->name),
             cs_log_value(c->peer), cs_log_quote(reason));
    unlink_open(c);
    cs_rpc_handshake_forget(c);
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
        cs_rpc_conn_close_now(c, "closed locally");
        return;
    }
    cs_rpc_conn_ref(c);
    post_item *it = cs_xcalloc(1, sizeof *it);
    it->conn = c;
    if (!cs_rpc_kick(c->e, &c->e->closes, it)) {
        cs_rpc_conn_unref(c);
        free(it);
    }
}

/* ---- reading ----------------------------------------------------------------------------- */

/* An authenticated (or auth-less) connection received m: protocol checks, then replies go to
 * their call and requests to on_message. Takes m. */
static void dispatch_open(rpc_conn *c, Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    switch (m->body_case) {
    case CSPARK__ENVELOPE__BODY_AUTH_HELLO:
        if (!c->client) {
            /* a peer expects authentication that this endpoint does not do */
            cs_rpc_handshake_refuse(c, "authentication is not enabled on this endpoint");
        } else {
            cs_rpc_conn_close_now(c, "protocol error: unexpected auth_hello");
        }
        cspark__envelope__free_unpacked(m, NULL);
        return;
    case CSPARK__ENVELOPE__BODY_AUTH_RESULT: {
        char why[300];
        snprintf(why, sizeof why, "authentication failed: %s",
                 m->auth_result->reason && *m->auth_result->reason ? m->auth_result->reason
                                                                   : "refused by peer");
        CS_WARN(COMP, "peer=%s event=auth_failed reason=%s endpoint=%s", cs_log_value(c->peer),
                cs_log_quote(m->auth_result->reason ? m->auth_result->reason : ""),
                cs_log_value(e->name));
        cspark__envelope__free_unpacked(m, NULL);
        cs_rpc_conn_close_now(c, why);
        return;
    }
    case CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE:
    case CSPARK__ENVELOPE__BODY_AUTH_RESPONSE:
        cspark__envelope__free_unpacked(m, NULL);
        cs_rpc_conn_close_now(c, "protocol error: unexpected authentication message");
        return;
    default:
        break;
    }
    if (m->request_id && (m->request_id & 1) == (uint64_t)(c->client ? 1 : 0)) {
        cs_rpc_route_reply(c, m);
        return;
    }
    if (e->h.on_message) e->h.on_message(e->h.arg, c, m);
    cspark__envelope__free_unpacked(m, NULL);
}

static void dispatch(rpc_conn *c, Cspark__Envelope *m)
{
    if (c->state == C_AUTH) {
        cs_rpc_handshake_message(c, m);
        cspark__envelope__free_unpacked(m, NULL);
    } else if (c->state == C_OPEN) {
        dispatch_open(c, m);
    } else {
        cspark__envelope__free_unpacked(m, NULL);
    }
}

/* libuv asks for a buffer right before each read and hands it back to on_read right after, which
 * consumes it whole (the decoder copies what it keeps): so one buffer per endpoint serves every
 * connection, and an idle or hostile connection holds no read buffer. */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    rpc_conn *c = h->data;
    size_t room = 0;
    uint8_t *direct = cs_frame_decoder_direct(&c->dec, &room);
    if (direct && room >= RPC_READ_BUF / 4) {
        *buf = uv_buf_init((char *)direct, room > (1u << 30) ? (1u << 30) : (unsigned)room);
        return;
    }
    if (!c->e->rbuf) c->e->rbuf = cs_xmalloc(RPC_READ_BUF);
    *buf = uv_buf_init((char *)c->e->rbuf, RPC_READ_BUF);
}

/* Bytes that arrived on c: cut into envelopes and dispatched, until c closes. */
static void consume(rpc_conn *c, const uint8_t *p, size_t n)
{
    size_t off = 0;
    cs_rpc_conn_ref(c); /* handlers may close c */
    while (off < n && (c->state == C_OPEN || c->state == C_AUTH)) {
        size_t used = 0;
        Cspark__Envelope *m = NULL;
        const char *why = NULL;
        int rc = cs_frame_decoder_feed(&c->dec, p + off, n - off, &used, &m, &why);
        off += used;
        if (rc < 0) {
            if (c->waiting_auth)
                cs_rpc_log_refusal(c, why);
            else
                CS_WARN(COMP, "peer=%s event=bad_frame reason=%s endpoint=%s",
                        cs_log_value(c->peer), cs_log_quote(why), cs_log_value(c->e->name));
            char r[300];
            snprintf(r, sizeof r, "malformed frame: %s", why);
            cs_rpc_conn_close_now(c, r);
            break;
        }
        if (rc == 0) break;
        dispatch(c, m);
    }
    cs_rpc_conn_unref(c);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    rpc_conn *c = s->data;
    if (nread < 0) {
        cs_rpc_conn_close_now(c, nread == UV_EOF ? "peer closed" : uv_strerror((int)nread));
        return;
    }
    if (c->state == C_DRAIN || c->state == C_CLOSING) return;
    consume(c, (const uint8_t *)buf->base, (size_t)nread);
}

void cs_rpc_conn_drain_input(rpc_conn *c)
{
    uv_os_fd_t fd;
    int avail = 0;
    if ((c->state != C_OPEN && c->state != C_AUTH) || uv_fileno((uv_handle_t *)&c->tcp, &fd) < 0 ||
        ioctl(fd, FIONREAD, &avail) < 0)
        return;
    if (!c->e->rbuf) c->e->rbuf = cs_xmalloc(RPC_READ_BUF);
    /* only what is there now: a peer that keeps sending cannot hold the caller here */
    while (avail > 0 && (c->state == C_OPEN || c->state == C_AUTH)) {
        ssize_t k =
            recv(fd, c->e->rbuf, avail < RPC_READ_BUF ? (size_t)avail : RPC_READ_BUF, MSG_DONTWAIT);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        if (k <= 0) {
            cs_rpc_conn_close_now(c, k == 0 ? "peer closed" : strerror(errno));
            return;
        }
        avail -= (int)k;
        consume(c, c->e->rbuf, (size_t)k);
    }
}

int cs_rpc_conn_set_unacked_timeout(rpc_conn *c, int64_t ms)
{
    uv_os_fd_t fd;
    unsigned int v = ms > 0 && ms < UINT32_MAX ? (unsigned int)ms : 0;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) < 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof v) < 0)
        return CS_EIO;
    return 0;
}

void cs_rpc_conn_start_reading(rpc_conn *c)
{
    uv_tcp_nodelay(&c->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc < 0) cs_rpc_conn_close_now(c, uv_strerror(rc));
}
