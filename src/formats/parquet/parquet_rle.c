/* parquet_rle.c — the RLE/bit-packed hybrid encoding (Parquet's "RLE"), used for definition and
 * repetition levels and for dictionary indices (see parquet_encoding.h).
 *
 * A run header is a ULEB128 varint h: h & 1 = 1 starts a bit-packed run of (h >> 1) groups of 8
 * values (bit_width bytes per group), h & 1 = 0 a repeated run of (h >> 1) copies of one value
 * stored in ceil(bit_width / 8) little-endian bytes. A bit-packed run cut short by the end of the
 * buffer yields the values its bytes hold (writers pad the last group; some trim it). The encoder
 * writes repeated runs for 8 or more equal values and bit-packed runs otherwise, as parquet-mr's
 * RunLengthBitPackingHybridEncoder does.
 *
 * Decoding a bit-packed run goes a group of 8 values at a time where it can, through one
 * function per bit width (1..32) whose offsets and shifts are constants: a load, a shift and a
 * mask per value. What is left (a run's start or end off a group, its last bytes) goes a value
 * at a time.
 */
#include "formats/parquet/parquet_encoding.h"

#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_bits.h"

int cs_parquet_bit_width(uint64_t max_value)
{
    int w = 0;
    while (max_value) {
        w++;
        max_value >>= 1;
    }
    return w;
}

void cs_parquet_rle_decoder_init(cs_parquet_rle_decoder *d, const uint8_t *p, size_t len,
                                 int bit_width)
{
    d->p = p;
    d->end = p + len;
    d->bit_width = bit_width;
    d->rle_left = d->packed_left = d->packed_pos = 0;
    d->rle_value = 0;
    d->packed = NULL;
    d->packed_bytes = 0;
}

/* Groups of 8 values of BW bits at p (BW bytes each; 8 bytes past the last group readable) into
 * out; returns nonzero when a value exceeds max. */
#define UNPACK_GROUPS(BW)                                                                          \
    static uint32_t unpack_##BW(const uint8_t *p, uint32_t groups, uint32_t *out, uint32_t max)    \
    {                                                                                              \
        uint32_t bad = 0;                                                                          \
        for (uint32_t g = 0; g < groups; g++, p += (BW), out += 8)                                 \
            for (int j = 0; j < 8; j++) {                                                          \
                uint64_t w;                                                                        \
                memcpy(&w, p + (j * (BW)) / 8, 8);                                                 \
                uint32_t v = (uint32_t)((w >> ((j * (BW)) % 8)) & ((UINT64_C(1) << (BW)) - 1));    \
                bad |= v > max;                                                                    \
                out[j] = v;                                                                        \
            }                                                                                      \
        return bad;                                                                                \
    }
UNPACK_GROUPS(1)
UNPACK_GROUPS(2)
UNPACK_GROUPS(3)
UNPACK_GROUPS(4)
UNPACK_GROUPS(5)
UNPACK_GROUPS(6)
UNPACK_GROUPS(7)
UNPACK_GROUPS(8)
UNPACK_GROUPS(9)
UNPACK_GROUPS(10)
UNPACK_GROUPS(11)
UNPACK_GROUPS(12)
UNPACK_GROUPS(13)
UNPACK_GROUPS(14)
UNPACK_GROUPS(15)
UNPACK_GROUPS(16)
UNPACK_GROUPS(17)
UNPACK_GROUPS(18)
UNPACK_GROUPS(19)
UNPACK_GROUPS(20)
UNPACK_GROUPS(21)
UNPACK_GROUPS(22)
UNPACK_GROUPS(23)
UNPACK_GROUPS(24)
UNPACK_GROUPS(25)
UNPACK_GROUPS(26)
UNPACK_GROUPS(27)
UNPACK_GROUPS(28)
UNPACK_GROUPS(29)
UNPACK_GROUPS(30)
UNPACK_GROUPS(31)
UNPACK_GROUPS(32)

typedef uint32_t (*unpack_fn)(const uint8_t *, uint32_t, uint32_t *, uint32_t);
static const unpack_fn unpack_width[33] = {
    NULL,      unpack_1,  unpack_2,  unpack_3,  unpack_4,  unpack_5,  unpack_6,
    unpack_7,  unpack_8,  unpack_9,  unpack_10, unpack_11, unpack_12, unpack_13,
    unpack_14, unpack_15, unpack_16, unpack_17, unpack_18, unpack_19, unpack_20,
    unpack_21, unpack_22, unpack_23, unpack_24, unpack_25, unpack_26, unpack_27,
    unpack_28, unpack_29, unpack_30, unpack_31, unpack_32};

static int next_run(cs_parquet_rle_decoder *d, cs_error *err)
{
    int ok;
    if (d->p >= d->end)
        return cs_error_set(err, CS_EPROTO,
                            "RLE/bit-packed data ends before its values (bit width %d)",
                            d->bit_width);
    uint64_t h = cs_pq_varint(&d->p, d->end, &ok);
    if (!ok) return cs_error_set(err, CS_EPROTO, "RLE/bit-packed run header truncated");
    if (h & 1) {
        uint64_t groups = h >> 1;
        size_t left = (size_t)(d->end - d->p);
        uint64_t bytes = groups * (uint64_t)d->bit_width;
        if (groups == 0 || groups > UINT32_MAX / 8)
            return cs_error_set(err, CS_EPROTO, "bit-packed run of %llu groups",
                                (unsigned long long)groups);
        uint64_t count = groups * 8;
        if (bytes > left) { /* a trimmed last run: the values its bytes hold */
            bytes = left;
            count = d->bit_width ? (uint64_t)left * 8 / (uint64_t)d->bit_width : count;
            if (count == 0) return cs_error_set(err, CS_EPROTO, "bit-packed run truncated");
        }
        d->packed = d->p;
        d->packed_bytes = (size_t)bytes;
        d->packed_left = (uint32_t)count;
        d->packed_pos = 0;
        d->p += bytes;
    } else {
        uint64_t count = h >> 1;
        size_t vbytes = ((size_t)d->bit_width + 7) / 8;
        if (count == 0 || count > UINT32_MAX)
            return cs_error_set(err, CS_EPROTO, "RLE run of %llu values",
                                (unsigned long long)count);
        if ((size_t)(d->end - d->p) < vbytes)
            return cs_error_set(err, CS_EPROTO, "RLE run value truncated");
        uint32_t v = 0;
        for (size_t i = 0; i < vbytes; i++)
            v |= (uint32_t)d->p[i] << (8 * i);
        d->p += vbytes;
        d->rle_left = (uint32_t)count;
        d->rle_value = v;
    }
    return CS_OK;
}

int cs_parquet_rle_decode_u32(cs_parquet_rle_decoder *d, uint32_t *out, uint32_t n,
                              uint32_t max_value, cs_error *err)
{
    if (d->bit_width < 0 || d->bit_width > 32)
        return cs_error_set(err, CS_EPROTO, "RLE/bit-packed bit width %d (0..32 expected)",
                            d->bit_width);
    uint32_t i = 0;
    while (i < n) {
        if (d->rle_left) {
            if (d->rle_value > max_value)
                return cs_error_set(err, CS_EPROTO, "RLE value %u above the maximum %u",
                                    d->rle_value, max_value);
            uint32_t k = d->rle_left < n - i ? d->rle_left : n - i;
            for (uint32_t j = 0; j < k; j++)
                out[i + j] = d->rle_value;
            i += k;
            d->rle_left -= k;
        } else if (d->packed_left) {
            uint32_t k = d->packed_left < n - i ? d->packed_left : n - i;
            int bw = d->bit_width;
            size_t at = (size_t)(d->packed_pos / 8) * (size_t)bw; /* the group's first byte */
            if (bw > 0 && d->packed_pos % 8 == 0 && k >= 8 &&
                at + (size_t)bw + 8 <= d->packed_bytes) {
                uint32_t groups = k / 8, room = (uint32_t)((d->packed_bytes - 8 - at) / (size_t)bw);
                if (groups > room) groups = room;
                if (unpack_width[bw](d->packed + at, groups, out + i, max_value))
                    return cs_error_set(err, CS_EPROTO, "bit-packed value above the maximum %u",
                                        max_value);
                i += 8 * groups;
                d->packed_left -= 8 * groups;
                d->packed_pos += 8 * groups;
                continue;
            }
            uint64_t bit = (uint64_t)d->packed_pos * (uint64_t)d->bit_width;
            uint32_t bad = 0, j = 0;
            /* while 8 bytes can be loaded from the value's first byte (bit widths up to 32
             * and a shift up to 7 fit in them), without cs_pq_bits_get's bound checks */
            const uint64_t mask = (UINT64_C(1) << d->bit_width) - 1;
            for (; j < k && (bit >> 3) + 8 <= d->packed_bytes; j++, bit += (uint64_t)d->bit_width) {
                uint64_t word;
                memcpy(&word, d->packed + (bit >> 3), 8);
                uint32_t v = (uint32_t)((word >> (bit & 7)) & mask);
                bad |= v > max_value;
                out[i + j] = v;
            }
            for (; j < k; j++, bit += (uint64_t)d->bit_width) {
                uint32_t v =
                    (uint32_t)cs_pq_bits_get(d->packed, d->packed_bytes, bit, d->bit_width);
                bad |= v > max_value;
                out[i + j] = v;
            }
            if (bad)
                return cs_error_set(err, CS_EPROTO, "bit-packed value above the maximum %u",
                                    max_value);
            i += k;
            d->packed_left -= k;
            d->packed_pos += k;
        } else if (next_run(d, err)) {
            return err ? err->code : CS_EPROTO;
        }
    }
    return CS_OK;
}

int cs_parquet_rle_skip(cs_parquet_rle_decoder *d, uint32_t n, cs_error *err)
{
    while (n > 0) {
        if (d->rle_left) {
            uint32_t k = d->rle_left < n ? d->rle_left : n;
            d->rle_left -= k;
            n -= k;
        } else if (d->packed_left) {
            uint32_t k = d->packed_left < n ? d->packed_left : n;
            d->packed_left -= k;
            d->packed_pos += k;
            n -= k;
        } else if (next_run(d, err)) {
            return err ? err->code : CS_EPROTO;
        }
    }
    return CS_OK;
}

int cs_parquet_rle_decode_levels(cs_parquet_rle_decoder *d, int16_t *out, uint32_t n,
                                 int16_t max_level, cs_error *err)
{
    uint32_t chunk[512];
    for (uint32_t i = 0; i < n;) {
        uint32_t k = n - i < 512 ? n - i : 512;
        int rc = cs_parquet_rle_decode_u32(d, chunk, k, (uint32_t)max_level, err);
        if (rc) return rc;
        for (uint32_t j = 0; j < k; j++)
            out[i + j] = (int16_t)chunk[j];
        i += k;
    }
    return CS_OK;
}

/* ---- encoder --------------------------------------------------------------------------------- */

static void put_rle_run(uint32_t value, uint32_t count, int bit_width, cs_sbuf *out)
{
    cs_pq_put_varint(out, (uint64_t)count << 1);
    for (int i = 0; i < (bit_width + 7) / 8; i++)
        cs_sbuf_putc(out, (char)(value >> (8 * i)));
}

/* A bit-packed run of v[0..n) (n padded with zeros to a multiple of 8). */
static void put_packed_run(const uint32_t *v, uint32_t n, int bit_width, cs_sbuf *out)
{
    uint32_t groups = (n + 7) / 8;
    uint64_t tmp[512];
    cs_pq_put_varint(out, (uint64_t)groups << 1 | 1);
    for (uint32_t i = 0; i < groups * 8; i += 512) {
        uint32_t k = groups * 8 - i < 512 ? groups * 8 - i : 512;
        for (uint32_t j = 0; j < k; j++)
            tmp[j] = i + j < n ? v[i + j] : 0;
        cs_pq_bits_pack(tmp, k, bit_width, out);
    }
}

void cs_parquet_rle_encode_u32(const uint32_t *v, uint32_t n, int bit_width, cs_sbuf *out)
{
    uint32_t i = 0, packed_start = 0;
    while (i < n) {
        uint32_t j = i + 1;
        while (j < n && v[j] == v[i])
            j++;
        /* a repeated run only from a group boundary of the pending bit-packed values */
        if (j - i >= 8 && (i - packed_start) % 8 == 0) {
            if (i > packed_start)
                put_packed_run(v + packed_start, i - packed_start, bit_width, out);
            put_rle_run(v[i], j - i, bit_width, out);
            packed_start = i = j;
        } else {
            i++;
        }
    }
    if (n > packed_start) put_packed_run(v + packed_start, n - packed_start, bit_width, out);
}

void cs_parquet_rle_encode_levels(const int16_t *v, uint32_t n, int bit_width, cs_sbuf *out)
{
    uint32_t *tmp = cs_xmalloc((size_t)n * sizeof *tmp + 4);
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = (uint32_t)v[i];
    cs_parquet_rle_encode_u32(tmp, n, bit_width, out);
    free(tmp);
}
