/*
 * flatbuf.h — the small part of FlatBuffers that Arrow's IPC messages need, written here because
 * Debian packages no C FlatBuffers library (flatcc is not in Debian; libflatbuffers is C++ only).
 *
 * Wire format (flatbuffers.dev "internals"): a buffer starts with a uint32 offset to the root
 * table; a table starts with an int32 that, subtracted from the table's position, gives its
 * vtable: uint16 vtable size, uint16 table size, then one uint16 per field id (the field's offset
 * in the table, 0 = absent: the schema's default). Strings, vectors and sub-tables are reached
 * through uint32 offsets relative to where the offset is stored, always forward. Little-endian.
 *
 * Builder: writes back to front as the reference builders do, so that every child (string,
 * vector, table) is finished before the table that points to it; a child is named by the
 * cs_fb_ref it returned. One table is open at a time. Scalars are always written, defaults too.
 * Appends cannot fail (cs_x* allocation). Ownership: the builder is the caller's; the bytes of
 * cs_fb_finish are borrowed until the builder is freed or reset.
 *
 * Reader: every access is bounds-checked against the buffer; a bad offset sets the reader's
 * sticky `bad` flag and reads as absent, so a parser checks `bad` once at the end. Nothing is
 * allocated; results point into the caller's buffer. Used by src/formats/arrow_ipc_*.c.
 */
#ifndef CSPARK_FORMATS_FLATBUF_H
#define CSPARK_FORMATS_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_FB_MAX_FIELDS 16

typedef uint32_t cs_fb_ref; /* a finished object: its distance from the end of the buffer */

typedef struct cs_fb_builder {
    uint8_t *buf;
    size_t cap, head; /* the bytes written are buf[cap - head, cap) */
    size_t minalign;
    size_t table_start;
    uint32_t field_loc[CS_FB_MAX_FIELDS];
    int n_fields;
} cs_fb_builder;

void cs_fb_builder_init(cs_fb_builder *b);
void cs_fb_builder_free(cs_fb_builder *b);
void cs_fb_builder_reset(cs_fb_builder *b);
cs_fb_ref cs_fb_string(cs_fb_builder *b, const char *s, size_t len);
cs_fb_ref cs_fb_vector_refs(cs_fb_builder *b, const cs_fb_ref *refs, size_t n);
/* n inline structs (or scalars) of elem_size bytes each, aligned to align, from data. */
cs_fb_ref cs_fb_vector_structs(cs_fb_builder *b, const void *data, size_t elem_size, size_t n,
                               size_t align);
void cs_fb_table_start(cs_fb_builder *b);
void cs_fb_add_u8(cs_fb_builder *b, int id, uint8_t v);
void cs_fb_add_i16(cs_fb_builder *b, int id, int16_t v);
void cs_fb_add_i32(cs_fb_builder *b, int id, int32_t v);
void cs_fb_add_i64(cs_fb_builder *b, int id, int64_t v);
void cs_fb_add_ref(cs_fb_builder *b, int id, cs_fb_ref ref);
cs_fb_ref cs_fb_table_end(cs_fb_builder *b);
/* Writes the root offset; returns the finished buffer (borrowed), its length in *len. */
const uint8_t *cs_fb_finish(cs_fb_builder *b, cs_fb_ref root, size_t *len);

typedef struct cs_fb_reader {
    const uint8_t *buf;
    size_t len;
    bool bad;
} cs_fb_reader;

typedef struct cs_fb_table {
    cs_fb_reader *r; /* NULL: absent */
    size_t pos, vt;
    uint16_t vt_size, size;
} cs_fb_table;

typedef struct cs_fb_vector {
    cs_fb_reader *r; /* NULL: absent (n = 0) */
    size_t pos;      /* first element */
    uint32_t n;
} cs_fb_vector;

/* The root table (absent, and r->bad set, when the buffer is not a flatbuffer). */
cs_fb_table cs_fb_root(cs_fb_reader *r);
bool cs_fb_has(const cs_fb_table *t, int id);
uint8_t cs_fb_u8(const cs_fb_table *t, int id, uint8_t def);
int16_t cs_fb_i16(const cs_fb_table *t, int id, int16_t def);
int32_t cs_fb_i32(const cs_fb_table *t, int id, int32_t def);
int64_t cs_fb_i64(const cs_fb_table *t, int id, int64_t def);
cs_fb_table cs_fb_table_field(const cs_fb_table *t, int id);
/* A string field: pointer into the buffer (not NUL-terminated) or NULL when absent. */
const char *cs_fb_string_field(const cs_fb_table *t, int id, size_t *len);
/* A vector field of elements of elem_size bytes (4 for tables and strings). */
cs_fb_vector cs_fb_vector_field(const cs_fb_table *t, int id, size_t elem_size);
cs_fb_table cs_fb_vector_table(const cs_fb_vector *v, uint32_t i);
/* Element i of a vector of structs/scalars of elem_size bytes. */
const uint8_t *cs_fb_vector_elem(const cs_fb_vector *v, uint32_t i, size_t elem_size);

static inline int64_t cs_fb_read_i64(const uint8_t *p)
{
    int64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "flatbuf.h reads and writes little-endian values in place"
#endif

#endif /* CSPARK_FORMATS_FLATBUF_H */
