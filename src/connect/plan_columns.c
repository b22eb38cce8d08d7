/*
 * plan_columns.c — the Spark Connect relations Spark builds from its input's columns (a
 * Dataset method over `df.schema`), as a Project / Filter / Aggregate naming those columns:
 * the input is analyzed against the session (no job runs) for its output names and types,
 * then the relation is written over the *unresolved* input as the SQL a user would write:
 *
 *   with_columns           SELECT <each column, or the new expression AS its name where the
 *                          name is replaced>, <new columns AS name> (withColumn(s))
 *   with_columns_renamed   SELECT <column AS new name where renamed> (renames applied in turn;
 *                          columns sharing a name renamed by position, as toDF)
 *   drop                   SELECT <the columns not named> (names, and columns df["x"] / col)
 *   deduplicate            DISTINCT over all columns; on some columns Spark's
 *                          ReplaceDeduplicateWithAggregate: GROUP BY the keys, first() of the
 *                          others, in the input's column order
 *   fill_na                coalesce(c, cast(v AS type)) AS c (nanvl(c, null) first for
 *                          float / double) on the columns of the value's kind (na.fill)
 *   drop_na                WHERE at least n of the columns are non-null (and not NaN)
 *   replace                CASE c WHEN old THEN new ... ELSE c END AS c (na.replace)
 *   describe / summary     one aggregate of each statistic of each column as a string, then
 *                          stack() into rows: summary, <column>... (count, mean, stddev, min,
 *                          percentiles as percentile_approx(c, p, 10000), max)
 *   set_op                 unionByName(allowMissingColumns=True): each side projected to the
 *                          left's columns then the right's others, a missing one a typed null
 *   unpivot                SELECT ids, stack(n, 'v1', v1, ...) AS (variable, value): values
 *                          given, else every column not an id (melt); numeric values cast to
 *                          the widest of their types, as Spark widens them
 *   cov / corr             SELECT covar_samp(c1, c2) / corr(c1, c2) FROM input (Spark's
 *                          StatFunctions; PySpark reads the one value)
 * Names are matched case-insensitively (Spark's default resolver). A column is referred to by
 * its name, qualified by its relation when the name alone is ambiguous.
 *
 * Called by plan_relations.c. Ownership: nodes in the translation's arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

typedef struct cols {
    cs_logical_plan *input;    /* unresolved */
    cs_logical_plan *resolved; /* its analysis: output names and types */
    int n;
} cols;

static int columns_of(cs_cp *c, const Spark__Connect__Relation *rel, const char *what, cols *out)
{
    int rc = cs_cp_input(c, rel, what, &out->input);
    if (!rc) rc = cs_cp_input_columns(c, out->input, &out->resolved);
    if (!rc) out->n = out->resolved->n_output;
    return rc;
}

static const char *name_at(const cols *k, int i)
{
    return k->resolved->output[i]->name;
}

static const cs_col_type *type_at(const cols *k, int i)
{
    return k->resolved->output[i]->type;
}

/* A reference to column i: its name, with its qualifier when another column has the name. */
static cs_sql_expr *ref(cs_cp *c, const cols *k, int i)
{
    const cs_sql_expr *a = k->resolved->output[i];
    bool dup = false;
    for (int j = 0; j < k->n; j++)
        dup |= j != i && cs_str_ieq(name_at(k, j), a->name);
    if (!dup || a->n_parts == 0) return cs_cp_column1(c, a->name);
    const char **parts = (const char **)cs_cp_array(c, (size_t)a->n_parts + 1);
    memcpy(parts, a->parts, sizeof *parts * (size_t)a->n_parts);
    parts[a->n_parts] = a->name;
    return cs_cp_column(c, parts, a->n_parts + 1);
}

static int find(const cols *k, const char *name)
{
    for (int i = 0; i < k->n; i++)
        if (cs_str_ieq(name_at(k, i), name)) return i;
    return -1;
}

static cs_logical_plan *project_over(cs_cp *c, cs_logical_plan *in, cs_sql_expr **exprs, int n)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    p->children[0] = in;
    p->n_exprs = n;
    p->exprs = exprs;
    return p;
}

static cs_sql_expr *string_lit(cs_cp *c, const char *s)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l.string = (char *)s;
    cs_sql_expr *e = NULL;
    cs_cp_literal(c, &l, &e);
    return e;
}

static cs_sql_expr *cast_to(cs_cp *c, cs_sql_expr *e, const cs_col_type *t)
{
    cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
    x->args[0] = e;
    x->cast_type = (cs_col_type *)t;
    x->cast_mode = CS_CAST_ANSI;
    return x;
}

/* ---- withColumns, withColumnsRenamed, drop ---- */

int cs_cp_with_columns(cs_cp *c, const Spark__Connect__WithColumns *w, cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, w->input, "WithColumns", &k);
    if (rc) return rc;
    size_t na = w->n_aliases;
    cs_sql_expr **values = (cs_sql_expr **)cs_cp_array(c, na);
    bool *used = cs_sql_alloc(c->a, na + 1);
    for (size_t i = 0; i < na; i++) {
        const Spark__Connect__Expression__Alias *a = w->aliases[i];
        if (!a || a->n_name != 1)
            return cs_cp_invalid(c,
                                 "WithColumns require column name only contains one name "
                                 "part, but got %zu names",
                                 a ? a->n_name : 0);
        if (!a->expr) return cs_cp_invalid(c, "the expression of an alias is missing");
        cs_logical_plan *outer = c->expr_input;
        c->expr_input = k.input;
        rc = cs_cp_expression(c, a->expr, &values[i]);
        c->expr_input = outer;
        if (rc) return rc;
        for (size_t j = 0; j < i; j++)
            if (cs_str_ieq(w->aliases[j]->name[0], a->name[0]))
                return cs_sql_error_set(c->err, CS_EINVAL, "COLUMN_ALREADY_EXISTS", "42711",
                                        "The column `%s` already exists. Choose another name or "
                                        "rename the existing column.",
                                        a->name[0]);
    }
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n + na);
    int n = 0;
    for (int i = 0; i < k.n; i++) {
        exprs[n] = NULL;
        for (size_t j = 0; j < na; j++)
            if (cs_str_ieq(name_at(&k, i), w->aliases[j]->name[0])) {
                exprs[n] = cs_cp_alias(c, values[j], cs_sql_strdup(c->a, w->aliases[j]->name[0]));
                used[j] = true;
            }
        if (!exprs[n]) exprs[n] = ref(c, &k, i);
        n++;
    }
    bool replaced = false;
    for (size_t j = 0; j < na; j++)
        replaced |= used[j];
    if (!replaced) { /* SELECT *, new...: a column of a name several columns have (a join's
                      * `a` from both sides) stays as it is, where its name would be ambiguous */
        n = 0;
        exprs[n++] = cs_sql_expr_new(c->a, CS_EX_STAR, 0);
    }
    for (size_t j = 0; j < na; j++)
        if (!used[j])
            exprs[n++] = cs_cp_alias(c, values[j], cs_sql_strdup(c->a, w->aliases[j]->name[0]));
    *out = project_over(c, k.input, exprs, n);
    return 0;
}

/* the deprecated fields are read as Spark reads them, for older clients */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int cs_cp_with_columns_renamed(cs_cp *c, const Spark__Connect__WithColumnsRenamed *w,
                               cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, w->input, "WithColumnsRenamed", &k);
    if (rc) return rc;
    const char **names = (const char **)cs_cp_array(c, (size_t)k.n);
    for (int i = 0; i < k.n; i++)
        names[i] = name_at(&k, i);
    size_t nr = w->n_renames ? w->n_renames : w->n_rename_columns_map;
    for (size_t r = 0; r < nr; r++) { /* in turn: a -> b then b -> c renames a to c */
        const char *from = w->n_renames ? w->renames[r]->col_name : w->rename_columns_map[r]->key;
        const char *to =
            w->n_renames ? w->renames[r]->new_col_name : w->rename_columns_map[r]->value;
        for (int i = 0; i < k.n; i++)
            if (cs_str_ieq(names[i], from)) names[i] = cs_sql_strdup(c->a, to);
    }
    bool renamed = false, shared = false;
    for (int i = 0; i < k.n; i++) {
        renamed |= names[i] != name_at(&k, i);
        for (int j = 0; j < i; j++)
            shared |= cs_str_ieq(name_at(&k, i), name_at(&k, j));
    }
    if (!renamed) { /* SELECT *: nothing to name, where a shared name would be ambiguous */
        cs_sql_expr **star = (cs_sql_expr **)cs_cp_array(c, 1);
        star[0] = cs_sql_expr_new(c->a, CS_EX_STAR, 0);
        *out = project_over(c, k.input, star, 1);
        return 0;
    }
    if (shared) { /* columns sharing a name (a join's): renamed by position, as toDF does */
        cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_SUBQUERY_ALIAS, 1);
        p->children[0] = k.input;
        p->alias = "__auto_generated_subquery_name";
        p->n_column_aliases = k.n;
        p->column_aliases = names;
        *out = p;
        return 0;
    }
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    for (int i = 0; i < k.n; i++) {
        exprs[i] = ref(c, &k, i);
        if (names[i] != name_at(&k, i)) exprs[i] = cs_cp_alias(c, exprs[i], names[i]);
    }
    *out = project_over(c, k.input, exprs, k.n);
    return 0;
}
#pragma GCC diagnostic pop

/* Whether output column i is the column e names (col("a"), df["a"], t.a). */
static bool names_column(const cols *k, int i, const cs_sql_expr *e)
{
    const cs_sql_expr *a = k->resolved->output[i];
    if (e->kind != CS_EX_UNRESOLVED_ATTR || e->n_parts == 0) return false;
    if (!cs_str_ieq(e->parts[e->n_parts - 1], a->name)) return false;
    if (e->n_parts == 1) return true;
    /* qualified: the qualifier's last part is the name's part before the column */
    return a->n_parts > 0 && cs_str_ieq(a->parts[a->n_parts - 1], e->parts[e->n_parts - 2]);
}

int cs_cp_drop(cs_cp *c, const Spark__Connect__Drop *d, cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, d->input, "Drop", &k);
    if (rc) return rc;
    cs_sql_expr **named;
    if ((rc = cs_cp_expressions(c, d->columns, d->n_columns, &named)) != 0) return rc;
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    int n = 0;
    for (int i = 0; i < k.n; i++) {
        bool drop = false;
        for (size_t j = 0; j < d->n_column_names; j++)
            drop |= cs_str_ieq(name_at(&k, i), d->column_names[j]);
        for (size_t j = 0; j < d->n_columns; j++)
            drop |= names_column(&k, i, named[j]);
        if (!drop) exprs[n++] = ref(c, &k, i);
    }
    *out = project_over(c, k.input, exprs, n);
    return 0;
}

/* ---- dropDuplicates ---- */

int cs_cp_deduplicate(cs_cp *c, const Spark__Connect__Deduplicate *d, cs_logical_plan **out)
{
    if (!d->input) return cs_cp_invalid(c, "Deduplicate needs a plan input");
    bool all = CS_CP_HAS(d, all_columns_as_keys) && d->all_columns_as_keys;
    if (all && d->n_column_names > 0)
        return cs_cp_invalid(c, "Cannot deduplicate on both all columns and a subset of columns");
    if (!all && d->n_column_names == 0)
        return cs_cp_invalid(c, "Deduplicate requires to either deduplicate on all columns or a "
                                "subset of columns");
    if (CS_CP_HAS(d, within_watermark) && d->within_watermark)
        return cs_cp_unsupported(c, "dropDuplicatesWithinWatermark (streaming)");
    if (all) {
        cs_logical_plan *in;
        int rc = cs_cp_relation(c, d->input, &in);
        if (rc) return rc;
        cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_DISTINCT, 1);
        p->children[0] = in;
        *out = p;
        return 0;
    }
    cols k;
    int rc = columns_of(c, d->input, "Deduplicate", &k);
    if (rc) return rc;
    bool *key = cs_sql_alloc(c->a, (size_t)k.n + 1);
    for (size_t j = 0; j < d->n_column_names; j++) {
        bool found = false;
        for (int i = 0; i < k.n; i++)
            if (cs_str_ieq(name_at(&k, i), d->column_names[j])) key[i] = found = true;
        if (!found) return cs_cp_invalid(c, "Invalid deduplicate column %s", d->column_names[j]);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    p->children[0] = k.input;
    p->group_by = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    p->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    p->n_exprs = k.n;
    for (int i = 0; i < k.n; i++) {
        if (key[i]) {
            p->group_by[p->n_group_by++] = ref(c, &k, i);
            p->exprs[i] = ref(c, &k, i);
        } else {
            cs_sql_expr *r = ref(c, &k, i);
            p->exprs[i] = cs_cp_alias(c, cs_cp_call(c, "first", &r, 1), name_at(&k, i));
        }
    }
    *out = p;
    return 0;
}

/* ---- na.fill / na.drop / na.replace ---- */

typedef enum kind { K_NUMERIC, K_STRING, K_BOOLEAN, K_OTHER } kind;

static kind kind_of(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_DECIMAL:
        return K_NUMERIC;
    case CS_TYPE_STRING:
        return K_STRING;
    case CS_TYPE_BOOLEAN:
        return K_BOOLEAN;
    default:
        return K_OTHER;
    }
}

static bool is_floating(const cs_col_type *t)
{
    return t->id == CS_TYPE_FLOAT || t->id == CS_TYPE_DOUBLE;
}

static cs_sql_expr *null_lit(cs_cp *c)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    Spark__Connect__DataType t = SPARK__CONNECT__DATA_TYPE__INIT;
    Spark__Connect__DataType__NULL n = SPARK__CONNECT__DATA_TYPE__NULL__INIT;
    t.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
    t.null = &n;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
    l.null = &t;
    cs_sql_expr *e = NULL;
    cs_cp_literal(c, &l, &e);
    return e;
}

/* Spark's fillCol: coalesce(c [nanvl(c, null) for float/double], cast(v AS type)) AS c */
static cs_sql_expr *fill_col(cs_cp *c, const cols *k, int i, cs_sql_expr *value)
{
    cs_sql_expr *col = ref(c, k, i);
    if (is_floating(type_at(k, i))) {
        cs_sql_expr *args[2] = {col, null_lit(c)};
        col = cs_cp_call(c, "nanvl", args, 2);
    }
    cs_sql_expr *args[2] = {col, cast_to(c, value, type_at(k, i))};
    return cs_cp_alias(c, cs_cp_call(c, "coalesce", args, 2), name_at(k, i));
}

int cs_cp_fill_na(cs_cp *c, const Spark__Connect__NAFill *f, cs_logical_plan **out)
{
    if (f->n_values == 0) return cs_cp_invalid(c, "values must contains at least 1 item!");
    if (f->n_values > 1 && f->n_values != f->n_cols)
        return cs_cp_invalid(c, "When values contains more than 1 items, values and cols should "
                                "have the same length!");
    cols k;
    int rc = columns_of(c, f->input, "NAFill", &k);
    if (rc) return rc;
    cs_sql_expr **values = (cs_sql_expr **)cs_cp_array(c, f->n_values);
    for (size_t j = 0; j < f->n_values; j++)
        if ((rc = cs_cp_literal(c, f->values[j], &values[j])) != 0) return rc;
    for (size_t j = 0; j < f->n_cols; j++)
        if (find(&k, f->cols[j]) < 0)
            return cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                                    "42703",
                                    "A column, variable, or function parameter with name `%s` "
                                    "cannot be resolved.",
                                    f->cols[j]);
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    for (int i = 0; i < k.n; i++) {
        exprs[i] = NULL;
        if (f->n_values == 1) { /* fill(value[, cols]): the columns of the value's kind */
            bool listed = f->n_cols == 0;
            for (size_t j = 0; j < f->n_cols; j++)
                listed |= cs_str_ieq(f->cols[j], name_at(&k, i));
            kind vk = kind_of(values[0]->literal->type), ck = kind_of(type_at(&k, i));
            if (listed && vk != K_OTHER && vk == ck) exprs[i] = fill_col(c, &k, i, values[0]);
        } else { /* fill({col: value}) */
            for (size_t j = 0; j < f->n_cols; j++)
                if (cs_str_ieq(f->cols[j], name_at(&k, i)))
                    exprs[i] = fill_col(c, &k, i, values[j]);
        }
        if (!exprs[i]) exprs[i] = ref(c, &k, i);
    }
    *out = project_over(c, k.input, exprs, k.n);
    return 0;
}

int cs_cp_drop_na(cs_cp *c, const Spark__Connect__NADrop *d, cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, d->input, "NADrop", &k);
    if (rc) return rc;
    int *which = cs_sql_alloc(c->a, sizeof *which * ((size_t)k.n + d->n_cols + 1));
    int nw = 0;
    if (d->n_cols == 0) {
        for (int i = 0; i < k.n; i++)
            which[nw++] = i;
    } else {
        for (size_t j = 0; j < d->n_cols; j++) {
            int i = find(&k, d->cols[j]);
            if (i < 0)
                return cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                                        "42703",
                                        "A column, variable, or function parameter with name "
                                        "`%s` cannot be resolved.",
                                        d->cols[j]);
            which[nw++] = i;
        }
    }
    int min = CS_CP_HAS(d, min_non_nulls) ? d->min_non_nulls : nw;
    /* Spark's AtLeastNNonNulls: the count of columns neither null nor NaN >= min */
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    cs_sql_expr *sum = NULL;
    for (int w = 0; w < nw; w++) {
        int i = which[w];
        cs_sql_expr *r = ref(c, &k, i);
        cs_sql_expr *ok = cs_cp_call(c, "isnotnull", &r, 1);
        if (is_floating(type_at(&k, i))) {
            cs_sql_expr *r2 = ref(c, &k, i);
            cs_sql_expr *nan = cs_cp_call(c, "isnan", &r2, 1);
            cs_sql_expr *not_nan = cs_cp_call(c, "not", &nan, 1);
            cs_sql_expr *both[2] = {ok, not_nan};
            ok = cs_cp_call(c, "and", both, 2);
        }
        cs_sql_expr *one, *zero;
        l.integer = 1;
        cs_cp_literal(c, &l, &one);
        l.integer = 0;
        cs_cp_literal(c, &l, &zero);
        cs_sql_expr *when = cs_sql_expr_new(c->a, CS_EX_CASE, 3);
        when->args[0] = ok;
        when->args[1] = one;
        when->args[2] = zero;
        when->has_else = true;
        if (!sum) {
            sum = when;
        } else {
            cs_sql_expr *add[2] = {sum, when};
            sum = cs_cp_call(c, "+", add, 2);
        }
    }
    cs_sql_expr *min_lit;
    l.integer = min;
    cs_cp_literal(c, &l, &min_lit);
    if (!sum) { /* no columns: Spark's AtLeastNNonNulls(n, []) is 0 >= n */
        l.integer = 0;
        cs_cp_literal(c, &l, &sum);
    }
    cs_sql_expr *ge[2] = {sum, min_lit};
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_FILTER, 1);
    p->children[0] = k.input;
    p->condition = cs_cp_call(c, ">=", ge, 2);
    *out = p;
    return 0;
}

int cs_cp_replace(cs_cp *c, const Spark__Connect__NAReplace *r, cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, r->input, "NAReplace", &k);
    if (rc) return rc;
    size_t nr = r->n_replacements;
    cs_sql_expr **olds = (cs_sql_expr **)cs_cp_array(c, nr);
    cs_sql_expr **news = (cs_sql_expr **)cs_cp_array(c, nr);
    kind key_kind = K_OTHER;
    for (size_t j = 0; j < nr; j++) {
        if ((rc = cs_cp_literal(c, r->replacements[j]->old_value, &olds[j])) != 0 ||
            (rc = cs_cp_literal(c, r->replacements[j]->new_value, &news[j])) != 0)
            return rc;
        kind kk = olds[j]->kind == CS_EX_LITERAL ? kind_of(olds[j]->literal->type) : K_OTHER;
        if (kk != K_OTHER) key_kind = kk;
    }
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
    for (int i = 0; i < k.n; i++) {
        bool listed = r->n_cols == 0;
        for (size_t j = 0; j < r->n_cols; j++)
            listed |= cs_str_ieq(r->cols[j], name_at(&k, i));
        exprs[i] = ref(c, &k, i);
        if (!listed || nr == 0 || kind_of(type_at(&k, i)) != key_kind) continue;
        /* CASE WHEN c = old THEN cast(new AS type) ... ELSE c END AS c (Spark's CaseKeyWhen) */
        cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_CASE, (int)(2 * nr + 1));
        for (size_t j = 0; j < nr; j++) {
            cs_sql_expr *eq[2] = {ref(c, &k, i), olds[j]};
            e->args[2 * j] = cs_cp_call(c, "=", eq, 2);
            e->args[2 * j + 1] = cast_to(c, news[j], type_at(&k, i));
        }
        e->args[2 * nr] = ref(c, &k, i);
        e->has_else = true;
        exprs[i] = cs_cp_alias(c, e, name_at(&k, i));
    }
    *out = project_over(c, k.input, exprs, k.n);
    return 0;
}

/* ---- describe / summary ---- */

/* One statistic of column r as Spark's summary computes it (NULL: not for this column). */
static int statistic(cs_cp *c, const char *stat, cs_sql_expr *r, bool numeric, cs_sql_expr **out)
{
    *out = NULL;
    if (cs_str_ieq(stat, "count")) {
        *out = cs_cp_call(c, "count", &r, 1);
    } else if (cs_str_ieq(stat, "min") || cs_str_ieq(stat, "max")) {
        *out = cs_cp_call(c, cs_str_ieq(stat, "min") ? "min" : "max", &r, 1);
    } else if (cs_str_ieq(stat, "count_distinct")) {
        cs_sql_expr *e = cs_cp_call(c, "count", &r, 1);
        e->distinct = true;
        *out = e;
    } else if (cs_str_ieq(stat, "approx_count_distinct")) {
        *out = cs_cp_call(c, "approx_count_distinct", &r, 1);
    } else if (cs_str_ieq(stat, "mean") || cs_str_ieq(stat, "stddev")) {
        if (numeric) *out = cs_cp_call(c, cs_str_ieq(stat, "mean") ? "avg" : "stddev", &r, 1);
    } else {
        size_t n = strlen(stat);
        char *end = NULL;
        double pct = n > 1 && stat[n - 1] == '%' ? strtod(stat, &end) : -1;
        if (pct < 0 || pct > 100 || end != stat + n - 1)
            return cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                                    "The feature is not supported: the statistic %s (use count, "
                                    "mean, stddev, min, max, count_distinct, "
                                    "approx_count_distinct or percentiles like 75%%).",
                                    stat);
        if (numeric) {
            Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
            l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE;
            l.double_ = pct / 100.0;
            cs_sql_expr *args[3] = {r, NULL, NULL};
            cs_cp_literal(c, &l, &args[1]);
            l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
            l.integer = 10000;
            cs_cp_literal(c, &l, &args[2]);
            *out = cs_cp_call(c, "percentile_approx", args, 3);
        }
    }
    return 0;
}

static int summarize(cs_cp *c, const Spark__Connect__Relation *input, char **names, size_t n_names,
                     const char *const *stats, size_t n_stats, const char *what,
                     cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, input, what, &k);
    if (rc) return rc;
    int *which = cs_sql_alloc(c->a, sizeof *which * ((size_t)k.n + n_names + 1));
    int nw = 0;
    if (n_names == 0) { /* numeric and string columns, as Spark's */
        for (int i = 0; i < k.n; i++)
            if (kind_of(type_at(&k, i)) == K_NUMERIC || kind_of(type_at(&k, i)) == K_STRING)
                which[nw++] = i;
    } else {
        for (size_t j = 0; j < n_names; j++) {
            int i = find(&k, names[j]);
            if (i < 0)
                return cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                                        "42703",
                                        "A column, variable, or function parameter with name "
                                        "`%s` cannot be resolved.",
                                        names[j]);
            which[nw++] = i;
        }
    }
    /* SELECT cast(stat(c) AS string) AS __s<j>_<w> ... FROM input */
    cs_logical_plan *agg = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    agg->children[0] = k.input;
    agg->n_exprs = (int)n_stats * nw;
    agg->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)agg->n_exprs);
    /* SELECT stack(n, 'stat', __s.., ...) AS (summary, c...) FROM agg */
    int n_args = 1 + (int)n_stats * (nw + 1);
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, (size_t)n_args);
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    l.integer = (int32_t)n_stats;
    cs_cp_literal(c, &l, &args[0]);
    int a = 1, e = 0;
    cs_col_type *string = cs_col_type_primitive(CS_TYPE_STRING);
    for (size_t s = 0; s < n_stats; s++) {
        args[a++] = string_lit(c, stats[s]);
        for (int w = 0; w < nw; w++) {
            int i = which[w];
            cs_sql_expr *stat;
            if ((rc = statistic(c, stats[s], ref(c, &k, i), kind_of(type_at(&k, i)) == K_NUMERIC,
                                &stat)) != 0)
                return rc;
            char col[48];
            snprintf(col, sizeof col, "__summary_%zu_%d", s, w);
            const char *cname = cs_sql_strdup(c->a, col);
            agg->exprs[e++] = cs_cp_alias(c, cast_to(c, stat ? stat : null_lit(c), string), cname);
            args[a++] = cs_cp_column1(c, cname);
        }
    }
    cs_sql_expr *gen = cs_cp_call(c, "stack", args, n_args);
    cs_sql_expr *al = cs_cp_alias(c, gen, "summary");
    al->n_parts = nw + 1;
    al->parts = (const char **)cs_cp_array(c, (size_t)nw + 1);
    al->parts[0] = "summary";
    for (int w = 0; w < nw; w++)
        al->parts[w + 1] = name_at(&k, which[w]);
    cs_sql_expr **one = (cs_sql_expr **)cs_cp_array(c, 1);
    one[0] = al;
    *out = project_over(c, agg, one, 1);
    return 0;
}

int cs_cp_describe(cs_cp *c, const Spark__Connect__StatDescribe *d, cs_logical_plan **out)
{
    static const char *const stats[] = {"count", "mean", "stddev", "min", "max"};
    return summarize(c, d->input, d->cols, d->n_cols, stats, sizeof stats / sizeof stats[0],
                     "StatDescribe", out);
}

int cs_cp_summary(cs_cp *c, const Spark__Connect__StatSummary *s, cs_logical_plan **out)
{
    static const char *const defaults[] = {"count", "mean", "stddev", "min",
                                           "25%",   "50%",  "75%",    "max"};
    if (s->n_statistics == 0)
        return summarize(c, s->input, NULL, 0, defaults, sizeof defaults / sizeof defaults[0],
                         "StatSummary", out);
    return summarize(c, s->input, NULL, 0, (const char *const *)s->statistics, s->n_statistics,
                     "StatSummary", out);
}

/* ---- DataFrame.to(schema), unionByName(allowMissingColumns=True) ---- */

/* Column `name` of k as one side of the union: itself, or a null of the other side's type. */
static cs_sql_expr *union_side(cs_cp *c, const cols *k, const char *name, const cs_col_type *t)
{
    int i = find(k, name);
    if (i >= 0) return ref(c, k, i);
    return cs_cp_alias(c, cast_to(c, null_lit(c), t), name);
}

int cs_cp_union_missing(cs_cp *c, const Spark__Connect__SetOperation *s, bool all,
                        cs_logical_plan **out)
{
    cols l, r;
    int rc = columns_of(c, s->left_input, "SetOperation", &l);
    if (!rc) rc = columns_of(c, s->right_input, "SetOperation", &r);
    if (rc) return rc;
    /* the left's columns, then the right's the left lacks (Spark's order) */
    int n = l.n;
    const char **names = (const char **)cs_cp_array(c, (size_t)(l.n + r.n));
    const cs_col_type **types = (const cs_col_type **)cs_cp_array(c, (size_t)(l.n + r.n));
    for (int i = 0; i < l.n; i++) {
        names[i] = name_at(&l, i);
        int j = find(&r, names[i]);
        types[i] = j >= 0 ? type_at(&r, j) : type_at(&l, i);
    }
    for (int j = 0; j < r.n; j++)
        if (find(&l, name_at(&r, j)) < 0) {
            names[n] = name_at(&r, j);
            types[n++] = type_at(&r, j);
        }
    cs_sql_expr **le = (cs_sql_expr **)cs_cp_array(c, (size_t)n);
    cs_sql_expr **re = (cs_sql_expr **)cs_cp_array(c, (size_t)n);
    for (int i = 0; i < n; i++) {
        int li = find(&l, names[i]);
        le[i] = union_side(c, &l, names[i], types[i]);
        re[i] = union_side(c, &r, names[i], li >= 0 ? type_at(&l, li) : types[i]);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_SET_OP, 2);
    p->children[0] = project_over(c, l.input, le, n);
    p->children[1] = project_over(c, r.input, re, n);
    p->set_op = CS_SET_UNION;
    p->all = all;
    *out = p;
    return 0;
}

/* ---- unpivot, cov / corr ---- */

/* The name Spark gives a value column of an unpivot: an attribute's or an alias's name. */
static const char *value_name(const cs_sql_expr *e)
{
    if (e->kind == CS_EX_UNRESOLVED_ATTR && e->n_parts > 0) return e->parts[e->n_parts - 1];
    if (e->kind == CS_EX_ALIAS) return e->name;
    return NULL;
}

/* Spark's Unpivot needs one least common type of the values (UnpivotCoercion): when the types of
 * the value columns are known and two have none, UNPIVOT_VALUE_DATA_TYPE_MISMATCH naming each
 * value's type, where stack() would only tell its own type error. */
static int unpivot_common_type(cs_cp *c, const cols *k, cs_sql_expr **values, int nv)
{
    for (int v = 0; v < nv; v++)
        if (values[v]->kind != CS_EX_UNRESOLVED_ATTR || find(k, value_name(values[v])) < 0)
            return 0; /* an expression: stack() checks it */
    /* findWiderTypeWithoutStringPromotion: a string is common only to strings */
    cs_col_type *common = NULL;
    int strings = 0;
    for (int v = 0; v < nv; v++) {
        cs_col_type *t = (cs_col_type *)type_at(k, find(k, value_name(values[v])));
        strings += t->id == CS_TYPE_STRING;
        common = v == 0 ? t : cs_tc_wider(c->a, common, t);
        if (!common) break;
    }
    if (strings > 0 && strings < nv) common = NULL;
    if (common) return 0;
    cs_sbuf types = {0};
    for (int v = 0; v < nv; v++) {
        cs_sbuf_puts(&types, v ? ", \"" : "[\"");
        cs_tc_type_sql(type_at(k, find(k, value_name(values[v]))), &types);
        cs_sbuf_printf(&types, "\" (`%s`)", value_name(values[v]));
    }
    cs_sbuf_putc(&types, ']');
    cs_sql_error_set(c->err, CS_EINVAL, "UNPIVOT_VALUE_DATA_TYPE_MISMATCH", "42K09",
                     "Unpivot value columns must share a least common type, some types do not: "
                     "%s.",
                     cs_sbuf_str(&types));
    cs_sbuf_free(&types);
    return CS_EINVAL;
}

int cs_cp_unpivot(cs_cp *c, const Spark__Connect__Unpivot *u, cs_logical_plan **out)
{
    cols k;
    int rc = columns_of(c, u->input, "Unpivot", &k);
    if (rc) return rc;
    cs_sql_expr **ids, **values;
    if ((rc = cs_cp_expressions(c, u->ids, u->n_ids, &ids)) != 0) return rc;
    int nv;
    if (CS_CP_HAS(u, values)) {
        nv = (int)u->values->n_values;
        if ((rc = cs_cp_expressions(c, u->values->values, u->values->n_values, &values)) != 0)
            return rc;
    } else { /* every column that is not an id */
        values = (cs_sql_expr **)cs_cp_array(c, (size_t)k.n);
        nv = 0;
        for (int i = 0; i < k.n; i++) {
            bool id = false;
            for (size_t j = 0; j < u->n_ids; j++)
                id |= value_name(ids[j]) && cs_str_ieq(value_name(ids[j]), name_at(&k, i));
            if (!id) values[nv++] = ref(c, &k, i);
        }
    }
    if (nv == 0)
        return cs_sql_error_set(c->err, CS_EINVAL, "UNPIVOT_REQUIRES_VALUE_COLUMNS", "42K0E",
                                "At least one value column needs to be specified for UNPIVOT, "
                                "all columns specified as ids.");
    /* Spark's Unpivot widens the values to one type (stack wants them equal): for columns of
     * numeric types, the widest (double when one is floating, else the widest integer) */
    const cs_col_type *wide = NULL;
    bool numeric = true;
    for (int v = 0; v < nv && numeric; v++) {
        int i = values[v]->kind == CS_EX_UNRESOLVED_ATTR ? find(&k, value_name(values[v])) : -1;
        const cs_col_type *t = i >= 0 ? type_at(&k, i) : NULL;
        numeric = t && kind_of(t) == K_NUMERIC && t->id != CS_TYPE_DECIMAL;
        if (numeric && (!wide || (is_floating(t) ? CS_TYPE_DOUBLE : t->id) > wide->id))
            wide = is_floating(t) ? cs_col_type_primitive(CS_TYPE_DOUBLE) : t;
    }
    if ((rc = unpivot_common_type(c, &k, values, nv)) != 0) return rc;
    /* SELECT ids, stack(n, 'v1', v1, ...) AS (variable, value) FROM input */
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, (size_t)(2 * nv + 1));
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    l.integer = nv;
    cs_cp_literal(c, &l, &args[0]);
    for (int v = 0; v < nv; v++) {
        const char *name = value_name(values[v]);
        if (!name) return cs_cp_unsupported(c, "unpivot values that are not columns");
        args[1 + 2 * v] = string_lit(c, name);
        args[2 + 2 * v] = values[v]->kind == CS_EX_ALIAS ? values[v]->args[0] : values[v];
        if (numeric && !cs_col_type_equal(type_at(&k, find(&k, name)), wide))
            args[2 + 2 * v] = cast_to(c, args[2 + 2 * v], wide);
    }
    cs_sql_expr *gen = cs_cp_alias(c, cs_cp_call(c, "stack", args, 2 * nv + 1),
                                   cs_sql_strdup(c->a, u->variable_column_name));
    gen->n_parts = 2;
    gen->parts = (const char **)cs_cp_array(c, 2);
    gen->parts[0] = gen->name;
    gen->parts[1] = cs_sql_strdup(c->a, u->value_column_name);
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, u->n_ids + 1);
    for (size_t j = 0; j < u->n_ids; j++)
        exprs[j] = ids[j];
    exprs[u->n_ids] = gen;
    *out = project_over(c, k.input, exprs, (int)u->n_ids + 1);
    return 0;
}

int cs_cp_cov_corr(cs_cp *c, const Spark__Connect__Relation *input, const char *fn,
                   const char *col1, const char *col2, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, input, fn, &in);
    if (rc) return rc;
    cs_sql_expr *args[2];
    const char *names[2] = {col1 ? col1 : "", col2 ? col2 : ""};
    for (int i = 0; i < 2; i++) {
        const char **parts;
        int n;
        if ((rc = cs_cp_attribute_name(c, names[i], &parts, &n)) != 0) return rc;
        args[i] = cs_cp_column(c, parts, n);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    p->children[0] = in;
    p->n_exprs = 1;
    p->exprs = (cs_sql_expr **)cs_cp_array(c, 1);
    p->exprs[0] = cs_cp_call(c, fn, args, 2);
    *out = p;
    return 0;
}
