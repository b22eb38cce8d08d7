/*
 * s3jobs.c — jobs that save text while tasks fail, for tests/s3/s3a_commit.sh (build/tests/jobs/
 * s3jobs.so, selected with --class; the output path is argv[1]). Each saves 4,000 lines "i" over
 * 4 partitions, so a complete output is easy to check.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "cspark.h"

static int save_range(cspark_context *sc, cspark_map_fn fn, const char *out)
{
    cspark_rdd *r = cspark_map(cspark_range(sc, 0, 4000, 1, 4), fn, NULL, 0);
    return cspark_save_as_text_file(r, out) < 0 ? 1 : 0;
}

static void emit_number(const cspark_record *in, cspark_emitter *out)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)cspark_i64_decode(in->key.ptr));
    cspark_emit(out, buf, (uint32_t)n, NULL, 0);
}

/* The first attempt of partition 1 fails half-way through its part. */
void fail_mid_part(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) == 0 &&
        cspark_i64_decode(in->key.ptr) == 1500)
        cspark_task_fail(tc, "fail_mid_part: planned failure");
    emit_number(in, out);
}

int save_retried(cspark_context *sc, int argc, char **argv)
{
    return argc < 2 ? 2 : save_range(sc, fail_mid_part, argv[1]);
}

/* The first attempt of partition 1 kills its process half-way (an executor in local-cluster). */
void crash_mid_part(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) == 0 &&
        cspark_i64_decode(in->key.ptr) == 1500)
        raise(SIGKILL);
    emit_number(in, out);
}

int save_crash_once(cspark_context *sc, int argc, char **argv)
{
    return argc < 2 ? 2 : save_range(sc, crash_mid_part, argv[1]);
}

/* Partition 3 fails every attempt (after the others have written their parts). */
void fail_partition_3(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 3 && cspark_i64_decode(in->key.ptr) == 3999)
        cspark_task_fail(tc, "fail_partition_3: planned failure");
    emit_number(in, out);
}

int save_fails(cspark_context *sc, int argc, char **argv)
{
    return argc < 2 ? 2 : save_range(sc, fail_partition_3, argv[1]);
}

/* Slow enough (about 4 s per partition) to stop the S3 server while the job writes. */
void slow_number(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    (void)tc;
    if (cspark_i64_decode(in->key.ptr) % 100 == 0) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    emit_number(in, out);
}

int save_slow(cspark_context *sc, int argc, char **argv)
{
    return argc < 2 ? 2 : save_range(sc, slow_number, argv[1]);
}
