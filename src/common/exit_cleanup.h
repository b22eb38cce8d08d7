/*
 * exit_cleanup.h — the directories a process removes when it ends without stopping cleanly: a
 * crash in a user function (SIGSEGV, SIGBUS, SIGABRT, ...) or a user function that calls exit()
 * inside a task. The driver registers its local directory while the context lives and each
 * local output directory while a job writes it; the executor its local directory. The task
 * crash and exit hooks (src/exec/task_context.c) call cs_exit_cleanup_run, so nothing of a
 * dead application stays behind; a clean stop unregisters and removes as usual.
 *
 * Threads: add/remove from any thread; cs_exit_cleanup_run is async-signal-safe (raw system
 * calls only, no allocation) and may run in a signal handler. At most CS_EXIT_CLEANUP_MAX paths
 * are registered at once; paths are copied.
 */
#ifndef CSPARK_COMMON_EXIT_CLEANUP_H
#define CSPARK_COMMON_EXIT_CLEANUP_H

#include <stdbool.h>

#define CS_EXIT_CLEANUP_MAX 32

/* Registers `path` (a directory tree this process created) for removal on an abnormal end.
 * Silently not registered when the table is full or the path too long. */
void cs_exit_cleanup_add(const char *path);
/* Unregisters `path` (one registration of it). */
void cs_exit_cleanup_remove(const char *path);
/* Removes every registered tree (depth-first, without following symbolic links) and empties
 * the table. Async-signal-safe. It first marks the process as ending and waits (200 ms at most)
 * for threads inside cs_exit_cleanup_enter/leave: another task's thread creating its output
 * under a tree while the tree is removed would otherwise leave the tree behind. */
void cs_exit_cleanup_run(void);
/* Around the creation of directories and files under a registered tree (a task's output):
 * enter returns false once the process is ending (create nothing then); every true is paired
 * with one leave. */
bool cs_exit_cleanup_enter(void);
void cs_exit_cleanup_leave(void);

#endif
