/*
 * op_python_group_map.c — the Python functions over relations whose results are rows of their
 * own: Spark's FlatMapGroupsInPandasExec (groupBy(...).applyInPandas) and MapInPandasExec /
 * MapInArrowExec (mapInPandas, mapInArrow). The rows go to one PySpark worker per task
 * (python_worker.h) as record batches of an Arrow IPC stream, and what the function returns comes
 * back as batches of one struct column, whose fields are this operator's output columns.
 *
 * applyInPandas (eval type SQL_GROUPED_MAP_PANDAS_UDF): each group is one batch, and the pandas
 * DataFrame the function returns for it one result batch. applyInArrow
 * (SQL_GROUPED_MAP_ARROW_UDF) sends each group's batch as one struct column of the child's
 * columns (Spark's FlatMapGroupsInArrowExec), the offsets then naming the struct's fields.
 *
 * The input is sorted by the grouping keys (the planner puts an Exchange by the keys and a Sort
 * below), so a group is a run of rows with equal encoded keys (sort_keys.c); its rows are
 * gathered from the batches they span into one batch (a group is held whole, as Spark holds it).
 * The batches sent are the child's whole rows; the UDF's argument offsets (Spark's grouped form:
 * length, number of keys, key ordinals, value ordinals) go to the worker as they are.
 *
 *
 * mapInPandas / mapInArrow (SQL_MAP_PANDAS_ITER_UDF / SQL_MAP_ARROW_ITER_UDF): the task's rows in
 * batches of spark.sql.execution.arrow.maxRecordsPerBatch rows (gathered across the child's
 * batches, as Spark's BatchIterator cuts them), the columns the function reads wrapped in one
 * struct column, as Spark's MapInBatchEvaluatorFactory sends them (argument offset 0: the worker
 * makes a pandas DataFrame or an Arrow record batch of the struct). The function's iterator yields
 * as many results as it likes, at its own pace: they are read while input is still being written
 * (the worker's pump).
 *
 * cogroup(...).applyInPandas / applyInArrow (SQL_COGROUPED_MAP_PANDAS_UDF / _ARROW_UDF, Spark's
 * FlatMapCoGroupsInPandasExec / InArrowExec): two children, each sorted by its own keys (in the
 * same partitions: the planner exchanges both by the keys; keys of different types, which the
 * planner did not cast to a common one, never compare equal, so each is a group of one side),
 * merged by key:
 * each key of either side is one group, written as 2 then each side's rows as an Arrow stream of
 * its own (one batch, empty for a side without that key), as CoGroupedArrowPythonRunner writes
 * them; 0 after the last group. The offsets are Spark's, one grouped form per side.
 *
 * A result column the output schema declares NOT NULL holding a null fails the task.
 *
 * The worker comes at open (python_worker.h) and goes at close; its exception is Spark's
 * PythonException. Ownership: the constructor copies the command and offsets and takes over the
 * child and the output schema. Single-threaded: the task's thread.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arrow_ipc.h"
#include "sqlexec/python_eval.h"
#include "sqlexec/python_worker.h"
#include "sqlexec/sql_ops_internal.h"

/* Rows gathered from the batches they span (a group, or a map's batch), with the group's
 * encoded key. */
typedef struct py_rows {
    cs_col_batch **gb;
    int n_gb, cap_gb;
    int32_t *bidx, *ridx; /* row i is row ridx[i] of gb[bidx[i]] */
    int64_t n_rows, cap_rows;
    cs_sql_run_key key;
} py_rows;

/* One side of a cogroup: its child's batches, cut into groups one ahead of the merge. */
typedef struct py_side {
    int n_keys;
    cs_sort_key *keys;
    cs_sql_keybuf kb;
    cs_col_batch *cur; /* the batch being cut, from row pos */
    int64_t pos;
    bool eof;
    py_rows g;  /* the next group */
    bool ready; /* g is whole: its key's rows all taken */
} py_side;

typedef struct py_group_op {
    cs_sql_op base;
    int eval_type;
    int64_t max_rows;     /* map in batch: rows a batch sent; 0: a group a batch */
    bool safe_cast;       /* spark.sql.execution.pandas.convertToArrowArraySafely */
    bool faulthandler;    /* spark.sql.execution.pyspark.udf.faulthandler.enabled */
    bool columns_by_name; /* ...pandas.groupedMap.assignColumnsByName */
    int n_cols;           /* map in batch, applyInArrow: the child's columns sent, in one struct */
    int *cols;
    cs_col_type *sent_schema; /* those: struct<struct: struct<the columns>>; else NULL */
    char *python, *python_ver;
    uint8_t *command;
    size_t command_len;
    int n_args;
    int *args; /* Spark's grouped offsets */
    int n_keys;
    cs_sort_key *keys;
    /* running */
    cs_py_worker *worker;
    cs_ipc_writer *writer;
    cs_ipc_reader *reader;
    bool done;
    cs_sql_keybuf kb;
    py_rows g; /* the group (or map batch) being gathered */
    int64_t groups_sent;
    /* cogroup: both children, by their own keys (o->keys unused) */
    bool cogroup;
    py_side side[2];
} py_group_op;

static void rows_drop(py_rows *g)
{
    for (int i = 0; i < g->n_gb; i++)
        cs_col_batch_unref(g->gb[i]);
    g->n_gb = 0;
    g->n_rows = 0;
    g->key.have = false;
}

static void rows_free(py_rows *g)
{
    rows_drop(g);
    free(g->gb);
    free(g->bidx);
    free(g->ridx);
    free(g->key.bytes);
}

/* Adds row r of b (a reference to b is taken the first time one of its rows comes). */
static void rows_add(py_rows *g, cs_col_batch *b, int64_t r)
{
    if (g->n_gb == 0 || g->gb[g->n_gb - 1] != b) {
        if (g->n_gb == g->cap_gb) {
            g->cap_gb = g->cap_gb ? 2 * g->cap_gb : 8;
            g->gb = cs_xrealloc(g->gb, sizeof *g->gb * (size_t)g->cap_gb);
        }
        g->gb[g->n_gb++] = cs_col_batch_ref(b);
    }
    if (g->n_rows == g->cap_rows) {
        g->cap_rows = g->cap_rows ? 2 * g->cap_rows : 1024;
        g->bidx = cs_xrealloc(g->bidx, sizeof *g->bidx * (size_t)g->cap_rows);
        g->ridx = cs_xrealloc(g->ridx, sizeof *g->ridx * (size_t)g->cap_rows);
    }
    g->bidx[g->n_rows] = g->n_gb - 1;
    g->ridx[g->n_rows++] = (int32_t)r;
}

/* The gathered rows as one batch of schema (none: an empty batch); the rows are dropped. */
static cs_col_batch *rows_gather(py_rows *g, cs_col_type *schema, cs_col_allocator *alloc)
{
    cs_col_batch *none = NULL;
    cs_col_batch *b = g->n_rows > 0
                          ? cs_sql_gather_batch(schema, g->gb, g->bidx, g->ridx, g->n_rows, alloc)
                          : cs_sql_gather_batch(schema, &none, NULL, NULL, 0, alloc);
    rows_drop(g);
    return b;
}

/* The columns sent of g (taken over) as one struct column of sent_schema. */
static cs_col_batch *wrap_columns(py_group_op *o, cs_col_batch *g, cs_error *err)
{
    const cs_col_type *st = o->sent_schema->fields[0].type;
    cs_column *s =
        cs_column_new_raw(o->base.ctx->alloc, cs_col_type_ref((cs_col_type *)st), g->num_rows);
    s->n_children = o->n_cols;
    s->children = cs_xcalloc((size_t)o->n_cols + 1, sizeof *s->children);
    for (int i = 0; i < o->n_cols; i++)
        s->children[i] = cs_column_ref(g->columns[o->cols[i]]);
    int64_t n = g->num_rows;
    cs_col_batch_unref(g);
    return cs_col_batch_new(cs_col_type_ref(o->sent_schema), &s, 1, n, err);
}

/* Sends the gathered rows (a group, or a map's batch) as one batch. */
static int flush_group(py_group_op *o, cs_error *err)
{
    if (o->g.n_rows == 0) return 0;
    cs_col_batch *g = rows_gather(&o->g, o->base.children[0]->schema, o->base.ctx->alloc);
    if (!g) return cs_error_set(err, CS_ENOMEM, "%s: cannot gather a batch", o->base.vt->name);
    if (o->sent_schema && !(g = wrap_columns(o, g, err))) return err->code;
    o->groups_sent++;
    int rc = cs_ipc_writer_write(o->writer, g, err);
    cs_col_batch_unref(g);
    return rc;
}

/* Cuts batch b into groups: each key change sends the group before it. */
static int take_batch(py_group_op *o, cs_col_batch *b, cs_error *err)
{
    if (o->n_keys > 0) cs_sql_keys_encode(&o->kb, b, o->keys, o->n_keys, false);
    for (int64_t r = 0; r < b->num_rows; r++) {
        const uint8_t *k = o->n_keys > 0 ? o->kb.bytes + o->kb.off[r] : NULL;
        size_t kl = o->n_keys > 0 ? (size_t)(o->kb.off[r + 1] - o->kb.off[r]) : 0;
        if ((o->max_rows > 0 && o->g.n_rows == o->max_rows) ||
            cs_sql_run_key_ends(&o->g.key, k, kl)) {
            if (flush_group(o, err) != 0) return err->code;
        }
        if (!o->g.key.have) cs_sql_run_key_set(&o->g.key, k, kl);
        rows_add(&o->g, b, r);
    }
    return 0;
}

static int pump(void *arg, cs_error *err)
{
    py_group_op *o = arg;
    for (;;) {
        cs_col_batch *b = NULL;
        if (cs_sql_op_next(o->base.children[0], &b, err) != 0) return err->code;
        if (!b) {
            if (flush_group(o, err) != 0 || cs_ipc_writer_close(o->writer, err) != 0)
                return err->code;
            cs_py_worker_end_input(o->worker);
            return 1;
        }
        int64_t sent = o->groups_sent;
        int rc = take_batch(o, b, err);
        cs_col_batch_unref(b);
        if (rc != 0) return rc;
        if (o->groups_sent != sent) return 0; /* a group went out; else keep gathering */
    }
}

/* Cuts side s's input until its next group is whole (or its input has ended). */
static int side_fill(py_group_op *o, int i, cs_error *err)
{
    py_side *s = &o->side[i];
    while (!s->ready) {
        if (!s->cur) {
            if (s->eof) break;
            if (cs_sql_op_next(o->base.children[i], &s->cur, err) != 0) return err->code;
            if (!s->cur) {
                s->eof = true;
                break;
            }
            cs_sql_keys_encode(&s->kb, s->cur, s->keys, s->n_keys, false);
            s->pos = 0;
        }
        for (; s->pos < s->cur->num_rows; s->pos++) {
            const uint8_t *k = s->kb.bytes + s->kb.off[s->pos];
            size_t kl = (size_t)(s->kb.off[s->pos + 1] - s->kb.off[s->pos]);
            if (cs_sql_run_key_ends(&s->g.key, k, kl)) {
                s->ready = true; /* this row starts the next group */
                return 0;
            }
            if (!s->g.key.have) cs_sql_run_key_set(&s->g.key, k, kl);
            rows_add(&s->g, s->cur, s->pos);
        }
        cs_col_batch_unref(s->cur);
        s->cur = NULL;
    }
    if (s->eof && s->g.n_rows > 0) s->ready = true;
    return 0;
}

/* Sends side i's group (take) or an empty one of its columns as an Arrow stream of its own. */
static int send_side(py_group_op *o, int i, bool take, cs_error *err)
{
    py_side *s = &o->side[i];
    cs_col_type *schema = o->base.children[i]->schema;
    py_rows none = {0};
    cs_col_batch *b = rows_gather(take ? &s->g : &none, schema, o->base.ctx->alloc);
    if (take) s->ready = false;
    if (!b) return cs_error_set(err, CS_ENOMEM, "%s: cannot gather a group", o->base.vt->name);
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_py_worker_ipc_sink, o->worker);
    int rc = cs_ipc_writer_write(w, b, err);
    if (rc == 0) rc = cs_ipc_writer_close(w, err);
    cs_ipc_writer_free(w);
    cs_col_batch_unref(b);
    return rc;
}

/* Cogroup: the next key of either side (the smaller in the sort order of both) goes out as
 * 2 then the left's rows and the right's, each an Arrow stream (empty for a side without the
 * key), as Spark's CoGroupedArrowPythonRunner writes them; 0 ends the groups. */
static int pump_cogroup(void *arg, cs_error *err)
{
    py_group_op *o = arg;
    if (side_fill(o, 0, err) != 0 || side_fill(o, 1, err) != 0) return err->code;
    py_side *l = &o->side[0], *r = &o->side[1];
    if (!l->ready && !r->ready) {
        cs_py_worker_send_int(o->worker, 0);
        cs_py_worker_end_input(o->worker);
        return 1;
    }
    int cmp;
    if (!l->ready || !r->ready) {
        cmp = l->ready ? -1 : 1;
    } else {
        size_t n = l->g.key.len < r->g.key.len ? l->g.key.len : r->g.key.len;
        cmp = n ? memcmp(l->g.key.bytes, r->g.key.bytes, n) : 0;
        if (cmp == 0) cmp = l->g.key.len < r->g.key.len ? -1 : l->g.key.len > r->g.key.len;
    }
    cs_py_worker_send_int(o->worker, 2);
    if (send_side(o, 0, cmp <= 0, err) != 0 || send_side(o, 1, cmp >= 0, err) != 0)
        return err->code;
    o->groups_sent++;
    return 0;
}

static int grp_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    py_group_op *o = (py_group_op *)op;
    for (int i = 0; i < op->n_children; i++)
        if (cs_sql_op_open(op->children[i], ctx, err) != 0) return err->code;
    cs_py_udf_command cmd = {o->command, o->command_len, o->n_args, o->args};
    const char *keys[] = {"spark.sql.session.timeZone",
                          "spark.sql.execution.pandas.convertToArrowArraySafely",
                          "spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"};
    const char *values[] = {ctx->session_tz ? ctx->session_tz : "UTC",
                            o->safe_cast ? "true" : "false", o->columns_by_name ? "true" : "false"};
    int map_arg = 0; /* map in batch: the one struct column sent */
    if (o->max_rows > 0) cmd = (cs_py_udf_command){o->command, o->command_len, 1, &map_arg};
    cs_py_worker_spec spec = {
        .python = o->python,
        .python_ver = o->python_ver,
        .eval_type = o->eval_type,
        .n_conf = 3,
        .conf_keys = keys,
        .conf_values = values,
        .n_udfs = 1,
        .udfs = &cmd,
        .cancelled = ctx->cancelled,
        .factory = ctx->py_workers,
        .reuse = ctx->py_reuse,
        .faulthandler = o->faulthandler,
    };
    cs_py_worker_spec_task(&spec, ctx);
    o->worker = cs_py_worker_start(&spec, err);
    if (!o->worker) return err->code;
    if (o->cogroup) {
        cs_py_worker_set_pump(o->worker, pump_cogroup, o);
        return 0;
    }
    o->writer = cs_ipc_writer_new(o->sent_schema ? o->sent_schema : op->children[0]->schema,
                                  cs_py_worker_ipc_sink, o->worker);
    cs_py_worker_set_pump(o->worker, pump, o);
    return 0;
}

/* A result batch (one struct column) as the output's columns. */
static int unnest(py_group_op *o, cs_col_batch *res, cs_col_batch **out, cs_error *err)
{
    const cs_col_type *schema = o->base.schema;
    const cs_column *s = res->n_columns == 1 ? res->columns[0] : NULL;
    if (!s || s->type->id != CS_TYPE_STRUCT || s->n_children != schema->n_fields)
        return cs_error_set(err, CS_EPROTO,
                            "%s: the worker's batch is not the declared struct of %d columns",
                            o->base.vt->name, schema->n_fields);
    cs_column **cols = cs_xcalloc((size_t)schema->n_fields + 1, sizeof *cols);
    for (int i = 0; i < schema->n_fields; i++) {
        if (!cs_col_type_equal(s->children[i]->type, schema->fields[i].type)) {
            cs_sbuf w = {0}, g = {0};
            cs_col_type_simple_string(schema->fields[i].type, &w);
            cs_col_type_simple_string(s->children[i]->type, &g);
            cs_error_set(err, CS_EPROTO, "%s: column %s came back as %s, declared %s",
                         o->base.vt->name, schema->fields[i].name, cs_sbuf_str(&g),
                         cs_sbuf_str(&w));
            cs_sbuf_free(&w);
            cs_sbuf_free(&g);
            for (int j = 0; j < i; j++)
                cs_column_unref(cols[j]);
            free(cols);
            return CS_EPROTO;
        }
        /* a column declared NOT NULL holding a null is refused, as Spark's reader of the
         * worker's Arrow vectors refuses it ("Value at index is null") */
        const cs_column *c = s->children[i];
        int64_t null_at = -1;
        for (int64_t r = 0; !schema->fields[i].nullable && c->validity && r < res->num_rows; r++)
            if (!cs_column_is_valid(c, r)) {
                null_at = r;
                break;
            }
        if (null_at >= 0) {
            cs_error_set(err, CS_EINVAL,
                         "%s: column %s of the Python function's output is declared NOT NULL, "
                         "but its value at index %lld is null",
                         o->base.vt->name, schema->fields[i].name, (long long)null_at);
            for (int j = 0; j < i; j++)
                cs_column_unref(cols[j]);
            free(cols);
            return CS_EINVAL;
        }
        cols[i] = cs_column_ref(s->children[i]);
    }
    *out = cs_col_batch_new(cs_col_type_ref(o->base.schema), cols, schema->n_fields, res->num_rows,
                            err);
    free(cols);
    return *out ? 0 : err->code;
}

static int grp_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    py_group_op *o = (py_group_op *)op;
    *out = NULL;
    while (!o->done) {
        if (!o->reader) {
            int32_t v;
            if (cs_py_worker_read_int(o->worker, &v, err) != 0) return err->code;
            if (v == CS_PY_EXCEPTION_THROWN) return cs_py_worker_exception(o->worker, err);
            if (v == CS_PY_TIMING_DATA) { /* no result at all: no results' stream */
                o->done = true;
                return cs_py_worker_finish_after_timing(o->worker, err);
            }
            if (v != CS_PY_START_ARROW_STREAM)
                return cs_error_set(err, CS_EPROTO, "Python worker: unexpected answer %d", v);
            if (cs_ipc_reader_open(op->ctx->alloc, cs_py_worker_read, o->worker,
                                   "the Python worker's results", &o->reader, err) != 0)
                return err->code;
        }
        cs_col_batch *res = NULL;
        int rc = cs_ipc_reader_next(o->reader, &res, err);
        if (rc < 0) return rc;
        if (rc == 0) {
            o->done = true;
            return cs_py_worker_finish(o->worker, err);
        }
        rc = res->num_rows > 0 ? unnest(o, res, out, err) : 0;
        cs_col_batch_unref(res);
        if (rc != 0 || *out) return rc;
    }
    return 0;
}

static void grp_close(cs_sql_op *op)
{
    py_group_op *o = (py_group_op *)op;
    cs_ipc_reader_free(o->reader);
    o->reader = NULL;
    cs_ipc_writer_free(o->writer);
    o->writer = NULL;
    cs_py_worker_free(o->worker);
    o->worker = NULL;
    rows_drop(&o->g);
    cs_sql_keybuf_free(&o->kb);
    memset(&o->kb, 0, sizeof o->kb);
    for (int i = 0; o->cogroup && i < 2; i++) {
        py_side *s = &o->side[i];
        if (s->cur) cs_col_batch_unref(s->cur);
        s->cur = NULL;
        s->eof = s->ready = false;
        rows_drop(&s->g);
        cs_sql_keybuf_free(&s->kb);
        memset(&s->kb, 0, sizeof s->kb);
    }
    for (int i = 0; i < op->n_children; i++)
        cs_sql_op_close(op->children[i]);
}

static void grp_destroy(cs_sql_op *op)
{
    py_group_op *o = (py_group_op *)op;
    free(o->python);
    free(o->python_ver);
    free(o->command);
    free(o->args);
    free(o->keys);
    rows_free(&o->g);
    for (int i = 0; i < 2; i++) {
        rows_free(&o->side[i].g);
        free(o->side[i].keys);
    }
    free(o->cols);
    if (o->sent_schema) cs_col_type_unref(o->sent_schema);
    free(o);
}

static void grp_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const py_group_op *o = (const py_group_op *)op;
    cs_sbuf_printf(out, "[%d grouping keys]", o->cogroup ? o->side[0].n_keys : o->n_keys);
}

static void map_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const py_group_op *o = (const py_group_op *)op;
    cs_sbuf_printf(out, "[%d columns, %" PRId64 " rows a batch]", o->n_cols, o->max_rows);
}

static const cs_sql_op_vtable grp_vt = {
    "FlatMapGroupsInPandas", grp_open, grp_next, grp_close, grp_destroy, grp_explain};
static const cs_sql_op_vtable grp_arrow_vt = {
    "FlatMapGroupsInArrow", grp_open, grp_next, grp_close, grp_destroy, grp_explain};
static const cs_sql_op_vtable cogroup_vt = {
    "FlatMapCoGroupsInPandas", grp_open, grp_next, grp_close, grp_destroy, grp_explain};
static const cs_sql_op_vtable cogroup_arrow_vt = {
    "FlatMapCoGroupsInArrow", grp_open, grp_next, grp_close, grp_destroy, grp_explain};
static const cs_sql_op_vtable map_pandas_vt = {"MapInPandas", grp_open,    grp_next,
                                               grp_close,     grp_destroy, map_explain};
static const cs_sql_op_vtable map_arrow_vt = {"MapInArrow", grp_open,    grp_next,
                                              grp_close,    grp_destroy, map_explain};

/* Sends the columns cols[0..n) of the child (schema in) wrapped in one struct column. */
static void wrap_schema(py_group_op *o, const cs_col_type *in, const int *cols, int n)
{
    o->n_cols = n;
    o->cols = cs_xcalloc((size_t)n + 1, sizeof *o->cols);
    memcpy(o->cols, cols, sizeof *o->cols * (size_t)n);
    cs_col_field *fields = cs_xcalloc((size_t)n + 1, sizeof *fields);
    for (int i = 0; i < n; i++) {
        fields[i] = in->fields[cols[i]];
        fields[i].type = cs_col_type_ref(in->fields[cols[i]].type);
    }
    cs_col_field wrapper = {
        .name = (char *)"struct", .type = cs_col_type_struct(fields, n), .nullable = false};
    free(fields);
    o->sent_schema = cs_col_type_struct(&wrapper, 1);
}

/* Copies the one UDF of spec into o: its eval type, interpreter, Python version, pickled command
 * and (with_args) its argument offsets. */
static void take_udf(py_group_op *o, const cs_py_eval_spec *spec, const cs_py_eval_udf *u,
                     bool with_args)
{
    o->eval_type = spec->eval_type;
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->safe_cast = spec->safe_cast;
    o->faulthandler = spec->faulthandler;
    o->columns_by_name = spec->columns_by_name;
    o->command = cs_xmalloc(u->command_len + 1);
    memcpy(o->command, u->command, u->command_len);
    o->command_len = u->command_len;
    if (!with_args) return;
    o->n_args = u->n_args;
    o->args = cs_xcalloc((size_t)u->n_args, sizeof *o->args);
    memcpy(o->args, u->args, sizeof *o->args * (size_t)u->n_args);
}

cs_sql_op *cs_sql_op_python_group_map(cs_sql_op *child, const cs_py_eval_spec *spec,
                                      cs_col_type *schema, cs_error *err)
{
    const cs_col_type *in = child->schema;
    const cs_py_eval_udf *u = spec->n_udfs == 1 ? &spec->udfs[0] : NULL;
    /* Spark's grouped offsets: [length, n_keys, keys..., values...] */
    bool ok = u &&
              (spec->eval_type == CS_PY_EVAL_GROUPED_MAP_PANDAS_UDF ||
               spec->eval_type == CS_PY_EVAL_GROUPED_MAP_ARROW_UDF) &&
              u->n_args >= 2 && u->args[0] == u->n_args - 1 && u->args[1] >= 0 &&
              u->args[1] <= u->n_args - 2;
    for (int i = 2; ok && i < u->n_args; i++)
        ok = u->args[i] >= 0 && u->args[i] < in->n_fields;
    for (int i = 0; ok && i < u->args[1]; i++)
        ok = cs_sql_struct_key_type_ok(in->fields[u->args[2 + i]].type);
    if (!ok || schema->id != CS_TYPE_STRUCT) {
        cs_error_set(err, CS_EINVAL, "FlatMapGroupsInPandas: bad grouped offsets or keys");
        cs_col_type_unref(schema);
        cs_sql_op_free(child);
        return NULL;
    }
    py_group_op *o = cs_xcalloc(1, sizeof *o);
    take_udf(o, spec, u, true);
    o->n_keys = u->args[1];
    o->keys = cs_xcalloc((size_t)o->n_keys + 1, sizeof *o->keys);
    for (int i = 0; i < o->n_keys; i++)
        o->keys[i] = (cs_sort_key){u->args[2 + i], false, true};
    bool arrow = spec->eval_type == CS_PY_EVAL_GROUPED_MAP_ARROW_UDF;
    if (arrow) { /* every column, in one struct: the offsets are its fields' */
        int *all = cs_xcalloc((size_t)in->n_fields + 1, sizeof *all);
        for (int i = 0; i < in->n_fields; i++)
            all[i] = i;
        wrap_schema(o, in, all, in->n_fields);
        free(all);
    }
    cs_sql_op_init(&o->base, arrow ? &grp_arrow_vt : &grp_vt, schema, &child, 1);
    return &o->base;
}

cs_sql_op *cs_sql_op_python_map_in_batch(cs_sql_op *child, const cs_py_eval_spec *spec,
                                         cs_col_type *schema, cs_error *err)
{
    const cs_col_type *in = child->schema;
    const cs_py_eval_udf *u = spec->n_udfs == 1 ? &spec->udfs[0] : NULL;
    bool ok = u &&
              (spec->eval_type == CS_PY_EVAL_MAP_PANDAS_ITER_UDF ||
               spec->eval_type == CS_PY_EVAL_MAP_ARROW_ITER_UDF) &&
              u->n_args >= 1 && schema->id == CS_TYPE_STRUCT;
    for (int i = 0; ok && i < u->n_args; i++)
        ok = u->args[i] >= 0 && u->args[i] < in->n_fields;
    if (!ok) {
        cs_error_set(err, CS_EINVAL, "MapInPandas: bad eval type, columns or output type");
        cs_col_type_unref(schema);
        cs_sql_op_free(child);
        return NULL;
    }
    py_group_op *o = cs_xcalloc(1, sizeof *o);
    take_udf(o, spec, u, false);
    o->max_rows = spec->max_records > 0 ? spec->max_records : INT64_MAX;
    wrap_schema(o, in, u->args, u->n_args);
    o->keys = cs_xcalloc(1, sizeof *o->keys);
    cs_sql_op_init(
        &o->base, spec->eval_type == CS_PY_EVAL_MAP_ARROW_ITER_UDF ? &map_arrow_vt : &map_pandas_vt,
        schema, &child, 1);
    return &o->base;
}

/* Side i's grouped offsets in args[at..]: [length, n_keys, keys..., values...], ordinals of in;
 * the keys become the side's sort keys. Returns the offsets' end, or -1 when they are bad. */
static int side_offsets(py_side *s, const int *args, int n_args, int at, const cs_col_type *in)
{
    if (at + 1 >= n_args) return -1;
    int len = args[at], nk = args[at + 1];
    if (len < 1 || at + 1 + len > n_args || nk < 1 || nk > len - 1) return -1;
    for (int i = at + 2; i < at + 1 + len; i++)
        if (args[i] < 0 || args[i] >= in->n_fields) return -1;
    s->n_keys = nk;
    s->keys = cs_xcalloc((size_t)nk, sizeof *s->keys);
    for (int i = 0; i < nk; i++) {
        if (!cs_sql_struct_key_type_ok(in->fields[args[at + 2 + i]].type)) return -1;
        s->keys[i] = (cs_sort_key){args[at + 2 + i], false, true};
    }
    return at + 1 + len;
}

cs_sql_op *cs_sql_op_python_cogroup(cs_sql_op *left, cs_sql_op *right, const cs_py_eval_spec *spec,
                                    cs_col_type *schema, cs_error *err)
{
    const cs_py_eval_udf *u = spec->n_udfs == 1 ? &spec->udfs[0] : NULL;
    py_group_op *o = cs_xcalloc(1, sizeof *o);
    o->cogroup = true;
    int end = -1;
    bool ok = u && schema->id == CS_TYPE_STRUCT &&
              (spec->eval_type == CS_PY_EVAL_COGROUPED_MAP_PANDAS_UDF ||
               spec->eval_type == CS_PY_EVAL_COGROUPED_MAP_ARROW_UDF);
    if (ok) end = side_offsets(&o->side[0], u->args, u->n_args, 0, left->schema);
    if (end > 0) end = side_offsets(&o->side[1], u->args, u->n_args, end, right->schema);
    /* keys of different types are allowed: their encodings differ, so they never meet */
    ok = ok && end == u->n_args && o->side[0].n_keys == o->side[1].n_keys;
    if (!ok) {
        cs_error_set(err, CS_EINVAL, "FlatMapCoGroupsInPandas: bad cogrouped offsets or keys");
        for (int i = 0; i < 2; i++)
            free(o->side[i].keys);
        free(o);
        cs_col_type_unref(schema);
        cs_sql_op_free(left);
        cs_sql_op_free(right);
        return NULL;
    }
    take_udf(o, spec, u, true);
    o->keys = cs_xcalloc(1, sizeof *o->keys);
    cs_sql_op *children[2] = {left, right};
    cs_sql_op_init(&o->base,
                   spec->eval_type == CS_PY_EVAL_COGROUPED_MAP_ARROW_UDF ? &cogroup_arrow_vt
                                                                         : &cogroup_vt,
                   schema, children, 2);
    return &o->base;
}
