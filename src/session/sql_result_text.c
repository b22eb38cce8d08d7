/*
 * sql_result_text.c — a result's rows as text (sql_result_text.h): the texts of a column's
 * rows are made a column at a time (a nested column from its children's texts, a leaf column
 * through the engine's CAST(... AS STRING) kernel), then joined into lines in the asked form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/sql_result_text.h"
#include "sqlexec/pexpr.h"

/* The texts of the n rows of one column: row i is buf[off[i]..off[i+1]), or null. */
typedef struct texts {
    cs_sbuf buf;
    size_t *off;
    bool *null;
    int64_t n;
} texts;

static void texts_init(texts *t, int64_t n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->off = cs_xcalloc((size_t)n + 1, sizeof *t->off);
    t->null = cs_xcalloc((size_t)n + 1, sizeof *t->null);
}

static void texts_free(texts *t)
{
    cs_sbuf_free(&t->buf);
    free(t->off);
    free(t->null);
}

/* Ends row i (its text is what was appended since the previous row ended). */
static void row_done(texts *t, int64_t i, bool is_null)
{
    t->null[i] = is_null;
    t->off[i + 1] = t->buf.len;
}

static void put_text(cs_sbuf *out, const texts *t, int64_t i)
{
    cs_sbuf_append(out, t->buf.data + t->off[i], t->off[i + 1] - t->off[i]);
}

/* Nested values: a null is "null"; strings in HIVE form are in double quotes. */
static void put_nested(cs_sbuf *out, const texts *t, int64_t i, bool quote)
{
    if (t->null[i]) {
        cs_sbuf_puts(out, "null");
        return;
    }
    if (quote) cs_sbuf_putc(out, '"');
    put_text(out, t, i);
    if (quote) cs_sbuf_putc(out, '"');
}

static bool is_stringish(const cs_col_type *t)
{
    return t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY;
}

/* The engine's CAST(c AS STRING) of every row of c (json: to_json(c), a variant's JSON text). */
static int kernel_texts(const cs_column *c, const char *tz, bool json, texts *t, cs_error *err)
{
    cs_col_field f = {"v", cs_col_type_ref(c->type), true};
    cs_col_type *schema = cs_col_type_struct(&f, 1);
    cs_pexpr *arg = cs_pexpr_column(0, cs_col_type_ref(c->type), true);
    cs_pexpr *e =
        json ? cs_pexpr_call("to_json", cs_col_type_primitive(CS_TYPE_STRING), true, &arg, 1)
             : cs_pexpr_cast(arg, cs_col_type_primitive(CS_TYPE_STRING), CS_CAST_ANSI);
    cs_pexpr_program *p = cs_pexpr_compile(e, schema, err);
    cs_pexpr_free(e);
    if (!p) {
        cs_col_type_unref(schema);
        return err->code ? err->code : CS_EUNSUPPORTED;
    }
    cs_column *cols[1] = {cs_column_ref((cs_column *)c)};
    cs_col_batch *b = cs_col_batch_new(schema, cols, 1, c->length, err);
    cs_column *s = NULL;
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = tz};
    int rc = b ? cs_pexpr_eval(p, b, &ctx, &s, err) : err->code;
    cs_pexpr_program_free(p);
    if (b) cs_col_batch_unref(b);
    if (rc < 0) return rc;
    for (int64_t i = 0; i < c->length; i++) {
        bool valid = cs_column_is_valid(c, i) && cs_column_is_valid(s, i);
        if (valid) {
            int32_t len;
            const uint8_t *p8 = cs_column_bytes(s, i, &len);
            cs_sbuf_append(&t->buf, p8, (size_t)len);
        }
        row_done(t, i, !valid);
    }
    cs_column_unref(s);
    return 0;
}

static int column_texts(const cs_column *c, bool hive, const char *tz, texts *t, cs_error *err);

static int child_texts(const cs_column *c, int k, bool hive, const char *tz, texts *t,
                       cs_error *err)
{
    texts_init(t, c->children[k]->length);
    /* a variant inside a value prints as its JSON text (VariantVal.toString) */
    int rc = cs_col_type_is_variant(c->children[k]->type)
                 ? kernel_texts(c->children[k], tz, true, t, err)
                 : column_texts(c->children[k], hive, tz, t, err);
    if (rc < 0) texts_free(t);
    return rc;
}

static int list_texts(const cs_column *c, bool hive, const char *tz, texts *t, cs_error *err)
{
    bool map = c->type->id == CS_TYPE_MAP;
    texts k, v;
    if (child_texts(c, 0, hive, tz, &k, err) < 0) return err->code;
    if (map && child_texts(c, 1, hive, tz, &v, err) < 0) {
        texts_free(&k);
        return err->code;
    }
    const int32_t *off = cs_column_offsets(c);
    bool qk = hive && is_stringish(c->type->fields[0].type);
    bool qv = map && hive && is_stringish(c->type->fields[1].type);
    for (int64_t i = 0; i < c->length; i++) {
        if (!cs_column_is_valid(c, i)) {
            row_done(t, i, true);
            continue;
        }
        cs_sbuf_putc(&t->buf, map ? '{' : '[');
        for (int32_t e = off[i]; e < off[i + 1]; e++) {
            if (e > off[i]) cs_sbuf_puts(&t->buf, hive ? "," : ", ");
            put_nested(&t->buf, &k, e, qk);
            if (map) {
                cs_sbuf_puts(&t->buf, hive ? ":" : " -> ");
                put_nested(&t->buf, &v, e, qv);
            }
        }
        cs_sbuf_putc(&t->buf, map ? '}' : ']');
        row_done(t, i, false);
    }
    texts_free(&k);
    if (map) texts_free(&v);
    return 0;
}

static int struct_texts(const cs_column *c, bool hive, const char *tz, texts *t, cs_error *err)
{
    int nf = c->n_children;
    texts *f = cs_xcalloc((size_t)nf + 1, sizeof *f);
    int rc = 0, made = 0;
    for (; made < nf && rc == 0; made++)
        rc = child_texts(c, made, hive, tz, &f[made], err);
    if (rc < 0) made--; /* the failed one freed itself */
    for (int64_t i = 0; rc == 0 && i < c->length; i++) {
        if (!cs_column_is_valid(c, i)) {
            row_done(t, i, true);
            continue;
        }
        cs_sbuf_putc(&t->buf, '{');
        for (int k = 0; k < nf; k++) {
            if (k) cs_sbuf_puts(&t->buf, hive ? "," : ", ");
            if (hive) cs_sbuf_printf(&t->buf, "\"%s\":", c->type->fields[k].name);
            put_nested(&t->buf, &f[k], i, hive && is_stringish(c->type->fields[k].type));
        }
        cs_sbuf_putc(&t->buf, '}');
        row_done(t, i, false);
    }
    for (int k = 0; k < made; k++)
        texts_free(&f[k]);
    free(f);
    return rc;
}

/* Every row's text: strings as they are (quoting is the caller's), nested values as HIVE or
 * CAST shows them, the rest through the cast kernel. */
static int column_texts(const cs_column *c, bool hive, const char *tz, texts *t, cs_error *err)
{
    switch (c->type->id) {
    case CS_TYPE_NULL:
        for (int64_t i = 0; i < c->length; i++)
            row_done(t, i, true);
        return 0;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        for (int64_t i = 0; i < c->length; i++) {
            bool valid = cs_column_is_valid(c, i);
            if (valid) {
                int32_t len;
                const uint8_t *p = cs_column_bytes(c, i, &len);
                cs_sbuf_append(&t->buf, p, (size_t)len);
            }
            row_done(t, i, !valid);
        }
        return 0;
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP:
        return list_texts(c, hive, tz, t, err);
    case CS_TYPE_STRUCT:
        if (c->type->variant) return kernel_texts(c, tz, hive, t, err);
        return struct_texts(c, hive, tz, t, err);
    default:
        return kernel_texts(c, tz, false, t, err);
    }
}

/* ---- the golden form ------------------------------------------------------------------------ */

static void put_escaped(cs_sbuf *b, const char *s, size_t n, bool quoted)
{
    if (quoted) cs_sbuf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '\\':
            cs_sbuf_puts(b, "\\\\");
            break;
        case '\n':
            cs_sbuf_puts(b, "\\n");
            break;
        case '\t':
            cs_sbuf_puts(b, "\\t");
            break;
        case '\r':
            cs_sbuf_puts(b, "\\r");
            break;
        case '"':
            cs_sbuf_puts(b, quoted ? "\\\"" : "\"");
            break;
        default:
            if (quoted && (ch < 0x20 || ch == 0x7f))
                cs_sbuf_printf(b, "\\u%04X", ch);
            else
                cs_sbuf_putc(b, (char)ch);
        }
    }
    if (quoted) cs_sbuf_putc(b, '"');
}

static void put_golden_value(cs_sbuf *out, const cs_column *c, const texts *t, int64_t i)
{
    if (t->null[i]) {
        cs_sbuf_puts(out, "NULL");
        return;
    }
    const char *s = t->buf.data + t->off[i];
    size_t n = t->off[i + 1] - t->off[i];
    if (c->type->id == CS_TYPE_BINARY) {
        cs_sbuf_puts(out, "X'");
        for (size_t k = 0; k < n; k++)
            cs_sbuf_printf(out, "%02X", (unsigned char)s[k]);
        cs_sbuf_putc(out, '\'');
        return;
    }
    put_escaped(out, s, n, c->type->id == CS_TYPE_STRING);
}

static void golden_schema(const cs_col_type *schema, cs_sbuf *out)
{
    cs_sbuf s = CS_SBUF_INIT, t = CS_SBUF_INIT;
    cs_sbuf_puts(&s, "struct<");
    for (int i = 0; i < schema->n_fields; i++) {
        if (i) cs_sbuf_putc(&s, ',');
        cs_sbuf u = CS_SBUF_INIT;
        cs_sbuf_puts(&u, schema->fields[i].name);
        cs_sbuf_putc(&u, ':');
        cs_col_type_simple_string(schema->fields[i].type, &u);
        put_escaped(&s, u.data ? u.data : "", u.len, false);
        cs_sbuf_free(&u);
        cs_sbuf_putc(&t, i ? '\t' : ' ');
        cs_col_type_simple_string(schema->fields[i].type, &t);
    }
    cs_sbuf_putc(&s, '>');
    cs_sbuf_printf(out, "-- schema\n%s\n-- types%s\n", cs_sbuf_str(&s),
                   t.len ? cs_sbuf_str(&t) : "");
    cs_sbuf_free(&s);
    cs_sbuf_free(&t);
}

/* ---- lines ---------------------------------------------------------------------------------- */

/* Columns of one batch as texts (n_columns entries, freed by the caller). */
static int batch_texts(const cs_col_batch *b, bool hive, const char *tz, texts *t, cs_error *err)
{
    for (int c = 0; c < b->n_columns; c++) {
        texts_init(&t[c], b->num_rows);
        if (column_texts(b->columns[c], hive, tz, &t[c], err) < 0) {
            for (int k = 0; k <= c; k++)
                texts_free(&t[k]);
            return err->code ? err->code : CS_EINVAL;
        }
    }
    return 0;
}

/* The number of characters of UTF-8 text (continuation bytes not counted). */
static size_t width_of(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static void put_cell(cs_sbuf *out, const char *s, size_t n, size_t width)
{
    for (size_t k = width_of(s, n); k < width; k++)
        cs_sbuf_putc(out, ' ');
    cs_sbuf_append(out, s, n);
}

static void put_rule(cs_sbuf *out, const size_t *w, int nc)
{
    for (int c = 0; c < nc; c++) {
        cs_sbuf_putc(out, '+');
        for (size_t k = 0; k < w[c]; k++)
            cs_sbuf_putc(out, '-');
    }
    cs_sbuf_puts(out, "+\n");
}

/* Dataset.show's box: right-aligned cells, the header between rules. */
static int table_text(const cs_sql_result *r, const char *tz, cs_sbuf *out, cs_error *err)
{
    int nc = r->schema->n_fields;
    if (nc == 0) return 0;
    texts **all = cs_xcalloc((size_t)r->n_batches + 1, sizeof *all);
    size_t *w = cs_xcalloc((size_t)nc, sizeof *w);
    int rc = 0, made = 0;
    for (int c = 0; c < nc; c++)
        w[c] = width_of(r->schema->fields[c].name, strlen(r->schema->fields[c].name));
    for (; made < r->n_batches; made++) {
        all[made] = cs_xcalloc((size_t)nc, sizeof **all);
        if ((rc = batch_texts(r->batches[made], true, tz, all[made], err)) < 0) {
            free(all[made]);
            break;
        }
        for (int c = 0; c < nc; c++)
            for (int64_t i = 0; i < r->batches[made]->num_rows; i++) {
                const texts *t = &all[made][c];
                size_t n =
                    t->null[i] ? 4 : width_of(t->buf.data + t->off[i], t->off[i + 1] - t->off[i]);
                if (n > w[c]) w[c] = n;
            }
    }
    if (rc == 0) {
        put_rule(out, w, nc);
        for (int c = 0; c < nc; c++) {
            cs_sbuf_putc(out, '|');
            put_cell(out, r->schema->fields[c].name, strlen(r->schema->fields[c].name), w[c]);
        }
        cs_sbuf_puts(out, "|\n");
        put_rule(out, w, nc);
        for (int b = 0; b < r->n_batches; b++)
            for (int64_t i = 0; i < r->batches[b]->num_rows; i++) {
                for (int c = 0; c < nc; c++) {
                    const texts *t = &all[b][c];
                    cs_sbuf_putc(out, '|');
                    if (t->null[i])
                        put_cell(out, "NULL", 4, w[c]);
                    else
                        put_cell(out, t->buf.data + t->off[i], t->off[i + 1] - t->off[i], w[c]);
                }
                cs_sbuf_puts(out, "|\n");
            }
        put_rule(out, w, nc);
    }
    for (int b = 0; b < made; b++) {
        for (int c = 0; c < nc; c++)
            texts_free(&all[b][c]);
        free(all[b]);
    }
    free(all);
    free(w);
    return rc;
}

int cs_sql_result_text(const cs_sql_result *r, cs_sql_text_form form, bool header, const char *tz,
                       cs_sbuf *out, cs_error *err)
{
    if (form == CS_SQL_TEXT_TABLE) return table_text(r, tz, out, err);
    cs_sbuf body = CS_SBUF_INIT;
    int nc = r->schema->n_fields, rc = 0;
    bool golden = form == CS_SQL_TEXT_GOLDEN;
    if (golden) {
        golden_schema(r->schema, &body);
        cs_sbuf_printf(&body, "-- rows %lld %s\n", (long long)r->num_rows,
                       r->ordered ? "ordered" : "sorted");
    } else if (header && nc) {
        for (int c = 0; c < nc; c++) {
            if (c) cs_sbuf_putc(&body, '\t');
            cs_sbuf_puts(&body, r->schema->fields[c].name);
        }
        cs_sbuf_putc(&body, '\n');
    }
    texts *t = cs_xcalloc((size_t)nc + 1, sizeof *t);
    for (int b = 0; b < r->n_batches && rc == 0; b++) {
        const cs_col_batch *batch = r->batches[b];
        if ((rc = batch_texts(batch, !golden, tz, t, err)) < 0) break;
        for (int64_t i = 0; i < batch->num_rows; i++) {
            for (int c = 0; c < nc; c++) {
                if (c) cs_sbuf_putc(&body, '\t');
                if (golden)
                    put_golden_value(&body, batch->columns[c], &t[c], i);
                else if (t[c].null[i])
                    cs_sbuf_puts(&body, "NULL");
                else
                    put_text(&body, &t[c], i);
            }
            cs_sbuf_putc(&body, '\n');
        }
        for (int c = 0; c < nc; c++)
            texts_free(&t[c]);
    }
    free(t);
    if (rc == 0 && body.len) cs_sbuf_append(out, body.data, body.len);
    cs_sbuf_free(&body);
    return rc;
}

/* ---- errors --------------------------------------------------------------------------------- */

static size_t first_line_len(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? (size_t)(nl - s) : strlen(s);
}

void cs_sql_error_golden(const cs_error *e, cs_sbuf *out)
{
    bool classed = e->error_class[0] != 0;
    cs_sbuf_printf(out, "-- error\n[%s] %s\nmessage: ", classed ? e->error_class : "INTERNAL_ERROR",
                   classed ? e->sql_state : "XX000");
    if (!classed) cs_sbuf_puts(out, "[INTERNAL_ERROR] ");
    cs_sbuf_append(out, e->msg, first_line_len(e->msg));
    cs_sbuf_putc(out, '\n');
}

void cs_sql_error_line(const cs_error *e, cs_sbuf *out)
{
    if (!e->error_class[0] || e->msg[0] != '[')
        cs_sbuf_printf(out, "[%s] ", e->error_class[0] ? e->error_class : "INTERNAL_ERROR");
    cs_sbuf_append(out, e->msg, first_line_len(e->msg));
}
