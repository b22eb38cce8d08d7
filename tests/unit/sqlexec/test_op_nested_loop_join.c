/*
 * test_op_nested_loop_join.c — the nested loop join (src/sqlexec/op_nested_loop_join.c): every
 * join type (inner, left / right / full outer, left semi, left anti) building either side, with a
 * condition (l.k = r.k and l.v < r.w, null keys never equal) and without one (the cross product;
 * semi / anti against an empty and a non-empty other side), against a nested loop computed here;
 * inputs in several batches and pair blocks smaller than a probe row's pairs; a condition that
 * fails stops the join with its error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

typedef struct side {
    int64_t *k, *v;
    uint8_t *kv;
    int64_t n;
} side;

static cs_sql_op *side_op(const side *s, const char *k, const char *v, int64_t batch)
{
    const char *names[] = {k, v};
    cs_col_type *schema = t_schema(2, names,
                                   (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_LONG),
                                                     cs_col_type_primitive(CS_TYPE_LONG)});
    int nb = 0;
    cs_col_batch **b = calloc((size_t)(s->n / batch + 2), sizeof *b);
    for (int64_t at = 0; at < s->n; at += batch) {
        int64_t n = s->n - at < batch ? s->n - at : batch;
        b[nb++] = t_batch(
            schema, (cs_column *[]){t_longs(s->k + at, n, s->kv + at), t_longs(s->v + at, n, NULL)},
            n);
    }
    cs_sql_op *op = t_leaf(schema, b, nb);
    free(b);
    cs_col_type_unref(schema);
    return op;
}

static bool cond_holds(const side *l, int64_t i, const side *r, int64_t j)
{
    return l->kv[i] && r->kv[j] && l->k[i] == r->k[j] && l->v[i] < r->v[j];
}

/* l.k = r.k and l.v < r.w over pairs (lk, lv, rk, rw). */
static int cond_fn(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err)
{
    (*(int *)arg)++;
    cs_column *lk = pairs->columns[0], *rk = pairs->columns[2];
    const int64_t *lkv = (const int64_t *)(void *)lk->values;
    const int64_t *rkv = (const int64_t *)(void *)rk->values;
    const int64_t *lv = (const int64_t *)(void *)pairs->columns[1]->values;
    const int64_t *rw = (const int64_t *)(void *)pairs->columns[3]->values;
    for (int64_t i = 0; i < pairs->num_rows; i++)
        keep[i] = cs_column_is_valid(lk, i) && cs_column_is_valid(rk, i) && lkv[i] == rkv[i] &&
                  lv[i] < rw[i];
    return CS_OK;
}

static int failing_cond(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err)
{
    return cs_error_set(err, CS_ETASK, "DIVIDE_BY_ZERO in the condition");
}

static void key_str(const side *s, int64_t i, char *out, size_t n)
{
    if (s->kv[i])
        snprintf(out, n, "%lld", (long long)s->k[i]);
    else
        snprintf(out, n, "NULL");
}

static t_rows reference(cs_hash_join_type type, const side *l, const side *r, bool with_cond)
{
    t_rows out = {0};
    char line[256], lk[32], rk[32];
    uint8_t *rmatched = calloc((size_t)r->n + 1, 1);
    for (int64_t i = 0; i < l->n; i++) {
        bool any = false;
        key_str(l, i, lk, sizeof lk);
        for (int64_t j = 0; j < r->n; j++) {
            if (with_cond && !cond_holds(l, i, r, j)) continue;
            any = true;
            rmatched[j] = 1;
            if (type <= CS_HJ_FULL_OUTER) {
                key_str(r, j, rk, sizeof rk);
                snprintf(line, sizeof line, "%s|%lld|%s|%lld", lk, (long long)l->v[i], rk,
                         (long long)r->v[j]);
                t_rows_add(&out, line);
            }
        }
        bool keep_left = (type == CS_HJ_LEFT_SEMI && any) || (type == CS_HJ_LEFT_ANTI && !any);
        if ((type == CS_HJ_LEFT_OUTER || type == CS_HJ_FULL_OUTER) && !any) {
            snprintf(line, sizeof line, "%s|%lld|NULL|NULL", lk, (long long)l->v[i]);
            t_rows_add(&out, line);
        }
        if (keep_left) {
            snprintf(line, sizeof line, "%s|%lld", lk, (long long)l->v[i]);
            t_rows_add(&out, line);
        }
    }
    if (type == CS_HJ_RIGHT_OUTER || type == CS_HJ_FULL_OUTER)
        for (int64_t j = 0; j < r->n; j++)
            if (!rmatched[j]) {
                key_str(r, j, rk, sizeof rk);
                snprintf(line, sizeof line, "NULL|NULL|%s|%lld", rk, (long long)r->v[j]);
                t_rows_add(&out, line);
            }
    free(rmatched);
    t_rows_sort(&out);
    return out;
}

static const char *const type_names[] = {"inner", "left", "right", "full", "semi", "anti"};

static void check_all(const side *l, const side *r, int64_t batch, const cs_sql_exec_ctx *ctx)
{
    for (int type = CS_HJ_INNER; type <= CS_HJ_LEFT_ANTI; type++)
        for (int build = 0; build < 2; build++)
            for (int with_cond = 0; with_cond < 2; with_cond++) {
                int calls = 0;
                cs_error err = {0};
                cs_sql_op *op = cs_sql_op_nested_loop_join(
                    side_op(l, "lk", "lv", batch), side_op(r, "rk", "rw", batch),
                    (cs_hash_join_type)type, build ? CS_BUILD_LEFT : CS_BUILD_RIGHT,
                    with_cond ? cond_fn : NULL, &calls, &err);
                assert_non_null(op);
                t_rows got = t_run(op, ctx);
                if (got.rc != CS_OK) fprintf(stderr, "%s\n", got.err.msg);
                assert_int_equal(got.rc, CS_OK);
                t_rows_sort(&got);
                t_rows want = reference((cs_hash_join_type)type, l, r, with_cond);
                if (!t_rows_equal(&want, &got))
                    fail_msg("%s join, build %s, condition %d", type_names[type],
                             build ? "left" : "right", with_cond);
                if (with_cond && l->n > 0 && r->n > 0) assert_true(calls > 0);
                t_rows_free(&want);
                t_rows_free(&got);
                cs_sql_op_free(op);
            }
}

static void test_every_join_type_with_and_without_condition(void **state)
{
    int64_t lk[] = {1, 1, 2, 0, 3, 5, 0, 2};
    uint8_t lkv[] = {1, 1, 1, 0, 1, 1, 0, 1};
    int64_t lv[] = {10, 11, 12, 13, 14, 15, 16, 17};
    int64_t rk[] = {1, 2, 2, 0, 4, 1, 0};
    uint8_t rkv[] = {1, 1, 1, 0, 1, 1, 0};
    int64_t rw[] = {20, 5, 30, 40, 50, 10, 60};
    side l = {lk, lv, lkv, 8}, r = {rk, rw, rkv, 7};
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 5; /* blocks smaller than a probe row's 7 pairs */
    check_all(&l, &r, 3, &ctx);
    ctx.batch_rows = 0;
    check_all(&l, &r, 4, &ctx);
}

static void test_empty_sides(void **state)
{
    int64_t k[] = {1, 2, 3};
    uint8_t kv[] = {1, 1, 1};
    int64_t v[] = {1, 2, 3};
    side full = {k, v, kv, 3}, empty = {k, v, kv, 0};
    cs_sql_exec_ctx ctx = t_ctx();
    check_all(&full, &empty, 2, &ctx);
    check_all(&empty, &full, 2, &ctx);
    check_all(&empty, &empty, 2, &ctx);
}

static void test_cross_product_in_many_blocks(void **state)
{
    enum { NL = 300, NR = 70 };
    side l = {malloc(8 * NL), malloc(8 * NL), malloc(NL), NL};
    side r = {malloc(8 * NR), malloc(8 * NR), malloc(NR), NR};
    uint64_t seed = 42;
    for (int i = 0; i < NL; i++) {
        l.k[i] = (int64_t)(t_rand(&seed) % 9);
        l.kv[i] = t_rand(&seed) % 10 != 0;
        l.v[i] = (int64_t)(t_rand(&seed) % 100);
    }
    for (int i = 0; i < NR; i++) {
        r.k[i] = (int64_t)(t_rand(&seed) % 9);
        r.kv[i] = t_rand(&seed) % 10 != 0;
        r.v[i] = (int64_t)(t_rand(&seed) % 100);
    }
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 64;
    check_all(&l, &r, 33, &ctx);
    free(l.k), free(l.v), free(l.kv), free(r.k), free(r.v), free(r.kv);
}

static void test_condition_error_stops_the_join(void **state)
{
    int64_t k[] = {1, 2};
    uint8_t kv[] = {1, 1};
    side s = {k, k, kv, 2};
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_nested_loop_join(side_op(&s, "a", "b", 2), side_op(&s, "c", "d", 2), CS_HJ_INNER,
                                   CS_BUILD_RIGHT, failing_cond, NULL, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_ETASK);
    assert_non_null(strstr(got.err.msg, "DIVIDE_BY_ZERO"));
    t_rows_free(&got);
    cs_sbuf sb = {0};
    cs_sql_op_explain(op, &sb);
    assert_non_null(strstr(sb.data, "BroadcastNestedLoopJoin BuildRight, Inner"));
    cs_sbuf_free(&sb);
    cs_sql_op_free(op);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_join_type_with_and_without_condition),
        cmocka_unit_test(test_empty_sides),
        cmocka_unit_test(test_cross_product_in_many_blocks),
        cmocka_unit_test(test_condition_error_stops_the_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
