/*
 * sql_ops.h — constructors of the stateful physical operators of the SQL engine (operator.h):
 * HashAggregate, HashJoin, Sort / TopN, Limit / Offset and Union. The planner (src/sql) builds
 * them; each takes its key and value columns by ORDINAL of its child's output batch (the planner
 * puts a Project below an operator to compute keys that are expressions), so none of them
 * evaluates expressions.
 *
 * Semantics are Spark 4's:
 *   HashAggregate  modes Partial (input rows -> group keys + aggregation buffers, laid out as
 *                  Spark's aggBufferAttributes: avg -> sum, count; first -> first, valueSet; ...),
 *                  Final (group keys + buffers -> results) and Complete (rows -> results). Group
 *                  keys group as Spark's: NaN with NaN, -0.0 with 0.0 (the key comes out as 0.0),
 *                  all nulls one group. Output: the group keys then one column per buffer column
 *                  (Partial) or per aggregate (Final, Complete). With no group keys, one row even
 *                  on an empty input in Final/Complete mode (count 0, sum null), as Spark.
 *   HashJoin       hashed build side (left or right), probe side streamed; inner, left/right/full
 *                  outer, left semi, left anti (and null-aware left anti, Spark's NOT IN); null
 *                  keys never match. Output: left columns then right columns (semi/anti: left
 *                  only), the outer side's columns nullable.
 *   Sort           by key ordinals, ASC/DESC, NULLS FIRST/LAST, Spark's ordering of each type
 *                  (NaN greatest, -0.0 = 0.0, strings and binary bytewise unsigned), stable.
 *   TopN           Spark's TakeOrderedAndProject: the first `limit` rows of that order.
 *   Limit / Offset Spark's (Global/Local)Limit and offset: rows [offset, offset + limit).
 *   Union          Spark's Union (UNION ALL): the children's batches one child after another.
 *   Expand         Spark's Expand: each row once per projection (grouping sets).
 *   Window, Generate, nested loop join: see their constructors at the end.
 *
 * Memory and spilling: aggregation state, the join's build side and sort buffers are charged to
 * ctx->task_memory through ctx->alloc; when cs_col_allocator_over() they spill to ctx->spill_dir
 * (aggregate: hash partitions of the partial buffers merged back one partition at a time; join:
 * grace hash partitioning of both sides; sort: sorted runs merged back; window: the queued rows
 * of open partitions, read back as they come out), counting
 * metrics.spill_bytes / spill_count and the task's spill counters.
 *
 * Ownership: every constructor takes over its child operator(s) and copies the arrays it is
 * given; on a bad argument (an ordinal out of range, a key type that cannot be grouped or
 * ordered, an aggregate over a type it does not take) it returns NULL with err set and frees
 * the children.
 */
#ifndef CSPARK_SQLEXEC_SQL_OPS_H
#define CSPARK_SQLEXEC_SQL_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "sqlexec/operator.h"

/* ---- HashAggregate ---- */

typedef enum cs_agg_mode { CS_AGG_PARTIAL, CS_AGG_FINAL, CS_AGG_COMPLETE } cs_agg_mode;

typedef enum cs_agg_fn {
    CS_AGG_COUNT_STAR, /* count(*) / count(1): no input */
    CS_AGG_COUNT,      /* count(col): non-null values */
    CS_AGG_SUM,
    CS_AGG_AVG,
    CS_AGG_MIN,
    CS_AGG_MAX,
    CS_AGG_FIRST,
    CS_AGG_LAST,
    CS_AGG_COUNT_IF,
    CS_AGG_BOOL_AND,     /* every() too */
    CS_AGG_BOOL_OR,      /* some(), any() too */
    CS_AGG_COLLECT_LIST, /* array_agg too */
    CS_AGG_COLLECT_SET,
    CS_AGG_STDDEV_SAMP, /* stddev, std too */
    CS_AGG_STDDEV_POP,
    CS_AGG_VAR_SAMP, /* variance too */
    CS_AGG_VAR_POP,
    CS_AGG_CORR,                  /* two inputs: input (x) and input2 (y) */
    CS_AGG_COVAR_SAMP,            /* two inputs */
    CS_AGG_COVAR_POP,             /* two inputs */
    CS_AGG_APPROX_COUNT_DISTINCT, /* param: rsd (0: Spark's 0.05) */
    CS_AGG_PERCENTILE_APPROX,     /* approx_percentile too; param: accuracy (0: 10000) */
    CS_AGG_MAX_BY,                /* two inputs: input (value) and input2 (ordering) */
    CS_AGG_MIN_BY,                /* two inputs */
    CS_AGG_ANY_VALUE,             /* ignore_nulls as first() */
    CS_AGG_SKEWNESS,              /* Spark's CentralMomentAgg of order 3 */
    CS_AGG_KURTOSIS,              /* order 4 */
    CS_AGG_BIT_AND,               /* integral types: the argument's type */
    CS_AGG_BIT_OR,
    CS_AGG_BIT_XOR,
    CS_AGG_MODE,       /* the most frequent non-null value (ties: the smallest) */
    CS_AGG_PERCENTILE, /* exact percentile (median too): percentages as percentile_approx's */
    CS_AGG_TRY_SUM,    /* sum with null instead of an overflow error */
    /* regr_*(y, x): input y, input2 x, over the rows where both are non-null (corr's state) */
    CS_AGG_REGR_SLOPE,
    CS_AGG_REGR_INTERCEPT,
    CS_AGG_REGR_R2,
    CS_AGG_REGR_SXX,
    CS_AGG_REGR_SYY,
    CS_AGG_REGR_SXY,
    CS_AGG_REGR_AVGX,
    CS_AGG_REGR_AVGY,
    CS_AGG_PERCENTILE_DISC,   /* percentile_disc: the first value whose cumulative share >= p */
    CS_AGG_HISTOGRAM_NUMERIC, /* param: the number of bins */
    CS_AGG_SCHEMA_OF_VARIANT  /* schema_of_variant_agg: the merged schema of variants */
} cs_agg_fn;

typedef struct cs_agg_spec {
    cs_agg_fn fn;
    /* Partial / Complete: the input column's ordinal (-1 for count(*)). Final: the ordinal of
     * the first of this aggregate's buffer columns in the input (they are consecutive). */
    int input;
    /* The type of the aggregate's argument (what Partial/Complete read; Final needs it too to
     * know the buffers' and the result's types). Borrowed: the operator takes its own ref. NULL
     * for count(*). */
    const cs_col_type *arg_type;
    bool ignore_nulls; /* first / last / any_value */
    const char *name;  /* the output column's name (NULL: the function's name) */
    /* Two-input aggregates (corr, covar_*, max_by, min_by): the second input's ordinal in
     * Partial / Complete mode (unused in Final) and its type (borrowed). */
    int input2;
    const cs_col_type *arg2_type;
    /* approx_count_distinct: rsd; percentile_approx: accuracy (0: Spark's defaults);
     * histogram_numeric: the number of bins. */
    double param;
    /* percentile_approx: the percentages (copied), and whether the argument was an array (the
     * result is then an array of the argument's type). */
    const double *percentages;
    int n_percentages;
    bool percentages_array;
} cs_agg_spec;

/* Group keys are input ordinals (any fixed-width type, string, binary). The output schema is the
 * keys (their input names and types) then the buffers (Partial) or results (Final / Complete). */
cs_sql_op *cs_sql_op_hash_aggregate(cs_sql_op *child, cs_agg_mode mode, const int *group_keys,
                                    int n_keys, const cs_agg_spec *aggs, int n_aggs, cs_error *err);

/* Number of buffer columns of an aggregate (its Partial output columns) and the type of the
 * result (one new reference); NULL + err when the function does not take arg_type. */
int cs_agg_buffer_width(cs_agg_fn fn, const cs_col_type *arg_type);
cs_col_type *cs_agg_result_type(cs_agg_fn fn, const cs_col_type *arg_type, cs_error *err);
/* The same for a whole spec (two-input aggregates, percentile_approx's array result). */
int cs_agg_spec_buffer_width(const cs_agg_spec *spec);
cs_col_type *cs_agg_spec_result_type(const cs_agg_spec *spec, cs_error *err);
/* Whether the function reads input2. */
bool cs_agg_takes_two_inputs(cs_agg_fn fn);

/* ---- HashJoin ---- */

typedef enum cs_hash_join_type {
    CS_HJ_INNER,
    CS_HJ_LEFT_OUTER,
    CS_HJ_RIGHT_OUTER,
    CS_HJ_FULL_OUTER,
    CS_HJ_LEFT_SEMI,
    CS_HJ_LEFT_ANTI,
    CS_HJ_LEFT_ANTI_NULL_AWARE /* NOT IN: one null build key (or a null probe key with a
                                    non-empty build side) rejects the row, as Spark's
                                    null-aware anti join with a single key */
} cs_hash_join_type;

typedef enum cs_build_side { CS_BUILD_RIGHT, CS_BUILD_LEFT } cs_build_side;

/* The residual condition of a join (Spark's `condition` beyond the equi-keys), supplied by the
 * planner: given candidate pairs as a batch of left columns then right columns (always both
 * sides, also for semi/anti joins; for a hash join only those of cs_join_spec.condition_cols when
 * given), set keep[i] = 1 for the rows where the condition is true.
 * NULL: no residual condition. */
typedef int (*cs_join_condition_fn)(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err);

typedef struct cs_join_spec {
    cs_hash_join_type type;
    cs_build_side build;
    const int *left_keys, *right_keys; /* ordinals, n_keys each, same types pairwise */
    int n_keys;
    cs_join_condition_fn condition; /* may be NULL */
    void *condition_arg;            /* borrowed for the operator's life */
    /* The columns of left ++ right the condition reads, ascending, n_condition_cols of them:
     * its batch of pairs then holds only those, in that order (the others are not gathered).
     * NULL: every column. */
    const int *condition_cols;
    int n_condition_cols;
    /* The build side is the stage's broadcast input build_broadcast_input, read whole: when the
     * task's context offers it (cs_sql_exec_ctx.broadcast_shared) its hash table is built once
     * per process and shared by every task probing it (Spark's HashedRelation of a broadcast),
     * and the build child is never read. */
    bool build_broadcast;
    int build_broadcast_input;
} cs_join_spec;

cs_sql_op *cs_sql_op_hash_join(cs_sql_op *left, cs_sql_op *right, const cs_join_spec *spec,
                               cs_error *err);

/* ---- Sort, TopN, Limit, Union ---- */

typedef struct cs_sort_key {
    int ordinal;
    bool descending;
    bool nulls_first; /* Spark's default: NULLS FIRST for ASC, NULLS LAST for DESC */
} cs_sort_key;

cs_sql_op *cs_sql_op_sort(cs_sql_op *child, const cs_sort_key *keys, int n_keys, cs_error *err);
/* The first `limit` rows (after skipping `offset`) of the order: a bounded heap, never the whole
 * input in memory. */
cs_sql_op *cs_sql_op_top_n(cs_sql_op *child, const cs_sort_key *keys, int n_keys, int64_t limit,
                           int64_t offset, cs_error *err);
/* Rows [offset, offset + limit) of the child's output (limit < 0: no limit). Stops pulling from
 * the child once the limit is reached. */
cs_sql_op *cs_sql_op_limit(cs_sql_op *child, int64_t limit, int64_t offset, cs_error *err);
/* Sample(lower, upper, with_replacement, seed) of the child's rows in this task (op_sample.c):
 * without replacement the rows whose draw of rand(seed) is in [lower, upper), with it each row
 * repeated by its Poisson count of mean upper - lower, as Spark's SampleExec. */
cs_sql_op *cs_sql_op_sample(cs_sql_op *child, double lower, double upper, bool with_replacement,
                            int64_t seed);
/* UNION ALL of children whose schemas have the same column types (the first child's names;
 * a column is nullable when it is in any child). */
cs_sql_op *cs_sql_op_union(cs_sql_op **children, int n, cs_error *err);

/* Expand (Spark's ExpandExec, the rows of GROUPING SETS / ROLLUP / CUBE): every input row comes
 * out once per projection. Projection p's output column c is input column
 * projections[p * n_out + c] (CS_EXPAND_NULL: a null of that column's type, which another
 * projection's ordinal gives), followed, when grouping_ids is not NULL, by a bigint column
 * "spark_grouping_id" holding grouping_ids[p]. Output names are the first projection's input
 * names (names[c] when names is not NULL). Columns are shared with the input, never copied. */
#define CS_EXPAND_NULL (-1)
cs_sql_op *cs_sql_op_expand(cs_sql_op *child, const int *projections, int n_projections, int n_out,
                            const int64_t *grouping_ids, const char *const *names, cs_error *err);

/* ---- Window, Generate, nested loop join ---- */

/* Window functions of a WINDOW node. Ranking and offset functions ignore the frame. */
typedef enum cs_window_fn_kind {
    CS_WIN_ROW_NUMBER,
    CS_WIN_RANK,
    CS_WIN_DENSE_RANK,
    CS_WIN_PERCENT_RANK,
    CS_WIN_CUME_DIST,
    CS_WIN_NTILE,       /* offset = n */
    CS_WIN_LAG,         /* input, offset, default_value (a one-row column or NULL), ignore_nulls */
    CS_WIN_LEAD,        /* same */
    CS_WIN_NTH_VALUE,   /* input, offset = n (from 1), ignore_nulls; over the frame */
    CS_WIN_FIRST_VALUE, /* input, ignore_nulls; over the frame */
    CS_WIN_LAST_VALUE,  /* input, ignore_nulls; over the frame */
    CS_WIN_AGGREGATE    /* agg (sql_ops.h's cs_agg_spec, input by ordinal) over the frame */
} cs_window_fn_kind;

typedef enum cs_win_bound_kind {
    CS_WB_UNBOUNDED_PRECEDING,
    CS_WB_OFFSET, /* rows: offset rows from the current (negative: preceding); range: the order
                     key's value plus offset (the single order key's units: days for dates,
                     microseconds for timestamps, the value for numbers) */
    CS_WB_CURRENT_ROW,
    CS_WB_UNBOUNDED_FOLLOWING
} cs_win_bound_kind;

typedef struct cs_window_frame {
    bool range; /* RANGE frame (peers included), else ROWS */
    cs_win_bound_kind lower_kind, upper_kind;
    int64_t lower, upper;                 /* CS_WB_OFFSET */
    cs_column *lower_value, *upper_value; /* RANGE with a decimal or interval offset: one row */
} cs_window_frame;

typedef struct cs_window_fn {
    cs_window_fn_kind kind;
    int input;                /* ordinal of the argument column, -1 when none */
    int64_t offset;           /* ntile n, lag/lead offset, nth_value n */
    cs_column *default_value; /* lag/lead default (one row, of the result type) or NULL */
    bool ignore_nulls;
    cs_agg_spec agg; /* CS_WIN_AGGREGATE (agg.arg_type owned by the node: one reference) */
    cs_window_frame frame;
    cs_col_type *type; /* result type (one reference) */
    char *name;        /* output column name */
} cs_window_fn;

typedef enum cs_generator_kind {
    CS_GEN_EXPLODE,        /* array -> col; map -> key, value */
    CS_GEN_POSEXPLODE,     /* pos, then as explode */
    CS_GEN_INLINE,         /* array of structs -> the struct's fields */
    CS_GEN_STACK,          /* stack(n, ...): generator_args columns in rows of n */
    CS_GEN_VARIANT_EXPLODE /* variant -> pos, key, value (variant_explode.c's entries) */
} cs_generator_kind;

/* Spark's WindowExec: the input arrives sorted by the partition keys, then the order keys (the
 * planner puts a Sort below); every input row comes out once, followed by one column per
 * function. Ranking functions use the order keys' peers; aggregate and value functions use
 * their frame (Spark's default when the query gives none: RANGE UNBOUNDED PRECEDING to CURRENT
 * ROW with an ORDER BY, the whole partition without). A partition is held until it closes,
 * charged to the task; when the task is over its memory the queued rows are spilled and only
 * the columns the functions read stay in memory. fns are copied (their columns and types
 * referenced). */
cs_sql_op *cs_sql_op_window(cs_sql_op *child, const int *partition_keys, int n_partition_keys,
                            const cs_sort_key *order_keys, int n_order_keys,
                            const cs_window_fn *fns, int n_fns, cs_error *err);

/* Spark's GenerateExec: the child's columns, then the generator's (explode: `col`, or `key`,
 * `value` of a map; posexplode: `pos` first; inline: the struct's fields; stack: n_args /
 * stack_rows columns), one output row per generated row; outer keeps a row of nulls for an
 * empty or null input. input: the generated column's ordinal; args (STACK): ordinals. */
cs_sql_op *cs_sql_op_generate(cs_sql_op *child, cs_generator_kind kind, int input, const int *args,
                              int n_args, int64_t stack_rows, bool outer, cs_error *err);
/* The same with only the input's columns keep[0..n_keep) (ordinals, in this order) before the
 * generated ones (keep NULL: all of them). */
cs_sql_op *cs_sql_op_generate_kept(cs_sql_op *child, cs_generator_kind kind, int input,
                                   const int *args, int n_args, int64_t stack_rows, bool outer,
                                   const int *keep, int n_keep, cs_error *err);

/* Spark's BroadcastNestedLoopJoinExec / CartesianProductExec: every pair of rows of the two
 * sides for which condition holds (NULL: every pair), for the types inner (and cross), left /
 * right / full outer, left semi and left anti; the build side is held in memory (charged to
 * the task). Output as cs_sql_op_hash_join's. */
cs_sql_op *cs_sql_op_nested_loop_join(cs_sql_op *left, cs_sql_op *right, cs_hash_join_type type,
                                      cs_build_side build, cs_join_condition_fn condition,
                                      void *condition_arg, cs_error *err);

#endif /* CSPARK_SQLEXEC_SQL_OPS_H */
