/*
 * planner_agg.c — the planner's strategies for aggregates (Spark's AggUtils: HashAggregate
 * partial -> Exchange -> HashAggregate final; distinct aggregates as the two-level plan of
 * planAggregateWithOneDistinct), DISTINCT, windows (Exchange by the partition keys, Sort,
 * Window), Expand and Generate. Keys and arguments that are expressions are computed by a
 * Project below the operator; the aggregate list's expressions over aggregates (sum(a) /
 * count(b), CAST(avg(x) AS ...)) by a Project above it.
 *
 * Called by planner.c. Ownership: as planner.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/planner_internal.h"

/* ---- aggregate functions ---- */

typedef struct agg_item {
    const cs_sql_expr *agg; /* the AGG node of the aggregate list */
    cs_agg_fn fn;
    cs_sql_expr *arg;  /* NULL for count(*) */
    cs_sql_expr *arg2; /* two-input aggregates' second argument, else NULL */
    bool ignore_nulls;
    int input;           /* ordinal of arg in the aggregate's input */
    double param;        /* approx_count_distinct's relativeSD, percentile_approx's accuracy */
    double *percentages; /* percentile / percentile_approx (in the arena) */
    int n_percentages;
    bool percentages_array;
} agg_item;

static bool literal_true(const cs_sql_expr *e)
{
    return e && e->kind == CS_EX_LITERAL && e->literal && e->literal->type->id == CS_TYPE_BOOLEAN &&
           cs_column_is_valid(e->literal, 0) && e->literal->values[0];
}

static cs_sql_expr *int_literal(cs_pl_ctx *c, int32_t v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_INT));
    cs_col_builder_append_values(b, &v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->type = cs_col_type_primitive(CS_TYPE_INT);
    e->resolved = true;
    return e;
}

/* CASE WHEN cond THEN value END */
static cs_sql_expr *when_then(cs_pl_ctx *c, cs_sql_expr *cond, cs_sql_expr *value)
{
    cs_sql_expr *e = cs_sql_expr_new(c->arena, CS_EX_CASE, 2);
    e->args[0] = cond;
    e->args[1] = value;
    e->type = value->type;
    e->nullable = true;
    e->resolved = true;
    return e;
}

/* The value of a constant numeric literal (through casts); false when e is not one. */
static bool const_double(const cs_sql_expr *e, double *out)
{
    while (e && e->kind == CS_EX_CAST)
        e = e->args[0];
    if (!e || e->kind != CS_EX_LITERAL || !e->literal || !cs_column_is_valid(e->literal, 0))
        return false;
    const cs_column *l = e->literal;
    switch (l->type->id) {
    case CS_TYPE_BYTE:
        *out = ((const int8_t *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_SHORT:
        *out = ((const int16_t *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_INT:
        *out = ((const int32_t *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_LONG:
        *out = (double)((const int64_t *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_FLOAT:
        *out = ((const float *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_DOUBLE:
        *out = ((const double *)(const void *)l->values)[0];
        return true;
    case CS_TYPE_DECIMAL: {
        __int128 v;
        memcpy(&v, l->values, 16);
        double d = (double)v;
        for (int i = 0; i < l->type->scale; i++)
            d /= 10;
        *out = d;
        return true;
    }
    default:
        return false;
    }
}

/* The percentages of percentile(x, p) / percentile_approx(x, p): a constant number, or an
 * array of them (array(...) or an array literal); -1 when p is not constant. */
static int percentages_of(cs_pl_ctx *c, const cs_sql_expr *p, agg_item *it)
{
    while (p && p->kind == CS_EX_CAST)
        p = p->args[0];
    if (!p) return -1;
    double one;
    if (const_double(p, &one)) {
        it->percentages = cs_sql_alloc(c->arena, sizeof *it->percentages);
        it->percentages[0] = one;
        it->n_percentages = 1;
        return 0;
    }
    it->percentages_array = true;
    if (p->kind == CS_EX_FUNC && strcmp(p->fn, "array") == 0) {
        it->percentages = cs_sql_alloc(c->arena, sizeof *it->percentages * (size_t)(p->n_args + 1));
        for (int i = 0; i < p->n_args; i++)
            if (!const_double(p->args[i], &it->percentages[i])) return -1;
        it->n_percentages = p->n_args;
        return p->n_args > 0 ? 0 : -1;
    }
    if (p->kind == CS_EX_LITERAL && p->literal && p->literal->type->id == CS_TYPE_ARRAY &&
        cs_column_is_valid(p->literal, 0)) {
        const cs_column *l = p->literal, *el = l->children[0];
        const int32_t *off = cs_column_offsets(l);
        int n = off[1] - off[0];
        it->percentages = cs_sql_alloc(c->arena, sizeof *it->percentages * (size_t)(n + 1));
        for (int i = 0; i < n; i++) {
            int64_t k = off[0] + i;
            if (!cs_column_is_valid(el, k)) return -1;
            switch (el->type->id) {
            case CS_TYPE_DOUBLE:
                it->percentages[i] = ((const double *)(const void *)el->values)[k];
                break;
            case CS_TYPE_FLOAT:
                it->percentages[i] = ((const float *)(const void *)el->values)[k];
                break;
            case CS_TYPE_DECIMAL: {
                __int128 v;
                memcpy(&v, el->values + 16 * k, 16);
                double d = (double)v;
                for (int s = 0; s < el->type->scale; s++)
                    d /= 10;
                it->percentages[i] = d;
                break;
            }
            default:
                return -1;
            }
        }
        it->n_percentages = n;
        return n > 0 ? 0 : -1;
    }
    return -1;
}

/* an expression of boolean type named fn over args (the analyzer's canonical names) */
static cs_sql_expr *bool_fn(cs_pl_ctx *c, const char *fn, cs_sql_expr *a0, cs_sql_expr *a1)
{
    cs_sql_expr *e = cs_sql_expr_new(c->arena, CS_EX_FUNC, a1 ? 2 : 1);
    e->fn = fn;
    e->args[0] = a0;
    if (a1) e->args[1] = a1;
    e->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    e->nullable = a1 != NULL;
    e->resolved = true;
    return e;
}

static int agg_item_of(cs_pl_ctx *c, const cs_sql_expr *a, agg_item *it)
{
    static const struct {
        const char *name;
        cs_agg_fn fn;
    } fns[] = {{"count", CS_AGG_COUNT},
               {"sum", CS_AGG_SUM},
               {"avg", CS_AGG_AVG},
               {"min", CS_AGG_MIN},
               {"max", CS_AGG_MAX},
               {"first", CS_AGG_FIRST},
               {"any_value", CS_AGG_ANY_VALUE},
               {"last", CS_AGG_LAST},
               {"count_if", CS_AGG_COUNT_IF},
               {"bool_and", CS_AGG_BOOL_AND},
               {"bool_or", CS_AGG_BOOL_OR},
               {"collect_list", CS_AGG_COLLECT_LIST},
               {"collect_set", CS_AGG_COLLECT_SET},
               {"stddev", CS_AGG_STDDEV_SAMP},
               {"stddev_pop", CS_AGG_STDDEV_POP},
               {"variance", CS_AGG_VAR_SAMP},
               {"var_pop", CS_AGG_VAR_POP},
               {"skewness", CS_AGG_SKEWNESS},
               {"kurtosis", CS_AGG_KURTOSIS},
               {"corr", CS_AGG_CORR},
               {"covar_samp", CS_AGG_COVAR_SAMP},
               {"covar_pop", CS_AGG_COVAR_POP},
               {"max_by", CS_AGG_MAX_BY},
               {"min_by", CS_AGG_MIN_BY},
               {"approx_count_distinct", CS_AGG_APPROX_COUNT_DISTINCT},
               {"percentile_approx", CS_AGG_PERCENTILE_APPROX},
               {"percentile", CS_AGG_PERCENTILE},
               {"percentile_disc", CS_AGG_PERCENTILE_DISC},
               {"histogram_numeric", CS_AGG_HISTOGRAM_NUMERIC},
               {"schema_of_variant_agg", CS_AGG_SCHEMA_OF_VARIANT},
               {"median", CS_AGG_PERCENTILE},
               {"bit_and", CS_AGG_BIT_AND},
               {"bit_or", CS_AGG_BIT_OR},
               {"bit_xor", CS_AGG_BIT_XOR},
               {"mode", CS_AGG_MODE},
               {"try_sum", CS_AGG_TRY_SUM},
               {"regr_count", CS_AGG_COUNT},
               {"regr_slope", CS_AGG_REGR_SLOPE},
               {"regr_intercept", CS_AGG_REGR_INTERCEPT},
               {"regr_r2", CS_AGG_REGR_R2},
               {"regr_sxx", CS_AGG_REGR_SXX},
               {"regr_syy", CS_AGG_REGR_SYY},
               {"regr_sxy", CS_AGG_REGR_SXY},
               {"regr_avgx", CS_AGG_REGR_AVGX},
               {"regr_avgy", CS_AGG_REGR_AVGY}};
    *it = (agg_item){.agg = a, .input = -1};
    size_t i = 0;
    while (i < sizeof fns / sizeof *fns && strcmp(fns[i].name, a->fn) != 0)
        i++;
    if (i == sizeof fns / sizeof *fns || a->n_args < 1) {
        cs_sbuf s = {0};
        cs_sbuf_printf(&s, "the aggregate function %s", a->fn);
        int rc = cs_pl_unsupported(c, s.data);
        cs_sbuf_free(&s);
        return rc;
    }
    it->fn = fns[i].fn;
    it->arg = a->args[0];
    if (cs_agg_takes_two_inputs(it->fn)) {
        if (a->n_args < 2) return cs_pl_unsupported(c, "a two-input aggregate of one argument");
        it->arg2 = a->args[1];
    }
    switch (it->fn) {
    case CS_AGG_APPROX_COUNT_DISTINCT:
        if (a->n_args > 1 && !const_double(a->args[1], &it->param))
            return cs_pl_unsupported(c, "approx_count_distinct of a relativeSD not constant");
        break;
    case CS_AGG_HISTOGRAM_NUMERIC:
        if (a->n_args < 2 || !const_double(a->args[1], &it->param))
            return cs_pl_unsupported(c, "histogram_numeric of a number of bins not constant");
        break;
    case CS_AGG_PERCENTILE_APPROX:
    case CS_AGG_PERCENTILE:
    case CS_AGG_PERCENTILE_DISC:
        if (strcmp(a->fn, "median") == 0) {
            it->percentages = cs_sql_alloc(c->arena, sizeof *it->percentages);
            it->percentages[0] = 0.5;
            it->n_percentages = 1;
            break;
        }
        if (a->n_args < 2 || percentages_of(c, a->args[1], it) != 0)
            return cs_pl_unsupported(c, "a percentile of percentages that are not constant");
        double freq;
        if (it->fn != CS_AGG_PERCENTILE_APPROX && a->n_args > 2) {
            /* the analyzer's default frequency is 1 */
            if (!const_double(a->args[2], &freq) || freq != 1)
                return cs_pl_unsupported(c, "percentile with a frequency");
            break;
        }
        if (a->n_args > 2 && !const_double(a->args[2], &it->param))
            return cs_pl_unsupported(c, "percentile_approx of an accuracy not constant");
        if (it->fn == CS_AGG_PERCENTILE_APPROX && a->n_args > 2 && it->param <= 0)
            return cs_pl_unsupported(c, "percentile_approx of an accuracy not positive");
        break;
    default:
        break;
    }
    if (it->fn == CS_AGG_COUNT) {
        /* regr_count(y, x) is count(y, x) */
        if (a->n_args > 1) {
            if (a->distinct) return cs_pl_unsupported(c, "count(DISTINCT) of several columns");
            /* count(a, b, ...): the rows where every argument is non-null */
            cs_sql_expr *all = NULL;
            for (int k = 0; k < a->n_args; k++) {
                cs_sql_expr *nn = bool_fn(c, "isnotnull", a->args[k], NULL);
                nn->nullable = false;
                all = all ? bool_fn(c, "and", all, nn) : nn;
            }
            all->nullable = false;
            it->arg = when_then(c, all, int_literal(c, 1));
        }
        const cs_sql_expr *x = a->args[0];
        bool star = x->kind == CS_EX_STAR || (x->kind == CS_EX_LITERAL && x->literal &&
                                              cs_column_is_valid(x->literal, 0) && !a->distinct);
        if (a->n_args == 1 && star) {
            it->fn = CS_AGG_COUNT_STAR;
            it->arg = NULL;
        }
    }
    bool takes_ignore_nulls =
        it->fn == CS_AGG_FIRST || it->fn == CS_AGG_LAST || it->fn == CS_AGG_ANY_VALUE;
    it->ignore_nulls =
        a->ignore_nulls || (takes_ignore_nulls && a->n_args > 1 && literal_true(a->args[1]));
    if (a->filter) {
        if (it->fn == CS_AGG_COUNT_STAR) {
            it->fn = CS_AGG_COUNT;
            it->arg = when_then(c, a->filter, int_literal(c, 1));
        } else if (it->arg2) {
            /* rows with a null ordering / second input are skipped */
            it->arg2 = when_then(c, a->filter, it->arg2);
        } else {
            it->arg = when_then(c, a->filter, it->arg);
        }
    }
    return 0;
}

static void collect_aggs(const cs_sql_expr *e, const cs_sql_expr **out, int *n)
{
    if (!e) return;
    if (e->kind == CS_EX_AGG) {
        for (int i = 0; i < *n; i++)
            if (cs_pl_same_expr(out[i], e)) return;
        out[(*n)++] = e;
        return;
    }
    if (e->kind == CS_EX_SCALAR_SUBQUERY || e->kind == CS_EX_WINDOW) return;
    for (int i = 0; i < e->n_args; i++)
        collect_aggs(e->args[i], out, n);
}

static int count_nodes(const cs_sql_expr *e)
{
    if (!e) return 0;
    int n = 1;
    for (int i = 0; i < e->n_args; i++)
        n += count_nodes(e->args[i]);
    return n;
}

/* ---- HashAggregate nodes ---- */

typedef struct agg_args {
    cs_agg_mode mode;
    const int *keys;
    int n_keys;
    const cs_agg_spec *aggs;
    int n_aggs;
} agg_args;

static cs_sql_op *make_agg(cs_sql_op *child, void *arg, cs_error *err)
{
    agg_args *a = arg;
    return cs_sql_op_hash_aggregate(child, a->mode, a->keys, a->n_keys, a->aggs, a->n_aggs, err);
}

/* A HASH_AGGREGATE over in; its output attributes: the key attributes of in, then new ones
 * for the buffers (partial) or results (final), result_attrs[i] set for aggregate i. */
static int agg_node(cs_pl_ctx *c, cs_pl_out *in, cs_agg_mode mode, const int *keys, int n_keys,
                    const cs_agg_spec *aggs, int n_aggs, cs_sql_expr **result_attrs)
{
    agg_args a = {mode, keys, n_keys, aggs, n_aggs};
    cs_col_type *schema = cs_pl_op_schema(in->node->schema, make_agg, &a, c->err);
    if (!schema) return -1;
    int n_out = schema->n_fields;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    for (int i = 0; i < n_keys; i++)
        attrs[i] = in->attrs[keys[i]];
    for (int i = n_keys; i < n_out; i++)
        attrs[i] = cs_pl_new_attr(c, schema->fields[i].name, schema->fields[i].type,
                                  schema->fields[i].nullable);
    if (result_attrs && mode != CS_AGG_PARTIAL)
        for (int i = 0; i < n_aggs; i++)
            result_attrs[i] = attrs[n_keys + i];
    cs_phys_node *n = cs_phys_new(CS_PH_HASH_AGGREGATE, schema, 1);
    n->id = c->next_node_id++;
    n->children[0] = in->node;
    n->agg_mode = mode;
    n->group_keys = cs_xcalloc((size_t)(n_keys + 1), sizeof *n->group_keys);
    memcpy(n->group_keys, keys, sizeof *keys * (size_t)n_keys);
    n->n_group_keys = n_keys;
    n->aggs = cs_xcalloc((size_t)(n_aggs + 1), sizeof *n->aggs);
    n->n_aggs = n_aggs;
    for (int i = 0; i < n_aggs; i++) {
        n->aggs[i] = aggs[i];
        n->aggs[i].arg_type =
            aggs[i].arg_type ? cs_col_type_ref((cs_col_type *)aggs[i].arg_type) : NULL;
        n->aggs[i].name = aggs[i].name ? cs_xstrdup(aggs[i].name) : NULL;
        n->aggs[i].arg2_type =
            aggs[i].arg2_type ? cs_col_type_ref((cs_col_type *)aggs[i].arg2_type) : NULL;
        if (aggs[i].n_percentages > 0) {
            size_t sz = sizeof *aggs[i].percentages * (size_t)aggs[i].n_percentages;
            double *pc = cs_xmalloc(sz);
            memcpy(pc, aggs[i].percentages, sz);
            n->aggs[i].percentages = pc;
        }
    }
    cs_pl_out was = *in;
    *in = (cs_pl_out){n, attrs, n_out, NULL, 0, 0};
    cs_pl_keep_partitioning(in, &was);
    return 0;
}

/* partial -> exchange by the keys -> final; keys are in's ordinals, aggs' inputs too. */
static int two_phase(cs_pl_ctx *c, cs_pl_out *io, const int *keys, int n_keys, cs_agg_spec *aggs,
                     int n_aggs, cs_sql_expr **result_attrs)
{
    int np = c->pc->conf.shuffle_partitions;
    bool clustered = n_keys > 0 && cs_pl_partitioned_by(io, keys, n_keys, np, false);
    if (agg_node(c, io, CS_AGG_PARTIAL, keys, n_keys, aggs, n_aggs, NULL) != 0) return -1;
    int *seq = cs_xcalloc((size_t)(n_keys + 1), sizeof *seq);
    for (int i = 0; i < n_keys; i++)
        seq[i] = i;
    if (!clustered) cs_pl_exchange(c, io, CS_PART_HASH, seq, n_keys, np);
    cs_agg_spec *fin = cs_xcalloc((size_t)(n_aggs + 1), sizeof *fin);
    int at = n_keys;
    for (int i = 0; i < n_aggs; i++) {
        fin[i] = aggs[i];
        fin[i].input = at;
        at += cs_agg_spec_buffer_width(&aggs[i]);
    }
    int rc = agg_node(c, io, CS_AGG_FINAL, seq, n_keys, fin, n_aggs, result_attrs);
    free(seq);
    free(fin);
    return rc;
}

/* e as type (the analyzer's type of an aggregate, should the operator's result differ) */
static cs_sql_expr *cast_to(cs_pl_ctx *c, cs_sql_expr *e, cs_col_type *type)
{
    if (!type || cs_col_type_equal(e->type, type)) return e;
    cs_sql_expr *x = cs_sql_expr_new(c->arena, CS_EX_CAST, 1);
    x->args[0] = e;
    x->cast_type = type;
    x->cast_mode = CS_CAST_ANSI;
    x->implicit_cast = true;
    x->type = type;
    x->nullable = e->nullable;
    x->resolved = true;
    return x;
}

/* The function that merges an aggregate's results of several groups into one (Spark merges
 * buffers; results merge for these): -1 when there is none. */
static int reaggregated(cs_agg_fn fn)
{
    switch (fn) {
    case CS_AGG_COUNT:
    case CS_AGG_COUNT_STAR:
    case CS_AGG_COUNT_IF:
    case CS_AGG_SUM:
        return CS_AGG_SUM;
    case CS_AGG_MIN:
    case CS_AGG_MAX:
    case CS_AGG_BOOL_AND:
    case CS_AGG_BOOL_OR:
        return (int)fn;
    default:
        return -1;
    }
}

/* coalesce(count, 0): a count summed over no group is 0, not null */
static cs_sql_expr *coalesce_zero(cs_pl_ctx *c, cs_sql_expr *e)
{
    cs_col_builder *b = cs_col_builder_new(NULL, e->type);
    int64_t zero = 0;
    cs_col_builder_append_values(b, &zero, 1, NULL);
    cs_sql_expr *lit = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    lit->type = e->type;
    lit->resolved = true;
    cs_sql_expr *x = cs_sql_expr_new(c->arena, CS_EX_FUNC, 2);
    x->fn = "coalesce";
    x->args[0] = e;
    x->args[1] = lit;
    x->type = e->type;
    x->nullable = false;
    x->resolved = true;
    return x;
}

static char *pretty(cs_pl_ctx *c, const cs_sql_expr *e)
{
    cs_sbuf s = {0};
    cs_sql_expr_pretty_name(e, &s);
    char *r = cs_sql_strdup(c->arena, s.data ? s.data : "");
    cs_sbuf_free(&s);
    return r;
}

int cs_pl_aggregate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    for (int i = 0; i < p->n_exprs; i++) /* grouped-aggregate pandas UDFs: planner_python.c */
        if (cs_sql_expr_has_python_agg(p->exprs[i])) return cs_pl_python_aggregate(c, p, out);
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int cap = 1 + p->n_group_by, *first_of;
    for (int i = 0; i < p->n_exprs; i++)
        cap += count_nodes(p->exprs[i]);
    const cs_sql_expr **found = cs_sql_alloc(c->arena, sizeof *found * (size_t)cap);
    int n_aggs = 0;
    for (int i = 0; i < p->n_exprs; i++)
        collect_aggs(p->exprs[i], found, &n_aggs);
    n_aggs = cs_pl_collation_firsts(c, p->group_by, p->n_group_by, found, n_aggs, &first_of);
    agg_item *items = cs_sql_alloc(c->arena, sizeof *items * (size_t)(n_aggs + 1));
    int n_distinct = 0;
    for (int i = 0; i < n_aggs; i++) {
        if (agg_item_of(c, found[i], &items[i]) != 0) goto fail;
        if (found[i]->distinct) n_distinct++;
    }
    int d0 = 0; /* the first distinct aggregate */
    while (n_distinct > 0 && !found[d0]->distinct)
        d0++;
    for (int i = 0; n_distinct > 0 && i < n_aggs; i++) {
        bool ok = found[i]->distinct ? items[i].arg && cs_pl_same_expr(items[i].arg, items[d0].arg)
                                     : reaggregated(items[i].fn) >= 0;
        if (!ok) {
            cs_pl_unsupported(c, "distinct aggregates over different arguments, or with avg, "
                                 "first or last of other arguments");
            goto fail;
        }
    }

    /* the input columns: keys, then the arguments */
    int g = p->n_group_by, n_cols = g + 2 * n_aggs;
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(n_cols + 1));
    int *ords = cs_xcalloc((size_t)(n_cols + 1), sizeof *ords);
    int n_args = 0;
    for (int i = 0; i < g; i++) /* a collated key groups by its collation key */
        cols[i] = cs_pl_collation_key(c, p->group_by[i]);
    for (int i = 0; i < n_aggs; i++) /* count(DISTINCT collated) counts collation keys */
        if (items[i].arg)
            cols[g + n_args++] = found[i]->distinct && items[i].fn == CS_AGG_COUNT
                                     ? cs_pl_collation_key(c, items[i].arg)
                                     : items[i].arg;
    for (int i = 0; i < n_aggs; i++)
        if (items[i].arg2) cols[g + n_args++] = items[i].arg2;
    if (cs_pl_columns(c, &in, cols, g + n_args, ords) != 0) {
        free(ords);
        goto fail;
    }
    cs_agg_spec *specs = cs_xcalloc((size_t)(n_aggs + 1), sizeof *specs);
    int k = g;
    for (int i = 0; i < n_aggs; i++) {
        specs[i].fn = items[i].fn;
        specs[i].input = items[i].arg ? ords[k++] : -1;
        specs[i].arg_type = items[i].arg ? in.attrs[specs[i].input]->type : NULL;
        specs[i].ignore_nulls = items[i].ignore_nulls;
        specs[i].name = pretty(c, items[i].agg);
        specs[i].input2 = -1;
        specs[i].param = items[i].param;
        specs[i].percentages = items[i].percentages;
        specs[i].n_percentages = items[i].n_percentages;
        specs[i].percentages_array = items[i].percentages_array;
    }
    for (int i = 0; i < n_aggs; i++)
        if (items[i].arg2) {
            specs[i].input2 = ords[k++];
            specs[i].arg2_type = in.attrs[specs[i].input2]->type;
        }
    cs_sql_expr **results = cs_sql_alloc(c->arena, sizeof *results * (size_t)(n_aggs + 1));
    int rc;
    if (n_distinct == 0) {
        rc = two_phase(c, &in, ords, g, specs, n_aggs, results);
    } else {
        /* Spark's planAggregateWithOneDistinct: level 1 groups by keys + the distinct
         * argument, computing the other aggregates there; level 2 groups by the keys, the
         * distinct aggregates over the (now distinct) argument and the others merged from
         * level 1's results (counts summed) */
        int n_nd = n_aggs - n_distinct, d_col = specs[d0].input;
        int *k1 = cs_xcalloc((size_t)(g + 2), sizeof *k1);
        memcpy(k1, ords, sizeof *k1 * (size_t)g);
        k1[g] = d_col;
        cs_agg_spec *nd = cs_xcalloc((size_t)(n_nd + 1), sizeof *nd);
        cs_sql_expr **nd_res = cs_sql_alloc(c->arena, sizeof *nd_res * (size_t)(n_nd + 1));
        for (int i = 0, j = 0; i < n_aggs; i++)
            if (!found[i]->distinct) nd[j++] = specs[i];
        rc = two_phase(c, &in, k1, g + 1, nd, n_nd, nd_res);
        free(k1);
        free(nd);
        if (rc == 0) {
            int *k2 = cs_xcalloc((size_t)(g + 1), sizeof *k2);
            for (int i = 0; i < g; i++)
                k2[i] = i;
            for (int i = 0, j = 0; i < n_aggs; i++) {
                if (found[i]->distinct) {
                    specs[i].input = g;
                    specs[i].arg_type = in.attrs[g]->type;
                    continue;
                }
                specs[i].fn = (cs_agg_fn)reaggregated(specs[i].fn);
                specs[i].input = g + 1 + j;
                specs[i].arg_type = in.attrs[g + 1 + j]->type;
                specs[i].ignore_nulls = false;
                j++;
            }
            rc = two_phase(c, &in, k2, g, specs, n_aggs, results);
            free(k2);
            for (int i = 0; rc == 0 && i < n_aggs; i++)
                if (!found[i]->distinct &&
                    (items[i].fn == CS_AGG_COUNT || items[i].fn == CS_AGG_COUNT_STAR ||
                     items[i].fn == CS_AGG_COUNT_IF))
                    results[i] = coalesce_zero(c, results[i]);
        }
    }
    free(specs);
    free(ords);
    if (rc != 0) goto fail;

    /* the aggregate list over the keys and results */
    cs_sql_expr **from = cs_sql_alloc(c->arena, sizeof *from * (size_t)(n_aggs + g + 1));
    cs_sql_expr **to = cs_sql_alloc(c->arena, sizeof *to * (size_t)(n_aggs + g + 1));
    int n_map = 0;
    for (int i = 0; i < n_aggs; i++) {
        from[n_map] = (cs_sql_expr *)found[i];
        to[n_map++] = cast_to(c, results[i], found[i]->type);
    }
    cs_sql_expr **first_to = cs_sql_alloc(c->arena, sizeof *first_to * (size_t)(g + 1));
    for (int i = 0; i < g; i++) {
        first_to[i] = first_of[i] >= 0 ? to[first_of[i]] : NULL;
        if (p->group_by[i]->kind != CS_EX_ATTR || first_of[i] >= 0) {
            from[n_map] = p->group_by[i];
            to[n_map++] = first_to[i] ? first_to[i] : in.attrs[i];
        }
    }
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++)
        list[i] = cs_pl_collation_key_attrs(c, cs_pl_replace(c, p->exprs[i], from, to, n_map),
                                            p->group_by, first_to, g);
    if (cs_pl_project(c, &in, list, p->n_exprs) != 0) goto fail;
    *out = in;
    return 0;
fail:
    cs_phys_free(in.node);
    return -1;
}

int cs_pl_distinct(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (p && cs_pl_exact(c, out, p->output, p->n_output) != 0) goto fail;
    int *keys = cs_xcalloc((size_t)(out->n + 1), sizeof *keys);
    for (int i = 0; i < out->n; i++)
        keys[i] = i;
    cs_sql_expr **attrs = out->attrs;
    int n = out->n, rc = two_phase(c, out, keys, n, NULL, 0, NULL);
    free(keys);
    if (rc != 0) goto fail;
    out->attrs = attrs;
    return 0;
fail:
    cs_phys_free(out->node);
    return -1;
}

/* ---- windows ---- */

static int64_t literal_long(const cs_sql_expr *e, int64_t dflt)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal || !cs_column_is_valid(e->literal, 0))
        return dflt;
    switch (e->literal->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)(const void *)e->literal->values)[0];
    case CS_TYPE_SHORT:
        return ((const int16_t *)(const void *)e->literal->values)[0];
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        return ((const int32_t *)(const void *)e->literal->values)[0];
    case CS_TYPE_LONG:
        return ((const int64_t *)(const void *)e->literal->values)[0];
    default:
        return dflt;
    }
}

static void frame_bound(const cs_frame_bound *b, cs_win_bound_kind *kind, int64_t *off,
                        cs_column **value)
{
    switch (b->kind) {
    case CS_BOUND_UNBOUNDED_PRECEDING:
        *kind = CS_WB_UNBOUNDED_PRECEDING;
        return;
    case CS_BOUND_CURRENT_ROW:
        *kind = CS_WB_CURRENT_ROW;
        return;
    case CS_BOUND_UNBOUNDED_FOLLOWING:
        *kind = CS_WB_UNBOUNDED_FOLLOWING;
        return;
    default:
        break;
    }
    *kind = CS_WB_OFFSET;
    const cs_sql_expr *o = b->offset;
    int64_t v = literal_long(o, 0);
    *off = b->kind == CS_BOUND_PRECEDING ? -v : v;
    if (o && o->kind == CS_EX_LITERAL && o->literal &&
        (o->literal->type->id == CS_TYPE_DECIMAL || o->literal->type->id == CS_TYPE_INTERVAL_DT ||
         o->literal->type->id == CS_TYPE_INTERVAL_YM))
        *value = cs_column_ref(o->literal);
}

/* input2: the second input's ordinal of a two-input aggregate (else -1) */
static int window_fn(cs_pl_ctx *c, const cs_sql_expr *named, const cs_window_spec *spec, int input,
                     int input2, cs_window_fn *w)
{
    static const struct {
        const char *name;
        cs_window_fn_kind kind;
    } fns[] = {{"row_number", CS_WIN_ROW_NUMBER},
               {"rank", CS_WIN_RANK},
               {"dense_rank", CS_WIN_DENSE_RANK},
               {"percent_rank", CS_WIN_PERCENT_RANK},
               {"cume_dist", CS_WIN_CUME_DIST},
               {"ntile", CS_WIN_NTILE},
               {"lag", CS_WIN_LAG},
               {"lead", CS_WIN_LEAD},
               {"nth_value", CS_WIN_NTH_VALUE}};
    const cs_sql_expr *f = named->args[0]->args[0];
    memset(w, 0, sizeof *w);
    w->input = input;
    if (f->kind == CS_EX_AGG) {
        agg_item it;
        if (agg_item_of(c, f, &it) != 0) return -1;
        w->kind = CS_WIN_AGGREGATE;
        w->agg.fn = it.fn;
        w->agg.input = input;
        w->agg.arg_type = it.arg ? cs_col_type_ref(it.arg->type) : NULL;
        w->agg.input2 = input2;
        w->agg.arg2_type = it.arg2 ? cs_col_type_ref(it.arg2->type) : NULL;
        w->agg.param = it.param;
        if (it.n_percentages > 0) {
            size_t sz = sizeof *it.percentages * (size_t)it.n_percentages;
            double *pc = cs_xmalloc(sz);
            memcpy(pc, it.percentages, sz);
            w->agg.percentages = pc;
            w->agg.n_percentages = it.n_percentages;
            w->agg.percentages_array = it.percentages_array;
        }
        w->agg.ignore_nulls = it.ignore_nulls;
        w->agg.name = cs_xstrdup(named->name);
        w->ignore_nulls = it.ignore_nulls;
    } else {
        size_t i = 0;
        while (i < sizeof fns / sizeof *fns && strcmp(fns[i].name, f->fn) != 0)
            i++;
        if (i == sizeof fns / sizeof *fns) return cs_pl_unsupported(c, "this window function");
        w->kind = fns[i].kind;
        w->ignore_nulls = f->ignore_nulls;
        if (w->kind == CS_WIN_NTILE) w->offset = literal_long(f->n_args ? f->args[0] : NULL, 1);
        if (w->kind == CS_WIN_LAG || w->kind == CS_WIN_LEAD)
            w->offset = literal_long(f->n_args > 1 ? f->args[1] : NULL, 1);
        if (w->kind == CS_WIN_NTH_VALUE) {
            w->offset = literal_long(f->n_args > 1 ? f->args[1] : NULL, 1);
            if (f->n_args > 2 && literal_true(f->args[2])) w->ignore_nulls = true;
        }
        if ((w->kind == CS_WIN_LAG || w->kind == CS_WIN_LEAD) && f->n_args > 2) {
            const cs_sql_expr *d = f->args[2];
            if (d->kind != CS_EX_LITERAL)
                return cs_pl_unsupported(c, "a lag/lead default that is not a constant");
            if (cs_column_is_valid(d->literal, 0)) w->default_value = cs_column_ref(d->literal);
        }
    }
    cs_window_frame *fr = &w->frame;
    if (spec->has_frame) {
        fr->range = spec->frame_type == CS_FRAME_RANGE;
        frame_bound(&spec->lower, &fr->lower_kind, &fr->lower, &fr->lower_value);
        frame_bound(&spec->upper, &fr->upper_kind, &fr->upper, &fr->upper_value);
    } else if (spec->n_order > 0) {
        *fr =
            (cs_window_frame){true, CS_WB_UNBOUNDED_PRECEDING, CS_WB_CURRENT_ROW, 0, 0, NULL, NULL};
    } else {
        *fr = (cs_window_frame){
            false, CS_WB_UNBOUNDED_PRECEDING, CS_WB_UNBOUNDED_FOLLOWING, 0, 0, NULL, NULL};
    }
    w->type = cs_col_type_ref(named->type);
    w->name = cs_xstrdup(named->name);
    return 0;
}

int cs_pl_window(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    if (cs_pl_python_window_fns(p)) return cs_pl_python_window(c, p, out); /* planner_python.c */
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int np = p->n_partition, no = p->n_order, nf = p->n_exprs;
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(np + no + 2 * nf + 1));
    int *ords = cs_xcalloc((size_t)(np + no + 2 * nf + 1), sizeof *ords);
    int *fn_col = cs_xcalloc((size_t)(2 * nf + 1), sizeof *fn_col), *fn_col2 = fn_col + nf;
    int n = 0;
    for (int i = 0; i < np; i++)
        cols[n++] = p->partition[i];
    for (int i = 0; i < no; i++)
        cols[n++] = p->order[i]->kind == CS_EX_SORT_ORDER ? p->order[i]->args[0] : p->order[i];
    for (int i = 0; i < nf; i++) {
        const cs_sql_expr *named = p->exprs[i];
        const cs_sql_expr *f = named->kind == CS_EX_ALIAS && named->args[0]->kind == CS_EX_WINDOW
                                   ? named->args[0]->args[0]
                                   : NULL;
        if (!f) {
            cs_pl_unsupported(c, "a window expression that is not a function over a window");
            goto fail;
        }
        fn_col[i] = fn_col2[i] = -1;
        bool takes_input = f->kind == CS_EX_AGG || strcmp(f->fn, "lag") == 0 ||
                           strcmp(f->fn, "lead") == 0 || strcmp(f->fn, "nth_value") == 0;
        if (takes_input && f->n_args > 0) {
            agg_item it = {0};
            if (f->kind == CS_EX_AGG && agg_item_of(c, f, &it) != 0) goto fail;
            cs_sql_expr *arg = f->kind == CS_EX_AGG ? it.arg : f->args[0];
            if (arg) {
                fn_col[i] = n;
                cols[n++] = arg;
            }
            if (it.arg2) {
                fn_col2[i] = n;
                cols[n++] = it.arg2;
            }
        }
    }
    if (cs_pl_columns(c, &in, cols, n, ords) != 0) goto fail;
    if (np == 0 || !cs_pl_partitioned_by(&in, ords, np, c->pc->conf.shuffle_partitions, false))
        cs_pl_exchange(c, &in, CS_PART_HASH, ords, np, c->pc->conf.shuffle_partitions);
    cs_phys_node *s = cs_pl_node(c, CS_PH_SORT, in.attrs, in.n, 1);
    s->children[0] = in.node;
    in.node = s;
    s->n_sort_keys = np + no;
    s->sort_keys = cs_xcalloc((size_t)(np + no + 1), sizeof *s->sort_keys);
    cs_sort_key *ok = cs_xcalloc((size_t)(no + 1), sizeof *ok);
    for (int i = 0; i < np; i++)
        s->sort_keys[i] = (cs_sort_key){ords[i], false, true};
    for (int i = 0; i < no; i++) {
        const cs_sql_expr *o = p->order[i];
        bool desc = o->kind == CS_EX_SORT_ORDER && o->descending;
        ok[i] =
            (cs_sort_key){ords[np + i], desc, o->kind == CS_EX_SORT_ORDER ? o->nulls_first : !desc};
        s->sort_keys[np + i] = ok[i];
    }
    int n_out = in.n + nf;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    memcpy(attrs, in.attrs, sizeof *attrs * (size_t)in.n);
    for (int i = 0; i < nf; i++)
        attrs[in.n + i] = cs_pl_attr_of(c, p->exprs[i]);
    cs_phys_node *w = cs_pl_node(c, CS_PH_WINDOW, attrs, n_out, 1);
    w->children[0] = in.node;
    cs_pl_out was = in;
    in = (cs_pl_out){w, attrs, n_out, NULL, 0, 0};
    cs_pl_keep_partitioning(&in, &was);
    w->partition_keys = cs_xcalloc((size_t)(np + 1), sizeof *w->partition_keys);
    memcpy(w->partition_keys, ords, sizeof *ords * (size_t)np);
    w->n_partition_keys = np;
    w->order_keys = ok;
    w->n_order_keys = no;
    w->window_fns = cs_xcalloc((size_t)(nf + 1), sizeof *w->window_fns);
    for (int i = 0; i < nf; i++) {
        const cs_sql_expr *named = p->exprs[i];
        if (window_fn(c, named, named->args[0]->window, fn_col[i] >= 0 ? ords[fn_col[i]] : -1,
                      fn_col2[i] >= 0 ? ords[fn_col2[i]] : -1, &w->window_fns[i]) != 0)
            goto fail;
        w->n_window_fns++;
    }
    free(ords);
    free(fn_col);
    *out = in;
    return 0;
fail:
    free(ords);
    free(fn_col);
    cs_phys_free(in.node);
    return -1;
}

/* ---- expand, generate ---- */

int cs_pl_expand(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    int per = p->n_exprs, np = p->n_projections, total = per * np;
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(total + 1));
    int *where = cs_xcalloc((size_t)(total + 1), sizeof *where);
    int *ords = cs_xcalloc((size_t)(total + 1), sizeof *ords);
    int n = 0;
    for (int i = 0; i < total; i++) {
        const cs_sql_expr *e = p->exprs[i];
        if (e->kind == CS_EX_LITERAL && e->literal && !cs_column_is_valid(e->literal, 0)) {
            where[i] = -1;
            continue;
        }
        where[i] = n;
        cols[n++] = p->exprs[i];
    }
    if (cs_pl_columns(c, &in, cols, n, ords) != 0) {
        free(where);
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    cs_phys_node *x = cs_pl_node(c, CS_PH_EXPAND, p->output, p->n_output, 1);
    x->children[0] = in.node;
    x->n_projections = np;
    x->n_out = per;
    x->projections = cs_xcalloc((size_t)(total + 1), sizeof *x->projections);
    for (int i = 0; i < total; i++)
        x->projections[i] = where[i] < 0 ? CS_EXPAND_NULL : ords[where[i]];
    free(where);
    free(ords);
    *out = (cs_pl_out){x, p->output, p->n_output, NULL, 0, 0};
    return 0;
}

int cs_pl_generate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out)
{
    cs_pl_out in;
    if (cs_pl_plan(c, p->children[0], &in) != 0) return -1;
    const cs_sql_expr *g = p->generator;
    if (g && g->kind == CS_EX_ALIAS) g = g->args[0];
    cs_generator_kind kind;
    if (!g || g->kind != CS_EX_FUNC || g->n_args < 1) goto unsupported;
    if (strcmp(g->fn, "explode") == 0)
        kind = CS_GEN_EXPLODE;
    else if (strcmp(g->fn, "posexplode") == 0)
        kind = CS_GEN_POSEXPLODE;
    else if (strcmp(g->fn, "inline") == 0)
        kind = CS_GEN_INLINE;
    else if (strcmp(g->fn, "stack") == 0)
        kind = CS_GEN_STACK;
    else if (strcmp(g->fn, "variant_explode") == 0)
        kind = CS_GEN_VARIANT_EXPLODE;
    else
        goto unsupported;
    int n_args = kind == CS_GEN_STACK ? g->n_args - 1 : 1;
    int *ords = cs_xcalloc((size_t)(n_args + 1), sizeof *ords);
    if (cs_pl_columns(c, &in, g->args + (kind == CS_GEN_STACK), n_args, ords) != 0) {
        free(ords);
        cs_phys_free(in.node);
        return -1;
    }
    /* the input's columns in the rows: not those nobody above reads (ColumnPruning's
     * unrequired ones) nor those projected here for the generator alone */
    const cs_logical_plan *lc = p->children[0];
    int k = p->n_output - lc->n_output;
    int *keep = cs_xcalloc((size_t)(in.n + 1), sizeof *keep), n_keep = 0;
    for (int i = 0; i < in.n; i++) {
        bool logical = cs_pl_find(lc->output, lc->n_output, in.attrs[i]->id) >= 0;
        for (int u = 0; logical && u < p->n_gen_unrequired; u++)
            logical = p->gen_unrequired[u] != in.attrs[i]->id;
        if (logical) keep[n_keep++] = i;
    }
    int n_out = n_keep + k;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(n_out + 1));
    for (int i = 0; i < n_keep; i++)
        attrs[i] = in.attrs[keep[i]];
    memcpy(attrs + n_keep, p->output + lc->n_output, sizeof *attrs * (size_t)k);
    cs_phys_node *n = cs_pl_node(c, CS_PH_GENERATE, attrs, n_out, 1);
    n->children[0] = in.node;
    if (n_keep < in.n) {
        n->generator_pruned = true;
        n->n_generator_keep = n_keep;
        n->generator_keep = keep;
    } else {
        free(keep);
    }
    n->generator = kind;
    /* explode_outer / posexplode_outer / inline_outer resolve to the plain generator's name */
    n->generator_outer = p->outer || (g->name && strstr(g->name, "_outer"));
    if (kind == CS_GEN_STACK) {
        n->generator_args = ords;
        n->n_generator_args = n_args;
        n->stack_rows = literal_long(g->args[0], 1);
    } else {
        n->generator_input = ords[0];
        free(ords);
    }
    *out = (cs_pl_out){n, attrs, n_out, NULL, 0, 0};
    cs_pl_keep_partitioning(out, &in);
    return 0;
unsupported:
    cs_phys_free(in.node);
    return cs_pl_unsupported(c, "this generator");
}
