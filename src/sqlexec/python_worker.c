/*
 * python_worker.c — a PySpark Python worker process and its framing (python_worker.h): started
 * as Spark's PythonWorkerFactory starts a simple worker, spoken to as BasePythonRunner's writer
 * and reader do, with one poll loop in place of Spark's writer thread.
 *
 * A worker of an executor's factory (spec->factory) is a fork of its daemon or an idle one, its
 * socket already authenticated; a simple worker (no factory) is this task's own process, started
 * and reaped here.
 *
 * Framing is Java's DataOutputStream: big-endian int32 / int64, one byte for a boolean, strings
 * as an int32 length and UTF-8 bytes. The worker's output is read into `in` (a 64 KiB window);
 * pending input is `out` from `out_pos`.
 */
#define _GNU_SOURCE
#include "sqlexec/python_worker.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/strutil.h"
#include "fs/shipped_files.h"
#include "sqlexec/sql_error.h"

extern char **environ;

#define PY_IN_WINDOW 65536
#define PY_POLL_MS 100
#define PY_CONNECT_TIMEOUT_MS 60000

struct cs_py_worker {
    pid_t pid; /* a simple worker's: our child; a factory's: the daemon's child */
    int fd;
    cs_py_worker_factory *factory; /* NULL: a simple worker */
    char *python;                  /* a factory's worker: its key */
    bool reuse;
    bool clean_end; /* its echo of END_OF_STREAM was read: it waits for the next task */
    cs_sbuf out;    /* input for the worker not yet written, from out_pos */
    size_t out_pos;
    bool out_broken; /* the worker stopped reading (it failed: its exception follows) */
    uint8_t in[PY_IN_WINDOW];
    size_t in_pos, in_len;
    bool in_eof;
    cs_py_pump_fn pump;
    void *pump_arg;
    bool input_done;
    const _Atomic int *cancelled;
    bool faulthandler;
    char *fh_dir; /* PYTHON_FAULTHANDLER_DIR of the worker (NULL: faulthandler off) */
};

static void put_int(cs_sbuf *b, int32_t v)
{
    uint32_t be = htonl((uint32_t)v);
    cs_sbuf_append(b, &be, 4);
}

static void put_long(cs_sbuf *b, int64_t v)
{
    put_int(b, (int32_t)((uint64_t)v >> 32));
    put_int(b, (int32_t)((uint64_t)v & 0xffffffffu));
}

static void put_bool(cs_sbuf *b, bool v)
{
    uint8_t c = v ? 1 : 0;
    cs_sbuf_append(b, &c, 1);
}

static void put_bytes(cs_sbuf *b, const void *p, size_t n)
{
    put_int(b, (int32_t)n);
    cs_sbuf_append(b, p, n);
}

static void put_str(cs_sbuf *b, const char *s)
{
    put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

/* SparkFiles' root directory (the process's shipped files: where a --py-files .py fetched as a
 * spark.files entry is imported from) and the python includes (each --py-files .zip / .egg, and
 * the directory of a .py used in place), which the worker puts first on sys.path; without
 * shipped files, the task's working directory and none. */
static void put_files(cs_sbuf *b)
{
    char *root = cs_files_root();
    put_str(b, root ? root : ".");
    free(root);
    char **inc;
    size_t n = cs_files_python_includes(&inc);
    put_int(b, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        put_str(b, inc[i]);
        free(inc[i]);
    }
    free(inc);
}

/* The header BasePythonRunner's writer sends before the data (see the file header of .h). */
static void put_header(cs_sbuf *b, const cs_py_worker_spec *s)
{
    put_int(b, s->partition_id); /* split index */
    put_str(b, s->python_ver);
    bool barrier = s->barrier_port > 0; /* BarrierTaskContext: its service's port and secret */
    put_bool(b, barrier);
    put_int(b, barrier ? s->barrier_port : -1);
    put_str(b, barrier ? s->barrier_secret : "");
    put_int(b, s->stage_id);
    put_int(b, s->partition_id);
    put_int(b, s->attempt);
    put_long(b, s->task_attempt_id);
    put_int(b, 1);               /* cpus */
    put_int(b, 0);               /* resources */
    put_int(b, barrier ? 1 : 0); /* local properties: a barrier task's "addresses" */
    if (barrier) {
        put_str(b, "addresses");
        put_str(b, s->barrier_addresses ? s->barrier_addresses : "");
    }
    put_files(b);
    put_bool(b, false); /* no broadcast decryption server */
    put_int(b, 0);      /* broadcast variables */
    put_int(b, s->eval_type);
    if (s->eval_type != CS_PY_EVAL_BATCHED_UDF) {
        put_int(b, s->n_conf);
        for (int i = 0; i < s->n_conf; i++) {
            put_str(b, s->conf_keys[i]);
            put_str(b, s->conf_values[i]);
        }
    }
    put_bool(b, false); /* no profiler */
    put_int(b, s->n_udfs);
    for (int u = 0; u < s->n_udfs; u++) {
        const cs_py_udf_command *c = &s->udfs[u];
        put_int(b, c->n_args);
        /* the scalar kinds' offsets may name keyword arguments (a flag, then the name); the
         * others' are plain */
        bool named_args = s->eval_type == CS_PY_EVAL_BATCHED_UDF ||
                          s->eval_type == CS_PY_EVAL_ARROW_BATCHED_UDF ||
                          s->eval_type == CS_PY_EVAL_SCALAR_PANDAS_UDF ||
                          s->eval_type == CS_PY_EVAL_GROUPED_AGG_PANDAS_UDF ||
                          s->eval_type == CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF ||
                          s->eval_type == CS_PY_EVAL_SCALAR_PANDAS_ITER_UDF;
        for (int a = 0; a < c->n_args; a++) {
            put_int(b, c->arg_offsets[a]);
            if (!named_args) continue;
            const char *name = c->arg_names ? c->arg_names[a] : NULL;
            put_bool(b, name != NULL);
            if (name) put_str(b, name);
        }
        put_int(b, 1); /* one function, not a chain */
        put_bytes(b, c->command, c->command_len);
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_cancelled(const cs_py_worker *w)
{
    return w->cancelled && atomic_load(w->cancelled);
}

void cs_py_worker_spec_task(cs_py_worker_spec *spec, const cs_sql_exec_ctx *ctx)
{
    spec->partition_id = (int)ctx->partition_id;
    spec->stage_id = ctx->stage_id;
    spec->attempt = ctx->attempt_number;
    spec->task_attempt_id = ctx->task_attempt_id;
    spec->barrier_port = ctx->barrier_port;
    spec->barrier_secret = ctx->barrier_secret;
    spec->barrier_addresses = ctx->barrier_addresses;
}

/* The worker's connection: it sends the secret, we answer "ok", it sends its pid. */
static int accept_worker(cs_py_worker *w, int lfd, const char *secret, const char *python,
                         cs_error *err)
{
    int64_t deadline = now_ms() + PY_CONNECT_TIMEOUT_MS;
    for (;;) {
        if (is_cancelled(w)) return cs_error_set(err, CS_ECANCELLED, "task cancelled");
        int status;
        if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
            w->pid = -1;
            return cs_error_set(err, CS_EIO,
                                "Python worker '%s -m pyspark.worker' exited before connecting "
                                "(status %d): is pyspark installed for that interpreter? "
                                "(spark.pyspark.python)",
                                python, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        if (now_ms() > deadline)
            return cs_error_set(err, CS_ETIMEOUT,
                                "Python worker '%s' did not connect back within %d s", python,
                                PY_CONNECT_TIMEOUT_MS / 1000);
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        if (poll(&p, 1, PY_POLL_MS) <= 0) continue;
        w->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (w->fd < 0) continue;
        break;
    }
    /* the handshake is a few bytes each way: read and write it blocking, bounded by SO_RCVTIMEO */
    struct timeval tv = {.tv_sec = PY_CONNECT_TIMEOUT_MS / 1000};
    setsockopt(w->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int32_t len;
    size_t got;
    char buf[128];
    if (cs_py_worker_read_int(w, &len, err) < 0) return err->code;
    if (len != (int32_t)strlen(secret) || cs_py_worker_read(w, buf, (size_t)len, &got, err) < 0 ||
        got != (size_t)len || memcmp(buf, secret, (size_t)len) != 0)
        return cs_error_set(err, CS_EPROTO, "Python worker: bad authentication");
    cs_sbuf ok = {0};
    put_str(&ok, "ok");
    ssize_t n = send(w->fd, ok.data, ok.len, MSG_NOSIGNAL);
    size_t ok_len = ok.len;
    cs_sbuf_free(&ok);
    if (n != (ssize_t)ok_len) return cs_error_set(err, CS_EIO, "Python worker: lost connection");
    int32_t pid;
    if (cs_py_worker_read_int(w, &pid, err) < 0) return err->code;
    fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

static char *env_entry(const char *k, const char *v)
{
    cs_sbuf b = {0};
    cs_sbuf_printf(&b, "%s=%s", k, v);
    return b.data;
}

static int spawn_worker(cs_py_worker *w, const char *python, int port, const char *secret,
                        cs_error *err)
{
    size_t n_env = 0;
    while (environ[n_env])
        n_env++;
    char **envp = cs_xcalloc(n_env + 5, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++)
        if (strncmp(environ[i], "PYTHON_WORKER_FACTORY_", 22) != 0 &&
            strncmp(environ[i], "SPARK_AUTH_SOCKET_TIMEOUT=", 26) != 0 &&
            strncmp(environ[i], "PYTHON_FAULTHANDLER_DIR=", 24) != 0)
            envp[k++] = environ[i];
    char *e_fh = w->fh_dir ? env_entry("PYTHON_FAULTHANDLER_DIR", w->fh_dir) : NULL;
    if (e_fh) envp[k++] = e_fh;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    char *e_port = env_entry("PYTHON_WORKER_FACTORY_PORT", portbuf);
    char *e_secret = env_entry("PYTHON_WORKER_FACTORY_SECRET", secret);
    /* the worker's socket keeps the connect timeout for every read: it waits for the next
     * batch as long as the task takes to make it (the task kills the worker when it ends) */
    char *e_timeout = env_entry("SPARK_AUTH_SOCKET_TIMEOUT", "86400");
    envp[k++] = e_port;
    envp[k++] = e_secret;
    envp[k++] = e_timeout;
    envp[k] = NULL;
    char *argv[] = {(char *)python, "-m", "pyspark.worker", NULL};
    int rc = 0;
    pid_t pid = fork();
    if (pid == 0) {
        execvpe(python, argv, envp);
        fprintf(stderr, "cannot run Python worker '%s': %s\n", python, strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        rc = cs_error_set(err, CS_EIO, "cannot start Python worker '%s': %s", python,
                          strerror(errno));
    w->pid = pid;
    free(e_port);
    free(e_secret);
    free(e_timeout);
    free(e_fh);
    free(envp);
    return rc;
}

cs_py_worker *cs_py_worker_start(const cs_py_worker_spec *spec, cs_error *err)
{
    cs_py_worker *w = cs_xcalloc(1, sizeof *w);
    w->pid = -1;
    w->fd = -1;
    w->cancelled = spec->cancelled;
    w->faulthandler = spec->faulthandler;
    if (spec->factory) {
        bool reused;
        int pid;
        if (cs_py_worker_factory_acquire(spec->factory, spec->python, spec->reuse,
                                         spec->faulthandler, spec->cancelled, &w->fd, &pid, &reused,
                                         &w->fh_dir, err) != 0) {
            free(w);
            return NULL;
        }
        w->pid = pid;
        w->factory = spec->factory;
        w->python = cs_xstrdup(spec->python);
        w->reuse = spec->reuse;
        fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_NONBLOCK);
        put_header(&w->out, spec);
        return w;
    }
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
        cs_error_set(err, CS_EIO, "Python worker: cannot listen on loopback: %s", strerror(errno));
        goto fail;
    }
    uint8_t raw[16];
    char secret[33];
    FILE *r = fopen("/dev/urandom", "rb");
    if (!r || fread(raw, 1, sizeof raw, r) != sizeof raw) {
        if (r) fclose(r);
        cs_error_set(err, CS_EIO, "Python worker: cannot read /dev/urandom");
        goto fail;
    }
    fclose(r);
    for (int i = 0; i < 16; i++)
        snprintf(secret + 2 * i, 3, "%02x", raw[i]);
    if (spec->faulthandler && !(w->fh_dir = cs_py_faulthandler_dir_new(err))) goto fail;
    if (spawn_worker(w, spec->python, ntohs(a.sin_port), secret, err) != 0) goto fail;
    if (accept_worker(w, lfd, secret, spec->python, err) != 0) goto fail;
    close(lfd);
    put_header(&w->out, spec);
    return w;
fail:
    if (lfd >= 0) close(lfd);
    cs_py_worker_free(w);
    return NULL;
}

void cs_py_worker_send(cs_py_worker *w, const void *p, size_t n)
{
    if (!w->out_broken) cs_sbuf_append(&w->out, p, n);
}

void cs_py_worker_send_int(cs_py_worker *w, int32_t v)
{
    if (!w->out_broken) put_int(&w->out, v);
}

int cs_py_worker_ipc_sink(void *worker, const void *p, size_t n, cs_error *err)
{
    (void)err;
    cs_py_worker_send(worker, p, n);
    return 0;
}

void cs_py_worker_end_input(cs_py_worker *w)
{
    cs_py_worker_send_int(w, CS_PY_END_OF_STREAM);
}

void cs_py_worker_set_pump(cs_py_worker *w, cs_py_pump_fn fn, void *arg)
{
    w->pump = fn;
    w->pump_arg = arg;
}

static void write_some(cs_py_worker *w)
{
    while (w->out_pos < w->out.len) {
        ssize_t n = send(w->fd, w->out.data + w->out_pos, w->out.len - w->out_pos,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            w->out_pos += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        w->out_broken = true; /* EPIPE / ECONNRESET: the worker failed and stopped reading */
        break;
    }
    w->out.len = 0;
    w->out_pos = 0;
}

/* Waits until some output is in the window (or the worker's end), feeding it input meanwhile. */
static int fill(cs_py_worker *w, cs_error *err)
{
    while (w->in_pos == w->in_len && !w->in_eof) {
        if (w->out_pos >= w->out.len && !w->out_broken) {
            w->out.len = 0;
            w->out_pos = 0;
            if (w->pump && !w->input_done) {
                int rc = w->pump(w->pump_arg, err);
                if (rc < 0) return rc;
                if (rc == 1) w->input_done = true;
                if (w->out.len > 0 || rc == 1) continue;
            }
        }
        if (is_cancelled(w)) return cs_error_set(err, CS_ECANCELLED, "task cancelled");
        bool want_write = w->out_pos < w->out.len && !w->out_broken;
        struct pollfd p = {.fd = w->fd, .events = POLLIN | (want_write ? POLLOUT : 0)};
        int pr = poll(&p, 1, PY_POLL_MS);
        if (pr < 0 && errno != EINTR)
            return cs_error_set(err, CS_EIO, "Python worker: poll: %s", strerror(errno));
        if (pr <= 0) continue;
        if (p.revents & (POLLOUT | POLLERR)) write_some(w);
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(w->fd, w->in, sizeof w->in, 0);
            if (n > 0) {
                w->in_pos = 0;
                w->in_len = (size_t)n;
            } else if (n == 0) {
                w->in_eof = true;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                w->in_eof = true;
            }
        }
    }
    return 0;
}

int cs_py_worker_read(void *worker, void *p, size_t n, size_t *got, cs_error *err)
{
    cs_py_worker *w = worker;
    size_t done = 0;
    while (done < n) {
        if (w->in_pos == w->in_len) {
            if (w->fd >= 0 && !(fcntl(w->fd, F_GETFL) & O_NONBLOCK)) {
                /* the handshake: blocking reads bounded by SO_RCVTIMEO */
                ssize_t r = recv(w->fd, w->in, sizeof w->in, 0);
                if (r <= 0) break;
                w->in_pos = 0;
                w->in_len = (size_t)r;
            } else {
                int rc = fill(w, err);
                if (rc < 0) return rc;
                if (w->in_pos == w->in_len) break; /* the end */
            }
        }
        size_t k = w->in_len - w->in_pos;
        if (k > n - done) k = n - done;
        memcpy((uint8_t *)p + done, w->in + w->in_pos, k);
        w->in_pos += k;
        done += k;
    }
    *got = done;
    return 0;
}

/* The worker's output ended early: it crashed. With faulthandler on, the log its faulthandler
 * wrote (PYTHON_FAULTHANDLER_DIR/<pid>: "Fatal Python error: Segmentation fault", the
 * traceback) is the error's text, and is removed, as Spark's BasePythonRunner reads it. */
static int crashed(cs_py_worker *w, cs_error *err)
{
    if (!w->faulthandler)
        return cs_error_set(err, CS_EIO,
                            "Python worker exited unexpectedly (crashed). Consider setting "
                            "'spark.sql.execution.pyspark.udf.faulthandler.enabled' or "
                            "'spark.python.worker.faulthandler.enabled' configuration to 'true' "
                            "for the better Python traceback.");
    cs_sbuf path = {0}, log = {0};
    cs_sbuf_printf(&path, "%s/%d", w->fh_dir ? w->fh_dir : ".", (int)w->pid);
    FILE *f = w->fh_dir && w->pid > 0 ? fopen(path.data, "r") : NULL;
    if (f) {
        char buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0)
            cs_sbuf_append(&log, buf, k);
        fclose(f);
        unlink(path.data);
    }
    int rc = log.len > 0
                 ? cs_error_set(err, CS_EIO, "Python worker exited unexpectedly (crashed): %s",
                                cs_sbuf_str(&log))
                 : cs_error_set(err, CS_EIO, "Python worker exited unexpectedly (crashed)");
    cs_sbuf_free(&path);
    cs_sbuf_free(&log);
    return rc;
}

static int read_exact(cs_py_worker *w, void *p, size_t n, cs_error *err)
{
    size_t got;
    if (cs_py_worker_read(w, p, n, &got, err) < 0) return err->code;
    if (got != n) return crashed(w, err);
    return 0;
}

int cs_py_worker_read_int(cs_py_worker *w, int32_t *out, cs_error *err)
{
    uint32_t be;
    if (read_exact(w, &be, 4, err) != 0) return err->code;
    *out = (int32_t)ntohl(be);
    return 0;
}

int cs_py_exception_set(cs_error *err, const char *traceback)
{
    /* keep the end of a long traceback (its last line names the exception), short enough for
     * the driver's "Job aborted due to stage failure: ..." around it */
    size_t room = sizeof err->msg / 2, len = strlen(traceback);
    const char *text = traceback;
    if (len > room) { /* from a line's start */
        text = traceback + (len - room);
        const char *nl = strchr(text, '\n');
        if (nl) text = nl + 1;
    }
    return cs_sql_error_set(err, CS_ETASK, "PYTHON_EXCEPTION", "38000", "%s", text);
}

int cs_py_worker_exception(cs_py_worker *w, cs_error *err)
{
    int32_t len;
    if (cs_py_worker_read_int(w, &len, err) != 0) return err->code;
    if (len < 0 || len > (64 << 20))
        return cs_error_set(err, CS_EPROTO, "Python worker: bad exception length %d", len);
    char *tb = cs_xmalloc((size_t)len + 1);
    int rc = read_exact(w, tb, (size_t)len, err);
    if (rc == 0) {
        tb[len] = '\0';
        rc = cs_py_exception_set(err, tb);
    }
    free(tb);
    return rc;
}

static int skip(cs_py_worker *w, size_t n, cs_error *err)
{
    uint8_t buf[256];
    while (n > 0) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        if (read_exact(w, buf, k, err) != 0) return err->code;
        n -= k;
    }
    return 0;
}

int cs_py_worker_finish(cs_py_worker *w, cs_error *err)
{
    int32_t v;
    if (cs_py_worker_read_int(w, &v, err) != 0) return err->code;
    if (v == CS_PY_EXCEPTION_THROWN) return cs_py_worker_exception(w, err);
    if (v != CS_PY_TIMING_DATA)
        return cs_error_set(err, CS_EPROTO, "Python worker: unexpected section %d", v);
    return cs_py_worker_finish_after_timing(w, err);
}

int cs_py_worker_finish_after_timing(cs_py_worker *w, cs_error *err)
{
    int32_t v;
    if (skip(w, 3 * 8 + 2 * 8, err) != 0) return err->code; /* times, spill counts */
    if (cs_py_worker_read_int(w, &v, err) != 0) return err->code;
    if (v != CS_PY_END_OF_DATA_SECTION)
        return cs_error_set(err, CS_EPROTO, "Python worker: unexpected section %d", v);
    int32_t n_acc;
    if (cs_py_worker_read_int(w, &n_acc, err) != 0) return err->code;
    for (int32_t i = 0; i < n_acc; i++) {
        int32_t len;
        if (cs_py_worker_read_int(w, &len, err) != 0) return err->code;
        if (len < 0 || skip(w, (size_t)len, err) != 0)
            return err->code ? err->code
                             : cs_error_set(err, CS_EPROTO, "Python worker: bad accumulator");
    }
    /* END_OF_STREAM went out after the input (cs_py_worker_end_input): the worker echoes it
     * (any other word: it asks not to be reused, and exits) */
    if (cs_py_worker_read_int(w, &v, err) != 0) return err->code;
    w->clean_end = v == CS_PY_END_OF_STREAM && w->in_pos == w->in_len && w->out_pos >= w->out.len &&
                   !w->out_broken;
    return 0;
}

int cs_py_worker_pid(const cs_py_worker *w)
{
    return (int)w->pid;
}

void cs_py_worker_free(cs_py_worker *w)
{
    if (!w) return;
    if (w->factory) {
        if (w->fd >= 0) {
            bool reusable = w->clean_end && !is_cancelled(w);
            if (reusable) fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) & ~O_NONBLOCK);
            cs_py_worker_factory_release(w->factory, w->python, w->reuse, w->faulthandler, w->fd,
                                         w->pid, reusable);
        }
        free(w->fh_dir); /* the daemon's */
        free(w->python);
        cs_sbuf_free(&w->out);
        free(w);
        return;
    }
    if (w->fd >= 0) close(w->fd);
    if (w->pid > 0) {
        int status;
        if (waitpid(w->pid, &status, WNOHANG) != w->pid) {
            kill(w->pid, SIGKILL);
            waitpid(w->pid, &status, 0);
        }
    }
    cs_py_faulthandler_dir_free(w->fh_dir); /* this worker's own */
    cs_sbuf_free(&w->out);
    free(w);
}
