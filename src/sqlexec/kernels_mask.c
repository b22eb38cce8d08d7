/*
 * kernels_mask.c — mask(str, upperChar, lowerChar, digitChar, otherChar), as Spark's Mask: every
 * upper-case letter of str becomes upperChar, every lower-case letter lowerChar, every digit
 * digitChar and every other character otherChar; a replacement that is NULL leaves those
 * characters as they are (the analyzer gives Spark's defaults 'X', 'x', 'n', NULL). Letters and
 * digits are ASCII's; characters beyond ASCII are "other" (copied whole, as UTF-8 sequences,
 * when otherChar is NULL). A NULL str gives NULL. One builder per batch. Called through
 * cs_px_mask_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

/* The replacement of argument j at row i: its first character (bytes, length), or none. */
static bool replacement(cs_column *const *a, int j, int64_t i, int64_t n, const uint8_t **p,
                        int32_t *len)
{
    int64_t r = i * cs_px_stride(a[j], n);
    if (a[j]->type->id == CS_TYPE_NULL || !cs_column_is_valid(a[j], r)) return false;
    *p = cs_column_bytes(a[j], r, len);
    int32_t first = *len > 0 ? 1 : 0;
    while (first < *len && ((*p)[first] & 0xC0) == 0x80)
        first++;
    *len = first;
    return true;
}

static int mask_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, ss = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * ss)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        const uint8_t *rp[4];
        int32_t rl[4];
        bool has[4];
        for (int j = 0; j < 4; j++)
            has[j] = replacement(a, j + 1, i, n, &rp[j], &rl[j]);
        int32_t len;
        const uint8_t *s = cs_column_bytes(a[0], i * ss, &len);
        sb.len = 0;
        for (int32_t at = 0; at < len;) {
            int32_t cl = 1;
            while (at + cl < len && (s[at + cl] & 0xC0) == 0x80)
                cl++;
            uint8_t c = s[at];
            int kind = c >= 'A' && c <= 'Z'   ? 0
                       : c >= 'a' && c <= 'z' ? 1
                       : c >= '0' && c <= '9' ? 2
                                              : 3;
            if (has[kind])
                cs_sbuf_append(&sb, rp[kind], (size_t)rl[kind]);
            else
                cs_sbuf_append(&sb, s + at, (size_t)cl);
            at += cl;
        }
        cs_col_builder_append_string(b, sb.len ? sb.data : "", sb.len);
    }
    cs_sbuf_free(&sb);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

cs_px_kernel cs_px_mask_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    if (strcmp(fn, "mask") != 0 || n != 5 || result->id != CS_TYPE_STRING) return NULL;
    for (int i = 0; i < n; i++)
        if (t[i]->id != CS_TYPE_STRING && t[i]->id != CS_TYPE_NULL) return NULL;
    return mask_kernel;
}
