/*
 * testjobs.c — small jobs that exercise failure paths of the engine, built as
 * build/tests/jobs/testjobs.so and selected with --class. Used by tests/integration/faults_*.sh
 * and bad_input_*.sh; each entry prints one line the test checks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.h"

/* Fails the first two attempts of partition 1, then succeeds. */
void flaky_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) < 2)
        cspark_task_fail(tc, "flaky_map: planned failure of attempt %d", cspark_attempt_number(tc));
    cspark_emit_record(out, in);
}

int fail_twice(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    if (cspark_count(cspark_map(cspark_range(sc, 0, 1000, 1, 4), flaky_map, NULL, 0), &n) < 0) return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

void always_fail_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_task_fail(tc, "boom from always_fail_map (partition %d)", cspark_partition_id(tc));
}

int always_fail(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 100, 1, 2), always_fail_map, NULL, 0), &n);
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

void crash_here(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    volatile int *p = NULL;
    if (cspark_partition_id(tc) == 1) *p = 42; /* SIGSEGV */
    cspark_emit_record(out, in);
}

int segv(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    cspark_count(cspark_map(cspark_range(sc, 0, 100, 1, 2), crash_here, NULL, 0), &n);
    printf("not reached: %" PRId64 "\n", n);
    return 0;
}

static void hidden_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit_record(out, in);
}

int static_fn(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *r = cspark_map(cspark_range(sc, 0, 10, 1, 1), hidden_map, NULL, 0);
    printf("rdd=%s\n", r ? "created" : "refused");
    return r ? 0 : 1;
}

/* map must emit exactly one record. */
void emits_two(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit_record(out, in);
    cspark_emit_record(out, in);
}

int map_contract(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 10, 1, 1), emits_two, NULL, 0), &n);
    return rc < 0 ? 1 : 0;
}

/* Two jobs over the same shuffle: the second must not re-run the map stage. */
int shuffle_reuse(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *pairs = cspark_range(sc, 0, 10000, 1, 4);
    cspark_rdd *grouped = cspark_group_by_key(pairs, 3);
    int64_t a = 0, b = 0;
    if (cspark_count(grouped, &a) < 0 || cspark_count(grouped, &b) < 0) return 1;
    printf("counts=%" PRId64 ",%" PRId64 "\n", a, b);
    return 0;
}
