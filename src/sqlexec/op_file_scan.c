/*
 * op_file_scan.c — FileSourceScan: the leaf that reads a task's file splits through their
 * format (Parquet, CSV, JSON, text) into column batches, with the pushed-down filters (row
 * groups and pages skipped by the format) and the projected columns, and the split's partition
 * values appended as constant columns — Spark's FileSourceScanExec over a FilePartition.
 *
 * The operator owns a deep copy of what it is given (splits, schemas, options, filters), so
 * the planner's and the task decoder's memory may go once it is built. Splits are read one
 * after another; a reader error names the file (the formats' messages do).
 *
 * Late materialization (under a TopN, sql_ops_scan.h): the columns the Filter's condition and
 * the TopN's bound read are handed to the format as a late filter (file_format.h); its test
 * evaluates the condition over them, then asks the bound whether a passing row could still
 * enter the TopN. The Filter above still evaluates its condition on the batches returned.
 *
 * Called by the SQL planner (driver-local work) and by the SQL stage's task body. Ownership:
 * see operator.h; the late filter's program, column list and scratch are the operator's, the
 * bound a shared reference.
 */
#include <stdlib.h>
#include <string.h>

#include "datasource/ds_task.h"
#include "sqlexec/sql_ops_scan.h"
#include "sqlexec/topn_bound.h"

typedef struct scan_op {
    cs_sql_op base;
    const cs_file_format *fmt;
    cs_col_type *data_schema, *read_schema;
    cs_col_batch *partition_values; /* NULL: not partitioned */
    int n_splits;
    cs_file_split *splits;
    int *split_partition;
    /* owned copies behind the request */
    char **option_keys, **option_values;
    cs_format_options options;
    cs_scan_filter *filters;
    int n_filters;
    cs_scan_request req;
    /* reading */
    int next_split;
    cs_ds_split_reader *reader;
    /* the late filter: its columns (read_schema ordinals), the condition over them, the bound */
    cs_scan_late_filter late;
    cs_scan_late_counts counts;
    int *late_columns;
    cs_pexpr_program *late_cond;
    cs_sql_topn_bound *bound;
    int bound_early; /* the bound's column among late_columns */
    int32_t *sel;
    int64_t sel_cap;
} scan_op;

/* The late filter's test: the condition's passing rows, then the bound over them. */
static int late_test(void *arg, cs_col_batch *early, bool *any, cs_error *err)
{
    scan_op *s = arg;
    int64_t n = early->num_rows;
    const int32_t *sel = NULL;
    if (s->late_cond) {
        cs_column *pred = NULL;
        int rc = cs_pexpr_eval(s->late_cond, early, s->base.ctx, &pred, err);
        if (rc != CS_OK) return rc;
        if (n > s->sel_cap) {
            s->sel_cap = n;
            free(s->sel);
            s->sel = cs_xmalloc(sizeof *s->sel * (size_t)n);
        }
        n = cs_pexpr_true_rows(pred, s->sel);
        cs_column_unref(pred);
        sel = s->sel;
    }
    *any =
        n > 0 && (!s->bound || cs_sql_topn_bound_may_pass(s->bound, early, s->bound_early, sel, n));
    return CS_OK;
}

static bool late_bound(void *arg, cs_scan_filter *f, bool *nulls_pass)
{
    scan_op *s = arg;
    return s->bound && cs_sql_topn_bound_filter(s->bound, f, nulls_pass);
}

static void mark_columns(const cs_pexpr *e, bool *used)
{
    if (e->kind == CS_PX_COLUMN) used[e->ordinal] = true;
    for (int i = 0; i < e->n_args; i++)
        mark_columns(e->args[i], used);
}

static void renumber_columns(cs_pexpr *e, const int *to)
{
    if (e->kind == CS_PX_COLUMN) e->ordinal = to[e->ordinal];
    for (int i = 0; i < e->n_args; i++)
        renumber_columns(e->args[i], to);
}

static bool columns_in_range(const cs_pexpr *e, int n)
{
    if (e->kind == CS_PX_COLUMN && (e->ordinal < 0 || e->ordinal >= n)) return false;
    for (int i = 0; i < e->n_args; i++)
        if (!columns_in_range(e->args[i], n)) return false;
    return true;
}

/* Sets up the late filter from the spec when its columns are data columns (not partition
 * values) and fewer than all of them; otherwise the scan reads as usual. */
static void plan_late(scan_op *s, const cs_sql_file_scan_spec *spec)
{
    int nr = s->read_schema->n_fields;
    const cs_pexpr *cond = spec->late_condition;
    if (!spec->bound && !cond) return;
    if ((cond && !columns_in_range(cond, nr)) ||
        (spec->bound && (spec->bound_column < 0 || spec->bound_column >= nr)))
        return;
    bool *used = cs_xcalloc((size_t)nr + 1, sizeof *used);
    int *to = cs_xcalloc((size_t)nr + 1, sizeof *to);
    if (cond) mark_columns(cond, used);
    if (spec->bound) used[spec->bound_column] = true;
    int n = 0;
    for (int c = 0; c < nr; c++)
        if (used[c]) to[c] = n++;
    if (n == 0 || n == nr) goto out;
    cs_col_field *fields = cs_xcalloc((size_t)n, sizeof *fields);
    s->late_columns = cs_xcalloc((size_t)n, sizeof *s->late_columns);
    for (int c = 0; c < nr; c++)
        if (used[c]) {
            s->late_columns[to[c]] = c;
            fields[to[c]] = s->read_schema->fields[c];
            cs_col_type_ref(fields[to[c]].type);
        }
    cs_col_type *early = cs_col_type_struct(fields, n);
    free(fields);
    if (cond) {
        cs_pexpr *e = cs_pexpr_clone(cond);
        renumber_columns(e, to);
        cs_error ignored = {0};
        s->late_cond = cs_pexpr_compile(e, early, &ignored);
        cs_pexpr_free(e);
    }
    cs_col_type_unref(early);
    if (cond && !s->late_cond) { /* no kernel: the Filter will say so */
        free(s->late_columns);
        s->late_columns = NULL;
        goto out;
    }
    if (spec->bound) {
        s->bound = cs_sql_topn_bound_ref(spec->bound);
        s->bound_early = to[spec->bound_column];
    }
    s->late = (cs_scan_late_filter){
        &s->counts, s->late_columns, n, late_test, s->bound ? late_bound : NULL, s};
    s->req.late = &s->late;
out:
    free(used);
    free(to);
}

static void copy_filters(scan_op *s, const cs_scan_filter *f, int n)
{
    s->n_filters = n;
    if (n <= 0) return;
    s->filters = cs_xcalloc((size_t)n, sizeof *s->filters);
    for (int i = 0; i < n; i++) {
        cs_scan_filter *d = &s->filters[i];
        d->column = cs_xstrdup(f[i].column);
        d->op = f[i].op;
        d->n_values = f[i].n_values;
        if (f[i].n_values <= 0) continue;
        cs_scalar *v = cs_xcalloc((size_t)f[i].n_values, sizeof *v);
        for (int j = 0; j < f[i].n_values; j++) {
            v[j] = f[i].values[j];
            if (f[i].values[j].data) {
                uint8_t *p = cs_xmalloc((size_t)v[j].len + 1);
                memcpy(p, f[i].values[j].data, (size_t)v[j].len);
                v[j].data = p;
            }
        }
        d->values = v;
    }
}

static void free_filters(scan_op *s)
{
    for (int i = 0; i < s->n_filters; i++) {
        cs_scan_filter *f = &s->filters[i];
        for (int j = 0; j < f->n_values; j++)
            free((void *)f->values[j].data);
        free((void *)f->values);
        free((void *)f->column);
    }
    free(s->filters);
}

static int scan_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    scan_op *s = (scan_op *)op;
    s->req.alloc = ctx->alloc;
    s->req.batch_rows = cs_sql_batch_rows(ctx);
    s->next_split = 0;
    return CS_OK;
}

static int scan_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    scan_op *s = (scan_op *)op;
    for (;;) {
        if (!s->reader) {
            if (s->next_split >= s->n_splits) return CS_OK; /* the end */
            int i = s->next_split++;
            int row = s->partition_values ? s->split_partition[i] : -1;
            int rc = cs_ds_split_reader_open(s->fmt, &s->splits[i], &s->req, s->partition_values,
                                             row, &s->reader, err);
            if (rc < 0) return rc;
        }
        int rc = cs_ds_split_reader_next(s->reader, out, err);
        s->base.metrics.row_groups_skipped = s->counts.row_groups;
        s->base.metrics.rows_skipped = s->counts.rows;
        if (rc < 0) return err->code ? err->code : CS_EIO;
        if (rc > 0) {
            if ((*out)->num_rows > 0) return CS_OK;
            cs_col_batch_unref(*out);
            *out = NULL;
            continue;
        }
        cs_ds_split_reader_close(s->reader);
        s->reader = NULL;
    }
}

static void scan_close(cs_sql_op *op)
{
    scan_op *s = (scan_op *)op;
    if (s->reader) cs_ds_split_reader_close(s->reader);
    s->reader = NULL;
}

static void scan_destroy(cs_sql_op *op)
{
    scan_op *s = (scan_op *)op;
    for (int i = 0; i < s->n_splits; i++)
        free((void *)s->splits[i].uri);
    free(s->splits);
    free(s->split_partition);
    for (int i = 0; i < s->options.n; i++) {
        free(s->option_keys[i]);
        free(s->option_values[i]);
    }
    free(s->option_keys);
    free(s->option_values);
    free_filters(s);
    cs_pexpr_program_free(s->late_cond);
    free(s->late_columns);
    free(s->sel);
    cs_sql_topn_bound_unref(s->bound);
    cs_col_type_unref(s->data_schema);
    cs_col_type_unref(s->read_schema);
    if (s->partition_values) cs_col_batch_unref(s->partition_values);
    free(s);
}

static void scan_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const scan_op *s = (const scan_op *)op;
    cs_sbuf_printf(out, "%s [", s->fmt->name);
    for (int i = 0; i < s->read_schema->n_fields; i++)
        cs_sbuf_printf(out, "%s%s", i ? "," : "", s->read_schema->fields[i].name);
    cs_sbuf_printf(out, "] Splits: %d, PushedFilters: %d", s->n_splits, s->n_filters);
}

static const cs_sql_op_vtable scan_vt = {
    .name = "FileScan",
    .open = scan_open,
    .next = scan_next,
    .close = scan_close,
    .destroy = scan_destroy,
    .explain_args = scan_explain,
};

cs_sql_op *cs_sql_op_file_scan(const cs_sql_file_scan_spec *spec)
{
    scan_op *s = cs_xcalloc(1, sizeof *s);
    s->fmt = spec->format;
    s->data_schema = cs_col_type_ref((cs_col_type *)spec->data_schema);
    s->read_schema = cs_col_type_ref((cs_col_type *)spec->read_schema);
    s->partition_values =
        spec->partition_values ? cs_col_batch_ref((cs_col_batch *)spec->partition_values) : NULL;
    s->n_splits = spec->n_splits;
    s->splits = cs_xcalloc((size_t)spec->n_splits + 1, sizeof *s->splits);
    s->split_partition = cs_xcalloc((size_t)spec->n_splits + 1, sizeof *s->split_partition);
    for (int i = 0; i < spec->n_splits; i++) {
        s->splits[i] = spec->splits[i];
        s->splits[i].uri = cs_xstrdup(spec->splits[i].uri);
        s->split_partition[i] = spec->split_partition ? spec->split_partition[i] : -1;
    }
    int n = spec->options ? spec->options->n : 0;
    s->option_keys = cs_xcalloc((size_t)n + 1, sizeof *s->option_keys);
    s->option_values = cs_xcalloc((size_t)n + 1, sizeof *s->option_values);
    for (int i = 0; i < n; i++) {
        s->option_keys[i] = cs_xstrdup(spec->options->keys[i]);
        s->option_values[i] = cs_xstrdup(spec->options->values[i]);
    }
    s->options = (cs_format_options){(const char *const *)s->option_keys,
                                     (const char *const *)s->option_values, n};
    copy_filters(s, spec->filters, spec->n_filters);
    s->req = (cs_scan_request){
        .data_schema = s->data_schema,
        .read_schema = s->read_schema,
        .filters = s->filters,
        .n_filters = s->n_filters,
        .options = &s->options,
    };
    plan_late(s, spec);

    /* output: the read columns, then the partition columns, as the split readers give them */
    cs_sql_op_init(
        &s->base, &scan_vt,
        cs_ds_scan_schema(s->read_schema, s->partition_values ? s->partition_values->schema : NULL),
        NULL, 0);
    return &s->base;
}
