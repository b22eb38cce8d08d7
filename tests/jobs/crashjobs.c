/*
 * crashjobs.c — jobs whose own code misuses the API or crashes, on the driver or in a task, built
 * as build/tests/jobs/crashjobs.so and selected with --class; used by
 * tests/integration/crash_report_names_process.sh and readme_example_empty_input.sh to check
 * what the user is told: which call was wrong, which process crashed, and whether the fault is
 * in the application's code. (A crash in a task: testjobs.so's segv.)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cspark.h"

/* cspark_records_get(r, 0) on the empty result of a collect (the README example's mistake). */
int records_out_of_range(cspark_context *sc, int argc, char **argv)
{
    cspark_records *r;
    if (cspark_collect(cspark_range(sc, 0, 0, 1, 2), &r) < 0) return 1;
    cspark_record first = cspark_records_get(r, 0);
    printf("not reached: %u bytes\n", (unsigned)first.key.len);
    cspark_records_free(r);
    return 0;
}

/* A NULL dereference in the job's own code on the driver, outside any task. */
__attribute__((noinline)) void deref_null_in_driver(volatile int *p)
{
    *p = 42;
}

int segv_in_driver(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    if (cspark_count(cspark_range(sc, 0, 10, 1, 2), &n) < 0) return 1;
    deref_null_in_driver(NULL);
    printf("not reached: %" PRId64 "\n", n);
    return 0;
}

/* The job passes a bad pointer to libc: the fault is in strlen, called from the job's code. */
__attribute__((noinline)) size_t bad_strlen_in_driver(const char *s)
{
    return strlen(s) + 1;
}

int libc_fault_from_driver(cspark_context *sc, int argc, char **argv)
{
    volatile uintptr_t bad = 16;
    printf("not reached: %zu\n", bad_strlen_in_driver((const char *)bad));
    return 0;
}
