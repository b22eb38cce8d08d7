/*
 * kmeans.c — k-means clustering (Lloyd's algorithm) over points read from text files, with the
 * parsed points cached, as Spark's SparkKMeans example.
 *
 * Spark equivalent (examples/src/main/scala/org/apache/spark/examples/SparkKMeans.scala):
 *
 *     val data = lines.map(parseVector).cache()
 *     val kPoints = data.take(K)                      // here the first K points
 *     for (i <- 1 to iterations) {
 *       val closest = data.map(p => (closestPoint(p, kPoints), (p, 1)))
 *       val pointStats = closest.reduceByKey { case ((p1, c1), (p2, c2)) => (p1 + p2, c1 + c2) }
 *       kPoints = pointStats.map { case (i, (sum, n)) => (i, sum / n) }.collectAsMap()
 *     }
 *
 * Input: one point per line, D coordinates separated by spaces, tabs or commas, each a decimal
 * number with at most 6 digits after the point (blank lines and lines starting with '#' are
 * skipped). Coordinates are kept as exact integers of millionths, so the per-cluster sums are
 * exact whatever order partitions are merged in: the centroids do not depend on partitioning,
 * caching or retries, and an independent implementation gets the very same digits.
 *
 * Each iteration ships the current centroids in the closure (K x D doubles), sums each
 * partition's points per nearest centroid in the task (one record per cluster, not per point),
 * and reduces by cluster. A centroid that loses all its points keeps its position. Ties go to
 * the lower centroid index.
 *
 * Usage: kmeans.so POINTS K ITERATIONS [LEVEL]; LEVEL is MEMORY_ONLY (default), MEMORY_AND_DISK,
 * DISK_ONLY or NONE (no cache). Prints "centroid <i>:" and the coordinates ("%.6f") for each
 * centroid on stdout, and "kmeans: iteration <n> took <ms> ms" on stderr after each iteration.
 */
#include <cspark.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KM_MAX_DIMS 64

static inline int km_sep(uint8_t c)
{
    return c == ' ' || c == '\t' || c == ',' || c == '\r';
}

/* lines.map(parseVector): the coordinates as int64 millionths in the key. */
void km_parse(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *p = in->key.ptr, *end = p + in->key.len;
    while (p < end && km_sep(*p))
        p++;
    if (p == end || *p == '#') return;
    int64_t coords[KM_MAX_DIMS];
    int d = 0;
    while (p < end) {
        if (d == KM_MAX_DIMS) cspark_task_fail(tc, "kmeans: more than %d coordinates", d);
        bool neg = false;
        if (*p == '-' || *p == '+') neg = *p++ == '-';
        int64_t whole = 0, frac = 0;
        int digits = 0, frac_digits = 0;
        while (p < end && *p >= '0' && *p <= '9' && whole < 1000000000000LL) {
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
        if ((digits == 0 && frac_digits == 0) || (p < end && !km_sep(*p)))
            cspark_task_fail(tc,
                             "kmeans: bad coordinate in line '%.*s' (expected decimal numbers "
                             "with at most 6 digits after the point)",
                             (int)(in->key.len < 200 ? in->key.len : 200), in->key.ptr);
        for (int i = frac_digits; i < 6; i++)
            frac *= 10;
        coords[d++] = (neg ? -1 : 1) * (whole * 1000000 + frac);
        while (p < end && km_sep(*p))
            p++;
    }
    cspark_emit(out, coords, (size_t)d * 8, NULL, 0);
}

/* The closure of an iteration: K, D, then K x D centroid coordinates (millionths). */
typedef struct km_header {
    int32_t k, d;
} km_header;

/* data.map(closestPoint) + the map side of reduceByKey, per partition: each cluster's sum of
 * coordinates and point count, as one record (key: cluster index, value: D sums + count). */
void km_assign(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const uint8_t *closure = cspark_closure(tc, &len);
    km_header h;
    memcpy(&h, closure, sizeof h);
    const double *centroids = (const double *)(const void *)(closure + sizeof h);
    int k = h.k, d = h.d;
    int64_t *sums = calloc((size_t)k * (size_t)(d + 1), sizeof *sums);
    if (!sums) cspark_task_fail(tc, "kmeans: out of memory");
    cspark_record r;
    while (cspark_iterator_next(in, &r)) {
        if (r.key.len != (uint32_t)d * 8) {
            free(sums);
            cspark_task_fail(tc, "kmeans: a point with %u coordinates (expected %d)", r.key.len / 8,
                             d);
        }
        int64_t p[KM_MAX_DIMS];
        memcpy(p, r.key.ptr, (size_t)d * 8);
        int best = 0;
        double best_dist = 0;
        for (int c = 0; c < k; c++) {
            double dist = 0;
            for (int j = 0; j < d; j++) {
                double diff = (double)p[j] - centroids[c * d + j];
                dist += diff * diff;
            }
            if (c == 0 || dist < best_dist) {
                best = c;
                best_dist = dist;
            }
        }
        int64_t *s = sums + (size_t)best * (size_t)(d + 1);
        for (int j = 0; j < d; j++)
            s[j] += p[j];
        s[d]++;
    }
    for (int c = 0; c < k; c++) {
        int64_t *s = sums + (size_t)c * (size_t)(d + 1);
        if (!s[d]) continue;
        uint8_t key[8];
        cspark_i64_encode(c, key);
        cspark_emit(out, key, 8, s, (size_t)(d + 1) * 8);
    }
    free(sums);
}

/* reduceByKey: element-wise sum of (sums..., count). */
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

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int km_fail(cspark_context *sc, const char *what)
{
    const char *e = cspark_last_error(sc);
    fprintf(stderr, "kmeans: %s failed: %s\n", what, e ? e : "unknown error");
    return 1;
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
        iters < 0 || iters > 100000 || (argc == 5 && parse_level(argv[4], &level) < 0)) {
        fputs(usage, stderr);
        fputs("  K: 1 to 10000, ITERATIONS: 0 to 100000\n", stderr);
        return 2;
    }

    /* km_parse emits at most one record per line: a flat_map (blank lines emit none) */
    cspark_rdd *points = cspark_flat_map(cspark_text_file(sc, argv[1], 0), km_parse, NULL, 0);
    if (level != CSPARK_STORAGE_NONE) points = cspark_persist(points, level);
    cspark_records *first = NULL;
    if (cspark_take(points, (size_t)k, &first) < 0) return km_fail(sc, "take");
    size_t n = cspark_records_count(first);
    if (n < (size_t)k) {
        fprintf(stderr, "kmeans: %s has %zu points, fewer than K=%ld\n", argv[1], n, k);
        cspark_records_free(first);
        return 1;
    }
    int d = (int)(cspark_records_get(first, 0).key.len / 8);
    size_t closure_len = sizeof(km_header) + (size_t)k * (size_t)d * sizeof(double);
    uint8_t *closure = calloc(1, closure_len);
    km_header h = {(int32_t)k, d};
    memcpy(closure, &h, sizeof h);
    double *centroids = (double *)(void *)(closure + sizeof h);
    for (long c = 0; c < k; c++) {
        cspark_record r = cspark_records_get(first, (size_t)c);
        if (r.key.len != (uint32_t)d * 8) {
            fprintf(stderr, "kmeans: points of different dimensions in %s\n", argv[1]);
            return 1;
        }
        for (int j = 0; j < d; j++) {
            int64_t v;
            memcpy(&v, r.key.ptr + j * 8, 8);
            centroids[c * d + j] = (double)v;
        }
    }
    cspark_records_free(first);

    for (long i = 1; i <= iters; i++) {
        int64_t t0 = now_ms();
        cspark_rdd *partial = cspark_map_partitions(points, km_assign, closure, closure_len);
        cspark_records *stats = NULL;
        if (cspark_collect(cspark_reduce_by_key(partial, km_add, NULL, 0, 0), &stats) < 0) {
            free(closure);
            return km_fail(sc, "iteration");
        }
        for (size_t r = 0; r < cspark_records_count(stats); r++) {
            cspark_record rec = cspark_records_get(stats, r);
            int64_t c = cspark_slice_i64(rec.key);
            const uint8_t *v = rec.value.ptr;
            int64_t count;
            memcpy(&count, v + (size_t)d * 8, 8);
            for (int j = 0; j < d && c >= 0 && c < k && count > 0; j++) {
                int64_t sum;
                memcpy(&sum, v + j * 8, 8);
                centroids[c * d + j] = (double)sum / (double)count;
            }
        }
        cspark_records_free(stats);
        fprintf(stderr, "kmeans: iteration %ld took %lld ms\n", i, (long long)(now_ms() - t0));
    }
    for (long c = 0; c < k; c++) {
        printf("centroid %ld:", c);
        for (int j = 0; j < d; j++)
            printf(" %.6f", centroids[c * d + j] / 1e6);
        printf("\n");
    }
    free(closure);
    return 0;
}
