/*
 * python_worker_factory.c — the daemons and idle workers of one executor (python_worker_factory.h),
 * as Spark's PythonWorkerFactory keeps them: createThroughDaemon, releaseWorker, stopWorker and
 * stopDaemon.
 *
 * A daemon runs with a socket pair as its stdin (pids to kill; closed: it ends) and another as
 * its stdout (its port, then its workers' prints, copied to our stdout by a thread that ends at
 * the daemon's end). Socket pairs rather than pipes: a write to a daemon that has died is an
 * error (MSG_NOSIGNAL), not SIGPIPE. The daemon runs in a process group of its own (daemon.py
 * calls setpgid), which is killed as a whole when the factory ends.
 *
 * A daemon found dead at the next acquire (waitpid) is replaced by a new one, as Spark restarts
 * its daemon: its idle workers are killed, its busy ones finish their tasks.
 *
 * Lock: f->lock guards the daemon list and every idle list; a new worker's handshake and the
 * wait for a new daemon's port run outside no lock but the daemon's start (under f->lock, once
 * per interpreter).
 */
#define _GNU_SOURCE
#include "sqlexec/python_worker_factory.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/strutil.h"

extern char **environ;

#define PYF_WAIT_MS 60000
#define PYF_POLL_MS 100

typedef struct py_idle {
    int fd, pid;
} py_idle;

typedef struct py_daemon {
    char *python;
    bool reuse;
    char *fh_dir; /* PYTHON_FAULTHANDLER_DIR of its workers; NULL: faulthandler off */
    pid_t pid;    /* also its process group's id (daemon.py calls setpgid) */
    bool exited;  /* reaped already: it died on its own (its group may live on) */
    int stdin_fd, stdout_fd;
    int port;
    pthread_t copier;
    bool copier_started;
    py_idle *idle;
    int n_idle, cap_idle;
    struct py_daemon *next;
} py_daemon;

struct cs_py_worker_factory {
    pthread_mutex_t lock;
    int max_idle, n_idle;
    char secret[33];
    py_daemon *daemons;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

cs_py_worker_factory *cs_py_worker_factory_new(int max_idle)
{
    uint8_t raw[16];
    FILE *r = fopen("/dev/urandom", "rb");
    bool ok = r && fread(raw, 1, sizeof raw, r) == sizeof raw;
    if (r) fclose(r);
    if (!ok) return NULL;
    cs_py_worker_factory *f = cs_xcalloc(1, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    f->max_idle = max_idle > 0 ? max_idle : 1;
    for (int i = 0; i < 16; i++)
        snprintf(f->secret + 2 * i, 3, "%02x", raw[i]);
    return f;
}

/* Reads exactly n bytes of a blocking or non-blocking fd, polling at most until deadline and
 * checking cancelled. */
static int read_full(int fd, void *p, size_t n, int64_t deadline, const _Atomic int *cancelled,
                     const char *what, cs_error *err)
{
    size_t done = 0;
    while (done < n) {
        if (cancelled && atomic_load(cancelled))
            return cs_error_set(err, CS_ECANCELLED, "task cancelled");
        if (now_ms() > deadline)
            return cs_error_set(err, CS_ETIMEOUT, "%s: no answer within %d s", what,
                                PYF_WAIT_MS / 1000);
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int pr = poll(&pf, 1, PYF_POLL_MS);
        if (pr < 0 && errno != EINTR)
            return cs_error_set(err, CS_EIO, "%s: poll: %s", what, strerror(errno));
        if (pr <= 0) continue;
        ssize_t k = recv(fd, (uint8_t *)p + done, n - done, MSG_DONTWAIT);
        if (k > 0) {
            done += (size_t)k;
        } else if (k == 0) {
            return cs_error_set(err, CS_EIO, "%s: the connection ended", what);
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return cs_error_set(err, CS_EIO, "%s: %s", what, strerror(errno));
        }
    }
    return 0;
}

static int read_int(int fd, int32_t *out, int64_t deadline, const _Atomic int *cancelled,
                    const char *what, cs_error *err)
{
    uint32_t be;
    if (read_full(fd, &be, 4, deadline, cancelled, what, err) != 0) return err->code;
    *out = (int32_t)ntohl(be);
    return 0;
}

static bool send_all(int fd, const void *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = send(fd, (const uint8_t *)p + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        done += (size_t)k;
    }
    return true;
}

/* Copies a daemon's stdout (its workers' prints) to ours until the daemon and every worker it
 * forked have ended; then closes it (the fd is the thread's, arg). */
static void *copy_stdout(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[4096];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        ssize_t w = write(STDOUT_FILENO, buf, (size_t)n);
        (void)w;
    }
    close(fd);
    return NULL;
}

static char *env_entry(const char *k, const char *v)
{
    cs_sbuf b = {0};
    cs_sbuf_printf(&b, "%s=%s", k, v);
    return b.data;
}

/* Starts d's daemon (python, reuse filled): forked with the socket pairs as stdin and stdout,
 * its port read within PYF_WAIT_MS. */
static int daemon_start(cs_py_worker_factory *f, py_daemon *d, cs_error *err)
{
    int in_pair[2] = {-1, -1}, out_pair[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out_pair) != 0) {
        cs_error_set(err, CS_EIO, "Python daemon: socketpair: %s", strerror(errno));
        goto fail;
    }
    size_t n_env = 0;
    while (environ[n_env])
        n_env++;
    char **envp = cs_xcalloc(n_env + 4, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++)
        if (strncmp(environ[i], "PYTHON_WORKER_FACTORY_", 22) != 0 &&
            strncmp(environ[i], "SPARK_REUSE_WORKER=", 19) != 0 &&
            strncmp(environ[i], "PYTHON_FAULTHANDLER_DIR=", 24) != 0)
            envp[k++] = environ[i];
    char *e_secret = env_entry("PYTHON_WORKER_FACTORY_SECRET", f->secret);
    char *e_reuse = env_entry("SPARK_REUSE_WORKER", "1");
    char *e_fh = d->fh_dir ? env_entry("PYTHON_FAULTHANDLER_DIR", d->fh_dir) : NULL;
    envp[k++] = e_secret;
    if (d->reuse) envp[k++] = e_reuse;
    if (e_fh) envp[k++] = e_fh;
    envp[k] = NULL;
    char *argv[] = {d->python, "-m", "pyspark.daemon", NULL};
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in_pair[1], STDIN_FILENO);
        dup2(out_pair[1], STDOUT_FILENO);
        execvpe(d->python, argv, envp);
        fprintf(stderr, "cannot run Python daemon '%s': %s\n", d->python, strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    free(e_secret);
    free(e_reuse);
    free(e_fh);
    free(envp);
    if (pid < 0) {
        cs_error_set(err, CS_EIO, "cannot start Python daemon '%s': %s", d->python,
                     strerror(fork_errno));
        goto fail;
    }
    d->pid = pid;
    close(in_pair[1]);
    close(out_pair[1]);
    in_pair[1] = out_pair[1] = -1;
    d->stdin_fd = in_pair[0];
    d->stdout_fd = out_pair[0];
    int32_t port = 0;
    if (read_int(d->stdout_fd, &port, now_ms() + PYF_WAIT_MS, NULL, "Python daemon", err) != 0) {
        cs_error_set(err, CS_EIO,
                     "Python daemon '%s -m pyspark.daemon' did not start (%s): is pyspark "
                     "installed for that interpreter? (spark.pyspark.python)",
                     d->python, err->msg);
        return err->code; /* the caller ends the half-started daemon */
    }
    d->port = port;
    if (pthread_create(&d->copier, NULL, copy_stdout, (void *)(intptr_t)d->stdout_fd) == 0) {
        d->copier_started = true;
        d->stdout_fd = -1; /* the copier's now */
    }
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (in_pair[i] >= 0) close(in_pair[i]);
        if (out_pair[i] >= 0) close(out_pair[i]);
    }
    return err->code;
}

/* Ends a daemon and every worker it forked, then frees it: stdin closed (daemon.py's shutdown),
 * a short wait, then SIGKILL to its process group for whatever is left. */
static void daemon_free(py_daemon *d)
{
    if (d->stdin_fd >= 0) close(d->stdin_fd);
    if (d->pid > 0) {
        int status;
        int64_t until = now_ms() + 2000;
        bool gone = d->exited;
        while (!gone && now_ms() < until) {
            gone = waitpid(d->pid, &status, WNOHANG) == d->pid;
            if (!gone) poll(NULL, 0, 10);
        }
        /* the workers still alive, in its group; a daemon that died on its own: only its idle
         * ones (the others finish their tasks) */
        if (!d->exited) kill(-d->pid, SIGKILL);
        for (int i = 0; d->exited && i < d->n_idle; i++)
            kill(d->idle[i].pid, SIGKILL);
        if (!gone) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
        }
    }
    for (int i = 0; i < d->n_idle; i++)
        close(d->idle[i].fd);
    /* the copier ends when the last worker does: at once after the group's kill, whenever its
     * busy workers end for a daemon that died on its own (not waited for) */
    if (d->copier_started && d->exited) pthread_detach(d->copier);
    if (d->copier_started && !d->exited) pthread_join(d->copier, NULL);
    if (d->stdout_fd >= 0) close(d->stdout_fd);
    free(d->idle);
    free(d->python);
    cs_py_faulthandler_dir_free(d->fh_dir);
    free(d);
}

/* Asks d to kill worker pid (its child: the daemon reaps it). */
static void daemon_kill_worker(py_daemon *d, int pid)
{
    uint32_t be = htonl((uint32_t)pid);
    (void)send_all(d->stdin_fd, &be, 4);
}

static py_daemon *find_daemon(cs_py_worker_factory *f, const char *python, bool reuse,
                              bool faulthandler)
{
    for (py_daemon *d = f->daemons; d; d = d->next)
        if (d->reuse == reuse && (d->fh_dir != NULL) == faulthandler &&
            strcmp(d->python, python) == 0)
            return d;
    return NULL;
}

/* The daemon of (python, reuse, faulthandler), started if need be. Lock held. */
static py_daemon *daemon_get(cs_py_worker_factory *f, const char *python, bool reuse,
                             bool faulthandler, cs_error *err)
{
    py_daemon *d = find_daemon(f, python, reuse, faulthandler);
    int status;
    if (d && waitpid(d->pid, &status, WNOHANG) == d->pid) { /* it died: a new one, as Spark */
        d->exited = true;
        py_daemon **at = &f->daemons;
        while (*at != d)
            at = &(*at)->next;
        *at = d->next;
        f->n_idle -= d->n_idle;
        daemon_free(d);
        d = NULL;
    }
    if (d) return d;
    d = cs_xcalloc(1, sizeof *d);
    d->python = cs_xstrdup(python);
    d->reuse = reuse;
    d->stdin_fd = d->stdout_fd = -1;
    if (faulthandler && !(d->fh_dir = cs_py_faulthandler_dir_new(err))) {
        daemon_free(d);
        return NULL;
    }
    if (daemon_start(f, d, err) != 0) {
        daemon_free(d);
        return NULL;
    }
    d->next = f->daemons;
    f->daemons = d;
    return d;
}

/* A new worker: a connection to the daemon, its pid, the secret, its "ok". */
static int connect_worker(cs_py_worker_factory *f, int port, const _Atomic int *cancelled,
                          int *fd_out, int *pid_out, cs_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        cs_error_set(err, CS_EIO, "Python daemon: cannot connect to port %d: %s", port,
                     strerror(errno));
        goto fail;
    }
    int64_t deadline = now_ms() + PYF_WAIT_MS;
    int32_t pid = 0, len = 0;
    if (read_int(fd, &pid, deadline, cancelled, "Python worker", err) != 0) goto fail;
    cs_sbuf auth = {0};
    uint32_t be = htonl((uint32_t)strlen(f->secret));
    cs_sbuf_append(&auth, &be, 4);
    cs_sbuf_append(&auth, f->secret, strlen(f->secret));
    bool sent = send_all(fd, auth.data, auth.len);
    cs_sbuf_free(&auth);
    char ok[3];
    if (!sent || read_int(fd, &len, deadline, cancelled, "Python worker", err) != 0 || len != 2 ||
        read_full(fd, ok, 2, deadline, cancelled, "Python worker", err) != 0 ||
        memcmp(ok, "ok", 2) != 0) {
        if (err->code == 0 || err->code == CS_EIO)
            cs_error_set(err, CS_EPROTO, "Python worker %d: bad authentication", pid);
        goto fail;
    }
    *fd_out = fd;
    *pid_out = pid;
    return 0;
fail:
    if (fd >= 0) close(fd);
    return err->code;
}

int cs_py_worker_factory_acquire(cs_py_worker_factory *f, const char *python, bool reuse,
                                 bool faulthandler, const _Atomic int *cancelled, int *fd, int *pid,
                                 bool *reused, char **fh_dir, cs_error *err)
{
    *reused = false;
    *fh_dir = NULL;
    pthread_mutex_lock(&f->lock);
    py_daemon *d = daemon_get(f, python, reuse, faulthandler, err);
    if (d && d->fh_dir) *fh_dir = cs_xstrdup(d->fh_dir);
    if (d && d->n_idle > 0) { /* the most recently used: warm */
        py_idle w = d->idle[--d->n_idle];
        f->n_idle--;
        pthread_mutex_unlock(&f->lock);
        *fd = w.fd;
        *pid = w.pid;
        *reused = true;
        return 0;
    }
    int port = d ? d->port : 0;
    pthread_mutex_unlock(&f->lock);
    if (!d) return err->code;
    return connect_worker(f, port, cancelled, fd, pid, err);
}

void cs_py_worker_factory_release(cs_py_worker_factory *f, const char *python, bool reuse,
                                  bool faulthandler, int fd, int pid, bool reusable)
{
    pthread_mutex_lock(&f->lock);
    py_daemon *d = find_daemon(f, python, reuse, faulthandler);
    if (d && reuse && reusable && f->n_idle < f->max_idle) {
        if (d->n_idle == d->cap_idle) {
            d->cap_idle = d->cap_idle ? 2 * d->cap_idle : 4;
            d->idle = cs_xrealloc(d->idle, sizeof *d->idle * (size_t)d->cap_idle);
        }
        d->idle[d->n_idle++] = (py_idle){fd, pid};
        f->n_idle++;
        pthread_mutex_unlock(&f->lock);
        return;
    }
    if (d) daemon_kill_worker(d, pid);
    pthread_mutex_unlock(&f->lock);
    close(fd);
}

void cs_py_worker_factory_free(cs_py_worker_factory *f)
{
    if (!f) return;
    py_daemon *d = f->daemons;
    while (d) {
        py_daemon *next = d->next;
        daemon_free(d);
        d = next;
    }
    pthread_mutex_destroy(&f->lock);
    free(f);
}

char *cs_py_faulthandler_dir_new(cs_error *err)
{
    const char *tmp = getenv("TMPDIR");
    cs_sbuf b = {0};
    cs_sbuf_printf(&b, "%s/cspark-faulthandler-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(b.data)) {
        cs_error_set(err, CS_EIO, "Python worker: cannot make a faulthandler directory %s: %s",
                     b.data, strerror(errno));
        cs_sbuf_free(&b);
        return NULL;
    }
    return b.data;
}

void cs_py_faulthandler_dir_free(char *dir)
{
    if (!dir) return;
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        cs_sbuf p = {0};
        cs_sbuf_printf(&p, "%s/%s", dir, e->d_name);
        unlink(p.data);
        cs_sbuf_free(&p);
    }
    if (dp) closedir(dp);
    rmdir(dir);
    free(dir);
}
