/*
 * ipc_sample.h — test helpers shared by tests/unit/formats/test_arrow_ipc.c and the pyarrow
 * round-trip tool (arrow_ipc_tool.c): a batch with a column of every Spark type (nested ones
 * too, nulls, edge values, a dictionary-encoded string column), and a canonical text dump of a
 * batch that tests/formats/arrow_ipc_pyarrow.py prints identically from pyarrow's side:
 *   one line "schema <simpleString>" (a dictionary-encoded string shows as "string#dict"), then
 *   one line per row, values separated by " | ": null, true/false, integers, f:<float bits hex>,
 *   d:<double bits hex>, decimals as their unscaled integer, x:<hex> for string and binary,
 *   dates as days, timestamps as microseconds, [a,b] arrays, {a,b} structs, <k=v,...> maps.
 * Static functions only: each test file includes it once.
 */
#ifndef CSPARK_TESTS_IPC_SAMPLE_H
#define CSPARK_TESTS_IPC_SAMPLE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"

#define SAMPLE_FN static __attribute__((unused))

SAMPLE_FN cs_col_type *prim(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

/* The sample schema (one reference). */
SAMPLE_FN cs_col_type *sample_schema(void)
{
    cs_col_field inner[] = {{"x", prim(CS_TYPE_INT), true}, {"y", prim(CS_TYPE_STRING), true}};
    cs_col_field deep[] = {{"p", prim(CS_TYPE_DOUBLE), true},
                           {"q", cs_col_type_array(prim(CS_TYPE_STRING), true), true}};
    cs_col_field f[] = {
        {"b", prim(CS_TYPE_BOOLEAN), true},
        {"i8", prim(CS_TYPE_BYTE), true},
        {"i16", prim(CS_TYPE_SHORT), true},
        {"i32", prim(CS_TYPE_INT), false},
        {"i64", prim(CS_TYPE_LONG), true},
        {"f32", prim(CS_TYPE_FLOAT), true},
        {"f64", prim(CS_TYPE_DOUBLE), true},
        {"dec38", cs_col_type_decimal(38, 10, NULL), true},
        {"dec5", cs_col_type_decimal(5, 2, NULL), true},
        {"s", prim(CS_TYPE_STRING), true},
        {"bin", prim(CS_TYPE_BINARY), true},
        {"d", prim(CS_TYPE_DATE), true},
        {"ts", prim(CS_TYPE_TIMESTAMP), true},
        {"ntz", prim(CS_TYPE_TIMESTAMP_NTZ), true},
        {"arr", cs_col_type_array(prim(CS_TYPE_INT), true), true},
        {"st", cs_col_type_struct(inner, 2), true},
        {"m", cs_col_type_map(prim(CS_TYPE_STRING), prim(CS_TYPE_LONG), true), true},
        {"deep", cs_col_type_array(cs_col_type_struct(deep, 2), false), true},
        {"dict", prim(CS_TYPE_STRING), true},
    };
    return cs_col_type_struct(f, (int)(sizeof f / sizeof *f));
}

#define SAMPLE_COLUMNS 19

SAMPLE_FN uint64_t sample_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

SAMPLE_FN void sample_text(cs_col_builder *b, uint64_t *rng, int64_t row)
{
    static const char *const words[] = {"",
                                        "a",
                                        "héllo",
                                        "Spark",
                                        "ünïcödé ✓",
                                        "x y z",
                                        "a much longer string value that spills over sixty four "
                                        "bytes of a cache line"};
    const char *w = words[(row + (int64_t)(sample_rand(rng) % 3)) % 7];
    cs_col_builder_append_string(b, w, strlen(w));
}

/* A batch of `rows` rows of the sample schema (one reference); the same seed gives the same
 * batch. Row 0 holds the extremes; every 5th row is mostly null. */
SAMPLE_FN cs_col_batch *sample_batch(cs_col_allocator *alloc, int64_t rows, uint64_t seed)
{
    cs_col_type *schema = sample_schema();
    cs_column *cols[SAMPLE_COLUMNS];
    cs_col_builder *b[SAMPLE_COLUMNS];
    for (int i = 0; i < SAMPLE_COLUMNS; i++)
        b[i] = cs_col_builder_new(alloc, schema->fields[i].type);
    /* the dictionary column's dictionary */
    cs_col_builder *db = cs_col_builder_new(alloc, prim(CS_TYPE_STRING));
    const char *dict_words[] = {"red", "green", "blue", ""};
    for (int i = 0; i < 4; i++)
        cs_col_builder_append_string(db, dict_words[i], strlen(dict_words[i]));
    cs_column *dict = cs_col_builder_finish(db);
    cs_col_builder_free(db);
    cs_col_builder_free(b[18]);
    b[18] = cs_col_builder_new_dictionary(alloc, dict);
    cs_column_unref(dict);

    uint64_t rng = seed * 2654435761u + 1;
    for (int64_t r = 0; r < rows; r++) {
        bool null_row = r % 5 == 4;
        uint8_t v = !null_row;
        uint64_t x = sample_rand(&rng);
        uint8_t bo = x & 1;
        int8_t i8 = r == 0 ? INT8_MIN : (int8_t)x;
        int16_t i16 = r == 0 ? INT16_MAX : (int16_t)(x >> 8);
        int32_t i32 = r == 0 ? INT32_MIN : (int32_t)(x >> 16);
        int64_t i64 = r == 0 ? INT64_MIN : r == 1 ? INT64_MAX : (int64_t)x;
        float f32 = r == 0 ? -0.0f : r == 1 ? INFINITY : (float)(int32_t)x / 7.0f;
        double f64 = r == 0 ? NAN : r == 1 ? -INFINITY : r == 2 ? 5e-324 : (double)(int64_t)x / 3.0;
        /* decimal(38,10): up to 38 digits; row 0 the largest, row 1 the smallest */
        __int128 d38 = (__int128)(int64_t)x * 1000000007;
        if (r <= 1) {
            __int128 max = 0;
            for (int k = 0; k < 38; k++)
                max = max * 10 + 9;
            d38 = r == 0 ? max : -max;
        }
        __int128 d5 = (__int128)((int64_t)(x % 199999) - 99999);
        int32_t day = r == 0 ? -719162 : (int32_t)(x % 40000) - 10000;
        int64_t ts = r == 0 ? -62135596800000000LL : (int64_t)(x % 4000000000000000ULL);
        int64_t ntz = r == 0 ? 253402300799999999LL : (int64_t)(x >> 12) - (1LL << 50);
        cs_col_builder_append_values(b[0], &bo, 1, &v);
        cs_col_builder_append_values(b[1], &i8, 1, &v);
        cs_col_builder_append_values(b[2], &i16, 1, &v);
        cs_col_builder_append_values(b[3], &i32, 1, NULL);
        cs_col_builder_append_values(b[4], &i64, 1, &v);
        cs_col_builder_append_values(b[5], &f32, 1, &v);
        cs_col_builder_append_values(b[6], &f64, 1, &v);
        cs_col_builder_append_values(b[7], &d38, 1, &v);
        cs_col_builder_append_values(b[8], &d5, 1, &v);
        if (null_row)
            cs_col_builder_append_nulls(b[9], 1);
        else
            sample_text(b[9], &rng, r);
        if (null_row) {
            cs_col_builder_append_nulls(b[10], 1);
        } else {
            uint8_t raw[5] = {0, 0xff, (uint8_t)r, 0x80, (uint8_t)x};
            cs_col_builder_append_string(b[10], raw, (size_t)(r % 6));
        }
        cs_col_builder_append_values(b[11], &day, 1, &v);
        cs_col_builder_append_values(b[12], &ts, 1, &v);
        cs_col_builder_append_values(b[13], &ntz, 1, &v);
        /* arr: 0..3 ints, some null elements */
        int32_t n = null_row ? 0 : (int32_t)(x % 4);
        cs_col_builder_append_lists(b[14], &n, 1, &v);
        for (int32_t k = 0; k < n; k++) {
            int32_t e = (int32_t)(r * 10 + k);
            uint8_t ev = k != 2;
            cs_col_builder_append_values(cs_col_builder_child(b[14], 0), &e, 1, &ev);
        }
        /* st */
        cs_col_builder_append_structs(b[15], 1, &v);
        cs_col_builder_append_values(cs_col_builder_child(b[15], 0), &i32, 1, NULL);
        if (r % 3 == 1)
            cs_col_builder_append_nulls(cs_col_builder_child(b[15], 1), 1);
        else
            sample_text(cs_col_builder_child(b[15], 1), &rng, r + 1);
        /* m: 0..2 entries, value null every 4th */
        n = null_row ? 0 : (int32_t)(r % 3);
        cs_col_builder_append_lists(b[16], &n, 1, &v);
        for (int32_t k = 0; k < n; k++) {
            char key[16];
            int len = snprintf(key, sizeof key, "k%d", k);
            cs_col_builder_append_string(cs_col_builder_child(b[16], 0), key, (size_t)len);
            int64_t val = r * 100 + k;
            uint8_t vv = (r + k) % 4 != 0;
            cs_col_builder_append_values(cs_col_builder_child(b[16], 1), &val, 1, &vv);
        }
        /* deep: array<struct<p:double, q:array<string>>> */
        n = null_row ? 0 : (int32_t)(r % 2) + 1;
        cs_col_builder_append_lists(b[17], &n, 1, &v);
        cs_col_builder *el = cs_col_builder_child(b[17], 0);
        for (int32_t k = 0; k < n; k++) {
            cs_col_builder_append_structs(el, 1, NULL);
            double p = r + k / 4.0;
            cs_col_builder_append_values(cs_col_builder_child(el, 0), &p, 1, NULL);
            int32_t qn = k + 1;
            cs_col_builder_append_lists(cs_col_builder_child(el, 1), &qn, 1, NULL);
            for (int32_t q = 0; q < qn; q++)
                sample_text(cs_col_builder_child(cs_col_builder_child(el, 1), 0), &rng, r + q);
        }
        int32_t di = (int32_t)(x % 4);
        cs_col_builder_append_values(b[18], &di, 1, &v);
    }
    for (int i = 0; i < SAMPLE_COLUMNS; i++) {
        cols[i] = cs_col_builder_finish(b[i]);
        cs_col_builder_free(b[i]);
    }
    return cs_col_batch_new(schema, cols, SAMPLE_COLUMNS, rows, NULL);
}

static void dump_i128(__int128 v, FILE *out)
{
    char buf[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0) fputc('-', out);
    while (n)
        fputc(buf[--n], out);
}

SAMPLE_FN void dump_value(const cs_column *c, int64_t i, FILE *out)
{
    if (!cs_column_is_valid(c, i)) {
        fputs("null", out);
        return;
    }
    const uint8_t *p = c->values;
    switch (c->type->id) {
    case CS_TYPE_NULL:
        fputs("null", out);
        return;
    case CS_TYPE_BOOLEAN:
        fputs(cs_bit_get(p, i) ? "true" : "false", out);
        return;
    case CS_TYPE_BYTE:
        fprintf(out, "%d", ((const int8_t *)p)[i]);
        return;
    case CS_TYPE_SHORT:
        fprintf(out, "%d", ((const int16_t *)(const void *)p)[i]);
        return;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        fprintf(out, "%d", ((const int32_t *)(const void *)p)[i]);
        return;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        fprintf(out, "%" PRId64, ((const int64_t *)(const void *)p)[i]);
        return;
    case CS_TYPE_FLOAT: {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        fprintf(out, "f:%08x", u);
        return;
    }
    case CS_TYPE_DOUBLE: {
        uint64_t u;
        memcpy(&u, p + 8 * i, 8);
        fprintf(out, "d:%016" PRIx64, u);
        return;
    }
    case CS_TYPE_INTERVAL_CAL: { /* months, days, nanoseconds */
        int32_t m, d;
        int64_t ns;
        memcpy(&m, p + 16 * i, 4);
        memcpy(&d, p + 16 * i + 4, 4);
        memcpy(&ns, p + 16 * i + 8, 8);
        fprintf(out, "%dm%dd%" PRId64 "ns", m, d, ns);
        return;
    }
    case CS_TYPE_DECIMAL: {
        __int128 v;
        memcpy(&v, p + 16 * i, 16);
        dump_i128(v, out);
        return;
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *s = cs_column_bytes(c, i, &len);
        fputs("x:", out);
        for (int32_t k = 0; k < len; k++)
            fprintf(out, "%02x", s[k]);
        return;
    }
    case CS_TYPE_STRUCT:
        fputc('{', out);
        for (int f = 0; f < c->n_children; f++) {
            if (f) fputc(',', out);
            dump_value(c->children[f], i, out);
        }
        fputc('}', out);
        return;
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP: {
        const int32_t *off = cs_column_offsets(c);
        bool map = c->type->id == CS_TYPE_MAP;
        fputc(map ? '<' : '[', out);
        for (int32_t k = off[i]; k < off[i + 1]; k++) {
            if (k > off[i]) fputc(',', out);
            dump_value(c->children[0], k, out);
            if (map) {
                fputc('=', out);
                dump_value(c->children[1], k, out);
            }
        }
        fputc(map ? '>' : ']', out);
        return;
    }
    }
}

SAMPLE_FN void dump_schema(const cs_col_batch *b, FILE *out)
{
    cs_sbuf s = CS_SBUF_INIT;
    cs_sbuf_puts(&s, "struct<");
    for (int i = 0; i < b->n_columns; i++) {
        if (i) cs_sbuf_putc(&s, ',');
        cs_sbuf_printf(&s, "%s:", b->schema->fields[i].name);
        cs_col_type_simple_string(b->schema->fields[i].type, &s);
        if (b->columns[i]->dictionary) cs_sbuf_puts(&s, "#dict");
    }
    cs_sbuf_putc(&s, '>');
    fprintf(out, "schema %s\n", cs_sbuf_str(&s));
    cs_sbuf_free(&s);
}

SAMPLE_FN void dump_rows(const cs_col_batch *b, FILE *out)
{
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int i = 0; i < b->n_columns; i++) {
            if (i) fputs(" | ", out);
            dump_value(b->columns[i], r, out);
        }
        fputc('\n', out);
    }
}

#endif /* CSPARK_TESTS_IPC_SAMPLE_H */
