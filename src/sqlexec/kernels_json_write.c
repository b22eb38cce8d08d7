/*
 * kernels_json_write.c — to_json(struct | array | map) as Spark's StructsToJson writes it through
 * Jackson: compact JSON, struct fields in order with null fields left out, array elements and
 * map values null as `null`, variants as their JSON text, map keys as their string casts, numbers
 * and booleans as their string casts (Java's Double.toString digits, decimals as plain text),
 * strings and dates quoted, timestamps as yyyy-MM-dd'T'HH:mm:ss.SSSXXX in the session time zone.
 * The text is written here rather than by jansson because Spark's numbers follow Java's formatting,
 * which jansson's reals do not. Every leaf column is cast to string once per batch (the cast
 * kernels); rows are then written into one reused buffer. Called through
 * cs_px_json_write_lookup (kernels_json.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference; the writer tree holds
 * its text columns until the batch is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

typedef struct jnode {
    const cs_column *col; /* borrowed */
    cs_column *text;      /* leaves: the string cast of col (owned) */
    int n_children;
    struct jnode *children;
} jnode;

static void jnode_free(jnode *n)
{
    for (int i = 0; i < n->n_children; i++)
        jnode_free(&n->children[i]);
    free(n->children);
    if (n->text) cs_column_unref(n->text);
}

static bool is_nested(cs_type_id id)
{
    return id == CS_TYPE_STRUCT || id == CS_TYPE_ARRAY || id == CS_TYPE_MAP;
}

/* the tree over col: children for nested types, string casts for leaves */
static int jnode_init(const cs_px_kctx *k, jnode *n, const cs_column *col)
{
    memset(n, 0, sizeof *n);
    n->col = col;
    cs_type_id id = col->type->id;
    if (cs_col_type_is_variant(col->type)) { /* a variant writes its own JSON text */
        cs_px_kctx ck = *k;
        ck.n = col->length;
        cs_column *arg = (cs_column *)col;
        return cs_px_variant_to_json(&ck, &arg, 1, &n->text);
    }
    if (is_nested(id)) {
        n->n_children = col->n_children;
        n->children =
            cs_xcalloc((size_t)(col->n_children ? col->n_children : 1), sizeof *n->children);
        for (int i = 0; i < col->n_children; i++) {
            int rc = jnode_init(k, &n->children[i], col->children[i]);
            if (rc) return rc;
        }
        return CS_OK;
    }
    if (id == CS_TYPE_TIMESTAMP || id == CS_TYPE_TIMESTAMP_NTZ || id == CS_TYPE_NULL)
        return CS_OK; /* written from the values */
    if (id == CS_TYPE_STRING) {
        n->text = cs_column_ref((cs_column *)col);
        return CS_OK;
    }
    const cs_col_type *st = cs_col_type_primitive(CS_TYPE_STRING);
    cs_px_kernel cast = cs_px_cast_lookup(col->type, st);
    if (!cast)
        return cs_sql_error_set(k->err, CS_EUNSUPPORTED, "INTERNAL_ERROR", "XX000",
                                "to_json cannot write a value of this type");
    cs_pexpr node = *k->e;
    node.type = (cs_col_type *)st;
    node.cast_mode = CS_CAST_ANSI;
    cs_px_kctx ck = *k;
    ck.e = &node;
    ck.n = col->length;
    cs_column *arg = (cs_column *)col;
    return cast(&ck, &arg, 1, &n->text);
}

/* s as a JSON string, with Jackson's escapes */
static void put_quoted(cs_sbuf *sb, const uint8_t *s, int32_t len)
{
    cs_sbuf_putc(sb, '"');
    for (int32_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        switch (c) {
        case '"':
            cs_sbuf_puts(sb, "\\\"");
            break;
        case '\\':
            cs_sbuf_puts(sb, "\\\\");
            break;
        case '\n':
            cs_sbuf_puts(sb, "\\n");
            break;
        case '\r':
            cs_sbuf_puts(sb, "\\r");
            break;
        case '\t':
            cs_sbuf_puts(sb, "\\t");
            break;
        case '\b':
            cs_sbuf_puts(sb, "\\b");
            break;
        case '\f':
            cs_sbuf_puts(sb, "\\f");
            break;
        default:
            if (c < 0x20)
                cs_sbuf_printf(sb, "\\u%04X", c);
            else
                cs_sbuf_putc(sb, (char)c);
        }
    }
    cs_sbuf_putc(sb, '"');
}

static void put_timestamp(const cs_px_kctx *k, const jnode *n, int64_t i, cs_sbuf *sb)
{
    int64_t us = ((const int64_t *)(const void *)n->col->values)[i];
    int32_t off = 0;
    if (n->col->type->id == CS_TYPE_TIMESTAMP) {
        const cs_px_zone *z = cs_px_session_zone(k);
        int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
        if (z) off = cs_px_zone_offset(z, secs);
    }
    int64_t local = us + (int64_t)off * 1000000;
    int64_t days = local >= 0 ? local / 86400000000LL : -((-local + 86399999999LL) / 86400000000LL);
    int64_t in_day = local - days * 86400000000LL;
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    cs_sbuf_printf(sb, "\"%04lld-%02d-%02dT%02d:%02d:%02d.%03d", (long long)y, m, d,
                   (int)(in_day / 3600000000LL), (int)(in_day / 60000000 % 60),
                   (int)(in_day / 1000000 % 60), (int)(in_day / 1000 % 1000));
    if (n->col->type->id == CS_TYPE_TIMESTAMP) {
        if (off == 0) {
            cs_sbuf_putc(sb, 'Z');
        } else {
            int a = off < 0 ? -off : off;
            cs_sbuf_printf(sb, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
            if (a % 60) cs_sbuf_printf(sb, ":%02d", a % 60);
        }
    }
    cs_sbuf_putc(sb, '"');
}

static void put_value(const cs_px_kctx *k, const jnode *n, int64_t i, cs_sbuf *sb)
{
    const cs_column *c = n->col;
    if (!cs_column_is_valid(c, i)) {
        cs_sbuf_puts(sb, "null");
        return;
    }
    cs_type_id id = c->type->id;
    if (id == CS_TYPE_STRUCT && !c->type->variant) {
        cs_sbuf_putc(sb, '{');
        bool first = true;
        for (int f = 0; f < n->n_children; f++) {
            if (!cs_column_is_valid(n->children[f].col, i)) continue; /* ignoreNullFields */
            if (!first) cs_sbuf_putc(sb, ',');
            first = false;
            const char *name = c->type->fields[f].name;
            put_quoted(sb, (const uint8_t *)name, (int32_t)strlen(name));
            cs_sbuf_putc(sb, ':');
            put_value(k, &n->children[f], i, sb);
        }
        cs_sbuf_putc(sb, '}');
        return;
    }
    if (id == CS_TYPE_ARRAY || id == CS_TYPE_MAP) {
        const int32_t *off = cs_column_offsets(c);
        cs_sbuf_putc(sb, id == CS_TYPE_MAP ? '{' : '[');
        for (int32_t e = off[i]; e < off[i + 1]; e++) {
            if (e > off[i]) cs_sbuf_putc(sb, ',');
            if (id == CS_TYPE_MAP) {
                int32_t len;
                const uint8_t *p = cs_column_bytes(n->children[0].text, e, &len);
                put_quoted(sb, p, len);
                cs_sbuf_putc(sb, ':');
                put_value(k, &n->children[1], e, sb);
            } else {
                put_value(k, &n->children[0], e, sb);
            }
        }
        cs_sbuf_putc(sb, id == CS_TYPE_MAP ? '}' : ']');
        return;
    }
    if (id == CS_TYPE_TIMESTAMP || id == CS_TYPE_TIMESTAMP_NTZ) {
        put_timestamp(k, n, i, sb);
        return;
    }
    int32_t len;
    const uint8_t *p = cs_column_bytes(n->text, i, &len);
    if (id == CS_TYPE_STRING || id == CS_TYPE_DATE || id == CS_TYPE_BINARY ||
        id == CS_TYPE_INTERVAL_YM || id == CS_TYPE_INTERVAL_DT)
        put_quoted(sb, p, len);
    else
        cs_sbuf_append(sb, p, (size_t)len);
}

static int to_json_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    jnode root;
    int rc = jnode_init(k, &root, a[0]);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; rc == CS_OK && i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        sb.len = 0;
        put_value(k, &root, i * s, &sb);
        cs_col_builder_append_string(b, sb.data, sb.len);
    }
    cs_sbuf_free(&sb);
    jnode_free(&root);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_json_write_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result)
{
    (void)result;
    if (strcmp(fn, "to_json") == 0 && n >= 1 && is_nested(t[0]->id)) return to_json_kernel;
    return NULL;
}
