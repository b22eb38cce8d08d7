/*
 * op_python_aggregate.c — Spark's AggregateInPandasExec: grouped-aggregate pandas UDFs
 * (SQL_GROUPED_AGG_PANDAS_UDF, eval type 202: `pandas_udf(f, "double", GROUPED_AGG)` or a
 * `pd.Series -> scalar` function) evaluated over the groups of a groupBy().agg(...) or over the
 * whole input of a global agg(...), in one PySpark worker per task (python_worker.h).
 *
 * The input is sorted by the grouping keys (the planner puts an Exchange by them, or to a single
 * partition without keys, and a Sort below), so a group is a run of rows with equal encoded keys
 * (sort_keys.c). Each group goes to the worker whole as one record batch of an Arrow IPC stream,
 * as Spark's ArrowPythonRunner writes a group's rows: its columns `_0`, `_1`, ... are the
 * distinct columns the UDFs read (each UDF's offsets name them); the worker calls every UDF on
 * the group's pandas Series and answers with one batch of one row, a column per UDF. The output
 * is the grouping keys (of the group's first row) then the UDFs' results, a row per group; an
 * answer's column of another type than the UDF declares fails the task.
 *
 * A partition without rows starts no worker and outputs nothing, as Spark's operator ignores an
 * empty partition (a global aggregate over no rows has no row, unlike a built-in aggregate's).
 *
 * WindowInPandas (Spark's WindowInPandasExec / ArrowWindowPythonExec: the same UDFs over a
 * window, SQL_WINDOW_AGG_PANDAS_UDF, 203) cuts the input, sorted by the partition keys then the
 * order keys, into window partitions the same way and sends each whole; a UDF over the whole
 * partition (ROWS UNBOUNDED PRECEDING to UNBOUNDED FOLLOWING, or no ORDER BY) is "unbounded" (the
 * worker repeats its one value for every row), any other frame "bounded": two int columns, the
 * frame's first row and the row after its last (in the partition) of every row, go before its
 * arguments, and the worker calls the function once per row on that slice. The runner conf
 * names each UDF's kind in order (pandas_window_bound_types). The answer has a row per row
 * sent; the output is the input's columns then a column per UDF. ROWS frames take any offsets;
 * RANGE frames UNBOUNDED and CURRENT ROW bounds (the current row's peers: equal order keys) and
 * offsets over one integral or date order key (the rows whose key is within the offsets of the
 * current row's, in the sort's direction; a row with a null key: its peers).
 *
 * The worker comes at the first row and goes at close (kept for the next task when its results
 * were read to the end); its exception is Spark's PythonException. Ownership: the constructor
 * copies the spec's commands, ordinals and names and takes over the child and the output schema.
 * Single-threaded: the task's thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "formats/arrow_ipc.h"
#include "sqlexec/python_eval.h"
#include "sqlexec/python_worker.h"
#include "sqlexec/sql_ops_internal.h"

/* Groups answered at most in one output batch. */
#define GROUPS_PER_BATCH 1024
/* A window UDF's arguments start with its frame: RANGE (1) or ROWS (0), the lower bound's kind
 * (cs_win_bound_kind) and offset, the upper bound's kind and offset. */
#define WINDOW_FRAME_ARGS 5

typedef struct agg_udf {
    uint8_t *command;
    size_t command_len;
    int n_args;
    int *offsets;     /* columns of the batches sent (a window's bounded UDF: its 2 bounds first) */
    char **arg_names; /* NULL, or per argument its keyword (NULL: positional) */
    /* a window's frame; bounded: its bounds are sent (columns offsets[0], offsets[1]) */
    bool bounded, range;
    cs_win_bound_kind lower_kind, upper_kind;
    int64_t lower, upper;
} agg_udf;

typedef struct py_agg_op {
    cs_sql_op base;
    char *python, *python_ver;
    bool safe_cast, faulthandler;
    int n_udfs;
    agg_udf *udfs;
    bool window; /* WindowInPandas */
    int n_keys;
    cs_sort_key *keys; /* the grouping keys: ordinals of the work batch */
    int n_order;
    cs_sort_key *order; /* a window's order keys (ordinals of the child): RANGE frames' peers */
    int n_bounds;       /* a window's bound columns sent (2 per bounded UDF) */
    int *sent_cols;     /* a window's argument columns sent (ordinals of the child), after them */
    int n_sent;
    /* a work batch per child batch: the key columns, then the columns sent (dictionaries
     * decoded); work_cols are their ordinals in the child */
    int n_work, *work_cols;
    cs_col_type *work_schema, *key_schema, *sent_schema, *result_schema;
    /* running */
    cs_py_worker *worker;
    cs_ipc_writer *writer;
    cs_ipc_reader *reader;
    bool started, child_done, results_done;
    cs_col_batch *first; /* the first child batch with rows, read before the worker starts */
    cs_sql_keybuf kb, okb;
    /* the group being gathered: runs of work batches, its encoded key */
    cs_col_batch **gb;
    cs_sql_row_run *runs;
    int n_runs, cap_runs;
    cs_sql_run_key key;
    int64_t groups_sent;
    /* each group sent and not answered yet: its first row (qb[i]'s row qr[i]); a window's: its
     * whole partition (qb[i]) */
    cs_col_batch **qb;
    int32_t *qr;
    int q_head, q_len, q_cap;
} py_agg_op;

/* The work batch of child batch b (taken over). */
static cs_col_batch *work_batch(py_agg_op *o, cs_col_batch *b, cs_error *err)
{
    cs_column **cols = cs_xcalloc((size_t)o->n_work + 1, sizeof *cols);
    for (int i = 0; i < o->n_work; i++) {
        cs_column *c = b->columns[o->work_cols[i]];
        cols[i] = c->dictionary ? cs_column_decode(c, o->base.ctx->alloc) : cs_column_ref(c);
    }
    int64_t n = b->num_rows;
    cs_col_batch_unref(b);
    cs_col_batch *w = cs_col_batch_new(cs_col_type_ref(o->work_schema), cols, o->n_work, n, err);
    free(cols);
    return w;
}

static void group_drop(py_agg_op *o)
{
    for (int i = 0; i < o->n_runs; i++)
        cs_col_batch_unref(o->gb[i]);
    o->n_runs = 0;
    o->key.have = false;
}

/* Adds row r of w to the group (a reference to w taken by the run it starts). */
static void group_add(py_agg_op *o, cs_col_batch *w, int64_t r)
{
    if (o->n_runs > 0 && o->gb[o->n_runs - 1] == w &&
        o->runs[o->n_runs - 1].start + o->runs[o->n_runs - 1].len == r) {
        o->runs[o->n_runs - 1].len++;
        return;
    }
    if (o->n_runs == o->cap_runs) {
        o->cap_runs = o->cap_runs ? 2 * o->cap_runs : 8;
        o->gb = cs_xrealloc(o->gb, sizeof *o->gb * (size_t)o->cap_runs);
        o->runs = cs_xrealloc(o->runs, sizeof *o->runs * (size_t)o->cap_runs);
    }
    o->gb[o->n_runs] = cs_col_batch_ref(w);
    o->runs[o->n_runs] = (cs_sql_row_run){o->n_runs, (int32_t)r, 1};
    o->n_runs++;
}

/* A partition's order key as RANGE frames with offsets read it: values ascending in the sort
 * order (negated for a descending key), the rows [nn_lo, nn_hi) those not null. */
typedef struct range_keys {
    const int64_t *x;
    int64_t nn_lo, nn_hi;
} range_keys;

/* The first row of [lo, hi) whose value is > v (or >= v when !after) in the ascending x. */
static int64_t search(const int64_t *x, int64_t lo, int64_t hi, int64_t v, bool after)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (after ? x[mid] <= v : x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The frame [*begin, *end) of row i of a partition of n rows; peer_lo / peer_hi: the first row of
 * i's peers and the row after its last (RANGE frames; a row with a null key has only its peers
 * within offsets). */
static void frame_of(const agg_udf *u, int64_t i, int64_t n, int64_t peer_lo, int64_t peer_hi,
                     const range_keys *rk, int32_t *begin, int32_t *end)
{
    bool null_key = u->range && (i < rk->nn_lo || i >= rk->nn_hi);
    int64_t b = 0, e = n;
    if (u->lower_kind == CS_WB_CURRENT_ROW) b = u->range ? peer_lo : i;
    if (u->lower_kind == CS_WB_OFFSET)
        b = !u->range  ? i + u->lower
            : null_key ? peer_lo
                       : search(rk->x, rk->nn_lo, rk->nn_hi, rk->x[i] + u->lower, false);
    if (u->lower_kind == CS_WB_UNBOUNDED_FOLLOWING) b = n;
    if (u->upper_kind == CS_WB_CURRENT_ROW) e = u->range ? peer_hi : i + 1;
    if (u->upper_kind == CS_WB_OFFSET)
        e = !u->range  ? i + u->upper + 1
            : null_key ? peer_hi
                       : search(rk->x, rk->nn_lo, rk->nn_hi, rk->x[i] + u->upper, true);
    if (u->upper_kind == CS_WB_UNBOUNDED_PRECEDING) e = 0;
    b = b < 0 ? 0 : b > n ? n : b;
    e = e < b ? b : e > n ? n : e;
    *begin = (int32_t)b;
    *end = (int32_t)e;
}

/* Types cs_sql_key_words reads: byte .. long, date. */
static bool integral_storage(const cs_col_type *t)
{
    return t->id == CS_TYPE_BYTE || t->id == CS_TYPE_SHORT || t->id == CS_TYPE_INT ||
           t->id == CS_TYPE_LONG || t->id == CS_TYPE_DATE;
}

static bool same_key(const cs_sql_keybuf *kb, int64_t a, int64_t b)
{
    int64_t la = kb->off[a + 1] - kb->off[a], lb = kb->off[b + 1] - kb->off[b];
    return la == lb && memcmp(kb->bytes + kb->off[a], kb->bytes + kb->off[b], (size_t)la) == 0;
}

static cs_column *int_column(const int32_t *v, int64_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_INT));
    cs_col_builder_append_values(b, v, n, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* A window partition's batch sent: each bounded UDF's frame bounds, then the arguments. */
static cs_col_batch *window_sent(py_agg_op *o, cs_col_batch *g, cs_error *err)
{
    int64_t n = g->num_rows;
    int nc = o->n_bounds + o->n_sent;
    cs_column **cols = cs_xcalloc((size_t)nc + 1, sizeof *cols);
    if (o->n_bounds > 0) {
        int32_t *begin = cs_xcalloc((size_t)n + 1, sizeof *begin);
        int32_t *end = cs_xcalloc((size_t)n + 1, sizeof *end);
        int64_t *lo = cs_xcalloc((size_t)n + 1, sizeof *lo);
        int64_t *hi = cs_xcalloc((size_t)n + 1, sizeof *hi);
        if (o->n_order > 0) cs_sql_keys_encode(&o->okb, g, o->order, o->n_order, false);
        int64_t start = 0, stop = n; /* peers: runs of equal order keys (all without any) */
        for (int64_t i = 0; i < n; i++) {
            if (i > 0 && o->n_order > 0 && !same_key(&o->okb, i, i - 1)) start = i;
            lo[i] = start;
        }
        for (int64_t i = n - 1; i >= 0; i--) {
            if (i < n - 1 && lo[i + 1] != lo[i]) stop = i + 1;
            hi[i] = stop;
        }
        /* RANGE frames: the first order key's values (planner: a single integral or date key
         * when a RANGE frame has offsets) */
        int64_t *x = cs_xcalloc((size_t)n + 1, sizeof *x);
        range_keys rk = {x, 0, n};
        if (o->n_order > 0) {
            const cs_column *c = g->columns[o->order[0].ordinal];
            if (integral_storage(c->type)) {
                cs_sql_key_words(c, n, (uint64_t *)x, 1);
                for (int64_t i = 0; o->order[0].descending && i < n; i++)
                    x[i] = -x[i];
            }
            while (rk.nn_lo < n && !cs_column_is_valid(c, rk.nn_lo))
                rk.nn_lo++;
            while (rk.nn_hi > rk.nn_lo && !cs_column_is_valid(c, rk.nn_hi - 1))
                rk.nn_hi--;
        }
        for (int u = 0, k = 0; u < o->n_udfs; u++) {
            if (!o->udfs[u].bounded) continue;
            for (int64_t i = 0; i < n; i++)
                frame_of(&o->udfs[u], i, n, lo[i], hi[i], &rk, &begin[i], &end[i]);
            cols[k++] = int_column(begin, n);
            cols[k++] = int_column(end, n);
        }
        free(x);
        free(begin);
        free(end);
        free(lo);
        free(hi);
    }
    for (int j = 0; j < o->n_sent; j++)
        cols[o->n_bounds + j] = cs_column_ref(g->columns[o->sent_cols[j]]);
    cs_col_batch *s = cs_col_batch_new(cs_col_type_ref(o->sent_schema), cols, nc, n, err);
    free(cols);
    return s;
}

/* Sends the group gathered as one batch of the columns sent, and queues its first row (a
 * window: the whole partition). */
static int flush_group(py_agg_op *o, cs_error *err)
{
    if (o->n_runs == 0) return 0;
    if (o->q_len == o->q_cap) {
        if (o->q_head > 0) {
            memmove(o->qb, o->qb + o->q_head, sizeof *o->qb * (size_t)(o->q_len - o->q_head));
            memmove(o->qr, o->qr + o->q_head, sizeof *o->qr * (size_t)(o->q_len - o->q_head));
            o->q_len -= o->q_head;
            o->q_head = 0;
        }
        if (o->q_len == o->q_cap) {
            o->q_cap = o->q_cap ? 2 * o->q_cap : 64;
            o->qb = cs_xrealloc(o->qb, sizeof *o->qb * (size_t)o->q_cap);
            o->qr = cs_xrealloc(o->qr, sizeof *o->qr * (size_t)o->q_cap);
        }
    }
    if (!o->window) {
        o->qb[o->q_len] = cs_col_batch_ref(o->gb[0]);
        o->qr[o->q_len++] = o->runs[0].start;
    }
    cs_col_batch *g =
        cs_sql_gather_runs_batch(o->work_schema, o->gb, o->runs, o->n_runs, o->base.ctx->alloc);
    group_drop(o);
    if (!g) return cs_error_set(err, CS_ENOMEM, "%s: cannot gather a group", o->base.vt->name);
    if (o->window) {
        o->qb[o->q_len] = cs_col_batch_ref(g);
        o->qr[o->q_len++] = -1;
    }
    cs_col_batch *s = o->window ? window_sent(o, g, err) : NULL;
    if (!o->window) {
        int n_sent = o->n_work - o->n_keys;
        cs_column **cols = cs_xcalloc((size_t)n_sent + 1, sizeof *cols);
        for (int i = 0; i < n_sent; i++)
            cols[i] = cs_column_ref(g->columns[o->n_keys + i]);
        s = cs_col_batch_new(cs_col_type_ref(o->sent_schema), cols, n_sent, g->num_rows, err);
        free(cols);
    }
    cs_col_batch_unref(g);
    if (!s) return err->code;
    o->groups_sent++;
    int rc = cs_ipc_writer_write(o->writer, s, err);
    cs_col_batch_unref(s);
    return rc;
}

/* Cuts work batch w into groups: each key change sends the group before it. */
static int take_batch(py_agg_op *o, cs_col_batch *w, cs_error *err)
{
    if (o->n_keys > 0) cs_sql_keys_encode(&o->kb, w, o->keys, o->n_keys, false);
    for (int64_t r = 0; r < w->num_rows; r++) {
        const uint8_t *k = o->n_keys > 0 ? o->kb.bytes + o->kb.off[r] : NULL;
        size_t kl = o->n_keys > 0 ? (size_t)(o->kb.off[r + 1] - o->kb.off[r]) : 0;
        if (cs_sql_run_key_ends(&o->key, k, kl) && flush_group(o, err) != 0) return err->code;
        if (!o->key.have) cs_sql_run_key_set(&o->key, k, kl);
        group_add(o, w, r);
    }
    return 0;
}

/* The worker took everything sent: cut more input until a group goes out, or end the input. */
static int pump(void *arg, cs_error *err)
{
    py_agg_op *o = arg;
    for (;;) {
        cs_col_batch *b = o->first;
        o->first = NULL;
        if (!b && cs_sql_op_next(o->base.children[0], &b, err) != 0) return err->code;
        if (!b) {
            o->child_done = true;
            if (flush_group(o, err) != 0 || cs_ipc_writer_close(o->writer, err) != 0)
                return err->code;
            cs_py_worker_end_input(o->worker);
            return 1;
        }
        if (b->num_rows == 0) {
            cs_col_batch_unref(b);
            continue;
        }
        cs_col_batch *w = work_batch(o, b, err);
        if (!w) return err->code;
        int64_t sent = o->groups_sent;
        int rc = take_batch(o, w, err);
        cs_col_batch_unref(w);
        if (rc != 0) return rc;
        if (o->groups_sent != sent) return 0;
    }
}

static int agg_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    (void)ctx;
    return cs_sql_op_open(op->children[0], ctx, err);
}

/* Starts the worker once the child has a row (an empty partition starts none). */
static int start(py_agg_op *o, cs_error *err)
{
    o->started = true;
    for (;;) {
        cs_col_batch *b = NULL;
        if (cs_sql_op_next(o->base.children[0], &b, err) != 0) return err->code;
        if (!b) {
            o->child_done = o->results_done = true;
            return 0;
        }
        if (b->num_rows > 0) {
            o->first = b;
            break;
        }
        cs_col_batch_unref(b);
    }
    const cs_sql_exec_ctx *ctx = o->base.ctx;
    cs_py_udf_command *cmds = cs_xcalloc((size_t)o->n_udfs, sizeof *cmds);
    for (int i = 0; i < o->n_udfs; i++)
        cmds[i] =
            (cs_py_udf_command){o->udfs[i].command, o->udfs[i].command_len, o->udfs[i].n_args,
                                o->udfs[i].offsets, (const char *const *)o->udfs[i].arg_names};
    /* a window's UDFs' kinds, in order (Spark 4.0's key, and 4.1's) */
    cs_sbuf kinds = CS_SBUF_INIT;
    for (int i = 0; i < o->n_udfs; i++)
        cs_sbuf_puts(&kinds, i ? (o->udfs[i].bounded ? ",bounded" : ",unbounded")
                               : (o->udfs[i].bounded ? "bounded" : "unbounded"));
    const char *keys[] = {"spark.sql.session.timeZone",
                          "spark.sql.execution.pandas.convertToArrowArraySafely",
                          "pandas_window_bound_types", "window_bound_types"};
    const char *values[] = {ctx->session_tz ? ctx->session_tz : "UTC",
                            o->safe_cast ? "true" : "false", cs_sbuf_str(&kinds),
                            cs_sbuf_str(&kinds)};
    cs_py_worker_spec spec = {
        .python = o->python,
        .python_ver = o->python_ver,
        .eval_type =
            o->window ? CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF : CS_PY_EVAL_GROUPED_AGG_PANDAS_UDF,
        .n_conf = o->window ? 4 : 2,
        .conf_keys = keys,
        .conf_values = values,
        .n_udfs = o->n_udfs,
        .udfs = cmds,
        .partition_id = (int)ctx->partition_id,
        .cancelled = ctx->cancelled,
        .factory = ctx->py_workers,
        .reuse = ctx->py_reuse,
        .faulthandler = o->faulthandler,
    };
    o->worker = cs_py_worker_start(&spec, err);
    free(cmds);
    cs_sbuf_free(&kinds);
    if (!o->worker) return err->code;
    o->writer = cs_ipc_writer_new(o->sent_schema, cs_py_worker_ipc_sink, o->worker);
    cs_py_worker_set_pump(o->worker, pump, o);
    return 0;
}

/* The next answer (one row of one column per UDF, of the declared types): *res, or NULL when the
 * results have ended; `taken` answers were read already for the queue's first groups. */
static int next_answer(py_agg_op *o, int taken, cs_col_batch **res, cs_error *err)
{
    *res = NULL;
    for (;;) {
        if (!o->reader) {
            int32_t v;
            if (cs_py_worker_read_int(o->worker, &v, err) != 0) return err->code;
            if (v == CS_PY_EXCEPTION_THROWN) return cs_py_worker_exception(o->worker, err);
            if (v != CS_PY_START_ARROW_STREAM)
                return cs_error_set(err, CS_EPROTO, "Python worker: unexpected answer %d", v);
            if (cs_ipc_reader_open(o->base.ctx->alloc, cs_py_worker_read, o->worker,
                                   "the Python worker's results", &o->reader, err) != 0)
                return err->code;
        }
        cs_col_batch *r = NULL;
        int rc = cs_ipc_reader_next(o->reader, &r, err);
        if (rc < 0) return rc;
        if (rc == 0) {
            o->results_done = true;
            if (cs_py_worker_finish(o->worker, err) != 0) return err->code;
            if (o->q_len - o->q_head > taken)
                return cs_error_set(err, CS_EPROTO, "Python worker: %d groups not answered",
                                    o->q_len - o->q_head - taken);
            return 0;
        }
        if (r->num_rows == 0) {
            cs_col_batch_unref(r);
            continue;
        }
        int64_t want_rows = o->q_len - o->q_head == taken ? -1
                            : o->window                   ? o->qb[o->q_head + taken]->num_rows
                                                          : 1;
        if (r->num_rows != want_rows || r->n_columns != o->n_udfs) {
            cs_error_set(err, CS_EPROTO,
                         "Python worker: an answer of %lld rows, %d columns for %d UDFs",
                         (long long)r->num_rows, r->n_columns, o->n_udfs);
            cs_col_batch_unref(r);
            return CS_EPROTO;
        }
        for (int i = 0; i < o->n_udfs; i++) {
            const cs_col_type *want = o->result_schema->fields[i].type;
            if (cs_col_type_equal(r->columns[i]->type, want)) continue;
            cs_sbuf w = {0}, g = {0};
            cs_col_type_simple_string(want, &w);
            cs_col_type_simple_string(r->columns[i]->type, &g);
            cs_error_set(err, CS_EPROTO, "Python worker: UDF %d returned %s, declared %s", i,
                         cs_sbuf_str(&g), cs_sbuf_str(&w));
            cs_sbuf_free(&w);
            cs_sbuf_free(&g);
            cs_col_batch_unref(r);
            return CS_EPROTO;
        }
        *res = r;
        return 0;
    }
}

/* A window's next output: the oldest partition sent, its rows and the UDFs' columns. */
static int window_next(py_agg_op *o, cs_col_batch **out, cs_error *err)
{
    cs_col_batch *res = NULL;
    if (next_answer(o, 0, &res, err) != 0 || !res) return err->code;
    cs_col_batch *g = o->qb[o->q_head++];
    if (o->q_head == o->q_len) o->q_head = o->q_len = 0;
    int nin = g->n_columns, nc = nin + o->n_udfs;
    cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
    for (int i = 0; i < nin; i++)
        cols[i] = cs_column_ref(g->columns[i]);
    for (int i = 0; i < o->n_udfs; i++)
        cols[nin + i] = cs_column_ref(res->columns[i]);
    *out = cs_col_batch_new(cs_col_type_ref(o->base.schema), cols, nc, g->num_rows, err);
    free(cols);
    cs_col_batch_unref(g);
    cs_col_batch_unref(res);
    return *out ? 0 : err->code;
}

static int agg_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    py_agg_op *o = (py_agg_op *)op;
    *out = NULL;
    if (!o->started && start(o, err) != 0) return err->code;
    if (o->results_done) return 0;
    if (o->window) return window_next(o, out, err);
    cs_col_batch *res[GROUPS_PER_BATCH];
    int n = 0, rc = 0;
    while (n < GROUPS_PER_BATCH) {
        if ((rc = next_answer(o, n, &res[n], err)) != 0 || !res[n]) break;
        n++;
    }
    if (rc == 0 && n > 0) {
        int32_t *bidx = cs_xcalloc((size_t)n, sizeof *bidx);
        int32_t *zero = cs_xcalloc((size_t)n, sizeof *zero);
        for (int i = 0; i < n; i++)
            bidx[i] = i;
        cs_col_batch *keys = cs_sql_gather_batch(o->key_schema, o->qb + o->q_head, bidx,
                                                 o->qr + o->q_head, n, op->ctx->alloc);
        cs_col_batch *vals =
            cs_sql_gather_batch(o->result_schema, res, bidx, zero, n, op->ctx->alloc);
        free(bidx);
        free(zero);
        if (!keys || !vals) {
            rc = cs_error_set(err, CS_ENOMEM, "AggregateInPandas: cannot gather the results");
        } else {
            int nc = o->n_keys + o->n_udfs;
            cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
            for (int i = 0; i < o->n_keys; i++)
                cols[i] = cs_column_ref(keys->columns[i]);
            for (int i = 0; i < o->n_udfs; i++)
                cols[o->n_keys + i] = cs_column_ref(vals->columns[i]);
            *out = cs_col_batch_new(cs_col_type_ref(op->schema), cols, nc, n, err);
            free(cols);
            if (!*out) rc = err->code;
        }
        if (keys) cs_col_batch_unref(keys);
        if (vals) cs_col_batch_unref(vals);
        for (int i = 0; i < n; i++)
            cs_col_batch_unref(o->qb[o->q_head + i]);
        o->q_head += n;
        if (o->q_head == o->q_len) o->q_head = o->q_len = 0;
    }
    for (int i = 0; i < n; i++)
        cs_col_batch_unref(res[i]);
    return rc;
}

static void agg_close(cs_sql_op *op)
{
    py_agg_op *o = (py_agg_op *)op;
    cs_ipc_reader_free(o->reader);
    o->reader = NULL;
    cs_ipc_writer_free(o->writer);
    o->writer = NULL;
    cs_py_worker_free(o->worker);
    o->worker = NULL;
    if (o->first) cs_col_batch_unref(o->first);
    o->first = NULL;
    group_drop(o);
    for (int i = o->q_head; i < o->q_len; i++)
        cs_col_batch_unref(o->qb[i]);
    o->q_head = o->q_len = 0;
    cs_sql_keybuf_free(&o->kb);
    memset(&o->kb, 0, sizeof o->kb);
    cs_sql_keybuf_free(&o->okb);
    memset(&o->okb, 0, sizeof o->okb);
    o->started = o->child_done = o->results_done = false;
    o->groups_sent = 0;
    cs_sql_op_close(op->children[0]);
}

static void agg_destroy(cs_sql_op *op)
{
    py_agg_op *o = (py_agg_op *)op;
    for (int i = 0; i < o->n_udfs; i++) {
        free(o->udfs[i].command);
        free(o->udfs[i].offsets);
        for (int a = 0; o->udfs[i].arg_names && a < o->udfs[i].n_args; a++)
            free(o->udfs[i].arg_names[a]);
        free(o->udfs[i].arg_names);
    }
    free(o->udfs);
    free(o->keys);
    free(o->order);
    free(o->sent_cols);
    free(o->work_cols);
    free(o->gb);
    free(o->runs);
    free(o->key.bytes);
    free(o->qb);
    free(o->qr);
    free(o->python);
    free(o->python_ver);
    cs_col_type_unref(o->work_schema);
    cs_col_type_unref(o->key_schema);
    cs_col_type_unref(o->sent_schema);
    cs_col_type_unref(o->result_schema);
    free(o);
}

static void agg_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const py_agg_op *o = (const py_agg_op *)op;
    cs_sbuf_printf(out, "[%d %s keys, %d python udf(s)]", o->n_keys,
                   o->window ? "partition" : "grouping", o->n_udfs);
}

static const cs_sql_op_vtable agg_vt = {"AggregateInPandas", agg_open,    agg_next,
                                        agg_close,           agg_destroy, agg_explain};

/* The struct type of fields [from, from + n) of t, renamed _0, _1, ... when rename. */
static cs_col_type *fields_of(const cs_col_type *t, int from, int n, bool rename)
{
    cs_col_field *f = cs_xcalloc((size_t)n + 1, sizeof *f);
    char(*names)[16] = cs_xcalloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "_%d", i);
        f[i] = (cs_col_field){rename ? names[i] : t->fields[from + i].name,
                              cs_col_type_ref(t->fields[from + i].type), true};
    }
    cs_col_type *s = cs_col_type_struct(f, n);
    free(f);
    free(names);
    return s;
}

cs_sql_op *cs_sql_op_python_aggregate(cs_sql_op *child, const cs_py_eval_spec *spec,
                                      const int *keys, int n_keys, cs_col_type *schema,
                                      cs_error *err)
{
    const cs_col_type *in = child->schema;
    bool ok = spec->eval_type == CS_PY_EVAL_GROUPED_AGG_PANDAS_UDF && spec->n_udfs > 0 &&
              n_keys >= 0 && schema->id == CS_TYPE_STRUCT &&
              schema->n_fields == n_keys + spec->n_udfs;
    for (int i = 0; ok && i < n_keys; i++)
        ok = keys[i] >= 0 && keys[i] < in->n_fields &&
             cs_col_type_equal(in->fields[keys[i]].type, schema->fields[i].type) &&
             cs_sql_struct_key_type_ok(in->fields[keys[i]].type);
    for (int u = 0; ok && u < spec->n_udfs; u++)
        for (int a = 0; ok && a < spec->udfs[u].n_args; a++)
            ok = spec->udfs[u].args[a] >= 0 && spec->udfs[u].args[a] < in->n_fields;
    if (!ok) {
        cs_error_set(err, CS_EINVAL, "AggregateInPandas: bad keys, arguments or output type");
        cs_col_type_unref(schema);
        cs_sql_op_free(child);
        return NULL;
    }
    py_agg_op *o = cs_xcalloc(1, sizeof *o);
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->safe_cast = spec->safe_cast;
    o->faulthandler = spec->faulthandler;
    o->n_keys = n_keys;
    o->keys = cs_xcalloc((size_t)n_keys + 1, sizeof *o->keys);
    int total = n_keys;
    for (int u = 0; u < spec->n_udfs; u++)
        total += spec->udfs[u].n_args;
    o->work_cols = cs_xcalloc((size_t)total + 1, sizeof *o->work_cols);
    for (int i = 0; i < n_keys; i++) { /* keys: the work batch's first columns */
        o->work_cols[o->n_work++] = keys[i];
        o->keys[i] = (cs_sort_key){i, false, true};
    }
    o->n_udfs = spec->n_udfs;
    o->udfs = cs_xcalloc((size_t)spec->n_udfs + 1, sizeof *o->udfs);
    for (int u = 0; u < spec->n_udfs; u++) {
        const cs_py_eval_udf *s = &spec->udfs[u];
        agg_udf *d = &o->udfs[u];
        d->command = cs_xmalloc(s->command_len + 1);
        memcpy(d->command, s->command, s->command_len);
        d->command_len = s->command_len;
        d->n_args = s->n_args;
        d->offsets = cs_xcalloc((size_t)s->n_args + 1, sizeof *d->offsets);
        if (s->arg_names) {
            d->arg_names = cs_xcalloc((size_t)s->n_args + 1, sizeof *d->arg_names);
            for (int a = 0; a < s->n_args; a++)
                if (s->arg_names[a]) d->arg_names[a] = cs_xstrdup(s->arg_names[a]);
        }
        for (int a = 0; a < s->n_args; a++) { /* a column read twice is sent once */
            int k = n_keys;
            while (k < o->n_work && o->work_cols[k] != s->args[a])
                k++;
            if (k == o->n_work) o->work_cols[o->n_work++] = s->args[a];
            d->offsets[a] = k - n_keys;
        }
    }
    cs_col_field *wf = cs_xcalloc((size_t)o->n_work + 1, sizeof *wf);
    for (int i = 0; i < o->n_work; i++)
        wf[i] = (cs_col_field){in->fields[o->work_cols[i]].name,
                               cs_col_type_ref(in->fields[o->work_cols[i]].type), true};
    o->work_schema = cs_col_type_struct(wf, o->n_work);
    free(wf);
    o->key_schema = fields_of(o->work_schema, 0, n_keys, false);
    o->sent_schema = fields_of(o->work_schema, n_keys, o->n_work - n_keys, true);
    o->result_schema = fields_of(schema, n_keys, spec->n_udfs, true);
    cs_sql_op_init(&o->base, &agg_vt, schema, &child, 1);
    return &o->base;
}

static const cs_sql_op_vtable window_vt = {"WindowInPandas", agg_open,    agg_next,
                                           agg_close,        agg_destroy, agg_explain};

cs_sql_op *cs_sql_op_python_window(cs_sql_op *child, const cs_py_eval_spec *spec,
                                   const int *partition_keys, int n_partition,
                                   const cs_sort_key *order, int n_order, cs_col_type *schema,
                                   cs_error *err)
{
    const cs_col_type *in = child->schema;
    int nin = in->n_fields;
    bool ok = spec->eval_type == CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF && spec->n_udfs > 0 &&
              n_partition >= 0 && n_order >= 0 && schema->id == CS_TYPE_STRUCT &&
              schema->n_fields == nin + spec->n_udfs;
    for (int i = 0; ok && i < n_partition; i++)
        ok = partition_keys[i] >= 0 && partition_keys[i] < nin &&
             cs_sql_struct_key_type_ok(in->fields[partition_keys[i]].type);
    for (int i = 0; ok && i < n_order; i++)
        ok = order[i].ordinal >= 0 && order[i].ordinal < nin;
    for (int u = 0; ok && u < spec->n_udfs; u++) {
        const cs_py_eval_udf *s = &spec->udfs[u];
        ok = s->n_args >= WINDOW_FRAME_ARGS && s->args[1] >= CS_WB_UNBOUNDED_PRECEDING &&
             s->args[1] <= CS_WB_UNBOUNDED_FOLLOWING && s->args[3] >= CS_WB_UNBOUNDED_PRECEDING &&
             s->args[3] <= CS_WB_UNBOUNDED_FOLLOWING &&
             !(s->args[0] && (s->args[1] == CS_WB_OFFSET || s->args[3] == CS_WB_OFFSET) &&
               (n_order != 1 || !integral_storage(in->fields[order[0].ordinal].type)));
        for (int a = WINDOW_FRAME_ARGS; ok && a < s->n_args; a++)
            ok = s->args[a] >= 0 && s->args[a] < nin;
    }
    if (!ok) {
        cs_error_set(err, CS_EINVAL, "WindowInPandas: bad keys, frames, arguments or output type");
        cs_col_type_unref(schema);
        cs_sql_op_free(child);
        return NULL;
    }
    py_agg_op *o = cs_xcalloc(1, sizeof *o);
    o->window = true;
    o->python = cs_xstrdup(spec->python ? spec->python : "python3");
    o->python_ver = cs_xstrdup(spec->python_ver ? spec->python_ver : "");
    o->safe_cast = spec->safe_cast;
    o->faulthandler = spec->faulthandler;
    o->n_work = nin; /* every column: the output holds them */
    o->work_cols = cs_xcalloc((size_t)nin + 1, sizeof *o->work_cols);
    for (int i = 0; i < nin; i++)
        o->work_cols[i] = i;
    o->n_keys = n_partition;
    o->keys = cs_xcalloc((size_t)n_partition + 1, sizeof *o->keys);
    for (int i = 0; i < n_partition; i++)
        o->keys[i] = (cs_sort_key){partition_keys[i], false, true};
    o->n_order = n_order;
    o->order = cs_xcalloc((size_t)n_order + 1, sizeof *o->order);
    if (n_order) memcpy(o->order, order, sizeof *order * (size_t)n_order);
    o->n_udfs = spec->n_udfs;
    o->udfs = cs_xcalloc((size_t)spec->n_udfs + 1, sizeof *o->udfs);
    int total = 0;
    for (int u = 0; u < spec->n_udfs; u++) {
        const int *f = spec->udfs[u].args;
        agg_udf *d = &o->udfs[u];
        d->range = f[0] != 0;
        d->lower_kind = (cs_win_bound_kind)f[1];
        d->lower = f[2];
        d->upper_kind = (cs_win_bound_kind)f[3];
        d->upper = f[4];
        d->bounded = !(d->lower_kind == CS_WB_UNBOUNDED_PRECEDING &&
                       d->upper_kind == CS_WB_UNBOUNDED_FOLLOWING);
        o->n_bounds += d->bounded ? 2 : 0;
        total += spec->udfs[u].n_args;
    }
    o->sent_cols = cs_xcalloc((size_t)total + 1, sizeof *o->sent_cols);
    for (int u = 0, k = 0; u < spec->n_udfs; u++) {
        const cs_py_eval_udf *s = &spec->udfs[u];
        agg_udf *d = &o->udfs[u];
        int nb = d->bounded ? 2 : 0, na = s->n_args - WINDOW_FRAME_ARGS;
        d->command = cs_xmalloc(s->command_len + 1);
        memcpy(d->command, s->command, s->command_len);
        d->command_len = s->command_len;
        d->n_args = nb + na;
        d->offsets = cs_xcalloc((size_t)d->n_args + 1, sizeof *d->offsets);
        if (nb) {
            d->offsets[0] = k++;
            d->offsets[1] = k++;
        }
        if (s->arg_names) {
            d->arg_names = cs_xcalloc((size_t)d->n_args + 1, sizeof *d->arg_names);
            for (int a = 0; a < na; a++)
                if (s->arg_names[WINDOW_FRAME_ARGS + a])
                    d->arg_names[nb + a] = cs_xstrdup(s->arg_names[WINDOW_FRAME_ARGS + a]);
        }
        for (int a = 0; a < na; a++) { /* a column read twice is sent once */
            int col = s->args[WINDOW_FRAME_ARGS + a], j = 0;
            while (j < o->n_sent && o->sent_cols[j] != col)
                j++;
            if (j == o->n_sent) o->sent_cols[o->n_sent++] = col;
            d->offsets[nb + a] = o->n_bounds + j;
        }
    }
    int nc = o->n_bounds + o->n_sent;
    cs_col_field *sf = cs_xcalloc((size_t)nc + 1, sizeof *sf);
    char(*names)[16] = cs_xcalloc((size_t)nc + 1, sizeof *names);
    for (int i = 0; i < nc; i++) {
        snprintf(names[i], sizeof names[i], "_%d", i);
        cs_col_type *t = i < o->n_bounds
                             ? cs_col_type_primitive(CS_TYPE_INT)
                             : cs_col_type_ref(in->fields[o->sent_cols[i - o->n_bounds]].type);
        sf[i] = (cs_col_field){names[i], t, true};
    }
    o->sent_schema = cs_col_type_struct(sf, nc);
    free(sf);
    free(names);
    o->work_schema = cs_col_type_ref((cs_col_type *)in);
    o->key_schema = cs_col_type_ref((cs_col_type *)in);
    o->result_schema = fields_of(schema, nin, spec->n_udfs, true);
    cs_sql_op_init(&o->base, &window_vt, schema, &child, 1);
    return &o->base;
}
