/*
 * task_context.c — the task context of cspark.h (see task_context.h): the closure and ids a
 * user function reads, cspark_task_fail, the crash handler and its per-thread alternate stacks,
 * and reduce functions called on the driver (reduce and fold merge the partitions' results).
 */
#define _GNU_SOURCE
#include "exec/task_context.h"

#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/elf_symbols.h"
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

int cspark_task_resources(const cspark_task_context *tc, const cspark_resource **out)
{
    *out = tc->task->num_resources > 0 ? tc->task->resources : NULL;
    return tc->task->num_resources;
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

/* Who this process is ("driver", "executor 3") and where the application's .so is loaded: set
 * before any task runs, read by the handler. */
static char crash_process[64] = "process";
static uintptr_t app_start, app_end;

void cs_task_crash_set_process(const char *name)
{
    snprintf(crash_process, sizeof crash_process, "%s", name);
}

void cs_task_crash_set_app(void *handle)
{
    uintptr_t start, end;
    if (!cs_elf_object_range(handle, &start, &end)) return;
    app_end = 0; /* a handler running now sees no range rather than half of one */
    app_start = start;
    app_end = end;
}

static bool in_app(uintptr_t pc)
{
    return pc >= app_start && pc < app_end;
}

/* The text of one crash line, built without malloc or stdio (the handler's state is unknown). */
typedef struct crash_line {
    char s[1024];
    size_t n;
} crash_line;

static void put(crash_line *l, const char *text)
{
    for (; *text && l->n < sizeof l->s - 2; text++)
        l->s[l->n++] = *text;
}

static void put_hex(crash_line *l, uintptr_t v)
{
    char digits[2 * sizeof v + 3];
    size_t k = sizeof digits - 1;
    digits[k] = 0;
    do
        digits[--k] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) && k > 2);
    digits[--k] = 'x';
    digits[--k] = '0';
    put(l, digits + k);
}

/* "'fn' (+0x1f) in app.so", or "app.so+0x1139" when the function is unknown. */
static void put_location(crash_line *l, uintptr_t addr)
{
    cs_elf_location loc;
    if (!cs_elf_locate((const void *)addr, &loc)) {
        put(l, "address ");
        put_hex(l, addr);
        return;
    }
    if (loc.function[0]) {
        put(l, "'");
        put(l, loc.function);
        put(l, "' (+");
        put_hex(l, loc.offset);
        put(l, ") in ");
        put(l, loc.object);
    } else {
        put(l, loc.object);
        put(l, "+");
        put_hex(l, loc.offset);
    }
}

static uintptr_t fault_pc(const void *uc)
{
#if defined(__x86_64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc : 0;
#else
    (void)uc;
    return 0;
#endif
}

/* Which code faulted: the application's (the faulting instruction is in its .so), code the
 * application called (a frame of its .so is on the stack: libc's strlen on its bad pointer, a
 * cspark function given a bad argument), or cspark itself (no frame of the application). */
static void put_fault(crash_line *l, const void *uc)
{
    uintptr_t pc = fault_pc(uc);
    void *frames[64];
    int n = backtrace(frames, 64);
    uintptr_t caller = 0;
    for (int i = 0; i < n && !caller; i++)
        if (in_app((uintptr_t)frames[i]) && (uintptr_t)frames[i] != pc)
            caller = (uintptr_t)frames[i] - 1; /* a return address: the call is just before */
    if (pc && in_app(pc)) {
        put(l, "; the fault is in the application's code, at ");
        put_location(l, pc);
    } else if (caller) {
        put(l, "; the fault is in the application's code: at ");
        if (pc) put_location(l, pc);
        put(l, pc ? ", called from " : "a call from ");
        put_location(l, caller);
    } else {
        put(l, "; the fault is in cspark itself");
        if (pc) {
            put(l, ", at ");
            put_location(l, pc);
        }
    }
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    const char *name = sig == SIGSEGV   ? "SIGSEGV"
                       : sig == SIGBUS  ? "SIGBUS"
                       : sig == SIGFPE  ? "SIGFPE"
                       : sig == SIGILL  ? "SIGILL"
                       : sig == SIGABRT ? "SIGABRT"
                                        : "signal";
    crash_line line = {.n = 0};
    put(&line, "ERROR cspark ");
    put(&line, crash_process);
    put(&line, " crashed with ");
    put(&line, name);
    put(&line, crash_where[0] ? " in " : " outside any task");
    put(&line, crash_where);
    put_fault(&line, uc);
    line.s[line.n++] = '\n';
    cs_log_stop(); /* the report stays the last line */
    /* on a terminal the report starts on a line of its own, whatever was left on the last one
     * (the progress bar, the job's own output without a newline) */
    ssize_t w = isatty(STDERR_FILENO) ? write(STDERR_FILENO, "\n", 1) : 0;
    w = write(STDERR_FILENO, line.s, line.n);
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
    void *frame;
    backtrace(&frame, 1); /* loads the unwinder now: the handler must not be the first to */
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
