/*
 * test_op_window.c — Window (src/sqlexec/op_window.c) against Spark 4.0.1's answers of
 * tests/sql/corpus/window.sql (tests/sql/golden/corpus/window.out): the corpus's view w(g, t, v)
 * sorted by a Sort below the Window, then every ranking function, lag / lead with defaults,
 * first / last / nth_value with and without ignore nulls, and sum / avg / count / max / min over
 * ROWS and RANGE frames (offsets, CURRENT ROW peers, NULL order keys, Spark's default frames),
 * each run with the input cut into batches of 1 to 8 rows so that partitions straddle batches.
 * Then a running and a sliding sum over a generated input in many batches against a reference
 * computed here, ignore-nulls lag / lead, and the argument checks. Last, a window over two
 * partitions larger than a 1 MiB task memory spills its queued rows and gives the rows it gives
 * without a memory limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"

static cs_col_type *w_schema(void)
{
    return t_schema(3, (const char *[]){"g", "t", "v"},
                    (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_STRING),
                                      cs_col_type_primitive(CS_TYPE_INT),
                                      cs_col_type_primitive(CS_TYPE_INT)});
}

/* The corpus's w: ('a',1,10) ('a',2,20) ('a',3,20) ('a',4,NULL) ('b',1,5) ('b',2,7) ('b',5,7)
 * (NULL,1,1), in batches of `batch` rows, in an order the Sort above must fix. */
static cs_sql_op *w_op(int64_t batch)
{
    const char *g[] = {"b", "a", NULL, "a", "b", "a", "a", "b"};
    int32_t t[] = {5, 3, 1, 1, 1, 4, 2, 2};
    int32_t v[] = {7, 20, 1, 10, 5, 0, 20, 7};
    uint8_t vv[] = {1, 1, 1, 1, 1, 0, 1, 1};
    cs_col_type *schema = w_schema(), *it = cs_col_type_primitive(CS_TYPE_INT);
    cs_col_batch *b[8];
    int nb = 0;
    for (int64_t at = 0; at < 8; at += batch) {
        int64_t n = 8 - at < batch ? 8 - at : batch;
        b[nb++] = t_batch(schema,
                          (cs_column *[]){t_strings(g + at, n), t_fixed(it, t + at, n, NULL),
                                          t_fixed(it, v + at, n, vv + at)},
                          n);
    }
    cs_sql_op *op = t_leaf(schema, b, nb);
    cs_col_type_unref(schema);
    return op;
}

/* Rows of the output columns cols[] as the golden prints them ("a"\t1\tNULL). */
static t_rows run_golden_form(cs_sql_op *op, const int *cols, int n_cols, int64_t batch_rows)
{
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = batch_rows;
    t_rows r = {0};
    r.rc = cs_sql_op_open(op, &ctx, &r.err);
    cs_sbuf sb = {0};
    while (r.rc == CS_OK) {
        cs_col_batch *b;
        r.rc = cs_sql_op_next(op, &b, &r.err);
        if (r.rc != CS_OK || !b) break;
        for (int64_t i = 0; i < b->num_rows; i++) {
            sb.len = 0;
            cs_sbuf_puts(&sb, "");
            for (int k = 0; k < n_cols; k++) {
                const cs_column *c = b->columns[cols[k]];
                if (k) cs_sbuf_putc(&sb, '\t');
                if (!cs_column_is_valid(c, i)) {
                    cs_sbuf_puts(&sb, "NULL");
                } else if (c->type->id == CS_TYPE_STRING) {
                    int32_t len;
                    const uint8_t *p = cs_column_bytes(c, i, &len);
                    cs_sbuf_printf(&sb, "\"%.*s\"", (int)len, (const char *)p);
                } else if (c->type->id == CS_TYPE_DOUBLE) {
                    char d[64];
                    t_java_double(((const double *)(const void *)c->values)[i], d, sizeof d);
                    cs_sbuf_puts(&sb, d);
                } else if (c->type->id == CS_TYPE_ARRAY) { /* of ints */
                    const int32_t *o = cs_column_offsets(c);
                    cs_sbuf_putc(&sb, '[');
                    for (int32_t e = o[i]; e < o[i + 1]; e++) {
                        if (e > o[i]) cs_sbuf_puts(&sb, ", ");
                        t_value(c->children[0], e, &sb);
                    }
                    cs_sbuf_putc(&sb, ']');
                } else {
                    t_value(c, i, &sb);
                }
            }
            t_rows_add(&r, sb.data);
        }
        cs_col_batch_unref(b);
    }
    cs_sbuf_free(&sb);
    cs_sql_op_close(op);
    return r;
}

typedef struct golden_case {
    const char *what;
    bool partitioned;     /* PARTITION BY g */
    cs_sort_key order[2]; /* after g's */
    int n_order;
    cs_window_fn fn;
    int cols[5]; /* printed columns (3 = the function) */
    int n_cols;
    const char *rows; /* the golden's rows, one per line */
} golden_case;

#define ROWS_FRAME(lk, l, uk, u)                                                                   \
    ((cs_window_frame){.range = false, .lower_kind = lk, .lower = l, .upper_kind = uk, .upper = u})
#define RANGE_FRAME(lk, l, uk, u)                                                                  \
    ((cs_window_frame){.range = true, .lower_kind = lk, .lower = l, .upper_kind = uk, .upper = u})
#define T_ASC                                                                                      \
    {                                                                                              \
        .ordinal = 1, .nulls_first = true                                                          \
    }
#define V_ASC                                                                                      \
    {                                                                                              \
        .ordinal = 2, .nulls_first = true                                                          \
    }
#define V_DESC                                                                                     \
    {                                                                                              \
        .ordinal = 2, .descending = true                                                           \
    }

static void run_case(const golden_case *gc)
{
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT);
    for (int64_t batch = 1; batch <= 8; batch++) {
        cs_sort_key sk[4];
        int ns = 0;
        if (gc->partitioned) sk[ns++] = (cs_sort_key){.ordinal = 0, .nulls_first = true};
        for (int k = 0; k < gc->n_order; k++)
            sk[ns++] = gc->order[k];
        cs_error err = {0};
        cs_sql_op *sorted = cs_sql_op_sort(w_op(batch), sk, ns, &err);
        assert_non_null(sorted);
        cs_window_fn fn = gc->fn;
        if (!fn.type) fn.type = it;
        cs_sql_op *op =
            cs_sql_op_window(sorted, gc->partitioned ? (int[]){0} : NULL, gc->partitioned ? 1 : 0,
                             gc->order, gc->n_order, &fn, 1, &err);
        if (!op) fail_msg("%s: %s", gc->what, err.msg);
        t_rows got = run_golden_form(op, gc->cols, gc->n_cols, batch > 4 ? 0 : batch + 1);
        if (got.rc != CS_OK) fail_msg("%s: %s", gc->what, got.err.msg);
        t_rows_sort(&got);
        t_rows want = {0};
        char *copy = strdup(gc->rows), *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            t_rows_add(&want, line);
        free(copy);
        t_rows_sort(&want);
        if (!t_rows_equal(&want, &got)) fail_msg("%s, batches of %lld", gc->what, (long long)batch);
        t_rows_free(&want);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
}

static void test_ranking_functions_as_spark(void **state)
{
    cs_col_type *dbl = cs_col_type_primitive(CS_TYPE_DOUBLE);
    const golden_case cases[] = {
        {"row_number (query 2)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_ROW_NUMBER, .input = -1},
         {0, 1, 3},
         3,
         "\"a\"\t1\t1\n\"a\"\t2\t2\n\"a\"\t3\t3\n\"a\"\t4\t4\n\"b\"\t1\t1\n"
         "\"b\"\t2\t2\n\"b\"\t5\t3\nNULL\t1\t1"},
        {"rank (query 3)",
         true,
         {V_ASC},
         1,
         {.kind = CS_WIN_RANK, .input = -1},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t2\n\"a\"\t2\t20\t3\n\"a\"\t3\t20\t3\n\"a\"\t4\tNULL\t1\n\"b\"\t1\t5\t1\n"
         "\"b\"\t2\t7\t2\n\"b\"\t5\t7\t2\nNULL\t1\t1\t1"},
        {"dense_rank desc (query 4)",
         true,
         {V_DESC},
         1,
         {.kind = CS_WIN_DENSE_RANK, .input = -1},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t2\n\"a\"\t2\t20\t1\n\"a\"\t3\t20\t1\n\"a\"\t4\tNULL\t3\n\"b\"\t1\t5\t2\n"
         "\"b\"\t2\t7\t1\n\"b\"\t5\t7\t1\nNULL\t1\t1\t1"},
        {"percent_rank (query 5)",
         true,
         {V_ASC},
         1,
         {.kind = CS_WIN_PERCENT_RANK, .input = -1, .type = dbl},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t0.3333333333333333\n\"a\"\t2\t20\t0.6666666666666666\n"
         "\"a\"\t3\t20\t0.6666666666666666\n\"a\"\t4\tNULL\t0.0\n\"b\"\t1\t5\t0.0\n"
         "\"b\"\t2\t7\t0.5\n\"b\"\t5\t7\t0.5\nNULL\t1\t1\t0.0"},
        {"cume_dist (query 6)",
         true,
         {V_ASC},
         1,
         {.kind = CS_WIN_CUME_DIST, .input = -1, .type = dbl},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t0.5\n\"a\"\t2\t20\t1.0\n\"a\"\t3\t20\t1.0\n\"a\"\t4\tNULL\t0.25\n"
         "\"b\"\t1\t5\t0.3333333333333333\n\"b\"\t2\t7\t1.0\n\"b\"\t5\t7\t1.0\nNULL\t1\t1\t1.0"},
        {"ntile(2) (query 7)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_NTILE, .input = -1, .offset = 2},
         {0, 1, 3},
         3,
         "\"a\"\t1\t1\n\"a\"\t2\t1\n\"a\"\t3\t2\n\"a\"\t4\t2\n\"b\"\t1\t1\n\"b\"\t2\t1\n"
         "\"b\"\t5\t2\nNULL\t1\t1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

static cs_column *one_int(int32_t v)
{
    return t_fixed(cs_col_type_primitive(CS_TYPE_INT), &v, 1, NULL);
}

static void test_offset_and_value_functions_as_spark(void **state)
{
    cs_column *m1 = one_int(-1), *zero = one_int(0);
    const golden_case cases[] = {
        {"lag (query 8)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_LAG, .input = 2, .offset = 1},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\tNULL\n\"a\"\t2\t20\t10\n\"a\"\t3\t20\t20\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\tNULL\n\"b\"\t2\t7\t5\n\"b\"\t5\t7\t7\nNULL\t1\t1\tNULL"},
        {"lag(v, 2, -1) (query 9)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_LAG, .input = 2, .offset = 2, .default_value = m1},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t-1\n\"a\"\t2\t20\t-1\n\"a\"\t3\t20\t10\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\t-1\n\"b\"\t2\t7\t-1\n\"b\"\t5\t7\t5\nNULL\t1\t1\t-1"},
        {"lead(v, 1, 0) (query 11)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_LEAD, .input = 2, .offset = 1, .default_value = zero},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t20\n\"a\"\t2\t20\t20\n\"a\"\t3\t20\tNULL\n\"a\"\t4\tNULL\t0\n"
         "\"b\"\t1\t5\t7\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t0\nNULL\t1\t1\t0"},
        {"first_value (query 12)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_FIRST_VALUE, .input = 2},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t10\n\"a\"\t2\t20\t10\n\"a\"\t3\t20\t10\n\"a\"\t4\tNULL\t10\n"
         "\"b\"\t1\t5\t5\n\"b\"\t2\t7\t5\n\"b\"\t5\t7\t5\nNULL\t1\t1\t1"},
        {"last_value whole (query 13)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_LAST_VALUE,
          .input = 2,
          .frame = ROWS_FRAME(CS_WB_UNBOUNDED_PRECEDING, 0, CS_WB_UNBOUNDED_FOLLOWING, 0)},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\tNULL\n\"a\"\t2\t20\tNULL\n\"a\"\t3\t20\tNULL\n\"a\"\t4\tNULL\tNULL\n"
         "\"b\"\t1\t5\t7\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"last_value ignore nulls (query 14)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_LAST_VALUE,
          .input = 2,
          .ignore_nulls = true,
          .frame = ROWS_FRAME(CS_WB_UNBOUNDED_PRECEDING, 0, CS_WB_UNBOUNDED_FOLLOWING, 0)},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t20\n\"a\"\t2\t20\t20\n\"a\"\t3\t20\t20\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\t7\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"nth_value(v, 2) (query 15)",
         true,
         {T_ASC},
         1,
         {.kind = CS_WIN_NTH_VALUE, .input = 2, .offset = 2},
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\tNULL\n\"a\"\t2\t20\t20\n\"a\"\t3\t20\t20\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\tNULL\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t7\nNULL\t1\t1\tNULL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    cs_column_unref(m1);
    cs_column_unref(zero);
}

static cs_window_fn agg_fn(cs_agg_fn f, int input, cs_type_id result, cs_window_frame frame)
{
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT);
    return (cs_window_fn){.kind = CS_WIN_AGGREGATE,
                          .input = -1,
                          .agg = {.fn = f, .input = input, .arg_type = input >= 0 ? it : NULL},
                          .frame = frame,
                          .type = cs_col_type_primitive(result)};
}

static void test_aggregates_over_frames_as_spark(void **state)
{
    cs_window_frame dflt = {0};
    const golden_case cases[] = {
        {"running sum (query 16)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, dflt),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t10\n\"a\"\t2\t20\t30\n\"a\"\t3\t20\t50\n\"a\"\t4\tNULL\t50\n"
         "\"b\"\t1\t5\t5\n\"b\"\t2\t7\t12\n\"b\"\t5\t7\t19\nNULL\t1\t1\t1"},
        {"rows 1 preceding (query 17)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, ROWS_FRAME(CS_WB_OFFSET, -1, CS_WB_CURRENT_ROW, 0)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t10\n\"a\"\t2\t20\t30\n\"a\"\t3\t20\t40\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\t5\n\"b\"\t2\t7\t12\n\"b\"\t5\t7\t14\nNULL\t1\t1\t1"},
        {"rows 1 following (query 18)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, ROWS_FRAME(CS_WB_CURRENT_ROW, 0, CS_WB_OFFSET, 1)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t30\n\"a\"\t2\t20\t40\n\"a\"\t3\t20\t20\n\"a\"\t4\tNULL\tNULL\n"
         "\"b\"\t1\t5\t12\n\"b\"\t2\t7\t14\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"avg rows 1 around (query 19)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_AVG, 2, CS_TYPE_DOUBLE, ROWS_FRAME(CS_WB_OFFSET, -1, CS_WB_OFFSET, 1)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t15.0\n\"a\"\t2\t20\t16.666666666666668\n\"a\"\t3\t20\t20.0\n"
         "\"a\"\t4\tNULL\t20.0\n\"b\"\t1\t5\t6.0\n\"b\"\t2\t7\t6.333333333333333\n"
         "\"b\"\t5\t7\t7.0\nNULL\t1\t1\t1.0"},
        {"count rows unbounded preceding (query 20)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_COUNT, 2, CS_TYPE_LONG,
                ROWS_FRAME(CS_WB_UNBOUNDED_PRECEDING, 0, CS_WB_CURRENT_ROW, 0)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t1\n\"a\"\t2\t20\t2\n\"a\"\t3\t20\t3\n\"a\"\t4\tNULL\t3\n"
         "\"b\"\t1\t5\t1\n\"b\"\t2\t7\t2\n\"b\"\t5\t7\t3\nNULL\t1\t1\t1"},
        {"range 1 preceding (query 21)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, RANGE_FRAME(CS_WB_OFFSET, -1, CS_WB_CURRENT_ROW, 0)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t10\n\"a\"\t2\t20\t30\n\"a\"\t3\t20\t40\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\t5\n\"b\"\t2\t7\t12\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"range current to unbounded following over nulls (query 22)",
         true,
         {V_ASC},
         1,
         agg_fn(CS_AGG_SUM, 1, CS_TYPE_LONG,
                RANGE_FRAME(CS_WB_CURRENT_ROW, 0, CS_WB_UNBOUNDED_FOLLOWING, 0)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t6\n\"a\"\t2\t20\t5\n\"a\"\t3\t20\t5\n\"a\"\t4\tNULL\t10\n"
         "\"b\"\t1\t5\t8\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"max range 2 around (query 23)",
         true,
         {T_ASC},
         1,
         agg_fn(CS_AGG_MAX, 2, CS_TYPE_INT, RANGE_FRAME(CS_WB_OFFSET, -2, CS_WB_OFFSET, 2)),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t20\n\"a\"\t2\t20\t20\n\"a\"\t3\t20\t20\n\"a\"\t4\tNULL\t20\n"
         "\"b\"\t1\t5\t7\n\"b\"\t2\t7\t7\n\"b\"\t5\t7\t7\nNULL\t1\t1\t1"},
        {"default frame peers over v (query 24)",
         true,
         {V_ASC},
         1,
         agg_fn(CS_AGG_SUM, 1, CS_TYPE_LONG, dflt),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t5\n\"a\"\t2\t20\t10\n\"a\"\t3\t20\t10\n\"a\"\t4\tNULL\t4\n"
         "\"b\"\t1\t5\t1\n\"b\"\t2\t7\t8\n\"b\"\t5\t7\t8\nNULL\t1\t1\t1"},
        {"min over the partition (query 25)",
         true,
         {{0}},
         0,
         agg_fn(CS_AGG_MIN, 2, CS_TYPE_INT, dflt),
         {0, 1, 2, 3},
         4,
         "\"a\"\t1\t10\t10\n\"a\"\t2\t20\t10\n\"a\"\t3\t20\t10\n\"a\"\t4\tNULL\t10\n"
         "\"b\"\t1\t5\t5\n\"b\"\t2\t7\t5\n\"b\"\t5\t7\t5\nNULL\t1\t1\t1"},
        {"count(*) over () (query 26)",
         false,
         {{0}},
         0,
         agg_fn(CS_AGG_COUNT_STAR, -1, CS_TYPE_LONG, dflt),
         {0, 1, 3},
         3,
         "\"a\"\t1\t8\n\"a\"\t2\t8\n\"a\"\t3\t8\n\"a\"\t4\t8\n\"b\"\t1\t8\n\"b\"\t2\t8\n"
         "\"b\"\t5\t8\nNULL\t1\t8"},
        {"sum over (order by g, t) (query 27)",
         false,
         {{.ordinal = 0, .nulls_first = true}, T_ASC},
         2,
         agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, dflt),
         {0, 1, 3},
         3,
         "\"a\"\t1\t11\n\"a\"\t2\t31\n\"a\"\t3\t51\n\"a\"\t4\t51\n\"b\"\t1\t56\n\"b\"\t2\t63\n"
         "\"b\"\t5\t70\nNULL\t1\t1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

/* A generated input (k, x) sorted by k then row order, in batches of 7: running sum and a sliding
 * ROWS 3 PRECEDING .. 2 FOLLOWING sum against a reference. */
static void test_running_and_sliding_sums_many_batches(void **state)
{
    enum { N = 5000 };
    int64_t *k = malloc(8 * N), *x = malloc(8 * N), *ord = malloc(8 * N);
    uint8_t *xv = malloc(N);
    uint64_t seed = 7;
    int64_t key = 0;
    for (int i = 0; i < N; i++) {
        if (t_rand(&seed) % 40 == 0) key++; /* partitions of ~40 rows, some of one */
        k[i] = key;
        ord[i] = i;
        x[i] = (int64_t)(t_rand(&seed) % 1000);
        xv[i] = t_rand(&seed) % 9 != 0;
    }
    cs_col_type *lt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_col_type *schema =
        t_schema(3, (const char *[]){"k", "o", "x"}, (cs_col_type *[]){lt, lt, lt});
    int nb = 0;
    cs_col_batch **b = calloc(N / 7 + 2, sizeof *b);
    for (int at = 0; at < N; at += 7) {
        int n = N - at < 7 ? N - at : 7;
        b[nb++] = t_batch(schema,
                          (cs_column *[]){t_longs(k + at, n, NULL), t_longs(ord + at, n, NULL),
                                          t_longs(x + at, n, xv + at)},
                          n);
    }
    cs_sql_op *leaf = t_leaf(schema, b, nb);
    free(b);
    cs_window_fn fns[2] = {
        {.kind = CS_WIN_AGGREGATE,
         .input = -1,
         .agg = {.fn = CS_AGG_SUM, .input = 2, .arg_type = lt},
         .frame = {0},
         .type = lt,
         .name = "run"},
        {.kind = CS_WIN_AGGREGATE,
         .input = -1,
         .agg = {.fn = CS_AGG_SUM, .input = 2, .arg_type = lt},
         .frame = ROWS_FRAME(CS_WB_OFFSET, -3, CS_WB_OFFSET, 2),
         .type = lt,
         .name = "slide"},
    };
    cs_sort_key ok = {.ordinal = 1, .nulls_first = true};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_window(leaf, (int[]){0}, 1, &ok, 1, fns, 2, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    t_rows want = {0};
    char line[128], s1[32], s2[32];
    for (int i = 0; i < N; i++) {
        int64_t run = 0, slide = 0;
        bool any_run = false, any_slide = false;
        for (int j = i; j >= 0 && k[j] == k[i]; j--)
            if (xv[j]) run += x[j], any_run = true;
        for (int j = i - 3; j <= i + 2; j++)
            if (j >= 0 && j < N && k[j] == k[i] && xv[j]) slide += x[j], any_slide = true;
        snprintf(s1, sizeof s1, any_run ? "%lld" : "NULL", (long long)run);
        snprintf(s2, sizeof s2, any_slide ? "%lld" : "NULL", (long long)slide);
        if (xv[i])
            snprintf(line, sizeof line, "%lld|%d|%lld|%s|%s", (long long)k[i], i, (long long)x[i],
                     s1, s2);
        else
            snprintf(line, sizeof line, "%lld|%d|NULL|%s|%s", (long long)k[i], i, s1, s2);
        t_rows_add(&want, line);
    }
    assert_true(t_rows_equal(&want, &got));
    assert_true(op->metrics.peak_memory > 0);
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
    free(k), free(x), free(ord), free(xv);
}

static void test_lag_lead_ignore_nulls(void **state)
{
    /* one partition ordered by t: v = 1, NULL, 3, NULL, NULL, 6 */
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT);
    cs_col_type *schema = t_schema(2, (const char *[]){"t", "v"}, (cs_col_type *[]){it, it});
    int32_t t[] = {1, 2, 3, 4, 5, 6}, v[] = {1, 0, 3, 0, 0, 6};
    uint8_t vv[] = {1, 0, 1, 0, 0, 1};
    cs_col_batch *b =
        t_batch(schema, (cs_column *[]){t_fixed(it, t, 6, NULL), t_fixed(it, v, 6, vv)}, 6);
    cs_sql_op *leaf = t_leaf(schema, &b, 1);
    cs_window_fn fns[4] = {
        {.kind = CS_WIN_LAG,
         .input = 1,
         .offset = 1,
         .ignore_nulls = true,
         .type = it,
         .name = "l1"},
        {.kind = CS_WIN_LEAD,
         .input = 1,
         .offset = 1,
         .ignore_nulls = true,
         .type = it,
         .name = "d1"},
        {.kind = CS_WIN_LAG,
         .input = 1,
         .offset = 2,
         .ignore_nulls = true,
         .type = it,
         .name = "l2"},
        {.kind = CS_WIN_FIRST_VALUE,
         .input = 1,
         .ignore_nulls = true,
         .type = it,
         .name = "fv",
         .frame = ROWS_FRAME(CS_WB_CURRENT_ROW, 0, CS_WB_UNBOUNDED_FOLLOWING, 0)},
    };
    cs_sort_key ok = {.ordinal = 0, .nulls_first = true};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_window(leaf, NULL, 0, &ok, 1, fns, 4, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    const char *want[] = {"1|1|NULL|3|NULL|1", "2|NULL|1|3|NULL|3", "3|3|1|6|NULL|3",
                          "4|NULL|3|6|1|6",    "5|NULL|3|6|1|6",    "6|6|3|NULL|1|6"};
    assert_int_equal(got.n, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(got.row[i], want[i]);
    t_rows_free(&got);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

static void test_running_collect_list_and_two_input_aggregates(void **state)
{
    /* collect_list(v) OVER (PARTITION BY g ORDER BY t): each row its own list, although the
     * frame grows; max_by(t, v) over the same frames */
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT);
    cs_window_fn c = agg_fn(CS_AGG_COLLECT_LIST, 2, CS_TYPE_INT, (cs_window_frame){0});
    c.type = cs_col_type_array(it, false);
    golden_case gc = {"running collect_list",
                      true,
                      {T_ASC},
                      1,
                      c,
                      {0, 1, 3},
                      3,
                      "\"a\"\t1\t[10]\n\"a\"\t2\t[10, 20]\n\"a\"\t3\t[10, 20, 20]\n"
                      "\"a\"\t4\t[10, 20, 20]\n\"b\"\t1\t[5]\n\"b\"\t2\t[5, 7]\n"
                      "\"b\"\t5\t[5, 7, 7]\nNULL\t1\t[1]"};
    run_case(&gc);
    cs_col_type_unref(c.type);
    cs_window_fn m = agg_fn(CS_AGG_MAX_BY, 1, CS_TYPE_INT, (cs_window_frame){0});
    m.agg.input2 = 2;
    m.agg.arg2_type = it;
    golden_case gm = {"running max_by(t, v)",
                      true,
                      {T_ASC},
                      1,
                      m,
                      {0, 1, 3},
                      3,
                      "\"a\"\t1\t1\n\"a\"\t2\t2\n\"a\"\t3\t3\n\"a\"\t4\t3\n"
                      "\"b\"\t1\t1\n\"b\"\t2\t2\n\"b\"\t5\t5\nNULL\t1\t1"};
    run_case(&gm);
}

/* count(*) OVER (ORDER BY x [DESC] RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW) over doubles
 * 1.0, 1.5, 2.0, 3.5 with the offset a decimal(2,1) value, and OVER (ORDER BY d RANGE BETWEEN 1
 * PRECEDING AND 1 FOLLOWING) over dates 10, 11, 13, NULL (the NULL frames its NULL peers). */
static void test_range_offsets_over_double_decimal_and_date_keys(void **state)
{
    cs_col_type *dt = cs_col_type_primitive(CS_TYPE_DOUBLE),
                *lt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_col_type *dat = cs_col_type_primitive(CS_TYPE_DATE);
    cs_col_type *schema = t_schema(2, (const char *[]){"x", "d"}, (cs_col_type *[]){dt, dat});
    cs_col_type *dec = cs_col_type_decimal(2, 1, NULL);
    __int128 half = -5;
    cs_column *off = t_fixed(dec, &half, 1, NULL);
    for (int desc = 0; desc < 2; desc++) {
        double x[] = {1.0, 1.5, 2.0, 3.5};
        int32_t d[] = {10, 11, 13, 0};
        if (desc)
            for (int i = 0; i < 2; i++) {
                double t = x[i];
                x[i] = x[3 - i];
                x[3 - i] = t;
            }
        cs_col_batch *b = t_batch(
            schema,
            (cs_column *[]){t_doubles(x, 4, NULL), t_fixed(dat, d, 4, (uint8_t[]){1, 1, 1, 0})}, 4);
        cs_window_fn f = {.kind = CS_WIN_AGGREGATE,
                          .input = -1,
                          .agg = {.fn = CS_AGG_COUNT_STAR, .input = -1},
                          .frame = RANGE_FRAME(CS_WB_OFFSET, 0, CS_WB_CURRENT_ROW, 0),
                          .type = lt,
                          .name = "c"};
        f.frame.lower_value = off;
        cs_sort_key ok = {.ordinal = 0, .descending = desc, .nulls_first = !desc};
        cs_error err = {0};
        cs_sql_op *op = cs_sql_op_window(t_leaf(schema, &b, 1), NULL, 0, &ok, 1, &f, 1, &err);
        if (!op) fail_msg("%s", err.msg);
        cs_sql_exec_ctx ctx = t_ctx();
        t_rows got = t_run(op, &ctx);
        assert_int_equal(got.rc, CS_OK);
        const char *asc[] = {"1|10|1", "1.5|11|2", "2|13|2", "3.5|NULL|1"};
        const char *dsc[] = {"3.5|10|1", "2|11|1", "1.5|13|2", "1|NULL|2"};
        for (int i = 0; i < 4; i++)
            assert_string_equal(got.row[i], desc ? dsc[i] : asc[i]);
        t_rows_free(&got);
        cs_sql_op_free(op);
    }
    cs_column_unref(off);
    cs_col_type_unref(dec);
    /* dates: RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING, NULLS FIRST */
    double x[] = {0, 0, 0, 0};
    int32_t d[] = {0, 10, 11, 13};
    cs_col_batch *b = t_batch(
        schema, (cs_column *[]){t_doubles(x, 4, NULL), t_fixed(dat, d, 4, (uint8_t[]){0, 1, 1, 1})},
        4);
    cs_window_fn f = {.kind = CS_WIN_AGGREGATE,
                      .input = -1,
                      .agg = {.fn = CS_AGG_COUNT_STAR, .input = -1},
                      .frame = RANGE_FRAME(CS_WB_OFFSET, -1, CS_WB_OFFSET, 1),
                      .type = lt,
                      .name = "c"};
    cs_sort_key ok = {.ordinal = 1, .nulls_first = true};
    cs_error err = {0};
    cs_sql_op *op = cs_sql_op_window(t_leaf(schema, &b, 1), NULL, 0, &ok, 1, &f, 1, &err);
    assert_non_null(op);
    cs_sql_exec_ctx ctx = t_ctx();
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    const char *want[] = {"0|NULL|1", "0|10|2", "0|11|2", "0|13|1"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(got.row[i], want[i]);
    t_rows_free(&got);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
}

/* A spill test input: partitions k of a generated table, two of them holding most rows (each
 * larger than the task memory of the spilled run), order key t with many peers, v with nulls and
 * a string payload p that makes the rows wide; in batches of 1000 rows, unsorted. */
static cs_sql_op *spill_input(int64_t n)
{
    cs_col_type *lt = cs_col_type_primitive(CS_TYPE_LONG);
    cs_col_type *st = cs_col_type_primitive(CS_TYPE_STRING);
    cs_col_type *schema =
        t_schema(4, (const char *[]){"k", "t", "v", "p"}, (cs_col_type *[]){lt, lt, lt, st});
    int64_t *k = malloc(8 * (size_t)n), *t = malloc(8 * (size_t)n), *v = malloc(8 * (size_t)n);
    uint8_t *vv = malloc((size_t)n);
    char **p = malloc(sizeof *p * (size_t)n);
    uint64_t seed = 23;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = t_rand(&seed) % 10;
        k[i] = r < 4 ? 3 : r < 7 ? 7 : (int64_t)(t_rand(&seed) % 300) + 10;
        t[i] = (int64_t)(t_rand(&seed) % 4000);
        v[i] = (int64_t)(t_rand(&seed) % 100000) - 50000;
        vv[i] = t_rand(&seed) % 11 != 0;
        p[i] = malloc(64);
        snprintf(p[i], 64, "payload-%lld-%032llx", (long long)i, (unsigned long long)t_rand(&seed));
    }
    int nb = 0;
    cs_col_batch **b = calloc((size_t)(n / 1000 + 2), sizeof *b);
    for (int64_t at = 0; at < n; at += 1000) {
        int64_t m = n - at < 1000 ? n - at : 1000;
        b[nb++] = t_batch(schema,
                          (cs_column *[]){t_longs(k + at, m, NULL), t_longs(t + at, m, NULL),
                                          t_longs(v + at, m, vv + at),
                                          t_strings((const char *const *)p + at, m)},
                          m);
    }
    cs_sql_op *leaf = t_leaf(schema, b, nb);
    for (int64_t i = 0; i < n; i++)
        free(p[i]);
    free(p), free(b), free(k), free(t), free(v), free(vv);
    cs_col_type_unref(schema);
    return leaf;
}

/* Window over Sort(k, t) over spill_input: ranking, lag / lead, ROWS and RANGE frames, the
 * default frame and the whole partition. */
static cs_sql_op *spill_window(int64_t n)
{
    cs_col_type *lt = cs_col_type_primitive(CS_TYPE_LONG), *it = cs_col_type_primitive(CS_TYPE_INT);
    cs_col_type *dt = cs_col_type_primitive(CS_TYPE_DOUBLE);
    cs_sort_key sk[2] = {{.ordinal = 0, .nulls_first = true}, {.ordinal = 1, .nulls_first = true}};
    cs_error err = {0};
    cs_sql_op *sorted = cs_sql_op_sort(spill_input(n), sk, 2, &err);
    assert_non_null(sorted);
    cs_window_fn fns[] = {
        {.kind = CS_WIN_ROW_NUMBER, .input = -1, .type = it, .name = "rn"},
        {.kind = CS_WIN_RANK, .input = -1, .type = it, .name = "rk"},
        {.kind = CS_WIN_DENSE_RANK, .input = -1, .type = it, .name = "drk"},
        {.kind = CS_WIN_CUME_DIST, .input = -1, .type = dt, .name = "cd"},
        {.kind = CS_WIN_LAG, .input = 2, .offset = 2, .type = lt, .name = "lag2"},
        {.kind = CS_WIN_LEAD,
         .input = 2,
         .offset = 1,
         .ignore_nulls = true,
         .type = lt,
         .name = "lead1"},
        agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, ROWS_FRAME(CS_WB_OFFSET, -3, CS_WB_OFFSET, 2)),
        agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, RANGE_FRAME(CS_WB_OFFSET, -5, CS_WB_CURRENT_ROW, 0)),
        agg_fn(CS_AGG_COUNT, 2, CS_TYPE_LONG, (cs_window_frame){0}),
        agg_fn(CS_AGG_MAX, 2, CS_TYPE_LONG,
               ROWS_FRAME(CS_WB_UNBOUNDED_PRECEDING, 0, CS_WB_UNBOUNDED_FOLLOWING, 0)),
    };
    int nf = (int)(sizeof fns / sizeof *fns);
    const char *names[] = {"rows_sum", "range_sum", "running_count", "part_max"};
    for (int f = 6; f < nf; f++) {
        fns[f].type = lt;
        fns[f].agg.arg_type = lt;
        fns[f].name = (char *)names[f - 6];
    }
    cs_sql_op *op = cs_sql_op_window(sorted, (int[]){0}, 1, &sk[1], 1, fns, nf, &err);
    if (!op) fail_msg("%s", err.msg);
    return op;
}

static void test_spilled_window_equals_in_memory(void **state)
{
    int64_t n = 120000;
    cs_sql_op *mem = spill_window(n);
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.batch_rows = 1000;
    t_rows want = t_run(mem, &ctx);
    assert_int_equal(want.rc, CS_OK);
    assert_int_equal(want.n, n);
    assert_int_equal(mem->metrics.spill_count, 0);
    cs_sql_op_free(mem);

    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, &tm);
    ctx.alloc = &alloc;
    ctx.task_memory = &tm;
    cs_sql_op *op = spill_window(n);
    t_rows got = t_run(op, &ctx);
    if (got.rc != CS_OK) fail_msg("%s", got.err.msg);
    assert_true(op->metrics.spill_count > 1); /* the window's own, not only the sort's */
    assert_true(op->metrics.spill_bytes > 0);
    /* the two big partitions were never held whole: far less than their rows' bytes */
    assert_true(op->metrics.peak_memory < 4 * (1 << 20));
    assert_true(t_rows_equal(&want, &got));
    t_rows_free(&want);
    t_rows_free(&got);
    cs_sql_op_free(op);
    assert_int_equal(tm.used, 0);
}

static void test_bad_arguments(void **state)
{
    cs_col_type *it = cs_col_type_primitive(CS_TYPE_INT);
    cs_error err = {0};
    cs_window_fn f = {.kind = CS_WIN_NTILE, .input = -1, .offset = 0, .type = it};
    cs_sort_key ok = T_ASC;
    assert_null(cs_sql_op_window(w_op(8), NULL, 0, &ok, 1, &f, 1, &err));
    assert_non_null(strstr(err.msg, "positive integer"));
    f = (cs_window_fn){.kind = CS_WIN_RANK, .input = -1, .type = it};
    assert_null(cs_sql_op_window(w_op(8), NULL, 0, NULL, 0, &f, 1, &err));
    assert_non_null(strstr(err.msg, "requires window to be ordered"));
    f = (cs_window_fn){.kind = CS_WIN_LAG, .input = 9, .offset = 1, .type = it};
    assert_null(cs_sql_op_window(w_op(8), NULL, 0, &ok, 1, &f, 1, &err));
    assert_non_null(strstr(err.msg, "ordinal 9"));
    /* RANGE with an offset over a string order key */
    f = agg_fn(CS_AGG_SUM, 2, CS_TYPE_LONG, RANGE_FRAME(CS_WB_OFFSET, -1, CS_WB_CURRENT_ROW, 0));
    cs_sort_key gk = {.ordinal = 0, .nulls_first = true};
    assert_null(cs_sql_op_window(w_op(8), NULL, 0, &gk, 1, &f, 1, &err));
    assert_non_null(strstr(err.msg, "RANGE frame with an offset"));
    /* an aggregate whose declared type is not its result type */
    f = agg_fn(CS_AGG_SUM, 2, CS_TYPE_INT, (cs_window_frame){0});
    assert_null(cs_sql_op_window(w_op(8), NULL, 0, &ok, 1, &f, 1, &err));
    assert_non_null(strstr(err.msg, "not its aggregate's result type bigint"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranking_functions_as_spark),
        cmocka_unit_test(test_offset_and_value_functions_as_spark),
        cmocka_unit_test(test_aggregates_over_frames_as_spark),
        cmocka_unit_test(test_running_and_sliding_sums_many_batches),
        cmocka_unit_test(test_lag_lead_ignore_nulls),
        cmocka_unit_test(test_running_collect_list_and_two_input_aggregates),
        cmocka_unit_test(test_range_offsets_over_double_decimal_and_date_keys),
        cmocka_unit_test(test_spilled_window_equals_in_memory),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
