/*
 * phys_encode.c — the writing half of a physical plan's wire form (phys_plan.h's
 * cs_phys_encode; phys_codec.c reads it back and describes the form): a tree as
 * proto/cspark.proto's SqlPlan, types spelled out as SqlType, expressions as SqlExpr trees
 * (a lambda is an ordinary call, lambdafunction(body, variables...)), literal values, partition
 * values and local batches as RecordBatch messages of a type given beside them
 * (exchange_codec.c's form).
 *
 * Called by the driver (session/) when it makes a stage's SQL node. Ownership: encode borrows
 * the tree; its protobuf structs are allocated from a pool freed once packed.
 */
#include <stdlib.h>
#include <string.h>

#include "cspark.pb-c.h"

#include "sqlexec/phys_plan.h"

#define MAX_DEPTH 200

typedef struct pool {
    void **p;
    size_t n, cap;
    int rc;
    cs_error *err;
    bool canonical; /* cs_phys_encode_node_canonical: no plan id, unnamed output, no children */
} pool;

static void *pool_keep(pool *pl, void *p)
{
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 64;
        pl->p = cs_xrealloc(pl->p, pl->cap * sizeof *pl->p);
    }
    pl->p[pl->n++] = p;
    return p;
}

static void *pool_alloc(pool *pl, size_t n)
{
    return pool_keep(pl, cs_xcalloc(1, n ? n : 1));
}

static void pool_free(pool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->p[i]);
    free(pl->p);
}

#define NEW(pl, T, init)                                                                           \
    ({                                                                                             \
        T *x_ = pool_alloc(pl, sizeof(T));                                                         \
        *x_ = (T)init;                                                                             \
        x_;                                                                                        \
    })

static Cspark__SqlType *type_pb(pool *pl, const cs_col_type *t)
{
    if (!t) return NULL;
    Cspark__SqlType *pb = NEW(pl, Cspark__SqlType, CSPARK__SQL_TYPE__INIT);
    pb->id = t->id;
    pb->precision = t->precision;
    pb->scale = t->scale;
    pb->variant = t->variant;
    pb->collation = t->collation;
    if (t->n_fields > 0) {
        pb->n_fields = (size_t)t->n_fields;
        pb->fields = pool_alloc(pl, sizeof *pb->fields * (size_t)t->n_fields);
        for (int i = 0; i < t->n_fields; i++) {
            Cspark__SqlField *f = NEW(pl, Cspark__SqlField, CSPARK__SQL_FIELD__INIT);
            /* copied: a literal's type is a temporary of column_pb */
            f->name = pool_keep(pl, cs_xstrdup(t->fields[i].name ? t->fields[i].name : ""));
            f->type = type_pb(pl, t->fields[i].type);
            f->nullable = t->fields[i].nullable;
            pb->fields[i] = f;
        }
    }
    return pb;
}

static ProtobufCBinaryData batch_bytes(pool *pl, const cs_col_batch *b)
{
    cs_sbuf sb = CS_SBUF_INIT;
    if (pl->rc == CS_OK) pl->rc = cs_sql_batch_encode(b, &sb, pl->err);
    size_t len = 0;
    uint8_t *data = (uint8_t *)cs_sbuf_detach(&sb, &len);
    pool_keep(pl, data);
    return (ProtobufCBinaryData){len, data};
}

static Cspark__SqlBatch *batch_pb(pool *pl, const cs_col_batch *b)
{
    if (!b) return NULL;
    Cspark__SqlBatch *pb = NEW(pl, Cspark__SqlBatch, CSPARK__SQL_BATCH__INIT);
    pb->schema = type_pb(pl, b->schema);
    pb->batch = batch_bytes(pl, b);
    return pb;
}

/* A one-row column as a SqlBatch of struct<v: its type>. */
static Cspark__SqlBatch *column_pb(pool *pl, const cs_column *c)
{
    if (!c) return NULL;
    cs_col_field f = {"v", cs_col_type_ref(c->type), true};
    cs_error e = {0};
    cs_column *col = cs_column_ref((cs_column *)c);
    cs_col_batch *b = cs_col_batch_new(cs_col_type_struct(&f, 1), &col, 1, c->length, &e);
    if (!b) {
        if (pl->rc == CS_OK) pl->rc = cs_error_set(pl->err, CS_EINVAL, "a literal: %s", e.msg);
        return NULL;
    }
    Cspark__SqlBatch *pb = batch_pb(pl, b);
    cs_col_batch_unref(b);
    return pb;
}

static Cspark__SqlExpr *expr_pb(pool *pl, const cs_pexpr *e)
{
    if (!e) return NULL;
    Cspark__SqlExpr *pb = NEW(pl, Cspark__SqlExpr, CSPARK__SQL_EXPR__INIT);
    pb->kind = e->kind;
    pb->type = type_pb(pl, e->type);
    pb->nullable = e->nullable;
    pb->ordinal = e->ordinal;
    pb->literal = column_pb(pl, e->literal);
    pb->fn = e->fn ? e->fn : "";
    pb->cast_mode = e->cast_mode;
    pb->has_else = e->has_else;
    if (e->n_args > 0) {
        pb->n_args = (size_t)e->n_args;
        pb->args = pool_alloc(pl, sizeof *pb->args * (size_t)e->n_args);
        for (int i = 0; i < e->n_args; i++)
            pb->args[i] = expr_pb(pl, e->args[i]);
    }
    return pb;
}

static Cspark__SqlExpr **exprs_pb(pool *pl, cs_pexpr *const *e, int n, size_t *count)
{
    *count = n > 0 ? (size_t)n : 0;
    if (n <= 0) return NULL;
    Cspark__SqlExpr **v = pool_alloc(pl, sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = expr_pb(pl, e[i]);
    return v;
}

static Cspark__SqlAgg *agg_pb(pool *pl, const cs_agg_spec *a)
{
    Cspark__SqlAgg *pb = NEW(pl, Cspark__SqlAgg, CSPARK__SQL_AGG__INIT);
    pb->fn = a->fn;
    pb->input = a->input;
    pb->arg_type = type_pb(pl, a->arg_type);
    pb->ignore_nulls = a->ignore_nulls;
    pb->has_name = a->name != NULL;
    pb->name = (char *)(a->name ? a->name : "");
    pb->input2 = a->input2;
    if (a->arg2_type) pb->arg2_type = type_pb(pl, a->arg2_type);
    pb->param = a->param;
    pb->n_percentages = a->n_percentages > 0 ? (size_t)a->n_percentages : 0;
    pb->percentages = (double *)a->percentages;
    pb->percentages_array = a->percentages_array;
    return pb;
}

static Cspark__SqlSortKey **sort_keys_pb(pool *pl, const cs_sort_key *k, int n, size_t *count)
{
    *count = n > 0 ? (size_t)n : 0;
    if (n <= 0) return NULL;
    Cspark__SqlSortKey **v = pool_alloc(pl, sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++) {
        v[i] = NEW(pl, Cspark__SqlSortKey, CSPARK__SQL_SORT_KEY__INIT);
        v[i]->ordinal = k[i].ordinal;
        v[i]->descending = k[i].descending;
        v[i]->nulls_first = k[i].nulls_first;
    }
    return v;
}

static Cspark__SqlWindowFn *window_fn_pb(pool *pl, const cs_window_fn *f)
{
    Cspark__SqlWindowFn *pb = NEW(pl, Cspark__SqlWindowFn, CSPARK__SQL_WINDOW_FN__INIT);
    pb->kind = f->kind;
    pb->input = f->input;
    pb->offset = f->offset;
    pb->default_value = column_pb(pl, f->default_value);
    pb->ignore_nulls = f->ignore_nulls;
    pb->agg = agg_pb(pl, &f->agg);
    pb->frame_range = f->frame.range;
    pb->lower_kind = f->frame.lower_kind;
    pb->upper_kind = f->frame.upper_kind;
    pb->lower = f->frame.lower;
    pb->upper = f->frame.upper;
    pb->lower_value = column_pb(pl, f->frame.lower_value);
    pb->upper_value = column_pb(pl, f->frame.upper_value);
    pb->type = type_pb(pl, f->type);
    pb->name = f->name ? f->name : "";
    return pb;
}

/* int arrays: protobuf-c's repeated int32 is int32_t, the same as int here */
_Static_assert(sizeof(int) == sizeof(int32_t), "int is 32 bits");

static Cspark__SqlPlanNode *node_pb(pool *pl, const cs_phys_node *n, int depth)
{
    if (depth > MAX_DEPTH) {
        if (pl->rc == CS_OK)
            pl->rc = cs_error_set(pl->err, CS_EINVAL, "SQL plan: deeper than %d nodes", MAX_DEPTH);
        return NULL;
    }
    Cspark__SqlPlanNode *pb = NEW(pl, Cspark__SqlPlanNode, CSPARK__SQL_PLAN_NODE__INIT);
    pb->kind = n->kind;
    pb->id = pl->canonical ? 0 : n->id;
    pb->schema = type_pb(pl, n->schema);
    for (size_t i = 0; pl->canonical && pb->schema && i < pb->schema->n_fields; i++)
        pb->schema->fields[i]->name = (char *)""; /* the pool still frees the copied name */
    if (n->n_children > 0 && !pl->canonical) {
        pb->n_children = (size_t)n->n_children;
        pb->children = pool_alloc(pl, sizeof *pb->children * (size_t)n->n_children);
        for (int i = 0; i < n->n_children; i++) {
            if (!n->children[i]) {
                if (pl->rc == CS_OK)
                    pl->rc = cs_error_set(pl->err, CS_EINVAL, "SQL plan: %s without child %d",
                                          cs_phys_node_name(n), i);
                return pb;
            }
            pb->children[i] = node_pb(pl, n->children[i], depth + 1);
        }
    }
    /* FILE_SCAN */
    pb->format = n->format ? n->format : "";
    pb->n_option_keys = pb->n_option_values = n->n_options > 0 ? (size_t)n->n_options : 0;
    pb->option_keys = n->option_keys;
    pb->option_values = n->option_values;
    pb->data_schema = type_pb(pl, n->data_schema);
    pb->read_schema = type_pb(pl, n->read_schema);
    pb->filters = exprs_pb(pl, n->filters, n->n_filters, &pb->n_filters);
    pb->has_partition_values = n->partition_values != NULL;
    pb->partition_values = batch_pb(pl, n->partition_values);
    size_t ns = n->n_splits > 0 ? (size_t)n->n_splits : 0;
    pb->n_split_uri = pb->n_split_start = pb->n_split_length = pb->n_split_file_size = ns;
    pb->split_uri = n->split_uri;
    pb->split_start = n->split_start;
    pb->split_length = n->split_length;
    pb->split_file_size = n->split_file_size;
    pb->n_split_partition = n->split_partition ? ns : 0;
    pb->split_partition = n->split_partition;
    pb->n_group_start = n->group_start && n->n_groups >= 0 ? (size_t)n->n_groups + 1 : 0;
    pb->group_start = n->group_start;
    pb->table_name = n->table_name ? n->table_name : "";
    /* LOCAL */
    if (n->n_batches > 0) {
        pb->n_batches = (size_t)n->n_batches;
        pb->batches = pool_alloc(pl, sizeof *pb->batches * (size_t)n->n_batches);
        for (int i = 0; i < n->n_batches; i++)
            pb->batches[i] = batch_bytes(pl, n->batches[i]);
    }
    /* RANGE, inputs */
    pb->range_start = n->range_start;
    pb->range_end = n->range_end;
    pb->range_step = n->range_step;
    pb->num_slices = n->num_slices;
    pb->input = n->input;
    /* FILTER, PROJECT, EXCHANGE */
    pb->condition = expr_pb(pl, n->condition);
    pb->exprs = exprs_pb(pl, n->exprs, n->n_exprs, &pb->n_exprs);
    /* HASH_AGGREGATE */
    pb->agg_mode = n->agg_mode;
    pb->n_group_keys = n->n_group_keys > 0 ? (size_t)n->n_group_keys : 0;
    pb->group_keys = n->group_keys;
    if (n->n_aggs > 0) {
        pb->n_aggs = (size_t)n->n_aggs;
        pb->aggs = pool_alloc(pl, sizeof *pb->aggs * (size_t)n->n_aggs);
        for (int i = 0; i < n->n_aggs; i++)
            pb->aggs[i] = agg_pb(pl, &n->aggs[i]);
    }
    /* SORT, TOP_N, LIMIT */
    pb->sort_keys = sort_keys_pb(pl, n->sort_keys, n->n_sort_keys, &pb->n_sort_keys);
    pb->limit = n->limit;
    pb->offset = n->offset;
    pb->global = n->global;
    /* EXPAND */
    pb->num_projections = n->n_projections;
    pb->num_out = n->n_out;
    size_t np = n->projections && n->n_projections > 0 && n->n_out > 0
                    ? (size_t)n->n_projections * (size_t)n->n_out
                    : 0;
    pb->n_projections = np;
    pb->projections = n->projections;
    pb->has_grouping_ids = n->grouping_ids != NULL;
    pb->n_grouping_ids = n->grouping_ids && n->n_projections > 0 ? (size_t)n->n_projections : 0;
    pb->grouping_ids = n->grouping_ids;
    /* WINDOW */
    pb->n_partition_keys = n->n_partition_keys > 0 ? (size_t)n->n_partition_keys : 0;
    pb->partition_keys = n->partition_keys;
    pb->order_keys = sort_keys_pb(pl, n->order_keys, n->n_order_keys, &pb->n_order_keys);
    if (n->n_window_fns > 0) {
        pb->n_window_fns = (size_t)n->n_window_fns;
        pb->window_fns = pool_alloc(pl, sizeof *pb->window_fns * (size_t)n->n_window_fns);
        for (int i = 0; i < n->n_window_fns; i++)
            pb->window_fns[i] = window_fn_pb(pl, &n->window_fns[i]);
    }
    /* GENERATE */
    pb->generator = n->generator;
    pb->generator_input = n->generator_input;
    pb->n_generator_args = n->n_generator_args > 0 ? (size_t)n->n_generator_args : 0;
    pb->generator_args = n->generator_args;
    pb->stack_rows = n->stack_rows;
    pb->generator_outer = n->generator_outer;
    pb->generator_pruned = n->generator_pruned;
    pb->n_generator_keep = n->n_generator_keep > 0 ? (size_t)n->n_generator_keep : 0;
    pb->generator_keep = n->generator_keep;
    /* SAMPLE */
    pb->sample_lower = n->sample_lower;
    pb->sample_upper = n->sample_upper;
    pb->with_replacement = n->with_replacement;
    pb->seed = n->seed;
    /* PYTHON_EVAL */
    pb->py_eval_type = n->py_eval_type;
    pb->py_python = n->py_python ? n->py_python : "";
    pb->py_python_ver = n->py_python_ver ? n->py_python_ver : "";
    pb->py_max_records = n->py_max_records;
    pb->py_safe_cast = n->py_safe_cast;
    pb->py_columns_by_name = n->py_columns_by_name;
    pb->py_faulthandler = n->py_faulthandler;
    pb->py_barrier = n->py_barrier;
    pb->n_py_udfs = (size_t)(n->n_py_udfs > 0 ? n->n_py_udfs : 0);
    pb->py_udfs = pool_alloc(pl, sizeof *pb->py_udfs * (pb->n_py_udfs + 1));
    for (size_t i = 0; i < pb->n_py_udfs; i++) {
        Cspark__SqlPythonUdf *u = NEW(pl, Cspark__SqlPythonUdf, CSPARK__SQL_PYTHON_UDF__INIT);
        u->command = (ProtobufCBinaryData){n->py_udfs[i].command_len, n->py_udfs[i].command};
        u->args = n->py_udfs[i].args;
        u->n_args = (size_t)n->py_udfs[i].n_args;
        if (n->py_udfs[i].arg_names) {
            u->n_arg_names = u->n_args;
            u->arg_names = pool_alloc(pl, sizeof *u->arg_names * (u->n_args + 1));
            for (size_t a = 0; a < u->n_args; a++)
                u->arg_names[a] =
                    n->py_udfs[i].arg_names[a] ? n->py_udfs[i].arg_names[a] : (char *)"";
        }
        pb->py_udfs[i] = u;
    }
    /* EXCHANGE */
    pb->partitioning = n->partitioning;
    pb->num_partitions = n->num_partitions;
    /* joins */
    pb->join_type = n->join_type;
    pb->build_side = n->build_side;
    pb->n_left_keys = pb->n_right_keys = n->n_join_keys > 0 ? (size_t)n->n_join_keys : 0;
    pb->left_keys = n->left_keys;
    pb->right_keys = n->right_keys;
    pb->join_condition = expr_pb(pl, n->join_condition);
    pb->broadcast = n->broadcast;
    return pb;
}

static int encode(const cs_phys_node *root, bool canonical, cs_sbuf *out, cs_error *err)
{
    if (!root) return cs_error_set(err, CS_EINVAL, "SQL plan: no tree to encode");
    pool pl = {.err = err, .canonical = canonical};
    Cspark__SqlPlan plan = CSPARK__SQL_PLAN__INIT;
    plan.root = node_pb(&pl, root, 0);
    int rc = pl.rc;
    if (rc == CS_OK) {
        size_t len = cspark__sql_plan__get_packed_size(&plan);
        uint8_t *buf = pool_alloc(&pl, len);
        cspark__sql_plan__pack(&plan, buf);
        cs_sbuf_append(out, buf, len);
    }
    pool_free(&pl);
    return rc;
}

int cs_phys_encode(const cs_phys_node *root, cs_sbuf *out, cs_error *err)
{
    return encode(root, false, out, err);
}

int cs_phys_encode_node_canonical(const cs_phys_node *n, cs_sbuf *out, cs_error *err)
{
    return encode(n, true, out, err);
}
