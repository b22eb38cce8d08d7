/* thrift_compact.h — Apache Thrift's compact protocol, reader and writer, as Parquet uses it for
 * its footer (FileMetaData) and page headers (parquet_meta.c decodes and encodes those structs
 * with these calls). Only what Parquet needs: structs, lists, binary, integers, doubles, bools;
 * sets and maps are skipped correctly but never produced.
 *
 * The reader never reads past its buffer: every read checks the bytes left and fails with
 * CS_EPROTO and a message saying what was truncated or malformed (varint too long, nesting deeper
 * than CS_THRIFT_MAX_DEPTH, a list longer than the bytes that could hold it). The first error
 * sticks: later reads return it again, so a decoder may check once at the end of a struct.
 *
 * Ownership: a reader borrows its buffer; binary values it returns point into that buffer and
 * live as long as it does. A writer appends to a caller-owned cs_sbuf.
 */
#ifndef CSPARK_FORMATS_PARQUET_THRIFT_COMPACT_H
#define CSPARK_FORMATS_PARQUET_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

#define CS_THRIFT_MAX_DEPTH 64 /* nested structs/lists; Parquet's deepest is ~6 */

enum {
    CS_THRIFT_STOP = 0,
    CS_THRIFT_TRUE = 1, /* a bool field's value lives in its type nibble */
    CS_THRIFT_FALSE = 2,
    CS_THRIFT_I8 = 3,
    CS_THRIFT_I16 = 4,
    CS_THRIFT_I32 = 5,
    CS_THRIFT_I64 = 6,
    CS_THRIFT_DOUBLE = 7,
    CS_THRIFT_BINARY = 8,
    CS_THRIFT_LIST = 9,
    CS_THRIFT_SET = 10,
    CS_THRIFT_MAP = 11,
    CS_THRIFT_STRUCT = 12
};

typedef struct cs_thrift_reader {
    const uint8_t *p, *end, *start;
    int depth;
    int rc;        /* CS_OK until the first error */
    cs_error *err; /* may be NULL */
} cs_thrift_reader;

void cs_thrift_reader_init(cs_thrift_reader *r, const void *buf, size_t len, cs_error *err);
/* Bytes consumed so far. */
static inline size_t cs_thrift_reader_pos(const cs_thrift_reader *r)
{
    return (size_t)(r->p - r->start);
}
/* Records a decoding error (the first one sticks); returns CS_EPROTO. */
int cs_thrift_fail(cs_thrift_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Struct framing: struct_begin before the first field (depth check), struct_end after STOP.
 * field_next reads one field header: returns 1 with *type and *id, 0 at STOP, <0 on error.
 * *last_id is the struct's previous field id (start it at 0). */
int cs_thrift_struct_begin(cs_thrift_reader *r);
void cs_thrift_struct_end(cs_thrift_reader *r);
int cs_thrift_field_next(cs_thrift_reader *r, int16_t *last_id, int *type, int16_t *id);

/* Values. A read of the wrong wire type fails (the caller passes the field's type). Each returns
 * r->rc (0 or the sticky error) and leaves *out zero on error. */
int cs_thrift_read_bool(cs_thrift_reader *r, int type, bool *out);
int cs_thrift_read_i32(cs_thrift_reader *r, int type, int32_t *out); /* accepts I8, I16, I32 */
int cs_thrift_read_i64(cs_thrift_reader *r, int type, int64_t *out); /* any integer type */
int cs_thrift_read_double(cs_thrift_reader *r, int type, double *out);
int cs_thrift_read_binary(cs_thrift_reader *r, int type, const uint8_t **ptr, uint32_t *len);
/* A list header: its element type and size; the size is checked against the bytes left (every
 * element takes at least one byte, bools and empty structs included). */
int cs_thrift_read_list(cs_thrift_reader *r, int type, int *elem_type, uint32_t *size);
/* Skips one value of the given type (nested values included, depth-limited). */
int cs_thrift_skip(cs_thrift_reader *r, int type);

/* ---- writer ---- */
typedef struct cs_thrift_writer {
    cs_sbuf *out;
    int16_t last_id[CS_THRIFT_MAX_DEPTH];
    int depth;
} cs_thrift_writer;

void cs_thrift_writer_init(cs_thrift_writer *w, cs_sbuf *out);
void cs_thrift_write_struct_begin(cs_thrift_writer *w);
void cs_thrift_write_struct_end(cs_thrift_writer *w); /* writes STOP */
void cs_thrift_write_field(cs_thrift_writer *w, int type, int16_t id);
void cs_thrift_write_bool_field(cs_thrift_writer *w, int16_t id, bool v);
void cs_thrift_write_i32_field(cs_thrift_writer *w, int16_t id, int32_t v);
void cs_thrift_write_i64_field(cs_thrift_writer *w, int16_t id, int64_t v);
void cs_thrift_write_double_field(cs_thrift_writer *w, int16_t id, double v);
void cs_thrift_write_binary_field(cs_thrift_writer *w, int16_t id, const void *p, uint32_t len);
/* List header (values follow with the plain writers below). */
void cs_thrift_write_list_begin(cs_thrift_writer *w, int elem_type, uint32_t size);
void cs_thrift_write_varint(cs_thrift_writer *w, uint64_t v);
void cs_thrift_write_zigzag(cs_thrift_writer *w, int64_t v);
void cs_thrift_write_binary(cs_thrift_writer *w, const void *p, uint32_t len);

#endif /* CSPARK_FORMATS_PARQUET_THRIFT_COMPACT_H */
