/*
 * sqlexec_ops.c — micro-benchmark of the stateful SQL operators (src/sqlexec/sql_ops.h), run by
 * hand:
 *   build/bin/sqlexec_ops [--quick] [rows]
 * prints input rows per CPU second (one thread, input batches built beforehand, time from open to
 * the last output batch) for: group-by  SELECT k, count(*), sum(v), avg(v) GROUP BY k  over `rows`
 * rows (default 10M), with 1M and with 1000 distinct keys (Complete mode, bigint keys and values)
 *   join      an inner hash join of `rows` probe rows against 1M build rows (unique bigint keys,
 *             half of the probe rows match), counted as probe + build rows per second
 *   sort      ORDER BY a bigint key of rows / 2 rows
 * --quick runs 1/20 of the sizes. Exits 1 when a result's row count is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_ops.h"

#define BATCH 4096

/* CPU seconds of the process: the machine may be shared, so rows per CPU second are what
 * compare between runs (wall seconds are printed too). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static cs_col_type *two_longs(const char *a, const char *b)
{
    cs_col_field f[2] = {{(char *)a, cs_col_type_primitive(CS_TYPE_LONG), true},
                         {(char *)b, cs_col_type_primitive(CS_TYPE_LONG), true}};
    return cs_col_type_struct(f, 2);
}

static cs_column *longs(const int64_t *v, int64_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
    cs_col_builder_append_values(b, v, n, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* A leaf of `rows` rows (k, v): k = key(i) and v random. */
static cs_sql_op *input(cs_col_type *schema, int64_t rows, int64_t (*key)(int64_t, uint64_t *),
                        uint64_t seed)
{
    int nb = (int)((rows + BATCH - 1) / BATCH);
    cs_col_batch **b = malloc(sizeof *b * (size_t)(nb > 0 ? nb : 1));
    int64_t k[BATCH], v[BATCH];
    for (int i = 0; i < nb; i++) {
        int64_t n = rows - (int64_t)i * BATCH < BATCH ? rows - (int64_t)i * BATCH : BATCH;
        for (int64_t j = 0; j < n; j++) {
            k[j] = key((int64_t)i * BATCH + j, &seed);
            v[j] = (int64_t)(rnd(&seed) % 1000);
        }
        cs_column *cols[2] = {longs(k, n), longs(v, n)};
        b[i] = cs_col_batch_new(cs_col_type_ref(schema), cols, 2, n, NULL);
    }
    cs_sql_op *op = cs_sql_op_batches(cs_col_type_ref(schema), b, nb);
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    free(b);
    return op;
}

static int64_t g_keys;
static int64_t key_uniform(int64_t i, uint64_t *s)
{
    return (int64_t)(rnd(s) % (uint64_t)g_keys);
}
static int64_t key_seq(int64_t i, uint64_t *s)
{
    return i;
}

static double g_wall;

/* Runs op to the end; returns output rows (-1 on error) and the CPU seconds taken (g_wall: the
 * wall seconds). */
static int64_t run(cs_sql_op *op, double *secs)
{
    double c0 = cpu_s();
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .ansi = true};
    cs_error err = {0};
    double t0 = now_s();
    int64_t rows = 0;
    int rc = cs_sql_op_open(op, &ctx, &err);
    while (rc == CS_OK) {
        cs_col_batch *b;
        rc = cs_sql_op_next(op, &b, &err);
        if (rc != CS_OK || !b) break;
        rows += b->num_rows;
        cs_col_batch_unref(b);
    }
    cs_sql_op_close(op);
    g_wall = now_s() - t0;
    *secs = cpu_s() - c0;
    if (rc != CS_OK) {
        fprintf(stderr, "sqlexec_ops: %s\n", err.msg);
        return -1;
    }
    return rows;
}

static int group_by(int64_t rows, int64_t keys)
{
    cs_col_type *schema = two_longs("k", "v");
    g_keys = keys;
    cs_sql_op *in = input(schema, rows, key_uniform, 7);
    cs_agg_spec aggs[] = {{CS_AGG_COUNT_STAR, -1, NULL},
                          {CS_AGG_SUM, 1, cs_col_type_primitive(CS_TYPE_LONG)},
                          {CS_AGG_AVG, 1, cs_col_type_primitive(CS_TYPE_LONG)}};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_aggregate(in, CS_AGG_COMPLETE, (int[]){0}, 1, aggs, 3, &err);
    double s;
    int64_t out = run(op, &s);
    printf("group-by  %10lld rows, %8lld keys: %7.3f s cpu (%.3f s wall)  %6.1f M rows/s  (%lld "
           "groups)\n",
           (long long)rows, (long long)keys, s, g_wall, (double)rows / s / 1e6, (long long)out);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
    return out > 0 && out <= keys ? 0 : 1;
}

static int join(int64_t probe_rows, int64_t build_rows)
{
    cs_col_type *ls = two_longs("lk", "lv"), *rs = two_longs("rk", "rv");
    g_keys = 2 * build_rows;
    cs_sql_op *probe = input(ls, probe_rows, key_uniform, 3);
    cs_sql_op *build = input(rs, build_rows, key_seq, 5);
    cs_join_spec spec = {.type = CS_HJ_INNER,
                         .build = CS_BUILD_RIGHT,
                         .left_keys = (int[]){0},
                         .right_keys = (int[]){0},
                         .n_keys = 1};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_join(probe, build, &spec, &err);
    double s;
    int64_t out = run(op, &s);
    printf("join      %10lld probe x %lld build: %7.3f s cpu (%.3f s wall)  %6.1f M rows/s  (%lld "
           "out)\n",
           (long long)probe_rows, (long long)build_rows, s, g_wall,
           (double)(probe_rows + build_rows) / s / 1e6, (long long)out);
    cs_sql_op_free(op);
    cs_col_type_unref(ls);
    cs_col_type_unref(rs);
    /* about half the probe rows match */
    return out > probe_rows / 3 && out < 2 * probe_rows / 3 ? 0 : 1;
}

static int sort(int64_t rows)
{
    cs_col_type *schema = two_longs("k", "v");
    g_keys = INT64_MAX;
    cs_sql_op *in = input(schema, rows, key_uniform, 11);
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_sort(in, &(cs_sort_key){0, false, true}, 1, &err);
    double s;
    int64_t out = run(op, &s);
    printf("sort      %10lld rows: %7.3f s cpu (%.3f s wall)  %6.1f M rows/s\n", (long long)rows, s,
           g_wall, (double)rows / s / 1e6);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
    return out == rows ? 0 : 1;
}

int main(int argc, char **argv)
{
    int64_t rows = 10000000;
    int div = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            div = 20;
        else
            rows = atoll(argv[i]);
    }
    if (rows <= 0) {
        fprintf(stderr, "sqlexec_ops: rows must be a positive number, got %s\n", argv[argc - 1]);
        return 2;
    }
    rows /= div;
    int bad = 0;
    bad |= group_by(rows, 1000000 / div);
    bad |= group_by(rows, 1000);
    bad |= join(rows, 1000000 / div);
    bad |= sort(rows / 2);
    if (bad) fprintf(stderr, "sqlexec_ops: a result's row count is wrong\n");
    return bad;
}
