/*
 * plan_transpose.c — Spark Connect's Transpose relation (DataFrame.transpose(indexColumn)) as
 * the local relation of the transposed rows, following Spark 4's ResolveTranspose (which runs
 * the input when it resolves the plan, as a pivot without values does):
 *
 *   the index column is the one given (a column of the input: anything else is
 *   TRANSPOSE_INVALID_INDEX_COLUMN "Index column must be an atomic attribute"), else the first;
 *   it must be of an atomic type (TRANSPOSE_INVALID_INDEX_COLUMN "... must be of atomic type,
 *   but found: ArrayType(StringType,true)", the type as Spark's DataType.toString prints it);
 *   the other columns (in the input's order) meet at their tightest common type
 *   (AnsiTypeCoercion.findTightestCommonType; string when there are none), else
 *   TRANSPOSE_NO_LEAST_COMMON_TYPE naming the first two that do not;
 *   a job collects CAST(index AS STRING) and the other columns cast to that type, for the rows
 *   whose index is not null, ordered by the index, at most spark.sql.transposeMaxValues + 1
 *   (default 500; more is TRANSPOSE_EXCEED_ROW_LIMIT);
 *   the result: a column `key` (string, not null) holding the other columns' names, then one
 *   nullable column of the common type per collected row, named by its index value, holding
 *   that row's values; no rows collected: the `key` column alone.
 *
 * Called by plan_relations.c. Ownership: plans, types and batches kept by the arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"
#include "connect/plan_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_error.h"

#define TRANSPOSE_MAX_VALUES_KEY "spark.sql.transposeMaxValues"
#define TRANSPOSE_MAX_VALUES_DEFAULT 500

/* Spark's DataType.toString ("ArrayType(StringType,true)", "MapType(StringType,IntegerType,
 * true)", "StructType(StructField(a,IntegerType,true))"). */
static void spark_type_string(const cs_col_type *t, cs_sbuf *out)
{
    switch (t->id) {
    case CS_TYPE_ARRAY:
        cs_sbuf_puts(out, "ArrayType(");
        spark_type_string(t->fields[0].type, out);
        cs_sbuf_printf(out, ",%s)", t->fields[0].nullable ? "true" : "false");
        return;
    case CS_TYPE_MAP: /* fields: key, value */
        cs_sbuf_puts(out, "MapType(");
        spark_type_string(t->fields[0].type, out);
        cs_sbuf_putc(out, ',');
        spark_type_string(t->fields[1].type, out);
        cs_sbuf_printf(out, ",%s)", t->fields[1].nullable ? "true" : "false");
        return;
    case CS_TYPE_STRUCT:
        cs_sbuf_puts(out, "StructType(");
        for (int i = 0; i < t->n_fields; i++) {
            cs_sbuf_printf(out, "%sStructField(%s,", i ? "," : "", t->fields[i].name);
            spark_type_string(t->fields[i].type, out);
            cs_sbuf_printf(out, ",%s)", t->fields[i].nullable ? "true" : "false");
        }
        cs_sbuf_putc(out, ')');
        return;
    case CS_TYPE_DECIMAL:
        cs_sbuf_printf(out, "DecimalType(%d,%d)", t->precision, t->scale);
        return;
    default: { /* the other atomic types by name; intervals as their SQL names */
        static const struct {
            cs_type_id id;
            const char *name;
        } names[] = {{CS_TYPE_NULL, "NullType"},
                     {CS_TYPE_BOOLEAN, "BooleanType"},
                     {CS_TYPE_BYTE, "ByteType"},
                     {CS_TYPE_SHORT, "ShortType"},
                     {CS_TYPE_INT, "IntegerType"},
                     {CS_TYPE_LONG, "LongType"},
                     {CS_TYPE_FLOAT, "FloatType"},
                     {CS_TYPE_DOUBLE, "DoubleType"},
                     {CS_TYPE_STRING, "StringType"},
                     {CS_TYPE_BINARY, "BinaryType"},
                     {CS_TYPE_DATE, "DateType"},
                     {CS_TYPE_TIMESTAMP, "TimestampType"},
                     {CS_TYPE_TIMESTAMP_NTZ, "TimestampNTZType"}};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (names[i].id == t->id) {
                cs_sbuf_puts(out, names[i].name);
                return;
            }
        cs_tc_type_sql(t, out);
        return;
    }
    }
}

static int numeric_rank(cs_type_id id)
{
    static const cs_type_id order[] = {CS_TYPE_BYTE, CS_TYPE_SHORT, CS_TYPE_INT,
                                       CS_TYPE_LONG, CS_TYPE_FLOAT, CS_TYPE_DOUBLE};
    for (int i = 0; i < 6; i++)
        if (order[i] == id) return i;
    return -1;
}

/* AnsiTypeCoercion.findTightestCommonType, or NULL. */
static cs_col_type *tightest(cs_cp *c, cs_col_type *x, cs_col_type *y)
{
    if (cs_col_type_equal(x, y)) return x;
    if (x->id == CS_TYPE_NULL) return y;
    if (y->id == CS_TYPE_NULL) return x;
    for (int k = 0; k < 2; k++) { /* an integral type and a decimal wider than it */
        cs_col_type *i = k ? y : x, *d = k ? x : y;
        if (cs_tc_is_integral(i) && d->id == CS_TYPE_DECIMAL)
            return d->precision - d->scale >= cs_tc_integral_digits(i->id) ? d : NULL;
    }
    int rx = numeric_rank(x->id), ry = numeric_rank(y->id);
    if (rx >= 0 && ry >= 0) {
        cs_col_type *w = rx > ry ? x : y;
        return w->id == CS_TYPE_FLOAT ? cs_col_type_primitive(CS_TYPE_DOUBLE) : w;
    }
    if (cs_tc_is_datetime(x) && cs_tc_is_datetime(y)) return cs_tc_wider(c->a, x, y);
    return NULL;
}

static int invalid_index(cs_cp *c, const char *reason)
{
    int e = cs_sql_error_set(c->err, CS_EINVAL, "TRANSPOSE_INVALID_INDEX_COLUMN", "42804",
                             "Invalid index column for TRANSPOSE because: %s", reason);
    cs_sql_error_param(c->err, "reason", reason);
    return e;
}

/* The query collecting the rows: CAST(index AS STRING), the others cast to common, over in,
 * non-null index, ordered by it, at most max + 1 rows. */
static cs_logical_plan *collect_plan(cs_cp *c, cs_logical_plan *in, const cs_logical_plan *cols,
                                     int index, cs_col_type *common, int max)
{
    cs_logical_plan *f = cs_logical_plan_new(c->a, CS_LP_FILTER, 1);
    f->children[0] = in;
    cs_sql_expr *idx = cs_cp_column1(c, cols->output[index]->name);
    f->condition = cs_cp_call(c, "isnotnull", &idx, 1);
    cs_logical_plan *sort = cs_logical_plan_new(c->a, CS_LP_SORT, 1);
    sort->children[0] = f;
    sort->global = true;
    sort->n_order = 1;
    sort->order = (cs_sql_expr **)cs_cp_array(c, 1);
    sort->order[0] = cs_sql_expr_new(c->a, CS_EX_SORT_ORDER, 1);
    sort->order[0]->args[0] = cs_cp_column1(c, cols->output[index]->name);
    sort->order[0]->nulls_first = true;
    cs_logical_plan *proj = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    proj->children[0] = sort;
    proj->n_exprs = cols->n_output;
    proj->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)cols->n_output);
    for (int i = 0, k = 1; i < cols->n_output; i++) {
        cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
        x->args[0] = cs_cp_column1(c, cols->output[i]->name);
        x->cast_type = i == index ? cs_col_type_string(0) : common;
        x->cast_mode = CS_CAST_ANSI;
        char name[32];
        snprintf(name, sizeof name, "__transpose_%d", i == index ? 0 : k++);
        proj->exprs[i == index ? 0 : k - 1] = cs_cp_alias(c, x, cs_sql_strdup(c->a, name));
    }
    cs_logical_plan *limit = cs_logical_plan_new(c->a, CS_LP_LIMIT, 1);
    limit->children[0] = proj;
    Spark__Connect__Expression__Literal n = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    n.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    n.integer = max + 1;
    if (cs_cp_literal(c, &n, &limit->limit) != 0) return NULL;
    return limit;
}

/* The transposed relation of the collected rows (one batch: CAST(index AS STRING), values). */
static int transposed(cs_cp *c, const cs_logical_plan *cols, int index, cs_col_type *common,
                      cs_col_batch *rows, cs_logical_plan **out)
{
    int nv = cols->n_output - 1, m = rows ? (int)rows->num_rows : 0;
    cs_col_field *f = cs_xcalloc((size_t)m + 2, sizeof *f);
    f[0] = (cs_col_field){.name = "key", .type = cs_col_type_string(0), .nullable = false};
    cs_column *index_values = rows ? cs_column_decode(rows->columns[0], NULL) : NULL;
    for (int i = 0; i < m; i++) {
        int32_t len;
        const uint8_t *s = cs_column_bytes(index_values, i, &len);
        char *name = cs_sql_alloc(c->a, (size_t)len + 1);
        memcpy(name, s, (size_t)len);
        f[i + 1] = (cs_col_field){.name = name, .type = cs_col_type_ref(common), .nullable = true};
    }
    if (index_values) cs_column_unref(index_values);
    cs_col_type *schema = cs_col_type_struct(f, m + 1);
    free(f);
    cs_sql_arena_keep_type(c->a, cs_col_type_ref(schema));
    cs_column **out_cols = cs_xcalloc((size_t)m + 1, sizeof *out_cols);
    cs_col_builder *kb = cs_col_builder_new(NULL, cs_col_type_string(0));
    for (int i = 0; i < cols->n_output; i++)
        if (i != index)
            cs_col_builder_append_string(kb, cols->output[i]->name, strlen(cols->output[i]->name));
    out_cols[0] = cs_col_builder_finish(kb);
    cs_col_builder_free(kb);
    /* the value columns, each as a one-column batch of one schema, gathered row by row */
    cs_col_field vf = {.name = "v", .type = cs_col_type_ref(common), .nullable = true};
    cs_col_type *vs = cs_col_type_struct(&vf, 1);
    cs_col_batch **vb = cs_xcalloc((size_t)nv + 1, sizeof *vb);
    cs_sql_row_run *runs = cs_xcalloc((size_t)nv + 1, sizeof *runs);
    int rc = 0;
    for (int j = 0; j < nv && m > 0 && rc == 0; j++) {
        cs_column *col = cs_column_ref(rows->columns[j + 1]);
        vb[j] = cs_col_batch_new(cs_col_type_ref(vs), &col, 1, rows->num_rows, c->err);
        if (!vb[j]) rc = -1;
    }
    for (int i = 0; i < m && rc == 0; i++) {
        for (int j = 0; j < nv; j++)
            runs[j] = (cs_sql_row_run){.batch = j, .start = i, .len = 1};
        cs_col_batch *g = cs_sql_batch_gather_runs(vs, vb, runs, nv, NULL);
        out_cols[i + 1] = cs_column_ref(g->columns[0]);
        cs_col_batch_unref(g);
    }
    for (int j = 0; j < nv; j++)
        if (vb[j]) cs_col_batch_unref(vb[j]);
    free(vb);
    free(runs);
    cs_col_type_unref(vs);
    cs_col_batch *b = NULL;
    if (rc == 0) {
        b = cs_col_batch_new(cs_col_type_ref(schema), out_cols, m + 1, nv, c->err);
        if (!b) rc = -1;
    } else {
        for (int i = 0; i <= m; i++)
            if (out_cols[i]) cs_column_unref(out_cols[i]);
    }
    free(out_cols);
    if (rc != 0) {
        cs_col_type_unref(schema);
        return c->err->code ? c->err->code : CS_EINVAL;
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_LOCAL_RELATION, 0);
    p->declared_schema = schema; /* the arena's reference (kept above) */
    cs_col_type_unref(schema);
    p->n_batches = 1;
    p->batches = (cs_col_batch **)cs_cp_array(c, 1);
    p->batches[0] = cs_sql_arena_keep_batch(c->a, b);
    *out = p;
    return 0;
}

int cs_cp_transpose(cs_cp *c, const Spark__Connect__Transpose *t, cs_logical_plan **out)
{
    if (!c->ctx->session) return cs_cp_invalid(c, "a transpose needs a session");
    cs_logical_plan *in;
    int rc = cs_cp_input(c, t->input, "Transpose", &in);
    if (rc) return rc;
    /* the input's columns, and the index column among them (resolved over the input) */
    cs_logical_plan *probe = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1), *resolved;
    probe->children[0] = in;
    probe->n_exprs = 1;
    probe->exprs = (cs_sql_expr **)cs_cp_array(c, 1);
    if (t->n_index_columns > 0) {
        if ((rc = cs_cp_expression(c, t->index_columns[0], &probe->exprs[0])) != 0) return rc;
    } else {
        probe->exprs[0] = cs_sql_expr_new(c->a, CS_EX_STAR, 0);
    }
    if ((rc = cs_cp_input_columns(c, probe, &resolved)) != 0) return rc;
    const cs_logical_plan *cols = resolved->children[0];
    if (cols->n_output == 0) return invalid_index(c, "Index column must be an atomic attribute");
    int index = 0;
    if (t->n_index_columns > 0) {
        const cs_sql_expr *e = resolved->exprs[0];
        index = -1;
        if (e->kind == CS_EX_ATTR)
            for (int i = 0; i < cols->n_output; i++)
                if (cols->output[i]->id == e->id) index = i;
        if (index < 0) return invalid_index(c, "Index column must be an atomic attribute");
    }
    if (!cs_tc_is_atomic(cols->output[index]->type)) {
        cs_sbuf why = CS_SBUF_INIT;
        cs_sbuf_puts(&why, "Index column must be of atomic type, but found: ");
        spark_type_string(cols->output[index]->type, &why);
        rc = invalid_index(c, cs_sbuf_str(&why));
        cs_sbuf_free(&why);
        return rc;
    }
    cs_col_type *common = NULL;
    for (int i = 0; i < cols->n_output; i++) {
        if (i == index) continue;
        cs_col_type *ti = cols->output[i]->type;
        cs_col_type *next = common ? tightest(c, common, ti) : ti;
        if (!next) {
            cs_sbuf d1 = CS_SBUF_INIT, d2 = CS_SBUF_INIT;
            cs_sbuf_putc(&d1, '"');
            cs_tc_type_sql(common, &d1);
            cs_sbuf_putc(&d1, '"');
            cs_sbuf_putc(&d2, '"');
            cs_tc_type_sql(ti, &d2);
            cs_sbuf_putc(&d2, '"');
            rc = cs_sql_error_set(c->err, CS_EINVAL, "TRANSPOSE_NO_LEAST_COMMON_TYPE", "42K09",
                                  "Transpose requires non-index columns to share a least common "
                                  "type, but %s and %s do not.",
                                  cs_sbuf_str(&d1), cs_sbuf_str(&d2));
            cs_sql_error_param(c->err, "dt1", cs_sbuf_str(&d1));
            cs_sql_error_param(c->err, "dt2", cs_sbuf_str(&d2));
            cs_sbuf_free(&d1);
            cs_sbuf_free(&d2);
            return rc;
        }
        common = next;
    }
    if (!common) common = cs_col_type_string(0);
    const char *conf = cs_sql_session_conf(c->ctx->session, TRANSPOSE_MAX_VALUES_KEY);
    int max = conf ? atoi(conf) : TRANSPOSE_MAX_VALUES_DEFAULT;
    cs_logical_plan *q = collect_plan(c, in, cols, index, common, max);
    if (!q) return c->err->code ? c->err->code : CS_EINVAL;
    cs_sql_statement st = {.kind = CS_STMT_QUERY, .plan = q};
    cs_sql_result r;
    bool kept = false;
    rc = cs_sql_session_run_statement(c->ctx->session, c->a, &st, "transpose", &r, &kept, c->err);
    if (rc) return rc < 0 ? rc : CS_EINVAL;
    if (r.num_rows > max) {
        cs_sql_result_free(&r);
        char maxs[24];
        snprintf(maxs, sizeof maxs, "%d", max);
        rc = cs_sql_error_set(c->err, CS_EINVAL, "TRANSPOSE_EXCEED_ROW_LIMIT", "54006",
                              "Number of rows exceeds the allowed limit of %d for TRANSPOSE. If "
                              "this was intended, set %s to at least the current row count.",
                              max, TRANSPOSE_MAX_VALUES_KEY);
        cs_sql_error_param(c->err, "maxValues", maxs);
        cs_sql_error_param(c->err, "config", TRANSPOSE_MAX_VALUES_KEY);
        return rc;
    }
    cs_col_batch *rows = NULL;
    if (r.num_rows > 0)
        rows = r.n_batches == 1 ? cs_col_batch_ref(r.batches[0])
                                : cs_sql_batch_concat(r.schema, r.batches, r.n_batches, NULL);
    cs_sql_result_free(&r);
    rc = transposed(c, cols, index, common, rows, out);
    if (rows) cs_col_batch_unref(rows);
    return rc;
}
