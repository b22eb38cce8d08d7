/*
 * column.h — one column of a batch in Arrow's memory layout, and the batch itself.
 *
 * A cs_column holds `length` values of one type (col_type.h) in up to three 64-byte aligned
 * buffers from a cs_col_allocator (col_memory.h):
 *   validity  bit i (LSB first) set = row i is not null; NULL when the column has no nulls
 *   values    fixed-width values (boolean: a bitmap), or int32 offsets[length + 1] for string,
 *             binary, array and map (value i spans offsets[i]..offsets[i+1] of data / the children)
 *   data      the bytes of string and binary values
 * and children: array -> 1 (elements), map -> 2 (keys, values; Arrow's entries struct implied),
 * struct -> one per field, each `length` long. A string or binary column may stay
 * dictionary-encoded: then `dictionary` is a plain string/binary column without nulls (a null row
 * is null in the column's own bitmap) and `values` holds int32
 * indices into it (cs_column_decode turns it into a plain column when an operator needs the
 * bytes). Every buffer's size is recorded, so whoever made the column need not be asked to free it.
 *
 * A cs_col_batch is a schema (a struct type: one field per column) plus columns plus a row
 * count. Columns and batches are immutable once built and reference counted: a batch moves by
 * reference (cs_col_batch_ref), a projection shares its columns, nothing is copied per row.
 * Counters are atomic, so a batch may be handed to another thread; the last unref frees the
 * buffers into their allocator (see col_memory.h for the task-memory rule).
 *
 * Ownership: constructors return one reference; functions that take a column or type "over"
 * say so; accessors return borrowed pointers valid while the caller holds its reference.
 */
#ifndef CSPARK_COLUMNAR_COLUMN_H
#define CSPARK_COLUMNAR_COLUMN_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_memory.h"
#include "columnar/col_type.h"
#include "common/err.h"

typedef struct cs_column cs_column;
struct cs_column {
    _Atomic int32_t refs;
    cs_col_type *type; /* one reference held */
    cs_col_allocator *alloc;
    int64_t length;
    int64_t null_count;
    uint8_t *validity, *values, *data;
    size_t validity_size, values_size, data_size; /* bytes requested from alloc (for freeing) */
    int n_children;
    cs_column **children;
    cs_column *dictionary; /* string/binary kept encoded: values are int32 indices */
};

/* An empty column of `type` (takes over the type reference) whose buffers the caller fills,
 * allocating them from alloc (NULL: the default allocator) and recording their sizes. For the
 * readers of src/formats and the builders; everyone else uses a builder. */
cs_column *cs_column_new_raw(cs_col_allocator *alloc, cs_col_type *type, int64_t length);
cs_column *cs_column_ref(cs_column *c);
void cs_column_unref(cs_column *c);

static inline bool cs_column_is_valid(const cs_column *c, int64_t i)
{
    return !c->validity || (c->validity[i >> 3] >> (i & 7)) & 1;
}
static inline bool cs_bit_get(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void cs_bit_set(uint8_t *bits, int64_t i, bool v)
{
    if (v)
        bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}
static inline const int32_t *cs_column_offsets(const cs_column *c)
{
    return (const int32_t *)(const void *)c->values;
}
/* Bytes of string/binary value i (dictionary-encoded or not); *len set. Borrowed. Inline: the
 * kernels, gathers and aggregates call it once per row. */
static inline const uint8_t *cs_column_bytes(const cs_column *c, int64_t i, int32_t *len)
{
    if (c->dictionary) {
        i = ((const int32_t *)(const void *)c->values)[i];
        c = c->dictionary;
    }
    const int32_t *off = cs_column_offsets(c);
    *len = off[i + 1] - off[i];
    return c->data ? c->data + off[i] : (const uint8_t *)""; /* all values empty: no bytes */
}
/* A plain copy of a dictionary-encoded column (a new reference to c when it is not encoded). */
cs_column *cs_column_decode(const cs_column *c, cs_col_allocator *alloc);
/* Checks the column's invariants (buffer sizes against length and offsets, offsets rising and
 * inside data/children, dictionary indices in range, children's lengths, null_count): 0 or
 * CS_EINVAL naming what is wrong. Readers call it on everything they did not build. */
int cs_column_validate(const cs_column *c, cs_error *err);
/* Same logical values, nulls and type (an encoded column equals its decoded form). */
bool cs_column_equal(const cs_column *a, const cs_column *b);
/* Bytes held by the column's buffers and children (capacities, dictionaries included). */
int64_t cs_column_memory(const cs_column *c);

typedef struct cs_col_batch {
    _Atomic int32_t refs;
    cs_col_type *schema; /* a struct type */
    int64_t num_rows;
    int n_columns;
    cs_column **columns;
} cs_col_batch;

/* Takes over the schema reference and the n column references (also on failure, which frees
 * them). Fails when n differs from the schema's fields, a column's type is not its field's, or
 * a length is not num_rows. */
cs_col_batch *cs_col_batch_new(cs_col_type *schema, cs_column **columns, int n, int64_t num_rows,
                               cs_error *err);
cs_col_batch *cs_col_batch_ref(cs_col_batch *b);
void cs_col_batch_unref(cs_col_batch *b);
/* A batch of the columns at idx[0..n) (shared, not copied); NULL + err on a bad index. */
cs_col_batch *cs_col_batch_project(cs_col_batch *b, const int *idx, int n, cs_error *err);
bool cs_col_batch_equal(const cs_col_batch *a, const cs_col_batch *b);
int64_t cs_col_batch_memory(const cs_col_batch *b);

#endif /* CSPARK_COLUMNAR_COLUMN_H */
