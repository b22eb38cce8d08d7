/*
 * phys_codec.c — the reading half of a physical plan's wire form (phys_plan.h): cs_phys_decode
 * reads proto/cspark.proto's SqlPlan, as phys_encode.c writes it (types spelled out as SqlType,
 * expressions as SqlExpr trees, literal values, partition values and local batches as
 * RecordBatch messages of a type given beside them, exchange_codec.c's form), and checks
 * everything a task would otherwise trip over: kinds and enumerations known, child counts per
 * kind, every column ordinal within the input it names (with the type that input has there;
 * a lambda's body reads its function's input and then its variables), key and array counts
 * consistent, file groups within the splits. A bad plan is one CS_EPROTO line naming the node
 * ("SQL plan: node 3 (Filter): ...").
 *
 * Called by that node's tasks (plan/kinds/sql_exec.c). Ownership: decode returns a new tree
 * (cs_phys_free); the protobuf message is freed before returning.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.pb-c.h"

#include "sqlexec/phys_plan.h"

#define MAX_DEPTH 200

typedef struct decoder {
    cs_error *err;
    int node;         /* pre-order number of the node being read, for errors */
    const char *name; /* its Spark name */
} decoder;

static int bad(decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(decoder *d, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_error_set(d->err, CS_EPROTO, "SQL plan: node %d (%s): %s", d->node, d->name, msg);
}

static int type_from(decoder *d, const Cspark__SqlType *pb, int depth, cs_col_type **out)
{
    *out = NULL;
    if (!pb) return bad(d, "a type is missing");
    if (depth > 64) return bad(d, "a type nested deeper than 64");
    cs_error e = {0};
    int nf = (int)pb->n_fields;
    if (pb->n_fields > 100000) return bad(d, "a struct of %zu fields", pb->n_fields);
    if (pb->variant) {
        if (pb->id != CS_TYPE_STRUCT) return bad(d, "a variant that is not a struct");
        *out = cs_col_type_variant();
        return CS_OK;
    }
    if (pb->collation) {
        if (pb->id != CS_TYPE_STRING || !(*out = cs_col_type_string(pb->collation)))
            return bad(d, "a collation %d of a type %d", pb->collation, pb->id);
        return CS_OK;
    }
    switch (pb->id) {
    case CS_TYPE_DECIMAL:
        *out = cs_col_type_decimal(pb->precision, pb->scale, &e);
        break;
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_INTERVAL_DT:
        *out = cs_col_type_interval((cs_type_id)pb->id, pb->precision, pb->scale, &e);
        break;
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP:
    case CS_TYPE_STRUCT: {
        if ((pb->id == CS_TYPE_ARRAY && nf != 1) || (pb->id == CS_TYPE_MAP && nf != 2))
            return bad(d, "a %s type with %d fields", pb->id == CS_TYPE_ARRAY ? "array" : "map",
                       nf);
        cs_col_field *f = cs_xcalloc((size_t)(nf ? nf : 1), sizeof *f);
        int rc = CS_OK;
        for (int i = 0; i < nf && rc == CS_OK; i++) {
            const Cspark__SqlField *pf = pb->fields[i];
            if (!pf) {
                rc = bad(d, "a type's field %d is missing", i);
                break;
            }
            rc = type_from(d, pf->type, depth + 1, &f[i].type);
            f[i].name = pf->name;
            f[i].nullable = pf->nullable;
        }
        if (rc == CS_OK && pb->id == CS_TYPE_ARRAY)
            *out = cs_col_type_array(f[0].type, f[0].nullable);
        else if (rc == CS_OK && pb->id == CS_TYPE_MAP)
            *out = cs_col_type_map(f[0].type, f[1].type, f[1].nullable);
        else if (rc == CS_OK)
            *out = cs_col_type_struct(f, nf);
        else
            for (int i = 0; i < nf; i++)
                if (f[i].type) cs_col_type_unref(f[i].type);
        free(f);
        return rc;
    }
    default:
        if (pb->id < CS_TYPE_NULL || pb->id > CS_TYPE_INTERVAL_CAL)
            return bad(d, "unknown type id %d", pb->id);
        *out = cs_col_type_primitive((cs_type_id)pb->id);
        break;
    }
    if (!*out) return bad(d, "%s", e.msg);
    if (nf && pb->id != CS_TYPE_STRUCT) {
        cs_col_type_unref(*out);
        *out = NULL;
        return bad(d, "a %s type with fields", cs_type_id_name((cs_type_id)pb->id));
    }
    return CS_OK;
}

static int struct_from(decoder *d, const Cspark__SqlType *pb, const char *what, cs_col_type **out)
{
    int rc = type_from(d, pb, 0, out);
    if (rc) return cs_error_prefix(d->err, "%s", what);
    if ((*out)->id != CS_TYPE_STRUCT) {
        cs_col_type_unref(*out);
        *out = NULL;
        return bad(d, "%s is not a struct type", what);
    }
    return CS_OK;
}

static int batch_from(decoder *d, const ProtobufCBinaryData *bytes, const cs_col_type *schema,
                      cs_col_batch **out)
{
    int rc = cs_sql_batch_decode(schema, bytes->data, bytes->len, NULL, out, d->err);
    if (rc) return bad(d, "a batch: %s", d->err->msg);
    return CS_OK;
}

static int sql_batch_from(decoder *d, const Cspark__SqlBatch *pb, cs_col_batch **out)
{
    *out = NULL;
    cs_col_type *schema;
    int rc = struct_from(d, pb->schema, "a batch's schema", &schema);
    if (rc) return rc;
    rc = batch_from(d, &pb->batch, schema, out);
    cs_col_type_unref(schema);
    return rc;
}

/* A one-row column (a literal or a frame offset) from a SqlBatch of struct<v: type>. */
static int column_from(decoder *d, const Cspark__SqlBatch *pb, cs_column **out)
{
    *out = NULL;
    if (!pb) return CS_OK;
    cs_col_batch *b;
    int rc = sql_batch_from(d, pb, &b);
    if (rc) return rc;
    if (b->n_columns != 1 || b->num_rows != 1) {
        rc = bad(d, "a literal of %d columns and %lld rows (expected one value)", b->n_columns,
                 (long long)b->num_rows);
    } else {
        *out = cs_column_ref(b->columns[0]);
    }
    cs_col_batch_unref(b);
    return rc;
}

static int ordinal_ok(decoder *d, const char *what, int64_t v, int lo, const cs_col_type *input)
{
    if (v < lo || v >= input->n_fields)
        return bad(d, "%s %lld out of range (the input has %d columns)", what, (long long)v,
                   input->n_fields);
    return CS_OK;
}

static int ordinals_ok(decoder *d, const char *what, const int32_t *v, size_t n, int lo,
                       const cs_col_type *input)
{
    for (size_t i = 0; i < n; i++)
        if (ordinal_ok(d, what, v[i], lo, input)) return CS_EPROTO;
    return CS_OK;
}

static int expr_from(decoder *d, const Cspark__SqlExpr *pb, const cs_col_type *input, int depth,
                     cs_pexpr **out);

static int exprs_from(decoder *d, Cspark__SqlExpr *const *pb, size_t n, const cs_col_type *input,
                      int depth, cs_pexpr ***out)
{
    *out = cs_xcalloc(n + 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        int rc = expr_from(d, pb[i], input, depth, &(*out)[i]);
        if (rc) {
            for (size_t k = 0; k < i; k++)
                cs_pexpr_free((*out)[k]);
            free(*out);
            *out = NULL;
            return rc;
        }
    }
    return CS_OK;
}

/* A lambda's input: the columns of its function's input, then its variables (kernels_lambda.c),
 * whose types are those of its variable arguments (args[1..]). */
static int lambda_input(decoder *d, const Cspark__SqlExpr *pb, const cs_col_type *input,
                        cs_col_type **out)
{
    int n = input->n_fields, nv = (int)pb->n_args - 1, rc = CS_OK;
    cs_col_field *f = cs_xcalloc((size_t)(n + (nv > 0 ? nv : 0)) + 1, sizeof *f);
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){input->fields[i].name, cs_col_type_ref(input->fields[i].type), true};
    for (int i = 0; i < nv && rc == CS_OK; i++, n++)
        if (!pb->args[1 + i])
            rc = bad(d, "a lambda variable is missing");
        else if (!(rc = type_from(d, pb->args[1 + i]->type, 0, &f[n].type)))
            f[n].name = "v";
    *out = rc ? NULL : cs_col_type_struct(f, n);
    for (int i = 0; rc && i < n; i++)
        cs_col_type_unref(f[i].type);
    free(f);
    return rc;
}

static int expr_from(decoder *d, const Cspark__SqlExpr *pb, const cs_col_type *input, int depth,
                     cs_pexpr **out)
{
    *out = NULL;
    if (!pb) return bad(d, "an expression is missing");
    if (depth > MAX_DEPTH) return bad(d, "an expression deeper than %d", MAX_DEPTH);
    cs_col_type *type;
    int rc = type_from(d, pb->type, 0, &type);
    if (rc) return rc;
    size_t n = pb->n_args;
    switch (pb->kind) {
    case CS_PX_COLUMN:
        if (n) break;
        if (ordinal_ok(d, "a column", pb->ordinal, 0, input)) {
            cs_col_type_unref(type);
            return CS_EPROTO;
        }
        if (!cs_col_type_equal(type, input->fields[pb->ordinal].type)) {
            cs_col_type_unref(type);
            return bad(d, "column %d is not of its input's type", pb->ordinal);
        }
        *out = cs_pexpr_column(pb->ordinal, type, pb->nullable);
        return CS_OK;
    case CS_PX_LITERAL: {
        cs_column *c = NULL;
        if (n || !pb->literal) break;
        if (column_from(d, pb->literal, &c)) {
            cs_col_type_unref(type);
            return CS_EPROTO;
        }
        bool same = cs_col_type_equal(c->type, type);
        cs_col_type_unref(type);
        if (!same) {
            cs_column_unref(c);
            return bad(d, "a literal whose value is not of its type");
        }
        *out = cs_pexpr_literal(c);
        (*out)->nullable = pb->nullable;
        return CS_OK;
    }
    case CS_PX_CALL:
    case CS_PX_CAST:
    case CS_PX_CASE:
    case CS_PX_IN: {
        if ((pb->kind == CS_PX_CALL && (!pb->fn || !pb->fn[0])) ||
            (pb->kind == CS_PX_CAST &&
             (n != 1 || pb->cast_mode < CS_CAST_ANSI || pb->cast_mode > CS_CAST_LEGACY)) ||
            (pb->kind == CS_PX_CASE && n < 1) || (pb->kind == CS_PX_IN && n < 1))
            break;
        cs_pexpr **args;
        cs_col_type *ext = NULL; /* a lambda's body reads its variables too */
        if (pb->kind == CS_PX_CALL && strcmp(pb->fn, "lambdafunction") == 0 &&
            lambda_input(d, pb, input, &ext))
            rc = CS_EPROTO;
        if (rc || exprs_from(d, pb->args, n, ext ? ext : input, depth + 1, &args)) {
            cs_col_type_unref(ext);
            cs_col_type_unref(type);
            return CS_EPROTO;
        }
        cs_col_type_unref(ext);
        if (pb->kind == CS_PX_CALL)
            *out = cs_pexpr_call(pb->fn, type, pb->nullable, args, (int)n);
        else if (pb->kind == CS_PX_CASE)
            *out = cs_pexpr_case(type, pb->nullable, args, (int)n, pb->has_else);
        else if (pb->kind == CS_PX_CAST)
            *out = cs_pexpr_cast(args[0], type, (cs_cast_mode)pb->cast_mode);
        else {
            cs_col_type_unref(type);
            *out = cs_pexpr_in(args[0], args + 1, (int)n - 1);
        }
        (*out)->nullable = pb->nullable;
        free(args);
        return CS_OK;
    }
    default:
        cs_col_type_unref(type);
        return bad(d, "unknown expression kind %d", pb->kind);
    }
    cs_col_type_unref(type);
    return bad(d, "a malformed expression of kind %d (%zu arguments)", pb->kind, n);
}

static int *ints_from(const int32_t *v, size_t n)
{
    int *o = cs_xcalloc(n + 1, sizeof *o);
    if (n) memcpy(o, v, n * sizeof *o);
    return o;
}

static int sort_keys_from(decoder *d, Cspark__SqlSortKey *const *pb, size_t n,
                          const cs_col_type *input, cs_sort_key **out)
{
    *out = cs_xcalloc(n + 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        if (!pb[i]) return bad(d, "sort key %zu missing", i);
        if (ordinal_ok(d, "a sort key", pb[i]->ordinal, 0, input)) return CS_EPROTO;
        (*out)[i] = (cs_sort_key){pb[i]->ordinal, pb[i]->descending, pb[i]->nulls_first};
    }
    return CS_OK;
}

static int agg_from(decoder *d, const Cspark__SqlAgg *pb, const cs_col_type *input,
                    cs_agg_spec *out)
{
    memset(out, 0, sizeof *out);
    if (!pb) return bad(d, "an aggregate is missing");
    if (pb->fn < CS_AGG_COUNT_STAR || pb->fn > CS_AGG_SCHEMA_OF_VARIANT)
        return bad(d, "unknown aggregate function %d", pb->fn);
    if (ordinal_ok(d, "an aggregate's input", pb->input, pb->fn == CS_AGG_COUNT_STAR ? -1 : 0,
                   input))
        return CS_EPROTO;
    out->fn = (cs_agg_fn)pb->fn;
    out->input = pb->input;
    out->ignore_nulls = pb->ignore_nulls;
    out->name = pb->has_name ? cs_xstrdup(pb->name) : NULL;
    if (pb->arg_type) {
        cs_col_type *t;
        if (type_from(d, pb->arg_type, 0, &t)) return CS_EPROTO;
        out->arg_type = t;
    } else if (pb->fn != CS_AGG_COUNT_STAR) {
        return bad(d, "aggregate %d without its argument type", pb->fn);
    }
    if (cs_agg_takes_two_inputs(out->fn)) {
        if (!pb->arg2_type)
            return bad(d, "aggregate %d without its second argument's type", pb->fn);
        if (ordinal_ok(d, "an aggregate's second input", pb->input2, -1, input)) return CS_EPROTO;
        cs_col_type *t;
        if (type_from(d, pb->arg2_type, 0, &t)) return CS_EPROTO;
        out->arg2_type = t;
    }
    out->input2 = pb->input2;
    out->param = pb->param;
    if (pb->n_percentages > 1000000) return bad(d, "too many percentages");
    if (pb->n_percentages) {
        double *v = cs_xmalloc(sizeof *v * pb->n_percentages);
        memcpy(v, pb->percentages, sizeof *v * pb->n_percentages);
        out->percentages = v;
        out->n_percentages = (int)pb->n_percentages;
    }
    out->percentages_array = pb->percentages_array;
    return CS_OK;
}

static int window_fn_from(decoder *d, const Cspark__SqlWindowFn *pb, const cs_col_type *input,
                          cs_window_fn *f)
{
    if (!pb) return bad(d, "a window function is missing");
    if (pb->kind < CS_WIN_ROW_NUMBER || pb->kind > CS_WIN_AGGREGATE)
        return bad(d, "unknown window function %d", pb->kind);
    if (pb->lower_kind < CS_WB_UNBOUNDED_PRECEDING || pb->lower_kind > CS_WB_UNBOUNDED_FOLLOWING ||
        pb->upper_kind < CS_WB_UNBOUNDED_PRECEDING || pb->upper_kind > CS_WB_UNBOUNDED_FOLLOWING)
        return bad(d, "unknown window frame bound");
    if (ordinal_ok(d, "a window function's input", pb->input, -1, input)) return CS_EPROTO;
    f->kind = (cs_window_fn_kind)pb->kind;
    f->input = pb->input;
    f->offset = pb->offset;
    f->ignore_nulls = pb->ignore_nulls;
    f->frame = (cs_window_frame){pb->frame_range,
                                 (cs_win_bound_kind)pb->lower_kind,
                                 (cs_win_bound_kind)pb->upper_kind,
                                 pb->lower,
                                 pb->upper,
                                 NULL,
                                 NULL};
    f->name = cs_xstrdup(pb->name);
    if (type_from(d, pb->type, 0, &f->type)) return CS_EPROTO;
    if (column_from(d, pb->default_value, &f->default_value) ||
        column_from(d, pb->lower_value, &f->frame.lower_value) ||
        column_from(d, pb->upper_value, &f->frame.upper_value))
        return CS_EPROTO;
    if (pb->kind == CS_WIN_AGGREGATE) {
        if (agg_from(d, pb->agg, input, &f->agg)) return CS_EPROTO;
    }
    return CS_OK;
}

static int file_scan_from(decoder *d, const Cspark__SqlPlanNode *pb, cs_phys_node *n)
{
    if (!pb->format || !pb->format[0]) return bad(d, "no format");
    n->format = cs_xstrdup(pb->format);
    if (pb->n_option_keys != pb->n_option_values)
        return bad(d, "%zu option keys and %zu values", pb->n_option_keys, pb->n_option_values);
    n->n_options = (int)pb->n_option_keys;
    n->option_keys = cs_xcalloc(pb->n_option_keys + 1, sizeof *n->option_keys);
    n->option_values = cs_xcalloc(pb->n_option_keys + 1, sizeof *n->option_values);
    for (size_t i = 0; i < pb->n_option_keys; i++) {
        n->option_keys[i] = cs_xstrdup(pb->option_keys[i]);
        n->option_values[i] = cs_xstrdup(pb->option_values[i]);
    }
    if (struct_from(d, pb->data_schema, "the data schema", &n->data_schema) ||
        struct_from(d, pb->read_schema, "the read schema", &n->read_schema))
        return CS_EPROTO;
    for (int i = 0; i < n->read_schema->n_fields; i++) {
        bool found = false;
        for (int k = 0; k < n->data_schema->n_fields && !found; k++)
            found = strcmp(n->read_schema->fields[i].name, n->data_schema->fields[k].name) == 0;
        if (!found)
            return bad(d, "read column '%s' is not in the data schema",
                       n->read_schema->fields[i].name);
    }
    int64_t part_rows = 0, part_cols = 0;
    if (pb->has_partition_values) {
        if (!pb->partition_values) return bad(d, "partition values missing");
        if (sql_batch_from(d, pb->partition_values, &n->partition_values)) return CS_EPROTO;
        part_rows = n->partition_values->num_rows;
        part_cols = n->partition_values->n_columns;
    }
    if (n->schema->n_fields != n->read_schema->n_fields + part_cols)
        return bad(d, "an output of %d columns for %d read and %lld partition columns",
                   n->schema->n_fields, n->read_schema->n_fields, (long long)part_cols);
    size_t ns = pb->n_split_uri;
    if (pb->n_split_start != ns || pb->n_split_length != ns || pb->n_split_file_size != ns ||
        (pb->n_split_partition != 0 && pb->n_split_partition != ns) || ns > INT32_MAX / 2)
        return bad(d, "split arrays of different lengths");
    n->n_splits = (int)ns;
    n->split_uri = cs_xcalloc(ns + 1, sizeof *n->split_uri);
    n->split_start = cs_xcalloc(ns + 1, sizeof *n->split_start);
    n->split_length = cs_xcalloc(ns + 1, sizeof *n->split_length);
    n->split_file_size = cs_xcalloc(ns + 1, sizeof *n->split_file_size);
    for (size_t i = 0; i < ns; i++) {
        n->split_uri[i] = cs_xstrdup(pb->split_uri[i]);
        n->split_start[i] = pb->split_start[i];
        n->split_length[i] = pb->split_length[i];
        n->split_file_size[i] = pb->split_file_size[i];
        if (pb->split_start[i] > pb->split_file_size[i] ||
            pb->split_length[i] > pb->split_file_size[i] - pb->split_start[i])
            return bad(d, "split %zu is not within its file", i);
    }
    if (pb->n_split_partition) {
        n->split_partition = ints_from(pb->split_partition, ns);
        for (size_t i = 0; i < ns; i++)
            if (pb->split_partition[i] < -1 || pb->split_partition[i] >= part_rows)
                return bad(d, "split %zu: partition values row %d of %lld", i,
                           pb->split_partition[i], (long long)part_rows);
    }
    if (pb->n_group_start < 1) return bad(d, "no file groups");
    n->n_groups = (int)pb->n_group_start - 1;
    n->group_start = ints_from(pb->group_start, pb->n_group_start);
    if (n->group_start[0] != 0 || n->group_start[n->n_groups] != n->n_splits)
        return bad(d, "file groups span splits %d..%d of %d", n->group_start[0],
                   n->group_start[n->n_groups], n->n_splits);
    for (int g = 0; g < n->n_groups; g++)
        if (n->group_start[g + 1] < n->group_start[g])
            return bad(d, "file group %d ends before it starts", g);
    n->table_name = pb->table_name && pb->table_name[0] ? cs_xstrdup(pb->table_name) : NULL;
    n->n_filters = (int)pb->n_filters;
    return exprs_from(d, pb->filters, pb->n_filters, n->schema, 0, &n->filters);
}

static int expected_children(cs_phys_kind k)
{
    switch (k) {
    case CS_PH_FILE_SCAN:
    case CS_PH_LOCAL:
    case CS_PH_RANGE:
    case CS_PH_SHUFFLE_READ:
    case CS_PH_BROADCAST_READ:
    case CS_PH_PARENT_READ:
        return 0;
    case CS_PH_HASH_JOIN:
    case CS_PH_NESTED_LOOP_JOIN:
        return 2;
    case CS_PH_UNION:
    case CS_PH_PYTHON_EVAL: /* two for a cogrouped map (fields_from checks) */
        return -1;          /* one or more */
    default:
        return 1;
    }
}

static int node_from(decoder *d, const Cspark__SqlPlanNode *pb, int depth, cs_phys_node **out);

/* The kind's own fields of n (children decoded, schema set). */
static int fields_from(decoder *d, const Cspark__SqlPlanNode *pb, cs_phys_node *n)
{
    const cs_col_type *in = n->n_children ? n->children[0]->schema : NULL;
    n->input = pb->input;
    n->limit = pb->limit;
    n->offset = pb->offset;
    n->global = pb->global;
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        return file_scan_from(d, pb, n);
    case CS_PH_LOCAL:
        n->batches = cs_xcalloc(pb->n_batches + 1, sizeof *n->batches);
        for (size_t i = 0; i < pb->n_batches; i++) {
            if (batch_from(d, &pb->batches[i], n->schema, &n->batches[i])) return CS_EPROTO;
            n->n_batches++;
        }
        if (pb->num_slices < 0) return bad(d, "%d slices of local rows", pb->num_slices);
        n->num_slices = pb->num_slices;
        return CS_OK;
    case CS_PH_RANGE:
        if (pb->range_step == 0 || pb->num_slices < 1)
            return bad(d, "step %lld and %d slices", (long long)pb->range_step, pb->num_slices);
        if (n->schema->n_fields != 1 || n->schema->fields[0].type->id != CS_TYPE_LONG)
            return bad(d, "the output is not one bigint column");
        n->range_start = pb->range_start;
        n->range_end = pb->range_end;
        n->range_step = pb->range_step;
        n->num_slices = pb->num_slices;
        return CS_OK;
    case CS_PH_SHUFFLE_READ:
    case CS_PH_BROADCAST_READ:
    case CS_PH_PARENT_READ:
        return pb->input < 0 ? bad(d, "input %d", pb->input) : CS_OK;
    case CS_PH_FILTER:
        if (!pb->condition) return bad(d, "no condition");
        return expr_from(d, pb->condition, in, 0, &n->condition);
    case CS_PH_PROJECT:
        if (pb->n_exprs != (size_t)n->schema->n_fields)
            return bad(d, "%zu expressions for %d output columns", pb->n_exprs,
                       n->schema->n_fields);
        n->n_exprs = (int)pb->n_exprs;
        return exprs_from(d, pb->exprs, pb->n_exprs, in, 0, &n->exprs);
    case CS_PH_HASH_AGGREGATE:
        if (pb->agg_mode < CS_AGG_PARTIAL || pb->agg_mode > CS_AGG_COMPLETE)
            return bad(d, "unknown aggregation mode %d", pb->agg_mode);
        n->agg_mode = (cs_agg_mode)pb->agg_mode;
        if (ordinals_ok(d, "a group key", pb->group_keys, pb->n_group_keys, 0, in))
            return CS_EPROTO;
        n->n_group_keys = (int)pb->n_group_keys;
        n->group_keys = ints_from(pb->group_keys, pb->n_group_keys);
        n->aggs = cs_xcalloc(pb->n_aggs + 1, sizeof *n->aggs);
        for (size_t i = 0; i < pb->n_aggs; i++) {
            n->n_aggs++;
            if (agg_from(d, pb->aggs[i], in, &n->aggs[i])) return CS_EPROTO;
        }
        return CS_OK;
    case CS_PH_SORT:
    case CS_PH_TOP_N:
        n->n_sort_keys = (int)pb->n_sort_keys;
        return sort_keys_from(d, pb->sort_keys, pb->n_sort_keys, in, &n->sort_keys);
    case CS_PH_LIMIT:
    case CS_PH_BROADCAST_EXCHANGE:
        return CS_OK;
    case CS_PH_EXPAND: {
        if (pb->num_projections < 1 || pb->num_out < 0 ||
            pb->n_projections != (size_t)pb->num_projections * (size_t)pb->num_out)
            return bad(d, "%zu ordinals for %d projections of %d columns", pb->n_projections,
                       pb->num_projections, pb->num_out);
        if (ordinals_ok(d, "a projection's column", pb->projections, pb->n_projections,
                        CS_EXPAND_NULL, in))
            return CS_EPROTO;
        if (pb->has_grouping_ids && pb->n_grouping_ids != (size_t)pb->num_projections)
            return bad(d, "%zu grouping ids for %d projections", pb->n_grouping_ids,
                       pb->num_projections);
        n->n_projections = pb->num_projections;
        n->n_out = pb->num_out;
        n->projections = ints_from(pb->projections, pb->n_projections);
        if (pb->has_grouping_ids) {
            n->grouping_ids = cs_xcalloc(pb->n_grouping_ids + 1, sizeof *n->grouping_ids);
            memcpy(n->grouping_ids, pb->grouping_ids, pb->n_grouping_ids * sizeof(int64_t));
        }
        return CS_OK;
    }
    case CS_PH_WINDOW:
        if (ordinals_ok(d, "a partition key", pb->partition_keys, pb->n_partition_keys, 0, in))
            return CS_EPROTO;
        n->n_partition_keys = (int)pb->n_partition_keys;
        n->partition_keys = ints_from(pb->partition_keys, pb->n_partition_keys);
        n->n_order_keys = (int)pb->n_order_keys;
        if (sort_keys_from(d, pb->order_keys, pb->n_order_keys, in, &n->order_keys))
            return CS_EPROTO;
        n->window_fns = cs_xcalloc(pb->n_window_fns + 1, sizeof *n->window_fns);
        for (size_t i = 0; i < pb->n_window_fns; i++) {
            n->n_window_fns++;
            if (window_fn_from(d, pb->window_fns[i], in, &n->window_fns[i])) return CS_EPROTO;
        }
        return CS_OK;
    case CS_PH_GENERATE:
        if (pb->generator < CS_GEN_EXPLODE || pb->generator > CS_GEN_VARIANT_EXPLODE)
            return bad(d, "unknown generator %d", pb->generator);
        if (ordinal_ok(d, "the generator's input", pb->generator_input, -1, in) ||
            ordinals_ok(d, "a generator argument", pb->generator_args, pb->n_generator_args, 0,
                        in) ||
            ordinals_ok(d, "a kept column", pb->generator_keep, pb->n_generator_keep, 0, in))
            return CS_EPROTO;
        n->generator = (cs_generator_kind)pb->generator;
        n->generator_input = pb->generator_input;
        n->n_generator_args = (int)pb->n_generator_args;
        n->generator_args = ints_from(pb->generator_args, pb->n_generator_args);
        n->stack_rows = pb->stack_rows;
        n->generator_outer = pb->generator_outer;
        n->generator_pruned = pb->generator_pruned;
        n->n_generator_keep = (int)pb->n_generator_keep;
        n->generator_keep = ints_from(pb->generator_keep, pb->n_generator_keep);
        return CS_OK;
    case CS_PH_EXCHANGE:
        if (pb->partitioning < CS_PART_HASH || pb->partitioning > CS_PART_RANGE)
            return bad(d, "unknown partitioning %d", pb->partitioning);
        if (pb->num_partitions < 1) return bad(d, "%d partitions", pb->num_partitions);
        n->partitioning = (cs_phys_partitioning_kind)pb->partitioning;
        n->num_partitions = pb->num_partitions;
        n->n_exprs = (int)pb->n_exprs;
        if (exprs_from(d, pb->exprs, pb->n_exprs, in, 0, &n->exprs)) return CS_EPROTO;
        n->n_sort_keys = (int)pb->n_sort_keys;
        return sort_keys_from(d, pb->sort_keys, pb->n_sort_keys, in, &n->sort_keys);
    case CS_PH_HASH_JOIN:
    case CS_PH_NESTED_LOOP_JOIN: {
        const cs_col_type *l = n->children[0]->schema, *r = n->children[1]->schema;
        if (pb->join_type < CS_HJ_INNER || pb->join_type > CS_HJ_LEFT_ANTI_NULL_AWARE)
            return bad(d, "unknown join type %d", pb->join_type);
        if (pb->build_side < CS_BUILD_RIGHT || pb->build_side > CS_BUILD_LEFT)
            return bad(d, "unknown build side %d", pb->build_side);
        if (pb->n_left_keys != pb->n_right_keys)
            return bad(d, "%zu left and %zu right keys", pb->n_left_keys, pb->n_right_keys);
        if (ordinals_ok(d, "a left key", pb->left_keys, pb->n_left_keys, 0, l) ||
            ordinals_ok(d, "a right key", pb->right_keys, pb->n_right_keys, 0, r))
            return CS_EPROTO;
        n->join_type = (cs_hash_join_type)pb->join_type;
        n->build_side = (cs_build_side)pb->build_side;
        n->n_join_keys = (int)pb->n_left_keys;
        n->left_keys = ints_from(pb->left_keys, pb->n_left_keys);
        n->right_keys = ints_from(pb->right_keys, pb->n_right_keys);
        n->broadcast = pb->broadcast;
        if (!pb->join_condition) return CS_OK;
        cs_col_type *pairs = cs_phys_join_input(l, r);
        int rc = expr_from(d, pb->join_condition, pairs, 0, &n->join_condition);
        cs_col_type_unref(pairs);
        return rc;
    }
    case CS_PH_UNION:
        return CS_OK;
    case CS_PH_SAMPLE:
        n->sample_lower = pb->sample_lower;
        n->sample_upper = pb->sample_upper;
        n->with_replacement = pb->with_replacement;
        n->seed = pb->seed;
        return CS_OK;
    case CS_PH_COALESCE: /* the driver's only (kinds past SAMPLE are refused before) */
    case CS_PH_REUSED_EXCHANGE:
        return bad(d, "a Coalesce in a task's plan");
    case CS_PH_PYTHON_EVAL: { /* UDF counts are phys_build's to check against the schema */
        /* grouped maps: [length, n_keys, ords...]; cogrouped maps: that for each of 2 children
         * (the operator checks their offsets) */
        bool cogroup = pb->py_eval_type == 206 || pb->py_eval_type == 210;
        if (n->n_children != (cogroup ? 2 : 1))
            return bad(d, "%d children for eval type %d", n->n_children, pb->py_eval_type);
        /* windows (203): each UDF's frame (5 values) before its ordinals */
        size_t skip = pb->py_eval_type == 201 || pb->py_eval_type == 209 ? 2
                      : pb->py_eval_type == 203                          ? 5
                                                                         : 0;
        n->py_eval_type = pb->py_eval_type;
        n->py_python = cs_xstrdup(pb->py_python ? pb->py_python : "");
        n->py_python_ver = cs_xstrdup(pb->py_python_ver ? pb->py_python_ver : "");
        n->py_max_records = pb->py_max_records;
        n->py_safe_cast = pb->py_safe_cast;
        n->py_columns_by_name = pb->py_columns_by_name;
        n->py_faulthandler = pb->py_faulthandler;
        n->py_barrier = pb->py_barrier;
        if (pb->py_eval_type == 202 || pb->py_eval_type == 203) {
            /* AggregateInPandas: its grouping keys; WindowInPandas: its partition keys, its
             * order keys */
            if (ordinals_ok(d, "a grouping key", pb->group_keys, pb->n_group_keys, 0, in))
                return CS_EPROTO;
            n->n_group_keys = (int)pb->n_group_keys;
            n->group_keys = ints_from(pb->group_keys, pb->n_group_keys);
            n->n_sort_keys = (int)pb->n_sort_keys;
            if (sort_keys_from(d, pb->sort_keys, pb->n_sort_keys, in, &n->sort_keys))
                return CS_EPROTO;
        }
        n->py_udfs = cs_xcalloc(pb->n_py_udfs + 1, sizeof *n->py_udfs);
        for (size_t i = 0; i < pb->n_py_udfs; i++) {
            const Cspark__SqlPythonUdf *u = pb->py_udfs[i];
            if (u->n_args < skip) return bad(d, "a grouped map UDF without its offsets");
            if (!cogroup &&
                ordinals_ok(d, "a Python UDF argument", u->args + skip, u->n_args - skip, 0, in))
                return CS_EPROTO;
            cs_phys_py_udf *x = &n->py_udfs[n->n_py_udfs++];
            x->command = cs_xmalloc(u->command.len + 1);
            if (u->command.len) memcpy(x->command, u->command.data, u->command.len);
            x->command_len = u->command.len;
            x->n_args = (int)u->n_args;
            x->args = ints_from(u->args, u->n_args);
            if (u->n_arg_names != 0 && u->n_arg_names != u->n_args)
                return bad(d, "%zu argument names for %zu arguments", u->n_arg_names, u->n_args);
            if (u->n_arg_names) {
                x->arg_names = cs_xcalloc(u->n_args, sizeof *x->arg_names);
                for (size_t a = 0; a < u->n_args; a++)
                    if (u->arg_names[a] && u->arg_names[a][0])
                        x->arg_names[a] = cs_xstrdup(u->arg_names[a]);
            }
        }
        return CS_OK;
    }
    }
    return bad(d, "unknown kind");
}

static int node_from(decoder *d, const Cspark__SqlPlanNode *pb, int depth, cs_phys_node **out)
{
    *out = NULL;
    d->node++;
    d->name = "?";
    if (!pb) return bad(d, "missing");
    if (depth > MAX_DEPTH) return bad(d, "deeper than %d nodes", MAX_DEPTH);
    if (pb->kind < CS_PH_FILE_SCAN || pb->kind > CS_PH_SAMPLE)
        return bad(d, "unknown kind %d", pb->kind);
    int want = expected_children((cs_phys_kind)pb->kind);
    cs_phys_node *n = cs_phys_new((cs_phys_kind)pb->kind, NULL, (int)pb->n_children);
    n->id = pb->id;
    d->name = cs_phys_node_name(n);
    int me = d->node, rc = CS_OK;
    if (want >= 0 ? pb->n_children != (size_t)want : pb->n_children < 1) {
        n->n_children = 0;
        rc = bad(d, "%zu children", pb->n_children);
    }
    for (int i = 0; i < n->n_children && rc == CS_OK; i++)
        rc = node_from(d, pb->children[i], depth + 1, &n->children[i]);
    d->node = me;
    d->name = cs_phys_node_name(n);
    if (rc == CS_OK) rc = struct_from(d, pb->schema, "the output schema", &n->schema);
    if (rc == CS_OK) rc = fields_from(d, pb, n);
    if (rc) {
        cs_phys_free(n);
        return rc;
    }
    *out = n;
    return CS_OK;
}

cs_phys_node *cs_phys_decode(const uint8_t *buf, size_t len, cs_error *err)
{
    Cspark__SqlPlan *pb = cspark__sql_plan__unpack(NULL, len, buf);
    if (!pb) return cs_error_set(err, CS_EPROTO, "SQL plan: not a SqlPlan message"), NULL;
    decoder d = {err, -1, "?"};
    cs_phys_node *root = NULL;
    if (!pb->root)
        cs_error_set(err, CS_EPROTO, "SQL plan: no root");
    else
        node_from(&d, pb->root, 0, &root);
    cspark__sql_plan__free_unpacked(pb, NULL);
    return root;
}
