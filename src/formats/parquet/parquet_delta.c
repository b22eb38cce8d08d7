/* parquet_delta.c — Parquet's delta encodings (see parquet_encoding.h):
 *   DELTA_BINARY_PACKED: a header <block size> <miniblocks per block> <total count> <first value
 *     (zigzag)>, then blocks of <min delta (zigzag)> <one bit width byte per miniblock> and the
 *     miniblocks' (delta - min delta) values bit-packed. Arithmetic wraps (mod 2^32 for INT32,
 *     2^64 for INT64), as the writers' does.
 *   DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED, then the bytes back to back.
 *   DELTA_BYTE_ARRAY: prefix lengths (DELTA_BINARY_PACKED) then suffixes (DELTA_LENGTH_BYTE_ARRAY);
 *     each value is the previous value's prefix followed by its suffix.
 * The encoder writes DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks, as parquet-mr
 * and Arrow do. Called by parquet_pages.c and the writer.
 */
#include "formats/parquet/parquet_encoding.h"

#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_bits.h"
#include "formats/parquet/parquet_meta.h"

typedef struct delta_header {
    uint64_t block_size, miniblocks, total;
    int64_t first;
} delta_header;

static int read_header(const uint8_t **p, const uint8_t *end, delta_header *h, cs_error *err)
{
    int ok1, ok2, ok3, ok4;
    h->block_size = cs_pq_varint(p, end, &ok1);
    h->miniblocks = ok1 ? cs_pq_varint(p, end, &ok2) : (ok2 = 0);
    h->total = ok2 ? cs_pq_varint(p, end, &ok3) : (ok3 = 0);
    uint64_t z = ok3 ? cs_pq_varint(p, end, &ok4) : (ok4 = 0);
    if (!ok4) return cs_error_set(err, CS_EPROTO, "DELTA_BINARY_PACKED header truncated");
    h->first = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    if (h->block_size == 0 || h->block_size % 128 || h->block_size > (1u << 20) ||
        h->miniblocks == 0 || h->block_size % h->miniblocks || (h->block_size / h->miniblocks) % 32)
        return cs_error_set(err, CS_EPROTO,
                            "DELTA_BINARY_PACKED header: block size %llu with %llu miniblocks "
                            "(a multiple of 128 in miniblocks of a multiple of 32 expected)",
                            (unsigned long long)h->block_size, (unsigned long long)h->miniblocks);
    if (h->total > INT32_MAX)
        return cs_error_set(err, CS_EPROTO, "DELTA_BINARY_PACKED header announces %llu values",
                            (unsigned long long)h->total);
    return CS_OK;
}

int cs_parquet_delta_count(const uint8_t *p, size_t len, uint32_t *count, cs_error *err)
{
    delta_header h;
    int rc = read_header(&p, p + len, &h, err);
    *count = rc ? 0 : (uint32_t)h.total;
    return rc;
}

int cs_parquet_delta_decode_ints(const uint8_t *p, size_t len, int type, uint32_t n, void *out,
                                 size_t *consumed, cs_error *err)
{
    const uint8_t *start = p, *end = p + len;
    delta_header h;
    int rc = read_header(&p, end, &h, err);
    if (rc) return rc;
    if (h.total != n)
        return cs_error_set(err, CS_EPROTO,
                            "DELTA_BINARY_PACKED holds %llu values where %u were expected",
                            (unsigned long long)h.total, n);
    int max_bw = type == CS_PQ_INT32 ? 32 : 64;
    int32_t *o32 = out;
    int64_t *o64 = out;
    uint64_t prev = (uint64_t)h.first;
    uint32_t count = 0;
    if (n > 0) {
        if (type == CS_PQ_INT32)
            o32[0] = (int32_t)(uint32_t)prev;
        else
            o64[0] = (int64_t)prev;
        count = 1;
    }
    uint64_t per_mini = h.block_size / h.miniblocks;
    while (count < n) {
        int ok;
        uint64_t z = cs_pq_varint(&p, end, &ok);
        if (!ok) return cs_error_set(err, CS_EPROTO, "DELTA_BINARY_PACKED block header truncated");
        uint64_t min_delta = (uint64_t)((int64_t)(z >> 1) ^ -(int64_t)(z & 1));
        if ((uint64_t)(end - p) < h.miniblocks)
            return cs_error_set(err, CS_EPROTO, "DELTA_BINARY_PACKED bit widths truncated");
        const uint8_t *widths = p;
        p += h.miniblocks;
        for (uint64_t m = 0; m < h.miniblocks && count < n; m++) {
            int bw = widths[m];
            if (bw > max_bw)
                return cs_error_set(err, CS_EPROTO, "DELTA_BINARY_PACKED bit width %d for %s", bw,
                                    cs_parquet_type_name(type));
            uint32_t k = n - count < per_mini ? n - count : (uint32_t)per_mini;
            size_t need = ((size_t)k * (size_t)bw + 7) / 8,
                   full = (size_t)(per_mini * (uint64_t)bw / 8);
            size_t left = (size_t)(end - p);
            if (need > left)
                return cs_error_set(err, CS_EPROTO,
                                    "DELTA_BINARY_PACKED miniblock needs %zu bytes, %zu are left",
                                    need, left);
            for (uint32_t j = 0; j < k; j++) {
                prev += min_delta + cs_pq_bits_get(p, need, (uint64_t)j * (uint64_t)bw, bw);
                if (type == CS_PQ_INT32)
                    o32[count + j] = (int32_t)(uint32_t)prev;
                else
                    o64[count + j] = (int64_t)prev;
            }
            count += k;
            p += full < left ? full : left;
        }
    }
    *consumed = (size_t)(p - start);
    return CS_OK;
}

int cs_parquet_delta_length_decode(const uint8_t *p, size_t len, uint32_t n, cs_parquet_values *out,
                                   cs_error *err)
{
    size_t used;
    uint32_t count;
    int rc = cs_parquet_delta_count(p, len, &count, err);
    if (rc || count != n) /* before allocating for n lengths */
        return rc ? rc
                  : cs_error_set(err, CS_EPROTO,
                                 "DELTA_LENGTH_BYTE_ARRAY holds %u values where %u were expected",
                                 count, n);
    int32_t *lengths = cs_xmalloc((size_t)n * sizeof *lengths + 4);
    rc = cs_parquet_delta_decode_ints(p, len, CS_PQ_INT32, n, lengths, &used, err);
    size_t pos = used;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (lengths[i] < 0 || (size_t)lengths[i] > len - pos) {
            rc = cs_error_set(err, CS_EPROTO,
                              "DELTA_LENGTH_BYTE_ARRAY value %u says %d bytes, %zu are left", i,
                              lengths[i], len - pos);
            break;
        }
        rc = cs_parquet_values_append_bytes(out, p + pos, (size_t)lengths[i], err);
        pos += (size_t)lengths[i];
    }
    free(lengths);
    return rc;
}

int cs_parquet_delta_byte_array_decode(const uint8_t *p, size_t len, uint32_t n,
                                       cs_parquet_values *out, cs_error *err)
{
    size_t used, used2;
    uint32_t count;
    int rc = cs_parquet_delta_count(p, len, &count, err);
    if (rc || count != n) /* before allocating for n lengths */
        return rc ? rc
                  : cs_error_set(err, CS_EPROTO,
                                 "DELTA_BYTE_ARRAY holds %u values where %u were expected", count,
                                 n);
    int32_t *prefix = cs_xmalloc((size_t)n * 2 * sizeof *prefix + 8), *suffix = prefix + n;
    rc = cs_parquet_delta_decode_ints(p, len, CS_PQ_INT32, n, prefix, &used, err);
    if (!rc)
        rc =
            cs_parquet_delta_decode_ints(p + used, len - used, CS_PQ_INT32, n, suffix, &used2, err);
    size_t pos = used + (rc ? 0 : used2);
    bool fixed = out->type == CS_PQ_FIXED_LEN_BYTE_ARRAY;
    size_t w = (size_t)out->type_length, prev_len = 0;
    uint32_t base = out->count;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (suffix[i] < 0 || (size_t)suffix[i] > len - pos || prefix[i] < 0 ||
            (size_t)prefix[i] > prev_len) {
            rc = cs_error_set(err, CS_EPROTO,
                              "DELTA_BYTE_ARRAY value %u: prefix %d of a %zu-byte previous value, "
                              "suffix %d with %zu bytes left",
                              i, prefix[i], prev_len, suffix[i], len - pos);
            break;
        }
        size_t vlen = (size_t)prefix[i] + (size_t)suffix[i];
        if (fixed) {
            if (vlen != w) {
                rc = cs_error_set(err, CS_EPROTO,
                                  "DELTA_BYTE_ARRAY value %u has %zu bytes, not %zu", i, vlen, w);
                break;
            }
            uint8_t *dst = cs_parquet_values_reserve_fixed(out, 1);
            if (i > 0) memcpy(dst, dst - w, (size_t)prefix[i]);
            memcpy(dst + prefix[i], p + pos, (size_t)suffix[i]);
            out->count++;
        } else {
            size_t prev_off = i > 0 ? (size_t)out->offsets[base + i - 1] : 0;
            uint8_t *dst;
            if ((rc = cs_parquet_values_append_space(out, vlen, &dst, err))) break;
            if (prefix[i]) memcpy(dst, out->data + prev_off, (size_t)prefix[i]);
            memcpy(dst + prefix[i], p + pos, (size_t)suffix[i]);
        }
        pos += (size_t)suffix[i];
        prev_len = vlen;
    }
    free(prefix);
    return rc;
}

/* ---- encoder --------------------------------------------------------------------------------- */

void cs_parquet_delta_encode_ints(const void *v, int type, uint32_t n, cs_sbuf *out)
{
    const int32_t *v32 = v;
    const int64_t *v64 = v;
    bool is32 = type == CS_PQ_INT32;
    enum { BLOCK = 128, MINIS = 4, PER_MINI = BLOCK / MINIS };
    cs_pq_put_varint(out, BLOCK);
    cs_pq_put_varint(out, MINIS);
    cs_pq_put_varint(out, n);
    int64_t first = n ? (is32 ? v32[0] : v64[0]) : 0;
    cs_pq_put_varint(out, ((uint64_t)first << 1) ^ (uint64_t)(first >> 63));
    uint64_t deltas[BLOCK];
    for (uint32_t i = 1; i < n; i += BLOCK) {
        uint32_t k = n - i < BLOCK ? n - i : BLOCK;
        int64_t min = INT64_MAX;
        for (uint32_t j = 0; j < k; j++) {
            int64_t d = is32 ? (int64_t)(int32_t)((uint32_t)v32[i + j] - (uint32_t)v32[i + j - 1])
                             : (int64_t)((uint64_t)v64[i + j] - (uint64_t)v64[i + j - 1]);
            deltas[j] = (uint64_t)d;
            if (d < min) min = d;
        }
        cs_pq_put_varint(out, ((uint64_t)min << 1) ^ (uint64_t)(min >> 63));
        int widths[MINIS];
        for (int m = 0; m < MINIS; m++) {
            uint64_t mx = 0;
            for (uint32_t j = (uint32_t)m * PER_MINI; j < k && j < (uint32_t)(m + 1) * PER_MINI;
                 j++) {
                deltas[j] = is32 ? (uint64_t)(uint32_t)((uint32_t)deltas[j] - (uint32_t)min)
                                 : deltas[j] - (uint64_t)min;
                if (deltas[j] > mx) mx = deltas[j];
            }
            widths[m] = cs_parquet_bit_width(mx);
            cs_sbuf_putc(out, (char)widths[m]);
        }
        for (uint32_t j = k; j < BLOCK; j++)
            deltas[j] = 0;
        for (int m = 0; m < MINIS && (uint32_t)m * PER_MINI < k; m++)
            cs_pq_bits_pack(deltas + m * PER_MINI, PER_MINI, widths[m], out);
    }
}

void cs_parquet_delta_byte_array_encode(const cs_parquet_values *v, uint32_t n, cs_sbuf *out)
{
    int32_t *prefix = cs_xmalloc((size_t)n * 2 * sizeof *prefix + 8), *suffix = prefix + n;
    bool fixed = v->type == CS_PQ_FIXED_LEN_BYTE_ARRAY;
    size_t w = fixed ? (size_t)v->type_length : 0;
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = fixed ? v->fixed + w * i : v->data + v->offsets[i];
        size_t len = fixed ? w : (size_t)(v->offsets[i + 1] - v->offsets[i]);
        size_t k = 0, most = len < prev_len ? len : prev_len;
        while (k < most && p[k] == prev[k])
            k++;
        prefix[i] = (int32_t)k;
        suffix[i] = (int32_t)(len - k);
        prev = p;
        prev_len = len;
    }
    cs_parquet_delta_encode_ints(prefix, CS_PQ_INT32, n, out);
    cs_parquet_delta_encode_ints(suffix, CS_PQ_INT32, n, out);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = fixed ? v->fixed + w * i : v->data + v->offsets[i];
        cs_sbuf_append(out, p + prefix[i], (size_t)suffix[i]);
    }
    free(prefix);
}
