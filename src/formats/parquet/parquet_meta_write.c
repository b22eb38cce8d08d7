/* parquet_meta_write.c — encodes Parquet's Thrift metadata (FileMetaData, PageHeader) with the
 * compact protocol, the inverse of parquet_meta.c's decoders (field ids of parquet.thrift), and
 * names the enums for messages. Called by the Parquet writer and by the round-trip tests.
 */
#include "formats/parquet/parquet_meta.h"

#include "formats/parquet/thrift_compact.h"

static void put_bytes(cs_thrift_writer *w, int16_t id, cs_parquet_bytes b)
{
    cs_thrift_write_binary_field(w, id, b.ptr, b.len);
}

static void encode_statistics(cs_thrift_writer *w, int16_t id, const cs_parquet_statistics *s)
{
    cs_thrift_write_field(w, CS_THRIFT_STRUCT, id);
    cs_thrift_write_struct_begin(w);
    if (s->has_max) put_bytes(w, 1, s->max);
    if (s->has_min) put_bytes(w, 2, s->min);
    if (s->has_null_count) cs_thrift_write_i64_field(w, 3, s->null_count);
    if (s->has_distinct_count) cs_thrift_write_i64_field(w, 4, s->distinct_count);
    if (s->has_max_value) put_bytes(w, 5, s->max_value);
    if (s->has_min_value) put_bytes(w, 6, s->min_value);
    if (s->has_exact_flags) {
        cs_thrift_write_bool_field(w, 7, s->is_max_value_exact);
        cs_thrift_write_bool_field(w, 8, s->is_min_value_exact);
    }
    cs_thrift_write_struct_end(w);
}

static void encode_key_values(cs_thrift_writer *w, int16_t id, const cs_parquet_key_value *kv,
                              uint32_t n)
{
    cs_thrift_write_field(w, CS_THRIFT_LIST, id);
    cs_thrift_write_list_begin(w, CS_THRIFT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        cs_thrift_write_struct_begin(w);
        put_bytes(w, 1, kv[i].key);
        if (kv[i].value.ptr) put_bytes(w, 2, kv[i].value);
        cs_thrift_write_struct_end(w);
    }
}

static void empty_struct_field(cs_thrift_writer *w, int16_t id)
{
    cs_thrift_write_field(w, CS_THRIFT_STRUCT, id);
    cs_thrift_write_struct_begin(w);
    cs_thrift_write_struct_end(w);
}

static void encode_logical_type(cs_thrift_writer *w, const cs_parquet_logical_type *lt)
{
    cs_thrift_write_field(w, CS_THRIFT_STRUCT, 10);
    cs_thrift_write_struct_begin(w);
    cs_thrift_write_field(w, CS_THRIFT_STRUCT, (int16_t)lt->kind);
    cs_thrift_write_struct_begin(w);
    switch (lt->kind) {
    case CS_PQ_LT_DECIMAL:
        cs_thrift_write_i32_field(w, 1, lt->scale);
        cs_thrift_write_i32_field(w, 2, lt->precision);
        break;
    case CS_PQ_LT_TIME:
    case CS_PQ_LT_TIMESTAMP:
        cs_thrift_write_bool_field(w, 1, lt->utc_adjusted);
        cs_thrift_write_field(w, CS_THRIFT_STRUCT, 2);
        cs_thrift_write_struct_begin(w);
        empty_struct_field(w, (int16_t)lt->unit);
        cs_thrift_write_struct_end(w);
        break;
    case CS_PQ_LT_INTEGER:
        cs_thrift_write_field(w, CS_THRIFT_I8, 1);
        cs_sbuf_putc(w->out, (char)lt->bit_width);
        cs_thrift_write_bool_field(w, 2, lt->is_signed);
        break;
    default:
        break;
    }
    cs_thrift_write_struct_end(w);
    cs_thrift_write_struct_end(w);
}

static void encode_schema_element(cs_thrift_writer *w, const cs_parquet_schema_element *e)
{
    cs_thrift_write_struct_begin(w);
    if (e->type >= 0) cs_thrift_write_i32_field(w, 1, e->type);
    if (e->type == CS_PQ_FIXED_LEN_BYTE_ARRAY) cs_thrift_write_i32_field(w, 2, e->type_length);
    if (e->repetition >= 0) cs_thrift_write_i32_field(w, 3, e->repetition);
    put_bytes(w, 4, e->name);
    if (e->num_children > 0) cs_thrift_write_i32_field(w, 5, e->num_children);
    if (e->converted_type >= 0) cs_thrift_write_i32_field(w, 6, e->converted_type);
    if (e->converted_type == CS_PQ_CT_DECIMAL) {
        cs_thrift_write_i32_field(w, 7, e->scale);
        cs_thrift_write_i32_field(w, 8, e->precision);
    }
    if (e->has_field_id) cs_thrift_write_i32_field(w, 9, e->field_id);
    if (e->logical.kind) encode_logical_type(w, &e->logical);
    cs_thrift_write_struct_end(w);
}

static void encode_column_meta(cs_thrift_writer *w, const cs_parquet_column_meta *m)
{
    cs_thrift_write_field(w, CS_THRIFT_STRUCT, 3);
    cs_thrift_write_struct_begin(w);
    cs_thrift_write_i32_field(w, 1, m->type);
    cs_thrift_write_field(w, CS_THRIFT_LIST, 2);
    cs_thrift_write_list_begin(w, CS_THRIFT_I32, m->num_encodings);
    for (uint32_t i = 0; i < m->num_encodings; i++)
        cs_thrift_write_zigzag(w, m->encodings[i]);
    cs_thrift_write_field(w, CS_THRIFT_LIST, 3);
    cs_thrift_write_list_begin(w, CS_THRIFT_BINARY, m->path_len);
    for (uint32_t i = 0; i < m->path_len; i++)
        cs_thrift_write_binary(w, m->path[i].ptr, m->path[i].len);
    cs_thrift_write_i32_field(w, 4, m->codec);
    cs_thrift_write_i64_field(w, 5, m->num_values);
    cs_thrift_write_i64_field(w, 6, m->total_uncompressed_size);
    cs_thrift_write_i64_field(w, 7, m->total_compressed_size);
    if (m->num_kv) encode_key_values(w, 8, m->kv, m->num_kv);
    cs_thrift_write_i64_field(w, 9, m->data_page_offset);
    if (m->has_index_page_offset) cs_thrift_write_i64_field(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset) cs_thrift_write_i64_field(w, 11, m->dictionary_page_offset);
    if (m->has_statistics) encode_statistics(w, 12, &m->statistics);
    if (m->has_bloom_filter) {
        cs_thrift_write_i64_field(w, 14, m->bloom_filter_offset);
        cs_thrift_write_i32_field(w, 15, m->bloom_filter_length);
    }
    cs_thrift_write_struct_end(w);
}

static void encode_row_group(cs_thrift_writer *w, const cs_parquet_row_group *g)
{
    cs_thrift_write_struct_begin(w);
    cs_thrift_write_field(w, CS_THRIFT_LIST, 1);
    cs_thrift_write_list_begin(w, CS_THRIFT_STRUCT, g->num_columns);
    for (uint32_t i = 0; i < g->num_columns; i++) {
        const cs_parquet_column_chunk *c = &g->columns[i];
        cs_thrift_write_struct_begin(w);
        if (c->file_path.ptr) put_bytes(w, 1, c->file_path);
        cs_thrift_write_i64_field(w, 2, c->file_offset);
        if (c->has_meta_data) encode_column_meta(w, &c->meta);
        if (c->has_offset_index) {
            cs_thrift_write_i64_field(w, 4, c->offset_index_offset);
            cs_thrift_write_i32_field(w, 5, c->offset_index_length);
        }
        if (c->has_column_index) {
            cs_thrift_write_i64_field(w, 6, c->column_index_offset);
            cs_thrift_write_i32_field(w, 7, c->column_index_length);
        }
        cs_thrift_write_struct_end(w);
    }
    cs_thrift_write_i64_field(w, 2, g->total_byte_size);
    cs_thrift_write_i64_field(w, 3, g->num_rows);
    if (g->has_file_offset) cs_thrift_write_i64_field(w, 5, g->file_offset);
    if (g->has_total_compressed_size) cs_thrift_write_i64_field(w, 6, g->total_compressed_size);
    if (g->has_ordinal) {
        cs_thrift_write_field(w, CS_THRIFT_I16, 7);
        cs_thrift_write_zigzag(w, g->ordinal);
    }
    cs_thrift_write_struct_end(w);
}

void cs_parquet_meta_encode(const cs_parquet_meta *m, cs_sbuf *out)
{
    cs_thrift_writer w;
    cs_thrift_writer_init(&w, out);
    cs_thrift_write_struct_begin(&w);
    cs_thrift_write_i32_field(&w, 1, m->version);
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 2);
    cs_thrift_write_list_begin(&w, CS_THRIFT_STRUCT, m->num_schema);
    for (uint32_t i = 0; i < m->num_schema; i++)
        encode_schema_element(&w, &m->schema[i]);
    cs_thrift_write_i64_field(&w, 3, m->num_rows);
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 4);
    cs_thrift_write_list_begin(&w, CS_THRIFT_STRUCT, m->num_row_groups);
    for (uint32_t i = 0; i < m->num_row_groups; i++)
        encode_row_group(&w, &m->row_groups[i]);
    if (m->num_kv) encode_key_values(&w, 5, m->kv, m->num_kv);
    if (m->created_by.ptr) put_bytes(&w, 6, m->created_by);
    if (m->num_column_orders) { /* ColumnOrder is a union: TYPE_ORDER (1) is TypeDefinedOrder {} */
        cs_thrift_write_field(&w, CS_THRIFT_LIST, 7);
        cs_thrift_write_list_begin(&w, CS_THRIFT_STRUCT, m->num_column_orders);
        for (uint32_t i = 0; i < m->num_column_orders; i++) {
            cs_thrift_write_struct_begin(&w);
            empty_struct_field(&w, 1);
            cs_thrift_write_struct_end(&w);
        }
    }
    cs_thrift_write_struct_end(&w);
}

void cs_parquet_page_header_encode(const cs_parquet_page_header *h, cs_sbuf *out)
{
    cs_thrift_writer w;
    cs_thrift_writer_init(&w, out);
    cs_thrift_write_struct_begin(&w);
    cs_thrift_write_i32_field(&w, 1, h->type);
    cs_thrift_write_i32_field(&w, 2, h->uncompressed_size);
    cs_thrift_write_i32_field(&w, 3, h->compressed_size);
    if (h->has_crc) cs_thrift_write_i32_field(&w, 4, h->crc);
    if (h->type == CS_PQ_PAGE_DATA) {
        cs_thrift_write_field(&w, CS_THRIFT_STRUCT, 5);
        cs_thrift_write_struct_begin(&w);
        cs_thrift_write_i32_field(&w, 1, h->num_values);
        cs_thrift_write_i32_field(&w, 2, h->encoding);
        cs_thrift_write_i32_field(&w, 3, h->def_encoding);
        cs_thrift_write_i32_field(&w, 4, h->rep_encoding);
        if (h->has_statistics) encode_statistics(&w, 5, &h->statistics);
        cs_thrift_write_struct_end(&w);
    } else if (h->type == CS_PQ_PAGE_DICTIONARY) {
        cs_thrift_write_field(&w, CS_THRIFT_STRUCT, 7);
        cs_thrift_write_struct_begin(&w);
        cs_thrift_write_i32_field(&w, 1, h->num_values);
        cs_thrift_write_i32_field(&w, 2, h->encoding);
        if (h->is_sorted) cs_thrift_write_bool_field(&w, 3, true);
        cs_thrift_write_struct_end(&w);
    } else if (h->type == CS_PQ_PAGE_DATA_V2) {
        cs_thrift_write_field(&w, CS_THRIFT_STRUCT, 8);
        cs_thrift_write_struct_begin(&w);
        cs_thrift_write_i32_field(&w, 1, h->num_values);
        cs_thrift_write_i32_field(&w, 2, h->num_nulls);
        cs_thrift_write_i32_field(&w, 3, h->num_rows);
        cs_thrift_write_i32_field(&w, 4, h->encoding);
        cs_thrift_write_i32_field(&w, 5, h->def_levels_len);
        cs_thrift_write_i32_field(&w, 6, h->rep_levels_len);
        if (!h->is_compressed) cs_thrift_write_bool_field(&w, 7, false);
        if (h->has_statistics) encode_statistics(&w, 8, &h->statistics);
        cs_thrift_write_struct_end(&w);
    }
    cs_thrift_write_struct_end(&w);
}

const char *cs_parquet_type_name(int type)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return type >= 0 && type < 8 ? names[type] : "unknown";
}

const char *cs_parquet_codec_name(int codec)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return codec >= 0 && codec < 8 ? names[codec] : "unknown";
}

const char *cs_parquet_encoding_name(int encoding)
{
    static const char *const names[] = {
        "PLAIN",          "GROUP_VAR_INT",       "PLAIN_DICTIONARY",        "RLE",
        "BIT_PACKED",     "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
        "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
    return encoding >= 0 && encoding < 10 ? names[encoding] : "unknown";
}
