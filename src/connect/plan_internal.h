/*
 * plan_internal.h — private to the Spark Connect plan translation (src/connect/plan_*.c): the
 * state of one translation and the helpers its files share. Other modules use connect_plan.h.
 *
 * The files, one responsibility each, as SparkConnectPlanner's parts:
 *   plan_relations.c       the relation dispatcher and the relations that map node for node
 *                          (read, range, project, filter, join, set operations, sort, limit,
 *                          offset, sample, subquery alias, hint, repartition, to_df)
 *   plan_aggregate.c       groupBy / rollup / cube / grouping sets / pivot
 *   plan_sql.c             the `sql` relation: text parsed with its positional or named args,
 *                          and SQL with DataFrame references (WithRelations)
 *   plan_local_relation.c  createDataFrame's Arrow IPC bytes (and schema) as batches
 *   plan_columns.c         relations Spark builds from the input's columns (withColumns,
 *                          withColumnsRenamed, drop, dropDuplicates, na.fill / drop / replace,
 *                          describe / summary): the input is analyzed for its output names
 *   plan_to_schema.c       DataFrame.to(schema): columns and nested struct fields by name
 *   plan_transpose.c       DataFrame.transpose: the collected rows transposed
 *   plan_freq_items.c      df.stat.freqItems: each column's frequent values
 *   plan_expressions.c     expressions
 *   plan_update_fields.c   Column.withField / dropFields: the struct rebuilt from its type
 *   plan_literals.c        literals and data types
 *   plan_names.c           Spark's attribute-name and multipart-identifier syntax
 *   plan_commands.c        commands (sql_command, create_dataframe_view, write_operation)
 *
 * Errors: a malformed plan is Spark's InvalidPlanInput, which Spark 4 reports as
 * INTERNAL_ERROR (SQLSTATE XX000) with the planner's message; a kind cspark does not run yet is
 * UNSUPPORTED_FEATURE (0A000), naming the kind. Both set err->error_class.
 *
 * Ownership: as connect_plan.h: every node in the ctx's arena; the protobuf messages are
 * borrowed for the call (strings are copied into the arena).
 */
#ifndef CSPARK_CONNECT_PLAN_INTERNAL_H
#define CSPARK_CONNECT_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "connect/connect_plan.h"
#include "spark/connect/commands.pb-c.h"
#include "spark/connect/expressions.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "spark/connect/types.pb-c.h"

/* Whether a proto3 `optional` field was sent: the generated code carries each such field in a
 * one-field oneof `_<field>` (the build's rewrite of `optional`, which protoc-c does not read),
 * so presence is that oneof's case. */
#define CS_CP_HAS(msg, field) ((msg)->_##field##_case != 0)

/* One translation: the caller's context plus what the walk learns on the way. */
typedef struct cs_cp {
    cs_connect_plan_ctx *ctx;
    cs_sql_arena *a;
    cs_error *err;
    /* Columns a client names through a DataFrame (df["x"], df.x) carry the plan id of that
     * DataFrame. A relation with such an id under a join is wrapped in a SubqueryAlias named
     * after it (or keeps its own alias), and those columns are qualified with it, so that
     * `a.join(b, a.id == b.id)` resolves each side as Spark's plan-id resolution does. */
    int n_ref_ids;
    int64_t *ref_ids; /* plan ids the plan's columns refer to */
    int n_quals;
    int64_t *qual_ids;
    const char **quals; /* the qualifier given to the relation of qual_ids[i] */
    int join_depth;     /* > 0 while translating a join's inputs */
    /* The unresolved input of the select or withColumns whose expressions are being
     * translated (NULL elsewhere): update_fields analyzes its struct over it for the fields. */
    cs_logical_plan *expr_input;
    int depth; /* nesting, against hostile plans */
} cs_cp;

#define CS_CP_MAX_DEPTH 2000

/* Starts a translation over ctx (collects the plan ids that columns refer to, from rel or
 * cmd; either may be NULL). */
void cs_cp_begin(cs_cp *c, cs_connect_plan_ctx *ctx, const Spark__Connect__Relation *rel,
                 const Spark__Connect__Command *cmd);

/* ---- errors: return the negative code ---- */
int cs_cp_invalid(cs_cp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cs_cp_unsupported(cs_cp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the walk ---- */
int cs_cp_relation(cs_cp *c, const Spark__Connect__Relation *rel, cs_logical_plan **out);
/* An input a relation requires: INTERNAL_ERROR naming what when missing. */
int cs_cp_input(cs_cp *c, const Spark__Connect__Relation *rel, const char *what,
                cs_logical_plan **out);
int cs_cp_expression(cs_cp *c, const Spark__Connect__Expression *e, cs_sql_expr **out);
/* n expressions into an arena array (*out NULL when n is 0). */
int cs_cp_expressions(cs_cp *c, Spark__Connect__Expression *const *es, size_t n,
                      cs_sql_expr ***out);
/* Where a Python UDF is called, which decides the eval types it may have. */
typedef enum cs_cp_udf_place {
    CS_CP_UDF_EXPRESSION, /* a scalar one: row at a time (100, 101), pandas (200, 204) */
    CS_CP_UDF_GROUP_MAP,  /* the function of applyInPandas (201) or applyInArrow (209) */
    CS_CP_UDF_MAP_ITER,   /* the function of mapInPandas (205) or mapInArrow (207) */
    CS_CP_UDF_COGROUP_MAP /* the function of cogroup().applyInPandas (206) / applyInArrow (210) */
} cs_cp_udf_place;
/* A Python UDF call (plan_expressions.c) of an eval type the place allows. */
int cs_cp_python_udf(cs_cp *c, const Spark__Connect__CommonInlineUserDefinedFunction *f,
                     cs_cp_udf_place place, cs_sql_expr **out);
int cs_cp_sort_order(cs_cp *c, const Spark__Connect__Expression__SortOrder *o, cs_sql_expr **out);

/* The relations of plan_aggregate.c, plan_sql.c, plan_local_relation.c, plan_columns.c. */
int cs_cp_aggregate(cs_cp *c, const Spark__Connect__Aggregate *g, cs_logical_plan **out);
int cs_cp_sql(cs_cp *c, const Spark__Connect__SQL *q, cs_sql_statement **out);
int cs_cp_write_operation_v2(cs_cp *c, const Spark__Connect__WriteOperationV2 *w,
                             cs_sql_statement **out);
int cs_cp_with_relations(cs_cp *c, const Spark__Connect__WithRelations *w, cs_logical_plan **out);
int cs_cp_local_relation(cs_cp *c, const Spark__Connect__LocalRelation *r, cs_logical_plan **out);
/* The server's extension relations (connect_plan.h's CS_CONNECT_KEPT_*), else
 * UNSUPPORTED_FEATURE (plan_local_relation.c). */
typedef struct Google__Protobuf__Any Google__Protobuf__Any;
int cs_cp_kept_relation(cs_cp *c, const Google__Protobuf__Any *x, cs_logical_plan **out);
int cs_cp_with_columns(cs_cp *c, const Spark__Connect__WithColumns *w, cs_logical_plan **out);
int cs_cp_with_columns_renamed(cs_cp *c, const Spark__Connect__WithColumnsRenamed *w,
                               cs_logical_plan **out);
int cs_cp_drop(cs_cp *c, const Spark__Connect__Drop *d, cs_logical_plan **out);
int cs_cp_deduplicate(cs_cp *c, const Spark__Connect__Deduplicate *d, cs_logical_plan **out);
int cs_cp_fill_na(cs_cp *c, const Spark__Connect__NAFill *f, cs_logical_plan **out);
int cs_cp_drop_na(cs_cp *c, const Spark__Connect__NADrop *d, cs_logical_plan **out);
int cs_cp_replace(cs_cp *c, const Spark__Connect__NAReplace *r, cs_logical_plan **out);
int cs_cp_describe(cs_cp *c, const Spark__Connect__StatDescribe *d, cs_logical_plan **out);
int cs_cp_summary(cs_cp *c, const Spark__Connect__StatSummary *s, cs_logical_plan **out);
/* df.stat.freqItems: the values of each column in more than support of the rows
 * (plan_freq_items.c) */
int cs_cp_freq_items(cs_cp *c, const Spark__Connect__StatFreqItems *f, cs_logical_plan **out);
/* df.stat.crosstab, approxQuantile and sampleBy (plan_stat_functions.c) */
int cs_cp_crosstab(cs_cp *c, const Spark__Connect__StatCrosstab *x, cs_logical_plan **out);
int cs_cp_approx_quantile(cs_cp *c, const Spark__Connect__StatApproxQuantile *q,
                          cs_logical_plan **out);
int cs_cp_sample_by(cs_cp *c, const Spark__Connect__StatSampleBy *s, cs_logical_plan **out);
/* pivot(col, values).agg(aggs) over in grouped by groups (plan_aggregate.c): with no values,
 * a job collects the column's distinct values first, as Spark's pivot does. */
int cs_cp_pivot(cs_cp *c, cs_logical_plan *in, cs_sql_expr **groups, int ng, cs_sql_expr *col,
                Spark__Connect__Expression__Literal **values, size_t n_values, cs_sql_expr **aggs,
                int na, cs_logical_plan **out);
/* DataFrame.transpose(indexColumn): a job collects the rows (plan_transpose.c) */
int cs_cp_transpose(cs_cp *c, const Spark__Connect__Transpose *t, cs_logical_plan **out);
/* DataFrame.to(schema): columns and nested fields by name, up-cast (plan_to_schema.c) */
int cs_cp_to_schema(cs_cp *c, const Spark__Connect__ToSchema *t, cs_logical_plan **out);
int cs_cp_unpivot(cs_cp *c, const Spark__Connect__Unpivot *u, cs_logical_plan **out);
/* df.stat.cov / corr: the one-row aggregate Spark's StatFunctions builds */
int cs_cp_cov_corr(cs_cp *c, const Spark__Connect__Relation *input, const char *fn,
                   const char *col1, const char *col2, cs_logical_plan **out);
/* unionByName(other, allowMissingColumns=True): both sides projected to the union of their
 * columns, a missing one as a typed null */
int cs_cp_union_missing(cs_cp *c, const Spark__Connect__SetOperation *s, bool all,
                        cs_logical_plan **out);

/* Column.withField / dropFields (plan_update_fields.c): the struct rebuilt, over
 * c->expr_input; UNSUPPORTED_FEATURE where there is none. */
int cs_cp_update_fields(cs_cp *c, const Spark__Connect__Expression__UpdateFields *u,
                        cs_sql_expr **out);

/* ---- literals and types (plan_literals.c) ---- */
int cs_cp_literal(cs_cp *c, const Spark__Connect__Expression__Literal *l, cs_sql_expr **out);
/* A DataType message as a column type, kept by the arena (borrowed). */
int cs_cp_data_type(cs_cp *c, const Spark__Connect__DataType *t, cs_col_type **out);
/* A schema string as Spark reads one (DataType.parseTypeWithFallback): a DataType's JSON
 * ({"type":"struct",...}, what PySpark sends), else parseDatatypeString's DDL: a table schema
 * ("a int, b string"), a data type, or struct<text>; a non-struct type becomes
 * struct<value: type> when wrap_value (LocalRelation's rule). Kept by the arena. */
int cs_cp_schema_string(cs_cp *c, const char *text, bool wrap_value, cs_col_type **out);

/* ---- names (plan_names.c) ---- */
/* Spark's UnresolvedAttribute.parseAttributeName: a.b, `a.b`.c, `a``b` -> parts in the arena.
 * INVALID_ATTRIBUTE_NAME_SYNTAX on unbalanced back-quotes. */
int cs_cp_attribute_name(cs_cp *c, const char *text, const char ***parts, int *n);
/* An UNRESOLVED_ATTR of parts. */
cs_sql_expr *cs_cp_column(cs_cp *c, const char *const *parts, int n);
/* An UNRESOLVED_ATTR of one name part (taken as it is: no dots split). */
cs_sql_expr *cs_cp_column1(cs_cp *c, const char *name);
/* name(args[0..n)) unresolved. */
cs_sql_expr *cs_cp_call(cs_cp *c, const char *name, cs_sql_expr **args, int n);
cs_sql_expr *cs_cp_alias(cs_cp *c, cs_sql_expr *e, const char *name);
/* The qualifier of the relation with plan_id, or NULL when none was given (see cs_cp). */
const char *cs_cp_plan_qualifier(cs_cp *c, int64_t plan_id);
/* Lists: an arena array of n pointers. */
void **cs_cp_array(cs_cp *c, size_t n);

/* The input's resolved output (name and type of each column), for the relations Spark builds
 * from a Dataset's columns: input is analyzed against the session's catalog (no job runs). */
int cs_cp_input_columns(cs_cp *c, const cs_logical_plan *input, cs_logical_plan **resolved);

#endif /* CSPARK_CONNECT_PLAN_INTERNAL_H */
