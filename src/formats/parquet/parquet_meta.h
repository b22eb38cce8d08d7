/* parquet_meta.h — Parquet's metadata structures (parquet.thrift of apache/parquet-format):
 * FileMetaData with its schema elements, row groups, column chunks, column metadata, statistics
 * and key/value pairs, and the page headers (data page v1 and v2, dictionary page). Decoded from
 * and encoded to the Thrift compact protocol (thrift_compact.h) by parquet_meta.c.
 *
 * Called by parquet_file.c (footer), parquet_pages.c (page headers) and the writer. Unknown
 * fields are skipped, as Thrift readers do; a required field that is missing is an error naming
 * the struct and the field.
 *
 * Ownership: a decoded cs_parquet_meta owns an arena holding every array; strings and binary
 * values (names, statistics) are borrowed from the buffer that was decoded, which the caller keeps
 * alive as long as the metadata (parquet_file.c keeps the footer). cs_parquet_meta_free releases
 * the arena. A page header owns nothing (its statistics point into the page buffer).
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_META_H
#define CSPARK_FORMATS_PARQUET_PARQUET_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

/* Physical types, encodings, codecs, page types, repetitions: parquet.thrift's numbers. */
enum {
    CS_PQ_BOOLEAN = 0,
    CS_PQ_INT32 = 1,
    CS_PQ_INT64 = 2,
    CS_PQ_INT96 = 3,
    CS_PQ_FLOAT = 4,
    CS_PQ_DOUBLE = 5,
    CS_PQ_BYTE_ARRAY = 6,
    CS_PQ_FIXED_LEN_BYTE_ARRAY = 7
};
enum {
    CS_PQ_ENC_PLAIN = 0,
    CS_PQ_ENC_PLAIN_DICTIONARY = 2,
    CS_PQ_ENC_RLE = 3,
    CS_PQ_ENC_BIT_PACKED = 4,
    CS_PQ_ENC_DELTA_BINARY_PACKED = 5,
    CS_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    CS_PQ_ENC_DELTA_BYTE_ARRAY = 7,
    CS_PQ_ENC_RLE_DICTIONARY = 8,
    CS_PQ_ENC_BYTE_STREAM_SPLIT = 9
};
enum {
    CS_PQ_CODEC_UNCOMPRESSED = 0,
    CS_PQ_CODEC_SNAPPY = 1,
    CS_PQ_CODEC_GZIP = 2,
    CS_PQ_CODEC_LZO = 3,
    CS_PQ_CODEC_BROTLI = 4,
    CS_PQ_CODEC_LZ4 = 5, /* Hadoop-framed LZ4 (deprecated by Parquet, still written) */
    CS_PQ_CODEC_ZSTD = 6,
    CS_PQ_CODEC_LZ4_RAW = 7
};
enum {
    CS_PQ_PAGE_DATA = 0,
    CS_PQ_PAGE_INDEX = 1,
    CS_PQ_PAGE_DICTIONARY = 2,
    CS_PQ_PAGE_DATA_V2 = 3
};
enum { CS_PQ_REQUIRED = 0, CS_PQ_OPTIONAL = 1, CS_PQ_REPEATED = 2 };

/* ConvertedType (legacy annotations), -1 when absent. */
enum {
    CS_PQ_CT_UTF8 = 0,
    CS_PQ_CT_MAP = 1,
    CS_PQ_CT_MAP_KEY_VALUE = 2,
    CS_PQ_CT_LIST = 3,
    CS_PQ_CT_ENUM = 4,
    CS_PQ_CT_DECIMAL = 5,
    CS_PQ_CT_DATE = 6,
    CS_PQ_CT_TIME_MILLIS = 7,
    CS_PQ_CT_TIME_MICROS = 8,
    CS_PQ_CT_TIMESTAMP_MILLIS = 9,
    CS_PQ_CT_TIMESTAMP_MICROS = 10,
    CS_PQ_CT_UINT_8 = 11,
    CS_PQ_CT_UINT_16 = 12,
    CS_PQ_CT_UINT_32 = 13,
    CS_PQ_CT_UINT_64 = 14,
    CS_PQ_CT_INT_8 = 15,
    CS_PQ_CT_INT_16 = 16,
    CS_PQ_CT_INT_32 = 17,
    CS_PQ_CT_INT_64 = 18,
    CS_PQ_CT_JSON = 19,
    CS_PQ_CT_BSON = 20,
    CS_PQ_CT_INTERVAL = 21
};

/* LogicalType union member (field id of parquet.thrift's LogicalType), 0 when absent. */
enum {
    CS_PQ_LT_NONE = 0,
    CS_PQ_LT_STRING = 1,
    CS_PQ_LT_MAP = 2,
    CS_PQ_LT_LIST = 3,
    CS_PQ_LT_ENUM = 4,
    CS_PQ_LT_DECIMAL = 5,
    CS_PQ_LT_DATE = 6,
    CS_PQ_LT_TIME = 7,
    CS_PQ_LT_TIMESTAMP = 8,
    CS_PQ_LT_INTEGER = 10,
    CS_PQ_LT_UNKNOWN = 11, /* NullType */
    CS_PQ_LT_JSON = 12,
    CS_PQ_LT_BSON = 13,
    CS_PQ_LT_UUID = 14,
    CS_PQ_LT_FLOAT16 = 15
};
enum { CS_PQ_UNIT_MILLIS = 1, CS_PQ_UNIT_MICROS = 2, CS_PQ_UNIT_NANOS = 3 };

typedef struct cs_parquet_bytes {
    const uint8_t *ptr; /* borrowed; NULL when absent */
    uint32_t len;
} cs_parquet_bytes;

typedef struct cs_parquet_logical_type {
    int kind;                 /* CS_PQ_LT_*; an unknown union member keeps its field id */
    int32_t scale, precision; /* DECIMAL */
    bool utc_adjusted;        /* TIME, TIMESTAMP */
    int unit;                 /* TIME, TIMESTAMP: CS_PQ_UNIT_* */
    int8_t bit_width;         /* INTEGER */
    bool is_signed;           /* INTEGER */
} cs_parquet_logical_type;

typedef struct cs_parquet_statistics {
    bool has_max, has_min, has_null_count, has_distinct_count;
    bool has_max_value, has_min_value;
    cs_parquet_bytes max, min;             /* fields 1, 2: legacy (signed order) */
    cs_parquet_bytes max_value, min_value; /* fields 5, 6: per the column order */
    int64_t null_count, distinct_count;
    bool has_exact_flags, is_max_value_exact, is_min_value_exact;
} cs_parquet_statistics;

typedef struct cs_parquet_key_value {
    cs_parquet_bytes key, value; /* value.ptr NULL when absent */
} cs_parquet_key_value;

typedef struct cs_parquet_schema_element {
    int type;            /* physical type, -1 for a group */
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY; 0 when absent */
    int repetition;      /* CS_PQ_REQUIRED/OPTIONAL/REPEATED; -1 when absent (the root) */
    cs_parquet_bytes name;
    int32_t num_children; /* 0 for a leaf */
    int converted_type;   /* CS_PQ_CT_*, -1 when absent */
    int32_t scale, precision;
    bool has_field_id;
    int32_t field_id;
    cs_parquet_logical_type logical; /* kind 0 when absent */
} cs_parquet_schema_element;

typedef struct cs_parquet_column_meta {
    int type;
    int32_t *encodings;
    uint32_t num_encodings;
    cs_parquet_bytes *path;
    uint32_t path_len;
    int codec;
    int64_t num_values, total_uncompressed_size, total_compressed_size;
    cs_parquet_key_value *kv;
    uint32_t num_kv;
    int64_t data_page_offset;
    bool has_index_page_offset, has_dictionary_page_offset;
    int64_t index_page_offset, dictionary_page_offset;
    bool has_statistics;
    cs_parquet_statistics statistics;
    bool has_bloom_filter;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
} cs_parquet_column_meta;

typedef struct cs_parquet_column_chunk {
    cs_parquet_bytes file_path; /* a chunk in another file (never written by pyarrow/Spark) */
    int64_t file_offset;
    bool has_meta_data;
    cs_parquet_column_meta meta;
    bool has_offset_index, has_column_index;
    int64_t offset_index_offset, column_index_offset;
    int32_t offset_index_length, column_index_length;
} cs_parquet_column_chunk;

typedef struct cs_parquet_row_group {
    cs_parquet_column_chunk *columns;
    uint32_t num_columns;
    int64_t total_byte_size, num_rows;
    bool has_file_offset, has_total_compressed_size, has_ordinal;
    int64_t file_offset, total_compressed_size;
    int16_t ordinal;
} cs_parquet_row_group;

typedef struct cs_parquet_arena cs_parquet_arena;

typedef struct cs_parquet_meta {
    int32_t version;
    cs_parquet_schema_element *schema; /* depth-first, the root first */
    uint32_t num_schema;
    int64_t num_rows;
    cs_parquet_row_group *row_groups;
    uint32_t num_row_groups;
    cs_parquet_key_value *kv;
    uint32_t num_kv;
    cs_parquet_bytes created_by;
    uint32_t num_column_orders; /* encoding only: TYPE_ORDER for the first n leaves (field 7) */
    cs_parquet_arena *arena;    /* owns the arrays above */
} cs_parquet_meta;

typedef struct cs_parquet_page_header {
    int type; /* CS_PQ_PAGE_* */
    int32_t uncompressed_size, compressed_size;
    bool has_crc;
    int32_t crc;
    /* DATA_PAGE (v1), DATA_PAGE_V2 and DICTIONARY_PAGE: whichever `type` names was present */
    int32_t num_values;
    int encoding;
    int def_encoding, rep_encoding;         /* v1 */
    int32_t num_nulls, num_rows;            /* v2 */
    int32_t def_levels_len, rep_levels_len; /* v2 */
    bool is_compressed;                     /* v2 (default true) */
    bool is_sorted;                         /* dictionary */
    bool has_statistics;
    cs_parquet_statistics statistics;
} cs_parquet_page_header;

/* Decodes a FileMetaData from buf (the footer without its length and magic). On error *out is
 * left empty (nothing to free) and err says what was malformed or missing. */
int cs_parquet_meta_decode(const uint8_t *buf, size_t len, cs_parquet_meta *out, cs_error *err);
void cs_parquet_meta_free(cs_parquet_meta *m);

/* Decodes one page header at the start of buf; *header_len receives its encoded size. */
int cs_parquet_page_header_decode(const uint8_t *buf, size_t len, cs_parquet_page_header *out,
                                  size_t *header_len, cs_error *err);

/* Encoders (the writer; also the round-trip tests). Append to out. */
void cs_parquet_meta_encode(const cs_parquet_meta *m, cs_sbuf *out);
void cs_parquet_page_header_encode(const cs_parquet_page_header *h, cs_sbuf *out);

/* Names for messages: "INT32", "SNAPPY", "RLE_DICTIONARY"...; "UNKNOWN(n)" is never returned:
 * an unknown value gives "unknown". */
const char *cs_parquet_type_name(int type);
const char *cs_parquet_codec_name(int codec);
const char *cs_parquet_encoding_name(int encoding);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_META_H */
