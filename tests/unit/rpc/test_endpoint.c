/*
 * test_endpoint.c — rpc endpoints over loopback: request/reply with and without authentication,
 * per-connection ordering of thousands of messages sent from two threads, refusal (and logging)
 * of a wrong or missing secret without the secret ever reaching the log, malformed frames that
 * close only their own connection, cs_rpc_call timeouts and peer-closed errors, refused connects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rpc/endpoint.h"
#include "rpc/frame.h"

#define SECRET "s3cr3t-value-that-must-not-leak"
#define NMSG 5000

typedef struct server_state {
    atomic_int accepted, closed, msgs;
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
    atomic_fetch_add(&s->accepted, 1);
}

static rpc_endpoint *start_server(const char *secret, int *port)
{
    memset(&g_srv, 0, sizeof g_srv);
    rpc_options o = {.name = "test-server", .app_id = "app-1", .secret = secret};
    rpc_handlers h = {srv_message, srv_close, srv_accept, &g_srv};
    cs_error err = {0};
    rpc_endpoint *e = cs_rpc_endpoint_new(&o, &h, &err);
    assert_non_null(e);
    assert_int_equal(cs_rpc_listen(e, "127.0.0.1", 0, port, &err), 0);
    assert_true(*port > 0);
    return e;
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

static void echo_roundtrip(const char *secret)
{
    int port;
    rpc_endpoint *s = start_server(secret, &port);
    rpc_endpoint *ce = client(secret);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
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
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
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
    int port;
    rpc_endpoint *s = start_server(SECRET, &port);
    rpc_endpoint *ce = client(SECRET);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
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
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
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
    int port;
    rpc_endpoint *s = start_server(SECRET, &port);
    rpc_endpoint *ce = client(SECRET);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
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
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
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
    int port;
    rpc_endpoint *s = start_server(NULL, &port);
    rpc_endpoint *ce = client(NULL);
    cs_error err = {0};
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
    g_posted = 0;
    cs_rpc_endpoint_post(ce, post_fn, ce);
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
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    assert_int_equal(g_posted, 1);
    cs_rpc_endpoint_free(s);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
