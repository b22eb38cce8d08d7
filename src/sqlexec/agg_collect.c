/*
 * agg_collect.c — the aggregates of agg_functions_ext.c that keep their group's values: the
 * state is a vector of 16-byte value forms (cs_sql_agg_load_value's) in the aggregate's arena
 * (geometric growth), hashed for collect_set; the buffer is the array of values. A struct value
 * is kept as its normalized key bytes (sort_keys.c, whose equality is Spark's), copied into the
 * arena as a binary value is, and decoded back when the buffer is made.
 *   collect_list / collect_set   non-null values in arrival order (the set without repeats).
 *   percentile / percentile_disc / median   evaluated over the values sorted as doubles: Spark's
 *       Percentile interpolates between the values at floor and ceil of (n - 1) * p (a double,
 *       or an array of doubles for an array of percentages); percentile_disc is the first
 *       value whose cumulative share reaches p.
 *   mode   the most frequent value, the smallest of those tied (Spark leaves ties to its hash
 *       map's order).
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_ops_internal.h"

/* ---- collect_list / collect_set ---- */

typedef struct cvec {
    uint8_t *el; /* 16-byte value forms */
    int64_t n, cap;
    int32_t *slots; /* collect_set: indices + 1 of el, 0: empty */
    int64_t nslots;
} cvec;

static uint64_t value_hash(cs_type_id id, const uint8_t *v)
{
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        const uint8_t *p;
        int32_t len;
        memcpy(&p, v, sizeof p);
        memcpy(&len, v + 8, 4);
        return XXH3_64bits(len ? p : (const uint8_t *)"", (size_t)len);
    }
    return XXH3_64bits(v, 16);
}

static bool value_same(cs_type_id id, const uint8_t *a, const uint8_t *b)
{
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) return cs_sql_agg_cmp_value(id, a, b) == 0;
    return memcmp(a, b, 16) == 0;
}

static void cvec_slots_put(cvec *v, cs_type_id id, int64_t k)
{
    uint64_t m = (uint64_t)v->nslots - 1, s = value_hash(id, v->el + 16 * k) & m;
    while (v->slots[s])
        s = (s + 1) & m;
    v->slots[s] = (int32_t)(k + 1);
}

/* The type whose 16-byte form the state keeps: a struct is kept as its normalized key bytes
 * (sort_keys.c), held as a binary value is. */
static cs_type_id kept_id(const cs_sql_agg *a)
{
    return a->arg_type->id == CS_TYPE_STRUCT ? CS_TYPE_BINARY : a->arg_type->id;
}

/* Adds one value (cs_sql_agg_load_value's form) to the group's vector at st. */
static void add_value(const cs_sql_agg *a, uint8_t *st, const uint8_t *val, cs_sql_arena *arena)
{
    cs_type_id id = kept_id(a);
    cvec *v;
    memcpy(&v, st, sizeof v);
    if (!v) {
        v = cs_sql_arena_alloc(arena, sizeof *v);
        memset(v, 0, sizeof *v);
        memcpy(st, &v, sizeof v);
    }
    bool set = a->fn == CS_AGG_COLLECT_SET;
    if (set && v->nslots) {
        uint64_t m = (uint64_t)v->nslots - 1, s = value_hash(id, val) & m;
        for (; v->slots[s]; s = (s + 1) & m)
            if (value_same(id, v->el + 16 * (v->slots[s] - 1), val)) return;
    }
    if (v->n == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 4;
        uint8_t *el = cs_sql_arena_alloc(arena, (size_t)cap * 16);
        if (v->n) memcpy(el, v->el, (size_t)v->n * 16);
        v->el = el;
        v->cap = cap;
    }
    cs_sql_agg_keep_value(id, v->el + 16 * v->n, val, arena);
    v->n++;
    if (set) {
        if (2 * v->n > v->nslots) {
            v->nslots = v->nslots ? 2 * v->nslots : 16;
            v->slots = cs_sql_arena_alloc(arena, (size_t)v->nslots * sizeof *v->slots);
            memset(v->slots, 0, (size_t)v->nslots * sizeof *v->slots);
            for (int64_t k = 0; k < v->n; k++)
                cvec_slots_put(v, id, k);
        } else {
            cvec_slots_put(v, id, v->n - 1);
        }
    }
}

void cs_sql_collect_add(const cs_sql_agg *a, uint8_t *st, const cs_column *c, int64_t i,
                        cs_sql_arena *arena)
{
    uint8_t val[16] = {0};
    cs_sql_agg_load_value(c, i, val);
    add_value(a, st, val, arena);
}

void cs_sql_collect_add_rows(const cs_sql_agg *a, uint8_t *states, size_t stride,
                             const int32_t *gid, const int32_t *row_off, const cs_column *c,
                             int64_t row0, int64_t n, cs_sql_arena *arena)
{
    if (a->arg_type->id != CS_TYPE_STRUCT) {
        for (int64_t k = 0; k < n; k++)
            for (int64_t i = row_off ? row_off[k] : row0 + k;
                 i < (row_off ? row_off[k + 1] : row0 + k + 1); i++)
                if (cs_column_is_valid(c, i))
                    cs_sql_collect_add(a, states + (size_t)gid[k] * stride + a->state_off, c, i,
                                       arena);
        return;
    }
    /* every row of c encoded at once, each value then kept as its bytes */
    cs_column *cols[1] = {(cs_column *)c};
    cs_col_batch b = {.schema = NULL, .num_rows = c->length, .n_columns = 1, .columns = cols};
    cs_sort_key key = {.ordinal = 0, .nulls_first = true};
    cs_sql_keybuf kb = {0};
    cs_sql_keys_encode(&kb, &b, &key, 1, false);
    for (int64_t k = 0; k < n; k++)
        for (int64_t i = row_off ? row_off[k] : row0 + k;
             i < (row_off ? row_off[k + 1] : row0 + k + 1); i++) {
            if (!cs_column_is_valid(c, i)) continue;
            uint8_t val[16] = {0};
            const uint8_t *p = kb.bytes + kb.off[i];
            int32_t len = (int32_t)(kb.off[i + 1] - kb.off[i]);
            memcpy(val, &p, sizeof p);
            memcpy(val + 8, &len, 4);
            add_value(a, states + (size_t)gid[k] * stride + a->state_off, val, arena);
        }
    cs_sql_keybuf_free(&kb);
}

cs_column *cs_sql_collect_column(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                 int64_t g0, int64_t n, cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, a->buf_types[0]);
    int32_t *lens = cs_xmalloc(sizeof *lens * (size_t)(n > 0 ? n : 1));
    int64_t total = 0;
    for (int64_t g = 0; g < n; g++) {
        cvec *v;
        memcpy(&v, states + (size_t)(g0 + g) * stride + a->state_off, sizeof v);
        lens[g] = v ? (int32_t)v->n : 0;
        total += lens[g];
    }
    cs_col_builder_append_lists(b, lens, n, NULL);
    /* the elements as the states of a min/max column: one 24-byte row each (value, has) */
    uint8_t *rows = cs_xcalloc((size_t)(total > 0 ? total : 1), 24);
    int64_t k = 0;
    for (int64_t g = 0; g < n; g++) {
        cvec *v;
        memcpy(&v, states + (size_t)(g0 + g) * stride + a->state_off, sizeof v);
        for (int64_t e = 0; v && e < v->n; e++, k++) {
            memcpy(rows + 24 * k, v->el + 16 * e, 16);
            rows[24 * k + 16] = 1;
        }
    }
    cs_column *elems;
    if (a->arg_type->id == CS_TYPE_STRUCT) { /* decoded back from their key bytes */
        const uint8_t **keys = cs_xmalloc(sizeof *keys * (size_t)(total > 0 ? total : 1));
        for (int64_t e = 0; e < total; e++)
            memcpy(&keys[e], rows + 24 * e, sizeof keys[e]);
        cs_sql_keys_decode(keys, total, &a->arg_type, 1, alloc, &elems);
        free(keys);
    } else {
        elems = cs_sql_agg_value_column(a->arg_type, rows, 24, 0, 16, 0, total, alloc);
    }
    free(rows);
    cs_column *list = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    free(lens);
    /* the builder's element child is empty: hand it the gathered elements */
    cs_column_unref(list->children[0]);
    list->children[0] = elems;
    return list;
}

/* ---- percentile (exact), mode: over the collected values ---- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

/* Spark's Percentile.getPercentile over n sorted values; discrete (percentile_disc): the
 * first value whose cumulative share k / n reaches p */
static double percentile_of(const double *v, int64_t n, double p, bool discrete)
{
    if (discrete) {
        int64_t k = (int64_t)ceil(p * (double)n) - 1;
        return v[k < 0 ? 0 : k >= n ? n - 1 : k];
    }
    double pos = (double)(n - 1) * p;
    int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
    if (hi == lo || v[lo] == v[hi]) return v[lo];
    return ((double)hi - pos) * v[lo] + (pos - (double)lo) * v[hi];
}

/* A stored numeric value (cs_sql_agg_load_value's form) as a double. */
static double value_double(const cs_col_type *t, const uint8_t *v)
{
    switch (t->id) {
    case CS_TYPE_BYTE:
        return (int8_t)v[0];
    case CS_TYPE_SHORT: {
        int16_t x;
        memcpy(&x, v, 2);
        return x;
    }
    case CS_TYPE_INT: {
        int32_t x;
        memcpy(&x, v, 4);
        return x;
    }
    case CS_TYPE_FLOAT: {
        float x;
        memcpy(&x, v, 4);
        return x;
    }
    case CS_TYPE_DOUBLE: {
        double x;
        memcpy(&x, v, 8);
        return x;
    }
    case CS_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, v, 16);
        return (double)x / pow(10, t->scale);
    }
    default: {
        int64_t x;
        memcpy(&x, v, 8);
        return (double)x;
    }
    }
}

static cvec *cvec_of(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g)
{
    cvec *v;
    memcpy(&v, states + (size_t)g * stride + a->state_off, sizeof v);
    return v;
}

cs_column *cs_sql_percentile_column(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                    int64_t g0, int64_t n, cs_col_allocator *alloc)
{
    int64_t nn = n > 0 ? n : 1;
    int np = a->n_percentages;
    double *res = cs_xcalloc((size_t)nn * (size_t)np, sizeof *res);
    uint8_t *valid = cs_xmalloc((size_t)nn);
    int32_t *lens = cs_xmalloc(sizeof *lens * (size_t)nn);
    double *vals = NULL;
    int64_t vcap = 0, k = 0;
    for (int64_t i = 0; i < n; i++) {
        cvec *v = cvec_of(a, states, stride, g0 + i);
        valid[i] = v && v->n > 0;
        lens[i] = valid[i] ? np : 0;
        if (!valid[i]) continue;
        if (v->n > vcap) {
            vcap = 2 * v->n;
            vals = cs_xrealloc(vals, sizeof *vals * (size_t)vcap);
        }
        for (int64_t e = 0; e < v->n; e++)
            vals[e] = value_double(a->arg_type, v->el + 16 * e);
        qsort(vals, (size_t)v->n, sizeof *vals, cmp_double);
        for (int q = 0; q < np; q++)
            res[k++] =
                percentile_of(vals, v->n, a->percentages[q], a->fn == CS_AGG_PERCENTILE_DISC);
    }
    cs_col_builder *b = cs_col_builder_new(alloc, a->result_type);
    if (a->pct_array) {
        cs_col_builder_append_lists(b, lens, n, valid);
        cs_col_builder_append_values(cs_col_builder_child(b, 0), res, k, NULL);
    } else {
        double *rows = cs_xcalloc((size_t)nn, sizeof *rows);
        for (int64_t i = 0, j = 0; i < n; i++)
            if (valid[i]) rows[i] = res[j++];
        cs_col_builder_append_values(b, rows, n, valid);
        free(rows);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    free(vals);
    free(res);
    free(valid);
    free(lens);
    return c;
}

static int cmp_value_r(const void *x, const void *y, void *id)
{
    return cs_sql_agg_cmp_value(*(const cs_type_id *)id, x, y);
}

cs_column *cs_sql_mode_column(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                              int64_t n, cs_col_allocator *alloc)
{
    /* one 24-byte row per group (value, has), as cs_sql_agg_value_column reads */
    int64_t nn = n > 0 ? n : 1;
    uint8_t *rows = cs_xcalloc((size_t)nn, 24);
    uint8_t *tmp = NULL;
    int64_t tcap = 0;
    cs_type_id id = a->arg_type->id;
    for (int64_t i = 0; i < n; i++) {
        cvec *v = cvec_of(a, states, stride, g0 + i);
        if (!v || v->n == 0) continue;
        if (v->n > tcap) {
            tcap = 2 * v->n;
            tmp = cs_xrealloc(tmp, (size_t)tcap * 16);
        }
        memcpy(tmp, v->el, (size_t)v->n * 16);
        qsort_r(tmp, (size_t)v->n, 16, cmp_value_r, &id);
        int64_t best = 0, best_n = 0;
        for (int64_t s = 0, e; s < v->n; s = e) {
            for (e = s + 1; e < v->n && cmp_value_r(tmp + 16 * s, tmp + 16 * e, &id) == 0; e++)
                ;
            if (e - s > best_n) {
                best = s;
                best_n = e - s;
            }
        }
        memcpy(rows + 24 * i, tmp + 16 * best, 16);
        rows[24 * i + 16] = 1;
    }
    cs_column *c = cs_sql_agg_value_column(a->result_type, rows, 24, 0, 16, 0, n, alloc);
    free(tmp);
    free(rows);
    return c;
}
