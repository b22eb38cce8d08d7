/*
 * opt_expr.c — Spark's expression rules, each applied to every expression of every plan node:
 *   ConstantFolding        a subtree of literals and deterministic calls is evaluated once by
 *                          the engine (planner_bind.c + pexpr.h, over one row of no columns)
 *                          and becomes a literal; when the evaluation fails (1 / 0, a bad cast)
 *                          the expression stays, so the error is raised at run time only if a
 *                          row reaches it, as Spark (its ConstantFolding catches and keeps)
 *   NullPropagation        null literals through null-intolerant calls, isnull / isnotnull of
 *                          non-nullable input, coalesce without null literals, casts of null
 *   BooleanSimplification  true / false in AND / OR, a AND a, NOT of comparisons and of NOT,
 *                          common conjuncts out of OR branches ((a AND b) OR (a AND c) is
 *                          a AND (b OR c)), the rewrite that gives TPC-H Q19 its join keys
 *   SimplifyConditionals   IF / CASE WHEN with literal conditions, IF with equal branches
 *   SimplifyCasts          a cast to the type its input already has
 *   LikeSimplification     'abc%' startswith, '%abc' endswith, '%abc%' contains, 'abc' =,
 *                          'ab%cd' length + startswith + endswith (no escapes, no '_')
 *   OptimizeIn             duplicates out of IN lists; IN of one value is =
 *   ReplaceNullWithFalseInPredicate  a null where a filter or join condition only compares
 *                          to true is false (so filters can be pruned and pushed)
 *   PruneFilters           filters that are always true go, always false / null ones are empty
 * No rule changes what a query returns: a non-deterministic expression is never folded or
 * duplicated, and three-valued logic is kept (NOT (a > b) is a <= b: both null together).
 *   ReplaceExpressions     between(x, lo, hi) is x >= lo AND x <= hi; uniform(lo, hi, seed)
 *                          is CAST(lo + (hi - lo) * rand(seed) AS its type)
 *   ComputeCurrentTime     current_timestamp(), current_date() (in the session time zone) and
 *                          unix_timestamp() are one instant's literals for the whole query,
 *                          subqueries included
 *   ReplaceCurrentLike     current_user() (user(), session_user()) is the user the process runs
 *                          as (SPARK_USER, else the login name: Spark's getCurrentUserName);
 *                          version() is Spark's "<release> <revision>" string;
 *                          current_database() / current_schema() the session's current
 *                          database, current_catalog() spark_catalog
 * Called by optimizer.c's batches.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "columnar/col_builder.h"
#include "common/clock.h"
#include "sql/optimizer_internal.h"
#include "sql/planner_bind.h"
#include "sql/type_coercion.h"

/* An expression rule over every node of the plan. */
static int every_expression(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_opt_expr_fn fn);

typedef struct expr_rule_ud {
    cs_opt_expr_fn fn;
} expr_rule_ud;

static cs_logical_plan *node_rule(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    const expr_rule_ud *r = ud;
    cs_logical_plan *x = cs_opt_node_exprs_up(c, p, r->fn, NULL);
    if (x != p && (x->kind == CS_LP_PROJECT || x->kind == CS_LP_AGGREGATE)) {
        /* named entries keep their ids; a folded ATTR entry cannot happen (not foldable) */
        cs_logical_plan_output_of_list(c->arena, x);
    }
    return x;
}

static int every_expression(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_opt_expr_fn fn)
{
    expr_rule_ud ud = {fn};
    *out = cs_opt_plan_up(c, p, node_rule, &ud);
    return 0;
}

static cs_sql_expr *null_of(cs_opt_ctx *c, const cs_sql_expr *e)
{
    return cs_opt_null_literal(c, e->type);
}

/* ---- ComputeCurrentTime -------------------------------------------------------------------- */

typedef struct now_state {
    cs_opt_ctx *c;
    int64_t now_us;
    cs_sql_expr *timestamp, *date, *unix_seconds; /* made on first use, shared */
} now_state;

static cs_sql_expr *one_value(cs_opt_ctx *c, cs_type_id type, const void *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(type));
    cs_col_builder_append_values(b, v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *evaluate(cs_opt_ctx *c, cs_sql_expr *e);

/* The release whose semantics cspark follows, and what it says as its revision. */
#define SPARK_RELEASE_VERSION "4.0.1 cspark"

const char *cs_sql_current_user(void)
{
    const char *u = getenv("SPARK_USER");
    if (!u || !*u) {
        struct passwd *pw = getpwuid(geteuid());
        u = pw ? pw->pw_name : getenv("USER");
    }
    return u && *u ? u : "unknown";
}

static cs_sql_expr *now_timestamp(now_state *st)
{
    if (!st->timestamp) st->timestamp = one_value(st->c, CS_TYPE_TIMESTAMP, &st->now_us);
    return st->timestamp;
}

static cs_logical_plan *current_time_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud);

static cs_sql_expr *current_time(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    now_state *st = ud;
    if (e->subquery) { /* the same instant in subqueries, as Spark */
        cs_logical_plan *sp = cs_opt_plan_up(c, e->subquery, current_time_node, st);
        if (sp == e->subquery) return e;
        cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
        r->subquery = sp;
        return r;
    }
    if (cs_opt_is_call(e, "current_timestamp", 0)) return now_timestamp(st);
    if (cs_opt_is_call(e, "current_user", 0))
        return cs_sql_expr_string_literal(c->arena, cs_sql_current_user());
    if (cs_opt_is_call(e, "current_schema", 0))
        return cs_sql_expr_string_literal(c->arena, cs_catalog_current_database(c->catalog));
    if (cs_opt_is_call(e, "current_catalog", 0))
        return cs_sql_expr_string_literal(c->arena, "spark_catalog");
    if (cs_opt_is_call(e, "version", 0))
        return cs_sql_expr_string_literal(c->arena, SPARK_RELEASE_VERSION);
    if (cs_opt_is_call(e, "unix_timestamp", 0)) {
        if (!st->unix_seconds) {
            int64_t s = st->now_us / 1000000;
            st->unix_seconds = one_value(c, CS_TYPE_LONG, &s);
        }
        return st->unix_seconds;
    }
    if (cs_opt_is_call(e, "current_date", 0)) {
        if (!st->date) {
            /* the date of the instant in the session time zone: the engine's cast */
            cs_sql_expr *cast = cs_sql_expr_new(c->arena, CS_EX_CAST, 1);
            cast->args[0] = now_timestamp(st);
            cast->cast_type = cs_col_type_primitive(CS_TYPE_DATE);
            cast->type = cast->cast_type;
            cast->cast_mode = CS_CAST_ANSI;
            cast->resolved = true;
            st->date = evaluate(c, cast);
        }
        if (st->date) return st->date;
    }
    return e;
}

static cs_logical_plan *current_time_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    cs_logical_plan *x = cs_opt_node_exprs_up(c, p, current_time, ud);
    if (x != p && (x->kind == CS_LP_PROJECT || x->kind == CS_LP_AGGREGATE))
        cs_logical_plan_output_of_list(c->arena, x);
    return x;
}

int cs_opt_compute_current_time(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err)
{
    (void)err;
    now_state st = {.c = c, .now_us = cs_now_ms() * 1000};
    *out = cs_opt_plan_up(c, p, current_time_node, &st);
    return 0;
}

/* ---- ReplaceExpressions ------------------------------------------------------------------- */

/* between(x, lo, hi): x >= lo AND x <= hi, as Spark's Between (a RuntimeReplaceable) becomes,
 * so that filters on x are pushed to the scan and imply isnotnull(x). A non-deterministic x
 * is read once: left alone. */
static cs_sql_expr *replace_between(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (!cs_opt_is_call(e, "between", 3) || !cs_opt_deterministic(e->args[0])) return e;
    cs_sql_expr *ge_args[2] = {e->args[0], e->args[1]}, *le_args[2] = {e->args[0], e->args[2]};
    cs_sql_expr *ge = cs_opt_call(c, ">=", ge_args, 2);
    cs_sql_expr *le = cs_opt_call(c, "<=", le_args, 2);
    if (!ge || !le) return e;
    return cs_opt_and(c, ge, le);
}

/* uniform(min, max[, seed]): CAST(min + (max - min) * rand(seed) AS type), min and max as
 * doubles, as Spark's Uniform (a RuntimeReplaceable) becomes; null when an argument is. */
static cs_sql_expr *replace_uniform(cs_opt_ctx *c, cs_sql_expr *e)
{
    if (!cs_opt_is_call(e, "uniform", 2) && !cs_opt_is_call(e, "uniform", 3)) return e;
    if (e->type->id == CS_TYPE_NULL) return cs_opt_null_literal(c, e->type);
    cs_col_type *dbl = cs_col_type_primitive(CS_TYPE_DOUBLE);
    cs_sql_expr *lo = cs_tc_cast(c->arena, e->args[0], dbl);
    cs_sql_expr *hi = cs_tc_cast(c->arena, e->args[1], dbl);
    cs_sql_expr *span_args[2] = {hi, lo};
    cs_sql_expr *span = cs_opt_call(c, "-", span_args, 2);
    cs_sql_expr *rand = cs_opt_call(c, "rand", e->args + 2, e->n_args - 2);
    if (!span || !rand) return e;
    cs_sql_expr *mul_args[2] = {span, rand};
    cs_sql_expr *step = cs_opt_call(c, "*", mul_args, 2);
    if (!step) return e;
    cs_sql_expr *add_args[2] = {lo, step};
    cs_sql_expr *v = cs_opt_call(c, "+", add_args, 2);
    return v ? cs_tc_cast(c->arena, v, e->type) : e;
}

static cs_sql_expr *replace_runtime_replaceable(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    e = replace_between(c, e, ud);
    return replace_uniform(c, e);
}

int cs_opt_replace_expressions(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                               cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, replace_runtime_replaceable);
}

/* ---- ConstantFolding ----------------------------------------------------------------------- */

/* The value of a foldable e, or NULL when the engine cannot compute it here (error, no kernel). */
static cs_sql_expr *evaluate(cs_opt_ctx *c, cs_sql_expr *e)
{
    cs_error err;
    cs_error_clear(&err);
    cs_pexpr *px = NULL;
    if (cs_sql_bind_expr(e, NULL, 0, &px, &err) < 0) return NULL;
    cs_col_type *schema = cs_col_type_struct(NULL, 0);
    cs_pexpr_program *prog = cs_pexpr_compile(px, schema, &err);
    cs_pexpr_free(px);
    if (!prog) {
        cs_col_type_unref(schema);
        return NULL;
    }
    cs_col_batch *one = cs_col_batch_new(schema, NULL, 0, 1, &err);
    if (!one) {
        cs_pexpr_program_free(prog);
        return NULL;
    }
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(),
                           .ansi = c->conf->ansi,
                           .session_tz = c->conf->session_tz ? c->conf->session_tz : "UTC"};
    cs_column *v = NULL;
    int rc = cs_pexpr_eval(prog, one, &ctx, &v, &err);
    cs_pexpr_program_free(prog);
    cs_col_batch_unref(one);
    if (rc < 0 || !v) return NULL;
    if (v->length != 1 || !cs_col_type_equal(v->type, e->type)) {
        cs_column_unref(v);
        return NULL;
    }
    /* a plain one-row column: a dictionary-encoded result is decoded */
    if (v->dictionary) {
        cs_column *d = cs_column_decode(v, NULL);
        cs_column_unref(v);
        v = d;
    }
    cs_sql_expr *lit = cs_sql_expr_literal(c->arena, v);
    lit->type = e->type;
    return lit;
}

static cs_sql_expr *fold(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (e->kind == CS_EX_LITERAL || !cs_opt_foldable(e)) return e;
    cs_sql_expr *lit = evaluate(c, e);
    return lit ? lit : e;
}

int cs_opt_constant_folding(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, fold);
}

/* ---- NullPropagation ----------------------------------------------------------------------- */

static bool null_intolerant_fn(const char *fn)
{
    static const char *const fns[] = {
        "=",     "<",          "<=",       ">",        ">=",    "!=",       "+",        "-",
        "*",     "/",          "%",        "div",      "not",   "negative", "positive", "like",
        "rlike", "startswith", "endswith", "contains", "upper", "lower"};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strcmp(fn, fns[i]) == 0) return true;
    return false;
}

static cs_sql_expr *null_propagate(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (e->kind == CS_EX_CAST && cs_opt_is_null_literal(e->args[0]))
        return cs_opt_null_literal(c, e->cast_type);
    if (e->kind == CS_EX_IN_LIST && cs_opt_is_null_literal(e->args[0]) && e->n_args > 1)
        return null_of(c, e);
    if (e->kind != CS_EX_FUNC || !e->fn) return e;
    if (e->n_args == 1 && !e->args[0]->nullable && strcmp(e->fn, "isnull") == 0)
        return cs_opt_bool_literal(c, false);
    if (e->n_args == 1 && !e->args[0]->nullable && strcmp(e->fn, "isnotnull") == 0)
        return cs_opt_bool_literal(c, true);
    if (strcmp(e->fn, "coalesce") == 0) {
        cs_sql_expr **kept = cs_sql_alloc(c->arena, sizeof *kept * (size_t)(e->n_args + 1));
        int n = 0;
        for (int i = 0; i < e->n_args; i++) {
            if (cs_opt_is_null_literal(e->args[i])) continue;
            kept[n++] = e->args[i];
            if (!e->args[i]->nullable) break; /* what follows is never reached */
        }
        if (n == 0) return null_of(c, e);
        if (n == 1 && cs_col_type_equal(kept[0]->type, e->type)) return kept[0];
        if (n == e->n_args) return e;
        cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
        r->args = kept;
        r->n_args = n;
        bool nullable = true;
        for (int i = 0; i < n; i++)
            nullable &= kept[i]->nullable;
        r->nullable = nullable;
        return r;
    }
    if (null_intolerant_fn(e->fn)) {
        for (int i = 0; i < e->n_args; i++)
            if (cs_opt_is_null_literal(e->args[i])) return null_of(c, e);
    }
    return e;
}

int cs_opt_null_propagation(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, null_propagate);
}

/* ---- BooleanSimplification ----------------------------------------------------------------- */

static const char *negated_comparison(const char *fn)
{
    static const char *const pairs[][2] = {{">", "<="}, {">=", "<"}, {"<", ">="}, {"<=", ">"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(fn, pairs[i][0]) == 0) return pairs[i][1];
    return NULL;
}

static bool list_has(cs_sql_expr **xs, int n, const cs_sql_expr *e)
{
    for (int i = 0; i < n; i++)
        if (cs_opt_expr_equal(xs[i], e)) return true;
    return false;
}

/* (a AND b) OR (a AND c): a AND (b OR c); (a AND b) OR a: a (Spark's common factor). */
static cs_sql_expr *common_factor_or(cs_opt_ctx *c, cs_sql_expr *e)
{
    cs_sql_expr **l, **r;
    int nl = cs_opt_split_conjuncts(c, e->args[0], &l);
    int nr = cs_opt_split_conjuncts(c, e->args[1], &r);
    if (nl == 1 && nr == 1) return e; /* a OR b: nothing in common (a OR a went before) */
    cs_sql_expr **common = cs_sql_alloc(c->arena, sizeof *common * (size_t)(nl + 1));
    cs_sql_expr **ld = cs_sql_alloc(c->arena, sizeof *ld * (size_t)(nl + 1));
    cs_sql_expr **rd = cs_sql_alloc(c->arena, sizeof *rd * (size_t)(nr + 1));
    int nc = 0, nld = 0, nrd = 0;
    for (int i = 0; i < nl; i++) {
        if (cs_opt_deterministic(l[i]) && list_has(r, nr, l[i]))
            common[nc++] = l[i];
        else
            ld[nld++] = l[i];
    }
    if (nc == 0) return e;
    for (int i = 0; i < nr; i++)
        if (!list_has(common, nc, r[i])) rd[nrd++] = r[i];
    cs_sql_expr *all = cs_opt_and_all(c, common, nc);
    if (nld == 0 || nrd == 0) return all; /* a OR (a AND b) is a */
    return cs_opt_and(c, all, cs_opt_or(c, cs_opt_and_all(c, ld, nld), cs_opt_and_all(c, rd, nrd)));
}

static cs_sql_expr *bool_simplify(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (cs_opt_is_call(e, "and", 2)) {
        cs_sql_expr *a = e->args[0], *b = e->args[1];
        if (cs_opt_is_true(a)) return b;
        if (cs_opt_is_true(b)) return a;
        if (cs_opt_is_false(a) || cs_opt_is_false(b)) return cs_opt_bool_literal(c, false);
        if (cs_opt_deterministic(a) && cs_opt_expr_equal(a, b)) return a;
        return e;
    }
    if (cs_opt_is_call(e, "or", 2)) {
        cs_sql_expr *a = e->args[0], *b = e->args[1];
        if (cs_opt_is_false(a)) return b;
        if (cs_opt_is_false(b)) return a;
        if (cs_opt_is_true(a) || cs_opt_is_true(b)) return cs_opt_bool_literal(c, true);
        if (cs_opt_deterministic(a) && cs_opt_expr_equal(a, b)) return a;
        return common_factor_or(c, e);
    }
    if (cs_opt_is_call(e, "not", 1)) {
        cs_sql_expr *x = e->args[0];
        if (cs_opt_is_true(x)) return cs_opt_bool_literal(c, false);
        if (cs_opt_is_false(x)) return cs_opt_bool_literal(c, true);
        if (cs_opt_is_call(x, "not", 1)) return x->args[0];
        if (x->kind == CS_EX_FUNC && x->fn && x->n_args == 2) {
            const char *neg = negated_comparison(x->fn);
            if (neg) {
                cs_sql_expr *r = cs_sql_expr_copy(c->arena, x);
                r->fn = neg;
                r->name = neg;
                return r;
            }
        }
        if (cs_opt_is_call(x, "isnull", 1)) return cs_opt_call(c, "isnotnull", x->args, 1);
        if (cs_opt_is_call(x, "isnotnull", 1)) return cs_opt_call(c, "isnull", x->args, 1);
    }
    return e;
}

int cs_opt_boolean_simplification(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                  cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, bool_simplify);
}

/* ---- SimplifyConditionals ------------------------------------------------------------------ */

static bool false_or_null(const cs_sql_expr *e)
{
    return cs_opt_is_false(e) || cs_opt_is_null_literal(e);
}

static cs_sql_expr *simplify_conditional(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (cs_opt_is_call(e, "if", 3)) {
        cs_sql_expr *r = NULL;
        if (cs_opt_is_true(e->args[0]))
            r = e->args[1];
        else if (false_or_null(e->args[0]))
            r = e->args[2];
        else if (cs_opt_deterministic(e->args[0]) && cs_opt_expr_equal(e->args[1], e->args[2]))
            r = e->args[1];
        if (r && cs_col_type_equal(r->type, e->type)) return r;
        return e;
    }
    if (e->kind != CS_EX_CASE || e->has_operand) return e;
    int pairs = (e->n_args - (e->has_else ? 1 : 0)) / 2;
    cs_sql_expr **args = cs_sql_alloc(c->arena, sizeof *args * (size_t)(e->n_args + 1));
    int n = 0;
    cs_sql_expr *els = e->has_else ? e->args[e->n_args - 1] : NULL;
    bool changed = false;
    for (int i = 0; i < pairs; i++) {
        cs_sql_expr *w = e->args[2 * i], *t = e->args[2 * i + 1];
        if (false_or_null(w)) {
            changed = true;
            continue;
        }
        if (cs_opt_is_true(w)) {
            if (n == 0) return cs_col_type_equal(t->type, e->type) ? t : e;
            els = t; /* the branches after an always-true one are never reached */
            changed = true;
            break;
        }
        args[n++] = w;
        args[n++] = t;
    }
    if (!changed) return e;
    if (n == 0) {
        if (els && cs_col_type_equal(els->type, e->type)) return els;
        return els ? e : null_of(c, e);
    }
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    if (els) args[n++] = els;
    r->args = args;
    r->n_args = n;
    r->has_else = els != NULL;
    return r;
}

int cs_opt_simplify_conditionals(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, simplify_conditional);
}

/* ---- SimplifyCasts ------------------------------------------------------------------------- */

static cs_sql_expr *simplify_cast(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)c;
    (void)ud;
    if (e->kind == CS_EX_CAST && e->args[0]->type && !e->typed_literal &&
        cs_col_type_equal(e->args[0]->type, e->cast_type))
        return e->args[0];
    return e;
}

int cs_opt_simplify_casts(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, simplify_cast);
}

/* ---- LikeSimplification -------------------------------------------------------------------- */

static cs_sql_expr *string_literal(cs_opt_ctx *c, const char *s, size_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    cs_col_builder_append_string(b, s, n);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *call2(cs_opt_ctx *c, const char *fn, cs_sql_expr *a, cs_sql_expr *b)
{
    cs_sql_expr *args[2] = {a, b};
    return cs_opt_call(c, fn, args, 2);
}

static cs_sql_expr *simplify_like(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (!cs_opt_is_call(e, "like", -1) || e->negated || e->n_args < 2 || e->n_args > 3) return e;
    cs_sql_expr *pat = e->args[1];
    if (pat->kind != CS_EX_LITERAL || !pat->literal || pat->literal->type->id != CS_TYPE_STRING ||
        !cs_column_is_valid(pat->literal, 0))
        return e;
    char escape = '\\';
    if (e->n_args == 3) {
        cs_sql_expr *x = e->args[2];
        int32_t len = 0;
        if (x->kind != CS_EX_LITERAL || !x->literal || x->literal->type->id != CS_TYPE_STRING)
            return e;
        const uint8_t *p = cs_column_bytes(x->literal, 0, &len);
        if (len != 1) return e;
        escape = (char)p[0];
    }
    int32_t len = 0;
    const char *s = (const char *)cs_column_bytes(pat->literal, 0, &len);
    for (int32_t i = 0; i < len; i++)
        if (s[i] == '_' || s[i] == escape) return e;
    /* the pattern's shape: [%]text[%] or text%text */
    int pct = 0, at = -1;
    for (int32_t i = 0; i < len; i++)
        if (s[i] == '%') {
            pct++;
            if (at < 0) at = i;
        }
    cs_sql_expr *x = e->args[0];
    cs_sql_expr *r = NULL;
    if (pct == 0) {
        r = call2(c, "=", x, pat);
    } else if (pct == 1 && at == len - 1 && len >= 2) {
        r = call2(c, "startswith", x, string_literal(c, s, (size_t)len - 1));
    } else if (pct == 1 && at == 0 && len >= 2) {
        r = call2(c, "endswith", x, string_literal(c, s + 1, (size_t)len - 1));
    } else if (pct == 2 && at == 0 && s[len - 1] == '%' && len >= 3) {
        r = call2(c, "contains", x, string_literal(c, s + 1, (size_t)len - 2));
    } else if (pct == 1 && at > 0 && at < len - 1) {
        /* prefix%suffix: long enough, starts and ends right */
        cs_sql_expr *lenx = cs_opt_call(c, "length", &x, 1);
        int32_t minlen = len - 1;
        cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_INT));
        cs_col_builder_append_values(b, &minlen, 1, NULL);
        cs_sql_expr *ml = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
        cs_col_builder_free(b);
        cs_sql_expr *ge = lenx ? call2(c, ">=", lenx, ml) : NULL;
        cs_sql_expr *sw = call2(c, "startswith", x, string_literal(c, s, (size_t)at));
        cs_sql_expr *ew =
            call2(c, "endswith", x, string_literal(c, s + at + 1, (size_t)(len - at - 1)));
        if (ge && sw && ew) r = cs_opt_and(c, cs_opt_and(c, ge, sw), ew);
    }
    if (!r || r->type->id != CS_TYPE_BOOLEAN) return e;
    return r;
}

int cs_opt_like_simplification(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                               cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, simplify_like);
}

/* ---- OptimizeIn ---------------------------------------------------------------------------- */

static cs_sql_expr *optimize_in(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)ud;
    if (e->kind != CS_EX_IN_LIST || e->n_args < 2) return e;
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(e->n_args + 1));
    int n = 1;
    list[0] = e->args[0];
    for (int i = 1; i < e->n_args; i++) {
        bool dup = cs_opt_deterministic(e->args[i]) && list_has(list + 1, n - 1, e->args[i]);
        if (!dup) list[n++] = e->args[i];
    }
    if (n == 2) {
        cs_sql_expr *eq = call2(c, "=", list[0], list[1]);
        if (eq && eq->type->id == CS_TYPE_BOOLEAN) return eq;
    }
    if (n == e->n_args) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    r->args = list;
    r->n_args = n;
    return r;
}

int cs_opt_optimize_in(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    return every_expression(c, p, out, optimize_in);
}

/* ---- ReplaceNullWithFalseInPredicate ------------------------------------------------------- */

/* e in a place where only true counts (a filter or join condition, an operand of AND / OR
 * there, a branch of a boolean IF / CASE there). */
static cs_sql_expr *null_to_false(cs_opt_ctx *c, cs_sql_expr *e)
{
    if (!e || e->type == NULL || e->type->id != CS_TYPE_BOOLEAN) {
        if (e && cs_opt_is_null_literal(e)) return cs_opt_bool_literal(c, false);
        return e;
    }
    if (cs_opt_is_null_literal(e)) return cs_opt_bool_literal(c, false);
    bool is_andor = cs_opt_is_call(e, "and", 2) || cs_opt_is_call(e, "or", 2);
    bool is_if = cs_opt_is_call(e, "if", 3);
    bool is_case = e->kind == CS_EX_CASE && !e->has_operand;
    if (!is_andor && !is_if && !is_case) return e;
    cs_sql_expr *r = NULL;
    for (int i = 0; i < e->n_args; i++) {
        cs_sql_expr *x = null_to_false(c, e->args[i]);
        if (x == e->args[i]) continue;
        if (!r) r = cs_sql_expr_copy(c->arena, e);
        r->args[i] = x;
    }
    return r ? r : e;
}

static cs_logical_plan *null_to_false_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if ((p->kind != CS_LP_FILTER && p->kind != CS_LP_JOIN) || !p->condition) return p;
    cs_sql_expr *x = null_to_false(c, p->condition);
    if (x == p->condition) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->condition = x;
    return r;
}

int cs_opt_replace_null_with_false(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                   cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, null_to_false_node, NULL);
    return 0;
}

/* ---- PruneFilters -------------------------------------------------------------------------- */

static cs_logical_plan *prune_filter(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_FILTER) return p;
    if (cs_opt_is_true(p->condition)) return p->children[0];
    if (false_or_null(p->condition)) return cs_opt_empty_relation(c, p);
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, p->condition, &conj), k = 0;
    for (int i = 0; i < n; i++)
        if (!cs_opt_is_true(conj[i])) conj[k++] = conj[i];
    if (k == n) return p;
    if (k == 0) return p->children[0];
    return cs_opt_filter(c, cs_opt_and_all(c, conj, k), p->children[0]);
}

int cs_opt_prune_filters(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, prune_filter, NULL);
    return 0;
}
