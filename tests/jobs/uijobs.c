/* uijobs.c — applications for the web UI's tests (tests/browser/ui_browser.sh,
 * tests/integration/ui_*.sh). Each takes a directory of gate files the test creates when it has
 * looked at the UI, so that every state is seen for as long as the test needs, never for a fixed
 * time; every wait also gives up after a bounded time so a failed test cannot leave them behind.
 *
 *   ui_demo GATES: job 0 (stage 0: 8 map tasks that wait for GATES/go; stage 1: 3 reduce tasks),
 *     job 1 (the same shuffle counted again: stage 0 skipped, stage 2), job 2 (stage 3: 4 tasks
 *     that run ~40 s unless killed), then waits for GATES/exit. Prints one line per job.
 *   ui_crash GATES: one job whose tasks print to stdout and stderr; the first attempt of
 *     partition 1 crashes its executor (SIGSEGV) and is retried; then waits for GATES/exit.
 *   ui_storage GATES: range(0, 10000) in 4 partitions mapped through the named accumulator
 *     "records tagged" and persisted MEMORY_ONLY; range(0, 5000) in 3 partitions through "disk
 *     records" persisted DISK_ONLY; counts the first twice (the second from the cache) and the
 *     second once, prints "counts N N N tagged T disk D", waits for GATES/unpersist, unpersists
 *     the DISK_ONLY RDD, prints "unpersisted", then waits for GATES/exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

#define GATE_TIMEOUT_MS (300 * 1000)

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Waits until dir/name exists (or the timeout); true when it does. */
static bool wait_gate(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int waited = 0; waited < GATE_TIMEOUT_MS; waited += 50) {
        if (access(path, F_OK) == 0) return true;
        sleep_us(50 * 1000);
    }
    return false;
}

/* The first record of a partition waits for the gate (the closure's directory); key = i % 3. */
void gated_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const char *dir = cspark_closure(tc, &len);
    int64_t v = cspark_slice_i64(in->key);
    if (v % 100 == 0) wait_gate(dir, "go");
    uint8_t k[8];
    cspark_i64_encode(v % 3, k);
    cspark_emit(out, k, 8, in->key.ptr, 8);
}

/* 100 us per record: a batch (8192 records) takes about a second, so a kill is seen soon. */
void slow_record(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    (void)tc;
    sleep_us(100);
    cspark_emit_record(out, in);
}

int ui_demo(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ui_demo GATE_DIR\n");
        return 2;
    }
    const char *gates = argv[1];
    cspark_rdd *keyed =
        cspark_map(cspark_range(sc, 0, 800, 1, 8), gated_key, gates, strlen(gates) + 1);
    cspark_rdd *sums = cspark_reduce_by_key(keyed, cspark_sum_i64, NULL, 0, 3);
    int64_t n0 = 0, n1 = 0, n2 = 0;
    if (cspark_count(sums, &n0) < 0) return 1;
    printf("job0 count=%" PRId64 "\n", n0);
    fflush(stdout);
    if (cspark_count(sums, &n1) < 0) return 1;
    printf("job1 count=%" PRId64 "\n", n1);
    fflush(stdout);
    if (cspark_count(cspark_map(cspark_range(sc, 0, 8192 * 100, 1, 4), slow_record, NULL, 0), &n2) <
        0)
        printf("job2 failed: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "?");
    else
        printf("job2 count=%" PRId64 "\n", n2);
    fflush(stdout);
    if (!wait_gate(gates, "exit")) return 3;
    return 0;
}

/* Prints from the task; the first attempt of partition 1 crashes its process. */
void talk_then_crash(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_slice_i64(in->key) % 250 == 0) {
        printf("hello from task of partition %d attempt %d\n", cspark_partition_id(tc),
               cspark_attempt_number(tc));
        fprintf(stderr, "stderr line from partition %d\n", cspark_partition_id(tc));
        fflush(stdout);
        if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) == 0) raise(SIGSEGV);
    }
    cspark_emit_record(out, in);
}

int ui_crash(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ui_crash GATE_DIR\n");
        return 2;
    }
    int64_t n = 0;
    if (cspark_count(cspark_map(cspark_range(sc, 0, 1000, 1, 4), talk_then_crash, NULL, 0), &n) < 0)
        return 1;
    printf("count=%" PRId64 "\n", n);
    fflush(stdout);
    return wait_gate(argv[1], "exit") ? 0 : 3;
}

/* Adds 1 to the accumulator in the closure per record; keeps the record. */
void count_into(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const cspark_accumulator *acc = cspark_closure(tc, &len);
    cspark_long_accumulator_add(tc, *acc, 1);
    cspark_emit_record(out, in);
}

int ui_storage(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ui_storage GATE_DIR\n");
        return 2;
    }
    cspark_accumulator tagged = cspark_long_accumulator(sc, "records tagged");
    cspark_accumulator on_disk = cspark_long_accumulator(sc, "disk records");
    cspark_rdd *kept = cspark_persist(
        cspark_map(cspark_range(sc, 0, 10000, 1, 4), count_into, &tagged, sizeof tagged),
        CSPARK_MEMORY_ONLY);
    cspark_rdd *disk = cspark_persist(
        cspark_map(cspark_range(sc, 0, 5000, 1, 3), count_into, &on_disk, sizeof on_disk),
        CSPARK_DISK_ONLY);
    int64_t n0 = 0, n1 = 0, n2 = 0;
    if (!kept || !disk || cspark_count(kept, &n0) < 0 || cspark_count(kept, &n1) < 0 ||
        cspark_count(disk, &n2) < 0)
        return 1;
    printf("counts %" PRId64 " %" PRId64 " %" PRId64 " tagged %" PRId64 " disk %" PRId64 "\n", n0,
           n1, n2, cspark_long_accumulator_value(sc, tagged),
           cspark_long_accumulator_value(sc, on_disk));
    fflush(stdout);
    if (!wait_gate(argv[1], "unpersist")) return 3;
    if (cspark_unpersist(disk) < 0) return 1;
    printf("unpersisted\n");
    fflush(stdout);
    return wait_gate(argv[1], "exit") ? 0 : 3;
}
