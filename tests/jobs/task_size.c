/*
 * task_size.c — a job for the task size guard (issue 10 item 3, issue 13 item 4), built as
 * build/tests/jobs/task_size.so and used by tests/fault/task_size_guard.sh.
 * big_closure MIB: counts 16 records (4 partitions) through a map whose closure carries MIB MiB
 * and prints "count=N"; each task checks the closure's last byte arrived intact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cspark.h"

void intact_closure(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const unsigned char *blob = cspark_closure(tc, &len);
    if (len && blob[len - 1] != 0x7e) cspark_task_fail(tc, "the closure arrived damaged");
    cspark_emit_record(out, in);
}

int big_closure(cspark_context *sc, int argc, char **argv)
{
    size_t len = (size_t)(argc > 1 ? atol(argv[1]) : 2) << 20;
    unsigned char *blob = calloc(len ? len : 1, 1);
    if (!blob) return 1;
    if (len) blob[len - 1] = 0x7e;
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 16, 1, 4), intact_closure, blob, len), &n);
    free(blob);
    if (rc < 0) return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}
