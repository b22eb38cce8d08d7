/* test_ui_slow_clients.c — a thousand slow HTTP clients do not keep the UI server from answering
 * (ui/ui_server.c; issue 21 item 10: 256 clients sending one header line every 50 s made the UI,
 * the REST API and /metrics unreachable). The clients connect from several loopback addresses
 * (127.0.0.2...; one address may hold only so many connections), most send half a request and
 * stop, some send a whole request and never read the answer; then /metrics/prometheus, a page and
 * the REST API must answer, within a bound far above what they take (bench/ui_slow_clients.sh
 * measures it), and the slow clients must still be connected (served in parallel, not dropped). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/clock.h"
#include "ui/app_status.h"
#include "ui/ui_server.h"

#define APP "app-20260101-0010"
#define SLOW_CLIENTS 1000
#define PER_ADDRESS 50
#define BOUND_MS 10000 /* generous: the answer takes milliseconds */

static ui_store *store;

static size_t one_list(void *arg, ui_app_entry **out)
{
    (void)arg;
    ui_app_entry *e = calloc(1, sizeof *e);
    e->id = strdup(APP);
    e->name = strdup("slow");
    e->user = strdup("u");
    e->version = strdup("4.1.0");
    *out = e;
    return 1;
}

static ui_store *one_acquire(void *arg, const char *id, int64_t *updated)
{
    (void)arg;
    *updated = 0;
    return strcmp(id, APP) == 0 ? store : NULL;
}

static void one_release(void *arg, ui_store *st)
{
    (void)arg, (void)st;
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
    (void)p, (void)arg;
    return size * n;
}

/* GET path within BOUND_MS: the status (0 when it timed out), its time in *ms. */
static long timed_get(int port, const char *path, int64_t *ms)
{
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)BOUND_MS);
    int64_t t0 = cs_now_ms();
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    *ms = cs_now_ms() - t0;
    curl_easy_cleanup(c);
    return status;
}

/* A client from 127.0.0.<2 + i / PER_ADDRESS> that sends part of a request (or, every tenth, a
 * whole one whose answer it never reads). -1 when the socket cannot be made. */
static int slow_client(int port, int i)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in src = {.sin_family = AF_INET};
    src.sin_addr.s_addr = htonl(0x7f000002u + (uint32_t)(i / PER_ADDRESS));
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval limit = {BOUND_MS / 1000, 0}; /* a connect the server never accepts */
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0 ||
        connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0) {
        close(fd);
        return -1;
    }
    const char *half = "GET /jobs/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n";
    const char *whole = "GET /api/v1/applications/" APP "/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const char *msg = i % 10 == 9 ? whole : half;
    if (write(fd, msg, strlen(msg)) != (ssize_t)strlen(msg)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether the server still holds the connection: no end of stream and no reset (a half request
 * gets no answer; a whole one's answer may sit unread). */
static bool still_connected(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 0) == 0) return true;
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_PEEK);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

static void test_thousand_slow_clients_leave_metrics_answering(void **state)
{
    (void)state;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    /* this process holds both ends of each connection */
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2 * SLOW_CLIENTS + 200) {
        printf("SKIP: the open-file hard limit %llu is below %d\n", (unsigned long long)rl.rlim_max,
               2 * SLOW_CLIENTS + 200);
        exit(77);
    }
    store = cs_ui_store_new(NULL);
    cs_event ev = {.kind = CS_EV_APPLICATION_START,
                   .app_id = APP,
                   .app_name = "slow",
                   .user = "u",
                   .time_ms = 1000};
    cs_ui_store_listener(store, &ev);
    ui_server_options o = {
        .bind_host = "127.0.0.1", .port_key = "spark.ui.port", .live_app_id = APP, .threads = 2};
    ui_provider p = {NULL, one_list, one_acquire, one_release};
    cs_error err = {0};
    ui_server *srv = cs_ui_server_start(&o, &p, NULL, &err);
    assert_non_null(srv);
    int port = cs_ui_server_port(srv);
    /* the server raised the soft limit to the hard one for itself; the clients share it */
    static int fds[SLOW_CLIENTS];
    int made = 0;
    for (int i = 0; i < SLOW_CLIENTS; i++) {
        fds[i] = slow_client(port, i);
        if (fds[i] < 0) {
            printf("slow client %d could not connect: %s\n", i, strerror(errno));
            break;
        }
        made++;
    }
    assert_int_equal(made, SLOW_CLIENTS);
    int64_t ms = 0;
    long status = timed_get(port, "/metrics/prometheus", &ms);
    printf("metrics: status %ld in %lld ms with %d slow clients\n", status, (long long)ms, made);
    assert_int_equal(status, 200);
    assert_int_equal(timed_get(port, "/jobs/", &ms), 200);
    assert_int_equal(timed_get(port, "/api/v1/applications", &ms), 200);
    int connected = 0;
    for (int i = 0; i < SLOW_CLIENTS; i++)
        if (still_connected(fds[i])) connected++;
    printf("slow clients still connected: %d of %d\n", connected, SLOW_CLIENTS);
    assert_int_equal(connected, SLOW_CLIENTS);
    for (int i = 0; i < made; i++)
        close(fds[i]);
    cs_ui_server_stop(srv);
    cs_ui_store_free(store);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_slow_clients_leave_metrics_answering),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
