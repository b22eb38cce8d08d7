/* parquet_pages.c — the column chunk page iterator (see parquet_pages.h).
 *
 * Page layouts: a data page v1 is compressed whole and holds [repetition levels][definition
 * levels][values], each level section a u32 LE length then the RLE/bit-packed levels. A data page
 * v2 keeps its level sections uncompressed in front (their lengths in the header, no prefix) and
 * compresses only the values, unless is_compressed is false. A dictionary page holds PLAIN values.
 */
#include "formats/parquet/parquet_pages.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_codec.h"

void cs_parquet_page_reader_init(cs_parquet_page_reader *r, const char *where,
                                 const cs_parquet_column_desc *col, int codec, const uint8_t *chunk,
                                 size_t chunk_len, int64_t num_values,
                                 int64_t total_uncompressed_size)
{
    memset(r, 0, sizeof *r);
    r->where = cs_xstrdup(where);
    r->col = col;
    r->codec = codec;
    r->chunk = chunk;
    r->chunk_len = chunk_len;
    r->values_left = num_values;
    r->max_page_bytes = total_uncompressed_size;
}

void cs_parquet_page_reader_free(cs_parquet_page_reader *r)
{
    free(r->where);
    cs_parquet_values_free(&r->dict);
    cs_parquet_values_free(&r->values);
    free(r->scratch);
    free(r->def);
    free(r->rep);
    free(r->indices);
    memset(r, 0, sizeof *r);
}

static int lie(cs_parquet_page_reader *r, size_t page_at, cs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int lie(cs_parquet_page_reader *r, size_t page_at, cs_error *err, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_error_set(err, CS_EPROTO, "%s, page at byte %zu of the chunk: %s", r->where, page_at,
                        msg);
}

/* Prefixes a decoder's message with the file, column and page. */
static int decoder_failed(cs_parquet_page_reader *r, size_t page_at, int rc, cs_error *err)
{
    if (err && err->code == CS_OK) cs_error_set(err, rc, "decoding failed");
    cs_error_prefix(err, "%s, page at byte %zu of the chunk", r->where, page_at);
    return rc;
}

static uint8_t *scratch(cs_parquet_page_reader *r, size_t n)
{
    if (n + 8 > r->scratch_cap) {
        size_t cap = r->scratch_cap ? r->scratch_cap : 4096;
        while (cap < n + 8)
            cap *= 2;
        free(r->scratch);
        r->scratch = cs_xmalloc(cap);
        r->scratch_cap = cap;
    }
    return r->scratch;
}

static uint32_t *indices(cs_parquet_page_reader *r, size_t n)
{
    if (n + 1 > r->indices_cap) {
        r->indices_cap = n + 1 > 1024 ? n + 1 : 1024;
        r->indices = cs_xrealloc(r->indices, r->indices_cap * sizeof *r->indices);
    }
    return r->indices;
}

static int read_dictionary(cs_parquet_page_reader *r, const cs_parquet_page_header *h,
                           const uint8_t *body, size_t page_at, cs_error *err)
{
    if (r->has_dictionary || r->seen_data)
        return lie(r, page_at, err, "a dictionary page %s",
                   r->has_dictionary ? "after another one" : "after data pages");
    if (h->encoding != CS_PQ_ENC_PLAIN && h->encoding != CS_PQ_ENC_PLAIN_DICTIONARY)
        return lie(r, page_at, err, "dictionary page encoded %s (PLAIN expected)",
                   cs_parquet_encoding_name(h->encoding));
    uint8_t *buf = scratch(r, (size_t)h->uncompressed_size);
    int rc = cs_parquet_decompress(r->codec, body, (size_t)h->compressed_size, buf,
                                   (size_t)h->uncompressed_size, err);
    if (rc) return decoder_failed(r, page_at, rc, err);
    cs_parquet_values_reset(&r->dict, r->col->type, r->col->type_length);
    size_t used;
    rc = cs_parquet_plain_decode(buf, (size_t)h->uncompressed_size, (uint32_t)h->num_values,
                                 &r->dict, &used, err);
    if (rc) return decoder_failed(r, page_at, rc, err);
    r->has_dictionary = true;
    return CS_OK;
}

/* One level section: the RLE/bit-packed levels of n entries into out. */
static int read_levels(cs_parquet_page_reader *r, const uint8_t *p, size_t len, uint32_t n,
                       int16_t max, int16_t *out, const char *what, size_t page_at, cs_error *err)
{
    cs_parquet_rle_decoder d;
    cs_parquet_rle_decoder_init(&d, p, len, cs_parquet_bit_width((uint64_t)max));
    int rc = cs_parquet_rle_decode_levels(&d, out, n, max, err);
    if (rc) {
        cs_error_prefix(err, "%s levels", what);
        return decoder_failed(r, page_at, rc, err);
    }
    return CS_OK;
}

/* A v1 level section: u32 LE length, then the levels. Advances *p. */
static int read_v1_levels(cs_parquet_page_reader *r, const uint8_t **p, const uint8_t *end,
                          int encoding, uint32_t n, int16_t max, int16_t *out, const char *what,
                          size_t page_at, cs_error *err)
{
    if (encoding != CS_PQ_ENC_RLE)
        return lie(r, page_at, err, "%s levels encoded %s (only RLE is supported)", what,
                   cs_parquet_encoding_name(encoding));
    if (end - *p < 4) return lie(r, page_at, err, "%s levels: length truncated", what);
    uint32_t len = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 | (uint32_t)(*p)[2] << 16 |
                   (uint32_t)(*p)[3] << 24;
    *p += 4;
    if (len > (size_t)(end - *p))
        return lie(r, page_at, err, "%s levels say %u bytes, %zu are left in the page", what, len,
                   (size_t)(end - *p));
    int rc = read_levels(r, *p, len, n, max, out, what, page_at, err);
    *p += len;
    return rc;
}

static int decode_values(cs_parquet_page_reader *r, int encoding, const uint8_t *p, size_t len,
                         uint32_t n, cs_parquet_page *page, size_t page_at, cs_error *err)
{
    cs_parquet_values *v = &r->values;
    int type = r->col->type, rc = CS_OK;
    size_t used;
    cs_parquet_values_reset(v, type, r->col->type_length);
    page->dict_indices = NULL;
    if (n == 0 && encoding != CS_PQ_ENC_PLAIN_DICTIONARY && encoding != CS_PQ_ENC_RLE_DICTIONARY)
        return CS_OK;
    switch (encoding) {
    case CS_PQ_ENC_PLAIN:
        rc = cs_parquet_plain_decode(p, len, n, v, &used, err);
        break;
    case CS_PQ_ENC_PLAIN_DICTIONARY:
    case CS_PQ_ENC_RLE_DICTIONARY: {
        if (!r->has_dictionary)
            return lie(r, page_at, err, "dictionary-encoded page without a dictionary page");
        if (n == 0) return CS_OK;
        if (len < 1) return lie(r, page_at, err, "dictionary indices missing");
        if (p[0] > 32) return lie(r, page_at, err, "dictionary index bit width %u", p[0]);
        if (r->dict.count == 0)
            return lie(r, page_at, err, "%u dictionary indices into an empty dictionary", n);
        cs_parquet_rle_decoder d;
        cs_parquet_rle_decoder_init(&d, p + 1, len - 1, p[0]);
        if (r->keep_dictionary && r->lazy_indices) {
            r->idx_dec = d;
            r->idx_next = 0;
            r->idx_count = n;
            page->dict_lazy = true;
            return CS_OK;
        }
        uint32_t *idx = indices(r, n);
        rc = cs_parquet_rle_decode_u32(&d, idx, n, r->dict.count - 1, err);
        if (!rc && r->keep_dictionary) {
            page->dict_indices = idx;
            return CS_OK;
        }
        if (!rc) rc = cs_parquet_dict_gather(&r->dict, idx, n, v, err);
        break;
    }
    case CS_PQ_ENC_RLE: {
        if (type != CS_PQ_BOOLEAN)
            return lie(r, page_at, err, "RLE values for a %s column", cs_parquet_type_name(type));
        if (len < 4) return lie(r, page_at, err, "RLE boolean values: length truncated");
        uint32_t l =
            (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (l > len - 4)
            return lie(r, page_at, err, "RLE boolean values say %u bytes, %zu are left", l,
                       len - 4);
        cs_parquet_rle_decoder d;
        cs_parquet_rle_decoder_init(&d, p + 4, l, 1);
        uint32_t *idx = indices(r, n);
        rc = cs_parquet_rle_decode_u32(&d, idx, n, 1, err);
        if (!rc) {
            uint8_t *dst = cs_parquet_values_reserve_fixed(v, n);
            for (uint32_t i = 0; i < n; i++)
                dst[i] = (uint8_t)idx[i];
            v->count = n;
        }
        break;
    }
    case CS_PQ_ENC_DELTA_BINARY_PACKED:
        if (type != CS_PQ_INT32 && type != CS_PQ_INT64)
            return lie(r, page_at, err, "DELTA_BINARY_PACKED values for a %s column",
                       cs_parquet_type_name(type));
        rc = cs_parquet_delta_decode_ints(p, len, type, n, cs_parquet_values_reserve_fixed(v, n),
                                          &used, err);
        if (!rc) v->count = n;
        break;
    case CS_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (type != CS_PQ_BYTE_ARRAY)
            return lie(r, page_at, err, "DELTA_LENGTH_BYTE_ARRAY values for a %s column",
                       cs_parquet_type_name(type));
        rc = cs_parquet_delta_length_decode(p, len, n, v, err);
        break;
    case CS_PQ_ENC_DELTA_BYTE_ARRAY:
        if (type != CS_PQ_BYTE_ARRAY && type != CS_PQ_FIXED_LEN_BYTE_ARRAY)
            return lie(r, page_at, err, "DELTA_BYTE_ARRAY values for a %s column",
                       cs_parquet_type_name(type));
        rc = cs_parquet_delta_byte_array_decode(p, len, n, v, err);
        break;
    case CS_PQ_ENC_BYTE_STREAM_SPLIT:
        rc = cs_parquet_byte_stream_split_decode(p, len, n, v, err);
        break;
    default:
        return lie(r, page_at, err, "values encoded %s (%d), which is not supported",
                   cs_parquet_encoding_name(encoding), encoding);
    }
    if (rc) return decoder_failed(r, page_at, rc, err);
    if (v->count != n)
        return lie(r, page_at, err, "%u values decoded where the levels say %u", v->count, n);
    return CS_OK;
}

static int read_data_page(cs_parquet_page_reader *r, const cs_parquet_page_header *h,
                          const uint8_t *body, size_t page_at, cs_parquet_page *page, cs_error *err)
{
    const cs_parquet_column_desc *c = r->col;
    uint32_t n = (uint32_t)h->num_values;
    if (n > CS_PARQUET_MAX_PAGE_VALUES)
        return lie(r, page_at, err, "the page says %u values, more than the %u a page may hold", n,
                   CS_PARQUET_MAX_PAGE_VALUES);
    if ((int64_t)n > r->values_left)
        return lie(r, page_at, err, "the page says %u values, the column chunk has %lld left", n,
                   (long long)r->values_left);
    if ((size_t)n + 1 > r->levels_cap) {
        r->levels_cap = n + 1 > 1024 ? (size_t)n + 1 : 1024;
        r->def = cs_xrealloc(r->def, r->levels_cap * sizeof *r->def);
        r->rep = cs_xrealloc(r->rep, r->levels_cap * sizeof *r->rep);
    }
    const uint8_t *vals;
    size_t vals_len;
    int rc;
    if (h->type == CS_PQ_PAGE_DATA) {
        uint8_t *buf = scratch(r, (size_t)h->uncompressed_size);
        rc = cs_parquet_decompress(r->codec, body, (size_t)h->compressed_size, buf,
                                   (size_t)h->uncompressed_size, err);
        if (rc) return decoder_failed(r, page_at, rc, err);
        const uint8_t *p = buf, *end = buf + h->uncompressed_size;
        if (c->max_rep > 0 && (rc = read_v1_levels(r, &p, end, h->rep_encoding, n, c->max_rep,
                                                   r->rep, "repetition", page_at, err)))
            return rc;
        if (c->max_def > 0 && (rc = read_v1_levels(r, &p, end, h->def_encoding, n, c->max_def,
                                                   r->def, "definition", page_at, err)))
            return rc;
        vals = p;
        vals_len = (size_t)(end - p);
    } else {
        if (h->def_levels_len < 0 || h->rep_levels_len < 0 ||
            (int64_t)h->def_levels_len + h->rep_levels_len > h->compressed_size ||
            (int64_t)h->def_levels_len + h->rep_levels_len > h->uncompressed_size)
            return lie(r, page_at, err,
                       "level sections of %d and %d bytes in a page of %d (%d compressed)",
                       h->rep_levels_len, h->def_levels_len, h->uncompressed_size,
                       h->compressed_size);
        size_t lv = (size_t)h->rep_levels_len + (size_t)h->def_levels_len;
        if (c->max_rep > 0 && (rc = read_levels(r, body, (size_t)h->rep_levels_len, n, c->max_rep,
                                                r->rep, "repetition", page_at, err)))
            return rc;
        if (c->max_def > 0 &&
            (rc = read_levels(r, body + h->rep_levels_len, (size_t)h->def_levels_len, n, c->max_def,
                              r->def, "definition", page_at, err)))
            return rc;
        size_t clen = (size_t)h->compressed_size - lv, ulen = (size_t)h->uncompressed_size - lv;
        if (h->is_compressed && r->codec != CS_PQ_CODEC_UNCOMPRESSED) {
            uint8_t *buf = scratch(r, ulen);
            rc = cs_parquet_decompress(r->codec, body + lv, clen, buf, ulen, err);
            if (rc) return decoder_failed(r, page_at, rc, err);
            vals = buf;
        } else {
            if (clen != ulen)
                return lie(r, page_at, err,
                           "uncompressed values of %zu bytes where the header says %zu", clen,
                           ulen);
            vals = body + lv;
        }
        vals_len = ulen;
    }
    uint32_t nonnull = n, rows = n;
    if (c->max_def > 0) {
        nonnull = 0;
        for (uint32_t i = 0; i < n; i++)
            nonnull += r->def[i] == c->max_def;
    }
    if (c->max_rep > 0) {
        rows = 0;
        for (uint32_t i = 0; i < n; i++)
            rows += r->rep[i] == 0;
        if (n > 0 && r->rep[0] != 0)
            return lie(r, page_at, err, "the first entry continues a row (repetition level %d)",
                       r->rep[0]);
    }
    if (h->type == CS_PQ_PAGE_DATA_V2) {
        if ((int64_t)h->num_nulls != (int64_t)n - nonnull)
            return lie(r, page_at, err, "the header says %d nulls, the definition levels %u",
                       h->num_nulls, n - nonnull);
        if (h->num_rows != (int32_t)rows)
            return lie(r, page_at, err, "the header says %d rows, the repetition levels %u",
                       h->num_rows, rows);
    }
    rc = decode_values(r, h->encoding, vals, vals_len, nonnull, page, page_at, err);
    if (rc) return rc;
    r->values_left -= n;
    r->seen_data = true;
    page->type = h->type;
    page->encoding = h->encoding;
    page->num_values = n;
    page->num_rows = rows;
    page->num_nonnull = nonnull;
    page->def_levels = c->max_def > 0 ? r->def : NULL;
    page->rep_levels = c->max_rep > 0 ? r->rep : NULL;
    page->values = &r->values;
    page->dictionary = r->has_dictionary ? &r->dict : NULL;
    return 1;
}

typedef enum page_mode { PAGE_READ, PAGE_SKIP, PAGE_PEEK } page_mode;

/* The next data page: decoded into *page (PAGE_READ), or passed over (PAGE_SKIP) or left where
 * it is (PAGE_PEEK) with its entry count in *skipped. */
static int next_page(cs_parquet_page_reader *r, cs_parquet_page *page, page_mode mode,
                     uint32_t *skipped, cs_error *err)
{
    if (page) memset(page, 0, sizeof *page);
    for (;;) {
        size_t page_at = r->pos;
        if (r->pos >= r->chunk_len) {
            if (r->values_left != 0)
                return lie(r, page_at, err,
                           "the column chunk ends %lld values short of its num_values",
                           (long long)r->values_left);
            return 0;
        }
        cs_parquet_page_header h;
        size_t hlen;
        int rc =
            cs_parquet_page_header_decode(r->chunk + r->pos, r->chunk_len - r->pos, &h, &hlen, err);
        if (rc) return decoder_failed(r, page_at, rc, err);
        r->pos += hlen;
        if ((size_t)h.compressed_size > r->chunk_len - r->pos)
            return lie(r, page_at, err,
                       "the page says %d compressed bytes, %zu are left in the chunk",
                       h.compressed_size, r->chunk_len - r->pos);
        const uint8_t *body = r->chunk + r->pos;
        r->pos += (size_t)h.compressed_size;
        if ((int64_t)h.uncompressed_size > r->max_page_bytes)
            return lie(r, page_at, err,
                       "the page says %d uncompressed bytes, more than its chunk's %lld",
                       h.uncompressed_size, (long long)r->max_page_bytes);
        switch (h.type) {
        case CS_PQ_PAGE_INDEX:
            continue;
        case CS_PQ_PAGE_DICTIONARY:
            if ((rc = read_dictionary(r, &h, body, page_at, err))) return rc;
            continue;
        case CS_PQ_PAGE_DATA:
        case CS_PQ_PAGE_DATA_V2:
            if (mode == PAGE_READ) return read_data_page(r, &h, body, page_at, page, err);
            if (h.num_values < 0 || (int64_t)h.num_values > r->values_left)
                return lie(r, page_at, err,
                           "the page says %d values, the column chunk has %lld left", h.num_values,
                           (long long)r->values_left);
            *skipped = (uint32_t)h.num_values;
            if (mode == PAGE_PEEK) {
                r->pos = page_at;
                return 1;
            }
            r->values_left -= h.num_values;
            r->seen_data = true;
            return 1;
        default:
            return lie(r, page_at, err, "unknown page type %d", h.type);
        }
    }
}

int cs_parquet_page_reader_next(cs_parquet_page_reader *r, cs_parquet_page *page, cs_error *err)
{
    return next_page(r, page, PAGE_READ, NULL, err);
}

const uint32_t *cs_parquet_page_reader_indices(cs_parquet_page_reader *r, uint32_t from, uint32_t n,
                                               cs_error *err)
{
    if (from < r->idx_next || n > r->idx_count || from > r->idx_count - n) {
        cs_error_set(err, CS_EINVAL,
                     "%s: dictionary indices %u..%u asked of a page of %u (%u read)", r->where,
                     from, from + n, r->idx_count, r->idx_next);
        return NULL;
    }
    uint32_t *out = indices(r, n ? n : 1);
    if ((from > r->idx_next && cs_parquet_rle_skip(&r->idx_dec, from - r->idx_next, err)) ||
        (n && cs_parquet_rle_decode_u32(&r->idx_dec, out, n, r->dict.count - 1, err))) {
        char what[sizeof err->msg];
        snprintf(what, sizeof what, "%s", err->msg);
        cs_error_set(err, CS_EPROTO, "%s: dictionary indices: %s", r->where, what);
        return NULL;
    }
    r->idx_next = from + n;
    return out;
}

int cs_parquet_page_reader_skip(cs_parquet_page_reader *r, uint32_t *num_values, cs_error *err)
{
    *num_values = 0;
    return next_page(r, NULL, PAGE_SKIP, num_values, err);
}

int cs_parquet_page_reader_peek(cs_parquet_page_reader *r, uint32_t *num_values, cs_error *err)
{
    *num_values = 0;
    return next_page(r, NULL, PAGE_PEEK, num_values, err);
}
