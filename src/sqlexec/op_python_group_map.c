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
 * batches of CS_PY_MAP_BATCH_ROWS (gathered across the child's batches, as Spark's BatchIterator
 * cuts them), the columns the function reads wrapped in one struct column, as Spark's
 * MapInBatchEvaluatorFactory sends them (argument offset 0: the worker makes a pandas DataFrame
 * or an Arrow record batch of the struct). The function's iterator yields as many results as it
 * likes, at its own pace: they are read while input is still being written (the worker's pump).
 *
 * The worker starts at open and is killed at close; its exception is Spark's PythonException.
 * Ownership: the constructor copies the command and offsets and takes over the child and the
 * output schema. Single-threaded: the task's thread.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arrow_ipc.h"
#include "sqlexec/python_eval.h"
#include "sqlexec/python_worker.h"
#include "sqlexec/sql_ops_internal.h"

typedef struct py_group_op {
    cs_sql_op base;
    int eval_type;
    int64_t max_rows; /* map in batch: rows a batch sent; 0: a group a batch */
    int n_cols;       /* map in batch, applyInArrow: the child's columns sent, in one struct */
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
    /* the group being gathered: rows (bidx, ridx) of batches gb */
    cs_col_batch **gb;
    int n_gb, cap_gb;
    int32_t *bidx, *ridx;
    int64_t n_rows, cap_rows;
    uint8_t *key;
    size_t key_len, key_cap;
    bool have_key;
    int64_t groups_sent;
} py_group_op;

static int send_bytes(void *arg, const void *p, size_t n, cs_error *err)
{
    (void)err;
    cs_py_worker_send(arg, p, n);
    return 0;
}

static void drop_group(py_group_op *o)
{
    for (int i = 0; i < o->n_gb; i++)
        cs_col_batch_unref(o->gb[i]);
    o->n_gb = 0;
    o->n_rows = 0;
    o->have_key = false;
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
    if (o->n_rows == 0) return 0;
    cs_col_batch *g = cs_sql_gather_batch(o->base.children[0]->schema, o->gb, o->bidx, o->ridx,
                                          o->n_rows, o->base.ctx->alloc);
    drop_group(o);
    if (!g) return cs_error_set(err, CS_ENOMEM, "%s: cannot gather a batch", o->base.vt->name);
    if (o->sent_schema && !(g = wrap_columns(o, g, err))) return err->code;
    o->groups_sent++;
    int rc = cs_ipc_writer_write(o->writer, g, err);
    cs_col_batch_unref(g);
    return rc;
}

static void add_row(py_group_op *o, int32_t b, int32_t r)
{
    if (o->n_rows == o->cap_rows) {
        o->cap_rows = o->cap_rows ? 2 * o->cap_rows : 1024;
        o->bidx = cs_xrealloc(o->bidx, sizeof *o->bidx * (size_t)o->cap_rows);
        o->ridx = cs_xrealloc(o->ridx, sizeof *o->ridx * (size_t)o->cap_rows);
    }
    o->bidx[o->n_rows] = b;
    o->ridx[o->n_rows++] = r;
}

/* Cuts batch b into groups: each key change sends the group before it. */
static int take_batch(py_group_op *o, cs_col_batch *b, cs_error *err)
{
    if (o->n_keys > 0) cs_sql_keys_encode(&o->kb, b, o->keys, o->n_keys, false);
    int32_t bi = -1;
    for (int64_t r = 0; r < b->num_rows; r++) {
        const uint8_t *k = o->n_keys > 0 ? o->kb.bytes + o->kb.off[r] : NULL;
        size_t kl = o->n_keys > 0 ? (size_t)(o->kb.off[r + 1] - o->kb.off[r]) : 0;
        if ((o->max_rows > 0 && o->n_rows == o->max_rows) ||
            (o->have_key && (kl != o->key_len || (kl && memcmp(k, o->key, kl) != 0)))) {
            if (flush_group(o, err) != 0) return err->code;
            bi = -1;
        }
        if (!o->have_key) {
            if (kl > o->key_cap) {
                o->key_cap = kl;
                o->key = cs_xrealloc(o->key, kl);
            }
            if (kl) memcpy(o->key, k, kl);
            o->key_len = kl;
            o->have_key = true;
        }
        if (bi < 0) {
            if (o->n_gb == o->cap_gb) {
                o->cap_gb = o->cap_gb ? 2 * o->cap_gb : 8;
                o->gb = cs_xrealloc(o->gb, sizeof *o->gb * (size_t)o->cap_gb);
            }
            bi = o->n_gb;
            o->gb[o->n_gb++] = cs_col_batch_ref(b);
        }
        add_row(o, bi, (int32_t)r);
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

static int grp_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    py_group_op *o = (py_group_op *)op;
    if (cs_sql_op_open(op->children[0], ctx, err) != 0) return err->code;
    cs_py_udf_command cmd = {o->command, o->command_len, o->n_args, o->args};
    const char *keys[] = {"spark.sql.session.timeZone",
                          "spark.sql.execution.pandas.convertToArrowArraySafely",
                          "spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"};
    const char *values[] = {ctx->session_tz ? ctx->session_tz : "UTC", "false", "true"};
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
        .partition_id = (int)ctx->partition_id,
        .cancelled = ctx->cancelled,
    };
    o->worker = cs_py_worker_start(&spec, err);
    if (!o->worker) return err->code;
    o->writer = cs_ipc_writer_new(o->sent_schema ? o->sent_schema : op->children[0]->schema,
                                  send_bytes, o->worker);
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
                return 0;
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
    drop_group(o);
    cs_sql_keybuf_free(&o->kb);
    memset(&o->kb, 0, sizeof o->kb);
    cs_sql_op_close(op->children[0]);
}

static void grp_destroy(cs_sql_op *op)
{
    py_group_op *o = (py_group_op *)op;
    free(o->python);
    free(o->python_ver);
    free(o->command);
    free(o->args);
    free(o->keys);
    free(o->gb);
    free(o->bidx);
    free(o->ridx);
    free(o->key);
    free(o->cols);
    if (o->sent_schema) cs_col_type_unref(o->sent_schema);
    free(o);
}

static void grp_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const py_group_op *o = (const py_group_op *)op;
    cs_sbuf_printf(out, "[%d grouping keys]", o->n_keys);
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
        ok = cs_sql_key_type_ok(in->fields[u->args[2 + i]].type);
    if (!ok || schema->id != CS_TYPE_STRUCT) {
        cs_error_set(err, CS_EINVAL, "FlatMapGroupsInPandas: bad grouped offsets or keys");
        cs_col_type_unref(schema);
        cs_sql_op_free(child);
        return NULL;
    }
    py_group_op *o = cs_xcalloc(1, sizeof *o);
    o->eval_type = spec->eval_type;
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->command = cs_xmalloc(u->command_len + 1);
    memcpy(o->command, u->command, u->command_len);
    o->command_len = u->command_len;
    o->n_args = u->n_args;
    o->args = cs_xcalloc((size_t)u->n_args, sizeof *o->args);
    memcpy(o->args, u->args, sizeof *o->args * (size_t)u->n_args);
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
    o->eval_type = spec->eval_type;
    o->max_rows = CS_PY_MAP_BATCH_ROWS;
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->command = cs_xmalloc(u->command_len + 1);
    memcpy(o->command, u->command, u->command_len);
    o->command_len = u->command_len;
    wrap_schema(o, in, u->args, u->n_args);
    o->keys = cs_xcalloc(1, sizeof *o->keys);
    cs_sql_op_init(
        &o->base, spec->eval_type == CS_PY_EVAL_MAP_ARROW_ITER_UDF ? &map_arrow_vt : &map_pandas_vt,
        schema, &child, 1);
    return &o->base;
}
