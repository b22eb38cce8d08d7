/*
 * test_op_hash_join.c — HashJoin (src/sqlexec/op_hash_join.c): every join type (inner, left,
 * right and full outer, left semi, left anti, null-aware anti) building either side, with null
 * and duplicate keys, with and without a residual condition, against a nested-loop reference
 * computed here, on a small and on a generated input in many batches; string keys; int and
 * short keys (compared by value); two integral keys (compared as two words); grace hash
 * partitioning under a small task memory equal to the in-memory result with spill metrics set; a
 * key group larger than the task memory joined block by block, equal to the in-memory result;
 * semi and anti joins under a condition against key groups of thousands of rows (decided by the
 * first pair that holds), and building the left side (a build row paired until it matches); a
 * build side of 150,000 rows probed by mostly missing keys; a broadcast
 * build side whose table is built once per process (the broadcast store's derived value) and
 * probed by many tasks at once, each giving the reference's rows, and freed when the broadcast
 * goes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>

#include "broadcast/broadcast_store.h"
#include "op_test_util.h"
#include "sqlexec/phys_plan.h"

typedef struct side {
    int64_t *k, *v;
    uint8_t *kv;
    int64_t n;
} side;

static cs_col_type *side_schema(const char *k, const char *v)
{
    const char *names[] = {k, v};
    return t_schema(2, names,
                    (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_LONG),
                                      cs_col_type_primitive(CS_TYPE_LONG)});
}

static cs_sql_op *side_op(const side *s, const char *k, const char *v, int64_t batch)
{
    cs_col_type *schema = side_schema(k, v);
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

static bool cond_holds(int64_t lv, int64_t rw)
{
    return lv < rw;
}

/* The residual condition l.v < r.w over pairs (lk, lv, rk, rw). */
static int cond_fn(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err)
{
    (*(int *)arg)++;
    const int64_t *lv = (const int64_t *)(void *)pairs->columns[1]->values;
    const int64_t *rw = (const int64_t *)(void *)pairs->columns[3]->values;
    for (int64_t i = 0; i < pairs->num_rows; i++)
        keep[i] = cond_holds(lv[i], rw[i]);
    return CS_OK;
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
    bool r_null = false;
    for (int64_t j = 0; j < r->n; j++)
        r_null |= !r->kv[j];
    for (int64_t i = 0; i < l->n; i++) {
        bool any = false;
        key_str(l, i, lk, sizeof lk);
        for (int64_t j = 0; j < r->n; j++) {
            if (!l->kv[i] || !r->kv[j] || l->k[i] != r->k[j]) continue;
            if (with_cond && !cond_holds(l->v[i], r->v[j])) continue;
            any = true;
            rmatched[j] = 1;
            if (type <= CS_HJ_FULL_OUTER) {
                key_str(r, j, rk, sizeof rk);
                snprintf(line, sizeof line, "%s|%lld|%s|%lld", lk, (long long)l->v[i], rk,
                         (long long)r->v[j]);
                t_rows_add(&out, line);
            }
        }
        bool keep_left = false;
        if (type == CS_HJ_LEFT_OUTER || type == CS_HJ_FULL_OUTER) {
            if (!any) {
                snprintf(line, sizeof line, "%s|%lld|NULL|NULL", lk, (long long)l->v[i]);
                t_rows_add(&out, line);
            }
        } else if (type == CS_HJ_LEFT_SEMI) {
            keep_left = any;
        } else if (type == CS_HJ_LEFT_ANTI) {
            keep_left = !any;
        } else if (type == CS_HJ_LEFT_ANTI_NULL_AWARE) {
            keep_left = r->n == 0 || (!r_null && l->kv[i] && !any);
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

static const char *const type_names[] = {"inner", "left", "right",          "full",
                                         "semi",  "anti", "null-aware anti"};

/* Runs every join type, both build sides, with and without the condition, against reference. */
static void check_all(const side *l, const side *r, int64_t batch, const cs_sql_exec_ctx *ctx,
                      int64_t *spills)
{
    for (int type = CS_HJ_INNER; type <= CS_HJ_LEFT_ANTI_NULL_AWARE; type++)
        for (int build = 0; build < 2; build++)
            for (int with_cond = 0; with_cond < 2; with_cond++) {
                if (type == CS_HJ_LEFT_ANTI_NULL_AWARE && (build || with_cond)) continue;
                int calls = 0;
                cs_join_spec spec = {.type = (cs_hash_join_type)type,
                                     .build = build ? CS_BUILD_LEFT : CS_BUILD_RIGHT,
                                     .left_keys = (int[]){0},
                                     .right_keys = (int[]){0},
                                     .n_keys = 1,
                                     .condition = with_cond ? cond_fn : NULL,
                                     .condition_arg = &calls};
                cs_error err = {0};
                cs_sql_op *op = cs_sql_op_hash_join(side_op(l, "lk", "lv", batch),
                                                    side_op(r, "rk", "rw", batch), &spec, &err);
                assert_non_null(op);
                t_rows got = t_run(op, ctx);
                if (got.rc != CS_OK) fprintf(stderr, "%s\n", got.err.msg);
                assert_int_equal(got.rc, CS_OK);
                t_rows_sort(&got);
                t_rows want = reference((cs_hash_join_type)type, l, r, with_cond);
                if (!t_rows_equal(&want, &got))
                    fail_msg("%s join, build %s, condition %d", type_names[type],
                             build ? "left" : "right", with_cond);
                if (with_cond && type == CS_HJ_INNER && want.n > 0) assert_true(calls > 0);
                if (spills) *spills += op->metrics.spill_count;
                t_rows_free(&want);
                t_rows_free(&got);
                cs_sql_op_free(op);
            }
}

static void test_every_join_type_small_with_null_and_duplicate_keys(void **state)
{
    int64_t lk[] = {1, 1, 2, 0, 3, 5, 0, 2};
    uint8_t lkv[] = {1, 1, 1, 0, 1, 1, 0, 1};
    int64_t lv[] = {10, 11, 12, 13, 14, 15, 16, 17};
    int64_t rk[] = {1, 2, 2, 0, 4, 1, 0};
    uint8_t rkv[] = {1, 1, 1, 0, 1, 1, 0};
    int64_t rw[] = {20, 5, 30, 40, 50, 10, 60};
    side l = {lk, lv, lkv, 8}, r = {rk, rw, rkv, 7};
    cs_sql_exec_ctx ctx = t_ctx();
    check_all(&l, &r, 3, &ctx, NULL);
    /* a right side without null keys, for the null-aware anti join's other branch */
    uint8_t all[] = {1, 1, 1, 1, 1, 1, 1};
    side r2 = {rk, rw, all, 7};
    check_all(&l, &r2, 4, &ctx, NULL);
    /* an empty right side */
    side r3 = {rk, rw, all, 0};
    check_all(&l, &r3, 4, &ctx, NULL);
}

static side gen_side(int64_t n, int64_t keys, uint64_t seed)
{
    side s = {malloc(8 * (size_t)n), malloc(8 * (size_t)n), malloc((size_t)n), n};
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = t_rand(&seed);
        s.k[i] = (int64_t)(x % (uint64_t)keys);
        s.kv[i] = (x >> 40) % 20 != 0;
        s.v[i] = (int64_t)((x >> 20) % 1000);
    }
    return s;
}

static void free_side(side *s)
{
    free(s->k);
    free(s->v);
    free(s->kv);
}

static void test_every_join_type_generated(void **state)
{
    side l = gen_side(1500, 400, 1), r = gen_side(1000, 300, 2);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 100; /* many output chunks per probe batch */
    check_all(&l, &r, 256, &ctx, NULL);
    free_side(&l);
    free_side(&r);
}

static void test_string_and_two_column_keys(void **state)
{
    const char *names[] = {"s", "n"};
    cs_col_type *schema = t_schema(2, names,
                                   (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_STRING),
                                                     cs_col_type_primitive(CS_TYPE_LONG)});
    const char *ls[] = {"a", "b", "", "a\0x", NULL, "b"};
    int64_t ln[] = {1, 2, 3, 4, 5, 2};
    const char *rs[] = {"a", "b", "", "a", NULL, "bb"};
    int64_t rn[] = {1, 2, 3, 9, 5, 2};
    cs_col_batch *lb[1] = {
        t_batch(schema, (cs_column *[]){t_strings(ls, 6), t_longs(ln, 6, NULL)}, 6)};
    cs_col_batch *rb[1] = {
        t_batch(schema, (cs_column *[]){t_strings(rs, 6), t_longs(rn, 6, NULL)}, 6)};
    cs_join_spec spec = {
        .type = CS_HJ_INNER, .left_keys = (int[]){0, 1}, .right_keys = (int[]){0, 1}, .n_keys = 2};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_hash_join(t_leaf(schema, lb, 1), t_leaf(schema, rb, 1), &spec, &err);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    t_rows_sort(&got);
    assert_int_equal(got.n, 4);
    assert_string_equal(got.row[0], "''|3|''|3");
    assert_string_equal(got.row[1], "'a'|1|'a'|1");
    assert_string_equal(got.row[2], "'b'|2|'b'|2");
    assert_string_equal(got.row[3], "'b'|2|'b'|2");
    t_rows_free(&got);
    cs_sbuf sb = {0};
    cs_sql_op_explain(op, &sb);
    assert_string_equal(sb.data, "ShuffledHashJoin [s, n], [s, n], Inner, BuildRight\n"
                                 ":- LocalTableScan [1 batches]\n"
                                 "+- LocalTableScan [1 batches]\n");
    cs_sbuf_free(&sb);
    cs_sql_op_free(op);
    /* keys of different types are refused */
    spec.right_keys = (int[]){1, 0};
    assert_null(cs_sql_op_hash_join(t_leaf(schema, NULL, 0), t_leaf(schema, NULL, 0), &spec, &err));
    assert_non_null(strstr(err.msg, "one hashable type"));
    cs_col_type_unref(schema);
}

/* Integral keys narrower than a long are joined by their value: negative values, the type's
 * extremes and nulls, an int and a short key, inner and anti. */
static void test_narrow_integer_keys_by_value(void **state)
{
    const char *names[] = {"k", "v"};
    cs_type_id ids[] = {CS_TYPE_INT, CS_TYPE_SHORT};
    for (int t = 0; t < 2; t++) {
        bool is_int = ids[t] == CS_TYPE_INT;
        cs_col_type *schema = t_schema(
            2, names,
            (cs_col_type *[]){cs_col_type_primitive(ids[t]), cs_col_type_primitive(CS_TYPE_LONG)});
        int32_t li[] = {-1, 0, 1, -1, 7, INT32_MAX, INT32_MIN};
        int32_t ri[] = {-1, 7, INT32_MIN, 5, 0};
        int16_t ls[] = {-1, 0, 1, -1, 7, INT16_MAX, INT16_MIN};
        int16_t rs[] = {-1, 7, INT16_MIN, 5, 0};
        uint8_t lvalid[] = {1, 1, 1, 1, 0, 1, 1}, rvalid[] = {1, 0, 1, 1, 1};
        int64_t lv[] = {10, 11, 12, 13, 14, 15, 16}, rv[] = {20, 21, 22, 23, 24};
        for (int anti = 0; anti < 2; anti++) {
            cs_col_batch *lb[1] = {
                t_batch(schema,
                        (cs_column *[]){t_fixed(cs_col_type_primitive(ids[t]),
                                                is_int ? (void *)li : (void *)ls, 7, lvalid),
                                        t_longs(lv, 7, NULL)},
                        7)};
            cs_col_batch *rb[1] = {
                t_batch(schema,
                        (cs_column *[]){t_fixed(cs_col_type_primitive(ids[t]),
                                                is_int ? (void *)ri : (void *)rs, 5, rvalid),
                                        t_longs(rv, 5, NULL)},
                        5)};
            cs_join_spec spec = {.type = anti ? CS_HJ_LEFT_ANTI : CS_HJ_INNER,
                                 .left_keys = (int[]){0},
                                 .right_keys = (int[]){0},
                                 .n_keys = 1};
            cs_error err = {0};
            cs_sql_op *op =
                cs_sql_op_hash_join(t_leaf(schema, lb, 1), t_leaf(schema, rb, 1), &spec, &err);
            assert_non_null(op);
            cs_sql_exec_ctx ctx = t_ctx();
            t_rows got = t_run(op, &ctx);
            t_rows_sort(&got);
            if (!anti) { /* -1 twice with -1, 0 with 0, the minimum with the minimum */
                assert_int_equal(got.n, 4);
                const char *want[] = {"|10|", "|11|", "|13|", "|16|"};
                for (int w = 0; w < 4; w++) {
                    int found = 0;
                    for (int64_t i = 0; i < got.n; i++)
                        found += strstr(got.row[i], want[w]) != NULL;
                    assert_int_equal(found, 1);
                }
            } else { /* 1, the null key and the maximum have no match */
                assert_int_equal(got.n, 3);
            }
            t_rows_free(&got);
            cs_sql_op_free(op);
        }
        cs_col_type_unref(schema);
    }
}

/* Two integral keys (an int and a long: TPC-H's composite keys) are compared as two words: a row
 * matches only when both are equal (not swapped), a null in either never matches, duplicates on
 * both sides pair up; inner building either side, and anti. */
static void test_two_integral_keys_as_words(void **state)
{
    const char *names[] = {"a", "b"};
    cs_col_type *schema = t_schema(
        2, names,
        (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_INT), cs_col_type_primitive(CS_TYPE_LONG)});
    int32_t la[] = {1, 1, 2, 0, 1, 1, 3, 10}, ra[] = {1, 2, 2, 0, 1, 3, 1};
    int64_t lb[] = {10, 20, 10, 10, 0, 10, 30, 1}, rb[] = {10, 10, 20, 10, 0, 31, 10};
    uint8_t la_ok[] = {1, 1, 1, 0, 1, 1, 1, 1}, lb_ok[] = {1, 1, 1, 1, 0, 1, 1, 1};
    uint8_t ra_ok[] = {1, 1, 1, 0, 1, 1, 1}, rb_ok[] = {1, 1, 1, 1, 0, 1, 1};
    for (int c = 0; c < 3; c++) { /* inner building right, inner building left, anti */
        cs_col_batch *l[1] = {
            t_batch(schema,
                    (cs_column *[]){t_fixed(cs_col_type_primitive(CS_TYPE_INT), la, 8, la_ok),
                                    t_longs(lb, 8, lb_ok)},
                    8)};
        cs_col_batch *r[1] = {
            t_batch(schema,
                    (cs_column *[]){t_fixed(cs_col_type_primitive(CS_TYPE_INT), ra, 7, ra_ok),
                                    t_longs(rb, 7, rb_ok)},
                    7)};
        cs_join_spec spec = {.type = c == 2 ? CS_HJ_LEFT_ANTI : CS_HJ_INNER,
                             .build = c == 1 ? CS_BUILD_LEFT : CS_BUILD_RIGHT,
                             .left_keys = (int[]){0, 1},
                             .right_keys = (int[]){0, 1},
                             .n_keys = 2};
        cs_error err = {0};
        cs_sql_op *op =
            cs_sql_op_hash_join(t_leaf(schema, l, 1), t_leaf(schema, r, 1), &spec, &err);
        assert_non_null(op);
        cs_sql_exec_ctx ctx = t_ctx();
        t_rows got = t_run(op, &ctx);
        t_rows_sort(&got);
        if (c < 2) { /* (1, 10) twice on each side: 4 pairs; (2, 10) once */
            assert_int_equal(got.n, 5);
            for (int i = 0; i < 4; i++)
                assert_string_equal(got.row[i], "1|10|1|10");
            assert_string_equal(got.row[4], "2|10|2|10");
        } else { /* (1, 20), the two with a null, (3, 30) and (10, 1) have no match */
            assert_int_equal(got.n, 5);
        }
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    cs_col_type_unref(schema);
}

static void test_grace_partitioning_equals_in_memory(void **state)
{
    side l = gen_side(60000, 20000, 3), r = gen_side(120000, 30000, 4);
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.alloc = &alloc;
    ctx.task_memory = &tm;
    /* the inputs' batches are charged too, as a scan's would be: build them with alloc */
    int64_t spills = 0;
    for (int type = CS_HJ_INNER; type <= CS_HJ_LEFT_ANTI; type++) {
        cs_join_spec spec = {.type = (cs_hash_join_type)type,
                             .left_keys = (int[]){0},
                             .right_keys = (int[]){0},
                             .n_keys = 1};
        cs_error err = {0};
        cs_sql_exec_ctx mem = t_ctx();
        cs_sql_op *a = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 4096),
                                           side_op(&r, "rk", "rw", 4096), &spec, &err);
        t_rows want = t_run(a, &mem);
        assert_int_equal(a->metrics.spill_count, 0);
        cs_sql_op *b = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 4096),
                                           side_op(&r, "rk", "rw", 4096), &spec, &err);
        t_rows got = t_run(b, &ctx);
        assert_int_equal(got.rc, CS_OK);
        spills += b->metrics.spill_count;
        assert_true(b->metrics.spill_bytes > 0);
        t_rows_sort(&want);
        t_rows_sort(&got);
        if (!t_rows_equal(&want, &got)) fail_msg("%s join", type_names[type]);
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(a);
        cs_sql_op_free(b);
    }
    assert_true(spills > 0);
    assert_true(tm.spilled_bytes > 0);
    assert_int_equal(tm.used, 0);
    free_side(&l);
    free_side(&r);
}

/* One key group of the right side (60000 rows of key 7) is larger than the 1 MiB task memory:
 * its grace partition is joined block by block. Every join type building the right side (the
 * big group built) and the left side (probed) gives the in-memory rows, and building the right
 * side holds less than half the in-memory build. */
static void test_key_group_larger_than_memory_joins_in_blocks(void **state)
{
    side l = gen_side(20000, 5000, 5), r = gen_side(80000, 5000, 6);
    for (int64_t i = 0; i < l.n; i++)
        if (l.k[i] == 7) l.k[i] = 8; /* the left side's key 7: rows 100 and 200 only */
    l.k[100] = l.k[200] = 7;
    l.kv[100] = l.kv[200] = 1;
    for (int64_t i = 0; i < 60000; i++) {
        r.k[i * 4 / 3] = 7;
        r.kv[i * 4 / 3] = 1;
    }
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.alloc = &alloc;
    ctx.task_memory = &tm;
    for (int build = 0; build < 2; build++)
        for (int type = CS_HJ_INNER; type <= CS_HJ_LEFT_ANTI_NULL_AWARE; type++) {
            if (type == CS_HJ_LEFT_ANTI_NULL_AWARE && build) continue;
            cs_join_spec spec = {.type = (cs_hash_join_type)type,
                                 .build = build ? CS_BUILD_LEFT : CS_BUILD_RIGHT,
                                 .left_keys = (int[]){0},
                                 .right_keys = (int[]){0},
                                 .n_keys = 1};
            cs_error err = {0};
            cs_sql_exec_ctx mem = t_ctx();
            cs_sql_op *a = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 4096),
                                               side_op(&r, "rk", "rw", 4096), &spec, &err);
            t_rows want = t_run(a, &mem);
            assert_int_equal(want.rc, CS_OK);
            cs_sql_op *b = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 4096),
                                               side_op(&r, "rk", "rw", 4096), &spec, &err);
            t_rows got = t_run(b, &ctx);
            if (got.rc != CS_OK) fail_msg("%s", got.err.msg);
            if (!build) assert_true(b->metrics.spill_count > 0); /* the big group is built */
            /* the peak is not compared with the in-memory run's: this test's leaf batches are not
             * charged to the task's memory, so the build side is only found over its share once
             * indexed (in a plan, the batches a child makes are charged as they come) */
            t_rows_sort(&want);
            t_rows_sort(&got);
            if (!t_rows_equal(&want, &got))
                fail_msg("%s join building %s", type_names[type], build ? "left" : "right");
            t_rows_free(&want);
            t_rows_free(&got);
            cs_sql_op_free(a);
            cs_sql_op_free(b);
        }
    assert_int_equal(tm.used, 0);
    free_side(&l);
    free_side(&r);
}

/* A residual condition counting the pairs it is given (arg: the count). */
static int counting_cond_fn(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err)
{
    *(int64_t *)arg += pairs->num_rows;
    int calls = 0;
    return cond_fn(&calls, pairs, keep, err);
}

/* Semi and anti joins probing the left side under a condition, against key groups of thousands
 * of build rows (the condition holding for some of a group's rows, or none): every probe row
 * is decided as by the nested-loop reference, with output chunks of 64 rows so a round's pairs
 * span many chunks, and the semi join is given fewer pairs than the key groups hold (a row leaves
 * once a pair holds). */
static void test_semi_anti_long_key_groups_decided_by_first_holding_pair(void **state)
{
    side l = gen_side(400, 40, 7), r = gen_side(9000, 40, 8);
    for (int64_t i = 0; i < r.n; i++) { /* key 5: 4000 rows, key 6: 3000, the rest 2000 */
        if (i < 4000)
            r.k[i] = 5;
        else if (i < 7000)
            r.k[i] = 6;
        r.kv[i] = r.kv[i] || i < 7000;
        r.v[i] = i % 997 == 0 ? 2000 : r.v[i] % 500; /* lv < rw holds for some of a group */
    }
    for (int64_t i = 0; i < r.n; i++)
        if (r.k[i] == 6) r.v[i] = 0; /* key 6: the condition never holds */
    int64_t group_pairs = 0;
    for (int64_t i = 0; i < l.n; i++)
        for (int64_t j = 0; j < r.n; j++)
            group_pairs += l.kv[i] && r.kv[j] && l.k[i] == r.k[j];
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 64;
    for (int type = CS_HJ_LEFT_SEMI; type <= CS_HJ_LEFT_ANTI; type++) {
        int64_t seen = 0;
        cs_join_spec spec = {.type = (cs_hash_join_type)type,
                             .build = CS_BUILD_RIGHT,
                             .left_keys = (int[]){0},
                             .right_keys = (int[]){0},
                             .n_keys = 1,
                             .condition = counting_cond_fn,
                             .condition_arg = &seen};
        cs_error err = {0};
        cs_sql_op *op = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 128),
                                            side_op(&r, "rk", "rw", 1000), &spec, &err);
        assert_non_null(op);
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.rc, CS_OK);
        t_rows_sort(&got);
        t_rows want = reference((cs_hash_join_type)type, &l, &r, true);
        if (!t_rows_equal(&want, &got)) fail_msg("%s join", type_names[type]);
        assert_true(seen > 0);
        assert_true(seen < group_pairs);
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    free_side(&l);
    free_side(&r);
}

/* Semi and anti joins building the left side under a condition, probed by key groups of
 * thousands of rows (the condition holding for some of a group's pairs, or, key 6, none): the
 * rows equal the reference's, and both joins are given fewer pairs than the groups hold (a build
 * row already matched is not paired again, and a build row has one pair per chunk at a time);
 * chunks of 64 pairs and probe batches of 1,000 rows fill the waiting pairs' list. */
static void test_semi_anti_building_left_pair_each_build_row_until_it_matches(void **state)
{
    side l = gen_side(400, 40, 9), r = gen_side(9000, 40, 10);
    for (int64_t i = 0; i < r.n; i++) { /* key 5: 4000 rows, key 6: 3000, the rest 2000 */
        if (i < 4000)
            r.k[i] = 5;
        else if (i < 7000)
            r.k[i] = 6;
        r.kv[i] = r.kv[i] || i < 7000;
        r.v[i] = r.k[i] == 6 ? 0 : r.v[i] % 500; /* key 6: lv < rw never holds */
    }
    int64_t group_pairs = 0;
    for (int64_t i = 0; i < l.n; i++)
        for (int64_t j = 0; j < r.n; j++)
            group_pairs += l.kv[i] && r.kv[j] && l.k[i] == r.k[j];
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 64;
    for (int type = CS_HJ_LEFT_SEMI; type <= CS_HJ_LEFT_ANTI; type++) {
        int64_t seen = 0;
        cs_join_spec spec = {.type = (cs_hash_join_type)type,
                             .build = CS_BUILD_LEFT,
                             .left_keys = (int[]){0},
                             .right_keys = (int[]){0},
                             .n_keys = 1,
                             .condition = counting_cond_fn,
                             .condition_arg = &seen};
        cs_error err = {0};
        cs_sql_op *op = cs_sql_op_hash_join(side_op(&l, "lk", "lv", 128),
                                            side_op(&r, "rk", "rw", 1000), &spec, &err);
        assert_non_null(op);
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.rc, CS_OK);
        t_rows_sort(&got);
        t_rows want = reference((cs_hash_join_type)type, &l, &r, true);
        if (!t_rows_equal(&want, &got)) fail_msg("%s join", type_names[type]);
        assert_true(seen > 0);
        assert_true(seen < group_pairs);
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    free_side(&l);
    free_side(&r);
}

/* The rows of an inner, semi or anti join (no condition) of l and r on keys in [0, kmax), by a
 * direct-address index of r's keys (the nested-loop reference is too slow at this size). */
static t_rows reference_by_key(cs_hash_join_type type, const side *l, const side *r, int64_t kmax)
{
    int64_t *first = malloc(sizeof *first * (size_t)kmax),
            *next = malloc(sizeof *next * (size_t)r->n);
    for (int64_t k = 0; k < kmax; k++)
        first[k] = -1;
    for (int64_t j = r->n - 1; j >= 0; j--)
        if (r->kv[j]) {
            next[j] = first[r->k[j]];
            first[r->k[j]] = j;
        }
    t_rows out = {0};
    char line[256];
    for (int64_t i = 0; i < l->n; i++) {
        int64_t j = l->kv[i] ? first[l->k[i]] : -1;
        if (type == CS_HJ_INNER)
            for (; j >= 0; j = next[j]) {
                snprintf(line, sizeof line, "%lld|%lld|%lld|%lld", (long long)l->k[i],
                         (long long)l->v[i], (long long)r->k[j], (long long)r->v[j]);
                t_rows_add(&out, line);
            }
        else if ((type == CS_HJ_LEFT_SEMI) == (j >= 0)) {
            if (l->kv[i])
                snprintf(line, sizeof line, "%lld|%lld", (long long)l->k[i], (long long)l->v[i]);
            else
                snprintf(line, sizeof line, "NULL|%lld", (long long)l->v[i]);
            t_rows_add(&out, line);
        }
    }
    free(first);
    free(next);
    t_rows_sort(&out);
    return out;
}

/* A build side of 150,000 rows (100,000 distinct keys, half of them twice, nulls among them) in
 * one index: its slots' row numbers take 17 bits, so their hash tags are narrow, and most probe
 * keys are missing (a probe's run of slots passed by tags alone) or meet another key's slot
 * first. Inner, semi and anti joins, building either side, give the reference's rows. */
static void test_big_build_side_mostly_missing_probe_keys(void **state)
{
    side big = {malloc(8 * 150000), malloc(8 * 150000), malloc(150000), 150000};
    for (int64_t i = 0; i < big.n; i++) {
        big.k[i] = i < 100000 ? 2 * i : 2 * (i - 100000); /* even keys, the first 50,000 twice */
        big.kv[i] = i % 1000 != 999;
        big.v[i] = i;
    }
    side small = {malloc(8 * 60000), malloc(8 * 60000), malloc(60000), 60000};
    for (int64_t i = 0; i < small.n; i++) {
        small.k[i] = 5 * i; /* even and under 200,000 (a match) for one in five */
        small.kv[i] = i % 777 != 0;
        small.v[i] = -i;
    }
    cs_sql_exec_ctx ctx = t_ctx();
    cs_hash_join_type types[] = {CS_HJ_INNER, CS_HJ_LEFT_SEMI, CS_HJ_LEFT_ANTI};
    for (int t = 0; t < 3; t++)
        for (int build = 0; build < 2; build++) {
            cs_join_spec spec = {.type = types[t],
                                 .build = build ? CS_BUILD_LEFT : CS_BUILD_RIGHT,
                                 .left_keys = (int[]){0},
                                 .right_keys = (int[]){0},
                                 .n_keys = 1};
            cs_error err = {0};
            cs_sql_op *op = cs_sql_op_hash_join(side_op(&small, "lk", "lv", 4096),
                                                side_op(&big, "rk", "rw", 4096), &spec, &err);
            assert_non_null(op);
            t_rows got = t_run(op, &ctx);
            assert_int_equal(got.rc, CS_OK);
            t_rows_sort(&got);
            t_rows want = reference_by_key(types[t], &small, &big, 5 * 60000);
            if (types[t] == CS_HJ_INNER) assert_true(want.n > 25000); /* 2 matches or 1 */
            if (!t_rows_equal(&want, &got))
                fail_msg("%s join building %s", type_names[types[t]], build ? "left" : "right");
            t_rows_free(&want);
            t_rows_free(&got);
            cs_sql_op_free(op);
        }
    free_side(&big);
    free_side(&small);
}

/* ---- a broadcast's table, shared by the tasks of a process ---- */

typedef struct shared_env {
    broadcast_store *store;
    broadcast_entry *entry; /* acquired by the "executor" for the test */
} shared_env;

static _Atomic int shared_builds, shared_frees;
static cs_sql_broadcast_build_fn real_build;
static void (*real_free)(void *);

static void *counting_build(void *arg, const void *value, size_t len, struct cs_work_team *team,
                            cs_error *err)
{
    shared_builds++;
    return real_build(arg, value, len, team, err);
}

static void counting_free(void *v)
{
    shared_frees++;
    real_free(v);
}

/* cs_sql_exec_ctx.broadcast_shared over the test's store: input 0 is the entry. */
static int shared_hook(void *arg, int input, const char *key, cs_sql_broadcast_build_fn build,
                       void *build_arg, void (*free_fn)(void *), void **out, cs_error *err)
{
    shared_env *env = arg;
    assert_int_equal(input, 0);
    real_build = build;
    real_free = free_fn;
    return cs_broadcast_entry_derived(env->store, env->entry, key, counting_build, build_arg,
                                      counting_free, out, err);
}

typedef struct shared_task {
    shared_env *env;
    const side *l, *r;
    int failures;
} shared_task;

/* One task: every join type that builds the right side, with and without the condition; the
 * build child is empty (never read: the rows come from the broadcast). */
static void *shared_task_main(void *arg)
{
    shared_task *t = arg;
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.broadcast_shared = shared_hook;
    ctx.broadcast_arg = t->env;
    for (int type = CS_HJ_INNER; type <= CS_HJ_LEFT_ANTI_NULL_AWARE; type++)
        for (int with_cond = 0; with_cond < 2; with_cond++) {
            if (type == CS_HJ_RIGHT_OUTER || type == CS_HJ_FULL_OUTER) continue; /* build left */
            if (type == CS_HJ_LEFT_ANTI_NULL_AWARE && with_cond) continue;
            int calls = 0;
            cs_join_spec spec = {.type = (cs_hash_join_type)type,
                                 .build = CS_BUILD_RIGHT,
                                 .left_keys = (int[]){0},
                                 .right_keys = (int[]){0},
                                 .n_keys = 1,
                                 .condition = with_cond ? cond_fn : NULL,
                                 .condition_arg = &calls,
                                 .build_broadcast = true,
                                 .build_broadcast_input = 0};
            side none = {t->r->k, t->r->v, t->r->kv, 0};
            cs_error err = {0};
            cs_sql_op *op = cs_sql_op_hash_join(side_op(t->l, "lk", "lv", 97),
                                                side_op(&none, "rk", "rw", 97), &spec, &err);
            t_rows got = t_run(op, &ctx);
            t_rows_sort(&got);
            t_rows want = reference((cs_hash_join_type)type, t->l, t->r, with_cond);
            if (got.rc != CS_OK || !t_rows_equal(&want, &got)) t->failures++;
            t_rows_free(&want);
            t_rows_free(&got);
            cs_sql_op_free(op);
        }
    return NULL;
}

static void test_broadcast_table_built_once_per_process_and_freed_with_it(void **state)
{
    (void)state;
    side l = gen_side(3000, 500, 7), r = gen_side(2000, 400, 8);
    /* the broadcast's value: r's batches, each preceded by its u32 little-endian length */
    cs_sbuf value = CS_SBUF_INIT, enc = CS_SBUF_INIT;
    cs_sql_op *src = side_op(&r, "rk", "rw", 300);
    cs_sql_exec_ctx ctx = t_ctx();
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(src, &ctx, &err), CS_OK);
    for (cs_col_batch *b; cs_sql_op_next(src, &b, &err) == CS_OK && b; cs_col_batch_unref(b)) {
        enc.len = 0;
        assert_int_equal(cs_sql_batch_encode(b, &enc, &err), CS_OK);
        uint8_t len[4] = {(uint8_t)enc.len, (uint8_t)(enc.len >> 8), (uint8_t)(enc.len >> 16),
                          (uint8_t)(enc.len >> 24)};
        cs_sbuf_append(&value, len, 4);
        cs_sbuf_append(&value, enc.data, enc.len);
    }
    cs_sql_op_close(src);
    cs_sql_op_free(src);
    broadcast_store *store = cs_broadcast_store_new();
    assert_int_equal(cs_broadcast_store_put(store, 7, value.data, value.len, 0, &err), 0);
    shared_env env = {store, NULL};
    assert_int_equal(cs_broadcast_store_acquire(store, 7, &env.entry, &err), 0);
    shared_builds = shared_frees = 0;

    enum { TASKS = 8 };
    pthread_t th[TASKS];
    shared_task tasks[TASKS];
    for (int i = 0; i < TASKS; i++) {
        tasks[i] = (shared_task){&env, &l, &r, 0};
        assert_int_equal(pthread_create(&th[i], NULL, shared_task_main, &tasks[i]), 0);
    }
    for (int i = 0; i < TASKS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(tasks[i].failures, 0);
    }
    /* 8 tasks x 8 joins over the same keys: one table */
    assert_int_equal(shared_builds, 1);
    assert_int_equal(shared_frees, 0);
    /* removed while a task holds it: freed at the last release, not before */
    assert_true(cs_broadcast_store_remove(store, 7));
    assert_int_equal(shared_frees, 0);
    cs_broadcast_store_release(store, env.entry);
    assert_int_equal(shared_frees, 1);

    cs_broadcast_store_free(store);
    cs_sbuf_free(&value);
    cs_sbuf_free(&enc);
    free_side(&l);
    free_side(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_join_type_small_with_null_and_duplicate_keys),
        cmocka_unit_test(test_every_join_type_generated),
        cmocka_unit_test(test_string_and_two_column_keys),
        cmocka_unit_test(test_narrow_integer_keys_by_value),
        cmocka_unit_test(test_two_integral_keys_as_words),
        cmocka_unit_test(test_grace_partitioning_equals_in_memory),
        cmocka_unit_test(test_key_group_larger_than_memory_joins_in_blocks),
        cmocka_unit_test(test_semi_anti_long_key_groups_decided_by_first_holding_pair),
        cmocka_unit_test(test_semi_anti_building_left_pair_each_build_row_until_it_matches),
        cmocka_unit_test(test_big_build_side_mostly_missing_probe_keys),
        cmocka_unit_test(test_broadcast_table_built_once_per_process_and_freed_with_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
