/*
 * variant_codec.c — Spark's variant encoding (see variant_codec.h): the builder with its key
 * dictionary and JSON text into a variant over jansson. The bounds-checked readers, JSON text
 * out of a variant and its schema are in variant_reader.c.
 */
#include "sqlexec/variant_codec.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "formats/text_values.h"

enum { BASIC_PRIMITIVE = 0, BASIC_SHORT_STR = 1, BASIC_OBJECT = 2, BASIC_ARRAY = 3 };
enum {
    P_NULL = 0,
    P_TRUE = 1,
    P_FALSE = 2,
    P_INT1 = 3,
    P_INT2 = 4,
    P_INT4 = 5,
    P_INT8 = 6,
    P_DOUBLE = 7,
    P_DECIMAL4 = 8,
    P_DECIMAL8 = 9,
    P_DECIMAL16 = 10,
    P_DATE = 11,
    P_TIMESTAMP = 12,
    P_TIMESTAMP_NTZ = 13,
    P_FLOAT = 14,
    P_BINARY = 15,
    P_LONG_STR = 16,
    P_UUID = 20
};
#define MAX_SHORT_STR 63

struct cs_vb {
    uint8_t *buf;
    size_t len, cap;
    char *keys; /* the dictionary's key bytes, back to back */
    size_t keys_len, keys_cap;
    uint32_t *key_off; /* n_keys + 1 offsets into keys */
    uint32_t n_keys, key_off_cap;
    uint32_t *slots; /* hash table of id + 1 (0: empty) */
    uint32_t n_slots;
    uint8_t *meta;
    size_t meta_len, meta_cap;
    cs_vb_field *room; /* the containers' fields being written, innermost last */
    size_t room_len, room_cap;
};

static void reserve(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    *p = cs_xrealloc(*p, c);
    *cap = c;
}

static uint8_t *grow(cs_vb *b, size_t n)
{
    reserve(&b->buf, &b->cap, b->len + n);
    uint8_t *at = b->buf + b->len;
    b->len += n;
    return at;
}

static void put_le(uint8_t *p, uint64_t v, int width)
{
    for (int i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int int_size(uint64_t v)
{
    return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFF ? 3 : 4;
}

static uint8_t prim_header(int type)
{
    return (uint8_t)(type << 2 | BASIC_PRIMITIVE);
}

cs_vb *cs_vb_new(void)
{
    cs_vb *b = cs_xcalloc(1, sizeof *b);
    return b;
}

void cs_vb_free(cs_vb *b)
{
    if (!b) return;
    free(b->buf);
    free(b->keys);
    free(b->key_off);
    free(b->slots);
    free(b->meta);
    free(b->room);
    free(b);
}

void cs_vb_reset(cs_vb *b)
{
    b->len = 0;
    b->keys_len = 0;
    b->n_keys = 0;
    b->room_len = 0;
    if (b->slots) memset(b->slots, 0, b->n_slots * sizeof *b->slots);
}

size_t cs_vb_pos(const cs_vb *b)
{
    return b->len;
}

void cs_vb_null(cs_vb *b)
{
    *grow(b, 1) = prim_header(P_NULL);
}

void cs_vb_bool(cs_vb *b, bool v)
{
    *grow(b, 1) = prim_header(v ? P_TRUE : P_FALSE);
}

void cs_vb_long(cs_vb *b, int64_t v)
{
    int type = P_INT8, width = 8;
    if (v == (int8_t)v)
        type = P_INT1, width = 1;
    else if (v == (int16_t)v)
        type = P_INT2, width = 2;
    else if (v == (int32_t)v)
        type = P_INT4, width = 4;
    uint8_t *p = grow(b, 1 + (size_t)width);
    p[0] = prim_header(type);
    put_le(p + 1, (uint64_t)v, width);
}

void cs_vb_double(cs_vb *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    uint8_t *p = grow(b, 9);
    p[0] = prim_header(P_DOUBLE);
    put_le(p + 1, bits, 8);
}

void cs_vb_float(cs_vb *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint8_t *p = grow(b, 5);
    p[0] = prim_header(P_FLOAT);
    put_le(p + 1, bits, 4);
}

void cs_vb_decimal(cs_vb *b, __int128 unscaled, int precision, int scale)
{
    int type = P_DECIMAL16, width = 16;
    if (scale <= 9 && precision <= 9)
        type = P_DECIMAL4, width = 4;
    else if (scale <= 18 && precision <= 18)
        type = P_DECIMAL8, width = 8;
    uint8_t *p = grow(b, 2 + (size_t)width);
    p[0] = prim_header(type);
    p[1] = (uint8_t)scale;
    unsigned __int128 u = (unsigned __int128)unscaled;
    for (int i = 0; i < width; i++)
        p[2 + i] = (uint8_t)(u >> (8 * i));
}

void cs_vb_string(cs_vb *b, const char *s, size_t n)
{
    if (n <= MAX_SHORT_STR) {
        uint8_t *p = grow(b, 1 + n);
        p[0] = (uint8_t)(n << 2 | BASIC_SHORT_STR);
        memcpy(p + 1, s, n);
        return;
    }
    uint8_t *p = grow(b, 5 + n);
    p[0] = prim_header(P_LONG_STR);
    put_le(p + 1, n, 4);
    memcpy(p + 5, s, n);
}

void cs_vb_binary(cs_vb *b, const void *data, size_t n)
{
    uint8_t *p = grow(b, 5 + n);
    p[0] = prim_header(P_BINARY);
    put_le(p + 1, n, 4);
    if (n) memcpy(p + 5, data, n);
}

void cs_vb_date(cs_vb *b, int32_t days)
{
    uint8_t *p = grow(b, 5);
    p[0] = prim_header(P_DATE);
    put_le(p + 1, (uint32_t)days, 4);
}

void cs_vb_timestamp(cs_vb *b, int64_t micros, bool ntz)
{
    uint8_t *p = grow(b, 9);
    p[0] = prim_header(ntz ? P_TIMESTAMP_NTZ : P_TIMESTAMP);
    put_le(p + 1, (uint64_t)micros, 8);
}

static uint32_t key_hash(const char *k, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)k[i]) * 16777619u;
    return h;
}

static void rehash(cs_vb *b)
{
    uint32_t n = b->n_slots ? b->n_slots * 2 : 64;
    free(b->slots);
    b->slots = cs_xcalloc(n, sizeof *b->slots);
    b->n_slots = n;
    for (uint32_t id = 0; id < b->n_keys; id++) {
        uint32_t h = key_hash(b->keys + b->key_off[id], b->key_off[id + 1] - b->key_off[id]);
        for (uint32_t s = h & (n - 1);; s = (s + 1) & (n - 1))
            if (!b->slots[s]) {
                b->slots[s] = id + 1;
                break;
            }
    }
}

uint32_t cs_vb_key(cs_vb *b, const char *key, size_t n)
{
    if ((b->n_keys + 1) * 2 > b->n_slots) rehash(b);
    uint32_t h = key_hash(key, n), s = h & (b->n_slots - 1);
    for (; b->slots[s]; s = (s + 1) & (b->n_slots - 1)) {
        uint32_t id = b->slots[s] - 1, lo = b->key_off[id];
        if (b->key_off[id + 1] - lo == n && memcmp(b->keys + lo, key, n) == 0) return id;
    }
    uint32_t id = b->n_keys++;
    b->slots[s] = id + 1;
    if (b->n_keys + 1 > b->key_off_cap) {
        b->key_off_cap = b->key_off_cap ? b->key_off_cap * 2 : 16;
        b->key_off = cs_xrealloc(b->key_off, b->key_off_cap * sizeof *b->key_off);
    }
    reserve((uint8_t **)&b->keys, &b->keys_cap, b->keys_len + n + 1);
    memcpy(b->keys + b->keys_len, key, n);
    b->key_off[id] = (uint32_t)b->keys_len;
    b->keys_len += n;
    b->key_off[id + 1] = (uint32_t)b->keys_len;
    return id;
}

static int key_cmp(const cs_vb *b, uint32_t x, uint32_t y)
{
    return cs_variant_key_cmp(b->keys + b->key_off[x], b->key_off[x + 1] - b->key_off[x],
                              b->keys + b->key_off[y], b->key_off[y + 1] - b->key_off[y]);
}

/* The next code point of UTF-8 s[*i..n) as a value that sorts as Java's UTF-16 units do: a
 * character past U+FFFF as its surrogate pair (high unit first), others as themselves. */
static uint32_t utf16_rank(const uint8_t *s, size_t n, size_t *i)
{
    uint8_t c = s[*i];
    uint32_t cp = c;
    int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (*i + (size_t)more >= n) more = 0;
    if (more) cp = c & (0x3F >> more);
    for (int k = 1; k <= more; k++)
        cp = cp << 6 | (s[*i + (size_t)k] & 0x3F);
    *i += 1 + (size_t)more;
    if (cp < 0x10000) return cp << 16;
    cp -= 0x10000;
    return (0xD800 + (cp >> 10)) << 16 | (0xDC00 + (cp & 0x3FF));
}

int cs_variant_key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    const uint8_t *x = a, *y = b;
    size_t i = 0, j = 0;
    while (i < al && j < bl) {
        if (x[i] < 0x80 && y[j] < 0x80) {
            if (x[i] != y[j]) return x[i] < y[j] ? -1 : 1;
            i++, j++;
            continue;
        }
        uint32_t u = utf16_rank(x, al, &i), v = utf16_rank(y, bl, &j);
        if (u != v) return u < v ? -1 : 1;
    }
    return i < al ? 1 : j < bl ? -1 : 0;
}

int cs_vb_finish_object(cs_vb *b, size_t start, cs_vb_field *f, size_t n)
{
    /* insertion sort keeps it simple for the small objects JSON has; stable as Java's */
    for (size_t i = 1; i < n; i++) {
        cs_vb_field x = f[i];
        size_t j = i;
        while (j > 0 && key_cmp(b, f[j - 1].id, x.id) > 0) {
            f[j] = f[j - 1];
            j--;
        }
        f[j] = x;
    }
    uint32_t max_id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && f[i].id == f[i - 1].id) return -1;
        if (f[i].id > max_id) max_id = f[i].id;
    }
    size_t data = b->len - start;
    bool large = n > 0xFF;
    int size_bytes = large ? 4 : 1, id_size = int_size(max_id), off_size = int_size(data);
    size_t header = 1 + (size_t)size_bytes + n * (size_t)id_size + (n + 1) * (size_t)off_size;
    grow(b, header);
    memmove(b->buf + start + header, b->buf + start, data);
    uint8_t *p = b->buf + start;
    p[0] =
        (uint8_t)((large ? 1 : 0) << 6 | (id_size - 1) << 4 | (off_size - 1) << 2 | BASIC_OBJECT);
    put_le(p + 1, n, size_bytes);
    uint8_t *ids = p + 1 + size_bytes, *offs = ids + n * (size_t)id_size;
    for (size_t i = 0; i < n; i++) {
        put_le(ids + i * (size_t)id_size, f[i].id, id_size);
        put_le(offs + i * (size_t)off_size, f[i].offset, off_size);
    }
    put_le(offs + n * (size_t)off_size, data, off_size);
    return 0;
}

void cs_vb_finish_array(cs_vb *b, size_t start, const cs_vb_field *elems, size_t n)
{
    size_t data = b->len - start;
    bool large = n > 0xFF;
    int size_bytes = large ? 4 : 1, off_size = int_size(data);
    size_t header = 1 + (size_t)size_bytes + (n + 1) * (size_t)off_size;
    grow(b, header);
    memmove(b->buf + start + header, b->buf + start, data);
    uint8_t *p = b->buf + start;
    p[0] = (uint8_t)((large ? 1 : 0) << 4 | (off_size - 1) << 2 | BASIC_ARRAY);
    put_le(p + 1, n, size_bytes);
    uint8_t *offs = p + 1 + size_bytes;
    for (size_t i = 0; i < n; i++)
        put_le(offs + i * (size_t)off_size, elems[i].offset, off_size);
    put_le(offs + n * (size_t)off_size, data, off_size);
}

size_t cs_vb_room_take(cs_vb *b, size_t n)
{
    size_t base = b->room_len;
    if (base + n > b->room_cap) {
        size_t c = b->room_cap ? b->room_cap : 16;
        while (c < base + n)
            c *= 2;
        b->room = cs_xrealloc(b->room, c * sizeof *b->room);
        b->room_cap = c;
    }
    b->room_len = base + n;
    return base;
}

cs_vb_field *cs_vb_room(cs_vb *b, size_t base)
{
    return b->room + base;
}

void cs_vb_room_give(cs_vb *b, size_t base)
{
    b->room_len = base;
}

void cs_vb_result(cs_vb *b, const uint8_t **value, size_t *value_len, const uint8_t **metadata,
                  size_t *metadata_len)
{
    size_t max = b->keys_len > b->n_keys ? b->keys_len : b->n_keys;
    int w = int_size(max);
    size_t need = 1 + (size_t)w + (b->n_keys + 1) * (size_t)w + b->keys_len;
    reserve(&b->meta, &b->meta_cap, need);
    uint8_t *m = b->meta;
    m[0] = (uint8_t)(1 | (w - 1) << 6);
    put_le(m + 1, b->n_keys, w);
    uint8_t *offs = m + 1 + w;
    for (uint32_t i = 0; i <= b->n_keys; i++)
        put_le(offs + i * (size_t)w, i < b->n_keys ? b->key_off[i] : b->keys_len, w);
    if (b->keys_len) memcpy(offs + (b->n_keys + 1) * (size_t)w, b->keys, b->keys_len);
    b->meta_len = need;
    *value = b->buf;
    *value_len = b->len;
    *metadata = b->meta;
    *metadata_len = b->meta_len;
}

/* ---- JSON text in ---- */

/* The number tokens of the text in document order (jansson has validated the text): spans of
 * a '-' or digit outside strings. */
typedef struct numbers {
    const char *s;
    size_t n, at;
} numbers;

static bool next_number(numbers *nb, const char **tok, size_t *len)
{
    const char *s = nb->s;
    size_t i = nb->at;
    while (i < nb->n) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < nb->n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t b = i;
            while (i < nb->n && (s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' ||
                                 s[i] == 'E' || (s[i] >= '0' && s[i] <= '9')))
                i++;
            *tok = s + b;
            *len = i - b;
            nb->at = i;
            return true;
        } else {
            i++;
        }
    }
    nb->at = i;
    return false;
}

/* VariantBuilder's number rules: an integer that fits a long as the smallest int; else plain
 * digits (with '-' and '.') within 38 digits and scale as a decimal; else a double. */
static int put_number(cs_vb *b, const char *t, size_t n)
{
    bool plain = true, integral = true;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '.') integral = false;
        if (t[i] != '-' && t[i] != '.' && !(t[i] >= '0' && t[i] <= '9')) plain = integral = false;
    }
    int64_t l;
    if (integral && cs_tv_parse_long(t, n, &l)) {
        cs_vb_long(b, l);
        return 0;
    }
    __int128 u;
    int precision, scale;
    bool too_long = false;
    if (plain && cs_tv_parse_decimal(t, n, &u, &precision, &scale, &too_long) && scale >= 0 &&
        scale <= 38 && precision <= 38) {
        cs_vb_decimal(b, u, precision, scale);
        return 0;
    }
    double d;
    if (!cs_tv_parse_double(t, n, &d)) return -1;
    cs_vb_double(b, d);
    return 0;
}

static int build(cs_vb *b, json_t *v, numbers *nb)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
        cs_vb_null(b);
        return 0;
    case JSON_TRUE:
    case JSON_FALSE:
        cs_vb_bool(b, json_is_true(v));
        return 0;
    case JSON_STRING:
        cs_vb_string(b, json_string_value(v), json_string_length(v));
        return 0;
    case JSON_INTEGER:
    case JSON_REAL: {
        const char *t;
        size_t n;
        if (!next_number(nb, &t, &n)) return -1;
        return put_number(b, t, n);
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(v), start = b->len, room = cs_vb_room_take(b, n);
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            cs_vb_room(b, room)[i].offset = (uint32_t)(b->len - start);
            rc = build(b, json_array_get(v, i), nb);
        }
        if (!rc) cs_vb_finish_array(b, start, cs_vb_room(b, room), n);
        cs_vb_room_give(b, room);
        return rc;
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(v), start = b->len, i = 0, room = cs_vb_room_take(b, n);
        const char *key;
        json_t *x;
        int rc = 0;
        json_object_foreach(v, key, x)
        {
            uint32_t id = cs_vb_key(b, key, strlen(key));
            cs_vb_room(b, room)[i++] = (cs_vb_field){id, (uint32_t)(b->len - start)};
            if ((rc = build(b, x, nb)) != 0) break;
        }
        if (!rc) rc = cs_vb_finish_object(b, start, cs_vb_room(b, room), n);
        cs_vb_room_give(b, room);
        return rc;
    }
    }
    return -1;
}

int cs_variant_parse_json(cs_vb *b, const char *s, size_t n)
{
    json_error_t jerr;
    json_t *doc = json_loadb(s, n,
                             JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL |
                                 JSON_ALLOW_NUL | JSON_DISABLE_EOF_CHECK,
                             &jerr);
    if (!doc) return -1;
    numbers nb = {s, n, 0};
    int rc = build(b, doc, &nb);
    json_decref(doc);
    return rc;
}

int cs_variant_path_parse(const char *s, size_t n, cs_variant_step *steps)
{
    if (n == 0 || s[0] != '$') return -1;
    size_t i = 1;
    int k = 0;
    while (i < n) {
        cs_variant_step st = {NULL, 0, 0};
        if (s[i] == '.') {
            size_t b = ++i;
            while (i < n && s[i] != '.' && s[i] != '[')
                i++;
            if (i == b) return -1;
            st.key = s + b;
            st.key_len = i - b;
        } else if (s[i] == '[' && i + 1 < n && (s[i + 1] == '\'' || s[i + 1] == '"')) {
            char q = s[i + 1];
            size_t b = i += 2;
            while (i < n && s[i] != q)
                i++;
            if (i + 1 >= n || s[i + 1] != ']') return -1;
            st.key = s + b;
            st.key_len = i - b;
            i += 2;
        } else if (s[i] == '[') {
            size_t b = ++i;
            int64_t v = 0;
            while (i < n && s[i] >= '0' && s[i] <= '9' && v <= INT32_MAX)
                v = v * 10 + (s[i++] - '0');
            if (i == b || i >= n || s[i] != ']' || v > INT32_MAX) return -1;
            st.index = (int32_t)v;
            i++;
        } else {
            return -1;
        }
        if (steps) steps[k] = st;
        k++;
    }
    return k;
}

int cs_vb_copy(cs_vb *b, const cs_variant *v)
{
    cs_vt t = cs_variant_type(v);
    if (t == CS_VT_BAD) return -1;
    if (t == CS_VT_OBJECT || t == CS_VT_ARRAY) {
        size_t n = cs_variant_size(v), start = b->len, room = cs_vb_room_take(b, n);
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            cs_variant x;
            const uint8_t *k = NULL;
            size_t kl = 0;
            bool ok = t == CS_VT_OBJECT ? cs_variant_field_at(v, i, &k, &kl, &x)
                                        : cs_variant_element(v, i, &x);
            if (!ok) {
                rc = -1;
                break;
            }
            uint32_t id = t == CS_VT_OBJECT ? cs_vb_key(b, (const char *)k, kl) : 0;
            cs_vb_room(b, room)[i] = (cs_vb_field){id, (uint32_t)(b->len - start)};
            rc = cs_vb_copy(b, &x);
        }
        if (!rc && t == CS_VT_OBJECT) rc = cs_vb_finish_object(b, start, cs_vb_room(b, room), n);
        if (!rc && t == CS_VT_ARRAY) cs_vb_finish_array(b, start, cs_vb_room(b, room), n);
        cs_vb_room_give(b, room);
        return rc;
    }
    size_t size = cs_variant_value_size(v);
    if (!size) return -1;
    memcpy(grow(b, size), v->p, size);
    return 0;
}
