/*
 * grpc_tls.c — TLS for the gRPC server's connections with OpenSSL over memory BIOs
 * (grpc_tls.h): a connection's SSL object reads the ciphertext the loop thread writes into its
 * read BIO and leaves what it sends in its write BIO, which the loop thread drains into uv_write.
 * The handshake runs inside SSL_read as the client's records arrive (server side, accept state).
 *
 * Called on the server's loop thread only (a context per server, a state per connection); the
 * launcher builds and frees a context once to check the files. Ownership: as grpc_tls.h says.
 */
#include "connect/grpc_tls.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cs_grpc_tls {
    SSL_CTX *ctx;
};

struct cs_grpc_tls_conn {
    SSL *ssl;
    BIO *in, *out; /* owned by ssl */
};

/* OpenSSL's first queued error as text (the queue cleared), or what when there is none. */
static const char *ssl_reason(char *buf, size_t cap, const char *what)
{
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (!e) return what;
    ERR_error_string_n(e, buf, cap);
    return buf;
}

/* ALPN: gRPC speaks HTTP/2 only ("h2"); a client that offers no h2 is refused. */
static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                     const unsigned char *in, unsigned int inlen, void *arg)
{
    (void)ssl, (void)arg;
    static const unsigned char h2[] = "\x02h2";
    unsigned char *sel = NULL;
    if (SSL_select_next_proto(&sel, outlen, h2, sizeof h2 - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

/* A file the key names must be there and readable: its own line before OpenSSL's. */
static int check_readable(const char *key, const char *path, const char *what, cs_error *err)
{
    if (!path || !*path)
        return cs_error_set(err, CS_EINVAL,
                            "%s is not set: spark.cspark.connect.tls.enabled needs %s", key, what);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_error_set(err, CS_EINVAL, "%s '%s': cannot read it (%s); expected %s", key, path,
                            strerror(errno), what);
    fclose(f);
    return 0;
}

cs_grpc_tls *cs_grpc_tls_new(const char *cert_file, const char *key_file, cs_error *err)
{
    char why[256];
    if (check_readable("spark.cspark.connect.tls.certFile", cert_file,
                       "a PEM certificate chain file", err) < 0 ||
        check_readable("spark.cspark.connect.tls.keyFile", key_file, "a PEM private key file",
                       err) < 0)
        return NULL;
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        cs_error_set(err, CS_EIO, "cannot create a TLS context: %s",
                     ssl_reason(why, sizeof why, "OpenSSL failed"));
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
    SSL_CTX_set_alpn_select_cb(ctx, select_h2, NULL);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
        cs_error_set(
            err, CS_EINVAL,
            "spark.cspark.connect.tls.certFile '%s': expected a PEM certificate chain (%s)",
            cert_file, ssl_reason(why, sizeof why, "unreadable"));
        goto fail;
    }
    bool loaded = SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) == 1;
    if (!loaded && ERR_GET_REASON(ERR_peek_error()) != X509_R_KEY_VALUES_MISMATCH) {
        cs_error_set(err, CS_EINVAL,
                     "spark.cspark.connect.tls.keyFile '%s': expected a PEM private key (%s)",
                     key_file, ssl_reason(why, sizeof why, "unreadable"));
        goto fail;
    }
    if (!loaded || SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        cs_error_set(err, CS_EINVAL,
                     "spark.cspark.connect.tls.keyFile '%s': expected the private key of the "
                     "certificate in spark.cspark.connect.tls.certFile '%s' (it does not match)",
                     key_file, cert_file);
        goto fail;
    }
    cs_grpc_tls *t = cs_xcalloc(1, sizeof *t);
    t->ctx = ctx;
    return t;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

void cs_grpc_tls_free(cs_grpc_tls *t)
{
    if (!t) return;
    SSL_CTX_free(t->ctx);
    free(t);
}

cs_grpc_tls_conn *cs_grpc_tls_conn_new(cs_grpc_tls *t)
{
    SSL *ssl = SSL_new(t->ctx);
    if (!ssl) return NULL;
    cs_grpc_tls_conn *c = cs_xcalloc(1, sizeof *c);
    c->ssl = ssl;
    c->in = BIO_new(BIO_s_mem());
    c->out = BIO_new(BIO_s_mem());
    if (!c->in || !c->out) {
        BIO_free(c->in);
        BIO_free(c->out);
        SSL_free(ssl);
        free(c);
        return NULL;
    }
    BIO_set_mem_eof_return(c->in, -1); /* empty: "want read", not end of file */
    SSL_set_bio(ssl, c->in, c->out);
    SSL_set_accept_state(ssl);
    return c;
}

void cs_grpc_tls_conn_free(cs_grpc_tls_conn *c)
{
    if (!c) return;
    SSL_free(c->ssl); /* and its BIOs */
    free(c);
}

int cs_grpc_tls_conn_read(cs_grpc_tls_conn *c, const uint8_t *in, size_t len, cs_sbuf *plain,
                          cs_error *err)
{
    char why[256];
    if (len && BIO_write(c->in, in, (int)len) != (int)len)
        return cs_error_set(err, CS_EIO, "tls: cannot buffer %zu received bytes", len);
    uint8_t buf[16384];
    for (;;) {
        int n = SSL_read(c->ssl, buf, sizeof buf);
        if (n > 0) {
            cs_sbuf_append(plain, buf, (size_t)n);
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
        if (e == SSL_ERROR_ZERO_RETURN) return 0; /* close_notify: the TCP close follows */
        return cs_error_set(err, CS_EIO, "tls: %s",
                            ssl_reason(why, sizeof why, "the handshake or a record failed"));
    }
}

bool cs_grpc_tls_conn_ready(const cs_grpc_tls_conn *c)
{
    return SSL_is_init_finished(c->ssl);
}

int cs_grpc_tls_conn_write(cs_grpc_tls_conn *c, const uint8_t *data, size_t len, cs_error *err)
{
    char why[256];
    while (len > 0) {
        int chunk = len > (1u << 30) ? 1 << 30 : (int)len;
        int n = SSL_write(c->ssl, data, chunk);
        if (n <= 0)
            return cs_error_set(err, CS_EIO, "tls: %s",
                                ssl_reason(why, sizeof why, "cannot encrypt a record"));
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

void cs_grpc_tls_conn_output(cs_grpc_tls_conn *c, cs_sbuf *out)
{
    char buf[16384];
    int n;
    while ((n = BIO_read(c->out, buf, sizeof buf)) > 0)
        cs_sbuf_append(out, buf, (size_t)n);
}
