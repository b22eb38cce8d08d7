/*
 * phys_explain.c — cs_phys_explain (phys_plan.h): a physical tree as Spark 4's EXPLAIN prints
 * its physical plan (the adaptive plan's initial tree, under "AdaptiveSparkPlan
 * isFinalPlan=false", which the caller prints): one line per node, children below with
 * "+- " (last child) and ":- " (others) and ":  " / "   " continuing the columns, each node's
 * arguments in Spark's form — "HashAggregate(keys=[g], functions=[partial_sum(x)])",
 * "Exchange hashpartitioning(g, 200), ENSURE_REQUIREMENTS, [plan_id=7]",
 * "FileScan parquet t[k,g] Batched: true, DataFilters: [...], Format: Parquet, Location: ...,
 * PartitionFilters: [], PushedFilters: [IsNotNull(k)], ReadSchema: struct<k:bigint,g:bigint>".
 * Columns print by their input's names (a bound tree has no expression ids: Spark's "k#12"
 * is "k" here).
 *
 * cs_phys_plan_info gives the same tree as Spark's SparkPlanInfo (the sparkPlanInfo of a
 * SQLExecutionStart event, which the SQL tab of cspark's UI and of Spark's History Server draw):
 * per node its nodeName, its simpleString (the EXPLAIN line: name and arguments), children,
 * metadata and metrics (empty: cspark's operators keep no SQL metrics yet); a ReusedExchange's
 * child is the exchange it reads, as Spark's SparkPlanInfo.fromSparkPlan gives it (the UI then
 * draws an edge to that exchange).
 *
 * Called by the session for EXPLAIN and the SQL tab. Ownership: the tree is borrowed.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "formats/text_values.h"
#include "sqlexec/phys_plan.h"

/* ---- expressions, by their input's column names ---- */

static void expr(const cs_pexpr *e, const cs_col_type *in, cs_sbuf *out);

static const char *const binary_ops[] = {
    "+", "-", "*", "/", "%", "=", "<=>", "<", "<=", ">", ">=", "&", "|", "^", "||", "and", "or"};

static bool is_binary(const char *fn)
{
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (!strcmp(fn, binary_ops[i])) return true;
    return false;
}

static void column_name(int ordinal, const cs_col_type *in, cs_sbuf *out)
{
    if (in && ordinal >= 0 && ordinal < in->n_fields)
        cs_sbuf_puts(out, in->fields[ordinal].name);
    else if (in && ordinal >= in->n_fields) /* a lambda's variable (kernels_lambda.c) */
        cs_sbuf_printf(out, "lambda v%d", ordinal - in->n_fields);
    else
        cs_sbuf_printf(out, "input[%d]", ordinal);
}

static void exprs_sep(cs_pexpr *const *e, int n, const cs_col_type *in, const char *sep,
                      cs_sbuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_puts(out, sep);
        expr(e[i], in, out);
    }
}

static void exprs(cs_pexpr *const *e, int n, const cs_col_type *in, cs_sbuf *out)
{
    exprs_sep(e, n, in, ", ", out);
}

static void expr(const cs_pexpr *e, const cs_col_type *in, cs_sbuf *out)
{
    switch (e->kind) {
    case CS_PX_COLUMN:
        column_name(e->ordinal, in, out);
        return;
    case CS_PX_LITERAL:
        cs_pexpr_explain(e, out);
        return;
    case CS_PX_CAST:
        cs_sbuf_puts(out, "cast(");
        expr(e->args[0], in, out);
        cs_sbuf_puts(out, " as ");
        cs_col_type_simple_string(e->type, out);
        cs_sbuf_putc(out, ')');
        return;
    case CS_PX_CASE:
        cs_sbuf_puts(out, "CASE");
        for (int i = 0; i + 1 < e->n_args; i += 2) {
            cs_sbuf_puts(out, " WHEN ");
            expr(e->args[i], in, out);
            cs_sbuf_puts(out, " THEN ");
            expr(e->args[i + 1], in, out);
        }
        if (e->has_else) {
            cs_sbuf_puts(out, " ELSE ");
            expr(e->args[e->n_args - 1], in, out);
        }
        cs_sbuf_puts(out, " END");
        return;
    case CS_PX_IN:
        expr(e->args[0], in, out);
        cs_sbuf_puts(out, " IN (");
        exprs_sep(e->args + 1, e->n_args - 1, in, ",", out);
        cs_sbuf_putc(out, ')');
        return;
    case CS_PX_CALL:
        break;
    }
    if (e->n_args == 2 && is_binary(e->fn)) {
        cs_sbuf_putc(out, '(');
        expr(e->args[0], in, out);
        cs_sbuf_printf(out, " %s ",
                       !strcmp(e->fn, "and")  ? "AND"
                       : !strcmp(e->fn, "or") ? "OR"
                                              : e->fn);
        expr(e->args[1], in, out);
        cs_sbuf_putc(out, ')');
        return;
    }
    if (e->n_args == 1 && (!strcmp(e->fn, "not") || !strcmp(e->fn, "negative"))) {
        cs_sbuf_puts(out, e->fn[0] == 'n' && e->fn[1] == 'o' ? "NOT " : "-");
        expr(e->args[0], in, out);
        return;
    }
    cs_sbuf_printf(out, "%s(", e->fn);
    exprs(e->args, e->n_args, in, out);
    cs_sbuf_putc(out, ')');
}

static void names(const cs_col_type *t, const char *sep, cs_sbuf *out)
{
    for (int i = 0; t && i < t->n_fields; i++)
        cs_sbuf_printf(out, "%s%s", i ? sep : "", t->fields[i].name);
}

static void ordinals(const int *v, int n, const cs_col_type *in, cs_sbuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        column_name(v[i], in, out);
    }
}

static void sort_keys(const cs_sort_key *k, int n, const cs_col_type *in, cs_sbuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        column_name(k[i].ordinal, in, out);
        cs_sbuf_printf(out, " %s NULLS %s", k[i].descending ? "DESC" : "ASC",
                       k[i].nulls_first ? "FIRST" : "LAST");
    }
}

/* ---- nodes ---- */

static const char *const agg_names[] = {"count", "count", "sum",      "avg",      "min",    "max",
                                        "first", "last",  "count_if", "bool_and", "bool_or"};

static void aggregate(const cs_phys_node *n, const cs_col_type *in, cs_sbuf *out)
{
    cs_sbuf_puts(out, "(keys=[");
    ordinals(n->group_keys, n->n_group_keys, in, out);
    cs_sbuf_puts(out, "], functions=[");
    for (int i = 0; i < n->n_aggs; i++) {
        const cs_agg_spec *a = &n->aggs[i];
        if (i) cs_sbuf_puts(out, ", ");
        if (n->agg_mode == CS_AGG_FINAL && a->name) { /* the function as the query wrote it */
            cs_sbuf_puts(out, a->name);
            continue;
        }
        if (n->agg_mode == CS_AGG_PARTIAL) cs_sbuf_puts(out, "partial_");
        int f = a->fn >= CS_AGG_COUNT_STAR && a->fn <= CS_AGG_BOOL_OR ? a->fn : 0;
        cs_sbuf_printf(out, "%s(", agg_names[f]);
        if (a->fn == CS_AGG_COUNT_STAR)
            cs_sbuf_putc(out, '1');
        else
            column_name(a->input, in, out);
        cs_sbuf_putc(out, ')');
    }
    cs_sbuf_puts(out, "])");
}

/* Spark's data source filter of a pushed condition (sources.Filter's toString), or false. */
static bool source_filter(const cs_pexpr *e, const cs_col_type *in, cs_sbuf *out)
{
    static const struct {
        const char *fn, *name, *flipped;
    } ops[] = {{"=", "EqualTo", "EqualTo"},      {"<=>", "EqualNullSafe", "EqualNullSafe"},
               {"<", "LessThan", "GreaterThan"}, {"<=", "LessThanOrEqual", "GreaterThanOrEqual"},
               {">", "GreaterThan", "LessThan"}, {">=", "GreaterThanOrEqual", "LessThanOrEqual"}};
    if (e->kind == CS_PX_IN && e->n_args > 1 && e->args[0]->kind == CS_PX_COLUMN) {
        for (int i = 1; i < e->n_args; i++)
            if (e->args[i]->kind != CS_PX_LITERAL) return false;
        cs_sbuf_puts(out, "In(");
        column_name(e->args[0]->ordinal, in, out);
        cs_sbuf_puts(out, ", [");
        for (int i = 1; i < e->n_args; i++) {
            if (i > 1) cs_sbuf_putc(out, ',');
            expr(e->args[i], in, out);
        }
        cs_sbuf_puts(out, "])");
        return true;
    }
    if (e->kind != CS_PX_CALL) return false;
    if (e->n_args == 1 && e->args[0]->kind == CS_PX_COLUMN &&
        (!strcmp(e->fn, "isnull") || !strcmp(e->fn, "isnotnull"))) {
        cs_sbuf_puts(out, strcmp(e->fn, "isnull") == 0 ? "IsNull(" : "IsNotNull(");
        column_name(e->args[0]->ordinal, in, out);
        cs_sbuf_putc(out, ')');
        return true;
    }
    if (e->n_args != 2) return false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (strcmp(e->fn, ops[k].fn)) continue;
        for (int side = 0; side < 2; side++)
            if (e->args[side]->kind == CS_PX_COLUMN && e->args[1 - side]->kind == CS_PX_LITERAL) {
                cs_sbuf_printf(out, "%s(", side ? ops[k].flipped : ops[k].name);
                column_name(e->args[side]->ordinal, in, out);
                cs_sbuf_putc(out, ',');
                expr(e->args[1 - side], in, out);
                cs_sbuf_putc(out, ')');
                return true;
            }
    }
    return false;
}

static void file_scan(const cs_phys_node *n, cs_sbuf *out)
{
    const char *fmt = n->format ? n->format : "";
    cs_sbuf_printf(out, " %s %s[", fmt, n->table_name ? n->table_name : "");
    names(n->schema, ",", out);
    bool batched = !strcmp(fmt, "parquet") || !strcmp(fmt, "orc");
    cs_sbuf_printf(out, "] Batched: %s, DataFilters: [", batched ? "true" : "false");
    exprs(n->filters, n->n_filters, n->schema, out);
    /* Spark's format class: ParquetFileFormat prints "Parquet", CSVFileFormat "CSV", ... */
    char pretty[32];
    snprintf(pretty, sizeof pretty, "%s", fmt);
    if (!strcmp(fmt, "parquet")) snprintf(pretty, sizeof pretty, "Parquet");
    if (!strcmp(fmt, "csv")) snprintf(pretty, sizeof pretty, "CSV");
    if (!strcmp(fmt, "json")) snprintf(pretty, sizeof pretty, "JSON");
    if (!strcmp(fmt, "text")) snprintf(pretty, sizeof pretty, "Text");
    if (!strcmp(fmt, "orc")) snprintf(pretty, sizeof pretty, "ORC");
    cs_sbuf_printf(out, "], Format: %s, Location: InMemoryFileIndex(", pretty);
    /* the root paths: the files' folders above their partition folders ("k=v"), distinct */
    cs_sbuf roots = CS_SBUF_INIT, last = CS_SBUF_INIT;
    int n_roots = 0;
    for (int i = 0; i < n->n_splits; i++) {
        const char *u = n->split_uri[i];
        size_t len = strlen(u);
        while (len && u[len - 1] != '/') /* the file's name */
            len--;
        for (;;) { /* partition folders */
            size_t end = len ? len - 1 : 0, start = end;
            while (start && u[start - 1] != '/')
                start--;
            if (end <= start || !memchr(u + start, '=', end - start)) break;
            len = start;
        }
        if (len > 1) len--; /* no trailing slash */
        if (n_roots && last.len == len && !memcmp(last.data, u, len)) continue;
        last.len = 0;
        cs_sbuf_append(&last, u, len);
        if (n_roots++) cs_sbuf_puts(&roots, ", ");
        cs_sbuf_append(&roots, u, len);
    }
    cs_sbuf_printf(out, "%d paths)[%s], PartitionFilters: [], PushedFilters: [", n_roots,
                   cs_sbuf_str(&roots));
    cs_sbuf_free(&roots);
    cs_sbuf_free(&last);
    int pushed = 0;
    for (int i = 0; i < n->n_filters; i++) {
        size_t keep = out->len;
        if (pushed) cs_sbuf_puts(out, ", ");
        if (source_filter(n->filters[i], n->schema, out))
            pushed++;
        else {
            out->len = keep;
            out->data[keep] = '\0';
        }
    }
    cs_sbuf_puts(out, "], ReadSchema: ");
    if (n->read_schema) cs_col_type_simple_string(n->read_schema, out);
}

static const char *join_type_name(cs_hash_join_type t)
{
    switch (t) {
    case CS_HJ_INNER:
        return "Inner";
    case CS_HJ_LEFT_OUTER:
        return "LeftOuter";
    case CS_HJ_RIGHT_OUTER:
        return "RightOuter";
    case CS_HJ_FULL_OUTER:
        return "FullOuter";
    case CS_HJ_LEFT_SEMI:
        return "LeftSemi";
    case CS_HJ_LEFT_ANTI:
    case CS_HJ_LEFT_ANTI_NULL_AWARE:
        return "LeftAnti";
    }
    return "Inner";
}

/* The schema of the join's condition: left's columns then right's (names only matter). */
static void join_condition(const cs_phys_node *n, cs_sbuf *out)
{
    const cs_col_type *l = n->children[0]->schema, *r = n->children[1]->schema;
    cs_col_type *pairs = l && r ? cs_phys_join_input(l, r) : NULL;
    expr(n->join_condition, pairs, out);
    if (pairs) cs_col_type_unref(pairs);
}

static void window_fn(const cs_window_fn *f, const cs_col_type *in, cs_sbuf *out)
{
    static const char *const names[] = {"row_number", "rank",        "dense_rank", "percent_rank",
                                        "cume_dist",  "ntile",       "lag",        "lead",
                                        "nth_value",  "first_value", "last_value"};
    if (f->kind == CS_WIN_AGGREGATE) {
        int a = f->agg.fn >= CS_AGG_COUNT_STAR && f->agg.fn <= CS_AGG_BOOL_OR ? f->agg.fn : 0;
        cs_sbuf_printf(out, "%s(", agg_names[a]);
        if (f->agg.fn == CS_AGG_COUNT_STAR)
            cs_sbuf_putc(out, '1');
        else
            column_name(f->agg.input, in, out);
    } else {
        cs_sbuf_printf(out, "%s(", names[f->kind]);
        if (f->input >= 0) column_name(f->input, in, out);
        if (f->kind == CS_WIN_NTILE) cs_sbuf_printf(out, "%lld", (long long)f->offset);
        if (f->kind == CS_WIN_LAG || f->kind == CS_WIN_LEAD || f->kind == CS_WIN_NTH_VALUE)
            cs_sbuf_printf(out, ", %lld", (long long)f->offset);
    }
    cs_sbuf_putc(out, ')');
}

static void frame_bound(cs_win_bound_kind k, int64_t v, cs_sbuf *out)
{
    if (k == CS_WB_UNBOUNDED_PRECEDING)
        cs_sbuf_puts(out, "unboundedpreceding$()");
    else if (k == CS_WB_UNBOUNDED_FOLLOWING)
        cs_sbuf_puts(out, "unboundedfollowing$()");
    else if (k == CS_WB_CURRENT_ROW)
        cs_sbuf_puts(out, "currentrow$()");
    else
        cs_sbuf_printf(out, "%lld", (long long)v);
}

/* Spark's "fn() windowspecdefinition(partition keys, order keys, specifiedwindowframe(...)) AS
 * name"; ranking and offset functions print their fixed frames as Spark does. */
static void window_expr(const cs_phys_node *n, const cs_window_fn *f, const cs_col_type *in,
                        cs_sbuf *out)
{
    window_fn(f, in, out);
    cs_sbuf_puts(out, " windowspecdefinition(");
    ordinals(n->partition_keys, n->n_partition_keys, in, out);
    if (n->n_partition_keys && n->n_order_keys) cs_sbuf_puts(out, ", ");
    sort_keys(n->order_keys, n->n_order_keys, in, out);
    if (n->n_partition_keys || n->n_order_keys) cs_sbuf_puts(out, ", ");
    bool value_fn = f->kind == CS_WIN_AGGREGATE || f->kind == CS_WIN_NTH_VALUE ||
                    f->kind == CS_WIN_FIRST_VALUE || f->kind == CS_WIN_LAST_VALUE;
    if (f->kind == CS_WIN_LAG || f->kind == CS_WIN_LEAD) {
        int64_t o = f->kind == CS_WIN_LAG ? -f->offset : f->offset;
        cs_sbuf_printf(out, "specifiedwindowframe(RowFrame, %lld, %lld))", (long long)o,
                       (long long)o);
    } else if (!value_fn) {
        cs_sbuf_puts(out, "specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$()))");
    } else {
        cs_sbuf_printf(out, "specifiedwindowframe(%s, ",
                       f->frame.range ? "RangeFrame" : "RowFrame");
        frame_bound(f->frame.lower_kind, f->frame.lower, out);
        cs_sbuf_puts(out, ", ");
        frame_bound(f->frame.upper_kind, f->frame.upper, out);
        cs_sbuf_puts(out, "))");
    }
    cs_sbuf_printf(out, " AS %s", f->name ? f->name : "");
}

/* A broadcast's mode: a hash join's build keys ("HashedRelationBroadcastMode(List(input[0,
 * bigint, false]),false)"), else the rows as they are. at: the parent's child it is read by (n,
 * or a ReusedExchange of n). */
static void broadcast_mode(const cs_phys_node *n, const cs_phys_node *parent,
                           const cs_phys_node *at, cs_sbuf *out)
{
    if (!parent || parent->kind != CS_PH_HASH_JOIN || n->n_children != 1) {
        cs_sbuf_puts(out, " IdentityBroadcastMode");
        return;
    }
    bool left = parent->children[0] == at;
    const int *keys = left ? parent->left_keys : parent->right_keys;
    const cs_col_type *in = n->children[0]->schema;
    cs_sbuf_puts(out, " HashedRelationBroadcastMode(List(");
    for (int i = 0; i < parent->n_join_keys; i++) {
        int k = keys[i];
        if (i) cs_sbuf_puts(out, ", ");
        cs_sbuf_printf(out, "input[%d, ", k);
        if (in && k >= 0 && k < in->n_fields) {
            cs_col_type_simple_string(in->fields[k].type, out);
            cs_sbuf_printf(out, ", %s]", in->fields[k].nullable ? "true" : "false");
        } else {
            cs_sbuf_puts(out, "?, true]");
        }
    }
    cs_sbuf_printf(out, "),%s)",
                   parent->join_type == CS_HJ_LEFT_ANTI_NULL_AWARE ? "true" : "false");
}

/* The node's line after its name. */
static void args(const cs_phys_node *n, const cs_phys_node *parent, cs_sbuf *out)
{
    const cs_col_type *in = n->n_children ? n->children[0]->schema : NULL;
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        file_scan(n, out);
        return;
    case CS_PH_LOCAL:
        cs_sbuf_puts(out, n->local_origin == 2 ? "[" : " [");
        names(n->schema, n->local_origin == 2 ? "," : ", ", out);
        cs_sbuf_putc(out, ']');
        return;
    case CS_PH_RANGE:
        cs_sbuf_printf(out, " (%lld, %lld, step=%lld, splits=%d)", (long long)n->range_start,
                       (long long)n->range_end, (long long)n->range_step, n->num_slices);
        return;
    case CS_PH_SHUFFLE_READ:
    case CS_PH_BROADCAST_READ:
    case CS_PH_PARENT_READ:
        cs_sbuf_printf(out, " %d", n->input);
        return;
    case CS_PH_FILTER:
        cs_sbuf_putc(out, ' ');
        if (n->condition) expr(n->condition, in, out);
        return;
    case CS_PH_PROJECT:
        cs_sbuf_puts(out, " [");
        for (int i = 0; i < n->n_exprs; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            const char *name =
                n->schema && i < n->schema->n_fields ? n->schema->fields[i].name : "";
            const cs_pexpr *e = n->exprs[i];
            expr(e, in, out);
            bool same = e->kind == CS_PX_COLUMN && in && e->ordinal < in->n_fields &&
                        !strcmp(in->fields[e->ordinal].name, name);
            if (!same) cs_sbuf_printf(out, " AS %s", name);
        }
        cs_sbuf_putc(out, ']');
        return;
    case CS_PH_HASH_AGGREGATE:
        aggregate(n, in, out);
        return;
    case CS_PH_SORT:
        cs_sbuf_puts(out, " [");
        sort_keys(n->sort_keys, n->n_sort_keys, in, out);
        cs_sbuf_printf(out, "], %s, 0", n->global ? "true" : "false");
        return;
    case CS_PH_TOP_N: /* Spark's limit counts the offset's rows */
        cs_sbuf_printf(out, "(limit=%lld, ",
                       (long long)(n->limit + (n->offset > 0 ? n->offset : 0)));
        if (n->offset > 0) cs_sbuf_printf(out, "offset=%lld, ", (long long)n->offset);
        cs_sbuf_puts(out, "orderBy=[");
        sort_keys(n->sort_keys, n->n_sort_keys, in, out);
        cs_sbuf_puts(out, "], output=[");
        names(n->schema, ",", out);
        cs_sbuf_puts(out, "])");
        return;
    case CS_PH_LIMIT:
        if (n->limit < 0)
            cs_sbuf_printf(out, " %lld", (long long)n->offset);
        else if (n->global)
            cs_sbuf_printf(out, " %lld, %lld", (long long)n->limit, (long long)n->offset);
        else
            cs_sbuf_printf(out, " %lld", (long long)n->limit);
        return;
    case CS_PH_EXPAND:
        cs_sbuf_puts(out, " [");
        for (int p = 0; p < n->n_projections; p++) {
            cs_sbuf_puts(out, p ? ", [" : "[");
            for (int c = 0; c < n->n_out; c++) {
                if (c) cs_sbuf_puts(out, ", ");
                int o = n->projections[p * n->n_out + c];
                if (o == CS_EXPAND_NULL)
                    cs_sbuf_puts(out, "null");
                else
                    column_name(o, in, out);
            }
            if (n->grouping_ids) cs_sbuf_printf(out, ", %lld", (long long)n->grouping_ids[p]);
            cs_sbuf_putc(out, ']');
        }
        cs_sbuf_puts(out, "], [");
        names(n->schema, ", ", out);
        cs_sbuf_putc(out, ']');
        return;
    case CS_PH_WINDOW:
        cs_sbuf_puts(out, " [");
        for (int i = 0; i < n->n_window_fns; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            window_expr(n, &n->window_fns[i], in, out);
        }
        cs_sbuf_puts(out, "], [");
        ordinals(n->partition_keys, n->n_partition_keys, in, out);
        cs_sbuf_puts(out, "], [");
        sort_keys(n->order_keys, n->n_order_keys, in, out);
        cs_sbuf_putc(out, ']');
        return;
    case CS_PH_PYTHON_EVAL: { /* the UDFs' result columns (named after their calls) */
        bool own = n->py_eval_type == 201 || n->py_eval_type == 202 || n->py_eval_type == 205 ||
                   n->py_eval_type == 206 || n->py_eval_type == 207 || n->py_eval_type == 209 ||
                   n->py_eval_type == 210;
        int base = own ? 0 : (in ? in->n_fields : 0);
        cs_sbuf_puts(out, " [");
        for (int i = base; n->schema && i < n->schema->n_fields; i++)
            cs_sbuf_printf(out, "%s%s", i > base ? ", " : "", n->schema->fields[i].name);
        cs_sbuf_printf(out, "], %d", n->py_eval_type);
        return;
    }
    case CS_PH_GENERATE: {
        static const char *const gens[] = {"explode", "posexplode", "inline", "stack",
                                           "variant_explode"};
        int g = n->generator >= CS_GEN_EXPLODE && n->generator <= CS_GEN_VARIANT_EXPLODE
                    ? n->generator
                    : 0;
        cs_sbuf_printf(out, " %s(", gens[g]);
        if (n->generator == CS_GEN_STACK) {
            cs_sbuf_printf(out, "%lld, ", (long long)n->stack_rows);
            ordinals(n->generator_args, n->n_generator_args, in, out);
        } else {
            column_name(n->generator_input, in, out);
        }
        /* the input's columns the rows keep (Spark's requiredChildOutput; none: not shown) */
        int kept = !n->generator_pruned ? (in ? in->n_fields : 0) : n->n_generator_keep;
        cs_sbuf_puts(out, "), ");
        if (!n->generator_pruned) {
            cs_sbuf_putc(out, '[');
            names(in, ", ", out);
            cs_sbuf_puts(out, "], ");
        } else if (kept > 0) {
            cs_sbuf_putc(out, '[');
            ordinals(n->generator_keep, n->n_generator_keep, in, out);
            cs_sbuf_puts(out, "], ");
        }
        cs_sbuf_printf(out, "%s, [", n->generator_outer ? "true" : "false");
        for (int i = kept; n->schema && i < n->schema->n_fields; i++)
            cs_sbuf_printf(out, "%s%s", i > kept ? ", " : "", n->schema->fields[i].name);
        cs_sbuf_putc(out, ']');
        return;
    }
    case CS_PH_EXCHANGE: {
        static const char *const origins[] = {"ENSURE_REQUIREMENTS", "REPARTITION_BY_NUM",
                                              "REPARTITION_BY_COL", "REBALANCE_PARTITIONS_BY_NONE",
                                              "REBALANCE_PARTITIONS_BY_COL"};
        const char *origin = (unsigned)n->shuffle_origin < sizeof origins / sizeof origins[0]
                                 ? origins[n->shuffle_origin]
                                 : origins[0];
        switch (n->partitioning) {
        case CS_PART_HASH:
            cs_sbuf_puts(out, " hashpartitioning(");
            exprs(n->exprs, n->n_exprs, in, out);
            cs_sbuf_printf(out, ", %d), %s", n->num_partitions, origin);
            break;
        case CS_PART_SINGLE:
            cs_sbuf_printf(out, " SinglePartition, %s", origin);
            break;
        case CS_PART_ROUND_ROBIN:
            cs_sbuf_printf(out, " RoundRobinPartitioning(%d), %s", n->num_partitions, origin);
            break;
        case CS_PART_RANGE:
            cs_sbuf_puts(out, " rangepartitioning(");
            sort_keys(n->sort_keys, n->n_sort_keys, in, out);
            cs_sbuf_printf(out, ", %d), %s", n->num_partitions, origin);
            break;
        }
        cs_sbuf_printf(out, ", [plan_id=%d]", n->id);
        return;
    }
    case CS_PH_COALESCE:
        cs_sbuf_printf(out, " %d", n->num_partitions);
        return;
    case CS_PH_SAMPLE: /* Spark's "Sample 0.0, 0.3, false, 17" */
        cs_sbuf_puts(out, " ");
        cs_tv_format_double(n->sample_lower, out);
        cs_sbuf_puts(out, ", ");
        cs_tv_format_double(n->sample_upper, out);
        cs_sbuf_printf(out, ", %s, %lld", n->with_replacement ? "true" : "false",
                       (long long)n->seed);
        return;
    case CS_PH_BROADCAST_EXCHANGE:
        broadcast_mode(n, parent, n, out);
        cs_sbuf_printf(out, ", [plan_id=%d]", n->id);
        return;
    case CS_PH_HASH_JOIN: {
        const cs_col_type *l = n->children[0]->schema, *r = n->children[1]->schema;
        cs_sbuf_puts(out, " [");
        ordinals(n->left_keys, n->n_join_keys, l, out);
        cs_sbuf_puts(out, "], [");
        ordinals(n->right_keys, n->n_join_keys, r, out);
        cs_sbuf_printf(out, "], %s, %s", join_type_name(n->join_type),
                       n->build_side == CS_BUILD_LEFT ? "BuildLeft" : "BuildRight");
        if (n->join_condition) {
            cs_sbuf_puts(out, ", ");
            join_condition(n, out);
        }
        if (n->broadcast)
            cs_sbuf_printf(out, ", %s",
                           n->join_type == CS_HJ_LEFT_ANTI_NULL_AWARE ? "true" : "false");
        return;
    }
    case CS_PH_NESTED_LOOP_JOIN:
        if (n->broadcast)
            cs_sbuf_printf(out, " %s, %s",
                           n->build_side == CS_BUILD_LEFT ? "BuildLeft" : "BuildRight",
                           join_type_name(n->join_type));
        if (n->join_condition) {
            cs_sbuf_puts(out, n->broadcast ? ", " : " ");
            join_condition(n, out);
        }
        return;
    case CS_PH_UNION:
        return;
    case CS_PH_REUSED_EXCHANGE: /* "ReusedExchange [a, b], Exchange hashpartitioning(a, 200), ..."
                                 */
        cs_sbuf_puts(out, " [");
        names(n->schema, ", ", out);
        cs_sbuf_puts(out, "]");
        if (n->reused && n->reused->kind == CS_PH_BROADCAST_EXCHANGE) {
            cs_sbuf_puts(out, ", BroadcastExchange");
            broadcast_mode(n->reused, parent, n, out);
            cs_sbuf_printf(out, ", [plan_id=%d]", n->reused->id);
        } else if (n->reused) {
            cs_sbuf_printf(out, ", %s", cs_phys_node_name(n->reused));
            args(n->reused, parent, out);
        }
        return;
    }
}

static void explain_node(const cs_phys_node *n, const cs_phys_node *parent, cs_sbuf *out,
                         cs_sbuf *prefix, bool last, bool root, int depth)
{
    if (!root) {
        cs_sbuf_puts(out, cs_sbuf_str(prefix));
        cs_sbuf_puts(out, last ? "+- " : ":- ");
    }
    if (depth > 500) {
        cs_sbuf_puts(out, "...\n");
        return;
    }
    cs_sbuf_puts(out, cs_phys_node_name(n));
    args(n, parent, out);
    cs_sbuf_putc(out, '\n');
    size_t keep = prefix->len;
    if (!root) cs_sbuf_puts(prefix, last ? "   " : ":  ");
    if (n->kind == CS_PH_LOCAL && n->local_origin == 1) { /* the cached relation it reads */
        cs_sbuf_printf(out, "%s+- InMemoryRelation [", cs_sbuf_str(prefix));
        names(n->schema, ", ", out);
        cs_sbuf_printf(out, "], %s\n", n->storage_level ? n->storage_level : "");
    }
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i])
            explain_node(n->children[i], n, out, prefix, i == n->n_children - 1, false, depth + 1);
    prefix->len = keep;
    if (prefix->data) prefix->data[keep] = '\0';
}

void cs_phys_explain(const cs_phys_node *n, cs_sbuf *out)
{
    cs_sbuf prefix = {0};
    cs_sbuf_puts(&prefix, "");
    explain_node(n, NULL, out, &prefix, true, true, 0);
    cs_sbuf_free(&prefix);
}

/* ---- Spark's SparkPlanInfo ---- */

static json_t *plan_info(const cs_phys_node *n, const cs_phys_node *parent, cs_sbuf *line,
                         int depth)
{
    json_t *o = json_object(), *children = json_array();
    line->len = 0;
    cs_sbuf_puts(line, cs_phys_node_name(n));
    args(n, parent, line);
    json_object_set_new(o, "nodeName", cs_json_text(cs_phys_node_name(n)));
    json_object_set_new(o, "simpleString", cs_json_text(cs_sbuf_str(line)));
    for (int i = 0; depth < 500 && i < n->n_children; i++)
        if (n->children[i])
            json_array_append_new(children, plan_info(n->children[i], n, line, depth + 1));
    if (n->kind == CS_PH_REUSED_EXCHANGE && n->reused && depth < 500) /* Spark's: its exchange */
        json_array_append_new(children, plan_info(n->reused, n, line, depth + 1));
    json_object_set_new(o, "children", children);
    json_object_set_new(o, "metadata", json_object());
    json_object_set_new(o, "metrics", json_array());
    return o;
}

void cs_phys_plan_info(const cs_phys_node *n, cs_sbuf *out)
{
    cs_sbuf line = CS_SBUF_INIT;
    json_t *info = plan_info(n, NULL, &line, 0);
    char *text = json_dumps(info, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (text) cs_sbuf_puts(out, text);
    free(text);
    json_decref(info);
    cs_sbuf_free(&line);
}

void cs_phys_explain_adaptive(const cs_phys_node *n, bool adaptive, cs_sbuf *out)
{
    if (!adaptive) {
        cs_phys_explain(n, out);
        return;
    }
    cs_sbuf tree = CS_SBUF_INIT;
    cs_phys_explain(n, &tree);
    cs_sbuf_puts(out, "AdaptiveSparkPlan isFinalPlan=false\n");
    const char *p = cs_sbuf_str(&tree);
    for (bool first = true; *p; first = false) {
        size_t len = strcspn(p, "\n");
        cs_sbuf_puts(out, first ? "+- " : "   ");
        cs_sbuf_append(out, p, len);
        p += len;
        if (*p == '\n') {
            cs_sbuf_putc(out, '\n');
            p++;
        }
    }
    cs_sbuf_free(&tree);
}

void cs_phys_plan_info_adaptive(const cs_phys_node *n, bool adaptive, cs_sbuf *out)
{
    if (adaptive)
        cs_sbuf_puts(out, "{\"nodeName\":\"AdaptiveSparkPlan\",\"simpleString\":"
                          "\"AdaptiveSparkPlan isFinalPlan=false\",\"children\":[");
    cs_phys_plan_info(n, out);
    if (adaptive) cs_sbuf_puts(out, "],\"metadata\":{},\"metrics\":[]}");
}
