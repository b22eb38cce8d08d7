/*
 * phys_plan.h — a physical query plan as data: the tree of Spark's SparkPlan nodes (FileScan,
 * Filter, Project, HashAggregate, ShuffledHashJoin / BroadcastHashJoin, Sort, Exchange, ...)
 * that the planner (sql/planner.h) makes from an optimized logical plan, that the driver cuts
 * into stages at its exchanges (session/), that travels to executors inside a stage's SQL node
 * (plan/kinds/sql_exec.c, encoded by phys_codec.c), and that a task turns into a tree of
 * operators (operator.h, by phys_build.c) to run.
 *
 * A node has its kind, its output schema (a struct type), its children and the kind's fields
 * below; every expression in it is bound (pexpr.h: columns by ordinal of the child's output —
 * for joins, of the left output followed by the right output). Nothing here points into the
 * analyzer's arenas: a tree is self-contained, so that it can be encoded, sent and rebuilt.
 *
 * Exchanges: CS_PH_EXCHANGE (Spark's ShuffleExchangeExec) says how its child's rows are
 * distributed to the next stage; CS_PH_BROADCAST_EXCHANGE (BroadcastExchangeExec) collects its
 * child to every task of the consuming stage. The driver replaces each exchange by a leaf of the
 * consuming stage's tree (CS_PH_SHUFFLE_READ / CS_PH_BROADCAST_READ, numbered by `input`) and
 * runs the exchange's child as a stage of its own whose root is the exchange (the map side:
 * rows hash-partitioned by Spark's Murmur3 pmod, or one partition, or round-robin). Inside one
 * task's tree there are therefore no exchanges below the root.
 *
 * Partitions of a stage: a FILE_SCAN leaf gives one partition per file group (group_start), a
 * SHUFFLE_READ one per exchange partition, RANGE and LOCAL num_slices (LOCAL: rows sliced as
 * Spark's ParallelCollectionRDD slices them); every partition-giving
 * leaf of a stage's tree agrees (the planner and the driver see to it), and
 * cs_phys_inputs.partition says which one a task runs.
 *
 * Ownership: a node owns everything it holds (children, strings, arrays, types, expressions,
 * batches); cs_phys_free frees a tree. Built once, then read only (several tasks may build
 * operators from one tree at the same time).
 */
#ifndef CSPARK_SQLEXEC_PHYS_PLAN_H
#define CSPARK_SQLEXEC_PHYS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "formats/file_format.h"
#include "sqlexec/operator.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/sql_ops.h"

typedef enum cs_phys_kind {
    /* leaves */
    CS_PH_FILE_SCAN,    /* FileSourceScanExec: the files of a relation, grouped in partitions */
    CS_PH_LOCAL,        /* LocalTableScanExec: batches held in the plan, one partition */
    CS_PH_RANGE,        /* RangeExec: bigint `id` from range_start by range_step, sliced */
    CS_PH_SHUFFLE_READ, /* the reduce side of exchange `input` (AQEShuffleRead / ShuffledRowRDD) */
    CS_PH_BROADCAST_READ, /* the broadcast relation `input` (every row, in every task) */
    CS_PH_PARENT_READ,    /* the batches of narrow parent `input` of the stage's node (a union's
                             children computed by other nodes of the same stage) */
    /* unary */
    CS_PH_FILTER,         /* FilterExec: condition */
    CS_PH_PROJECT,        /* ProjectExec: exprs (names: output names) */
    CS_PH_HASH_AGGREGATE, /* HashAggregateExec: agg_mode, group_keys (ordinals), aggs */
    CS_PH_SORT,           /* SortExec: sort_keys */
    CS_PH_TOP_N,          /* TakeOrderedAndProjectExec: sort_keys, limit, offset */
    CS_PH_LIMIT,          /* GlobalLimitExec / LocalLimitExec / offset: limit (<0: none), offset */
    CS_PH_EXPAND,         /* ExpandExec: projections (CS_EXPAND_NULL), grouping_ids */
    CS_PH_WINDOW,         /* WindowExec: input sorted by partition keys then order keys */
    CS_PH_GENERATE,       /* GenerateExec: explode / posexplode / inline of generator_input */
    CS_PH_EXCHANGE,       /* ShuffleExchangeExec: partitioning (only at a stage's root) */
    CS_PH_BROADCAST_EXCHANGE, /* BroadcastExchangeExec (only at a stage's root) */
    /* binary and n-ary */
    CS_PH_HASH_JOIN,        /* ShuffledHashJoinExec / BroadcastHashJoinExec: join (sql_ops.h) */
    CS_PH_NESTED_LOOP_JOIN, /* BroadcastNestedLoopJoinExec / CartesianProductExec */
    CS_PH_UNION,            /* UnionExec: children's partitions... in one task: one after another */
    /* unary, added later */
    CS_PH_PYTHON_EVAL,    /* ArrowEvalPythonExec / BatchEvalPythonExec: Python UDFs (py_*) */
    CS_PH_SAMPLE,         /* SampleExec: sample_lower, sample_upper, with_replacement, seed */
    CS_PH_COALESCE,       /* CoalesceExec: num_partitions; the driver's only (never in a task's
                             tree: its child becomes a node of its own, read through a
                             CoalescedRDD of it, see session/query_run.c) */
    CS_PH_REUSED_EXCHANGE /* ReusedExchangeExec: a leaf reading the output of exchange `reused`
                             (plan id `input`) a second time: its shuffle or broadcast is made
                             once (sql/exchange_reuse.h). The driver's only */
} cs_phys_kind;

/* Spark's Partitioning of an exchange's output. */
typedef enum cs_phys_partitioning_kind {
    CS_PART_HASH,        /* HashPartitioning(keys, n): pmod(murmur3(keys, seed 42), n) as Spark */
    CS_PART_SINGLE,      /* SinglePartition: everything to partition 0 */
    CS_PART_ROUND_ROBIN, /* RoundRobinPartitioning(n) (REPARTITION(n) without keys) */
    CS_PART_RANGE        /* RangePartitioning(sort_keys, n): bounds from a sample, as Spark */
} cs_phys_partitioning_kind;

/* Spark's ShuffleOrigin of an exchange, as EXPLAIN shows it (the driver's only). */
typedef enum cs_phys_shuffle_origin {
    CS_ORIGIN_ENSURE_REQUIREMENTS, /* an exchange the planner adds for a distribution */
    CS_ORIGIN_REPARTITION_BY_NUM,  /* repartition(n[, cols]), REPARTITION(n[, cols]) hints */
    CS_ORIGIN_REPARTITION_BY_COL,  /* repartition(cols), DISTRIBUTE BY, REPARTITION(cols) */
    CS_ORIGIN_REBALANCE_BY_NONE,   /* REBALANCE, REBALANCE(n), REPARTITION without parameters */
    CS_ORIGIN_REBALANCE_BY_COL     /* REBALANCE([n,] cols) */
} cs_phys_shuffle_origin;

/* One Python UDF of a PYTHON_EVAL node: its pickled command and its arguments (ordinals). */
typedef struct cs_phys_py_udf {
    uint8_t *command; /* owned */
    size_t command_len;
    int n_args;
    int *args;        /* owned */
    char **arg_names; /* owned: NULL (all positional) or n_args keywords, NULL where positional */
} cs_phys_py_udf;

typedef struct cs_phys_node cs_phys_node;
struct cs_phys_node {
    cs_phys_kind kind;
    int id;              /* Spark's plan node id, for EXPLAIN and the SQL tab's metrics */
    cs_col_type *schema; /* output: a struct type (one reference); field names are output names */
    int n_children;
    cs_phys_node **children;

    /* FILE_SCAN: format (Spark's short name), options, the files' schema and the columns read
     * (read_schema: fields of data_schema; output = read_schema's fields, then the partition
     * columns), pushed filters (conjuncts over the output, bound; a pruning hint for the reader:
     * the Filter above still applies them), partition folders' values (one row per folder,
     * NULL when not partitioned), and the splits: split_uri/start/length/file_size/partition
     * (the row of partition_values, -1) per split, partition p reading splits
     * group_start[p] .. group_start[p + 1] - 1 (n_groups + 1 entries). */
    char *format;
    int n_options;
    char **option_keys, **option_values;
    cs_col_type *data_schema, *read_schema;
    int n_filters;
    cs_pexpr **filters;
    cs_col_batch *partition_values;
    int n_splits;
    char **split_uri;
    uint64_t *split_start, *split_length, *split_file_size;
    int *split_partition;
    int n_groups;
    int *group_start;
    char *table_name; /* for EXPLAIN ("FileScan parquet spark_catalog.default.lineitem[...]") */

    /* LOCAL: batches (owned references); num_slices (below) the partitions its rows are cut
     * into (0: one) */
    int n_batches;
    cs_col_batch **batches;
    /* LOCAL: what the rows are (sql/logical_plan.h's cs_local_origin), for EXPLAIN only
     * (not sent to executors): LocalTableScan, InMemoryTableScan over an InMemoryRelation of
     * storage_level (owned), Scan ExistingRDD */
    int local_origin;
    char *storage_level;

    /* RANGE */
    int64_t range_start, range_end, range_step;
    int num_slices;

    /* SHUFFLE_READ, BROADCAST_READ, PARENT_READ: which input of the stage; REUSED_EXCHANGE:
     * the plan id of the exchange it reads */
    int input;
    /* REUSED_EXCHANGE: the exchange it reads (borrowed: a node of the same plan, kept until the
     * plan is freed; its partitioning fields are copied into the leaf) */
    const cs_phys_node *reused;

    /* FILTER: condition; PROJECT: exprs (names in schema); EXCHANGE: hash keys */
    cs_pexpr *condition;
    int n_exprs;
    cs_pexpr **exprs;

    /* HASH_AGGREGATE */
    cs_agg_mode agg_mode;
    int n_group_keys;
    int *group_keys;
    int n_aggs;
    cs_agg_spec *aggs; /* arg_type: one reference each; name: owned */

    /* SORT, TOP_N, and RANGE partitioning */
    int n_sort_keys;
    cs_sort_key *sort_keys;
    int64_t limit, offset; /* TOP_N, LIMIT */
    bool global;           /* SORT / LIMIT: global (EXPLAIN's true/false) */

    /* EXPAND: n_projections rows of n_out ordinals; grouping_ids may be NULL */
    int n_projections, n_out;
    int *projections;
    int64_t *grouping_ids;

    /* WINDOW: partition keys and order keys (ordinals), functions; output = input columns then
     * one column per function */
    int n_partition_keys;
    int *partition_keys;
    int n_order_keys;
    cs_sort_key *order_keys;
    int n_window_fns;
    cs_window_fn *window_fns;

    /* GENERATE: output = the child's columns (all of them, or when generator_pruned the
     * generator_keep ordinals of them: ColumnPruning's required child output) then the
     * generator's */
    cs_generator_kind generator;
    int generator_input;  /* ordinal (EXPLODE, POSEXPLODE, INLINE) */
    int n_generator_args; /* STACK: ordinals */
    int *generator_args;
    int64_t stack_rows;
    bool generator_outer;
    bool generator_pruned;
    int n_generator_keep;
    int *generator_keep;

    /* PYTHON_EVAL: output = the child's columns then one per UDF (its type in schema); eval
     * type 201 (applyInPandas): one UDF whose args are Spark's grouped offsets ([length,
     * n_keys, key ordinals..., value ordinals...]), the child sorted by the keys, output = the
     * function's declared columns */
    int py_eval_type;        /* CS_PY_EVAL_* (python_worker.h) */
    char *py_python;         /* the interpreter of the workers */
    char *py_python_ver;     /* the client's Python version */
    int64_t py_max_records;  /* spark.sql.execution.arrow.maxRecordsPerBatch (<= 0: no limit) */
    bool py_safe_cast;       /* spark.sql.execution.pandas.convertToArrowArraySafely */
    bool py_columns_by_name; /* ...pandas.groupedMap.assignColumnsByName */
    bool py_faulthandler;    /* spark.sql.execution.pyspark.udf.faulthandler.enabled */
    bool py_barrier;         /* mapInPandas(barrier=True): its stage is a barrier stage */
    int n_py_udfs;
    cs_phys_py_udf *py_udfs;

    /* SAMPLE: the rows whose partition's draw is in [sample_lower, sample_upper), or each row
     * repeated by a Poisson count of mean sample_upper - sample_lower (with_replacement) */
    double sample_lower, sample_upper;
    bool with_replacement;
    int64_t seed;

    /* EXCHANGE; user_partitions: REPARTITION(n)'s count, which adaptive execution keeps
     * (Spark's canChangeNumPartitions false; the driver's only: not encoded) */
    cs_phys_partitioning_kind partitioning;
    int num_partitions; /* EXCHANGE; COALESCE: the partitions asked for */
    bool user_partitions;
    cs_phys_shuffle_origin shuffle_origin;

    /* HASH_JOIN, NESTED_LOOP_JOIN: type, build side, keys (ordinals of each side's output);
     * join_condition: the residual condition over left output ++ right output (may be NULL);
     * broadcast: the build side is a BROADCAST_EXCHANGE / BROADCAST_READ */
    cs_hash_join_type join_type;
    cs_build_side build_side;
    int n_join_keys;
    int *left_keys, *right_keys;
    cs_pexpr *join_condition;
    bool broadcast;
    /* HASH_JOIN shuffled: the sides adaptive execution may turn into a broadcast (the join type
     * builds them, no hint asks for a shuffle); the driver's only, not encoded */
    bool adaptive_build_left, adaptive_build_right;
    /* HASH_JOIN shuffled: the side whose map stage adaptive execution runs before the other's
     * (the one estimated smaller, which may prove small enough to broadcast: then the other
     * side's rows are never shuffled); neither when both are false. The driver's only. */
    bool adaptive_left_first, adaptive_right_first;
};

/* A zeroed node of kind with room for n_children (NULL) children; schema taken over. */
cs_phys_node *cs_phys_new(cs_phys_kind kind, cs_col_type *schema, int n_children);
void cs_phys_free(cs_phys_node *n);
/* Whether the tree runs a Python function in barrier mode (py_barrier: mapInPandas(barrier=True)),
 * which makes the stage that runs it a barrier stage. */
bool cs_phys_has_barrier(const cs_phys_node *n);
/* Spark's name of a node in EXPLAIN ("HashAggregate", "Exchange", "BroadcastHashJoin", ...). */
const char *cs_phys_node_name(const cs_phys_node *n);
/* A join's condition input: left's fields then right's (a new struct type). */
cs_col_type *cs_phys_join_input(const cs_col_type *left, const cs_col_type *right);
/* The tree as Spark 4's EXPLAIN prints a physical plan ("== Physical Plan ==" and the adaptive
 * plan's "AdaptiveSparkPlan isFinalPlan=false" line not included: the initial adaptive plan has
 * no "*(n)" codegen stages): "HashAggregate(keys=[...], functions=[...])" lines with "+- " /
 * ":- " indentation. */
void cs_phys_explain(const cs_phys_node *n, cs_sbuf *out);
/* The tree as Spark's SparkPlanInfo JSON text, appended to out: {"nodeName", "simpleString" (the
 * node's EXPLAIN line), "children", "metadata": {}, "metrics": []} per node. */
void cs_phys_plan_info(const cs_phys_node *n, cs_sbuf *out);
/* The same two under Spark's "AdaptiveSparkPlan isFinalPlan=false" root (its line, then the
 * tree indented below it; a SparkPlanInfo node with the tree as its child) when adaptive. */
void cs_phys_explain_adaptive(const cs_phys_node *n, bool adaptive, cs_sbuf *out);
void cs_phys_plan_info_adaptive(const cs_phys_node *n, bool adaptive, cs_sbuf *out);

/* ---- building a task's operators (phys_build.c) ---- */

/* What a task gives the builder: its partition, and the operators of the leaves that read the
 * stage's inputs (SHUFFLE_READ, BROADCAST_READ, PARENT_READ), made by the SQL node's task body. */
typedef struct cs_phys_inputs {
    int partition; /* the task's partition of the stage */
    cs_sql_op *(*open_input)(void *arg, const cs_phys_node *leaf, cs_error *err);
    void *arg;
} cs_phys_inputs;

/* The operator tree of one task for the tree at root (no EXCHANGE below root; a root EXCHANGE
 * or BROADCAST_EXCHANGE is the caller's sink: pass its child). NULL + err on a bad tree. */
cs_sql_op *cs_phys_build(const cs_phys_node *root, const cs_phys_inputs *in, cs_error *err);

/* ---- the wire form (phys_codec.c: proto/cspark.proto's SqlPlan) ---- */

/* Appends the encoded tree to out. */
int cs_phys_encode(const cs_phys_node *root, cs_sbuf *out, cs_error *err);
/* Appends node n alone (no children) as its wire form with the plan id 0 and its output
 * columns unnamed: what Spark's canonicalized keeps of a node (phys_canonical.h). */
int cs_phys_encode_node_canonical(const cs_phys_node *n, cs_sbuf *out, cs_error *err);
/* The tree encoded in buf[0..len), validated (ordinals within their inputs, kinds known): NULL
 * + CS_EPROTO naming what is wrong. */
cs_phys_node *cs_phys_decode(const uint8_t *buf, size_t len, cs_error *err);

/* ---- exchange data (exchange_codec.c) ---- */

/* One batch as the bytes of a shuffle record or a broadcast block (Arrow IPC's record batch
 * message, the schema being known to both sides from the plan), appended to out. */
int cs_sql_batch_encode(const cs_col_batch *b, cs_sbuf *out, cs_error *err);
/* The batch of schema encoded in buf[0..len), its columns from alloc. */
int cs_sql_batch_decode(const cs_col_type *schema, const uint8_t *buf, size_t len,
                        cs_col_allocator *alloc, cs_col_batch **out, cs_error *err);

/* Rows [start, start + len) of batch `batch` of an array of batches. */
typedef struct cs_sql_row_run {
    int32_t batch;
    int32_t start;
    int64_t len;
} cs_sql_row_run;

/* A new batch of schema whose rows are the rows of runs[0..n_runs) one after another, run r's
 * from b[runs[r].batch] (all of schema): an exchange's rows of one partition gathered once from
 * the batches they came in, each held in partition order. */
cs_col_batch *cs_sql_batch_gather_runs(cs_col_type *schema, cs_col_batch *const *b,
                                       const cs_sql_row_run *runs, int n_runs,
                                       cs_col_allocator *alloc);

/* The rows of batches b[0..n) (all of schema) one after another in one new batch. */
cs_col_batch *cs_sql_batch_concat(cs_col_type *schema, cs_col_batch *const *b, int n,
                                  cs_col_allocator *alloc);

/* The map side of a HASH / SINGLE / ROUND_ROBIN / RANGE exchange: the partition of every row
 * of batch (Spark's: pmod(murmur3_hash(keys, 42), n) for HASH; round robin from a start that
 * depends on the partition, as Spark's; by the bounds for RANGE), written to part[0..rows).
 * ex is the EXCHANGE node (its exprs bound to its child's output); bounds: RANGE's n-1 bound
 * rows (a batch of the sort keys' columns) or NULL. */
typedef struct cs_exchange_partitioner cs_exchange_partitioner;
cs_exchange_partitioner *cs_exchange_partitioner_new(const cs_phys_node *ex, int map_partition,
                                                     const cs_col_batch *bounds, cs_error *err);
int cs_exchange_partition(cs_exchange_partitioner *p, cs_col_batch *batch,
                          const cs_sql_exec_ctx *ctx, int32_t *part, cs_error *err);
void cs_exchange_partitioner_free(cs_exchange_partitioner *p);

#endif /* CSPARK_SQLEXEC_PHYS_PLAN_H */
