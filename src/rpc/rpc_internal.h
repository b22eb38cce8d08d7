/* rpc_internal.h — the rpc_endpoint and rpc_conn structures and the functions the endpoint's
 * files share. Private to src/rpc/: everything outside uses endpoint.h.
 *
 * One endpoint (endpoint.h) is implemented by six files, one concern each:
 *   endpoint.c        the endpoint and its loop thread: creation, the cross-thread lists, posted
 *                     functions, shutdown
 *   connection.c      a connection's lifetime (references, closing) and its input: reads, frame
 *                     decoding, dispatch to the handshake, to a waiting call or to on_message
 *   output.c          a connection's output queue (filled from any thread) and its writes
 *   call.c            request ids and request/reply (cs_rpc_call_async, cs_rpc_call)
 *   listen_connect.c  listening sockets, accepted connections, outgoing connects
 *   handshake.c       the spark.authenticate handshake (auth.h holds the cryptography)
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
 * Fields are grouped below by who may touch them: the loop thread only, or anyone under c->mu.
 */
#ifndef CSPARK_RPC_INTERNAL_H
#define CSPARK_RPC_INTERNAL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <uv.h>

#include "rpc/auth.h"
#include "rpc/endpoint.h"
#include "rpc/frame.h"

#define RPC_READ_BUF (64 * 1024)
#define RPC_COALESCE_MAX (8 * 1024) /* frames up to this size are packed into shared chunks */
#define RPC_CHUNK_CAP (64 * 1024)

extern const char *const cs_rpc_log_component; /* "rpc" */

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
    chunk *fl; /* chunks being written */
    int fln, flcap;
    uv_buf_t *bufs;
    int bufcap;
    uint8_t server_nonce[AUTH_NONCE_LEN];
    uint8_t client_nonce[AUTH_NONCE_LEN];
    char *auth_app;
    struct sockaddr_storage addr;
    rpc_conn *next_open, *prev_open; /* e->conns */
    int waiting_auth;                /* on e->unauth: an accepted peer not yet authenticated */
    rpc_conn *next_unauth, *prev_unauth;

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

/* An entry of one of the endpoint's cross-thread lists. */
typedef struct post_item {
    void (*fn)(void *);
    void *arg;
    rpc_conn *conn;  /* dirty/close lists */
    int after_input; /* posts: drain every connection's waiting input before fn */
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
    atomic_size_t max_frame; /* spark.rpc.message.maxSize: read by senders on any thread */
    uint64_t auth_timeout_ms;
    int max_unauthenticated;
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
    uint8_t *rbuf; /* the read buffer of every connection: each read is consumed at once */
    rpc_conn *unauth_head, *unauth_tail; /* accepted peers not yet authenticated, oldest first */
    int num_unauth;
    uint64_t refusal_window;    /* start (uv_now) of the current refusal-logging window */
    int refusals_logged;        /* refusals logged in it */
    long long refusals_dropped; /* refusals not logged in it */
};

/* ---- endpoint.c --------------------------------------------------------------------------- */

/* Any thread: queues it on l for the loop thread and wakes the loop; 0 (item not queued, the
 * caller still owns it) once the loop has stopped. */
int cs_rpc_kick(rpc_endpoint *e, item_list *l, post_item *it);
/* uv_close callback for handles allocated on their own (listeners). */
void cs_rpc_free_handle(uv_handle_t *h);

/* ---- connection.c ------------------------------------------------------------------------- */

/* A connection with one reference (its TCP handle's), not yet linked. */
rpc_conn *cs_rpc_conn_new(rpc_endpoint *e, int client);
/* Frees at once (refcount ignored): for a connection whose handle was never initialized. */
void cs_rpc_conn_destroy(rpc_conn *c);
/* Loop thread: adds c to e->conns (the connections shutdown closes). */
void cs_rpc_conn_link(rpc_conn *c);
/* Loop thread: starts closing c (idempotent). Pending calls fail; a connecting caller wakes;
 * on_close runs once the handle is closed. */
void cs_rpc_conn_close_now(rpc_conn *c, const char *reason);
/* Loop thread: TCP_NODELAY and uv_read_start (closes c on failure). */
void cs_rpc_conn_start_reading(rpc_conn *c);
/* Loop thread: reads and dispatches every byte that has arrived on c's socket so far (not what
 * arrives meanwhile), as libuv's read callback would have. */
void cs_rpc_conn_drain_input(rpc_conn *c);

/* ---- output.c ----------------------------------------------------------------------------- */

/* Any thread: packs msg into c's queue and wakes the loop; registers call (if any) in the same
 * critical section. CS_EINVAL (too large or empty), CS_EIO (closed). */
int cs_rpc_enqueue(rpc_conn *c, const Cspark__Envelope *msg, pending_call *call);
/* Loop thread: writes whatever is queued (one uv_write of all chunks). */
void cs_rpc_flush(rpc_conn *c);
/* Loop thread: queues m and writes at once. */
void cs_rpc_send_now(rpc_conn *c, const Cspark__Envelope *m);

/* ---- call.c ------------------------------------------------------------------------------- */

/* Loop thread: m carries our parity's request id — hands it to the waiting call (taking m),
 * or drops it when no call waits for that id. */
void cs_rpc_route_reply(rpc_conn *c, Cspark__Envelope *m);

/* ---- handshake.c -------------------------------------------------------------------------- */

/* Loop thread: an accepted connection before its first read: starts the server side of the
 * handshake when e has a secret, else opens it (on_accept). */
void cs_rpc_handshake_accepted(rpc_conn *c);
/* Loop thread: a client connection is connected: sends AuthHello when e has a secret, else
 * opens it (the connecting caller wakes). */
void cs_rpc_handshake_connected(rpc_conn *c);
/* Loop thread: a message that arrived while c is in C_AUTH (borrowed). */
void cs_rpc_handshake_message(rpc_conn *c, Cspark__Envelope *m);
/* Loop thread: refuses an unauthenticated peer: AuthResult(ok=false, reason), logged, then the
 * connection closes once that is written. */
void cs_rpc_handshake_refuse(rpc_conn *c, const char *reason);
/* Loop thread: c is closing: it no longer holds a place among the unauthenticated peers. */
void cs_rpc_handshake_forget(rpc_conn *c);
/* Loop thread: logs `event=auth_failed` for a peer refused before it authenticated — at most
 * RPC_REFUSAL_LOG_BURST lines per RPC_REFUSAL_LOG_WINDOW_MS per endpoint, then one line counting
 * those left out, so a flood of hostile connections cannot flood the log. */
void cs_rpc_log_refusal(rpc_conn *c, const char *reason);
#define RPC_REFUSAL_LOG_BURST 20
#define RPC_REFUSAL_LOG_WINDOW_MS 10000

#endif /* CSPARK_RPC_INTERNAL_H */
