/*
 * op_python_eval.c — Spark's ArrowEvalPythonExec (and BatchEvalPythonExec, which cspark runs
 * the Arrow way): Python UDFs evaluated a batch at a time in one PySpark worker per task
 * (python_worker.h). Its output is the child's columns, then one column per UDF.
 *
 * The child's rows queue up in arrival order, as Spark's ArrowEvalPythonExec queues its input
 * rows: their UDF arguments (the ordinals the planner gave, decoded from dictionaries) go to the
 * worker as record batches of an Arrow IPC stream, columns `_0`, `_1`, ..., of
 * spark.sql.execution.arrow.maxRecordsPerBatch rows gathered across the child's batches (the
 * last one shorter); each results' batch the worker sends joins that many of the oldest rows
 * not answered yet, the two put side by
 * side. A row-at-a-time UDF (SQL_BATCHED_UDF) is sent as SQL_ARROW_BATCHED_UDF: the worker calls
 * the function once per row over the Arrow batch, the result coerced to the declared type by
 * Arrow, as Spark does when spark.sql.execution.pythonUDF.arrow.enabled is on. A scalar pandas UDF
 * (SQL_SCALAR_PANDAS_UDF) gets the columns as pandas Series; a scalar iterator one
 * (SQL_SCALAR_PANDAS_ITER_UDF, alone in its node as the worker wants it) an iterator of them.
 *
 * The worker comes from the executor's factory at open and goes back at close: kept for the
 * next task when its results were read to the end, killed otherwise (a task that ends early,
 * fails or is cancelled leaves no process behind). A Python exception is Spark's PythonException
 * (the worker's traceback). Every wait checks ctx->cancelled.
 *
 * Ownership: the constructor copies the spec (commands, strings, ordinals) and takes over the
 * child and the result types. Single-threaded: the task's thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/arrow_ipc.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/python_eval.h"
#include "sqlexec/python_worker.h"
#include "sqlexec/sql_ops.h"
#include "sqlexec/sql_ops_internal.h"

typedef struct py_udf {
    uint8_t *command;
    size_t command_len;
    int n_args;
    int *args;        /* ordinals of the child's output */
    int *offsets;     /* columns of the batch sent */
    char **arg_names; /* NULL, or per argument its keyword (NULL: positional) */
} py_udf;

/* A child batch sent (or to be sent) to the worker: its rows are the queue's rows [start,
 * start + rows); args (the columns sent, dictionaries decoded) is let go once every row of it has
 * been sent. */
typedef struct py_queued {
    cs_col_batch *batch, *args;
    int64_t start;
} py_queued;

typedef struct py_eval_op {
    cs_sql_op base;
    int eval_type;
    char *python, *python_ver;
    int64_t max_records; /* rows an Arrow batch sent at most; <= 0: a child batch each */
    bool safe_cast;
    bool faulthandler;
    int n_udfs;
    py_udf *udfs;
    int n_sent_cols;
    int *sent_cols; /* the child's ordinal of each column sent */
    cs_col_type *sent_schema;
    /* running */
    cs_py_worker *worker;
    cs_ipc_writer *writer;
    cs_ipc_reader *reader;
    bool child_done, results_done;
    /* the child's rows in arrival order, as Spark's ArrowEvalPythonExec queues its input rows:
     * rows [0, sent) went to the worker, rows [0, answered) came back joined with their
     * results; q[q_head .. q_len) the batches still holding rows not answered */
    py_queued *q;
    int q_head, q_len, q_cap;
    int64_t total, sent, answered;
} py_eval_op;

/* Queues a non-empty child batch (taken over) with its argument columns. */
static int q_push(py_eval_op *o, cs_col_batch *b, cs_error *err)
{
    cs_column **cols = cs_xcalloc((size_t)o->n_sent_cols + 1, sizeof *cols);
    for (int i = 0; i < o->n_sent_cols; i++) {
        cs_column *c = b->columns[o->sent_cols[i]];
        cols[i] = c->dictionary ? cs_column_decode(c, o->base.ctx->alloc) : cs_column_ref(c);
    }
    cs_col_batch *args =
        cs_col_batch_new(cs_col_type_ref(o->sent_schema), cols, o->n_sent_cols, b->num_rows, err);
    free(cols);
    if (!args) {
        cs_col_batch_unref(b);
        return err->code;
    }
    if (o->q_head > 0 && o->q_len == o->q_cap) { /* slide the live entries to the front */
        memmove(o->q, o->q + o->q_head, sizeof *o->q * (size_t)(o->q_len - o->q_head));
        o->q_len -= o->q_head;
        o->q_head = 0;
    }
    if (o->q_len == o->q_cap) {
        o->q_cap = o->q_cap ? 2 * o->q_cap : 8;
        o->q = cs_xrealloc(o->q, sizeof *o->q * (size_t)o->q_cap);
    }
    o->q[o->q_len++] = (py_queued){b, args, o->total};
    o->total += b->num_rows;
    return 0;
}

/* Rows [from, from + n) of the queue as one batch: of the child's batches (args false) or of
 * their argument columns (args true). A whole queued batch is shared, not copied. */
static cs_col_batch *q_rows(py_eval_op *o, int64_t from, int64_t n, bool args, cs_error *err)
{
    int first = o->q_head;
    while (o->q[first].start + o->q[first].batch->num_rows <= from)
        first++;
    const py_queued *e = &o->q[first];
    cs_col_batch *b = args ? e->args : e->batch;
    if (e->start == from && b->num_rows == n) return cs_col_batch_ref(b);
    int cap = o->q_len - first;
    cs_col_batch **srcs = cs_xcalloc((size_t)cap, sizeof *srcs);
    cs_sql_row_run *runs = cs_xcalloc((size_t)cap, sizeof *runs);
    int n_runs = 0;
    for (int64_t at = from, end = from + n; at < end; n_runs++) {
        e = &o->q[first + n_runs];
        int64_t len = e->start + e->batch->num_rows - at;
        if (len > end - at) len = end - at;
        srcs[n_runs] = args ? e->args : e->batch;
        runs[n_runs] = (cs_sql_row_run){n_runs, (int32_t)(at - e->start), len};
        at += len;
    }
    cs_col_type *schema = args ? o->sent_schema : o->base.children[0]->schema;
    cs_col_batch *r = cs_sql_gather_runs_batch(schema, srcs, runs, n_runs, o->base.ctx->alloc);
    free(srcs);
    free(runs);
    if (!r) cs_error_set(err, CS_ENOMEM, "Python UDF: cannot cut a batch");
    return r;
}

/* The worker took everything sent: send the next rows' arguments, max_records rows a batch
 * gathered across the child's batches (as Spark's ArrowPythonRunner fills its batches from the
 * input rows; no limit: a child batch each), or end. */
static int pump(void *arg, cs_error *err)
{
    py_eval_op *o = arg;
    for (;;) {
        int64_t avail = o->total - o->sent;
        if (!o->child_done && (avail == 0 || (o->max_records > 0 && avail < o->max_records))) {
            cs_col_batch *b = NULL;
            if (cs_sql_op_next(o->base.children[0], &b, err) != 0) return err->code;
            if (!b) {
                o->child_done = true;
            } else if (b->num_rows == 0) {
                cs_col_batch_unref(b);
            } else if (q_push(o, b, err) != 0) {
                return err->code;
            }
            continue;
        }
        if (avail == 0) {
            if (cs_ipc_writer_close(o->writer, err) != 0) return err->code;
            cs_py_worker_end_input(o->worker);
            return 1;
        }
        int64_t n = avail;
        if (o->max_records > 0 && n > o->max_records) n = o->max_records;
        if (o->max_records <= 0) { /* the rest of the batch holding the next row */
            int i = o->q_head;
            while (o->q[i].start + o->q[i].batch->num_rows <= o->sent)
                i++;
            n = o->q[i].start + o->q[i].batch->num_rows - o->sent;
        }
        cs_col_batch *args = q_rows(o, o->sent, n, true, err);
        if (!args) return err->code;
        int rc = cs_ipc_writer_write(o->writer, args, err);
        cs_col_batch_unref(args);
        if (rc != 0) return rc;
        o->sent += n;
        for (int i = o->q_head; i < o->q_len; i++) /* arguments every row of which went out */
            if (o->q[i].args && o->q[i].start + o->q[i].batch->num_rows <= o->sent) {
                cs_col_batch_unref(o->q[i].args);
                o->q[i].args = NULL;
            }
        return 0;
    }
}

/* Lets go of the queued batches every row of which has been answered. */
static void q_drop_answered(py_eval_op *o)
{
    while (o->q_head < o->q_len &&
           o->q[o->q_head].start + o->q[o->q_head].batch->num_rows <= o->answered) {
        cs_col_batch_unref(o->q[o->q_head].batch);
        cs_col_batch_unref(o->q[o->q_head].args);
        o->q_head++;
    }
    if (o->q_head == o->q_len) o->q_head = o->q_len = 0;
}

static int py_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    py_eval_op *o = (py_eval_op *)op;
    if (cs_sql_op_open(op->children[0], ctx, err) != 0) return err->code;
    cs_py_udf_command *cmds = cs_xcalloc((size_t)o->n_udfs, sizeof *cmds);
    for (int i = 0; i < o->n_udfs; i++)
        cmds[i] =
            (cs_py_udf_command){o->udfs[i].command, o->udfs[i].command_len, o->udfs[i].n_args,
                                o->udfs[i].offsets, (const char *const *)o->udfs[i].arg_names};
    const char *keys[] = {"spark.sql.session.timeZone",
                          "spark.sql.execution.pandas.convertToArrowArraySafely"};
    const char *values[] = {ctx->session_tz ? ctx->session_tz : "UTC",
                            o->safe_cast ? "true" : "false"};
    cs_py_worker_spec spec = {
        .python = o->python,
        .python_ver = o->python_ver,
        .eval_type =
            o->eval_type == CS_PY_EVAL_BATCHED_UDF ? CS_PY_EVAL_ARROW_BATCHED_UDF : o->eval_type,
        .n_conf = 2,
        .conf_keys = keys,
        .conf_values = values,
        .n_udfs = o->n_udfs,
        .udfs = cmds,
        .cancelled = ctx->cancelled,
        .factory = ctx->py_workers,
        .reuse = ctx->py_reuse,
        .faulthandler = o->faulthandler,
    };
    cs_py_worker_spec_task(&spec, ctx);
    o->worker = cs_py_worker_start(&spec, err);
    free(cmds);
    if (!o->worker) return err->code;
    o->writer = cs_ipc_writer_new(o->sent_schema, cs_py_worker_ipc_sink, o->worker);
    cs_py_worker_set_pump(o->worker, pump, o);
    return 0;
}

static int py_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    py_eval_op *o = (py_eval_op *)op;
    *out = NULL;
    if (o->results_done) return 0;
    if (!o->reader) {
        /* the worker's first word: its results' stream, an exception, or (no input) its end */
        int32_t v;
        if (cs_py_worker_read_int(o->worker, &v, err) != 0) return err->code;
        if (v == CS_PY_EXCEPTION_THROWN) return cs_py_worker_exception(o->worker, err);
        if (v == CS_PY_TIMING_DATA && o->sent == 0) { /* no results' stream at all */
            o->results_done = true;
            return cs_py_worker_finish_after_timing(o->worker, err);
        }
        if (v != CS_PY_START_ARROW_STREAM)
            return cs_error_set(err, CS_EPROTO, "Python worker: unexpected answer %d", v);
        if (cs_ipc_reader_open(o->base.ctx->alloc, cs_py_worker_read, o->worker,
                               "the Python worker's results", &o->reader, err) != 0)
            return err->code;
    }
    cs_col_batch *res = NULL;
    int rc = cs_ipc_reader_next(o->reader, &res, err);
    if (rc < 0) return rc;
    if (rc == 0) {
        o->results_done = true;
        if (cs_py_worker_finish(o->worker, err) != 0) return err->code;
        if (o->answered < o->sent)
            return cs_error_set(err, CS_EPROTO,
                                "Python worker: results for %lld rows, %lld rows sent",
                                (long long)o->answered, (long long)o->sent);
        return 0;
    }
    if (res->n_columns != o->n_udfs || res->num_rows > o->sent - o->answered) {
        cs_error_set(err, CS_EPROTO,
                     "Python worker: a result batch of %lld rows, %d columns for %lld rows, "
                     "%d UDFs waiting",
                     (long long)res->num_rows, res->n_columns, (long long)(o->sent - o->answered),
                     o->n_udfs);
        cs_col_batch_unref(res);
        return CS_EPROTO;
    }
    if (res->num_rows == 0) {
        cs_col_batch_unref(res);
        return py_next(op, out, err);
    }
    /* the results' rows join the oldest rows sent not answered yet: a scalar UDF answers each
     * batch with as many rows, a scalar iterator one may answer in other batches */
    cs_col_batch *in = q_rows(o, o->answered, res->num_rows, false, err);
    if (!in) {
        cs_col_batch_unref(res);
        return err->code;
    }
    o->answered += res->num_rows;
    q_drop_answered(o);
    int nin = in->n_columns, n = nin + o->n_udfs;
    cs_column **cols = cs_xcalloc((size_t)n, sizeof *cols);
    for (int i = 0; i < nin; i++)
        cols[i] = cs_column_ref(in->columns[i]);
    for (int i = 0; i < o->n_udfs; i++) {
        const cs_col_type *want = op->schema->fields[nin + i].type;
        if (!cs_col_type_equal(res->columns[i]->type, want)) {
            cs_sbuf w = {0}, g = {0};
            cs_col_type_simple_string(want, &w);
            cs_col_type_simple_string(res->columns[i]->type, &g);
            cs_error_set(err, CS_EPROTO, "Python worker: UDF %d returned %s, declared %s", i,
                         cs_sbuf_str(&g), cs_sbuf_str(&w));
            cs_sbuf_free(&w);
            cs_sbuf_free(&g);
            for (int j = 0; j < nin + i; j++)
                cs_column_unref(cols[j]);
            free(cols);
            cs_col_batch_unref(in);
            cs_col_batch_unref(res);
            return CS_EPROTO;
        }
        cols[nin + i] = cs_column_ref(res->columns[i]);
    }
    *out = cs_col_batch_new(cs_col_type_ref(op->schema), cols, n, in->num_rows, err);
    free(cols);
    cs_col_batch_unref(in);
    cs_col_batch_unref(res);
    return *out ? 0 : err->code;
}

static void py_close(cs_sql_op *op)
{
    py_eval_op *o = (py_eval_op *)op;
    cs_ipc_reader_free(o->reader);
    o->reader = NULL;
    cs_ipc_writer_free(o->writer);
    o->writer = NULL;
    cs_py_worker_free(o->worker); /* kept for the next task, or killed */
    o->worker = NULL;
    o->answered = o->total; /* every queued batch let go */
    q_drop_answered(o);
    o->total = o->sent = o->answered = 0;
    o->child_done = o->results_done = false;
    cs_sql_op_close(op->children[0]);
}

static void py_destroy(cs_sql_op *op)
{
    py_eval_op *o = (py_eval_op *)op;
    for (int i = 0; i < o->n_udfs; i++) {
        free(o->udfs[i].command);
        free(o->udfs[i].args);
        free(o->udfs[i].offsets);
        for (int a = 0; o->udfs[i].arg_names && a < o->udfs[i].n_args; a++)
            free(o->udfs[i].arg_names[a]);
        free(o->udfs[i].arg_names);
    }
    free(o->udfs);
    free(o->sent_cols);
    free(o->q);
    free(o->python);
    free(o->python_ver);
    cs_col_type_unref(o->sent_schema);
    free(o);
}

static void py_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const py_eval_op *o = (const py_eval_op *)op;
    cs_sbuf_printf(out, "[%d python udf(s)], %d", o->n_udfs, o->eval_type);
}

static const cs_sql_op_vtable py_eval_vt = {"ArrowEvalPython", py_open,    py_next,
                                            py_close,          py_destroy, py_explain};

static cs_sql_op *refuse(cs_sql_op *child, const cs_py_eval_spec *spec)
{
    for (int u = 0; u < spec->n_udfs; u++)
        cs_col_type_unref(spec->udfs[u].result_type);
    cs_sql_op_free(child);
    return NULL;
}

cs_sql_op *cs_sql_op_python_eval(cs_sql_op *child, const cs_py_eval_spec *spec, cs_error *err)
{
    const cs_col_type *in = child->schema;
    if (spec->eval_type != CS_PY_EVAL_BATCHED_UDF &&
        spec->eval_type != CS_PY_EVAL_ARROW_BATCHED_UDF &&
        spec->eval_type != CS_PY_EVAL_SCALAR_PANDAS_UDF &&
        !(spec->eval_type == CS_PY_EVAL_SCALAR_PANDAS_ITER_UDF && spec->n_udfs == 1)) {
        cs_error_set(err, CS_EINVAL, "ArrowEvalPython: eval type %d is not a scalar UDF's",
                     spec->eval_type);
        return refuse(child, spec);
    }
    int total = 0;
    for (int u = 0; u < spec->n_udfs; u++)
        for (int a = 0; a < spec->udfs[u].n_args; a++) {
            int ord = spec->udfs[u].args[a];
            if (ord < 0 || ord >= in->n_fields) {
                cs_error_set(err, CS_EINVAL, "ArrowEvalPython: argument ordinal %d of %d", ord,
                             in->n_fields);
                return refuse(child, spec);
            }
            total++;
        }
    py_eval_op *o = cs_xcalloc(1, sizeof *o);
    o->eval_type = spec->eval_type;
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->max_records = spec->max_records;
    o->safe_cast = spec->safe_cast;
    o->faulthandler = spec->faulthandler;
    o->n_udfs = spec->n_udfs;
    o->udfs = cs_xcalloc((size_t)spec->n_udfs + 1, sizeof *o->udfs);
    o->sent_cols = cs_xcalloc((size_t)total + 1, sizeof *o->sent_cols);
    cs_col_field *sf = cs_xcalloc((size_t)total + 1, sizeof *sf);
    char(*names)[16] = cs_xcalloc((size_t)total + 1, sizeof *names);
    for (int u = 0; u < spec->n_udfs; u++) {
        const cs_py_eval_udf *s = &spec->udfs[u];
        py_udf *d = &o->udfs[u];
        d->command = cs_xmalloc(s->command_len + 1);
        memcpy(d->command, s->command, s->command_len);
        d->command_len = s->command_len;
        d->n_args = s->n_args;
        d->args = cs_xcalloc((size_t)s->n_args + 1, sizeof *d->args);
        d->offsets = cs_xcalloc((size_t)s->n_args + 1, sizeof *d->offsets);
        if (s->arg_names) {
            d->arg_names = cs_xcalloc((size_t)s->n_args + 1, sizeof *d->arg_names);
            for (int a = 0; a < s->n_args; a++)
                if (s->arg_names[a]) d->arg_names[a] = cs_xstrdup(s->arg_names[a]);
        }
        for (int a = 0; a < s->n_args; a++) {
            int k = o->n_sent_cols++;
            d->args[a] = s->args[a];
            d->offsets[a] = k;
            o->sent_cols[k] = s->args[a];
            snprintf(names[k], sizeof names[k], "_%d", k);
            sf[k] = (cs_col_field){names[k], cs_col_type_ref(in->fields[s->args[a]].type), true};
        }
    }
    o->sent_schema = cs_col_type_struct(sf, total);
    free(sf);
    free(names);
    int n_out = in->n_fields + spec->n_udfs;
    cs_col_field *of = cs_xcalloc((size_t)n_out, sizeof *of);
    for (int i = 0; i < in->n_fields; i++)
        of[i] = (cs_col_field){in->fields[i].name, cs_col_type_ref(in->fields[i].type),
                               in->fields[i].nullable};
    for (int u = 0; u < spec->n_udfs; u++)
        of[in->n_fields + u] =
            (cs_col_field){(char *)spec->udfs[u].name, spec->udfs[u].result_type, true};
    cs_col_type *schema = cs_col_type_struct(of, n_out);
    free(of);
    cs_sql_op_init(&o->base, &py_eval_vt, schema, &child, 1);
    return &o->base;
}
