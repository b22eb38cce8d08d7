/*
 * phys_plan.c — physical plan nodes (phys_plan.h): making and freeing them, and their names as
 * Spark's EXPLAIN shows them. Building operators is phys_build.c's, the wire form
 * phys_codec.c's, EXPLAIN's tree phys_explain.c's.
 *
 * Ownership: a node owns every field (see phys_plan.h); cs_phys_free releases the whole tree.
 */
#include <stdlib.h>

#include "sqlexec/phys_plan.h"

cs_phys_node *cs_phys_new(cs_phys_kind kind, cs_col_type *schema, int n_children)
{
    cs_phys_node *n = cs_xcalloc(1, sizeof *n);
    n->kind = kind;
    n->schema = schema;
    n->n_children = n_children;
    n->children = cs_xcalloc((size_t)(n_children > 0 ? n_children : 1), sizeof *n->children);
    n->limit = -1;
    n->input = -1;
    n->generator_input = -1;
    return n;
}

static void free_exprs(cs_pexpr **e, int n)
{
    for (int i = 0; i < n; i++)
        cs_pexpr_free(e[i]);
    free(e);
}

static void free_strings(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

static void free_window_fn(cs_window_fn *f)
{
    if (f->default_value) cs_column_unref(f->default_value);
    if (f->frame.lower_value) cs_column_unref(f->frame.lower_value);
    if (f->frame.upper_value) cs_column_unref(f->frame.upper_value);
    if (f->agg.arg_type) cs_col_type_unref((cs_col_type *)f->agg.arg_type);
    if (f->agg.arg2_type) cs_col_type_unref((cs_col_type *)f->agg.arg2_type);
    free((double *)f->agg.percentages);
    free((char *)f->agg.name);
    if (f->type) cs_col_type_unref(f->type);
    free(f->name);
}

void cs_phys_free(cs_phys_node *n)
{
    if (!n) return;
    for (int i = 0; i < n->n_children; i++)
        cs_phys_free(n->children[i]);
    free(n->children);
    if (n->schema) cs_col_type_unref(n->schema);

    free(n->format);
    free(n->storage_level);
    free_strings(n->option_keys, n->n_options);
    free_strings(n->option_values, n->n_options);
    if (n->data_schema) cs_col_type_unref(n->data_schema);
    if (n->read_schema) cs_col_type_unref(n->read_schema);
    free_exprs(n->filters, n->n_filters);
    if (n->partition_values) cs_col_batch_unref(n->partition_values);
    free_strings(n->split_uri, n->n_splits);
    free(n->split_start);
    free(n->split_length);
    free(n->split_file_size);
    free(n->split_partition);
    free(n->group_start);
    free(n->table_name);

    for (int i = 0; i < n->n_batches; i++)
        cs_col_batch_unref(n->batches[i]);
    free(n->batches);

    cs_pexpr_free(n->condition);
    free_exprs(n->exprs, n->n_exprs);

    free(n->group_keys);
    for (int i = 0; i < n->n_aggs; i++) {
        if (n->aggs[i].arg_type) cs_col_type_unref((cs_col_type *)n->aggs[i].arg_type);
        if (n->aggs[i].arg2_type) cs_col_type_unref((cs_col_type *)n->aggs[i].arg2_type);
        free((double *)n->aggs[i].percentages);
        free((char *)n->aggs[i].name);
    }
    free(n->aggs);

    free(n->sort_keys);
    free(n->projections);
    free(n->grouping_ids);

    free(n->partition_keys);
    free(n->order_keys);
    for (int i = 0; i < n->n_window_fns; i++)
        free_window_fn(&n->window_fns[i]);
    free(n->window_fns);

    free(n->generator_args);
    free(n->generator_keep);
    for (int i = 0; i < n->n_py_udfs; i++) {
        free(n->py_udfs[i].command);
        free(n->py_udfs[i].args);
        for (int a = 0; n->py_udfs[i].arg_names && a < n->py_udfs[i].n_args; a++)
            free(n->py_udfs[i].arg_names[a]);
        free(n->py_udfs[i].arg_names);
    }
    free(n->py_udfs);
    free(n->py_python);
    free(n->py_python_ver);
    free(n->left_keys);
    free(n->right_keys);
    cs_pexpr_free(n->join_condition);
    free(n);
}

bool cs_phys_has_barrier(const cs_phys_node *n)
{
    if (n->kind == CS_PH_PYTHON_EVAL && n->py_barrier) return true;
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i] && cs_phys_has_barrier(n->children[i])) return true;
    return false;
}

const char *cs_phys_node_name(const cs_phys_node *n)
{
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        return "FileScan";
    case CS_PH_LOCAL: /* by sql/logical_plan.h's cs_local_origin */
        return n->local_origin == 1   ? "InMemoryTableScan"
               : n->local_origin == 2 ? "Scan ExistingRDD"
                                      : "LocalTableScan";
    case CS_PH_RANGE:
        return "Range";
    case CS_PH_SHUFFLE_READ:
        return "AQEShuffleRead";
    case CS_PH_BROADCAST_READ:
        return "BroadcastQueryStage";
    case CS_PH_PARENT_READ:
        return "InputAdapter";
    case CS_PH_FILTER:
        return "Filter";
    case CS_PH_PROJECT:
        return "Project";
    case CS_PH_HASH_AGGREGATE:
        return "HashAggregate";
    case CS_PH_SORT:
        return "Sort";
    case CS_PH_TOP_N:
        return "TakeOrderedAndProject";
    case CS_PH_LIMIT:
        if (n->limit < 0) return "CollectLimit"; /* an offset alone */
        return n->global ? "GlobalLimit" : "LocalLimit";
    case CS_PH_EXPAND:
        return "Expand";
    case CS_PH_WINDOW:
        return "Window";
    case CS_PH_GENERATE:
        return "Generate";
    case CS_PH_PYTHON_EVAL:
        switch (n->py_eval_type) {
        case 100:
            return "BatchEvalPython";
        case 201:
            return "FlatMapGroupsInPandas";
        case 202:
            return "AggregateInPandas";
        case 203:
            return "WindowInPandas";
        case 209:
            return "FlatMapGroupsInArrow";
        case 205:
            return "MapInPandas";
        case 207:
            return "MapInArrow";
        case 206:
            return "FlatMapCoGroupsInPandas";
        case 210:
            return "FlatMapCoGroupsInArrow";
        default:
            return "ArrowEvalPython";
        }
    case CS_PH_EXCHANGE:
        return "Exchange";
    case CS_PH_BROADCAST_EXCHANGE:
        return "BroadcastExchange";
    case CS_PH_HASH_JOIN:
        return n->broadcast ? "BroadcastHashJoin" : "ShuffledHashJoin";
    case CS_PH_NESTED_LOOP_JOIN:
        return n->broadcast ? "BroadcastNestedLoopJoin" : "CartesianProduct";
    case CS_PH_UNION:
        return "Union";
    case CS_PH_SAMPLE:
        return "Sample";
    case CS_PH_COALESCE:
        return "Coalesce";
    case CS_PH_REUSED_EXCHANGE:
        return "ReusedExchange";
    }
    return "Unknown";
}
