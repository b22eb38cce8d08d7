/*
 * parser_expr.c — Spark SQL expressions (SqlBaseParser.g4's booleanExpression, predicate,
 * valueExpression, primaryExpression) into unresolved Catalyst expressions, as AstBuilder makes
 * them. Precedence, lowest first: OR; AND; NOT (and `!`); EXISTS and one predicate after a
 * value expression (BETWEEN, IN, LIKE/ILIKE [ANY|ALL], RLIKE/REGEXP, IS [NOT] NULL/TRUE/FALSE/
 * UNKNOWN/DISTINCT FROM); value operators by precedence climbing: comparison < | < ^ < & <
 * shifts < + - || < * / % div; unary - + ~; then primaries with their postfix a.b, a[i], x::t.
 *
 * Operators become calls of Spark's FunctionRegistry names ("+", "=", "and", "not", "concat",
 * "shiftleft", "negative", "isnull", "like", "between", ...). As AstBuilder: `a <> b` is
 * not(a = b); `x IS TRUE` is x <=> true; `x IS DISTINCT FROM y` is not(x <=> y); `-1` is a
 * negative literal; POSITION(a IN b) is locate(a, b, 1); EXTRACT(f FROM e) is extract('f', e);
 * TRIM(BOTH|LEADING|TRAILING c FROM s) is trim|ltrim|rtrim(c, s) (the registry's argument
 * order); SUBSTRING(s FROM p FOR l) is substring(s, p, l). NOT IN / NOT EXISTS / NOT LIKE
 * set `negated` (sql_expr.h). Function names are lower-cased unless back-quoted.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

static cs_sql_expr *new_at(cs_sqlp *p, cs_sql_expr_kind kind, int n_args, const cs_sql_token *t)
{
    cs_sql_expr *e = cs_sql_expr_new(p->a, kind, n_args);
    e->line = t->line;
    e->pos = t->pos;
    return e;
}

cs_sql_expr *cs_sqlp_call(cs_sqlp *p, const char *fn, int line, int pos, cs_sql_expr **args, int n)
{
    cs_sql_expr *e = cs_sql_expr_new(p->a, CS_EX_UNRESOLVED_FUNC, n);
    e->name = fn;
    e->line = line;
    e->pos = pos;
    for (int k = 0; k < n; k++)
        e->args[k] = args[k];
    return e;
}

static cs_sql_expr *call1(cs_sqlp *p, const char *fn, cs_sql_expr *a)
{
    return cs_sqlp_call(p, fn, a->line, a->pos, &a, 1);
}

static cs_sql_expr *call2(cs_sqlp *p, const char *fn, cs_sql_expr *a, cs_sql_expr *b)
{
    cs_sql_expr *args[2] = {a, b};
    return cs_sqlp_call(p, fn, a->line, a->pos, args, 2);
}

static cs_sql_expr **list_items(cs_sqlp_list *l)
{
    return (cs_sql_expr **)l->items;
}

/* expr (, expr)* up to (not including) the closing token */
static void expr_list(cs_sqlp *p, cs_sqlp_list *l)
{
    do {
        cs_sqlp_list_add(p, l, cs_sqlp_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
}

/* ---- value expressions: precedence climbing ---- */

typedef struct binop {
    const char *op;
    int prec;
    const char *fn; /* NULL: op itself */
} binop;

static const binop binops[] = {
    {"=", 1, NULL},         {"==", 1, "="},          {"<=>", 1, NULL},
    {"<>", 1, "<>"},        {"!=", 1, "<>"},         {"<", 1, NULL},
    {"<=", 1, NULL},        {">", 1, NULL},          {">=", 1, NULL},
    {"|", 2, NULL},         {"^", 3, NULL},          {"&", 4, NULL},
    {"<<", 5, "shiftleft"}, {">>", 5, "shiftright"}, {">>>", 5, "shiftrightunsigned"},
    {"+", 6, NULL},         {"-", 6, NULL},          {"||", 6, "concat"},
    {"*", 7, NULL},         {"/", 7, NULL},          {"%", 7, NULL}};

static const binop *peek_binop(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind == CS_TOK_WORD && cs_sql_tok_is_kw(t, "DIV")) {
        static const binop div = {"div", 7, "div"};
        return &div;
    }
    if (t->kind != CS_TOK_OP) return NULL;
    for (size_t k = 0; k < sizeof binops / sizeof binops[0]; k++)
        if (strcmp(t->text, binops[k].op) == 0) return &binops[k];
    return NULL;
}

static cs_sql_expr *unary(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind == CS_TOK_OP &&
        (cs_sql_tok_is_op(t, "-") || cs_sql_tok_is_op(t, "+") || cs_sql_tok_is_op(t, "~"))) {
        if (cs_sql_tok_is_op(t, "-") && cs_sqlp_peek(p, 1)->kind == CS_TOK_NUMBER) {
            cs_sqlp_next(p);
            cs_sql_expr *lit = cs_sqlp_number(p, true);
            lit->line = t->line;
            lit->pos = t->pos;
            return lit;
        }
        cs_sqlp_next(p);
        cs_sqlp_enter(p);
        cs_sql_expr *x = unary(p);
        cs_sqlp_leave(p);
        /* unary minus is negative(x) written "-" (Spark prints it "(- x)", a call "negative(x)") */
        const char *fn = t->text[0] == '-' ? "-" : t->text[0] == '+' ? "positive" : "~";
        return cs_sqlp_call(p, fn, t->line, t->pos, &x, 1);
    }
    return cs_sqlp_primary(p);
}

static cs_sql_expr *climb(cs_sqlp *p, int min_prec)
{
    cs_sql_expr *left = unary(p);
    for (;;) {
        const binop *b = peek_binop(p);
        if (!b || b->prec < min_prec) return left;
        cs_sqlp_next(p);
        cs_sqlp_enter(p);
        cs_sql_expr *right = climb(p, b->prec + 1); /* left-associative */
        cs_sqlp_leave(p);
        const char *fn = b->fn ? b->fn : b->op;
        if (strcmp(fn, "<>") == 0)
            left = call1(p, "not", call2(p, "=", left, right));
        else
            left = call2(p, fn, left, right);
    }
}

cs_sql_expr *cs_sqlp_value_expr(cs_sqlp *p)
{
    return climb(p, 1);
}

/* ---- predicates and boolean operators ---- */

static cs_sql_expr *bool_literal_of(cs_sqlp *p, bool v, const cs_sql_token *t)
{
    return cs_sqlp_bool_literal(p, v, t->line, t->pos);
}

static cs_sql_expr *predicate(cs_sqlp *p, cs_sql_expr *e)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sql_tok_is_kw(t, "IS")) {
        cs_sqlp_next(p);
        bool not = cs_sqlp_accept_kw(p, "NOT");
        cs_sql_token *w = cs_sqlp_peek(p, 0);
        if (cs_sqlp_accept_kw(p, "NULL") || cs_sqlp_accept_kw(p, "UNKNOWN"))
            return call1(p, not ? "isnotnull" : "isnull", e);
        if (cs_sqlp_accept_kw(p, "TRUE") || cs_sqlp_accept_kw(p, "FALSE")) {
            cs_sql_expr *x = call2(p, "<=>", e, bool_literal_of(p, cs_sql_tok_is_kw(w, "TRUE"), w));
            return not ? call1(p, "not", x) : x;
        }
        if (cs_sqlp_accept_kw(p, "DISTINCT")) {
            cs_sqlp_expect_kw(p, "FROM");
            cs_sql_expr *x = call2(p, "<=>", e, cs_sqlp_value_expr(p));
            return not ? x : call1(p, "not", x);
        }
        cs_sqlp_syntax_error(p, w);
    }
    bool not = false;
    if (cs_sql_tok_is_kw(t, "NOT") &&
        (cs_sqlp_is_kw(p, 1, "BETWEEN") || cs_sqlp_is_kw(p, 1, "IN") ||
         cs_sqlp_is_kw(p, 1, "LIKE") || cs_sqlp_is_kw(p, 1, "ILIKE") ||
         cs_sqlp_is_kw(p, 1, "RLIKE") || cs_sqlp_is_kw(p, 1, "REGEXP"))) {
        not = true;
        cs_sqlp_next(p);
        t = cs_sqlp_peek(p, 0);
    }
    if (cs_sqlp_accept_kw(p, "BETWEEN")) {
        cs_sql_expr *lo = cs_sqlp_value_expr(p);
        cs_sqlp_expect_kw(p, "AND");
        cs_sql_expr *args[3] = {e, lo, cs_sqlp_value_expr(p)};
        cs_sql_expr *x = cs_sqlp_call(p, "between", e->line, e->pos, args, 3);
        return not ? call1(p, "not", x) : x;
    }
    if (cs_sqlp_is_kw(p, 0, "IN")) {
        cs_sql_token *in = cs_sqlp_next(p);
        if (cs_sqlp_is_op(p, 0, "(") && cs_sqlp_is_op(p, 1, ")")) cs_sqlp_syntax_error(p, in);
        cs_sqlp_expect_op(p, "(");
        cs_sql_expr *x;
        if (cs_sqlp_starts_query(p, 0)) {
            cs_logical_plan *q = cs_sqlp_query(p);
            /* (a, b) IN (SELECT ...) compares the tuple's values */
            bool tuple = e == p->last_row;
            int n = tuple ? e->n_args : 1;
            x = cs_sql_expr_new(p->a, CS_EX_IN_SUBQUERY, n);
            for (int k = 0; k < n; k++)
                x->args[k] = tuple ? e->args[k] : e;
            x->subquery = q;
        } else {
            cs_sqlp_list l = {0};
            cs_sqlp_list_add(p, &l, e);
            expr_list(p, &l);
            x = cs_sql_expr_new(p->a, CS_EX_IN_LIST, l.n);
            memcpy(x->args, l.items, sizeof *x->args * (size_t)l.n);
        }
        cs_sqlp_expect_op(p, ")");
        x->line = e->line;
        x->pos = e->pos;
        x->negated = not ;
        return x;
    }
    if (cs_sqlp_accept_kw(p, "RLIKE") || cs_sqlp_accept_kw(p, "REGEXP")) {
        cs_sql_expr *x = call2(p, "rlike", e, cs_sqlp_value_expr(p));
        x->negated = not ;
        return x;
    }
    if (cs_sqlp_is_kw(p, 0, "LIKE") || cs_sqlp_is_kw(p, 0, "ILIKE")) {
        bool ilike = cs_sqlp_is_kw(p, 0, "ILIKE");
        cs_sqlp_next(p);
        bool any = cs_sqlp_is_kw(p, 0, "ANY") || cs_sqlp_is_kw(p, 0, "SOME");
        bool all = cs_sqlp_is_kw(p, 0, "ALL");
        if ((any || all) && cs_sqlp_is_op(p, 1, "(")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sqlp_list l = {0};
            cs_sqlp_list_add(p, &l, e);
            if (!cs_sqlp_is_op(p, 0, ")")) expr_list(p, &l);
            cs_sqlp_expect_op(p, ")");
            const char *fn =
                ilike ? (any ? "ilike_any" : "ilike_all") : (any ? "like_any" : "like_all");
            cs_sql_expr *x = cs_sqlp_call(p, fn, e->line, e->pos, list_items(&l), l.n);
            x->negated = not ;
            return x;
        }
        cs_sql_expr *pat = cs_sqlp_value_expr(p);
        cs_sql_expr *x;
        if (cs_sqlp_is_kw(p, 0, "ESCAPE")) {
            cs_sqlp_next(p);
            cs_sql_token *st = cs_sqlp_peek(p, 0);
            const char *esc = cs_sqlp_string(p);
            if (strlen(esc) != 1)
                cs_sqlp_fail(p, st->line, st->pos, "INVALID_ESCAPE_CHAR", "42604",
                             "The escape character must be exactly one character, got '%s'.", esc);
            cs_sql_expr *args[3] = {e, pat, cs_sqlp_string_literal(p, esc, st->line, st->pos)};
            x = cs_sqlp_call(p, ilike ? "ilike" : "like", e->line, e->pos, args, 3);
        } else {
            x = call2(p, ilike ? "ilike" : "like", e, pat);
        }
        x->negated = not ;
        return x;
    }
    if (not ) cs_sqlp_syntax_error(p, t);
    return e;
}

static cs_sql_expr *bool_expr(cs_sqlp *p, int level);

static cs_sql_expr *not_expr(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sql_tok_is_kw(t, "NOT") || cs_sql_tok_is_op(t, "!")) {
        cs_sqlp_next(p);
        cs_sqlp_enter(p);
        cs_sql_expr *x = not_expr(p);
        cs_sqlp_leave(p);
        if (x->kind == CS_EX_EXISTS && !x->negated && cs_sql_tok_is_kw(t, "NOT")) {
            x->negated = true; /* NOT EXISTS (...) */
            x->line = t->line;
            x->pos = t->pos;
            return x;
        }
        return cs_sqlp_call(p, "not", t->line, t->pos, &x, 1);
    }
    if (cs_sql_tok_is_kw(t, "EXISTS") && cs_sqlp_is_op(p, 1, "(") && cs_sqlp_starts_query(p, 2)) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_expr *x = new_at(p, CS_EX_EXISTS, 0, t);
        x->subquery = cs_sqlp_query(p);
        cs_sqlp_expect_op(p, ")");
        return x;
    }
    return predicate(p, cs_sqlp_value_expr(p));
}

static cs_sql_expr *bool_expr(cs_sqlp *p, int level)
{
    if (level == 2) return not_expr(p);
    cs_sql_expr *left = bool_expr(p, level + 1);
    const char *kw = level == 0 ? "OR" : "AND";
    while (cs_sqlp_accept_kw(p, kw)) {
        cs_sql_expr *right = bool_expr(p, level + 1);
        left = call2(p, level == 0 ? "or" : "and", left, right);
    }
    return left;
}

cs_sql_expr *cs_sqlp_expr(cs_sqlp *p)
{
    cs_sqlp_enter(p);
    cs_sql_expr *e = bool_expr(p, 0);
    cs_sqlp_leave(p);
    return e;
}

/* ---- windows and sort orders ---- */

cs_sql_expr *cs_sqlp_sort_item(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    cs_sql_expr *e = cs_sqlp_expr(p);
    cs_sql_expr *s = new_at(p, CS_EX_SORT_ORDER, 1, t);
    s->args[0] = e;
    if (cs_sqlp_accept_kw(p, "DESC"))
        s->descending = true;
    else
        cs_sqlp_accept_kw(p, "ASC");
    s->nulls_first = !s->descending;
    if (cs_sqlp_accept_kw(p, "NULLS")) {
        if (cs_sqlp_accept_kw(p, "FIRST"))
            s->nulls_first = true;
        else {
            cs_sqlp_expect_kw(p, "LAST");
            s->nulls_first = false;
        }
    }
    return s;
}

static cs_frame_bound frame_bound(cs_sqlp *p)
{
    cs_frame_bound b = {0};
    if (cs_sqlp_is_kw(p, 0, "UNBOUNDED")) {
        cs_sqlp_next(p);
        if (cs_sqlp_accept_kw(p, "PRECEDING"))
            b.kind = CS_BOUND_UNBOUNDED_PRECEDING;
        else {
            cs_sqlp_expect_kw(p, "FOLLOWING");
            b.kind = CS_BOUND_UNBOUNDED_FOLLOWING;
        }
        return b;
    }
    if (cs_sqlp_is_kw(p, 0, "CURRENT") && cs_sqlp_is_kw(p, 1, "ROW")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        b.kind = CS_BOUND_CURRENT_ROW;
        return b;
    }
    b.offset = cs_sqlp_value_expr(p);
    if (cs_sqlp_accept_kw(p, "PRECEDING"))
        b.kind = CS_BOUND_PRECEDING;
    else {
        cs_sqlp_expect_kw(p, "FOLLOWING");
        b.kind = CS_BOUND_FOLLOWING;
    }
    return b;
}

cs_window_spec *cs_sqlp_window_spec(cs_sqlp *p)
{
    cs_window_spec *w = cs_sql_alloc(p->a, sizeof *w);
    if (cs_sqlp_is_ident(p, 0) && !cs_sqlp_is_kw(p, 0, "PARTITION") &&
        !cs_sqlp_is_kw(p, 0, "DISTRIBUTE") && !cs_sqlp_is_kw(p, 0, "ORDER") &&
        !cs_sqlp_is_kw(p, 0, "SORT") && !cs_sqlp_is_kw(p, 0, "ROWS") &&
        !cs_sqlp_is_kw(p, 0, "RANGE") && !cs_sqlp_is_kw(p, 0, "CLUSTER"))
        w->ref_name = cs_sqlp_ident(p);
    if (cs_sqlp_is_kw(p, 0, "PARTITION") || cs_sqlp_is_kw(p, 0, "DISTRIBUTE") ||
        cs_sqlp_is_kw(p, 0, "CLUSTER")) {
        bool cluster = cs_sqlp_is_kw(p, 0, "CLUSTER");
        cs_sqlp_next(p);
        cs_sqlp_expect_kw(p, "BY");
        cs_sqlp_list l = {0};
        expr_list(p, &l);
        w->n_partition = l.n;
        w->partition = list_items(&l);
        if (cluster) return w;
    }
    if (cs_sqlp_is_kw(p, 0, "ORDER") || cs_sqlp_is_kw(p, 0, "SORT")) {
        cs_sqlp_next(p);
        cs_sqlp_expect_kw(p, "BY");
        cs_sqlp_list l = {0};
        do {
            cs_sqlp_list_add(p, &l, cs_sqlp_sort_item(p));
        } while (cs_sqlp_accept_op(p, ","));
        w->n_order = l.n;
        w->order = list_items(&l);
    }
    if (cs_sqlp_is_kw(p, 0, "ROWS") || cs_sqlp_is_kw(p, 0, "RANGE")) {
        w->has_frame = true;
        w->frame_type = cs_sqlp_is_kw(p, 0, "ROWS") ? CS_FRAME_ROWS : CS_FRAME_RANGE;
        cs_sqlp_next(p);
        if (cs_sqlp_accept_kw(p, "BETWEEN")) {
            w->lower = frame_bound(p);
            cs_sqlp_expect_kw(p, "AND");
            w->upper = frame_bound(p);
        } else {
            w->lower = frame_bound(p);
            w->upper.kind = CS_BOUND_CURRENT_ROW;
        }
    }
    return w;
}

cs_window_spec *cs_sqlp_merge_window(cs_sqlp *p, const cs_window_spec *base,
                                     const cs_window_spec *spec)
{
    cs_window_spec *m = cs_sql_alloc(p->a, sizeof *m);
    *m = *base;
    if (spec->n_partition) {
        m->n_partition = spec->n_partition;
        m->partition = spec->partition;
    }
    if (spec->n_order) {
        m->n_order = spec->n_order;
        m->order = spec->order;
    }
    if (spec->has_frame) {
        m->has_frame = true;
        m->frame_type = spec->frame_type;
        m->lower = spec->lower;
        m->upper = spec->upper;
    }
    return m;
}

void cs_sqlp_apply_windows(cs_sqlp *p, cs_sql_expr *e, cs_sql_window_def *defs, int n)
{
    if (!e) return;
    if (e->kind == CS_EX_WINDOW && e->window && e->window->ref_name) {
        cs_window_spec *w = e->window;
        for (int k = 0; k < n; k++) {
            if (strcasecmp(defs[k].name, w->ref_name) != 0) continue;
            cs_window_spec *m = cs_sqlp_merge_window(p, defs[k].spec, w);
            m->ref_name = defs[k].spec->ref_name;
            e->window = m;
            break;
        }
    }
    for (int k = 0; k < e->n_args; k++)
        cs_sqlp_apply_windows(p, e->args[k], defs, n);
    cs_sqlp_apply_windows(p, e->filter, defs, n);
}

/* ---- primaries ---- */

static char *lower_dup(cs_sqlp *p, const char *s)
{
    char *d = cs_sql_strdup(p->a, s);
    for (char *c = d; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return d;
}

/* name ( [DISTINCT|ALL] args ) [FILTER (WHERE e)] [IGNORE|RESPECT NULLS] [OVER w] */
static cs_sql_expr *function_call(cs_sqlp *p, const cs_sql_token *t, const char *name)
{
    cs_sql_expr *f = new_at(p, CS_EX_UNRESOLVED_FUNC, 0, t);
    f->name = name;
    cs_sqlp_expect_op(p, "(");
    cs_sqlp_list l = {0};
    bool is_struct = strcasecmp(name, "struct") == 0;
    if (cs_sqlp_accept_kw(p, "DISTINCT"))
        f->distinct = true;
    else if (cs_sqlp_is_kw(p, 0, "ALL") && !cs_sqlp_is_op(p, 1, ")") && !cs_sqlp_is_op(p, 1, ","))
        cs_sqlp_next(p);
    if (cs_sqlp_is_op(p, 0, "*") && cs_sqlp_is_op(p, 1, ")")) {
        cs_sql_token *st = cs_sqlp_next(p); /* count(*) */
        cs_sqlp_list_add(p, &l, new_at(p, CS_EX_STAR, 0, st));
    } else if (!cs_sqlp_is_op(p, 0, ")")) {
        do {
            if (cs_sqlp_is_ident(p, 0) && cs_sqlp_is_op(p, 1, "=>")) {
                /* named argument k => v: Spark's NamedArgumentExpression, kept as an alias */
                cs_sql_token *kt = cs_sqlp_peek(p, 0);
                const char *key = cs_sqlp_ident(p);
                cs_sqlp_next(p);
                cs_sql_expr *al = new_at(p, CS_EX_ALIAS, 1, kt);
                al->name = key;
                al->named_argument = true;
                al->args[0] = cs_sqlp_expr(p);
                cs_sqlp_list_add(p, &l, al);
            } else {
                cs_sql_expr *arg = cs_sqlp_expr(p);
                if (is_struct && cs_sqlp_is_kw(p, 0, "AS")) {
                    /* struct(x AS name): Spark's grammar takes named expressions here only */
                    cs_sql_token *at = cs_sqlp_next(p);
                    cs_sql_expr *al = new_at(p, CS_EX_ALIAS, 1, at);
                    al->name = cs_sqlp_ident(p);
                    al->args[0] = arg;
                    arg = al;
                }
                cs_sqlp_list_add(p, &l, arg);
            }
        } while (cs_sqlp_accept_op(p, ","));
    }
    if (cs_sqlp_is_kw(p, 0, "IGNORE") && cs_sqlp_is_kw(p, 1, "NULLS")) { /* first(x IGNORE NULLS) */
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        f->ignore_nulls = true;
    }
    cs_sqlp_expect_op(p, ")");
    f->n_args = l.n;
    f->args = list_items(&l);
    if (cs_sqlp_is_kw(p, 0, "WITHIN") && cs_sqlp_is_kw(p, 1, "GROUP")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sqlp_expect_op(p, "(");
        cs_sqlp_expect_kw(p, "ORDER");
        cs_sqlp_expect_kw(p, "BY");
        f->within_group = cs_sqlp_sort_item(p);
        cs_sqlp_expect_op(p, ")");
    }
    if (cs_sqlp_is_kw(p, 0, "FILTER") && cs_sqlp_is_op(p, 1, "(")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sqlp_expect_kw(p, "WHERE");
        f->filter = cs_sqlp_expr(p);
        cs_sqlp_expect_op(p, ")");
    }
    if ((cs_sqlp_is_kw(p, 0, "IGNORE") || cs_sqlp_is_kw(p, 0, "RESPECT")) &&
        cs_sqlp_is_kw(p, 1, "NULLS")) {
        f->ignore_nulls = cs_sqlp_is_kw(p, 0, "IGNORE");
        cs_sqlp_next(p);
        cs_sqlp_next(p);
    }
    if (cs_sqlp_is_kw(p, 0, "OVER")) {
        cs_sql_token *ot = cs_sqlp_next(p);
        cs_sql_expr *w = new_at(p, CS_EX_WINDOW, 1, ot);
        w->line = t->line;
        w->pos = t->pos;
        w->args[0] = f;
        if (cs_sqlp_accept_op(p, "(")) {
            w->window = cs_sqlp_window_spec(p);
            cs_sqlp_expect_op(p, ")");
        } else {
            w->window = cs_sql_alloc(p->a, sizeof *w->window);
            w->window->ref_name = cs_sqlp_ident(p);
        }
        return w;
    }
    return f;
}

static cs_sql_expr *string_arg(cs_sqlp *p, const cs_sql_token *t, const char *s)
{
    return cs_sqlp_string_literal(p, s, t->line, t->pos);
}

/* the special forms: EXTRACT, POSITION, TRIM, SUBSTRING, OVERLAY; NULL when not one */
static cs_sql_expr *special_form(cs_sqlp *p, cs_sql_token *t)
{
    if (!cs_sqlp_is_op(p, 1, "(")) return NULL;
    if (cs_sql_tok_is_kw(t, "EXTRACT") && cs_sqlp_is_ident(p, 2) && cs_sqlp_is_kw(p, 3, "FROM")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_token *ft = cs_sqlp_peek(p, 0);
        const char *field = cs_sqlp_ident(p);
        cs_sqlp_expect_kw(p, "FROM");
        cs_sql_expr *args[2] = {string_arg(p, ft, field), cs_sqlp_value_expr(p)};
        cs_sqlp_expect_op(p, ")");
        return cs_sqlp_call(p, "extract", t->line, t->pos, args, 2);
    }
    if (cs_sql_tok_is_kw(t, "POSITION")) {
        int save = p->i;
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_expr *sub = cs_sqlp_value_expr(p);
        if (!cs_sqlp_accept_kw(p, "IN")) {
            p->i = save;
            return NULL;
        }
        cs_sql_expr *args[3] = {sub, cs_sqlp_value_expr(p),
                                cs_sqlp_int_literal(p, 1, t->line, t->pos)};
        cs_sqlp_expect_op(p, ")");
        return cs_sqlp_call(p, "locate", t->line, t->pos, args, 3);
    }
    if (cs_sql_tok_is_kw(t, "TRIM")) {
        int save = p->i;
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        const char *fn = "trim";
        bool option = true;
        if (cs_sqlp_accept_kw(p, "LEADING"))
            fn = "ltrim";
        else if (cs_sqlp_accept_kw(p, "TRAILING"))
            fn = "rtrim";
        else if (!cs_sqlp_accept_kw(p, "BOTH"))
            option = false;
        cs_sql_expr *chars = NULL, *src;
        if (option && cs_sqlp_accept_kw(p, "FROM")) {
            src = cs_sqlp_value_expr(p);
        } else {
            cs_sql_expr *first = cs_sqlp_value_expr(p);
            if (cs_sqlp_accept_kw(p, "FROM")) {
                chars = first;
                src = cs_sqlp_value_expr(p);
            } else if (!option) {
                p->i = save; /* trim(s) or trim(s, c): a plain call */
                return NULL;
            } else {
                src = first;
            }
        }
        cs_sqlp_expect_op(p, ")");
        cs_sql_expr *args[2] = {chars, src};
        return chars ? cs_sqlp_call(p, fn, t->line, t->pos, args, 2)
                     : cs_sqlp_call(p, fn, t->line, t->pos, &src, 1);
    }
    if (cs_sql_tok_is_kw(t, "SUBSTRING") || cs_sql_tok_is_kw(t, "SUBSTR")) {
        int save = p->i;
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_expr *s = cs_sqlp_value_expr(p);
        if (!cs_sqlp_accept_kw(p, "FROM")) {
            p->i = save;
            return NULL;
        }
        cs_sql_expr *args[3] = {s, cs_sqlp_value_expr(p), NULL};
        int n = 2;
        if (cs_sqlp_accept_kw(p, "FOR")) args[n++] = cs_sqlp_value_expr(p);
        cs_sqlp_expect_op(p, ")");
        return cs_sqlp_call(p, "substring", t->line, t->pos, args, n);
    }
    if (cs_sql_tok_is_kw(t, "OVERLAY")) {
        int save = p->i;
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_expr *s = cs_sqlp_value_expr(p);
        if (!cs_sqlp_accept_kw(p, "PLACING")) {
            p->i = save;
            return NULL;
        }
        cs_sql_expr *args[4] = {s, cs_sqlp_value_expr(p), NULL, NULL};
        cs_sqlp_expect_kw(p, "FROM");
        args[2] = cs_sqlp_value_expr(p);
        int n = 3;
        if (cs_sqlp_accept_kw(p, "FOR")) args[n++] = cs_sqlp_value_expr(p);
        cs_sqlp_expect_op(p, ")");
        return cs_sqlp_call(p, "overlay", t->line, t->pos, args, n);
    }
    return NULL;
}

static cs_sql_expr *case_expr(cs_sqlp *p, const cs_sql_token *t)
{
    cs_sqlp_list l = {0};
    bool has_else = false;
    /* CASE x WHEN v THEN r is CASE WHEN x = v THEN r, as Spark's AstBuilder (visitSimpleCase)
     * makes it: each comparison coerced on its own, named "CASE WHEN (x = v) ..." */
    cs_sql_expr *operand = cs_sqlp_is_kw(p, 0, "WHEN") ? NULL : cs_sqlp_expr(p);
    if (!cs_sqlp_is_kw(p, 0, "WHEN")) cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
    while (cs_sqlp_accept_kw(p, "WHEN")) {
        cs_sql_expr *w = cs_sqlp_expr(p);
        if (operand) {
            cs_sql_expr *pair[2] = {operand, w};
            w = cs_sqlp_call(p, "=", w->line, w->pos, pair, 2);
        }
        cs_sqlp_list_add(p, &l, w);
        cs_sqlp_expect_kw(p, "THEN");
        cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
    }
    if (cs_sqlp_accept_kw(p, "ELSE")) {
        cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
        has_else = true;
    }
    cs_sqlp_expect_kw(p, "END");
    cs_sql_expr *e = new_at(p, CS_EX_CASE, 0, t);
    e->n_args = l.n;
    e->args = list_items(&l);
    e->has_else = has_else;
    return e;
}

/* ( ... ): a scalar subquery, a lambda's variables, a parenthesized expression or a row */
static cs_sql_expr *parenthesized(cs_sqlp *p, cs_sql_token *t)
{
    if (cs_sqlp_starts_query(p, 1)) {
        cs_sqlp_next(p);
        cs_sql_expr *e = new_at(p, CS_EX_SCALAR_SUBQUERY, 0, t);
        e->subquery = cs_sqlp_query(p);
        cs_sqlp_expect_op(p, ")");
        return e;
    }
    /* (x, y) -> body */
    int k = 1;
    while (cs_sqlp_is_ident(p, k) &&
           (cs_sqlp_is_op(p, k + 1, ",") || cs_sqlp_is_op(p, k + 1, ")"))) {
        if (cs_sqlp_is_op(p, k + 1, ")")) {
            if (cs_sqlp_is_op(p, k + 2, "->")) {
                cs_sqlp_next(p);
                cs_sqlp_list l = {0};
                do {
                    cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
                } while (cs_sqlp_accept_op(p, ","));
                cs_sqlp_expect_op(p, ")");
                cs_sqlp_expect_op(p, "->");
                cs_sql_expr *e = new_at(p, CS_EX_LAMBDA, 1, t);
                e->n_parts = l.n;
                e->parts = (const char **)l.items;
                e->args[0] = cs_sqlp_expr(p);
                return e;
            }
            break;
        }
        k += 2;
    }
    cs_sqlp_next(p);
    cs_sqlp_list l = {0};
    expr_list(p, &l);
    cs_sqlp_expect_op(p, ")");
    if (l.n == 1) return l.items[0];
    /* (a, b): a row, Spark's CreateStruct (remembered: (a, b) IN (SELECT x, y ...)) */
    cs_sql_expr *e = cs_sqlp_call(p, "struct", t->line, t->pos, list_items(&l), l.n);
    p->last_row = e;
    return e;
}

/* `* EXCEPT (a, t.b)` / `t.* EXCEPT (...)`: the excluded columns as the STAR's args */
static cs_sql_expr *star_except(cs_sqlp *p, cs_sql_expr *star)
{
    if (!cs_sqlp_is_kw(p, 0, "EXCEPT") || !cs_sqlp_is_op(p, 1, "(") || cs_sqlp_starts_query(p, 2))
        return star;
    cs_sqlp_next(p);
    cs_sqlp_next(p);
    cs_sqlp_list l = {0};
    do {
        cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_op(p, ")");
    cs_sql_expr *x = cs_sql_expr_copy(p->a, star);
    x->n_args = l.n;
    x->args = list_items(&l);
    return x;
}

static cs_sql_expr *postfix(cs_sqlp *p, cs_sql_expr *e)
{
    for (;;) {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        if (cs_sql_tok_is_op(t, "[")) {
            cs_sqlp_next(p);
            cs_sql_expr *x = new_at(p, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2, t);
            x->line = e->line;
            x->pos = e->pos;
            x->args[0] = e;
            x->args[1] = cs_sqlp_value_expr(p);
            cs_sqlp_expect_op(p, "]");
            e = x;
        } else if (cs_sql_tok_is_op(t, ".") && cs_sqlp_is_ident(p, 1)) {
            cs_sqlp_next(p);
            cs_sql_token *ft = cs_sqlp_peek(p, 0);
            const char *field = cs_sqlp_ident(p);
            if (e->kind == CS_EX_UNRESOLVED_ATTR) {
                /* a.b.c.d: every name of the chain at once (no copy per part) */
                cs_sqlp_list l = {0};
                for (int k = 0; k < e->n_parts; k++)
                    cs_sqlp_list_add(p, &l, (void *)e->parts[k]);
                cs_sqlp_list_add(p, &l, (void *)field);
                while (cs_sqlp_is_op(p, 0, ".") && cs_sqlp_is_ident(p, 1)) {
                    cs_sqlp_next(p);
                    cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
                }
                cs_sql_expr *x = cs_sql_expr_copy(p->a, e);
                x->parts = (const char **)l.items;
                x->n_parts = l.n;
                e = x;
            } else {
                cs_sql_expr *x = new_at(p, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2, t);
                x->line = e->line;
                x->pos = e->pos;
                x->args[0] = e;
                x->args[1] = string_arg(p, ft, field);
                e = x;
            }
        } else if (cs_sql_tok_is_op(t, ".") && cs_sqlp_is_op(p, 1, "*") &&
                   e->kind == CS_EX_UNRESOLVED_ATTR) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sql_expr *x = cs_sql_expr_copy(p->a, e);
            x->kind = CS_EX_STAR; /* t.* */
            e = star_except(p, x);
        } else if (cs_sql_tok_is_op(t, "::")) {
            cs_sqlp_next(p);
            cs_sql_expr *x = new_at(p, CS_EX_CAST, 1, t);
            x->line = e->line;
            x->pos = e->pos;
            x->args[0] = e;
            x->cast_type = cs_sqlp_data_type(p);
            x->cast_mode = CS_CAST_ANSI;
            e = x;
        } else if (cs_sql_tok_is_kw(t, "COLLATE")) {
            /* Spark's Collate: `expr COLLATE name`, kept as collate(expr, 'name') */
            cs_sqlp_next(p);
            cs_sql_token *nt = cs_sqlp_peek(p, 0);
            cs_sql_expr *args[2] = {e, string_arg(p, nt, cs_sqlp_collation_name(p))};
            e = cs_sqlp_call(p, "collate", e->line, e->pos, args, 2);
        } else {
            return e;
        }
    }
}

_Noreturn static void unbound_parameter(cs_sqlp *p, const cs_sql_token *t, const char *name)
{
    cs_sqlp_fail(p, t->line, t->pos, "UNBOUND_SQL_PARAMETER", "42P02",
                 "Found the unbound parameter: %s. Please, fix `args` and provide a mapping of the "
                 "parameter to either a SQL literal or collection constructor functions such as "
                 "`map()`, `array()`, `struct()`.",
                 name);
}

/* `?` or `:name` with values given (sql_parser.h's cs_sql_params): the value's expression;
 * NULL when the token is not a marker. Spark names a `?` "_<offset>" in its errors. */
static cs_sql_expr *parameter_marker(cs_sqlp *p, cs_sql_token *t)
{
    const cs_sql_params *pr = p->params;
    if (!pr || t->kind != CS_TOK_OP) return NULL;
    cs_sql_expr *v = NULL;
    if (cs_sql_tok_is_op(t, "?")) {
        p->seen_pos = true;
        if (p->next_pos < pr->n_pos) v = pr->pos[p->next_pos];
        p->next_pos++;
        if (p->seen_named) goto mixed;
        if (!v) {
            char name[32];
            snprintf(name, sizeof name, "_%zu", t->start);
            unbound_parameter(p, t, name);
        }
        cs_sqlp_next(p);
        return v;
    }
    if (!cs_sql_tok_is_op(t, ":") || !cs_sqlp_is_ident(p, 1)) return NULL;
    p->seen_named = true;
    if (p->seen_pos) goto mixed;
    cs_sqlp_next(p);
    cs_sql_token *nt = cs_sqlp_peek(p, 0);
    const char *name = cs_sqlp_ident(p);
    for (int k = 0; k < pr->n_named; k++)
        if (strcmp(pr->names[k], name) == 0) return pr->named[k];
    unbound_parameter(p, nt, name);
mixed:
    cs_sqlp_fail(p, t->line, t->pos, "INVALID_QUERY_MIXED_QUERY_PARAMETERS", "42613",
                 "Parameterized query must either use positional, or named parameters, but not "
                 "both.");
}

static cs_sql_expr *primary_base(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    cs_sql_expr *param = parameter_marker(p, t);
    if (param) return param;
    switch (t->kind) {
    case CS_TOK_NUMBER:
        return cs_sqlp_number(p, false);
    case CS_TOK_STRING:
        return cs_sqlp_string_literal(p, cs_sqlp_string(p), t->line, t->pos);
    case CS_TOK_OP:
        if (cs_sql_tok_is_op(t, "(")) return parenthesized(p, t);
        if (cs_sql_tok_is_op(t, "*")) {
            cs_sqlp_next(p);
            return star_except(p, new_at(p, CS_EX_STAR, 0, t));
        }
        cs_sqlp_syntax_error(p, t);
    case CS_TOK_QIDENT:
    case CS_TOK_WORD:
        break;
    default:
        cs_sqlp_syntax_error(p, t);
    }
    cs_sql_token *n1 = cs_sqlp_peek(p, 1);
    if (t->kind == CS_TOK_WORD) {
        if (cs_sql_tok_is_kw(t, "NULL")) {
            cs_sqlp_next(p);
            return cs_sqlp_null_literal(p, t->line, t->pos);
        }
        if (cs_sql_tok_is_kw(t, "TRUE") || cs_sql_tok_is_kw(t, "FALSE")) {
            cs_sqlp_next(p);
            return bool_literal_of(p, cs_sql_tok_is_kw(t, "TRUE"), t);
        }
        if (cs_sql_tok_is_kw(t, "CASE") && !cs_sql_tok_is_op(n1, ".")) {
            cs_sqlp_next(p);
            return case_expr(p, t);
        }
        if ((cs_sql_tok_is_kw(t, "CAST") || cs_sql_tok_is_kw(t, "TRY_CAST")) &&
            cs_sql_tok_is_op(n1, "(")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sql_expr *x = new_at(p, CS_EX_CAST, 1, t);
            x->args[0] = cs_sqlp_expr(p);
            cs_sqlp_expect_kw(p, "AS");
            x->cast_type = cs_sqlp_data_type(p);
            x->cast_mode = cs_sql_tok_is_kw(t, "CAST") ? CS_CAST_ANSI : CS_CAST_TRY;
            cs_sqlp_expect_op(p, ")");
            return x;
        }
        if (cs_sql_tok_is_kw(t, "INTERVAL") &&
            (n1->kind == CS_TOK_STRING || n1->kind == CS_TOK_NUMBER || cs_sql_tok_is_op(n1, "-") ||
             cs_sql_tok_is_op(n1, "+"))) {
            cs_sqlp_next(p);
            return cs_sqlp_interval(p);
        }
        if (n1->kind == CS_TOK_STRING &&
            (cs_sql_tok_is_kw(t, "DATE") || cs_sql_tok_is_kw(t, "TIMESTAMP") ||
             cs_sql_tok_is_kw(t, "TIMESTAMP_NTZ") || cs_sql_tok_is_kw(t, "TIMESTAMP_LTZ") ||
             cs_sql_tok_is_kw(t, "X")))
            return cs_sqlp_typed_literal(p);
        if (cs_sql_tok_is_op(n1, "->")) { /* x -> body */
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sql_expr *e = new_at(p, CS_EX_LAMBDA, 1, t);
            e->n_parts = 1;
            e->parts = cs_sql_alloc(p->a, sizeof *e->parts);
            e->parts[0] = t->text;
            e->args[0] = cs_sqlp_expr(p);
            return e;
        }
        cs_sql_expr *sf = special_form(p, t);
        if (sf) return sf;
    }
    /* a function call: name or db.name followed by ( */
    if (cs_sql_tok_is_op(n1, "(")) {
        cs_sqlp_next(p);
        return function_call(p, t, t->kind == CS_TOK_WORD ? lower_dup(p, t->text) : t->text);
    }
    if (cs_sql_tok_is_op(n1, ".") && cs_sqlp_is_ident(p, 2) && cs_sqlp_is_op(p, 3, "(")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sql_token *nt = cs_sqlp_next(p);
        size_t l1 = strlen(t->text), l2 = strlen(nt->text);
        char *name = cs_sql_alloc(p->a, l1 + l2 + 2);
        memcpy(name, t->text, l1);
        name[l1] = '.';
        memcpy(name + l1 + 1, nt->text, l2 + 1);
        if (t->kind == CS_TOK_WORD && nt->kind == CS_TOK_WORD) name = lower_dup(p, name);
        return function_call(p, t, name);
    }
    /* a column (current_date, current_timestamp, user, ... are columns here too, as Spark
     * without enforced reserved keywords: the analyzer falls back to the function) */
    cs_sqlp_next(p);
    cs_sql_expr *e = new_at(p, CS_EX_UNRESOLVED_ATTR, 0, t);
    e->n_parts = 1;
    e->parts = cs_sql_alloc(p->a, sizeof *e->parts);
    e->parts[0] = t->text;
    return e;
}

cs_sql_expr *cs_sqlp_primary(cs_sqlp *p)
{
    cs_sqlp_enter(p);
    cs_sql_expr *e = postfix(p, primary_base(p));
    cs_sqlp_leave(p);
    return e;
}
