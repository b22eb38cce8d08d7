/*
 * app.h — runs an application: loads the job's shared object, resolves its entry function,
 * creates the context, calls the entry and stops the context. Called by cspark-submit (and, in
 * cluster modes, by the driver process).
 *
 * Threads: cs_app_run runs the job's entry on the calling thread (the job thread: every action
 * blocks it until its job ends) and starts one more, the interrupt watcher, which alone takes
 * SIGINT/SIGTERM (every other thread has them blocked) and interrupts the context.
 */
#ifndef CSPARK_API_APP_H
#define CSPARK_API_APP_H

#include <stdbool.h>

#include "common/conf.h"

struct cspark_context;

/* Loads the app .so, resolves `entry` (default "cspark_main"), creates the context from conf,
 * calls entry(ctx, argc, argv), stops the context. Returns the process exit status (the entry's
 * return value, or non-zero after printing a one-line error). conf is borrowed. */
int cs_app_run(const cs_conf *conf, const char *app_path, const char *entry, int argc, char **argv);

/* An application's own answer to SIGINT/SIGTERM (cspark-sql's, as spark-sql's: the first Ctrl-C
 * cancels the running statement): the interrupt watcher offers each signal it has not acted on
 * yet to fn(arg, sig), on its own thread, before it stops the application; fn returns true when it
 * took the signal (the application goes on), false to let the application stop as usual.
 * fn == NULL removes it; arg is borrowed until then. Any thread. */
void cs_app_set_interrupt_hook(struct cspark_context *sc, bool (*fn)(void *arg, int sig),
                               void *arg);

/* The application's conf, for an entry that reads typed keys (cs_conf_entry_*): borrowed for
 * the life of sc. Any thread. */
const cs_conf *cs_app_conf(const struct cspark_context *sc);

/* Kills every running job of sc, as Spark's SparkContext.cancelAllJobs: each fails with "Job N
 * cancelled as part of cancellation of all jobs"; the context is not failed. Any thread. */
void cs_app_cancel_all_jobs(struct cspark_context *sc);

#endif
