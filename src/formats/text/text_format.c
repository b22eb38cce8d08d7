/*
 * text_format.c — the `text` file format (Spark's TextFileFormat): one string column `value`
 * per line, or per file with option `wholetext`. Lines end as text files' do
 * (fs/line_reader.c: '\n' with a '\r' before it dropped, or the option `lineSep` exactly), and a
 * split reads the lines that begin in its byte range; compressed files (a codec's extension)
 * and `wholetext` are not splittable. The writer prints the value of each row and the line
 * separator (`lineSep`, default "\n"; a null value is an empty line, as Spark's TextOutputWriter),
 * compressed with option `compression` (none, gzip, deflate, bzip2, zstd, lz4; the file's
 * extension is ".txt" and the codec's).
 *
 * A user's schema may name the column otherwise (one string column). A table of file_format.h,
 * found as "text". Ownership: as file_format.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "cspark.h"
#include "formats/file_format.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "fs/line_reader.h"

#define TEXT_BATCH_BYTES (16u << 20) /* input bytes per batch at most (at least one line) */
#define TEXT_LIMIT_NAME "CSPARK_MAX_RECORD_BYTES, 256 MiB: a batch travels as one record"

static bool option_true(const cs_format_options *o, const char *key)
{
    const char *v = cs_format_option(o, key);
    return v && strcasecmp(v, "true") == 0;
}

static int text_infer_schema(const char *const *uris, int n, const cs_format_options *options,
                             cs_col_type **out, cs_error *err)
{
    (void)uris;
    (void)n;
    (void)options;
    (void)err;
    cs_col_field f = {
        .name = "value", .type = cs_col_type_primitive(CS_TYPE_STRING), .nullable = true};
    *out = cs_col_type_struct(&f, 1);
    return 0;
}

static bool text_is_splittable(const char *uri, const cs_format_options *options)
{
    return !option_true(options, "wholetext") && !cs_codec_for_path(uri);
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct text_reader {
    const cs_file_split *split;
    const cs_scan_request *req;
    cs_line_reader *lines_in; /* NULL with wholetext */
    cs_line *lines;
    int64_t batch_rows;
    bool want_value; /* read_schema has `value` (else only rows are counted) */
    bool done;
} text_reader;

static int text_open_reader(const cs_file_split *split, const cs_scan_request *req, void **out,
                            cs_error *err)
{
    const cs_col_type *rs = req->read_schema;
    if (rs->n_fields > 1 || (rs->n_fields == 1 && rs->fields[0].type->id != CS_TYPE_STRING))
        return cs_error_set(err, CS_EINVAL,
                            "text file %s: the text data source reads one string column, not "
                            "%d columns or a column `%s` of another type",
                            split->uri, rs->n_fields, rs->fields[0].name);
    text_reader *r = cs_xcalloc(1, sizeof *r);
    r->split = split;
    r->req = req;
    r->want_value = rs->n_fields == 1;
    r->batch_rows = req->batch_rows > 0 ? req->batch_rows : 4096;
    if (!option_true(req->options, "wholetext")) {
        r->lines_in = cs_line_reader_open(split->uri, split->start, split->length, split->file_size,
                                          cs_format_option(req->options, "lineSep"),
                                          CSPARK_MAX_RECORD_BYTES, TEXT_LIMIT_NAME, err);
        if (!r->lines_in) {
            free(r);
            return err->code ? err->code : CS_EIO;
        }
        r->lines = cs_xmalloc((size_t)r->batch_rows * sizeof *r->lines);
    } else if (split->start > 0) {
        r->done = true; /* a whole file is read by the split that starts it */
    }
    *out = r;
    return 0;
}

/* A batch of n rows; b (may be NULL when the value is not read) is finished into its column. */
static int make_batch(text_reader *r, cs_col_builder *b, int64_t n, cs_col_batch **out,
                      cs_error *err)
{
    cs_column *cols[1];
    int nc = 0;
    if (r->want_value) cols[nc++] = cs_col_builder_finish(b);
    *out = cs_col_batch_new(cs_col_type_ref((cs_col_type *)r->req->read_schema), cols, nc, n, err);
    return *out ? 1 : err->code;
}

static int read_whole(text_reader *r, cs_col_batch **out, cs_error *err)
{
    const struct cs_codec *codec;
    const cs_file_split *s = r->split;
    cs_fs_reader *in = cs_fs_open_input(s->uri, 0, s->file_size, s->file_size, &codec, err);
    if (!in) return err->code ? err->code : CS_EIO;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = cs_fs_read_to_end(in, CSPARK_MAX_RECORD_BYTES, &buf, &len, err);
    if (rc > 0)
        rc = cs_error_set(err, CS_EINVAL,
                          "text file %s is larger than the record limit of %zu bytes (%s): "
                          "wholetext reads each file as one value",
                          s->uri, CSPARK_MAX_RECORD_BYTES, TEXT_LIMIT_NAME);
    cs_fs_reader_close(in);
    if (rc == 0) {
        cs_col_builder *b =
            r->want_value ? cs_col_builder_new(r->req->alloc, cs_col_type_primitive(CS_TYPE_STRING))
                          : NULL;
        if (b) cs_col_builder_append_string(b, buf, len);
        rc = make_batch(r, b, 1, out, err);
        cs_col_builder_free(b);
    }
    free(buf);
    return rc;
}

static int text_next_batch(void *reader, cs_col_batch **out, cs_error *err)
{
    text_reader *r = reader;
    if (r->done) return 0;
    if (!r->lines_in) {
        r->done = true;
        return read_whole(r, out, err);
    }
    const uint8_t *base;
    ssize_t n = cs_line_reader_next(r->lines_in, (size_t)r->batch_rows, TEXT_BATCH_BYTES, &base,
                                    r->lines, err);
    if (n < 0) return (int)n;
    if (n == 0) {
        r->done = true;
        return 0;
    }
    cs_col_builder *b = NULL;
    if (r->want_value) {
        b = cs_col_builder_new(r->req->alloc, cs_col_type_primitive(CS_TYPE_STRING));
        size_t bytes = r->lines[n - 1].off + r->lines[n - 1].len;
        cs_col_builder_reserve(b, n, bytes);
        for (ssize_t i = 0; i < n; i++)
            cs_col_builder_append_string(b, base + r->lines[i].off, r->lines[i].len);
    }
    int rc = make_batch(r, b, n, out, err);
    cs_col_builder_free(b);
    return rc;
}

static void text_close_reader(void *reader)
{
    text_reader *r = reader;
    if (!r) return;
    cs_line_reader_close(r->lines_in);
    free(r->lines);
    free(r);
}

/* ---- writing ------------------------------------------------------------------------------- */

/* The codec of option `compression` (NULL: none); CS_EINVAL naming the value. */
static int text_codec(const cs_format_options *o, const cs_codec **codec, cs_error *err)
{
    const char *c = cs_format_option(o, "compression");
    if (!c) c = cs_format_option(o, "codec");
    *codec = NULL;
    if (!c || strcasecmp(c, "none") == 0 || strcasecmp(c, "uncompressed") == 0) return 0;
    *codec = cs_codec_for_name(c);
    if (!*codec)
        return cs_error_set(err, CS_EINVAL,
                            "option compression = '%s': expected none, uncompressed or %s", c,
                            cs_codec_names());
    return 0;
}

static void text_extension(const cs_format_options *options, cs_sbuf *out)
{
    const cs_codec *codec;
    cs_error e;
    cs_sbuf_puts(out, "txt");
    if (text_codec(options, &codec, &e) == 0 && codec) cs_sbuf_puts(out, codec->extension);
}

typedef struct text_writer {
    cs_fs_writer *w;
    char *sep;
    size_t sep_len;
    cs_sbuf buf;
} text_writer;

static int text_open_writer(const char *uri, const cs_col_type *schema,
                            const cs_format_options *options, void **out, cs_error *err)
{
    if (schema->n_fields != 1)
        return cs_error_set(err, CS_EINVAL,
                            "Text data source supports only a single column, and you have %d "
                            "columns.",
                            schema->n_fields);
    if (schema->fields[0].type->id != CS_TYPE_STRING) {
        cs_sbuf t = CS_SBUF_INIT;
        cs_col_type_simple_string(schema->fields[0].type, &t);
        int rc = cs_error_set(err, CS_EINVAL,
                              "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The Text datasource doesn't "
                              "support the column `%s` of the type \"%s\".",
                              schema->fields[0].name, cs_sbuf_str(&t));
        cs_sbuf_free(&t);
        return rc;
    }
    const cs_codec *codec;
    if (text_codec(options, &codec, err) < 0) return err->code;
    cs_fs_writer *w = cs_fs_create(uri, NULL, codec, err);
    if (!w) return err->code ? err->code : CS_EIO;
    text_writer *t = cs_xcalloc(1, sizeof *t);
    t->w = w;
    const char *sep = cs_format_option(options, "lineSep");
    t->sep = cs_xstrdup(sep && *sep ? sep : "\n");
    t->sep_len = strlen(t->sep);
    *out = t;
    return 0;
}

static int text_write_batch(void *writer, const cs_col_batch *batch, cs_error *err)
{
    text_writer *t = writer;
    const cs_column *c = batch->columns[0];
    for (int64_t i = 0; i < batch->num_rows; i++) {
        if (cs_column_is_valid(c, i)) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(c, i, &len);
            cs_sbuf_append(&t->buf, p, (size_t)len);
        }
        cs_sbuf_append(&t->buf, t->sep, t->sep_len);
        if (t->buf.len >= (1u << 20)) {
            if (cs_fs_write(t->w, t->buf.data, t->buf.len, err) < 0) return err->code;
            t->buf.len = 0;
        }
    }
    return 0;
}

static int text_close_writer(void *writer, bool commit, cs_error *err)
{
    text_writer *t = writer;
    int rc = 0;
    if (commit && t->buf.len && cs_fs_write(t->w, t->buf.data, t->buf.len, err) < 0) rc = err->code;
    if (commit && rc == 0) {
        cs_fs_pending *pending = NULL;
        rc = cs_fs_writer_finish(t->w, &pending, err);
        /* an object store's upload is made visible here: the data source writes formats to a
         * local staging file and uploads it itself (ds_write.c) */
        if (rc == 0 && pending) rc = cs_fs_pending_commit(pending, err);
        cs_fs_pending_free(pending);
    } else {
        cs_fs_writer_abort(t->w);
    }
    cs_sbuf_free(&t->buf);
    free(t->sep);
    free(t);
    return rc;
}

const cs_file_format cs_file_format_text = {
    .name = "text",
    .infer_schema = text_infer_schema,
    .is_splittable = text_is_splittable,
    .open_reader = text_open_reader,
    .next_batch = text_next_batch,
    .close_reader = text_close_reader,
    .extension = text_extension,
    .open_writer = text_open_writer,
    .write_batch = text_write_batch,
    .close_writer = text_close_writer,
};
