/*
 * text_scan.h — the task-side plumbing the CSV and JSON file formats share (csv/csv_format.c,
 * json/json_format.c): a scan turns one split into batches (the split's bounded input of
 * text_split.h, the format's parser filling a chunk, the chunk copied into a batch of the read
 * schema's columns by text_batch.h), and a writer turns batches into one part file (rows into a
 * chunk, the format's row printer, the sink of text_split.h). The format supplies only its
 * parser and printer as callbacks.
 *
 * Ownership: a scan or writer is its opener's (cs_text_scan_close, cs_text_writer_close); the
 * split, request and parser/options given are borrowed for its life. One task thread.
 */
#ifndef CSPARK_FORMATS_TEXT_SCAN_H
#define CSPARK_FORMATS_TEXT_SCAN_H

#include <stdbool.h>

#include "formats/field_chunk.h"
#include "formats/file_format.h"
#include "formats/text_split.h"

/* Parses records of in->buf[in->pos, in->len) into chunk (as cs_csv_read / cs_json_read: until
 * the chunk is full or no complete record is left; in->eof says the buffer ends the input). */
typedef int (*cs_text_parse_fn)(void *parser, cs_text_split *in, cs_field_chunk *chunk,
                                cs_error *err);

typedef struct cs_text_scan {
    cs_ftype *schema; /* the data schema, as the parsers take it */
    cs_field_chunk *chunk;
    cs_text_split *in;
    const cs_col_type *read_schema;
    int *cols; /* chunk column of each read column */
    cs_col_allocator *alloc;
    const char *uri;
    bool done;
} cs_text_scan;

/* Makes the data schema (s->schema, for the format to make its parser with) and the chunk, and
 * opens the split (whole: not splittable). NULL with err naming the format/file otherwise. */
cs_text_scan *cs_text_scan_open(const char *format, const cs_file_split *split,
                                const cs_scan_request *req, bool whole, cs_error *err);
/* file_format.h's next_batch: 1 with *out, 0 at the end, -1 with err naming the file. */
int cs_text_scan_next(cs_text_scan *s, cs_text_parse_fn parse, void *parser, cs_col_batch **out,
                      cs_error *err);
void cs_text_scan_close(cs_text_scan *s);

/* Appends the chunk's rows as the format writes them. */
typedef void (*cs_text_print_fn)(const void *options, const cs_field_chunk *chunk, cs_sbuf *out);

typedef struct cs_text_writer {
    cs_ftype *schema;
    cs_field_chunk *chunk;
    cs_text_sink *sink;
} cs_text_writer;

/* Opens uri (compression: Spark's option value, may be NULL) for rows of schema; NULL + err when
 * the format does not take a column type or the file cannot be created. */
cs_text_writer *cs_text_writer_open(const char *format, const char *uri, const cs_col_type *schema,
                                    const char *compression, cs_error *err);
int cs_text_writer_write(cs_text_writer *w, const cs_col_batch *batch, cs_text_print_fn print,
                         const void *options, cs_error *err);
/* As file_format.h's close_writer; frees w. */
int cs_text_writer_close(cs_text_writer *w, bool commit, cs_error *err);

#endif /* CSPARK_FORMATS_TEXT_SCAN_H */
