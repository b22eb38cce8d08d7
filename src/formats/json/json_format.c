/*
 * json_format.c — the JSON file format (file_format.h's table `cs_file_format_json`, Spark's
 * JsonFileFormat): the parser of json.h over files read through src/fs, batches of columns out
 * (struct and array values as nested columns), batches in for the writer.
 *
 * Inference: every record of every file (JsonInferSchema), the files' schemas merged as Spark
 * merges them (json.h), read in bounded buffers; with multiLine a file is one record.
 * Splits: a file is splittable unless it is compressed (its extension names a codec) or read
 * with multiLine; a split's records are the lines that start in it (text_split.h). Each split is
 * parsed with the data schema (json.h's modes and corrupt-record column); the batch holds the
 * read schema's columns. Writing: JSON lines in a part file "json" + the codec's extension
 * ("json.gz").
 *
 * Called by the data source layer (src/datasource/) through the registry, on the driver
 * (infer_schema) and on the task threads (readers, writers).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/json/json.h"
#include "formats/file_format.h"
#include "formats/text_batch.h"
#include "formats/text_scan.h"

static cs_json_options *options_of(const cs_format_options *fo, cs_error *err)
{
    return cs_json_options_new(fo ? fo->keys : NULL, fo ? fo->values : NULL, fo ? fo->n : 0, err);
}

static int json_infer_schema(const char *const *uris, int n, const cs_format_options *options,
                             cs_col_type **out, cs_error *err)
{
    *out = NULL;
    cs_json_options *o = options_of(options, err);
    if (!o) return err && err->code ? err->code : CS_EINVAL;
    cs_json_inference *inf = cs_json_inference_new(o);
    int rc = CS_OK;
    for (int f = 0; f < n && rc == CS_OK; f++) {
        cs_file_split whole = {uris[f], 0, UINT64_MAX, 0};
        cs_text_split *in;
        rc = cs_text_split_open(&whole, true, &in, err);
        while (rc == CS_OK) {
            rc = cs_json_inference_feed(inf, in->buf, in->len, &in->pos, in->eof, err);
            if (rc != CS_OK) {
                cs_error_prefix(err, "%s", uris[f]);
                break;
            }
            if (in->eof) break;
            rc = cs_text_split_more(in, err);
        }
        cs_text_split_close(in);
    }
    cs_ftype *st = cs_json_inference_finish(inf);
    if (rc == CS_OK) *out = cs_text_col_type(st);
    cs_ftype_free(st);
    cs_json_options_free(o);
    return rc;
}

static bool option_true(const cs_format_options *o, const char *key)
{
    const char *v = cs_format_option(o, key);
    return v && !strcasecmp(v, "true");
}

static bool json_is_splittable(const char *uri, const cs_format_options *options)
{
    return !option_true(options, "multiLine") && !cs_text_is_compressed(uri);
}

/* ---- reading ----------------------------------------------------------------------------------
 */

typedef struct json_scan {
    cs_json_options *o;
    cs_json_reader *parser;
    cs_text_scan *scan;
} json_scan;

static void json_close_reader(void *reader)
{
    json_scan *s = reader;
    if (!s) return;
    cs_text_scan_close(s->scan);
    cs_json_reader_free(s->parser);
    cs_json_options_free(s->o);
    free(s);
}

static int json_open_reader(const cs_file_split *split, const cs_scan_request *req, void **reader,
                            cs_error *err)
{
    json_scan *s = cs_xcalloc(1, sizeof *s);
    *reader = s;
    if ((s->o = options_of(req->options, err)) &&
        (s->scan = cs_text_scan_open("JSON", split, req,
                                     !json_is_splittable(split->uri, req->options), err)) &&
        (s->parser = cs_json_reader_new(s->o, s->scan->schema, err)))
        return CS_OK;
    json_close_reader(s);
    *reader = NULL;
    return err && err->code ? err->code : CS_EINVAL;
}

static int json_parse(void *reader, cs_text_split *in, cs_field_chunk *chunk, cs_error *err)
{
    json_scan *s = reader;
    return cs_json_read(s->parser, in->buf, in->len, &in->pos, in->eof, chunk, err);
}

static int json_next_batch(void *reader, cs_col_batch **out, cs_error *err)
{
    json_scan *s = reader;
    return cs_text_scan_next(s->scan, json_parse, s, out, err);
}

/* ---- writing ----------------------------------------------------------------------------------
 */

typedef struct json_sink {
    cs_json_options *o;
    cs_text_writer *w;
} json_sink;

static void json_extension(const cs_format_options *options, cs_sbuf *out)
{
    cs_text_extension("json", cs_format_option(options, "compression"), out);
}

static int json_open_writer(const char *uri, const cs_col_type *schema,
                            const cs_format_options *options, void **writer, cs_error *err)
{
    *writer = NULL;
    cs_json_options *o = options_of(options, err);
    if (!o) return err && err->code ? err->code : CS_EINVAL;
    cs_text_writer *w = cs_text_writer_open("JSON", uri, schema, o->compression, err);
    if (!w) {
        cs_json_options_free(o);
        return err && err->code ? err->code : CS_EIO;
    }
    json_sink *k = cs_xcalloc(1, sizeof *k);
    k->o = o;
    k->w = w;
    *writer = k;
    return CS_OK;
}

static void json_print(const void *options, const cs_field_chunk *chunk, cs_sbuf *out)
{
    cs_json_write_rows(options, chunk, out);
}

static int json_write_batch(void *writer, const cs_col_batch *batch, cs_error *err)
{
    json_sink *k = writer;
    return cs_text_writer_write(k->w, batch, json_print, k->o, err);
}

static int json_close_writer(void *writer, bool commit, cs_error *err)
{
    json_sink *k = writer;
    if (!k) return CS_OK;
    int rc = cs_text_writer_close(k->w, commit, err);
    cs_json_options_free(k->o);
    free(k);
    return rc;
}

const cs_file_format cs_file_format_json = {
    .name = "json",
    .infer_schema = json_infer_schema,
    .is_splittable = json_is_splittable,
    .open_reader = json_open_reader,
    .next_batch = json_next_batch,
    .close_reader = json_close_reader,
    .extension = json_extension,
    .open_writer = json_open_writer,
    .write_batch = json_write_batch,
    .close_writer = json_close_writer,
};
