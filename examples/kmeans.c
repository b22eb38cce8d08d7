/*
 * kmeans.c — k-means clustering (Lloyd's algorithm) over points read from text files, with the
 * parsed points cached, the centroids broadcast and malformed lines counted by an accumulator,
 * as Spark's SparkKMeans example.
 *
 * Spark equivalent (examples/src/main/scala/org/apache/spark/examples/SparkKMeans.scala):
 *
 *     val malformed = sc.longAccumulator("malformed lines")
 *     val data = lines.flatMap(parseVector(_, malformed)).cache()   // here: blocks of points
 *     var kPoints = data.take(K)                      // here the first K points
 *     for (i <- 1 to iterations) {
 *       val centres = sc.broadcast(kPoints)
 *       val closest = data.map(p => (closestPoint(p, centres.value), (p, 1)))
 *       val pointStats = closest.reduceByKey { case ((p1, c1), (p2, c2)) => (p1 + p2, c1 + c2) }
 *       kPoints = pointStats.map { case (i, (sum, n)) => (i, sum / n) }.collectAsMap()
 *       // here: each partition's sums for all K clusters as one value, merged by reduce
 *       centres.destroy()
 *     }
 *
 * Input: one point per line, D coordinates separated by spaces, tabs or commas, each a decimal
 * number with at most 12 digits before the point and at most 6 after it (blank lines and lines
 * starting with '#' are skipped). D is the dimension of the first point. A line that is not such
 * a point, or has another number of coordinates, is malformed: it is skipped and counted by the
 * "malformed lines" accumulator. Coordinates are kept as exact integers of millionths, so the
 * per-cluster sums are exact whatever order partitions are merged in: the centroids do not depend
 * on partitioning, caching or retries, and an independent implementation (bench/kmeans_ref.py)
 * gets the very same digits.
 *
 * The cached data holds the points 256 to a record, coordinate by coordinate (as Spark ML's
 * k-means "block" solver stacks its points into matrices): an iteration reads a few thousand
 * records, not one per point, and each block goes to the distance search as it is stored. Each
 * iteration broadcasts the current centroids (K x D doubles) and destroys the broadcast once the
 * iteration's job is done. Each task sums its partition's points per nearest centroid into one
 * record (K x (D sums + a count), not a record per point), and `reduce` adds the partitions'
 * records on the driver: one stage per iteration, where reduceByKey would add a shuffle stage
 * for K tiny records. A centroid that loses
 * all its points keeps its position. Ties go to the lower centroid index. The nearest centroids
 * are found a block at a time, with vector arithmetic (AVX2 where the CPU has it): with the
 * points cached, this search is what an iteration costs. The sums of squares are exact IEEE
 * doubles in coordinate order (built with -ffp-contract=off: no fused multiply-add), so ties and
 * near-ties resolve as in the reference.
 *
 * The accumulator is read after iteration 1, the job that parses every line (take(K) parses the
 * head of the file through a parse without the accumulator): a later job that parses a partition
 * again (an evicted MEMORY_ONLY block, a lost executor's) counts its malformed lines again, as in
 * Spark, so later values may be larger.
 *
 * Usage: kmeans.so POINTS K ITERATIONS [LEVEL]; ITERATIONS >= 1; LEVEL is MEMORY_ONLY (default),
 * MEMORY_AND_DISK, DISK_ONLY or NONE (no cache). Prints on stdout "points N" (the points of
 * iteration 1), "malformed M" (the accumulator after iteration 1), then "centroid <i>:" and the
 * coordinates ("%.6f") for each centroid; on stderr "kmeans: iteration <n> took <ms> ms" (to a
 * tenth of a millisecond) after each iteration.
 */
#include <cspark.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KM_MAX_DIMS 64
/* Points converted and assigned together (see KM_ASSIGN_CHUNK). */
#define KM_CHUNK 256

static inline int km_sep(uint8_t c)
{
    return c == ' ' || c == '\t' || c == ',' || c == '\r';
}

/* The closure of the blocks' parse: the accumulator counting malformed lines and the dimension
 * points must have. */
typedef struct km_parse_args {
    cspark_accumulator malformed;
    int32_t dims;
} km_parse_args;

/* One line's coordinates in millionths into coords; their number, 0 for a blank or comment line,
 * -1 for a malformed one. */
static int km_parse_line(cspark_slice line, int64_t coords[KM_MAX_DIMS])
{
    const uint8_t *p = line.ptr, *end = p + line.len;
    while (p < end && km_sep(*p))
        p++;
    if (p == end || *p == '#') return 0;
    int d = 0;
    while (p < end) {
        if (d == KM_MAX_DIMS) return -1;
        bool neg = false;
        if (*p == '-' || *p == '+') neg = *p++ == '-';
        int64_t whole = 0, frac = 0;
        int digits = 0, frac_digits = 0;
        while (p < end && *p >= '0' && *p <= '9' && digits < 12) {
            whole = whole * 10 + (*p++ - '0');
            digits++;
        }
        if (p < end && *p == '.') {
            p++;
            while (p < end && *p >= '0' && *p <= '9' && frac_digits < 6) {
                frac = frac * 10 + (*p++ - '0');
                frac_digits++;
            }
        }
        if ((digits == 0 && frac_digits == 0) || (p < end && !km_sep(*p))) return -1;
        for (int i = frac_digits; i < 6; i++)
            frac *= 10;
        coords[d++] = (neg ? -1 : 1) * (whole * 1000000 + frac);
        while (p < end && km_sep(*p))
            p++;
    }
    return d;
}

/* lines.flatMap(parseVector) for the initial centroids (data.take(K)): each point's coordinates
 * as int64 millionths in the key, in file order; blank, comment and malformed lines emit nothing
 * (and are not counted: that is the iterations' parse). */
void km_parse(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    (void)tc;
    int64_t coords[KM_MAX_DIMS];
    int d = km_parse_line(in->key, coords);
    if (d > 0) cspark_emit(out, coords, (size_t)d * 8, NULL, 0);
}

/* lines.mapPartitions(parse into blocks), the data that is cached: KM_CHUNK points to a record,
 * as Spark ML's k-means "block" solver stacks points into matrices. Key: the block's number of
 * points (i64); value: KM_CHUNK x D doubles, coordinate by coordinate (x[j * KM_CHUNK + i]:
 * coordinate j of point i, in millionths: integers, so exact in a double), the rest of a last,
 * partial block zero. An iteration then reads a few thousand records, not one per point, and
 * hands each block to the distance kernel as it is. A malformed line adds 1 to the accumulator. */
void km_parse_blocks(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    const km_parse_args *a = cspark_closure(tc, NULL);
    int d = a->dims;
    size_t block_bytes = (size_t)KM_CHUNK * (size_t)d * sizeof(double);
    double *x = calloc(1, block_bytes);
    if (!x) cspark_task_fail(tc, "kmeans: out of memory");
    int64_t coords[KM_MAX_DIMS];
    cspark_record line;
    int n = 0;
    bool more = true;
    while (more) {
        more = cspark_iterator_next(in, &line);
        if (more) {
            int got = km_parse_line(line.key, coords);
            if (got == 0) continue;
            if (got != d) {
                cspark_long_accumulator_add(tc, a->malformed, 1);
                continue;
            }
            for (int j = 0; j < d; j++)
                x[(size_t)j * KM_CHUNK + (size_t)n] = (double)coords[j];
            if (++n < KM_CHUNK) continue;
        }
        if (n == 0) break;
        uint8_t key[8];
        cspark_i64_encode(n, key);
        cspark_emit(out, key, 8, x, block_bytes);
        memset(x, 0, block_bytes);
        n = 0;
    }
    free(x);
}

/* The closure of an iteration: the broadcast centroids (K x D doubles, millionths), K and D. */
typedef struct km_iteration {
    cspark_broadcast_var centroids;
    int32_t k, d;
} km_iteration;

/* KM_ASSIGN_CHUNK(name, lanes, attributes) defines name(x, centroids, k, d, best): the closest
 * centroid of each of a chunk's points (best[i]; ties to the lower index), on vectors of `lanes`
 * doubles (GCC/clang vector extensions). x holds the coordinates coordinate by coordinate
 * (x[j * KM_CHUNK + i]: coordinate j of point i), so neighbouring points load as one vector;
 * each lane sums its point's squared distance in coordinate order, as the reference does, and
 * the best distance and index stay in registers. Two vectors of points go through the centroids
 * side by side (KM_VECTORS): their distance sums do not wait for each other, so the CPU overlaps
 * them. A whole chunk is computed (a partial one holds stale but finite values past its end).
 * Defined three times: 2 lanes for any CPU (SSE2, NEON, ...), 4 lanes with AVX2 and 8 with
 * AVX-512 where the CPU has them (x86-64; chosen at run time). */
#define KM_VECTORS 2
#define KM_ASSIGN_CHUNK(name, lanes, attributes)                                                   \
    attributes static void name(const double *restrict x, const double *restrict centroids, int k, \
                                int d, int64_t *restrict best)                                     \
    {                                                                                              \
        typedef double vec __attribute__((vector_size(lanes * sizeof(double))));                   \
        typedef int64_t mask __attribute__((vector_size(lanes * sizeof(int64_t))));                \
        for (int i = 0; i < KM_CHUNK; i += lanes * KM_VECTORS) {                                   \
            vec best_dist[KM_VECTORS];                                                             \
            mask best_c[KM_VECTORS];                                                               \
            for (int v = 0; v < KM_VECTORS; v++) {                                                 \
                best_dist[v] = (vec){0} + HUGE_VAL; /* distances are finite: centroid 0 wins */    \
                best_c[v] = (mask){0};                                                             \
            }                                                                                      \
            for (int c = 0; c < k; c++) {                                                          \
                const double *centre = centroids + (size_t)c * (size_t)d;                          \
                vec dist[KM_VECTORS] = {{0}};                                                      \
                for (int j = 0; j < d; j++) {                                                      \
                    for (int v = 0; v < KM_VECTORS; v++) {                                         \
                        vec xj;                                                                    \
                        memcpy(&xj, x + (size_t)j * KM_CHUNK + (size_t)(i + v * lanes),            \
                               sizeof xj);                                                         \
                        vec diff = xj - centre[j];                                                 \
                        dist[v] += diff * diff;                                                    \
                    }                                                                              \
                }                                                                                  \
                for (int v = 0; v < KM_VECTORS; v++) {                                             \
                    mask closer = dist[v] < best_dist[v]; /* all ones where true */                \
                    best_dist[v] =                                                                 \
                        (vec)(((mask)dist[v] & closer) | ((mask)best_dist[v] & ~closer));          \
                    best_c[v] = (best_c[v] & ~closer) | ((int64_t)c & closer);                     \
                }                                                                                  \
            }                                                                                      \
            for (int v = 0; v < KM_VECTORS; v++)                                                   \
                memcpy(best + i + v * lanes, &best_c[v], sizeof best_c[v]);                        \
        }                                                                                          \
    }

typedef void (*km_assign_chunk_fn)(const double *restrict x, const double *restrict centroids,
                                   int k, int d, int64_t *restrict best);
KM_ASSIGN_CHUNK(km_assign_chunk_2, 2, )
#if defined(__x86_64__) && defined(__GNUC__)
KM_ASSIGN_CHUNK(km_assign_chunk_avx2, 4, __attribute__((target("avx2"))))
KM_ASSIGN_CHUNK(km_assign_chunk_avx512, 8, __attribute__((target("avx512f"))))
#endif

static km_assign_chunk_fn km_pick_assign_chunk(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return km_assign_chunk_avx512;
    if (__builtin_cpu_supports("avx2")) return km_assign_chunk_avx2;
#endif
    return km_assign_chunk_2;
}

/* data.map(closestPoint) and the partition's share of the sums: one record (no key; value: for
 * each cluster in turn, its D coordinate sums and its point count, int64). Each
 * cached block (km_parse_blocks) goes to a KM_ASSIGN_CHUNK kernel as it is stored (copied first
 * only when the record's bytes are not aligned for doubles). */
void km_assign(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    const km_iteration *it = cspark_closure(tc, NULL);
    int k = it->k, d = it->d;
    size_t len;
    const double *centroids = cspark_broadcast_value(tc, it->centroids, &len);
    if (len != (size_t)k * (size_t)d * sizeof(double))
        cspark_task_fail(tc,
                         "kmeans: the centroids broadcast has %zu bytes (expected %d x %d "
                         "doubles)",
                         len, k, d);
    /* one allocation per task: the sums (K x (D + 1)), an aligned copy of a block, and the
     * block's closest centroids */
    size_t nsums = (size_t)k * (size_t)(d + 1), block = (size_t)KM_CHUNK * (size_t)d;
    int64_t *sums = calloc(nsums + block + KM_CHUNK, sizeof *sums);
    if (!sums) cspark_task_fail(tc, "kmeans: out of memory");
    double *aligned = (double *)(void *)(sums + nsums);
    int64_t *best = (int64_t *)(void *)(aligned + block);
    km_assign_chunk_fn assign_chunk = km_pick_assign_chunk();
    cspark_record r;
    while (cspark_iterator_next(in, &r)) {
        int64_t n = r.key.len == 8 ? cspark_slice_i64(r.key) : -1;
        if (n < 1 || n > KM_CHUNK || r.value.len != block * sizeof(double)) {
            free(sums);
            cspark_task_fail(tc, "kmeans: a block of %u bytes (expected %d x %d doubles)",
                             r.value.len, KM_CHUNK, d);
        }
        const double *x = aligned;
        if ((uintptr_t)r.value.ptr % _Alignof(double) == 0)
            x = (const double *)(const void *)r.value.ptr;
        else
            memcpy(aligned, r.value.ptr, r.value.len);
        assign_chunk(x, centroids, k, d, best);
        for (int64_t i = 0; i < n; i++) {
            int64_t *s = sums + (size_t)best[i] * (size_t)(d + 1);
            for (int j = 0; j < d; j++)
                s[j] += (int64_t)x[(size_t)j * KM_CHUNK + (size_t)i];
            s[d]++;
        }
    }
    cspark_emit(out, NULL, 0, sums, nsums * sizeof *sums);
    free(sums);
}

/* reduce: element-wise sum of two partitions' (sums..., count) for every cluster. */
void km_add(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    if (acc->len != value.len || value.len % 8)
        cspark_task_fail(tc, "kmeans: partial sums of different sizes");
    for (uint32_t i = 0; i < value.len; i += 8) {
        int64_t a, b;
        memcpy(&a, acc->ptr + i, 8);
        memcpy(&b, value.ptr + i, 8);
        a += b;
        memcpy(acc->ptr + i, &a, 8);
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int km_fail(cspark_context *sc, const char *what)
{
    const char *e = cspark_last_error(sc);
    fprintf(stderr, "kmeans: %s failed: %s\n", what, e ? e : "unknown error");
    return -1;
}

static int parse_level(const char *s, cspark_storage_level *out)
{
    static const struct {
        const char *name;
        cspark_storage_level level;
    } levels[] = {{"NONE", CSPARK_STORAGE_NONE},
                  {"MEMORY_ONLY", CSPARK_MEMORY_ONLY},
                  {"MEMORY_AND_DISK", CSPARK_MEMORY_AND_DISK},
                  {"DISK_ONLY", CSPARK_DISK_ONLY}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(s, levels[i].name) == 0) {
            *out = levels[i].level;
            return 0;
        }
    return -1;
}

/* The first k points of lines (parsed without counting malformed lines) as centroids, k x d
 * doubles in millionths (malloc'd); their dimension in *d. NULL after printing why. */
static double *initial_centroids(cspark_context *sc, cspark_rdd *lines, const char *path, long k,
                                 int *d)
{
    cspark_records *first = NULL;
    if (cspark_take(cspark_flat_map(lines, km_parse, NULL, 0), (size_t)k, &first) < 0) {
        km_fail(sc, "take");
        return NULL;
    }
    size_t n = cspark_records_count(first);
    if (n < (size_t)k) {
        fprintf(stderr, "kmeans: %s has %zu points, fewer than K=%ld\n", path, n, k);
        cspark_records_free(first);
        return NULL;
    }
    *d = (int)(cspark_records_get(first, 0).key.len / 8);
    double *centroids = malloc((size_t)k * (size_t)*d * sizeof *centroids);
    for (long c = 0; c < k && centroids; c++) {
        cspark_record r = cspark_records_get(first, (size_t)c);
        if (r.key.len != (uint32_t)*d * 8) {
            fprintf(stderr, "kmeans: the first %ld points of %s have different dimensions\n", k,
                    path);
            free(centroids);
            centroids = NULL;
            break;
        }
        for (int j = 0; j < *d; j++) {
            int64_t v;
            memcpy(&v, r.key.ptr + j * 8, 8);
            centroids[c * *d + j] = (double)v;
        }
    }
    cspark_records_free(first);
    return centroids;
}

/* One iteration: the centroids broadcast, each cluster's sums reduced, the centroids moved to
 * the means. *points: the points assigned. 0, or -1 after printing why. */
static int iterate(cspark_context *sc, cspark_rdd *points, double *centroids, long k, int d,
                   int64_t *assigned)
{
    km_iteration it = {cspark_broadcast(sc, centroids, (size_t)k * (size_t)d * sizeof *centroids),
                       (int32_t)k, d};
    if (it.centroids.id < 0) return km_fail(sc, "broadcast");
    cspark_rdd *partial = cspark_map_partitions(points, km_assign, &it, sizeof it);
    void *stats = NULL;
    size_t len = 0;
    int rc = cspark_reduce(partial, km_add, NULL, 0, &stats, &len);
    cspark_broadcast_destroy(sc, it.centroids);
    if (rc < 0) return km_fail(sc, "iteration");
    if (len != (size_t)k * (size_t)(d + 1) * 8) {
        fprintf(stderr, "kmeans: the reduced sums have %zu bytes (expected %ld x %d)\n", len, k,
                d + 1);
        free(stats);
        return -1;
    }
    *assigned = 0;
    const int64_t *sums = stats;
    for (long c = 0; c < k; c++) {
        const int64_t *s = sums + c * (d + 1);
        *assigned += s[d];
        for (int j = 0; j < d && s[d] > 0; j++)
            centroids[c * d + j] = (double)s[j] / (double)s[d];
    }
    free(stats);
    return 0;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    const char *usage = "usage: kmeans.so POINTS K ITERATIONS [MEMORY_ONLY|MEMORY_AND_DISK|"
                        "DISK_ONLY|NONE]\n";
    if (argc < 4 || argc > 5) {
        fputs(usage, stderr);
        return 2;
    }
    char *end1, *end2;
    errno = 0;
    long k = strtol(argv[2], &end1, 10);
    long iters = strtol(argv[3], &end2, 10);
    cspark_storage_level level = CSPARK_MEMORY_ONLY;
    if (errno || *end1 || end1 == argv[2] || *end2 || end2 == argv[3] || k < 1 || k > 10000 ||
        iters < 1 || iters > 100000 || (argc == 5 && parse_level(argv[4], &level) < 0)) {
        fputs(usage, stderr);
        fputs("  K: 1 to 10000, ITERATIONS: 1 to 100000\n", stderr);
        return 2;
    }

    cspark_rdd *lines = cspark_text_file(sc, argv[1], 0);
    int d = 0;
    double *centroids = initial_centroids(sc, lines, argv[1], k, &d);
    if (!centroids) return 1;
    km_parse_args parse = {cspark_long_accumulator(sc, "malformed lines"), d};
    if (parse.malformed.id < 0) {
        free(centroids);
        km_fail(sc, "accumulator");
        return 1;
    }
    cspark_rdd *points = cspark_map_partitions(lines, km_parse_blocks, &parse, sizeof parse);
    if (level != CSPARK_STORAGE_NONE) points = cspark_persist(points, level);

    int64_t num_points = 0, malformed = 0;
    for (long i = 1; i <= iters; i++) {
        double t0 = now_ms();
        int64_t assigned;
        if (iterate(sc, points, centroids, k, d, &assigned) < 0) {
            free(centroids);
            return 1;
        }
        if (i == 1) {
            num_points = assigned;
            malformed = cspark_long_accumulator_value(sc, parse.malformed);
        }
        fprintf(stderr, "kmeans: iteration %ld took %.1f ms\n", i, now_ms() - t0);
    }
    printf("points %" PRId64 "\nmalformed %" PRId64 "\n", num_points, malformed);
    for (long c = 0; c < k; c++) {
        printf("centroid %ld:", c);
        for (int j = 0; j < d; j++)
            printf(" %.6f", centroids[c * d + j] / 1e6);
        printf("\n");
    }
    free(centroids);
    return 0;
}
