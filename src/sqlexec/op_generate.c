/*
 * op_generate.c — Generate (Spark's GenerateExec) for the built-in generators: explode and
 * posexplode of an array (`col`, with `pos` first) or a map (`key`, `value`), inline of an array
 * of structs (the struct's fields; a null element gives a row of nulls, as Spark's Inline) and
 * stack(n, a1, ..., ak) (n rows of ceil(k / n) columns col0, col1, ..., missing values null)
 * and variant_explode of a variant (pos, key, value: each batch's variants are made into the
 * array of their entries by variant_explode.c, then generated as inline).
 * Every output row is the input row's columns (all, or those the plan keeps: ColumnPruning's
 * required child output, so an input column read by the generator alone, such as the array
 * being exploded, is not copied into every row) followed by one generated row; OUTER keeps one
 * row of nulls for an input whose array or map is null or empty (explode_outer & co.).
 *
 * A batch at a time: the number of rows each input row generates is counted, then output batches
 * of about cs_sql_batch_rows rows (at least one input row each) are gathered: the child's columns
 * by input row, the generated columns straight from the array's element (or the map's key and
 * value) children by element index (one copy of the run when the elements are consecutive), so
 * no value is copied twice and nothing is allocated per row. The generated column is read by
 * ordinal: the planner projects the generator's argument below (stack's arguments too).
 *
 * Called by the physical plan builder; ownership as every sql_ops.h operator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_ops_internal.h"

typedef struct gen_op {
    cs_sql_op base;
    cs_generator_kind kind;
    int input;
    int *args;
    int n_args;
    int64_t stack_rows;
    int stack_cols;
    bool outer;
    int *keep; /* the input's columns in the output rows, in order */
    int n_keep;
    cs_col_batch *in;
    cs_column *entries; /* variant_explode: in's variants as arrays of entries */
    int64_t at;         /* next input row of `in` */
    int64_t *counts;    /* rows each input row of `in` generates */
    int64_t counts_cap;
    int32_t *row_of, *elem_of, *pos_of;
    int64_t out_cap;
} gen_op;

static int64_t rows_of(const gen_op *g, const cs_column *c, int64_t i)
{
    if (g->kind == CS_GEN_STACK) return g->stack_rows;
    int64_t n = 0;
    if (cs_column_is_valid(c, i)) {
        const int32_t *o = cs_column_offsets(c);
        n = o[i + 1] - o[i];
    }
    return n == 0 && g->outer ? 1 : n;
}

static void ensure_out(gen_op *g, int64_t n)
{
    if (n <= g->out_cap) return;
    g->out_cap = n;
    free(g->row_of);
    free(g->elem_of);
    free(g->pos_of);
    g->row_of = cs_xmalloc(sizeof *g->row_of * (size_t)n);
    g->elem_of = cs_xmalloc(sizeof *g->elem_of * (size_t)n);
    g->pos_of = cs_xmalloc(sizeof *g->pos_of * (size_t)n);
}

static cs_column *pos_column(const gen_op *g, int64_t n, cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_INT));
    uint8_t *valid = NULL;
    for (int64_t i = 0; i < n && !valid; i++)
        if (g->pos_of[i] < 0) valid = cs_xmalloc((size_t)n);
    if (valid)
        for (int64_t i = 0; i < n; i++)
            valid[i] = g->pos_of[i] >= 0;
    cs_col_builder_append_values(b, g->pos_of, n, valid);
    free(valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* Column `one`'s rows idx[0..n) as a new column of `type`: when they are one run of rows (an
 * explode without null or empty rows, the usual case) one copy of the run (cs_sql_gather_runs:
 * a string column's bytes in one memcpy), else row by row. */
static cs_column *gather_elems(cs_col_type *type, cs_column *one, const int32_t *idx, int64_t n,
                               cs_col_allocator *al)
{
    bool run = n > 0 && idx[0] >= 0;
    for (int64_t k = 1; k < n && run; k++)
        run = idx[k] == idx[0] + k;
    if (!run) return cs_sql_gather(type, &one, NULL, idx, n, al);
    cs_sql_row_run r = {.batch = 0, .start = idx[0], .len = n};
    return cs_sql_gather_runs(type, &one, &r, 1, al);
}

/* The output rows of input rows [r0, r1) of g->in, `total` of them. */
static cs_col_batch *generate_rows(gen_op *g, int64_t r0, int64_t r1, int64_t total)
{
    cs_col_allocator *al = g->base.ctx->alloc;
    cs_col_batch *in = g->in;
    const cs_column *src = g->kind == CS_GEN_STACK ? NULL
                           : g->entries            ? g->entries
                                                   : in->columns[g->input];
    ensure_out(g, total > 0 ? total : 1);
    int64_t k = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t n = g->counts[i];
        int32_t first = 0;
        bool has = false;
        if (src && cs_column_is_valid(src, i)) {
            const int32_t *o = cs_column_offsets(src);
            first = o[i];
            has = o[i + 1] > o[i];
        }
        for (int64_t j = 0; j < n; j++, k++) {
            g->row_of[k] = (int32_t)i;
            bool real = g->kind == CS_GEN_STACK || has;
            g->elem_of[k] = real ? first + (int32_t)j : -1;
            g->pos_of[k] = real ? (int32_t)j : -1;
        }
    }
    int nc = g->base.schema->n_fields, nin = g->n_keep;
    cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
    for (int c = 0; c < nin; c++) {
        cs_column *one[1] = {in->columns[g->keep[c]]};
        cols[c] = cs_sql_gather(g->base.schema->fields[c].type, one, NULL, g->row_of, total, al);
    }
    int c = nin;
    if (g->kind == CS_GEN_POSEXPLODE) cols[c++] = pos_column(g, total, al);
    if (g->kind == CS_GEN_EXPLODE || g->kind == CS_GEN_POSEXPLODE) {
        for (int ch = 0; ch < src->n_children; ch++, c++)
            cols[c] = gather_elems(g->base.schema->fields[c].type, src->children[ch], g->elem_of,
                                   total, al);
    } else if (g->kind == CS_GEN_INLINE || g->kind == CS_GEN_VARIANT_EXPLODE) {
        cs_column *st = src->children[0];
        for (int64_t r = 0; r < total; r++) /* a null struct element: a row of nulls */
            if (g->elem_of[r] >= 0 && !cs_column_is_valid(st, g->elem_of[r])) g->elem_of[r] = -1;
        for (int f = 0; f < st->n_children; f++, c++) {
            cs_column *one[1] = {st->children[f]};
            cols[c] =
                cs_sql_gather(g->base.schema->fields[c].type, one, NULL, g->elem_of, total, al);
        }
    } else { /* stack: output column s of generated row j is argument j * cols + s */
        int32_t *bidx = cs_xmalloc(sizeof *bidx * (size_t)(total > 0 ? total : 1));
        int32_t *ridx = cs_xmalloc(sizeof *ridx * (size_t)(total > 0 ? total : 1));
        cs_column **srcs = cs_xcalloc((size_t)g->stack_rows, sizeof *srcs);
        for (int s = 0; s < g->stack_cols; s++, c++) {
            for (int64_t j = 0; j < g->stack_rows; j++) {
                int64_t a = j * g->stack_cols + s;
                srcs[j] = in->columns[g->args[a < g->n_args ? a : s]];
            }
            for (int64_t r = 0; r < total; r++) {
                int64_t j = g->pos_of[r];
                bidx[r] = (int32_t)j;
                ridx[r] = j * g->stack_cols + s < g->n_args ? g->row_of[r] : -1;
            }
            cols[c] = cs_sql_gather(g->base.schema->fields[c].type, srcs, bidx, ridx, total, al);
        }
        free(srcs);
        free(bidx);
        free(ridx);
    }
    cs_col_batch *out = cs_col_batch_new(cs_col_type_ref(g->base.schema), cols, nc, total, NULL);
    free(cols);
    return out;
}

static int gen_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    return cs_sql_op_open(op->children[0], ctx, err);
}

static int gen_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    gen_op *g = (gen_op *)op;
    int64_t chunk = cs_sql_batch_rows(op->ctx);
    for (;;) {
        if (!g->in) {
            cs_col_batch *b;
            int rc = cs_sql_op_next(op->children[0], &b, err);
            if (rc != CS_OK || !b) return rc;
            if (b->num_rows == 0) {
                cs_col_batch_unref(b);
                continue;
            }
            g->in = b;
            g->at = 0;
            if (b->num_rows > g->counts_cap) {
                g->counts_cap = b->num_rows;
                free(g->counts);
                g->counts = cs_xmalloc(sizeof *g->counts * (size_t)g->counts_cap);
            }
            const cs_column *src = g->kind == CS_GEN_STACK ? NULL : b->columns[g->input];
            if (g->kind == CS_GEN_VARIANT_EXPLODE) {
                g->entries = cs_sql_variant_entries(src, b->num_rows, op->ctx->alloc, err);
                if (!g->entries) return err->code;
                src = g->entries;
            }
            for (int64_t i = 0; i < b->num_rows; i++)
                g->counts[i] = rows_of(g, src, i);
        }
        int64_t r0 = g->at, r1 = r0, total = 0;
        while (r1 < g->in->num_rows && (r1 == r0 || total + g->counts[r1] <= chunk))
            total += g->counts[r1++];
        g->at = r1;
        cs_col_batch *b = NULL;
        if (total > 0) b = generate_rows(g, r0, r1, total);
        if (r1 >= g->in->num_rows) {
            cs_col_batch_unref(g->in);
            g->in = NULL;
            cs_column_unref(g->entries);
            g->entries = NULL;
        }
        if (b) {
            *out = b;
            return CS_OK;
        }
    }
}

static void gen_close(cs_sql_op *op)
{
    gen_op *g = (gen_op *)op;
    cs_col_batch_unref(g->in);
    g->in = NULL;
    cs_column_unref(g->entries);
    g->entries = NULL;
    cs_sql_op_close(op->children[0]);
}

static void gen_destroy(cs_sql_op *op)
{
    gen_op *g = (gen_op *)op;
    free(g->args);
    free(g->keep);
    free(g->counts);
    free(g->row_of);
    free(g->elem_of);
    free(g->pos_of);
    free(g);
}

static const char *const gen_names[] = {"explode", "posexplode", "inline", "stack",
                                        "variant_explode"};

static void gen_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const gen_op *g = (const gen_op *)op;
    const cs_col_type *in = op->children[0]->schema;
    cs_sbuf_printf(out, "%s(", gen_names[g->kind]);
    if (g->kind == CS_GEN_STACK) {
        cs_sbuf_printf(out, "%lld", (long long)g->stack_rows);
        for (int a = 0; a < g->n_args; a++)
            cs_sbuf_printf(out, ", %s", in->fields[g->args[a]].name);
    } else {
        cs_sbuf_puts(out, in->fields[g->input].name);
    }
    cs_sbuf_printf(out, "), [%s]", g->outer ? "true" : "false");
}

static const cs_sql_op_vtable gen_vt = {
    .name = "Generate",
    .open = gen_open,
    .next = gen_next,
    .close = gen_close,
    .destroy = gen_destroy,
    .explain_args = gen_explain,
};

static void add_field(cs_col_field *f, int *n, const char *name, const cs_col_type *t,
                      bool nullable)
{
    f[*n].name = (char *)name;
    f[*n].type = cs_col_type_ref((cs_col_type *)t);
    f[*n].nullable = nullable;
    (*n)++;
}

cs_sql_op *cs_sql_op_generate(cs_sql_op *child, cs_generator_kind kind, int input, const int *args,
                              int n_args, int64_t stack_rows, bool outer, cs_error *err)
{
    return cs_sql_op_generate_kept(child, kind, input, args, n_args, stack_rows, outer, NULL, -1,
                                   err);
}

cs_sql_op *cs_sql_op_generate_kept(cs_sql_op *child, cs_generator_kind kind, int input,
                                   const int *args, int n_args, int64_t stack_rows, bool outer,
                                   const int *keep, int n_keep, cs_error *err)
{
    const cs_col_type *in = child->schema;
    int rc = CS_OK;
    for (int i = 0; keep && i < n_keep && rc == CS_OK; i++)
        if (keep[i] < 0 || keep[i] >= in->n_fields)
            rc = cs_error_set(err, CS_EINVAL,
                              "Generate: kept column %d's ordinal %d is not a column of its input "
                              "(%d columns)",
                              i, keep[i], in->n_fields);
    const cs_col_type *gt = NULL;
    if (kind == CS_GEN_STACK) {
        if (stack_rows < 1 || n_args < 1)
            rc = cs_error_set(err, CS_EINVAL,
                              "Generate: stack needs n >= 1 rows and at least one value, got "
                              "n = %lld and %d values",
                              (long long)stack_rows, n_args);
        for (int a = 0; a < n_args && rc == CS_OK; a++)
            if (args[a] < 0 || args[a] >= in->n_fields)
                rc = cs_error_set(err, CS_EINVAL,
                                  "Generate: stack argument %d's ordinal %d is not a column of "
                                  "its input (%d columns)",
                                  a, args[a], in->n_fields);
        int cols = rc == CS_OK ? (int)((n_args + stack_rows - 1) / stack_rows) : 0;
        for (int a = cols; a < n_args && rc == CS_OK; a++)
            if (!cs_col_type_equal(in->fields[args[a]].type, in->fields[args[a % cols]].type))
                rc = cs_error_set(err, CS_EINVAL,
                                  "Generate: stack argument %d (%s) has not the type of column "
                                  "col%d",
                                  a, in->fields[args[a]].name, a % cols);
    } else if (input < 0 || input >= in->n_fields) {
        rc = cs_error_set(err, CS_EINVAL,
                          "Generate: the generated column's ordinal %d is not a column of its "
                          "input (%d columns)",
                          input, in->n_fields);
    } else {
        gt = in->fields[input].type;
        bool ok = kind == CS_GEN_VARIANT_EXPLODE ? cs_col_type_is_variant(gt)
                  : kind == CS_GEN_INLINE
                      ? gt->id == CS_TYPE_ARRAY && gt->fields[0].type->id == CS_TYPE_STRUCT
                      : gt->id == CS_TYPE_ARRAY || gt->id == CS_TYPE_MAP;
        if (!ok)
            rc = cs_error_set(err, CS_EINVAL, "Generate: %s takes %s, not column %s",
                              gen_names[kind],
                              kind == CS_GEN_VARIANT_EXPLODE ? "a variant"
                              : kind == CS_GEN_INLINE        ? "an array of structs"
                                                             : "an array or a map",
                              in->fields[input].name);
    }
    if (rc != CS_OK) {
        cs_sql_op_free(child);
        return NULL;
    }
    gen_op *g = cs_xcalloc(1, sizeof *g);
    g->kind = kind;
    g->input = input;
    g->outer = outer;
    g->stack_rows = stack_rows;
    g->n_args = kind == CS_GEN_STACK ? n_args : 0;
    g->args = cs_xcalloc((size_t)(g->n_args > 0 ? g->n_args : 1), sizeof *g->args);
    if (g->n_args) memcpy(g->args, args, sizeof *args * (size_t)n_args);
    g->stack_cols = kind == CS_GEN_STACK ? (int)((n_args + stack_rows - 1) / stack_rows) : 0;
    g->n_keep = keep ? n_keep : in->n_fields;
    g->keep = cs_xcalloc((size_t)(g->n_keep + 1), sizeof *g->keep);
    for (int i = 0; i < g->n_keep; i++)
        g->keep[i] = keep ? keep[i] : i;
    cs_col_type *entries = kind == CS_GEN_VARIANT_EXPLODE ? cs_sql_variant_entries_type() : NULL;
    if (entries) gt = entries;
    int n_gen = kind == CS_GEN_STACK ? g->stack_cols
                : kind == CS_GEN_INLINE || entries
                    ? gt->fields[0].type->n_fields
                    : (gt->id == CS_TYPE_MAP ? 2 : 1) + (kind == CS_GEN_POSEXPLODE);
    cs_col_field *f = cs_xcalloc((size_t)(g->n_keep + n_gen), sizeof *f);
    int n = 0;
    for (int i = 0; i < g->n_keep; i++) {
        const cs_col_field *kf = &in->fields[g->keep[i]];
        add_field(f, &n, kf->name, kf->type, kf->nullable);
    }
    char **names = NULL;
    if (kind == CS_GEN_STACK) {
        names = cs_xcalloc((size_t)g->stack_cols, sizeof *names);
        for (int s = 0; s < g->stack_cols; s++) {
            names[s] = cs_xmalloc(16);
            snprintf(names[s], 16, "col%d", s);
            add_field(f, &n, names[s], in->fields[args[s]].type, true);
        }
    } else if (kind == CS_GEN_INLINE) {
        const cs_col_type *st = gt->fields[0].type;
        for (int s = 0; s < st->n_fields; s++)
            add_field(f, &n, st->fields[s].name, st->fields[s].type, true);
    } else if (entries) { /* Spark's VariantExplode: pos and value never null but for OUTER */
        const cs_col_type *st = gt->fields[0].type;
        for (int s = 0; s < st->n_fields; s++)
            add_field(f, &n, st->fields[s].name, st->fields[s].type, outer || s == 1);
    } else {
        if (kind == CS_GEN_POSEXPLODE)
            add_field(f, &n, "pos", cs_col_type_primitive(CS_TYPE_INT), outer);
        if (gt->id == CS_TYPE_MAP) {
            add_field(f, &n, "key", gt->fields[0].type, outer);
            add_field(f, &n, "value", gt->fields[1].type, outer || gt->fields[1].nullable);
        } else {
            add_field(f, &n, "col", gt->fields[0].type, outer || gt->fields[0].nullable);
        }
    }
    cs_col_type *schema = cs_col_type_struct(f, n);
    free(f);
    cs_col_type_unref(entries);
    for (int s = 0; names && s < g->stack_cols; s++)
        free(names[s]);
    free(names);
    cs_sql_op_init(&g->base, &gen_vt, schema, &child, 1);
    return &g->base;
}
