/*
 * decom_signals.c — the executor's signal watcher (see decom_signals.h): one thread in sigwait
 * over the termination signals, which either hands a trigger signal to the executor's
 * decommissioning or gives the signal the effect it would have had without the watcher. Owned
 * by the executor (src/exec/executor.c).
 */
#define _GNU_SOURCE
#include "exec/decom_signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"

static const struct {
    const char *name;
    int sig;
} SIGNALS[] = {
    {"TERM", SIGTERM}, {"PWR", SIGPWR}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"INT", SIGINT}};
#define NSIGNALS ((int)(sizeof SIGNALS / sizeof SIGNALS[0]))

int cs_decom_signals_parse(const char *name, int *sig, cs_error *err)
{
    const char *n = name ? name : "";
    if (strncasecmp(n, "SIG", 3) == 0) n += 3;
    for (int i = 0; i < NSIGNALS; i++)
        if (strcasecmp(n, SIGNALS[i].name) == 0) {
            *sig = SIGNALS[i].sig;
            return 0;
        }
    return cs_error_set(err, CS_EINVAL,
                        "invalid value for spark.executor.decommission.signal: '%s' (expected one "
                        "of PWR, TERM, USR1, USR2, INT)",
                        name ? name : "");
}

const char *cs_decom_signals_name(int sig)
{
    for (int i = 0; i < NSIGNALS; i++)
        if (SIGNALS[i].sig == sig) return SIGNALS[i].name;
    return "?";
}

struct decom_signals {
    pthread_t thread;
    decom_signal_fn on_trigger;
    void *arg;
    sigset_t watched;
    sigset_t saved_mask;  /* the starting thread's mask before */
    bool inert[NSIGNALS]; /* had no effect before: ignored, or blocked (a launcher forked from a
                             thread that blocks it: local-cluster's driver blocks SIGINT/SIGTERM) */
    pthread_mutex_t lock;
    int armed_sig; /* 0 until armed */
    bool stopping; /* the next signal the watcher takes only wakes it to return */
    int wake_sig;  /* a watched signal, sent to the watcher to wake it */
};

static int index_of(int sig)
{
    for (int i = 0; i < NSIGNALS; i++)
        if (SIGNALS[i].sig == sig) return i;
    return -1;
}

/* The effect the signal would have had without the watcher. */
static void default_effect(decom_signals *s, int sig)
{
    int i = index_of(sig);
    if (i >= 0 && s->inert[i]) return;
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig); /* terminates the process (every watched signal's default action does) */
}

static void *watcher_main(void *arg)
{
    decom_signals *s = arg;
    for (;;) {
        int sig = 0;
        if (sigwait(&s->watched, &sig) != 0) continue;
        pthread_mutex_lock(&s->lock);
        if (s->stopping) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        bool trigger = s->armed_sig != 0 && (sig == SIGTERM || sig == s->armed_sig);
        pthread_mutex_unlock(&s->lock);
        if (trigger)
            s->on_trigger(s->arg, sig);
        else
            default_effect(s, sig);
    }
    return NULL;
}

decom_signals *cs_decom_signals_start(decom_signal_fn on_trigger, void *arg)
{
    decom_signals *s = cs_xcalloc(1, sizeof *s);
    s->on_trigger = on_trigger;
    s->arg = arg;
    pthread_mutex_init(&s->lock, NULL);
    sigemptyset(&s->watched);
    pthread_sigmask(SIG_SETMASK, NULL, &s->saved_mask);
    for (int i = 0; i < NSIGNALS; i++) {
        struct sigaction sa;
        if (sigaction(SIGNALS[i].sig, NULL, &sa) < 0) continue;
        if ((sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN))
            continue; /* the process handles it itself: leave it alone */
        s->inert[i] = sa.sa_handler == SIG_IGN || sigismember(&s->saved_mask, SIGNALS[i].sig);
        sigaddset(&s->watched, SIGNALS[i].sig);
        if (!s->wake_sig) s->wake_sig = SIGNALS[i].sig;
    }
    if (!s->wake_sig) { /* the process handles every one itself: nothing to watch */
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    pthread_sigmask(SIG_BLOCK, &s->watched, NULL);
    if (pthread_create(&s->thread, NULL, watcher_main, s) != 0) {
        CS_WARN("executor", "event=signal_watcher_failed: decommissioning by signal is off");
        pthread_sigmask(SIG_SETMASK, &s->saved_mask, NULL);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

void cs_decom_signals_arm(decom_signals *s, int sig)
{
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->armed_sig = sig;
    pthread_mutex_unlock(&s->lock);
}

void cs_decom_signals_stop(decom_signals *s)
{
    if (!s) return;
    /* woken by a signal, not cancelled: pthread_cancel loads libgcc_s to unwind, which aborts
     * the process when it has no file descriptor left */
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_mutex_unlock(&s->lock);
    pthread_kill(s->thread, s->wake_sig);
    pthread_join(s->thread, NULL);
    pthread_sigmask(SIG_SETMASK, &s->saved_mask, NULL);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
