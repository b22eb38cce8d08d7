/*
 * local_cluster.c — the `local-cluster[N,C,M]` master: the driver starts N `cspark-executor`
 * processes on this host with C cores and M MiB each, found next to the running cspark-submit,
 * and watches them. A process that exits while the application runs is reported lost (with its
 * exit status explained) and replaced, as Spark's standalone workers relaunch executors, until
 * spark.executor.maxNumFailures (default max(2N, 3)) is reached; then every job fails with that
 * reason. Executors get the authentication secret through their environment only and die with
 * the driver (PR_SET_PDEATHSIG). Each executor's stdout and stderr go to its own files,
 * <local dir>/executor-logs/<id>/{stdout,stderr} (the web UI serves them): its stdout (a task's
 * printf) never reaches the driver's; its stderr (cspark's log lines) is also copied, whole lines
 * at a time, to the driver's stderr by a thread per executor, so one console still shows every
 * process's log. When an executor exits unexpectedly the driver logs the end of its stderr.
 * The `local-cluster` row of the cluster manager registry is at the end.
 *
 * With dynamic allocation the allocation manager sets the number of executors wanted
 * (request_total; at most N, the cluster's workers) and removes idle ones (remove_executors);
 * an executor that exits because it was removed or decommissioned is no failure and is replaced
 * only when fewer than the target remain.
 */
#define _GNU_SOURCE
#include "cluster/local_cluster/local_cluster.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster/coarse_backend.h"
#include "cluster/exit_codes.h"
#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/memtune.h"
#include "common/shutdown.h"
#include "common/sync.h"
#include "common/localaddr.h"

#define STDERR_TAIL_BYTES 1024 /* of a crashed executor's stderr, in the driver's log */
#define LC_SLOTS_PER_CPU 16    /* task slots (executors x cores) per online CPU, at most */

extern char **environ;

typedef struct child {
    char id[32];
    pid_t pid;
    bool running;
    bool leaving;  /* removed or decommissioned: its exit is expected */
    pthread_t tee; /* copies its stderr to its log file and to ours; ends when it exits */
    bool tee_started;
} child;

/* The launcher behind the coarse backend (its hooks_arg). */
typedef struct local_cluster {
    coarse_backend *coarse;
    cluster_env env;
    int cores, memory_mb, max_failures, failures, next_id;
    int target; /* executors wanted: N, or dynamic allocation's target (at most N) */
    char exe[PATH_MAX + 32];
    char *secret;
    pthread_mutex_t lock;
    /* held from the decision to start an executor until it is started (taken before lock):
     * once the application stops (app_stopping) none is being started */
    pthread_mutex_t launch_lock;
    child *children;
    int num_children, cap_children;
    bool stopping, monitor_started;
    bool app_stopping; /* the application stops: no executor is relaunched (cluster_manager.h) */
    pthread_t monitor;
} local_cluster;

/* <local_dir>/executor-logs/<id>/<type>, kept until the application stops (also after the
 * executor crashed). */
static int log_path(const char *local_dir, const char *exec_id, const char *type, char *buf,
                    size_t cap)
{
    if (!local_dir || !exec_id || !*exec_id || strchr(exec_id, '/') || strstr(exec_id, "..") ||
        !type || (strcmp(type, "stdout") != 0 && strcmp(type, "stderr") != 0))
        return CS_EINVAL;
    int n = snprintf(buf, cap, "%s/executor-logs/%s/%s", local_dir, exec_id, type);
    return n > 0 && (size_t)n < cap ? 0 : CS_EINVAL;
}

/* Opens executor id's stdout and stderr files (created with their directory); 0 or an error. */
static int open_logs(local_cluster *lc, const char *id, int fds[2], cs_error *err)
{
    static const char *const types[] = {"stdout", "stderr"};
    char path[PATH_MAX];
    fds[0] = fds[1] = -1;
    for (int i = 0; i < 2; i++) {
        if (log_path(lc->env.local_dir, id, types[i], path, sizeof path) < 0)
            return cs_error_set(err, CS_EINVAL, "executor log path too long");
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (cs_make_dirs(path) < 0)
            return cs_error_set(err, CS_EIO, "cannot create the executor log directory %s: %s",
                                path, strerror(errno));
        *slash = '/';
        fds[i] = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fds[i] < 0)
            return cs_error_set(err, CS_EIO, "cannot create the executor log %s: %s", path,
                                strerror(errno));
    }
    return 0;
}

/* The last bytes of executor id's stderr, on one line, into buf ("" when unreadable). */
static void stderr_tail(local_cluster *lc, const char *id, char *buf, size_t cap)
{
    buf[0] = '\0';
    char path[PATH_MAX];
    if (log_path(lc->env.local_dir, id, "stderr", path, sizeof path) < 0) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        off_t from = st.st_size > (off_t)(cap - 1) ? st.st_size - (off_t)(cap - 1) : 0;
        ssize_t n = pread(fd, buf, cap - 1, from);
        buf[n > 0 ? n : 0] = '\0';
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
            buf[--n] = '\0';
    }
    close(fd);
}

#define TEE_CHUNK 65536

typedef struct tee_arg {
    int in;   /* read end of the executor's stderr pipe */
    int file; /* its stderr log file */
} tee_arg;

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* Copies an executor's stderr to its log file as it comes, and to the driver's stderr a whole
 * line at a time (lines of different processes never mix); ends at end of file. */
static void *tee_main(void *arg)
{
    tee_arg *t = arg;
    char *buf = cs_xmalloc(2 * TEE_CHUNK);
    size_t carry = 0;
    for (;;) {
        ssize_t n = read(t->in, buf + carry, TEE_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        write_all(t->file, buf + carry, (size_t)n);
        carry += (size_t)n;
        size_t whole = carry;
        while (whole > 0 && buf[whole - 1] != '\n')
            whole--;
        if (whole == 0 && carry >= TEE_CHUNK) whole = carry; /* a very long line */
        write_all(STDERR_FILENO, buf, whole);
        memmove(buf, buf + whole, carry - whole);
        carry -= whole;
    }
    if (carry > 0) {
        buf[carry++] = '\n';
        write_all(STDERR_FILENO, buf, carry);
    }
    free(buf);
    close(t->in);
    close(t->file);
    free(t);
    return NULL;
}

static int spawn(local_cluster *lc, cs_error *err)
{
    char id[32], url[128], cores[16], mem[32];
    snprintf(id, sizeof id, "%d", lc->next_id++);
    int logs[2], pipefd[2] = {-1, -1};
    if (open_logs(lc, id, logs, err) < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
        if (!err->code)
            cs_error_set(err, CS_EIO, "cannot create a pipe for an executor: %s", strerror(errno));
        for (int i = 0; i < 2; i++)
            if (logs[i] >= 0) close(logs[i]);
        return err->code;
    }
    char driver[64];
    cs_host_port(driver, sizeof driver, cs_loopback_address(), cs_coarse_backend_port(lc->coarse));
    snprintf(url, sizeof url, "spark://CoarseGrainedScheduler@%s", driver);
    snprintf(cores, sizeof cores, "%d", lc->cores);
    snprintf(mem, sizeof mem, "SPARK_EXECUTOR_MEMORY=%dm", lc->memory_mb);
    char *argv[] = {lc->exe,
                    "--driver-url",
                    url,
                    "--executor-id",
                    id,
                    "--cores",
                    cores,
                    "--app-id",
                    (char *)lc->env.app_id,
                    "--hostname",
                    (char *)cs_loopback_address(),
                    NULL};

    /* environment: ours, plus the secret, memory and local dirs (built before fork) */
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = cs_xcalloc(n + 4, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "_SPARK_AUTH_SECRET=", 19) &&
            strncmp(environ[i], "SPARK_LOCAL_DIRS=", 17) &&
            strncmp(environ[i], "SPARK_EXECUTOR_MEMORY=", 22))
            envp[k++] = environ[i];
    char *secret_env = NULL, *dirs_env = NULL;
    if (lc->secret && asprintf(&secret_env, "_SPARK_AUTH_SECRET=%s", lc->secret) > 0)
        envp[k++] = secret_env;
    if (asprintf(&dirs_env, "SPARK_LOCAL_DIRS=%s", lc->env.local_dir) > 0) envp[k++] = dirs_env;
    envp[k++] = mem;
    envp[k] = NULL;

    rlim_t data_limit = (rlim_t)cs_memtune_data_limit(lc->memory_mb, lc->cores);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* the driver's threads block SIGINT/SIGTERM (its interrupt thread takes them); an
         * executor starts with none blocked, as one started by a kubelet */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        if (dup2(logs[0], STDOUT_FILENO) < 0 || dup2(pipefd[1], STDERR_FILENO) < 0) _exit(125);
        if (cs_memtune_can_limit_data()) {
            struct rlimit rl = {data_limit, data_limit};
            if (setrlimit(RLIMIT_DATA, &rl) < 0) _exit(125);
        }
        execve(lc->exe, argv, envp);
        _exit(126);
    }
    close(logs[0]);
    close(pipefd[1]);
    tee_arg *ta = cs_xmalloc(sizeof *ta);
    *ta = (tee_arg){pipefd[0], logs[1]};
    pthread_t tee;
    bool tee_started = pid > 0 && pthread_create(&tee, NULL, tee_main, ta) == 0;
    if (!tee_started) {
        close(pipefd[0]);
        close(logs[1]);
        free(ta);
    }
    free(envp);
    free(secret_env);
    free(dirs_env);
    if (pid < 0)
        return cs_error_set(err, CS_EIO, "cannot start an executor process: %s", strerror(errno));
    pthread_mutex_lock(&lc->lock);
    if (lc->num_children == lc->cap_children) {
        lc->cap_children = lc->cap_children ? lc->cap_children * 2 : 8;
        lc->children = cs_xrealloc(lc->children, (size_t)lc->cap_children * sizeof *lc->children);
    }
    child *c = &lc->children[lc->num_children++];
    snprintf(c->id, sizeof c->id, "%s", id);
    c->pid = pid;
    c->running = true;
    c->leaving = false;
    c->tee = tee;
    c->tee_started = tee_started;
    pthread_mutex_unlock(&lc->lock);
    CS_INFO("local-cluster", "event=executor_started executor=%s pid=%d cores=%d memory_mb=%d",
            cs_log_value(id), (int)pid, lc->cores, lc->memory_mb);
    return 0;
}

static scheduler *sched_of(local_cluster *lc)
{
    return cs_coarse_backend_base(lc->coarse)->sched;
}

/* Starts executors until target are running (not counting leaving ones). */
static void top_up(local_cluster *lc)
{
    for (;;) {
        pthread_mutex_lock(&lc->launch_lock);
        pthread_mutex_lock(&lc->lock);
        int alive = 0;
        for (int i = 0; i < lc->num_children; i++)
            alive += lc->children[i].running && !lc->children[i].leaving;
        bool more = !lc->stopping && !lc->app_stopping && alive < lc->target &&
                    lc->failures < lc->max_failures;
        pthread_mutex_unlock(&lc->lock);
        cs_error err;
        int rc = more ? spawn(lc, &err) : 0;
        pthread_mutex_unlock(&lc->launch_lock);
        if (!more) return;
        if (rc < 0) {
            cs_scheduler_abort(sched_of(lc), err.msg);
            return;
        }
    }
}

static void lc_request_total(void *arg, int total)
{
    local_cluster *lc = arg;
    pthread_mutex_lock(&lc->lock);
    int n = total < lc->env.master->executors ? total : lc->env.master->executors;
    if (total > n)
        CS_INFO("local-cluster", "event=target_capped requested=%d workers=%d", total, n);
    lc->target = n;
    pthread_mutex_unlock(&lc->lock);
    top_up(lc); /* fewer: the allocation manager removes idle executors itself */
}

/* Removed or decommissioned executors are leaving: their exits are expected. */
static void lc_removing(void *arg, const char *const *ids, int n)
{
    local_cluster *lc = arg;
    pthread_mutex_lock(&lc->lock);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < lc->num_children; i++)
            if (lc->children[i].running && strcmp(lc->children[i].id, ids[k]) == 0)
                lc->children[i].leaving = true;
    pthread_mutex_unlock(&lc->lock);
}

/* Polls the children (waitpid per pid: never reaps processes the job itself started). */
static void *monitor_main(void *arg)
{
    local_cluster *lc = arg;
    for (;;) {
        pthread_mutex_lock(&lc->lock);
        bool stopping = lc->stopping;
        int running = 0;
        for (int i = 0; i < lc->num_children; i++) {
            child *c = &lc->children[i];
            if (!c->running) continue;
            int status;
            pid_t r = waitpid(c->pid, &status, WNOHANG);
            if (r == 0) {
                running++;
                continue;
            }
            c->running = false;
            char why[256], reason[320];
            cs_describe_wait_status(status, why, sizeof why);
            if (stopping) { /* after StopExecutor: only a crash is worth a line */
                if (!c->leaving && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
                    char tail[STDERR_TAIL_BYTES];
                    stderr_tail(lc, c->id, tail, sizeof tail);
                    CS_WARN("local-cluster",
                            "event=executor_exited executor=%s %s during shutdown stderr_tail=%s",
                            cs_log_value(c->id), why, cs_log_quote(tail));
                }
                continue;
            }
            cs_describe_executor_exit(status, reason, sizeof reason);
            char id[32];
            snprintf(id, sizeof id, "%s", c->id);
            bool leaving = c->leaving;
            pthread_mutex_unlock(&lc->lock);
            leaving |= cs_coarse_backend_exit_expected(lc->coarse, id);
            pthread_mutex_lock(&lc->lock);
            if (leaving) { /* removed or decommissioned, as asked */
                CS_INFO("local-cluster", "event=executor_exited executor=%s %s expected=true",
                        cs_log_value(id), why);
                pthread_mutex_unlock(&lc->lock);
                cs_coarse_backend_executor_exited(lc->coarse, id, reason);
                top_up(lc);
                pthread_mutex_lock(&lc->lock);
                i = -1;
                continue;
            }
            lc->failures++;
            int failures = lc->failures, max = lc->max_failures;
            pthread_mutex_unlock(&lc->lock);
            char tail[STDERR_TAIL_BYTES];
            stderr_tail(lc, id, tail, sizeof tail);
            CS_WARN("local-cluster",
                    "event=executor_exited executor=%s %s failures=%d max=%d stderr_tail=%s",
                    cs_log_value(id), why, failures, max, cs_log_quote(tail));
            cs_coarse_backend_executor_exited(lc->coarse, id, reason);
            if (failures >= max) {
                char msg[600];
                snprintf(
                    msg, sizeof msg,
                    "Max number of executor failures (%d) reached (spark.executor.maxNumFailures); "
                    "the last: executor %s, %s",
                    max, id, reason);
                cs_scheduler_abort(sched_of(lc), msg);
            } else {
                top_up(lc);
            }
            pthread_mutex_lock(&lc->lock);
            i = -1; /* the array may have grown: rescan */
        }
        pthread_mutex_unlock(&lc->lock);
        if (stopping && running == 0) return NULL;
        cs_sleep_ms(20);
    }
}

/* The backend gave up on an executor (heartbeat timeout): make sure its process is gone. */
static void on_executor_removed(void *arg, const char *executor_id, const char *reason)
{
    local_cluster *lc = arg;
    if (cs_coarse_backend_exit_expected(lc->coarse, executor_id)) return; /* it exits by itself */
    pthread_mutex_lock(&lc->lock);
    for (int i = 0; i < lc->num_children; i++)
        if (lc->children[i].running && !lc->children[i].leaving &&
            strcmp(lc->children[i].id, executor_id) == 0)
            kill(lc->children[i].pid, SIGKILL);
    pthread_mutex_unlock(&lc->lock);
}

/* The task reaper gave up on this executor's tasks: its process goes at once (its exit is
 * expected: the executor was marked removed, so it is replaced, not counted as a failure). */
static void lc_kill(void *arg, const char *executor_id)
{
    local_cluster *lc = arg;
    pthread_mutex_lock(&lc->lock);
    for (int i = 0; i < lc->num_children; i++)
        if (lc->children[i].running && strcmp(lc->children[i].id, executor_id) == 0) {
            lc->children[i].leaving = true;
            kill(lc->children[i].pid, SIGKILL);
            CS_WARN("local-cluster", "event=executor_killed executor=%s pid=%d reason=task_reaper",
                    executor_id, (int)lc->children[i].pid);
        }
    pthread_mutex_unlock(&lc->lock);
}

/* The backend stops: StopExecutor, then SIGKILL for the processes still there after the task
 * reaper's grace (an executor told to stop exits by itself after spark.task.reaper.killTimeout
 * at the latest: one second more is left to it), 10 s with the reaper off, none once a second
 * stop request hurried the stop. */
static void lc_stopping(void *arg)
{
    local_cluster *lc = arg;
    cs_coarse_backend_stop_executors(lc->coarse);
    pthread_mutex_lock(&lc->lock);
    lc->stopping = true;
    pthread_mutex_unlock(&lc->lock);
    int64_t reaper_ms = -1;
    cs_task_reaper_timeout(lc->env.conf, &reaper_ms, NULL);
    int64_t deadline =
        cs_mono_ms() + cs_shutdown_grace_ms(reaper_ms >= 0 ? reaper_ms + 1000 : 10000);
    for (;;) {
        pthread_mutex_lock(&lc->lock);
        int running = 0;
        for (int i = 0; i < lc->num_children; i++)
            running += lc->children[i].running;
        pthread_mutex_unlock(&lc->lock);
        if (!running || cs_mono_ms() > deadline || cs_shutdown_hurried()) break;
        cs_sleep_ms(10);
    }
    pthread_mutex_lock(&lc->lock);
    for (int i = 0; i < lc->num_children; i++)
        if (lc->children[i].running) kill(lc->children[i].pid, SIGKILL);
    pthread_mutex_unlock(&lc->lock);
    if (lc->monitor_started) pthread_join(lc->monitor, NULL);
    for (int i = 0; i < lc->num_children; i++) /* every executor is gone: their pipes ended */
        if (lc->children[i].tee_started) pthread_join(lc->children[i].tee, NULL);
}

/* The application stops (cluster_manager.stopping, before the stop removes executors): none is
 * relaunched from now on; a launch under way ends first. */
static void lc_app_stopping(sched_backend *base)
{
    local_cluster *lc = cs_coarse_backend_launcher(base);
    pthread_mutex_lock(&lc->launch_lock);
    pthread_mutex_lock(&lc->lock);
    lc->app_stopping = true;
    pthread_mutex_unlock(&lc->lock);
    pthread_mutex_unlock(&lc->launch_lock);
}

static void lc_stopped(void *arg)
{
    local_cluster *lc = arg;
    free(lc->children);
    free(lc->secret);
    pthread_mutex_destroy(&lc->launch_lock);
    pthread_mutex_destroy(&lc->lock);
    free(lc);
}

static sched_backend *local_cluster_new(const cluster_env *env, const char *secret, cs_error *err)
{
    const cs_master *m = env->master;
    local_cluster *lc = cs_xcalloc(1, sizeof *lc);
    lc->env = *env;
    lc->cores = m->cores_per_executor;
    lc->memory_mb = m->memory_mb;
    lc->secret = secret ? cs_xstrdup(secret) : NULL;
    lc->next_id = 1; /* executor ids start at 1, as in Spark */
    pthread_mutex_init(&lc->lock, NULL);
    pthread_mutex_init(&lc->launch_lock, NULL);
    if (cs_cluster_max_executor_failures(env->conf, m->executors, &lc->max_failures, err) < 0)
        goto fail;

    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        cs_error_set(err, CS_EIO, "cannot locate the running program: %s", strerror(errno));
        goto fail;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(lc->exe, sizeof lc->exe, "%s/cspark-executor", self);
    if (access(lc->exe, X_OK) < 0) {
        cs_error_set(err, CS_ENOTFOUND,
                     "local-cluster needs %s (installed next to cspark-submit): %s", lc->exe,
                     strerror(errno));
        goto fail;
    }

    coarse_options o = {.bind_host = cs_loopback_address(),
                        .port = 0,
                        .secret = secret,
                        .app_file = cs_conf_get(env->conf, "cspark.app.file"),
                        .executor_removed = on_executor_removed,
                        .request_total = lc_request_total,
                        .removing = lc_removing,
                        .stopping = lc_stopping,
                        .stopped = lc_stopped,
                        .kill = lc_kill,
                        .reports_exits = true,
                        .hooks_arg = lc};
    int64_t port = 0;
    if (cs_conf_entry_int(env->conf, "spark.driver.port", &port, err) < 0) goto fail;
    o.port = (int)port;
    lc->coarse = cs_coarse_backend_new(env, &o, err);
    if (!lc->coarse) goto fail;

    /* with dynamic allocation the allocation manager asks for its initial target instead */
    lc->target = env->dynamic_allocation ? 0 : m->executors;
    for (int i = 0; i < lc->target; i++)
        if (spawn(lc, err) < 0) {
            sched_backend *b = cs_coarse_backend_base(lc->coarse);
            b->stop(b); /* stops what started, then frees lc */
            return NULL;
        }
    lc->monitor_started = pthread_create(&lc->monitor, NULL, monitor_main, lc) == 0;
    return cs_coarse_backend_base(lc->coarse);
fail:
    pthread_mutex_destroy(&lc->launch_lock);
    pthread_mutex_destroy(&lc->lock);
    free(lc->secret);
    free(lc);
    return NULL;
}

/* ---- the cluster manager ------------------------------------------------------------------- */

static bool lc_can_create(const char *url)
{
    return strncmp(url, "local-cluster[", 14) == 0;
}

/* local-cluster[N,C,M] runs N processes of C task threads on this host: more task slots than
 * LC_SLOTS_PER_CPU per online CPU cannot make progress (local-cluster[100000,1,512] forked
 * executors until the host gave out), and N x M MiB beyond the host's memory cannot be honoured. */
static int lc_check(const cs_conf *conf, const cs_master *m, cs_error *err)
{
    (void)conf;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1) cpus = 1;
    int64_t slots = (int64_t)m->executors * m->cores_per_executor;
    if (slots > LC_SLOTS_PER_CPU * (int64_t)cpus)
        return cs_error_set(err, CS_EINVAL,
                            "invalid master URL 'local-cluster[%d,%d,%d]': %lld task slots (%d "
                            "executors x %d cores) is more than this host can run (at most %lld: "
                            "%d per CPU, %ld CPUs)",
                            m->executors, m->cores_per_executor, m->memory_mb, (long long)slots,
                            m->executors, m->cores_per_executor, LC_SLOTS_PER_CPU * (long long)cpus,
                            LC_SLOTS_PER_CPU, cpus);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    int64_t host_mb = pages > 0 && page > 0 ? (int64_t)pages / (1048576 / page) : 0;
    int64_t want_mb = (int64_t)m->executors * m->memory_mb;
    if (host_mb > 0 && want_mb > host_mb)
        return cs_error_set(err, CS_EINVAL,
                            "invalid master URL 'local-cluster[%d,%d,%d]': %d executors of %d MiB "
                            "need %lld MiB but this host has %lld MiB of memory",
                            m->executors, m->cores_per_executor, m->memory_mb, m->executors,
                            m->memory_mb, (long long)want_mb, (long long)host_mb);
    return 0;
}

static int lc_parallelism(const cs_conf *conf, const cs_master *m, int *out, cs_error *err)
{
    *out = m->executors * m->cores_per_executor;
    return 0;
}

/* Executor processes, authenticated by default (stricter than Spark, whose spark.authenticate
 * defaults to false). */
static sched_backend *lc_create(const cluster_env *env, cs_error *err)
{
    return cs_cluster_create_with_secret(env, local_cluster_new, err);
}

/* Waits until the executors wanted (N, or dynamic allocation's target) registered, or
 * spark.scheduler.maxRegisteredResourcesWaitingTime. */
static int lc_wait_registered(sched_backend *base, cs_error *err)
{
    local_cluster *lc = cs_coarse_backend_launcher(base);
    int64_t wait_ms;
    if (cs_conf_entry_duration_ms(lc->env.conf, "spark.scheduler.maxRegisteredResourcesWaitingTime",
                                  &wait_ms, err) < 0)
        return err->code;
    pthread_mutex_lock(&lc->lock);
    int want = lc->target;
    pthread_mutex_unlock(&lc->lock);
    int n = cs_coarse_backend_wait_registered(lc->coarse, want, wait_ms);
    CS_INFO("context", "app=%s event=executors_registered registered=%d expected=%d",
            cs_log_value(lc->env.app_id), n, lc->env.master->executors);
    return 0;
}

const cluster_manager cs_local_cluster_manager = {
    .name = "local-cluster",
    .dynamic_allocation = true,
    .can_create = lc_can_create,
    .default_parallelism = lc_parallelism,
    .check = lc_check,
    .create = lc_create,
    .wait_registered = lc_wait_registered,
    .stopping = lc_app_stopping,
    .executor_log_path = log_path,
};
