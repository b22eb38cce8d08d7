/*
 * task_context.h — the task context user functions see (cspark_task_context of cspark.h): the
 * running task, the function being called with its closure, the task's execution memory, and
 * the way out of a task (cspark_task_fail jumps back to the runner). Also the crash handler that
 * names the task and function a SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT hit or that called exit(),
 * and the per-thread alternate signal stacks it runs on.
 *
 * Threads: a context lives on one task thread; cs_task_context_enter records, per thread, what
 * the crash handler prints. cs_task_install_crash_handlers is process-wide (idempotent); every
 * thread that runs tasks calls cs_task_thread_init first and cs_task_thread_fini before it exits.
 * Ownership: the runner that creates a context frees it (and fail_msg); fn is borrowed.
 */
#ifndef CSPARK_EXEC_TASK_CONTEXT_H
#define CSPARK_EXEC_TASK_CONTEXT_H

#include <setjmp.h>
#include <stdbool.h>

#include "common/current_task.h"
#include "exec/task.h"
#include "shuffle/memory.h"

struct cspark_task_context {
    const task_desc *task;
    const exec_env *env;
    const fn_ref *fn;    /* the function being called (closure, name for crash reports) */
    cs_task_memory mem;  /* this task's execution memory */
    sigjmp_buf fail_jmp; /* cspark_task_fail jumps here */
    char *fail_msg;      /* set by cspark_task_fail (malloc'd) */
    task_result *result;
    struct task_vars *vars; /* broadcasts read, accumulators added to (task_vars.h); NULL: none */
    const char *input_file; /* the file the current records come from (borrowed), or NULL */
};

/* The current function of a task thread, for the closure and crash reports (set around user
 * calls; NULL between them). */
void cs_task_context_enter(cspark_task_context *tc, const fn_ref *fn);
/* The task thread is done with tc: crash reports no longer name it. */
void cs_task_context_leave(cspark_task_context *tc);

/* Folds the first record's value of each of the n batches (empty ones skipped) into *acc with
 * the reduce function fn, on the calling thread (the driver, for reduce and fold): *has says
 * whether acc holds a value. 0, or CS_ETASK with *fail_msg (malloc'd) when fn called
 * cspark_task_fail. */
int cs_task_context_fold(const fn_ref *fn, const cs_batch *parts, int n, cspark_value *acc,
                         bool *has, char **fail_msg);

/* Crash reporting: installs SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT handlers that print which task
 * and function crashed before the process dies, and an exit hook that names a task whose user
 * function called exit() and makes that end non-zero; both remove the trees registered with
 * cs_exit_cleanup_add (common/exit_cleanup.h). Idempotent. */
void cs_task_install_crash_handlers(void);
/* What the crash report calls this process ("driver", "executor 3"); copied. */
void cs_task_crash_set_process(const char *name);
/* The application's .so (its dlopen handle): a crash whose faulting instruction, or a caller on
 * the crashing thread's stack, is in it is reported as a fault in the application's code, with the
 * function named from the .so's symbol table (common/elf_symbols.h). Call after dlopen, before
 * tasks run. */
void cs_task_crash_set_app(void *handle);
void cs_task_thread_init(void);
void cs_task_thread_fini(void); /* before a thread that called cs_task_thread_init exits */

#endif
