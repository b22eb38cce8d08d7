/*
 * user_symbols.c — a job whose own functions carry the names libcspark's internals once had
 * (master_parse, conf_get, batch_init, rdd_free, task_run). libcspark exports only its public
 * API, so each call here must reach the job's own definition on the driver and in tasks, on
 * every master. Prints "master_parse=N rdd_free=N" and one "word sum" line per key; used by
 * tests/integration/user_symbols.sh and tests/k8s/user_symbols.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.h"

static int freed;

int master_parse(const char *s)
{
    return (int)strlen(s) * 7;
}

const char *conf_get(int64_t i)
{
    static const char *const words[] = {"alpha", "beta", "gamma"};
    return words[i % 3];
}

int64_t batch_init(int64_t v)
{
    return v * 3 + 1;
}

void rdd_free(void *p)
{
    (void)p;
    freed++;
}

/* A map function named like the executor's former task runner: resolved by name on executors. */
void task_run(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    int64_t v = cspark_slice_i64(in->key);
    const char *word = conf_get(v);
    uint8_t value[8];
    cspark_i64_encode(batch_init(v), value);
    cspark_emit(out, word, strlen(word), value, 8);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 1000;
    cspark_rdd *sums = cspark_reduce_by_key(
        cspark_map(cspark_range(sc, 0, n, 1, 4), task_run, NULL, 0), cspark_sum_i64, NULL, 0, 2);
    cspark_records *r = NULL;
    if (cspark_collect(sums, &r) < 0) return 1;
    rdd_free(r);
    printf("master_parse=%d rdd_free=%d\n", master_parse("local[2]"), freed);
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_record rec = cspark_records_get(r, i);
        printf("%.*s %" PRId64 "\n", (int)rec.key.len, (const char *)rec.key.ptr,
               cspark_slice_i64(rec.value));
    }
    cspark_records_free(r);
    return 0;
}
