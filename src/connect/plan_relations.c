/*
 * plan_relations.c — Spark Connect relations (spark.connect.Relation) as the unresolved logical
 * plans the SQL parser makes for the same query, following SparkConnectPlanner's
 * transformRelation, and the entry points of connect_plan.h.
 *
 * Node for node (the others are in plan_aggregate.c, plan_sql.c, plan_local_relation.c and
 * plan_columns.c):
 *   read.named_table     UnresolvedRelation of the identifier's parts (spark.table(t))
 *   catalog.createTable  the same over the table's name (the DataFrame createTable returns,
 *                        analysed after the execution that made the table)
 *   read.data_source     a relation over files: format (spark.sql.sources.default when none),
 *                        one path, options, declared schema (spark.read...load(p))
 *   range                Range(start, end, step, numPartitions)
 *   project              Project (no input: over OneRowRelation)
 *   filter               Filter
 *   join                 Join of every type, ON condition or USING columns
 *   set_op               Union / Intersect / Except, ALL or DISTINCT, union BY NAME (with
 *                        allowMissingColumns: plan_columns.c)
 *   sort                 Sort (global for orderBy, local for sortWithinPartitions)
 *   limit, offset        Limit / Offset of an integer literal
 *   sample               Sample(lower, upper bound, with replacement, seed); randomSplit's
 *                        (deterministic_order) over partitions sorted by every column
 *   subquery_alias       SubqueryAlias (df.alias)
 *   to_df                SubqueryAlias with column aliases (UnresolvedSubqueryColumnAliases)
 *   repartition          Repartition(n, shuffle) (coalesce(n): shuffle false);
 *                        repartition_by_expression RepartitionByExpression(exprs, n) (all
 *                        sort orders: repartitionByRange)
 *   hint                 UnresolvedHint(name, parameters)
 *   group_map            FlatMapGroupsInPandas (applyInPandas)
 *   map_partitions       MapInPandas / MapInArrow (mapInPandas, mapInArrow)
 *   co_group_map         FlatMapCoGroupsInPandas / InArrow (cogroup().applyInPandas, applyInArrow)
 *   unresolved_table_valued_function   the table-valued function in FROM (spark.tvf)
 * Refused with UNSUPPORTED_FEATURE, naming the kind: tail,
 * streaming reads, multi-path and JDBC reads, user
 * function relations (apply_in_pandas_with_state,
 * Python table functions and data sources), cached local/remote relations, crosstab,
 * approxQuantile, sampleBy, catalog relations (the server answers those), ML,
 * extensions other than the server's own (cs_cp_kept_relation). transpose: plan_transpose.c.
 *
 * Plan ids: see cs_cp in plan_internal.h.
 *
 * Called by the Spark Connect server (connect_plan.h). Ownership: nodes in ctx->arena.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "connect/plan_internal.h"
#include "formats/text_values.h"

static cs_logical_plan *unary(cs_cp *c, cs_plan_kind kind, cs_logical_plan *child)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, kind, 1);
    p->children[0] = child;
    return p;
}

static cs_sql_expr *int_literal(cs_cp *c, int32_t v)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    l.integer = v;
    cs_sql_expr *e = NULL;
    cs_cp_literal(c, &l, &e); /* an integer literal cannot fail */
    return e;
}

int cs_cp_input(cs_cp *c, const Spark__Connect__Relation *rel, const char *what,
                cs_logical_plan **out)
{
    if (!rel) return cs_cp_invalid(c, "%s needs a plan input", what);
    return cs_cp_relation(c, rel, out);
}

/* ---- read ---- */

static int read_rel(cs_cp *c, const Spark__Connect__Read *r, cs_logical_plan **out)
{
    if (r->is_streaming) return cs_cp_unsupported(c, "streaming reads (readStream)");
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_UNRESOLVED_RELATION, 0);
    if (r->read_type_case == SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE) {
        const char *name = r->named_table->unparsed_identifier;
        int rc = cs_cp_attribute_name(c, name ? name : "", &p->parts, &p->n_parts);
        if (rc) return rc;
        *out = p;
        return 0;
    }
    if (r->read_type_case != SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE)
        return cs_cp_invalid(c, "Does not support READTYPE_NOT_SET");
    const Spark__Connect__Read__DataSource *d = r->data_source;
    const char *format = CS_CP_HAS(d, format) && d->format[0] ? d->format : NULL;
    if (!format && c->ctx->session)
        format = cs_sql_session_conf(c->ctx->session, "spark.sql.sources.default");
    if (!format) format = "parquet";
    if (d->n_predicates > 0)
        return cs_cp_unsupported(c, "predicates of a %s data source (JDBC partitions)", format);
    /* options, and the path: the one argument of load(), else the `path` option */
    const char *path = d->n_paths == 1 ? d->paths[0] : NULL;
    if (d->n_paths > 1) return cs_cp_unsupported(c, "reading more than one path at once");
    p->n_options = (int)d->n_options;
    p->option_keys = (const char **)cs_cp_array(c, d->n_options);
    p->option_values = (const char **)cs_cp_array(c, d->n_options);
    for (size_t i = 0; i < d->n_options; i++) {
        p->option_keys[i] = cs_sql_strdup(c->a, d->options[i]->key);
        p->option_values[i] = cs_sql_strdup(c->a, d->options[i]->value);
        if (!path && cs_str_ieq(d->options[i]->key, "path")) path = d->options[i]->value;
    }
    if (!path) return cs_cp_unsupported(c, "reading the %s data source without a path", format);
    if (CS_CP_HAS(d, schema) && d->schema[0]) {
        int rc = cs_cp_schema_string(c, d->schema, false, &p->declared_schema);
        if (rc) return rc;
        if (p->declared_schema->id != CS_TYPE_STRUCT)
            return cs_cp_invalid(c, "Invalid schema %s", d->schema);
    }
    p->format = cs_sql_strdup(c->a, format);
    p->path = cs_sql_strdup(c->a, path);
    p->n_parts = 2; /* as the parser writes fmt.`path` */
    p->parts = (const char **)cs_cp_array(c, 2);
    p->parts[0] = p->format;
    p->parts[1] = p->path;
    *out = p;
    return 0;
}

/* ---- the relations that map node for node ---- */

static int project(cs_cp *c, const Spark__Connect__Project *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = r->input ? cs_cp_relation(c, r->input, &in) : 0;
    if (rc) return rc;
    if (!r->input) in = cs_logical_plan_new(c->a, CS_LP_ONE_ROW, 0);
    cs_logical_plan *p = unary(c, CS_LP_PROJECT, in);
    cs_logical_plan *outer = c->expr_input;
    c->expr_input = in;
    rc = cs_cp_expressions(c, r->expressions, r->n_expressions, &p->exprs);
    c->expr_input = outer;
    if (rc) return rc;
    p->n_exprs = (int)r->n_expressions;
    *out = p;
    return 0;
}

static int filter(cs_cp *c, const Spark__Connect__Filter *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "Filter", &in);
    if (rc) return rc;
    if (!r->condition) return cs_cp_invalid(c, "Filter needs a condition");
    cs_logical_plan *p = unary(c, CS_LP_FILTER, in);
    if ((rc = cs_cp_expression(c, r->condition, &p->condition)) != 0) return rc;
    *out = p;
    return 0;
}

/* groupBy(...).applyInPandas(f, schema) and applyInArrow: FlatMapGroupsInPandas (InArrow) of the
 * grouping expressions and
 * the grouped map UDF over the input's columns (SparkConnectPlanner's transformGroupMap). */
static int group_map(cs_cp *c, const Spark__Connect__GroupMap *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "GroupMap", &in);
    if (rc) return rc;
    if (!r->func) return cs_cp_invalid(c, "GroupMap needs a function");
    if (r->n_sorting_expressions || r->initial_input ||
        (r->_is_map_groups_with_state_case && r->is_map_groups_with_state))
        return cs_cp_unsupported(c, "grouped maps with sorting or state (Scala groupByKey)");
    cs_logical_plan *p = unary(c, CS_LP_PYTHON_GROUP_MAP, in);
    if ((rc = cs_cp_expressions(c, r->grouping_expressions, r->n_grouping_expressions,
                                &p->exprs)) != 0)
        return rc;
    p->n_exprs = (int)r->n_grouping_expressions;
    if ((rc = cs_cp_python_udf(c, r->func, CS_CP_UDF_GROUP_MAP, &p->generator)) != 0) return rc;
    *out = p;
    return 0;
}

/* mapInPandas / mapInArrow: MapInPandas or MapInArrow of the UDF over the input's columns
 * (SparkConnectPlanner's transformMapPartitions). is_barrier (mapInPandas(f, schema, True)) makes
 * its stage a barrier stage: its tasks launch together and see a BarrierTaskContext. */
static int map_partitions(cs_cp *c, const Spark__Connect__MapPartitions *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "MapPartitions", &in);
    if (rc) return rc;
    if (!r->func) return cs_cp_invalid(c, "MapPartitions needs a function");
    cs_logical_plan *p = unary(c, CS_LP_PYTHON_MAP_IN_BATCH, in);
    if ((rc = cs_cp_python_udf(c, r->func, CS_CP_UDF_MAP_ITER, &p->generator)) != 0) return rc;
    p->barrier = CS_CP_HAS(r, is_barrier) && r->is_barrier;
    *out = p;
    return 0;
}

/* cogroup(...).applyInPandas(f, schema) and applyInArrow: FlatMapCoGroupsInPandas (InArrow) of
 * both sides' grouping expressions and the cogrouped map UDF, which gets every column of both
 * sides (SparkConnectPlanner's transformCoGroupMap; the UDF's own arguments, the same columns,
 * are not kept: the analyzer makes them both sides' columns). */
static int co_group_map(cs_cp *c, const Spark__Connect__CoGroupMap *r, cs_logical_plan **out)
{
    cs_logical_plan *in, *other;
    int rc = cs_cp_input(c, r->input, "CoGroupMap", &in);
    if (rc || (rc = cs_cp_input(c, r->other, "CoGroupMap", &other)) != 0) return rc;
    if (!r->func) return cs_cp_invalid(c, "CoGroupMap needs a function");
    if (r->n_input_sorting_expressions || r->n_other_sorting_expressions)
        return cs_cp_unsupported(c, "cogrouped maps with sorting (Scala cogroupSorted)");
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_PYTHON_COGROUP_MAP, 2);
    p->children[0] = in;
    p->children[1] = other;
    if ((rc = cs_cp_expressions(c, r->input_grouping_expressions, r->n_input_grouping_expressions,
                                &p->exprs)) != 0 ||
        (rc = cs_cp_expressions(c, r->other_grouping_expressions, r->n_other_grouping_expressions,
                                &p->group_by)) != 0)
        return rc;
    p->n_exprs = (int)r->n_input_grouping_expressions;
    p->n_group_by = (int)r->n_other_grouping_expressions;
    if ((rc = cs_cp_python_udf(c, r->func, CS_CP_UDF_COGROUP_MAP, &p->generator)) != 0) return rc;
    p->generator->n_args = 0;
    *out = p;
    return 0;
}

static int join(cs_cp *c, const Spark__Connect__Join *r, cs_logical_plan **out)
{
    if (!r->left || !r->right) return cs_cp_invalid(c, "Both join sides must be present");
    if (r->join_condition && r->n_using_columns > 0)
        return cs_cp_invalid(c, "Using columns or join conditions cannot be set at the same time "
                                "in Join");
    if (CS_CP_HAS(r, join_data_type)) return cs_cp_unsupported(c, "typed joins (joinWith)");
    cs_join_type type;
    switch (r->join_type) {
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_UNSPECIFIED:
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER:
        type = CS_JOIN_INNER;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER:
        type = CS_JOIN_FULL_OUTER;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_OUTER:
        type = CS_JOIN_LEFT_OUTER;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_RIGHT_OUTER:
        type = CS_JOIN_RIGHT_OUTER;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI:
        type = CS_JOIN_LEFT_ANTI;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI:
        type = CS_JOIN_LEFT_SEMI;
        break;
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS:
        type = CS_JOIN_CROSS;
        break;
    default:
        return cs_cp_invalid(c, "Join type %d is not supported", (int)r->join_type);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_JOIN, 2);
    c->join_depth++;
    int rc = cs_cp_relation(c, r->left, &p->children[0]);
    if (!rc) rc = cs_cp_relation(c, r->right, &p->children[1]);
    c->join_depth--;
    if (rc) return rc;
    p->join_type = type;
    if (r->join_condition && (rc = cs_cp_expression(c, r->join_condition, &p->condition)) != 0)
        return rc;
    p->n_using = (int)r->n_using_columns;
    p->using_columns = (const char **)cs_cp_array(c, r->n_using_columns);
    for (size_t i = 0; i < r->n_using_columns; i++)
        p->using_columns[i] = cs_sql_strdup(c->a, r->using_columns[i]);
    *out = p;
    return 0;
}

static int set_op(cs_cp *c, const Spark__Connect__SetOperation *r, cs_logical_plan **out)
{
    if (!r->left_input || !r->right_input)
        return cs_cp_invalid(c, "Set operation must have 2 inputs");
    bool all = CS_CP_HAS(r, is_all) && r->is_all;
    bool by_name = CS_CP_HAS(r, by_name) && r->by_name;
    bool missing = CS_CP_HAS(r, allow_missing_columns) && r->allow_missing_columns;
    cs_set_op op;
    switch (r->set_op_type) {
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_UNION:
        op = CS_SET_UNION;
        if (!by_name && missing)
            return cs_cp_invalid(c, "UnionByName `allowMissingCol` can be true only if `byName` "
                                    "is true.");
        if (missing) return cs_cp_union_missing(c, r, all, out);
        break;
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_INTERSECT:
        op = CS_SET_INTERSECT;
        if (by_name) return cs_cp_invalid(c, "Intersect does not support union_by_name");
        break;
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_EXCEPT:
        op = CS_SET_EXCEPT;
        if (by_name) return cs_cp_invalid(c, "Except does not support union_by_name");
        break;
    default:
        return cs_cp_invalid(c, "Unsupported set operation %d", (int)r->set_op_type);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_SET_OP, 2);
    int rc = cs_cp_relation(c, r->left_input, &p->children[0]);
    if (!rc) rc = cs_cp_relation(c, r->right_input, &p->children[1]);
    if (rc) return rc;
    p->set_op = op;
    p->all = all;
    p->by_name = by_name;
    *out = p;
    return 0;
}

static int sort(cs_cp *c, const Spark__Connect__Sort *r, cs_logical_plan **out)
{
    if (r->n_order == 0) return cs_cp_invalid(c, "'order' must be present and contain elements.");
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "Sort", &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, CS_LP_SORT, in);
    p->global = CS_CP_HAS(r, is_global) && r->is_global;
    p->n_order = (int)r->n_order;
    p->order = (cs_sql_expr **)cs_cp_array(c, r->n_order);
    for (size_t i = 0; i < r->n_order; i++)
        if ((rc = cs_cp_sort_order(c, r->order[i], &p->order[i])) != 0) return rc;
    *out = p;
    return 0;
}

static int limit_like(cs_cp *c, cs_plan_kind kind, const Spark__Connect__Relation *input, int32_t n,
                      const char *what, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, input, what, &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, kind, in);
    p->limit = int_literal(c, n);
    *out = p;
    return 0;
}

static int sample(cs_cp *c, const Spark__Connect__Sample *r, cs_logical_plan **out)
{
    /* Spark's Sample node requires a fraction in [0, 1] (any nonnegative one with replacement),
     * within RandomSampler's rounding epsilon: an IllegalArgumentException of Scala's require */
    double fraction = r->upper_bound - r->lower_bound, eps = 1e-6;
    bool with_replacement = CS_CP_HAS(r, with_replacement) && r->with_replacement;
    if (fraction < -eps || (!with_replacement && fraction > 1.0 + eps)) {
        cs_sbuf f = CS_SBUF_INIT;
        cs_tv_format_double(fraction, &f);
        cs_error_set(c->err, CS_EINVAL, "requirement failed: Sampling fraction (%s) must be %s",
                     cs_sbuf_str(&f),
                     with_replacement ? "nonnegative with replacement"
                                      : "on interval [0, 1] without replacement");
        cs_sbuf_free(&f);
        return CS_EINVAL;
    }
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "Sample", &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, CS_LP_SAMPLE, in);
    p->fraction = fraction;
    p->sample_lower = r->lower_bound;
    p->sample_upper = r->upper_bound;
    p->with_replacement = with_replacement;
    p->deterministic_order = r->deterministic_order; /* randomSplit: sorted partitions */
    if (CS_CP_HAS(r, seed)) {
        p->seed = r->seed;
    } else { /* Spark draws one: Utils.random.nextLong */
        int64_t s = 0;
        if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) s = (int64_t)(uintptr_t)p;
        p->seed = s;
    }
    *out = p;
    return 0;
}

static int range(cs_cp *c, const Spark__Connect__Range *r, cs_logical_plan **out)
{
    if (r->step == 0) return cs_cp_invalid(c, "The step of a range must not be 0");
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_RANGE, 0);
    p->range_start = CS_CP_HAS(r, start) ? r->start : 0;
    p->range_end = r->end;
    p->range_step = r->step;
    p->num_partitions = CS_CP_HAS(r, num_partitions) ? r->num_partitions : 0;
    *out = p;
    return 0;
}

static int subquery_alias(cs_cp *c, const Spark__Connect__SubqueryAlias *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "SubqueryAlias", &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, CS_LP_SUBQUERY_ALIAS, in);
    p->alias = cs_sql_strdup(c->a, r->alias ? r->alias : "");
    *out = p;
    return 0;
}

static int to_df(cs_cp *c, const Spark__Connect__ToDF *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "ToDF", &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, CS_LP_SUBQUERY_ALIAS, in);
    p->alias = "__auto_generated_subquery_name";
    p->n_column_aliases = (int)r->n_column_names;
    p->column_aliases = (const char **)cs_cp_array(c, r->n_column_names);
    for (size_t i = 0; i < r->n_column_names; i++)
        p->column_aliases[i] = cs_sql_strdup(c->a, r->column_names[i]);
    *out = p;
    return 0;
}

/* Repartition(n, shuffle): DataFrame.repartition(n) (shuffle) and coalesce(n) (no shuffle) */
static int repartition(cs_cp *c, const Spark__Connect__Repartition *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "Repartition", &in);
    if (rc) return rc;
    if (r->num_partitions <= 0) /* Spark's require(): IllegalArgumentException */
        return cs_error_set(c->err, CS_EINVAL,
                            "requirement failed: Number of partitions (%d) must be positive.",
                            r->num_partitions);
    cs_logical_plan *p = unary(c, CS_LP_REPARTITION, in);
    p->num_partitions = r->num_partitions;
    p->shuffle = CS_CP_HAS(r, shuffle) && r->shuffle;
    *out = p;
    return 0;
}

/* RepartitionByExpression(exprs, n): repartition(n, cols) and, when every expression is a sort
 * order, repartitionByRange(n, cols) (range partitioning; Spark's server picks the call so). */
static int repartition_by_expression(cs_cp *c, const Spark__Connect__RepartitionByExpression *r,
                                     cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "RepartitionByExpression", &in);
    if (rc) return rc;
    size_t n_sort = 0;
    for (size_t i = 0; i < r->n_partition_exprs; i++)
        n_sort += r->partition_exprs[i] && r->partition_exprs[i]->expr_type_case ==
                                               SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SORT_ORDER;
    if (n_sort && n_sort < r->n_partition_exprs) /* Dataset.repartition's check */
        return cs_error_set(c->err, CS_EINVAL,
                            "Invalid partitionExprs specified: sort orders among %zu expressions "
                            "For range partitioning use repartitionByRange(...) instead.",
                            r->n_partition_exprs);
    if (CS_CP_HAS(r, num_partitions) && r->num_partitions <= 0)
        return cs_error_set(c->err, CS_EINVAL,
                            "requirement failed: Number of partitions (%d) must be positive.",
                            r->num_partitions);
    cs_logical_plan *p = unary(c, CS_LP_REPARTITION, in);
    if ((rc = cs_cp_expressions(c, r->partition_exprs, r->n_partition_exprs, &p->exprs)) != 0)
        return rc;
    p->n_exprs = (int)r->n_partition_exprs;
    p->num_partitions = CS_CP_HAS(r, num_partitions) ? r->num_partitions : 0;
    p->shuffle = p->by_expression = true;
    *out = p;
    return 0;
}

static int hint(cs_cp *c, const Spark__Connect__Hint *r, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, r->input, "Hint", &in);
    if (rc) return rc;
    cs_logical_plan *p = unary(c, CS_LP_HINT, in);
    p->n_parts = 1;
    p->parts = (const char **)cs_cp_array(c, 1);
    p->parts[0] = cs_sql_strdup(c->a, r->name ? r->name : "");
    if ((rc = cs_cp_expressions(c, r->parameters, r->n_parameters, &p->exprs)) != 0) return rc;
    p->n_exprs = (int)r->n_parameters;
    *out = p;
    return 0;
}

/* spark.tvf.range(...), explode(...): the parser's table-valued function in FROM */
static int table_function(cs_cp *c, const Spark__Connect__UnresolvedTableValuedFunction *f,
                          cs_logical_plan **out)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_TABLE_FUNCTION, 0);
    int rc =
        cs_cp_attribute_name(c, f->function_name ? f->function_name : "", &p->parts, &p->n_parts);
    if (!rc) rc = cs_cp_expressions(c, f->arguments, f->n_arguments, &p->exprs);
    if (rc) return rc;
    p->n_exprs = (int)f->n_arguments;
    *out = p;
    return 0;
}

static int sql_rel(cs_cp *c, const Spark__Connect__SQL *q, cs_logical_plan **out)
{
    cs_sql_statement *st;
    int rc = cs_cp_sql(c, q, &st);
    if (rc) return rc;
    if (st->kind != CS_STMT_QUERY || !st->plan)
        return cs_cp_unsupported(c, "a SQL command as a relation (run it with spark.sql's "
                                    "command path)");
    *out = st->plan;
    return 0;
}

/* ---- the dispatcher ---- */

static int relation(cs_cp *c, const Spark__Connect__Relation *r, cs_logical_plan **out)
{
    switch (r->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_READ:
        return read_rel(c, r->read, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_PROJECT:
        return project(c, r->project, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_FILTER:
        return filter(c, r->filter, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_JOIN:
        return join(c, r->join, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SET_OP:
        return set_op(c, r->set_op, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SORT:
        return sort(c, r->sort, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LIMIT:
        return limit_like(c, CS_LP_LIMIT, r->limit->input, r->limit->limit, "Limit", out);
    case SPARK__CONNECT__RELATION__REL_TYPE_OFFSET:
        return limit_like(c, CS_LP_OFFSET, r->offset->input, r->offset->offset, "Offset", out);
    case SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE:
        return cs_cp_aggregate(c, r->aggregate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SQL:
        return sql_rel(c, r->sql, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION:
        return cs_cp_local_relation(c, r->local_relation, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SAMPLE:
        return sample(c, r->sample, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DEDUPLICATE:
        return cs_cp_deduplicate(c, r->deduplicate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_RANGE:
        return range(c, r->range, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS:
        return subquery_alias(c, r->subquery_alias, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION:
        return repartition(c, r->repartition, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION_BY_EXPRESSION:
        return repartition_by_expression(c, r->repartition_by_expression, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_TO_DF:
        return to_df(c, r->to_df, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS_RENAMED:
        return cs_cp_with_columns_renamed(c, r->with_columns_renamed, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS:
        return cs_cp_with_columns(c, r->with_columns, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DROP:
        return cs_cp_drop(c, r->drop, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_HINT:
        return hint(c, r->hint, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_FILL_NA:
        return cs_cp_fill_na(c, r->fill_na, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DROP_NA:
        return cs_cp_drop_na(c, r->drop_na, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPLACE:
        return cs_cp_replace(c, r->replace, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DESCRIBE:
        return cs_cp_describe(c, r->describe, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SUMMARY:
        return cs_cp_summary(c, r->summary, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_TAIL:
        return cs_cp_unsupported(c, "tail (the last rows of a DataFrame)");
    case SPARK__CONNECT__RELATION__REL_TYPE_TO_SCHEMA:
        return cs_cp_to_schema(c, r->to_schema, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_UNPIVOT:
        return cs_cp_unpivot(c, r->unpivot, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_TRANSPOSE:
        return cs_cp_transpose(c, r->transpose, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SHOW_STRING:
    case SPARK__CONNECT__RELATION__REL_TYPE_HTML_STRING:
        return cs_cp_unsupported(c, "show strings rendered by the server");
    case SPARK__CONNECT__RELATION__REL_TYPE_GROUP_MAP:
        return group_map(c, r->group_map, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_MAP_PARTITIONS:
        return map_partitions(c, r->map_partitions, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_CO_GROUP_MAP:
        return co_group_map(c, r->co_group_map, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_APPLY_IN_PANDAS_WITH_STATE:
    case SPARK__CONNECT__RELATION__REL_TYPE_COMMON_INLINE_USER_DEFINED_TABLE_FUNCTION:
    case SPARK__CONNECT__RELATION__REL_TYPE_COMMON_INLINE_USER_DEFINED_DATA_SOURCE:
        return cs_cp_unsupported(c,
                                 "user-defined functions over relations (applyInPandasWithState, "
                                 "Python table functions and data sources)");
    case SPARK__CONNECT__RELATION__REL_TYPE_CACHED_LOCAL_RELATION:
    case SPARK__CONNECT__RELATION__REL_TYPE_CACHED_REMOTE_RELATION:
        return cs_cp_unsupported(c, "cached relations (the server resolves them)");
    case SPARK__CONNECT__RELATION__REL_TYPE_CATALOG: {
        /* createTable's DataFrame (its schema asked after the table was made) is the table, as
         * Spark's planner answers spark.table(name); the other calls the server answers */
        const Spark__Connect__Catalog *cat = r->catalog;
        const char *name =
            cat->cat_type_case == SPARK__CONNECT__CATALOG__CAT_TYPE_CREATE_TABLE
                ? cat->create_table->table_name
            : cat->cat_type_case == SPARK__CONNECT__CATALOG__CAT_TYPE_CREATE_EXTERNAL_TABLE
                ? cat->create_external_table->table_name
                : NULL;
        if (!name) return cs_cp_unsupported(c, "catalog relations (the server answers them)");
        cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_UNRESOLVED_RELATION, 0);
        int rc = cs_cp_attribute_name(c, name, &p->parts, &p->n_parts);
        if (rc) return rc;
        *out = p;
        return 0;
    }
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_WATERMARK:
        return cs_cp_unsupported(c, "withWatermark (streaming)");
    case SPARK__CONNECT__RELATION__REL_TYPE_AS_OF_JOIN:
        return cs_cp_unsupported(c, "as-of joins");
    case SPARK__CONNECT__RELATION__REL_TYPE_LATERAL_JOIN:
        return cs_cp_unsupported(c, "lateral joins");
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_RELATIONS:
        return cs_cp_with_relations(c, r->with_relations, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_UNRESOLVED_TABLE_VALUED_FUNCTION:
        return table_function(c, r->unresolved_table_valued_function, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_COLLECT_METRICS:
        return cs_cp_unsupported(c, "observed metrics (DataFrame.observe)");
    case SPARK__CONNECT__RELATION__REL_TYPE_PARSE:
        return cs_cp_unsupported(c, "parsing a DataFrame of strings as CSV or JSON");
    case SPARK__CONNECT__RELATION__REL_TYPE_COV:
        return cs_cp_cov_corr(c, r->cov->input, "covar_samp", r->cov->col1, r->cov->col2, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_CORR:
        if (CS_CP_HAS(r->corr, method) && strcmp(r->corr->method, "pearson") != 0)
            return cs_cp_invalid(c, "Currently only the calculation of the Pearson Correlation "
                                    "coefficient is supported.");
        return cs_cp_cov_corr(c, r->corr->input, "corr", r->corr->col1, r->corr->col2, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_FREQ_ITEMS:
        return cs_cp_freq_items(c, r->freq_items, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_CROSSTAB:
        return cs_cp_crosstab(c, r->crosstab, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_APPROX_QUANTILE:
        return cs_cp_approx_quantile(c, r->approx_quantile, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SAMPLE_BY:
        return cs_cp_sample_by(c, r->sample_by, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_ML_RELATION:
        return cs_cp_unsupported(c, "Spark ML relations");
    case SPARK__CONNECT__RELATION__REL_TYPE_EXTENSION:
        return cs_cp_kept_relation(c, r->extension, out);
    case SPARK__CONNECT__RELATION__REL_TYPE__NOT_SET:
        return cs_cp_invalid(c, "Expected Relation to be set, but is empty.");
    default:
        return cs_cp_invalid(c, "Relation with ID: %d is not supported.", (int)r->rel_type_case);
    }
}

/* A relation that later columns name by its plan id, under a join: give it a qualifier. */
static void qualify(cs_cp *c, int64_t id, cs_logical_plan **p)
{
    bool referred = false;
    for (int i = 0; i < c->n_ref_ids; i++)
        referred |= c->ref_ids[i] == id;
    if (!referred || c->join_depth == 0) return;
    const char *qual;
    if ((*p)->kind == CS_LP_SUBQUERY_ALIAS && (*p)->n_column_aliases == 0 && (*p)->alias[0]) {
        qual = (*p)->alias;
    } else {
        char name[48];
        snprintf(name, sizeof name, "__plan_id_%" PRId64, id);
        cs_logical_plan *s = unary(c, CS_LP_SUBQUERY_ALIAS, *p);
        s->alias = qual = cs_sql_strdup(c->a, name);
        *p = s;
    }
    int n = c->n_quals;
    int64_t *ids = cs_sql_alloc(c->a, sizeof *ids * (size_t)(n + 1));
    const char **quals = (const char **)cs_cp_array(c, (size_t)n + 1);
    if (n) {
        memcpy(ids, c->qual_ids, sizeof *ids * (size_t)n);
        memcpy(quals, c->quals, sizeof *quals * (size_t)n);
    }
    ids[n] = id;
    quals[n] = qual;
    c->qual_ids = ids;
    c->quals = quals;
    c->n_quals = n + 1;
}

int cs_cp_relation(cs_cp *c, const Spark__Connect__Relation *rel, cs_logical_plan **out)
{
    if (!rel) return cs_cp_invalid(c, "a relation is missing");
    if (++c->depth > CS_CP_MAX_DEPTH) return cs_cp_invalid(c, "the plan nests too deeply");
    int rc = relation(c, rel, out);
    c->depth--;
    if (rc == 0 && rel->common && CS_CP_HAS(rel->common, plan_id))
        qualify(c, rel->common->plan_id, out);
    return rc;
}

/* ---- connect_plan.h ---- */

int cs_connect_plan_relation(cs_connect_plan_ctx *ctx, const Spark__Connect__Relation *rel,
                             cs_logical_plan **out)
{
    cs_cp c;
    cs_cp_begin(&c, ctx, rel, NULL);
    *out = NULL;
    cs_logical_plan *p;
    int rc = cs_cp_relation(&c, rel, &p);
    if (rc == 0) *out = p;
    return rc;
}

int cs_connect_plan_expression(cs_connect_plan_ctx *ctx, const Spark__Connect__Expression *e,
                               cs_sql_expr **out)
{
    cs_cp c;
    cs_cp_begin(&c, ctx, NULL, NULL);
    *out = NULL;
    cs_sql_expr *x;
    int rc = cs_cp_expression(&c, e, &x);
    if (rc == 0) *out = x;
    return rc;
}
