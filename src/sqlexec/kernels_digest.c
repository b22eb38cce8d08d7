/*
 * kernels_digest.c — Spark's message digests of strings and binaries: md5, sha1 (sha), sha2
 * (224, 256 or 0 = 256, 384, 512 bits; any other length gives null, as Spark) as lowercase hex
 * strings, and crc32 as a bigint. The digests are OpenSSL libcrypto's EVP API, one digest
 * context reused for the whole batch; crc32 is zlib's. Null in, null out. Called through
 * cs_px_digest_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <openssl/evp.h>
#include <string.h>
#include <zlib.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static const EVP_MD *digest_of(const char *fn, int32_t bits)
{
    if (strcmp(fn, "md5") == 0) return EVP_md5();
    if (strcmp(fn, "sha1") == 0) return EVP_sha1();
    switch (bits) {
    case 224:
        return EVP_sha224();
    case 0:
    case 256:
        return EVP_sha256();
    case 384:
        return EVP_sha384();
    case 512:
        return EVP_sha512();
    default:
        return NULL;
    }
}

static int digest_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = na > 1 ? cs_px_stride(a[1], n) : 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) return cs_error_set(k->err, CS_ENOMEM, "EVP_MD_CTX_new failed");
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    static const char hex[] = "0123456789abcdef";
    int rc = CS_OK;
    for (int64_t i = 0; i < n; i++) {
        const EVP_MD *md = NULL;
        if (cs_column_is_valid(a[0], i * s0) && (na < 2 || cs_column_is_valid(a[1], i * s1)))
            md = digest_of(k->e->fn,
                           na > 1 ? ((const int32_t *)(const void *)a[1]->values)[i * s1] : 0);
        if (!md) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t len;
        const uint8_t *p = cs_column_bytes(a[0], i * s0, &len);
        unsigned char dg[EVP_MAX_MD_SIZE];
        unsigned int dl = 0;
        if (EVP_DigestInit_ex(ctx, md, NULL) != 1 || EVP_DigestUpdate(ctx, p, (size_t)len) != 1 ||
            EVP_DigestFinal_ex(ctx, dg, &dl) != 1) {
            rc = cs_error_set(k->err, CS_EIO, "%s: the digest failed", k->e->fn);
            break;
        }
        char text[2 * EVP_MAX_MD_SIZE];
        for (unsigned int j = 0; j < dl; j++) {
            text[2 * j] = hex[dg[j] >> 4];
            text[2 * j + 1] = hex[dg[j] & 15];
        }
        cs_col_builder_append_string(b, text, 2 * (size_t)dl);
    }
    EVP_MD_CTX_free(ctx);
    cs_column *r = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

static int crc32_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    int64_t *v = (int64_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s0)) continue;
        int32_t len;
        const uint8_t *p = cs_column_bytes(a[0], i * s0, &len);
        v[i] = (int64_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)len);
    }
    *out = r;
    return CS_OK;
}

static bool bytes_type(const cs_col_type *t)
{
    return t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY;
}

cs_px_kernel cs_px_digest_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    (void)result;
    if (n < 1 || !bytes_type(t[0])) return NULL;
    if ((strcmp(fn, "md5") == 0 || strcmp(fn, "sha1") == 0) && n == 1) return digest_kernel;
    if (strcmp(fn, "sha2") == 0 && n == 2 && t[1]->id == CS_TYPE_INT) return digest_kernel;
    if (strcmp(fn, "crc32") == 0 && n == 1) return crc32_kernel;
    return NULL;
}
