/* listen_connect.c — where connections come from: listening sockets (cs_rpc_listen), the
 * connections they accept, and outgoing connects (cs_rpc_connect, which blocks its caller until
 * the connection is open and authenticated). Both hand a fresh connection to handshake.c.
 * Locks and lifetimes: rpc_internal.h. Called by the driver backend, the executor, the block
 * server and the block fetcher through endpoint.h.
 *
 * Threads: cs_rpc_listen and cs_rpc_connect run on any thread but the loop's and post their work
 * to it (listen_job, connect_job); on_connection and on_connected are loop callbacks.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"
#include "rpc/rpc_internal.h"
#include "common/localaddr.h"

#define COMP cs_rpc_log_component

static int resolve(const char *host, int port, struct sockaddr_storage *out, cs_error *err,
                   const char *what)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int rc = getaddrinfo(host && *host ? host : cs_wildcard_address(), ps, &hints, &res);
    if (rc != 0 || !res)
        return cs_error_set(err, CS_EIO, "cannot %s %s:%d: %s", what, host ? host : "", port,
                            gai_strerror(rc));
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* ---- server ------------------------------------------------------------------------------ */

static void name_peer(rpc_conn *c)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) != 0) return;
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

static void on_connection(uv_stream_t *server, int status)
{
    rpc_endpoint *e = server->data;
    if (status < 0) {
        CS_WARN(COMP, "endpoint=%s event=accept_failed reason=%s", cs_log_value(e->name),
                cs_log_quote(uv_strerror(status)));
        return;
    }
    rpc_conn *c = cs_rpc_conn_new(e, 0);
    uv_tcp_init(&e->loop, &c->tcp);
    c->tcp.data = c;
    c->handle_inited = 1;
    c->announce = 1;
    c->state = C_OPEN;
    cs_rpc_conn_link(c);
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
        c->announce = 0;
        cs_rpc_conn_close_now(c, "accept failed");
        return;
    }
    name_peer(c);
    cs_rpc_handshake_accepted(c);
}

/* A function run on the loop thread while the calling thread waits for it. */
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
        uv_close((uv_handle_t *)t, cs_rpc_free_handle);
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
    CS_INFO(COMP, "endpoint=%s event=listening address=%s:%d auth=%s", cs_log_value(e->name),
            cs_log_value(host ? host : cs_wildcard_address()), j.port, e->secret ? "on" : "off");
    return 0;
}

/* ---- client ------------------------------------------------------------------------------ */

static void on_connected(uv_connect_t *req, int status)
{
    rpc_conn *c = req->data;
    if (c->state == C_CLOSING) return;
    if (status < 0) {
        cs_rpc_conn_close_now(c, uv_strerror(status));
        return;
    }
    cs_rpc_handshake_connected(c);
}

static void connect_job(void *arg)
{
    rpc_conn *c = arg;
    rpc_endpoint *e = c->e;
    pthread_mutex_lock(&c->mu);
    int abandoned = c->closed;
    pthread_mutex_unlock(&c->mu);
    if (abandoned || e->stopping) {
        cs_rpc_conn_close_now(c, abandoned ? "connect abandoned" : "endpoint stopped");
        cs_rpc_conn_unref(c); /* the job's reference */
        return;
    }
    uv_tcp_init(&e->loop, &c->tcp);
    c->tcp.data = c;
    c->handle_inited = 1;
    c->state = C_CONNECTING;
    cs_rpc_conn_link(c);
    c->creq.data = c;
    int rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&c->addr, on_connected);
    if (rc < 0) cs_rpc_conn_close_now(c, uv_strerror(rc));
    cs_rpc_conn_unref(c);
}

rpc_conn *cs_rpc_connect(rpc_endpoint *e, const char *host, int port, int timeout_ms, cs_error *err)
{
    if (cs_rpc_endpoint_in_loop(e)) {
        cs_error_set(err, CS_EINVAL, "cs_rpc_connect on the loop thread");
        return NULL;
    }
    rpc_conn *c = cs_rpc_conn_new(e, 1);
    snprintf(c->peer, sizeof c->peer, "%s:%d", host ? host : "", port);
    if (resolve(host, port, &c->addr, err, "connect to") < 0) {
        cs_rpc_conn_destroy(c);
        return NULL;
    }
    atomic_store(&c->refs, 3); /* handle, caller, connect job */
    post_item *job = cs_xcalloc(1, sizeof *job);
    job->fn = connect_job;
    job->arg = c;
    if (!cs_rpc_kick(e, &e->posts, job)) {
        free(job);
        cs_error_set(err, CS_EIO, "cannot connect to %s: endpoint %s is stopped", c->peer, e->name);
        cs_rpc_conn_destroy(c);
        return NULL;
    }
    int64_t deadline = cs_mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (!c->connect_done) {
        int64_t left = deadline - cs_mono_ms();
        if (left <= 0) {
            c->connect_done = 1;
            c->connect_rc = CS_ETIMEOUT;
            snprintf(c->connect_msg, sizeof c->connect_msg, "timed out after %d ms", timeout_ms);
            break;
        }
        cs_cond_wait_ms(&c->cv, &c->mu, left);
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
