/*
 * csv_format.c — the CSV file format (file_format.h's table `cs_file_format_csv`, Spark's
 * CSVFileFormat): the parser of csv.h over files read through src/fs, batches of columns out,
 * batches in for the writer.
 *
 * Inference: without inferSchema the first record of the first file names the columns (its
 * values with header, _c0.. without) and every column is a string; with it every record of every
 * file is typed (CSVInferSchema), each file's first record dropped as its header when header is
 * set (Spark drops the lines equal to the first one), read in bounded buffers.
 * Splits: a file is splittable unless it is compressed (its extension names a codec) or read
 * with multiLine; a split's records are those whose line starts in it (text_split.h), and only
 * the split at the start of a file skips the header. Each split is parsed with the data schema
 * (the positional columns and the corrupt-record column, csv.h's modes); the batch holds the
 * read schema's columns. Writing: the header line with header, then the rows, in a part file
 * "csv" + the codec's extension ("csv.gz").
 *
 * Called by the data source layer (src/datasource/) through the registry, on the driver
 * (infer_schema) and on the task threads (readers, writers).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/csv/csv.h"
#include "formats/file_format.h"
#include "formats/text_batch.h"
#include "formats/text_scan.h"

static cs_csv_options *options_of(const cs_format_options *fo, cs_error *err)
{
    return cs_csv_options_new(fo ? fo->keys : NULL, fo ? fo->values : NULL, fo ? fo->n : 0, err);
}

static int csv_infer_schema(const char *const *uris, int n, const cs_format_options *options,
                            cs_col_type **out, cs_error *err)
{
    *out = NULL;
    cs_csv_options *o = options_of(options, err);
    if (!o) return err && err->code ? err->code : CS_EINVAL;
    cs_csv_inference *inf = cs_csv_inference_new(o);
    int rc = CS_OK;
    bool more = true;
    for (int f = 0; f < n && rc == CS_OK && more; f++) {
        cs_file_split whole = {uris[f], 0, UINT64_MAX, 0};
        cs_text_split *in;
        rc = cs_text_split_open(&whole, true, &in, err);
        bool skip_header = o->header;
        while (rc == CS_OK) {
            more = cs_csv_inference_feed(inf, in->buf, in->len, &in->pos, in->eof, &skip_header);
            if (in->eof || !more) break;
            rc = cs_text_split_more(in, err);
        }
        cs_text_split_close(in);
    }
    cs_ftype *st = cs_csv_inference_finish(inf);
    if (rc == CS_OK) *out = cs_text_col_type(st);
    cs_ftype_free(st);
    cs_csv_options_free(o);
    return rc;
}

static bool option_true(const cs_format_options *o, const char *key)
{
    const char *v = cs_format_option(o, key);
    return v && !strcasecmp(v, "true");
}

static bool csv_is_splittable(const char *uri, const cs_format_options *options)
{
    return !option_true(options, "multiLine") && !cs_text_is_compressed(uri);
}

/* ---- reading ----------------------------------------------------------------------------------
 */

typedef struct csv_scan {
    cs_csv_options *o;
    cs_csv_reader *parser;
    cs_text_scan *scan;
    bool skip_header;
} csv_scan;

static void csv_close_reader(void *reader)
{
    csv_scan *s = reader;
    if (!s) return;
    cs_text_scan_close(s->scan);
    cs_csv_reader_free(s->parser);
    cs_csv_options_free(s->o);
    free(s);
}

static int csv_open_reader(const cs_file_split *split, const cs_scan_request *req, void **reader,
                           cs_error *err)
{
    csv_scan *s = cs_xcalloc(1, sizeof *s);
    *reader = s;
    if ((s->o = options_of(req->options, err)) &&
        (s->scan = cs_text_scan_open("CSV", split, req,
                                     !csv_is_splittable(split->uri, req->options), err)) &&
        (s->parser = cs_csv_reader_new(s->o, s->scan->schema, err))) {
        s->skip_header = s->o->header && s->scan->in->file_start;
        return CS_OK;
    }
    csv_close_reader(s);
    *reader = NULL;
    return err && err->code ? err->code : CS_EINVAL;
}

static int csv_parse(void *reader, cs_text_split *in, cs_field_chunk *chunk, cs_error *err)
{
    csv_scan *s = reader;
    return cs_csv_read(s->parser, in->buf, in->len, &in->pos, in->eof, &s->skip_header, chunk, err);
}

static int csv_next_batch(void *reader, cs_col_batch **out, cs_error *err)
{
    csv_scan *s = reader;
    return cs_text_scan_next(s->scan, csv_parse, s, out, err);
}

/* ---- writing ----------------------------------------------------------------------------------
 */

typedef struct csv_sink {
    cs_csv_options *o;
    cs_text_writer *w;
} csv_sink;

static void csv_extension(const cs_format_options *options, cs_sbuf *out)
{
    const char *codec = cs_format_option(options, "compression");
    cs_text_extension("csv", codec ? codec : cs_format_option(options, "codec"), out);
}

static int csv_open_writer(const char *uri, const cs_col_type *schema,
                           const cs_format_options *options, void **writer, cs_error *err)
{
    *writer = NULL;
    cs_csv_options *o = options_of(options, err);
    if (!o) return err && err->code ? err->code : CS_EINVAL;
    cs_text_writer *w = cs_text_writer_open("CSV", uri, schema, o->compression, err);
    if (!w) {
        cs_csv_options_free(o);
        return err && err->code ? err->code : CS_EIO;
    }
    if (o->header) cs_csv_write_header(o, w->schema, &w->sink->text);
    csv_sink *k = cs_xcalloc(1, sizeof *k);
    k->o = o;
    k->w = w;
    *writer = k;
    return CS_OK;
}

static void csv_print(const void *options, const cs_field_chunk *chunk, cs_sbuf *out)
{
    cs_csv_write_rows(options, chunk, out);
}

static int csv_write_batch(void *writer, const cs_col_batch *batch, cs_error *err)
{
    csv_sink *k = writer;
    return cs_text_writer_write(k->w, batch, csv_print, k->o, err);
}

static int csv_close_writer(void *writer, bool commit, cs_error *err)
{
    csv_sink *k = writer;
    if (!k) return CS_OK;
    int rc = cs_text_writer_close(k->w, commit, err);
    cs_csv_options_free(k->o);
    free(k);
    return rc;
}

const cs_file_format cs_file_format_csv = {
    .name = "csv",
    .infer_schema = csv_infer_schema,
    .is_splittable = csv_is_splittable,
    .open_reader = csv_open_reader,
    .next_batch = csv_next_batch,
    .close_reader = csv_close_reader,
    .extension = csv_extension,
    .open_writer = csv_open_writer,
    .write_batch = csv_write_batch,
    .close_writer = csv_close_writer,
};
