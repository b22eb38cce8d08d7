/*
 * grpc_server.c — gRPC over HTTP/2 with nghttp2 on a libuv loop thread (grpc_server.h).
 *
 * Each accepted connection has an nghttp2 server session fed with the bytes uv_read gives
 * (nghttp2_session_mem_recv) and drained into uv_write (nghttp2_session_mem_send), at most
 * WRITE_HIGH_WATER bytes in flight, so a client that does not read stops its responses from being
 * produced rather than growing the process. Each request stream is a call: its headers (:path,
 * authorization, content-type, user-agent) and its DATA are read into it on the loop thread, the
 * 5-byte gRPC prefix checked as it arrives (length against max_message before any body byte is
 * kept); at END_STREAM a well-formed call goes to on_call, a bad one is answered here.
 *
 * Responses: handlers queue messages and the final status under the server's mutex from any
 * thread and wake the loop through `wake` (uv_async_t). The loop submits the response headers
 * with a data provider on the first message (or trailers-only for an error without messages);
 * the provider copies queued bytes, answers NGHTTP2_ERR_DEFERRED while the queue is empty, and once
 * the status is there ends the data without END_STREAM and submits the trailers. A deferred stream
 * is resumed on the next wake.
 *
 * TLS (opts.tls_cert_file set, grpc_tls.h): each connection's received bytes go through its TLS
 * state before nghttp2 and nghttp2's output through it before uv_write; nghttp2's first SETTINGS
 * wait for the handshake's end. A client that does not speak TLS fails the handshake and its
 * connection is closed (it sees UNAVAILABLE).
 *
 * Lifetimes: a call holds references from the loop (while its stream is open) and from the
 * handler (from on_call to finish); it is freed at the last release. The server is freed by
 * cs_grpc_server_stop once its loop thread is joined and no call is left (each call holds one
 * reference to the server). Lock order: only srv->lock, never held across a callback into the
 * service.
 */
#define _GNU_SOURCE
#include "connect/grpc_server.h"
#include "connect/grpc_tls.h"

#include <nghttp2/nghttp2.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "common/log.h"
#include "common/strutil.h"
#include "common/localaddr.h"

#define WRITE_HIGH_WATER (4u << 20) /* bytes handed to uv_write and not yet written */
#define READ_CHUNK 65536
#define MAX_STREAMS 256

typedef struct grpc_conn grpc_conn;

struct cs_grpc_call {
    atomic_int refs;
    cs_grpc_server *srv;
    /* loop thread */
    grpc_conn *conn; /* NULL once the connection is gone */
    int32_t stream_id;
    cs_grpc_call *conn_next, *conn_prev;
    char *path, *authorization, *user_agent, *content_type;
    uint8_t prefix[5];
    int prefix_got;
    uint8_t *msg;            /* every request message's bytes, one after the other */
    size_t msg_len, msg_got; /* the bytes announced by the prefixes so far, and read */
    size_t *msg_ends;        /* message i is msg[msg_ends[i - 1] (or 0) .. msg_ends[i]) */
    int n_messages;
    bool in_body;
    cs_grpc_code bad_code; /* OK while the request is well-formed */
    char bad_msg[200];
    /* under srv->lock */
    cs_sbuf out;
    size_t out_pos;
    bool finished, closed, submitted, dirty, data_done;
    cs_grpc_code status;
    char *status_msg;
    uint8_t *details;
    size_t details_len;
    cs_grpc_call *dirty_next;
};

struct grpc_conn {
    uv_tcp_t tcp;
    cs_grpc_server *srv;
    nghttp2_session *h2;
    cs_grpc_call *calls;   /* open streams */
    size_t writing;        /* bytes in uv_write requests */
    cs_grpc_tls_conn *tls; /* NULL: plaintext */
    bool closing;
    grpc_conn *next, *prev;
};

struct cs_grpc_server {
    cs_grpc_server_opts opts;
    uv_loop_t loop;
    uv_tcp_t listener;
    uv_async_t wake;
    pthread_t thread;
    int port;
    cs_grpc_tls *tls; /* NULL: plaintext */
    grpc_conn *conns; /* loop thread */
    atomic_int refs;  /* 1 for the server itself + 1 per call */
    pthread_mutex_t lock;
    cs_grpc_call *dirty; /* calls with queued output or a new status */
    bool stopping, loop_gone;
};

static void server_unref(cs_grpc_server *s)
{
    if (atomic_fetch_sub(&s->refs, 1) != 1) return;
    cs_grpc_tls_free(s->tls);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- calls ------------------------------------------------------------------------------------
 */

static cs_grpc_call *call_new(cs_grpc_server *s, grpc_conn *conn, int32_t stream_id)
{
    cs_grpc_call *c = cs_xcalloc(1, sizeof *c);
    atomic_init(&c->refs, 1); /* the loop's, while the stream is open */
    c->srv = s;
    atomic_fetch_add(&s->refs, 1);
    c->conn = conn;
    c->stream_id = stream_id;
    c->conn_next = conn->calls;
    if (conn->calls) conn->calls->conn_prev = c;
    conn->calls = c;
    return c;
}

cs_grpc_call *cs_grpc_call_ref(cs_grpc_call *c)
{
    atomic_fetch_add(&c->refs, 1);
    return c;
}

void cs_grpc_call_release(cs_grpc_call *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1) return;
    cs_grpc_server *s = c->srv;
    free(c->path);
    free(c->authorization);
    free(c->user_agent);
    free(c->content_type);
    free(c->msg);
    free(c->msg_ends);
    cs_sbuf_free(&c->out);
    free(c->status_msg);
    free(c->details);
    free(c);
    server_unref(s);
}

const char *cs_grpc_call_method(const cs_grpc_call *c)
{
    return c->path ? c->path : "";
}

const char *cs_grpc_call_header(const cs_grpc_call *c, const char *name)
{
    if (strcmp(name, "authorization") == 0) return c->authorization;
    if (strcmp(name, "user-agent") == 0) return c->user_agent;
    if (strcmp(name, "content-type") == 0) return c->content_type;
    return NULL;
}

const uint8_t *cs_grpc_call_message(const cs_grpc_call *c, size_t *len)
{
    return cs_grpc_call_message_at(c, 0, len);
}

int cs_grpc_call_message_count(const cs_grpc_call *c)
{
    return c->n_messages;
}

const uint8_t *cs_grpc_call_message_at(const cs_grpc_call *c, int i, size_t *len)
{
    if (i < 0 || i >= c->n_messages || !c->msg) {
        *len = 0;
        return (const uint8_t *)"";
    }
    size_t start = i ? c->msg_ends[i - 1] : 0;
    *len = c->msg_ends[i] - start;
    return c->msg + start;
}

bool cs_grpc_call_gone(cs_grpc_call *c)
{
    pthread_mutex_lock(&c->srv->lock);
    bool gone = c->closed || c->finished;
    pthread_mutex_unlock(&c->srv->lock);
    return gone;
}

/* Under srv->lock: puts c on the dirty list; the caller wakes the loop after unlocking. */
static void mark_dirty(cs_grpc_call *c)
{
    if (c->dirty || c->srv->loop_gone) return;
    c->dirty = true;
    cs_grpc_call_ref(c);
    c->dirty_next = c->srv->dirty;
    c->srv->dirty = c;
}

static void wake_loop(cs_grpc_server *s)
{
    pthread_mutex_lock(&s->lock);
    if (!s->loop_gone) uv_async_send(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

int cs_grpc_call_send(cs_grpc_call *c, const uint8_t *msg, size_t len)
{
    cs_grpc_server *s = c->srv;
    pthread_mutex_lock(&s->lock);
    if (c->closed || c->finished || s->loop_gone) {
        pthread_mutex_unlock(&s->lock);
        return CS_ECANCELLED;
    }
    uint8_t prefix[5] = {0, (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                         (uint8_t)len};
    cs_sbuf_append(&c->out, prefix, sizeof prefix);
    cs_sbuf_append(&c->out, msg, len);
    mark_dirty(c);
    pthread_mutex_unlock(&s->lock);
    wake_loop(s);
    return 0;
}

void cs_grpc_call_finish(cs_grpc_call *c, cs_grpc_code code, const char *message,
                         const uint8_t *details, size_t details_len)
{
    cs_grpc_server *s = c->srv;
    pthread_mutex_lock(&s->lock);
    if (!c->finished) {
        c->finished = true;
        c->status = code;
        c->status_msg = message ? cs_xstrdup(message) : NULL;
        if (details && details_len) {
            c->details = cs_xmalloc(details_len);
            memcpy(c->details, details, details_len);
            c->details_len = details_len;
        }
        if (!c->closed) mark_dirty(c);
    }
    pthread_mutex_unlock(&s->lock);
    wake_loop(s);
    cs_grpc_call_release(c);
}

/* ---- responses (loop thread) ------------------------------------------------------------------
 */

#define NV(n, v)                                                                                   \
    {                                                                                              \
        (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE             \
    }

/* gRPC's percent-encoding of grpc-message: bytes outside ' '..'~' and '%' as %XX. */
static void percent_encode(const char *m, cs_sbuf *out)
{
    for (const unsigned char *p = (const unsigned char *)m; *p; p++) {
        if (*p < 0x20 || *p > 0x7e || *p == '%')
            cs_sbuf_printf(out, "%%%02X", *p);
        else
            cs_sbuf_putc(out, (char)*p);
    }
}

/* The status headers (trailers, or the trailers-only response after :status and content-type)
 * into nv[*n...]; the texts live in the buffers given. Under srv->lock. */
static void status_headers(cs_grpc_call *c, nghttp2_nv *nv, size_t *n, char *code_text,
                           cs_sbuf *msg, cs_sbuf *details)
{
    snprintf(code_text, 12, "%d", (int)c->status);
    nv[(*n)++] = (nghttp2_nv)NV("grpc-status", code_text);
    if (c->status_msg && *c->status_msg) {
        percent_encode(c->status_msg, msg);
        nv[(*n)++] = (nghttp2_nv)NV("grpc-message", cs_sbuf_str(msg));
    }
    if (c->details_len) {
        size_t cap = 4 * ((c->details_len + 2) / 3) + 1;
        char *b64 = cs_xmalloc(cap);
        int len = EVP_EncodeBlock((unsigned char *)b64, c->details, (int)c->details_len);
        while (len > 0 && b64[len - 1] == '=') /* gRPC sends -bin values unpadded */
            len--;
        cs_sbuf_append(details, b64, (size_t)len);
        free(b64);
        nv[(*n)++] = (nghttp2_nv)NV("grpc-status-details-bin", cs_sbuf_str(details));
    }
}

static ssize_t read_response(nghttp2_session *h2, int32_t stream_id, uint8_t *buf, size_t length,
                             uint32_t *flags, nghttp2_data_source *source, void *user)
{
    cs_grpc_call *c = source->ptr;
    cs_grpc_server *s = c->srv;
    pthread_mutex_lock(&s->lock);
    size_t avail = c->out.len - c->out_pos;
    size_t n = avail < length ? avail : length;
    if (n) {
        memcpy(buf, c->out.data + c->out_pos, n);
        c->out_pos += n;
        if (c->out_pos == c->out.len) c->out.len = c->out_pos = 0;
    }
    ssize_t r = (ssize_t)n;
    if (n == 0 && !c->finished) {
        r = NGHTTP2_ERR_DEFERRED;
    } else if (c->out_pos == c->out.len && c->finished && !c->data_done) {
        c->data_done = true;
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        nghttp2_nv nv[3];
        size_t nn = 0;
        char code[12];
        cs_sbuf msg = CS_SBUF_INIT, det = CS_SBUF_INIT;
        status_headers(c, nv, &nn, code, &msg, &det);
        if (nghttp2_submit_trailer(h2, stream_id, nv, nn) != 0)
            nghttp2_submit_rst_stream(h2, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_INTERNAL_ERROR);
        cs_sbuf_free(&msg);
        cs_sbuf_free(&det);
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

/* Starts or resumes c's response. Under srv->lock; c->conn is set. */
static void push_response(cs_grpc_call *c)
{
    nghttp2_session *h2 = c->conn->h2;
    if (c->submitted) {
        nghttp2_session_resume_data(h2, c->stream_id);
        return;
    }
    c->submitted = true;
    nghttp2_nv nv[6] = {NV(":status", "200"), NV("content-type", "application/grpc")};
    size_t n = 2;
    if (c->finished && c->out.len == 0) { /* trailers-only */
        char code[12];
        cs_sbuf msg = CS_SBUF_INIT, det = CS_SBUF_INIT;
        c->data_done = true;
        status_headers(c, nv, &n, code, &msg, &det);
        nghttp2_submit_response(h2, c->stream_id, nv, n, NULL);
        cs_sbuf_free(&msg);
        cs_sbuf_free(&det);
        return;
    }
    nghttp2_data_provider dp = {.source.ptr = c, .read_callback = read_response};
    nghttp2_submit_response(h2, c->stream_id, nv, n, &dp);
}

static void conn_flush(grpc_conn *conn);

/* Answers a request the server refuses itself (bad framing, size) without the handler. */
static void refuse(cs_grpc_call *c, cs_grpc_code code, const char *message)
{
    pthread_mutex_lock(&c->srv->lock);
    c->finished = true;
    c->status = code;
    c->status_msg = cs_xstrdup(message);
    push_response(c);
    pthread_mutex_unlock(&c->srv->lock);
}

/* ---- requests (loop thread) -------------------------------------------------------------------
 */

static int on_begin_headers(nghttp2_session *h2, const nghttp2_frame *frame, void *user)
{
    grpc_conn *conn = user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    cs_grpc_call *c = call_new(conn->srv, conn, frame->hd.stream_id);
    nghttp2_session_set_stream_user_data(h2, frame->hd.stream_id, c);
    return 0;
}

static char *dup_n(const uint8_t *p, size_t n)
{
    char *s = cs_xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static int on_header(nghttp2_session *h2, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user)
{
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    cs_grpc_call *c = nghttp2_session_get_stream_user_data(h2, frame->hd.stream_id);
    if (!c) return 0;
    char **slot = NULL;
    if (namelen == 5 && memcmp(name, ":path", 5) == 0)
        slot = &c->path;
    else if (namelen == 13 && memcmp(name, "authorization", 13) == 0)
        slot = &c->authorization;
    else if (namelen == 12 && memcmp(name, "content-type", 12) == 0)
        slot = &c->content_type;
    else if (namelen == 10 && memcmp(name, "user-agent", 10) == 0)
        slot = &c->user_agent;
    if (slot && !*slot) *slot = dup_n(value, valuelen);
    return 0;
}

static void bad_request(cs_grpc_call *c, cs_grpc_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void bad_request(cs_grpc_call *c, cs_grpc_code code, const char *fmt, ...)
{
    if (c->bad_code != CS_GRPC_OK) return;
    c->bad_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->bad_msg, sizeof c->bad_msg, fmt, ap);
    va_end(ap);
    free(c->msg);
    c->msg = NULL;
    c->msg_len = c->msg_got = 0;
}

static int on_data_chunk(nghttp2_session *h2, uint8_t flags, int32_t stream_id, const uint8_t *data,
                         size_t len, void *user)
{
    cs_grpc_call *c = nghttp2_session_get_stream_user_data(h2, stream_id);
    if (!c) return 0;
    size_t max = c->srv->opts.max_message;
    while (len > 0 && c->bad_code == CS_GRPC_OK) {
        if (!c->in_body) {
            size_t take = 5 - (size_t)c->prefix_got;
            if (take > len) take = len;
            memcpy(c->prefix + c->prefix_got, data, take);
            c->prefix_got += (int)take;
            data += take;
            len -= take;
            if (c->prefix_got < 5) break;
            size_t mlen = (size_t)c->prefix[1] << 24 | (size_t)c->prefix[2] << 16 |
                          (size_t)c->prefix[3] << 8 | c->prefix[4];
            if (c->prefix[0] != 0) {
                bad_request(c, CS_GRPC_UNIMPLEMENTED,
                            "compressed messages are not accepted (flag %d): the server "
                            "announces no grpc-accept-encoding",
                            c->prefix[0]);
                break;
            }
            if (mlen > max) {
                bad_request(c, CS_GRPC_RESOURCE_EXHAUSTED,
                            "the request message is larger than the server's limit "
                            "(spark.connect.grpc.maxInboundMessageSize = %zu bytes)",
                            max);
                break;
            }
            bool streaming =
                c->srv->opts.client_streaming && c->path && c->srv->opts.client_streaming(c->path);
            if (c->n_messages > 0 && !streaming) {
                bad_request(c, CS_GRPC_UNIMPLEMENTED,
                            "more than one request message (%d) on a unary or "
                            "server-streaming method",
                            c->n_messages + 1);
                break;
            }
            if (mlen > max - c->msg_len) { /* a stream's messages count together */
                bad_request(c, CS_GRPC_RESOURCE_EXHAUSTED,
                            "the request's messages are larger together than the server's limit "
                            "(spark.connect.grpc.maxInboundMessageSize = %zu bytes)",
                            max);
                break;
            }
            c->n_messages++;
            c->msg_ends = cs_xrealloc(c->msg_ends, (size_t)c->n_messages * sizeof *c->msg_ends);
            c->msg_ends[c->n_messages - 1] = c->msg_len + mlen;
            c->msg = cs_xrealloc(c->msg, c->msg_len + mlen + 1);
            c->msg_len += mlen;
            c->in_body = mlen > 0;
            c->prefix_got = 0;
            continue;
        }
        size_t take = c->msg_len - c->msg_got;
        if (take > len) take = len;
        memcpy(c->msg + c->msg_got, data, take);
        c->msg_got += take;
        data += take;
        len -= take;
        if (c->msg_got == c->msg_len) c->in_body = false;
    }
    return 0;
}

static void request_done(grpc_conn *conn, cs_grpc_call *c)
{
    if (c->bad_code == CS_GRPC_OK) {
        if (!c->content_type || strncmp(c->content_type, "application/grpc", 16) != 0)
            bad_request(c, CS_GRPC_UNKNOWN, "content-type is not application/grpc");
        else if (c->in_body || c->prefix_got)
            bad_request(c, CS_GRPC_INTERNAL, "the request ends inside a message (%zu bytes read)",
                        c->msg_got + (size_t)c->prefix_got);
        else if (c->n_messages == 0)
            bad_request(c, CS_GRPC_UNIMPLEMENTED, "the request carries no message");
    }
    if (c->bad_code != CS_GRPC_OK) {
        CS_WARN("connect", "event=bad_request method=%s reason=%s",
                cs_log_value(cs_grpc_call_method(c)), cs_log_quote(c->bad_msg));
        refuse(c, c->bad_code, c->bad_msg);
        return;
    }
    conn->srv->opts.on_call(conn->srv->opts.arg, cs_grpc_call_ref(c));
}

static int on_frame_recv(nghttp2_session *h2, const nghttp2_frame *frame, void *user)
{
    grpc_conn *conn = user;
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    cs_grpc_call *c = nghttp2_session_get_stream_user_data(h2, frame->hd.stream_id);
    if (c) request_done(conn, c);
    return 0;
}

/* The stream of c is gone (closed by either side, or its connection): the loop's reference is
 * dropped; a handler still running is told the client went away. */
static void stream_gone(grpc_conn *conn, cs_grpc_call *c)
{
    if (c->conn_prev)
        c->conn_prev->conn_next = c->conn_next;
    else
        conn->calls = c->conn_next;
    if (c->conn_next) c->conn_next->conn_prev = c->conn_prev;
    cs_grpc_server *s = conn->srv;
    pthread_mutex_lock(&s->lock);
    bool cancelled = !c->finished && !c->closed && c->n_messages > 0 && c->bad_code == CS_GRPC_OK;
    c->closed = true;
    c->conn = NULL;
    pthread_mutex_unlock(&s->lock);
    if (cancelled && s->opts.on_cancel) s->opts.on_cancel(s->opts.arg, c);
    cs_grpc_call_release(c);
}

static int on_stream_close(nghttp2_session *h2, int32_t stream_id, uint32_t error_code, void *user)
{
    cs_grpc_call *c = nghttp2_session_get_stream_user_data(h2, stream_id);
    if (!c) return 0;
    nghttp2_session_set_stream_user_data(h2, stream_id, NULL);
    stream_gone(user, c);
    return 0;
}

/* ---- connections (loop thread) ----------------------------------------------------------------
 */

typedef struct write_req {
    uv_write_t req;
    grpc_conn *conn;
    size_t len;
    char data[];
} write_req;

static void conn_closed(uv_handle_t *h)
{
    grpc_conn *conn = h->data;
    if (conn->h2) nghttp2_session_del(conn->h2);
    cs_grpc_tls_conn_free(conn->tls);
    free(conn);
}

static void conn_close(grpc_conn *conn)
{
    if (conn->closing) return;
    conn->closing = true;
    while (conn->calls) {
        cs_grpc_call *c = conn->calls;
        if (conn->h2) nghttp2_session_set_stream_user_data(conn->h2, c->stream_id, NULL);
        stream_gone(conn, c);
    }
    cs_grpc_server *s = conn->srv;
    if (conn->prev)
        conn->prev->next = conn->next;
    else
        s->conns = conn->next;
    if (conn->next) conn->next->prev = conn->prev;
    uv_close((uv_handle_t *)&conn->tcp, conn_closed);
}

static void write_done(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    grpc_conn *conn = w->conn;
    conn->writing -= w->len;
    free(w);
    if (conn->closing) return;
    if (status < 0) {
        conn_close(conn);
        return;
    }
    conn_flush(conn);
}

static void conn_flush(grpc_conn *conn)
{
    if (conn->closing) return;
    cs_sbuf out = CS_SBUF_INIT;
    bool h2_ready = !conn->tls || cs_grpc_tls_conn_ready(conn->tls); /* after the handshake */
    while (h2_ready && conn->writing + out.len < WRITE_HIGH_WATER) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(conn->h2, &data);
        if (n < 0) {
            cs_sbuf_free(&out);
            conn_close(conn);
            return;
        }
        if (n == 0) break;
        cs_sbuf_append(&out, data, (size_t)n);
    }
    if (conn->tls) { /* out encrypted, with the handshake's own records */
        cs_error err;
        cs_error_clear(&err);
        int rc = out.len
                     ? cs_grpc_tls_conn_write(conn->tls, (const uint8_t *)out.data, out.len, &err)
                     : 0;
        out.len = 0;
        cs_grpc_tls_conn_output(conn->tls, &out);
        if (rc < 0) {
            CS_WARN("connect", "event=bad_connection reason=%s", cs_log_quote(err.msg));
            cs_sbuf_free(&out);
            conn_close(conn);
            return;
        }
    }
    if (out.len) {
        write_req *w = cs_xmalloc(sizeof *w + out.len);
        w->conn = conn;
        w->len = out.len;
        memcpy(w->data, out.data, out.len);
        uv_buf_t b = uv_buf_init(w->data, (unsigned)out.len);
        conn->writing += out.len;
        if (uv_write(&w->req, (uv_stream_t *)&conn->tcp, &b, 1, write_done) < 0) {
            conn->writing -= out.len;
            free(w);
            cs_sbuf_free(&out);
            conn_close(conn);
            return;
        }
    }
    cs_sbuf_free(&out);
    if (conn->writing == 0 && !nghttp2_session_want_read(conn->h2) &&
        !nghttp2_session_want_write(conn->h2))
        conn_close(conn);
}

static void alloc_buf(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    b->base = cs_xmalloc(READ_CHUNK);
    b->len = READ_CHUNK;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *b)
{
    grpc_conn *conn = stream->data;
    if (nread < 0) {
        free(b->base);
        conn_close(conn);
        return;
    }
    cs_sbuf plain = CS_SBUF_INIT;
    const uint8_t *data = (const uint8_t *)b->base;
    size_t len = nread > 0 ? (size_t)nread : 0;
    if (len && !conn->closing && conn->tls) {
        cs_error err;
        cs_error_clear(&err);
        if (cs_grpc_tls_conn_read(conn->tls, data, len, &plain, &err) < 0) {
            CS_WARN("connect", "event=bad_connection reason=%s", cs_log_quote(err.msg));
            cs_sbuf_free(&plain);
            free(b->base);
            conn_flush(conn); /* the alert, if any */
            conn_close(conn);
            return;
        }
        data = (const uint8_t *)plain.data;
        len = plain.len;
        if (!len) conn_flush(conn); /* the handshake's answer; SETTINGS once it is done */
    }
    if (len && !conn->closing) {
        ssize_t r = nghttp2_session_mem_recv(conn->h2, data, len);
        if (r < 0) {
            CS_WARN("connect", "event=bad_connection reason=%s",
                    cs_log_quote(nghttp2_strerror((int)r)));
            cs_sbuf_free(&plain);
            free(b->base);
            conn_flush(conn); /* a GOAWAY nghttp2 queued, if any */
            conn_close(conn);
            return;
        }
        conn_flush(conn);
    }
    cs_sbuf_free(&plain);
    free(b->base);
}

static void on_connection(uv_stream_t *listener, int status)
{
    cs_grpc_server *s = listener->data;
    if (status < 0 || s->stopping) return;
    grpc_conn *conn = cs_xcalloc(1, sizeof *conn);
    conn->srv = s;
    uv_tcp_init(&s->loop, &conn->tcp);
    conn->tcp.data = conn;
    if (uv_accept(listener, (uv_stream_t *)&conn->tcp) < 0) {
        uv_close((uv_handle_t *)&conn->tcp, conn_closed);
        return;
    }
    uv_tcp_nodelay(&conn->tcp, 1);
    if (s->tls && !(conn->tls = cs_grpc_tls_conn_new(s->tls))) {
        uv_close((uv_handle_t *)&conn->tcp, conn_closed);
        return;
    }
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    int rc = nghttp2_session_server_new(&conn->h2, cbs, conn);
    nghttp2_session_callbacks_del(cbs);
    conn->next = s->conns;
    if (s->conns) s->conns->prev = conn;
    s->conns = conn;
    if (rc != 0) {
        conn->h2 = NULL;
        conn_close(conn);
        return;
    }
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, MAX_STREAMS},
                                   {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
    nghttp2_submit_settings(conn->h2, NGHTTP2_FLAG_NONE, iv, 2);
    nghttp2_session_set_local_window_size(conn->h2, NGHTTP2_FLAG_NONE, 0, 16 << 20);
    if (uv_read_start((uv_stream_t *)&conn->tcp, alloc_buf, on_read) < 0) {
        conn_close(conn);
        return;
    }
    conn_flush(conn);
}

static void close_any(uv_handle_t *h, void *arg)
{
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

static void on_wake(uv_async_t *a)
{
    cs_grpc_server *s = a->data;
    pthread_mutex_lock(&s->lock);
    cs_grpc_call *list = s->dirty;
    s->dirty = NULL;
    bool stopping = s->stopping;
    pthread_mutex_unlock(&s->lock);
    /* the connections touched, flushed once each below */
    grpc_conn *touched[64];
    int n_touched = 0;
    bool flush_all = false;
    while (list) {
        cs_grpc_call *c = list;
        list = c->dirty_next;
        pthread_mutex_lock(&s->lock);
        c->dirty = false;
        grpc_conn *conn = c->conn;
        if (conn && !conn->closing) push_response(c);
        pthread_mutex_unlock(&s->lock);
        if (conn && !conn->closing) {
            bool seen = false;
            for (int i = 0; i < n_touched && !seen; i++)
                seen = touched[i] == conn;
            if (!seen && n_touched < 64)
                touched[n_touched++] = conn;
            else if (!seen)
                flush_all = true;
        }
        cs_grpc_call_release(c);
    }
    if (flush_all) {
        for (grpc_conn *conn = s->conns; conn;) {
            grpc_conn *next = conn->next;
            conn_flush(conn);
            conn = next;
        }
    } else {
        for (int i = 0; i < n_touched; i++)
            conn_flush(touched[i]);
    }
    if (stopping) {
        while (s->conns)
            conn_close(s->conns);
        uv_walk(&s->loop, close_any, NULL);
    }
}

static void *loop_main(void *arg)
{
    cs_grpc_server *s = arg;
    uv_run(&s->loop, UV_RUN_DEFAULT);
    return NULL;
}

cs_grpc_server *cs_grpc_server_start(const cs_grpc_server_opts *opts, cs_error *err)
{
    cs_grpc_server *s = cs_xcalloc(1, sizeof *s);
    s->opts = *opts;
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    struct sockaddr_storage addr;
    const char *host = strcmp(opts->host, "localhost") == 0 ? cs_loopback_address() : opts->host;
    int rc = uv_ip4_addr(host, opts->port, (struct sockaddr_in *)&addr);
    if (rc < 0) rc = uv_ip6_addr(host, opts->port, (struct sockaddr_in6 *)&addr);
    if (rc < 0) {
        cs_error_set(err, CS_EINVAL,
                     "spark.connect.grpc.binding.address '%s': expected an IPv4 or IPv6 address",
                     opts->host);
        goto fail_lock;
    }
    if (opts->tls_cert_file &&
        !(s->tls = cs_grpc_tls_new(opts->tls_cert_file, opts->tls_key_file, err)))
        goto fail_lock;
    if (uv_loop_init(&s->loop) < 0) {
        cs_error_set(err, CS_EIO, "cannot create the Spark Connect server's event loop");
        goto fail_lock;
    }
    uv_tcp_init(&s->loop, &s->listener);
    s->listener.data = s;
    rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&addr, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&s->listener, 128, on_connection);
    if (rc < 0) {
        cs_error_set(err, CS_EIO, "cannot listen on %s:%d for Spark Connect: %s", opts->host,
                     opts->port, uv_strerror(rc));
        goto fail_loop;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &blen);
    s->port = bound.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                                          : ntohs(((struct sockaddr_in *)&bound)->sin_port);
    uv_async_init(&s->loop, &s->wake, on_wake);
    s->wake.data = s;
    if (pthread_create(&s->thread, NULL, loop_main, s) != 0) {
        cs_error_set(err, CS_EIO, "cannot start the Spark Connect server's thread");
        goto fail_loop;
    }
    return s;
fail_loop:
    uv_walk(&s->loop, close_any, NULL);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    uv_loop_close(&s->loop);
fail_lock:
    cs_grpc_tls_free(s->tls);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
}

int cs_grpc_server_port(const cs_grpc_server *s)
{
    return s->port;
}

void cs_grpc_server_stop(cs_grpc_server *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    uv_async_send(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_lock(&s->lock);
    s->loop_gone = true;
    cs_grpc_call *left = s->dirty;
    s->dirty = NULL;
    pthread_mutex_unlock(&s->lock);
    while (left) {
        cs_grpc_call *c = left;
        left = c->dirty_next;
        cs_grpc_call_release(c);
    }
    uv_loop_close(&s->loop);
    server_unref(s);
}
