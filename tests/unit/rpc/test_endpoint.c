/*
 * test_endpoint.c — rpc endpoints over loopback: request/reply with and without authentication,
 * per-connection ordering of thousands of messages sent from two threads, refusal (and logging)
 * of a wrong or missing secret without the secret ever reaching the log, malformed frames that
 * close only their own connection, cs_rpc_call timeouts and peer-closed errors, refused connects;
 * what a peer that has not authenticated can cost: handshake-sized frames only (a 128 MiB length
 * prefix is refused at the header and reserves nothing), a handshake deadline, a bound on
 * such peers that drops the oldest while honest clients still get in, and a bounded log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include "rpc/endpoint.h"
#include "rpc/frame.h"
#include "rpc/rpc_internal.h"

#define SECRET "s3cr3t-value-that-must-not-leak"
#define NMSG 5000

typedef struct server_state {
    atomic_int accepted, closed, msgs;
    rpc_conn *last; /* the last accepted connection (borrowed: valid while it is open) */
    atomic_int order_errors;
    long long next_seq[2];
    pthread_mutex_t mu;
} server_state;

static server_state g_srv;

static void srv_message(void *arg, rpc_conn *c, const Cspark__Envelope *m)
{
    server_state *s = arg;
    atomic_fetch_add(&s->msgs, 1);
    switch (m->body_case) {
    case CSPARK__ENVELOPE__BODY_HEARTBEAT: { /* echo */
        Cspark__Heartbeat hb = CSPARK__HEARTBEAT__INIT;
        hb.executor_id = m->heartbeat->executor_id;
        Cspark__Envelope r = CSPARK__ENVELOPE__INIT;
        r.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
        r.heartbeat = &hb;
        assert_int_equal(cs_rpc_reply(c, m->request_id, &r), 0);
        break;
    }
    case CSPARK__ENVELOPE__BODY_STATUS_UPDATE: { /* ordered stream: executor_id "0"/"1" */
        int t = m->status_update->executor_id[0] - '0';
        if (t < 0 || t > 1 || m->status_update->task_id != s->next_seq[t])
            atomic_fetch_add(&s->order_errors, 1);
        else
            s->next_seq[t]++;
        break;
    }
    case CSPARK__ENVELOPE__BODY_STOP_EXECUTOR:
        cs_rpc_conn_close(c);
        break;
    default: /* KillTask etc.: no reply */
        break;
    }
}

static void srv_close(void *arg, rpc_conn *c, const char *reason)
{
    server_state *s = arg;
    atomic_fetch_add(&s->closed, 1);
}

static void srv_accept(void *arg, rpc_conn *c)
{
    server_state *s = arg;
    s->last = c;
    atomic_fetch_add(&s->accepted, 1);
}

static rpc_endpoint *start_server_with(const rpc_options *opt, int *port)
{
    memset(&g_srv, 0, sizeof g_srv);
    rpc_options o = *opt;
    o.name = "test-server";
    o.app_id = "app-1";
    rpc_handlers h = {srv_message, srv_close, srv_accept, &g_srv};
    cs_error err = {0};
    rpc_endpoint *e = cs_rpc_endpoint_new(&o, &h, &err);
    assert_non_null(e);
    assert_int_equal(cs_rpc_listen(e, "127.0.0.1", 0, port, &err), 0);
    assert_true(*port > 0);
    return e;
}

static rpc_endpoint *start_server(const char *secret, int *port)
{
    rpc_options o = {.secret = secret};
    return start_server_with(&o, port);
}

static rpc_endpoint *client(const char *secret)
{
    rpc_options o = {.name = "test-client", .app_id = "app-1", .secret = secret};
    cs_error err = {0};
    rpc_endpoint *e = cs_rpc_endpoint_new(&o, NULL, &err);
    assert_non_null(e);
    return e;
}

static int echo(rpc_conn *c, const char *text, cs_error *err)
{
    Cspark__Heartbeat hb = CSPARK__HEARTBEAT__INIT;
    hb.executor_id = (char *)text;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
    req.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
    req.heartbeat = &hb;
    Cspark__Envelope *rep = NULL;
    int rc = cs_rpc_call(c, &req, &rep, 5000, err);
    if (rc < 0) return rc;
    assert_int_equal(rep->body_case, CSPARK__ENVELOPE__BODY_HEARTBEAT);
    assert_string_equal(rep->heartbeat->executor_id, text);
    assert_int_equal(rep->request_id, req.request_id);
    cspark__envelope__free_unpacked(rep, NULL);
    return 0;
}

/* A client endpoint (*ce) connected to 127.0.0.1:port. */
static rpc_conn *connect_to(int port, const char *secret, rpc_endpoint **ce)
{
    *ce = client(secret);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(*ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
    return c;
}

/* A server, a client endpoint and one connection between them. */
typedef struct pair {
    rpc_endpoint *s, *ce;
    rpc_conn *c;
    int port;
} pair;

static pair pair_open(const char *secret)
{
    pair p;
    p.s = start_server(secret, &p.port);
    p.c = connect_to(p.port, secret, &p.ce);
    return p;
}

static void pair_close(pair *p)
{
    cs_rpc_conn_unref(p->c);
    cs_rpc_endpoint_free(p->ce);
    cs_rpc_endpoint_free(p->s);
}

static void echo_roundtrip(const char *secret)
{
    pair p = pair_open(secret);
    rpc_conn *c = p.c;
    int port = p.port;
    cs_error err = {0};
    char peer[64];
    snprintf(peer, sizeof peer, "127.0.0.1:%d", port);
    assert_string_equal(cs_rpc_conn_peer(c), peer);
    for (int i = 0; i < 100; i++) {
        char t[32];
        snprintf(t, sizeof t, "hello-%d", i);
        assert_int_equal(echo(c, t, &err), 0);
    }
    /* a reply larger than one read buffer */
    char *big = malloc(300000);
    memset(big, 'x', 299999);
    big[299999] = 0;
    assert_int_equal(echo(c, big, &err), 0);
    free(big);
    pair_close(&p);
    assert_int_equal(atomic_load(&g_srv.accepted), 1);
    assert_int_equal(atomic_load(&g_srv.closed), 1);
}

static void test_echo_noauth(void **state)
{
    echo_roundtrip(NULL);
}

static void test_echo_auth(void **state)
{
    echo_roundtrip(SECRET);
}

typedef struct sender {
    rpc_conn *c;
    int t;
} sender;

static void *send_thread(void *arg)
{
    sender *sd = arg;
    char id[2] = {(char)('0' + sd->t), 0};
    for (int i = 0; i < NMSG; i++) {
        Cspark__StatusUpdate su = CSPARK__STATUS_UPDATE__INIT;
        su.executor_id = id;
        su.task_id = i;
        su.state = CSPARK__TASK_STATE__RUNNING;
        Cspark__Envelope m = CSPARK__ENVELOPE__INIT;
        m.body_case = CSPARK__ENVELOPE__BODY_STATUS_UPDATE;
        m.status_update = &su;
        if (cs_rpc_send(sd->c, &m) < 0) abort();
    }
    return NULL;
}

static void test_two_threads_in_order(void **state)
{
    pair p = pair_open(SECRET);
    rpc_conn *c = p.c;
    cs_error err = {0};
    pthread_t th[2];
    sender sd[2] = {{c, 0}, {c, 1}};
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, send_thread, &sd[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(echo(c, "barrier", &err), 0); /* after every message on this connection */
    assert_int_equal(atomic_load(&g_srv.order_errors), 0);
    assert_int_equal(g_srv.next_seq[0], NMSG);
    assert_int_equal(g_srv.next_seq[1], NMSG);
    pair_close(&p);
}

/* Runs fn with stderr redirected to a file; returns what was written (malloc'd). */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
    char path[] = "/tmp/cspark-rpc-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t n = lseek(fd, 0, SEEK_END);
    char *buf = calloc(1, (size_t)n + 1);
    assert_int_equal(pread(fd, buf, (size_t)n, 0), n);
    close(fd);
    unlink(path);
    return buf;
}

static void wrong_secret_run(void *arg)
{
    int port;
    rpc_endpoint *s = start_server(SECRET, &port);
    rpc_endpoint *ce = client((const char *)arg);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    if (arg) {
        /* wrong secret: the handshake fails at connect */
        assert_null(c);
        assert_int_equal(err.code, CS_EAUTH);
        assert_non_null(strstr(err.msg, "authentication failed"));
        char hp[64];
        snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
        assert_non_null(strstr(err.msg, hp));
    } else {
        /* no secret: the first message is refused and the connection dropped */
        assert_non_null(c);
        int rc = echo(c, "sneaky", &err);
        assert_int_equal(rc, CS_EIO);
        assert_non_null(strstr(err.msg, "authentication failed"));
        cs_rpc_conn_unref(c);
    }
    /* the server still serves authenticated peers */
    rpc_endpoint *good = client(SECRET);
    c = cs_rpc_connect(good, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
    assert_int_equal(echo(c, "fine", &err), 0);
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(good);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
    assert_int_equal(atomic_load(&g_srv.accepted), 1); /* only the good peer */
}

static void test_wrong_secret_refused(void **state)
{
    char *log = capture_stderr(wrong_secret_run, "not-the-secret");
    assert_non_null(strstr(log, "event=auth_failed reason=\"bad MAC\""));
    assert_null(strstr(log, SECRET));
    assert_null(strstr(log, "not-the-secret"));
    free(log);
}

static void test_no_secret_refused(void **state)
{
    char *log = capture_stderr(wrong_secret_run, NULL);
    assert_non_null(strstr(log, "event=auth_failed reason=\"message before authentication"));
    assert_null(strstr(log, SECRET));
    free(log);
}

static void test_auth_client_vs_plain_server(void **state)
{
    int port;
    rpc_endpoint *s = start_server(NULL, &port);
    rpc_endpoint *ce = client(SECRET);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_null(c);
    assert_int_equal(err.code, CS_EAUTH);
    assert_non_null(strstr(err.msg, "not enabled"));
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
}

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Sends bytes on a raw socket and expects the server to close it. */
static void expect_dropped(int port, const uint8_t *bytes, size_t n)
{
    int fd = raw_connect(port);
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
    uint8_t buf[256];
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0) {
    }
    assert_true(k == 0 || k < 0); /* EOF or reset */
    close(fd);
}

static void test_bad_frames_close_only_that_connection(void **state)
{
    int port;
    rpc_endpoint *s = start_server(NULL, &port);
    rpc_endpoint *ce = client(NULL);
    cs_error err = {0};
    rpc_conn *good = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(good);
    assert_int_equal(echo(good, "before", &err), 0);
    uint8_t oversize[8] = {0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4};
    expect_dropped(port, oversize, sizeof oversize);
    uint8_t garbage[9] = {0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0xff};
    expect_dropped(port, garbage, sizeof garbage);
    uint8_t nobody[4] = {0, 0, 0, 0};
    expect_dropped(port, nobody, sizeof nobody);
    /* a valid envelope with only an unknown field (no known body) */
    uint8_t unknown[6] = {0, 0, 0, 2, (15 << 3) | 0, 1}; /* field 15 = 1 */
    expect_dropped(port, unknown, sizeof unknown);
    assert_int_equal(echo(good, "after", &err), 0);
    cs_rpc_conn_unref(good);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
}

/* Waits (bounded, generously) until the server closes fd; true if it did. Data it sent first is
 * appended to got (when not NULL). */
static int wait_closed(int fd, uint8_t *got, size_t cap, size_t *got_len)
{
    for (int i = 0; i < 200; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) continue;
        uint8_t buf[4096];
        ssize_t k = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return 1;
        if (k > 0 && got && *got_len + (size_t)k <= cap) {
            memcpy(got + *got_len, buf, (size_t)k);
            *got_len += (size_t)k;
        }
    }
    return 0;
}

static int still_open(int fd)
{
    uint8_t b;
    ssize_t k = recv(fd, &b, 1, MSG_DONTWAIT);
    return k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    return kib;
}

/* Regression (issue 10 item 16): a 4-byte length prefix made the server reserve the whole frame
 * before the peer authenticated — 8 connections took a driver from 12 MB to 1 GB. Now a frame
 * larger than a handshake message is refused at its header: 200 peers announcing 128 MiB and
 * sending 256 KiB each cost the server nothing, and an honest client is still served. */
static void test_unauthenticated_length_prefix_reserves_nothing(void **state)
{
    int port;
    rpc_endpoint *s = start_server(SECRET, &port);
    enum { PEERS = 200 };
    static uint8_t junk[256 * 1024];
    memset(junk, 0x5a, sizeof junk);
    cs_frame_put_header(junk, 128u * 1024 * 1024);
    long before = rss_kib();
    int fds[PEERS];
    for (int i = 0; i < PEERS; i++) {
        fds[i] = raw_connect(port);
        size_t off = 0; /* the server may close the connection before taking it all */
        while (off < sizeof junk) {
            ssize_t k = send(fds[i], junk + off, sizeof junk - off, MSG_NOSIGNAL);
            if (k <= 0) break;
            off += (size_t)k;
        }
    }
    for (int i = 0; i < PEERS; i++)
        assert_true(wait_closed(fds[i], NULL, 0, NULL));
    long grown = rss_kib() - before;
    rpc_endpoint *ce;
    rpc_conn *c = connect_to(port, SECRET, &ce);
    cs_error err = {0};
    assert_int_equal(echo(c, "served beside them", &err), 0);
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
    for (int i = 0; i < PEERS; i++)
        close(fds[i]);
    /* 200 x 256 KiB = 50 MiB would have been held; allow allocator noise */
    assert_true(grown < 16 * 1024);
}

/* Silent unauthenticated peers beyond cspark.rpc.maxUnauthenticatedConnections: the oldest are
 * dropped (without an authentication failure), the newest wait, an honest client authenticates. */
static void test_unauthenticated_bound_drops_oldest(void **state)
{
    int port;
    rpc_options o = {.secret = SECRET, .max_unauthenticated = 4};
    rpc_endpoint *s = start_server_with(&o, &port);
    int fds[6];
    for (int i = 0; i < 6; i++)
        fds[i] = raw_connect(port);
    rpc_endpoint *ce;
    rpc_conn *c = connect_to(port, SECRET, &ce);
    cs_error err = {0};
    assert_int_equal(echo(c, "honest", &err), 0);
    /* accepted in order: the 5th and 6th peers and the client each dropped the oldest */
    for (int i = 0; i < 3; i++)
        assert_true(wait_closed(fds[i], NULL, 0, NULL));
    for (int i = 3; i < 6; i++)
        assert_true(still_open(fds[i]));
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
    for (int i = 0; i < 6; i++)
        close(fds[i]);
    assert_int_equal(atomic_load(&g_srv.accepted), 1);
}

/* A peer that never completes the handshake is refused once spark.network.auth.rpcTimeout
 * passes: it gets AuthResult(ok=false, "authentication timed out"), then the connection closes. */
static void test_handshake_deadline(void **state)
{
    int port;
    rpc_options o = {.secret = SECRET, .auth_timeout_ms = 200};
    rpc_endpoint *s = start_server_with(&o, &port);
    int fd = raw_connect(port);
    uint8_t got[512];
    size_t n = 0;
    assert_true(wait_closed(fd, got, sizeof got, &n));
    close(fd);
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    size_t used;
    Cspark__Envelope *m = NULL;
    const char *why;
    assert_int_equal(cs_frame_decoder_feed(&d, got, n, &used, &m, &why), 1);
    assert_int_equal(m->body_case, CSPARK__ENVELOPE__BODY_AUTH_RESULT);
    assert_false(m->auth_result->ok);
    assert_string_equal(m->auth_result->reason, "authentication timed out");
    cspark__envelope__free_unpacked(m, NULL);
    cs_frame_decoder_free(&d);
    cs_rpc_endpoint_free(s);
    assert_int_equal(atomic_load(&g_srv.accepted), 0);
}

static void refusal_flood_run(void *arg)
{
    (void)arg;
    int port;
    rpc_endpoint *s = start_server(SECRET, &port);
    uint8_t big[4];
    cs_frame_put_header(big, 1u << 20);
    for (int i = 0; i < 100; i++) {
        int fd = raw_connect(port);
        assert_int_equal(write(fd, big, sizeof big), 4);
        assert_true(wait_closed(fd, NULL, 0, NULL));
        close(fd);
    }
    cs_rpc_endpoint_free(s);
}

/* 100 refused peers in a moment write RPC_REFUSAL_LOG_BURST lines, not 100. */
static void test_refusals_logged_at_a_bounded_rate(void **state)
{
    char *log = capture_stderr(refusal_flood_run, NULL);
    int lines = 0;
    for (const char *p = log; (p = strstr(p, "event=auth_failed ")); p++)
        lines++;
    assert_int_equal(lines, 20);
    assert_non_null(strstr(log, "reason=\"frame larger than 4096 bytes before authentication\""));
    free(log);
}

/* Holds the server's loop thread (a posted function) until released, then until `want` bytes
 * wait unread in the accepted connection's socket — as a paused or busy process would find its
 * sockets when it runs again. */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int held, released;
    size_t want;
    atomic_int judged; /* messages seen by the function posted after input, +1 */
} gate;

static void gate_fn(void *arg)
{
    gate *g = arg;
    pthread_mutex_lock(&g->mu);
    g->held = 1;
    pthread_cond_broadcast(&g->cv);
    while (!g->released)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    uv_os_fd_t fd;
    assert_int_equal(uv_fileno((uv_handle_t *)&g_srv.last->tcp, &fd), 0);
    int avail = 0;
    for (int i = 0; i < 1000 && avail < (int)g->want; i++) { /* bounded; loopback is immediate */
        assert_int_equal(ioctl(fd, FIONREAD, &avail), 0);
        if (avail < (int)g->want) usleep(10000);
    }
    assert_true(avail >= (int)g->want);
}

static void judge_fn(void *arg)
{
    gate *g = arg;
    atomic_store(&g->judged, atomic_load(&g_srv.msgs) + 1);
}

/* Issue 10 item 25: a function posted with cs_rpc_endpoint_post_after_input — the driver's
 * executor-expiry sweep — runs only after the messages already waiting in the sockets have been
 * handled. Here it is due before libuv would read them (its wake-up was signalled before they
 * arrived), so only the drain makes it see them. */
static void test_post_after_input_sees_waiting_messages(void **state)
{
    pair p = pair_open(NULL);
    rpc_conn *c = p.c;
    cs_error err = {0};
    assert_int_equal(echo(c, "idle now", &err), 0);
    int before = atomic_load(&g_srv.msgs);
    gate g = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    cs_rpc_endpoint_post(p.s, gate_fn, &g);
    pthread_mutex_lock(&g.mu);
    while (!g.held)
        pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);
    cs_rpc_endpoint_post_after_input(p.s, judge_fn, &g);
    enum { MSGS = 500 };
    Cspark__KillTask kt = CSPARK__KILL_TASK__INIT;
    kt.task_id = 7;
    Cspark__Envelope m = CSPARK__ENVELOPE__INIT;
    m.body_case = CSPARK__ENVELOPE__BODY_KILL_TASK;
    m.kill_task = &kt;
    for (int i = 0; i < MSGS; i++)
        assert_int_equal(cs_rpc_send(c, &m), 0);
    assert_int_equal(cs_rpc_conn_wait_writable(c, 1, 10000), 0);
    pthread_mutex_lock(&g.mu);
    g.want = MSGS * cs_frame_size(&m);
    g.released = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int i = 0; i < 1000 && !atomic_load(&g.judged); i++)
        usleep(10000);
    assert_int_equal(atomic_load(&g.judged) - 1, before + MSGS);
    pair_close(&p);
}

static void test_oversized_send_refused(void **state)
{
    int port;
    rpc_endpoint *s = start_server(NULL, &port);
    rpc_options o = {.name = "small", .max_frame = 1024};
    cs_error err = {0};
    rpc_endpoint *ce = cs_rpc_endpoint_new(&o, NULL, &err);
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
    char big[2048];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(echo(c, big, &err), CS_EINVAL);
    assert_int_equal(echo(c, "small", &err), 0);
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
}

static void test_call_timeout_and_peer_closed(void **state)
{
    pair p = pair_open(SECRET);
    rpc_conn *c = p.c;
    cs_error err = {0};
    Cspark__KillTask kt = CSPARK__KILL_TASK__INIT;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
    req.body_case = CSPARK__ENVELOPE__BODY_KILL_TASK;
    req.kill_task = &kt;
    Cspark__Envelope *rep = NULL;
    assert_int_equal(cs_rpc_call(c, &req, &rep, 100, &err), CS_ETIMEOUT);
    assert_null(rep);
    assert_non_null(strstr(err.msg, "timed out"));
    assert_non_null(strstr(err.msg, cs_rpc_conn_peer(c)));
    assert_int_equal(echo(c, "still-alive", &err), 0);
    Cspark__StopExecutor se = CSPARK__STOP_EXECUTOR__INIT;
    Cspark__Envelope stop = CSPARK__ENVELOPE__INIT;
    stop.body_case = CSPARK__ENVELOPE__BODY_STOP_EXECUTOR;
    stop.stop_executor = &se;
    assert_int_equal(cs_rpc_call(c, &stop, &rep, 5000, &err), CS_EIO);
    assert_non_null(strstr(err.msg, cs_rpc_conn_peer(c)));
    assert_true(cs_rpc_send(c, &req) < 0);
    assert_true(cs_rpc_conn_is_closed(c));
    pair_close(&p);
}

static void test_connect_refused(void **state)
{
    int port;
    rpc_endpoint *s = start_server(NULL, &port);
    cs_rpc_endpoint_free(s); /* the port is now closed */
    rpc_endpoint *ce = client(NULL);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_null(c);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
    assert_non_null(strstr(err.msg, hp));
    assert_non_null(strstr(err.msg, "connection refused"));
    cs_rpc_endpoint_free(ce);
}

static int g_posted;
static void post_fn(void *arg)
{
    rpc_endpoint *e = arg;
    g_posted = cs_rpc_endpoint_in_loop(e) ? 1 : -1;
}

static void test_post_and_close_from_other_thread(void **state)
{
    pair p = pair_open(NULL);
    rpc_conn *c = p.c;
    cs_error err = {0};
    g_posted = 0;
    cs_rpc_endpoint_post(p.ce, post_fn, p.ce);
    assert_int_equal(echo(c, "x", &err), 0);
    cs_rpc_conn_close(c);
    cs_rpc_conn_close(c);
    Cspark__Envelope *rep = NULL;
    Cspark__KillTask kt = CSPARK__KILL_TASK__INIT;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
    req.body_case = CSPARK__ENVELOPE__BODY_KILL_TASK;
    req.kill_task = &kt;
    int rc = cs_rpc_call(c, &req, &rep, 5000, &err);
    assert_int_equal(rc, CS_EIO);
    pair_close(&p);
    assert_int_equal(g_posted, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_echo_noauth),
        cmocka_unit_test(test_echo_auth),
        cmocka_unit_test(test_two_threads_in_order),
        cmocka_unit_test(test_wrong_secret_refused),
        cmocka_unit_test(test_no_secret_refused),
        cmocka_unit_test(test_auth_client_vs_plain_server),
        cmocka_unit_test(test_bad_frames_close_only_that_connection),
        cmocka_unit_test(test_oversized_send_refused),
        cmocka_unit_test(test_call_timeout_and_peer_closed),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_post_and_close_from_other_thread),
        cmocka_unit_test(test_unauthenticated_length_prefix_reserves_nothing),
        cmocka_unit_test(test_unauthenticated_bound_drops_oldest),
        cmocka_unit_test(test_handshake_deadline),
        cmocka_unit_test(test_refusals_logged_at_a_bounded_rate),
        cmocka_unit_test(test_post_after_input_sees_waiting_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
