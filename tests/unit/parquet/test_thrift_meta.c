/*
 * test_thrift_meta.c — src/formats/parquet/thrift_compact.c and parquet_meta*.c: the compact
 * protocol round-trips every value form (long field ids, negative and extreme integers, doubles,
 * binary, long lists, bools), unknown fields of every type (maps and sets included) are skipped,
 * and malformed input fails cleanly: every truncation of an encoded FileMetaData, nesting past
 * the depth limit, a list longer than its buffer, a missing required field. FileMetaData and the
 * page headers (data v1, v2, dictionary) round-trip through encode and decode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/parquet/parquet_meta.h"
#include "formats/parquet/thrift_compact.h"

static void test_values_round_trip(void **state)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_thrift_writer w;
    cs_thrift_writer_init(&w, &b);
    cs_thrift_write_struct_begin(&w);
    cs_thrift_write_i32_field(&w, 1, INT32_MIN);
    cs_thrift_write_i64_field(&w, 40, INT64_MAX); /* delta > 15: long form */
    cs_thrift_write_i64_field(&w, 2, INT64_MIN);  /* going down: long form */
    cs_thrift_write_double_field(&w, 3, -1.5e300);
    cs_thrift_write_binary_field(&w, 4, "hello", 5);
    cs_thrift_write_bool_field(&w, 5, true);
    cs_thrift_write_bool_field(&w, 6, false);
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 7);
    cs_thrift_write_list_begin(&w, CS_THRIFT_I32, 100);
    for (int i = 0; i < 100; i++)
        cs_thrift_write_zigzag(&w, i * -1000);
    cs_thrift_write_struct_end(&w);

    cs_thrift_reader r;
    cs_error err;
    cs_thrift_reader_init(&r, b.data, b.len, &err);
    assert_int_equal(cs_thrift_struct_begin(&r), 0);
    int16_t last = 0, id;
    int t, seen = 0;
    while (cs_thrift_field_next(&r, &last, &t, &id) > 0) {
        int32_t i32;
        int64_t i64;
        double d;
        const uint8_t *p;
        uint32_t n;
        bool bv;
        int et;
        seen++;
        switch (id) {
        case 1:
            assert_int_equal(cs_thrift_read_i32(&r, t, &i32), 0);
            assert_int_equal(i32, INT32_MIN);
            break;
        case 40:
            assert_int_equal(cs_thrift_read_i64(&r, t, &i64), 0);
            assert_true(i64 == INT64_MAX);
            break;
        case 2:
            assert_int_equal(cs_thrift_read_i64(&r, t, &i64), 0);
            assert_true(i64 == INT64_MIN);
            break;
        case 3:
            assert_int_equal(cs_thrift_read_double(&r, t, &d), 0);
            assert_true(d == -1.5e300);
            break;
        case 4:
            assert_int_equal(cs_thrift_read_binary(&r, t, &p, &n), 0);
            assert_int_equal(n, 5);
            assert_memory_equal(p, "hello", 5);
            break;
        case 5:
        case 6:
            assert_int_equal(cs_thrift_read_bool(&r, t, &bv), 0);
            assert_int_equal(bv, id == 5);
            break;
        case 7:
            assert_int_equal(cs_thrift_read_list(&r, t, &et, &n), 0);
            assert_int_equal(n, 100);
            for (int i = 0; i < 100; i++) {
                assert_int_equal(cs_thrift_read_i32(&r, et, &i32), 0);
                assert_int_equal(i32, i * -1000);
            }
            break;
        default:
            fail();
        }
    }
    assert_int_equal(r.rc, 0);
    assert_int_equal(seen, 8);
    assert_int_equal(cs_thrift_reader_pos(&r), b.len);
    cs_sbuf_free(&b);
}

/* A struct with fields of every type; skipping it must land exactly at its end. */
static void test_skip_every_type(void **state)
{
    static const uint8_t s[] = {
        0x13, 0x05,                                         /* 1: i8 5 */
        0x14, 0x02,                                         /* 2: i16 1 */
        0x17, 0,    0,    0,    0,   0,    0,    0,   0,    /* 3: double */
        0x18, 0x02, 'h',  'i',                              /* 4: binary */
        0x19, 0x21, 0x01,                                   /* 5: list of 2 bools */
        0x01, 0x1a, 0x15, 0x04,                             /* 6: set of 1 i32 */
        0x1b, 0x02, 0x85, 0x01, 'a', 0x02, 0x01, 'b', 0x04, /* 7: map binary->i32, 2 entries */
        0x1c, 0x11, 0x00,                                   /* 8: struct { 1: true } */
        0x00};
    cs_thrift_reader r;
    cs_error err;
    cs_thrift_reader_init(&r, s, sizeof s, &err);
    assert_int_equal(cs_thrift_skip(&r, CS_THRIFT_STRUCT), 0);
    assert_int_equal(cs_thrift_reader_pos(&r), sizeof s);
}

static void test_depth_and_list_limits(void **state)
{
    uint8_t deep[200];
    for (int i = 0; i < 199; i++)
        deep[i] = 0x1c; /* field 1: struct, nested again and again */
    deep[199] = 0;
    cs_thrift_reader r;
    cs_error err;
    cs_thrift_reader_init(&r, deep, sizeof deep, &err);
    assert_int_equal(cs_thrift_skip(&r, CS_THRIFT_STRUCT), CS_EPROTO);
    assert_non_null(strstr(err.msg, "nesting deeper"));

    static const uint8_t long_list[] = {0xf5, 0xe8, 0x07, 1, 2, 3}; /* 1000 i32s in 3 bytes */
    cs_thrift_reader_init(&r, long_list, sizeof long_list, &err);
    int et;
    uint32_t n;
    assert_int_equal(cs_thrift_read_list(&r, CS_THRIFT_LIST, &et, &n), CS_EPROTO);
    assert_non_null(strstr(err.msg, "longer than"));

    static const uint8_t varint[] = {0x16, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    cs_thrift_reader_init(&r, varint, sizeof varint, &err);
    assert_int_equal(cs_thrift_skip(&r, CS_THRIFT_STRUCT), CS_EPROTO);
    assert_non_null(strstr(err.msg, "longer than 64 bits"));
    assert_int_equal(cs_thrift_reader_pos(&r), sizeof varint); /* nothing more is read */
}

static cs_parquet_bytes bytes_of(const char *s)
{
    return (cs_parquet_bytes){(const uint8_t *)s, (uint32_t)strlen(s)};
}

static void sample_meta(cs_parquet_meta *m, cs_parquet_schema_element *schema,
                        cs_parquet_row_group *rg, cs_parquet_column_chunk *cols,
                        cs_parquet_key_value *kv, cs_parquet_bytes *path, int32_t *encs)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < 4; i++) {
        schema[i] = (cs_parquet_schema_element){.type = -1, .repetition = -1, .converted_type = -1};
    }
    schema[0].name = bytes_of("schema");
    schema[0].num_children = 3;
    schema[1] = (cs_parquet_schema_element){
        .type = CS_PQ_FIXED_LEN_BYTE_ARRAY,
        .type_length = 16,
        .repetition = CS_PQ_OPTIONAL,
        .name = bytes_of("dec"),
        .converted_type = CS_PQ_CT_DECIMAL,
        .scale = 3,
        .precision = 38,
        .logical = {.kind = CS_PQ_LT_DECIMAL, .scale = 3, .precision = 38}};
    schema[2] = (cs_parquet_schema_element){
        .type = CS_PQ_INT64,
        .repetition = CS_PQ_REQUIRED,
        .name = bytes_of("ts"),
        .converted_type = -1,
        .has_field_id = true,
        .field_id = 7,
        .logical = {.kind = CS_PQ_LT_TIMESTAMP, .utc_adjusted = true, .unit = CS_PQ_UNIT_MICROS}};
    schema[3] = (cs_parquet_schema_element){
        .type = CS_PQ_INT32,
        .repetition = CS_PQ_OPTIONAL,
        .name = bytes_of("i8"),
        .converted_type = CS_PQ_CT_INT_8,
        .logical = {.kind = CS_PQ_LT_INTEGER, .bit_width = 8, .is_signed = true}};
    path[0] = bytes_of("dec");
    encs[0] = CS_PQ_ENC_PLAIN;
    encs[1] = CS_PQ_ENC_RLE_DICTIONARY;
    kv[0] = (cs_parquet_key_value){bytes_of("org.apache.spark.version"), bytes_of("4.0.1")};
    kv[1] = (cs_parquet_key_value){bytes_of("no.value"), {NULL, 0}};
    for (int i = 0; i < 3; i++) {
        cols[i] = (cs_parquet_column_chunk){.file_offset = 4 + i * 100, .has_meta_data = true};
        cs_parquet_column_meta *cm = &cols[i].meta;
        *cm = (cs_parquet_column_meta){.type = schema[i + 1].type,
                                       .encodings = encs,
                                       .num_encodings = 2,
                                       .path = path,
                                       .path_len = 1,
                                       .codec = CS_PQ_CODEC_SNAPPY,
                                       .num_values = 1000 + i,
                                       .total_uncompressed_size = 5000,
                                       .total_compressed_size = 100,
                                       .data_page_offset = 4 + i * 100,
                                       .has_dictionary_page_offset = i == 1,
                                       .dictionary_page_offset = 104,
                                       .has_statistics = true};
        cm->statistics = (cs_parquet_statistics){.has_min_value = true,
                                                 .has_max_value = true,
                                                 .min_value = bytes_of("aaaa"),
                                                 .max_value = bytes_of("zzzz"),
                                                 .has_null_count = true,
                                                 .null_count = i};
    }
    cols[2].has_offset_index = true;
    cols[2].offset_index_offset = 12345;
    cols[2].offset_index_length = 67;
    *rg = (cs_parquet_row_group){.columns = cols,
                                 .num_columns = 3,
                                 .total_byte_size = 300,
                                 .num_rows = 1000,
                                 .has_file_offset = true,
                                 .file_offset = 4,
                                 .has_ordinal = true,
                                 .ordinal = 0};
    m->version = 2;
    m->schema = schema;
    m->num_schema = 4;
    m->num_rows = 1000;
    m->row_groups = rg;
    m->num_row_groups = 1;
    m->kv = kv;
    m->num_kv = 2;
    m->created_by = bytes_of("cspark");
}

static bool bytes_eq(cs_parquet_bytes a, cs_parquet_bytes b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0) && !a.ptr == !b.ptr;
}

static void test_file_meta_round_trip_and_truncations(void **state)
{
    cs_parquet_meta m, d;
    cs_parquet_schema_element schema[4];
    cs_parquet_row_group rg;
    cs_parquet_column_chunk cols[3];
    cs_parquet_key_value kv[2];
    cs_parquet_bytes path[1];
    int32_t encs[2];
    sample_meta(&m, schema, &rg, cols, kv, path, encs);
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_meta_encode(&m, &b);
    cs_error err;
    assert_int_equal(cs_parquet_meta_decode((const uint8_t *)b.data, b.len, &d, &err), 0);
    assert_int_equal(d.version, 2);
    assert_int_equal(d.num_schema, 4);
    assert_int_equal(d.num_rows, 1000);
    assert_true(bytes_eq(d.created_by, m.created_by));
    for (int i = 0; i < 4; i++) {
        const cs_parquet_schema_element *x = &d.schema[i], *y = &schema[i];
        assert_true(bytes_eq(x->name, y->name));
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->repetition, y->repetition);
        assert_int_equal(x->num_children, y->num_children);
        assert_int_equal(x->converted_type, y->converted_type);
        assert_int_equal(x->logical.kind, y->logical.kind);
        assert_int_equal(x->logical.scale, y->logical.scale);
        assert_int_equal(x->logical.precision, y->logical.precision);
        assert_int_equal(x->logical.unit, y->logical.unit);
        assert_int_equal(x->logical.utc_adjusted, y->logical.utc_adjusted);
        assert_int_equal(x->logical.bit_width, y->logical.bit_width);
        assert_int_equal(x->logical.is_signed, y->logical.is_signed);
        assert_int_equal(x->has_field_id, y->has_field_id);
    }
    assert_int_equal(d.schema[1].type_length, 16);
    assert_int_equal(d.num_kv, 2);
    assert_true(bytes_eq(d.kv[0].value, kv[0].value));
    assert_null(d.kv[1].value.ptr);
    assert_int_equal(d.num_row_groups, 1);
    assert_int_equal(d.row_groups[0].num_columns, 3);
    for (int i = 0; i < 3; i++) {
        const cs_parquet_column_meta *x = &d.row_groups[0].columns[i].meta;
        assert_int_equal(x->num_values, 1000 + i);
        assert_int_equal(x->codec, CS_PQ_CODEC_SNAPPY);
        assert_int_equal(x->num_encodings, 2);
        assert_int_equal(x->encodings[1], CS_PQ_ENC_RLE_DICTIONARY);
        assert_int_equal(x->has_dictionary_page_offset, i == 1);
        assert_true(x->has_statistics && x->statistics.has_null_count);
        assert_int_equal(x->statistics.null_count, i);
        assert_true(bytes_eq(x->statistics.max_value, bytes_of("zzzz")));
    }
    assert_int_equal(d.row_groups[0].columns[2].offset_index_length, 67);
    /* re-encoding the decoded metadata gives the same bytes */
    cs_sbuf b2 = CS_SBUF_INIT;
    cs_parquet_meta_encode(&d, &b2);
    assert_int_equal(b2.len, b.len);
    assert_memory_equal(b2.data, b.data, b.len);
    cs_parquet_meta_free(&d);
    cs_sbuf_free(&b2);

    /* every truncation fails with a message, never reads past its buffer (ASan checks it) */
    for (size_t n = 0; n < b.len; n++) {
        uint8_t *copy = malloc(n + 1);
        memcpy(copy, b.data, n);
        err.msg[0] = 0;
        assert_int_not_equal(cs_parquet_meta_decode(copy, n, &d, &err), 0);
        assert_true(err.msg[0] != 0);
        assert_null(d.arena);
        free(copy);
    }
    cs_sbuf_free(&b);
}

static void test_missing_required_field(void **state)
{
    /* FileMetaData { 1: version 1, 3: num_rows 0 } with no schema and no row groups */
    static const uint8_t s[] = {0x15, 0x02, 0x26, 0x00, 0x00};
    cs_parquet_meta d;
    cs_error err;
    assert_int_equal(cs_parquet_meta_decode(s, sizeof s, &d, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "FileMetaData has no schema"));
}

static void test_page_headers_round_trip(void **state)
{
    cs_parquet_page_header hs[3] = {
        {.type = CS_PQ_PAGE_DATA,
         .uncompressed_size = 1000,
         .compressed_size = 400,
         .num_values = 77,
         .encoding = CS_PQ_ENC_PLAIN,
         .def_encoding = CS_PQ_ENC_RLE,
         .rep_encoding = CS_PQ_ENC_RLE,
         .has_statistics = true,
         .statistics = {.has_null_count = true, .null_count = 3}},
        {.type = CS_PQ_PAGE_DATA_V2,
         .uncompressed_size = 900,
         .compressed_size = 300,
         .num_values = 70,
         .num_nulls = 5,
         .num_rows = 60,
         .encoding = CS_PQ_ENC_DELTA_BINARY_PACKED,
         .def_levels_len = 10,
         .rep_levels_len = 12,
         .is_compressed = false,
         .has_crc = true,
         .crc = -5},
        {.type = CS_PQ_PAGE_DICTIONARY,
         .uncompressed_size = 50,
         .compressed_size = 50,
         .num_values = 5,
         .encoding = CS_PQ_ENC_PLAIN,
         .is_sorted = true},
    };
    for (int i = 0; i < 3; i++) {
        cs_sbuf b = CS_SBUF_INIT;
        cs_parquet_page_header_encode(&hs[i], &b);
        cs_sbuf_append(&b, "trailing page bytes", 19);
        cs_parquet_page_header d;
        size_t hlen;
        cs_error err;
        assert_int_equal(
            cs_parquet_page_header_decode((const uint8_t *)b.data, b.len, &d, &hlen, &err), 0);
        assert_int_equal(hlen, b.len - 19);
        assert_int_equal(d.type, hs[i].type);
        assert_int_equal(d.num_values, hs[i].num_values);
        assert_int_equal(d.compressed_size, hs[i].compressed_size);
        assert_int_equal(d.uncompressed_size, hs[i].uncompressed_size);
        assert_int_equal(d.encoding, hs[i].encoding);
        assert_int_equal(d.num_nulls, hs[i].num_nulls);
        assert_int_equal(d.num_rows, hs[i].num_rows);
        assert_int_equal(d.def_levels_len, hs[i].def_levels_len);
        assert_int_equal(d.rep_levels_len, hs[i].rep_levels_len);
        assert_int_equal(d.has_crc, hs[i].has_crc);
        assert_int_equal(d.crc, hs[i].crc);
        assert_int_equal(d.is_sorted, hs[i].is_sorted);
        if (i == 1) assert_false(d.is_compressed);
        assert_int_equal(d.has_statistics, hs[i].has_statistics);
        for (size_t n = 0; n < hlen; n++) /* truncated headers fail */
            assert_int_not_equal(
                cs_parquet_page_header_decode((const uint8_t *)b.data, n, &d, &hlen, &err), 0);
        cs_sbuf_free(&b);
    }
    /* a data page header without its DataPageHeader struct */
    static const uint8_t s[] = {0x15, 0x00, 0x15, 0x04, 0x15, 0x04, 0x00};
    cs_parquet_page_header d;
    size_t hlen;
    cs_error err;
    assert_int_equal(cs_parquet_page_header_decode(s, sizeof s, &d, &hlen, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "no header for that type"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_round_trip),
        cmocka_unit_test(test_skip_every_type),
        cmocka_unit_test(test_depth_and_list_limits),
        cmocka_unit_test(test_file_meta_round_trip_and_truncations),
        cmocka_unit_test(test_missing_required_field),
        cmocka_unit_test(test_page_headers_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
