/*
 * variant_schema.c — Spark's SchemaOfVariant over the variant encoding (variant_codec.h): the
 * schema of a value as a small tree, Spark's SchemaOfVariant.mergeSchema of two schemas (the
 * array elements of one value, the values of schema_of_variant_agg), its text, and the schema's
 * byte form that schema_of_variant_agg keeps as its buffer (agg_variant.c):
 *
 *   kind      one byte, a cs_vt (CS_VT_BAD standing for VARIANT); no bytes at all is VOID
 *   decimal   then precision and scale, a byte each
 *   array     then the element's schema
 *   object    then the field count and per field (sorted by name) the name's length (both
 *             little-endian uint32), the name's bytes and the field's schema
 *
 * Decoding checks every length against the end of the bytes (a buffer from another task is
 * read so). Trees are malloc'd here and freed before each call returns.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "sqlexec/variant_codec.h"

/* A schema as a small tree: the kind (a cs_vt, CS_VT_BAD standing for VARIANT), a decimal's
 * precision and scale, an object's fields (sorted by name) or an array's element. */
typedef struct vschema {
    cs_vt kind;
    int precision, scale;
    size_t n;
    char **names;
    size_t *name_lens;
    struct vschema **kids;
} vschema;

static vschema *vs_new(cs_vt kind)
{
    vschema *s = cs_xcalloc(1, sizeof *s);
    s->kind = kind;
    return s;
}

static void vs_free(vschema *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->names) free(s->names[i]);
        vs_free(s->kids[i]);
    }
    free(s->names);
    free(s->name_lens);
    free(s->kids);
    free(s);
}

static bool vs_equal(const vschema *a, const vschema *b)
{
    if (a->kind != b->kind || a->n != b->n) return false;
    if (a->kind == CS_VT_DECIMAL && (a->precision != b->precision || a->scale != b->scale))
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->names && (a->name_lens[i] != b->name_lens[i] ||
                         memcmp(a->names[i], b->names[i], a->name_lens[i]) != 0))
            return false;
        if (!vs_equal(a->kids[i], b->kids[i])) return false;
    }
    return true;
}

static void vs_as_decimal(const vschema *s, int *p, int *sc)
{
    *p = s->kind == CS_VT_LONG ? 20 : s->precision;
    *sc = s->kind == CS_VT_LONG ? 0 : s->scale;
}

/* Spark's SchemaOfVariant.mergeSchema; takes over both. */
static vschema *vs_merge(vschema *a, vschema *b)
{
    if (a->kind == CS_VT_NULL) {
        vs_free(a);
        return b;
    }
    if (b->kind == CS_VT_NULL || vs_equal(a, b)) {
        vs_free(b);
        return a;
    }
    bool an = a->kind == CS_VT_LONG || a->kind == CS_VT_DECIMAL;
    bool bn = b->kind == CS_VT_LONG || b->kind == CS_VT_DECIMAL;
    if (an && bn) { /* DecimalPrecision.widerDecimalType, bounded to 38 digits */
        int p1, s1, p2, s2;
        vs_as_decimal(a, &p1, &s1);
        vs_as_decimal(b, &p2, &s2);
        int scale = s1 > s2 ? s1 : s2, range = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
        vs_free(b);
        a->kind = CS_VT_DECIMAL;
        a->precision = range + scale;
        a->scale = scale;
        if (a->precision > 38) {
            int min_scale = scale < 6 ? scale : 6;
            int adj = 38 - range > min_scale ? 38 - range : min_scale;
            a->precision = 38;
            a->scale = adj;
        }
        return a;
    }
    if ((an || a->kind == CS_VT_DOUBLE || a->kind == CS_VT_FLOAT) &&
        (bn || b->kind == CS_VT_DOUBLE || b->kind == CS_VT_FLOAT) &&
        (a->kind == CS_VT_DOUBLE || b->kind == CS_VT_DOUBLE)) {
        vs_free(b);
        vs_free(a);
        return vs_new(CS_VT_DOUBLE);
    }
    if (a->kind == CS_VT_ARRAY && b->kind == CS_VT_ARRAY) {
        a->kids[0] = vs_merge(a->kids[0], b->kids[0]);
        b->kids[0] = NULL;
        b->n = 0;
        vs_free(b);
        return a;
    }
    if (a->kind == CS_VT_OBJECT && b->kind == CS_VT_OBJECT) {
        vschema *m = vs_new(CS_VT_OBJECT);
        size_t cap = a->n + b->n + 1, i = 0, j = 0;
        m->names = cs_xcalloc(cap, sizeof *m->names);
        m->name_lens = cs_xcalloc(cap, sizeof *m->name_lens);
        m->kids = cs_xcalloc(cap, sizeof *m->kids);
        while (i < a->n || j < b->n) {
            int c;
            if (i == a->n)
                c = 1;
            else if (j == b->n)
                c = -1;
            else {
                c = cs_variant_key_cmp(a->names[i], a->name_lens[i], b->names[j], b->name_lens[j]);
            }
            vschema *src = c <= 0 ? a : b;
            size_t at = c <= 0 ? i : j;
            m->names[m->n] = src->names[at];
            m->name_lens[m->n] = src->name_lens[at];
            src->names[at] = NULL;
            if (c == 0) {
                m->kids[m->n] = vs_merge(a->kids[i], b->kids[j]);
                a->kids[i] = b->kids[j] = NULL;
                i++, j++;
            } else {
                m->kids[m->n] = src->kids[at];
                src->kids[at] = NULL;
                if (c < 0)
                    i++;
                else
                    j++;
            }
            m->n++;
        }
        vs_free(a);
        vs_free(b);
        return m;
    }
    vs_free(a);
    vs_free(b);
    return vs_new(CS_VT_BAD);
}

static vschema *schema_of(const cs_variant *v)
{
    cs_vt t = cs_variant_type(v);
    vschema *s = vs_new(t);
    if (t == CS_VT_DECIMAL) {
        __int128 u;
        int sc;
        cs_variant_decimal(v, &u, &sc);
        int digits = 1;
        for (__int128 x = u < 0 ? -u : u; x >= 10; x /= 10)
            digits++;
        s->precision = digits > sc ? digits : sc;
        s->scale = sc;
    } else if (t == CS_VT_OBJECT) {
        size_t n = cs_variant_size(v);
        s->names = cs_xcalloc(n + 1, sizeof *s->names);
        s->name_lens = cs_xcalloc(n + 1, sizeof *s->name_lens);
        s->kids = cs_xcalloc(n + 1, sizeof *s->kids);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *k;
            size_t kl;
            cs_variant x;
            if (!cs_variant_field_at(v, i, &k, &kl, &x)) break;
            s->names[i] = cs_xmalloc(kl + 1);
            memcpy(s->names[i], k, kl);
            s->name_lens[i] = kl;
            s->kids[i] = schema_of(&x);
            s->n++;
        }
    } else if (t == CS_VT_ARRAY) {
        size_t n = cs_variant_size(v);
        s->kids = cs_xcalloc(1, sizeof *s->kids);
        s->n = 1;
        s->kids[0] = vs_new(CS_VT_NULL);
        for (size_t i = 0; i < n; i++) {
            cs_variant x;
            if (!cs_variant_element(v, i, &x)) break;
            s->kids[0] = vs_merge(s->kids[0], schema_of(&x));
        }
    }
    return s;
}

/* QuotingUtils.quoteIfNeeded: letters, digits and '_' (not all digits) stay bare. */
static void put_name(const char *s, size_t n, cs_sbuf *out)
{
    bool bare = n > 0, digits = true;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && c != '_') bare = false;
        if (!(c >= '0' && c <= '9')) digits = false;
    }
    if (bare && !digits) {
        cs_sbuf_append(out, s, n);
        return;
    }
    cs_sbuf_putc(out, '`');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`') cs_sbuf_putc(out, '`');
        cs_sbuf_putc(out, s[i]);
    }
    cs_sbuf_putc(out, '`');
}

static void vs_print(const vschema *s, cs_sbuf *out)
{
    static const char *const names[] = {
        [CS_VT_NULL] = "VOID",           [CS_VT_BOOLEAN] = "BOOLEAN",
        [CS_VT_LONG] = "BIGINT",         [CS_VT_DOUBLE] = "DOUBLE",
        [CS_VT_STRING] = "STRING",       [CS_VT_DATE] = "DATE",
        [CS_VT_TIMESTAMP] = "TIMESTAMP", [CS_VT_TIMESTAMP_NTZ] = "TIMESTAMP_NTZ",
        [CS_VT_FLOAT] = "FLOAT",         [CS_VT_BINARY] = "BINARY",
        [CS_VT_UUID] = "STRING",         [CS_VT_BAD] = "VARIANT"};
    switch (s->kind) {
    case CS_VT_DECIMAL:
        cs_sbuf_printf(out, "DECIMAL(%d,%d)", s->precision, s->scale);
        return;
    case CS_VT_ARRAY:
        cs_sbuf_puts(out, "ARRAY<");
        vs_print(s->kids[0], out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_VT_OBJECT:
        cs_sbuf_puts(out, "OBJECT<");
        for (size_t i = 0; i < s->n; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            put_name(s->names[i], s->name_lens[i], out);
            cs_sbuf_puts(out, ": ");
            vs_print(s->kids[i], out);
        }
        cs_sbuf_putc(out, '>');
        return;
    default:
        cs_sbuf_puts(out, names[s->kind]);
        return;
    }
}

bool cs_variant_schema(const cs_variant *v, cs_sbuf *out)
{
    vschema *s = schema_of(v);
    vs_print(s, out);
    vs_free(s);
    return true;
}

/* ---- the byte form ---- */

static void put_u32(cs_sbuf *out, size_t x)
{
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
    cs_sbuf_append(out, b, 4);
}

static void vs_encode(const vschema *s, cs_sbuf *out)
{
    cs_sbuf_putc(out, (char)s->kind);
    if (s->kind == CS_VT_DECIMAL) {
        cs_sbuf_putc(out, (char)s->precision);
        cs_sbuf_putc(out, (char)s->scale);
    } else if (s->kind == CS_VT_ARRAY) {
        vs_encode(s->kids[0], out);
    } else if (s->kind == CS_VT_OBJECT) {
        put_u32(out, s->n);
        for (size_t i = 0; i < s->n; i++) {
            put_u32(out, s->name_lens[i]);
            cs_sbuf_append(out, s->names[i], s->name_lens[i]);
            vs_encode(s->kids[i], out);
        }
    }
}

typedef struct {
    const uint8_t *p, *end;
} cursor;

static bool get_u32(cursor *c, size_t *x)
{
    if (c->end - c->p < 4) return false;
    *x = (size_t)c->p[0] | (size_t)c->p[1] << 8 | (size_t)c->p[2] << 16 | (size_t)c->p[3] << 24;
    c->p += 4;
    return true;
}

/* NULL on malformed bytes; depth bounds the recursion. */
static vschema *vs_decode(cursor *c, int depth)
{
    if (c->p >= c->end || depth > 4096) return NULL;
    cs_vt kind = (cs_vt)*c->p++;
    if (kind > CS_VT_BAD) return NULL;
    vschema *s = vs_new(kind);
    if (kind == CS_VT_DECIMAL) {
        if (c->end - c->p < 2) goto bad;
        s->precision = c->p[0];
        s->scale = c->p[1];
        c->p += 2;
    } else if (kind == CS_VT_ARRAY) {
        s->kids = cs_xcalloc(1, sizeof *s->kids);
        s->n = 1;
        if (!(s->kids[0] = vs_decode(c, depth + 1))) goto bad;
    } else if (kind == CS_VT_OBJECT) {
        size_t n;
        if (!get_u32(c, &n) || n > (size_t)(c->end - c->p)) goto bad;
        s->names = cs_xcalloc(n + 1, sizeof *s->names);
        s->name_lens = cs_xcalloc(n + 1, sizeof *s->name_lens);
        s->kids = cs_xcalloc(n + 1, sizeof *s->kids);
        for (size_t i = 0; i < n; i++) {
            size_t kl;
            if (!get_u32(c, &kl) || kl > (size_t)(c->end - c->p)) goto bad;
            s->names[i] = cs_xmalloc(kl + 1);
            memcpy(s->names[i], c->p, kl);
            s->name_lens[i] = kl;
            c->p += kl;
            s->n++;
            if (!(s->kids[i] = vs_decode(c, depth + 1))) goto bad;
        }
    }
    return s;
bad:
    vs_free(s);
    return NULL;
}

/* The schema of the bytes [p, p + n): VOID when empty, NULL when malformed. */
static vschema *vs_of_bytes(const uint8_t *p, size_t n)
{
    if (n == 0) return vs_new(CS_VT_NULL);
    cursor c = {p, p + n};
    vschema *s = vs_decode(&c, 0);
    if (s && c.p != c.end) {
        vs_free(s);
        return NULL;
    }
    return s;
}

void cs_variant_schema_encode(const cs_variant *v, cs_sbuf *out)
{
    vschema *s = schema_of(v);
    vs_encode(s, out);
    vs_free(s);
}

bool cs_variant_schema_merge(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, cs_sbuf *out)
{
    vschema *x = vs_of_bytes(a, al), *y = x ? vs_of_bytes(b, bl) : NULL;
    if (!y) {
        vs_free(x);
        return false;
    }
    vschema *m = vs_merge(x, y);
    vs_encode(m, out);
    vs_free(m);
    return true;
}

bool cs_variant_schema_print(const uint8_t *p, size_t n, cs_sbuf *out)
{
    vschema *s = vs_of_bytes(p, n);
    if (!s) return false;
    vs_print(s, out);
    vs_free(s);
    return true;
}
