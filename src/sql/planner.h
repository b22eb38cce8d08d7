/*
 * planner.h — Spark's SparkPlanner and EnsureRequirements in C: turns an optimized logical plan
 * (optimizer.h) into a physical plan (sqlexec/phys_plan.h) with its exchanges, ready for the
 * driver to cut into stages.
 *
 * Strategies, as Spark 4 picks them:
 *   - RELATION (under its pushed FILTER): a FILE_SCAN of the relation's output columns, files
 *     listed and grouped into partitions as Spark's FileSourceScanExec does
 *     (spark.sql.files.maxPartitionBytes, openCostInBytes, minPartitionNum), the translatable
 *     conjuncts pushed as scan filters, the whole condition in a FILTER above;
 *   - AGGREGATE: HashAggregate partial -> Exchange hashpartitioning(keys,
 *     spark.sql.shuffle.partitions) -> HashAggregate final (no keys: Exchange SinglePartition);
 *     distinct aggregates as Spark's two-level plan; aggregate arguments and group keys that are
 *     expressions computed by a PROJECT below;
 *   - JOIN with equi-keys: BroadcastHashJoin when a side may be broadcast (a hint, or its
 *     stat_bytes at most spark.sql.autoBroadcastJoinThreshold, the right side preferred, as
 *     Spark's canBuildBroadcastRight/Left per join type), else ShuffledHashJoin over both sides
 *     hash-partitioned by their keys (Spark 4 picks SortMergeJoin there; cspark's hash join
 *     spills by grace partitioning, so the result is the same); without equi-keys a
 *     BroadcastNestedLoopJoin (or CartesianProduct);
 *   - SORT global: Exchange rangepartitioning(order, spark.sql.shuffle.partitions) then a Sort
 *     of each partition (the driver samples the exchange's input for its bounds);
 *     SORT + LIMIT: TakeOrderedAndProject; LIMIT: LocalLimit -> Exchange SinglePartition ->
 *     GlobalLimit; WINDOW: Exchange by the partition keys, Sort, Window; UNION, EXPAND,
 *     GENERATE, LOCAL_RELATION, RANGE, REPARTITION (an Exchange) as Spark;
 *   - uncorrelated scalar subqueries: planned, run first through ctx->run_scalar, and bound as
 *     literals.
 * Every operator's expressions are bound to its child's output (planner_bind.h).
 *
 * Ownership: the input plan is read only; *out is a new tree the caller frees (cs_phys_free).
 * Single-threaded.
 */
#ifndef CSPARK_SQL_PLANNER_H
#define CSPARK_SQL_PLANNER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "sql/logical_plan.h"
#include "sqlexec/phys_plan.h"

/* The settings the planner reads (Spark's keys and defaults). */
typedef struct cs_sql_planner_conf {
    int shuffle_partitions;           /* spark.sql.shuffle.partitions (200) */
    int64_t auto_broadcast_threshold; /* spark.sql.autoBroadcastJoinThreshold (10m; -1: off) */
    int64_t max_partition_bytes;      /* spark.sql.files.maxPartitionBytes (128m) */
    int64_t open_cost_bytes;          /* spark.sql.files.openCostInBytes (4m) */
    int min_partitions;               /* spark.sql.files.minPartitionNum (default parallelism) */
    int leaf_parallelism; /* spark.sql.leafNodeDefaultParallelism (default parallelism): the
                             slices of a range without a count and of local rows (at most one
                             row each) */
    bool partition_type_inference; /* spark.sql.sources.partitionColumnTypeInference.enabled */
    const char *python_exec;       /* spark.pyspark.python, else $PYSPARK_PYTHON, else python3
                                      (borrowed from the conf or the environment) */
    int64_t arrow_max_records;     /* spark.sql.execution.arrow.maxRecordsPerBatch (10000) */
    bool arrow_safe_cast;          /* spark.sql.execution.pandas.convertToArrowArraySafely */
    bool pandas_columns_by_name;   /* ...legacy.execution.pandas.groupedMap.assignColumnsByName */
    /* spark.sql.execution.pyspark.udf.faulthandler.enabled, else spark.python.worker.faulthandler.
     * enabled: a crashed worker's faulthandler log in the task's error */
    bool py_faulthandler;
} cs_sql_planner_conf;

void cs_sql_planner_conf_default(cs_sql_planner_conf *c, int default_parallelism);

typedef struct cs_sql_planner_ctx {
    cs_sql_planner_conf conf;
    /* Runs the physical plan of an uncorrelated scalar subquery (plan borrowed) and gives its
     * value: a one-row column of the plan's single output column (null when the plan gives no
     * row), or Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS error when it gives more than one. */
    int (*run_scalar)(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err);
    void *arg;
} cs_sql_planner_ctx;

/* Plans an optimized logical plan: 0 and *out, or a negative code with err (a file the scan
 * cannot list carries Spark's PATH_NOT_FOUND; a node the planner does not handle is
 * UNSUPPORTED_FEATURE naming it). The root's output columns are the plan's output, in order,
 * with its names. */
int cs_sql_plan(const cs_sql_planner_ctx *ctx, const cs_logical_plan *plan, cs_phys_node **out,
                cs_error *err);

/* The files a resolved plan reads, as Spark's Dataset.inputFiles: every file of each relation
 * over files, listed now (partition discovery as a scan's), each once, local paths as file://
 * uris. *files (the array and each string) is the caller's to free; a listing's error (Spark's
 * PATH_NOT_FOUND) is returned with err. */
int cs_sql_plan_input_files(const cs_logical_plan *plan, char ***files, int *n_files,
                            cs_error *err);

#endif /* CSPARK_SQL_PLANNER_H */
