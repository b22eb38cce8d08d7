/* ui_api_process.c — the REST endpoints about an application's processes (see ui_api.h):
 * /executors/<id>/threads (Spark's ThreadStackTrace list) and /allmiscellaneousprocess (Spark's
 * ProcessSummary list).
 *
 * A thread dump is answered for the driver, the process serving the request: one entry per
 * thread of /proc/self/task, with the kernel's thread id, name (comm) and state, and as the only
 * stack element the kernel function the thread waits in (wchan), when it waits; cspark does not
 * unwind user stacks. Executors run in other processes (pods, or local-cluster children) whose
 * threads the driver cannot read, so their dump is Spark's "No thread dump is available." (404).
 * The history server has no processes to dump: Spark's 503. cspark runs no miscellaneous
 * processes (Spark's are those of plugins such as stage-level scheduling's), so that list is
 * empty. Called by ui_api.c with the store locked; no state.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_api.h"

/* The first line of /proc/self/task/<tid>/<file> without its newline into buf; false if none. */
static bool task_file(long tid, const char *file, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/%s", tid, file);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* Java's Thread.State nearest to the kernel's state letter: running is RUNNABLE, a sleep
 * (interruptible or not, idle, stopped) WAITING, a zombie TERMINATED. */
static const char *thread_state(char kernel_state)
{
    switch (kernel_state) {
    case 'R':
        return "RUNNABLE";
    case 'Z':
    case 'X':
        return "TERMINATED";
    default:
        return "WAITING";
    }
}

static json_t *thread_json(long tid)
{
    char stat[1024], name[64] = "", wchan[128] = "";
    if (!task_file(tid, "stat", stat, sizeof stat)) return NULL; /* it ended meanwhile */
    task_file(tid, "comm", name, sizeof name);
    /* after the last ')' of "tid (comm) ": state, then fields 4..; priority is field 18 */
    char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ') return NULL;
    char state = p[2];
    long priority = 0;
    char *f = p + 2;
    for (int field = 3; field < 18 && f; field++) {
        f = strchr(f, ' ');
        if (f) f++;
    }
    if (f) priority = strtol(f, NULL, 10);
    json_t *elems = json_array();
    if (task_file(tid, "wchan", wchan, sizeof wchan) && wchan[0] && strcmp(wchan, "0") != 0) {
        char elem[160];
        snprintf(elem, sizeof elem, "[kernel] %s\n", wchan);
        json_array_append_new(elems, json_string(elem));
    }
    return json_pack("{sI ss ss s{so} ss s[] s[] s[] sb sb sb sI}", "threadId", (json_int_t)tid,
                     "threadName", name, "threadState", thread_state(state), "stackTrace", "elems",
                     elems, "blockedByLock", "", "holdingLocks", "synchronizers", "monitors",
                     "suspended", state == 'T' || state == 't', "inNative", 1, "isDaemon", 0,
                     "priority", (json_int_t)priority);
}

static int by_number(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The driver's threads, by thread id. */
static json_t *own_threads(void)
{
    json_t *a = json_array();
    DIR *d = opendir("/proc/self/task");
    if (!d) return a;
    long *tids = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!isdigit((unsigned char)de->d_name[0])) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            long *grown = realloc(tids, cap * sizeof *tids);
            if (!grown) break;
            tids = grown;
        }
        tids[n++] = strtol(de->d_name, NULL, 10);
    }
    closedir(d);
    qsort(tids, n, sizeof *tids, by_number);
    for (size_t i = 0; i < n; i++) {
        json_t *t = thread_json(tids[i]);
        if (t) json_array_append_new(a, t);
    }
    free(tids);
    return a;
}

static int text(cs_sbuf *out, int status, const char *msg)
{
    cs_sbuf_puts(out, msg);
    cs_sbuf_putc(out, '\n');
    return status;
}

int cs_ui_api_threads(const ui_api_req *r, const char *executor_id, cs_sbuf *out)
{
    bool number = executor_id[0] != '\0';
    for (const char *c = executor_id; *c; c++)
        number = number && isdigit((unsigned char)*c);
    if (strcmp(executor_id, "driver") != 0 && !number)
        return text(out, 400, "Invalid executorId: neither 'driver' nor number.");
    if (!r->live) return text(out, 503, "Thread dumps not available through the history server.");
    const ui_executor *e = cs_ui_store_executor(r->st, executor_id);
    if (!e) return text(out, 404, "Executor does not exist.");
    if (!e->active) return text(out, 400, "Executor is not active.");
    if (strcmp(executor_id, "driver") != 0) return text(out, 404, "No thread dump is available.");
    cs_ui_api_dump(own_threads(), out);
    return 200;
}

int cs_ui_api_misc_processes(const ui_api_req *r, cs_sbuf *out)
{
    (void)r;
    cs_ui_api_dump(json_array(), out);
    return 200;
}
