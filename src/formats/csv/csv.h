/*
 * csv.h — Spark's CSV data source over a buffer: options, the tokenizer and record reader
 * (univocity's rules as Spark sets them up), schema inference (CSVInferSchema) and the writer
 * (UnivocityGenerator). Rows go to and come from a cs_field_chunk (formats/field_chunk.h).
 *
 * Options (Spark's names, keys case-insensitive; defaults as Spark's for reading):
 *   sep/delimiter ","  quote "\""  escape "\\"  comment (off)  header false  inferSchema false
 *   nullValue ""  emptyValue "" (read) / "\"\"" (write)  nanValue NaN  positiveInf Inf
 *   negativeInf -Inf  ignoreLeadingWhiteSpace / ignoreTrailingWhiteSpace false (read), true
 *   (write)  multiLine false  mode PERMISSIVE|DROPMALFORMED|FAILFAST
 *   columnNameOfCorruptRecord _corrupt_record  dateFormat  timestampFormat  timestampNTZFormat
 *   (timestamp_ntz: Spark's lenient form without a zone when reading,
 *   yyyy-MM-dd'T'HH:mm:ss[.SSS] when writing)  prefersDate true
 *   quoteAll false  escapeQuotes true  samplingRatio 1.0 (inference: csv_infer.c)
 *   compression (the writer's caller picks the codec).
 *
 * Records: without multiLine a record is a line ending at '\n' (a '\r' before it dropped); blank
 * lines and comment lines are skipped; a quote left open ends with the line. With multiLine a
 * quoted value runs across line ends ("\r\n" inside it becomes "\n"). In a quoted value the
 * escape character before a quote gives the quote; a quote not followed by the separator or the
 * record end (an "unescaped quote") makes the value the raw text up to the next separator, as
 * univocity's STOP_AT_DELIMITER. An unquoted empty value is null (nullValue), a quoted empty one
 * emptyValue; a value equal to nullValue is null. A binary column reads a value's bytes (Spark's
 * String.getBytes) and writes them as Spark prints bytes (`[68 69]`); a timestamp_ntz column
 * refuses a text with a zone. Inference gives no timestamp_ntz (Spark only with
 * spark.sql.timestampType=TIMESTAMP_NTZ, a session conf cspark's formats do not read) nor binary.
 *
 * Malformed records (a value that does not convert, fewer or more values than the schema): in
 * PERMISSIVE the row keeps what converted (nulls elsewhere) and the corrupt-record column, when
 * the schema has it, gets the record's text; DROPMALFORMED drops the row; FAILFAST stops with
 * one line naming the record number.
 *
 * Ownership: options and readers are owned by their creator (cs_csv_options_free,
 * cs_csv_reader_free); a reader borrows its options and schema. Buffers are borrowed for the call.
 */
#ifndef CSPARK_FORMATS_CSV_CSV_H
#define CSPARK_FORMATS_CSV_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "common/strutil.h"
#include "formats/field_chunk.h"
#include "formats/text_values.h"

typedef enum cs_parse_mode {
    CS_MODE_PERMISSIVE,
    CS_MODE_DROPMALFORMED,
    CS_MODE_FAILFAST
} cs_parse_mode;

typedef struct cs_csv_options {
    char sep, quote, escape, comment; /* comment '\0': off */
    bool header, infer_schema, multi_line, prefers_date;
    bool ignore_leading_ws, ignore_trailing_ws;
    bool ignore_leading_ws_write, ignore_trailing_ws_write, quote_all, escape_quotes;
    char *null_value, *empty_value_read, *empty_value_write;
    char *nan_value, *positive_inf, *negative_inf;
    char *corrupt_column;
    cs_parse_mode mode;
    char *date_format, *timestamp_format, *ntz_format; /* NULL: Spark's defaults */
    cs_tv_pattern *date_pattern, *timestamp_pattern, *write_date_pattern, *write_ts_pattern;
    cs_tv_pattern *ntz_pattern, *write_ntz_pattern; /* timestampNTZFormat (read: NULL lenient) */
    char *compression;                              /* NULL: none */
    double sampling_ratio;                          /* samplingRatio, 1.0 */
} cs_csv_options;

/* Spark's options from key/value pairs (keys case-insensitive); NULL with one line naming the
 * key and what it takes on a bad value. Unknown keys are ignored, as Spark does. */
cs_csv_options *cs_csv_options_new(const char *const *keys, const char *const *values, int n,
                                   cs_error *err);
void cs_csv_options_free(cs_csv_options *o);
/* "PERMISSIVE" etc. (case-insensitive) into *mode; false when unknown. */
bool cs_parse_mode_from_name(const char *name, cs_parse_mode *mode);

/* ---- records ------------------------------------------------------------------------------ */

typedef struct cs_csv_token {
    size_t off, len;
    unsigned char kind; /* CS_CSV_TOK_* */
    bool scratch;       /* off indexes the tokenizer's scratch, not the record buffer */
} cs_csv_token;
enum { CS_CSV_TOK_NULL, CS_CSV_TOK_EMPTY_QUOTED, CS_CSV_TOK_TEXT };

typedef struct cs_csv_tokens {
    cs_csv_token *v;
    int n, cap;
    cs_sbuf scratch;
} cs_csv_tokens;

/* The next record of buf[*pos..n): tokens in *t, the record's text [*rec_start, *rec_end) (line
 * end excluded). Returns 1 with a record, 0 when the buffer holds no complete record (at_eof:
 * none left), skipping blank and comment lines. */
int cs_csv_next_record(const cs_csv_options *o, const char *buf, size_t n, size_t *pos, bool at_eof,
                       cs_csv_tokens *t, size_t *rec_start, size_t *rec_end);
void cs_csv_tokens_free(cs_csv_tokens *t);
/* A token's value (NULL for an unquoted empty value) as univocity returns it to Spark. */
const char *cs_csv_token_value(const cs_csv_options *o, const char *buf, const cs_csv_tokens *t,
                               int i, size_t *len);

/* Column names from a header record (Spark's makeSafeHeader: _c<i> for empty names, duplicates
 * suffixed with their index) or _c0.._c<n-1> without one; a struct of strings. */
cs_ftype *cs_csv_header_schema(const cs_csv_options *o, const char *buf, const cs_csv_tokens *t);

/* ---- reader ------------------------------------------------------------------------------- */

typedef struct cs_csv_reader cs_csv_reader;
/* schema: the struct type to read (may contain the corrupt-record column, a string). */
cs_csv_reader *cs_csv_reader_new(const cs_csv_options *o, const cs_ftype *schema, cs_error *err);
void cs_csv_reader_free(cs_csv_reader *r);
/* Reads records of buf[*pos..n) into chunk until it is full or no complete record is left
 * (at_eof: the buffer ends the input). skip_header: the first record is the file's header and
 * is dropped. Returns CS_OK, or an error (FAILFAST, naming the record) with *pos at the record. */
int cs_csv_read(cs_csv_reader *r, const char *buf, size_t n, size_t *pos, bool at_eof,
                bool *skip_header, cs_field_chunk *chunk, cs_error *err);
/* Records read so far (blank and comment lines not counted). */
size_t cs_csv_reader_records(const cs_csv_reader *r);

/* ---- inference ---------------------------------------------------------------------------- */

/* Infers the schema of the records of buf[0..n) (the header too when o->header): Spark's
 * CSVInferSchema with inferSchema, all strings without. Returns a new struct type. */
cs_ftype *cs_csv_infer_schema(const cs_csv_options *o, const char *buf, size_t n, cs_error *err);

/* The same over input that comes in pieces (several files, each in bounded buffers): feed the
 * records of buf[*pos..n) (at_eof: the buffer ends a file; *pos left at the first incomplete
 * record), then finish. The first record seen names the columns (its values with o->header, or
 * _c0..); *skip_header drops the next record (set it at the start of each file with a header).
 * feed returns false once more input cannot change the result (no inferSchema, names known).
 * finish returns the struct type and frees the inference. */
typedef struct cs_csv_inference cs_csv_inference;
cs_csv_inference *cs_csv_inference_new(const cs_csv_options *o);
bool cs_csv_inference_feed(cs_csv_inference *inf, const char *buf, size_t n, size_t *pos,
                           bool at_eof, bool *skip_header);
cs_ftype *cs_csv_inference_finish(cs_csv_inference *inf);

/* ---- writer ------------------------------------------------------------------------------- */

/* Appends the header line (names, quoted when needed) to out. */
void cs_csv_write_header(const cs_csv_options *o, const cs_ftype *schema, cs_sbuf *out);
/* Appends the chunk's rows as lines: values formatted as Spark's writer does (Java doubles,
 * dates yyyy-MM-dd, timestamps yyyy-MM-dd'T'HH:mm:ss.SSSXXX), nulls as nullValue, empty strings
 * as emptyValue, quoted where univocity quotes (separator, quote, line ends, a leading or
 * trailing space, a value starting with the comment character, or quoteAll). */
void cs_csv_write_rows(const cs_csv_options *o, const cs_field_chunk *chunk, cs_sbuf *out);

#endif
