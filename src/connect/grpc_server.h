/*
 * grpc_server.h — a gRPC server over HTTP/2 (nghttp2) on its own libuv loop thread: the transport
 * under the Spark Connect service (connect_service.c). It speaks gRPC's wire protocol
 * (PROTOCOL-HTTP2 of grpc/grpc): requests are POSTs whose :path names the method
 * ("/spark.connect.SparkConnectService/ExecutePlan"), with content-type application/grpc; each
 * message is a 5-byte prefix (a compressed flag and a big-endian length) and the message's bytes;
 * a response is HTTP 200 headers, messages in DATA frames, and trailers carrying grpc-status,
 * grpc-message (percent-encoded) and grpc-status-details-bin (a google.rpc.Status, base64) — or,
 * for an error before any message, those headers alone ("trailers-only").
 *
 * The server handles unary and server-streaming methods (one request message) and
 * client-streaming ones (the methods opts.client_streaming names: every message of the request is
 * read before the call goes to on_call, and they count together against max_message). What the
 * client sends is checked before anything else sees it: a message longer than max_message is
 * refused with RESOURCE_EXHAUSTED as soon as its prefix is read (its body is never buffered), a
 * compressed one with UNIMPLEMENTED (the server announces no compression), a request with no
 * message, or with more than one on a method that is not client-streaming, with UNIMPLEMENTED, and
 * a connection that breaks HTTP/2 is closed. None of it reaches the service.
 *
 * Threads: the loop thread owns the sockets and nghttp2 sessions and calls on_call and on_cancel.
 * cs_grpc_call_send / _finish / _release may be called from any thread (the service's works'
 * threads): they queue under the server's mutex and wake the loop (uv_async_t), which writes as the
 * peer's flow-control window allows.
 *
 * Ownership: the server owns its calls; on_call hands the handler one reference to the call,
 * which the handler gives back with cs_grpc_call_finish (exactly once; it releases that
 * reference) or keeps longer with cs_grpc_call_ref / cs_grpc_call_release. The request message
 * and headers are the call's, valid while a reference is held.
 */
#ifndef CSPARK_CONNECT_GRPC_SERVER_H
#define CSPARK_CONNECT_GRPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* gRPC status codes (grpc/doc/statuscodes.md). */
typedef enum cs_grpc_code {
    CS_GRPC_OK = 0,
    CS_GRPC_CANCELLED = 1,
    CS_GRPC_UNKNOWN = 2,
    CS_GRPC_INVALID_ARGUMENT = 3,
    CS_GRPC_DEADLINE_EXCEEDED = 4,
    CS_GRPC_NOT_FOUND = 5,
    CS_GRPC_ALREADY_EXISTS = 6,
    CS_GRPC_PERMISSION_DENIED = 7,
    CS_GRPC_RESOURCE_EXHAUSTED = 8,
    CS_GRPC_FAILED_PRECONDITION = 9,
    CS_GRPC_ABORTED = 10,
    CS_GRPC_OUT_OF_RANGE = 11,
    CS_GRPC_UNIMPLEMENTED = 12,
    CS_GRPC_INTERNAL = 13,
    CS_GRPC_UNAVAILABLE = 14,
    CS_GRPC_DATA_LOSS = 15,
    CS_GRPC_UNAUTHENTICATED = 16
} cs_grpc_code;

typedef struct cs_grpc_server cs_grpc_server;
typedef struct cs_grpc_call cs_grpc_call;

typedef struct cs_grpc_server_opts {
    const char *host;   /* address to bind ("127.0.0.1", "0.0.0.0", "::") */
    int port;           /* 0: a free port (cs_grpc_server_port tells which) */
    size_t max_message; /* the longest request message accepted, in bytes */
    /* TLS (grpc_tls.h): the server's PEM certificate chain and private key; NULL: plaintext */
    const char *tls_cert_file, *tls_key_file;
    /* A complete request: called on the loop thread with one reference the handler owns; must
     * not block. */
    void (*on_call)(void *arg, cs_grpc_call *call);
    /* The client went away (RST_STREAM, the connection closed) before the call finished: called
     * on the loop thread; the handler still holds its reference and must still finish. */
    void (*on_cancel)(void *arg, cs_grpc_call *call);
    /* Whether the method (":path") takes a stream of request messages; NULL: none does. Called
     * on the loop thread. */
    bool (*client_streaming)(const char *method);
    void *arg;
} cs_grpc_server_opts;

/* Binds, listens and starts the loop thread. NULL + err (naming the address) on failure. */
cs_grpc_server *cs_grpc_server_start(const cs_grpc_server_opts *opts, cs_error *err);
/* The port listened on. */
int cs_grpc_server_port(const cs_grpc_server *s);
/* Closes the listener and every connection (calls still running see their peer gone), stops and
 * joins the loop thread, and frees the server once no handler holds a call. Not from the loop
 * thread. NULL is a no-op. */
void cs_grpc_server_stop(cs_grpc_server *s);

/* The request: ":path" ("/package.Service/Method"), a header by lower-case name (NULL when not
 * sent; only "authorization", "user-agent" and "content-type" are kept), the (first) message's
 * bytes. */
const char *cs_grpc_call_method(const cs_grpc_call *c);
const char *cs_grpc_call_header(const cs_grpc_call *c, const char *name);
const uint8_t *cs_grpc_call_message(const cs_grpc_call *c, size_t *len);
/* A client-streaming call's messages: how many, and message i (0-based) of them. */
int cs_grpc_call_message_count(const cs_grpc_call *c);
const uint8_t *cs_grpc_call_message_at(const cs_grpc_call *c, int i, size_t *len);
/* True once the client went away or the call finished. Any thread. */
bool cs_grpc_call_gone(cs_grpc_call *c);

/* Queues one response message (copied): 0, or CS_ECANCELLED when the client went away. */
int cs_grpc_call_send(cs_grpc_call *c, const uint8_t *msg, size_t len);
/* Ends the call with a status: message (NULL: none) is sent percent-encoded, details (a
 * serialized google.rpc.Status, or NULL) as grpc-status-details-bin. Releases the handler's
 * reference. Any thread; once per call. */
void cs_grpc_call_finish(cs_grpc_call *c, cs_grpc_code code, const char *message,
                         const uint8_t *details, size_t details_len);
cs_grpc_call *cs_grpc_call_ref(cs_grpc_call *c);
void cs_grpc_call_release(cs_grpc_call *c);

#endif /* CSPARK_CONNECT_GRPC_SERVER_H */
