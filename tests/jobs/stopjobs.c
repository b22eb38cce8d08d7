/*
 * stopjobs.c — jobs whose tasks ignore being killed, for the stop tests (tests/fault/stop_*.sh,
 * tests/k8s/stop_*.sh) and bench/stop_latency.sh; built as build/tests/jobs/stopjobs.so
 * and selected with --class. Each task first creates DIR/started-<partition> (DIR is shared with
 * executors: a local path, a hostPath volume on Kubernetes) so a test knows tasks are running,
 * then blocks in user code without ever looking at its cancellation:
 *   stuck DIR [SECONDS]            8 tasks sleeping SECONDS (default 600) each
 *   stuck_save DIR OUT [SECONDS]   the same, saving to OUT (whose _temporary must not stay)
 *   spin DIR                       8 tasks in an endless loop
 *   fifo DIR FIFO OUT              8 tasks blocked opening FIFO for reading (no writer comes)
 *   abort_stuck DIR                partition 0 fails every attempt once partition 1 runs (the
 *                                  job aborts) while the other 7 sleep 600 s
 *   main_sleeps DIR                no task: the entry function sleeps 600 s in driver code
 *   abort_linger DIR               2 tasks: partition 0 fails once partition 1 runs; partition 1
 *                                  ignores its kill until the job has failed, then reads its task
 *                                  context once more and writes what it read into
 *                                  DIR/read-after-abort (the entry function waits for it)
 * Each prints "count=N" if its job ever finishes (it should not).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

#define TASKS 8

typedef struct stuck_args {
    char dir[PATH_MAX];
    char fifo[PATH_MAX];
    int seconds;  /* sleep this long; 0: spin forever */
    int fail_one; /* partition 0 fails every attempt */
} stuck_args;

/* Creates the empty file DIR/NAME. */
static void touch(const char *dir, const char *name)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) close(fd);
}

/* Waits until DIR/NAME exists, polling every 50 ms, `seconds` at most. */
static void wait_for_file(const char *dir, const char *name, int seconds)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int i = 0; i < seconds * 20 && access(path, F_OK) != 0; i++) {
        struct timespec ts = {0, 50000000L};
        nanosleep(&ts, NULL);
    }
}

static void mark_started(const stuck_args *a, cspark_task_context *tc)
{
    char name[32];
    snprintf(name, sizeof name, "started-%d", cspark_partition_id(tc));
    touch(a->dir, name);
}

void stop_stuck_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const stuck_args *a = cspark_closure(tc, &len);
    if (len != sizeof *a) {
        cspark_task_fail(tc, "stop_stuck_map: bad closure");
        return;
    }
    if (a->fail_one && cspark_partition_id(tc) == 0) {
        /* once partition 1 runs (at most 60 s): the abort then finds a task stuck */
        wait_for_file(a->dir, "started-1", 60);
        cspark_task_fail(tc, "stop_stuck_map: partition 0 always fails");
        return;
    }
    mark_started(a, tc);
    if (a->fifo[0]) { /* blocks in open(2) until a writer comes: none does */
        int fd = open(a->fifo, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) close(fd);
    } else if (a->seconds > 0) {
        struct timespec ts = {a->seconds, 0};
        while (nanosleep(&ts, &ts) != 0) /* a signal does not shorten it */
            ;
    } else {
        for (volatile uint64_t spin = 0;; spin++)
            ;
    }
    cspark_emit_record(out, in);
}

static int run(cspark_context *sc, stuck_args *a, const char *out)
{
    cspark_rdd *rdd =
        cspark_map(cspark_range(sc, 0, TASKS, 1, TASKS), stop_stuck_map, a, sizeof *a);
    if (out) return cspark_save_as_text_file(rdd, out) < 0 ? 1 : 0;
    int64_t n = 0;
    if (cspark_count(rdd, &n) < 0) return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

static int init(stuck_args *a, int argc, char **argv, int need)
{
    memset(a, 0, sizeof *a);
    if (argc < need + 1) {
        fprintf(stderr, "stopjobs: expected %d arguments\n", need);
        return -1;
    }
    snprintf(a->dir, sizeof a->dir, "%s", argv[1]);
    a->seconds = 600;
    return 0;
}

int stuck(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 1) < 0) return 2;
    if (argc > 2) a.seconds = atoi(argv[2]);
    return run(sc, &a, NULL);
}

int stuck_save(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 2) < 0) return 2;
    if (argc > 3) a.seconds = atoi(argv[3]);
    return run(sc, &a, argv[2]);
}

int spin(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 1) < 0) return 2;
    a.seconds = 0;
    return run(sc, &a, NULL);
}

int fifo(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 3) < 0) return 2;
    snprintf(a.fifo, sizeof a.fifo, "%s", argv[2]);
    return run(sc, &a, argv[3]);
}

int abort_stuck(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 1) < 0) return 2;
    a.fail_one = 1;
    return run(sc, &a, NULL);
}

/* main_sleeps DIR: the entry function itself sleeps 600 s (outside any job) once the context
 * runs; creates DIR/started-0 first. */
int main_sleeps(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) return 2;
    touch(argv[1], "started-0");
    touch(argv[1], "started-1");
    struct timespec ts = {600, 0};
    while (nanosleep(&ts, &ts) != 0)
        ;
    return 0;
}

/* abort_linger's task: partition 0 fails at once partition 1 runs; partition 1 waits for
 * DIR/released (the entry function creates it once the job has failed, the reaper having given
 * up on this task), then reads its context again: it must still be valid. */
void linger_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const stuck_args *a = cspark_closure(tc, &len);
    if (cspark_partition_id(tc) == 0) {
        wait_for_file(a->dir, "started-1", 60);
        cspark_task_fail(tc, "linger_map: partition 0 always fails");
        return;
    }
    mark_started(a, tc);
    wait_for_file(a->dir, "released", 120);
    char path[PATH_MAX + 32], line[128];
    int n = snprintf(line, sizeof line, "partition=%d stage=%d attempt=%d\n",
                     cspark_partition_id(tc), cspark_stage_id(tc), cspark_attempt_number(tc));
    snprintf(path, sizeof path, "%s/read-after-abort.tmp", a->dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fwrite(line, 1, (size_t)n, f);
        fclose(f);
        char done[PATH_MAX + 32];
        snprintf(done, sizeof done, "%s/read-after-abort", a->dir);
        rename(path, done);
    }
    cspark_emit_record(out, in);
}

int abort_linger(cspark_context *sc, int argc, char **argv)
{
    stuck_args a;
    if (init(&a, argc, argv, 1) < 0) return 2;
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 2, 1, 2), linger_map, &a, sizeof a), &n);
    printf("rc=%d\n", rc);
    touch(a.dir, "released");
    wait_for_file(a.dir, "read-after-abort", 120);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/read-after-abort", a.dir);
    FILE *f = fopen(path, "r");
    char line[128] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        fclose(f);
    }
    printf("read after abort: %s", line[0] ? line : "nothing\n");
    return rc < 0 ? 1 : 0;
}
