/*
 * phys_build.c — cs_phys_build (phys_plan.h): one task's operator tree from a physical plan
 * tree. Each node becomes the operator of its kind (sql_ops.h, op_filter.h, sql_ops_scan.h)
 * over its children's operators; leaves that read the stage's inputs (shuffle, broadcast and
 * parent reads) come from the caller's open_input. Also the RANGE leaf (Spark's RangeExec) and
 * the small owner operator that keeps a join's compiled residual condition alive.
 *
 * Called by the SQL node's task body (plan/kinds/sql_exec.c) and by the driver for local work.
 * Ownership: the tree is only read (several tasks may build from it at once): every expression,
 * array and batch an operator takes is copied or referenced; the returned operator tree is the
 * caller's (cs_sql_op_free).
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "columnar/col_memory.h"
#include "sqlexec/op_filter.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/python_eval.h"
#include "sqlexec/python_worker.h"
#include "sqlexec/sql_ops_scan.h"

/* ---- RANGE: Spark's RangeExec ---- */

typedef struct range_op {
    cs_sql_op base;
    int64_t first, step;
    uint64_t count; /* ids of this slice */
    int64_t next_value;
    uint64_t remaining;
} range_op;

static int range_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    (void)ctx;
    (void)err;
    range_op *r = (range_op *)op;
    r->next_value = r->first;
    r->remaining = r->count;
    return CS_OK;
}

static int range_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    range_op *r = (range_op *)op;
    if (!r->remaining) return CS_OK;
    uint64_t max = (uint64_t)cs_sql_batch_rows(op->ctx);
    int64_t n = (int64_t)(r->remaining < max ? r->remaining : max);
    cs_col_builder *b = cs_col_builder_new(op->ctx->alloc, op->schema->fields[0].type);
    cs_col_builder_reserve(b, n, 0);
    int64_t *v = (int64_t *)(void *)b->values;
    for (int64_t i = 0; i < n; i++) { /* wraps as Spark's long arithmetic at the extremes */
        v[i] = r->next_value;
        r->next_value = (int64_t)((uint64_t)r->next_value + (uint64_t)r->step);
    }
    b->length = n;
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    r->remaining -= (uint64_t)n;
    *out = cs_col_batch_new(cs_col_type_ref(op->schema), &c, 1, n, err);
    return *out ? CS_OK : CS_EINVAL;
}

static void range_destroy(cs_sql_op *op)
{
    free(op);
}

static void range_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const range_op *r = (const range_op *)op;
    cs_sbuf_printf(out, "(%lld, step=%lld, count=%llu)", (long long)r->first, (long long)r->step,
                   (unsigned long long)r->count);
}

static const cs_sql_op_vtable range_vt = {
    .name = "Range",
    .open = range_open,
    .next = range_next,
    .destroy = range_destroy,
    .explain_args = range_explain,
};

/* Slice `slice` of n->num_slices as RangeExec cuts it: numElements ids (ceil of the span over
 * the step, none when the step points away from the end), slice i taking ids
 * [i * numElements / numSlices, (i + 1) * numElements / numSlices). */
static cs_sql_op *build_range(const cs_phys_node *n, int slice, cs_error *err)
{
    if (n->range_step == 0 || n->num_slices <= 0)
        return cs_error_set(err, CS_EINVAL,
                            "Range: step %lld and %d slices (expected a step "
                            "other than 0 and at least one slice)",
                            (long long)n->range_step, n->num_slices),
               NULL;
    if (slice < 0 || slice >= n->num_slices)
        return cs_error_set(err, CS_EINVAL, "Range: partition %d of %d slices", slice,
                            n->num_slices),
               NULL;
    if (!n->schema || n->schema->n_fields != 1 || n->schema->fields[0].type->id != CS_TYPE_LONG)
        return cs_error_set(err, CS_EINVAL, "Range: the output must be one bigint column"), NULL;
    __int128 span = (__int128)n->range_end - n->range_start, step = n->range_step;
    if (step < 0) {
        span = -span;
        step = -step;
    }
    __int128 total = span <= 0 ? 0 : (span + step - 1) / step;
    __int128 lo = total * slice / n->num_slices, hi = total * (slice + 1) / n->num_slices;
    range_op *r = cs_xcalloc(1, sizeof *r);
    r->first = (int64_t)(n->range_start + lo * n->range_step);
    r->step = n->range_step;
    r->count = (uint64_t)(hi - lo);
    cs_sql_op_init(&r->base, &range_vt, cs_col_type_ref(n->schema), NULL, 0);
    return &r->base;
}

/* ---- a join's residual condition, compiled over left ++ right ---- */

typedef struct join_condition {
    cs_pexpr_program *program;
    const cs_sql_exec_ctx *ctx; /* set when the owner opens */
    int *cols;                  /* narrowed: the columns of left ++ right it reads (NULL: all) */
    int n_cols;
} join_condition;

static int join_condition_eval(void *arg, cs_col_batch *pairs, uint8_t *keep, cs_error *err)
{
    join_condition *jc = arg;
    cs_column *c = NULL;
    int rc = cs_pexpr_eval(jc->program, pairs, jc->ctx, &c, err);
    if (rc) return rc;
    memset(keep, 0, (size_t)pairs->num_rows);
    for (int64_t i = 0; i < pairs->num_rows; i++) /* null counts as false */
        keep[i] = cs_column_is_valid(c, i) && cs_bit_get(c->values, i);
    cs_column_unref(c);
    return CS_OK;
}

/* The operator that owns a join's condition: passes its child's batches through and frees the
 * compiled condition with itself (the join borrows it for its life). */
typedef struct condition_owner {
    cs_sql_op base;
    join_condition *cond;
} condition_owner;

static int owner_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    ((condition_owner *)op)->cond->ctx = ctx;
    return cs_sql_op_open(op->children[0], ctx, err);
}

static int owner_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    return cs_sql_op_next(op->children[0], out, err);
}

static void owner_close(cs_sql_op *op)
{
    cs_sql_op_close(op->children[0]);
}

static void owner_destroy(cs_sql_op *op)
{
    condition_owner *o = (condition_owner *)op;
    cs_pexpr_program_free(o->cond->program);
    free(o->cond->cols);
    free(o->cond);
    free(o);
}

static const cs_sql_op_vtable owner_vt = {
    .name = "JoinCondition",
    .open = owner_open,
    .next = owner_next,
    .close = owner_close,
    .destroy = owner_destroy,
};

cs_col_type *cs_phys_join_input(const cs_col_type *l, const cs_col_type *r)
{
    int n = l->n_fields + r->n_fields;
    cs_col_field *f = cs_xcalloc((size_t)(n ? n : 1), sizeof *f);
    for (int i = 0; i < l->n_fields; i++)
        f[i] = l->fields[i];
    for (int i = 0; i < r->n_fields; i++)
        f[l->n_fields + i] = r->fields[i];
    for (int i = 0; i < n; i++)
        cs_col_type_ref(f[i].type);
    cs_col_type *t = cs_col_type_struct(f, n);
    free(f);
    return t;
}

/* Marks the input columns (ordinals below n_input; a lambda's variables come after them) e reads.
 */
static void mark_read(const cs_pexpr *e, int n_input, bool *read)
{
    if (e->kind == CS_PX_COLUMN && e->ordinal >= 0 && e->ordinal < n_input) read[e->ordinal] = true;
    for (int i = 0; i < e->n_args; i++)
        mark_read(e->args[i], n_input, read);
}

/* Renumbers e's input columns through map and its lambda variables to follow the n_read kept. */
static void renumber_read(cs_pexpr *e, int n_input, int n_read, const int *map)
{
    if (e->kind == CS_PX_COLUMN)
        e->ordinal = e->ordinal < n_input ? map[e->ordinal] : e->ordinal - n_input + n_read;
    for (int i = 0; i < e->n_args; i++)
        renumber_read(e->args[i], n_input, n_read, map);
}

/* Narrows a condition over left ++ right (schema) to the columns it reads when it reads fewer
 * than all (and some): *cols (ascending, *n_cols) and *schema / *e become those columns and the
 * condition renumbered over them (*e a new tree of the caller's; untouched when nothing is left
 * out). */
static void narrow_condition(cs_col_type **schema, cs_pexpr **e, int **cols, int *n_cols)
{
    int n = (*schema)->n_fields, k = 0;
    bool *read = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *read);
    mark_read(*e, n, read);
    int *map = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *map);
    for (int c = 0; c < n; c++)
        map[c] = read[c] ? k++ : -1;
    if (k > 0 && k < n) {
        *cols = cs_xcalloc((size_t)k, sizeof **cols);
        cs_col_field *f = cs_xcalloc((size_t)k, sizeof *f);
        for (int c = 0; c < n; c++)
            if (read[c]) {
                (*cols)[map[c]] = c;
                f[map[c]] = (*schema)->fields[c];
                cs_col_type_ref(f[map[c]].type);
            }
        *n_cols = k;
        cs_col_type *narrow = cs_col_type_struct(f, k);
        free(f);
        cs_col_type_unref(*schema);
        *schema = narrow;
        *e = cs_pexpr_clone(*e);
        renumber_read(*e, n, k, map);
    }
    free(map);
    free(read);
}

/* The compiled condition of a join node (NULL with *cond NULL when it has none); on failure the
 * join's children are freed. narrow: compiled over only the columns it reads (a hash join's
 * pairs gather no others), else over left ++ right. */
static int compile_join_condition(const cs_phys_node *n, cs_sql_op *left, cs_sql_op *right,
                                  bool narrow, join_condition **cond, cs_error *err)
{
    *cond = NULL;
    if (!n->join_condition) return CS_OK;
    cs_col_type *schema = cs_phys_join_input(left->schema, right->schema);
    cs_pexpr *e = n->join_condition;
    int *cols = NULL, n_cols = 0;
    if (narrow) narrow_condition(&schema, &e, &cols, &n_cols);
    cs_pexpr_program *p = cs_pexpr_compile(e, schema, err);
    if (e != n->join_condition) cs_pexpr_free(e);
    cs_col_type_unref(schema);
    if (!p) {
        free(cols);
        cs_sql_op_free(left);
        cs_sql_op_free(right);
        return cs_error_prefix(err, "%s: the join condition", cs_phys_node_name(n));
    }
    *cond = cs_xcalloc(1, sizeof **cond);
    (*cond)->program = p;
    (*cond)->cols = cols;
    (*cond)->n_cols = n_cols;
    return CS_OK;
}

/* join wrapped in the owner of cond (join NULL: frees cond, NULL). */
static cs_sql_op *own_condition(cs_sql_op *join, join_condition *cond)
{
    if (!cond) return join;
    if (!join) {
        cs_pexpr_program_free(cond->program);
        free(cond->cols);
        free(cond);
        return NULL;
    }
    condition_owner *o = cs_xcalloc(1, sizeof *o);
    o->cond = cond;
    cs_sql_op_init(&o->base, &owner_vt, cs_col_type_ref(join->schema), &join, 1);
    return &o->base;
}

/* ---- FILE_SCAN ---- */

/* The scalar of a one-row literal column of type t, false when a pushed filter cannot carry it. */
static bool scalar_of(const cs_column *lit, cs_scalar *s)
{
    memset(s, 0, sizeof *s);
    const cs_col_type *t = lit->type;
    s->type = t->id;
    if (lit->length != 1 || !cs_column_is_valid(lit, 0)) return false;
    const uint8_t *v = lit->values;
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        s->i64 = cs_bit_get(v, 0);
        return true;
    case CS_TYPE_BYTE:
        s->i64 = *(const int8_t *)v;
        return true;
    case CS_TYPE_SHORT:
        s->i64 = *(const int16_t *)(const void *)v;
        return true;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        s->i64 = *(const int32_t *)(const void *)v;
        return true;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        s->i64 = *(const int64_t *)(const void *)v;
        return true;
    case CS_TYPE_FLOAT:
        s->f64 = *(const float *)(const void *)v;
        return true;
    case CS_TYPE_DOUBLE:
        s->f64 = *(const double *)(const void *)v;
        return true;
    case CS_TYPE_DECIMAL:
        memcpy(&s->dec, v, 16);
        return true;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        s->data = cs_column_bytes(lit, 0, &s->len);
        return true;
    default:
        return false;
    }
}

static const struct {
    const char *fn;
    cs_filter_op op, flipped; /* flipped: literal op column */
} compare_ops[] = {
    {"=", CS_FILTER_EQ, CS_FILTER_EQ}, {"<=>", CS_FILTER_NULL_SAFE_EQ, CS_FILTER_NULL_SAFE_EQ},
    {"<", CS_FILTER_LT, CS_FILTER_GT}, {"<=", CS_FILTER_LE, CS_FILTER_GE},
    {">", CS_FILTER_GT, CS_FILTER_LT}, {">=", CS_FILTER_GE, CS_FILTER_LE},
};

/* The data column a filter's column reference names (NULL: a partition column or not a plain
 * reference: not pushed). */
static const cs_col_field *data_column(const cs_phys_node *n, const cs_pexpr *e)
{
    if (e->kind != CS_PX_COLUMN || e->ordinal < 0 || e->ordinal >= n->read_schema->n_fields)
        return NULL;
    return &n->read_schema->fields[e->ordinal];
}

static bool literal_of(const cs_pexpr *e, const cs_col_field *column, cs_scalar *s)
{
    return e->kind == CS_PX_LITERAL && e->literal &&
           cs_col_type_equal(e->literal->type, column->type) && scalar_of(e->literal, s);
}

/* Translates pushed filter e into *f (values in vals, room for e's arguments); false when it is
 * not `column op literal`, a null test of a column or `column IN (literals)`. */
static bool translate_filter(const cs_phys_node *n, const cs_pexpr *e, cs_scan_filter *f,
                             cs_scalar *vals)
{
    memset(f, 0, sizeof *f);
    f->values = vals;
    if (e->kind == CS_PX_IN) {
        const cs_col_field *c = e->n_args > 1 ? data_column(n, e->args[0]) : NULL;
        if (!c) return false;
        for (int i = 1; i < e->n_args; i++)
            if (!literal_of(e->args[i], c, &vals[i - 1])) return false;
        *f = (cs_scan_filter){c->name, CS_FILTER_IN, vals, e->n_args - 1};
        return true;
    }
    if (e->kind != CS_PX_CALL || !e->fn) return false;
    if ((!strcmp(e->fn, "isnull") || !strcmp(e->fn, "isnotnull")) && e->n_args == 1) {
        const cs_col_field *c = data_column(n, e->args[0]);
        if (!c) return false;
        bool is_null = strcmp(e->fn, "isnull") == 0;
        *f =
            (cs_scan_filter){c->name, is_null ? CS_FILTER_IS_NULL : CS_FILTER_IS_NOT_NULL, vals, 0};
        return true;
    }
    if (e->n_args != 2) return false;
    for (size_t k = 0; k < sizeof compare_ops / sizeof compare_ops[0]; k++) {
        if (strcmp(e->fn, compare_ops[k].fn) != 0) continue;
        for (int side = 0; side < 2; side++) {
            const cs_col_field *c = data_column(n, e->args[side]);
            if (c && literal_of(e->args[1 - side], c, &vals[0])) {
                *f = (cs_scan_filter){c->name, side ? compare_ops[k].flipped : compare_ops[k].op,
                                      vals, 1};
                return true;
            }
        }
        return false;
    }
    return false;
}

/* late: the late filter's condition and TopN bound for the scan (NULL: none). */
typedef struct late_spec {
    const cs_pexpr *condition;
    cs_sql_topn_bound *bound;
    int bound_column;
} late_spec;

static cs_sql_op *build_file_scan(const cs_phys_node *n, int partition, const late_spec *late,
                                  cs_error *err)
{
    const cs_file_format *fmt = n->format ? cs_file_format_find(n->format) : NULL;
    if (!fmt)
        return cs_error_set(err, CS_EUNSUPPORTED, "FileScan: no file format '%s'",
                            n->format ? n->format : "(none)"),
               NULL;
    if (!n->data_schema || !n->read_schema)
        return cs_error_set(err, CS_EINVAL, "FileScan %s: no data or read schema", n->format), NULL;
    if (partition < 0 || partition >= n->n_groups || !n->group_start)
        return cs_error_set(err, CS_EINVAL, "FileScan %s: partition %d of %d file groups",
                            n->format, partition, n->n_groups),
               NULL;
    int first = n->group_start[partition], end = n->group_start[partition + 1];
    if (first < 0 || end < first || end > n->n_splits)
        return cs_error_set(err, CS_EINVAL, "FileScan %s: file group %d spans splits %d..%d of %d",
                            n->format, partition, first, end - 1, n->n_splits),
               NULL;
    cs_file_split *splits = cs_xcalloc((size_t)(end - first) + 1, sizeof *splits);
    for (int i = first; i < end; i++)
        splits[i - first] = (cs_file_split){n->split_uri[i], n->split_start[i], n->split_length[i],
                                            n->split_file_size[i]};

    /* pushed filters the format understands; the rest stay with the Filter above */
    int n_vals = 0;
    for (int i = 0; i < n->n_filters; i++)
        n_vals += n->filters[i]->n_args + 1;
    cs_scan_filter *filters = cs_xcalloc((size_t)n->n_filters + 1, sizeof *filters);
    cs_scalar *vals = cs_xcalloc((size_t)n_vals + 1, sizeof *vals);
    int nf = 0;
    for (int i = 0, at = 0; i < n->n_filters; i++) {
        if (translate_filter(n, n->filters[i], &filters[nf], vals + at)) nf++;
        at += n->filters[i]->n_args + 1;
    }
    cs_format_options opts = {(const char *const *)n->option_keys,
                              (const char *const *)n->option_values, n->n_options};
    cs_sql_file_scan_spec spec = {
        .format = fmt,
        .options = &opts,
        .data_schema = n->data_schema,
        .read_schema = n->read_schema,
        .filters = filters,
        .n_filters = nf,
        .partition_values = n->partition_values,
        .splits = splits,
        .split_partition = n->split_partition ? n->split_partition + first : NULL,
        .n_splits = end - first,
        .late_condition = late ? late->condition : NULL,
        .bound = late ? late->bound : NULL,
        .bound_column = late ? late->bound_column : -1,
    };
    cs_sql_op *op = cs_sql_op_file_scan(&spec);
    free(vals);
    free(filters);
    free(splits);
    return op;
}

/* ---- the tree ---- */

/* Slice `slice` of a LOCAL node's rows as Spark's ParallelCollectionRDD cuts a sequence into
 * num_slices: rows [slice * len / num_slices, (slice + 1) * len / num_slices). */
static cs_sql_op *build_local(const cs_phys_node *n, int slice, cs_error *err)
{
    if (n->num_slices <= 1)
        return cs_sql_op_batches(cs_col_type_ref(n->schema), n->batches, n->n_batches);
    if (slice < 0 || slice >= n->num_slices)
        return cs_error_set(err, CS_EINVAL, "local rows: slice %d of %d", slice, n->num_slices),
               NULL;
    int64_t len = 0;
    for (int i = 0; i < n->n_batches; i++)
        len += n->batches[i]->num_rows;
    int64_t lo = len * slice / n->num_slices, hi = len * (slice + 1) / n->num_slices, at = 0;
    cs_col_batch **parts = cs_xcalloc((size_t)n->n_batches + 1, sizeof *parts);
    int np = 0;
    for (int i = 0; i < n->n_batches && at < hi; at += n->batches[i++]->num_rows) {
        int64_t rows = n->batches[i]->num_rows, from = lo > at ? lo - at : 0;
        int64_t to = hi - at < rows ? hi - at : rows;
        if (to <= from) continue;
        if (from == 0 && to == rows) {
            parts[np++] = cs_col_batch_ref(n->batches[i]);
            continue;
        }
        int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(to - from));
        for (int64_t r = from; r < to; r++)
            idx[r - from] = (int32_t)r;
        parts[np++] = cs_col_batch_take(n->batches[i], idx, to - from, cs_col_default_allocator());
        free(idx);
    }
    cs_sql_op *op = cs_sql_op_batches(cs_col_type_ref(n->schema), parts, np);
    for (int i = 0; i < np; i++)
        cs_col_batch_unref(parts[i]);
    free(parts);
    return op;
}

static cs_sql_op *build(const cs_phys_node *n, const cs_phys_inputs *in, int depth, cs_error *err);

/* The operators of n's children (all or none: NULL + err, nothing left to free). */
static cs_sql_op **build_children(const cs_phys_node *n, const cs_phys_inputs *in, int depth,
                                  cs_error *err)
{
    cs_sql_op **c = cs_xcalloc((size_t)(n->n_children > 0 ? n->n_children : 1), sizeof *c);
    for (int i = 0; i < n->n_children; i++) {
        c[i] = n->children[i]
                   ? build(n->children[i], in, depth + 1, err)
                   : (cs_error_set(err, CS_EINVAL, "%s: child %d missing", cs_phys_node_name(n), i),
                      NULL);
        if (!c[i]) {
            for (int k = 0; k < i; k++)
                cs_sql_op_free(c[k]);
            free(c);
            return NULL;
        }
    }
    return c;
}

static int expect_children(const cs_phys_node *n, int want, cs_error *err)
{
    if (n->n_children == want) return CS_OK;
    return cs_error_set(err, CS_EINVAL, "%s: %d children (expected %d)", cs_phys_node_name(n),
                        n->n_children, want);
}

static cs_sql_op *build_hash_join(const cs_phys_node *n, cs_sql_op *left, cs_sql_op *right,
                                  cs_error *err)
{
    join_condition *cond;
    if (compile_join_condition(n, left, right, true, &cond, err)) return NULL;
    const cs_phys_node *b = n->children[n->build_side == CS_BUILD_LEFT ? 0 : 1];
    cs_join_spec spec = {
        .build_broadcast = b->kind == CS_PH_BROADCAST_READ, /* its table: once per process */
        .build_broadcast_input = b->input,
        .type = n->join_type,
        .build = n->build_side,
        .left_keys = n->left_keys,
        .right_keys = n->right_keys,
        .n_keys = n->n_join_keys,
        .condition = cond ? join_condition_eval : NULL,
        .condition_arg = cond,
        .condition_cols = cond ? cond->cols : NULL,
        .n_condition_cols = cond ? cond->n_cols : 0,
    };
    return own_condition(cs_sql_op_hash_join(left, right, &spec, err), cond);
}

static cs_sql_op *build_nested_loop_join(const cs_phys_node *n, cs_sql_op *left, cs_sql_op *right,
                                         cs_error *err)
{
    join_condition *cond;
    if (compile_join_condition(n, left, right, false, &cond, err)) return NULL;
    cs_sql_op *op = cs_sql_op_nested_loop_join(left, right, n->join_type, n->build_side,
                                               cond ? join_condition_eval : NULL, cond, err);
    return own_condition(op, cond);
}

/* PYTHON_EVAL: the UDFs' names and result types are the schema's fields after the child's. */
static cs_sql_op *build_python_eval(const cs_phys_node *n, cs_sql_op *child, cs_error *err)
{
    int base = child->schema->n_fields;
    bool group_map = n->py_eval_type == CS_PY_EVAL_GROUPED_MAP_PANDAS_UDF ||
                     n->py_eval_type == CS_PY_EVAL_GROUPED_MAP_ARROW_UDF;
    bool map_in_batch = n->py_eval_type == CS_PY_EVAL_MAP_PANDAS_ITER_UDF ||
                        n->py_eval_type == CS_PY_EVAL_MAP_ARROW_ITER_UDF;
    if ((group_map || map_in_batch) && n->schema && n->n_py_udfs == 1) {
        cs_py_eval_udf u = {NULL,
                            n->py_udfs[0].command,
                            n->py_udfs[0].command_len,
                            n->py_udfs[0].n_args,
                            n->py_udfs[0].args,
                            NULL,
                            NULL};
        cs_py_eval_spec spec = {
            n->py_eval_type, n->py_python,          n->py_python_ver,  1, &u, n->py_max_records,
            n->py_safe_cast, n->py_columns_by_name, n->py_faulthandler};
        cs_col_type *out = cs_col_type_ref(n->schema);
        return group_map ? cs_sql_op_python_group_map(child, &spec, out, err)
                         : cs_sql_op_python_map_in_batch(child, &spec, out, err);
    }
    if ((n->py_eval_type == CS_PY_EVAL_GROUPED_AGG_PANDAS_UDF ||
         n->py_eval_type == CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF) &&
        n->schema) {
        cs_py_eval_udf *udfs = cs_xcalloc((size_t)n->n_py_udfs + 1, sizeof *udfs);
        for (int i = 0; i < n->n_py_udfs; i++)
            udfs[i] = (cs_py_eval_udf){NULL,
                                       n->py_udfs[i].command,
                                       n->py_udfs[i].command_len,
                                       n->py_udfs[i].n_args,
                                       n->py_udfs[i].args,
                                       (const char *const *)n->py_udfs[i].arg_names,
                                       NULL};
        cs_py_eval_spec spec = {
            n->py_eval_type,   n->py_python,    n->py_python_ver,      n->n_py_udfs,      udfs,
            n->py_max_records, n->py_safe_cast, n->py_columns_by_name, n->py_faulthandler};
        cs_sql_op *op =
            n->py_eval_type == CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF
                ? cs_sql_op_python_window(child, &spec, n->group_keys, n->n_group_keys,
                                          n->sort_keys, n->n_sort_keys, cs_col_type_ref(n->schema),
                                          err)
                : cs_sql_op_python_aggregate(child, &spec, n->group_keys, n->n_group_keys,
                                             cs_col_type_ref(n->schema), err);
        free(udfs);
        return op;
    }
    if (!n->schema || n->schema->n_fields != base + n->n_py_udfs) {
        cs_sql_op_free(child);
        return cs_error_set(err, CS_EINVAL, "%s: %d UDFs for its schema", cs_phys_node_name(n),
                            n->n_py_udfs),
               NULL;
    }
    cs_py_eval_udf *udfs = cs_xcalloc((size_t)n->n_py_udfs + 1, sizeof *udfs);
    for (int i = 0; i < n->n_py_udfs; i++) {
        const cs_col_field *f = &n->schema->fields[base + i];
        udfs[i] = (cs_py_eval_udf){f->name,
                                   n->py_udfs[i].command,
                                   n->py_udfs[i].command_len,
                                   n->py_udfs[i].n_args,
                                   n->py_udfs[i].args,
                                   (const char *const *)n->py_udfs[i].arg_names,
                                   cs_col_type_ref(f->type)};
    }
    cs_py_eval_spec spec = {
        n->py_eval_type,   n->py_python,    n->py_python_ver,      n->n_py_udfs,      udfs,
        n->py_max_records, n->py_safe_cast, n->py_columns_by_name, n->py_faulthandler};
    cs_sql_op *op = cs_sql_op_python_eval(child, &spec, err);
    free(udfs);
    return op;
}

static cs_sql_op *build_unary(const cs_phys_node *n, cs_sql_op *child, cs_error *err)
{
    switch (n->kind) {
    case CS_PH_FILTER:
        if (!n->condition) break;
        return cs_sql_op_filter(child, cs_pexpr_clone(n->condition));
    case CS_PH_PROJECT: {
        if (!n->schema || n->schema->n_fields != n->n_exprs) break;
        cs_pexpr **e = cs_xcalloc((size_t)n->n_exprs + 1, sizeof *e);
        for (int i = 0; i < n->n_exprs; i++)
            e[i] = cs_pexpr_clone(n->exprs[i]);
        /* a Filter below compacts only the columns the project reads */
        int nc = child->schema->n_fields;
        bool *read = cs_xcalloc((size_t)nc + 1, sizeof *read);
        for (int i = 0; i < n->n_exprs; i++)
            mark_read(n->exprs[i], nc, read);
        cs_sql_op_filter_reads(child, read, nc);
        free(read);
        cs_sql_op *op = cs_sql_op_project(child, e, n->n_exprs, cs_col_type_ref(n->schema));
        free(e);
        return op;
    }
    case CS_PH_HASH_AGGREGATE:
        return cs_sql_op_hash_aggregate(child, n->agg_mode, n->group_keys, n->n_group_keys, n->aggs,
                                        n->n_aggs, err);
    case CS_PH_SORT:
        return cs_sql_op_sort(child, n->sort_keys, n->n_sort_keys, err);
    case CS_PH_TOP_N:
        return cs_sql_op_top_n(child, n->sort_keys, n->n_sort_keys, n->limit, n->offset, err);
    case CS_PH_LIMIT:
        return cs_sql_op_limit(child, n->limit, n->offset, err);
    case CS_PH_EXPAND: {
        if (!n->schema || n->schema->n_fields < n->n_out) break;
        const char **names = cs_xcalloc((size_t)n->n_out + 1, sizeof *names);
        for (int i = 0; i < n->n_out; i++)
            names[i] = n->schema->fields[i].name;
        cs_sql_op *op = cs_sql_op_expand(child, n->projections, n->n_projections, n->n_out,
                                         n->grouping_ids, names, err);
        free(names);
        return op;
    }
    case CS_PH_WINDOW:
        return cs_sql_op_window(child, n->partition_keys, n->n_partition_keys, n->order_keys,
                                n->n_order_keys, n->window_fns, n->n_window_fns, err);
    case CS_PH_GENERATE:
        return cs_sql_op_generate_kept(child, n->generator, n->generator_input, n->generator_args,
                                       n->n_generator_args, n->stack_rows, n->generator_outer,
                                       n->generator_pruned ? n->generator_keep : NULL,
                                       n->n_generator_keep, err);
    case CS_PH_PYTHON_EVAL:
        return build_python_eval(n, child, err);
    case CS_PH_SAMPLE:
        return cs_sql_op_sample(child, n->sample_lower, n->sample_upper, n->with_replacement,
                                n->seed);
    default:
        break;
    }
    cs_sql_op_free(child);
    return cs_error_set(err, CS_EINVAL, "%s: incomplete node", cs_phys_node_name(n)), NULL;
}

/* PYTHON_EVAL of a cogrouped map (eval type 206 / 210): two children, one UDF. */
static cs_sql_op *build_python_cogroup(const cs_phys_node *n, const cs_phys_inputs *in, int depth,
                                       cs_error *err)
{
    if (n->n_py_udfs != 1 || !n->schema)
        return cs_error_set(err, CS_EINVAL, "%s: a cogrouped map needs one UDF",
                            cs_phys_node_name(n)),
               NULL;
    cs_sql_op **c = build_children(n, in, depth, err);
    if (!c) return NULL;
    cs_py_eval_udf u = {NULL,
                        n->py_udfs[0].command,
                        n->py_udfs[0].command_len,
                        n->py_udfs[0].n_args,
                        n->py_udfs[0].args,
                        NULL,
                        NULL};
    cs_py_eval_spec spec = {
        n->py_eval_type, n->py_python,          n->py_python_ver,  1, &u, n->py_max_records,
        n->py_safe_cast, n->py_columns_by_name, n->py_faulthandler};
    cs_sql_op *op = cs_sql_op_python_cogroup(c[0], c[1], &spec, cs_col_type_ref(n->schema), err);
    free(c);
    return op;
}

/* TopN over [Filter over] FileScan in one task: the TopN's bound and the Filter's condition
 * become the scan's late filter (topn_bound.h), so that the scan decodes the other columns only
 * of batches with a row that may still enter. NULL with err clear: not that shape. */
static cs_sql_op *build_top_n_over_scan(const cs_phys_node *n, const cs_phys_inputs *in,
                                        cs_error *err)
{
    if (n->n_children != 1 || n->n_sort_keys < 1 || n->limit + n->offset <= 0) return NULL;
    const cs_phys_node *filter = n->children[0], *scan = filter;
    const cs_pexpr *cond = NULL;
    if (filter->kind == CS_PH_FILTER) {
        if (filter->n_children != 1 || !filter->condition ||
            !cs_pexpr_deterministic(filter->condition))
            return NULL;
        cond = filter->condition;
        scan = filter->children[0];
    }
    if (scan->kind != CS_PH_FILE_SCAN || !scan->read_schema) return NULL;
    int key = n->sort_keys[0].ordinal;
    if (key < 0 || key >= scan->read_schema->n_fields) return NULL; /* a partition column */
    cs_sbuf id = {0};
    cs_error ignored = {0};
    bool shared = cs_phys_encode(n, &id, &ignored) == CS_OK;
    cs_sql_topn_bound *tb =
        cs_sql_topn_bound_new(n->sort_keys[0], scan->read_schema->fields[key].name,
                              shared ? (const uint8_t *)id.data : NULL, shared ? id.len : 0);
    cs_sbuf_free(&id);
    late_spec late = {cond, tb, key};
    cs_sql_op *op = build_file_scan(scan, in->partition, &late, err);
    if (op && cond) op = cs_sql_op_filter(op, cs_pexpr_clone(cond));
    if (op) op = cs_sql_op_top_n(op, n->sort_keys, n->n_sort_keys, n->limit, n->offset, err);
    if (op) cs_sql_op_top_n_publish(op, tb);
    cs_sql_topn_bound_unref(tb);
    if (!op && !err->code) cs_error_set(err, CS_EINVAL, "TopN over a file scan: not built");
    return op;
}

static cs_sql_op *build(const cs_phys_node *n, const cs_phys_inputs *in, int depth, cs_error *err)
{
    if (depth > 1000)
        return cs_error_set(err, CS_EINVAL, "physical plan: deeper than 1000 nodes"), NULL;
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        return build_file_scan(n, in->partition, NULL, err);
    case CS_PH_LOCAL:
        if (!n->schema) break;
        return build_local(n, in->partition, err);
    case CS_PH_RANGE:
        return build_range(n, in->partition, err);
    case CS_PH_SHUFFLE_READ:
    case CS_PH_BROADCAST_READ:
    case CS_PH_PARENT_READ:
        if (!in->open_input)
            return cs_error_set(err, CS_EINVAL, "%s of input %d: the task has no inputs",
                                cs_phys_node_name(n), n->input),
                   NULL;
        return in->open_input(in->arg, n, err);
    case CS_PH_EXCHANGE:
    case CS_PH_BROADCAST_EXCHANGE:
    case CS_PH_COALESCE:
    case CS_PH_REUSED_EXCHANGE:
        return cs_error_set(err, CS_EINVAL,
                            "%s below the root of a task's tree (the driver cuts stages there)",
                            cs_phys_node_name(n)),
               NULL;
    case CS_PH_FILTER:
    case CS_PH_PROJECT:
    case CS_PH_HASH_AGGREGATE:
    case CS_PH_SORT:
    case CS_PH_TOP_N:
    case CS_PH_LIMIT:
    case CS_PH_EXPAND:
    case CS_PH_WINDOW:
    case CS_PH_GENERATE:
    case CS_PH_SAMPLE:
    case CS_PH_PYTHON_EVAL: {
        if (n->kind == CS_PH_PYTHON_EVAL && n->n_children == 2)
            return build_python_cogroup(n, in, depth, err);
        if (expect_children(n, 1, err)) return NULL;
        if (n->kind == CS_PH_TOP_N) {
            cs_sql_op *op = build_top_n_over_scan(n, in, err);
            if (op || err->code) return op;
        }
        cs_sql_op **c = build_children(n, in, depth, err);
        if (!c) return NULL;
        cs_sql_op *child = c[0];
        free(c);
        return build_unary(n, child, err);
    }
    case CS_PH_HASH_JOIN:
    case CS_PH_NESTED_LOOP_JOIN: {
        if (expect_children(n, 2, err)) return NULL;
        cs_sql_op **c = build_children(n, in, depth, err);
        if (!c) return NULL;
        cs_sql_op *l = c[0], *r = c[1];
        free(c);
        if (n->kind == CS_PH_HASH_JOIN) return build_hash_join(n, l, r, err);
        return build_nested_loop_join(n, l, r, err);
    }
    case CS_PH_UNION: {
        if (n->n_children < 1) return expect_children(n, 1, err), NULL;
        cs_sql_op **c = build_children(n, in, depth, err);
        if (!c) return NULL;
        cs_sql_op *op = cs_sql_op_union(c, n->n_children, err);
        free(c);
        return op;
    }
    }
    return cs_error_set(err, CS_EINVAL, "physical plan: a node of unknown kind %d", (int)n->kind),
           NULL;
}

cs_sql_op *cs_phys_build(const cs_phys_node *root, const cs_phys_inputs *in, cs_error *err)
{
    if (!root) return cs_error_set(err, CS_EINVAL, "physical plan: no tree"), NULL;
    return build(root, in, 0, err);
}
