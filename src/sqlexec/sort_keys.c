/*
 * sort_keys.c — normalized keys (see sql_ops_internal.h for the byte layout): the key columns of
 * a whole batch encoded column by column into one buffer, whose memcmp order is Spark's ordering
 * and whose equality is Spark's grouping equality; and the way back from encoded keys to columns;
 * and integral key columns as 64-bit words (the hash join's and aggregate's one- or two-word
 * keys, compared without encoding); and the key of the run of equal keys being read from sorted
 * input (cs_sql_run_key). Called by the hash aggregate (group keys), the hash join (join keys),
 * the sort (sort keys) and the Python group operators (their groups' keys).
 */
#include "sqlexec/sql_ops_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"

static int key_width(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
    case CS_TYPE_BYTE:
        return 1;
    case CS_TYPE_SHORT:
        return 2;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_FLOAT:
        return 4;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
    case CS_TYPE_DOUBLE:
        return 8;
    case CS_TYPE_DECIMAL:
        return 16;
    default:
        return 0;
    }
}

bool cs_sql_key_type_ok(const cs_col_type *t)
{
    return t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY || t->id == CS_TYPE_NULL ||
           key_width(t->id) > 0;
}

bool cs_sql_struct_key_type_ok(const cs_col_type *t)
{
    if (t->id != CS_TYPE_STRUCT) return cs_sql_key_type_ok(t);
    for (int f = 0; f < t->n_fields; f++)
        if (!cs_sql_struct_key_type_ok(t->fields[f].type)) return false;
    return true;
}

static void put_be(uint8_t *p, uint64_t v, int w)
{
    for (int i = w - 1; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint64_t get_be(const uint8_t *p, int w)
{
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v = v << 8 | p[i];
    return v;
}

/* The monotone unsigned image of a value of a fixed-width column at row i, `w` bytes. For a
 * decimal, hi/lo are both used. */
static void encode_fixed(const cs_column *c, int64_t i, int w, uint8_t *p)
{
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        p[0] = cs_bit_get(c->values, i);
        return;
    case CS_TYPE_FLOAT: {
        float f = ((const float *)(const void *)c->values)[i];
        if (isnan(f)) f = NAN;
        if (f == 0.0f) f = 0.0f;
        uint32_t u;
        memcpy(&u, &f, 4);
        u = (u & 0x80000000u) ? ~u : u | 0x80000000u;
        put_be(p, u, 4);
        return;
    }
    case CS_TYPE_DOUBLE: {
        double d = ((const double *)(const void *)c->values)[i];
        if (isnan(d)) d = NAN;
        if (d == 0.0) d = 0.0;
        uint64_t u;
        memcpy(&u, &d, 8);
        u = (u & 0x8000000000000000ull) ? ~u : u | 0x8000000000000000ull;
        put_be(p, u, 8);
        return;
    }
    case CS_TYPE_DECIMAL: {
        uint64_t lo, hi;
        memcpy(&lo, c->values + 16 * i, 8);
        memcpy(&hi, c->values + 16 * i + 8, 8);
        put_be(p, hi ^ 0x8000000000000000ull, 8);
        put_be(p + 8, lo, 8);
        return;
    }
    default:
        break;
    }
    uint64_t u = 0;
    switch (w) {
    case 1:
        u = (uint8_t)(((const int8_t *)(const void *)c->values)[i] ^ 0x80);
        break;
    case 2:
        u = (uint16_t)(((const int16_t *)(const void *)c->values)[i] ^ 0x8000);
        break;
    case 4:
        u = (uint32_t)((const int32_t *)(const void *)c->values)[i] ^ 0x80000000u;
        break;
    default:
        u = (uint64_t)((const int64_t *)(const void *)c->values)[i] ^ 0x8000000000000000ull;
    }
    put_be(p, u, w);
}

static size_t stuffed_len(const uint8_t *s, int32_t len)
{
    size_t n = (size_t)len + 2;
    const uint8_t *end = s + len;
    while (s < end && (s = memchr(s, 0, (size_t)(end - s))) != NULL) {
        n++;
        s++;
    }
    return n;
}

/* Copies s[0..len) to p with 0xFF after each zero byte (the stuffing stuffed_len counts): the
 * runs between zeros a memcpy each, so a string without zeros is one copy. Returns the end. */
static uint8_t *stuff_bytes(uint8_t *p, const uint8_t *s, int32_t len)
{
    const uint8_t *end = s + len;
    while (s < end) {
        const uint8_t *z = memchr(s, 0, (size_t)(end - s));
        size_t run = (size_t)((z ? z + 1 : end) - s);
        memcpy(p, s, run);
        p += run;
        s += run;
        if (z) *p++ = 0xFF;
    }
    return p;
}

static void grow(cs_sql_keybuf *kb, int64_t rows)
{
    if (rows + 1 > kb->rows_cap) {
        kb->rows_cap = rows + 1 > 2 * kb->rows_cap ? rows + 1 : 2 * kb->rows_cap;
        kb->off = cs_xrealloc(kb->off, sizeof *kb->off * (size_t)kb->rows_cap);
        kb->any_null = cs_xrealloc(kb->any_null, (size_t)kb->rows_cap);
        kb->hash = cs_xrealloc(kb->hash, sizeof *kb->hash * (size_t)kb->rows_cap);
    }
}

/* Adds the encoded length of row i of c to len[i] for every row (a null row of a struct still
 * writes its fields, as nulls, so that every null struct encodes alike). */
static void add_lengths(const cs_column *c, int64_t n, const uint8_t *parent_null, int64_t *len)
{
    cs_type_id id = c->type->id;
    if (id == CS_TYPE_STRUCT) {
        uint8_t *null = cs_xmalloc((size_t)(n > 0 ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            null[i] = (parent_null && parent_null[i]) || !cs_column_is_valid(c, i);
            len[i] += 1;
        }
        for (int f = 0; f < c->n_children; f++)
            add_lengths(c->children[f], n, null, len);
        free(null);
        return;
    }
    int w = key_width(id);
    bool var = id == CS_TYPE_STRING || id == CS_TYPE_BINARY;
    for (int64_t i = 0; i < n; i++) {
        if (id == CS_TYPE_NULL || (parent_null && parent_null[i]) || !cs_column_is_valid(c, i)) {
            len[i] += 1;
        } else if (var) {
            int32_t l;
            const uint8_t *s = cs_column_bytes(c, i, &l);
            len[i] += 1 + (int64_t)stuffed_len(s, l);
        } else {
            len[i] += 1 + w;
        }
    }
}

/* Writes row i of c at out + pos[i] for every row, moving pos[i] on. A field of a struct key
 * (parent_null given) orders its nulls as Spark's struct ordering does, whatever the key's own
 * NULLS FIRST/LAST: first when ascending, last when descending (the ascending field ordering,
 * reversed). */
static void put_values(const cs_column *c, int64_t n, const uint8_t *parent_null,
                       const cs_sort_key *key, uint8_t *out, int64_t *pos)
{
    cs_type_id id = c->type->id;
    bool nulls_first = parent_null ? !key->descending : key->nulls_first;
    uint8_t null_marker = nulls_first ? 0x00 : 0x02;
    uint8_t inv = key->descending ? 0xFF : 0x00;
    if (id == CS_TYPE_STRUCT) {
        uint8_t *null = cs_xmalloc((size_t)(n > 0 ? n : 1));
        for (int64_t i = 0; i < n; i++) {
            null[i] = (parent_null && parent_null[i]) || !cs_column_is_valid(c, i);
            out[pos[i]++] = null[i] ? null_marker : 0x01;
        }
        for (int f = 0; f < c->n_children; f++)
            put_values(c->children[f], n, null, key, out, pos);
        free(null);
        return;
    }
    int w = key_width(id);
    bool var = id == CS_TYPE_STRING || id == CS_TYPE_BINARY;
    for (int64_t i = 0; i < n; i++) {
        uint8_t *p = out + pos[i];
        if (id == CS_TYPE_NULL || (parent_null && parent_null[i]) || !cs_column_is_valid(c, i)) {
            *p = null_marker;
            pos[i] += 1;
            continue;
        }
        *p++ = 0x01;
        uint8_t *start = p;
        if (var) {
            int32_t len;
            const uint8_t *s = cs_column_bytes(c, i, &len);
            p = stuff_bytes(p, s, len);
            *p++ = 0;
            *p++ = 0;
        } else {
            encode_fixed(c, i, w, p);
            p += w;
        }
        if (inv)
            for (uint8_t *q = start; q < p; q++)
                *q ^= inv;
        pos[i] = p - out;
    }
}

void cs_sql_key_words(const cs_column *c, int64_t n, uint64_t *out, int stride)
{
    const void *v = c->values;
    size_t w = (size_t)stride;
    switch (cs_col_type_integral_width(c->type->id)) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            out[(size_t)i * w] = (uint64_t)(int64_t)((const int8_t *)v)[i];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            out[(size_t)i * w] = (uint64_t)(int64_t)((const int16_t *)v)[i];
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            out[(size_t)i * w] = (uint64_t)(int64_t)((const int32_t *)v)[i];
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            out[(size_t)i * w] = (uint64_t)((const int64_t *)v)[i];
    }
}

void cs_sql_keys_encode(cs_sql_keybuf *kb, const cs_col_batch *b, const cs_sort_key *keys,
                        int n_keys, bool with_hash)
{
    int64_t n = b->num_rows;
    grow(kb, n);
    int64_t *off = kb->off;
    memset(kb->any_null, 0, (size_t)n);
    /* pass 1: each row's length (in off[i + 1]); a null key (not a null field) marks the row */
    for (int64_t i = 0; i <= n; i++)
        off[i] = 0;
    for (int k = 0; k < n_keys; k++) {
        const cs_column *c = b->columns[keys[k].ordinal];
        for (int64_t i = 0; i < n; i++)
            if (c->type->id == CS_TYPE_NULL || !cs_column_is_valid(c, i)) kb->any_null[i] = 1;
        add_lengths(c, n, NULL, off + 1);
    }
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    size_t total = (size_t)off[n];
    if (total > kb->bytes_cap) {
        kb->bytes_cap = total > 2 * kb->bytes_cap ? total : 2 * kb->bytes_cap;
        free(kb->bytes);
        kb->bytes = cs_xmalloc(kb->bytes_cap);
    }
    /* pass 2: column by column, each row's cursor kept in pos */
    int64_t *pos = cs_xmalloc(sizeof *pos * (size_t)(n + 1));
    memcpy(pos, off, sizeof *pos * (size_t)n);
    uint8_t *out = kb->bytes;
    for (int k = 0; k < n_keys; k++)
        put_values(b->columns[keys[k].ordinal], n, NULL, &keys[k], out, pos);
    free(pos);
    if (with_hash)
        for (int64_t i = 0; i < n; i++)
            kb->hash[i] = XXH3_64bits(out + off[i], (size_t)(off[i + 1] - off[i]));
}

void cs_sql_keybuf_free(cs_sql_keybuf *kb)
{
    free(kb->bytes);
    free(kb->off);
    free(kb->any_null);
    free(kb->hash);
    memset(kb, 0, sizeof *kb);
}

static void decode_fixed(cs_type_id id, int w, const uint8_t *p, uint8_t *dst)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
        dst[0] = p[0];
        return;
    case CS_TYPE_FLOAT: {
        uint32_t u = (uint32_t)get_be(p, 4);
        u = (u & 0x80000000u) ? u & 0x7FFFFFFFu : ~u;
        memcpy(dst, &u, 4);
        return;
    }
    case CS_TYPE_DOUBLE: {
        uint64_t u = get_be(p, 8);
        u = (u & 0x8000000000000000ull) ? u & 0x7FFFFFFFFFFFFFFFull : ~u;
        memcpy(dst, &u, 8);
        return;
    }
    case CS_TYPE_DECIMAL: {
        uint64_t hi = get_be(p, 8) ^ 0x8000000000000000ull, lo = get_be(p + 8, 8);
        memcpy(dst, &lo, 8);
        memcpy(dst + 8, &hi, 8);
        return;
    }
    default:
        break;
    }
    uint64_t u = get_be(p, w) ^ (1ull << (8 * w - 1));
    switch (w) {
    case 1:
        dst[0] = (uint8_t)u;
        break;
    case 2: {
        uint16_t v = (uint16_t)u;
        memcpy(dst, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = (uint32_t)u;
        memcpy(dst, &v, 4);
        break;
    }
    default:
        memcpy(dst, &u, 8);
    }
}

/* One column of `type` from the encodings at cur[0..n), moving each cursor past it. */
static cs_column *decode_column(const uint8_t **cur, int64_t n, cs_col_type *type,
                                cs_col_allocator *alloc)
{
    cs_type_id id = type->id;
    cs_col_builder *b = cs_col_builder_new(alloc, type);
    uint8_t *valid = cs_xmalloc((size_t)(n > 0 ? n : 1));
    if (id == CS_TYPE_STRUCT) {
        bool any_null = false;
        for (int64_t i = 0; i < n; i++) {
            valid[i] = *cur[i]++ == 0x01;
            any_null |= !valid[i];
        }
        cs_col_builder_append_structs(b, n, any_null ? valid : NULL);
        cs_column *r = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        free(valid);
        /* the builder's fields are empty: hand it the fields decoded on their own */
        for (int f = 0; f < r->n_children; f++) {
            cs_column_unref(r->children[f]);
            r->children[f] = decode_column(cur, n, type->fields[f].type, alloc);
        }
        return r;
    }
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        cs_sbuf sb = {0};
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *p = cur[i];
            if (*p++ != 0x01) {
                cs_col_builder_append_nulls(b, 1);
                cur[i] = p;
                continue;
            }
            /* runs up to each zero byte: 0x00 0x00 ends the value, 0x00 0xFF is a zero in it */
            size_t run = strlen((const char *)p);
            if (p[run + 1] == 0) { /* no zero inside: the bytes as they stand */
                cs_col_builder_append_string(b, run ? (const void *)p : "", run);
                cur[i] = p + run + 2;
                continue;
            }
            sb.len = 0;
            for (;;) {
                run = strlen((const char *)p);
                bool end = p[run + 1] == 0;
                cs_sbuf_append(&sb, p, end ? run : run + 1);
                p += run + 2;
                if (end) break;
            }
            cs_col_builder_append_string(b, sb.len ? sb.data : "", sb.len);
            cur[i] = p;
        }
        cs_sbuf_free(&sb);
    } else if (id == CS_TYPE_NULL) {
        for (int64_t i = 0; i < n; i++)
            cur[i]++;
        cs_col_builder_append_nulls(b, n);
    } else {
        int w = key_width(id);
        int bw = id == CS_TYPE_BOOLEAN ? 1 : w;
        uint8_t *vals = cs_xcalloc((size_t)(n > 0 ? n : 1), (size_t)bw);
        bool any_null = false;
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *p = cur[i];
            valid[i] = *p++ == 0x01;
            if (valid[i]) {
                decode_fixed(id, w, p, vals + (size_t)bw * (size_t)i);
                p += w;
            } else {
                any_null = true;
            }
            cur[i] = p;
        }
        cs_col_builder_append_values(b, vals, n, any_null ? valid : NULL);
        free(vals);
    }
    free(valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

void cs_sql_keys_decode(const uint8_t *const *rows, int64_t n, cs_col_type *const *types,
                        int n_types, cs_col_allocator *alloc, cs_column **cols)
{
    const uint8_t **cur = cs_xmalloc(sizeof *cur * (size_t)(n > 0 ? n : 1));
    memcpy(cur, rows, sizeof *cur * (size_t)n);
    for (int k = 0; k < n_types; k++)
        cols[k] = decode_column(cur, n, types[k], alloc);
    free(cur);
}

void cs_sql_run_key_set(cs_sql_run_key *rk, const uint8_t *k, size_t kl)
{
    if (kl > rk->cap) {
        rk->cap = kl;
        rk->bytes = cs_xrealloc(rk->bytes, kl);
    }
    if (kl) memcpy(rk->bytes, k, kl);
    rk->len = kl;
    rk->have = true;
}

bool cs_sql_run_key_ends(const cs_sql_run_key *rk, const uint8_t *k, size_t kl)
{
    return rk->have && (kl != rk->len || (kl && memcmp(k, rk->bytes, kl) != 0));
}
