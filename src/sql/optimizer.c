/*
 * optimizer.c — Spark's Optimizer (optimizer.h): the rule batches of Optimizer.defaultBatches
 * that cspark's plans need, run by a RuleExecutor: each batch runs its rules in order, again and
 * again until a whole pass changes nothing (a fixed point: rules return the same pointer when
 * they change nothing) or spark.sql.optimizer.maxIterations passes ran (Spark logs a warning
 * then and keeps the plan: so do we, silently); "Once" batches run one pass.
 *
 * Settings honoured (cs_sql_optimizer_conf):
 *   spark.sql.optimizer.maxIterations    the fixed point's bound (100)
 *   spark.sql.optimizer.excludedRules    comma-separated rule names (Spark's class names, e.g.
 *                                        "ConstantFolding,ColumnPruning") skipped everywhere;
 *                                        as Spark, rules needed for correctness
 *                                        (non-excludable) run anyway
 *   spark.sql.cbo.* are read by the join rules (opt_join.c).
 *   spark.sql.crossJoin.enabled          false: CheckCartesianProducts after the batches
 *
 * The batches, in Spark's order (with the rules of opt_subquery.c and opt_join.c):
 *   Finish Analysis        EliminateResolvedHint (hints onto joins), EliminateSubqueryAliases,
 *                          ReplaceExpressions, ComputeCurrentTime (with ReplaceCurrentLike)
 *   Pullup Correlated Expressions, Subquery (the optimizer over each subquery's plan)
 *   Replace Operators      RewriteSetOps, ReplaceDistinctWithAggregate
 *   Operator Optimization  push down, pruning, collapsing and expression simplification, before
 *                          and after "Infer Filters" (InferFiltersFromConstraints)
 *   Push extra predicate through join  (Once, then PushDownPredicates to a fixed point)
 *   Distinct Aggregate Rewrite   RewriteDistinctAggregates (opt_distinct_agg.c)
 *   LocalRelation          PropagateEmptyRelation
 *   RewriteSubquery        RewritePredicateSubquery, RewriteCorrelatedScalarSubquery and the
 * clean-up rules Spark runs after it
 *   Extract Python UDFs    ExtractPythonUDFFromJoinCondition, ExtractPythonUDFFromAggregate
 *                          (opt_python_udf.c)
 * Then inner joins left without a condition become CROSS joins,
 * and the result's output is the input's (same attributes, same names): a projection restores the
 * names when a removed alias renamed columns.
 *
 * Ownership: see optimizer.h. Single-threaded.
 */
#include <string.h>

#include "sql/optimizer_internal.h"
#include "sqlexec/sql_error.h"

void cs_sql_optimizer_conf_default(cs_sql_optimizer_conf *c)
{
    memset(c, 0, sizeof *c);
    c->cbo = false;
    c->join_reorder = false;
    c->max_iterations = 100;
    c->excluded_rules = NULL;
    c->cross_join = true;
    c->broadcast_threshold = 10LL << 20;
    c->ansi = true;
    c->session_tz = NULL;
}

typedef struct rule {
    const char *name; /* Spark's rule name (excludedRules matches it) */
    cs_opt_rule_fn fn;
    bool excludable;
} rule;

typedef struct batch {
    const char *name;
    bool once;
    rule rules[24];
} batch;

#define R(name, fn)                                                                                \
    {                                                                                              \
        name, fn, true                                                                             \
    }
#define R_REQUIRED(name, fn)                                                                       \
    {                                                                                              \
        name, fn, false                                                                            \
    }

/* The operator optimization rules Spark runs before and after inferring filters. */
#define OPERATOR_OPTIMIZATION_RULES                                                                \
    R("ReorderJoin", cs_opt_reorder_join), R("EliminateOuterJoin", cs_opt_eliminate_outer_join),   \
        R("PushDownPredicates", cs_opt_push_down_predicates),                                      \
        R("PushPredicateThroughJoin", cs_opt_push_predicate_through_join),                         \
        R("LimitPushDown", cs_opt_limit_push_down), R("ColumnPruning", cs_opt_column_pruning),     \
        R("CollapseProject", cs_opt_collapse_project),                                             \
        R("CollapseRepartition", cs_opt_collapse_repartition),                                     \
        R("EliminateLimits", cs_opt_eliminate_limits),                                             \
        R("NullPropagation", cs_opt_null_propagation), R("OptimizeIn", cs_opt_optimize_in),        \
        R("ConstantFolding", cs_opt_constant_folding),                                             \
        R("LikeSimplification", cs_opt_like_simplification),                                       \
        R("BooleanSimplification", cs_opt_boolean_simplification),                                 \
        R("SimplifyConditionals", cs_opt_simplify_conditionals),                                   \
        R("ReplaceNullWithFalseInPredicate", cs_opt_replace_null_with_false),                      \
        R("PruneFilters", cs_opt_prune_filters), R("SimplifyCasts", cs_opt_simplify_casts),        \
        R("RemoveRedundantAliases", cs_opt_remove_redundant_aliases),                              \
        R("RemoveNoopOperators", cs_opt_remove_noop_operators)

static const batch BATCHES[] = {
    {"Finish Analysis",
     true,
     {R_REQUIRED("EliminateResolvedHint", cs_opt_resolve_hints),
      R_REQUIRED("EliminateSubqueryAliases", cs_opt_eliminate_subquery_aliases),
      R_REQUIRED("ReplaceExpressions", cs_opt_replace_expressions),
      R_REQUIRED("ComputeCurrentTime", cs_opt_compute_current_time)}},
    {"Pullup Correlated Expressions",
     true,
     {R_REQUIRED("PullupCorrelatedPredicates", cs_opt_pull_up_correlated)}},
    {"Subquery", true, {R("OptimizeSubqueries", cs_opt_subqueries)}},
    {"LocalRelation early", false, {R("PropagateEmptyRelation", cs_opt_propagate_empty_relation)}},
    {"Replace Operators",
     false,
     {/* Spark's RewriteExceptAll, RewriteIntersectAll, ReplaceIntersectWithSemiJoin,
       * ReplaceExceptWithAntiJoin */
      R_REQUIRED("RewriteSetOps", cs_opt_rewrite_set_ops),
      R_REQUIRED("ReplaceDistinctWithAggregate", cs_opt_replace_distinct)}},
    {"Operator Optimization before Inferring Filters", false, {OPERATOR_OPTIMIZATION_RULES}},
    {"Infer Filters", true, {R("InferFiltersFromConstraints", cs_opt_infer_filters)}},
    {"Operator Optimization after Inferring Filters", false, {OPERATOR_OPTIMIZATION_RULES}},
    {"Push extra predicate through join",
     true,
     {R("PushExtraPredicateThroughJoin", cs_opt_push_extra_predicates)}},
    {"Push down the extra predicates",
     false,
     {R("PushDownPredicates", cs_opt_push_down_predicates),
      R("ColumnPruning", cs_opt_column_pruning),
      R("RemoveNoopOperators", cs_opt_remove_noop_operators)}},
    /* after Spark's "Decimal Optimizations", which may change a distinct argument */
    {"Distinct Aggregate Rewrite",
     true,
     {R_REQUIRED("RewriteDistinctAggregates", cs_opt_rewrite_distinct_aggregates)}},
    {"LocalRelation",
     false,
     {R("PropagateEmptyRelation", cs_opt_propagate_empty_relation),
      R("PruneFilters", cs_opt_prune_filters)}},
    {"RewriteSubquery",
     true,
     {R_REQUIRED("RewritePredicateSubquery", cs_opt_rewrite_predicate_subquery),
      R_REQUIRED("RewriteCorrelatedScalarSubquery", cs_opt_rewrite_scalar_subquery),
      R("PushPredicateThroughJoin", cs_opt_push_predicate_through_join),
      R("LimitPushDown", cs_opt_limit_push_down), R("ColumnPruning", cs_opt_column_pruning),
      R("CollapseProject", cs_opt_collapse_project),
      R("RemoveRedundantAliases", cs_opt_remove_redundant_aliases),
      R("RemoveNoopOperators", cs_opt_remove_noop_operators)}},
    /* SparkOptimizer's last batch (the planner extracts the other Python UDFs itself) */
    {"Extract Python UDFs",
     true,
     {R_REQUIRED("ExtractPythonUDFFromJoinCondition",
                 cs_opt_extract_python_udf_from_join_condition),
      R_REQUIRED("ExtractPythonUDFFromAggregate", cs_opt_extract_python_udf_from_aggregate)}},
};

/* Whether name is in the comma-separated list (spaces around names allowed). */
static bool excluded(const char *list, const char *name)
{
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *end = p;
        while (*end && *end != ',')
            end++;
        const char *last = end;
        while (last > p && last[-1] == ' ')
            last--;
        /* Spark's names may be qualified: org.apache.spark...optimizer.ConstantFolding */
        const char *dot = p;
        for (const char *q = p; q < last; q++)
            if (*q == '.') dot = q + 1;
        if ((size_t)(last - dot) == n && strncmp(dot, name, n) == 0) return true;
        p = end;
    }
    return false;
}

static int run_batch(cs_opt_ctx *c, const batch *b, cs_logical_plan **plan, cs_error *err)
{
    int max = b->once ? 1 : (c->conf->max_iterations > 0 ? c->conf->max_iterations : 100);
    for (int iter = 0; iter < max; iter++) {
        cs_logical_plan *start = *plan;
        for (const rule *r = b->rules; r->name; r++) {
            if (r->excludable && excluded(c->conf->excluded_rules, r->name)) continue;
            cs_logical_plan *out = NULL;
            int rc = r->fn(c, *plan, &out, err);
            if (rc != 0) return rc;
            if (!out) {
                return cs_error_set(err, CS_EINVAL,
                                    "internal error: optimizer rule %s returned no plan", r->name);
            }
            *plan = out;
        }
        if (*plan == start) break;
    }
    return 0;
}

/* Spark's CheckCartesianProducts, when spark.sql.crossJoin.enabled is false: an inner or outer
 * join left without a condition (an explicit CROSS JOIN is not one) is refused. */
static cs_logical_plan *check_cartesian(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    cs_error *err = ud;
    if (err->code || p->kind != CS_LP_JOIN || p->condition) return p;
    static const char *const names[] = {
        [CS_JOIN_INNER] = "INNER",
        [CS_JOIN_LEFT_OUTER] = "LEFT OUTER",
        [CS_JOIN_RIGHT_OUTER] = "RIGHT OUTER",
        [CS_JOIN_FULL_OUTER] = "FULL OUTER",
    };
    if ((size_t)p->join_type >= sizeof names / sizeof names[0] || !names[p->join_type]) return p;
    cs_sbuf l = {0}, r = {0};
    cs_logical_plan_print(p->children[0], &l);
    cs_logical_plan_print(p->children[1], &r);
    cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1211", "",
                     "Detected implicit cartesian product for %s join between logical plans\n%s"
                     "\nand\n%s\nJoin condition is missing or trivial.\nEither: use the CROSS "
                     "JOIN syntax to allow cartesian products between these\nrelations, or: "
                     "enable implicit cartesian products by setting the configuration\nvariable "
                     "spark.sql.crossJoin.enabled=true.",
                     names[p->join_type], cs_sbuf_str(&l), cs_sbuf_str(&r));
    cs_sbuf_free(&l);
    cs_sbuf_free(&r);
    (void)c;
    return p;
}

/* An inner join left without a condition is a CROSS join (what the planner expects). */
static cs_logical_plan *cross_without_condition(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_JOIN || p->join_type != CS_JOIN_INNER || p->condition) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->join_type = CS_JOIN_CROSS;
    return r;
}

/* A projection giving the result the names and order of the input's output, when a rewrite
 * changed them; an internal error when an attribute went missing. */
static int keep_output(cs_opt_ctx *c, const cs_logical_plan *in, cs_logical_plan **plan,
                       cs_error *err)
{
    cs_logical_plan *p = *plan;
    bool same = p->n_output == in->n_output;
    for (int i = 0; same && i < in->n_output; i++)
        same = p->output[i]->id == in->output[i]->id &&
               strcmp(p->output[i]->name, in->output[i]->name) == 0;
    if (same) return 0;
    for (int i = 0; i < in->n_output; i++)
        if (!cs_opt_output_find(p, in->output[i]->id))
            return cs_error_set(err, CS_EINVAL,
                                "internal error: the optimized plan lost the output column %s#%lld",
                                in->output[i]->name, (long long)in->output[i]->id);
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(in->n_output + 1));
    if (in->n_output) memcpy(list, in->output, sizeof *list * (size_t)in->n_output);
    *plan = cs_opt_project(c, list, in->n_output, p);
    return 0;
}

/* The batches over one plan (the whole query, or a subquery's plan through
 * c->optimize_plan). */
static int optimize_plan(cs_opt_ctx *c, const cs_logical_plan *plan, cs_logical_plan **out,
                         cs_error *err)
{
    if (!plan->resolved)
        return cs_error_set(err, CS_EINVAL, "internal error: optimizing an unresolved plan");
    cs_logical_plan *p = (cs_logical_plan *)plan;
    for (size_t i = 0; i < sizeof BATCHES / sizeof BATCHES[0]; i++) {
        int rc = run_batch(c, &BATCHES[i], &p, err);
        if (rc != 0) return rc;
    }
    if (!c->conf->cross_join) {
        cs_error_clear(err);
        cs_opt_plan_up(c, p, check_cartesian, err);
        if (err->code) return err->code;
    }
    p = cs_opt_plan_up(c, p, cross_without_condition, NULL);
    int rc = keep_output(c, plan, &p, err);
    if (rc != 0) return rc;
    *out = p;
    return 0;
}

int cs_sql_optimize(cs_catalog *catalog, cs_sql_arena *arena, const cs_sql_optimizer_conf *conf,
                    const cs_logical_plan *plan, cs_logical_plan **out, cs_error *err)
{
    cs_error local;
    cs_error_clear(&local);
    if (!err) err = &local;
    cs_sql_optimizer_conf defaults;
    if (!conf) {
        cs_sql_optimizer_conf_default(&defaults);
        conf = &defaults;
    }
    cs_opt_ctx c = {
        .catalog = catalog, .arena = arena, .conf = conf, .optimize_plan = optimize_plan};
    return optimize_plan(&c, plan, out, err);
}
