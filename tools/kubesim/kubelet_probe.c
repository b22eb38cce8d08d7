/*
 * kubelet_probe.c — container probes of the kubesim kubelet, as the kubelet runs them: startupProbe
 * (gates the others; failure kills the container), livenessProbe (failureThreshold consecutive
 * failures kill the container, which then restarts per restartPolicy) and readinessProbe (drives
 * `ready`, the Ready condition and headless-Service DNS). Handlers: exec (inside the container's
 * namespaces, via ks_container_exec), tcpSocket (connect) and httpGet (status 200-399; https only
 * checks the connection). initialDelaySeconds, periodSeconds, timeoutSeconds, successThreshold and
 * failureThreshold are honoured.
 *
 * Called by kubelet.c on its worker thread: kl_probes_init() when a container starts,
 * kl_probes_tick() from the 50 ms timer, kl_probes_stop() when it ends. tcp/http checks block the
 * worker for at most timeoutSeconds (loopback, so normally microseconds).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *probe_keys[KL_NPROBES] = {"startupProbe", "livenessProbe", "readinessProbe"};
static const char *probe_names[KL_NPROBES] = {"Startup", "Liveness", "Readiness"};

static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const json_t *container_json(kcont *c)
{
    return json_array_get(json_object_get(c->pod->spec, c->init ? "initContainers" : "containers"),
                          (size_t)c->index);
}

static long long int_field(const json_t *o, const char *k, long long dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

void kl_probes_init(kcont *c)
{
    const json_t *ct = container_json(c);
    int64_t now = mono_now();
    for (int i = 0; i < KL_NPROBES; i++) {
        kprobe *pr = &c->probes[i];
        if (pr->exec) ks_container_free(pr->exec);
        memset(pr, 0, sizeof *pr);
        const json_t *spec = json_object_get(ct, probe_keys[i]);
        if (!json_is_object(spec)) continue;
        pr->defined = 1;
        pr->initial_ms = int_field(spec, "initialDelaySeconds", 0) * 1000;
        pr->period_ms = int_field(spec, "periodSeconds", 10) * 1000;
        pr->timeout_ms = int_field(spec, "timeoutSeconds", 1) * 1000;
        pr->success_threshold = (int)int_field(spec, "successThreshold", 1);
        pr->failure_threshold = (int)int_field(spec, "failureThreshold", 3);
        if (pr->period_ms <= 0) pr->period_ms = 10000;
        if (pr->timeout_ms <= 0) pr->timeout_ms = 1000;
        if (pr->success_threshold <= 0) pr->success_threshold = 1;
        if (pr->failure_threshold <= 0) pr->failure_threshold = 3;
        pr->next_ms = now + pr->initial_ms;
    }
    c->startup_done = !c->probes[KL_PROBE_STARTUP].defined;
    c->ready = c->startup_done && !c->probes[KL_PROBE_READINESS].defined;
    c->probe_kill_at = 0;
}

void kl_probes_stop(kcont *c)
{
    for (int i = 0; i < KL_NPROBES; i++)
        if (c->probes[i].exec) {
            ks_container_free(c->probes[i].exec);
            c->probes[i].exec = NULL;
        }
    c->ready = 0;
    c->probe_kill_at = 0;
}

/* containerPort of a named port, or the number itself */
static int probe_port(const json_t *ct, const json_t *port)
{
    if (json_is_integer(port)) return (int)json_integer_value(port);
    const char *name = json_string_value(port);
    if (!name) return -1;
    size_t i;
    json_t *pt;
    json_array_foreach(json_object_get(ct, "ports"), i, pt)
    {
        const char *n = json_string_value(json_object_get(pt, "name"));
        if (n && !strcmp(n, name))
            return (int)json_integer_value(json_object_get(pt, "containerPort"));
    }
    return atoi(name) > 0 ? atoi(name) : -1;
}

static int connect_timeout(const char *host, int port, int64_t timeout_ms, char *msg, size_t mlen)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        snprintf(msg, mlen, "dial tcp %s:%d: bad address", host, port);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(msg, mlen, "socket: %s", strerror(errno));
        return -1;
    }
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        if (poll(&pf, 1, (int)timeout_ms) == 1) {
            int e = 0;
            socklen_t l = sizeof e;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l);
            errno = e;
            rc = e ? -1 : 0;
        } else {
            errno = ETIMEDOUT;
            rc = -1;
        }
    }
    if (rc != 0) {
        snprintf(msg, mlen, "dial tcp %s:%d: connect: %s", host, port,
                 errno == ECONNREFUSED ? "connection refused" : strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int http_get(const char *host, int port, const char *path, int64_t timeout_ms, char *msg,
                    size_t mlen)
{
    int fd = connect_timeout(host, port, timeout_ms, msg, mlen);
    if (fd < 0) return 0;
    char req[1024];
    int n =
        snprintf(req, sizeof req,
                 "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: kube-probe/1.31\r\nAccept: */*\r\n"
                 "Connection: close\r\n\r\n",
                 path && *path ? path : "/", host, port);
    int64_t end = mono_now() + timeout_ms;
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        snprintf(msg, mlen, "Get \"http://%s:%d%s\": write: %s", host, port, path ? path : "/",
                 strerror(errno));
        close(fd);
        return 0;
    }
    char buf[256];
    size_t got = 0;
    while (got < sizeof buf - 1) {
        int64_t left = end - mono_now();
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&pf, 1, (int)left) != 1) break;
        ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
        if (memchr(buf, '\n', got)) break;
    }
    close(fd);
    buf[got] = 0;
    int code = 0;
    if (sscanf(buf, "HTTP/%*s %d", &code) != 1) {
        snprintf(msg, mlen,
                 "Get \"http://%s:%d%s\": context deadline exceeded (Client.Timeout exceeded while "
                 "awaiting headers)",
                 host, port, path ? path : "/");
        return 0;
    }
    if (code >= 200 && code < 400) return 1;
    snprintf(msg, mlen, "HTTP probe failed with statuscode: %d", code);
    return 0;
}

/* Starts or completes one probe run. Returns 1 (success), 0 (failure) or -1 (still running / not
 * due). */
static int run_probe(kcont *c, kprobe *pr, const json_t *spec, int64_t now, char *msg, size_t mlen)
{
    kpod *p = c->pod;
    if (pr->exec) {
        int code;
        const char *reason;
        if (ks_container_reap(pr->exec, &code, &reason) == 0) {
            ks_container_free(pr->exec);
            pr->exec = NULL;
            if (code != 0) snprintf(msg, mlen, "command exited with %d", code);
            return code == 0;
        }
        if (now < pr->exec_deadline) return -1;
        ks_container_free(pr->exec); /* SIGKILLs it */
        pr->exec = NULL;
        snprintf(msg, mlen, "command timed out after %llds", (long long)(pr->timeout_ms / 1000));
        return 0;
    }
    if (now < pr->next_ms) return -1;
    pr->next_ms = now + pr->period_ms;
    const json_t *ex = json_object_get(spec, "exec");
    const json_t *tcp = json_object_get(spec, "tcpSocket");
    const json_t *http = json_object_get(spec, "httpGet");
    if (ex) {
        const json_t *cmd = json_object_get(ex, "command");
        if (json_array_size(cmd) == 0) {
            snprintf(msg, mlen, "exec probe without command");
            return 0;
        }
        char **argv = calloc(json_array_size(cmd) + 1, sizeof(char *));
        size_t i;
        json_t *a;
        json_array_foreach(cmd, i, a) argv[i] =
            (char *)(json_string_value(a) ? json_string_value(a) : "");
        kl_spec spec_env;
        char reason[64], err[1024] = "";
        int rc = -1;
        if (kl_build_spec(c, &spec_env, reason, sizeof reason, err, sizeof err) == 0) {
            rc = ks_container_exec(c->proc, argv, spec_env.envp, spec_env.workdir, &pr->exec, err,
                                   sizeof err);
            kl_spec_free(&spec_env);
        }
        free(argv);
        if (rc != 0) {
            snprintf(msg, mlen, "%s", err);
            return 0;
        }
        pr->exec_deadline = now + pr->timeout_ms;
        return -1;
    }
    const json_t *ct = container_json(c);
    if (tcp || http) {
        const json_t *h = tcp ? tcp : http;
        const char *host = json_string_value(json_object_get(h, "host"));
        if (!host || !*host) host = p->ip;
        int port = probe_port(ct, json_object_get(h, "port"));
        if (port <= 0) {
            snprintf(msg, mlen, "invalid port");
            return 0;
        }
        const char *scheme = json_string_value(json_object_get(h, "scheme"));
        if (tcp || (scheme && !strcasecmp(scheme, "HTTPS"))) {
            int fd = connect_timeout(host, port, pr->timeout_ms, msg, mlen);
            if (fd < 0) return 0;
            close(fd);
            return 1;
        }
        return http_get(host, port, json_string_value(json_object_get(h, "path")), pr->timeout_ms,
                        msg, mlen);
    }
    snprintf(msg, mlen, "unsupported probe handler");
    return 0;
}

int kl_probes_tick(kcont *c)
{
    kpod *p = c->pod;
    if (c->state != CS_RUNNING || !c->proc || p->deleting) return 0;
    int64_t now = mono_now();
    if (c->probe_kill_at) {
        if (now >= c->probe_kill_at) {
            ks_container_signal(c->proc, SIGKILL);
            c->probe_kill_at = 0;
        }
        return 0;
    }
    const json_t *ct = container_json(c);
    int was_ready = c->ready, was_started = c->startup_done;
    for (int i = 0; i < KL_NPROBES; i++) {
        kprobe *pr = &c->probes[i];
        if (!pr->defined) continue;
        if (i != KL_PROBE_STARTUP && !c->startup_done) continue;
        if (i == KL_PROBE_STARTUP && c->startup_done) continue;
        char msg[1024] = "";
        int r = run_probe(c, pr, json_object_get(ct, probe_keys[i]), now, msg, sizeof msg);
        if (r < 0) continue;
        if (r) {
            pr->failures = 0;
            if (++pr->successes >= (i == KL_PROBE_READINESS ? pr->success_threshold : 1))
                pr->ok = 1;
        } else {
            pr->successes = 0;
            char text[1200];
            snprintf(text, sizeof text, "%s probe failed: %s", probe_names[i], msg);
            p->k->api->record_event(p->k->api_ctx, p->ns, p->obj, "Warning", "Unhealthy", text,
                                    "kubelet");
            if (++pr->failures >= pr->failure_threshold) pr->ok = 0;
        }
        if (i == KL_PROBE_STARTUP && pr->ok && !c->startup_done) {
            c->startup_done = 1;
            for (int j = 1; j < KL_NPROBES; j++)
                c->probes[j].next_ms = now;
        }
        if ((i == KL_PROBE_STARTUP || i == KL_PROBE_LIVENESS) &&
            pr->failures >= pr->failure_threshold) {
            char text[300];
            snprintf(text, sizeof text, "Container %s failed %s probe, will be restarted", c->name,
                     i == KL_PROBE_STARTUP ? "startup" : "liveness");
            p->k->api->record_event(p->k->api_ctx, p->ns, p->obj, "Normal", "Killing", text,
                                    "kubelet");
            kl_log("INFO", "pod=%s/%s container=%s event=probe-kill probe=%s", p->ns, p->name,
                   c->name, probe_names[i]);
            ks_container_signal(c->proc, SIGTERM);
            long long grace = int_field(p->spec, "terminationGracePeriodSeconds", 30);
            c->probe_kill_at = now + grace * 1000 + 1;
            c->ready = 0;
            return was_ready != 0;
        }
    }
    const kprobe *rd = &c->probes[KL_PROBE_READINESS];
    c->ready = c->startup_done && (!rd->defined || rd->ok);
    return c->ready != was_ready || c->startup_done != was_started;
}
