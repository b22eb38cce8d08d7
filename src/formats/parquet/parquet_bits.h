/* parquet_bits.h — private to src/formats/parquet: the bounded bit and varint readers shared by
 * the RLE/bit-packed (parquet_rle.c) and delta (parquet_delta.c) decoders, and the bit packer of
 * their encoders. Values are packed least-significant bit first, as Parquet packs them.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_BITS_H
#define CSPARK_FORMATS_PARQUET_PARQUET_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/strutil.h"

/* The bw-bit value (bw 0..64) at bit `bitpos` of p[0..nbytes); bits past nbytes read as 0. */
static inline uint64_t cs_pq_bits_get(const uint8_t *p, size_t nbytes, uint64_t bitpos, int bw)
{
    if (bw == 0) return 0;
    size_t byte = (size_t)(bitpos >> 3);
    unsigned shift = (unsigned)(bitpos & 7);
    uint8_t tmp[16] = {0};
    size_t avail = byte < nbytes ? nbytes - byte : 0;
    size_t take = avail < 9 ? avail : 9;
    const uint8_t *src = p + byte;
    if (take < 9) {
        memcpy(tmp, src, take);
        src = tmp;
    }
    uint64_t lo;
    memcpy(&lo, src, 8);
    uint64_t v = lo >> shift;
    if (shift + (unsigned)bw > 64) v |= (uint64_t)src[8] << (64 - shift);
    return bw == 64 ? v : v & ((UINT64_C(1) << bw) - 1);
}

/* ULEB128; returns 0 (and *ok = 0) when truncated or longer than 64 bits. */
static inline uint64_t cs_pq_varint(const uint8_t **pp, const uint8_t *end, int *ok)
{
    uint64_t v = 0;
    const uint8_t *p = *pp;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end) break;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *ok = 1;
            return v;
        }
    }
    *ok = 0;
    return 0;
}

static inline void cs_pq_put_varint(cs_sbuf *out, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) b[n] |= 0x80;
        n++;
    } while (v);
    cs_sbuf_append(out, b, n);
}

/* Packs n values of bw bits (n a multiple of 8) onto out. */
static inline void cs_pq_bits_pack(const uint64_t *v, uint32_t n, int bw, cs_sbuf *out)
{
    uint64_t acc = 0;
    int nbits = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x = bw == 64 ? v[i] : v[i] & ((UINT64_C(1) << bw) - 1);
        int left = bw;
        while (left > 0) {
            int room = 64 - nbits;
            int now = left < room ? left : room;
            uint64_t part = now == 64 ? x : x & ((UINT64_C(1) << now) - 1);
            acc |= part << nbits;
            nbits += now;
            x = now == 64 ? 0 : x >> now;
            left -= now;
            while (nbits >= 8) {
                cs_sbuf_putc(out, (char)(acc & 0xff));
                acc >>= 8;
                nbits -= 8;
            }
        }
    }
    if (nbits > 0) cs_sbuf_putc(out, (char)(acc & 0xff));
}

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_BITS_H */
