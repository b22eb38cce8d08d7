/*
 * field_chunk.h — Spark data types as a small type tree (cs_ftype) and a chunk of records as
 * typed columns (cs_field_chunk): the flat interface the CSV and JSON readers fill and their
 * writers read, until the column batch (src/columnar/) takes their place.
 *
 * Types: Spark's names and simpleString() text (`struct<a:int,b:array<bigint>>`), DDL parsing of
 * a user schema ("a INT, b DECIMAL(10,2), c STRING"), and the merge of inferred types is in
 * text_values.h. A chunk holds up to `capacity` rows; each column keeps one array of its kind:
 *   boolean/byte/short/int/long  i64 (0/1 for booleans)  date  i64 days since 1970-01-01
 *   timestamp         i64 microseconds UTC          double/float f64 (float: rounded to float)
 *   timestamp_ntz     i64 microseconds (local)
 *   decimal(p,s)      dec (unscaled 128-bit)         string/binary offsets[rows+1] + bytes
 *   struct/array/map  nested (jansson values, JSON only; owned references)
 * plus a null flag per row. Rows are written in place at index `rows` and kept by
 * cs_field_chunk_commit_row, or dropped (their string bytes and nested values released) by
 * cs_field_chunk_discard_row: a reader's DROPMALFORMED mode never copies a row. Nothing is
 * allocated per record: arrays grow by doubling and are reused after cs_field_chunk_reset.
 *
 * Callers: formats/csv, formats/json, their tools and tests. Ownership: cs_ftype trees are owned
 * by whoever made them (cs_ftype_free); a chunk borrows its schema, which must outlive it.
 */
#ifndef CSPARK_FORMATS_FIELD_CHUNK_H
#define CSPARK_FORMATS_FIELD_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

typedef enum cs_ftype_kind {
    CS_FT_NULL, /* only during inference: no value seen yet */
    CS_FT_BOOLEAN,
    CS_FT_INT,
    CS_FT_LONG,
    CS_FT_DECIMAL,
    CS_FT_DOUBLE,
    CS_FT_DATE,
    CS_FT_TIMESTAMP,
    CS_FT_STRING,
    CS_FT_ARRAY,
    CS_FT_STRUCT,
    CS_FT_BYTE,          /* tinyint */
    CS_FT_SHORT,         /* smallint */
    CS_FT_FLOAT,         /* float: a double rounded to float in f64 */
    CS_FT_TIMESTAMP_NTZ, /* timestamp_ntz: i64 microseconds of the local date-time */
    CS_FT_BINARY,        /* binary: bytes as a string column's */
    CS_FT_MAP            /* map<key,element>: JSON only, keys read as strings */
} cs_ftype_kind;

#define CS_DECIMAL_MAX_PRECISION 38

typedef struct cs_ftype {
    cs_ftype_kind kind;
    int precision, scale;     /* decimal */
    struct cs_ftype *element; /* array; map: the value type */
    struct cs_ftype *key;     /* map */
    int nfields;              /* struct */
    char **names;
    struct cs_ftype **fields;
} cs_ftype;

cs_ftype *cs_ftype_new(cs_ftype_kind kind);
cs_ftype *cs_ftype_decimal_new(int precision, int scale);
cs_ftype *cs_ftype_copy(const cs_ftype *t);
void cs_ftype_free(cs_ftype *t);
bool cs_ftype_equal(const cs_ftype *a, const cs_ftype *b);
/* Appends a field (takes ownership of type; copies name). */
void cs_ftype_add_field(cs_ftype *st, const char *name, cs_ftype *type);
/* Index of a field by exact name, or -1. */
int cs_ftype_field_index(const cs_ftype *st, const char *name);
/* Spark's simpleString: tinyint, smallint, int, bigint, float, double, decimal(10,2), string,
 * boolean, date, timestamp, timestamp_ntz, binary, void, array<...>, struct<a:int,...>,
 * map<string,int>. */
void cs_ftype_simple_string(const cs_ftype *t, cs_sbuf *out);
/* A schema in Spark's DDL form, "a INT, b DECIMAL(10,2), s STRUCT<x: BIGINT>, l ARRAY<STRING>"
 * (types case-insensitive; `back-quoted` names); NULL with one line in err otherwise. */
cs_ftype *cs_ftype_parse_ddl(const char *ddl, cs_error *err);

typedef struct cs_field_column {
    cs_ftype_kind kind;
    int scale; /* decimal */
    uint8_t *nulls;
    int64_t *i64;
    double *f64;
    __int128 *dec;
    uint64_t *offsets; /* string: offsets[r]..offsets[r+1] in bytes */
    char *bytes;
    size_t bytes_len, bytes_cap;
    void **nested; /* json_t * (owned reference) per row; NULL when null */
} cs_field_column;

typedef struct cs_field_chunk {
    const cs_ftype *schema; /* borrowed struct type */
    int ncols;
    size_t rows, capacity;
    cs_field_column *cols;
} cs_field_chunk;

/* A chunk of up to `capacity` rows of the struct type `schema` (borrowed). Free with
 * cs_field_chunk_free. */
cs_field_chunk *cs_field_chunk_new(const cs_ftype *schema, size_t capacity);
void cs_field_chunk_free(cs_field_chunk *c);
/* Empties the chunk (keeps its memory). */
void cs_field_chunk_reset(cs_field_chunk *c);
static inline bool cs_field_chunk_full(const cs_field_chunk *c)
{
    return c->rows >= c->capacity;
}

/* Setters for column `col` of the row being written (index c->rows). Every column must be set
 * once per row before cs_field_chunk_commit_row. */
void cs_field_set_null(cs_field_chunk *c, int col);
void cs_field_set_i64(cs_field_chunk *c, int col, int64_t v);
void cs_field_set_f64(cs_field_chunk *c, int col, double v);
void cs_field_set_dec(cs_field_chunk *c, int col, __int128 unscaled);
void cs_field_set_str(cs_field_chunk *c, int col, const char *s, size_t n);
/* Cuts the string/binary value just set in column col to its first n bytes (a value decoded in
 * place, as base64 is). */
void cs_field_shrink_str(cs_field_chunk *c, int col, size_t n);
/* Takes ownership of a jansson reference (json_t *). */
void cs_field_set_nested(cs_field_chunk *c, int col, void *json);
void cs_field_chunk_commit_row(cs_field_chunk *c);
void cs_field_chunk_discard_row(cs_field_chunk *c);

static inline bool cs_field_is_null(const cs_field_chunk *c, int col, size_t row)
{
    return c->cols[col].nulls[row] != 0;
}
static inline const char *cs_field_str(const cs_field_chunk *c, int col, size_t row, size_t *n)
{
    const cs_field_column *k = &c->cols[col];
    *n = (size_t)(k->offsets[row + 1] - k->offsets[row]);
    return k->bytes + k->offsets[row];
}

#endif
