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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/app.h"
#include "api/context.h"
#include "common/app_file.h"
#include "common/log.h"
#include "common/memtune.h"
#include "exec/task_context.h"

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

/* SIGINT/SIGTERM while the application runs: the first aborts the running job (and every later
 * one) so the entry returns and the context stops cleanly — executor pods and local files are
 * removed; a second one ends the process at once. Signals are taken by this thread only. */
typedef struct interrupt_watch {
    pthread_t thread;
    cspark_context *sc;
    sigset_t set;
    atomic_bool done; /* the application ended: the next signal only wakes the watcher */
} interrupt_watch;

static void *interrupt_main(void *arg)
{
    interrupt_watch *w = arg;
    int sig = 0;
    if (sigwait(&w->set, &sig) != 0 || atomic_load(&w->done)) return NULL;
    CS_WARN("app", "app=%s event=interrupted signal=%s: stopping", cs_log_value(w->sc->app_id),
            strsignal(sig));
    cs_context_interrupt(w->sc, sig);
    if (sigwait(&w->set, &sig) != 0 || atomic_load(&w->done)) return NULL;
    _exit(128 + sig);
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
    cs_task_thread_init();
    cs_memtune_init();
    /* every thread created from here on leaves SIGINT/SIGTERM to the interrupt watcher */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    cs_error err;
    cs_error_clear(&err);
    cspark_context *sc = cs_context_new(conf, app_path, &err);
    if (!sc) {
        write_termination_message(conf, err.msg);
        cs_log_user_error("cspark-submit", "%s", err.msg);
        dlclose(handle);
        return 1;
    }
    interrupt_watch iw = {.sc = sc};
    sigemptyset(&iw.set);
    sigaddset(&iw.set, SIGINT);
    sigaddset(&iw.set, SIGTERM);
    bool watching = pthread_create(&iw.thread, NULL, interrupt_main, &iw) == 0;
    int rc = fn(sc, argc, argv);
    if (sc->interrupted) rc = 128 + sc->interrupted; /* as a shell reports a signal */
    if (sc->failed && rc == 0) rc = 1;
    int backend_rc = cs_context_exit_code(sc); /* e.g. 11: too many executor failures */
    if (backend_rc) rc = backend_rc;
    char *error = rc != 0 && sc->error ? strdup(sc->error) : NULL;
    fflush(stdout);
    cs_context_stop(sc, rc == 0); /* flushes the listener bus: the error stays the last line */
    if (watching) {
        /* woken, not cancelled: pthread_cancel loads libgcc_s to unwind, which aborts the
         * process when a task has left it without file descriptors */
        atomic_store(&iw.done, true);
        pthread_kill(iw.thread, SIGTERM);
        pthread_join(iw.thread, NULL);
    }
    if (rc != 0)
        write_termination_message(conf, error ? error
                                              : "the application's entry function "
                                                "returned a non-zero status");
    if (error) cs_log_user_error("cspark-submit", "%s", error);
    free(error);
    /* the job's .so stays loaded: its destructors may still run at exit */
    return rc;
}
