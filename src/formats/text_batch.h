/*
 * text_batch.h — what the CSV and JSON file formats (csv/csv_format.c, json/json_format.c) share
 * between their parsers' flat chunks (field_chunk.h) and column batches (columnar/):
 *   - the types: the readers' cs_ftype onto Spark's column types (boolean, tinyint, smallint,
 *     int, bigint, decimal(p,s), float, double, date, timestamp, timestamp_ntz, string, binary,
 *     array, struct) and back, refusing with Spark's error class the column types a format does
 *     not read or write (CSV: nested ones; both: map, intervals);
 *   - a chunk's columns into a batch in bulk: one pass per column into 64-byte aligned buffers
 *     (a copy of the values, offsets narrowed to int32, nulls into a validity bitmap), nested JSON
 *     values (struct, array) through column builders; nothing is allocated per row or value;
 *   - a batch's rows into a chunk for the writers (nested values as the JSON writer takes them).
 * The input of a split is text_split.h.
 *
 * Ownership: returned types and batches are the caller's (cs_col_type_unref, cs_col_batch_unref);
 * chunks and schemas passed in are borrowed.
 */
#ifndef CSPARK_FORMATS_TEXT_BATCH_H
#define CSPARK_FORMATS_TEXT_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columnar/col_memory.h"
#include "columnar/col_type.h"
#include "columnar/column.h"
#include "common/err.h"
#include "formats/field_chunk.h"
#include "formats/file_format.h"

/* The column type of a reader's type (a new reference). */
cs_col_type *cs_text_col_type(const cs_ftype *t);
/* The reader's type of a column type (owned by the caller), or NULL with one line naming the
 * format, the field and its type when the text formats do not take it. */
cs_ftype *cs_text_ftype(const cs_col_type *t, const char *format, const char *field, cs_error *err);
/* Spark's DataType.sql of t: "MAP<STRING, INT>", "STRUCT<a: INT>", "ARRAY<BINARY>". */
void cs_text_sql_type(const cs_col_type *t, cs_sbuf *out);
/* Spark's error for column `field` of type t that `format` ("CSV", "JSON") does not take:
 * [UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] naming the column and the type's SQL text
 * ("MAP<STRING, INT>"); returns CS_EUNSUPPORTED. */
int cs_text_unsupported(const cs_col_type *t, const char *format, const char *field, cs_error *err);
/* The struct type of a schema's fields (cs_text_ftype of each; for "CSV" an array, struct or map
 * field is refused as Spark's CSVFileFormat does); NULL + err as above. */
cs_ftype *cs_text_schema_ftype(const cs_col_type *schema, const char *format, cs_error *err);

/* For each field of read_schema the column of chunk with its name (cols[i]); CS_EINVAL naming a
 * field the chunk does not have or has with another type. */
int cs_text_projection(const cs_field_chunk *chunk, const cs_col_type *read_schema, int *cols,
                       cs_error *err);
/* A batch of read_schema's fields from chunk's columns cols[0..n) (n = read_schema's fields):
 * its rows copied in bulk. */
cs_col_batch *cs_text_chunk_batch(const cs_field_chunk *chunk, const cs_col_type *read_schema,
                                  const int *cols, cs_col_allocator *alloc, cs_error *err);
/* Rows [from, from + n) of batch into chunk (emptied first; its schema is batch's as
 * cs_text_schema_ftype made it, with capacity >= n). */
void cs_text_batch_rows(const cs_col_batch *batch, int64_t from, int64_t n, cs_field_chunk *chunk);

#endif /* CSPARK_FORMATS_TEXT_BATCH_H */
