/* test_kube_watch_stream.c — the watch reader (kube/kube_watch.c) against a hostile API server:
 * a raw HTTP server on loopback answers the LIST normally, then serves the watch an event line
 * that never ends (64 MiB without a newline), then a 500 whose body never ends (64 MiB), then a
 * good event. Regression of issue 21 item 7: the client buffered both whole (an endless 500 body
 * crashed it in 3.5 s). Now each is cut at its cap (16 MiB for a line, 64 KiB for an error body):
 * the server manages to send far less than it offered, and the watch is established again and
 * delivers the good event. */
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
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_watch.h"

#define OFFERED (64u * 1024 * 1024)

typedef struct fake_server {
    int fd, port;
    pthread_t th;
    atomic_int watches;               /* watch requests served */
    atomic_llong sent_line, sent_500; /* bytes the client took of each endless answer */
    atomic_bool stop;
} fake_server;

static bool write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k <= 0) return false;
        c += k;
        n -= (size_t)k;
    }
    return true;
}

/* Writes up to OFFERED bytes of fill; returns how many the peer took before it closed. */
static long long offer(int fd, char fill)
{
    static char chunk[64 * 1024];
    memset(chunk, fill, sizeof chunk);
    long long sent = 0;
    while (sent < OFFERED && write_all(fd, chunk, sizeof chunk))
        sent += (long long)sizeof chunk;
    return sent;
}

static void *serve(void *arg)
{
    fake_server *s = arg;
    while (!atomic_load(&s->stop)) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0) break;
        char req[8192] = "";
        size_t n = 0;
        while (n < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
            ssize_t k = recv(c, req + n, sizeof req - 1 - n, 0);
            if (k <= 0) break;
            n += (size_t)k;
            req[n] = '\0';
        }
        if (!strstr(req, "watch=true")) {
            const char *list = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
                               "{\"resourceVersion\":\"10\"},\"items\":[]}";
            char head[256];
            snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     "%zu\r\nConnection: close\r\n\r\n",
                     strlen(list));
            write_all(c, head, strlen(head));
            write_all(c, list, strlen(list));
        } else {
            int k = atomic_fetch_add(&s->watches, 1);
            if (k == 0) {
                const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   "Connection: close\r\n\r\n{\"type\":\"ADDED\",\"object\":";
                write_all(c, head, strlen(head));
                atomic_store(&s->sent_line, offer(c, ' '));
            } else if (k == 1) {
                const char *head = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: "
                                   "text/plain\r\nConnection: close\r\n\r\n";
                write_all(c, head, strlen(head));
                atomic_store(&s->sent_500, offer(c, 'e'));
            } else {
                const char *ok =
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    "\r\n{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":"
                    "\"good\",\"resourceVersion\":\"11\"}}}\n";
                write_all(c, ok, strlen(ok));
                usleep(200 * 1000);
            }
        }
        close(c);
    }
    return NULL;
}

static atomic_int good_seen;

static void on_event(void *arg, const char *type, const json_t *obj)
{
    (void)arg;
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    if (strcmp(type, "ADDED") == 0 && name && strcmp(name, "good") == 0)
        atomic_store(&good_seen, 1);
}

static void test_endless_line_and_error_body_are_cut(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    static fake_server s;
    s.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s.fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s.fd, 16), 0);
    socklen_t len = sizeof a;
    getsockname(s.fd, (struct sockaddr *)&a, &len);
    s.port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s.th, NULL, serve, &s), 0);

    char server[64];
    snprintf(server, sizeof server, "http://127.0.0.1:%d", s.port);
    kube_config cfg = {.server = server, .namespace_ = "default"};
    cs_conf *conf = cs_conf_new();
    cs_error err = {0};
    kube_client *kc = cs_kube_client_new(&cfg, conf, "spark.kubernetes.submission", &err);
    assert_non_null(kc);
    kube_watch *w = cs_kube_watch_start(kc, "pods", "default", NULL, on_event, NULL, &err);
    assert_non_null(w);
    int64_t deadline = cs_now_ms() + 60000;
    while (!atomic_load(&good_seen) && cs_now_ms() < deadline)
        usleep(20 * 1000);
    cs_kube_watch_stop(w);
    printf("watch connections %d; the endless line took %lld bytes, the endless 500 %lld\n",
           atomic_load(&s.watches), (long long)atomic_load(&s.sent_line),
           (long long)atomic_load(&s.sent_500));
    assert_true(atomic_load(&good_seen));
    assert_true(atomic_load(&s.watches) >= 3);
    /* the caps plus what the sockets' buffers hold */
    assert_true(atomic_load(&s.sent_line) < 40LL * 1024 * 1024);
    assert_true(atomic_load(&s.sent_500) < 24LL * 1024 * 1024);
    cs_kube_client_free(kc);
    cs_conf_free(conf);
    atomic_store(&s.stop, true);
    shutdown(s.fd, SHUT_RDWR);
    close(s.fd);
    pthread_join(s.th, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endless_line_and_error_body_are_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
