/* parquet_write_sample — a test tool (not part of the product): writes one Parquet file with
 * cspark's encoders alone (src/formats/parquet: PLAIN, RLE/bit-packed levels, dictionary page
 * and indices, DELTA_BINARY_PACKED, data pages v1 and v2, the codecs, FileMetaData), so that
 * tests/integration/parquet_pyarrow.sh can check that pyarrow reads the values the formulas below
 * give. Until the file writer exists, this is how the writer's pieces meet the reference reader.
 *
 *   parquet_write_sample OUT.parquet       (500 rows; columns i32, i64, s, b, li)
 * Row r: i32 = null if r % 5 == 0 else r * 7 % 13 (dictionary, v1, SNAPPY);
 *        i64 = r * 1000003 - 250000000, required (DELTA_BINARY_PACKED, v2, ZSTD);
 *        s = null if r % 4 == 0 else "s<r % 17>" (PLAIN, v1, GZIP);
 *        b = r % 3 == 0, required (PLAIN, v1, UNCOMPRESSED);
 *        li = null if r % 6 == 0, [] if r % 6 == 1, [r, null, r + 2] if r odd, else [r, r + 1]
 *        (list<int32>, PLAIN, v2, LZ4_RAW).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_codec.h"
#include "formats/parquet/parquet_encoding.h"
#include "formats/parquet/parquet_meta.h"

enum { ROWS = 500, MAX_ENTRIES = 2000 };

typedef struct column {
    const char *name;
    int type, codec, page_type, encoding;
    int16_t max_def, max_rep;
    int16_t def[MAX_ENTRIES], rep[MAX_ENTRIES];
    uint32_t entries;
    cs_parquet_values values;
} column;

static void add(column *c, int16_t def, int16_t rep)
{
    c->def[c->entries] = def;
    c->rep[c->entries] = rep;
    c->entries++;
}

static void add_i32(column *c, int32_t v)
{
    memcpy(cs_parquet_values_reserve_fixed(&c->values, 1), &v, 4);
    c->values.count++;
}

static void levels(cs_sbuf *out, const int16_t *lv, uint32_t n, int16_t max, bool v1)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_rle_encode_levels(lv, n, cs_parquet_bit_width((uint64_t)max), &b);
    if (v1) {
        uint8_t l4[4] = {(uint8_t)b.len, (uint8_t)(b.len >> 8), (uint8_t)(b.len >> 16), 0};
        cs_sbuf_append(out, l4, 4);
    }
    cs_sbuf_append(out, b.data, b.len);
    cs_sbuf_free(&b);
}

/* Appends c's chunk to file and fills its metadata. */
static void write_chunk(cs_sbuf *file, column *c, cs_parquet_column_chunk *cc, int32_t *encodings,
                        cs_parquet_bytes *path)
{
    cs_error err;
    int64_t start = (int64_t)file->len, dict_offset = -1;
    cs_parquet_page_header h = {.type = c->page_type,
                                .num_values = (int32_t)c->entries,
                                .num_rows = ROWS,
                                .encoding = c->encoding,
                                .def_encoding = CS_PQ_ENC_RLE,
                                .rep_encoding = CS_PQ_ENC_RLE,
                                .is_compressed = true};
    cs_sbuf lv = CS_SBUF_INIT, vals = CS_SBUF_INIT, page = CS_SBUF_INIT;
    bool v1 = c->page_type == CS_PQ_PAGE_DATA;
    if (c->max_rep) levels(&lv, c->rep, c->entries, c->max_rep, v1);
    size_t rep_len = lv.len; /* the lengths matter for v2 only (v1 prefixes each section) */
    h.rep_levels_len = (int32_t)rep_len;
    if (c->max_def) levels(&lv, c->def, c->entries, c->max_def, v1);
    h.def_levels_len = (int32_t)(lv.len - rep_len);
    for (uint32_t i = 0; i < c->entries; i++)
        h.num_nulls += c->def[i] != c->max_def;
    uint32_t n = c->values.count;
    if (c->encoding == CS_PQ_ENC_RLE_DICTIONARY) {
        cs_parquet_dict_builder db;
        cs_parquet_dict_builder_init(&db, c->type, 0);
        uint32_t *idx = malloc((n + 1) * sizeof *idx);
        cs_parquet_dict_builder_add(&db, &c->values, 0, n, idx);
        cs_sbuf d = CS_SBUF_INIT;
        cs_parquet_plain_encode(&db.dict, 0, db.dict.count, &d);
        cs_parquet_page_header dh = {.type = CS_PQ_PAGE_DICTIONARY,
                                     .num_values = (int32_t)db.dict.count,
                                     .encoding = CS_PQ_ENC_PLAIN,
                                     .uncompressed_size = (int32_t)d.len};
        cs_parquet_compress(c->codec, (uint8_t *)d.data, d.len, &page, &err);
        dh.compressed_size = (int32_t)page.len;
        dict_offset = (int64_t)file->len;
        cs_parquet_page_header_encode(&dh, file);
        cs_sbuf_append(file, page.data, page.len);
        page.len = 0;
        cs_parquet_dict_indices_encode(idx, n, db.dict.count, &vals);
        cs_sbuf_free(&d);
        free(idx);
        cs_parquet_dict_builder_free(&db);
    } else if (c->encoding == CS_PQ_ENC_DELTA_BINARY_PACKED) {
        cs_parquet_delta_encode_ints(c->values.fixed, c->type, n, &vals);
    } else {
        cs_parquet_plain_encode(&c->values, 0, n, &vals);
    }
    if (v1) { /* the whole page compressed */
        cs_sbuf raw = CS_SBUF_INIT;
        cs_sbuf_append(&raw, lv.data, lv.len);
        cs_sbuf_append(&raw, vals.data, vals.len);
        cs_parquet_compress(c->codec, (uint8_t *)raw.data, raw.len, &page, &err);
        h.uncompressed_size = (int32_t)raw.len;
        cs_sbuf_free(&raw);
    } else { /* levels in front, uncompressed */
        cs_sbuf_append(&page, lv.data, lv.len);
        cs_parquet_compress(c->codec, (uint8_t *)vals.data, vals.len, &page, &err);
        h.uncompressed_size = (int32_t)(lv.len + vals.len);
    }
    h.compressed_size = (int32_t)page.len;
    int64_t data_offset = (int64_t)file->len;
    cs_parquet_page_header_encode(&h, file);
    cs_sbuf_append(file, page.data, page.len);
    encodings[0] = c->encoding;
    encodings[1] = CS_PQ_ENC_RLE;
    encodings[2] = CS_PQ_ENC_PLAIN;
    *cc = (cs_parquet_column_chunk){.file_offset = start, .has_meta_data = true};
    cc->meta =
        (cs_parquet_column_meta){.type = c->type,
                                 .encodings = encodings,
                                 .num_encodings = 3,
                                 .path = path,
                                 .path_len = c->max_rep ? 3 : 1,
                                 .codec = c->codec,
                                 .num_values = c->entries,
                                 .total_uncompressed_size = (int64_t)file->len - start + 4096,
                                 .total_compressed_size = (int64_t)file->len - start,
                                 .data_page_offset = data_offset,
                                 .has_dictionary_page_offset = dict_offset >= 0,
                                 .dictionary_page_offset = dict_offset};
    cs_sbuf_free(&lv);
    cs_sbuf_free(&vals);
    cs_sbuf_free(&page);
}

static cs_parquet_bytes str(const char *s)
{
    return (cs_parquet_bytes){(const uint8_t *)s, (uint32_t)strlen(s)};
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: parquet_write_sample OUT.parquet\n");
        return 2;
    }
    static column cols[5] = {
        {"i32", CS_PQ_INT32, CS_PQ_CODEC_SNAPPY, CS_PQ_PAGE_DATA, CS_PQ_ENC_RLE_DICTIONARY, 1, 0},
        {"i64", CS_PQ_INT64, CS_PQ_CODEC_ZSTD, CS_PQ_PAGE_DATA_V2, CS_PQ_ENC_DELTA_BINARY_PACKED, 0,
         0},
        {"s", CS_PQ_BYTE_ARRAY, CS_PQ_CODEC_GZIP, CS_PQ_PAGE_DATA, CS_PQ_ENC_PLAIN, 1, 0},
        {"b", CS_PQ_BOOLEAN, CS_PQ_CODEC_UNCOMPRESSED, CS_PQ_PAGE_DATA, CS_PQ_ENC_PLAIN, 0, 0},
        {"li", CS_PQ_INT32, CS_PQ_CODEC_LZ4_RAW, CS_PQ_PAGE_DATA_V2, CS_PQ_ENC_PLAIN, 3, 1},
    };
    for (int c = 0; c < 5; c++)
        cs_parquet_values_reset(&cols[c].values, cols[c].type, 0);
    cs_error err;
    for (int32_t r = 0; r < ROWS; r++) {
        if (r % 5 == 0) {
            add(&cols[0], 0, 0);
        } else {
            add(&cols[0], 1, 0);
            add_i32(&cols[0], r * 7 % 13);
        }
        int64_t v = (int64_t)r * 1000003 - 250000000;
        memcpy(cs_parquet_values_reserve_fixed(&cols[1].values, 1), &v, 8);
        cols[1].values.count++;
        add(&cols[1], 0, 0);
        if (r % 4 == 0) {
            add(&cols[2], 0, 0);
        } else {
            char s[16];
            int n = snprintf(s, sizeof s, "s%d", r % 17);
            add(&cols[2], 1, 0);
            cs_parquet_values_append_bytes(&cols[2].values, (uint8_t *)s, (size_t)n, &err);
        }
        *cs_parquet_values_reserve_fixed(&cols[3].values, 1) = r % 3 == 0;
        cols[3].values.count++;
        add(&cols[3], 0, 0);
        column *li = &cols[4];
        if (r % 6 == 0) {
            add(li, 0, 0);
        } else if (r % 6 == 1) {
            add(li, 1, 0);
        } else if (r % 2) {
            add(li, 3, 0), add_i32(li, r);
            add(li, 2, 1);
            add(li, 3, 1), add_i32(li, r + 2);
        } else {
            add(li, 3, 0), add_i32(li, r);
            add(li, 3, 1), add_i32(li, r + 1);
        }
    }
    cs_sbuf file = CS_SBUF_INIT;
    cs_sbuf_append(&file, "PAR1", 4);
    cs_parquet_column_chunk chunks[5];
    int32_t encodings[5][3];
    cs_parquet_bytes paths[5][3];
    for (int c = 0; c < 5; c++) {
        paths[c][0] = str(cols[c].name);
        paths[c][1] = str("list");
        paths[c][2] = str("element");
        write_chunk(&file, &cols[c], &chunks[c], encodings[c], paths[c]);
    }
    cs_parquet_schema_element schema[8];
    for (int i = 0; i < 8; i++)
        schema[i] = (cs_parquet_schema_element){.type = -1, .repetition = -1, .converted_type = -1};
    schema[0].name = str("schema");
    schema[0].num_children = 5;
    for (int c = 0; c < 4; c++) {
        schema[c + 1].name = str(cols[c].name);
        schema[c + 1].type = cols[c].type;
        schema[c + 1].repetition = cols[c].max_def ? CS_PQ_OPTIONAL : CS_PQ_REQUIRED;
    }
    schema[3].logical.kind = CS_PQ_LT_STRING;
    schema[3].converted_type = CS_PQ_CT_UTF8;
    schema[5] = (cs_parquet_schema_element){.type = -1,
                                            .repetition = CS_PQ_OPTIONAL,
                                            .name = str("li"),
                                            .num_children = 1,
                                            .converted_type = CS_PQ_CT_LIST,
                                            .logical = {.kind = CS_PQ_LT_LIST}};
    schema[6] = (cs_parquet_schema_element){.type = -1,
                                            .repetition = CS_PQ_REPEATED,
                                            .name = str("list"),
                                            .num_children = 1,
                                            .converted_type = -1};
    schema[7] = (cs_parquet_schema_element){.type = CS_PQ_INT32,
                                            .repetition = CS_PQ_OPTIONAL,
                                            .name = str("element"),
                                            .converted_type = -1};
    cs_parquet_row_group rg = {.columns = chunks,
                               .num_columns = 5,
                               .num_rows = ROWS,
                               .total_byte_size = (int64_t)file.len - 4};
    cs_parquet_meta m = {.version = 1,
                         .schema = schema,
                         .num_schema = 8,
                         .num_rows = ROWS,
                         .row_groups = &rg,
                         .num_row_groups = 1,
                         .created_by = str("cspark parquet_write_sample")};
    size_t before = file.len;
    cs_parquet_meta_encode(&m, &file);
    uint32_t flen = (uint32_t)(file.len - before);
    uint8_t tail[8] = {(uint8_t)flen,
                       (uint8_t)(flen >> 8),
                       (uint8_t)(flen >> 16),
                       (uint8_t)(flen >> 24),
                       'P',
                       'A',
                       'R',
                       '1'};
    cs_sbuf_append(&file, tail, 8);
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(file.data, 1, file.len, f) != file.len || fclose(f) != 0) {
        fprintf(stderr, "parquet_write_sample: cannot write %s\n", argv[1]);
        return 1;
    }
    for (int c = 0; c < 5; c++)
        cs_parquet_values_free(&cols[c].values);
    cs_sbuf_free(&file);
    return 0;
}
