/*
 * analyzer.c — the analyzer's entry and its plan rules (see analyzer.h, analyzer_internal.h):
 * relations from the catalog, views and CTEs (inlined, resolved again at each reference), path
 * relations, subquery aliases, joins (USING / NATURAL coalescing their keys as Spark), set
 * operations (column counts and widened types), VALUES, range, generators, limits and the
 * pass-through nodes. SELECT blocks (project, aggregate, HAVING, ORDER BY, windows) are in
 * analyzer_agg.c; expressions in analyzer_expr.c.
 */
#include <stdio.h>
#include <string.h>

#include "sql/analyzer_internal.h"

int cs_sql_analyze(cs_catalog *catalog, cs_sql_arena *arena, const cs_logical_plan *plan,
                   cs_logical_plan **out, cs_error *err)
{
    cs_error local;
    cs_error_clear(&local);
    cs_an_ctx c = {.a = arena, .cat = catalog, .err = err ? err : &local};
    cs_logical_plan *r = cs_an_plan(&c, plan);
    if (!r) return c.err->code ? c.err->code : CS_EINVAL;
    *out = r;
    return 0;
}

cs_sql_expr *cs_an_new_attr(cs_an_ctx *c, const char *name, cs_col_type *type, bool nullable,
                            const char **qualifier, int n_qualifier)
{
    cs_sql_expr *a = cs_sql_expr_new(c->a, CS_EX_ATTR, 0);
    a->name = cs_sql_strdup(c->a, name);
    a->type = type;
    a->nullable = nullable;
    a->id = cs_catalog_next_expr_id(c->cat);
    a->parts = qualifier;
    a->n_parts = n_qualifier;
    a->resolved = true;
    return a;
}

cs_sql_expr *cs_an_named(cs_an_ctx *c, cs_sql_expr *e, const char *name)
{
    if (e->kind == CS_EX_ALIAS) return e;
    if (e->kind == CS_EX_ATTR && (!name || strcmp(name, e->name) == 0)) return e;
    cs_sql_expr *al = cs_sql_expr_new(c->a, CS_EX_ALIAS, 1);
    al->args[0] = e;
    if (name) {
        al->name = name;
    } else if (e->kind == CS_EX_CAST && !e->implicit_cast &&
               (e->args[0]->kind == CS_EX_ATTR || e->args[0]->kind == CS_EX_ALIAS)) {
        al->name = e->args[0]->name; /* Spark: a cast of a named column keeps its name */
    } else {
        cs_sbuf b = {0};
        cs_sql_expr_pretty_name(e, &b);
        al->name = cs_sql_strdup(c->a, cs_sbuf_str(&b));
        cs_sbuf_free(&b);
    }
    al->type = e->type;
    al->nullable = e->nullable;
    al->id = cs_catalog_next_expr_id(c->cat);
    al->resolved = true;
    al->line = e->line;
    al->pos = e->pos;
    return al;
}

cs_logical_plan *cs_an_project(cs_an_ctx *c, cs_logical_plan *child, cs_sql_expr **exprs, int n)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    p->children[0] = child;
    p->exprs = exprs;
    p->n_exprs = n;
    cs_logical_plan_output_of_list(c->a, p);
    return p;
}

/* Copies of attrs with a new qualifier (same ids). */
static cs_sql_expr **requalify(cs_an_ctx *c, cs_sql_expr **attrs, int n, const char **q, int nq,
                               const char **names, int n_names)
{
    cs_sql_expr **out = cs_sql_alloc(c->a, sizeof *out * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        cs_sql_expr *a = cs_sql_expr_copy(c->a, attrs[i]);
        a->parts = q;
        a->n_parts = nq;
        if (names && i < n_names) a->name = names[i];
        out[i] = a;
    }
    return out;
}

static const char **one_part(cs_an_ctx *c, const char *s)
{
    const char **q = cs_sql_alloc(c->a, sizeof *q);
    q[0] = cs_sql_strdup(c->a, s);
    return q;
}

static cs_logical_plan *alias_plan(cs_an_ctx *c, cs_logical_plan *child, const char *alias,
                                   const char **names, int n_names)
{
    if (n_names && n_names != child->n_output) {
        cs_sql_error_set(c->err, CS_EINVAL, "ASSIGNMENT_ARITY_MISMATCH", "42802",
                         "The number of columns or variables assigned or aliased: %d does not "
                         "match the number of source expressions: %d.",
                         n_names, child->n_output);
        return NULL;
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_SUBQUERY_ALIAS, 1);
    p->children[0] = child;
    p->alias = alias;
    p->n_column_aliases = n_names;
    p->column_aliases = names;
    p->n_output = child->n_output;
    p->output = requalify(c, child->output, child->n_output, one_part(c, alias), 1, names, n_names);
    p->resolved = true;
    return p;
}

static cs_logical_plan *relation_of_table(cs_an_ctx *c, cs_catalog_table *t, const char *alias)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_RELATION, 0);
    p->table = t;
    const char **q;
    int nq;
    if (t->kind == CS_CATALOG_PATH) {
        q = one_part(c, alias ? alias : t->location);
        nq = 1;
    } else {
        q = cs_sql_alloc(c->a, sizeof *q * 3);
        q[0] = "spark_catalog";
        q[1] = t->database;
        q[2] = t->name;
        nq = 3;
    }
    p->n_output = t->schema->n_fields;
    p->output = cs_sql_alloc(c->a, sizeof *p->output * (size_t)(p->n_output + 1));
    for (int i = 0; i < p->n_output; i++)
        p->output[i] = cs_an_new_attr(c, t->schema->fields[i].name, t->schema->fields[i].type,
                                      t->schema->fields[i].nullable, q, nq);
    p->stat_bytes = t->size_bytes;
    p->resolved = true;
    if (t->cached) { /* a cached table: its kept rows, as Spark's InMemoryRelation */
        p->kind = CS_LP_LOCAL_RELATION;
        p->local_origin = CS_LOCAL_CACHED;
        p->local_note = "StorageLevel(disk, memory, deserialized, 1 replicas)"; /* its level */
        p->table = NULL;
        p->n_batches = t->n_cached_batches;
        p->batches = cs_sql_alloc(c->a, sizeof *p->batches * (size_t)(p->n_batches + 1));
        for (int i = 0; i < p->n_batches; i++)
            p->batches[i] = cs_sql_arena_keep_batch(c->a, cs_col_batch_ref(t->cached_batches[i]));
    }
    return p;
}

static cs_logical_plan *resolve_relation(cs_an_ctx *c, const cs_logical_plan *p)
{
    if (p->path) {
        cs_catalog_table *t =
            cs_catalog_path_relation(c->a, p->format, p->path, p->option_keys, p->option_values,
                                     p->n_options, p->declared_schema, c->err);
        return t ? relation_of_table(c, t, NULL) : NULL;
    }
    if (p->n_parts == 1) {
        for (cs_an_cte *w = c->ctes; w; w = w->next) {
            if (!cs_str_ieq(w->name, p->parts[0])) continue;
            cs_an_cte *saved = c->ctes;
            c->ctes = w->next; /* a CTE sees the ones defined before it */
            cs_logical_plan *r = cs_an_plan(c, w->def);
            c->ctes = saved;
            return r;
        }
    }
    cs_catalog_table *t = cs_catalog_lookup_relation(c->cat, p->parts, p->n_parts);
    if (!t) {
        cs_catalog_not_found_error(p->parts, p->n_parts, c->err);
        return NULL;
    }
    if (t->kind != CS_CATALOG_TEMP_VIEW) return relation_of_table(c, t, NULL);
    if (c->depth > 32) {
        cs_sql_error_set(c->err, CS_EINVAL, "RECURSIVE_VIEW", "42K0H",
                         "Recursive view `%s` detected (cycle: `%s` -> `%s`).", t->name, t->name,
                         t->name);
        return NULL;
    }
    /* a view sees neither the query's CTEs nor its outer scopes */
    cs_an_cte *saved_ctes = c->ctes;
    const cs_an_scope *saved_outer = c->outer;
    c->ctes = NULL;
    c->outer = NULL;
    c->depth++;
    cs_logical_plan *r = cs_an_plan(c, t->view_plan);
    c->depth--;
    c->ctes = saved_ctes;
    c->outer = saved_outer;
    if (!r) return NULL;
    return alias_plan(c, r, t->name, t->view_columns, t->n_view_columns);
}

static cs_sql_expr *and_of(cs_an_ctx *c, cs_sql_expr *l, cs_sql_expr *r)
{
    if (!l) return r;
    cs_sql_expr *args[2] = {l, r};
    return cs_fn_resolve(c->a, cs_fn_lookup("and"), NULL, args, 2, c->err);
}

static int using_column_error(cs_an_ctx *c, const char *col, const char *side,
                              const cs_logical_plan *p)
{
    cs_sbuf name = {0}, cols = {0};
    cs_an_sql_id(&col, 1, &name);
    for (int i = 0; i < p->n_output; i++) {
        if (i) cs_sbuf_puts(&cols, ", ");
        cs_an_sql_id((const char **)&p->output[i]->name, 1, &cols);
    }
    cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_USING_COLUMN_FOR_JOIN", "42703",
                     "USING column %s cannot be resolved on the %s side of the join. The "
                     "%s-side columns: [%s].",
                     cs_sbuf_str(&name), side, side, cs_sbuf_str(&cols));
    cs_sbuf_free(&name);
    cs_sbuf_free(&cols);
    return CS_EINVAL;
}

static cs_sql_expr *nullable_copy(cs_an_ctx *c, cs_sql_expr *a)
{
    if (a->nullable) return a;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, a);
    r->nullable = true;
    return r;
}

static int find_by_name(const cs_logical_plan *p, const char *name)
{
    for (int i = 0; i < p->n_output; i++)
        if (cs_str_ieq(p->output[i]->name, name)) return i;
    return -1;
}

static void set_join_output(cs_an_ctx *c, cs_logical_plan *j)
{
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    bool semi = j->join_type == CS_JOIN_LEFT_SEMI || j->join_type == CS_JOIN_LEFT_ANTI;
    int n = l->n_output + (semi ? 0 : r->n_output);
    j->output = cs_sql_alloc(c->a, sizeof *j->output * (size_t)(n + 1));
    j->n_output = n;
    bool ln = j->join_type == CS_JOIN_RIGHT_OUTER || j->join_type == CS_JOIN_FULL_OUTER;
    bool rn = j->join_type == CS_JOIN_LEFT_OUTER || j->join_type == CS_JOIN_FULL_OUTER;
    for (int i = 0; i < l->n_output; i++)
        j->output[i] = ln ? nullable_copy(c, l->output[i]) : l->output[i];
    if (!semi)
        for (int i = 0; i < r->n_output; i++)
            j->output[l->n_output + i] = rn ? nullable_copy(c, r->output[i]) : r->output[i];
    j->resolved = true;
}

static cs_logical_plan *resolve_join(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *j = cs_logical_plan_copy(c->a, p);
    if (!(j->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    if (!(j->children[1] = cs_an_plan(c, p->children[1]))) return NULL;
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    if (!p->natural && p->n_using == 0) {
        set_join_output(c, j);
        if (p->condition) {
            cs_sql_expr **both =
                cs_sql_alloc(c->a, sizeof *both * (size_t)(l->n_output + r->n_output + 1));
            memcpy(both, l->output, sizeof *both * (size_t)l->n_output);
            memcpy(both + l->n_output, r->output, sizeof *both * (size_t)r->n_output);
            cs_an_scope s = {both, l->n_output + r->n_output, c->outer};
            cs_sql_expr *cond = cs_an_expr(c, p->condition, &s, 0);
            if (!cond) return NULL;
            if (cond->type->id != CS_TYPE_BOOLEAN)
                cond = cs_tc_cast(c->a, cond, cs_col_type_primitive(CS_TYPE_BOOLEAN));
            j->condition = cond;
        }
        return j;
    }
    /* USING / NATURAL: the keys once, then the rest of each side */
    const char **keys = (const char **)p->using_columns;
    int nk = p->n_using;
    if (p->natural) {
        keys = cs_sql_alloc(c->a, sizeof *keys * (size_t)(l->n_output + 1));
        nk = 0;
        for (int i = 0; i < l->n_output; i++)
            if (find_by_name(r, l->output[i]->name) >= 0) keys[nk++] = l->output[i]->name;
    }
    int *li = cs_sql_alloc(c->a, sizeof *li * (size_t)(nk + 1));
    int *ri = cs_sql_alloc(c->a, sizeof *ri * (size_t)(nk + 1));
    cs_sql_expr *cond = NULL;
    for (int k = 0; k < nk; k++) {
        li[k] = find_by_name(l, keys[k]);
        if (li[k] < 0) return using_column_error(c, keys[k], "left", l), NULL;
        ri[k] = find_by_name(r, keys[k]);
        if (ri[k] < 0) return using_column_error(c, keys[k], "right", r), NULL;
        cs_sql_expr *args[2] = {l->output[li[k]], r->output[ri[k]]};
        cs_sql_expr *eq = cs_fn_resolve(c->a, cs_fn_lookup("="), NULL, args, 2, c->err);
        if (!eq || !(cond = and_of(c, cond, eq))) return NULL;
    }
    j->natural = false;
    j->n_using = 0;
    j->using_columns = NULL;
    j->condition = cond;
    set_join_output(c, j);
    cs_sql_expr **list = NULL;
    int n = 0, cap = 0;
    cs_join_type jt = p->join_type;
    for (int k = 0; k < nk; k++) {
        cs_sql_expr *la = l->output[li[k]], *ra = r->output[ri[k]];
        if (jt == CS_JOIN_FULL_OUTER) {
            cs_sql_expr *args[2] = {la, ra};
            cs_sql_expr *co = cs_fn_resolve(c->a, cs_fn_lookup("coalesce"), NULL, args, 2, c->err);
            if (!co) return NULL;
            cs_an_push(c, &list, &n, &cap, cs_an_named(c, co, la->name));
        } else if (jt == CS_JOIN_RIGHT_OUTER) {
            cs_an_push(c, &list, &n, &cap, ra);
        } else {
            cs_an_push(c, &list, &n, &cap, la);
        }
    }
    bool semi = jt == CS_JOIN_LEFT_SEMI || jt == CS_JOIN_LEFT_ANTI;
    /* the keys the output leaves out (Spark's hiddenOutputTag): a side's keys as the join
     * outputs them (nullable on an outer join's null-supplying side) */
    cs_sql_expr **hidden = cs_sql_alloc(c->a, sizeof *hidden * (size_t)(2 * nk + 1));
    int n_hidden = 0;
    for (int k = 0; !semi && k < nk; k++) {
        if (jt == CS_JOIN_RIGHT_OUTER || jt == CS_JOIN_FULL_OUTER)
            hidden[n_hidden++] = j->output[li[k]];
        if (jt != CS_JOIN_RIGHT_OUTER) hidden[n_hidden++] = j->output[l->n_output + ri[k]];
    }
    for (int side = 0; side < (semi ? 1 : 2); side++) {
        const cs_logical_plan *x = side ? r : l;
        const int *ks = side ? ri : li;
        for (int i = 0; i < x->n_output; i++) {
            bool key = false;
            for (int k = 0; k < nk; k++)
                key |= ks[k] == i;
            if (!key) cs_an_push(c, &list, &n, &cap, j->output[side ? l->n_output + i : i]);
        }
    }
    cs_logical_plan *proj = cs_an_project(c, j, list, n);
    proj->hidden = hidden;
    proj->n_hidden = n_hidden;
    return proj;
}

static const char *set_op_name(const cs_logical_plan *p)
{
    return p->set_op == CS_SET_UNION       ? "UNION"
           : p->set_op == CS_SET_INTERSECT ? "INTERSECT"
                                           : "EXCEPT";
}

static const char *nth(int i)
{
    static const char *const w[] = {"first", "second",  "third",  "fourth", "fifth",
                                    "sixth", "seventh", "eighth", "ninth",  "tenth"};
    return i >= 0 && i < 10 ? w[i] : "next";
}

/* child with its columns cast to types (a Project when any differs). */
static cs_logical_plan *cast_columns(cs_an_ctx *c, cs_logical_plan *child, cs_col_type **types)
{
    bool any = false;
    for (int i = 0; i < child->n_output; i++)
        any |= !cs_col_type_equal(child->output[i]->type, types[i]);
    if (!any) return child;
    cs_sql_expr **list = cs_sql_alloc(c->a, sizeof *list * (size_t)(child->n_output + 1));
    for (int i = 0; i < child->n_output; i++) {
        cs_sql_expr *a = child->output[i];
        cs_sql_expr *x = cs_tc_cast(c->a, a, types[i]);
        list[i] = x == a ? a : cs_an_named(c, x, a->name);
    }
    return cs_an_project(c, child, list, child->n_output);
}

static cs_logical_plan *resolve_set_op(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *s = cs_logical_plan_copy(c->a, p);
    if (!(s->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    if (!(s->children[1] = cs_an_plan(c, p->children[1]))) return NULL;
    cs_logical_plan *l = s->children[0], *r = s->children[1];
    if (p->by_name && l->n_output == r->n_output) {
        cs_sql_expr **list = cs_sql_alloc(c->a, sizeof *list * (size_t)(l->n_output + 1));
        for (int i = 0; i < l->n_output; i++) {
            int k = find_by_name(r, l->output[i]->name);
            if (k < 0) {
                cs_sql_error_set(c->err, CS_EINVAL, "NUM_COLUMNS_MISMATCH", "42826",
                                 "%s can only be performed on inputs with the same number of "
                                 "columns, but the first input has %d columns and the second "
                                 "input has %d columns.",
                                 set_op_name(p), l->n_output, r->n_output);
                return NULL;
            }
            list[i] = r->output[k];
        }
        r = s->children[1] = cs_an_project(c, r, list, l->n_output);
    }
    if (l->n_output != r->n_output) {
        cs_sql_error_set(c->err, CS_EINVAL, "NUM_COLUMNS_MISMATCH", "42826",
                         "%s can only be performed on inputs with the same number of columns, "
                         "but the first input has %d columns and the second input has %d "
                         "columns.",
                         set_op_name(p), l->n_output, r->n_output);
        return NULL;
    }
    cs_col_type **types = cs_sql_alloc(c->a, sizeof *types * (size_t)(l->n_output + 1));
    for (int i = 0; i < l->n_output; i++) {
        types[i] = cs_tc_wider(c->a, l->output[i]->type, r->output[i]->type);
        if (!types[i]) {
            cs_sbuf t1 = {0}, t2 = {0};
            cs_tc_type_sql(r->output[i]->type, &t1);
            cs_tc_type_sql(l->output[i]->type, &t2);
            cs_sql_error_set(c->err, CS_EINVAL, "INCOMPATIBLE_COLUMN_TYPE", "42825",
                             "%s can only be performed on tables with compatible column types. "
                             "The %s column of the second table is \"%s\" type which is not "
                             "compatible with \"%s\" at the same column of the first table..",
                             set_op_name(p), nth(i), cs_sbuf_str(&t1), cs_sbuf_str(&t2));
            cs_sbuf_free(&t1);
            cs_sbuf_free(&t2);
            return NULL;
        }
    }
    l = s->children[0] = cast_columns(c, l, types);
    r = s->children[1] = cast_columns(c, r, types);
    s->n_output = l->n_output;
    s->output = cs_sql_alloc(c->a, sizeof *s->output * (size_t)(s->n_output + 1));
    for (int i = 0; i < s->n_output; i++) {
        bool nullable =
            l->output[i]->nullable || (p->set_op == CS_SET_UNION && r->output[i]->nullable);
        s->output[i] = nullable ? nullable_copy(c, l->output[i]) : l->output[i];
    }
    s->by_name = false;
    s->resolved = true;
    return s;
}

static cs_logical_plan *resolve_values(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *v = cs_logical_plan_copy(c->a, p);
    if (p->n_batches > 0 || p->n_cols == 0) {
        /* rows given as batches (Spark Connect's LocalRelation): one attribute per column of
         * the declared schema, unless made resolved already */
        const cs_col_type *s = p->declared_schema;
        if (s && p->n_output == 0 && s->n_fields > 0) {
            v->n_output = s->n_fields;
            v->output = cs_sql_alloc(c->a, sizeof *v->output * (size_t)s->n_fields);
            for (int j = 0; j < s->n_fields; j++)
                v->output[j] = cs_an_new_attr(c, s->fields[j].name, s->fields[j].type,
                                              s->fields[j].nullable, NULL, 0);
        }
        v->resolved = true;
        return v;
    }
    cs_an_scope none = {NULL, 0, NULL};
    int rows = p->n_rows, cols = p->n_cols;
    v->exprs = cs_sql_alloc(c->a, sizeof *v->exprs * (size_t)(rows * cols + 1));
    for (int i = 0; i < rows * cols; i++)
        if (!(v->exprs[i] = cs_an_expr(c, p->exprs[i], &none, 0))) return NULL;
    v->n_output = cols;
    v->output = cs_sql_alloc(c->a, sizeof *v->output * (size_t)(cols + 1));
    cs_sql_expr **column = cs_sql_alloc(c->a, sizeof *column * (size_t)(rows + 1));
    for (int j = 0; j < cols; j++) {
        for (int i = 0; i < rows; i++)
            column[i] = v->exprs[i * cols + j];
        cs_col_type *t = cs_fn_coerce_common(c->a, column, rows);
        if (!t) {
            cs_sql_error_set(c->err, CS_EINVAL, "INCOMPATIBLE_TYPES_IN_INLINE_TABLE", "42000",
                             "Found incompatible types in the column `col%d` for inline table.",
                             j + 1);
            return NULL;
        }
        bool nullable = false;
        for (int i = 0; i < rows; i++) {
            v->exprs[i * cols + j] = column[i];
            nullable |= column[i]->nullable;
        }
        char name[32];
        snprintf(name, sizeof name, "col%d", j + 1);
        v->output[j] = cs_an_new_attr(c, name, t, nullable, NULL, 0);
    }
    v->resolved = true;
    return v;
}

static bool literal_i64(const cs_sql_expr *e, int64_t *out)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal || e->literal->null_count) return false;
    switch (e->type->id) {
    case CS_TYPE_BYTE:
        *out = ((const int8_t *)e->literal->values)[0];
        return true;
    case CS_TYPE_SHORT:
        *out = ((const int16_t *)e->literal->values)[0];
        return true;
    case CS_TYPE_INT:
        *out = ((const int32_t *)e->literal->values)[0];
        return true;
    case CS_TYPE_LONG:
        *out = ((const int64_t *)e->literal->values)[0];
        return true;
    default:
        return false;
    }
}

static cs_logical_plan *range_plan(cs_an_ctx *c, int64_t start, int64_t end, int64_t step,
                                   int64_t parts)
{
    cs_logical_plan *r = cs_logical_plan_new(c->a, CS_LP_RANGE, 0);
    r->range_start = start;
    r->range_end = end;
    r->range_step = step;
    r->num_partitions = parts;
    r->n_output = 1;
    r->output = cs_sql_alloc(c->a, sizeof *r->output);
    r->output[0] = cs_an_new_attr(c, "id", cs_col_type_primitive(CS_TYPE_LONG), false, NULL, 0);
    r->resolved = true;
    return r;
}

static cs_logical_plan *resolve_table_function(cs_an_ctx *c, const cs_logical_plan *p)
{
    const char *name = p->n_parts ? p->parts[p->n_parts - 1] : p->alias;
    if (name && cs_str_ieq(name, "range") && p->n_exprs >= 1 && p->n_exprs <= 4) {
        int64_t v[4] = {0, 0, 1, 0};
        for (int i = 0; i < p->n_exprs; i++) {
            if (!literal_i64(p->exprs[i], &v[p->n_exprs == 1 ? 1 : i])) {
                cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09",
                                 "Cannot resolve \"range\" due to data type mismatch: the input "
                                 "should be a foldable integral expression.");
                return NULL;
            }
        }
        if (v[2] == 0) {
            cs_sql_error_set(c->err, CS_EINVAL, "FAILED_FUNCTION_CALL", "38000",
                             "Failed preparing of the function `range` for call. Please, "
                             "double check function's arguments.");
            return NULL;
        }
        return range_plan(c, v[0], v[1], v[2], v[3]);
    }
    const cs_fn_info *gen = name && p->n_parts <= 1 ? cs_fn_lookup(name) : NULL;
    if (!gen && name && p->n_parts <= 1) gen = cs_fn_lookup_table_function(name);
    if (gen && gen->kind == CS_FN_GENERATOR) {
        /* FROM explode(xs): Spark's generator table function is SELECT explode(xs) over one row */
        cs_sql_expr *call = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, p->n_exprs);
        call->name = name;
        call->table_function = true;
        call->line = p->line;
        call->pos = p->pos;
        if (p->n_exprs) memcpy(call->args, p->exprs, sizeof *call->args * (size_t)p->n_exprs);
        cs_logical_plan *proj = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
        proj->children[0] = cs_logical_plan_new(c->a, CS_LP_ONE_ROW, 0);
        proj->n_exprs = 1;
        proj->exprs = cs_sql_alloc(c->a, sizeof *proj->exprs);
        proj->exprs[0] = call;
        return cs_an_plan(c, proj);
    }
    cs_sbuf n = {0};
    cs_an_sql_id(&name, 1, &n);
    cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVABLE_TABLE_VALUED_FUNCTION", "42883",
                     "Could not resolve %s to a table-valued function. Please make sure that %s "
                     "is defined as a table-valued function and that all required parameters are "
                     "provided correctly.",
                     cs_sbuf_str(&n), cs_sbuf_str(&n));
    cs_sbuf_free(&n);
    return NULL;
}

int cs_an_generator_columns(const cs_sql_expr *gen, const char **names, cs_col_type **types)
{
    cs_col_type *in = gen->args[0]->type;
    int n = 0;
    if (gen->fn && strcmp(gen->fn, "variant_explode") == 0) { /* Spark's VariantExplode */
        names[0] = "pos";
        types[0] = cs_col_type_primitive(CS_TYPE_INT);
        names[1] = "key";
        types[1] = cs_col_type_primitive(CS_TYPE_STRING);
        names[2] = "value";
        types[2] = cs_col_type_variant();
        return 3;
    }
    if (gen->fn && strcmp(gen->fn, "posexplode") == 0) {
        names[n] = "pos";
        types[n++] = cs_col_type_primitive(CS_TYPE_INT);
    }
    if (gen->fn && strcmp(gen->fn, "stack") == 0 && gen->type->id == CS_TYPE_STRUCT) {
        for (int i = 0; i < gen->type->n_fields && n < CS_AN_MAX_GENERATED; i++) {
            names[n] = gen->type->fields[i].name; /* col0, col1, ... */
            types[n++] = gen->type->fields[i].type;
        }
        return n;
    }
    if (in->id == CS_TYPE_MAP) {
        names[n] = "key";
        types[n++] = in->fields[0].type;
        names[n] = "value";
        types[n++] = in->fields[1].type;
    } else if (gen->fn && strcmp(gen->fn, "inline") == 0 && in->id == CS_TYPE_ARRAY &&
               in->fields[0].type->id == CS_TYPE_STRUCT) {
        const cs_col_type *st = in->fields[0].type; /* inline: the structs' fields */
        for (int i = 0; i < st->n_fields && n < CS_AN_MAX_GENERATED; i++) {
            names[n] = st->fields[i].name;
            types[n++] = st->fields[i].type;
        }
    } else {
        names[n] = "col";
        types[n++] = in->id == CS_TYPE_ARRAY ? in->fields[0].type : in;
    }
    return n;
}

static cs_logical_plan *resolve_generate(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *g = cs_logical_plan_copy(c->a, p);
    if (!(g->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    cs_logical_plan *child = g->children[0];
    cs_an_scope s = {child->output, child->n_output, c->outer};
    const cs_sql_expr *pg = p->generator;
    if (pg->kind == CS_EX_UNRESOLVED_FUNC && !pg->table_function && !cs_fn_lookup(pg->name) &&
        cs_fn_lookup_table_function(pg->name)) { /* LATERAL VIEW of a table-valued function */
        cs_sql_error_set(c->err, CS_EINVAL, "ROUTINE_NOT_FOUND", "42883",
                         "The routine `%s`.`%s` cannot be found. Verify the spelling and "
                         "correctness of the schema and catalog.\nIf you did not qualify the name "
                         "with a schema and catalog, verify the current_schema() output, or "
                         "qualify the name with the correct schema and catalog.\nTo tolerate the "
                         "error on drop use DROP ... IF EXISTS.",
                         cs_catalog_current_database(c->cat), pg->name);
        return NULL;
    }
    cs_sql_expr *gen = cs_an_expr(c, p->generator, &s, CS_AN_ALLOW_GENERATOR);
    if (!gen) return NULL;
    g->generator = gen;
    const char *names[CS_AN_MAX_GENERATED];
    cs_col_type *types[CS_AN_MAX_GENERATED];
    int n = cs_an_generator_columns(gen, names, types);
    if (p->n_column_aliases && p->n_column_aliases != n) {
        cs_sql_error_set(c->err, CS_EINVAL, "UDTF_ALIAS_NUMBER_MISMATCH", "42802",
                         "The number of aliases supplied in the AS clause does not match the "
                         "number of columns output by the UDTF. Expected %d aliases, but got %d. "
                         "Please ensure that the number of aliases provided matches the number "
                         "of columns output by the UDTF.",
                         n, p->n_column_aliases);
        return NULL;
    }
    const char **q = p->alias ? one_part(c, p->alias) : NULL;
    g->n_output = child->n_output + n;
    g->output = cs_sql_alloc(c->a, sizeof *g->output * (size_t)(g->n_output + 1));
    memcpy(g->output, child->output, sizeof *g->output * (size_t)child->n_output);
    for (int i = 0; i < n; i++)
        g->output[child->n_output + i] = cs_an_new_attr(
            c, p->n_column_aliases ? p->column_aliases[i] : names[i], types[i], true, q, q ? 1 : 0);
    g->resolved = true;
    return g;
}

/* A grouped or cogrouped map's output: the fields of its UDF's declared struct type, which must
 * be one (INVALID_PANDAS_UDF otherwise). Marks g resolved. */
static int output_of_udf_struct(cs_an_ctx *c, cs_logical_plan *g, const char *kind)
{
    const cs_col_type *t = g->generator->type;
    if (!t || t->id != CS_TYPE_STRUCT)
        return cs_sql_error_set(c->err, CS_EINVAL, "INVALID_PANDAS_UDF", "42K09",
                                "The return type of a %s map pandas UDF must be a struct type.",
                                kind);
    g->n_output = t->n_fields;
    g->output = cs_sql_alloc(c->a, sizeof *g->output * (size_t)(t->n_fields + 1));
    for (int i = 0; i < t->n_fields; i++)
        g->output[i] =
            cs_an_new_attr(c, t->fields[i].name, t->fields[i].type, t->fields[i].nullable, NULL, 0);
    g->resolved = true;
    return 0;
}

/* applyInPandas, mapInPandas, mapInArrow: the grouping expressions (none for the maps) and the
 * UDF's arguments over the child; the output is one new attribute per field of the UDF's
 * declared struct type. */
static cs_logical_plan *resolve_python_group_map(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *g = cs_logical_plan_copy(c->a, p);
    if (!(g->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    cs_logical_plan *child = g->children[0];
    cs_an_scope s = {child->output, child->n_output, c->outer};
    g->exprs = cs_sql_alloc(c->a, sizeof *g->exprs * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++)
        if (!(g->exprs[i] = cs_an_expr(c, p->exprs[i], &s, 0))) return NULL;
    if (!(g->generator = cs_an_expr(c, p->generator, &s, 0))) return NULL;
    return output_of_udf_struct(c, g, "grouped") < 0 ? NULL : g;
}

/* cogroup().applyInPandas / applyInArrow: each side's grouping expressions over that side (as
 * many on both), the UDF for its declared struct type, its arguments every column of both sides;
 * the output as above. */
static cs_logical_plan *resolve_python_cogroup_map(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *g = cs_logical_plan_copy(c->a, p);
    for (int i = 0; i < 2; i++)
        if (!(g->children[i] = cs_an_plan(c, p->children[i]))) return NULL;
    if (p->n_exprs != p->n_group_by || p->n_exprs == 0) {
        cs_sql_error_set(c->err, CS_EINVAL, "INVALID_PANDAS_UDF", "42K09",
                         "cogroup needs the same number of grouping expressions on both sides "
                         "(%d and %d).",
                         p->n_exprs, p->n_group_by);
        return NULL;
    }
    cs_an_scope ls = {g->children[0]->output, g->children[0]->n_output, c->outer};
    cs_an_scope rs = {g->children[1]->output, g->children[1]->n_output, c->outer};
    g->exprs = cs_sql_alloc(c->a, sizeof *g->exprs * (size_t)(p->n_exprs + 1));
    g->group_by = cs_sql_alloc(c->a, sizeof *g->group_by * (size_t)(p->n_group_by + 1));
    for (int i = 0; i < p->n_exprs; i++)
        if (!(g->exprs[i] = cs_an_expr(c, p->exprs[i], &ls, 0)) ||
            !(g->group_by[i] = cs_an_expr(c, p->group_by[i], &rs, 0)))
            return NULL;
    if (!(g->generator = cs_an_expr(c, p->generator, &ls, 0))) return NULL;
    /* its arguments: both sides' columns under the names the UDF sees (a renaming subquery alias
     * above a side is gone once optimized) */
    int nl = g->children[0]->n_output, nr = g->children[1]->n_output;
    g->generator->args = cs_sql_alloc(c->a, sizeof *g->generator->args * (size_t)(nl + nr + 1));
    g->generator->n_args = nl + nr;
    for (int i = 0; i < nl + nr; i++)
        g->generator->args[i] = i < nl ? g->children[0]->output[i] : g->children[1]->output[i - nl];
    return output_of_udf_struct(c, g, "cogrouped") < 0 ? NULL : g;
}

/* Whether an unresolved expression calls an aggregate function outside a window. */
static bool calls_aggregate(const cs_sql_expr *e)
{
    if (!e || e->kind == CS_EX_WINDOW) return false;
    if (e->kind == CS_EX_UNRESOLVED_FUNC) {
        const cs_fn_info *f = cs_fn_lookup(e->name);
        if (f && f->kind == CS_FN_AGGREGATE) return true;
    }
    if (cs_sql_expr_is_python_agg(e)) return true; /* a grouped-aggregate pandas UDF */
    for (int i = 0; i < e->n_args; i++)
        if (calls_aggregate(e->args[i])) return true;
    return false;
}

static cs_logical_plan *resolve_filter(cs_an_ctx *c, const cs_logical_plan *p)
{
    /* HAVING: a filter over an aggregate, or over a select list with aggregates and no GROUP
     * BY (`SELECT count(*) FROM t HAVING count(*) > 0`) */
    const cs_logical_plan *in = p->children[0];
    bool having = in->kind == CS_LP_AGGREGATE;
    for (int i = 0; !having && in->kind == CS_LP_PROJECT && i < in->n_exprs; i++)
        having = calls_aggregate(in->exprs[i]);
    if (having) return cs_an_having(c, p);
    if (calls_aggregate(p->condition)) {
        cs_sbuf x = {0};
        cs_sql_expr_pretty_name(p->condition, &x);
        cs_sql_error_set(c->err, CS_EINVAL, "INVALID_WHERE_CONDITION", "42903",
                         "The WHERE condition \"%s\" contains invalid expressions. Rewrite the "
                         "query to avoid window functions, aggregate functions, and generator "
                         "functions in the WHERE clause.",
                         cs_sbuf_str(&x));
        cs_sbuf_free(&x);
        return NULL;
    }
    cs_logical_plan *f = cs_logical_plan_copy(c->a, p);
    if (!(f->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    cs_an_scope s = {f->children[0]->output, f->children[0]->n_output, c->outer};
    cs_sql_expr *cond = cs_an_expr(c, p->condition, &s, 0);
    if (!cond) return NULL;
    if (cond->type->id == CS_TYPE_NULL)
        cond = cs_tc_cast(c->a, cond, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    if (cond->type->id != CS_TYPE_BOOLEAN) {
        cs_sbuf x = {0}, t = {0};
        cs_fn_sql_expr_quoted(cond, &x);
        cs_tc_type_sql(cond->type, &t);
        cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN", "42K09",
                         "Cannot resolve %s due to data type mismatch: Filter expression %s of "
                         "type \"%s\" is not a boolean.",
                         cs_sbuf_str(&x), cs_sbuf_str(&x), cs_sbuf_str(&t));
        cs_sbuf_free(&x);
        cs_sbuf_free(&t);
        return NULL;
    }
    f->condition = cond;
    f->n_output = f->children[0]->n_output;
    f->output = f->children[0]->output;
    f->resolved = true;
    return f;
}

/* Spark's checks of a LIMIT / OFFSET expression (CheckAnalysis.checkLimitLikeClause): an int,
 * not negative. */
static int check_limit(cs_an_ctx *c, const cs_sql_expr *e)
{
    cs_sbuf x = {0}, t = {0};
    cs_sql_expr_pretty_name(e, &x);
    int rc = 0;
    if (e->type->id != CS_TYPE_INT) {
        cs_tc_type_sql(e->type, &t);
        rc = cs_sql_error_set(c->err, CS_EINVAL, "INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE", "42K0E",
                              "The limit like expression \"%s\" is invalid. The limit expression "
                              "must be integer type, but got \"%s\".",
                              cs_sbuf_str(&x), cs_sbuf_str(&t));
    } else if (e->kind == CS_EX_LITERAL && e->literal && e->literal->null_count == 0 &&
               ((const int32_t *)e->literal->values)[0] < 0) {
        rc = cs_sql_error_set(c->err, CS_EINVAL, "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
                              "42K0E",
                              "The limit like expression \"%s\" is invalid. The limit expression "
                              "must be equal to or greater than 0, but got %d.",
                              cs_sbuf_str(&x), ((const int32_t *)e->literal->values)[0]);
    }
    cs_sbuf_free(&x);
    cs_sbuf_free(&t);
    return rc;
}

/* Nodes whose output is their child's and whose expressions (if any) read the child. */
static cs_logical_plan *pass_through(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *r = cs_logical_plan_copy(c->a, p);
    if (!(r->children[0] = cs_an_plan(c, p->children[0]))) return NULL;
    cs_logical_plan *child = r->children[0];
    cs_an_scope none = {NULL, 0, NULL};
    if (p->limit && !(r->limit = cs_an_expr(c, p->limit, &none, 0))) return NULL;
    if ((p->kind == CS_LP_LIMIT || p->kind == CS_LP_OFFSET) && check_limit(c, r->limit) != 0)
        return NULL;
    if (p->kind == CS_LP_REPARTITION && p->n_exprs) {
        cs_an_scope s = {child->output, child->n_output, c->outer};
        r->exprs = cs_sql_alloc(c->a, sizeof *r->exprs * (size_t)p->n_exprs);
        for (int i = 0; i < p->n_exprs; i++)
            if (!(r->exprs[i] = cs_an_expr(c, p->exprs[i], &s, 0))) return NULL;
    }
    r->n_output = child->n_output;
    r->output = child->output;
    r->resolved = true;
    return r;
}

cs_logical_plan *cs_an_plan(cs_an_ctx *c, const cs_logical_plan *p)
{
    if (p->resolved && p->kind != CS_LP_UNRESOLVED_RELATION) return (cs_logical_plan *)p;
    switch (p->kind) {
    case CS_LP_UNRESOLVED_RELATION:
        return resolve_relation(c, p);
    case CS_LP_RELATION:
        return (cs_logical_plan *)p;
    case CS_LP_LOCAL_RELATION:
        return resolve_values(c, p);
    case CS_LP_RANGE:
        return range_plan(c, p->range_start, p->range_end, p->range_step ? p->range_step : 1,
                          p->num_partitions);
    case CS_LP_ONE_ROW: {
        cs_logical_plan *r = cs_logical_plan_copy(c->a, p);
        r->resolved = true;
        return r;
    }
    case CS_LP_PROJECT:
    case CS_LP_AGGREGATE:
        return p->pivot_column ? cs_an_pivot(c, p)
               : p->unpivot    ? cs_an_unpivot(c, p)
                               : cs_an_select(c, p);
    case CS_LP_FILTER:
        return resolve_filter(c, p);
    case CS_LP_JOIN:
        return resolve_join(c, p);
    case CS_LP_SORT:
        return cs_an_sort(c, p);
    case CS_LP_SET_OP:
        return resolve_set_op(c, p);
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
    case CS_LP_DISTINCT:
    case CS_LP_REPARTITION:
    case CS_LP_SAMPLE:
        return pass_through(c, p);
    case CS_LP_HINT:
        return cs_an_is_partitioning_hint(p) ? cs_an_partitioning_hint(c, p) : pass_through(c, p);
    case CS_LP_GENERATE:
        return resolve_generate(c, p);
    case CS_LP_PYTHON_GROUP_MAP:
    case CS_LP_PYTHON_MAP_IN_BATCH:
        return resolve_python_group_map(c, p);
    case CS_LP_PYTHON_COGROUP_MAP:
        return resolve_python_cogroup_map(c, p);
    case CS_LP_SUBQUERY_ALIAS: {
        cs_logical_plan *child = cs_an_plan(c, p->children[0]);
        return child ? alias_plan(c, child, p->alias, p->column_aliases, p->n_column_aliases)
                     : NULL;
    }
    case CS_LP_WITH: {
        cs_an_cte *saved = c->ctes;
        for (int i = 0; i < p->n_ctes; i++) {
            cs_an_cte *w = cs_sql_alloc(c->a, sizeof *w);
            w->name = p->ctes[i]->alias;
            w->def = p->ctes[i];
            w->next = c->ctes;
            c->ctes = w;
        }
        cs_logical_plan *r = cs_an_plan(c, p->children[0]);
        c->ctes = saved;
        return r;
    }
    case CS_LP_TABLE_FUNCTION:
        return resolve_table_function(c, p);
    case CS_LP_WINDOW:
    case CS_LP_EXPAND:
        break;
    }
    cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                     "The feature is not supported: this logical plan node in the analyzer.");
    return NULL;
}
