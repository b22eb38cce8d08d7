/* parquet_encoding.h — Parquet's value and level encodings, a page at a time into flat typed
 * arrays, and the encoders the writer uses:
 *   PLAIN (every physical type; BOOLEAN bit-packed, INT96 12 bytes, FIXED_LEN_BYTE_ARRAY),
 *   the RLE/bit-packed hybrid (definition/repetition levels and dictionary indices),
 *   dictionary pages and indices (PLAIN_DICTIONARY / RLE_DICTIONARY), DELTA_BINARY_PACKED,
 *   DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT (decoding); PLAIN, RLE,
 *   dictionary, DELTA_BINARY_PACKED and DELTA_BYTE_ARRAY (encoding).
 * Implemented in parquet_plain.c, parquet_rle.c, parquet_delta.c and parquet_dict.c; called by
 * parquet_pages.c (decoding) and the writer (encoding).
 *
 * Every decoder is bounded by the buffer it is given: a count, a length or a bit width that does
 * not fit is CS_EPROTO with a message saying which (the page iterator adds the file and column).
 *
 * Values (cs_parquet_values) use Arrow's flat layouts: fixed-width values packed back to back
 * (BOOLEAN one byte 0/1 per value, INT32/FLOAT 4, INT64/DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY
 * type_length bytes), BYTE_ARRAY as count+1 int32 offsets into one data buffer. The buffers are
 * owned by the cs_parquet_values and grow only: a page iterator reuses them from page to page, so
 * decoding allocates nothing per value and, in steady state, nothing per page.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_ENCODING_H
#define CSPARK_FORMATS_PARQUET_PARQUET_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

typedef struct cs_parquet_values {
    int type;            /* CS_PQ_* physical type */
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width */
    uint32_t count;
    uint8_t *fixed; /* fixed-width values, count * width bytes */
    size_t fixed_cap;
    int32_t *offsets; /* BYTE_ARRAY: count + 1 offsets into data */
    size_t offsets_cap;
    uint8_t *data;
    size_t data_len, data_cap;
} cs_parquet_values;

/* Byte width of one value of a fixed-width type (BOOLEAN 1); 0 for BYTE_ARRAY. */
size_t cs_parquet_value_width(int type, int32_t type_length);
/* Sets the type and empties *v (keeps its buffers). */
void cs_parquet_values_reset(cs_parquet_values *v, int type, int32_t type_length);
void cs_parquet_values_free(cs_parquet_values *v);
/* Room for n more fixed-width values; returns where they go. */
uint8_t *cs_parquet_values_reserve_fixed(cs_parquet_values *v, size_t n);
/* Appends one byte array value (checks the 2 GiB offset limit). */
int cs_parquet_values_append_bytes(cs_parquet_values *v, const uint8_t *p, size_t len,
                                   cs_error *err);

/* Appends one byte array value of len bytes left for the caller to fill at *dst (valid until the
 * next append). */
int cs_parquet_values_append_space(cs_parquet_values *v, size_t len, uint8_t **dst, cs_error *err);

/* ---- decoding: each appends n values to out (of out->type) ---- */

/* PLAIN: *consumed = bytes used. */
int cs_parquet_plain_decode(const uint8_t *p, size_t len, uint32_t n, cs_parquet_values *out,
                            size_t *consumed, cs_error *err);
/* BYTE_STREAM_SPLIT (fixed-width types other than BOOLEAN): exactly n values in len bytes. */
int cs_parquet_byte_stream_split_decode(const uint8_t *p, size_t len, uint32_t n,
                                        cs_parquet_values *out, cs_error *err);

/* The RLE/bit-packed hybrid, without a length prefix, bit_width 0..32. */
typedef struct cs_parquet_rle_decoder {
    const uint8_t *p, *end;
    int bit_width;
    uint32_t rle_left, rle_value;
    uint32_t packed_left, packed_pos; /* values left in the bit-packed run, index of the next */
    const uint8_t *packed;            /* start of the bit-packed run */
    size_t packed_bytes;
} cs_parquet_rle_decoder;

void cs_parquet_rle_decoder_init(cs_parquet_rle_decoder *d, const uint8_t *p, size_t len,
                                 int bit_width);
/* Decodes exactly n values into out; each must be <= max_value (levels: the column's max level;
 * dictionary indices: the dictionary size - 1). */
int cs_parquet_rle_decode_u32(cs_parquet_rle_decoder *d, uint32_t *out, uint32_t n,
                              uint32_t max_value, cs_error *err);
/* Passes over n values (not checked against any maximum). */
int cs_parquet_rle_skip(cs_parquet_rle_decoder *d, uint32_t n, cs_error *err);
int cs_parquet_rle_decode_levels(cs_parquet_rle_decoder *d, int16_t *out, uint32_t n,
                                 int16_t max_level, cs_error *err);
/* Bits needed for values 0..max_value. */
int cs_parquet_bit_width(uint64_t max_value);

/* DELTA_BINARY_PACKED for INT32 (out 4 bytes each) or INT64: decodes all the values the header
 * says, which must be n; *consumed = bytes to the end of the last miniblock used. */
int cs_parquet_delta_decode_ints(const uint8_t *p, size_t len, int type, uint32_t n, void *out,
                                 size_t *consumed, cs_error *err);
/* The count a DELTA_BINARY_PACKED header announces (for DELTA_LENGTH_BYTE_ARRAY's lengths). */
int cs_parquet_delta_count(const uint8_t *p, size_t len, uint32_t *count, cs_error *err);
int cs_parquet_delta_length_decode(const uint8_t *p, size_t len, uint32_t n, cs_parquet_values *out,
                                   cs_error *err);
/* DELTA_BYTE_ARRAY for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY. */
int cs_parquet_delta_byte_array_decode(const uint8_t *p, size_t len, uint32_t n,
                                       cs_parquet_values *out, cs_error *err);

/* Dictionary indices: out gets dict[indices[i]] for i < n (indices already checked). */
int cs_parquet_dict_gather(const cs_parquet_values *dict, const uint32_t *indices, uint32_t n,
                           cs_parquet_values *out, cs_error *err);

/* ---- encoding: each appends to out ---- */

void cs_parquet_plain_encode(const cs_parquet_values *v, uint32_t first, uint32_t n, cs_sbuf *out);
/* RLE/bit-packed hybrid of n values at bit_width (no length prefix). */
void cs_parquet_rle_encode_u32(const uint32_t *v, uint32_t n, int bit_width, cs_sbuf *out);
void cs_parquet_rle_encode_levels(const int16_t *v, uint32_t n, int bit_width, cs_sbuf *out);
/* DELTA_BINARY_PACKED (block 128, 4 miniblocks, as parquet-mr) of INT32 or INT64 values. */
void cs_parquet_delta_encode_ints(const void *v, int type, uint32_t n, cs_sbuf *out);
/* DELTA_BYTE_ARRAY (incremental encoding: prefix lengths shared with the previous value and
 * suffix lengths, both DELTA_BINARY_PACKED, then the suffixes) of v's first n BYTE_ARRAY or
 * FIXED_LEN_BYTE_ARRAY values, as parquet-mr's DeltaByteArrayWriter. */
void cs_parquet_delta_byte_array_encode(const cs_parquet_values *v, uint32_t n, cs_sbuf *out);

/* A dictionary builder: values in first-seen order, each distinct value once; indices of the
 * values added. Owns its memory (cs_parquet_dict_builder_free). */
typedef struct cs_parquet_dict_builder {
    cs_parquet_values dict;
    uint32_t *slots; /* open addressing: index + 1, 0 when empty */
    size_t nslots;
} cs_parquet_dict_builder;

void cs_parquet_dict_builder_init(cs_parquet_dict_builder *b, int type, int32_t type_length);
/* Adds values [first, first+n) of v, writing each one's dictionary index to indices[0..n). */
void cs_parquet_dict_builder_add(cs_parquet_dict_builder *b, const cs_parquet_values *v,
                                 uint32_t first, uint32_t n, uint32_t *indices);
/* Bytes the dictionary page's PLAIN values take. */
size_t cs_parquet_dict_builder_bytes(const cs_parquet_dict_builder *b);
void cs_parquet_dict_builder_free(cs_parquet_dict_builder *b);
/* A data page's dictionary-index section: the bit width byte, then the RLE/bit-packed indices. */
void cs_parquet_dict_indices_encode(const uint32_t *indices, uint32_t n, uint32_t dict_size,
                                    cs_sbuf *out);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_ENCODING_H */
