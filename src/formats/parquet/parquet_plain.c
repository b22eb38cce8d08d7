/* parquet_plain.c — the flat value arrays (cs_parquet_values) and Parquet's PLAIN encoding of
 * every physical type, decoding and encoding, plus BYTE_STREAM_SPLIT decoding (see
 * parquet_encoding.h). All multi-byte values are little-endian on the wire, as on the machines
 * cspark runs on (x86-64, arm64): fixed-width values are copied, not converted.
 */
#include "formats/parquet/parquet_encoding.h"

#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_meta.h"

size_t cs_parquet_value_width(int type, int32_t type_length)
{
    switch (type) {
    case CS_PQ_BOOLEAN:
        return 1;
    case CS_PQ_INT32:
    case CS_PQ_FLOAT:
        return 4;
    case CS_PQ_INT64:
    case CS_PQ_DOUBLE:
        return 8;
    case CS_PQ_INT96:
        return 12;
    case CS_PQ_FIXED_LEN_BYTE_ARRAY:
        return type_length > 0 ? (size_t)type_length : 0;
    default:
        return 0;
    }
}

void cs_parquet_values_reset(cs_parquet_values *v, int type, int32_t type_length)
{
    v->type = type;
    v->type_length = type_length;
    v->count = 0;
    v->data_len = 0;
    if (type == CS_PQ_BYTE_ARRAY) {
        if (!v->offsets_cap) {
            v->offsets_cap = 1024;
            v->offsets = cs_xrealloc(v->offsets, v->offsets_cap * sizeof *v->offsets);
        }
        v->offsets[0] = 0;
    }
}

void cs_parquet_values_free(cs_parquet_values *v)
{
    free(v->fixed);
    free(v->offsets);
    free(v->data);
    memset(v, 0, sizeof *v);
}

static void grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    *p = cs_xrealloc(*p, c * elem);
    *cap = c;
}

uint8_t *cs_parquet_values_reserve_fixed(cs_parquet_values *v, size_t n)
{
    size_t w = cs_parquet_value_width(v->type, v->type_length);
    grow((void **)&v->fixed, &v->fixed_cap, (v->count + n) * w + 8, 1);
    return v->fixed + (size_t)v->count * w;
}

int cs_parquet_values_append_space(cs_parquet_values *v, size_t len, uint8_t **dst, cs_error *err)
{
    if (len > (size_t)INT32_MAX - v->data_len)
        return cs_error_set(err, CS_EPROTO, "byte array values of a page exceed 2 GiB");
    grow((void **)&v->offsets, &v->offsets_cap, (size_t)v->count + 2, sizeof *v->offsets);
    grow((void **)&v->data, &v->data_cap, v->data_len + len + 1, 1);
    *dst = v->data + v->data_len;
    v->data_len += len;
    v->offsets[++v->count] = (int32_t)v->data_len;
    return CS_OK;
}

int cs_parquet_values_append_bytes(cs_parquet_values *v, const uint8_t *p, size_t len,
                                   cs_error *err)
{
    uint8_t *dst;
    int rc = cs_parquet_values_append_space(v, len, &dst, err);
    if (!rc && len) memcpy(dst, p, len);
    return rc;
}

static int truncated(cs_error *err, const char *what, uint32_t n, size_t len)
{
    return cs_error_set(err, CS_EPROTO, "PLAIN %s: %u values do not fit in the %zu bytes left",
                        what, n, len);
}

int cs_parquet_plain_decode(const uint8_t *p, size_t len, uint32_t n, cs_parquet_values *out,
                            size_t *consumed, cs_error *err)
{
    *consumed = 0;
    if (out->type == CS_PQ_BOOLEAN) {
        if (((uint64_t)n + 7) / 8 > len) return truncated(err, "BOOLEAN", n, len);
        uint8_t *dst = cs_parquet_values_reserve_fixed(out, n);
        for (uint32_t i = 0; i < n; i++)
            dst[i] = (p[i >> 3] >> (i & 7)) & 1;
        out->count += n;
        *consumed = ((size_t)n + 7) / 8;
        return CS_OK;
    }
    if (out->type == CS_PQ_BYTE_ARRAY) {
        size_t pos = 0;
        if ((uint64_t)n * 4 > len)
            return truncated(err, "BYTE_ARRAY", n, len); /* 4 bytes each at least */
        grow((void **)&out->offsets, &out->offsets_cap, (size_t)out->count + n + 1,
             sizeof *out->offsets);
        for (uint32_t i = 0; i < n; i++) {
            if (len - pos < 4) return truncated(err, "BYTE_ARRAY", n - i, len - pos);
            uint32_t l = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16 |
                         (uint32_t)p[pos + 3] << 24;
            pos += 4;
            if (l > len - pos)
                return cs_error_set(err, CS_EPROTO,
                                    "PLAIN BYTE_ARRAY: value %u says %u bytes, %zu are left", i, l,
                                    len - pos);
            if (cs_parquet_values_append_bytes(out, p + pos, l, err))
                return err ? err->code : CS_EPROTO;
            pos += l;
        }
        *consumed = pos;
        return CS_OK;
    }
    size_t w = cs_parquet_value_width(out->type, out->type_length);
    if (!w)
        return cs_error_set(err, CS_EPROTO, "PLAIN: no width for type %d (length %d)", out->type,
                            out->type_length);
    if ((uint64_t)n * w > len) return truncated(err, cs_parquet_type_name(out->type), n, len);
    memcpy(cs_parquet_values_reserve_fixed(out, n), p, (size_t)n * w);
    out->count += n;
    *consumed = (size_t)n * w;
    return CS_OK;
}

int cs_parquet_byte_stream_split_decode(const uint8_t *p, size_t len, uint32_t n,
                                        cs_parquet_values *out, cs_error *err)
{
    size_t w = cs_parquet_value_width(out->type, out->type_length);
    if (!w || out->type == CS_PQ_BOOLEAN || out->type == CS_PQ_BYTE_ARRAY)
        return cs_error_set(err, CS_EPROTO, "BYTE_STREAM_SPLIT is not defined for %s",
                            cs_parquet_type_name(out->type));
    if ((uint64_t)n * w != len)
        return cs_error_set(err, CS_EPROTO,
                            "BYTE_STREAM_SPLIT: %u values of %zu bytes in %zu bytes", n, w, len);
    uint8_t *dst = cs_parquet_values_reserve_fixed(out, n);
    for (size_t b = 0; b < w; b++)
        for (uint32_t i = 0; i < n; i++)
            dst[(size_t)i * w + b] = p[b * n + i];
    out->count += n;
    return CS_OK;
}

void cs_parquet_plain_encode(const cs_parquet_values *v, uint32_t first, uint32_t n, cs_sbuf *out)
{
    if (v->type == CS_PQ_BOOLEAN) {
        uint8_t byte = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (v->fixed[first + i]) byte |= (uint8_t)(1u << (i & 7));
            if ((i & 7) == 7) {
                cs_sbuf_putc(out, (char)byte);
                byte = 0;
            }
        }
        if (n & 7) cs_sbuf_putc(out, (char)byte);
        return;
    }
    if (v->type == CS_PQ_BYTE_ARRAY) {
        for (uint32_t i = first; i < first + n; i++) {
            uint32_t l = (uint32_t)(v->offsets[i + 1] - v->offsets[i]);
            uint8_t b[4] = {(uint8_t)l, (uint8_t)(l >> 8), (uint8_t)(l >> 16), (uint8_t)(l >> 24)};
            cs_sbuf_append(out, b, 4);
            cs_sbuf_append(out, v->data + v->offsets[i], l);
        }
        return;
    }
    size_t w = cs_parquet_value_width(v->type, v->type_length);
    cs_sbuf_append(out, v->fixed + (size_t)first * w, (size_t)n * w);
}
