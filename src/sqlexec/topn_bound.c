/*
 * topn_bound.c — a top-N's running bound shared with the scan under it (see topn_bound.h).
 *
 * The bound is the normalized encoding (sort_keys.c) of the worst kept row's whole sort key,
 * copied; a candidate's first key is encoded the same way, and since the encoding of one key
 * column is self-delimiting, memcmp over the candidate's bytes tells whether its first key sorts
 * after the bound's (> 0: it cannot enter), equal (a tie: kept) or before. The first key's value
 * is also kept as a scalar for row group statistics.
 *
 * Sharing between the tasks of a stage: the tasks of one stage build equal trees, and the rows
 * of every task meet in one final TopN, so a row that cannot beat the limit + offset rows some
 * task of the stage already holds cannot be in the answer either. Handles attached with the same
 * identity (the encoded TopN subtree, its files included, with the ANSI mode and time zone that
 * decide its condition) while one of them is alive share one process-wide slot under a mutex:
 * a TopN's key replaces the slot's only when it sorts before it, and each handle copies the
 * slot's key when its version moved. A slot goes with its last handle, so trees that are not
 * alive at the same time never share (files read later may have changed).
 *
 * Ownership: a handle owns its key copy, its column name, its identity, its scratch and one
 * user count of its slot; the registry owns the slots. Handles are used by one thread.
 */
#include "sqlexec/topn_bound.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/sql_ops_internal.h"

/* one key and its first column's value (a slot's or a handle's copy) */
typedef struct bound_key {
    bool known;
    uint8_t *bytes;
    size_t len, cap;
    bool has_value;
    cs_scalar value; /* data: value_data */
    uint8_t *value_data;
    size_t value_cap;
} bound_key;

typedef struct slot {
    uint8_t *id;
    size_t id_len;
    int users;
    uint64_t version;
    bound_key key;
    struct slot *next;
} slot;

struct cs_sql_topn_bound {
    int refs;
    cs_sort_key key;
    char *column;
    uint8_t *id; /* identity until attached */
    size_t id_len;
    slot *slot;    /* NULL before attach (or without an identity): own is the bound */
    uint64_t seen; /* the slot's version copied into own */
    bound_key own;
    cs_sql_keybuf kb; /* scratch: a batch's encoded first keys */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *registry;

static void key_free(bound_key *k)
{
    free(k->bytes);
    free(k->value_data);
}

static void key_copy(bound_key *dst, const bound_key *src)
{
    if (src->len > dst->cap) {
        dst->cap = src->len;
        dst->bytes = cs_xrealloc(dst->bytes, dst->cap);
    }
    if (src->len) memcpy(dst->bytes, src->bytes, src->len);
    dst->len = src->len;
    dst->known = src->known;
    dst->has_value = src->has_value;
    dst->value = src->value;
    if (src->has_value && src->value.data) {
        if ((size_t)src->value.len + 1 > dst->value_cap) {
            dst->value_cap = (size_t)src->value.len + 1;
            dst->value_data = cs_xrealloc(dst->value_data, dst->value_cap);
        }
        if (src->value.len) memcpy(dst->value_data, src->value.data, (size_t)src->value.len);
        dst->value.data = dst->value_data;
    }
}

cs_sql_topn_bound *cs_sql_topn_bound_new(cs_sort_key key, const char *column, const uint8_t *id,
                                         size_t id_len)
{
    cs_sql_topn_bound *tb = cs_xcalloc(1, sizeof *tb);
    tb->refs = 1;
    tb->key = key;
    tb->column = cs_xstrdup(column);
    if (id && id_len) {
        tb->id = cs_xmalloc(id_len);
        memcpy(tb->id, id, id_len);
        tb->id_len = id_len;
    }
    return tb;
}

void cs_sql_topn_bound_attach(cs_sql_topn_bound *tb, bool ansi, const char *session_tz)
{
    if (tb->slot || !tb->id) return;
    /* the identity: the subtree, then what decides its condition's value */
    size_t tz = session_tz ? strlen(session_tz) : 0;
    size_t n = tb->id_len + 1 + tz;
    uint8_t *id = cs_xmalloc(n);
    memcpy(id, tb->id, tb->id_len);
    id[tb->id_len] = ansi ? 1 : 0;
    if (tz) memcpy(id + tb->id_len + 1, session_tz, tz);
    pthread_mutex_lock(&registry_lock);
    slot *s = registry;
    while (s && (s->id_len != n || memcmp(s->id, id, n) != 0))
        s = s->next;
    if (!s) {
        s = cs_xcalloc(1, sizeof *s);
        s->id = id;
        s->id_len = n;
        s->next = registry;
        registry = s;
        id = NULL;
    }
    s->users++;
    tb->slot = s;
    pthread_mutex_unlock(&registry_lock);
    free(id);
}

cs_sql_topn_bound *cs_sql_topn_bound_ref(cs_sql_topn_bound *tb)
{
    tb->refs++;
    return tb;
}

void cs_sql_topn_bound_unref(cs_sql_topn_bound *tb)
{
    if (!tb || --tb->refs > 0) return;
    if (tb->slot) {
        pthread_mutex_lock(&registry_lock);
        if (--tb->slot->users == 0) {
            slot **p = &registry;
            while (*p != tb->slot)
                p = &(*p)->next;
            *p = tb->slot->next;
            key_free(&tb->slot->key);
            free(tb->slot->id);
            free(tb->slot);
        }
        pthread_mutex_unlock(&registry_lock);
    }
    free(tb->column);
    free(tb->id);
    key_free(&tb->own);
    cs_sql_keybuf_free(&tb->kb);
    free(tb);
}

/* The value of row `row` of c as k's scalar (false: null, or a type statistics do not order
 * as the sort does). */
static bool scalar_at(bound_key *k, const cs_column *c, int64_t row)
{
    cs_scalar *s = &k->value;
    memset(s, 0, sizeof *s);
    s->type = c->type->id;
    if (!cs_column_is_valid(c, row)) return false;
    const uint8_t *v = c->values;
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        s->i64 = ((const int8_t *)v)[row];
        return true;
    case CS_TYPE_SHORT:
        s->i64 = ((const int16_t *)(const void *)v)[row];
        return true;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        s->i64 = ((const int32_t *)(const void *)v)[row];
        return true;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        s->i64 = ((const int64_t *)(const void *)v)[row];
        return true;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, row, &len);
        if ((size_t)len + 1 > k->value_cap) {
            k->value_cap = (size_t)len + 1;
            k->value_data = cs_xrealloc(k->value_data, k->value_cap);
        }
        if (len) memcpy(k->value_data, p, (size_t)len);
        s->data = k->value_data;
        s->len = len;
        return true;
    }
    default: /* floating point (NaN orders last in Spark), decimals: no row group skipping */
        return false;
    }
}

/* Whether key[0..len) sorts before k's (or k has none). */
static bool tighter(const bound_key *k, const uint8_t *key, size_t len)
{
    if (!k->known) return true;
    int c = memcmp(key, k->bytes, len < k->len ? len : k->len);
    return c < 0 || (c == 0 && len < k->len);
}

void cs_sql_topn_bound_set(cs_sql_topn_bound *tb, const cs_col_batch *b, int64_t row,
                           const uint8_t *key, size_t len)
{
    if (!tighter(&tb->own, key, len)) return;
    bound_key *k = &tb->own;
    if (len > k->cap) {
        k->cap = len > 2 * k->cap ? len : 2 * k->cap;
        k->bytes = cs_xrealloc(k->bytes, k->cap);
    }
    if (len) memcpy(k->bytes, key, len);
    k->len = len;
    k->known = true;
    k->has_value = scalar_at(k, b->columns[tb->key.ordinal], row);
    if (!tb->slot) return;
    pthread_mutex_lock(&registry_lock);
    bound_key *sk = &tb->slot->key;
    if (tighter(sk, k->bytes, k->len)) {
        key_copy(sk, k);
        tb->slot->version++;
    } else if (sk->known && tighter(k, sk->bytes, sk->len)) {
        key_copy(k, sk); /* another task's is tighter still */
    }
    tb->seen = tb->slot->version;
    pthread_mutex_unlock(&registry_lock);
}

/* Copies the slot's key when another handle tightened it. */
static void refresh(cs_sql_topn_bound *tb)
{
    if (!tb->slot) return;
    pthread_mutex_lock(&registry_lock);
    if (tb->slot->version != tb->seen) {
        tb->seen = tb->slot->version;
        if (tb->slot->key.known && tighter(&tb->own, tb->slot->key.bytes, tb->slot->key.len))
            key_copy(&tb->own, &tb->slot->key);
    }
    pthread_mutex_unlock(&registry_lock);
}

bool cs_sql_topn_bound_may_pass(cs_sql_topn_bound *tb, const cs_col_batch *b, int key_ordinal,
                                const int32_t *sel, int64_t n)
{
    refresh(tb);
    const bound_key *k = &tb->own;
    if (!k->known) return n > 0;
    if (n <= 0) return false;
    cs_sort_key sk = tb->key;
    sk.ordinal = key_ordinal;
    cs_sql_keys_encode(&tb->kb, b, &sk, 1, false);
    const int64_t *off = tb->kb.off;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = sel ? sel[i] : i;
        size_t len = (size_t)(off[r + 1] - off[r]);
        if (memcmp(tb->kb.bytes + off[r], k->bytes, len < k->len ? len : k->len) <= 0) return true;
    }
    return false;
}

bool cs_sql_topn_bound_filter(cs_sql_topn_bound *tb, cs_scan_filter *f, bool *nulls_pass)
{
    refresh(tb);
    if (!tb->own.known || !tb->own.has_value) return false;
    *f = (cs_scan_filter){tb->column, tb->key.descending ? CS_FILTER_GE : CS_FILTER_LE,
                          &tb->own.value, 1};
    *nulls_pass = tb->key.nulls_first;
    return true;
}
