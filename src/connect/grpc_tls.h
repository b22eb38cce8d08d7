/*
 * grpc_tls.h — TLS under the gRPC server's HTTP/2 (grpc_server.c), with OpenSSL over memory BIOs:
 * the loop thread hands each connection's received bytes in and takes the bytes to send out, so
 * that libuv keeps owning the socket and nghttp2 sees plaintext only. The server's certificate
 * chain and private key are PEM files; ALPN selects "h2" (gRPC clients refuse a peer that does
 * not), TLS 1.2 at least.
 *
 * Called by grpc_server.c (a context per server, a connection state per accepted connection, on
 * the loop thread) and by the cspark-connect-server launcher (cs_grpc_tls_new to refuse a bad
 * certificate or key before the application starts). Ownership: the context is the server's,
 * freed by cs_grpc_tls_free after its connections; a connection state is its connection's;
 * buffers passed in are borrowed for the call.
 */
#ifndef CSPARK_CONNECT_GRPC_TLS_H
#define CSPARK_CONNECT_GRPC_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

typedef struct cs_grpc_tls cs_grpc_tls;
typedef struct cs_grpc_tls_conn cs_grpc_tls_conn;

/* A server context from the PEM certificate chain and private key files. NULL + err (one line
 * naming the key spark.cspark.connect.tls.certFile or .keyFile and the file) when a file is
 * missing, unreadable, not PEM, or the key does not match the certificate. */
cs_grpc_tls *cs_grpc_tls_new(const char *cert_file, const char *key_file, cs_error *err);
void cs_grpc_tls_free(cs_grpc_tls *t);

/* A connection's TLS state (the server side of a handshake not yet begun). */
cs_grpc_tls_conn *cs_grpc_tls_conn_new(cs_grpc_tls *t);
void cs_grpc_tls_conn_free(cs_grpc_tls_conn *c);

/* Feeds len received bytes; appends what they decrypt to (none during the handshake) to
 * *plain. 0, or a negative code with err (a failed handshake: a plaintext client, a bad
 * record). Bytes to send (handshake, alerts) wait for cs_grpc_tls_conn_output. */
int cs_grpc_tls_conn_read(cs_grpc_tls_conn *c, const uint8_t *in, size_t len, cs_sbuf *plain,
                          cs_error *err);
/* Whether the handshake is done (application bytes may be written). */
bool cs_grpc_tls_conn_ready(const cs_grpc_tls_conn *c);
/* Encrypts len application bytes (after the handshake). 0, or a negative code with err. */
int cs_grpc_tls_conn_write(cs_grpc_tls_conn *c, const uint8_t *data, size_t len, cs_error *err);
/* Appends the bytes waiting to be sent to *out. */
void cs_grpc_tls_conn_output(cs_grpc_tls_conn *c, cs_sbuf *out);

#endif /* CSPARK_CONNECT_GRPC_TLS_H */
