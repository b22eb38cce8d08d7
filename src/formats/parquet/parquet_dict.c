/* parquet_dict.c — dictionary encoding (see parquet_encoding.h): materializing a page's values
 * from a dictionary and its indices (reader), and building a dictionary with the indices of the
 * values added (writer: the dictionary page is the dictionary PLAIN-encoded, a data page holds
 * the bit width byte and the RLE/bit-packed indices). The builder's table is open addressing
 * over xxh3 hashes of the values' bytes, sized at twice the entries; values are compared by bytes
 * (so -0.0 and 0.0, or two NaNs with different bits, are different entries, as in parquet-mr).
 */
#include "formats/parquet/parquet_encoding.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "formats/parquet/parquet_meta.h"

int cs_parquet_dict_gather(const cs_parquet_values *dict, const uint32_t *indices, uint32_t n,
                           cs_parquet_values *out, cs_error *err)
{
    if (dict->type == CS_PQ_BYTE_ARRAY) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k = indices[i];
            int rc = cs_parquet_values_append_bytes(
                out, dict->data + dict->offsets[k],
                (size_t)(dict->offsets[k + 1] - dict->offsets[k]), err);
            if (rc) return rc;
        }
        return CS_OK;
    }
    size_t w = cs_parquet_value_width(dict->type, dict->type_length);
    if ((uint64_t)(out->count + (uint64_t)n) * w > INT32_MAX) /* as byte arrays, at most 2 GiB */
        return cs_error_set(err, CS_EPROTO,
                            "%u dictionary values of %zu bytes exceed 2 GiB once materialized", n,
                            w);
    uint8_t *dst = cs_parquet_values_reserve_fixed(out, n);
    switch (w) {
    case 4:
        for (uint32_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * 4, dict->fixed + (size_t)indices[i] * 4, 4);
        break;
    case 8:
        for (uint32_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * 8, dict->fixed + (size_t)indices[i] * 8, 8);
        break;
    default:
        for (uint32_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * w, dict->fixed + (size_t)indices[i] * w, w);
    }
    out->count += n;
    return CS_OK;
}

void cs_parquet_dict_builder_init(cs_parquet_dict_builder *b, int type, int32_t type_length)
{
    memset(b, 0, sizeof *b);
    cs_parquet_values_reset(&b->dict, type, type_length);
    b->nslots = 1024;
    b->slots = cs_xcalloc(b->nslots, sizeof *b->slots);
}

void cs_parquet_dict_builder_free(cs_parquet_dict_builder *b)
{
    cs_parquet_values_free(&b->dict);
    free(b->slots);
    memset(b, 0, sizeof *b);
}

static const uint8_t *value_at(const cs_parquet_values *v, uint32_t i, size_t *len)
{
    if (v->type == CS_PQ_BYTE_ARRAY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return v->data + v->offsets[i];
    }
    *len = cs_parquet_value_width(v->type, v->type_length);
    return v->fixed + (size_t)i * *len;
}

static void rehash(cs_parquet_dict_builder *b)
{
    size_t n = b->nslots * 2;
    uint32_t *slots = cs_xcalloc(n, sizeof *slots);
    for (uint32_t i = 0; i < b->dict.count; i++) {
        size_t len;
        const uint8_t *p = value_at(&b->dict, i, &len);
        size_t s = (size_t)XXH3_64bits(p, len) & (n - 1);
        while (slots[s])
            s = (s + 1) & (n - 1);
        slots[s] = i + 1;
    }
    free(b->slots);
    b->slots = slots;
    b->nslots = n;
}

void cs_parquet_dict_builder_add(cs_parquet_dict_builder *b, const cs_parquet_values *v,
                                 uint32_t first, uint32_t n, uint32_t *indices)
{
    for (uint32_t i = 0; i < n; i++) {
        size_t len, dlen;
        const uint8_t *p = value_at(v, first + i, &len);
        size_t s = (size_t)XXH3_64bits(p, len) & (b->nslots - 1);
        for (;;) {
            uint32_t e = b->slots[s];
            if (!e) break;
            const uint8_t *q = value_at(&b->dict, e - 1, &dlen);
            if (dlen == len && memcmp(p, q, len) == 0) break;
            s = (s + 1) & (b->nslots - 1);
        }
        if (!b->slots[s]) {
            if (b->dict.type == CS_PQ_BYTE_ARRAY)
                cs_parquet_values_append_bytes(&b->dict, p, len, NULL);
            else {
                memcpy(cs_parquet_values_reserve_fixed(&b->dict, 1), p, len);
                b->dict.count++;
            }
            b->slots[s] = b->dict.count;
            indices[i] = b->dict.count - 1;
            if ((size_t)b->dict.count * 2 > b->nslots) rehash(b);
        } else {
            indices[i] = b->slots[s] - 1;
        }
    }
}

size_t cs_parquet_dict_builder_bytes(const cs_parquet_dict_builder *b)
{
    if (b->dict.type == CS_PQ_BYTE_ARRAY) return b->dict.data_len + 4 * (size_t)b->dict.count;
    if (b->dict.type == CS_PQ_BOOLEAN) return ((size_t)b->dict.count + 7) / 8;
    return (size_t)b->dict.count * cs_parquet_value_width(b->dict.type, b->dict.type_length);
}

void cs_parquet_dict_indices_encode(const uint32_t *indices, uint32_t n, uint32_t dict_size,
                                    cs_sbuf *out)
{
    int bw = cs_parquet_bit_width(dict_size > 0 ? dict_size - 1 : 0);
    cs_sbuf_putc(out, (char)bw);
    cs_parquet_rle_encode_u32(indices, n, bw, out);
}
