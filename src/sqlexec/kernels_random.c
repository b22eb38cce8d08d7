/*
 * kernels_random.c — Spark's nondeterministic generators: rand([seed]) / random, randn([seed]),
 * randstr(length[, seed]), uuid([seed]) and shuffle(array[, seed]). As Spark's Rand, Randn and
 * RandStr, a task's generator is an XORShiftRandom seeded with seed + the partition index (the
 * seed spread by MurmurHash3 as XORShiftRandom.hashSeed, formats/text_values.h); rand draws
 * java.util.Random's nextDouble from it, randn its nextGaussian (the polar method, keeping the
 * second deviate) and randstr one nextInt per character, |v % 62| picking 0-9, a-z or A-Z. uuid is
 * RandomUUIDGenerator: a Mersenne Twister (MT19937 seeded as commons-math3's setSeed(long)) with
 * seed + partition index, two nextLongs made a version-4 UUID; shuffle is Spark's
 * RandomIndicesGenerator over the same twister: an inside-out Fisher-Yates per array, each index
 * drawn by commons-math3's nextInt(bound). So a query with a seed gives Spark's values when its
 * rows reach each partition in Spark's order. Without a seed the analyzer gives none: the task
 * draws one from getrandom.
 * spark_partition_id() is the task's partition index and monotonically_increasing_id() Spark's
 * MonotonicallyIncreasingID: the partition index in the upper 31 bits, the count of rows the
 * node has seen in this task in the lower 33.
 * The generator's state lives in the compiled node (cs_px_rng, pexpr_compile.c makes it) and
 * moves on across the task's batches. Called through cs_px_random_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference; the state is the node's.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_error.h"

/* java.util.Random.nextDouble over XORShiftRandom */
static double next_double(cs_px_rng *g)
{
    return cs_tv_xorshift_next_double(&g->xs);
}

/* java.util.Random.nextGaussian */
static double next_gaussian(cs_px_rng *g)
{
    if (g->have_gauss) {
        g->have_gauss = false;
        return g->next_gauss;
    }
    double v1, v2, s;
    do {
        v1 = 2 * next_double(g) - 1;
        v2 = 2 * next_double(g) - 1;
        s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    double m = sqrt(-2 * log(s) / s);
    g->next_gauss = v2 * m;
    g->have_gauss = true;
    return v1 * m;
}

/* MT19937 seeded by init_by_array({seed >>> 32, seed & 0xffffffff}) (commons-math3) */
static void mt_seed(cs_px_rng *g, int64_t seed)
{
    uint32_t *mt = g->mt, key[2] = {(uint32_t)((uint64_t)seed >> 32), (uint32_t)seed};
    mt[0] = 19650218u;
    for (int i = 1; i < 624; i++)
        mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    int i = 1, j = 0;
    for (int k = 624; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
        if (j >= 2) j = 0;
    }
    for (int k = 623; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= 624) {
            mt[0] = mt[623];
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
    g->mti = 624;
}

static uint32_t mt_next(cs_px_rng *g)
{
    uint32_t *mt = g->mt;
    if (g->mti >= 624) {
        for (int k = 0; k < 624; k++) {
            uint32_t y = (mt[k] & 0x80000000u) | (mt[(k + 1) % 624] & 0x7fffffffu);
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1) ? 0x9908b0dfu : 0);
        }
        g->mti = 0;
    }
    uint32_t y = mt[g->mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

static uint64_t mt_next_long(cs_px_rng *g)
{
    uint64_t hi = mt_next(g);
    return (hi << 32) | mt_next(g);
}

/* commons-math3's BitsStreamGenerator.nextInt(bound): next(31) scaled for a power of two, else
 * rejection of the last partial range (Java's int arithmetic, wrapping) */
static int32_t mt_next_int(cs_px_rng *g, int32_t bound)
{
    if ((bound & -bound) == bound) return (int32_t)(((int64_t)bound * (mt_next(g) >> 1)) >> 31);
    int32_t bits, val;
    do {
        bits = (int32_t)(mt_next(g) >> 1);
        val = bits % bound;
    } while ((int32_t)((uint32_t)bits - (uint32_t)val + (uint32_t)(bound - 1)) < 0);
    return val;
}

/* The task's seed: the argument (null is 0, as Spark) or a random one, plus the partition. */
static int64_t task_seed(const cs_px_kctx *k, cs_column *const *a, int na)
{
    int64_t seed = 0;
    if (na == 0) {
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) seed = (int64_t)time(NULL);
    } else if (cs_column_is_valid(a[0], 0)) {
        seed = ((const int64_t *)(const void *)a[0]->values)[0];
    }
    return (int64_t)((uint64_t)seed + (uint64_t)k->ctx->partition_id);
}

/* The node's generator on its first batch: XORShiftRandom (rand, randn, randstr) or the
 * Mersenne Twister (uuid, shuffle), seeded from the seed argument(s) a[0..na) and the partition. */
static cs_px_rng *xorshift_of(const cs_px_kctx *k, cs_column *const *a, int na)
{
    cs_px_rng *g = k->rng;
    if (!g->started) {
        g->xs = cs_tv_xorshift_seed(task_seed(k, a, na));
        g->started = true;
    }
    return g;
}

static cs_px_rng *twister_of(const cs_px_kctx *k, cs_column *const *a, int na)
{
    cs_px_rng *g = k->rng;
    if (!g->started) {
        mt_seed(g, task_seed(k, a, na));
        g->started = true;
    }
    return g;
}

static int random_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_px_rng *g = xorshift_of(k, a, na);
    bool gauss = strcmp(k->e->fn, "randn") == 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, k->n);
    double *v = (double *)(void *)r->values;
    for (int64_t i = 0; i < k->n; i++)
        v[i] = gauss ? next_gaussian(g) : next_double(g);
    *out = r;
    return CS_OK;
}

static int uuid_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_px_rng *g = twister_of(k, a, na);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder_reserve(b, k->n, 36 * (size_t)k->n);
    for (int64_t i = 0; i < k->n; i++) {
        uint64_t msb = (mt_next_long(g) & 0xFFFFFFFFFFFF0FFFULL) | 0x4000ULL;
        uint64_t lsb = (mt_next_long(g) | 0x8000000000000000ULL) & 0xBFFFFFFFFFFFFFFFULL;
        char s[40];
        snprintf(s, sizeof s, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(msb >> 32),
                 (unsigned)((msb >> 16) & 0xffff), (unsigned)(msb & 0xffff), (unsigned)(lsb >> 48),
                 (unsigned long long)(lsb & 0xffffffffffffULL));
        cs_col_builder_append_string(b, s, 36);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* randstr(length[, seed]): a null length is 0 characters (Spark's unboxing), a negative one
 * INVALID_PARAMETER_VALUE.LENGTH */
static int randstr_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_px_rng *g = xorshift_of(k, a + 1, na - 1);
    int64_t n = k->n, sl = cs_px_stride(a[0], n);
    const int32_t *len = (const int32_t *)(const void *)a[0]->values;
    for (int64_t i = 0; i < n; i++)
        if (cs_column_is_valid(a[0], i * sl) && len[i * sl] < 0)
            return cs_sql_error_set(k->err, CS_ETASK, "INVALID_PARAMETER_VALUE.LENGTH", "22023",
                                    "The value of parameter(s) `length` in `randstr` is "
                                    "invalid: Expects `length` greater than or equal to 0, but "
                                    "got %d.",
                                    (int)len[i * sl]);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    char *s = NULL;
    size_t cap = 0;
    for (int64_t i = 0; i < n; i++) {
        size_t m = cs_column_is_valid(a[0], i * sl) ? (size_t)len[i * sl] : 0;
        if (m > cap) s = cs_xrealloc(s, cap = m);
        for (size_t j = 0; j < m; j++) {
            int v = abs((int32_t)cs_tv_xorshift_next(&g->xs, 32) % 62);
            s[j] = (char)(v < 10 ? '0' + v : v < 36 ? 'a' + v - 10 : 'A' + v - 36);
        }
        cs_col_builder_append_string(b, s ? s : "", m);
    }
    free(s);
    return cs_px_builder_result(b, CS_OK, out);
}

/* shuffle(array[, seed]): a null array stays null and draws nothing */
static int shuffle_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_px_rng *g = twister_of(k, a + 1, na - 1);
    int64_t n = k->n, ss = cs_px_stride(a[0], n), total = 0;
    const cs_column *arr = a[0];
    const int32_t *off = cs_column_offsets(arr);
    for (int64_t i = 0; i < n; i++)
        if (cs_column_is_valid(arr, i * ss)) total += off[i * ss + 1] - off[i * ss];
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i * ss;
        if (!cs_column_is_valid(arr, r)) {
            null[i] = 1;
            continue;
        }
        int32_t lo = off[r], len = off[r + 1] - off[r], *row = idx + m;
        for (int32_t j = 0; j < len; j++) {
            int32_t at = mt_next_int(g, j + 1);
            if (at != j) row[j] = row[at];
            row[at] = j;
        }
        for (int32_t j = 0; j < len; j++)
            row[j] += lo;
        lens[i] = len;
        m += len;
    }
    cs_column *child = cs_px_take(arr->children[0], idx, m, k->alloc);
    *out = cs_px_list_column(k, k->e->type, lens, null, &child, 1);
    free(lens);
    free(null);
    free(idx);
    return CS_OK;
}

static int partition_id_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)a;
    (void)na;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, k->n);
    int32_t *v = (int32_t *)(void *)r->values;
    for (int64_t i = 0; i < k->n; i++)
        v[i] = (int32_t)k->ctx->partition_id;
    *out = r;
    return CS_OK;
}

/* the node's count of rows so far lives in its generator's xs */
static int increasing_id_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)a;
    (void)na;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, k->n);
    int64_t *v = (int64_t *)(void *)r->values;
    uint64_t base = (uint64_t)k->ctx->partition_id << 33;
    for (int64_t i = 0; i < k->n; i++)
        v[i] = (int64_t)(base + k->rng->xs++);
    *out = r;
    return CS_OK;
}

/* Spark's Nondeterministic scalar functions (their value is not fixed by their arguments), the
 * one list the planner (cs_pexpr_deterministic) and the optimizer (cs_opt_deterministic) read.
 * `generator`: the compiled node keeps a cs_px_rng. `random` and `uniform` never reach a task
 * (the analyzer renames the first, the optimizer rewrites the second into rand) but are listed
 * so that a plan holding them is treated as Spark treats it. */
static const struct {
    const char *name;
    bool generator;
} nondeterministic_functions[] = {
    {"rand", true},
    {"randn", true},
    {"random", true},
    {"uuid", true},
    {"randstr", true},
    {"uniform", true},
    {"shuffle", true},
    {"monotonically_increasing_id", true},
    {"spark_partition_id", false},
    {"input_file_name", false},
    {"input_file_block_start", false},
    {"input_file_block_length", false},
};

static int nondeterministic_index(const char *fn)
{
    for (size_t i = 0; i < sizeof nondeterministic_functions / sizeof nondeterministic_functions[0];
         i++)
        if (strcmp(fn, nondeterministic_functions[i].name) == 0) return (int)i;
    return -1;
}

bool cs_px_nondeterministic(const char *fn)
{
    return nondeterministic_index(fn) >= 0;
}

bool cs_px_is_random(const char *fn)
{
    int i = nondeterministic_index(fn);
    return i >= 0 && nondeterministic_functions[i].generator;
}

cs_px_kernel cs_px_random_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    if (n == 0 && strcmp(fn, "spark_partition_id") == 0 && result->id == CS_TYPE_INT)
        return partition_id_kernel;
    if (n == 0 && strcmp(fn, "monotonically_increasing_id") == 0 && result->id == CS_TYPE_LONG)
        return increasing_id_kernel;
    bool seed = n < 2 || t[n - 1]->id == CS_TYPE_LONG || t[n - 1]->id == CS_TYPE_NULL;
    if (n >= 1 && n <= 2 && seed && strcmp(fn, "shuffle") == 0 && t[0]->id == CS_TYPE_ARRAY)
        return shuffle_kernel;
    if (n >= 1 && n <= 2 && seed && strcmp(fn, "randstr") == 0 && t[0]->id == CS_TYPE_INT &&
        result->id == CS_TYPE_STRING)
        return randstr_kernel;
    if (n > 1 || (n == 1 && t[0]->id != CS_TYPE_LONG && t[0]->id != CS_TYPE_NULL)) return NULL;
    if ((strcmp(fn, "rand") == 0 || strcmp(fn, "randn") == 0) && result->id == CS_TYPE_DOUBLE)
        return random_kernel;
    if (strcmp(fn, "uuid") == 0 && result->id == CS_TYPE_STRING) return uuid_kernel;
    return NULL;
}
