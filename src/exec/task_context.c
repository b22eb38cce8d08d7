/*
 * task_context.c — the task context of cspark.h (see task_context.h): the closure and ids a
 * user function reads, cspark_task_fail, the crash handler and its per-thread alternate stacks,
 * and reduce functions called on the driver (reduce and fold merge the partitions' results).
 */
#define _GNU_SOURCE
#include "exec/task_context.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/exit_cleanup.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "exec/task_vars.h"
#include "fs/shipped_files.h"

/* ---- task context (cspark.h) ------------------------------------------------------------- */

const void *cspark_closure(cspark_task_context *tc, size_t *len)
{
    const fn_ref *fn = tc ? tc->fn : NULL;
    if (len) *len = fn ? fn->closure_len : 0;
    return fn ? fn->closure : NULL;
}

int cspark_partition_id(const cspark_task_context *tc)
{
    return tc->task->partition;
}

int cspark_stage_id(const cspark_task_context *tc)
{
    return tc->task->stage_id;
}

const char *cspark_input_file_name(const cspark_task_context *tc)
{
    return tc && tc->input_file ? tc->input_file : "";
}

int cspark_attempt_number(const cspark_task_context *tc)
{
    return tc->task->attempt;
}

const char *cspark_files_get(cspark_task_context *tc, const char *name)
{
    (void)tc; /* files are fetched once per process (executor, or the driver in local mode) */
    return cs_files_lookup(name);
}

void cspark_task_fail(cspark_task_context *tc, const char *fmt, ...)
{
    bool out_of_memory = errno == ENOMEM; /* e.g. malloc failed under the executor's limit */
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    va_end(ap);
    const char *note = cs_memory_limit_note();
    char *with_note = NULL;
    if (msg && out_of_memory && note[0] && asprintf(&with_note, "%s (%s)", msg, note) > 0) {
        free(msg);
        msg = with_note;
    }
    free(tc->fail_msg);
    tc->fail_msg = msg;
    siglongjmp(tc->fail_jmp, 1);
}

/* ---- crash reporting --------------------------------------------------------------------- */

/* What the current thread is running, preformatted so the signal handler only calls write(). */
static __thread char crash_where[512];

void cs_task_context_leave(cspark_task_context *tc)
{
    (void)tc;
    crash_where[0] = 0;
}

void cs_task_context_enter(cspark_task_context *tc, const fn_ref *fn)
{
    tc->fn = fn;
    if (!fn) return;
    const task_desc *t = tc->task;
    snprintf(crash_where, sizeof crash_where,
             "task %lld (stage %d.%d, partition %d, attempt %d) in function '%s'",
             (long long)t->task_id, t->stage_id, t->stage_attempt, t->partition, t->attempt,
             fn->name ? fn->name : "?");
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
    char line[768];
    const char *name = sig == SIGSEGV   ? "SIGSEGV"
                       : sig == SIGBUS  ? "SIGBUS"
                       : sig == SIGFPE  ? "SIGFPE"
                       : sig == SIGILL  ? "SIGILL"
                       : sig == SIGABRT ? "SIGABRT"
                                        : "signal";
    size_t n = 0;
    const char *parts[] = {"ERROR cspark executor crashed with ", name, " in ",
                           crash_where[0] ? crash_where : "cspark itself (no task running)", "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t l = strlen(parts[i]);
        if (n + l >= sizeof line) l = sizeof line - 1 - n;
        memcpy(line + n, parts[i], l);
        n += l;
    }
    cs_log_stop(); /* the report stays the last line */
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
    cs_exit_cleanup_run(); /* the local directory and a half-written local output */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* exit() called while this thread runs a user function: in local mode that ends the driver, in
 * an executor the executor, so the call is named and the process ends with a non-zero status
 * (exit(0) included: the application did not finish) after removing what it wrote. exit() from
 * elsewhere (the job's entry function, cspark itself) only triggers the removal. */
static void exit_hook(int status, void *arg)
{
    (void)arg;
    if (crash_where[0]) {
        cs_log_stop(); /* the report stays the last line */
        fflush(NULL);
        char line[768];
        int n = snprintf(line, sizeof line,
                         "ERROR cspark %s ended the process with exit(%d): a user function must "
                         "return, or fail its task with cspark_task_fail\n",
                         crash_where, status);
        ssize_t w = write(STDERR_FILENO, line, n > 0 && n < (int)sizeof line ? (size_t)n : 0);
        (void)w;
        cs_exit_cleanup_run();
        _exit(status != 0 ? status : 1);
    }
    cs_exit_cleanup_run();
    cs_fd_reserve_release(); /* for what runs after (a leak checker needs a descriptor) */
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    on_exit(exit_hook, NULL);
}

void cs_task_install_crash_handlers(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_handlers);
}

static __thread void *own_altstack;
#define ALTSTACK_SIZE (64 * 1024)

void cs_task_thread_init(void)
{
    stack_t cur;
    if (own_altstack || (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)))
        return; /* this thread already has one (ours, or a sanitizer's) */
    void *p = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    stack_t ss = {.ss_sp = p, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) < 0) {
        munmap(p, ALTSTACK_SIZE);
        return;
    }
    own_altstack = p;
}

void cs_task_thread_fini(void)
{
    if (!own_altstack) return;
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    munmap(own_altstack, ALTSTACK_SIZE);
    own_altstack = NULL;
}

/* ---- reduce functions on the driver ------------------------------------------------------ */

int cs_task_context_fold(const fn_ref *fn, const cs_batch *parts, int n, cspark_value *acc,
                         bool *has, char **fail_msg)
{
    task_desc desc = {.partition = -1, .stage_id = -1};
    cspark_task_context *tc = cs_xcalloc(1, sizeof *tc);
    tc->task = &desc;
    tc->fn = fn;
    int rc = 0;
    *fail_msg = NULL;
    cs_task_set_current(tc); /* cspark_value_* fail the merge through it */
    if (sigsetjmp(tc->fail_jmp, 0) == 0) {
        for (int i = 0; i < n; i++) {
            if (!parts[i].n) continue;
            cspark_record r = batch_get(&parts[i], 0);
            if (!*has) {
                cspark_value_set(acc, r.value.ptr, r.value.len);
                *has = true;
            } else {
                ((cspark_reduce_fn)fn->ptr)(acc, r.value, tc);
            }
        }
    } else {
        rc = CS_ETASK;
        *fail_msg = tc->fail_msg ? tc->fail_msg : cs_xstrdup("failed");
        tc->fail_msg = NULL;
    }
    cs_task_set_current(NULL);
    cs_task_vars_finish(tc, NULL, false); /* the driver's merge adds to no accumulator */
    free(tc->fail_msg);
    free(tc);
    return rc;
}
