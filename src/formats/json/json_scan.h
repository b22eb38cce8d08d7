/*
 * json_scan.h — the JSON reader's fast path (json_scan.c): one JSON-lines record scanned in
 * place, its values written straight into the chunk's columns for the known schema, without a
 * jansson tree. The scanner takes only records it is sure of; anything else (a syntax error, a
 * value of another type than its column's, a root array, duplicate keys, very deep nesting) it
 * leaves to the jansson path of json_reader.c, which then decides the record as before. Internal
 * to src/formats/json: json_reader.c owns a scanner per reader (one thread).
 */
#ifndef CSPARK_FORMATS_JSON_JSON_SCAN_H
#define CSPARK_FORMATS_JSON_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/json/json.h"

typedef struct cs_json_scanner cs_json_scanner;

/* A scanner for records of the struct type `schema` (borrowed, as the options); the column
 * `skip_col` (the corrupt-record column, or -1) takes no record field. */
cs_json_scanner *cs_json_scanner_new(const cs_json_options *o, const cs_ftype *schema,
                                     int skip_col);
void cs_json_scanner_free(cs_json_scanner *s);
/* The record s[0..n) into the chunk's row being written (every column but skip_col set, the row
 * not committed): true. False: the scanner leaves the record to jansson; the row's columns may
 * hold some values, which the caller overwrites. */
bool cs_json_scan_record(cs_json_scanner *s, const char *text, size_t n, cs_field_chunk *c);

/* Shared with json_reader.c (defined there): one record or value parsed by jansson (NULL: it
 * does not parse); a jansson value (json_t *) into column `col` as its type reads it (false: it
 * does not convert, the column set null); a date (days) or timestamp from a string value's text. */
void *cs_json_parse_value(const cs_json_options *o, const char *s, size_t n);
bool cs_json_set_field(const cs_json_options *o, const cs_ftype *t, void *json, cs_field_chunk *c,
                       int col);
bool cs_json_time_text(const cs_json_options *o, bool date, const char *s, size_t n, int64_t *out);
/* A timestamp_ntz from a string value's text (false: a zone, or no date-time). */
bool cs_json_ntz_text(const cs_json_options *o, const char *s, size_t n, int64_t *out);
/* A binary value from a string value's base64 text into column col (false: not base64, the
 * column set null). */
bool cs_json_set_binary(cs_field_chunk *c, int col, const char *s, size_t n);

#endif
