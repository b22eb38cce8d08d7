/*
 * decom_signals.h — the executor's termination signals (SIGTERM, SIGPWR, SIGUSR1, SIGUSR2,
 * SIGINT) taken by one watcher thread with sigwait, so that with spark.decommission.enabled the
 * pod's SIGTERM (Kubernetes deleting it) and spark.executor.decommission.signal (Spark's decom.sh
 * sends SIGPWR) start a graceful decommission instead of killing the process. Until the executor
 * arms it — and for every signal that is not a trigger — a signal keeps the effect it had
 * before: the process dies by it (exit status 128 + n), or nothing happens if it was ignored or
 * blocked when the watcher started (an executor forked by local-cluster inherits SIGINT and
 * SIGTERM blocked from the driver's threads). Used by the executor (src/exec/executor.c), which
 * owns the watcher.
 *
 * Ownership: the watcher is the caller's (cs_decom_signals_stop frees it); arg is borrowed until
 * then. on_trigger runs on the watcher thread.
 */
#ifndef CSPARK_EXEC_DECOM_SIGNALS_H
#define CSPARK_EXEC_DECOM_SIGNALS_H

#include "common/err.h"

/* "PWR", "TERM", "USR1", "USR2" or "INT", with or without "SIG", any case -> the signal number.
 * CS_EINVAL with err naming the key spark.executor.decommission.signal otherwise. */
int cs_decom_signals_parse(const char *name, int *sig, cs_error *err);
/* "PWR" for SIGPWR, ...; "?" for a signal not in the list. */
const char *cs_decom_signals_name(int sig);

typedef void (*decom_signal_fn)(void *arg, int sig);
typedef struct decom_signals decom_signals;

/* Blocks the watched signals in the calling thread (threads it creates later inherit that), and
 * starts the watcher thread. Call before the process creates any other thread. NULL if the
 * thread cannot be started or the process handles every one of the signals itself (the signals
 * are then left as they were). */
decom_signals *cs_decom_signals_start(decom_signal_fn on_trigger, void *arg);
/* From now on SIGTERM and `sig` (one of the parsed ones) call on_trigger instead of ending the
 * process. NULL is fine (no-op). */
void cs_decom_signals_arm(decom_signals *s, int sig);
/* Stops the watcher and restores the signal mask the calling thread had at start (a signal still
 * pending then takes its usual effect). Call from the thread that started it. NULL is fine. */
void cs_decom_signals_stop(decom_signals *s);

#endif /* CSPARK_EXEC_DECOM_SIGNALS_H */
