/*
 * col_builder.c — bulk column builders (see col_builder.h). Called by the format readers, the
 * operators that produce batches and the tests.
 */
#include "columnar/col_builder.h"

#include <stdlib.h>
#include <string.h>

static void ensure(cs_col_builder *b, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t n = *cap ? *cap * 2 : 64;
    if (n < need) n = need;
    *buf = cs_col_buffer_realloc(b->alloc, *buf, *cap, n);
    *cap = n;
}

static void set_bits(uint8_t *bits, int64_t start, int64_t n, bool v)
{
    int64_t i = start, end = start + n;
    for (; i < end && (i & 7); i++)
        cs_bit_set(bits, i, v);
    if (end - i >= 8) {
        memset(bits + i / 8, v ? 0xff : 0, (size_t)((end - i) / 8));
        i += (end - i) / 8 * 8;
    }
    for (; i < end; i++)
        cs_bit_set(bits, i, v);
}

cs_col_builder *cs_col_builder_new(cs_col_allocator *alloc, cs_col_type *type)
{
    cs_col_builder *b = cs_xcalloc(1, sizeof *b);
    b->type = cs_col_type_ref(type);
    b->alloc = alloc ? alloc : cs_col_default_allocator();
    b->n_children = type->n_fields;
    if (b->n_children) {
        b->children = cs_xcalloc((size_t)b->n_children, sizeof *b->children);
        for (int i = 0; i < b->n_children; i++)
            b->children[i] = cs_col_builder_new(b->alloc, type->fields[i].type);
    }
    return b;
}

cs_col_builder *cs_col_builder_new_dictionary(cs_col_allocator *alloc, cs_column *dictionary)
{
    cs_col_builder *b = cs_col_builder_new(alloc, dictionary->type);
    b->dictionary = cs_column_ref(dictionary);
    return b;
}

static void release_buffers(cs_col_builder *b)
{
    cs_col_buffer_free(b->alloc, b->validity, b->validity_cap);
    cs_col_buffer_free(b->alloc, b->values, b->values_cap);
    cs_col_buffer_free(b->alloc, b->data, b->data_cap);
}

void cs_col_builder_free(cs_col_builder *b)
{
    if (!b) return;
    release_buffers(b);
    for (int i = 0; i < b->n_children; i++)
        cs_col_builder_free(b->children[i]);
    free(b->children);
    cs_column_unref(b->dictionary);
    cs_col_type_unref(b->type);
    free(b);
}

cs_col_builder *cs_col_builder_child(cs_col_builder *b, int i)
{
    return i >= 0 && i < b->n_children ? b->children[i] : NULL;
}

/* bytes of `values` that rows [0, rows) need */
static size_t values_bytes(const cs_col_builder *b, int64_t rows)
{
    if (b->dictionary) return (size_t)rows * 4;
    cs_type_id id = b->type->id;
    if (id == CS_TYPE_BOOLEAN) return (size_t)(rows + 7) / 8;
    if (cs_col_type_has_offsets(id)) return (size_t)(rows + 1) * 4;
    return (size_t)rows * (size_t)cs_col_type_width(id);
}

void cs_col_builder_reserve(cs_col_builder *b, int64_t n, size_t data_bytes)
{
    ensure(b, &b->values, &b->values_cap, values_bytes(b, b->length + n));
    if (b->validity) ensure(b, &b->validity, &b->validity_cap, (size_t)(b->length + n + 7) / 8);
    if (data_bytes) ensure(b, &b->data, &b->data_cap, b->data_len + data_bytes);
}

/* Records the validity of rows [length, length + n) */
static void note_validity(cs_col_builder *b, const uint8_t *valid, int64_t n)
{
    int64_t nulls = 0;
    if (valid)
        for (int64_t i = 0; i < n; i++)
            nulls += !valid[i];
    if (!b->validity && nulls == 0) return;
    size_t had = b->validity_cap;
    ensure(b, &b->validity, &b->validity_cap, (size_t)(b->length + n + 7) / 8);
    if (had == 0) set_bits(b->validity, 0, b->length, true);
    if (!valid || nulls == 0) {
        set_bits(b->validity, b->length, n, true);
    } else {
        for (int64_t i = 0; i < n; i++)
            cs_bit_set(b->validity, b->length + i, valid[i] != 0);
    }
    b->null_count += nulls;
}

static int32_t *offsets(cs_col_builder *b)
{
    return (int32_t *)(void *)b->values;
}

void cs_col_builder_append_nulls(cs_col_builder *b, int64_t n)
{
    if (n <= 0) return;
    cs_col_builder_reserve(b, n, 0);
    size_t had = b->validity_cap;
    ensure(b, &b->validity, &b->validity_cap, (size_t)(b->length + n + 7) / 8);
    if (had == 0) set_bits(b->validity, 0, b->length, true);
    set_bits(b->validity, b->length, n, false);
    cs_type_id id = b->type->id;
    if (b->dictionary) {
        memset(b->values + b->length * 4, 0, (size_t)n * 4);
    } else if (cs_col_type_has_offsets(id)) {
        int32_t *off = offsets(b), last = off[b->length];
        for (int64_t i = 1; i <= n; i++)
            off[b->length + i] = last;
    } else if (id == CS_TYPE_BOOLEAN) {
        set_bits(b->values, b->length, n, false);
    } else if (id == CS_TYPE_STRUCT) {
        for (int i = 0; i < b->n_children; i++)
            cs_col_builder_append_nulls(b->children[i], n);
    } else {
        int w = cs_col_type_width(id);
        if (w > 0) /* the null type has no values buffer at all */
            memset(b->values + b->length * w, 0, (size_t)n * (size_t)w);
    }
    b->length += n;
    b->null_count += n;
}

void cs_col_builder_append_values(cs_col_builder *b, const void *values, int64_t n,
                                  const uint8_t *valid)
{
    if (n <= 0) return;
    cs_col_builder_reserve(b, n, 0);
    note_validity(b, valid, n);
    const uint8_t *v = values;
    if (!b->dictionary && b->type->id == CS_TYPE_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            cs_bit_set(b->values, b->length + i, v[i] != 0);
    } else {
        size_t w = b->dictionary ? 4 : (size_t)cs_col_type_width(b->type->id);
        /* a type without values (the null type) has no values buffer to copy into */
        if (w) memcpy(b->values + (size_t)b->length * w, v, (size_t)n * w);
    }
    b->length += n;
}

void cs_col_builder_append_binary(cs_col_builder *b, const int32_t *src_off, const uint8_t *data,
                                  int64_t n, const uint8_t *valid)
{
    if (n <= 0) return;
    size_t bytes = (size_t)(src_off[n] - src_off[0]);
    cs_col_builder_reserve(b, n, bytes);
    note_validity(b, valid, n);
    if (bytes) memcpy(b->data + b->data_len, data + src_off[0], bytes);
    int32_t *off = offsets(b);
    int32_t shift = (int32_t)b->data_len - src_off[0];
    for (int64_t i = 1; i <= n; i++)
        off[b->length + i] = src_off[i] + shift;
    b->data_len += bytes;
    b->length += n;
}

void cs_col_builder_append_string(cs_col_builder *b, const void *p, size_t len)
{
    int32_t off[2] = {0, (int32_t)len};
    cs_col_builder_append_binary(b, off, p, 1, NULL);
}

void cs_col_builder_append_lists(cs_col_builder *b, const int32_t *lengths, int64_t n,
                                 const uint8_t *valid)
{
    if (n <= 0) return;
    cs_col_builder_reserve(b, n, 0);
    note_validity(b, valid, n);
    int32_t *off = offsets(b);
    for (int64_t i = 0; i < n; i++)
        off[b->length + i + 1] = off[b->length + i] + lengths[i];
    b->length += n;
}

void cs_col_builder_append_structs(cs_col_builder *b, int64_t n, const uint8_t *valid)
{
    if (n <= 0) return;
    note_validity(b, valid, n);
    b->length += n;
}

cs_column *cs_col_builder_finish(cs_col_builder *b)
{
    if (cs_col_type_has_offsets(b->type->id) && !b->dictionary)
        ensure(b, &b->values, &b->values_cap, 4); /* offsets[0] of an empty column */
    cs_column *c = cs_column_new_raw(b->alloc, cs_col_type_ref(b->type), b->length);
    c->null_count = b->null_count;
    c->validity = b->validity;
    c->validity_size = b->validity_cap;
    c->values = b->values;
    c->values_size = b->values_cap;
    c->data = b->data;
    c->data_size = b->data_cap;
    c->dictionary = cs_column_ref(b->dictionary);
    if (b->n_children) {
        c->n_children = b->n_children;
        c->children = cs_xcalloc((size_t)b->n_children, sizeof *c->children);
        for (int i = 0; i < b->n_children; i++)
            c->children[i] = cs_col_builder_finish(b->children[i]);
    }
    b->validity = b->values = b->data = NULL;
    b->validity_cap = b->values_cap = b->data_cap = b->data_len = 0;
    b->length = b->null_count = 0;
    return c;
}
