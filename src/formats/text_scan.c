/*
 * text_scan.c — one split of a CSV or JSON file into batches, and batches into one part file
 * (see text_scan.h). Called by the CSV and JSON file formats on the task's thread.
 *
 * A scan's loop: the parser takes what complete records the buffer holds; when the chunk is not
 * full and the split has more input, cs_text_split_more reads on (failing on a record over the
 * limit); a full chunk, or the end of the split, makes one batch.
 */
#include "formats/text_scan.h"

#include <stdlib.h>

#include "formats/text_batch.h"

#define DEFAULT_BATCH_ROWS 4096 /* Spark's spark.sql.parquet/orc columnarReaderBatchSize */

cs_text_scan *cs_text_scan_open(const char *format, const cs_file_split *split,
                                const cs_scan_request *req, bool whole, cs_error *err)
{
    cs_text_scan *s = cs_xcalloc(1, sizeof *s);
    s->uri = split->uri;
    s->read_schema = req->read_schema;
    s->alloc = req->alloc;
    s->cols = cs_xcalloc((size_t)req->read_schema->n_fields + 1, sizeof *s->cols);
    s->schema = cs_text_schema_ftype(req->data_schema, format, err);
    if (s->schema) {
        s->chunk = cs_field_chunk_new(s->schema, req->batch_rows > 0 ? (size_t)req->batch_rows
                                                                     : DEFAULT_BATCH_ROWS);
        if (cs_text_projection(s->chunk, req->read_schema, s->cols, err) == CS_OK &&
            cs_text_split_open(split, whole, &s->in, err) == CS_OK)
            return s;
    }
    cs_text_scan_close(s);
    return NULL;
}

int cs_text_scan_next(cs_text_scan *s, cs_text_parse_fn parse, void *parser, cs_col_batch **out,
                      cs_error *err)
{
    *out = NULL;
    if (s->done) return 0;
    cs_field_chunk_reset(s->chunk);
    for (;;) {
        if (parse(parser, s->in, s->chunk, err) != CS_OK)
            return cs_error_prefix(err, "%s", s->uri), -1;
        if (cs_field_chunk_full(s->chunk)) break;
        if (s->in->eof) {
            s->done = true;
            break;
        }
        if (cs_text_split_more(s->in, err) != CS_OK) return -1;
    }
    if (!s->chunk->rows) return 0;
    *out = cs_text_chunk_batch(s->chunk, s->read_schema, s->cols, s->alloc, err);
    if (!*out) return cs_error_prefix(err, "%s", s->uri), -1;
    return 1;
}

void cs_text_scan_close(cs_text_scan *s)
{
    if (!s) return;
    cs_text_split_close(s->in);
    cs_field_chunk_free(s->chunk);
    cs_ftype_free(s->schema);
    free(s->cols);
    free(s);
}

cs_text_writer *cs_text_writer_open(const char *format, const char *uri, const cs_col_type *schema,
                                    const char *compression, cs_error *err)
{
    cs_ftype *st = cs_text_schema_ftype(schema, format, err);
    if (!st) return NULL;
    cs_text_sink *sink = cs_text_sink_open(uri, compression, err);
    if (!sink) {
        cs_ftype_free(st);
        return NULL;
    }
    cs_text_writer *w = cs_xcalloc(1, sizeof *w);
    w->schema = st;
    w->sink = sink;
    w->chunk = cs_field_chunk_new(st, DEFAULT_BATCH_ROWS);
    return w;
}

int cs_text_writer_write(cs_text_writer *w, const cs_col_batch *batch, cs_text_print_fn print,
                         const void *options, cs_error *err)
{
    for (int64_t from = 0; from < batch->num_rows; from += DEFAULT_BATCH_ROWS) {
        int64_t n = batch->num_rows - from;
        if (n > DEFAULT_BATCH_ROWS) n = DEFAULT_BATCH_ROWS;
        cs_text_batch_rows(batch, from, n, w->chunk);
        print(options, w->chunk, &w->sink->text);
        int rc = cs_text_sink_flush(w->sink, false, err);
        if (rc != CS_OK) return rc;
    }
    return CS_OK;
}

int cs_text_writer_close(cs_text_writer *w, bool commit, cs_error *err)
{
    if (!w) return CS_OK;
    int rc = cs_text_sink_close(w->sink, commit, err);
    cs_field_chunk_free(w->chunk);
    cs_ftype_free(w->schema);
    free(w);
    return rc;
}
