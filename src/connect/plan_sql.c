/*
 * plan_sql.c — Spark Connect's `sql` relation (spark.sql(text, args)): the text parsed by
 * cspark's SQL parser with its parameter markers bound, as SparkConnectPlanner's transformSql
 * wraps the parsed plan in NameParameterizedQuery / PosParameterizedQuery. The arguments come
 * in one of four fields, read in Spark's order: named_arguments (expressions, `:name`),
 * pos_arguments (expressions, `?`), then the deprecated literal maps args and pos_args.
 *
 * spark.sql(text, df=df) sends the text in a WithRelations whose references are the DataFrames
 * named by SubqueryAliases: they become the query's CTEs (Spark makes each a temporary view for
 * the statement's run; a CTE is the same name over the same plan, seen from the whole query).
 *
 * Called by plan_relations.c (the relations) and plan_commands.c (sql_command). Ownership: the
 * statement and the argument expressions live in the translation's arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
#include "sql/sql_parser.h"

/* the deprecated fields are read as Spark reads them, for older clients */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int cs_cp_sql(cs_cp *c, const Spark__Connect__SQL *q, cs_sql_statement **out)
{
    cs_sql_params params = {0};
    int rc = 0;
    if (q->n_named_arguments > 0) {
        size_t n = q->n_named_arguments;
        params.n_named = (int)n;
        params.names = (const char **)cs_cp_array(c, n);
        params.named = (cs_sql_expr **)cs_cp_array(c, n);
        for (size_t i = 0; i < n && rc == 0; i++) {
            params.names[i] = cs_sql_strdup(c->a, q->named_arguments[i]->key);
            rc = cs_cp_expression(c, q->named_arguments[i]->value, &params.named[i]);
        }
    } else if (q->n_pos_arguments > 0) {
        params.n_pos = (int)q->n_pos_arguments;
        rc = cs_cp_expressions(c, q->pos_arguments, q->n_pos_arguments, &params.pos);
    } else if (q->n_args > 0) {
        size_t n = q->n_args;
        params.n_named = (int)n;
        params.names = (const char **)cs_cp_array(c, n);
        params.named = (cs_sql_expr **)cs_cp_array(c, n);
        for (size_t i = 0; i < n && rc == 0; i++) {
            params.names[i] = cs_sql_strdup(c->a, q->args[i]->key);
            rc = cs_cp_literal(c, q->args[i]->value, &params.named[i]);
        }
    } else if (q->n_pos_args > 0) {
        size_t n = q->n_pos_args;
        params.n_pos = (int)n;
        params.pos = (cs_sql_expr **)cs_cp_array(c, n);
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = cs_cp_literal(c, q->pos_args[i], &params.pos[i]);
    }
    if (rc) return rc;
    bool any = params.n_pos > 0 || params.n_named > 0;
    const char *text = cs_sql_strdup(c->a, q->query ? q->query : "");
    return cs_sql_parse_statement_params(c->a, text, any ? &params : NULL, out, NULL, c->err);
}
#pragma GCC diagnostic pop

int cs_cp_with_relations(cs_cp *c, const Spark__Connect__WithRelations *w, cs_logical_plan **out)
{
    if (!w->root || w->root->rel_type_case != SPARK__CONNECT__RELATION__REL_TYPE_SQL ||
        w->n_references == 0)
        return cs_cp_unsupported(c, "WithRelations other than SQL with DataFrame references");
    /* each reference a SubqueryAlias named as the text names it: the query's CTEs, as Spark's
     * executeSQLWithRefs makes each a temporary view for the statement */
    cs_logical_plan *with = cs_logical_plan_new(c->a, CS_LP_WITH, 1);
    with->n_ctes = (int)w->n_references;
    with->ctes = (cs_logical_plan **)cs_cp_array(c, w->n_references);
    for (size_t i = 0; i < w->n_references; i++) {
        const Spark__Connect__Relation *ref = w->references[i];
        if (!ref || ref->rel_type_case != SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS)
            return cs_cp_invalid(c, "Invalid WithRelation reference");
        int rc = cs_cp_relation(c, ref, &with->ctes[i]);
        if (rc) return rc;
        if (with->ctes[i]->kind != CS_LP_SUBQUERY_ALIAS)
            return cs_cp_invalid(c, "Invalid WithRelation reference");
    }
    cs_sql_statement *st;
    int rc = cs_cp_sql(c, w->root->sql, &st);
    if (rc) return rc;
    if (st->kind != CS_STMT_QUERY || !st->plan)
        return cs_cp_unsupported(c, "a SQL command with DataFrame references");
    with->children[0] = st->plan;
    *out = with;
    return 0;
}
