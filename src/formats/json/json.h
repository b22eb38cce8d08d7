/*
 * json.h — Spark's JSON data source over a buffer, JSON parsed by jansson: JSON lines (one
 * value per line; blank lines skipped) or, with multiLine, the whole input as one value; a
 * top-level array gives one row per element. Schema inference as Spark's JsonInferSchema,
 * reading as JacksonParser converts values, and the writer (JacksonGenerator's text).
 *
 * Options (Spark's names, keys case-insensitive): mode PERMISSIVE|DROPMALFORMED|FAILFAST,
 * columnNameOfCorruptRecord (_corrupt_record), multiLine false, dateFormat, timestampFormat,
 * primitivesAsString false, prefersDecimal false, samplingRatio 1.0, compression (the writer's
 * caller's codec).
 *
 * Inference: integers bigint, other numbers double (decimal with prefersDecimal), strings string
 * (timestamp with inferTimestamp when they parse with timestampFormat or the lenient form),
 * booleans boolean, objects struct (fields sorted by name), arrays array of the merged element
 * type (with samplingRatio below 1, only the lines Spark's sample keeps: text_values.h's sampler,
 * one draw per line, blank lines too, seed 1 over all the files in order — Spark's draws when
 * the files are one partition, its first; Spark seeds each further partition 1 + its index and
 * packs files into partitions largest first, so over several partitions the sample differs;
 * with multiLine Spark samples whole files and cspark reads them all); types merge bigint < decimal
 * < double, structs field by field, arrays by element, and any other pair gives string; a type
 * never seen (only nulls, empty arrays) is string. A record that does not parse, or that is not an
 * object (nor an array of objects), adds the corrupt-record column in PERMISSIVE, is skipped in
 * DROPMALFORMED, fails in FAILFAST. Reading: tinyint takes integers -128..255 (Jackson's
 * getByteValue: 128..255 give the byte of the same bits), smallint -32768..32767; a value of
 * another JSON type than its column's makes the record malformed (its other fields kept, as Spark
 * 4's partial results; a nested column with a bad value inside is null) (as for CSV, csv.h), except
 * string columns, which take any value as its JSON text. Integers beyond 64 bits are read by
 * jansson as doubles (Spark: decimal). A binary column takes a string in base64 (Jackson's
 * getBinaryValue: padding required, else malformed) and is written in base64; a timestamp_ntz
 * column takes a string without a zone (timestampNTZFormat, or Spark's lenient form) and is written
 * with timestampNTZFormat (yyyy-MM-dd'T'HH:mm:ss[.SSS]). Neither is inferred (Spark infers
 * timestamp_ntz only with inferTimestamp and spark.sql.timestampType=TIMESTAMP_NTZ, a session
 * conf cspark's formats do not read), and neither is read inside arrays or structs yet.
 *
 * Chunks: struct and array columns keep the jansson value (owned reference) of each row, already
 * checked against the column's type; the consumer converts it by type. Ownership as csv.h.
 */
#ifndef CSPARK_FORMATS_JSON_JSON_H
#define CSPARK_FORMATS_JSON_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "common/strutil.h"
#include "formats/csv/csv.h"
#include "formats/field_chunk.h"
#include "formats/text_values.h"

typedef struct cs_json_options {
    cs_parse_mode mode;
    char *corrupt_column;
    bool multi_line, primitives_as_string, prefers_decimal;
    bool infer_timestamp;  /* inferTimestamp: strings that parse as timestamps are timestamp */
    double sampling_ratio; /* samplingRatio, 1.0 */
    cs_tv_pattern *date_pattern, *timestamp_pattern; /* NULL: Spark's defaults */
    cs_tv_pattern *ntz_pattern;       /* timestampNTZFormat when reading; NULL: lenient, no zone */
    cs_tv_pattern *write_ntz_pattern; /* timestampNTZFormat, or yyyy-MM-dd'T'HH:mm:ss[.SSS] */
    char *compression;
} cs_json_options;

cs_json_options *cs_json_options_new(const char *const *keys, const char *const *values, int n,
                                     cs_error *err);
void cs_json_options_free(cs_json_options *o);

/* The schema of the records of buf[0..n); NULL with an error (FAILFAST on a bad record). */
cs_ftype *cs_json_infer_schema(const cs_json_options *o, const char *buf, size_t n, cs_error *err);
/* The same over input that comes in pieces (several files, each in bounded buffers; Spark's
 * merge of their schemas): feed the records of buf[*pos..n) (at_eof: the buffer ends a file;
 * *pos left at the first incomplete line), then finish, which returns the schema and frees the
 * inference. feed fails as cs_json_infer_schema does (FAILFAST); finish frees it then too. */
typedef struct cs_json_inference cs_json_inference;
cs_json_inference *cs_json_inference_new(const cs_json_options *o);
int cs_json_inference_feed(cs_json_inference *inf, const char *buf, size_t n, size_t *pos,
                           bool at_eof, cs_error *err);
cs_ftype *cs_json_inference_finish(cs_json_inference *inf);

typedef struct cs_json_reader cs_json_reader;
cs_json_reader *cs_json_reader_new(const cs_json_options *o, const cs_ftype *schema, cs_error *err);
void cs_json_reader_free(cs_json_reader *r);
/* As cs_csv_read: rows of buf[*pos..n) into chunk until full or no complete line is left. A
 * top-level array's rows are all added, past the chunk's capacity check (the chunk is sized by
 * the caller; a full chunk stops before the next line). */
int cs_json_read(cs_json_reader *r, const char *buf, size_t n, size_t *pos, bool at_eof,
                 cs_field_chunk *chunk, cs_error *err);

/* The chunk's rows as JSON lines, as Spark writes them: fields in schema order, null fields left
 * out, doubles in Java's text, dates yyyy-MM-dd, timestamps yyyy-MM-dd'T'HH:mm:ss.SSSXXX (or
 * dateFormat, timestampFormat, timestampNTZFormat). */
void cs_json_write_rows(const cs_json_options *o, const cs_field_chunk *chunk, cs_sbuf *out);

#endif
