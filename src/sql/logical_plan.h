/*
 * logical_plan.h — Spark SQL logical plans as Catalyst trees, and the statements the parser
 * returns. The parser builds unresolved plans (relations by name, expressions by name); the
 * analyzer (sql/analyzer.h) resolves them against the session catalog and gives every node its
 * output attributes; the optimizer rewrites resolved plans; the planner turns them into
 * physical operators and stages.
 *
 * Node kinds follow Catalyst's logical operators (names in comments). Each node has its
 * children (`children[0]` is the input of unary nodes; `left`/`right` are children 0 and 1 of
 * joins and set operations) and the kind's fields below. Once resolved, `output` lists the
 * node's attributes (CS_EX_ATTR nodes: name, id, type, nullable, qualifier) in order.
 *
 * Ownership: nodes live in the query's cs_sql_arena. Trees are immutable once built; rules copy
 * the nodes they change (cs_logical_plan_copy) and share the rest.
 */
#ifndef CSPARK_SQL_LOGICAL_PLAN_H
#define CSPARK_SQL_LOGICAL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strutil.h"
#include "sql/sql_arena.h"
#include "sql/sql_expr.h"

typedef enum cs_plan_kind {
    CS_LP_UNRESOLVED_RELATION, /* UnresolvedRelation: parts = [db.]table, or a path relation
                                  parquet.`path` (format + path) */
    CS_LP_RELATION,            /* a resolved file relation: table (catalog entry), output */
    CS_LP_LOCAL_RELATION,      /* LocalRelation / VALUES: rows as batches; also VALUES
                                  unresolved: exprs = rows × columns of expressions */
    CS_LP_RANGE,               /* range(start, end, step, numPartitions) */
    CS_LP_ONE_ROW,             /* OneRowRelation: SELECT without FROM */
    CS_LP_PROJECT,             /* Project(exprs) */
    CS_LP_FILTER,              /* Filter(condition) */
    CS_LP_AGGREGATE,           /* Aggregate(group_by, exprs = aggregate list) */
    CS_LP_JOIN,                /* Join(left, right, join_type, condition | using) */
    CS_LP_SORT,                /* Sort(order, global) — SORT BY is global = false */
    CS_LP_LIMIT,               /* GlobalLimit/LocalLimit: limit (an expression) */
    CS_LP_OFFSET,              /* Offset: offset (an expression) */
    CS_LP_SET_OP,              /* Union / Intersect / Except: set_op, all, by_name */
    CS_LP_DISTINCT,            /* Distinct */
    CS_LP_WINDOW,              /* Window(exprs = window expressions, partition, order) */
    CS_LP_GENERATE,            /* Generate: explode/posexplode/inline/stack (generator),
                                  outer, LATERAL VIEW [OUTER] ... AS names */
    CS_LP_SUBQUERY_ALIAS,      /* SubqueryAlias: alias, optional column aliases */
    CS_LP_WITH,                /* UnresolvedWith: ctes[i] (SUBQUERY_ALIAS nodes) over child */
    CS_LP_REPARTITION,         /* Repartition(n, shuffle) / RepartitionByExpression(exprs, n)
                                  (by_expression; exprs that are sort orders: range
                                  partitioning) / RebalancePartitions(exprs, n) (rebalance):
                                  DISTRIBUTE BY, CLUSTER BY, COALESCE / REPARTITION /
                                  REPARTITION_BY_RANGE / REBALANCE hints */
    CS_LP_SAMPLE,              /* Sample: fraction or rows, seed, with_replacement */
    CS_LP_HINT,                /* UnresolvedHint: name, exprs (BROADCAST(t), MERGE, ...) */
    CS_LP_EXPAND,              /* Expand: projections (GROUPING SETS, ROLLUP, CUBE) */
    CS_LP_TABLE_FUNCTION,      /* UnresolvedTableValuedFunction: name(exprs) in FROM */
    CS_LP_PYTHON_GROUP_MAP,    /* FlatMapGroupsInPandas (applyInPandas): exprs = grouping
                                  expressions, generator = the grouped map PYTHON_UDF call over
                                  the child's columns; output: the UDF's struct fields */
    CS_LP_PYTHON_MAP_IN_BATCH, /* MapInPandas / MapInArrow (mapInPandas, mapInArrow): generator =
                                  the map iterator PYTHON_UDF call (eval type 205 / 207) over
                                  the child's columns; output: the UDF's struct fields */
    CS_LP_PYTHON_COGROUP_MAP   /* FlatMapCoGroupsInPandas / InArrow (cogroup().applyInPandas,
                                  applyInArrow): children[0] grouped by exprs, children[1] by
                                  group_by (as many); generator = the cogrouped map PYTHON_UDF
                                  (eval type 206 / 210, no arguments: it gets every column of
                                  both); output: the UDF's struct fields */
} cs_plan_kind;

/* What a LOCAL_RELATION's rows are, for EXPLAIN (Spark's node names): local rows (LocalRelation
 * / LocalTableScan), a cached plan's kept rows (InMemoryRelation / InMemoryTableScan), a
 * checkpointed Dataset's rows (LogicalRDD / Scan ExistingRDD). The last two are not folded nor
 * found empty as local rows are: Spark's rules that do so match its LocalRelation only. */
typedef enum cs_local_origin {
    CS_LOCAL_ROWS = 0,
    CS_LOCAL_CACHED,
    CS_LOCAL_CHECKPOINT
} cs_local_origin;

/* Spark's logical node name of a LOCAL_RELATION of origin o. */
static inline const char *cs_local_origin_name(cs_local_origin o)
{
    return o == CS_LOCAL_CACHED ? "InMemoryRelation" : o ? "LogicalRDD" : "LocalRelation";
}

typedef enum cs_join_type {
    CS_JOIN_INNER,
    CS_JOIN_LEFT_OUTER,
    CS_JOIN_RIGHT_OUTER,
    CS_JOIN_FULL_OUTER,
    CS_JOIN_LEFT_SEMI,
    CS_JOIN_LEFT_ANTI,
    CS_JOIN_CROSS,
    CS_JOIN_EXISTENCE /* ExistenceJoin: the optimizer's rewrite of EXISTS under OR */
} cs_join_type;

typedef enum cs_set_op { CS_SET_UNION, CS_SET_INTERSECT, CS_SET_EXCEPT } cs_set_op;

typedef struct cs_catalog_table cs_catalog_table; /* sql/catalog.h */

struct cs_logical_plan {
    cs_plan_kind kind;
    int line, pos; /* where the parser found it; 0, 0 if made later */

    int n_children;
    cs_logical_plan **children;

    /* resolution */
    bool resolved;
    int n_output;
    cs_sql_expr **output; /* ATTR nodes */
    /* PROJECT of a USING/NATURAL join, and the projections resolved over it: the join keys its
     * output leaves out (Spark's Project.hiddenOutputTag: the right keys of an inner or left
     * join, the left ones of a right join, both of a full join), which a qualified star over
     * it (t.*, a DataFrame's df["*"]) still expands to, before the output's columns */
    int n_hidden;
    cs_sql_expr **hidden;

    /* names: relation parts, alias, hint, table function, CTE name */
    int n_parts;
    const char **parts;
    const char *alias;
    int n_column_aliases; /* SUBQUERY_ALIAS t(a, b); GENERATE ... AS (a, b) */
    const char **column_aliases;
    const char *format; /* UNRESOLVED_RELATION over a path: "parquet", "csv", "json", "text" */
    const char *path;
    /* UNRESOLVED_RELATION over a path read with a DataFrameReader (Spark Connect's Read of a
     * data source): the reader's options and declared schema (NULL: inferred), as a view
     * `USING fmt OPTIONS (...)` would carry them. LOCAL_RELATION of batches made unresolved
     * (Spark Connect's createDataFrame): declared_schema names and types its columns, and the
     * analyzer gives each an attribute. */
    int n_options;
    const char **option_keys, **option_values;
    cs_col_type *declared_schema; /* a struct, borrowed (kept by the arena) */
    cs_catalog_table *table;      /* RELATION */

    /* expressions: PROJECT/AGGREGATE/WINDOW/HINT/REPARTITION/TABLE_FUNCTION lists, VALUES rows */
    int n_exprs;
    cs_sql_expr **exprs;
    int n_group_by; /* AGGREGATE */
    cs_sql_expr **group_by;
    int n_order; /* SORT, WINDOW */
    cs_sql_expr **order;
    int n_partition; /* WINDOW */
    cs_sql_expr **partition;
    cs_sql_expr *condition; /* FILTER, JOIN */
    cs_sql_expr *limit;     /* LIMIT, OFFSET, SAMPLE (rows) */

    /* JOIN */
    cs_join_type join_type;
    /* LEFT_ANTI made of `x NOT IN (subquery)` over one column with no correlated condition:
     * condition is `(x = y) OR isnull(x = y)`, which the planner may run as a null-aware anti
     * hash join (Spark's ExtractSingleColumnNullAwareAntiJoin) instead of a nested loop.
     * EXISTENCE joins: output = the left side's, then the `exists` attribute (last). */
    bool null_aware;
    bool natural;
    int n_using;
    const char **using_columns;
    /* JOIN hints the optimizer moved onto the join from HINT nodes over its sides (Spark's
     * JoinHint): "BROADCAST", "SHUFFLE_HASH", "MERGE", "SHUFFLE_REPLICATE_NL" or NULL */
    const char *left_hint, *right_hint;
    /* LIMIT: a LocalLimit (a limit per partition, the optimizer's LimitPushDown puts them
     * below a limit); else a GlobalLimit */
    bool local_limit;

    /* SORT, SET_OP, GENERATE, REPARTITION, SAMPLE */
    bool global;
    cs_set_op set_op;
    bool all, by_name;
    cs_sql_expr *generator;
    bool outer;
    /* GENERATE: the child's output attributes nobody above reads (Spark's unrequiredChildIndex,
     * set by ColumnPruning): the physical Generate leaves them out of its rows, so the input's
     * columns are not copied for every generated row; the logical output still lists them */
    int n_gen_unrequired;
    cs_expr_id *gen_unrequired;
    int64_t num_partitions; /* REPARTITION (0: spark.sql.shuffle.partitions), RANGE */
    bool shuffle;           /* REPARTITION: false for a coalesce (Repartition(n, false)) */
    bool by_expression;     /* REPARTITION: RepartitionByExpression (exprs may be empty) */
    bool rebalance;         /* REPARTITION: RebalancePartitions */
    bool barrier;           /* PYTHON_MAP_IN_BATCH: barrier mode (its stage is a barrier stage) */
    /* SAMPLE: Spark's Sample(lowerBound, upperBound, withReplacement, seed); fraction is
     * upper - lower; deterministic_order: sort each partition by every orderable column first
     * (the Connect planner's randomSplit, so that the splits of one seed are disjoint) */
    double fraction;
    double sample_lower, sample_upper;
    int64_t seed;
    bool with_replacement, deterministic_order;

    /* AGGREGATE written as PIVOT (aggregates FOR column IN (values)), until the analyzer
     * turns it into aggregates (analyzer_pivot.c): exprs are the aggregates, named or not;
     * pivot_values are expressions, an ALIAS naming the output columns of its value */
    cs_sql_expr *pivot_column;
    int n_pivot_values;
    cs_sql_expr **pivot_values;
    /* PROJECT written as UNPIVOT [INCLUDE NULLS] (value FOR name IN (columns)), until the
     * analyzer unions one projection per column (analyzer_pivot.c): pivot_values are the
     * columns (an ALIAS names its rows) */
    bool unpivot, unpivot_include_nulls;
    const char *unpivot_value, *unpivot_name;

    /* LOCAL_RELATION resolved: rows as batches (borrowed, kept by the arena) */
    int n_batches;
    cs_col_batch **batches;
    int n_rows, n_cols; /* unresolved VALUES: exprs[row * n_cols + col] */
    cs_local_origin local_origin;
    /* EXPLAIN's text after the columns: a cached plan's storage level ("StorageLevel(disk,
     * memory, deserialized, 1 replicas)"), a checkpoint's isStreaming ("false") */
    const char *local_note;

    /* RANGE */
    int64_t range_start, range_end, range_step;

    /* EXPAND: n_projections lists of n_exprs each, exprs[p * n_exprs_per + i] */
    int n_projections;

    /* WITH: ctes (SUBQUERY_ALIAS nodes), recursive not supported */
    int n_ctes;
    cs_logical_plan **ctes;

    /* statistics for the optimizer (RELATION: from file sizes; others estimated): -1 unknown */
    int64_t stat_bytes, stat_rows;
};

/* The statements the parser returns: a query, or a command around one. */
typedef enum cs_statement_kind {
    CS_STMT_QUERY,           /* plan */
    CS_STMT_EXPLAIN,         /* EXPLAIN [EXTENDED|FORMATTED|CODEGEN|COST] statement */
    CS_STMT_CREATE_TABLE,    /* CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t [(cols)] USING fmt
                                [OPTIONS (...)] [PARTITIONED BY (...)] [LOCATION 'p'] [AS query] */
    CS_STMT_CREATE_VIEW,     /* CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW v [(cols)] AS query */
    CS_STMT_DROP,            /* DROP TABLE|VIEW [IF EXISTS] name; DROP DATABASE [IF EXISTS] db
                                [RESTRICT|CASCADE]; DROP [TEMPORARY] FUNCTION [IF EXISTS] f
                                (mode "TABLE", "VIEW", "DATABASE", "FUNCTION") */
    CS_STMT_INSERT,          /* INSERT INTO|OVERWRITE [TABLE] t [PARTITION (...)] query;
                                INSERT OVERWRITE DIRECTORY 'p' USING fmt query */
    CS_STMT_SET,             /* SET key=value, SET key, SET, RESET */
    CS_STMT_SHOW,            /* SHOW TABLES|VIEWS|DATABASES|FUNCTIONS|COLUMNS, DESCRIBE */
    CS_STMT_CACHE,           /* CACHE [LAZY] TABLE t [AS query], UNCACHE TABLE, CLEAR CACHE */
    CS_STMT_USE,             /* USE db */
    CS_STMT_CREATE_FUNCTION, /* spark.udf.register(name, f): parts[0] the name, function the UDF;
                                CREATE [OR REPLACE] [TEMPORARY] FUNCTION [IF NOT EXISTS] [db.]f
                                AS 'class' [USING JAR ...]: parts the name, class_name */
    CS_STMT_CREATE_DATABASE  /* CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] db [COMMENT 'c']
                                [LOCATION 'p'] [WITH DBPROPERTIES (...)]: parts, comment,
                                location, options the properties */
} cs_statement_kind;

typedef struct cs_sql_statement {
    cs_statement_kind kind;
    cs_logical_plan *plan;          /* the query (QUERY, EXPLAIN's inner query, AS query, INSERT) */
    struct cs_sql_statement *inner; /* EXPLAIN */
    const char *mode;               /* EXPLAIN mode, SHOW what, SET/RESET, CACHE variant */
    int n_parts;
    const char **parts; /* the table/view name */
    bool or_replace, if_not_exists, if_exists, temporary, global, overwrite;
    const char *format; /* USING */
    const char *location;
    int n_options;
    const char **option_keys, **option_values;
    cs_col_type *schema; /* declared columns (borrowed, kept by the arena); NULL if none */
    int n_partition_by;
    const char **partition_by;
    /* CREATE TABLE AS made of a DataFrameWriter's saveAsTable with clusterBy: the clustering
     * columns (Spark 4's ClusterBySpec), recorded on the table */
    int n_cluster_by;
    const char **cluster_by;
    /* CREATE TABLE ... CLUSTERED BY (b, ...) [SORTED BY (s, ...)] INTO n BUCKETS, and a
     * DataFrameWriter's bucketBy(n, b, ...).sortBy(s, ...) (Spark's BucketSpec): bucketed,
     * num_buckets as written (checked when the statement runs), the columns as written;
     * n_sort_by > 0 without bucketed is a sortBy without bucketBy */
    bool bucketed;
    int num_buckets;
    int n_bucket_by, n_sort_by;
    const char **bucket_by, **sort_by;
    const char *key, *value; /* SET */
    /* Added for the parser: CREATE VIEW v (a, b) / INSERT INTO t (a, b) column names; and an
     * INSERT's PARTITION (k = v, k2): partition_by holds the keys, partition_values the
     * values as written (NULL for a dynamic key). SHOW ... LIKE 'pattern' puts the pattern in
     * value; SHOW TABLES IN db and DESCRIBE t put the name in parts; comment: COMMENT '...'. */
    int n_columns;
    const char **column_names;
    const char **partition_values;
    const char *comment;
    /* A DataFrameWriter's save (Spark Connect's WriteOperation, made as CREATE TABLE AS, INSERT
     * or INSERT OVERWRITE DIRECTORY): Spark's SaveMode, "errorifexists", "append",
     * "overwrite" or "ignore"; NULL for statements written in SQL. */
    const char *save_mode;
    /* CREATE_FUNCTION (Spark Connect's RegisterFunction): the Python UDF (a PYTHON_UDF call
     * without arguments, its result type declared) that parts[0] names. */
    const cs_sql_expr *function;
    /* CREATE FUNCTION f AS 'class': the class named; DROP DATABASE ... CASCADE; SHOW
     * [USER|SYSTEM|ALL] FUNCTIONS: function_scope "USER", "SYSTEM" or "ALL" (the default). */
    const char *class_name;
    bool cascade;
    bool extended; /* DESCRIBE ... EXTENDED (mode "DESCRIBE_DATABASE", "DESCRIBE_FUNCTION") */
    const char *function_scope;
} cs_sql_statement;

/* A zeroed node with room for n_children children, stat_* unknown (-1). */
cs_logical_plan *cs_logical_plan_new(cs_sql_arena *a, cs_plan_kind kind, int n_children);
cs_logical_plan *cs_logical_plan_copy(cs_sql_arena *a, const cs_logical_plan *p);
/* p's output set from its list of named expressions (Project, Aggregate, Window's exprs), each
 * one's attribute (cs_sql_expr_to_attr), and p marked resolved. */
void cs_logical_plan_output_of_list(cs_sql_arena *a, cs_logical_plan *p);
/* Spark's tree string of a logical plan ("Aggregate [a#1], [a#1, count(1) AS count#5L]" with
 * "+- " children), as EXPLAIN EXTENDED prints the analyzed and optimized plans. */
void cs_logical_plan_print(const cs_logical_plan *p, cs_sbuf *out);

#endif /* CSPARK_SQL_LOGICAL_PLAN_H */
