/*
 * context.c — creation and shutdown of the application context (see context.h): reads and
 * validates the execution settings from the configuration, prepares the local directory,
 * starts the listener bus and the scheduler over the backend of the cluster manager that serves
 * the master URL (src/cluster/cluster_manager.h), and on stop
 * tears all of it down and removes the application's local files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "cluster/cluster_manager.h"
#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/current_task.h"
#include "common/exit_cleanup.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/resource_conf.h"
#include "common/shutdown.h"
#include "exec/fallback_storage.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"
#include "sched/allocation_manager.h"
#include "sched/listener.h"
#include "sched/scheduler.h"
#include "ui/ui_live.h"

static int make_local_dir(cspark_context *sc, cs_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "cspark-%s", sc->app_id);
    if (cs_local_dir_create(sc->conf, name, &sc->local_dir, err) < 0) return err->code;
    cs_exit_cleanup_add(sc->local_dir); /* removed even if a task crashes or calls exit() */
    /* spark.files and spark.archives, fetched once (Spark's SparkContext.addFile at start) */
    char files[4096];
    snprintf(files, sizeof files, "%s/userFiles", sc->local_dir);
    return cs_files_fetch_all(sc->conf, files, err);
}

static int read_settings(cspark_context *sc, cs_error *err)
{
    const char *master = cs_cluster_master_url(sc->conf); /* driver-pod-only mode: local */
    if (cs_master_parse(master, &sc->master, err) < 0) return err->code;
    sc->manager = cs_cluster_manager_for(master);
    if (!sc->manager)
        return cs_error_set(err, CS_EINVAL, "no cluster manager can serve the master URL '%s'",
                            master);
    int64_t v;
    int threads;
    if (sc->manager->check && sc->manager->check(sc->conf, &sc->master, err) < 0) return err->code;
    if (sc->manager->default_parallelism(sc->conf, &sc->master, &threads, err) < 0)
        return err->code;
    if (cs_conf_contains(sc->conf, "spark.default.parallelism")) {
        if (cs_conf_get_int(sc->conf, "spark.default.parallelism", NULL, &v, err) < 0)
            return err->code;
        if (v < 1)
            return cs_error_set(err, CS_EINVAL,
                                "invalid value for spark.default.parallelism: '%lld' (expected a "
                                "positive integer)",
                                (long long)v);
        sc->default_parallelism = (int)v;
    } else {
        sc->default_parallelism = threads;
    }

    /* spark.task.maxFailures is validated everywhere; Spark's local and local[N] run a task
     * once whatever it says (MAX_LOCAL_TASK_FAILURES: a failure there is a bug or bad data, not
     * a lost machine), local[N,F] F times */
    if (cs_conf_get_int(sc->conf, "spark.task.maxFailures", "4", &v, err) < 0) return err->code;
    if (v < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.task.maxFailures: '%lld' (expected a "
                            "positive integer)",
                            (long long)v);
    if (sc->master.max_failures > 0)
        sc->max_task_failures = sc->master.max_failures;
    else if (sc->master.kind == MASTER_LOCAL)
        sc->max_task_failures = 1;
    else
        sc->max_task_failures = (int)v;

    /* In local mode the executor is the driver: its memory is spark.executor.memory when set,
     * else spark.driver.memory (both default 1g). */
    int64_t memory;
    const char *mem_key = cs_conf_contains(sc->conf, "spark.executor.memory")
                              ? "spark.executor.memory"
                              : "spark.driver.memory";
    if (cs_conf_get_size(sc->conf, mem_key, "1g", CS_MiB, &memory, err) < 0) return err->code;
    double fraction;
    if (cs_conf_entry_double(sc->conf, "spark.memory.fraction", &fraction, err) < 0)
        return err->code;
    if (!(fraction > 0 && fraction <= 1))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.memory.fraction: '%s' (expected a number in "
                            "(0, 1])",
                            cs_conf_get(sc->conf, "spark.memory.fraction"));
    sc->task_memory_budget = (int64_t)((double)memory * fraction / threads);
    if (sc->task_memory_budget < 4 * CS_MiB) sc->task_memory_budget = 4 * CS_MiB;
    sc->local_memory = memory;
    if (cs_conf_entry_bool(sc->conf, "spark.shuffle.compress", &sc->shuffle_compress, err) < 0)
        return err->code;
    return cs_shuffle_checksum_conf(sc->conf, &sc->shuffle_checksum, err);
}

/* A stop request (SIGINT/SIGTERM, see common/shutdown.h) came while the context started: the
 * waits gave up, and so does the start. 0 when none came. */
static int interrupted_error(cs_error *err)
{
    int sig = cs_shutdown_signal();
    if (!sig) return 0;
    return cs_error_set(err, CS_ECANCELLED, "the application was interrupted by %s",
                        strsignal(sig));
}

/* Executors come from the cluster manager the master URL names (cluster_manager.h): its backend
 * is created, the scheduler runs over it, dynamic allocation asks for the first executors, and
 * the driver waits for them to register. */
static int start_backend(cspark_context *sc, cs_error *err)
{
    const cluster_manager *m = sc->manager;
    alloc_settings dyn; /* local mode: only for Spark's warning, its set of threads is fixed */
    int cores = sc->master.cores_per_executor;
    if (m->dynamic_allocation && cores <= 0) {
        int64_t c;
        if (cs_conf_entry_int(sc->conf, "spark.executor.cores", &c, err) < 0) return err->code;
        cores = (int)(c < 1 ? 1 : c);
    }
    if (cs_resource_conf_check(sc->conf, err) < 0) return err->code;
    scheduler_options opt = {
        .bus = sc->bus, .max_task_failures = sc->max_task_failures, .accums = sc->accums};
    if (cs_alloc_settings_read(sc->conf, !m->dynamic_allocation, cores, &dyn, err) < 0 ||
        cs_scheduler_options_read(sc->conf, &opt, err) < 0)
        return err->code;
    sc->env = (cluster_env){.conf = sc->conf,
                            .app_id = sc->app_id,
                            .app_name = sc->app_name,
                            .local_dir = sc->local_dir,
                            .master = &sc->master,
                            .bus = sc->bus,
                            .task_memory_budget = sc->task_memory_budget,
                            .local_memory = sc->local_memory,
                            .shuffle_compress = sc->shuffle_compress,
                            .shuffle_checksum = sc->shuffle_checksum,
                            .dynamic_allocation = dyn.enabled,
                            .broadcasts = sc->broadcasts,
                            .broadcast_tracker = sc->bc_tracker};
    if (interrupted_error(err) < 0) return err->code;
    sched_backend *backend = m->create(&sc->env, err);
    if (!backend) return err->code ? err->code : CS_EIO;
    sc->sched = cs_scheduler_new(&opt, backend);
    sc->backend = backend;
    if (m->start && m->start(backend, err) < 0) return err->code;
    cs_scheduler_start_dynamic_allocation(sc->sched, &dyn);
    if (m->wait_registered && m->wait_registered(backend, err) < 0) return err->code;
    return interrupted_error(err);
}

/* ---- the web UI's hooks (called on the UI server's threads) ------------------------------- */

static void ui_kill(cspark_context *sc, int job_id, int stage_id)
{
    scheduler *s = __atomic_load_n(&sc->sched, __ATOMIC_ACQUIRE);
    if (s) cs_scheduler_cancel(s, job_id, stage_id, "killed via the Web UI");
}

static void ui_kill_job(void *arg, int job_id)
{
    ui_kill(arg, job_id, -1);
}

static void ui_kill_stage(void *arg, int stage_id)
{
    ui_kill(arg, -1, stage_id);
}

static int64_t ui_dropped_events(void *arg)
{
    cspark_context *sc = arg;
    return cs_listener_bus_dropped(sc->bus);
}

/* executors whose manager keeps their stdout/stderr in files of the application's local dir
 * (local-cluster), or fetches their logs from where the cluster keeps them (Kubernetes: one
 * container log holds both streams) */
static int64_t ui_read_log(void *arg, const char *executor_id, const char *type, int64_t offset,
                           size_t len, cs_sbuf *out, int64_t *start)
{
    cspark_context *sc = arg;
    if (sc->manager->executor_log_path) {
        char path[PATH_MAX];
        if (sc->manager->executor_log_path(sc->local_dir, executor_id, type, path, sizeof path) < 0)
            return -1;
        return cs_ui_read_log_file(path, offset, len, out, start);
    }
    if (!sc->backend) return -1;
    cs_sbuf text = CS_SBUF_INIT;
    cs_error err;
    cs_error_clear(&err);
    int64_t total = -1;
    if (sc->manager->fetch_executor_log(sc->backend, executor_id, UI_FETCHED_LOG_MAX, &text,
                                        &err) == 0)
        total = cs_ui_slice_log(cs_sbuf_str(&text), text.len, offset, len, out, start);
    else if (err.code != CS_ENOTFOUND)
        CS_WARN("ui", "event=executor_log_failed executor=%s error=%s", executor_id,
                cs_log_quote(err.msg));
    cs_sbuf_free(&text);
    return total;
}

static int start_ui(cspark_context *sc, cs_error *err)
{
    ui_hooks h = {.arg = sc,
                  .kill_job = ui_kill_job,
                  .kill_stage = ui_kill_stage,
                  .read_log = sc->manager->executor_log_path || sc->manager->fetch_executor_log
                                  ? ui_read_log
                                  : NULL,
                  .dropped_events = ui_dropped_events};
    return cs_ui_live_start(sc->conf, sc->app_id, &h, &sc->ui, err);
}

/* The context between cs_context_new and cs_context_stop, for errors on a NULL argument. */
static _Atomic(cspark_context *) running_context;

cspark_context *cs_context_new(const cs_conf *conf, const char *app_file, cs_error *err)
{
    cspark_context *sc = cs_xcalloc(1, sizeof *sc);
    sc->conf = cs_conf_clone(conf);
    cs_fs_configure(sc->conf); /* file systems read spark.hadoop.* from the application's conf */
    pthread_mutex_init(&sc->lock, NULL);
    cs_lineage_init(&sc->graph);
    const char *given_id = cs_conf_get(sc->conf, "spark.app.id"); /* set by a cluster-mode submit */
    const cluster_manager *manager = cs_cluster_manager_for(cs_cluster_master_url(sc->conf));
    if (given_id) { /* it names local directories and the event log: refused, never cleaned */
        if (cs_conf_check_app_id(given_id, err) < 0) goto fail;
        snprintf(sc->app_id, sizeof sc->app_id, "%s", given_id);
    } else if (manager && manager->new_app_id) {
        if (manager->new_app_id(sc->app_id, err) < 0) goto fail;
    } else {
        snprintf(sc->app_id, sizeof sc->app_id, "local-%lld", (long long)cs_now_ms());
    }
    const char *base = app_file ? strrchr(app_file, '/') : NULL;
    sc->app_file_name = cs_xstrdup(base ? base + 1 : (app_file ? app_file : "app"));
    const char *name = cs_conf_get(sc->conf, "spark.app.name");
    if (!name) {
        char *dot = strrchr(sc->app_file_name, '.');
        sc->app_name = dot ? cs_xstrndup(sc->app_file_name, (size_t)(dot - sc->app_file_name))
                           : cs_xstrdup(sc->app_file_name);
    } else {
        sc->app_name = cs_xstrdup(name);
    }
    cs_conf_set(sc->conf, "spark.app.id", sc->app_id);
    char abs_path[PATH_MAX];
    if (app_file && realpath(app_file, abs_path))
        cs_conf_set(sc->conf, "cspark.app.file", abs_path);
    cs_conf_set_if_missing(sc->conf, "spark.app.name", sc->app_name);

    if (read_settings(sc, err) < 0 || make_local_dir(sc, err) < 0 ||
        cs_context_shared_vars_init(sc, err) < 0)
        goto fail;
    cs_fallback_storage *fallback = NULL; /* a bad path is refused before any executor starts */
    if (cs_fallback_storage_open(sc->conf, sc->app_id, &fallback, err) < 0) goto fail;
    cs_fallback_storage_free(fallback);

    /* the UI first: a port it cannot bind leaves no event log behind */
    if (start_ui(sc, err) < 0) goto fail;
    sc->bus = cs_listener_bus_new(sc->conf, sc->app_id, sc->app_name, err);
    if (!sc->bus) goto fail;
    cs_ui_live_attach(sc->ui, sc->bus); /* before the first event */
    const char *user = getenv("USER");
    if (!user) {
        struct passwd *pw = getpwuid(getuid());
        user = pw ? pw->pw_name : "unknown";
    }
    cs_event ev = {.kind = CS_EV_APPLICATION_START,
                   .app_id = sc->app_id,
                   .app_name = sc->app_name,
                   .user = user,
                   .time_ms = cs_now_ms()};
    cs_listener_bus_post(sc->bus, &ev);
    cs_event env = {.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = sc->conf, .time_ms = cs_now_ms()};
    cs_listener_bus_post(sc->bus, &env);
    cs_event exec = {.kind = CS_EV_EXECUTOR_ADDED,
                     .executor_id = "driver",
                     .host = "localhost",
                     .executor_cores = sc->master.threads,
                     .time_ms = cs_now_ms()};
    cs_listener_bus_post(sc->bus, &exec);

    if (start_backend(sc, err) < 0) goto fail;
    CS_INFO("context", "app=%s name=%s master=%s parallelism=%d task_memory=%lld local_dir=%s",
            cs_log_value(sc->app_id), cs_log_quote(sc->app_name),
            cs_log_value(cs_conf_entry_string(sc->conf, "spark.master")), sc->default_parallelism,
            (long long)sc->task_memory_budget, cs_log_value(sc->local_dir));
    running_context = sc;
    return sc;
fail:
    cs_context_stop(sc, false);
    return NULL;
}

void cs_context_stop(cspark_context *sc, bool succeeded)
{
    if (!sc) return;
    cspark_context *expected = sc;
    atomic_compare_exchange_strong(&running_context, &expected, NULL);
    /* first of all no executor is started or replaced any more: the executors the stop removes
     * (the task reaper, the end of the jobs, StopExecutor) stay removed (issue 21 item 13); once
     * it returns none is being started, so none is created after the line below */
    if (sc->backend && sc->manager->stopping) sc->manager->stopping(sc->backend);
    CS_INFO("context", "app=%s event=stopping succeeded=%s", cs_log_value(sc->app_id),
            succeeded ? "true" : "false");
    /* as Spark's SparkContext.stop: the application's end is posted first, then the scheduler
     * and the executors stop */
    if (sc->bus) {
        cs_event ev = {
            .kind = CS_EV_APPLICATION_END, .time_ms = cs_now_ms(), .succeeded = succeeded};
        cs_listener_bus_post(sc->bus, &ev);
    }
    cs_ui_live_stop(sc->ui); /* no kill request reaches the scheduler from now on */
    cs_scheduler_free(sc->sched);
    cs_context_shared_vars_free(sc); /* no backend serves or reads them any more */
    cs_error cerr = {0}; /* the executors are gone: nothing reads the fallback storage any more */
    if (sc->conf && cs_fallback_storage_clean_up(sc->conf, sc->app_id, &cerr) < 0)
        CS_WARN("context", "app=%s event=fallback_storage_not_cleaned error=%s",
                cs_log_value(sc->app_id), cs_log_quote(cerr.msg));
    if (sc->bus) cs_listener_bus_free(sc->bus);
    cs_ui_live_free(sc->ui); /* the bus no longer delivers to its store */
    if (sc->local_dir) {
        cs_files_clear();
        cs_remove_local_dir(sc->local_dir, "context");
        cs_exit_cleanup_remove(sc->local_dir);
    }
    /* tasks left running by the task reaper (local mode), or an entry function that did not
     * return, may still read the lineage and the conf: the process ends without freeing them */
    if (cs_shutdown_exit_pending()) return;
    cs_lineage_free(&sc->graph);
    free(sc->local_dir);
    free(sc->app_name);
    free(sc->app_file_name);
    cs_context_local_props_free(sc);
    free(sc->error);
    free(sc->last_error);
    for (int i = 0; i < sc->num_old_errors; i++)
        free(sc->old_errors[i]);
    free(sc->old_errors);
    cs_conf_free(sc->conf);
    pthread_mutex_destroy(&sc->lock);
    free(sc);
}

void cs_context_interrupt(cspark_context *sc, int sig)
{
    char msg[96];
    snprintf(msg, sizeof msg, "the application was interrupted by %s", strsignal(sig));
    sc->interrupted = sig;
    cs_error e;
    cs_error_set(&e, CS_ECANCELLED, "%s", msg);
    cs_context_fail(sc, &e);
    if (sc->sched) cs_scheduler_abort(sc->sched, msg);
}

int cs_context_exit_code(cspark_context *sc)
{
    return sc && sc->backend && sc->manager->exit_code ? sc->manager->exit_code(sc->backend) : 0;
}

/* Records err as the latest error, and as the context's error unless it has failed. Lock held. */
static void record_error(cspark_context *sc, const cs_error *err)
{
    const char *text = err->msg[0] ? err->msg : cspark_strerror(err->code);
    if (sc->last_error) { /* another thread may hold it from cspark_last_error */
        sc->old_errors =
            cs_xrealloc(sc->old_errors, (size_t)(sc->num_old_errors + 1) * sizeof *sc->old_errors);
        sc->old_errors[sc->num_old_errors++] = sc->last_error;
    }
    sc->last_error = cs_xstrdup(text);
    if (!sc->failed) { /* the first failure wins over any earlier cancelled job's reason */
        free(sc->error);
        sc->error = cs_xstrdup(text);
    }
}

int cs_context_fail(cspark_context *sc, const cs_error *err)
{
    pthread_mutex_lock(&sc->lock);
    record_error(sc, err);
    sc->failed = true;
    pthread_mutex_unlock(&sc->lock);
    return err->code ? err->code : CS_EINVAL;
}

int cs_context_job_cancelled(cspark_context *sc, const cs_error *err)
{
    pthread_mutex_lock(&sc->lock);
    record_error(sc, err);
    pthread_mutex_unlock(&sc->lock);
    return err->code ? err->code : CS_ECANCELLED;
}

int cs_context_null_argument(const char *op, const char *what)
{
    cspark_context *sc = running_context;
    cs_error e;
    cs_error_set(&e, CS_EINVAL,
                 "%s: the %s is NULL (the call that should have created it failed, or it was "
                 "never set)",
                 op, what);
    if (!sc) return CS_EINVAL;
    pthread_mutex_lock(&sc->lock);
    bool consequence =
        sc->failed; /* of the failure that made the RDD NULL: that stays the reason */
    pthread_mutex_unlock(&sc->lock);
    if (!consequence) cs_context_fail(sc, &e);
    return CS_EINVAL;
}

void cs_context_misuse(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cspark_task_context *tc = cs_task_current();
    if (tc) cspark_task_fail(tc, "%s", msg); /* in a task: the task fails (does not return) */
    cspark_context *sc = running_context;
    if (sc) { /* as a Spark driver's uncaught exception: the context stops, the process ends */
        cs_error e;
        cs_error_set(&e, CS_EINVAL, "%s", msg);
        cs_context_fail(sc, &e);
        if (sc->sched) cs_scheduler_abort(sc->sched, msg);
        cs_shutdown_set_exit_pending(); /* other threads may still hold the context */
        cs_context_stop(sc, false);
    }
    fflush(NULL);
    cs_log_user_error("cspark-submit", "%s", msg);
    cs_exit_cleanup_run();
    _exit(1);
}

cspark_rdd *cs_rdd_refuse(cspark_context *sc, const cs_error *err)
{
    cs_context_fail(sc, err);
    return NULL;
}

/* ---- public accessors ---------------------------------------------------------------------- */

const char *cspark_files_get_driver(cspark_context *sc, const char *name)
{
    (void)sc; /* one application per process: the registry is the process's */
    return cs_files_lookup(name);
}

const char *cspark_conf_get(cspark_context *sc, const char *key)
{
    return sc ? cs_conf_get(sc->conf, key) : NULL;
}

const char *cspark_app_id(cspark_context *sc)
{
    return sc ? sc->app_id : NULL;
}

int cspark_default_parallelism(cspark_context *sc)
{
    return sc ? sc->default_parallelism : 0;
}

int cspark_num_partitions(const cspark_rdd *rdd)
{
    return rdd ? rdd->num_partitions : 0;
}

const char *cspark_last_error(cspark_context *sc)
{
    if (!sc) return NULL;
    pthread_mutex_lock(&sc->lock);
    const char *e = sc->last_error;
    pthread_mutex_unlock(&sc->lock);
    return e;
}
