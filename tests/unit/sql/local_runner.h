/*
 * local_runner.h — a test-only runner of physical plans in one process, standing in for the
 * driver (src/session/) in the planner's end-to-end tests: it cuts the tree at its exchanges,
 * runs each exchange's child stage partition by partition (cs_phys_build), distributes the
 * rows in memory with the exchange's partitioner (or gathers them for a broadcast), and runs
 * the consuming stage over SHUFFLE_READ / BROADCAST_READ leaves that serve those batches. A
 * UNION's children run as stages of their own whose partitions follow one another. It also
 * prints results in tests/sql/README.md's golden format, for compare.py.
 *
 * Ownership: lr_run's result batches are the caller's (lr_result_free). The tree is borrowed;
 * while running, its exchange children are swapped for leaves and restored before returning.
 */
#ifndef CSPARK_TESTS_LOCAL_RUNNER_H
#define CSPARK_TESTS_LOCAL_RUNNER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_error.h"

/* The batches of each partition of one stage's output. */
typedef struct lr_parts {
    int n;             /* partitions */
    cs_col_batch ***b; /* b[p][0..nb[p]) */
    int *nb;
} lr_parts;

typedef struct lr_input {
    lr_parts parts;
    bool broadcast; /* every task sees all partitions' batches */
} lr_input;

typedef struct lr_run_ctx {
    const cs_sql_exec_ctx *ctx;
    lr_input *inputs;
    int n_inputs;
    int partition; /* the task running */
} lr_run_ctx;

static void lr_parts_free(lr_parts *p)
{
    for (int i = 0; i < p->n; i++) {
        for (int j = 0; j < p->nb[i]; j++)
            cs_col_batch_unref(p->b[i][j]);
        free(p->b[i]);
    }
    free(p->b);
    free(p->nb);
    memset(p, 0, sizeof *p);
}

static void lr_parts_init(lr_parts *p, int n)
{
    p->n = n;
    p->b = calloc((size_t)(n + 1), sizeof *p->b);
    p->nb = calloc((size_t)(n + 1), sizeof *p->nb);
}

static void lr_parts_add(lr_parts *p, int part, cs_col_batch *b)
{
    p->b[part] = realloc(p->b[part], sizeof **p->b * (size_t)(p->nb[part] + 1));
    p->b[part][p->nb[part]++] = b;
}

static cs_sql_op *lr_open_input(void *arg, const cs_phys_node *leaf, cs_error *err)
{
    lr_run_ctx *r = arg;
    if (leaf->input < 0 || leaf->input >= r->n_inputs) {
        cs_error_set(err, CS_EINVAL, "local runner: no input %d", leaf->input);
        return NULL;
    }
    lr_input *in = &r->inputs[leaf->input];
    if (!in->broadcast) {
        int p = r->partition < in->parts.n ? r->partition : -1;
        if (p < 0) return cs_sql_op_batches(cs_col_type_ref(leaf->schema), NULL, 0);
        return cs_sql_op_batches(cs_col_type_ref(leaf->schema), in->parts.b[p], in->parts.nb[p]);
    }
    int total = 0;
    for (int p = 0; p < in->parts.n; p++)
        total += in->parts.nb[p];
    cs_col_batch **all = calloc((size_t)(total + 1), sizeof *all);
    int k = 0;
    for (int p = 0; p < in->parts.n; p++)
        for (int j = 0; j < in->parts.nb[p]; j++)
            all[k++] = in->parts.b[p][j];
    cs_sql_op *op = cs_sql_op_batches(cs_col_type_ref(leaf->schema), all, total);
    free(all);
    return op;
}

static int lr_stage(const cs_sql_exec_ctx *ctx, cs_phys_node *root, lr_parts *out, cs_error *err);

/* Partitions a stage's leaves give (SHUFFLE_READ / PARENT_READ: their input's). */
static int lr_partitions(const cs_phys_node *n, const lr_input *inputs)
{
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        return n->n_groups;
    case CS_PH_LOCAL: /* sliced local rows (LocalTableScanExec) */
        return n->num_slices > 0 ? n->num_slices : 1;
    case CS_PH_RANGE:
        return n->num_slices;
    case CS_PH_SHUFFLE_READ:
    case CS_PH_PARENT_READ:
        return inputs[n->input].parts.n;
    case CS_PH_BROADCAST_READ:
        return -1;
    default:
        break;
    }
    int best = -1;
    for (int i = 0; i < n->n_children; i++) {
        int k = lr_partitions(n->children[i], inputs);
        if (k > best) best = k;
    }
    return best;
}

typedef struct lr_swap {
    cs_phys_node **slot;
    cs_phys_node *orig;
} lr_swap;

typedef struct lr_cut {
    lr_input *inputs;
    int n_inputs;
    lr_swap *swaps;
    int n_swaps;
} lr_cut;

/* The partitions of a union's children, one child's after another. */
static int lr_union_input(const cs_sql_exec_ctx *ctx, cs_phys_node *u, lr_input *in, cs_error *err)
{
    lr_parts_init(&in->parts, 0);
    for (int c = 0; c < u->n_children; c++) {
        lr_parts sub = {0};
        if (lr_stage(ctx, u->children[c], &sub, err) != 0) return -1;
        int base = in->parts.n;
        in->parts.n += sub.n;
        in->parts.b = realloc(in->parts.b, sizeof *in->parts.b * (size_t)(in->parts.n + 1));
        in->parts.nb = realloc(in->parts.nb, sizeof *in->parts.nb * (size_t)(in->parts.n + 1));
        for (int p = 0; p < sub.n; p++) {
            in->parts.b[base + p] = sub.b[p];
            in->parts.nb[base + p] = sub.nb[p];
        }
        free(sub.b);
        free(sub.nb);
    }
    return 0;
}

/* The reduce side of an exchange: its child's rows distributed by its partitioner. */
static int lr_exchange_input(const cs_sql_exec_ctx *ctx, cs_phys_node *ex, lr_input *in,
                             cs_error *err)
{
    lr_parts map = {0};
    if (lr_stage(ctx, ex->children[0], &map, err) != 0) return -1;
    if (ex->kind == CS_PH_BROADCAST_EXCHANGE) {
        in->parts = map;
        in->broadcast = true;
        return 0;
    }
    lr_parts_init(&in->parts, ex->num_partitions);
    int rc = 0;
    for (int m = 0; m < map.n && rc == 0; m++) {
        cs_exchange_partitioner *px = cs_exchange_partitioner_new(ex, m, NULL, err);
        if (!px) {
            rc = -1;
            break;
        }
        for (int j = 0; j < map.nb[m] && rc == 0; j++) {
            cs_col_batch *b = map.b[m][j];
            int64_t rows = b->num_rows;
            int32_t *part = calloc((size_t)(rows + 1), sizeof *part);
            int32_t *idx = calloc((size_t)(rows + 1), sizeof *idx);
            rc = cs_exchange_partition(px, b, ctx, part, err);
            for (int p = 0; p < ex->num_partitions && rc == 0; p++) {
                int64_t k = 0;
                for (int64_t r = 0; r < rows; r++)
                    if (part[r] == p) idx[k++] = (int32_t)r;
                if (k > 0) lr_parts_add(&in->parts, p, cs_col_batch_take(b, idx, k, ctx->alloc));
            }
            free(part);
            free(idx);
        }
        cs_exchange_partitioner_free(px);
    }
    lr_parts_free(&map);
    return rc;
}

/* Runs what sits below the exchanges and unions of n's stage, swapping them for leaves. */
static int lr_cut_tree(const cs_sql_exec_ctx *ctx, cs_phys_node *n, lr_cut *cut, cs_error *err)
{
    for (int i = 0; i < n->n_children; i++) {
        cs_phys_node *ch = n->children[i];
        bool ex = ch->kind == CS_PH_EXCHANGE || ch->kind == CS_PH_BROADCAST_EXCHANGE;
        if (!ex && ch->kind != CS_PH_UNION) {
            if (lr_cut_tree(ctx, ch, cut, err) != 0) return -1;
            continue;
        }
        lr_input in = {0};
        int rc = ex ? lr_exchange_input(ctx, ch, &in, err) : lr_union_input(ctx, ch, &in, err);
        if (rc != 0) {
            lr_parts_free(&in.parts);
            return -1;
        }
        cs_phys_kind kind = in.broadcast ? CS_PH_BROADCAST_READ
                            : ex         ? CS_PH_SHUFFLE_READ
                                         : CS_PH_PARENT_READ;
        cs_phys_node *leaf = cs_phys_new(kind, cs_col_type_ref(ch->schema), 0);
        leaf->input = cut->n_inputs;
        cut->inputs = realloc(cut->inputs, sizeof *cut->inputs * (size_t)(cut->n_inputs + 1));
        cut->inputs[cut->n_inputs++] = in;
        cut->swaps = realloc(cut->swaps, sizeof *cut->swaps * (size_t)(cut->n_swaps + 1));
        cut->swaps[cut->n_swaps++] = (lr_swap){&n->children[i], ch};
        n->children[i] = leaf;
    }
    return 0;
}

static void lr_uncut(lr_cut *cut)
{
    for (int i = cut->n_swaps - 1; i >= 0; i--) {
        cs_phys_free(*cut->swaps[i].slot);
        *cut->swaps[i].slot = cut->swaps[i].orig;
    }
    for (int i = 0; i < cut->n_inputs; i++)
        lr_parts_free(&cut->inputs[i].parts);
    free(cut->inputs);
    free(cut->swaps);
}

/* Runs the stage rooted at root (exchanges below it run first) into out. */
static int lr_stage(const cs_sql_exec_ctx *ctx, cs_phys_node *root, lr_parts *out, cs_error *err)
{
    /* a root that is itself a union or exchange: wrap it so the cut sees it as a child */
    cs_phys_node holder = {0};
    cs_phys_node *kids[1] = {root};
    holder.n_children = 1;
    holder.children = kids;
    lr_cut cut = {0};
    int rc = lr_cut_tree(ctx, &holder, &cut, err);
    cs_phys_node *top = kids[0];
    if (rc == 0) {
        int n = lr_partitions(top, cut.inputs);
        if (n < 0) n = 1;
        lr_parts_init(out, n);
        lr_run_ctx rctx = {ctx, cut.inputs, cut.n_inputs, 0};
        for (int p = 0; p < n && rc == 0; p++) {
            rctx.partition = p;
            cs_phys_inputs pin = {p, lr_open_input, &rctx};
            cs_sql_op *op = cs_phys_build(top, &pin, err);
            if (!op) {
                rc = -1;
                break;
            }
            if (cs_sql_op_open(op, ctx, err) != 0) {
                rc = -1;
            } else {
                for (;;) {
                    cs_col_batch *b = NULL;
                    if (cs_sql_op_next(op, &b, err) != 0) {
                        rc = -1;
                        break;
                    }
                    if (!b) break;
                    lr_parts_add(out, p, b);
                }
            }
            cs_sql_op_close(op);
            cs_sql_op_free(op);
        }
        if (rc != 0) lr_parts_free(out);
    }
    lr_uncut(&cut);
    return rc;
}

/* Runs the whole tree: the root stage's batches, partition after partition. */
static int lr_run(const cs_sql_exec_ctx *ctx, cs_phys_node *root, cs_col_batch ***out, int *n,
                  cs_error *err)
{
    lr_parts parts = {0};
    if (lr_stage(ctx, root, &parts, err) != 0) return -1;
    int total = 0;
    for (int p = 0; p < parts.n; p++)
        total += parts.nb[p];
    *out = calloc((size_t)(total + 1), sizeof **out);
    *n = 0;
    for (int p = 0; p < parts.n; p++)
        for (int j = 0; j < parts.nb[p]; j++)
            (*out)[(*n)++] = cs_col_batch_ref(parts.b[p][j]);
    lr_parts_free(&parts);
    return 0;
}

/* ---- the golden format (tests/sql/README.md) ---- */

static void lr_put_string(cs_sbuf *o, const uint8_t *s, int32_t len, bool quote)
{
    if (quote) cs_sbuf_putc(o, '"');
    for (int32_t i = 0; i < len; i++) {
        uint8_t ch = s[i];
        if (quote && ch == '"')
            cs_sbuf_puts(o, "\\\"");
        else if (ch == '\\')
            cs_sbuf_puts(o, "\\\\");
        else if (ch == '\n')
            cs_sbuf_puts(o, "\\n");
        else if (ch == '\t')
            cs_sbuf_puts(o, "\\t");
        else if (ch == '\r')
            cs_sbuf_puts(o, "\\r");
        else if (quote && (ch < 0x20 || ch == 0x7f))
            cs_sbuf_printf(o, "\\u%04X", ch);
        else
            cs_sbuf_putc(o, (char)ch);
    }
    if (quote) cs_sbuf_putc(o, '"');
}

static void lr_put_decimal(cs_sbuf *o, __int128 v, int scale)
{
    char digits[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        digits[n++] = '0';
    if (neg) cs_sbuf_putc(o, '-');
    for (int i = n - 1; i >= 0; i--) {
        cs_sbuf_putc(o, digits[i]);
        if (i == scale && scale > 0) cs_sbuf_putc(o, '.');
    }
}

/* The shortest decimal that reads back as d, laid out as Python's repr ("20.0", "0.1",
 * "1e+16", "1.5e-07"). */
static void lr_put_double(cs_sbuf *o, double d, bool is_float)
{
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (is_float ? (float)strtod(buf, NULL) == (float)d : strtod(buf, NULL) == d) break;
    }
    char digits[32];
    int nd = 0;
    const char *q = buf;
    if (*q == '-') {
        cs_sbuf_putc(o, '-');
        q++;
    }
    for (; *q && *q != 'e'; q++)
        if (*q != '.') digits[nd++] = *q;
    int exp = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            cs_sbuf_puts(o, "0.");
            for (int i = 0; i < -exp - 1; i++)
                cs_sbuf_putc(o, '0');
            cs_sbuf_puts(o, digits);
            return;
        }
        for (int i = 0; i <= exp; i++)
            cs_sbuf_putc(o, i < nd ? digits[i] : '0');
        cs_sbuf_putc(o, '.');
        cs_sbuf_puts(o, nd > exp + 1 ? digits + exp + 1 : "0");
        return;
    }
    cs_sbuf_putc(o, digits[0]);
    if (nd > 1) {
        cs_sbuf_putc(o, '.');
        cs_sbuf_puts(o, digits + 1);
    }
    cs_sbuf_printf(o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

/* One value of column c (row i) as the golden format writes it; `text` holds c cast to string
 * for the types printed as Spark's CAST(x AS STRING). */
static void lr_put_value(cs_sbuf *o, const cs_column *c, const cs_column *text, int64_t i)
{
    if (!cs_column_is_valid(c, i)) {
        cs_sbuf_puts(o, "NULL");
        return;
    }
    const cs_col_type *t = c->type;
    const void *v = c->values;
    int32_t len;
    const uint8_t *s;
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(o, ((const uint8_t *)v)[i] ? "true" : "false");
        return;
    case CS_TYPE_BYTE:
        cs_sbuf_printf(o, "%d", ((const int8_t *)v)[i]);
        return;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(o, "%d", ((const int16_t *)v)[i]);
        return;
    case CS_TYPE_INT:
        cs_sbuf_printf(o, "%d", ((const int32_t *)v)[i]);
        return;
    case CS_TYPE_LONG:
        cs_sbuf_printf(o, "%lld", (long long)((const int64_t *)v)[i]);
        return;
    case CS_TYPE_DOUBLE:
    case CS_TYPE_FLOAT: {
        double d = t->id == CS_TYPE_DOUBLE ? ((const double *)v)[i] : ((const float *)v)[i];
        if (d != d)
            cs_sbuf_puts(o, "NaN");
        else if (d > 1.7976931348623157e308)
            cs_sbuf_puts(o, "Infinity");
        else if (d < -1.7976931348623157e308)
            cs_sbuf_puts(o, "-Infinity");
        else
            lr_put_double(o, d, t->id == CS_TYPE_FLOAT);
        return;
    }
    case CS_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, (const uint8_t *)v + 16 * i, 16);
        lr_put_decimal(o, x, t->scale);
        return;
    }
    case CS_TYPE_STRING:
        s = cs_column_bytes(c, i, &len);
        lr_put_string(o, s, len, true);
        return;
    case CS_TYPE_BINARY:
        s = cs_column_bytes(c, i, &len);
        cs_sbuf_puts(o, "X'");
        for (int32_t k = 0; k < len; k++)
            cs_sbuf_printf(o, "%02X", s[k]);
        cs_sbuf_putc(o, '\'');
        return;
    default:
        s = cs_column_bytes(text, i, &len);
        lr_put_string(o, s, len, false);
        return;
    }
}

static bool lr_needs_text(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_FLOAT:
    case CS_TYPE_DECIMAL:
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        return false;
    default:
        return true;
    }
}

static int lr_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the block of query `number` (the schema line, the types, the rows) to out. */
static int lr_print_block(const cs_sql_exec_ctx *ctx, int number, const char *sql,
                          const cs_col_type *schema, cs_col_batch **batches, int n_batches,
                          bool ordered, cs_sbuf *out, cs_error *err)
{
    cs_sbuf_printf(out, "-- query %d (line 1)\n%s\n-- schema\nstruct<", number, sql);
    for (int i = 0; i < schema->n_fields; i++) {
        if (i) cs_sbuf_putc(out, ',');
        cs_sbuf_printf(out, "%s:", schema->fields[i].name);
        cs_col_type_simple_string(schema->fields[i].type, out);
    }
    cs_sbuf_puts(out, ">\n-- types");
    for (int i = 0; i < schema->n_fields; i++) {
        cs_sbuf_putc(out, i ? '\t' : ' ');
        cs_col_type_simple_string(schema->fields[i].type, out);
    }
    int64_t total = 0;
    for (int i = 0; i < n_batches; i++)
        total += batches[i]->num_rows;
    char **rows = calloc((size_t)(total + 1), sizeof *rows);
    int64_t r = 0;
    for (int bi = 0; bi < n_batches; bi++) {
        cs_col_batch *b = batches[bi];
        cs_column **text = calloc((size_t)(b->n_columns + 1), sizeof *text);
        for (int ci = 0; ci < b->n_columns; ci++) {
            if (!lr_needs_text(b->columns[ci]->type->id)) continue;
            cs_pexpr *e =
                cs_pexpr_cast(cs_pexpr_column(ci, cs_col_type_ref(b->columns[ci]->type), true),
                              cs_col_type_primitive(CS_TYPE_STRING), CS_CAST_ANSI);
            cs_pexpr_program *pg = cs_pexpr_compile(e, b->schema, err);
            cs_pexpr_free(e);
            if (!pg || cs_pexpr_eval(pg, b, ctx, &text[ci], err) != 0) {
                cs_pexpr_program_free(pg);
                return -1;
            }
            cs_pexpr_program_free(pg);
        }
        for (int64_t i = 0; i < b->num_rows; i++) {
            cs_sbuf line = {0};
            for (int ci = 0; ci < b->n_columns; ci++) {
                if (ci) cs_sbuf_putc(&line, '\t');
                lr_put_value(&line, b->columns[ci], text[ci], i);
            }
            rows[r++] = line.data ? line.data : strdup("");
        }
        for (int ci = 0; ci < b->n_columns; ci++)
            if (text[ci]) cs_column_unref(text[ci]);
        free(text);
    }
    if (!ordered) qsort(rows, (size_t)total, sizeof *rows, lr_cmp_str);
    cs_sbuf_printf(out, "\n-- rows %lld %s\n", (long long)total, ordered ? "ordered" : "sorted");
    for (int64_t i = 0; i < total; i++) {
        cs_sbuf_puts(out, rows[i]);
        cs_sbuf_putc(out, '\n');
        free(rows[i]);
    }
    free(rows);
    return 0;
}

/* ctx->run_scalar of the planner (arg: the cs_sql_exec_ctx): the plan run here, its one value
 * (null for no row), Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS for more. */
static int lr_run_scalar(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = arg;
    cs_col_batch **b = NULL;
    int n = 0;
    if (lr_run(ctx, (cs_phys_node *)plan, &b, &n, err) != 0) return -1;
    int64_t rows = 0;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (b[i]->num_rows == 0) continue;
        rows += b[i]->num_rows;
        if (rows == 1) *value = cs_column_ref(b[i]->columns[0]);
    }
    if (rows > 1) {
        cs_column_unref(*value);
        *value = NULL;
        rc = cs_sql_error_set(err, CS_EINVAL, "SCALAR_SUBQUERY_TOO_MANY_ROWS", "21000",
                              "More than one row returned by a subquery used as an expression.");
    } else if (rows == 0) {
        cs_col_builder *nb = cs_col_builder_new(NULL, plan->schema->fields[0].type);
        cs_col_builder_append_nulls(nb, 1);
        *value = cs_col_builder_finish(nb);
        cs_col_builder_free(nb);
    }
    for (int i = 0; i < n; i++)
        cs_col_batch_unref(b[i]);
    free(b);
    return rc;
}

#endif /* CSPARK_TESTS_LOCAL_RUNNER_H */
