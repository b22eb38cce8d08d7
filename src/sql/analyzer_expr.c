/*
 * analyzer_expr.c — resolving expressions (see analyzer_internal.h): names against a scope of
 * attributes (qualified or not, case-insensitive as Spark's default spark.sql.caseSensitive
 * =false), then the enclosing queries' scopes (outer references); functions through the
 * registry; casts, CASE, IN, subqueries, sort orders and window specifications.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sql/analyzer_internal.h"

void cs_an_push(cs_an_ctx *c, cs_sql_expr ***list, int *n, int *cap, cs_sql_expr *e)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        cs_sql_expr **l = cs_sql_alloc(c->a, sizeof *l * (size_t)nc);
        if (*n) memcpy(l, *list, sizeof *l * (size_t)*n);
        *list = l;
        *cap = nc;
    }
    (*list)[(*n)++] = e;
}

void cs_an_sql_id(const char *const *parts, int n, cs_sbuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_putc(out, '.');
        cs_sbuf_putc(out, '`');
        for (const char *p = parts[i]; *p; p++) {
            if (*p == '`') cs_sbuf_putc(out, '`');
            cs_sbuf_putc(out, *p);
        }
        cs_sbuf_putc(out, '`');
    }
}

cs_sql_expr *cs_an_int_literal(cs_an_ctx *c, int32_t v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_INT));
    cs_col_builder_append_values(b, &v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *decimal_zero(cs_an_ctx *c, int precision, int scale)
{
    __int128 zero = 0;
    cs_col_type *t = cs_col_type_decimal(precision, scale, NULL);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_type_unref(t);
    cs_col_builder_append_values(b, &zero, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *bool_literal(cs_an_ctx *c, bool v)
{
    uint8_t byte = v;
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    cs_col_builder_append_values(b, &byte, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *null_literal(cs_an_ctx *c)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_NULL));
    cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->nullable = true;
    return e;
}

bool cs_an_contains(const cs_sql_expr *e, cs_sql_expr_kind kind)
{
    if (!e) return false;
    if (e->kind == kind) return true;
    for (int i = 0; i < e->n_args; i++)
        if (cs_an_contains(e->args[i], kind)) return true;
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            if (cs_an_contains(e->window->partition[i], kind)) return true;
        for (int i = 0; i < e->window->n_order; i++)
            if (cs_an_contains(e->window->order[i], kind)) return true;
    }
    return false;
}

bool cs_an_contains_agg(const cs_sql_expr *e)
{
    if (!e) return false;
    if (e->kind == CS_EX_AGG || cs_sql_expr_is_python_agg(e)) return true;
    if (e->kind == CS_EX_WINDOW) {
        /* the window function itself is not an aggregate of the query; its inputs may be */
        const cs_sql_expr *f = e->args[0];
        for (int i = 0; i < f->n_args; i++)
            if (cs_an_contains_agg(f->args[i])) return true;
        for (int i = 0; i < e->window->n_partition; i++)
            if (cs_an_contains_agg(e->window->partition[i])) return true;
        for (int i = 0; i < e->window->n_order; i++)
            if (cs_an_contains_agg(e->window->order[i])) return true;
        return false;
    }
    for (int i = 0; i < e->n_args; i++)
        if (cs_an_contains_agg(e->args[i])) return true;
    return false;
}

bool cs_an_equal(const cs_sql_expr *x, const cs_sql_expr *y)
{
    if (x == y) return true;
    if (!x || !y) return false;
    /* an implicit cast is not part of the expression as written */
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case CS_EX_ATTR:
    case CS_EX_OUTER_ATTR:
        return x->id == y->id;
    case CS_EX_LITERAL:
        return cs_col_type_equal(x->type, y->type) && cs_column_equal(x->literal, y->literal);
    case CS_EX_FUNC:
    case CS_EX_AGG:
        if (strcmp(x->fn, y->fn) != 0 || x->distinct != y->distinct) return false;
        break;
    case CS_EX_CAST:
        if (!cs_col_type_equal(x->cast_type, y->cast_type)) return false;
        break;
    case CS_EX_ALIAS:
        return cs_an_equal(x->args[0], y->args[0]);
    case CS_EX_IN_LIST:
    case CS_EX_CASE:
        if (x->has_else != y->has_else || x->has_operand != y->has_operand) return false;
        break;
    case CS_EX_SORT_ORDER:
        if (x->descending != y->descending || x->nulls_first != y->nulls_first) return false;
        break;
    case CS_EX_PYTHON_UDF: /* the same function (its pickled command) */
        if (x->python_udf != y->python_udf &&
            (x->python_udf->command_len != y->python_udf->command_len ||
             memcmp(x->python_udf->command, y->python_udf->command, x->python_udf->command_len) !=
                 0))
            return false;
        break;
    default:
        return false; /* windows and subqueries: never merged */
    }
    if (x->n_args != y->n_args) return false;
    for (int i = 0; i < x->n_args; i++)
        if (!cs_an_equal(x->args[i], y->args[i])) return false;
    return true;
}

/* The attribute's qualifier ends with q[0..k). */
static bool qualifier_matches(const cs_sql_expr *attr, const char *const *q, int k)
{
    if (attr->n_parts < k) return false;
    for (int i = 0; i < k; i++)
        if (!cs_str_ieq(attr->parts[attr->n_parts - k + i], q[i])) return false;
    return true;
}

int cs_an_lookup(cs_an_ctx *c, const char *const *parts, int n, const cs_an_scope *s,
                 cs_sql_expr **out)
{
    cs_sql_expr *found[16];
    int nf = 0;
    for (int k = n - 1 < 3 ? n - 1 : 3; k >= 1 && nf == 0; k--) {
        if (k != n - 1) continue; /* nested struct fields are not resolved here */
        for (int i = 0; i < s->n; i++) {
            cs_sql_expr *a = s->attrs[i];
            if (cs_str_ieq(a->name, parts[k]) && qualifier_matches(a, parts, k) && nf < 16)
                found[nf++] = a;
        }
    }
    if (nf == 0 && n == 1) {
        for (int i = 0; i < s->n; i++)
            if (cs_str_ieq(s->attrs[i]->name, parts[0]) && nf < 16) found[nf++] = s->attrs[i];
    }
    /* the same attribute twice (t.* twice in a list) is not ambiguous */
    int distinct = 0;
    for (int i = 0; i < nf; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= found[j]->id == found[i]->id;
        if (!dup) found[distinct++] = found[i];
    }
    if (distinct == 0) return 0;
    if (distinct == 1) {
        *out = found[0];
        return 1;
    }
    cs_sbuf name = {0}, refs = {0};
    cs_an_sql_id(parts, n, &name);
    cs_sbuf_putc(&refs, '[');
    for (int i = 0; i < distinct; i++) {
        if (i) cs_sbuf_puts(&refs, ", ");
        const char *full[8];
        int m = 0;
        for (int j = 0; j < found[i]->n_parts && m < 7; j++)
            full[m++] = found[i]->parts[j];
        full[m++] = found[i]->name;
        cs_an_sql_id(full, m, &refs);
    }
    cs_sbuf_putc(&refs, ']');
    cs_sql_error_set(c->err, CS_EINVAL, "AMBIGUOUS_REFERENCE", "42704",
                     "Reference %s is ambiguous, could be: %s.", cs_sbuf_str(&name),
                     cs_sbuf_str(&refs));
    cs_sbuf_free(&name);
    cs_sbuf_free(&refs);
    return -1;
}

int cs_an_expand_star(cs_an_ctx *c, const cs_sql_expr *star, const cs_an_scope *s,
                      cs_sql_expr ***list, int *n, int *cap)
{
    int added = 0;
    cs_sql_expr *except[64];
    int n_except = 0;
    for (int i = 0; i < star->n_args && n_except < 64; i++) { /* * EXCEPT (a, b) */
        const cs_sql_expr *x = star->args[i];
        if (x->kind != CS_EX_UNRESOLVED_ATTR) continue;
        int rc = cs_an_lookup(c, x->parts, x->n_parts, s, &except[n_except]);
        if (rc < 0) return CS_EINVAL;
        if (rc == 0) return cs_an_unresolved_column(c, x, s);
        n_except++;
    }
    /* a qualified star: the input's hidden join keys of that qualifier first, as Spark's
     * UnresolvedStar.expand takes hiddenOutput ++ output */
    int n_hidden = star->n_parts ? s->n_hidden : 0;
    for (int i = 0; i < n_hidden + s->n; i++) {
        cs_sql_expr *a = i < n_hidden ? s->hidden[i] : s->attrs[i - n_hidden];
        if (star->n_parts && !qualifier_matches(a, star->parts, star->n_parts)) continue;
        bool skip = false;
        for (int j = 0; j < n_except; j++)
            skip |= except[j]->id == a->id;
        if (skip) continue;
        cs_an_push(c, list, n, cap, a);
        added++;
    }
    if (added == 0 && star->n_parts) {
        cs_sbuf name = {0}, cols = {0};
        cs_an_sql_id(star->parts, star->n_parts, &name);
        for (int i = 0; i < s->n; i++) {
            if (i) cs_sbuf_puts(&cols, ", ");
            cs_an_sql_id(&s->attrs[i]->name, 1, &cols);
        }
        return cs_sql_error_set(c->err, CS_EINVAL, "CANNOT_RESOLVE_STAR_EXPAND", "42704",
                                "Cannot resolve %s.* given input columns %s. Please check that "
                                "the specified table or struct exists and is accessible in the "
                                "input columns.",
                                cs_sbuf_str(&name), cs_sbuf_str(&cols));
    }
    return 0;
}

static cs_sql_expr *resolved_copy(cs_an_ctx *c, const cs_sql_expr *e, int n_args)
{
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    if (n_args != e->n_args) {
        r->n_args = n_args;
        r->args = n_args ? cs_sql_alloc(c->a, sizeof *r->args * (size_t)n_args) : NULL;
    }
    return r;
}

static cs_sql_expr *wrap_not(cs_an_ctx *c, cs_sql_expr *e)
{
    cs_sql_expr *args[1] = {e};
    return cs_fn_resolve(c->a, cs_fn_lookup("not"), NULL, args, 1, c->err);
}

static cs_sql_expr *fail_null(int rc)
{
    (void)rc;
    return NULL;
}

static bool is_ranking(const char *fn)
{
    return strcmp(fn, "row_number") == 0 || strcmp(fn, "rank") == 0 ||
           strcmp(fn, "dense_rank") == 0 || strcmp(fn, "percent_rank") == 0 ||
           strcmp(fn, "cume_dist") == 0 || strcmp(fn, "ntile") == 0;
}

static cs_sql_expr *resolve_function(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                     int flags);

/* percentile_cont(p) / percentile_disc(p) WITHIN GROUP (ORDER BY x): Spark's PercentileCont
 * (percentile(x, p)) and PercentileDisc (canonical name percentile_disc); not yet in
 * descending order. */
static cs_sql_expr *resolve_within_group(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                         int flags)
{
    bool cont = cs_str_ieq(e->name, "percentile_cont"),
         disc = cs_str_ieq(e->name, "percentile_disc");
    const cs_sql_expr *order = e->within_group;
    if ((!cont && !disc) || e->n_args != 1 || order->descending) {
        cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                         "The feature is not supported: %s(...) WITHIN GROUP (ORDER BY ...%s).",
                         e->name, order->descending ? " DESC" : "");
        return NULL;
    }
    cs_sql_expr *call = cs_sql_expr_copy(c->a, e);
    call->name = "percentile";
    call->within_group = NULL;
    call->n_args = 2;
    call->args = cs_sql_alloc(c->a, sizeof *call->args * 2);
    call->args[0] = order->args[0];
    call->args[1] = e->args[0];
    cs_sql_expr *r = resolve_function(c, call, s, flags);
    if (!r || r->kind != CS_EX_AGG) return r;
    r->name = e->name;
    if (disc) r->fn = "percentile_disc";
    cs_sql_expr *o = cs_sql_expr_copy(c->a, order);
    o->args = cs_sql_alloc(c->a, sizeof *o->args);
    o->args[0] = r->args[0];
    o->n_args = 1;
    r->within_group = o;
    return r;
}

static cs_sql_expr *resolve_function(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                     int flags)
{
    if (e->within_group) return resolve_within_group(c, e, s, flags);
    if (cs_an_is_higher_order(e)) return cs_an_higher_order(c, e, s, flags);
    if (cs_str_ieq(e->name, "json_tuple")) return cs_an_json_tuple(c, e, s, flags);
    /* a temporary function (a Python UDF registered by name) before a builtin of its name */
    const cs_catalog_function *tf =
        e->distinct ? NULL : cs_catalog_lookup_function(c->cat, e->name);
    if (tf) {
        cs_sql_expr *call = cs_sql_expr_new(c->a, CS_EX_PYTHON_UDF, e->n_args);
        call->name = cs_sql_strdup(c->a, tf->name);
        call->python_udf = tf->udf;
        call->type = tf->type;
        for (int i = 0; i < e->n_args; i++)
            call->args[i] = e->args[i];
        return cs_an_expr(c, call, s, flags);
    }
    const cs_fn_info *f =
        cs_fn_lookup(e->n_args == 1 && strcmp(e->name, "-") == 0 ? "negative" : e->name);
    if (!f && e->table_function) f = cs_fn_lookup_table_function(e->name);
    /* a persistent function: f of the current database, db.f or spark_catalog.db.f */
    const cs_catalog_function *pf = NULL;
    const char *dot = f ? NULL : strrchr(e->name, '.');
    if (!f && !dot) {
        pf = cs_catalog_lookup_persistent_function(c->cat, cs_catalog_current_database(c->cat),
                                                   e->name);
    } else if (dot) {
        const char *db = e->name;
        if (strncasecmp(db, "spark_catalog.", 14) == 0 && db + 13 != dot) db += 14;
        char *d = cs_sql_strndup(c->a, db, (size_t)(dot - db));
        pf = cs_catalog_lookup_persistent_function(c->cat, d, dot + 1);
    }
    if (pf) { /* a persistent function: its JVM class cannot be loaded here */
        cs_sql_error_set(c->err, CS_EINVAL, "CANNOT_LOAD_FUNCTION_CLASS", "46103",
                         "Cannot load class %s when registering the function "
                         "`spark_catalog`.`%s`.`%s`, please make sure it is on the classpath.",
                         pf->class_name, pf->database, pf->name);
        return NULL;
    }
    if (!f) {
        const char *n = e->name;
        cs_catalog_unresolved_routine_error(c->cat, &n, 1, c->err);
        return NULL;
    }
    if (f->kind == CS_FN_AGGREGATE && (flags & CS_AN_IN_AGG)) {
        cs_sql_error_set(c->err, CS_EINVAL, "NESTED_AGGREGATE_FUNCTION", "42607",
                         "It is not allowed to use an aggregate function in the argument of "
                         "another aggregate function. Please use the inner aggregate function in "
                         "a sub-query.");
        return NULL;
    }
    if (f->kind == CS_FN_AGGREGATE && !(flags & CS_AN_ALLOW_AGG)) {
        /* Spark names the resolved call, attributes qualified: "sum(t.a)" */
        cs_error quiet;
        cs_error *saved = c->err;
        c->err = &quiet;
        cs_sql_expr *r = resolve_function(c, e, s, flags | CS_AN_ALLOW_AGG);
        c->err = saved;
        cs_sbuf x = {0};
        if (r)
            cs_sql_expr_sql(r, &x);
        else
            cs_sql_expr_pretty_name(e, &x);
        cs_sql_error_set(c->err, CS_EINVAL, "GROUP_BY_AGGREGATE", "42903",
                         "Aggregate functions are not allowed in GROUP BY, but found %s.",
                         cs_sbuf_str(&x));
        cs_sbuf_free(&x);
        return NULL;
    }
    int n = e->n_args;
    cs_sql_expr *args[64];
    if (n > 60) n = 60;
    int inner = (flags & ~CS_AN_ALLOW_AGG & ~CS_AN_ALLOW_WINDOW & ~CS_AN_WINDOW_FN) |
                (f->kind == CS_FN_AGGREGATE ? CS_AN_IN_AGG : (flags & CS_AN_ALLOW_AGG));
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (e->args[i]->kind == CS_EX_STAR && strcmp(f->canonical, "count") == 0) {
            args[k++] = cs_an_int_literal(c, 1); /* count(*) is count(1) */
            continue;
        }
        if (!(args[k++] = cs_an_expr(c, e->args[i], s, inner))) return NULL;
    }
    n = k;
    if (strcmp(f->canonical, "substring") == 0 && n == 2)
        args[n++] = cs_an_int_literal(c, 2147483647);
    if (strcmp(f->canonical, "split") == 0 && n == 2) args[n++] = cs_an_int_literal(c, -1);
    if (strcmp(f->canonical, "regexp_extract") == 0 && n == 2) args[n++] = cs_an_int_literal(c, 1);
    if (strcmp(f->canonical, "percentile_approx") == 0 && n == 2)
        args[n++] = cs_an_int_literal(c, 10000);
    /* the defaults Spark's constructors add, so that they are in the column name too:
     * round(x, 0), locate(s, t, 1), lpad(s, n, ' '), replace(s, t, ''), ... */
    const char *fn = f->canonical;
    if ((strcmp(fn, "round") == 0 || strcmp(fn, "bround") == 0) && n == 1)
        args[n++] = cs_an_int_literal(c, 0);
    if ((strcmp(fn, "locate") == 0 && n == 2) || (strcmp(fn, "regexp_replace") == 0 && n == 3))
        args[n++] = cs_an_int_literal(c, 1);
    if ((strcmp(fn, "lpad") == 0 || strcmp(fn, "rpad") == 0) && n == 2)
        args[n++] = cs_sql_expr_string_literal(c->a, " ");
    if (strcmp(fn, "replace") == 0 && n == 2) args[n++] = cs_sql_expr_string_literal(c->a, "");
    if (strcmp(fn, "months_between") == 0 && n == 2) args[n++] = bool_literal(c, true);
    if ((strcmp(fn, "element_at") == 0 || strcmp(fn, "try_element_at") == 0) && n == 2) {
        const cs_col_type *t = args[0]->type; /* a map's key type, an array's int index */
        cs_col_type *want =
            t->id == CS_TYPE_MAP ? t->fields[0].type : cs_col_type_primitive(CS_TYPE_INT);
        if ((t->id == CS_TYPE_MAP || t->id == CS_TYPE_ARRAY) && args[1]->type->id != want->id &&
            cs_tc_can_implicit_cast(args[1]->type, want))
            args[1] = cs_tc_cast(c->a, args[1], want);
    }
    if (strcmp(fn, "sort_array") == 0 && n == 1) args[n++] = bool_literal(c, true);
    if (strcmp(fn, "make_ym_interval") == 0)
        while (n < 2)
            args[n++] = cs_an_int_literal(c, 0);
    if (strcmp(fn, "make_interval") == 0) { /* (0, 0, 0, 0, 0, 0, 0.000000) */
        while (n < 6)
            args[n++] = cs_an_int_literal(c, 0);
        if (n == 6) args[n++] = decimal_zero(c, 18, 6);
    }
    if (strcmp(fn, "make_dt_interval") == 0) { /* (0, 0, 0, 0.000000) */
        while (n < 3)
            args[n++] = cs_an_int_literal(c, 0);
        if (n == 3) args[n++] = decimal_zero(c, 18, 6);
    }
    if (strcmp(fn, "regexp_instr") == 0 && n == 2) args[n++] = cs_an_int_literal(c, 0);
    if (strcmp(fn, "overlay") == 0 && n == 3) args[n++] = cs_an_int_literal(c, -1);
    if (strcmp(fn, "str_to_map") == 0 && n == 1) args[n++] = cs_sql_expr_string_literal(c->a, ",");
    if (strcmp(fn, "str_to_map") == 0 && n == 2) args[n++] = cs_sql_expr_string_literal(c->a, ":");
    if ((strcmp(fn, "unix_timestamp") == 0 || strcmp(fn, "from_unixtime") == 0 ||
         strcmp(fn, "to_unix_timestamp") == 0) &&
        n == 1)
        args[n++] = cs_sql_expr_string_literal(c->a, "yyyy-MM-dd HH:mm:ss");
    if (strcmp(fn, "regexp_extract_all") == 0 && n == 2) args[n++] = cs_an_int_literal(c, 1);
    if (strcmp(fn, "percentile") == 0 && n == 2) args[n++] = cs_an_int_literal(c, 1);
    while (strcmp(fn, "sentences") == 0 && n < 3) /* sentences(s, '', ''): Locale's defaults */
        args[n++] = cs_sql_expr_string_literal(c->a, "");
    if (strcmp(fn, "mask") == 0) { /* mask(s, 'X', 'x', 'n', NULL) */
        static const char *const masks[] = {"X", "x", "n"};
        while (n < 4)
            args[n] = cs_sql_expr_string_literal(c->a, masks[n - 1]), n++;
        if (n == 4) args[n++] = null_literal(c);
    }
    if (strcmp(fn, "log") == 0 && n == 1) { /* Spark's Logarithm(E(), x): LOG(E(), x) */
        args[1] = args[0];
        args[0] = cs_fn_resolve(c->a, cs_fn_lookup("e"), NULL, NULL, 0, c->err);
        n = 2;
    }
    if ((strcmp(f->canonical, "lag") == 0 || strcmp(f->canonical, "lead") == 0)) {
        if (n == 1) args[n++] = cs_an_int_literal(c, 1);
        if (n == 2) args[n++] = null_literal(c);
    }
    /* Spark's NullIfZero / ZeroIfNull (RuntimeReplaceable): nullif(x, 0) / nvl(x, 0), named
     * after the one argument written (plan_print.c) */
    if ((strcmp(f->name, "nullifzero") == 0 || strcmp(f->name, "zeroifnull") == 0) && n == 1) {
        args[n++] = cs_an_int_literal(c, 0);
        f = cs_fn_lookup(f->name[0] == 'n' ? "nullif" : "nvl");
    }
    if (strcmp(fn, "array") == 0) cs_an_legacy_array_coercion(c, args, n);
    cs_sql_expr *call = cs_sql_expr_copy(c->a, e);
    /* first(x, true): Spark's ignoreNulls is a flag, not an argument (nor in the name) */
    if ((strcmp(fn, "first") == 0 || strcmp(fn, "last") == 0 || strcmp(fn, "any_value") == 0) &&
        n == 2 && args[1]->kind == CS_EX_LITERAL && args[1]->literal &&
        args[1]->literal->type->id == CS_TYPE_BOOLEAN && args[1]->literal->null_count == 0) {
        call->ignore_nulls = call->ignore_nulls || cs_bit_get(args[1]->literal->values, 0);
        n = 1;
    }
    if (call->filter) {
        call->filter = cs_an_expr(c, e->filter, s, flags & ~CS_AN_ALLOW_AGG);
        if (!call->filter) return NULL;
    }
    if (strcmp(f->canonical, "!=") == 0) {
        cs_sql_expr *eq = cs_fn_resolve(c->a, cs_fn_lookup("="), NULL, args, n, c->err);
        return eq ? wrap_not(c, eq) : NULL;
    }
    cs_sql_expr *r = cs_fn_resolve(c->a, f, call, args, n, c->err);
    /* CheckAnalysis: an aggregate (not a window's) over a non-deterministic argument */
    if (r && f->kind == CS_FN_AGGREGATE && !(flags & CS_AN_WINDOW_FN))
        for (int i = 0; i < r->n_args; i++) {
            if (cs_sql_expr_deterministic(r->args[i])) continue;
            cs_sbuf x = {0};
            cs_fn_sql_expr_quoted(r, &x);
            cs_sql_error_set(c->err, CS_EINVAL,
                             "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION", "42845",
                             "Non-deterministic expression %s should not appear in the "
                             "arguments of an aggregate function.",
                             cs_sbuf_str(&x));
            cs_sbuf_free(&x);
            return NULL;
        }
    /* percentile_approx(x, array(...)): an array of x's type (Spark's ApproximatePercentile) */
    if (r && strcmp(f->canonical, "percentile_approx") == 0 && n > 1 &&
        args[1]->type->id == CS_TYPE_ARRAY && r->type->id != CS_TYPE_ARRAY)
        r->type =
            cs_sql_arena_keep_type(c->a, cs_col_type_array(cs_col_type_ref(args[0]->type), false));
    /* collect_list / collect_set: array<T> without nulls (Spark's containsNull = false) */
    if (r && n == 1 &&
        (strcmp(f->canonical, "collect_list") == 0 || strcmp(f->canonical, "collect_set") == 0))
        r->type =
            cs_sql_arena_keep_type(c->a, cs_col_type_array(cs_col_type_ref(args[0]->type), false));
    if (r && f->kind == CS_FN_WINDOW && !(flags & CS_AN_WINDOW_FN)) {
        cs_sql_error_set(c->err, CS_EINVAL, "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE", "42601",
                         "Window function \"%s\" requires an OVER clause.", e->name);
        return NULL;
    }
    return r;
}

static void default_frame(cs_an_ctx *c, cs_window_spec *w, const cs_sql_expr *fn, bool aggregate)
{
    if (w->has_frame) return;
    w->has_frame = true;
    bool lag = strcmp(fn->fn, "lag") == 0;
    if (!aggregate && (lag || strcmp(fn->fn, "lead") == 0)) {
        /* Spark's offset frame: lag(x, k) reads row -k, lead(x, k) row +k */
        int64_t k = 1;
        const cs_sql_expr *o = fn->n_args > 1 ? fn->args[1] : NULL;
        if (o && o->kind == CS_EX_CAST) o = o->args[0];
        if (o && o->kind == CS_EX_LITERAL && o->type->id == CS_TYPE_INT && !o->literal->null_count)
            k = ((const int32_t *)o->literal->values)[0];
        w->frame_type = CS_FRAME_ROWS;
        w->lower.kind = w->upper.kind = CS_BOUND_FOLLOWING;
        w->lower.offset = w->upper.offset = cs_an_int_literal(c, (int32_t)(lag ? -k : k));
        return;
    }
    if (!aggregate && is_ranking(fn->fn)) {
        w->frame_type = CS_FRAME_ROWS;
        w->lower.kind = CS_BOUND_UNBOUNDED_PRECEDING;
        w->upper.kind = CS_BOUND_CURRENT_ROW;
        return;
    }
    if (w->n_order) {
        w->frame_type = CS_FRAME_RANGE;
        w->lower.kind = CS_BOUND_UNBOUNDED_PRECEDING;
        w->upper.kind = CS_BOUND_CURRENT_ROW;
    } else {
        w->frame_type = CS_FRAME_ROWS;
        w->lower.kind = CS_BOUND_UNBOUNDED_PRECEDING;
        w->upper.kind = CS_BOUND_UNBOUNDED_FOLLOWING;
    }
}

static cs_sql_expr *resolve_window(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                   int flags)
{
    if (!(flags & CS_AN_ALLOW_WINDOW)) {
        cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_EXPR_FOR_OPERATOR", "42K0E",
                         "A query operator contains one or more unsupported expressions. "
                         "Consider to rewrite it to avoid window functions, aggregate functions, "
                         "and generator functions in the WHERE clause.");
        return NULL;
    }
    const cs_sql_expr *fe = e->args[0];
    cs_sql_expr *fn = NULL;
    int inner = flags & ~CS_AN_ALLOW_WINDOW;
    if (fe->kind == CS_EX_UNRESOLVED_FUNC) {
        const cs_fn_info *f = cs_fn_lookup(fe->name);
        if (f && (f->kind == CS_FN_AGGREGATE || f->kind == CS_FN_WINDOW)) {
            /* the window function itself: aggregates allowed at its top, windows not nested */
            fn = resolve_function(c, fe, s,
                                  inner | CS_AN_ALLOW_AGG | CS_AN_ALLOW_WINDOW | CS_AN_WINDOW_FN);
            if (fn && fn->kind == CS_EX_AGG) {
                for (int i = 0; i < fn->n_args; i++)
                    if (cs_an_contains(fn->args[i], CS_EX_AGG) && !(flags & CS_AN_ALLOW_AGG)) {
                        cs_sql_error_set(c->err, CS_EINVAL, "NESTED_AGGREGATE_FUNCTION", "42607",
                                         "It is not allowed to use an aggregate function in the "
                                         "argument of another aggregate function. Please use the "
                                         "inner aggregate function in a sub-query.");
                        return NULL;
                    }
            }
        } else if (f) {
            cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_EXPR_FOR_WINDOW", "42P20",
                             "Expression \"%s\" not supported within a window function.", fe->name);
            return NULL;
        } else {
            fn = resolve_function(c, fe, s, inner);
        }
    } else {
        fn = cs_an_expr(c, fe, s, inner);
    }
    if (!fn) return NULL;
    cs_sql_expr *r = resolved_copy(c, e, 1);
    r->args[0] = fn;
    cs_window_spec *w = cs_sql_alloc(c->a, sizeof *w);
    *w = *e->window;
    w->partition =
        w->n_partition ? cs_sql_alloc(c->a, sizeof *w->partition * (size_t)w->n_partition) : NULL;
    w->order = w->n_order ? cs_sql_alloc(c->a, sizeof *w->order * (size_t)w->n_order) : NULL;
    for (int i = 0; i < w->n_partition; i++)
        if (!(w->partition[i] = cs_an_expr(c, e->window->partition[i], s, inner))) return NULL;
    for (int i = 0; i < w->n_order; i++)
        if (!(w->order[i] = cs_an_expr(c, e->window->order[i], s, inner))) return NULL;
    if (fn->fn) default_frame(c, w, fn, fn->kind == CS_EX_AGG);
    r->window = w;
    r->type = fn->type;
    r->nullable = fn->nullable;
    r->resolved = true;
    return r;
}

static cs_logical_plan *resolve_subquery(cs_an_ctx *c, const cs_logical_plan *q,
                                         const cs_an_scope *s)
{
    const cs_an_scope *saved = c->outer;
    c->outer = s;
    cs_logical_plan *r = cs_an_plan(c, q);
    c->outer = saved;
    return r;
}

static cs_sql_expr *resolve_extract_value(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                          int flags);

static cs_sql_expr *resolve_name(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s)
{
    cs_sql_expr *a = NULL;
    const cs_sql_expr *var = c->lambdas ? cs_an_lambda_lookup(c, e->parts[0]) : NULL;
    if (var) { /* a lambda's variable hides a column; x.f: a field of it */
        cs_sql_expr *x = (cs_sql_expr *)var;
        for (int i = 1; i < e->n_parts; i++) {
            cs_sql_expr *get = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2);
            get->args[0] = x;
            get->args[1] = cs_sql_expr_string_literal(c->a, e->parts[i]);
            if (!(x = resolve_extract_value(c, get, s, 0))) return NULL;
        }
        return x;
    }
    int rc = cs_an_lookup(c, e->parts, e->n_parts, s, &a);
    if (rc < 0) return NULL;
    if (rc > 0) {
        const char *written = e->parts[e->n_parts - 1];
        if (strcmp(written, a->name) == 0) return a;
        cs_sql_expr *r = cs_sql_expr_copy(c->a, a); /* Spark names it as written: `A` */
        r->name = written;
        return r;
    }
    /* s.a.b: a column s (possibly qualified) and fields of its struct, named after the last
     * field as Spark's Alias(GetStructField(...), "b") */
    for (int m = e->n_parts - 1; m >= 1; m--) {
        if (cs_an_lookup(c, e->parts, m, s, &a) <= 0 || a->type->id != CS_TYPE_STRUCT) continue;
        cs_sql_expr *x = a;
        for (int i = m; i < e->n_parts; i++) {
            cs_sql_expr *get = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2);
            get->args[0] = x;
            get->args[1] = cs_sql_expr_string_literal(c->a, e->parts[i]);
            if (!(x = resolve_extract_value(c, get, s, 0))) return NULL;
        }
        cs_sql_expr *al = cs_sql_expr_new(c->a, CS_EX_ALIAS, 1);
        al->args[0] = x;
        al->name = e->parts[e->n_parts - 1];
        al->type = x->type;
        al->nullable = x->nullable;
        al->id = cs_catalog_next_expr_id(c->cat);
        al->resolved = true;
        return al;
    }
    int depth = 0;
    for (const cs_an_scope *o = s->outer; o; o = o->outer, depth++) {
        rc = cs_an_lookup(c, e->parts, e->n_parts, o, &a);
        if (rc < 0) return NULL;
        if (rc > 0) {
            cs_sql_expr *r = cs_sql_expr_copy(c->a, a);
            r->kind = CS_EX_OUTER_ATTR;
            return r;
        }
    }
    cs_an_unresolved_column(c, e, s);
    return NULL;
}

static cs_sql_expr *resolve_case(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                 int flags)
{
    cs_sql_expr *r = resolved_copy(c, e, e->n_args);
    for (int i = 0; i < e->n_args; i++)
        if (!(r->args[i] = cs_an_expr(c, e->args[i], s, flags))) return NULL;
    int first = e->has_operand ? 1 : 0;
    int end = e->n_args - (e->has_else ? 1 : 0);
    cs_sql_expr *values[128];
    int nv = 0;
    if (e->has_operand) {
        cs_sql_expr *keys[128];
        int nk = 0;
        keys[nk++] = r->args[0];
        for (int i = first; i < end && nk < 127; i += 2)
            keys[nk++] = r->args[i];
        if (!cs_fn_coerce_common(c->a, keys, nk)) goto mismatch;
        r->args[0] = keys[0];
        nk = 1;
        for (int i = first; i < end && nk < 127; i += 2)
            r->args[i] = keys[nk++];
    } else {
        for (int i = 0; i < end; i += 2) {
            cs_sql_expr *w = r->args[i];
            if (w->type->id == CS_TYPE_NULL)
                w = cs_tc_cast(c->a, w, cs_col_type_primitive(CS_TYPE_BOOLEAN));
            if (w->type->id != CS_TYPE_BOOLEAN) {
                cs_sbuf x = {0}, t = {0};
                cs_fn_sql_expr_quoted(r, &x);
                cs_tc_type_sql(w->type, &t);
                cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                                 "42K09",
                                 "Cannot resolve %s due to data type mismatch: The %d parameter "
                                 "requires the \"BOOLEAN\" type, however \"%s\" has the type "
                                 "\"%s\".",
                                 cs_sbuf_str(&x), i + 1, "when", cs_sbuf_str(&t));
                cs_sbuf_free(&x);
                cs_sbuf_free(&t);
                return NULL;
            }
            r->args[i] = w;
        }
    }
    for (int i = first + 1; i < end && nv < 127; i += 2)
        values[nv++] = r->args[i];
    if (e->has_else) values[nv++] = r->args[e->n_args - 1];
    cs_col_type *t = cs_fn_coerce_common(c->a, values, nv);
    if (!t) goto mismatch;
    nv = 0;
    bool nullable = !e->has_else;
    for (int i = first + 1; i < end; i += 2) {
        r->args[i] = values[nv++];
        nullable |= r->args[i]->nullable;
    }
    if (e->has_else) {
        r->args[e->n_args - 1] = values[nv];
        nullable |= values[nv]->nullable;
    }
    r->type = t;
    r->nullable = nullable;
    r->resolved = true;
    return r;
mismatch : {
    cs_sbuf x = {0};
    cs_fn_sql_expr_quoted(r, &x);
    cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.DATA_DIFF_TYPES", "42K09",
                     "Cannot resolve %s due to data type mismatch: Input to `casewhen` should "
                     "all be the same type.",
                     cs_sbuf_str(&x));
    cs_sbuf_free(&x);
    return NULL;
}
}

/* Spark's ExtractValue for x[k] and f(x).field: by x's type GetArrayItem (an integral index,
 * element type), GetMapValue (the key cast to the map's key type, value type) or GetStructField
 * (a field by name, case-insensitive): FUNC get_array_item / get_map_value / get_struct_field
 * (args: x, the index / key / field name), always nullable. */
static cs_sql_expr *resolve_extract_value(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                          int flags)
{
    cs_sql_expr *r = resolved_copy(c, e, 2);
    r->kind = CS_EX_FUNC;
    if (!(r->args[0] = cs_an_expr(c, e->args[0], s, flags)) ||
        !(r->args[1] = cs_an_expr(c, e->args[1], s, flags)))
        return NULL;
    const cs_col_type *t = r->args[0]->type, *kt = r->args[1]->type;
    cs_sbuf x = {0}, ty = {0};
    r->nullable = true;
    r->resolved = true;
    if (t->id == CS_TYPE_ARRAY) {
        r->fn = r->name = "get_array_item";
        r->type = t->fields[0].type;
        if (cs_tc_is_integral(kt) || kt->id == CS_TYPE_NULL) return r;
        cs_sql_expr_pretty_name(r, &x);
        cs_tc_type_sql(kt, &ty);
        cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                         "Cannot resolve \"%s\" due to data type mismatch: The second parameter "
                         "requires the \"INTEGRAL\" type, however it has the type \"%s\".",
                         cs_sbuf_str(&x), cs_sbuf_str(&ty));
    } else if (t->id == CS_TYPE_MAP) {
        r->fn = r->name = "get_map_value";
        r->type = t->fields[1].type;
        if (kt->id == t->fields[0].type->id && kt->id != CS_TYPE_DECIMAL) return r;
        if (cs_tc_can_implicit_cast(kt, t->fields[0].type)) {
            r->args[1] = cs_tc_cast(c->a, r->args[1], t->fields[0].type);
            return r;
        }
        cs_sql_expr_pretty_name(r, &x);
        cs_tc_type_sql(kt, &ty);
        cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                         "Cannot resolve \"%s\" due to data type mismatch: the key has the type "
                         "\"%s\", not the map's key type.",
                         cs_sbuf_str(&x), cs_sbuf_str(&ty));
    } else if (t->id == CS_TYPE_STRUCT && r->args[1]->kind == CS_EX_LITERAL &&
               cs_tc_is_string(kt) && r->args[1]->literal && !r->args[1]->literal->null_count) {
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(r->args[1]->literal, 0, &len);
        r->fn = r->name = "get_struct_field";
        for (int i = 0; i < t->n_fields; i++)
            if (strlen(t->fields[i].name) == (size_t)len &&
                strncasecmp(t->fields[i].name, (const char *)p, (size_t)len) == 0) {
                r->type = t->fields[i].type;
                r->nullable = r->args[0]->nullable || t->fields[i].nullable;
                return r;
            }
        cs_sql_expr_pretty_name(r->args[0], &x);
        cs_sql_error_set(c->err, CS_EINVAL, "FIELD_NOT_FOUND", "42704",
                         "No such struct field `%.*s` in %s.", (int)len, (const char *)p,
                         cs_sbuf_str(&x));
    } else {
        cs_sql_expr_pretty_name(r->args[0], &x);
        cs_tc_type_sql(t, &ty);
        cs_sql_error_set(c->err, CS_EINVAL, "INVALID_EXTRACT_BASE_FIELD_TYPE", "42000",
                         "Can't extract a value from \"%s\". Need a complex type [STRUCT, ARRAY, "
                         "MAP] but got \"%s\".",
                         cs_sbuf_str(&x), cs_sbuf_str(&ty));
    }
    cs_sbuf_free(&x);
    cs_sbuf_free(&ty);
    return NULL;
}

cs_sql_expr *cs_an_expr(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags)
{
    switch (e->kind) {
    case CS_EX_LITERAL:
    case CS_EX_ATTR:
    case CS_EX_OUTER_ATTR:
    case CS_EX_LAMBDA_VAR:
        return (cs_sql_expr *)e;
    case CS_EX_LAMBDA:
        if (e->resolved) return (cs_sql_expr *)e;
        cs_sql_error_set(c->err, CS_EINVAL,
                         "INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "42K0D",
                         "Invalid lambda function call. A lambda function should only be used in "
                         "a higher order function. However, its class is %s.",
                         "this function");
        return NULL;
    case CS_EX_UNRESOLVED_ATTR:
        return resolve_name(c, e, s);
    case CS_EX_UNRESOLVED_FUNC:
        return resolve_function(c, e, s, flags);
    case CS_EX_FUNC:
    case CS_EX_AGG:
        if (e->resolved) return (cs_sql_expr *)e;
        break;
    case CS_EX_ALIAS: {
        cs_sql_expr *r = resolved_copy(c, e, 1);
        if (!(r->args[0] = cs_an_expr(c, e->args[0], s, flags))) return NULL;
        r->type = r->args[0]->type;
        r->nullable = r->args[0]->nullable;
        r->id = cs_catalog_next_expr_id(c->cat);
        r->resolved = true;
        return r;
    }
    case CS_EX_CAST: {
        cs_sql_expr *r = resolved_copy(c, e, 1);
        if (!(r->args[0] = cs_an_expr(c, e->args[0], s, flags))) return NULL;
        if (!cs_tc_can_cast(r->args[0]->type, e->cast_type)) {
            cs_sbuf x = {0}, f = {0}, t = {0};
            cs_fn_sql_expr_quoted(r, &x);
            cs_tc_type_sql(r->args[0]->type, &f);
            cs_tc_type_sql(e->cast_type, &t);
            /* a cast only ANSI refuses (integral -> binary): Spark names the conf */
            bool conf = cs_tc_is_integral(r->args[0]->type) && e->cast_type->id == CS_TYPE_BINARY;
            cs_sql_error_set(c->err, CS_EINVAL,
                             conf ? "DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION"
                                  : "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
                             "42K09",
                             "Cannot resolve %s due to data type mismatch: cannot cast "
                             "\"%s\" to \"%s\"%s.",
                             cs_sbuf_str(&x), cs_sbuf_str(&f), cs_sbuf_str(&t),
                             conf ? " with ANSI mode on" : "");
            cs_sbuf_free(&x);
            cs_sbuf_free(&f);
            cs_sbuf_free(&t);
            return NULL;
        }
        r->type = e->cast_type;
        r->nullable = r->args[0]->nullable || e->cast_mode == CS_CAST_TRY;
        r->resolved = true;
        return r;
    }
    case CS_EX_CASE:
        return resolve_case(c, e, s, flags);
    case CS_EX_IN_LIST: {
        cs_sql_expr *r = resolved_copy(c, e, e->n_args);
        for (int i = 0; i < e->n_args; i++)
            if (!(r->args[i] = cs_an_expr(c, e->args[i], s, flags))) return NULL;
        if (cs_fn_coerce_collations(c->a, r, r->args, r->n_args, c->err)) return NULL;
        if (!cs_fn_coerce_common(c->a, r->args, r->n_args)) {
            cs_sbuf x = {0};
            cs_fn_sql_expr_quoted(r, &x);
            cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.DATA_DIFF_TYPES", "42K09",
                             "Cannot resolve %s due to data type mismatch: Input to `in` should "
                             "all be the same type.",
                             cs_sbuf_str(&x));
            cs_sbuf_free(&x);
            return NULL;
        }
        r->negated = false;
        r->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        r->nullable = false;
        for (int i = 0; i < r->n_args; i++)
            r->nullable |= r->args[i]->nullable;
        r->resolved = true;
        return e->negated ? wrap_not(c, r) : r;
    }
    case CS_EX_IN_SUBQUERY:
    case CS_EX_EXISTS:
    case CS_EX_SCALAR_SUBQUERY: {
        cs_sql_expr *r = resolved_copy(c, e, e->n_args);
        for (int i = 0; i < e->n_args; i++)
            if (!(r->args[i] = cs_an_expr(c, e->args[i], s, flags))) return NULL;
        if (!(r->subquery = resolve_subquery(c, e->subquery, s))) return NULL;
        r->negated = false;
        r->resolved = true;
        int cols = r->subquery->n_output;
        if (e->kind == CS_EX_SCALAR_SUBQUERY) {
            if (cols != 1) {
                cs_sql_error_set(c->err, CS_EINVAL,
                                 "INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_"
                                 "ONE_OUTPUT_COLUMN",
                                 "42823",
                                 "Invalid subquery: Scalar subquery must return only one column, "
                                 "but got %d.",
                                 cols);
                return NULL;
            }
            r->type = r->subquery->output[0]->type;
            r->nullable = true;
            return r;
        }
        r->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        if (e->kind == CS_EX_IN_SUBQUERY) {
            if (cols != r->n_args) {
                cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH",
                                 "42K09",
                                 "Cannot resolve \"IN (listquery())\" due to data type mismatch: "
                                 "The number of columns in the left hand side of an IN subquery "
                                 "does not match the number of columns in the output of "
                                 "subquery. Left hand side columns(length: %d), right hand side "
                                 "columns(length: %d).",
                                 r->n_args, cols);
                return NULL;
            }
            for (int i = 0; i < cols; i++) {
                cs_col_type *t = cs_tc_wider(c->a, r->args[i]->type, r->subquery->output[i]->type);
                if (t) r->args[i] = cs_tc_cast(c->a, r->args[i], t);
                r->nullable |= r->args[i]->nullable || r->subquery->output[i]->nullable;
            }
        }
        return e->negated ? wrap_not(c, r) : r;
    }
    case CS_EX_SORT_ORDER: {
        cs_sql_expr *r = resolved_copy(c, e, 1);
        if (!(r->args[0] = cs_an_expr(c, e->args[0], s, flags))) return NULL;
        r->type = r->args[0]->type;
        r->nullable = r->args[0]->nullable;
        r->resolved = true;
        return r;
    }
    case CS_EX_WINDOW:
        return resolve_window(c, e, s, flags);
    case CS_EX_UNRESOLVED_EXTRACT_VALUE:
        return resolve_extract_value(c, e, s, flags);
    case CS_EX_PYTHON_UDF:
        return cs_an_python_udf(c, e, s, flags);
    case CS_EX_STAR:
        cs_sql_error_set(c->err, CS_EINVAL, "INVALID_USAGE_OF_STAR_OR_REGEX", "42000",
                         "Invalid usage of '*' in expression.");
        return NULL;
    default:
        break;
    }
    cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                     "The feature is not supported: this expression kind in the analyzer.");
    return fail_null(CS_EINVAL);
}
