/*
 * planner_internal.h — what the planner's files (planner.c: the tree walk, scans, joins,
 * sorts and limits; planner_agg.c: aggregates, windows, expand and generate) share.
 *
 * A planned subtree is a pl_out: its physical node and the logical attributes of the node's
 * output columns, in order. Parents bind their expressions over those attributes by expression
 * id (planner_bind.h), so a subtree may carry more columns than its logical plan's output (a
 * computed join key, a partition column no one reads); only the root (and a union's children)
 * are projected to exactly the logical output.
 *
 * Attributes the planner makes itself (partial aggregation buffers, computed keys) get negative
 * expression ids, never the session's, and live in the planner's private arena.
 */
#ifndef CSPARK_SQL_PLANNER_INTERNAL_H
#define CSPARK_SQL_PLANNER_INTERNAL_H

#include "sql/planner.h"
#include "sql/sql_arena.h"

typedef struct cs_pl_scalar cs_pl_scalar; /* a scalar subquery already run */

typedef struct cs_pl_ctx {
    const cs_sql_planner_ctx *pc;
    cs_sql_arena *arena; /* attributes and rewritten expressions of the planner */
    int64_t next_id;     /* the next planner attribute's id (negative, decreasing) */
    int next_node_id;
    cs_pl_scalar *scalars;
    cs_error *err;
    bool local_one_slice; /* the next local rows planned: one partition (planner.c) */
} cs_pl_ctx;

typedef struct cs_pl_out {
    cs_phys_node *node;
    cs_sql_expr **attrs; /* in the arena */
    int n;
    /* Spark's outputPartitioning when it is a HashPartitioning: rows are in partition
     * pmod(murmur3(part ids' columns), part_n); n_part 0: unknown */
    cs_expr_id *part;
    int n_part, part_n;
} cs_pl_out;

/* planner.c */
int cs_pl_plan(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
cs_phys_node *cs_pl_node(cs_pl_ctx *c, cs_phys_kind kind, cs_sql_expr **attrs, int n,
                         int n_children);
cs_sql_expr *cs_pl_new_attr(cs_pl_ctx *c, const char *name, cs_col_type *type, bool nullable);
/* The attribute a named expression (ATTR, or ALIAS) defines. */
cs_sql_expr *cs_pl_attr_of(cs_pl_ctx *c, const cs_sql_expr *named);
int cs_pl_find(cs_sql_expr *const *attrs, int n, cs_expr_id id);
/* Binds e over attrs (scalar subqueries run and replaced by their value first). */
int cs_pl_bind(cs_pl_ctx *c, const cs_sql_expr *e, cs_sql_expr *const *attrs, int n,
               cs_pexpr **out);
/* A PROJECT of the named expressions exprs over in (in is replaced by the project). */
int cs_pl_project(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n);
/* Projects in to exactly the attributes want[0..n) (ids, order, names) unless it is so. */
int cs_pl_exact(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *want, int n);
/* Column ordinals of exprs[0..n) in in's output: attributes found are used as they are; other
 * expressions are computed by a PROJECT added over in (which keeps in's columns first). */
int cs_pl_columns(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n, int *ords);
/* Whether in is hash-partitioned into n partitions by columns all among keys[0..n_keys) (ordinals
 * of in), as Spark's HashPartitioning satisfies a ClusteredDistribution; exact: by exactly
 * those keys in that order (what a join's two sides need). */
bool cs_pl_partitioned_by(const cs_pl_out *in, const int *keys, int n_keys, int n, bool exact);
/* Keeps in's partitioning only if its columns are all among attrs. */
void cs_pl_keep_partitioning(cs_pl_out *to, const cs_pl_out *from);
/* An EXCHANGE over in: HASH over key ordinals (n_keys > 0), or SINGLE, or RANGE (the caller
 * gives it its sort keys). */
void cs_pl_exchange(cs_pl_ctx *c, cs_pl_out *in, cs_phys_partitioning_kind kind, const int *keys,
                    int n_keys, int num_partitions);
/* The output schema an operator gives over an input of `in` (made with the constructor, which
 * checks the arguments): a new reference, or NULL + err. */
typedef cs_sql_op *(*cs_pl_op_maker)(cs_sql_op *child, void *arg, cs_error *err);
cs_col_type *cs_pl_op_schema(const cs_col_type *in, cs_pl_op_maker make, void *arg, cs_error *err);
int cs_pl_unsupported(cs_pl_ctx *c, const char *what);
/* planner_collation.c: collationkey(e) when e is a collated string (its binary collation key:
 * grouping, sort and join keys), else e itself. */
cs_sql_expr *cs_pl_collation_key(cs_pl_ctx *c, cs_sql_expr *e);
/* A DISTINCT over a collated string column as the Aggregate grouping by all its columns (which
 * groups collated keys by collation); NULL when no column is collated. */
cs_logical_plan *cs_pl_distinct_as_aggregate(cs_pl_ctx *c, const cs_logical_plan *p);
/* Appends to found (room for n_keys more) a first(key) aggregate for each collated grouping key:
 * the value a group of equal-under-the-collation strings outputs (its first one, as Spark's);
 * *first_of[i] is key i's index in found or -1 (arena). Returns the new count. */
/* e (an aggregate's output expression) with the attributes that are collated grouping keys
 * (keys[i], first_to[i] non-NULL: the value of its first() aggregate) read from first_to. */
cs_sql_expr *cs_pl_collation_key_attrs(cs_pl_ctx *c, cs_sql_expr *e, cs_sql_expr *const *keys,
                                       cs_sql_expr *const *first_to, int n);
int cs_pl_collation_firsts(cs_pl_ctx *c, cs_sql_expr *const *keys, int n_keys,
                           const cs_sql_expr **found, int n_aggs, int **first_of);
/* A copy of e with every AGG / expression in from[i] (compared as printed) replaced by to[i]. */
cs_sql_expr *cs_pl_replace(cs_pl_ctx *c, const cs_sql_expr *e, cs_sql_expr *const *from,
                           cs_sql_expr *const *to, int n);
bool cs_pl_same_expr(const cs_sql_expr *a, const cs_sql_expr *b);

/* The struct type of attrs' names, types and nullability. */
cs_col_type *cs_pl_schema_of(cs_sql_expr *const *attrs, int n);

/* planner_join.c */
int cs_pl_join(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);

/* planner_agg.c */
int cs_pl_aggregate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
int cs_pl_distinct(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
int cs_pl_window(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
int cs_pl_expand(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
int cs_pl_generate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);

/* planner_python.c */
bool cs_pl_has_python_udf(const cs_sql_expr *e);
/* Spark's ExtractPythonUDFs: every Python UDF call in exprs[0..n) is evaluated by PYTHON_EVAL
 * nodes put over in (innermost calls first, one node per kind of UDF at a time) and replaced by
 * the node's output attribute; *rewritten (in the arena) are exprs over in's new output. */
int cs_pl_python_udfs(cs_pl_ctx *c, cs_pl_out *in, cs_sql_expr *const *exprs, int n,
                      cs_sql_expr ***rewritten);
/* A PYTHON_GROUP_MAP (applyInPandas) as Exchange, Sort and a grouped PYTHON_EVAL. */
int cs_pl_python_group_map(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
/* A PYTHON_COGROUP_MAP (cogroup().applyInPandas) as a PYTHON_EVAL over two sides, each
 * exchanged and sorted by its keys. */
int cs_pl_python_cogroup_map(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
/* A PYTHON_MAP_IN_BATCH (mapInPandas, mapInArrow) as a PYTHON_EVAL over the child's partitions. */
int cs_pl_python_map_in_batch(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
/* An AGGREGATE calling grouped-aggregate pandas UDFs (cs_sql_expr_has_python_agg in its list) as
 * Exchange, Sort, an AggregateInPandas PYTHON_EVAL and a Project. */
int cs_pl_python_aggregate(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);
/* Whether a WINDOW's functions are grouped-aggregate pandas UDFs; then it is Exchange, Sort and
 * a WindowInPandas PYTHON_EVAL (every function of the node must be one). */
bool cs_pl_python_window_fns(const cs_logical_plan *p);
int cs_pl_python_window(cs_pl_ctx *c, const cs_logical_plan *p, cs_pl_out *out);

/* planner_scan.c */
int cs_pl_scan(cs_pl_ctx *c, const cs_logical_plan *rel, const cs_sql_expr *condition,
               cs_pl_out *out);

#endif /* CSPARK_SQL_PLANNER_INTERNAL_H */
