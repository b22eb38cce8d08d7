/*
 * badjobs.c — jobs that misbehave the way user code does, built as build/tests/jobs/badjobs.so
 * and selected with --class: a task that ends the process (exit, abort), a NULL RDD given to an
 * action, a task that exhausts file descriptors, a task that allocates far beyond its
 * executor's memory, a save over a huge default parallelism. Used by
 * tests/integration/user_exit_in_task.sh, null_rdd_error.sh, fd_exhaustion_shutdown.sh,
 * local_cluster_limits.sh and bad_input_table.sh. copy_text copies a text input for the
 * input and output cases of bad_input_table.sh. broken_pipe writes to a closed pipe in the driver
 * and in tasks (broken_pipe.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

/* Partition 1 ends the process as the closure says: "abort", "sigkill" (raise(SIGKILL), as the
 * kernel's OOM killer would), or an exit status ("0", "3"). */
void end_process(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len = 0;
    const char *how = cspark_closure(tc, &len);
    if (cspark_partition_id(tc) == 1) {
        if (strncmp(how, "abort", len) == 0) abort();
        if (strncmp(how, "sigkill", len) == 0) raise(SIGKILL);
        exit(atoi(how));
    }
    cspark_emit_record(out, in);
}

/* argv[1]: how partition 1 ends the process; argv[2] (optional): an output directory, so the
 * job is writing when the process ends. */
int exit_in_task(cspark_context *sc, int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "0";
    cspark_rdd *r = cspark_map(cspark_range(sc, 0, 100, 1, 2), end_process, how, strlen(how) + 1);
    int rc;
    if (argc > 2) {
        rc = cspark_save_as_text_file(r, argv[2]);
    } else {
        int64_t n = 0;
        rc = cspark_count(r, &n);
    }
    printf("not reached: rc=%d\n", rc);
    return 0;
}

/* An action on a NULL RDD: the error names the action, never "(null)". */
int null_rdd(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    cspark_rdd *none = NULL;
    int rc = cspark_count(none, &n);
    printf("rc=%d error=%s\n", rc, cspark_last_error(sc));
    return rc < 0 ? 1 : 0;
}

/* A transformation of a NULL RDD, then an action on its NULL result: the first call is named. */
int null_rdd_chain(cspark_context *sc, int argc, char **argv)
{
    cspark_records *out = NULL;
    int rc = cspark_collect(cspark_distinct(NULL, 2), &out);
    printf("rc=%d error=%s\n", rc, cspark_last_error(sc));
    cspark_records_free(out);
    return rc < 0 ? 1 : 0;
}

/* Two refused transformations in a row: cspark_last_error tells the latest (it used to tell the
 * first), and the application's last line the first, the failure that failed the context. */
int two_errors(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *r = cspark_range(sc, 0, 10, 1, 2);
    cspark_coalesce(r, -1);
    printf("first: %s\n", cspark_last_error(sc));
    cspark_repartition(r, -2);
    printf("latest: %s\n", cspark_last_error(sc));
    return 1;
}

/* Opens /dev/null until the process runs out of descriptors (they stay open, as a leaking user
 * function's would), then fails the task. */
void leak_fds(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    int n = 0;
    while (open("/dev/null", O_RDONLY) >= 0)
        n++;
    cspark_task_fail(tc, "leak_fds: out of file descriptors after %d: %s", n, strerror(errno));
}

int fd_exhaustion(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 10, 1, 1), leak_fds, NULL, 0), &n);
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

/* Allocates and touches the closure's number of MiB, as a task that outgrows its executor. */
void grow(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const int64_t *mib = cspark_closure(tc, NULL);
    size_t bytes = (size_t)*mib << 20;
    char *p = malloc(bytes);
    if (!p) cspark_task_fail(tc, "grow: cannot allocate %" PRId64 " MiB", *mib);
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    free(p);
    cspark_emit_record(out, in);
}

/* argv[1]: MiB each task allocates. */
int over_allocate(cspark_context *sc, int argc, char **argv)
{
    int64_t mib = argc > 1 ? atoll(argv[1]) : 1024, n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 2, 1, 2), grow, &mib, sizeof mib), &n);
    printf("rc=%d count=%" PRId64 "\n", rc, n);
    return rc < 0 ? 1 : 0;
}

/* Saves a tiny range with the default parallelism into argv[1]. */
int save_default_parallelism(cspark_context *sc, int argc, char **argv)
{
    int rc = cspark_save_as_text_file(cspark_range(sc, 0, 10, 1, 0), argc > 1 ? argv[1] : "out");
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

/* Partition 1 lingers a second per record; partition 0 waits until partition 1 is running (both
 * run in one process under local[2]) and then fails. When the job is aborted after partition 0's
 * last attempt, partition 1 is certainly running, with many records still ahead of it, and is
 * killed: the outcome does not depend on which task the scheduler started first or how loaded
 * the machine is. The wait for the sibling is bounded so that a broken scheduler fails the test
 * rather than hanging it. */
static atomic_int sibling_running;

void fail_or_linger(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 0) {
        for (int waited_ms = 0; !atomic_load(&sibling_running) && waited_ms < 120000;
             waited_ms += 10)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        cspark_task_fail(tc, "fail_or_linger: planned failure");
    }
    atomic_store(&sibling_running, 1);
    nanosleep(&(struct timespec){1, 0}, NULL);
    cspark_emit_record(out, in);
}

int kill_sibling(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 120, 1, 2), fail_or_linger, NULL, 0), &n);
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

/* copy_text IN OUT: IN's lines saved into OUT; prints nothing, so that an input or output
 * error reaches the console as cspark-submit's one line only. */
int copy_text(cspark_context *sc, int argc, char **argv)
{
    if (argc < 3) return 2;
    return cspark_save_as_text_file(cspark_text_file(sc, argv[1], 0), argv[2]) < 0 ? 1 : 0;
}

/* huge_slices OUT: a range asked for 100,000,000 slices, saved into OUT. */
int huge_slices(cspark_context *sc, int argc, char **argv)
{
    int rc =
        cspark_save_as_text_file(cspark_range(sc, 0, 10, 1, 100000000), argc > 1 ? argv[1] : "out");
    return rc < 0 ? 1 : 0;
}

/* One byte written to a pipe whose reading end is closed: "EPIPE" when the write failed as a
 * write to a gone peer should, "wrote" otherwise (a process that SIGPIPE ends prints nothing). */
static const char *write_to_closed_pipe(void)
{
    int p[2];
    if (pipe(p) < 0) return "no-pipe";
    close(p[0]);
    ssize_t w = write(p[1], "x", 1);
    int e = errno;
    close(p[1]);
    return w < 0 && e == EPIPE ? "EPIPE" : "wrote";
}

/* SIGPIPE's disposition in a program this process starts: "default" or "ignored" (from its
 * SigIgn mask in /proc: an ignored disposition is inherited across exec, a handler is not). */
static const char *child_sigpipe(void)
{
    FILE *f = popen("cat /proc/self/status", "r");
    if (!f) return "no-child";
    char line[256];
    const char *r = "unknown";
    unsigned long long mask;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SigIgn: %llx", &mask) == 1)
            r = mask & (1ULL << (SIGPIPE - 1)) ? "ignored" : "default";
    pclose(f);
    return r;
}

void broken_pipe_in_task(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const char *r = write_to_closed_pipe(), *child = child_sigpipe();
    cspark_emit(out, r, strlen(r), child, strlen(child));
}

/* A broken pipe in the driver's code and in each of two tasks (in the executors on a cluster):
 * prints "driver=EPIPE tasks=EPIPE,EPIPE children=default,default" when every write failed with
 * EPIPE, no process died of SIGPIPE, and a program a task starts has SIGPIPE's default action. */
int broken_pipe(cspark_context *sc, int argc, char **argv)
{
    printf("driver=%s", write_to_closed_pipe());
    fflush(stdout);
    cspark_records *res = NULL;
    int rc = cspark_collect(
        cspark_flat_map(cspark_range(sc, 0, 2, 1, 2), broken_pipe_in_task, NULL, 0), &res);
    if (rc < 0) {
        printf(" error=%s\n", cspark_last_error(sc));
        return 1;
    }
    printf(" tasks=");
    for (size_t i = 0; i < cspark_records_count(res); i++) {
        cspark_record r = cspark_records_get(res, i);
        printf("%s%.*s", i ? "," : "", (int)r.key.len, (const char *)r.key.ptr);
    }
    printf(" children=");
    for (size_t i = 0; i < cspark_records_count(res); i++) {
        cspark_record r = cspark_records_get(res, i);
        printf("%s%.*s", i ? "," : "", (int)r.value.len, (const char *)r.value.ptr);
    }
    printf("\n");
    cspark_records_free(res);
    return 0;
}
