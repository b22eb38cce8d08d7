/*
 * col_builder.h — builds columns in bulk: n values (or nulls, or list lengths, or struct rows)
 * per call, into buffers that grow geometrically from the column's allocator; nothing is
 * allocated per value. cs_col_builder_finish hands the buffers over to a new column (no copy)
 * and leaves the builder empty for the next batch.
 *
 * Shapes by type:
 *   fixed width (byte..double, decimal as 16-byte little-endian, date int32, timestamps int64),
 *   boolean (one byte per value, 0 or 1)      cs_col_builder_append_values
 *   string, binary                            cs_col_builder_append_binary (offsets + bytes) or
 *                                             cs_col_builder_append_string (one value)
 *   array, map                                cs_col_builder_append_lists: n rows of given lengths,
 *                                             then the elements (array: child 0; map: keys child 0,
 *                                             values child 1) appended to the children
 *   struct                                    cs_col_builder_append_structs, then n rows per child
 *   any                                       cs_col_builder_append_nulls (a null struct row
 *                                             appends a null to each field; a null list is empty)
 * `valid` arguments are one byte per row (non-zero = not null), or NULL for all valid. The
 * validity bitmap is made only when the first null arrives.
 *
 * A dictionary builder (cs_col_builder_new_dictionary) takes int32 indices into a string or binary
 * column through cs_col_builder_append_values and finishes a dictionary-encoded column.
 *
 * Ownership: the builder is the caller's (cs_col_builder_free); it holds a type reference and
 * borrows the allocator. Children returned by cs_col_builder_child are borrowed from it.
 * Single-threaded.
 */
#ifndef CSPARK_COLUMNAR_COL_BUILDER_H
#define CSPARK_COLUMNAR_COL_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "columnar/column.h"

typedef struct cs_col_builder cs_col_builder;
struct cs_col_builder {
    cs_col_type *type;
    cs_col_allocator *alloc;
    int64_t length, null_count;
    uint8_t *validity, *values, *data;
    size_t validity_cap, values_cap, data_cap; /* bytes allocated */
    size_t data_len;
    int n_children;
    cs_col_builder **children;
    cs_column *dictionary; /* dictionary builder: the dictionary (a reference) */
};

/* A builder for `type` (a new reference is taken; children builders are made for nested types).
 * alloc NULL: the default allocator. */
cs_col_builder *cs_col_builder_new(cs_col_allocator *alloc, cs_col_type *type);
/* A builder of int32 indices into dictionary (a plain string or binary column; a reference is
 * taken). */
cs_col_builder *cs_col_builder_new_dictionary(cs_col_allocator *alloc, cs_column *dictionary);
void cs_col_builder_free(cs_col_builder *b);
cs_col_builder *cs_col_builder_child(cs_col_builder *b, int i);

/* Room for n more rows (and, for string/binary, data_bytes more bytes) without growing. */
void cs_col_builder_reserve(cs_col_builder *b, int64_t n, size_t data_bytes);
void cs_col_builder_append_nulls(cs_col_builder *b, int64_t n);
/* n fixed-width values (boolean: bytes 0/1; dictionary builder: int32 indices). */
void cs_col_builder_append_values(cs_col_builder *b, const void *values, int64_t n,
                                  const uint8_t *valid);
/* n string/binary values: value i is data[offsets[i]..offsets[i+1]) (offsets[0] may be > 0). */
void cs_col_builder_append_binary(cs_col_builder *b, const int32_t *offsets, const uint8_t *data,
                                  int64_t n, const uint8_t *valid);
void cs_col_builder_append_string(cs_col_builder *b, const void *p, size_t len);
/* n array/map rows with lengths[i] elements each (a null row must have length 0). */
void cs_col_builder_append_lists(cs_col_builder *b, const int32_t *lengths, int64_t n,
                                 const uint8_t *valid);
/* n struct rows; the caller then appends n rows to every child. */
void cs_col_builder_append_structs(cs_col_builder *b, int64_t n, const uint8_t *valid);
/* The column built so far (one reference), the builder emptied for reuse. */
cs_column *cs_col_builder_finish(cs_col_builder *b);

#endif /* CSPARK_COLUMNAR_COL_BUILDER_H */
