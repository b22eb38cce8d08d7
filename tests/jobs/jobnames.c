/* jobnames.c — applications for the names of jobs and stages, job descriptions and job groups
 * (tests/integration/job_names.sh, job_group_cancel.sh).
 *
 *   job_names OUT GATES: eight jobs whose names the test checks in the event log and the REST
 *     API, then waits for GATES/exit (so the test can read the live UI):
 *       0 count (description "count the numbers"), 1 collect, 2 reduce (of the values),
 *       3 sort_by_key's sampling job over a reduce_by_key, 4 save_as_text_file of the sorted RDD
 *       called from save_totals(), 5 count of a join, 6 count in job group "nightly" (description
 *       "grouped count"), 7 first (after clear_job_group).
 *   job_group_cancel GATES: job 0 runs in job group "etl-42" with one task that waits in the
 *     job's own code; another thread of the driver cancels group "other" (no job of it runs),
 *     then group "etl-42" once the task has started, then lets the task go. Prints the action's
 *     result and the error, then runs one more job (outside the group); exits 0 when the first
 *     job was cancelled and the second ran.
 * Every wait gives up after a bounded time, so a failed test cannot leave them behind.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

#define GATE_TIMEOUT_MS (300 * 1000)

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Waits until dir/name exists (or the timeout); true when it does. */
static bool wait_gate(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int waited = 0; waited < GATE_TIMEOUT_MS; waited += 20) {
        if (access(path, F_OK) == 0) return true;
        sleep_ms(20);
    }
    return false;
}

static void touch_gate(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

/* key = value % 5, value 1 */
void key_mod5(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    (void)tc;
    uint8_t k[8], one[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 5, k);
    cspark_i64_encode(1, one);
    cspark_emit(out, k, 8, one, 8);
}

/* The job's own function that saves: the job is "save_as_text_file at jobnames.so:save_totals"
 * (not a tail call, so the call's return address is inside this function). */
int save_totals(cspark_rdd *sorted, const char *out)
{
    int rc = cspark_save_as_text_file(sorted, out);
    if (rc < 0) fprintf(stderr, "save_totals: %s failed\n", out);
    return rc;
}

int job_names(cspark_context *sc, int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: job_names OUT GATE_DIR\n");
        return 2;
    }
    cspark_rdd *nums = cspark_range(sc, 0, 100, 1, 4);
    int64_t n = 0;
    cspark_records *recs = NULL;
    void *sum = NULL;
    size_t sum_len = 0;

    cspark_set_job_description(sc, "count the numbers");
    if (cspark_count(nums, &n) < 0) return 1;
    cspark_set_job_description(sc, NULL);
    cspark_rdd *keyed = cspark_map(nums, key_mod5, NULL, 0);
    if (cspark_collect(keyed, &recs) < 0) return 1;
    printf("collect=%zu\n", cspark_records_count(recs));
    cspark_records_free(recs);
    if (cspark_reduce(keyed, cspark_sum_i64, NULL, 0, &sum, &sum_len) < 0) return 1;
    printf("reduce=%" PRId64 "\n", cspark_slice_i64((cspark_slice){sum, (uint32_t)sum_len}));
    free(sum);
    cspark_rdd *totals = cspark_reduce_by_key(keyed, cspark_sum_i64, NULL, 0, 3);
    cspark_rdd *sorted = cspark_sort_by_key(totals, true, 2); /* runs its sampling job */
    if (!sorted || save_totals(sorted, argv[1]) < 0) return 1;
    cspark_rdd *joined = cspark_join(keyed, totals, 2);
    if (cspark_count(joined, &n) < 0) return 1;
    printf("join=%" PRId64 "\n", n);
    cspark_set_job_group(sc, "nightly", "grouped count", false);
    if (cspark_count(nums, &n) < 0) return 1;
    cspark_clear_job_group(sc);
    if (cspark_first(nums, &recs) < 0) return 1;
    cspark_records_free(recs);
    printf("jobs done\n");
    fflush(stdout);
    return wait_gate(argv[2], "exit") ? 0 : 3;
}

/* Value 0's task says it started, then waits in the job's code until the test lets it go. */
void wait_for_release(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const char *gates = cspark_closure(tc, &len);
    if (cspark_slice_i64(in->key) == 0) {
        touch_gate(gates, "started");
        wait_gate(gates, "release");
    }
    cspark_emit_record(out, in);
}

typedef struct canceller {
    cspark_context *sc;
    const char *gates;
} canceller;

static void *cancel_group_when_started(void *arg)
{
    canceller *c = arg;
    cspark_cancel_job_group(c->sc, "other"); /* no job of it runs: nothing happens */
    if (wait_gate(c->gates, "started")) cspark_cancel_job_group(c->sc, "etl-42");
    touch_gate(c->gates, "release");
    return NULL;
}

int job_group_cancel(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: job_group_cancel GATE_DIR\n");
        return 2;
    }
    const char *gates = argv[1];
    cspark_set_job_group(sc, "etl-42", "nightly ETL", true);
    canceller c = {sc, gates};
    pthread_t t;
    if (pthread_create(&t, NULL, cancel_group_when_started, &c) != 0) return 2;
    cspark_rdd *slow =
        cspark_map(cspark_range(sc, 0, 4, 1, 2), wait_for_release, gates, strlen(gates) + 1);
    int64_t n = -1;
    int rc = cspark_count(slow, &n);
    pthread_join(t, NULL);
    if (rc < 0)
        printf("count failed: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "?");
    else
        printf("count=%" PRId64 "\n", n);
    /* as Spark's driver catching the cancellation: the next job runs (outside the group) */
    cspark_clear_job_group(sc);
    int64_t after = -1;
    int rc_after = cspark_count(cspark_range(sc, 0, 4, 1, 2), &after);
    printf("after the cancel: count=%" PRId64 " rc=%d\n", after, rc_after);
    fflush(stdout);
    return rc < 0 && rc_after == 0 ? 0 : 1;
}
