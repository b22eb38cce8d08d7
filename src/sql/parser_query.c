/*
 * parser_query.c — Spark SQL queries into unresolved logical plans, as AstBuilder builds them:
 *
 *   query      := [WITH cte, ...] term [ORDER BY | SORT BY | DISTRIBUTE BY | CLUSTER BY ...]
 *                 [WINDOW ...] [LIMIT n|ALL] [OFFSET n]
 *   term       := INTERSECT binds tighter than UNION / EXCEPT / MINUS (left-associative),
 *                 each [ALL | DISTINCT]
 *   primary    := SELECT ... | VALUES ... | TABLE t | ( query )
 *   SELECT     := [hints] [DISTINCT|ALL] items [FROM relations] [LATERAL VIEW ...]
 *                 [PIVOT (aggs FOR column IN (values))] [UNPIVOT (value FOR name IN (cols))]
 *                 [WHERE]
 *                 [GROUP BY exprs | ordinals | GROUPING SETS | ROLLUP | CUBE] [HAVING]
 *                 [WINDOW w AS (...), ...]
 *   relation   := t [alias] | fmt.`path` | name(args) (table-valued: range) | ( query ) alias
 *                 [(cols)] | VALUES ... | joins of every type, NATURAL, USING, comma joins
 *
 * Plan shapes (Spark's): Project / Aggregate over Filter(where) over Generate (lateral views)
 * over the joins; HAVING a Filter over the Aggregate (an Aggregate with no grouping when there
 * is no GROUP BY); DISTINCT a Distinct over the projection; hints an UnresolvedHint (HINT:
 * parts[0] = name, exprs = parameters) on top; ORDER BY Sort(global), SORT BY Sort(local),
 * DISTRIBUTE BY Repartition(exprs), CLUSTER BY both; Limit over Offset. UNION [DISTINCT] is
 * SET_OP(union, all=false). GROUPING SETS / ROLLUP / CUBE are calls "grouping_sets" (args:
 * "grouping_set" calls, one per set) / "rollup" / "cube" (args: expressions or "grouping_set"
 * calls for (a, b) groups) in the Aggregate's group_by, as Spark's GroupingSets/Rollup/Cube;
 * an integer alone in GROUP BY / ORDER BY is an UNRESOLVED_ORDINAL. WINDOW clause definitions
 * replace the OVER w references of the query at parse time.
 */
#include <stdlib.h>
#include <sys/random.h>
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"

/* A sample's seed: REPEATABLE (n), else a random one (Spark's Utils.random.nextLong). */
static void sample_seed(cs_sqlp *p, cs_logical_plan *s)
{
    if (cs_sqlp_accept_kw(p, "REPEATABLE")) {
        cs_sqlp_expect_op(p, "(");
        cs_sql_token *t = cs_sqlp_next(p);
        if (t->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, t);
        s->seed = strtoll(t->text, NULL, 10);
        cs_sqlp_expect_op(p, ")");
        return;
    }
    int64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) v = (int64_t)(uintptr_t)s;
    s->seed = v;
}

static cs_logical_plan *plan_at(cs_sqlp *p, cs_plan_kind kind, int n_children,
                                const cs_sql_token *t)
{
    cs_logical_plan *q = cs_logical_plan_new(p->a, kind, n_children);
    q->line = t->line;
    q->pos = t->pos;
    return q;
}

static cs_logical_plan *unary(cs_sqlp *p, cs_plan_kind kind, cs_logical_plan *child,
                              const cs_sql_token *t)
{
    cs_logical_plan *q = plan_at(p, kind, 1, t);
    q->children[0] = child;
    return q;
}

bool cs_sqlp_starts_query(cs_sqlp *p, int ahead)
{
    cs_sql_token *t = cs_sqlp_peek(p, ahead);
    if (cs_sql_tok_is_kw(t, "SELECT") || cs_sql_tok_is_kw(t, "WITH") ||
        cs_sql_tok_is_kw(t, "VALUES"))
        return true;
    if (cs_sql_tok_is_kw(t, "TABLE") && cs_sqlp_is_ident(p, ahead + 1)) return true;
    /* ((SELECT ...)) */
    int k = ahead;
    while (cs_sqlp_is_op(p, k, "("))
        k++;
    return k > ahead && (cs_sqlp_is_kw(p, k, "SELECT") || cs_sqlp_is_kw(p, k, "WITH") ||
                         cs_sqlp_is_kw(p, k, "VALUES"));
}

static cs_sql_expr **exprs_of(cs_sqlp_list *l)
{
    return (cs_sql_expr **)l->items;
}

/* [AS] alias [(a, b)] — table aliases (no strict non-reserved word without AS) */
static void table_alias(cs_sqlp *p, cs_logical_plan **q, bool allow_columns)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    const char *alias = NULL;
    if (cs_sqlp_accept_kw(p, "AS"))
        alias = cs_sqlp_ident(p);
    else if (cs_sqlp_can_be_alias(p, 0))
        alias = cs_sqlp_ident(p);
    if (!alias) return;
    cs_logical_plan *s = unary(p, CS_LP_SUBQUERY_ALIAS, *q, t);
    s->alias = alias;
    if (allow_columns && cs_sqlp_is_op(p, 0, "(") && cs_sqlp_is_ident(p, 1)) {
        cs_sqlp_next(p);
        cs_sqlp_list l = {0};
        do {
            cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
        } while (cs_sqlp_accept_op(p, ","));
        cs_sqlp_expect_op(p, ")");
        s->n_column_aliases = l.n;
        s->column_aliases = (const char **)l.items;
    }
    *q = s;
}

/* VALUES row, row, ...: a row is (e, ...) or one expression */
static cs_logical_plan *values(cs_sqlp *p, const cs_sql_token *t)
{
    cs_sqlp_list cells = {0};
    int rows = 0, cols = -1;
    do {
        int n;
        cs_sql_token *rt = cs_sqlp_peek(p, 0);
        if (cs_sqlp_is_op(p, 0, "(") && !cs_sqlp_starts_query(p, 1)) {
            cs_sqlp_next(p);
            n = 0;
            do {
                cs_sqlp_list_add(p, &cells, cs_sqlp_expr(p));
                n++;
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
        } else {
            cs_sqlp_list_add(p, &cells, cs_sqlp_expr(p));
            n = 1;
        }
        if (cols >= 0 && n != cols)
            cs_sqlp_fail(p, rt->line, rt->pos, "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH", "42000",
                         "Invalid inline table. Inline table expected %d columns but found %d "
                         "columns in row %d.",
                         cols, n, rows);
        cols = n;
        rows++;
    } while (cs_sqlp_accept_op(p, ","));
    cs_logical_plan *q = plan_at(p, CS_LP_LOCAL_RELATION, 0, t);
    q->n_rows = rows;
    q->n_cols = cols;
    q->n_exprs = cells.n;
    q->exprs = exprs_of(&cells);
    return q;
}

static bool is_path_format(const char *s)
{
    static const char *const f[] = {"parquet", "csv", "json", "text", "orc", "avro", "binaryFile"};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (strcasecmp(s, f[k]) == 0) return true;
    return false;
}

static cs_logical_plan *relation(cs_sqlp *p);

/* sample? after a relation: TABLESAMPLE (x PERCENT | BUCKET x OUT OF y | n ROWS)
 * [REPEATABLE (seed)] over q; q itself when there is none. */
static cs_logical_plan *table_sample(cs_sqlp *p, cs_logical_plan *q)
{
    if (cs_sqlp_is_kw(p, 0, "TABLESAMPLE") && cs_sqlp_is_op(p, 1, "(")) {
        cs_sql_token *st = cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_logical_plan *s = unary(p, CS_LP_SAMPLE, q, st);
        cs_sql_token *nt = cs_sqlp_peek(p, 0);
        if (cs_sqlp_accept_kw(p, "BUCKET")) { /* BUCKET x OUT OF y: the fraction x / y */
            cs_sql_token *xt = cs_sqlp_next(p);
            cs_sqlp_expect_kw(p, "OUT");
            cs_sqlp_expect_kw(p, "OF");
            cs_sql_token *yt = cs_sqlp_next(p);
            if (xt->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, xt);
            if (yt->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, yt);
            double y = strtod(yt->text, NULL);
            s->fraction = y != 0 ? strtod(xt->text, NULL) / y : 0;
            s->sample_upper = s->fraction;
            cs_sqlp_expect_op(p, ")");
            sample_seed(p, s);
            return s;
        }
        cs_sql_expr *amount = cs_sqlp_value_expr(p);
        if (cs_sqlp_accept_kw(p, "PERCENT")) {
            if (nt->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, nt);
            s->fraction = strtod(nt->text, NULL) / 100.0;
            s->sample_upper = s->fraction;
        } else {
            /* n ROWS is a limit, as Spark's parser makes it */
            cs_sqlp_expect_kw(p, "ROWS");
            s->kind = CS_LP_LIMIT;
            s->limit = amount;
        }
        cs_sqlp_expect_op(p, ")");
        if (s->kind == CS_LP_SAMPLE) sample_seed(p, s);
        return s;
    }
    return q;
}

static cs_logical_plan *relation_primary(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    cs_logical_plan *q;
    if (cs_sql_tok_is_op(t, "(")) {
        if (cs_sqlp_starts_query(p, 1)) {
            cs_sqlp_next(p);
            q = cs_sqlp_query(p);
            cs_sqlp_expect_op(p, ")");
            q = table_sample(p, q);
            /* Spark names an unaliased subquery in FROM __auto_generated_subquery_name */
            cs_logical_plan *before = q;
            table_alias(p, &q, true);
            if (q == before) {
                q = unary(p, CS_LP_SUBQUERY_ALIAS, q, t);
                q->alias = "__auto_generated_subquery_name";
            }
            return q;
        }
        cs_sqlp_next(p); /* ( relation ) */
        cs_sqlp_enter(p);
        q = relation(p);
        cs_sqlp_leave(p);
        cs_sqlp_expect_op(p, ")");
        table_alias(p, &q, false);
        return q;
    }
    if (cs_sql_tok_is_kw(t, "VALUES")) {
        cs_sqlp_next(p);
        q = values(p, t);
        table_alias(p, &q, true);
        return q;
    }
    int n;
    const char **parts = cs_sqlp_multipart(p, &n);
    if (cs_sqlp_is_op(p, 0, "(")) { /* table-valued function */
        cs_sqlp_next(p);
        cs_sqlp_list l = {0};
        if (!cs_sqlp_is_op(p, 0, ")")) do {
                cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
            } while (cs_sqlp_accept_op(p, ","));
        cs_sqlp_expect_op(p, ")");
        q = plan_at(p, CS_LP_TABLE_FUNCTION, 0, t);
        q->n_parts = n;
        q->parts = parts;
        q->n_exprs = l.n;
        q->exprs = exprs_of(&l);
        table_alias(p, &q, true);
        return q;
    }
    q = plan_at(p, CS_LP_UNRESOLVED_RELATION, 0, t);
    q->n_parts = n;
    q->parts = parts;
    if (n == 2 && is_path_format(parts[0]) && cs_sqlp_peek(p, -1)->kind == CS_TOK_QIDENT) {
        q->format = parts[0];
        q->path = parts[1];
    }
    q = table_sample(p, q);
    table_alias(p, &q, true);
    return q;
}

static bool join_ahead(cs_sqlp *p)
{
    static const char *const kw[] = {"JOIN",  "INNER",   "LEFT", "RIGHT", "FULL",
                                     "CROSS", "NATURAL", "SEMI", "ANTI"};
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (cs_sqlp_is_kw(p, 0, kw[k])) return true;
    return false;
}

/* a relation and its joins */
static cs_logical_plan *relation(cs_sqlp *p)
{
    cs_logical_plan *left = relation_primary(p);
    while (join_ahead(p)) {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        bool natural = cs_sqlp_accept_kw(p, "NATURAL");
        cs_join_type type = CS_JOIN_INNER;
        if (cs_sqlp_accept_kw(p, "INNER")) {
        } else if (cs_sqlp_accept_kw(p, "CROSS")) {
            type = CS_JOIN_CROSS;
        } else if (cs_sqlp_accept_kw(p, "LEFT")) {
            if (cs_sqlp_accept_kw(p, "SEMI"))
                type = CS_JOIN_LEFT_SEMI;
            else if (cs_sqlp_accept_kw(p, "ANTI"))
                type = CS_JOIN_LEFT_ANTI;
            else {
                cs_sqlp_accept_kw(p, "OUTER");
                type = CS_JOIN_LEFT_OUTER;
            }
        } else if (cs_sqlp_accept_kw(p, "RIGHT")) {
            cs_sqlp_accept_kw(p, "OUTER");
            type = CS_JOIN_RIGHT_OUTER;
        } else if (cs_sqlp_accept_kw(p, "FULL")) {
            cs_sqlp_accept_kw(p, "OUTER");
            type = CS_JOIN_FULL_OUTER;
        } else if (cs_sqlp_accept_kw(p, "SEMI")) {
            type = CS_JOIN_LEFT_SEMI;
        } else if (cs_sqlp_accept_kw(p, "ANTI")) {
            type = CS_JOIN_LEFT_ANTI;
        }
        cs_sqlp_expect_kw(p, "JOIN");
        cs_logical_plan *right = relation_primary(p);
        cs_logical_plan *j = plan_at(p, CS_LP_JOIN, 2, t);
        j->children[0] = left;
        j->children[1] = right;
        j->join_type = type;
        j->natural = natural;
        if (!natural && cs_sqlp_accept_kw(p, "ON")) {
            j->condition = cs_sqlp_expr(p);
        } else if (!natural && cs_sqlp_accept_kw(p, "USING")) {
            cs_sqlp_expect_op(p, "(");
            cs_sqlp_list l = {0};
            do {
                cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
            j->n_using = l.n;
            j->using_columns = (const char **)l.items;
        }
        left = j;
    }
    return left;
}

/* PIVOT ( aggregate [AS name], ... FOR column IN ( value [AS name], ... ) ) over q */
static cs_logical_plan *pivot_clause(cs_sqlp *p, cs_logical_plan *q)
{
    cs_sql_token *t = cs_sqlp_next(p);
    cs_sqlp_expect_op(p, "(");
    cs_logical_plan *v = unary(p, CS_LP_AGGREGATE, q, t);
    cs_sqlp_list aggs = {0}, values = {0};
    do {
        cs_sqlp_list_add(p, &aggs, cs_sqlp_named_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_kw(p, "FOR");
    if (cs_sqlp_is_op(p, 0, "(")) /* several pivot columns */
        cs_sqlp_fail(p, cs_sqlp_peek(p, 0)->line, cs_sqlp_peek(p, 0)->pos, "UNSUPPORTED_FEATURE",
                     "0A000", "The feature is not supported: PIVOT over several columns.");
    v->pivot_column = cs_sqlp_primary(p);
    cs_sqlp_expect_kw(p, "IN");
    cs_sqlp_expect_op(p, "(");
    do {
        cs_sqlp_list_add(p, &values, cs_sqlp_named_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_op(p, ")");
    cs_sqlp_expect_op(p, ")");
    v->n_exprs = aggs.n;
    v->exprs = exprs_of(&aggs);
    v->n_pivot_values = values.n;
    v->pivot_values = exprs_of(&values);
    table_alias(p, &v, true);
    return v;
}

/* UNPIVOT [INCLUDE | EXCLUDE NULLS] ( value FOR name IN ( column [AS alias], ... ) ) over q */
static cs_logical_plan *unpivot_clause(cs_sqlp *p, cs_logical_plan *q)
{
    cs_sql_token *t = cs_sqlp_next(p);
    cs_logical_plan *u = unary(p, CS_LP_PROJECT, q, t);
    u->unpivot = true;
    if (cs_sqlp_accept_kw(p, "INCLUDE")) {
        cs_sqlp_expect_kw(p, "NULLS");
        u->unpivot_include_nulls = true;
    } else if (cs_sqlp_accept_kw(p, "EXCLUDE")) {
        cs_sqlp_expect_kw(p, "NULLS");
    }
    cs_sqlp_expect_op(p, "(");
    if (cs_sqlp_is_op(p, 0, "(")) /* several value columns */
        cs_sqlp_fail(p, cs_sqlp_peek(p, 0)->line, cs_sqlp_peek(p, 0)->pos, "UNSUPPORTED_FEATURE",
                     "0A000", "The feature is not supported: UNPIVOT into several value columns.");
    u->unpivot_value = cs_sqlp_ident(p);
    cs_sqlp_expect_kw(p, "FOR");
    u->unpivot_name = cs_sqlp_ident(p);
    cs_sqlp_expect_kw(p, "IN");
    cs_sqlp_expect_op(p, "(");
    cs_sqlp_list cols = {0};
    do {
        cs_sqlp_list_add(p, &cols, cs_sqlp_named_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_op(p, ")");
    cs_sqlp_expect_op(p, ")");
    u->n_pivot_values = cols.n;
    u->pivot_values = exprs_of(&cols);
    table_alias(p, &u, true);
    return u;
}

/* , LATERAL f(args) [[AS] alias]: a generator called as a lateral table-valued function (Spark's
 * lateral join of a generator), the Generate of f over the relations before it */
static cs_logical_plan *lateral_function(cs_sqlp *p, cs_logical_plan *q, const cs_sql_token *t)
{
    cs_sqlp_next(p); /* LATERAL */
    cs_logical_plan *g = unary(p, CS_LP_GENERATE, q, t);
    g->generator = cs_sqlp_primary(p);
    if (g->generator->kind != CS_EX_UNRESOLVED_FUNC)
        cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
    else
        g->generator->table_function = true;
    if (cs_sqlp_accept_kw(p, "AS") || cs_sqlp_can_be_alias(p, 0)) g->alias = cs_sqlp_ident(p);
    return g;
}

/* FROM r, r, ..., [LATERAL f(...)] [LATERAL VIEW ...] [PIVOT (...)] [UNPIVOT (...)] */
static cs_logical_plan *from_clause(cs_sqlp *p)
{
    cs_logical_plan *q = relation(p);
    while (cs_sqlp_is_op(p, 0, ",")) {
        cs_sql_token *t = cs_sqlp_next(p);
        if (cs_sqlp_is_kw(p, 0, "LATERAL") && cs_sqlp_is_ident(p, 1) && cs_sqlp_is_op(p, 2, "(")) {
            q = lateral_function(p, q, t);
            continue;
        }
        cs_logical_plan *j = plan_at(p, CS_LP_JOIN, 2, t);
        j->children[0] = q;
        j->children[1] = relation(p);
        j->join_type = CS_JOIN_INNER;
        q = j;
    }
    while (cs_sqlp_is_kw(p, 0, "LATERAL") && cs_sqlp_is_kw(p, 1, "VIEW")) {
        cs_sql_token *t = cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_logical_plan *g = unary(p, CS_LP_GENERATE, q, t);
        g->outer = cs_sqlp_accept_kw(p, "OUTER");
        g->generator = cs_sqlp_primary(p);
        if (g->generator->kind != CS_EX_UNRESOLVED_FUNC)
            cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
        if (!cs_sqlp_is_kw(p, 0, "AS")) g->alias = cs_sqlp_ident(p);
        if (cs_sqlp_accept_kw(p, "AS")) {
            cs_sqlp_list l = {0};
            do {
                cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
            } while (cs_sqlp_accept_op(p, ","));
            g->n_column_aliases = l.n;
            g->column_aliases = (const char **)l.items;
        }
        q = g;
    }
    if (cs_sqlp_is_kw(p, 0, "PIVOT") && cs_sqlp_is_op(p, 1, "(")) q = pivot_clause(p, q);
    if (cs_sqlp_is_kw(p, 0, "UNPIVOT") &&
        (cs_sqlp_is_op(p, 1, "(") || cs_sqlp_is_kw(p, 1, "INCLUDE") ||
         cs_sqlp_is_kw(p, 1, "EXCLUDE")))
        q = unpivot_clause(p, q);
    return q;
}

/* a GROUP BY / ORDER BY item: an integer alone is an ordinal */
static cs_sql_expr *maybe_ordinal(cs_sqlp *p, cs_sql_expr *e, const cs_sql_token *t)
{
    if (e->kind == CS_EX_LITERAL && t->kind == CS_TOK_NUMBER && e->type &&
        e->type->id == CS_TYPE_INT) {
        cs_sql_expr *o = cs_sql_expr_new(p->a, CS_EX_UNRESOLVED_ORDINAL, 0);
        o->line = t->line;
        o->pos = t->pos;
        o->ordinal = strtoll(t->text, NULL, 10);
        return o;
    }
    return e;
}

/* ( a, b ) as a grouping set, or one expression */
static cs_sql_expr *grouping_element(cs_sqlp *p, bool set_always)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sqlp_is_op(p, 0, "(") && !cs_sqlp_starts_query(p, 1)) {
        /* ( ) or ( e, e ): a set; ( e ) alone a set when asked */
        int save = p->i;
        cs_sqlp_next(p);
        cs_sqlp_list l = {0};
        if (!cs_sqlp_is_op(p, 0, ")")) do {
                cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
            } while (cs_sqlp_accept_op(p, ","));
        cs_sqlp_expect_op(p, ")");
        if (l.n != 1 || set_always || !(cs_sqlp_is_op(p, 0, ",") || cs_sqlp_is_op(p, 0, ")"))) {
            if (l.n == 1 && !set_always && !cs_sqlp_is_op(p, 0, ",") && !cs_sqlp_is_op(p, 0, ")")) {
                p->i = save; /* (a) + 1 */
                return cs_sqlp_expr(p);
            }
            return cs_sqlp_call(p, "grouping_set", t->line, t->pos, exprs_of(&l), l.n);
        }
        return l.items[0];
    }
    return cs_sqlp_expr(p);
}

static void group_by(cs_sqlp *p, cs_logical_plan *agg)
{
    cs_sqlp_list l = {0};
    do {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        bool rollup = cs_sql_tok_is_kw(t, "ROLLUP"), cube = cs_sql_tok_is_kw(t, "CUBE");
        if ((rollup || cube) && cs_sqlp_is_op(p, 1, "(")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sqlp_list a = {0};
            do {
                cs_sqlp_list_add(p, &a, grouping_element(p, false));
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
            cs_sqlp_list_add(
                p, &l,
                cs_sqlp_call(p, rollup ? "rollup" : "cube", t->line, t->pos, exprs_of(&a), a.n));
        } else if (cs_sql_tok_is_kw(t, "GROUPING") && cs_sqlp_is_kw(p, 1, "SETS")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            cs_sqlp_expect_op(p, "(");
            cs_sqlp_list a = {0};
            do {
                cs_sqlp_list_add(p, &a, grouping_element(p, true));
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
            for (int k = 0; k < a.n; k++) { /* GROUPING SETS (a, b): each one a set */
                cs_sql_expr *e = a.items[k];
                if (!(e->kind == CS_EX_UNRESOLVED_FUNC && strcmp(e->name, "grouping_set") == 0))
                    a.items[k] = cs_sqlp_call(p, "grouping_set", e->line, e->pos, &e, 1);
            }
            cs_sqlp_list_add(p, &l,
                             cs_sqlp_call(p, "grouping_sets", t->line, t->pos, exprs_of(&a), a.n));
        } else {
            cs_sqlp_list_add(p, &l, maybe_ordinal(p, cs_sqlp_expr(p), t));
        }
    } while (cs_sqlp_accept_op(p, ","));
    /* GROUP BY a WITH ROLLUP / WITH CUBE */
    if (cs_sqlp_is_kw(p, 0, "WITH") &&
        (cs_sqlp_is_kw(p, 1, "ROLLUP") || cs_sqlp_is_kw(p, 1, "CUBE"))) {
        cs_sqlp_next(p);
        cs_sql_token *t = cs_sqlp_next(p);
        cs_sql_expr *g = cs_sqlp_call(p, cs_sql_tok_is_kw(t, "ROLLUP") ? "rollup" : "cube", t->line,
                                      t->pos, exprs_of(&l), l.n);
        l.n = 0;
        cs_sqlp_list_add(p, &l, g);
    }
    agg->n_group_by = l.n;
    agg->group_by = exprs_of(&l);
}

/* select item: expr [[AS] alias | AS (a, b)] */
cs_sql_expr *cs_sqlp_named_expr(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    cs_sql_expr *e = cs_sqlp_expr(p);
    const char *alias = NULL;
    if (cs_sqlp_accept_kw(p, "AS")) {
        if (cs_sqlp_is_op(p, 0, "(")) { /* AS (a, b) for a generator: aliases in parts */
            cs_sqlp_next(p);
            cs_sqlp_list l = {0};
            do {
                cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
            cs_sql_expr *a = cs_sql_expr_new(p->a, CS_EX_ALIAS, 1);
            a->line = t->line;
            a->pos = t->pos;
            a->args[0] = e;
            a->name = l.items[0];
            a->n_parts = l.n;
            a->parts = (const char **)l.items;
            return a;
        }
        alias = cs_sqlp_ident(p);
    } else if (cs_sqlp_can_be_alias(p, 0)) {
        alias = cs_sqlp_ident(p);
    }
    if (!alias) return e;
    cs_sql_expr *a = cs_sql_expr_new(p->a, CS_EX_ALIAS, 1);
    a->line = e->line;
    a->pos = e->pos;
    a->args[0] = e;
    a->name = alias;
    return a;
}

static void hints(cs_sqlp *p, cs_sqlp_list *out)
{
    while (cs_sqlp_peek(p, 0)->kind == CS_TOK_HINT_START) {
        cs_sqlp_next(p);
        while (cs_sqlp_peek(p, 0)->kind != CS_TOK_HINT_END) {
            cs_sql_token *t = cs_sqlp_peek(p, 0);
            cs_logical_plan *h = plan_at(p, CS_LP_HINT, 1, t);
            h->n_parts = 1;
            h->parts = cs_sql_alloc(p->a, sizeof *h->parts);
            h->parts[0] = cs_sqlp_ident(p);
            if (cs_sqlp_accept_op(p, "(")) {
                cs_sqlp_list l = {0};
                if (!cs_sqlp_is_op(p, 0, ")")) do {
                        cs_sqlp_list_add(p, &l, cs_sqlp_primary(p));
                    } while (cs_sqlp_accept_op(p, ","));
                cs_sqlp_expect_op(p, ")");
                h->n_exprs = l.n;
                h->exprs = exprs_of(&l);
            }
            cs_sqlp_list_add(p, out, h);
            cs_sqlp_accept_op(p, ",");
        }
        cs_sqlp_next(p);
    }
}

static void collect_windows(cs_sqlp *p, cs_sqlp_list *defs)
{
    do {
        cs_sql_window_def *d = cs_sql_alloc(p->a, sizeof *d);
        d->name = cs_sqlp_ident(p);
        cs_sqlp_expect_kw(p, "AS");
        if (cs_sqlp_accept_op(p, "(")) {
            d->spec = cs_sqlp_window_spec(p);
            cs_sqlp_expect_op(p, ")");
        } else {
            d->spec = cs_sql_alloc(p->a, sizeof *d->spec);
            d->spec->ref_name = cs_sqlp_ident(p);
        }
        cs_sqlp_list_add(p, defs, d);
    } while (cs_sqlp_accept_op(p, ","));
}

static void apply_windows_to(cs_sqlp *p, cs_sql_expr **exprs, int n, cs_sqlp_list *defs)
{
    cs_sql_window_def *flat = cs_sql_alloc(p->a, sizeof *flat * (size_t)(defs->n + 1));
    for (int k = 0; k < defs->n; k++)
        flat[k] = *(cs_sql_window_def *)defs->items[k];
    /* w2 AS w1: resolve references between definitions first */
    for (int k = 0; k < defs->n; k++)
        if (flat[k].spec->ref_name)
            for (int m = 0; m < defs->n; m++)
                if (m != k && strcasecmp(flat[m].name, flat[k].spec->ref_name) == 0 &&
                    !flat[m].spec->ref_name) {
                    cs_window_spec *s = cs_sqlp_merge_window(p, flat[m].spec, flat[k].spec);
                    flat[k].spec = s;
                }
    for (int k = 0; k < n; k++)
        cs_sqlp_apply_windows(p, exprs[k], flat, defs->n);
}

static cs_logical_plan *select_spec(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_next(p); /* SELECT */
    cs_sqlp_list hint_list = {0};
    hints(p, &hint_list);
    bool distinct = false;
    if (cs_sqlp_accept_kw(p, "DISTINCT"))
        distinct = true;
    else if (cs_sqlp_is_kw(p, 0, "ALL") && !cs_sqlp_is_op(p, 1, ",") &&
             !cs_sqlp_is_kw(p, 1, "FROM") && cs_sqlp_peek(p, 1)->kind != CS_TOK_EOF)
        cs_sqlp_next(p);
    cs_sqlp_list items = {0};
    do {
        cs_sqlp_list_add(p, &items, cs_sqlp_named_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    cs_logical_plan *q;
    if (cs_sqlp_accept_kw(p, "FROM"))
        q = from_clause(p);
    else
        q = plan_at(p, CS_LP_ONE_ROW, 0, t);
    if (cs_sqlp_is_kw(p, 0, "WHERE")) {
        cs_sql_token *wt = cs_sqlp_next(p);
        q = unary(p, CS_LP_FILTER, q, wt);
        q->condition = cs_sqlp_expr(p);
    }
    cs_logical_plan *agg = NULL;
    if (cs_sqlp_is_kw(p, 0, "GROUP") && cs_sqlp_is_kw(p, 1, "BY")) {
        cs_sql_token *gt = cs_sqlp_next(p);
        cs_sqlp_next(p);
        agg = unary(p, CS_LP_AGGREGATE, q, gt);
        group_by(p, agg);
    }
    cs_sql_expr *having = NULL;
    cs_sql_token *ht = cs_sqlp_peek(p, 0);
    if (cs_sqlp_accept_kw(p, "HAVING")) {
        having = cs_sqlp_expr(p);
        if (!agg) agg = unary(p, CS_LP_AGGREGATE, q, ht); /* HAVING without GROUP BY */
    }
    cs_sqlp_list defs = {0};
    if (cs_sqlp_accept_kw(p, "WINDOW")) collect_windows(p, &defs);
    if (defs.n) {
        apply_windows_to(p, exprs_of(&items), items.n, &defs);
        if (having) apply_windows_to(p, &having, 1, &defs);
    }
    if (agg) {
        agg->n_exprs = items.n;
        agg->exprs = exprs_of(&items);
        q = agg;
    } else {
        q = unary(p, CS_LP_PROJECT, q, t);
        q->n_exprs = items.n;
        q->exprs = exprs_of(&items);
    }
    if (having) {
        q = unary(p, CS_LP_FILTER, q, ht);
        q->condition = having;
    }
    if (distinct) q = unary(p, CS_LP_DISTINCT, q, t);
    for (int k = hint_list.n - 1; k >= 0; k--) {
        cs_logical_plan *h = hint_list.items[k];
        h->children[0] = q;
        q = h;
    }
    return q;
}

static cs_logical_plan *query_term(cs_sqlp *p, int level);

static cs_logical_plan *query_primary(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sql_tok_is_kw(t, "SELECT")) return select_spec(p);
    if (cs_sql_tok_is_kw(t, "VALUES")) {
        cs_sqlp_next(p);
        cs_logical_plan *q = values(p, t);
        return q;
    }
    if (cs_sql_tok_is_kw(t, "TABLE")) {
        cs_sqlp_next(p);
        cs_logical_plan *q = plan_at(p, CS_LP_UNRESOLVED_RELATION, 0, t);
        q->parts = cs_sqlp_multipart(p, &q->n_parts);
        cs_logical_plan *pr = unary(p, CS_LP_PROJECT, q, t);
        pr->n_exprs = 1;
        pr->exprs = cs_sql_alloc(p->a, sizeof *pr->exprs);
        pr->exprs[0] = cs_sql_expr_new(p->a, CS_EX_STAR, 0);
        return pr;
    }
    if (cs_sql_tok_is_op(t, "(")) {
        cs_sqlp_next(p);
        cs_logical_plan *q = cs_sqlp_query(p);
        cs_sqlp_expect_op(p, ")");
        return q;
    }
    cs_sqlp_syntax_error(p, t);
}

/* level 0: UNION / EXCEPT / MINUS; level 1: INTERSECT */
static cs_logical_plan *query_term(cs_sqlp *p, int level)
{
    cs_logical_plan *left = level == 0 ? query_term(p, 1) : query_primary(p);
    for (;;) {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        cs_set_op op;
        if (level == 1 && cs_sql_tok_is_kw(t, "INTERSECT"))
            op = CS_SET_INTERSECT;
        else if (level == 0 && cs_sql_tok_is_kw(t, "UNION"))
            op = CS_SET_UNION;
        else if (level == 0 && (cs_sql_tok_is_kw(t, "EXCEPT") || cs_sql_tok_is_kw(t, "MINUS") ||
                                cs_sql_tok_is_kw(t, "SETMINUS")))
            op = CS_SET_EXCEPT;
        else
            return left;
        cs_sqlp_next(p);
        bool all = false;
        if (cs_sqlp_accept_kw(p, "ALL"))
            all = true;
        else
            cs_sqlp_accept_kw(p, "DISTINCT");
        bool by_name = false;
        if (op == CS_SET_UNION && cs_sqlp_is_kw(p, 0, "BY") && cs_sqlp_is_kw(p, 1, "NAME")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            by_name = true;
        }
        cs_sqlp_enter(p);
        cs_logical_plan *right = level == 0 ? query_term(p, 1) : query_primary(p);
        cs_sqlp_leave(p);
        cs_logical_plan *s = plan_at(p, CS_LP_SET_OP, 2, t);
        s->children[0] = left;
        s->children[1] = right;
        s->set_op = op;
        s->all = all;
        s->by_name = by_name;
        left = s;
    }
}

static void sort_list(cs_sqlp *p, cs_logical_plan *s)
{
    cs_sqlp_list l = {0};
    do {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        cs_sql_expr *o = cs_sqlp_sort_item(p);
        o->args[0] = maybe_ordinal(p, o->args[0], t);
        cs_sqlp_list_add(p, &l, o);
    } while (cs_sqlp_accept_op(p, ","));
    s->n_order = l.n;
    s->order = exprs_of(&l);
}

static void ctes(cs_sqlp *p, cs_logical_plan *with)
{
    cs_sqlp_accept_kw(p, "RECURSIVE");
    cs_sqlp_list l = {0};
    do {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        const char *name = cs_sqlp_ident(p);
        cs_sqlp_list cols = {0};
        if (cs_sqlp_accept_op(p, "(")) {
            do {
                cs_sqlp_list_add(p, &cols, (void *)cs_sqlp_ident(p));
            } while (cs_sqlp_accept_op(p, ","));
            cs_sqlp_expect_op(p, ")");
        }
        cs_sqlp_accept_kw(p, "AS");
        cs_sqlp_expect_op(p, "(");
        cs_logical_plan *body = cs_sqlp_query(p);
        cs_sqlp_expect_op(p, ")");
        cs_logical_plan *a = unary(p, CS_LP_SUBQUERY_ALIAS, body, t);
        a->alias = name;
        a->n_column_aliases = cols.n;
        a->column_aliases = (const char **)cols.items;
        cs_sqlp_list_add(p, &l, a);
    } while (cs_sqlp_accept_op(p, ","));
    with->n_ctes = l.n;
    with->ctes = (cs_logical_plan **)l.items;
}

static cs_sql_expr **expr_list_of(cs_sqlp *p, int *n)
{
    cs_sqlp_list l = {0};
    do {
        cs_sqlp_list_add(p, &l, cs_sqlp_expr(p));
    } while (cs_sqlp_accept_op(p, ","));
    *n = l.n;
    return exprs_of(&l);
}

cs_logical_plan *cs_sqlp_query(cs_sqlp *p)
{
    cs_sqlp_enter(p);
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    cs_logical_plan *with = NULL;
    if (cs_sqlp_accept_kw(p, "WITH")) {
        with = plan_at(p, CS_LP_WITH, 1, t);
        ctes(p, with);
    }
    cs_logical_plan *q = query_term(p, 0);
    /* query organization */
    cs_sql_token *ot = cs_sqlp_peek(p, 0);
    if ((cs_sqlp_is_kw(p, 0, "ORDER") || cs_sqlp_is_kw(p, 0, "SORT")) &&
        cs_sqlp_is_kw(p, 1, "BY")) {
        bool global = cs_sqlp_is_kw(p, 0, "ORDER");
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        q = unary(p, CS_LP_SORT, q, ot);
        q->global = global;
        sort_list(p, q);
    } else if (cs_sqlp_is_kw(p, 0, "CLUSTER") && cs_sqlp_is_kw(p, 1, "BY")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_logical_plan *r = unary(p, CS_LP_REPARTITION, q, ot);
        r->exprs = expr_list_of(p, &r->n_exprs);
        r->shuffle = r->by_expression = true;
        q = unary(p, CS_LP_SORT, r, ot);
        q->global = false;
        q->n_order = r->n_exprs;
        q->order = cs_sql_alloc(p->a, sizeof *q->order * (size_t)r->n_exprs);
        for (int k = 0; k < r->n_exprs; k++) {
            cs_sql_expr *o = cs_sql_expr_new(p->a, CS_EX_SORT_ORDER, 1);
            o->args[0] = r->exprs[k];
            o->nulls_first = true;
            o->line = r->exprs[k]->line;
            o->pos = r->exprs[k]->pos;
            q->order[k] = o;
        }
    } else if (cs_sqlp_is_kw(p, 0, "DISTRIBUTE") && cs_sqlp_is_kw(p, 1, "BY")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_logical_plan *r = unary(p, CS_LP_REPARTITION, q, ot);
        r->exprs = expr_list_of(p, &r->n_exprs);
        r->shuffle = r->by_expression = true;
        q = r;
        cs_sql_token *st = cs_sqlp_peek(p, 0);
        if (cs_sqlp_is_kw(p, 0, "SORT") && cs_sqlp_is_kw(p, 1, "BY")) {
            cs_sqlp_next(p);
            cs_sqlp_next(p);
            q = unary(p, CS_LP_SORT, q, st);
            q->global = false;
            sort_list(p, q);
        }
    }
    if (cs_sqlp_is_kw(p, 0, "WINDOW")) {
        /* a WINDOW clause after ORDER BY (Spark allows it there too) */
        cs_sqlp_next(p);
        cs_sqlp_list defs = {0};
        collect_windows(p, &defs);
        for (cs_logical_plan *x = q; x; x = x->n_children ? x->children[0] : NULL)
            if (x->kind == CS_LP_PROJECT || x->kind == CS_LP_AGGREGATE) {
                apply_windows_to(p, x->exprs, x->n_exprs, &defs);
                break;
            }
    }
    cs_sql_expr *limit = NULL, *offset = NULL;
    cs_sql_token *lt = cs_sqlp_peek(p, 0), *oft = lt;
    if (cs_sqlp_accept_kw(p, "LIMIT")) {
        if (!cs_sqlp_accept_kw(p, "ALL")) limit = cs_sqlp_expr(p);
    }
    oft = cs_sqlp_peek(p, 0);
    if (cs_sqlp_accept_kw(p, "OFFSET")) offset = cs_sqlp_expr(p);
    if (offset) {
        q = unary(p, CS_LP_OFFSET, q, oft);
        q->limit = offset;
    }
    if (limit) {
        q = unary(p, CS_LP_LIMIT, q, lt);
        q->limit = limit;
    }
    if (with) {
        with->children[0] = q;
        q = with;
    }
    cs_sqlp_leave(p);
    return q;
}
