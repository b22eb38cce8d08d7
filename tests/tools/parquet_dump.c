/* parquet_dump — a test tool (not part of the product): reads a Parquet file with cspark's
 * footer reader and page iterator (src/formats/parquet) and prints, as one JSON document, every
 * leaf column's definition levels, repetition levels and non-null values across all row groups,
 * with the page types, value encodings and codec seen. tests/integration/parquet_pyarrow.sh
 * compares this with what pyarrow reads from the same file.
 *
 *   parquet_dump FILE     -> stdout: {"num_rows":..,"columns":[{"path":..,"values":[..],..}]}
 * Values: BOOLEAN true/false; INT32/INT64 integers; FLOAT/DOUBLE numbers ("NaN", "Infinity",
 * "-Infinity" as strings); INT96, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY lowercase hex strings.
 * Exit 0; 1 with the reader's one-line error on stderr.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_pages.h"

static json_t *hex(const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    s[2 * n] = 0;
    json_t *j = json_string(s);
    free(s);
    return j;
}

static json_t *real(double d)
{
    if (isnan(d)) return json_string("NaN");
    if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static void add_values(json_t *arr, const cs_parquet_values *v)
{
    for (uint32_t i = 0; i < v->count; i++) {
        json_t *j = NULL;
        switch (v->type) {
        case CS_PQ_BOOLEAN:
            j = json_boolean(v->fixed[i]);
            break;
        case CS_PQ_INT32: {
            int32_t x;
            memcpy(&x, v->fixed + 4 * (size_t)i, 4);
            j = json_integer(x);
            break;
        }
        case CS_PQ_INT64: {
            int64_t x;
            memcpy(&x, v->fixed + 8 * (size_t)i, 8);
            j = json_integer(x);
            break;
        }
        case CS_PQ_FLOAT: {
            float x;
            memcpy(&x, v->fixed + 4 * (size_t)i, 4);
            j = real(x);
            break;
        }
        case CS_PQ_DOUBLE: {
            double x;
            memcpy(&x, v->fixed + 8 * (size_t)i, 8);
            j = real(x);
            break;
        }
        case CS_PQ_BYTE_ARRAY:
            j = hex(v->data + v->offsets[i], (size_t)(v->offsets[i + 1] - v->offsets[i]));
            break;
        default: {
            size_t w = cs_parquet_value_width(v->type, v->type_length);
            j = hex(v->fixed + w * i, w);
        }
        }
        json_array_append_new(arr, j);
    }
}

static void add_unique(json_t *arr, const char *s)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x)
    {
        if (strcmp(json_string_value(x), s) == 0) return;
    }
    json_array_append_new(arr, json_string(s));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parquet_dump FILE\n");
        return 2;
    }
    cs_error err = {0};
    cs_parquet_file *f;
    if (cs_parquet_file_open(argv[1], &f, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    json_t *doc = json_object(), *cols = json_array();
    json_object_set_new(doc, "num_rows", json_integer(f->meta.num_rows));
    json_object_set_new(doc, "row_groups", json_integer(f->meta.num_row_groups));
    int rc = 0;
    for (uint32_t c = 0; c < f->num_columns && !rc; c++) {
        const cs_parquet_column_desc *cd = &f->columns[c];
        json_t *col = json_object(), *defs = json_array(), *reps = json_array(),
               *vals = json_array();
        json_t *encs = json_array(), *ptypes = json_array(), *codecs = json_array();
        json_object_set_new(col, "path", json_string(cd->path));
        json_object_set_new(col, "type", json_string(cs_parquet_type_name(cd->type)));
        json_object_set_new(col, "max_def", json_integer(cd->max_def));
        json_object_set_new(col, "max_rep", json_integer(cd->max_rep));
        for (uint32_t g = 0; g < f->meta.num_row_groups && !rc; g++) {
            const cs_parquet_column_meta *cm = &f->meta.row_groups[g].columns[c].meta;
            uint8_t *chunk;
            size_t len;
            if ((rc = cs_parquet_file_read_chunk(f, g, c, &chunk, &len, &err))) break;
            char where[1024];
            snprintf(where, sizeof where, "%s: column %s, row group %u", f->name, cd->path, g);
            cs_parquet_page_reader r;
            cs_parquet_page_reader_init(&r, where, cd, cm->codec, chunk, len, cm->num_values,
                                        cm->total_uncompressed_size);
            add_unique(codecs, cs_parquet_codec_name(cm->codec));
            cs_parquet_page page;
            int more;
            while ((more = cs_parquet_page_reader_next(&r, &page, &err)) > 0) {
                add_unique(ptypes, page.type == CS_PQ_PAGE_DATA ? "DATA_PAGE" : "DATA_PAGE_V2");
                add_unique(encs, cs_parquet_encoding_name(page.encoding));
                for (uint32_t i = 0; i < page.num_values; i++) {
                    if (page.def_levels)
                        json_array_append_new(defs, json_integer(page.def_levels[i]));
                    if (page.rep_levels)
                        json_array_append_new(reps, json_integer(page.rep_levels[i]));
                }
                add_values(vals, page.values);
            }
            if (more < 0) rc = more;
            if (r.has_dictionary) add_unique(encs, "DICTIONARY_PAGE");
            cs_parquet_page_reader_free(&r);
            free(chunk);
        }
        json_object_set_new(col, "def", defs);
        json_object_set_new(col, "rep", reps);
        json_object_set_new(col, "values", vals);
        json_object_set_new(col, "encodings", encs);
        json_object_set_new(col, "page_types", ptypes);
        json_object_set_new(col, "codecs", codecs);
        json_array_append_new(cols, col);
    }
    json_object_set_new(doc, "columns", cols);
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        json_dumpf(doc, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
    }
    json_decref(doc);
    cs_parquet_file_free(f);
    return rc ? 1 : 0;
}
