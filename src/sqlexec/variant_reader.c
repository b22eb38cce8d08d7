/*
 * variant_reader.c — reading Spark's variant encoding (see variant_codec.h): the kind of a
 * value, its scalar, an object's fields (by position or by key, binary search over the sorted
 * keys), an array's elements and Spark's Variant.toJson text (SchemaOfVariant is
 * variant_schema.c's). Every offset is checked against the end of its buffer: malformed bytes read
 * as CS_VT_BAD (or false), never out of bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "formats/text_values.h"
#include "sqlexec/variant_codec.h"

static uint64_t le(const uint8_t *p, int width)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool has(const cs_variant *v, size_t n)
{
    return v->p < v->end && (size_t)(v->end - v->p) >= n;
}

bool cs_variant_init(cs_variant *v, const uint8_t *value, size_t value_len, const uint8_t *meta,
                     size_t meta_len)
{
    v->p = value;
    v->end = value + value_len;
    v->m = meta;
    v->m_len = meta_len;
    return meta_len >= 1 && (meta[0] & 0x0F) == 1 && value_len >= 1;
}

static int prim_width(int t)
{
    static const signed char w[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, -1, -1};
    if (t == 20) return 16; /* uuid */
    return t >= 0 && t < (int)sizeof w ? w[t] : -2;
}

/* An object's or array's layout: element count, id width, offset width, where the ids, the
 * offsets and the data start; false when it does not fit its buffer. */
typedef struct layout {
    size_t n;
    int id_size, off_size;
    const uint8_t *ids, *offs, *data;
} layout;

static bool layout_of(const cs_variant *v, layout *l)
{
    if (!has(v, 1)) return false;
    int h = v->p[0] >> 2;
    bool object = (v->p[0] & 3) == 2;
    bool large = object ? (h >> 4) & 1 : (h >> 2) & 1;
    int size_bytes = large ? 4 : 1;
    l->id_size = object ? ((h >> 2) & 3) + 1 : 0;
    l->off_size = (h & 3) + 1;
    if (!has(v, 1 + (size_t)size_bytes)) return false;
    l->n = (size_t)le(v->p + 1, size_bytes);
    size_t header =
        1 + (size_t)size_bytes + l->n * (size_t)l->id_size + (l->n + 1) * (size_t)l->off_size;
    if (l->n > (size_t)(v->end - v->p) || !has(v, header)) return false;
    l->ids = v->p + 1 + size_bytes;
    l->offs = l->ids + l->n * (size_t)l->id_size;
    l->data = v->p + header;
    return has(v, header + le(l->offs + l->n * (size_t)l->off_size, l->off_size));
}

cs_vt cs_variant_type(const cs_variant *v)
{
    if (!has(v, 1)) return CS_VT_BAD;
    int basic = v->p[0] & 3, info = v->p[0] >> 2;
    if (basic == 1) return has(v, 1 + (size_t)info) ? CS_VT_STRING : CS_VT_BAD;
    if (basic >= 2) { /* an object or array whose header and data fit its buffer */
        layout l;
        if (!layout_of(v, &l)) return CS_VT_BAD;
        return basic == 2 ? CS_VT_OBJECT : CS_VT_ARRAY;
    }
    int w = prim_width(info);
    if (w == -2) return CS_VT_BAD;
    if (w == -1) {
        if (!has(v, 5) || !has(v, 5 + le(v->p + 1, 4))) return CS_VT_BAD;
    } else if (!has(v, 1 + (size_t)w)) {
        return CS_VT_BAD;
    }
    switch (info) {
    case 0:
        return CS_VT_NULL;
    case 1:
    case 2:
        return CS_VT_BOOLEAN;
    case 3:
    case 4:
    case 5:
    case 6:
        return CS_VT_LONG;
    case 7:
        return CS_VT_DOUBLE;
    case 8:
    case 9:
    case 10:
        return CS_VT_DECIMAL;
    case 11:
        return CS_VT_DATE;
    case 12:
        return CS_VT_TIMESTAMP;
    case 13:
        return CS_VT_TIMESTAMP_NTZ;
    case 14:
        return CS_VT_FLOAT;
    case 15:
        return CS_VT_BINARY;
    case 16:
        return CS_VT_STRING;
    default:
        return CS_VT_UUID;
    }
}

bool cs_variant_bool(const cs_variant *v)
{
    return (v->p[0] >> 2) == 1;
}

int64_t cs_variant_long(const cs_variant *v)
{
    int info = v->p[0] >> 2, w = prim_width(info);
    uint64_t u = le(v->p + 1, w);
    if (w < 8 && (u >> (8 * w - 1)) & 1) u |= ~0ULL << (8 * w); /* sign-extend */
    return (int64_t)u;
}

double cs_variant_double(const cs_variant *v)
{
    if ((v->p[0] >> 2) == 14) {
        uint32_t b = (uint32_t)le(v->p + 1, 4);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    uint64_t b = le(v->p + 1, 8);
    double d;
    memcpy(&d, &b, 8);
    return d;
}

void cs_variant_decimal(const cs_variant *v, __int128 *unscaled, int *scale)
{
    int w = prim_width(v->p[0] >> 2) - 1;
    unsigned __int128 u = 0;
    for (int i = 0; i < w; i++)
        u |= (unsigned __int128)v->p[2 + i] << (8 * i);
    if (w < 16 && (u >> (8 * w - 1)) & 1) u |= ~(unsigned __int128)0 << (8 * w);
    __int128 x = (__int128)u;
    int s = v->p[1];
    while (s > 0 && x % 10 == 0) { /* stripTrailingZeros; a negative scale goes back to 0 */
        x /= 10;
        s--;
    }
    *unscaled = x;
    *scale = s;
}

const uint8_t *cs_variant_bytes(const cs_variant *v, size_t *len)
{
    if ((v->p[0] & 3) == 1) {
        *len = v->p[0] >> 2;
        return v->p + 1;
    }
    *len = (size_t)le(v->p + 1, 4);
    return v->p + 5;
}

size_t cs_variant_size(const cs_variant *v)
{
    layout l;
    return layout_of(v, &l) ? l.n : 0;
}

static bool element_of(const cs_variant *v, const layout *l, size_t i, cs_variant *out)
{
    size_t off = (size_t)le(l->offs + i * (size_t)l->off_size, l->off_size);
    size_t total = (size_t)le(l->offs + l->n * (size_t)l->off_size, l->off_size);
    if (off >= total) return false;
    *out = *v;
    out->p = l->data + off;
    out->end = l->data + total;
    return true;
}

static bool key_of(const cs_variant *v, uint64_t id, const uint8_t **key, size_t *len)
{
    int w = ((v->m[0] >> 6) & 3) + 1;
    if (v->m_len < 1 + (size_t)w) return false;
    uint64_t n = le(v->m + 1, w);
    size_t strings = 1 + (size_t)w + (n + 1) * (size_t)w;
    if (id >= n || n > v->m_len || strings > v->m_len) return false;
    const uint8_t *offs = v->m + 1 + w;
    uint64_t lo = le(offs + id * (size_t)w, w), hi = le(offs + (id + 1) * (size_t)w, w);
    if (lo > hi || strings + hi > v->m_len) return false;
    *key = v->m + strings + lo;
    *len = (size_t)(hi - lo);
    return true;
}

bool cs_variant_field_at(const cs_variant *v, size_t i, const uint8_t **key, size_t *key_len,
                         cs_variant *out)
{
    layout l;
    if ((v->p[0] & 3) != 2 || !layout_of(v, &l) || i >= l.n) return false;
    return key_of(v, le(l.ids + i * (size_t)l.id_size, l.id_size), key, key_len) &&
           element_of(v, &l, i, out);
}

bool cs_variant_field(const cs_variant *v, const char *key, size_t key_len, cs_variant *out)
{
    layout l;
    if ((v->p[0] & 3) != 2 || !layout_of(v, &l)) return false;
    size_t lo = 0, hi = l.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const uint8_t *k;
        size_t kl;
        if (!key_of(v, le(l.ids + mid * (size_t)l.id_size, l.id_size), &k, &kl)) return false;
        int c = cs_variant_key_cmp(k, kl, key, key_len);
        if (!c) return element_of(v, &l, mid, out);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

bool cs_variant_element(const cs_variant *v, size_t i, cs_variant *out)
{
    layout l;
    if ((v->p[0] & 3) != 3 || !layout_of(v, &l) || i >= l.n) return false;
    return element_of(v, &l, i, out);
}

size_t cs_variant_value_size(const cs_variant *v)
{
    layout l;
    switch (cs_variant_type(v)) {
    case CS_VT_OBJECT:
    case CS_VT_ARRAY:
        if (!layout_of(v, &l)) return 0;
        return (size_t)(l.data - v->p) + (size_t)le(l.offs + l.n * (size_t)l.off_size, l.off_size);
    case CS_VT_BAD:
        return 0;
    case CS_VT_STRING:
    case CS_VT_BINARY: {
        size_t n;
        const uint8_t *b = cs_variant_bytes(v, &n);
        return (size_t)(b - v->p) + n;
    }
    default:
        return 1 + (size_t)prim_width(v->p[0] >> 2);
    }
}

/* Jackson's writeString: quotes, backslash and control characters escaped. */
static void put_quoted(cs_sbuf *out, const uint8_t *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    cs_sbuf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            cs_sbuf_putc(out, '\\');
            cs_sbuf_putc(out, (char)c);
        } else if (c < 0x20) {
            const char *short_esc = c == '\n'   ? "\\n"
                                    : c == '\t' ? "\\t"
                                    : c == '\r' ? "\\r"
                                    : c == '\b' ? "\\b"
                                    : c == '\f' ? "\\f"
                                                : NULL;
            if (short_esc)
                cs_sbuf_puts(out, short_esc);
            else
                cs_sbuf_printf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else {
            cs_sbuf_putc(out, (char)c);
        }
    }
    cs_sbuf_putc(out, '"');
}

bool cs_variant_to_json(const cs_variant *v, cs_variant_zone_fn zone, void *zarg, cs_sbuf *out)
{
    switch (cs_variant_type(v)) {
    case CS_VT_NULL:
        cs_sbuf_puts(out, "null");
        return true;
    case CS_VT_BOOLEAN:
        cs_sbuf_puts(out, cs_variant_bool(v) ? "true" : "false");
        return true;
    case CS_VT_LONG:
        cs_sbuf_printf(out, "%lld", (long long)cs_variant_long(v));
        return true;
    case CS_VT_DOUBLE:
        cs_tv_format_double(cs_variant_double(v), out);
        return true;
    case CS_VT_FLOAT:
        cs_tv_format_float(cs_variant_double(v), out);
        return true;
    case CS_VT_DECIMAL: {
        __int128 u;
        int s;
        cs_variant_decimal(v, &u, &s);
        cs_tv_format_decimal(u, s, out);
        return true;
    }
    case CS_VT_STRING: {
        size_t n;
        const uint8_t *b = cs_variant_bytes(v, &n);
        put_quoted(out, b, n);
        return true;
    }
    case CS_VT_BINARY: {
        size_t n;
        const uint8_t *b = cs_variant_bytes(v, &n);
        cs_sbuf_putc(out, '"');
        cs_tv_base64_encode(b, n, out);
        cs_sbuf_putc(out, '"');
        return true;
    }
    case CS_VT_DATE:
        cs_sbuf_putc(out, '"');
        cs_tv_format_date(cs_variant_long(v), out);
        cs_sbuf_putc(out, '"');
        return true;
    case CS_VT_TIMESTAMP: {
        int64_t us = cs_variant_long(v);
        int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
        int32_t off = zone ? zone(zarg, secs) : 0;
        cs_sbuf_putc(out, '"');
        cs_tv_format_local_timestamp(us + (int64_t)off * 1000000, out);
        int a = off < 0 ? -off : off;
        cs_sbuf_printf(out, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
        cs_sbuf_putc(out, '"');
        return true;
    }
    case CS_VT_TIMESTAMP_NTZ:
        cs_sbuf_putc(out, '"');
        cs_tv_format_local_timestamp(cs_variant_long(v), out);
        cs_sbuf_putc(out, '"');
        return true;
    case CS_VT_UUID: {
        const uint8_t *b = v->p + 1;
        cs_sbuf_putc(out, '"');
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) cs_sbuf_putc(out, '-');
            cs_sbuf_printf(out, "%02x", b[i]);
        }
        cs_sbuf_putc(out, '"');
        return true;
    }
    case CS_VT_OBJECT: {
        size_t n = cs_variant_size(v);
        cs_sbuf_putc(out, '{');
        for (size_t i = 0; i < n; i++) {
            const uint8_t *k;
            size_t kl;
            cs_variant x;
            if (!cs_variant_field_at(v, i, &k, &kl, &x)) return false;
            if (i) cs_sbuf_putc(out, ',');
            put_quoted(out, k, kl);
            cs_sbuf_putc(out, ':');
            if (!cs_variant_to_json(&x, zone, zarg, out)) return false;
        }
        cs_sbuf_putc(out, '}');
        return true;
    }
    case CS_VT_ARRAY: {
        size_t n = cs_variant_size(v);
        cs_sbuf_putc(out, '[');
        for (size_t i = 0; i < n; i++) {
            cs_variant x;
            if (!cs_variant_element(v, i, &x)) return false;
            if (i) cs_sbuf_putc(out, ',');
            if (!cs_variant_to_json(&x, zone, zarg, out)) return false;
        }
        cs_sbuf_putc(out, ']');
        return true;
    }
    default:
        return false;
    }
}
