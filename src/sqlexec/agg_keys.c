/*
 * agg_keys.c — the hash aggregate's group keys as words (see agg_keys.h): the layout, a batch's
 * rows as words and hashes, a group's copy of a row, the key columns back from the groups' words
 * and the hash of a row's normalized encoding (sort_keys.c's, written here for the integral and
 * string keys this layout takes) for the spill partitions.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "common/hmap.h"
#include "sqlexec/agg_keys.h"

bool cs_agg_keys_init(cs_agg_keys *l, cs_col_type *const *types, int n_keys)
{
    memset(l, 0, sizeof *l);
    if (n_keys <= 0 || n_keys > CS_AGG_KEYS_MAX) return false;
    int at = 0;
    for (int k = 0; k < n_keys; k++) {
        cs_type_id id = types[k]->id;
        l->at[k] = at;
        l->width[k] = cs_col_type_integral_width(id);
        if (l->width[k]) {
            at += 1;
        } else if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
            at += 2;
            l->n_str++;
        } else {
            return false;
        }
    }
    l->n_keys = n_keys;
    l->wstride = at + 1;
    return true;
}

void cs_agg_keys_batch(const cs_agg_keys *l, const cs_col_batch *b, const cs_sort_key *keys,
                       int64_t n, uint64_t *w, uint64_t *hash)
{
    size_t ws = (size_t)l->wstride;
    uint64_t *nulls = w + ws - 1;
    for (int64_t i = 0; i < n; i++)
        nulls[(size_t)i * ws] = 0;
    for (int k = 0; k < l->n_keys; k++) {
        const cs_column *c = b->columns[keys[k].ordinal];
        uint64_t *o = w + l->at[k];
        if (l->width[k]) {
            cs_sql_key_words(c, n, o, (int)ws);
            if (c->validity)
                for (int64_t i = 0; i < n; i++)
                    if (!cs_column_is_valid(c, i)) {
                        o[(size_t)i * ws] = 0;
                        nulls[(size_t)i * ws] |= 1ull << k;
                    }
            continue;
        }
        /* a plain column's offsets read here; a dictionary's through cs_column_bytes */
        const int32_t *off = c->dictionary ? NULL : cs_column_offsets(c);
        for (int64_t i = 0; i < n; i++) {
            uint64_t *r = o + (size_t)i * ws;
            if (c->validity && !cs_column_is_valid(c, i)) {
                r[0] = r[1] = 0;
                nulls[(size_t)i * ws] |= 1ull << k;
                continue;
            }
            int32_t len;
            const uint8_t *s;
            if (off) {
                len = off[i + 1] - off[i];
                s = len ? c->data + off[i] : NULL;
            } else {
                s = cs_column_bytes(c, i, &len);
            }
            r[0] = (uint64_t)len;
            r[1] = len ? (uint64_t)(uintptr_t)s : 0;
        }
    }
    /* a key's value in the hash: its word, or its bytes' XXH3 (0 for the empty string and for a
     * null: the null bits tell them apart); one string key (a word count's): the same hash
     * without the loop over keys */
    if (l->n_keys == 1 && !l->width[0]) {
        for (int64_t i = 0; i < n; i++) {
            const uint64_t *r = w + (size_t)i * ws;
            uint64_t x = r[0] ? XXH3_64bits((const void *)(uintptr_t)r[1], (size_t)r[0]) : 0;
            hash[i] = cs_hash_mix64(x ^ (r[ws - 1] << 56));
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const uint64_t *r = w + (size_t)i * ws;
        uint64_t h = 0;
        for (int k = 0; k < l->n_keys; k++) {
            const uint64_t *v = r + l->at[k];
            uint64_t x = l->width[k] ? v[0]
                         : v[0]      ? XXH3_64bits((const void *)(uintptr_t)v[1], (size_t)v[0])
                                     : 0;
            h = k == 0 ? cs_hash_mix64(x ^ (r[ws - 1] << 56)) : cs_hash_mix64(h ^ x) + (uint64_t)k;
        }
        hash[i] = h;
    }
}

uint64_t *cs_agg_keys_store_row(const cs_agg_keys *l, const uint64_t *src, cs_sql_arena *arena)
{
    size_t ws = (size_t)l->wstride, bytes = 8 * ws;
    for (int k = 0; k < l->n_keys; k++)
        if (!l->width[k]) bytes += ((size_t)src[l->at[k]] + 7) & ~(size_t)7;
    uint64_t *row = cs_sql_arena_alloc(arena, bytes);
    memcpy(row, src, 8 * ws);
    uint8_t *p = (uint8_t *)(row + ws);
    for (int k = 0; k < l->n_keys; k++) {
        int a = l->at[k];
        if (l->width[k] || src[a] == 0) continue;
        memcpy(p, (const void *)(uintptr_t)src[a + 1], (size_t)src[a]);
        row[a + 1] = (uint64_t)(uintptr_t)p;
        p += ((size_t)src[a] + 7) & ~(size_t)7;
    }
    return row;
}

static void decode_integral(const cs_agg_keys *l, int k, const uint64_t *const *w, int64_t n,
                            uint8_t *vals)
{
    size_t a = (size_t)l->at[k];
    switch (l->width[k]) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            ((int8_t *)vals)[i] = (int8_t)w[i][a];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            ((int16_t *)(void *)vals)[i] = (int16_t)w[i][a];
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            ((int32_t *)(void *)vals)[i] = (int32_t)w[i][a];
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)(void *)vals)[i] = (int64_t)w[i][a];
    }
}

void cs_agg_keys_decode(const cs_agg_keys *l, const uint64_t *const *rows, int64_t n,
                        cs_col_type *const *types, cs_col_allocator *alloc, cs_column **cols)
{
    size_t nr = (size_t)(n > 0 ? n : 1), nw = (size_t)l->wstride - 1;
    uint8_t *vals = cs_xmalloc(8 * nr), *valid = cs_xmalloc(nr);
    for (int k = 0; k < l->n_keys; k++) {
        cs_col_builder *b = cs_col_builder_new(alloc, types[k]);
        if (l->width[k]) {
            bool any_null = false;
            for (int64_t i = 0; i < n; i++) {
                valid[i] = !((rows[i][nw] >> k) & 1);
                any_null |= !valid[i];
            }
            decode_integral(l, k, rows, n, vals);
            cs_col_builder_append_values(b, vals, n, any_null ? valid : NULL);
        } else {
            size_t bytes = 0;
            for (int64_t i = 0; i < n; i++)
                bytes += (size_t)rows[i][l->at[k]];
            cs_col_builder_reserve(b, n, bytes);
            for (int64_t i = 0; i < n; i++) {
                const uint64_t *v = rows[i] + l->at[k];
                if ((rows[i][nw] >> k) & 1)
                    cs_col_builder_append_nulls(b, 1);
                else
                    cs_col_builder_append_string(b, v[0] ? (const void *)(uintptr_t)v[1] : "",
                                                 (size_t)v[0]);
            }
        }
        cols[k] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
    }
    free(vals);
    free(valid);
}

uint64_t cs_agg_keys_encoded_hash(const cs_agg_keys *l, const uint64_t *row)
{
    uint64_t nulls = row[l->wstride - 1];
    size_t need = 0;
    for (int k = 0; k < l->n_keys; k++) {
        const uint64_t *v = row + l->at[k];
        need += 1;
        if ((nulls >> k) & 1) continue;
        if (l->width[k]) {
            need += (size_t)l->width[k];
            continue;
        }
        need += 2 + (size_t)v[0];
        for (uint64_t i = 0; i < v[0]; i++)
            need += ((const uint8_t *)(uintptr_t)v[1])[i] == 0;
    }
    uint8_t stack[256], *key = need <= sizeof stack ? stack : cs_xmalloc(need), *p = key;
    for (int k = 0; k < l->n_keys; k++) {
        const uint64_t *v = row + l->at[k];
        if ((nulls >> k) & 1) {
            *p++ = 0x00;
            continue;
        }
        *p++ = 0x01;
        if (l->width[k]) {
            int bytes = l->width[k];
            uint64_t u = v[0] ^ (1ull << (8 * bytes - 1)); /* the sign bit flipped, big-endian */
            for (int i = bytes - 1; i >= 0; i--) {
                p[i] = (uint8_t)u;
                u >>= 8;
            }
            p += bytes;
            continue;
        }
        const uint8_t *s = (const uint8_t *)(uintptr_t)v[1];
        for (uint64_t i = 0; i < v[0]; i++) { /* each zero byte followed by 0xFF */
            *p++ = s[i];
            if (s[i] == 0) *p++ = 0xFF;
        }
        *p++ = 0;
        *p++ = 0;
    }
    uint64_t h = XXH3_64bits(key, (size_t)(p - key));
    if (key != stack) free(key);
    return h;
}
