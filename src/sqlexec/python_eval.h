/*
 * python_eval.h — the physical operators that run Python user functions in PySpark workers
 * (python_worker.h): ArrowEvalPython for scalar UDFs (op_python_eval.c; Spark's
 * ArrowEvalPythonExec / BatchEvalPythonExec), FlatMapGroupsInPandas for applyInPandas and
 * MapInPandas / MapInArrow for mapInPandas / mapInArrow, FlatMapCoGroupsInPandas for
 * cogroup().applyInPandas (op_python_group_map.c), AggregateInPandas for grouped-aggregate pandas
 * UDFs (op_python_aggregate.c).
 *
 * Built by phys_build.c from a PYTHON_EVAL node (phys_plan.h), which the planner (src/sql)
 * puts under a Project or Filter that calls Python UDFs, as Spark's ExtractPythonUDFs does, or
 * over the sorted groups of an applyInPandas (eval type 201), or over the partitions of a
 * mapInPandas / mapInArrow (205 / 207).
 *
 * Ownership: the constructor copies the spec's arrays, strings and commands, takes over the
 * child and each udfs[i].result_type reference; on a bad spec it returns NULL with err set and
 * frees the child and the result types.
 */
#ifndef CSPARK_SQLEXEC_PYTHON_EVAL_H
#define CSPARK_SQLEXEC_PYTHON_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "columnar/col_type.h"
#include "common/err.h"
#include "sqlexec/operator.h"
#include "sqlexec/sql_ops.h"

typedef struct cs_py_eval_udf {
    const char *name; /* the output column's name */
    const uint8_t *command;
    size_t command_len;
    int n_args;
    const int *args;              /* ordinals of the child's output */
    const char *const *arg_names; /* NULL, or per argument its keyword (NULL: positional) */
    cs_col_type *result_type;     /* one reference, taken over */
} cs_py_eval_udf;

typedef struct cs_py_eval_spec {
    int eval_type;          /* CS_PY_EVAL_* (python_worker.h), one for every UDF of the node */
    const char *python;     /* the interpreter the workers run */
    const char *python_ver; /* the client's Python version ("3.11") */
    int n_udfs;
    const cs_py_eval_udf *udfs;
    /* spark.sql.execution.arrow.maxRecordsPerBatch: rows of an Arrow batch sent to the worker
     * at most (scalar UDFs, map in batch); <= 0: no limit */
    int64_t max_records;
    bool safe_cast; /* spark.sql.execution.pandas.convertToArrowArraySafely */
    /* spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName (applyInPandas' result
     * columns matched by name, else by position) */
    bool columns_by_name;
    /* spark.sql.execution.pyspark.udf.faulthandler.enabled: the worker's faulthandler log in the
     * error of a worker that crashed (python_worker.h) */
    bool faulthandler;
} cs_py_eval_spec;

/* Output: the child's columns, then one column per UDF (nullable, of its result type). */
cs_sql_op *cs_sql_op_python_eval(cs_sql_op *child, const cs_py_eval_spec *spec, cs_error *err);

/* FlatMapGroupsInPandas / FlatMapGroupsInArrow (op_python_group_map.c): the child sorted by the
 * grouping keys; one UDF of eval type 201 (applyInPandas) or 209 (applyInArrow) whose args are
 * Spark's grouped offsets ([length, number of keys, key ordinals..., value ordinals...]); its
 * result_type is not used: the output is schema (a struct type, taken over), the fields of the
 * function's declared type. */
cs_sql_op *cs_sql_op_python_group_map(cs_sql_op *child, const cs_py_eval_spec *spec,
                                      cs_col_type *schema, cs_error *err);

/* FlatMapCoGroupsInPandas / FlatMapCoGroupsInArrow (op_python_group_map.c): left and right each
 * sorted by its grouping keys (the same number, of the same types, in the same partitions); one
 * UDF of eval type 206 (cogroup().applyInPandas) or 210 (applyInArrow) whose args are Spark's
 * grouped offsets of the left then of the right ([length, number of keys, key ordinals...,
 * value ordinals...] each, ordinals of that side); the output is schema (taken over), as above.
 * Takes over both children (freed on a bad spec). */
cs_sql_op *cs_sql_op_python_cogroup(cs_sql_op *left, cs_sql_op *right, const cs_py_eval_spec *spec,
                                    cs_col_type *schema, cs_error *err);

/* MapInPandas / MapInArrow (op_python_group_map.c): one UDF of eval type 205 or 207 whose args
 * are the ordinals of the child's columns it reads; they go to the worker as one struct column,
 * spec->max_records rows a batch (spark.sql.execution.arrow.maxRecordsPerBatch); the output is
 * schema (a struct type, taken over), as above. */
cs_sql_op *cs_sql_op_python_map_in_batch(cs_sql_op *child, const cs_py_eval_spec *spec,
                                         cs_col_type *schema, cs_error *err);

/* AggregateInPandas (op_python_aggregate.c): the child sorted by the grouping keys keys[0..n_keys)
 * (ordinals of the child; none: the whole input is one group); the UDFs of eval type 202
 * (grouped-aggregate pandas UDFs), their args ordinals of the child; the output is schema (taken
 * over): the keys' columns (of the child's types), then one column per UDF (its result type; the
 * spec's result_type references are not used). */
cs_sql_op *cs_sql_op_python_aggregate(cs_sql_op *child, const cs_py_eval_spec *spec,
                                      const int *keys, int n_keys, cs_col_type *schema,
                                      cs_error *err);

/* WindowInPandas (op_python_aggregate.c): the child sorted by partition_keys (ordinals of the
 * child) then by the order keys; the UDFs of eval type 203 whose args are their frame (RANGE 1 or
 * ROWS 0, the lower bound's cs_win_bound_kind and offset, the upper bound's; RANGE frames take no
 * offsets) then the ordinals of the child they read; the output is schema (taken over): the
 * child's columns, then one column per UDF. */
cs_sql_op *cs_sql_op_python_window(cs_sql_op *child, const cs_py_eval_spec *spec,
                                   const int *partition_keys, int n_partition,
                                   const cs_sort_key *order, int n_order, cs_col_type *schema,
                                   cs_error *err);

#endif /* CSPARK_SQLEXEC_PYTHON_EVAL_H */
