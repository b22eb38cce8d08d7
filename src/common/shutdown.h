/*
 * shutdown.h — the process's stop request and the task reaper's grace, shared by every wait that
 * could keep an application from ending (as Redis's shutdown_asap flag).
 *
 * The driver's signal watcher (src/api/app.c) records the first SIGINT/SIGTERM with
 * cs_shutdown_request and a second one with cs_shutdown_hurry. Waits that may last long before
 * or while the context starts (executor registration, the Kubernetes allocator's first round)
 * poll cs_shutdown_requested and give up; waits of the stop path take their grace through
 * cs_shutdown_grace_ms, which is 0 once hurried, so a second Ctrl-C still runs every cleanup
 * (executor processes and pods, ConfigMaps, Secrets, claims, local files) but waits for nothing.
 *
 * The task reaper (Spark's spark.task.reaper.*, adapted): a task asked to stop (its job ended or
 * was cancelled, the application is stopping) that has not stopped after
 * spark.task.reaper.killTimeout is ended by force — its executor process is killed or its pod
 * deleted by the driver, an executor told to stop exits without waiting for it, and in local mode
 * the driver leaves its thread behind and ends without joining it.
 *
 * Threads: every function is async-signal-safe in the sense that it only reads or writes atomics;
 * callable from any thread.
 */
#ifndef CSPARK_COMMON_SHUTDOWN_H
#define CSPARK_COMMON_SHUTDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

/* The first stop request: sig is the signal that asked (kept for the exit status). */
void cs_shutdown_request(int sig);
/* A later request: stop without waiting for anything (cleanup still runs). */
void cs_shutdown_hurry(void);
/* The signal of the first request, 0 while none came. */
int cs_shutdown_signal(void);
bool cs_shutdown_requested(void);
bool cs_shutdown_hurried(void);
/* grace_ms, or 0 once a second request hurried the stop. */
int64_t cs_shutdown_grace_ms(int64_t grace_ms);

/* Tasks the reaper left running in this process (local mode: threads that ignored a kill): the
 * count goes up when one is left and down when it ends at last. While it is above 0, memory the
 * tasks may read is not freed and the driver ends with _exit after its cleanup (src/api/app.c). */
void cs_shutdown_task_abandoned(int delta);
int cs_shutdown_abandoned_tasks(void);
/* The signal watcher stops the application itself because its entry function did not return:
 * from now on, as while tasks are abandoned, the stop frees nothing other threads may use and
 * the process ends with _exit. */
void cs_shutdown_set_exit_pending(void);
/* True once the process will end with _exit after its cleanup (exit pending, or tasks
 * abandoned): memory other threads may still use must not be freed. */
bool cs_shutdown_exit_pending(void);

/* Default of spark.task.reaper.killTimeout in cspark (Spark: -1, with the reaper off). */
#define CS_TASK_REAPER_DEFAULT_TIMEOUT "2s"
/* The task reaper's timeout from spark.task.reaper.enabled (default true in cspark, false in
 * Spark) and spark.task.reaper.killTimeout (a duration >= 0, or -1: never, as Spark): *out_ms is
 * -1 when tasks asked to stop are never ended by force. CS_EINVAL naming the key on a bad value. */
int cs_task_reaper_timeout(const cs_conf *conf, int64_t *out_ms, cs_error *err);

#endif
