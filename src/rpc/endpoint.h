/* endpoint.h — framed, authenticated message endpoints over TCP on a libuv loop thread.
 *
 * An rpc_endpoint owns one libuv loop running on its own thread, any number of TCP connections
 * (accepted by cs_rpc_listen or opened by cs_rpc_connect) and, when a secret is set, performs the
 * spark.authenticate handshake (auth.h) on every connection before any other message passes.
 * Frames are a 4-byte big-endian length + one Cspark__Envelope (frame.h). Sends from any thread
 * are packed into a per-connection queue and written by the loop thread in batches.
 * Used by the driver (cluster backend), the executor, the block server and the block fetcher.
 * Implemented by endpoint.c, connection.c, output.c, call.c, listen_connect.c and handshake.c
 * (rpc_internal.h says which does what, and holds the lock order and reference rules).
 *
 * Threading: handlers run on the loop thread. cs_rpc_send/cs_rpc_reply/cs_rpc_conn_close/ref/unref/
 * cs_rpc_endpoint_post are thread-safe. cs_rpc_connect and cs_rpc_call block and must not be called
 * from the loop thread (they fail with CS_EINVAL if they are).
 *
 * Before authentication (endpoints with a secret, server side): a peer may send only frames of
 * up to RPC_HANDSHAKE_MAX_FRAME bytes, must finish the handshake within auth_timeout_ms, and at
 * most max_unauthenticated such peers are held at once — a new one drops the oldest. Memory for
 * a frame grows with the bytes that arrived; only an authenticated peer's frame is reserved
 * whole at its header (frame.h), and never beyond max_frame.
 *
 * Ownership: cs_rpc_endpoint_new copies the option strings. A rpc_conn is refcounted: the endpoint
 * holds one reference while the connection is open; handlers may cs_rpc_conn_ref a connection to
 * keep it beyond the callback, and must cs_rpc_conn_unref it later. After close every send fails
 * with a negative code, but the handle stays valid until the last unref. Envelopes passed to
 * cs_rpc_send/cs_rpc_call/cs_rpc_reply are borrowed for the call (packed immediately).
 */
#ifndef CSPARK_RPC_ENDPOINT_H
#define CSPARK_RPC_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "cspark.pb-c.h"

typedef struct rpc_endpoint rpc_endpoint;
typedef struct rpc_conn rpc_conn;

typedef struct rpc_handlers {
    /* A message arrived (after authentication). Runs on the loop thread; msg borrowed for the
     * call. Replies to cs_rpc_call requests are routed to the waiting caller, not here. */
    void (*on_message)(void *arg, rpc_conn *c, const Cspark__Envelope *msg);
    /* Connection gone (peer closed, error, auth failure, cs_rpc_conn_close); reason is short text.
     * The handle stays valid until its last unref. */
    void (*on_close)(void *arg, rpc_conn *c, const char *reason);
    /* Server side: a peer connected and authenticated (optional). */
    void (*on_accept)(void *arg, rpc_conn *c);
    void *arg;
} rpc_handlers;

typedef struct rpc_options {
    const char *name;   /* for logs: "driver", "executor-3", "block-server" */
    const char *app_id; /* sent in AuthHello, checked by the server */
    const char *secret; /* NULL or "" = no authentication */
    size_t max_frame;   /* 0 = 128 MiB (spark.rpc.message.maxSize) */
    /* With a secret, what an unauthenticated peer may cost (see "Before authentication"): */
    int64_t auth_timeout_ms; /* 0 = 30 s (spark.network.auth.rpcTimeout) */
    int max_unauthenticated; /* 0 = 256 (cspark.rpc.maxUnauthenticatedConnections) */
} rpc_options;

#define RPC_DEFAULT_MAX_FRAME ((size_t)128 * 1024 * 1024)
#define RPC_MAX_FRAME_LIMIT ((size_t)2047 * 1024 * 1024) /* Spark's bound on the key: 2047 MiB */
#define RPC_DEFAULT_AUTH_TIMEOUT_MS 30000
#define RPC_DEFAULT_MAX_UNAUTHENTICATED 256
/* The largest frame accepted from a peer that has not authenticated (the handshake's messages
 * are a few dozen bytes plus the application id). */
#define RPC_HANDSHAKE_MAX_FRAME ((size_t)4096)

/* Fills max_frame, auth_timeout_ms and max_unauthenticated of *o from the configuration:
 * spark.rpc.message.maxSize (MiB, as Spark; 1..2047, default 128), spark.network.auth.rpcTimeout
 * (falling back to spark.shuffle.sasl.timeout, as Spark; > 0, default 30s) and
 * cspark.rpc.maxUnauthenticatedConnections (1..65536, default 256). Other fields are left as
 * they are. CS_EINVAL naming the key and what is expected on a bad value (the words of
 * common/conf_entries.c, which declares these keys). */
int cs_rpc_options_from_conf(const cs_conf *conf, rpc_options *o, cs_error *err);

/* Copies opt strings; starts the loop thread. h may be NULL (no handlers). NULL + err on failure.
 */
rpc_endpoint *cs_rpc_endpoint_new(const rpc_options *opt, const rpc_handlers *h, cs_error *err);
/* Binds and listens on host:port (port 0 = any free port; *bound_port gets the actual one). */
int cs_rpc_listen(rpc_endpoint *e, const char *host, int port, int *bound_port, cs_error *err);
/* Connects and authenticates, blocking the caller (never call from the loop thread) up to
 * timeout_ms. Returns a referenced handle (cs_rpc_conn_unref when done). Errors name host:port and
 * the cause ("connection refused", "authentication failed: ..."). */
rpc_conn *cs_rpc_connect(rpc_endpoint *e, const char *host, int port, int timeout_ms,
                         cs_error *err);
/* Thread-safe, non-blocking (packs into the queue); <0 if closed (CS_EIO) or too large
 * (CS_EINVAL). */
int cs_rpc_send(rpc_conn *c, const Cspark__Envelope *msg);
/* Thread-safe request/reply (not from the loop thread): assigns request_id, waits for the
 * envelope with the same id. *reply: free with cspark__envelope__free_unpacked(*reply, NULL).
 * Fails with CS_ETIMEOUT or CS_EIO (connection closed) naming the peer. */
int cs_rpc_call(rpc_conn *c, Cspark__Envelope *req, Cspark__Envelope **reply, int timeout_ms,
                cs_error *err);
/* Sets reply->request_id and sends. */
int cs_rpc_reply(rpc_conn *c, uint64_t request_id, Cspark__Envelope *reply);
/* Closes the connection (asynchronously; on_close runs on the loop thread). Idempotent. */
void cs_rpc_conn_close(rpc_conn *c);
/* A peer whose host is gone (no FIN, no RST) closes the connection once data sent to it stays
 * unacknowledged for ms (TCP_USER_TIMEOUT): a paused peer, whose kernel still acknowledges,
 * does not. Any thread, on an open connection; CS_EIO when the socket refuses. */
int cs_rpc_conn_set_unacked_timeout(rpc_conn *c, int64_t ms);
void cs_rpc_conn_ref(rpc_conn *c);
void cs_rpc_conn_unref(rpc_conn *c);
/* "127.0.0.1:43210"; valid as long as the handle. */
const char *cs_rpc_conn_peer(const rpc_conn *c);
void cs_rpc_conn_set_data(rpc_conn *c, void *data);
void *cs_rpc_conn_data(const rpc_conn *c);
/* Runs fn(arg) on the loop thread soon (thread-safe) — for timers and work that must touch loop
 * state. Functions posted before cs_rpc_endpoint_free are run before the loop exits. */
void cs_rpc_endpoint_post(rpc_endpoint *e, void (*fn)(void *arg), void *arg);
/* As cs_rpc_endpoint_post, but fn runs only after every byte that had arrived on the endpoint's
 * connections by then has been read and its complete messages handled (on_message ran for
 * them) — so a decision taken in fn ("this peer has been silent too long") never ignores a
 * message that was already waiting in a socket, e.g. after the process was paused or its loop
 * was busy. Input still arriving while fn is due is not waited for. */
void cs_rpc_endpoint_post_after_input(rpc_endpoint *e, void (*fn)(void *arg), void *arg);
/* Closes every connection (on_close called), joins the loop thread, frees. NULL is fine. */
void cs_rpc_endpoint_free(rpc_endpoint *e);

/* Added: true when the caller runs on e's loop thread. */
int cs_rpc_endpoint_in_loop(const rpc_endpoint *e);
/* Added: the endpoint a connection belongs to. */
rpc_endpoint *cs_rpc_conn_endpoint(const rpc_conn *c);
/* Added: sends an already-framed buffer (4-byte length + serialized envelope), taking ownership
 * of buf (freed with free() once written or on failure). For large replies built in place
 * (block server). <0 if closed. */
int cs_rpc_send_raw(rpc_conn *c, uint8_t *buf, size_t len);
/* Added: asynchronous request. Assigns req->request_id and sends req; then fn runs on the loop
 * thread with every envelope carrying that id (ownership of msg moves to fn: free it with
 * cspark__envelope__free_unpacked) for as long as fn returns 1 (multi-part replies such as a
 * stream of BlockData); returning 0 ends the call. If the connection closes first, fn runs once
 * more with msg == NULL and a short reason (and its return value is ignored). Returns 0, or <0
 * if the connection is already closed (fn is then never called). */
typedef int (*rpc_reply_fn)(void *arg, rpc_conn *c, Cspark__Envelope *msg, const char *reason);
int cs_rpc_call_async(rpc_conn *c, Cspark__Envelope *req, rpc_reply_fn fn, void *arg);
/* Added: bytes queued or being written on c (back-pressure for bulk senders). */
size_t cs_rpc_conn_queued(rpc_conn *c);
/* Added: waits (not on the loop thread) until fewer than `below` bytes are queued on c, c is
 * closed, or timeout_ms passes. 0 when writable, CS_EIO if closed, CS_ETIMEOUT. */
int cs_rpc_conn_wait_writable(rpc_conn *c, size_t below, int timeout_ms);
/* Added: true once the connection is closed or closing (sends fail). */
int cs_rpc_conn_is_closed(rpc_conn *c);
/* The largest envelope e sends or accepts from an authenticated peer (spark.rpc.message.maxSize).
 * Thread-safe. */
size_t cs_rpc_endpoint_max_frame(const rpc_endpoint *e);
/* Changes that limit (0 = 128 MiB), for frames not yet started on every connection — an executor
 * learns the application's spark.rpc.message.maxSize only from the driver, over a connection
 * opened with the default. Thread-safe. */
void cs_rpc_endpoint_set_max_frame(rpc_endpoint *e, size_t max_frame);

#endif /* CSPARK_RPC_ENDPOINT_H */
