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

#include "common/conf.h"

/* Loads the app .so, resolves `entry` (default "cspark_main"), creates the context from conf,
 * calls entry(ctx, argc, argv), stops the context. Returns the process exit status (the entry's
 * return value, or non-zero after printing a one-line error). conf is borrowed. */
int cs_app_run(const cs_conf *conf, const char *app_path, const char *entry, int argc, char **argv);

#endif
