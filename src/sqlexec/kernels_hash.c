/*
 * kernels_hash.c — hash(...) and xxhash64(...) exactly as Spark computes them (seed 42, folded
 * over the arguments left to right, a null argument leaving the running hash unchanged):
 *   hash       Spark's Murmur3_x86_32 (hashInt / hashLong / hashUnsafeBytes, whose tail bytes
 *              are mixed one signed byte at a time — Spark's own variant, not the reference);
 *   xxhash64   XXH64 (libxxhash) over the value's 4 or 8 little-endian bytes or its bytes.
 * Per type (Spark's HashExpression): boolean, tinyint, smallint, int, date and year-month
 * intervals hash as an int; bigint, timestamps and day-time intervals as a long; float as its
 * int bits and double as its long bits (-0.0 as 0.0, NaN canonical); string/binary as bytes;
 * decimal with precision <= 18 as its unscaled long, else as the bytes of Java's
 * BigInteger.toByteArray (big-endian, minimal two's complement); arrays element by element
 * and structs field by field into the same running hash (maps are refused by the analyzer, as
 * Spark's HASH_MAP_TYPE). One loop per argument column updates every row's running hash. Called
 * through cs_px_hash_lookup.
 */
#include <math.h>
#include <string.h>
#include <xxhash.h>

#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h"

static inline uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}
static inline uint32_t mix_k1(uint32_t k1)
{
    k1 *= 0xcc9e2d51u;
    k1 = rotl32(k1, 15);
    return k1 * 0x1b873593u;
}
static inline uint32_t mix_h1(uint32_t h1, uint32_t k1)
{
    h1 ^= k1;
    h1 = rotl32(h1, 13);
    return h1 * 5 + 0xe6546b64u;
}
static inline uint32_t fmix(uint32_t h1, uint32_t len)
{
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
}
static inline uint32_t m3_int(uint32_t v, uint32_t seed)
{
    return fmix(mix_h1(seed, mix_k1(v)), 4);
}
static inline uint32_t m3_long(uint64_t v, uint32_t seed)
{
    uint32_t h1 = mix_h1(seed, mix_k1((uint32_t)v));
    h1 = mix_h1(h1, mix_k1((uint32_t)(v >> 32)));
    return fmix(h1, 8);
}
static uint32_t m3_bytes(const uint8_t *p, int32_t len, uint32_t seed)
{
    int32_t aligned = len - len % 4;
    uint32_t h1 = seed;
    for (int32_t i = 0; i < aligned; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        h1 = mix_h1(h1, mix_k1(w));
    }
    for (int32_t i = aligned; i < len; i++)
        h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(int8_t)p[i]));
    return fmix(h1, (uint32_t)len);
}

static inline uint32_t float_bits(float f)
{
    if (f == 0.0f) f = 0.0f; /* -0.0 as 0.0 */
    if (isnan(f)) return 0x7fc00000u;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
static inline uint64_t double_bits(double d)
{
    if (d == 0.0) d = 0.0;
    if (isnan(d)) return 0x7ff8000000000000ull;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* Java's BigInteger.toByteArray of v: big-endian, the fewest bytes holding the sign bit */
static int big_bytes(__int128 v, uint8_t out[17])
{
    uint8_t le[16];
    memcpy(le, &v, 16);
    int n = 16;
    uint8_t fill = v < 0 ? 0xff : 0x00;
    while (n > 1 && le[n - 1] == fill && ((le[n - 2] & 0x80) == (fill & 0x80)))
        n--;
    for (int i = 0; i < n; i++)
        out[i] = le[n - 1 - i];
    return n;
}

typedef enum { H_INT, H_LONG, H_FLOAT, H_DOUBLE, H_BYTES, H_DEC_SMALL, H_DEC_BIG, H_BOOL } hkind;

static int hkind_of(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        return H_BOOL;
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        return H_INT;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        return H_LONG;
    case CS_TYPE_FLOAT:
        return H_FLOAT;
    case CS_TYPE_DOUBLE:
        return H_DOUBLE;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        return H_BYTES;
    case CS_TYPE_DECIMAL:
        return t->precision <= 18 ? H_DEC_SMALL : H_DEC_BIG;
    case CS_TYPE_NULL:
        return H_INT; /* always null: never hashed */
    default:
        return -1;
    }
}

/* the int value of row i of an integral column widened as Java widens it */
static inline int32_t int_at(const cs_column *c, int64_t i)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)c->values)[i];
    case CS_TYPE_SHORT:
        return ((const int16_t *)(const void *)c->values)[i];
    default:
        return ((const int32_t *)(const void *)c->values)[i];
    }
}

/* One argument column folded into the running hashes h (32-bit Murmur3 or 64-bit XXH64). */
#define FOLD(H, T, INTF, LONGF, BYTESF)                                                            \
    static void fold_##H(const cs_column *c, int64_t row0, int64_t n, T *h)                        \
    {                                                                                              \
        int64_t s = c->length >= row0 + n ? 1 : 0; /* 0: a literal's one row */                    \
        int kind = hkind_of(c->type);                                                              \
        if (c->type->id == CS_TYPE_NULL) return;                                                   \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t r = (row0 + i) * s;                                                            \
            if (!cs_column_is_valid(c, r)) continue;                                               \
            switch (kind) {                                                                        \
            case H_BOOL:                                                                           \
                h[i] = INTF(cs_bit_get(c->values, r) ? 1u : 0u, h[i]);                             \
                break;                                                                             \
            case H_INT:                                                                            \
                h[i] = INTF((uint32_t)int_at(c, r), h[i]);                                         \
                break;                                                                             \
            case H_LONG:                                                                           \
                h[i] = LONGF((uint64_t)((const int64_t *)(const void *)c->values)[r], h[i]);       \
                break;                                                                             \
            case H_FLOAT:                                                                          \
                h[i] = INTF(float_bits(((const float *)(const void *)c->values)[r]), h[i]);        \
                break;                                                                             \
            case H_DOUBLE:                                                                         \
                h[i] = LONGF(double_bits(((const double *)(const void *)c->values)[r]), h[i]);     \
                break;                                                                             \
            case H_DEC_SMALL:                                                                      \
                h[i] = LONGF((uint64_t)(int64_t)cs_px_dec_get(c, r), h[i]);                        \
                break;                                                                             \
            case H_DEC_BIG: {                                                                      \
                uint8_t b[17];                                                                     \
                int len = big_bytes(cs_px_dec_get(c, r), b);                                       \
                h[i] = BYTESF(b, len, h[i]);                                                       \
                break;                                                                             \
            }                                                                                      \
            default: {                                                                             \
                int32_t len;                                                                       \
                const uint8_t *p = cs_column_bytes(c, r, &len);                                    \
                h[i] = BYTESF(p, len, h[i]);                                                       \
            }                                                                                      \
            }                                                                                      \
        }                                                                                          \
    }

static inline uint64_t xx_int(uint32_t v, uint64_t seed)
{
    return XXH64(&v, 4, seed);
}
static inline uint64_t xx_long(uint64_t v, uint64_t seed)
{
    return XXH64(&v, 8, seed);
}
static inline uint64_t xx_bytes(const uint8_t *p, int32_t len, uint64_t seed)
{
    return XXH64(p, (size_t)len, seed);
}

FOLD(m3, uint32_t, m3_int, m3_long, m3_bytes)
FOLD(xx, uint64_t, xx_int, xx_long, xx_bytes)

/* Arrays fold their elements and structs their fields, in order, into the row's running hash
 * (a null element or field leaves it unchanged), as Spark's HashExpression; other types as
 * fold_H. */
#define FOLD_NESTED(H, T)                                                                          \
    static void fold_nested_##H(const cs_column *c, int64_t row0, int64_t n, T *h)                 \
    {                                                                                              \
        int64_t s = c->length >= row0 + n ? 1 : 0;                                                 \
        if (c->type->id != CS_TYPE_ARRAY && c->type->id != CS_TYPE_STRUCT) {                       \
            fold_##H(c, row0, n, h);                                                               \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t r = (row0 + i) * s;                                                            \
            if (!cs_column_is_valid(c, r)) continue;                                               \
            if (c->type->id == CS_TYPE_STRUCT) {                                                   \
                for (int f = 0; f < c->n_children; f++)                                            \
                    fold_nested_##H(c->children[f], r, 1, &h[i]);                                  \
                continue;                                                                          \
            }                                                                                      \
            const int32_t *off = cs_column_offsets(c);                                             \
            for (int32_t e = off[r]; e < off[r + 1]; e++)                                          \
                fold_nested_##H(c->children[0], e, 1, &h[i]);                                      \
        }                                                                                          \
    }

FOLD_NESTED(m3, uint32_t)
FOLD_NESTED(xx, uint64_t)

static bool hashable(const cs_col_type *t)
{
    if (t->id != CS_TYPE_ARRAY && t->id != CS_TYPE_STRUCT) return hkind_of(t) >= 0;
    for (int i = 0; i < t->n_fields; i++)
        if (!hashable(t->fields[i].type)) return false;
    return true;
}

void cs_sql_xxhash64_fold(const cs_column *c, int64_t row0, int64_t n, uint64_t *h)
{
    fold_xx(c, row0, n, h);
}

static int hash_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    uint32_t *h = (uint32_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++)
        h[i] = 42;
    for (int j = 0; j < na; j++)
        fold_nested_m3(a[j], 0, n, h);
    *out = r;
    return CS_OK;
}

static int xxhash64_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    uint64_t *h = (uint64_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++)
        h[i] = 42;
    for (int j = 0; j < na; j++)
        fold_nested_xx(a[j], 0, n, h);
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_hash_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    (void)result;
    bool m3 = strcmp(fn, "hash") == 0, xx = strcmp(fn, "xxhash64") == 0;
    if (!m3 && !xx) return NULL;
    for (int i = 0; i < n; i++)
        if (!hashable(t[i])) return NULL;
    return m3 ? hash_kernel : xxhash64_kernel;
}
