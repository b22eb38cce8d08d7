/*
 * csvjson_dump.c — runs cspark's CSV and JSON readers (src/formats/csv, src/formats/json) over a
 * corpus written by tests/spark/csv_json/cases.py and prints every case in the canonical form of
 * tests/spark/csv_json/canon.py, which spark_read.py prints for Apache Spark's readers; the test
 * tests/spark/csv_json_readers.sh compares the two. Test tool, not part of the product.
 *
 *   csvjson_dump CORPUS_DIR [SPLITS]        every case of CORPUS_DIR/cases.json; with SPLITS > 1
 *                                           a file not read with multiLine is read as SPLITS byte
 *                                           ranges (one reader each, as tasks do)
 *   csvjson_dump --write CORPUS_DIR OUTDIR  each case read by cspark and written back by cspark's
 *                                           writer as OUTDIR/<case>.<format> (header for CSV)
 *   csvjson_dump --bench csv|json FILE      parses FILE (inferring the schema first) and prints
 *                                           "<format> infer_mb_s=.. parse_mb_s=.. (wall clock)
 *                                           infer_cpu_mb_s=.. parse_cpu_mb_s=.. rows=.."
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/csv/csv.h"
#include "formats/json/json.h"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "csvjson_dump: cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = cs_xmalloc((size_t)len + 1);
    *n = fread(buf, 1, (size_t)len, f);
    fclose(f);
    return buf;
}

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

static void put_double(double d, cs_sbuf *out)
{
    if (isnan(d))
        cs_sbuf_puts(out, "nan");
    else if (isinf(d))
        cs_sbuf_puts(out, d > 0 ? "inf" : "-inf");
    else
        cs_sbuf_printf(out, "%.17g", d);
}

static void put_timestamp(int64_t micros, cs_sbuf *out)
{
    char bad;
    cs_tv_pattern *p = cs_tv_pattern_new("yyyy-MM-dd HH:mm:ss.SSSSSS", &bad);
    cs_tv_pattern_format(p, micros, out);
    cs_tv_pattern_free(p);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a nested JSON value of type t */
static void put_nested(const cs_ftype *t, json_t *v, cs_sbuf *out)
{
    if (!v || json_is_null(v)) {
        cs_sbuf_puts(out, "null");
        return;
    }
    switch (t->kind) {
    case CS_FT_STRUCT:
        cs_sbuf_putc(out, '{');
        for (int i = 0; i < t->nfields; i++) {
            cs_sbuf_printf(out, "%s%s=", i ? "," : "", t->names[i]);
            put_nested(t->fields[i], json_object_get(v, t->names[i]), out);
        }
        cs_sbuf_putc(out, '}');
        return;
    case CS_FT_MAP: { /* entries sorted by their text, as canon.py */
        const char *key;
        json_t *e;
        size_t n = 0;
        char **entries = cs_xcalloc(json_object_size(v) + 1, sizeof *entries);
        json_object_foreach(v, key, e)
        {
            cs_sbuf b = CS_SBUF_INIT;
            put_json_string(key, strlen(key), &b);
            cs_sbuf_puts(&b, "->");
            put_nested(t->element, e, &b);
            entries[n++] = cs_sbuf_detach(&b, NULL);
        }
        qsort(entries, n, sizeof *entries, cmp_text);
        cs_sbuf_putc(out, '{');
        for (size_t i = 0; i < n; i++) {
            cs_sbuf_printf(out, "%s%s", i ? "," : "", entries[i]);
            free(entries[i]);
        }
        free(entries);
        cs_sbuf_putc(out, '}');
        return;
    }
    case CS_FT_ARRAY: {
        cs_sbuf_putc(out, '[');
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (i) cs_sbuf_putc(out, ',');
            put_nested(t->element, e, out);
        }
        cs_sbuf_putc(out, ']');
        return;
    }
    case CS_FT_STRING:
        if (json_is_string(v))
            put_json_string(json_string_value(v), json_string_length(v), out);
        else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
            put_json_string(s, strlen(s), out);
            free(s);
        }
        return;
    case CS_FT_BOOLEAN:
        cs_sbuf_puts(out, json_is_true(v) ? "true" : "false");
        return;
    case CS_FT_LONG:
    case CS_FT_INT:
    case CS_FT_BYTE:
    case CS_FT_SHORT:
        cs_sbuf_printf(out, "%lld", (long long)json_integer_value(v));
        return;
    case CS_FT_FLOAT:
    case CS_FT_DOUBLE: /* a number, or the strings NaN, Infinity, -Infinity */
        put_double(json_is_number(v)                ? json_number_value(v)
                   : json_string_value(v)[0] == 'N' ? NAN
                   : json_string_value(v)[0] == '-' ? -INFINITY
                                                    : INFINITY,
                   out);
        return;
    default:
        cs_sbuf_puts(out, "?");
    }
}

static void print_chunk(const cs_field_chunk *c, cs_sbuf *out)
{
    for (size_t r = 0; r < c->rows; r++) {
        cs_sbuf_puts(out, "row: ");
        for (int i = 0; i < c->ncols; i++) {
            const cs_field_column *k = &c->cols[i];
            if (i) cs_sbuf_putc(out, '\t');
            if (k->nulls[r]) {
                cs_sbuf_puts(out, "null");
                continue;
            }
            switch (k->kind) {
            case CS_FT_STRING: {
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                put_json_string(s, n, out);
                break;
            }
            case CS_FT_BINARY: {
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                cs_sbuf_puts(out, "0x");
                for (size_t b = 0; b < n; b++)
                    cs_sbuf_printf(out, "%02x", (unsigned char)s[b]);
                break;
            }
            case CS_FT_BOOLEAN:
                cs_sbuf_puts(out, k->i64[r] ? "true" : "false");
                break;
            case CS_FT_BYTE:
            case CS_FT_SHORT:
            case CS_FT_INT:
            case CS_FT_LONG:
                cs_sbuf_printf(out, "%lld", (long long)k->i64[r]);
                break;
            case CS_FT_FLOAT:
            case CS_FT_DOUBLE:
                put_double(k->f64[r], out);
                break;
            case CS_FT_DECIMAL:
                cs_tv_format_decimal(k->dec[r], k->scale, out);
                break;
            case CS_FT_DATE:
                cs_tv_format_date(k->i64[r], out);
                break;
            case CS_FT_TIMESTAMP:
            case CS_FT_TIMESTAMP_NTZ:
                put_timestamp(k->i64[r], out);
                break;
            default:
                put_nested(c->schema->fields[i], k->nested[r], out);
            }
        }
        cs_sbuf_putc(out, '\n');
    }
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

typedef struct source {
    bool csv;
    cs_csv_options *co;
    cs_json_options *jo;
} source;

/* Reads buf[lo..hi) into chunks; each full chunk goes to sink (print or write). Returns CS_OK. */
static int read_range(const source *src, const cs_ftype *schema, const char *buf, size_t lo,
                      size_t hi, bool first_split, cs_sbuf *out, bool write, cs_error *err)
{
    cs_field_chunk *chunk = cs_field_chunk_new(schema, 4096);
    cs_csv_reader *cr = src->csv ? cs_csv_reader_new(src->co, schema, err) : NULL;
    cs_json_reader *jr = src->csv ? NULL : cs_json_reader_new(src->jo, schema, err);
    int rc = (cr || jr) ? CS_OK : CS_EINVAL;
    size_t pos = lo;
    bool skip_header = src->csv && src->co->header && first_split;
    while (rc == CS_OK) {
        rc = src->csv ? cs_csv_read(cr, buf, hi, &pos, true, &skip_header, chunk, err)
                      : cs_json_read(jr, buf, hi, &pos, true, chunk, err);
        if (rc == CS_OK && !chunk->rows) break;
        if (write && src->csv)
            cs_csv_write_rows(src->co, chunk, out);
        else if (write)
            cs_json_write_rows(src->jo, chunk, out);
        else if (out)
            print_chunk(chunk, out);
        cs_field_chunk_reset(chunk);
    }
    cs_csv_reader_free(cr);
    cs_json_reader_free(jr);
    cs_field_chunk_free(chunk);
    return rc;
}

/* "`a` int,`b` struct<x:bigint>": a schema as Spark's DDL parser takes it */
static char *schema_ddl(const cs_ftype *st)
{
    cs_sbuf b = CS_SBUF_INIT;
    for (int i = 0; i < st->nfields; i++) {
        cs_sbuf_printf(&b, "%s`%s` ", i ? "," : "", st->names[i]);
        cs_ftype_simple_string(st->fields[i], &b);
    }
    return cs_sbuf_detach(&b, NULL);
}

static int run_case(const char *dir, json_t *c, int splits, const char *write_dir, json_t *written)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *fmt = json_string_value(json_object_get(c, "format"));
    json_t *opts = json_object_get(c, "options"), *schema_text = json_object_get(c, "schema");
    const char *keys[32], *values[32];
    int n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(opts, k, v) if (n < 32) keys[n] = k, values[n++] = json_string_value(v);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(c, "file")));
    size_t len;
    char *buf = slurp(path, &len);
    cs_error err;
    cs_error_clear(&err);
    source src = {!strcmp(fmt, "csv"), NULL, NULL};
    if (src.csv)
        src.co = cs_csv_options_new(keys, values, n, &err);
    else
        src.jo = cs_json_options_new(keys, values, n, &err);
    cs_ftype *schema = NULL;
    if (src.co || src.jo)
        schema = json_is_string(schema_text)
                     ? cs_ftype_parse_ddl(json_string_value(schema_text), &err)
                 : src.csv ? cs_csv_infer_schema(src.co, buf, len, &err)
                           : cs_json_infer_schema(src.jo, buf, len, &err);
    cs_sbuf out = CS_SBUF_INIT;
    int rc = schema ? CS_OK : CS_EINVAL;
    bool multi = src.csv ? src.co && src.co->multi_line : src.jo && src.jo->multi_line;
    if (write_dir && schema) {
        if (src.csv) cs_csv_write_header(src.co, schema, &out);
        rc = read_range(&src, schema, buf, 0, len, true, &out, true, &err);
        snprintf(path, sizeof path, "%s/%s.%s", write_dir, name, fmt);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(out.data ? out.data : "", 1, out.len, f);
            fclose(f);
        }
        const char *corrupt = src.csv ? src.co->corrupt_column : src.jo->corrupt_column;
        if (rc == CS_OK && cs_ftype_field_index(schema, corrupt) < 0) {
            /* the written file, read back with cspark's schema and the case's options */
            json_t *w = json_deep_copy(c), *wo = json_object_get(w, "options");
            char *ddl = schema_ddl(schema);
            snprintf(path, sizeof path, "%s.%s", name, fmt);
            json_object_set_new(w, "file", json_string(path));
            json_object_set_new(w, "schema", json_string(ddl));
            json_object_del(wo, "inferSchema");
            json_object_del(wo, "mode");
            if (src.csv) json_object_set_new(wo, "header", json_string("true"));
            json_array_append_new(written, w);
            free(ddl);
        }
    } else if (schema) {
        cs_sbuf_puts(&out, "schema: ");
        cs_ftype_simple_string(schema, &out);
        cs_sbuf_putc(&out, '\n');
        int parts = multi || splits < 1 ? 1 : splits;
        size_t step = len / (size_t)parts + 1;
        for (int p = 0; p < parts && rc == CS_OK; p++) {
            size_t lo = 0, hi = len;
            if (parts > 1) cs_line_split_range(buf, len, (size_t)p * step, step, &lo, &hi);
            rc = read_range(&src, schema, buf, lo, hi, p == 0, &out, false, &err);
        }
    }
    if (!write_dir) {
        printf("== %s\n", name);
        if (rc != CS_OK) {
            print_error(c, err.msg);
            fprintf(stderr, "case %s: %s\n", name, err.msg);
        } else
            fputs(cs_sbuf_str(&out), stdout);
    }
    cs_sbuf_free(&out);
    cs_ftype_free(schema);
    cs_csv_options_free(src.co);
    cs_json_options_free(src.jo);
    free(buf);
    return 0;
}

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bench(const char *fmt, const char *file)
{
    size_t len;
    char *buf = slurp(file, &len);
    cs_error err;
    cs_error_clear(&err);
    const char *keys[] = {"header", "inferSchema"}, *values[] = {"true", "true"};
    source src = {!strcmp(fmt, "csv"), NULL, NULL};
    if (src.csv)
        src.co = cs_csv_options_new(keys, values, 2, &err);
    else
        src.jo = cs_json_options_new(NULL, NULL, 0, &err);
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    cs_ftype *schema = src.csv ? cs_csv_infer_schema(src.co, buf, len, &err)
                               : cs_json_infer_schema(src.jo, buf, len, &err);
    double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    cs_field_chunk *chunk = cs_field_chunk_new(schema, 4096);
    cs_csv_reader *cr = src.csv ? cs_csv_reader_new(src.co, schema, &err) : NULL;
    cs_json_reader *jr = src.csv ? NULL : cs_json_reader_new(src.jo, schema, &err);
    size_t pos = 0, rows = 0;
    bool skip = src.csv;
    for (;;) {
        int rc = src.csv ? cs_csv_read(cr, buf, len, &pos, true, &skip, chunk, &err)
                         : cs_json_read(jr, buf, len, &pos, true, chunk, &err);
        if (rc != CS_OK || !chunk->rows) break;
        rows += chunk->rows;
        cs_field_chunk_reset(chunk);
    }
    double t2 = now(CLOCK_MONOTONIC), c2 = now(CLOCK_PROCESS_CPUTIME_ID), mb = (double)len / 1e6;
    /* wall clock, and CPU time (what a shared machine's load does not change) */
    printf("%s infer_mb_s=%.1f parse_mb_s=%.1f infer_cpu_mb_s=%.1f parse_cpu_mb_s=%.1f rows=%zu "
           "mb=%.1f\n",
           fmt, mb / (t1 - t0), mb / (t2 - t1), mb / (c1 - c0), mb / (c2 - c1), rows, mb);
    cs_csv_reader_free(cr);
    cs_json_reader_free(jr);
    cs_field_chunk_free(chunk);
    cs_ftype_free(schema);
    cs_csv_options_free(src.co);
    cs_json_options_free(src.jo);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--bench")) return bench(argv[2], argv[3]);
    const char *write_dir = NULL, *dir = argv[1];
    int splits = 1;
    if (argc == 4 && !strcmp(argv[1], "--write"))
        dir = argv[2], write_dir = argv[3];
    else if (argc == 3)
        splits = atoi(argv[2]);
    else if (argc != 2) {
        fprintf(stderr, "usage: csvjson_dump CORPUS_DIR [SPLITS] | --write CORPUS_DIR OUTDIR | "
                        "--bench csv|json FILE\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.json", dir);
    json_error_t jerr;
    json_t *cases = json_load_file(path, 0, &jerr);
    if (!cases) {
        fprintf(stderr, "csvjson_dump: %s: %s\n", path, jerr.text);
        return 2;
    }
    size_t i;
    json_t *c, *written = json_array();
    json_array_foreach(cases, i, c) run_case(dir, c, splits, write_dir, written);
    if (write_dir) {
        snprintf(path, sizeof path, "%s/cases.json", write_dir);
        json_dump_file(written, path, JSON_INDENT(1));
    }
    json_decref(written);
    json_decref(cases);
    return 0;
}
