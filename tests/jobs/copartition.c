/*
 * copartition.c — an iterative join over a partitioned, cached RDD, for
 * tests/integration/copartitioned_join.sh (issue 20, item 10).
 *
 * iterate MODE PAGES ITERS PARTS OUTDIR: links = PAGES records ("p<number>", a 512-byte value
 * whose first 8 bytes are a weight, then random bytes: they do not compress), cached; ranks start
 * at 1.0 for every page in 3 partitions of their own. Each iteration is ranks =
 * links.join(ranks).map(page -> 0.5 * rank + weight): a plain map, so the new ranks have no
 * partitioner and the next join must shuffle them. MODE "partitioned" builds links with
 * partition_by(page number mod PARTS) as Spark's SparkPageRank builds its links with
 * partitionBy(HashPartitioner): the joins reuse that partitioner and read links narrowly, so links
 * are shuffled once in the whole job. MODE "shuffled" builds links without a partitioner (the same
 * records and partitions): every join shuffles both sides. The final ranks are saved as
 * "page<TAB>rank" lines (%.9f); "copartition: iteration N done" goes to stderr after each
 * iteration's count (tests/fault/kill_executor_copartitioned.sh kills an executor then). With
 * COPARTITION_PAUSE_AFTER=N and COPARTITION_GATE=FILE in the environment, the driver waits after
 * iteration N until FILE exists (at most 300 s), so that a test acts between two jobs without
 * racing the next ones.
 */
#include <cspark.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINK_VALUE_BYTES 512

/* page numbers from "p<number>" */
static long page_number(cspark_slice key)
{
    char digits[24];
    size_t len = key.len > 1 && key.len - 1 < sizeof digits ? key.len - 1 : 0;
    memcpy(digits, key.ptr + 1, len);
    digits[len] = 0;
    return strtol(digits, NULL, 10);
}

/* partition_by: page number mod n */
int cp_page_mod(cspark_slice key, int n, cspark_task_context *tc)
{
    return (int)(page_number(key) % n);
}

/* range number i -> ("p<i>", weight (i % 7) / 10 followed by padding) */
void cp_link(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    char key[24];
    int64_t i = cspark_i64_decode(in->key.ptr);
    int klen = snprintf(key, sizeof key, "p%lld", (long long)i);
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, (size_t)klen, LINK_VALUE_BYTES, &v);
    memcpy(k, key, (size_t)klen);
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL + 1; /* padding that does not compress */
    for (int b = 0; b < LINK_VALUE_BYTES; b++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[b] = (uint8_t)x;
    }
    cspark_f64_encode((double)(i % 7) / 10.0, v);
}

/* range number i -> ("p<i>", 1.0) */
void cp_rank(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    char key[24];
    int klen = snprintf(key, sizeof key, "p%lld", (long long)cspark_i64_decode(in->key.ptr));
    uint8_t v[8];
    cspark_f64_encode(1.0, v);
    cspark_emit(out, key, (size_t)klen, v, sizeof v);
}

/* (page, pair(link value, rank)) -> (page, 0.5 * rank + weight) */
void cp_step(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice link, rank;
    if (!cspark_pair_split(in->value, &link, &rank) || link.len < 8 || rank.len != 8)
        cspark_task_fail(tc, "copartition: malformed join value");
    uint8_t v[8];
    cspark_f64_encode(0.5 * cspark_f64_decode(rank.ptr) + cspark_f64_decode(link.ptr), v);
    cspark_emit(out, in->key.ptr, in->key.len, v, sizeof v);
}

/* (page, rank) -> "page\trank" */
void cp_format(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%.*s\t%.9f", (int)in->key.len, (const char *)in->key.ptr,
                     cspark_slice_f64(in->value));
    cspark_emit(out, line, (size_t)n, NULL, 0);
}

/* COPARTITION_PAUSE_AFTER / COPARTITION_GATE: waits for the gate file after iteration `done`. */
static void pause_at_gate(long done)
{
    const char *after = getenv("COPARTITION_PAUSE_AFTER"), *gate = getenv("COPARTITION_GATE");
    if (!after || !gate || atol(after) != done) return;
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 30000 && access(gate, F_OK) != 0; i++)
        nanosleep(&tick, NULL);
}

int iterate(cspark_context *sc, int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[1], "partitioned") != 0 && strcmp(argv[1], "shuffled") != 0)) {
        fprintf(stderr, "usage: copartition.so --class iterate partitioned|shuffled PAGES ITERS "
                        "PARTS OUTDIR\n");
        return 2;
    }
    long pages = atol(argv[2]), iters = atol(argv[3]);
    int parts = atoi(argv[4]);
    cspark_rdd *links = cspark_map(cspark_range(sc, 0, pages, 1, parts), cp_link, NULL, 0);
    if (strcmp(argv[1], "partitioned") == 0)
        links = cspark_partition_by(links, cp_page_mod, NULL, 0, parts);
    cspark_cache(links);
    cspark_rdd *ranks = cspark_map(cspark_range(sc, 0, pages, 1, 3), cp_rank, NULL, 0);
    for (long i = 0; i < iters; i++) {
        ranks = cspark_map(cspark_join(links, ranks, 0), cp_step, NULL, 0);
        int64_t n;
        if (cspark_count(ranks, &n) < 0)
            return 1; /* one job per iteration, as a loop that checks */
        if (n != pages) {
            fprintf(stderr, "iteration %ld: %lld ranks, expected %ld\n", i, (long long)n, pages);
            return 1;
        }
        fprintf(stderr, "copartition: iteration %ld done\n", i + 1);
        pause_at_gate(i + 1);
    }
    return cspark_save_as_text_file(cspark_map(ranks, cp_format, NULL, 0), argv[5]) < 0 ? 1 : 0;
}
