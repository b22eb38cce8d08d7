/*
 * test_op_sort.c — Sort, TopN (src/sqlexec/op_sort.c, sort_keys.c) and Limit / Offset
 * (op_limit.c): Spark's ordering of doubles (NaN greatest, -0.0 = 0.0, infinities), of strings
 * (bytewise unsigned, a prefix first, embedded zero bytes, ascending and descending), NULLS
 * FIRST/LAST with ASC/DESC; a multi-key stable sort of a generated input against qsort in the
 * test; sorted runs spilled under a small task memory equal to the in-memory sort; TopN equal to
 * sort + offset + limit, also when rows tying with its worst kept row keep arriving; Limit/Offset
 * across batch boundaries, stopping its child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

static t_rows sort_doubles(const double *d, const uint8_t *valid, int n, cs_sort_key key)
{
    const char *names[] = {"d"};
    cs_col_type *schema =
        t_schema(1, names, (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_DOUBLE)});
    cs_col_batch *b[2] = {
        t_batch(schema, (cs_column *[]){t_doubles(d, 3, valid)}, 3),
        t_batch(schema, (cs_column *[]){t_doubles(d + 3, n - 3, valid + 3)}, n - 3)};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_sort(t_leaf(schema, b, 2), &key, 1, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
    return r;
}

static void test_doubles_in_spark_order(void **state)
{
    double d[] = {1.5, NAN, -0.0, 0, -INFINITY, INFINITY, 0.0, -2};
    uint8_t valid[] = {1, 1, 1, 0, 1, 1, 1, 1};
    t_rows r = sort_doubles(d, valid, 8, (cs_sort_key){0, false, true});
    const char *asc[] = {"NULL", "-inf", "-2", "-0", "0", "1.5", "inf", "NaN"};
    assert_int_equal(r.n, 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(r.row[i], asc[i]);
    t_rows_free(&r);
    r = sort_doubles(d, valid, 8, (cs_sort_key){0, true, false});
    const char *desc[] = {"NaN", "inf", "1.5", "-0", "0", "-2", "-inf", "NULL"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(r.row[i], desc[i]);
    t_rows_free(&r);
    r = sort_doubles(d, valid, 8, (cs_sort_key){0, false, false}); /* ASC NULLS LAST */
    assert_string_equal(r.row[0], "-inf");
    assert_string_equal(r.row[7], "NULL");
    t_rows_free(&r);
}

static void test_strings_bytewise(void **state)
{
    const char *names[] = {"s"};
    cs_col_type *schema =
        t_schema(1, names, (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_STRING)});
    cs_col_builder *bl = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    const char *v[] = {"b", "a\xff", "", "ab", NULL, "a\0", "a", "a\0\0"};
    size_t len[] = {1, 2, 0, 2, 0, 2, 1, 3};
    for (int i = 0; i < 8; i++) {
        if (v[i])
            cs_col_builder_append_string(bl, v[i], len[i]);
        else
            cs_col_builder_append_nulls(bl, 1);
    }
    cs_col_batch *b[1] = {t_batch(schema, (cs_column *[]){cs_col_builder_finish(bl)}, 8)};
    cs_col_builder_free(bl);
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_sort(t_leaf(schema, b, 1), &(cs_sort_key){0, false, true}, 1, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows r = t_run(op, &ctx);
    const char *want[] = {"NULL",          "''",   "'a'",     "'a\\x00'",
                          "'a\\x00\\x00'", "'ab'", "'a\xff'", "'b'"};
    assert_int_equal(r.n, 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(r.row[i], want[i]);
    t_rows_free(&r);
    cs_sbuf sb = {0};
    cs_sql_op_explain(op, &sb);
    assert_string_equal(sb.data, "Sort [s ASC NULLS FIRST], false, 0\n"
                                 "+- LocalTableScan [1 batches]\n");
    cs_sbuf_free(&sb);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

/* Byte strings of 0..40 bytes drawn from {0, 1, 'a', 0xff} (zeros inside, at the ends, in a
 * row): sorted ASC they come in memcmp order (a prefix first), DESC in the reverse order. */
static int cmp_bytes(const void *x, const void *y)
{
    const uint8_t *a = *(const uint8_t *const *)x, *b = *(const uint8_t *const *)y;
    int c = memcmp(a + 1, b + 1, a[0] < b[0] ? a[0] : b[0]);
    return c ? c : (int)a[0] - (int)b[0];
}

static cs_col_batch *bytes_batch(cs_col_type *schema, uint8_t *const *v, int n)
{
    cs_col_builder *bl = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BINARY));
    for (int i = 0; i < n; i++)
        cs_col_builder_append_string(bl, (const char *)v[i] + 1, v[i][0]);
    cs_col_batch *b = t_batch(schema, (cs_column *[]){cs_col_builder_finish(bl)}, n);
    cs_col_builder_free(bl);
    return b;
}

static void test_byte_strings_with_zero_bytes_both_directions(void **state)
{
    enum { M = 600 };
    static const uint8_t alphabet[] = {0, 1, 'a', 0xff};
    uint8_t *v[M], *sorted[M];
    uint64_t seed = 5;
    for (int i = 0; i < M; i++) {
        uint8_t len = (uint8_t)(t_rand(&seed) % 41);
        v[i] = malloc(1 + (size_t)len);
        v[i][0] = len; /* the length, then the bytes */
        for (int j = 0; j < len; j++)
            v[i][1 + j] = alphabet[t_rand(&seed) % 4];
        sorted[i] = v[i];
    }
    qsort(sorted, M, sizeof *sorted, cmp_bytes);
    const char *names[] = {"s"};
    cs_col_type *schema =
        t_schema(1, names, (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_BINARY)});
    cs_sql_exec_ctx ctx = t_ctx();
    cs_col_batch *ref[1] = {bytes_batch(schema, sorted, M)};
    cs_sql_op *leaf = t_leaf(schema, ref, 1);
    t_rows want = t_run(leaf, &ctx);
    cs_sql_op_free(leaf);
    assert_int_equal(want.n, M);
    for (int desc = 0; desc <= 1; desc++) {
        cs_col_batch *b[1] = {bytes_batch(schema, v, M)};
        cs_error err = {0};
        cs_sql_op *op =
            cs_sql_op_sort(t_leaf(schema, b, 1), &(cs_sort_key){0, (bool)desc, !desc}, 1, &err);
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.n, M);
        for (int i = 0; i < M; i++)
            assert_string_equal(got.row[i], want.row[desc ? M - 1 - i : i]);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    t_rows_free(&want);
    for (int i = 0; i < M; i++)
        free(v[i]);
    cs_col_type_unref(schema);
}

/* Generated rows (a, b, id): a in 0..99 with nulls, b a string of 0..9, id the row number. */
typedef struct grow {
    int64_t a, id;
    bool a_null;
    char b[8];
} grow;

static grow *gen_rows(int64_t n, uint64_t seed)
{
    grow *g = calloc((size_t)n, sizeof *g);
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = t_rand(&seed);
        g[i].a = (int64_t)(x % 100) - 50;
        g[i].a_null = (x >> 32) % 30 == 0;
        snprintf(g[i].b, sizeof g[i].b, "b%d", (int)((x >> 16) % 10));
        g[i].id = i;
    }
    return g;
}

static cs_col_type *grow_schema(void)
{
    const char *names[] = {"a", "b", "id"};
    return t_schema(3, names,
                    (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_LONG),
                                      cs_col_type_primitive(CS_TYPE_STRING),
                                      cs_col_type_primitive(CS_TYPE_LONG)});
}

static cs_sql_op *grow_op(const grow *g, int64_t n, int64_t batch)
{
    cs_col_type *schema = grow_schema();
    cs_col_batch **b = calloc((size_t)(n / batch + 2), sizeof *b);
    int nb = 0;
    for (int64_t at = 0; at < n; at += batch) {
        int64_t m = n - at < batch ? n - at : batch;
        int64_t *a = malloc(8 * (size_t)m), *id = malloc(8 * (size_t)m);
        uint8_t *av = malloc((size_t)m);
        const char **s = malloc(sizeof *s * (size_t)m);
        for (int64_t i = 0; i < m; i++) {
            a[i] = g[at + i].a;
            av[i] = !g[at + i].a_null;
            s[i] = g[at + i].b;
            id[i] = g[at + i].id;
        }
        b[nb++] = t_batch(
            schema, (cs_column *[]){t_longs(a, m, av), t_strings(s, m), t_longs(id, m, NULL)}, m);
        free(a);
        free(id);
        free(av);
        free(s);
    }
    cs_sql_op *op = t_leaf(schema, b, nb);
    free(b);
    cs_col_type_unref(schema);
    return op;
}

/* ORDER BY a DESC NULLS LAST, b ASC (NULLS FIRST), stable: the reference order. */
static int grow_cmp(const void *x, const void *y)
{
    const grow *p = x, *q = y;
    if (p->a_null != q->a_null) return p->a_null ? 1 : -1;
    if (!p->a_null && p->a != q->a) return p->a > q->a ? -1 : 1;
    int c = strcmp(p->b, q->b);
    if (c) return c;
    return (p->id > q->id) - (p->id < q->id);
}

static const cs_sort_key grow_keys[] = {{0, true, false}, {1, false, true}};

static t_rows grow_reference(const grow *g, int64_t n, int64_t from, int64_t count)
{
    grow *s = malloc(sizeof *s * (size_t)n);
    memcpy(s, g, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, grow_cmp);
    t_rows r = {0};
    char line[64];
    for (int64_t i = from; i < n && i < from + count; i++) {
        if (s[i].a_null)
            snprintf(line, sizeof line, "NULL|'%s'|%lld", s[i].b, (long long)s[i].id);
        else
            snprintf(line, sizeof line, "%lld|'%s'|%lld", (long long)s[i].a, s[i].b,
                     (long long)s[i].id);
        t_rows_add(&r, line);
    }
    free(s);
    return r;
}

static void test_multi_key_stable_sort_equals_reference(void **state)
{
    grow *g = gen_rows(50000, 5);
    t_rows want = grow_reference(g, 50000, 0, 50000);
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_sort(grow_op(g, 50000, 1000), grow_keys, 2, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(op);
    free(g);
}

static void test_spilled_runs_merge_to_the_in_memory_order(void **state)
{
    int64_t n = 300000;
    grow *g = gen_rows(n, 11);
    t_rows want = grow_reference(g, n, 0, n);
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.alloc = &alloc;
    ctx.task_memory = &tm;
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_sort(grow_op(g, n, 4096), grow_keys, 2, &err);
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    assert_true(op->metrics.spill_count > 1);
    assert_true(op->metrics.spill_bytes > 0);
    assert_true(tm.spill_count > 1);
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(op);
    assert_int_equal(tm.used, 0);
    free(g);
}

static void test_top_n_equals_sort_then_limit(void **state)
{
    int64_t n = 20000;
    grow *g = gen_rows(n, 17);
    int64_t cases[][2] = {{10, 5}, {0, 0}, {100, 0}, {30000, 19990}, {2000, 7}};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int c = 0; c < 5; c++) {
        t_rows want = grow_reference(g, n, cases[c][1], cases[c][0]);
        cs_error err = {0};
        cs_sql_op *op =
            cs_sql_op_top_n(grow_op(g, n, 999), grow_keys, 2, cases[c][0], cases[c][1], &err);
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.rc, CS_OK);
        assert_true(t_rows_equal(&want, &got));
        /* bounded memory: it never held much more than 2 x (limit + offset) rows' batches */
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    free(g);
}

/* ORDER BY a ASC NULLS LAST alone, stable: every value of a is tied by ~200 rows spread over
 * all batches, so rows tying with the TopN's worst kept row keep arriving after its first shrink
 * (they must not enter: they sort after it) and rows sorting before it are held as partial
 * batches. */
static int grow_cmp_a(const void *x, const void *y)
{
    const grow *p = x, *q = y;
    if (p->a_null != q->a_null) return p->a_null ? 1 : -1;
    if (!p->a_null && p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->id > q->id) - (p->id < q->id);
}

static void test_top_n_ties_with_its_worst_row_arriving_later(void **state)
{
    int64_t n = 20000;
    grow *g = gen_rows(n, 29);
    grow *sorted = malloc(sizeof *sorted * (size_t)n);
    memcpy(sorted, g, sizeof *sorted * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, grow_cmp_a);
    const cs_sort_key key = {0, false, false};
    int64_t limits[] = {1, 10, 250, 1500};
    cs_sql_exec_ctx ctx = t_ctx();
    for (int c = 0; c < 4; c++) {
        cs_error err = {0};
        cs_sql_op *op = cs_sql_op_top_n(grow_op(g, n, 1024), &key, 1, limits[c], 3, &err);
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.rc, CS_OK);
        assert_int_equal(got.n, limits[c]);
        for (int64_t i = 0; i < limits[c]; i++) {
            const grow *w = &sorted[3 + i];
            char want[64];
            snprintf(want, sizeof want, "%lld|'%s'|%lld", (long long)w->a, w->b, (long long)w->id);
            assert_string_equal(got.row[i], want);
        }
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    free(sorted);
    free(g);
}

static void test_limit_offset_across_batches(void **state)
{
    int64_t n = 50;
    grow *g = gen_rows(n, 23);
    cs_sql_exec_ctx ctx = t_ctx();
    int64_t cases[][2] = {{10, 3}, {-1, 20}, {0, 0}, {100, 45}, {7, 0}, {5, 60}};
    for (int c = 0; c < 6; c++) {
        int64_t limit = cases[c][0], offset = cases[c][1];
        cs_error err = {0};
        cs_sql_op *leaf = grow_op(g, n, 7);
        cs_sql_op *op = cs_sql_op_limit(leaf, limit, offset, &err);
        t_rows got = t_run(op, &ctx);
        int64_t from = offset < n ? offset : n;
        int64_t to = limit < 0 || from + limit > n ? n : from + limit;
        assert_int_equal(got.n, to - from);
        for (int64_t i = from; i < to; i++) {
            char want[64];
            if (g[i].a_null)
                snprintf(want, sizeof want, "NULL|'%s'|%lld", g[i].b, (long long)i);
            else
                snprintf(want, sizeof want, "%lld|'%s'|%lld", (long long)g[i].a, g[i].b,
                         (long long)i);
            assert_string_equal(got.row[i - from], want);
        }
        if (limit == 10) /* 13 rows needed: two batches of 7 pulled, no more */
            assert_int_equal(leaf->metrics.batches_out, 2);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles_in_spark_order),
        cmocka_unit_test(test_strings_bytewise),
        cmocka_unit_test(test_byte_strings_with_zero_bytes_both_directions),
        cmocka_unit_test(test_multi_key_stable_sort_equals_reference),
        cmocka_unit_test(test_spilled_runs_merge_to_the_in_memory_order),
        cmocka_unit_test(test_top_n_equals_sort_then_limit),
        cmocka_unit_test(test_top_n_ties_with_its_worst_row_arriving_later),
        cmocka_unit_test(test_limit_offset_across_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
