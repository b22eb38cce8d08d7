/*
 * textformat_dump.c — runs the CSV and JSON file formats (src/formats/csv/csv_format.c,
 * src/formats/json/json_format.c, through the registry of file_format.h) over a corpus written
 * by tests/spark/csv_json/cases.py and prints every case's schema and batches in the canonical
 * form of tests/spark/csv_json/canon.py, which spark_read.py prints for Apache Spark's readers;
 * tests/spark/csv_json_readers.sh compares them. Test tool, not part of the product.
 *
 *   textformat_dump CORPUS_DIR [SPLIT_BYTES [FILES]]
 *                                            every case of CORPUS_DIR/cases.json: the schema
 *                                            given (DDL) or inferred by the format, then the file
 *                                            read as splits of SPLIT_BYTES bytes (one reader
 *                                            each, as tasks do; 0: whole) when the format says it
 *                                            is splittable, else whole; the files are read from
 *                                            FILES (any URI src/fs takes) instead of CORPUS_DIR
 *   textformat_dump --write CORPUS_DIR OUTDIR each case read whole and written by the format's
 *                                            writer as OUTDIR/<case>.<ext> (header for CSV), and
 *                                            again with compression=gzip as
 *                                            OUTDIR/<case>_gz.<ext>.gz; OUTDIR/cases.json lists
 *                                            them as cases to read back
 *   textformat_dump --read FORMAT FILE [KEY=VALUE...]
 *                                            reads FILE whole (schema inferred), prints the rows
 *                                            counted or the one-line error (exit 1)
 *   textformat_dump --copy FORMAT FROM TO [KEY=VALUE...]
 *                                            reads FROM whole (schema inferred) and writes it to
 *                                            TO with the format's writer and the same options
 *   textformat_dump --bench csv|json FILE    infers and reads FILE into batches (one split, one
 *                                            thread) and prints MB/s as csvjson_dump --bench
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "columnar/column.h"
#include "formats/field_chunk.h"
#include "formats/file_format.h"
#include "formats/text_batch.h"
#include "formats/text_values.h"
#include "fs/fs.h"

static void put_json_string(const char *s, size_t n, cs_sbuf *out)
{
    cs_sbuf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            cs_sbuf_printf(out, "\\%c", c);
        else if (c == '\n')
            cs_sbuf_puts(out, "\\n");
        else if (c == '\r')
            cs_sbuf_puts(out, "\\r");
        else if (c == '\t')
            cs_sbuf_puts(out, "\\t");
        else if (c == '\b')
            cs_sbuf_puts(out, "\\b");
        else if (c == '\f')
            cs_sbuf_puts(out, "\\f");
        else if (c < 0x20)
            cs_sbuf_printf(out, "\\u%04x", c);
        else
            cs_sbuf_putc(out, (char)c);
    }
    cs_sbuf_putc(out, '"');
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* one value of column c, row r, in canon.py's form */
static void put_value(const cs_column *c, int64_t r, cs_sbuf *out)
{
    if (!cs_column_is_valid(c, r)) {
        cs_sbuf_puts(out, "null");
        return;
    }
    const cs_col_type *t = c->type;
    const void *v = c->values;
    switch (t->id) {
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, r, &len);
        put_json_string((const char *)p, (size_t)len, out);
        return;
    }
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, r, &len);
        cs_sbuf_puts(out, "0x");
        for (int32_t i = 0; i < len; i++)
            cs_sbuf_printf(out, "%02x", p[i]);
        return;
    }
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(out, cs_bit_get(c->values, r) ? "true" : "false");
        return;
    case CS_TYPE_BYTE:
        cs_sbuf_printf(out, "%d", ((const int8_t *)v)[r]);
        return;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(out, "%d", ((const int16_t *)v)[r]);
        return;
    case CS_TYPE_INT:
        cs_sbuf_printf(out, "%d", ((const int32_t *)v)[r]);
        return;
    case CS_TYPE_LONG:
        cs_sbuf_printf(out, "%lld", (long long)((const int64_t *)v)[r]);
        return;
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE: {
        double d = c->type->id == CS_TYPE_FLOAT ? ((const float *)v)[r] : ((const double *)v)[r];
        if (isnan(d))
            cs_sbuf_puts(out, "nan");
        else if (isinf(d))
            cs_sbuf_puts(out, d > 0 ? "inf" : "-inf");
        else
            cs_sbuf_printf(out, "%.17g", d);
        return;
    }
    case CS_TYPE_DECIMAL: {
        __int128 u;
        memcpy(&u, c->values + 16 * r, 16);
        cs_tv_format_decimal(u, t->scale, out);
        return;
    }
    case CS_TYPE_DATE:
        cs_tv_format_date(((const int32_t *)v)[r], out);
        return;
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ: {
        char bad;
        cs_tv_pattern *p = cs_tv_pattern_new("yyyy-MM-dd HH:mm:ss.SSSSSS", &bad);
        cs_tv_pattern_format(p, ((const int64_t *)v)[r], out);
        cs_tv_pattern_free(p);
        return;
    }
    case CS_TYPE_STRUCT:
        cs_sbuf_putc(out, '{');
        for (int i = 0; i < t->n_fields; i++) {
            cs_sbuf_printf(out, "%s%s=", i ? "," : "", t->fields[i].name);
            put_value(c->children[i], r, out);
        }
        cs_sbuf_putc(out, '}');
        return;
    case CS_TYPE_MAP: { /* entries sorted by their text, as canon.py */
        const int32_t *off = cs_column_offsets(c);
        int32_t n = off[r + 1] - off[r];
        char **entries = cs_xcalloc((size_t)n + 1, sizeof *entries);
        for (int32_t e = 0; e < n; e++) {
            cs_sbuf b = CS_SBUF_INIT;
            put_value(c->children[0], off[r] + e, &b);
            cs_sbuf_puts(&b, "->");
            put_value(c->children[1], off[r] + e, &b);
            entries[e] = cs_sbuf_detach(&b, NULL);
        }
        qsort(entries, (size_t)n, sizeof *entries, cmp_text);
        cs_sbuf_putc(out, '{');
        for (int32_t e = 0; e < n; e++) {
            cs_sbuf_printf(out, "%s%s", e ? "," : "", entries[e]);
            free(entries[e]);
        }
        free(entries);
        cs_sbuf_putc(out, '}');
        return;
    }
    case CS_TYPE_ARRAY: {
        const int32_t *off = cs_column_offsets(c);
        cs_sbuf_putc(out, '[');
        for (int32_t e = off[r]; e < off[r + 1]; e++) {
            if (e > off[r]) cs_sbuf_putc(out, ',');
            put_value(c->children[0], e, out);
        }
        cs_sbuf_putc(out, ']');
        return;
    }
    default:
        cs_sbuf_puts(out, "?");
    }
}

static void print_batch(const cs_col_batch *b, cs_sbuf *out)
{
    for (int64_t r = 0; r < b->num_rows; r++) {
        cs_sbuf_puts(out, "row: ");
        for (int i = 0; i < b->n_columns; i++) {
            if (i) cs_sbuf_putc(out, '\t');
            put_value(b->columns[i], r, out);
        }
        cs_sbuf_putc(out, '\n');
    }
}

typedef struct options {
    const char *keys[40], *values[40];
    cs_format_options fo;
} options;

static void options_from(json_t *opts, options *o)
{
    const char *k;
    json_t *v;
    o->fo = (cs_format_options){o->keys, o->values, 0};
    json_object_foreach(opts, k, v) if (o->fo.n < 38)
    {
        o->keys[o->fo.n] = k;
        o->values[o->fo.n++] = json_string_value(v);
    }
}

static void options_set(options *o, const char *k, const char *v)
{
    o->keys[o->fo.n] = k;
    o->values[o->fo.n++] = v;
}

static uint64_t file_size(const char *uri)
{
    cs_fs_status st;
    return cs_fs_stat(uri, &st, NULL) == CS_OK ? st.size : 0;
}

/* The case's schema: its DDL, or what the format infers. */
static cs_col_type *case_schema(const cs_file_format *f, json_t *schema_text, const char *path,
                                const cs_format_options *fo, cs_error *err)
{
    if (json_is_string(schema_text)) {
        cs_ftype *st = cs_ftype_parse_ddl(json_string_value(schema_text), err);
        if (!st) return NULL;
        cs_col_type *t = cs_text_col_type(st);
        cs_ftype_free(st);
        return t;
    }
    cs_col_type *t = NULL;
    const char *uris[] = {path};
    return f->infer_schema(uris, 1, fo, &t, err) == CS_OK ? t : NULL;
}

/* Reads split [start, start + length) of path; each batch to print (out) or to a writer. */
static int read_split(const cs_file_format *f, const char *path, uint64_t start, uint64_t length,
                      cs_col_type *schema, const cs_format_options *fo, cs_sbuf *out, void *writer,
                      int64_t *rows, cs_error *err)
{
    cs_file_split split = {path, start, length, file_size(path)};
    cs_scan_request req = {schema, schema, NULL, 0, 0, cs_col_default_allocator(), fo};
    void *reader;
    int rc = f->open_reader(&split, &req, &reader, err);
    if (rc != CS_OK) return rc;
    cs_col_batch *b;
    while ((rc = f->next_batch(reader, &b, err)) == 1) {
        if (rows) *rows += b->num_rows;
        for (int i = 0; i < b->n_columns && rc == 1; i++)
            if (cs_column_validate(b->columns[i], err) != CS_OK) rc = -1;
        if (rc == 1 && out) print_batch(b, out);
        if (rc == 1 && writer && f->write_batch(writer, b, err) != CS_OK) rc = -1;
        cs_col_batch_unref(b);
        if (rc < 0) break;
    }
    f->close_reader(reader);
    return rc < 0 ? (err->code ? err->code : CS_EINVAL) : CS_OK;
}

/* "error", or with the case's error_class "error: CLASS" (the first [CLASS] of the message), as
 * spark_read.py prints Spark's */
static void print_error(json_t *c, const char *msg)
{
    const char *p = msg;
    size_t n = 0;
    if (!json_is_true(json_object_get(c, "error_class"))) {
        printf("error\n");
        return;
    }
    while ((p = strchr(p, '['))) {
        p++;
        n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.");
        if (n && p[n] == ']') break;
    }
    if (p)
        printf("error: %.*s\n", (int)n, p);
    else
        printf("error: ?\n");
}

static void run_case(const char *dir, json_t *c, uint64_t split_bytes, const char *files)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const cs_file_format *f = cs_file_format_find(json_string_value(json_object_get(c, "format")));
    options o;
    options_from(json_object_get(c, "options"), &o);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", files ? files : dir,
             json_string_value(json_object_get(c, "file")));
    cs_error err;
    cs_error_clear(&err);
    cs_sbuf out = CS_SBUF_INIT;
    cs_col_type *schema = case_schema(f, json_object_get(c, "schema"), path, &o.fo, &err);
    int rc = schema ? CS_OK : CS_EINVAL;
    if (schema) {
        cs_sbuf_puts(&out, "schema: ");
        cs_col_type_simple_string(schema, &out);
        cs_sbuf_putc(&out, '\n');
        uint64_t size = file_size(path);
        uint64_t step = split_bytes && f->is_splittable(path, &o.fo) ? split_bytes : size + 1;
        for (uint64_t at = 0; (at < size || at == 0) && rc == CS_OK; at += step)
            rc = read_split(f, path, at, step, schema, &o.fo, &out, NULL, NULL, &err);
    }
    printf("== %s\n", name);
    if (rc != CS_OK) {
        print_error(c, err.msg);
        fprintf(stderr, "case %s: %s\n", name, err.msg);
    } else
        fputs(cs_sbuf_str(&out), stdout);
    cs_sbuf_free(&out);
    cs_col_type_unref(schema);
}

/* the case read whole and written to OUTDIR/<out_name>.<ext>; a case to read it back is added */
static void write_case(const char *dir, json_t *c, const char *out_dir, const char *compression,
                       json_t *written)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *fmt = json_string_value(json_object_get(c, "format"));
    const cs_file_format *f = cs_file_format_find(fmt);
    options o, wo;
    options_from(json_object_get(c, "options"), &o);
    options_from(json_object_get(c, "options"), &wo);
    if (!strcmp(fmt, "csv")) options_set(&wo, "header", "true");
    if (compression) options_set(&wo, "compression", compression);
    char path[4096], out_path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(c, "file")));
    cs_error err;
    cs_error_clear(&err);
    cs_col_type *schema = case_schema(f, json_object_get(c, "schema"), path, &o.fo, &err);
    if (!schema) return;
    if (json_is_true(json_object_get(c, "error_class"))) { /* a read that fails, in Spark too */
        cs_col_type_unref(schema);
        return;
    }
    /* a FAILFAST case fails reading, in Spark too; a corrupt-record column is no data to write */
    const char *mode = cs_format_option(&o.fo, "mode");
    if (mode && !strcasecmp(mode, "FAILFAST")) {
        cs_col_type_unref(schema);
        return;
    }
    const char *corrupt = cs_format_option(&o.fo, "columnNameOfCorruptRecord");
    for (int i = 0; i < schema->n_fields; i++)
        if (!strcmp(schema->fields[i].name, corrupt ? corrupt : "_corrupt_record")) {
            cs_col_type_unref(schema);
            return;
        }
    cs_sbuf ext = CS_SBUF_INIT;
    f->extension(&wo.fo, &ext);
    char out_name[512];
    snprintf(out_name, sizeof out_name, "%s%s", name, compression ? "_gz" : "");
    snprintf(out_path, sizeof out_path, "%s/%s.%s", out_dir, out_name, cs_sbuf_str(&ext));
    void *writer;
    int rc = f->open_writer(out_path, schema, &wo.fo, &writer, &err);
    if (rc == CS_OK) {
        rc = read_split(f, path, 0, file_size(path) + 1, schema, &o.fo, NULL, writer, NULL, &err);
        int close_rc = f->close_writer(writer, rc == CS_OK, &err);
        if (rc == CS_OK) rc = close_rc;
    }
    if (rc == CS_OK) {
        json_t *w = json_deep_copy(c), *wopts = json_object_get(w, "options");
        cs_sbuf ddl = CS_SBUF_INIT;
        for (int i = 0; i < schema->n_fields; i++) {
            cs_sbuf_printf(&ddl, "%s`%s` ", i ? "," : "", schema->fields[i].name);
            cs_col_type_simple_string(schema->fields[i].type, &ddl);
        }
        snprintf(out_path, sizeof out_path, "%s.%s", out_name, cs_sbuf_str(&ext));
        json_object_set_new(w, "name", json_string(out_name));
        json_object_set_new(w, "file", json_string(out_path));
        json_object_set_new(w, "schema", json_string(cs_sbuf_str(&ddl)));
        json_object_del(wopts, "inferSchema");
        json_object_del(wopts, "mode");
        if (!strcmp(fmt, "csv")) json_object_set_new(wopts, "header", json_string("true"));
        json_array_append_new(written, w);
        cs_sbuf_free(&ddl);
    } else
        fprintf(stderr, "write %s: %s\n", out_name, err.msg);
    cs_sbuf_free(&ext);
    cs_col_type_unref(schema);
}

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_file(const char *fmt, const char *path, const char *copy_to, int nopts, char **kv,
                     bool bench)
{
    const cs_file_format *f = cs_file_format_find(fmt);
    if (!f) {
        fprintf(stderr, "textformat_dump: no format %s\n", fmt);
        return 2;
    }
    options o;
    o.fo = (cs_format_options){o.keys, o.values, 0};
    if (bench) {
        if (!strcmp(fmt, "csv")) options_set(&o, "header", "true");
        options_set(&o, "inferSchema", "true");
    }
    for (int i = 0; i < nopts && o.fo.n < 38; i++) {
        char *eq = strchr(kv[i], '=');
        if (!eq) continue;
        *eq = '\0';
        options_set(&o, kv[i], eq + 1);
    }
    cs_error err;
    cs_error_clear(&err);
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    const char *uris[] = {path};
    cs_col_type *schema = NULL;
    int64_t rows = 0;
    int rc = f->infer_schema(uris, 1, &o.fo, &schema, &err);
    double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    void *writer = NULL;
    if (rc == CS_OK && copy_to) rc = f->open_writer(copy_to, schema, &o.fo, &writer, &err);
    if (rc == CS_OK)
        rc = read_split(f, path, 0, file_size(path) + 1, schema, &o.fo, NULL, writer, &rows, &err);
    if (writer) {
        int close_rc = f->close_writer(writer, rc == CS_OK, &err);
        if (rc == CS_OK) rc = close_rc;
    }
    double t2 = now(CLOCK_MONOTONIC), c2 = now(CLOCK_PROCESS_CPUTIME_ID);
    cs_col_type_unref(schema);
    if (rc != CS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double mb = (double)file_size(path) / 1e6;
    if (bench)
        printf("%s (batches) infer_mb_s=%.1f parse_mb_s=%.1f infer_cpu_mb_s=%.1f "
               "parse_cpu_mb_s=%.1f rows=%lld mb=%.1f\n",
               fmt, mb / (t1 - t0), mb / (t2 - t1), mb / (c1 - c0), mb / (c2 - c1), (long long)rows,
               mb);
    else
        printf("rows=%lld\n", (long long)rows);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--read"))
        return read_file(argv[2], argv[3], NULL, argc - 4, argv + 4, false);
    if (argc >= 5 && !strcmp(argv[1], "--copy"))
        return read_file(argv[2], argv[3], argv[4], argc - 5, argv + 5, false);
    if (argc == 4 && !strcmp(argv[1], "--bench"))
        return read_file(argv[2], argv[3], NULL, 0, NULL, true);
    const char *write_dir = NULL, *dir = argv[1];
    uint64_t split_bytes = 0;
    const char *files = NULL;
    if (argc == 4 && !strcmp(argv[1], "--write"))
        dir = argv[2], write_dir = argv[3];
    else if (argc == 3 || argc == 4) {
        split_bytes = strtoull(argv[2], NULL, 10);
        files = argc == 4 ? argv[3] : NULL;
    } else if (argc != 2) {
        fprintf(stderr, "usage: textformat_dump CORPUS_DIR [SPLIT_BYTES [FILES]] | --write "
                        "CORPUS_DIR OUTDIR | --read FORMAT FILE [KEY=VALUE...] | --copy FORMAT "
                        "FROM TO [KEY=VALUE...] | --bench csv|json FILE\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.json", dir);
    json_error_t jerr;
    json_t *cases = json_load_file(path, 0, &jerr);
    if (!cases) {
        fprintf(stderr, "textformat_dump: %s: %s\n", path, jerr.text);
        return 2;
    }
    size_t i;
    json_t *c, *written = json_array();
    json_array_foreach(cases, i, c)
    {
        if (!write_dir)
            run_case(dir, c, split_bytes, files);
        else {
            write_case(dir, c, write_dir, NULL, written);
            write_case(dir, c, write_dir, "gzip", written);
        }
    }
    if (write_dir) {
        snprintf(path, sizeof path, "%s/cases.json", write_dir);
        json_dump_file(written, path, JSON_INDENT(1));
    }
    json_decref(written);
    json_decref(cases);
    return 0;
}
