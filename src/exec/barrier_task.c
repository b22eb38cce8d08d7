/*
 * barrier_task.c — a barrier task's BarrierTaskContext service (see barrier_task.h for the
 * protocol). The thread polls the listening socket and a stop pipe; each connection is read and
 * answered with blocking I/O bounded by SO_RCVTIMEO / SO_SNDTIMEO (the sync itself waits as long
 * as the coordinator says, or until the task is killed).
 */
#define _GNU_SOURCE
#include "exec/barrier_task.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

#define BARRIER_IO_TIMEOUT_S 60

struct cs_barrier_task {
    const exec_env *env;
    const task_desc *t;
    int epoch; /* Spark's barrierEpoch: syncs this task finished */
    int lfd, port;
    int stop_pipe[2];
    char secret[33];
    pthread_t thread;
    bool started;
};

static int read_full(int fd, void *p, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *p, size_t n)
{
    for (size_t put = 0; put < n;) {
        ssize_t w = send(fd, (const char *)p + put, n - put, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        put += (size_t)w;
    }
    return 0;
}

static int read_int(int fd, int32_t *v)
{
    uint32_t be;
    if (read_full(fd, &be, 4) < 0) return -1;
    *v = (int32_t)ntohl(be);
    return 0;
}

static int write_int(int fd, int32_t v)
{
    uint32_t be = htonl((uint32_t)v);
    return write_full(fd, &be, 4);
}

/* Java's writeUTF as PySpark reads it: int32 length + UTF-8 bytes. */
static int write_str(int fd, const char *s)
{
    size_t n = strlen(s);
    return write_int(fd, (int32_t)n) < 0 ? -1 : write_full(fd, s, n);
}

/* A string of at most max bytes (int32 length + bytes); NULL on a bad length or a short read. */
static char *read_str(int fd, int32_t max)
{
    int32_t len;
    if (read_int(fd, &len) < 0 || len < 0 || len > max) return NULL;
    char *s = cs_xmalloc((size_t)len + 1);
    if (read_full(fd, s, (size_t)len) < 0) {
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

/* One call of PySpark's BarrierTaskContext: authenticate, read the function, sync, answer. */
static void serve(cs_barrier_task *b, int fd)
{
    struct timeval tv = {.tv_sec = BARRIER_IO_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char *secret = read_str(fd, 1024);
    if (!secret || strcmp(secret, b->secret) != 0) {
        free(secret);
        CS_WARN("barrier", "task=%lld event=unauthenticated_connection", (long long)b->t->task_id);
        return;
    }
    free(secret);
    int32_t fn;
    if (write_str(fd, "ok") < 0 || read_int(fd, &fn) < 0) return;
    char *message = NULL;
    if (fn == 2 && !(message = read_str(fd, 64 << 20))) return;
    char **msgs = NULL;
    int n = 0;
    cs_error err = {0};
    if (fn != 1 && fn != 2) {
        cs_error_set(&err, CS_EINVAL, "Unrecognized function type %d", (int)fn);
    } else if (cs_barrier_task_sync(b, fn, message, &msgs, &n, &err) == 0) {
        if (fn == 1) { /* Spark's BARRIER_RESULT_SUCCESS */
            write_int(fd, 1);
            write_str(fd, "success");
        } else {
            write_int(fd, n);
            for (int i = 0; i < n; i++)
                write_str(fd, msgs[i]);
        }
    }
    if (err.code) write_str(fd, err.msg); /* Spark's writeUTF(e.getMessage) */
    for (int i = 0; i < n; i++)
        free(msgs[i]);
    free(msgs);
    free(message);
}

static void *service_main(void *arg)
{
    cs_barrier_task *b = arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = b->lfd, .events = POLLIN},
                              {.fd = b->stop_pipe[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[1].revents) break;
        if (!(p[0].revents & POLLIN)) continue;
        int fd = accept4(b->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve(b, fd);
        close(fd);
    }
    return NULL;
}

cs_barrier_task *cs_barrier_task_start(const exec_env *env, const task_desc *t, cs_error *err)
{
    if (!env->barrier_sync || !t->barrier) {
        cs_error_set(err, CS_EINVAL,
                     "task %lld of stage %d is a barrier task but executor %s has no barrier "
                     "coordinator",
                     (long long)t->task_id, t->stage_id, env->executor_id ? env->executor_id : "");
        return NULL;
    }
    cs_barrier_task *b = cs_xcalloc(1, sizeof *b);
    b->env = env;
    b->t = t;
    b->lfd = -1;
    b->stop_pipe[0] = b->stop_pipe[1] = -1;
    uint8_t raw[16];
    FILE *r = fopen("/dev/urandom", "rb");
    if (!r || fread(raw, 1, sizeof raw, r) != sizeof raw) {
        if (r) fclose(r);
        cs_error_set(err, CS_EIO, "barrier task: cannot read /dev/urandom");
        goto fail;
    }
    fclose(r);
    for (int i = 0; i < 16; i++)
        snprintf(b->secret + 2 * i, 3, "%02x", raw[i]);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    b->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (b->lfd < 0 || bind(b->lfd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(b->lfd, 16) != 0 || getsockname(b->lfd, (struct sockaddr *)&a, &alen) != 0 ||
        pipe2(b->stop_pipe, O_CLOEXEC) != 0) {
        cs_error_set(err, CS_EIO, "barrier task: cannot listen on loopback: %s", strerror(errno));
        goto fail;
    }
    b->port = ntohs(a.sin_port);
    if (pthread_create(&b->thread, NULL, service_main, b) != 0) {
        cs_error_set(err, CS_EIO, "barrier task: cannot start its service thread");
        goto fail;
    }
    b->started = true;
    return b;
fail:
    cs_barrier_task_free(b);
    return NULL;
}

void cs_barrier_task_free(cs_barrier_task *b)
{
    if (!b) return;
    if (b->started) {
        (void)!write(b->stop_pipe[1], "x", 1);
        pthread_join(b->thread, NULL);
    }
    if (b->lfd >= 0) close(b->lfd);
    if (b->stop_pipe[0] >= 0) close(b->stop_pipe[0]);
    if (b->stop_pipe[1] >= 0) close(b->stop_pipe[1]);
    free(b);
}

int cs_barrier_task_port(const cs_barrier_task *b)
{
    return b->port;
}

const char *cs_barrier_task_secret(const cs_barrier_task *b)
{
    return b->secret;
}

const char *cs_barrier_task_addresses(const cs_barrier_task *b)
{
    return b->t->barrier->addresses;
}

int cs_barrier_task_sync(cs_barrier_task *b, int method, const char *message, char ***msgs, int *n,
                         cs_error *err)
{
    CS_INFO("barrier", "task=%lld stage=%d.%d partition=%d event=sync_enter method=%d epoch=%d",
            (long long)b->t->task_id, b->t->stage_id, b->t->stage_attempt, b->t->partition, method,
            b->epoch);
    int rc =
        b->env->barrier_sync(b->env->barrier_arg, b->t, b->epoch, method, message, msgs, n, err);
    if (rc == 0) b->epoch++;
    return rc;
}
