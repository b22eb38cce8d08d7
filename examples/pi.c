/*
 * pi.c — SparkPi: estimates π by throwing points at the unit square.
 *
 * Spark equivalent (examples/src/main/scala/org/apache/spark/examples/SparkPi.scala):
 *
 *     val n = math.min(100000L * slices, Int.MaxValue).toInt
 *     val count = sc.parallelize(1 until n, slices).map { i =>
 *       val x = random * 2 - 1; val y = random * 2 - 1
 *       if (x*x + y*y <= 1) 1 else 0
 *     }.reduce(_ + _)
 *     println(s"Pi is roughly ${4.0 * count / (n - 1)}")
 *
 * Unlike Spark's, the point for index i is a stateless hash of i (splitmix64), so the estimate is
 * the same on every run and for every number of partitions. Usage: pi.so [slices] (default 2).
 */
#include <cspark.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64's output function: a good 64-bit mix of a counter. */
static inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* A double in [-1, 1) from the top 53 bits of h. */
static inline double unit(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}

/* map { i => if (x*x + y*y <= 1) 1 else 0 }: key dropped, value = i64 0 or 1. */
void pi_throw(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint64_t i = (uint64_t)cspark_slice_i64(in->key);
    double x = unit(splitmix64(2 * i));
    double y = unit(splitmix64(2 * i + 1));
    uint8_t *v;
    cspark_emit_reserve(out, 0, 8, &v);
    cspark_i64_encode(x * x + y * y <= 1.0 ? 1 : 0, v);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    long slices = 2;
    if (argc > 2) {
        fprintf(stderr, "usage: pi.so [slices]\n");
        return 2;
    }
    if (argc == 2) {
        char *end;
        errno = 0;
        slices = strtol(argv[1], &end, 10);
        if (errno || *end || slices < 1 || slices > 100000) {
            fprintf(stderr, "usage: pi.so [slices]  (slices: an integer from 1 to 100000)\n");
            return 2;
        }
    }
    int64_t n = 100000LL * slices;
    if (n > INT32_MAX) n = INT32_MAX;

    /* parallelize(1 until n, slices).map(throw).reduce(_ + _) */
    cspark_rdd *hits = cspark_map(cspark_range(sc, 1, n, 1, (int)slices), pi_throw, NULL, 0);
    void *sum = NULL;
    size_t sum_len = 0;
    int rc = cspark_reduce(hits, cspark_sum_i64, NULL, 0, &sum, &sum_len);
    if (rc < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    int64_t count = sum_len == 8 ? cspark_i64_decode(sum) : 0;
    free(sum);
    printf("Pi is roughly %.5f\n", 4.0 * (double)count / (double)(n - 1));
    return 0;
}
