/*
 * parse_print.h — a debug printer of the parser's trees for the SQL parser's tests (until the
 * analyzer's cs_logical_plan_print exists): one line per statement, in a compact notation that
 * shows every field the parser sets, so a test compares a whole tree with one string:
 *
 *   plans        Kind[fields](children)   Project[a, ('b + 1) AS c](Relation[t])
 *   names        'a.b (unresolved), * and t.*, `e AS x`
 *   calls        fn(args) with DISTINCT / FILTER(...) / IGNORE NULLS; a binary operator
 *                (name not a word) infix in parentheses: ('a + 1); negated: NOT fn(...)
 *   literals     1 (int), 'x' (string), NULL, true; others value:type (1:bigint,
 *                1.5:decimal(2,1), 1000.0:double, 0x0A:binary, 18262:date, 86400000000:
 *                interval day) — the raw stored value
 *   subqueries   {plan} inside the expression
 *
 * Static functions, included by the tests of tests/unit/sql only.
 */
#ifndef CSPARK_TESTS_SQL_PARSE_PRINT_H
#define CSPARK_TESTS_SQL_PARSE_PRINT_H

#include <ctype.h>
#include <string.h>

#include "sql/logical_plan.h"
#include "sql/sql_parser.h"

static void pp_plan(const cs_logical_plan *p, cs_sbuf *o);
static void pp_expr(const cs_sql_expr *e, cs_sbuf *o);

static void pp_exprs(cs_sql_expr *const *es, int n, cs_sbuf *o)
{
    for (int k = 0; k < n; k++) {
        if (k) cs_sbuf_puts(o, ", ");
        pp_expr(es[k], o);
    }
}

static void pp_names(const char *const *names, int n, const char *sep, cs_sbuf *o)
{
    for (int k = 0; k < n; k++) {
        if (k) cs_sbuf_puts(o, sep);
        cs_sbuf_puts(o, names[k]);
    }
}

static void pp_i128(__int128 v, int scale, cs_sbuf *o)
{
    char buf[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        buf[n++] = '0';
    if (neg) cs_sbuf_putc(o, '-');
    for (int k = n - 1; k >= 0; k--) {
        cs_sbuf_putc(o, buf[k]);
        if (k == scale && scale > 0) cs_sbuf_putc(o, '.');
    }
}

static void pp_literal(const cs_column *c, cs_sbuf *o)
{
    const cs_col_type *t = c->type;
    if (!cs_column_is_valid(c, 0)) {
        cs_sbuf_puts(o, "NULL");
        if (t->id != CS_TYPE_NULL) {
            cs_sbuf_putc(o, ':');
            cs_col_type_simple_string(t, o);
        }
        return;
    }
    const void *v = c->values;
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(o, cs_bit_get(c->values, 0) ? "true" : "false");
        return;
    case CS_TYPE_INT:
        cs_sbuf_printf(o, "%d", *(const int32_t *)v);
        return;
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *b = cs_column_bytes(c, 0, &len);
        cs_sbuf_putc(o, '\'');
        cs_sbuf_append(o, b, (size_t)len);
        cs_sbuf_putc(o, '\'');
        return;
    }
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *b = cs_column_bytes(c, 0, &len);
        cs_sbuf_puts(o, "0x");
        for (int32_t k = 0; k < len; k++)
            cs_sbuf_printf(o, "%02X", b[k]);
        break;
    }
    case CS_TYPE_BYTE:
        cs_sbuf_printf(o, "%d", *(const int8_t *)v);
        break;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(o, "%d", *(const int16_t *)v);
        break;
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        cs_sbuf_printf(o, "%d", *(const int32_t *)v);
        break;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        cs_sbuf_printf(o, "%lld", (long long)*(const int64_t *)v);
        break;
    case CS_TYPE_FLOAT:
        cs_sbuf_printf(o, "%.9g", (double)*(const float *)v);
        break;
    case CS_TYPE_DOUBLE:
        cs_sbuf_printf(o, "%.17g", *(const double *)v);
        break;
    case CS_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, v, sizeof x);
        pp_i128(x, t->scale, o);
        break;
    }
    default:
        cs_sbuf_puts(o, "?");
        break;
    }
    cs_sbuf_putc(o, ':');
    cs_col_type_simple_string(t, o);
}

static void pp_bound(const cs_frame_bound *b, cs_sbuf *o)
{
    switch (b->kind) {
    case CS_BOUND_UNBOUNDED_PRECEDING:
        cs_sbuf_puts(o, "UNBOUNDED PRECEDING");
        break;
    case CS_BOUND_UNBOUNDED_FOLLOWING:
        cs_sbuf_puts(o, "UNBOUNDED FOLLOWING");
        break;
    case CS_BOUND_CURRENT_ROW:
        cs_sbuf_puts(o, "CURRENT ROW");
        break;
    case CS_BOUND_PRECEDING:
        pp_expr(b->offset, o);
        cs_sbuf_puts(o, " PRECEDING");
        break;
    case CS_BOUND_FOLLOWING:
        pp_expr(b->offset, o);
        cs_sbuf_puts(o, " FOLLOWING");
        break;
    }
}

static void pp_window(const cs_window_spec *w, cs_sbuf *o)
{
    if (w->ref_name && !w->n_partition && !w->n_order && !w->has_frame) {
        cs_sbuf_puts(o, w->ref_name);
        return;
    }
    cs_sbuf_putc(o, '(');
    const char *sep = "";
    if (w->ref_name) {
        cs_sbuf_puts(o, w->ref_name);
        sep = " ";
    }
    if (w->n_partition) {
        cs_sbuf_printf(o, "%sPARTITION BY ", sep);
        pp_exprs(w->partition, w->n_partition, o);
        sep = " ";
    }
    if (w->n_order) {
        cs_sbuf_printf(o, "%sORDER BY ", sep);
        pp_exprs(w->order, w->n_order, o);
        sep = " ";
    }
    if (w->has_frame) {
        cs_sbuf_printf(o, "%s%s BETWEEN ", sep, w->frame_type == CS_FRAME_ROWS ? "ROWS" : "RANGE");
        pp_bound(&w->lower, o);
        cs_sbuf_puts(o, " AND ");
        pp_bound(&w->upper, o);
    }
    cs_sbuf_putc(o, ')');
}

static void pp_expr(const cs_sql_expr *e, cs_sbuf *o)
{
    if (!e) {
        cs_sbuf_puts(o, "<null>");
        return;
    }
    switch (e->kind) {
    case CS_EX_LITERAL:
        pp_literal(e->literal, o);
        return;
    case CS_EX_UNRESOLVED_ATTR:
        cs_sbuf_putc(o, '\'');
        pp_names(e->parts, e->n_parts, ".", o);
        return;
    case CS_EX_STAR:
        if (e->n_parts) {
            pp_names(e->parts, e->n_parts, ".", o);
            cs_sbuf_putc(o, '.');
        }
        cs_sbuf_putc(o, '*');
        return;
    case CS_EX_ALIAS:
        pp_expr(e->args[0], o);
        cs_sbuf_printf(o, " AS ");
        if (e->n_parts > 1) {
            cs_sbuf_putc(o, '(');
            pp_names(e->parts, e->n_parts, ", ", o);
            cs_sbuf_putc(o, ')');
        } else {
            cs_sbuf_puts(o, e->name);
        }
        return;
    case CS_EX_UNRESOLVED_FUNC: {
        if (e->negated) cs_sbuf_puts(o, "NOT ");
        bool infix = e->n_args == 2 && !isalpha((unsigned char)e->name[0]) && !e->distinct;
        if (infix) {
            cs_sbuf_putc(o, '(');
            pp_expr(e->args[0], o);
            cs_sbuf_printf(o, " %s ", e->name);
            pp_expr(e->args[1], o);
            cs_sbuf_putc(o, ')');
        } else {
            cs_sbuf_printf(o, "%s(", e->name);
            if (e->distinct) cs_sbuf_puts(o, "DISTINCT ");
            pp_exprs(e->args, e->n_args, o);
            cs_sbuf_putc(o, ')');
        }
        if (e->filter) {
            cs_sbuf_puts(o, " FILTER(");
            pp_expr(e->filter, o);
            cs_sbuf_putc(o, ')');
        }
        if (e->ignore_nulls) cs_sbuf_puts(o, " IGNORE NULLS");
        return;
    }
    case CS_EX_WINDOW:
        pp_expr(e->args[0], o);
        cs_sbuf_puts(o, " OVER ");
        pp_window(e->window, o);
        return;
    case CS_EX_CAST:
        cs_sbuf_puts(o, e->cast_mode == CS_CAST_TRY ? "try_cast(" : "cast(");
        pp_expr(e->args[0], o);
        cs_sbuf_puts(o, " AS ");
        cs_col_type_simple_string(e->cast_type, o);
        cs_sbuf_putc(o, ')');
        return;
    case CS_EX_CASE: {
        cs_sbuf_puts(o, "CASE");
        int k = 0;
        if (e->has_operand) {
            cs_sbuf_putc(o, ' ');
            pp_expr(e->args[k++], o);
        }
        int end = e->n_args - (e->has_else ? 1 : 0);
        for (; k + 1 < end + 1 && k < end; k += 2) {
            cs_sbuf_puts(o, " WHEN ");
            pp_expr(e->args[k], o);
            cs_sbuf_puts(o, " THEN ");
            pp_expr(e->args[k + 1], o);
        }
        if (e->has_else) {
            cs_sbuf_puts(o, " ELSE ");
            pp_expr(e->args[e->n_args - 1], o);
        }
        cs_sbuf_puts(o, " END");
        return;
    }
    case CS_EX_IN_LIST:
        pp_expr(e->args[0], o);
        cs_sbuf_puts(o, e->negated ? " NOT IN (" : " IN (");
        pp_exprs(e->args + 1, e->n_args - 1, o);
        cs_sbuf_putc(o, ')');
        return;
    case CS_EX_IN_SUBQUERY:
        if (e->n_args > 1) cs_sbuf_putc(o, '(');
        pp_exprs(e->args, e->n_args, o);
        if (e->n_args > 1) cs_sbuf_putc(o, ')');
        cs_sbuf_puts(o, e->negated ? " NOT IN {" : " IN {");
        pp_plan(e->subquery, o);
        cs_sbuf_putc(o, '}');
        return;
    case CS_EX_EXISTS:
        cs_sbuf_puts(o, e->negated ? "NOT EXISTS {" : "EXISTS {");
        pp_plan(e->subquery, o);
        cs_sbuf_putc(o, '}');
        return;
    case CS_EX_SCALAR_SUBQUERY:
        cs_sbuf_putc(o, '{');
        pp_plan(e->subquery, o);
        cs_sbuf_putc(o, '}');
        return;
    case CS_EX_SORT_ORDER:
        pp_expr(e->args[0], o);
        cs_sbuf_puts(o, e->descending ? " DESC" : " ASC");
        if (e->nulls_first == e->descending)
            cs_sbuf_puts(o, e->nulls_first ? " NULLS FIRST" : " NULLS LAST");
        return;
    case CS_EX_LAMBDA:
        cs_sbuf_putc(o, '(');
        pp_names(e->parts, e->n_parts, ", ", o);
        cs_sbuf_puts(o, ") -> ");
        pp_expr(e->args[0], o);
        return;
    case CS_EX_UNRESOLVED_ORDINAL:
        cs_sbuf_printf(o, "#%lld", (long long)e->ordinal);
        return;
    case CS_EX_UNRESOLVED_EXTRACT_VALUE:
        pp_expr(e->args[0], o);
        cs_sbuf_putc(o, '[');
        pp_expr(e->args[1], o);
        cs_sbuf_putc(o, ']');
        return;
    default:
        cs_sbuf_printf(o, "<kind %d>", (int)e->kind);
        return;
    }
}

static const char *pp_join_name(cs_join_type t)
{
    switch (t) {
    case CS_JOIN_INNER:
        return "Inner";
    case CS_JOIN_LEFT_OUTER:
        return "LeftOuter";
    case CS_JOIN_RIGHT_OUTER:
        return "RightOuter";
    case CS_JOIN_FULL_OUTER:
        return "FullOuter";
    case CS_JOIN_LEFT_SEMI:
        return "LeftSemi";
    case CS_JOIN_LEFT_ANTI:
        return "LeftAnti";
    case CS_JOIN_CROSS:
        return "Cross";
    default:
        return "?";
    }
}

static void pp_children(const cs_logical_plan *p, cs_sbuf *o)
{
    if (!p->n_children) return;
    cs_sbuf_putc(o, '(');
    for (int k = 0; k < p->n_children; k++) {
        if (k) cs_sbuf_puts(o, ", ");
        pp_plan(p->children[k], o);
    }
    cs_sbuf_putc(o, ')');
}

static void pp_plan(const cs_logical_plan *p, cs_sbuf *o)
{
    if (!p) {
        cs_sbuf_puts(o, "<null>");
        return;
    }
    switch (p->kind) {
    case CS_LP_UNRESOLVED_RELATION:
        cs_sbuf_puts(o, "Relation[");
        if (p->format)
            cs_sbuf_printf(o, "%s:%s", p->format, p->path);
        else
            pp_names(p->parts, p->n_parts, ".", o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_ONE_ROW:
        cs_sbuf_puts(o, "OneRow");
        break;
    case CS_LP_PROJECT:
        cs_sbuf_puts(o, "Project[");
        pp_exprs(p->exprs, p->n_exprs, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_FILTER:
        cs_sbuf_puts(o, "Filter[");
        pp_expr(p->condition, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_AGGREGATE:
        cs_sbuf_puts(o, "Aggregate[");
        pp_exprs(p->group_by, p->n_group_by, o);
        cs_sbuf_puts(o, "; ");
        pp_exprs(p->exprs, p->n_exprs, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_JOIN:
        cs_sbuf_printf(o, "Join[%s%s", p->natural ? "Natural" : "", pp_join_name(p->join_type));
        if (p->condition) {
            cs_sbuf_puts(o, ", ");
            pp_expr(p->condition, o);
        }
        if (p->n_using) {
            cs_sbuf_puts(o, ", USING(");
            pp_names(p->using_columns, p->n_using, ", ", o);
            cs_sbuf_putc(o, ')');
        }
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_SORT:
        cs_sbuf_printf(o, "Sort[%s", p->global ? "" : "local; ");
        pp_exprs(p->order, p->n_order, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
        cs_sbuf_puts(o, p->kind == CS_LP_LIMIT ? "Limit[" : "Offset[");
        pp_expr(p->limit, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_SET_OP:
        cs_sbuf_printf(o, "%s[%s%s]",
                       p->set_op == CS_SET_UNION       ? "Union"
                       : p->set_op == CS_SET_INTERSECT ? "Intersect"
                                                       : "Except",
                       p->all ? "all" : "distinct", p->by_name ? ", by name" : "");
        break;
    case CS_LP_DISTINCT:
        cs_sbuf_puts(o, "Distinct");
        break;
    case CS_LP_GENERATE:
        cs_sbuf_printf(o, "Generate[%s", p->outer ? "outer " : "");
        pp_expr(p->generator, o);
        cs_sbuf_printf(o, ", %s, ", p->alias ? p->alias : "-");
        pp_names(p->column_aliases, p->n_column_aliases, ", ", o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_SUBQUERY_ALIAS:
        cs_sbuf_printf(o, "Alias[%s", p->alias);
        if (p->n_column_aliases) {
            cs_sbuf_putc(o, '(');
            pp_names(p->column_aliases, p->n_column_aliases, ", ", o);
            cs_sbuf_putc(o, ')');
        }
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_WITH:
        cs_sbuf_puts(o, "With[");
        for (int k = 0; k < p->n_ctes; k++) {
            if (k) cs_sbuf_puts(o, ", ");
            pp_plan(p->ctes[k], o);
        }
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_REPARTITION:
        cs_sbuf_puts(o, "Repartition[");
        pp_exprs(p->exprs, p->n_exprs, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_SAMPLE:
        cs_sbuf_puts(o, "Sample[");
        if (p->limit)
            pp_expr(p->limit, o);
        else
            cs_sbuf_printf(o, "%g", p->fraction);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_HINT:
        cs_sbuf_printf(o, "Hint[%s", p->parts[0]);
        if (p->n_exprs) {
            cs_sbuf_puts(o, ": ");
            pp_exprs(p->exprs, p->n_exprs, o);
        }
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_TABLE_FUNCTION:
        cs_sbuf_puts(o, "TVF[");
        pp_names(p->parts, p->n_parts, ".", o);
        cs_sbuf_puts(o, ": ");
        pp_exprs(p->exprs, p->n_exprs, o);
        cs_sbuf_putc(o, ']');
        break;
    case CS_LP_LOCAL_RELATION:
        cs_sbuf_printf(o, "Values[%dx%d: ", p->n_rows, p->n_cols);
        pp_exprs(p->exprs, p->n_exprs, o);
        cs_sbuf_putc(o, ']');
        break;
    default:
        cs_sbuf_printf(o, "<plan %d>", (int)p->kind);
        break;
    }
    pp_children(p, o);
}

static const char *pp_kind(cs_statement_kind k)
{
    static const char *const n[] = {"Query",  "Explain", "CreateTable", "CreateView", "Drop",
                                    "Insert", "Set",     "Show",        "Cache",      "Use"};
    return n[k];
}

static void pp_statement(const cs_sql_statement *s, cs_sbuf *o)
{
    cs_sbuf_puts(o, pp_kind(s->kind));
    if (s->mode) cs_sbuf_printf(o, " %s", s->mode);
    if (s->or_replace) cs_sbuf_puts(o, " or_replace");
    if (s->if_not_exists) cs_sbuf_puts(o, " if_not_exists");
    if (s->if_exists) cs_sbuf_puts(o, " if_exists");
    if (s->temporary) cs_sbuf_puts(o, " temporary");
    if (s->global) cs_sbuf_puts(o, " global");
    if (s->overwrite) cs_sbuf_puts(o, " overwrite");
    if (s->n_parts) {
        cs_sbuf_puts(o, " ");
        pp_names(s->parts, s->n_parts, ".", o);
    }
    if (s->n_columns) {
        cs_sbuf_puts(o, " (");
        pp_names(s->column_names, s->n_columns, ", ", o);
        cs_sbuf_putc(o, ')');
    }
    if (s->schema) {
        cs_sbuf_putc(o, ' ');
        cs_col_type_simple_string(s->schema, o);
    }
    if (s->format) cs_sbuf_printf(o, " using=%s", s->format);
    for (int k = 0; k < s->n_options; k++)
        cs_sbuf_printf(o, " %s=%s", s->option_keys[k], s->option_values[k]);
    for (int k = 0; k < s->n_partition_by; k++)
        cs_sbuf_printf(o, " part:%s%s%s", s->partition_by[k],
                       s->partition_values && s->partition_values[k] ? "=" : "",
                       s->partition_values && s->partition_values[k] ? s->partition_values[k] : "");
    if (s->location) cs_sbuf_printf(o, " location=%s", s->location);
    if (s->key) cs_sbuf_printf(o, " key=%s", s->key);
    if (s->value) cs_sbuf_printf(o, " value=%s", s->value);
    if (s->inner) {
        cs_sbuf_puts(o, ": ");
        pp_statement(s->inner, o);
    } else if (s->plan) {
        cs_sbuf_puts(o, ": ");
        pp_plan(s->plan, o);
    }
}

#endif /* CSPARK_TESTS_SQL_PARSE_PRINT_H */
