/*
 * app.c — loading and running an application (see app.h). The job's .so is opened with
 * RTLD_NOW | RTLD_GLOBAL so that a missing symbol fails at load time and the job's functions
 * can be found by name; the entry function has the signature
 * int entry(cspark_context *, int argc, char **argv).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/app.h"
#include "api/context.h"
#include "common/app_file.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/memtune.h"
#include "common/shutdown.h"
#include "exec/task_context.h"
#include "sched/scheduler.h"

typedef int (*entry_fn)(cspark_context *, int, char **);

#define TERMINATION_LOG "/dev/termination-log"
#define TERMINATION_MESSAGE_MAX 4000 /* Kubernetes keeps 4096 bytes of a container's message */

/* A cluster-mode driver's failure, where Kubernetes makes it the pod's termination message
 * (the kubelet creates the file; nothing is written where it does not exist). */
static void write_termination_message(const cs_conf *conf, const char *msg)
{
    const char *mode = cs_conf_get(conf, "spark.submit.deployMode");
    const char *master = cs_conf_get(conf, "spark.master");
    if (!msg || !mode || strcmp(mode, "cluster") != 0 || !master || strncmp(master, "k8s://", 6))
        return;
    FILE *f = fopen(TERMINATION_LOG, "r+e"); /* only an existing file: never create one */
    if (!f) return;
    size_t n = strlen(msg);
    fwrite(msg, 1, n > TERMINATION_MESSAGE_MAX ? TERMINATION_MESSAGE_MAX : n, f);
    fclose(f);
}

/* SIGINT/SIGTERM, taken by this thread only (every other one blocks them), from before the
 * context starts until it has stopped. The first asks the application to stop
 * (common/shutdown.h): a context still starting gives up its waits (executor registration), a
 * running job and every later one fail, tasks that ignore their kill are ended by the task reaper,
 * and the entry function returns — the main thread then stops the context, which ends executors
 * and deletes what the application created. A second one hurries the stop: nothing is waited for
 * any more, but the cleanup still runs. If the entry function has not returned STOP_TAKEOVER_MS
 * after the task reaper's grace (or a second after a second signal) and no job is running, this
 * thread stops the context itself and ends the process; a third signal ends it at once. Before it
 * acts on a first signal, the application's interrupt hook may take it instead
 * (cs_app_set_interrupt_hook: cspark-sql cancels its running statement). */
#define STOP_TAKEOVER_MS 2000

typedef struct interrupt_watch {
    pthread_t thread;
    sigset_t set;
    int64_t reaper_ms; /* spark.task.reaper.killTimeout, -1: never */
    pthread_mutex_t lock;
    cspark_context *sc;  /* once started (the main thread sets it) */
    bool main_stopping;  /* the entry returned: the main thread stops the context */
    bool watch_stopping; /* this thread stops it (the entry did not return in time) */
    bool done;           /* the main thread has stopped the context: end */
} interrupt_watch;

/* Waits up to ms for one of the watched signals; 0 when none came (or the watch is over). */
static int next_signal(interrupt_watch *w, int64_t ms)
{
    int64_t until = cs_mono_ms() + ms;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        bool done = w->done;
        pthread_mutex_unlock(&w->lock);
        int64_t left = until - cs_mono_ms();
        if (done || left <= 0) return 0;
        int64_t slice = left < 100 ? left : 100;
        struct timespec ts = {slice / 1000, (long)(slice % 1000) * 1000000L};
        int sig = sigtimedwait(&w->set, NULL, &ts);
        if (sig > 0) return sig;
    }
}

/* The entry function did not return: this thread stops the context (nothing is freed that the
 * main thread may still use) and ends the process. */
static void take_over(interrupt_watch *w, int sig)
{
    CS_WARN("app",
            "app=%s event=stop_takeover: the entry function did not return; stopping the "
            "application without it",
            w->sc->app_id);
    cs_shutdown_set_exit_pending();
    cs_shutdown_hurry();
    cs_context_stop(w->sc, false);
    fprintf(stderr, "cspark-submit: the application was interrupted by %s\n", strsignal(sig));
    /* not fflush(NULL): it locks every stream, and the entry may hold stdin's in a blocking read
     * (cspark-sql's prompt), which would never let this thread end the process */
    fflush(stdout);
    fflush(stderr);
    _exit(128 + sig);
}

void cs_app_set_interrupt_hook(cspark_context *sc, bool (*fn)(void *arg, int sig), void *arg)
{
    pthread_mutex_lock(&sc->lock);
    sc->interrupt_hook = fn;
    sc->interrupt_hook_arg = arg;
    pthread_mutex_unlock(&sc->lock);
}

const cs_conf *cs_app_conf(const cspark_context *sc)
{
    return sc->conf;
}

void cs_app_cancel_all_jobs(cspark_context *sc)
{
    scheduler *s = __atomic_load_n(&sc->sched, __ATOMIC_ACQUIRE);
    if (s) cs_scheduler_cancel_all(s);
}

/* The application's hook took sig (cs_app_set_interrupt_hook). */
static bool hook_took(cspark_context *sc, int sig)
{
    pthread_mutex_lock(&sc->lock);
    bool (*fn)(void *, int) = sc->interrupt_hook;
    void *arg = sc->interrupt_hook_arg;
    pthread_mutex_unlock(&sc->lock);
    return fn && fn(arg, sig);
}

static void *interrupt_main(void *arg)
{
    interrupt_watch *w = arg;
    int first = 0, sig;
    int64_t deadline = INT64_MAX;
    for (;;) {
        int64_t wait = deadline == INT64_MAX ? 3600000 : deadline - cs_mono_ms();
        sig = next_signal(w, wait > 0 ? wait : 0);
        pthread_mutex_lock(&w->lock);
        cspark_context *sc = w->sc;
        bool done = w->done, main_stopping = w->main_stopping;
        pthread_mutex_unlock(&w->lock);
        if (done) return NULL;
        if (sig && !first && sc && hook_took(sc, sig))
            continue; /* the application took it (cspark-sql cancelled its statement) */
        if (sig && !first) {
            first = sig;
            cs_shutdown_request(sig);
            CS_WARN("app", "app=%s event=interrupted signal=%s: stopping",
                    sc ? cs_log_value(sc->app_id) : "-", strsignal(sig));
            if (sc) cs_context_interrupt(sc, sig); /* else the main thread does it once started */
            if (w->reaper_ms >= 0) deadline = cs_mono_ms() + w->reaper_ms + STOP_TAKEOVER_MS;
            continue;
        }
        if (sig && !cs_shutdown_hurried()) {
            cs_shutdown_hurry();
            CS_WARN("app",
                    "event=interrupted_again signal=%s: stopping now, without waiting for "
                    "tasks or executors (once more ends the process at once, leaving them)",
                    strsignal(sig));
            int64_t soon = cs_mono_ms() + 1000;
            if (soon < deadline) deadline = soon;
            continue;
        }
        if (sig) {
            fprintf(stderr, "cspark-submit: interrupted three times: exiting now\n");
            _exit(128 + sig);
        }
        if (deadline == INT64_MAX || cs_mono_ms() < deadline) continue;
        /* the deadline passed */
        if (!sc || main_stopping) {
            deadline = INT64_MAX; /* starting (its waits end by themselves) or already stopping */
            continue;
        }
        scheduler *sched = __atomic_load_n(&sc->sched, __ATOMIC_ACQUIRE);
        if (sched && cs_scheduler_in_job(sched)) { /* in the engine (a slow machine): it returns */
            deadline = cs_mono_ms() + 1000;
            continue;
        }
        pthread_mutex_lock(&w->lock);
        bool mine = !w->main_stopping && !w->done;
        if (mine) w->watch_stopping = true;
        pthread_mutex_unlock(&w->lock);
        if (mine) take_over(w, first);
        deadline = INT64_MAX;
    }
}

/* The context has stopped (or never started): the watcher ends. A SIGTERM sent to the watcher's
 * thread alone wakes it from sigtimedwait at once (it sees done before acting on a signal, and a
 * thread-directed signal still pending when it returns goes with it); without it the process's
 * exit waited for the end of the watcher's 100 ms slice. */
static void end_watch(interrupt_watch *w, bool watching)
{
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_mutex_unlock(&w->lock);
    if (watching) {
        pthread_kill(w->thread, SIGTERM);
        pthread_join(w->thread, NULL);
    }
    pthread_mutex_destroy(&w->lock);
}

int cs_app_run(const cs_conf *conf, const char *app_path, const char *entry, int argc, char **argv)
{
    if (!entry || !*entry) entry = "cspark_main";
    cs_error check;
    if (cs_app_file_check(app_path, &check) < 0) { /* a truncated .so would die of SIGBUS */
        cs_log_user_error("cspark-submit", "%s", check.msg);
        return 1;
    }
    void *handle = dlopen(app_path, RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
        cs_log_user_error("cspark-submit", "cannot load application %s: %s", app_path, dlerror());
        return 1;
    }
    entry_fn fn = (entry_fn)dlsym(handle, entry);
    if (!fn) {
        cs_log_user_error("cspark-submit",
                          "entry function '%s' not found in %s (define a non-static int "
                          "%s(cspark_context *sc, int argc, char **argv), or name it with --class)",
                          entry, app_path, entry);
        dlclose(handle);
        return 1;
    }
    cs_task_install_crash_handlers();
    cs_task_crash_set_process("driver");
    cs_task_crash_set_app(handle);
    cs_task_thread_init();
    cs_memtune_init();
    /* every thread created from here on leaves SIGINT/SIGTERM to the interrupt watcher, which
     * starts before the context: a signal while executors register is acted on at once */
    interrupt_watch iw = {.reaper_ms = -1};
    sigemptyset(&iw.set);
    sigaddset(&iw.set, SIGINT);
    sigaddset(&iw.set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &iw.set, NULL);
    pthread_mutex_init(&iw.lock, NULL);
    cs_task_reaper_timeout(conf, &iw.reaper_ms, NULL); /* a bad value fails in the context */
    bool watching = pthread_create(&iw.thread, NULL, interrupt_main, &iw) == 0;
    cs_error err;
    cs_error_clear(&err);
    cspark_context *sc = cs_context_new(conf, app_path, &err);
    if (!sc) {
        end_watch(&iw, watching);
        write_termination_message(conf, err.msg);
        cs_log_user_error("cspark-submit", "%s", err.msg);
        dlclose(handle);
        int sig = cs_shutdown_signal();
        return sig ? 128 + sig : 1;
    }
    pthread_mutex_lock(&iw.lock);
    iw.sc = sc;
    int pending = cs_shutdown_signal(); /* came while starting: the watcher could not interrupt */
    pthread_mutex_unlock(&iw.lock);
    if (pending) cs_context_interrupt(sc, pending);
    int rc = fn(sc, argc, argv);
    if (sc->interrupted) rc = 128 + sc->interrupted; /* as a shell reports a signal */
    if (sc->failed && rc == 0) rc = 1;
    int backend_rc = cs_context_exit_code(sc); /* e.g. 11: too many executor failures */
    if (backend_rc) rc = backend_rc;
    char *error = rc != 0 && sc->error ? strdup(sc->error) : NULL;
    fflush(stdout);
    pthread_mutex_lock(&iw.lock);
    bool taken = iw.watch_stopping;
    iw.main_stopping = !taken;
    pthread_mutex_unlock(&iw.lock);
    while (taken) /* the watcher stops the context and ends the process */
        pause();
    cs_context_stop(sc, rc == 0); /* flushes the listener bus: the error stays the last line */
    end_watch(&iw, watching);
    if (rc != 0)
        write_termination_message(conf, error ? error
                                              : "the application's entry function "
                                                "returned a non-zero status");
    if (error) cs_log_user_error("cspark-submit", "%s", error);
    free(error);
    if (cs_shutdown_exit_pending()) { /* threads still run user code: do not wait for them */
        fflush(NULL);
        _exit(rc);
    }
    /* the job's .so stays loaded: its destructors may still run at exit */
    return rc;
}
