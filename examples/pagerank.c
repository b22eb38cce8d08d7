/*
 * pagerank.c — PageRank over an edge list, as Spark's SparkPageRank example computes it.
 *
 * Spark equivalent (examples/src/main/scala/org/apache/spark/examples/SparkPageRank.scala):
 *
 *     val links = lines.map { s => val parts = s.split("\\s+"); (parts(0), parts(1)) }
 *                      .distinct().groupByKey().cache()
 *     var ranks = links.mapValues(v => 1.0)
 *     for (i <- 1 to iters) {
 *       val contribs = links.join(ranks).values.flatMap { case (urls, rank) =>
 *         val size = urls.size; urls.map(url => (url, rank / size)) }
 *       ranks = contribs.reduceByKey(_ + _).mapValues(0.15 + 0.85 * _)
 *     }
 *     ranks.map { case (p, r) => s"$p\t$r" }.saveAsTextFile(outdir)   // here "%.6f"
 *
 * Input: lines "src dst" (the first two fields separated by spaces or tabs); blank lines, lines
 * with one field and lines starting with '#' are ignored; duplicate edges count once.
 *
 * This is the simplified PageRank of the Spark example, not the textbook one: ranks start at 1.0
 * for pages with out-links only, and after an iteration only pages with at least one in-link
 * have a rank — a page without in-links drops out after the first iteration, and the rank of a
 * page without out-links ("dangling") is not passed on. So after iteration k the ranks sum to
 *     0.15 * N_k + 0.85 * (sum of the iteration k-1 ranks of pages that have out-links),
 * N_k being the number of pages still ranked. In a graph where every page has both in- and
 * out-links nothing drops out or leaks, and the ranks sum to exactly the number of pages.
 *
 * Output: OUTDIR/part-NNNNN with "page<TAB>rank" lines (rank printed "%.6f"), order free.
 * Ranks are f64 values in cspark_f64 encoding while the job runs. Usage:
 * pagerank.so EDGES ITERATIONS OUTDIR.
 */
#include <cspark.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static inline int pr_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* lines.map { s => (parts(0), parts(1)) }, skipping blank, one-field and '#' lines. */
void pr_parse(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *p = in->key.ptr, *end = p + in->key.len;
    while (p < end && pr_space(*p))
        p++;
    if (p == end || *p == '#') return;
    const uint8_t *src = p;
    while (p < end && !pr_space(*p))
        p++;
    const uint8_t *src_end = p;
    while (p < end && pr_space(*p))
        p++;
    const uint8_t *dst = p;
    while (p < end && !pr_space(*p))
        p++;
    if (p == dst) return;
    cspark_emit(out, src, (size_t)(src_end - src), dst, (size_t)(p - dst));
}

/* links.mapValues(v => 1.0) */
void pr_init(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t v[8];
    cspark_f64_encode(1.0, v);
    cspark_emit_value(out, v, sizeof v);
}

/* links.join(ranks).values.flatMap { case (urls, rank) => urls.map(url => (url, rank / size)) } */
void pr_contrib(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice urls, rank, list, url;
    if (!cspark_pair_split(in->value, &urls, &rank) || rank.len != 8)
        cspark_task_fail(tc, "pagerank: malformed join value");
    size_t size = 0;
    for (list = urls; cspark_list_next(&list, &url);)
        size++;
    if (size == 0) return;
    double share = cspark_f64_decode(rank.ptr) / (double)size;
    for (list = urls; cspark_list_next(&list, &url);) {
        uint8_t *v;
        uint8_t *k = cspark_emit_reserve(out, url.len, 8, &v);
        if (url.len) memcpy(k, url.ptr, url.len);
        cspark_f64_encode(share, v);
    }
}

/* mapValues(0.15 + 0.85 * _) */
void pr_damp(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t v[8];
    cspark_f64_encode(0.15 + 0.85 * cspark_slice_f64(in->value), v);
    cspark_emit_value(out, v, sizeof v);
}

/* map { case (p, r) => f"$p\t$r%.6f" } */
void pr_format(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    char num[64];
    int n = snprintf(num, sizeof num, "%.6f", cspark_slice_f64(in->value));
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, in->key.len + 1 + (size_t)n, 0, &v);
    if (in->key.len) memcpy(k, in->key.ptr, in->key.len);
    k[in->key.len] = '\t';
    memcpy(k + in->key.len + 1, num, (size_t)n);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pagerank.so EDGES ITERATIONS OUTDIR\n");
        return 2;
    }
    char *end;
    errno = 0;
    long iters = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || iters < 0 || iters > 100000) {
        fprintf(stderr, "usage: pagerank.so EDGES ITERATIONS OUTDIR  (ITERATIONS: 0 to 100000)\n");
        return 2;
    }

    cspark_rdd *edges = cspark_flat_map(cspark_text_file(sc, argv[1], 0), pr_parse, NULL, 0);
    /* links and ranks keep group_by_key's and reduce_by_key's hash partitioner (map_values
     * keeps it, as Spark's mapValues), so each join reads both sides narrowly: only contribs
     * is shuffled per iteration, as in Spark */
    cspark_rdd *links = cspark_cache(cspark_group_by_key(cspark_distinct(edges, 0), 0));
    cspark_rdd *ranks = cspark_map_values(links, pr_init, NULL, 0);
    for (long i = 0; i < iters; i++) {
        cspark_rdd *contribs = cspark_flat_map(cspark_join(links, ranks, 0), pr_contrib, NULL, 0);
        ranks = cspark_map_values(cspark_reduce_by_key(contribs, cspark_sum_f64, NULL, 0, 0),
                                  pr_damp, NULL, 0);
    }
    if (cspark_save_as_text_file(cspark_map(ranks, pr_format, NULL, 0), argv[3]) < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    return 0;
}
