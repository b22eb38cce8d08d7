/*
 * kernels_string.c — string kernels over Spark's UTF8String semantics (bytes compared, lengths
 * and positions counted in code points): like (with an escape character, '\' by default; '_' is
 * one code point) and like_any / like_all over several patterns, substring (Spark's substringSQL:
 * 1-based, 0 as 1, negative from the end), concat (null if any argument is), concat_ws (skips
 * nulls), upper, lower (Unicode, through the C.UTF-8 locale's case tables), length,
 * trim/ltrim/rtrim (spaces), replace, instr, lpad/rpad, startswith, endswith, contains. substring
 * and concat write their offsets and bytes in place after a pass that sizes the bytes (they run
 * once per row of a join's pairs or a scan); the others build with a column builder. A literal
 * LIKE pattern of plain segments between '%'s is matched by its segments (like_plan), others by
 * like_match's walk; LIKE of a dictionary-encoded column matches each entry once (kernels_dict.c).
 * The regular-expression functions are in kernels_regexp.c. Called through cs_px_string_lookup.
 */
#define _GNU_SOURCE /* memmem */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static inline bool is_cont(uint8_t b)
{
    return (b & 0xC0) == 0x80;
}

static int32_t num_chars(const uint8_t *p, int32_t len)
{
    int32_t n = 0;
    for (int32_t i = 0; i < len; i++)
        n += !is_cont(p[i]);
    return n;
}

/* byte offset of code point `ch` (clamped to len) */
static int32_t char_offset(const uint8_t *p, int32_t len, int64_t ch)
{
    int32_t i = 0;
    for (int64_t c = 0; c < ch && i < len; c++) {
        i++;
        while (i < len && is_cont(p[i]))
            i++;
    }
    return i;
}

/* ---- like ---- */

/* whether s matches pattern pat (with escape esc): % any run, _ one code point */
static bool like_match(const uint8_t *s, int32_t sl, const uint8_t *pat, int32_t pl, uint8_t esc)
{
    int32_t si = 0, pi = 0, star_p = -1, star_s = 0;
    while (si < sl) {
        if (pi < pl && pat[pi] == esc && pi + 1 < pl) {
            if (pat[pi + 1] == s[si]) {
                si++;
                pi += 2;
                continue;
            }
        } else if (pi < pl && pat[pi] == '_') {
            si++;
            while (si < sl && is_cont(s[si]))
                si++;
            pi++;
            continue;
        } else if (pi < pl && pat[pi] == '%') {
            star_p = pi++;
            star_s = si;
            continue;
        } else if (pi < pl && pat[pi] == s[si]) {
            si++;
            pi++;
            continue;
        }
        if (star_p < 0) return false;
        pi = star_p + 1;
        si = ++star_s;
        while (si < sl && is_cont(s[si]))
            si = ++star_s;
    }
    while (pi < pl && pat[pi] == '%')
        pi++;
    return pi == pl;
}

/* The leftmost place of nd[0..nl) in h[0..hl), or NULL: eight places at a time, those whose first
 * and last bytes both agree found with word arithmetic (an exact zero-byte test of the XOR with
 * the byte repeated), then the middle compared; short haystacks (LIKE's comments, names) leave
 * memmem's setup costlier than the search. */
static inline uint64_t zero_bytes(uint64_t x)
{
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
    return ~(((x & lo7) + lo7) | x | lo7); /* the high bit of each zero byte, no carries */
}

static const uint8_t *find_seg(const uint8_t *h, size_t hl, const uint8_t *nd, size_t nl)
{
    if (nl > hl) return NULL;
    if (nl == 0) return h;
    if (nl == 1) return memchr(h, nd[0], hl);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, f = ones * nd[0], l = ones * nd[nl - 1];
    size_t i = 0;
    for (; i + 8 + nl - 1 <= hl; i += 8) {
        uint64_t a, b;
        memcpy(&a, h + i, 8);
        memcpy(&b, h + i + nl - 1, 8);
        for (uint64_t m = zero_bytes(a ^ f) & zero_bytes(b ^ l); m; m &= m - 1) {
            size_t at = i + (size_t)(__builtin_ctzll(m) >> 3);
            if (memcmp(h + at + 1, nd + 1, nl - 2) == 0) return h + at;
        }
    }
    for (; i + nl <= hl; i++)
        if (h[i] == nd[0] && h[i + nl - 1] == nd[nl - 1] && memcmp(h + i + 1, nd + 1, nl - 2) == 0)
            return h + i;
    return NULL;
#else
    return memmem(h, hl, nd, nl);
#endif
}

/* A literal pattern of plain segments between '%'s: no '_', no escape character, and no segment
 * after a '%' starting with a UTF-8 continuation byte (like_match tries a '%''s run only up to code
 * point starts). Then s matches when it starts with the first segment, ends with the last, and
 * holds the middle ones in order between them, each at its leftmost place (memcmp and find_seg,
 * not a byte-at-a-time walk with backtracking): `%special%requests%`, `forest%`, `%green%`. */
#define LIKE_SEGS 8
typedef struct {
    int n; /* segments: n - 1 '%'s; n == 1: no '%', s equals the pattern */
    const uint8_t *seg[LIKE_SEGS];
    int32_t len[LIKE_SEGS];
    int32_t ends; /* len[0] + len[n - 1] when n > 1 */
} like_plan;

static bool like_plan_make(const uint8_t *p, int32_t pl, uint8_t esc, like_plan *lp)
{
    lp->n = 0;
    int32_t start = 0;
    for (int32_t i = 0; i <= pl; i++) {
        if (i < pl && (p[i] == '_' || p[i] == esc)) return false;
        if (i < pl && p[i] != '%') continue;
        if (lp->n == LIKE_SEGS) return false;
        if (lp->n > 0 && start < i && is_cont(p[start])) return false;
        lp->seg[lp->n] = p + start;
        lp->len[lp->n++] = i - start;
        start = i + 1;
    }
    lp->ends = lp->n > 1 ? lp->len[0] + lp->len[lp->n - 1] : lp->len[0];
    return true;
}

static bool like_plan_match(const like_plan *lp, const uint8_t *s, int32_t sl)
{
    if (lp->n == 1) return sl == lp->len[0] && memcmp(s, lp->seg[0], (size_t)sl) == 0;
    if (sl < lp->ends) return false;
    int32_t last = lp->len[lp->n - 1], end = sl - last;
    if (memcmp(s, lp->seg[0], (size_t)lp->len[0]) != 0 ||
        memcmp(s + end, lp->seg[lp->n - 1], (size_t)last) != 0)
        return false;
    const uint8_t *at = s + lp->len[0];
    for (int j = 1; j < lp->n - 1; j++) {
        int32_t l = lp->len[j];
        if (l == 0) continue;
        const uint8_t *f = find_seg(at, (size_t)(s + end - at), lp->seg[j], (size_t)l);
        if (!f) return false;
        at = f + l;
    }
    return true;
}

static int like_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sp = cs_px_stride(a[1], n);
    uint8_t esc = '\\';
    if (na > 2) {
        int32_t el;
        const uint8_t *e = cs_column_bytes(a[2], 0, &el);
        if (el > 0) esc = e[0];
    }
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    like_plan lp;
    int32_t pl0 = 0;
    const uint8_t *p0 =
        sp == 0 && cs_column_is_valid(a[1], 0) ? cs_column_bytes(a[1], 0, &pl0) : NULL;
    bool planned = p0 && like_plan_make(p0, pl0, esc, &lp);
    if (p0 && cs_px_dict_pays(a[0], n)) {
        /* each dictionary entry matched once (kernels_dict.c) */
        const cs_column *dict = a[0]->dictionary;
        uint8_t *entry = cs_xmalloc((size_t)(dict->length > 0 ? dict->length : 1));
        for (int64_t e = 0; e < dict->length; e++) {
            int32_t sl;
            const uint8_t *s = cs_column_bytes(dict, e, &sl);
            entry[e] = planned ? like_plan_match(&lp, s, sl) : like_match(s, sl, p0, pl0, esc);
        }
        cs_px_dict_spread(r, a[0], entry, n);
        free(entry);
        *out = r;
        return CS_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        int32_t sl, pl;
        const uint8_t *s = cs_column_bytes(a[0], i * sa, &sl);
        if (planned) {
            cs_bit_set(r->values, i, like_plan_match(&lp, s, sl));
            continue;
        }
        const uint8_t *p = cs_column_bytes(a[1], i * sp, &pl);
        cs_bit_set(r->values, i, like_match(s, sl, p, pl, esc));
    }
    *out = r;
    return CS_OK;
}

/* like_any(s, p1, p2, ...) / like_all(...): Spark's LikeAny / LikeAll: true when one / every
 * pattern matches; else, when a pattern is null, null; else false (null s: null) */
static int like_multi_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    bool all = strcmp(k->e->fn, "like_all") == 0;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_ensure_validity(r);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sa)) {
            cs_px_set_null(r, i);
            continue;
        }
        int32_t sl;
        const uint8_t *s = cs_column_bytes(a[0], i * sa, &sl);
        bool decided = false, any_null = false;
        for (int j = 1; j < na && !decided; j++) {
            int64_t sp = i * cs_px_stride(a[j], n);
            if (!cs_column_is_valid(a[j], sp)) {
                any_null = true;
                continue;
            }
            int32_t pl;
            const uint8_t *p = cs_column_bytes(a[j], sp, &pl);
            decided = like_match(s, sl, p, pl, '\\') != all;
        }
        if (decided)
            cs_bit_set(r->values, i, !all);
        else if (any_null)
            cs_px_set_null(r, i);
        else
            cs_bit_set(r->values, i, all);
    }
    *out = r;
    return CS_OK;
}

/* ---- predicates on bytes ---- */

static bool find_bytes(const uint8_t *h, int32_t hl, const uint8_t *nd, int32_t nl, int32_t *at)
{
    if (nl == 0) {
        *at = 0;
        return true;
    }
    const uint8_t *f = find_seg(h, (size_t)hl, nd, (size_t)nl);
    if (f) *at = (int32_t)(f - h);
    return f != NULL;
}

typedef enum { P_STARTS, P_ENDS, P_CONTAINS } pred;

static int pred_kernel(const cs_px_kctx *k, cs_column *const *a, cs_column **out, pred p)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        /* a null row of a dictionary-encoded column may hold any index: not read */
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        int32_t hl, nl, at;
        const uint8_t *h = cs_column_bytes(a[0], i * sa, &hl),
                      *nd = cs_column_bytes(a[1], i * sb, &nl);
        bool v = p == P_STARTS ? nl <= hl && memcmp(h, nd, (size_t)nl) == 0
                 : p == P_ENDS ? nl <= hl && memcmp(h + hl - nl, nd, (size_t)nl) == 0
                               : find_bytes(h, hl, nd, nl, &at);
        cs_bit_set(r->values, i, v);
    }
    *out = r;
    return CS_OK;
}
static int startswith_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return pred_kernel(k, a, out, P_STARTS);
}
static int endswith_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return pred_kernel(k, a, out, P_ENDS);
}
static int contains_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return pred_kernel(k, a, out, P_CONTAINS);
}

/* ---- int results ---- */

static int length_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    bool bytes = a[0]->type->id == CS_TYPE_BINARY;
    for (int64_t i = 0; i < n; i++) {
        int32_t l;
        const uint8_t *p = cs_column_bytes(a[0], i * sa, &l);
        ((int32_t *)(void *)r->values)[i] = bytes ? l : num_chars(p, l);
    }
    *out = r;
    return CS_OK;
}

static int instr_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        int32_t hl, nl, at;
        const uint8_t *h = cs_column_bytes(a[0], i * sa, &hl),
                      *nd = cs_column_bytes(a[1], i * sb, &nl);
        ((int32_t *)(void *)r->values)[i] =
            find_bytes(h, hl, nd, nl, &at) ? num_chars(h, at) + 1 : 0;
    }
    *out = r;
    return CS_OK;
}

/* ---- string results ---- */

/* Row i's byte range [*bs, *be) of substring(s, pos, len) (the rules of string_kernel's). */
static void substring_range(const uint8_t *s, int32_t l, int64_t pos, int64_t len, int32_t *bs,
                            int32_t *be)
{
    uint8_t hi = 0; /* all ASCII (no byte >= 0x80): a character is a byte */
    for (int32_t i = 0; i < l; i++)
        hi |= s[i];
    int64_t nc = hi < 0x80 ? l : num_chars(s, l);
    int64_t start = pos > 0 ? pos - 1 : pos < 0 ? nc + pos : 0, end = start + len;
    if (start < 0) start = 0;
    if (end > nc) end = nc;
    if (start >= end) {
        *bs = *be = 0;
        return;
    }
    if (hi < 0x80) {
        *bs = (int32_t)start;
        *be = (int32_t)end;
        return;
    }
    *bs = char_offset(s, l, start);
    /* the last character ends the bytes unless a stray continuation byte leads them */
    *be = end == nc && !is_cont(s[0]) ? l : char_offset(s, l, end);
}

/* row i is null when any of the first `strict` args is */
static bool any_null(cs_column *const *a, int strict, int64_t i, int64_t n)
{
    for (int j = 0; j < strict; j++)
        if (!cs_column_is_valid(a[j], i * cs_px_stride(a[j], n))) return true;
    return false;
}

static int32_t int_at(const cs_column *c, int64_t i, int64_t n)
{
    return ((const int32_t *)(const void *)c->values)[i * cs_px_stride(c, n)];
}

static locale_t utf8_locale(void)
{
    static locale_t loc;
    if (!loc) loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    return loc;
}

/* one UTF-8 code point at p (len left), its length in *n; invalid bytes come back as is */
static uint32_t decode(const uint8_t *p, int32_t len, int *n)
{
    uint8_t b = p[0];
    int need = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    if (need > len) need = 1;
    uint32_t c = need == 1 ? b : need == 2 ? b & 0x1F : need == 3 ? b & 0x0F : b & 0x07;
    for (int i = 1; i < need; i++) {
        if (!is_cont(p[i])) {
            *n = 1;
            return b;
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *n = need;
    return c;
}

static int encode(uint32_t c, uint8_t *o)
{
    if (c < 0x80) return o[0] = (uint8_t)c, 1;
    if (c < 0x800) return o[0] = (uint8_t)(0xC0 | c >> 6), o[1] = (uint8_t)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000) {
        o[0] = (uint8_t)(0xE0 | c >> 12);
        o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | c >> 18);
    o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

typedef enum {
    S_SUBSTRING,
    S_UPPER,
    S_LOWER,
    S_TRIM,
    S_LTRIM,
    S_RTRIM,
    S_REPLACE,
    S_LPAD,
    S_RPAD,
    S_CONCAT,
    S_CONCAT_WS
} sfn;

static int string_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out, sfn f)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    uint8_t *scratch = NULL;
    size_t cap = 0;
    int strict = f == S_CONCAT_WS ? 1 : na;
    for (int64_t i = 0; i < n; i++) {
        if (any_null(a, strict, i, n)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t l;
        const uint8_t *s = cs_column_bytes(a[0], i * cs_px_stride(a[0], n), &l);
        switch (f) {
        case S_SUBSTRING: {
            int32_t bs, be;
            substring_range(s, l, int_at(a[1], i, n), na > 2 ? int_at(a[2], i, n) : INT32_MAX, &bs,
                            &be);
            cs_col_builder_append_string(b, s + bs, (size_t)(be - bs));
            break;
        }
        case S_UPPER:
        case S_LOWER: {
            if ((size_t)l * 2 + 8 > cap) {
                cap = (size_t)l * 2 + 8;
                scratch = realloc(scratch, cap);
            }
            size_t o = 0;
            for (int32_t j = 0; j < l;) {
                int cn;
                uint32_t c = decode(s + j, l - j, &cn);
                if (c == 0xDF && f == S_UPPER) { /* Java's toUpperCase: sharp s is "SS" */
                    if (o + 4 > cap) scratch = realloc(scratch, cap *= 2);
                    scratch[o++] = 'S';
                    scratch[o++] = 'S';
                    j += cn;
                    continue;
                }
                if (c < 0x80)
                    c = f == S_UPPER ? (c >= 'a' && c <= 'z' ? c - 32 : c)
                                     : (c >= 'A' && c <= 'Z' ? c + 32 : c);
                else if (cn > 1)
                    c = (uint32_t)(f == S_UPPER ? towupper_l((wint_t)c, utf8_locale())
                                                : towlower_l((wint_t)c, utf8_locale()));
                if (o + 4 > cap) scratch = realloc(scratch, cap *= 2);
                o += cn > 1 || c < 0x80 ? (size_t)encode(c, scratch + o) : (scratch[o] = s[j], 1);
                j += cn;
            }
            cs_col_builder_append_string(b, scratch, o);
            break;
        }
        case S_TRIM:
        case S_LTRIM:
        case S_RTRIM: {
            int32_t st = 0, en = l;
            if (f != S_RTRIM)
                while (st < en && s[st] == ' ')
                    st++;
            if (f != S_LTRIM)
                while (en > st && s[en - 1] == ' ')
                    en--;
            cs_col_builder_append_string(b, s + st, (size_t)(en - st));
            break;
        }
        case S_REPLACE: {
            int32_t sl2, rl;
            const uint8_t *search = cs_column_bytes(a[1], i * cs_px_stride(a[1], n), &sl2);
            const uint8_t *rep = cs_column_bytes(a[2], i * cs_px_stride(a[2], n), &rl);
            if (sl2 == 0) {
                cs_col_builder_append_string(b, s, (size_t)l);
                break;
            }
            size_t o = 0;
            int32_t j = 0, at;
            while (j <= l) {
                bool hit = find_bytes(s + j, l - j, search, sl2, &at);
                int32_t chunk = hit ? at : l - j;
                size_t need = o + (size_t)chunk + (size_t)rl + 8;
                if (need > cap) scratch = realloc(scratch, cap = need * 2);
                memcpy(scratch + o, s + j, (size_t)chunk);
                o += (size_t)chunk;
                if (!hit) break;
                memcpy(scratch + o, rep, (size_t)rl);
                o += (size_t)rl;
                j += at + sl2;
            }
            cs_col_builder_append_string(b, scratch, o);
            break;
        }
        case S_LPAD:
        case S_RPAD: {
            int64_t want = int_at(a[1], i, n), nc = num_chars(s, l);
            int32_t pl = 0;
            const uint8_t *pad = na > 2 ? cs_column_bytes(a[2], i * cs_px_stride(a[2], n), &pl)
                                        : (const uint8_t *)" ";
            if (na <= 2) pl = 1;
            if (want < 0) want = 0;
            if (want <= nc) {
                cs_col_builder_append_string(b, s, (size_t)char_offset(s, l, want));
                break;
            }
            int64_t pc = num_chars(pad, pl), fill = want - nc;
            if (pc == 0) {
                cs_col_builder_append_string(b, s, (size_t)l);
                break;
            }
            size_t need = (size_t)l + (size_t)(fill / pc + 1) * (size_t)pl + 8;
            if (need > cap) scratch = realloc(scratch, cap = need);
            size_t o = 0;
            if (f == S_RPAD) memcpy(scratch, s, (size_t)l), o = (size_t)l;
            for (int64_t done = 0; done < fill;) {
                int64_t take = fill - done < pc ? fill - done : pc;
                int32_t bytes = char_offset(pad, pl, take);
                memcpy(scratch + o, pad, (size_t)bytes);
                o += (size_t)bytes;
                done += take;
            }
            if (f == S_LPAD) memcpy(scratch + o, s, (size_t)l), o += (size_t)l;
            cs_col_builder_append_string(b, scratch, o);
            break;
        }
        case S_CONCAT:
        case S_CONCAT_WS: {
            size_t o = 0;
            bool first = true;
            for (int j = f == S_CONCAT_WS ? 1 : 0; j < na; j++) {
                int64_t r = i * cs_px_stride(a[j], n);
                if (!cs_column_is_valid(a[j], r)) continue;
                int32_t pl;
                const uint8_t *p = cs_column_bytes(a[j], r, &pl);
                size_t need = o + (size_t)pl + (size_t)l + 8;
                if (need > cap) scratch = realloc(scratch, cap = need * 2);
                if (f == S_CONCAT_WS && !first) memcpy(scratch + o, s, (size_t)l), o += (size_t)l;
                memcpy(scratch + o, p, (size_t)pl);
                o += (size_t)pl;
                first = false;
            }
            cs_col_builder_append_string(b, scratch ? scratch : (uint8_t *)"", o);
            break;
        }
        }
    }
    free(scratch);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* ---- substring and concat written in place ---- */

#define CS_PX_MAX_STR_ARGS 32

/* memcpy of l bytes as at most two fixed-size moves when l <= 16 (the short strings of keys
 * and values; a call per piece cost more than the copy) */
static inline void copy_bytes(uint8_t *d, const uint8_t *p, int32_t l)
{
    if (l >= 8 && l <= 16) {
        memcpy(d, p, 8);
        memcpy(d + l - 8, p + l - 8, 8);
    } else if (l >= 4 && l < 8) {
        memcpy(d, p, 4);
        memcpy(d + l - 4, p + l - 4, 4);
    } else if (l > 16) {
        memcpy(d, p, (size_t)l);
    } else {
        for (int32_t i = 0; i < l; i++)
            d[i] = p[i];
    }
}

/* A string column of n rows whose null rows are those where any of the na args is null, with
 * its offsets buffer (n + 1, unset: the caller writes them) and no data yet. */
static cs_column *new_strings(const cs_px_kctx *k, cs_column *const *a, int na)
{
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref(k->e->type), n);
    cs_px_and_validity(r, a, na, n);
    r->values_size = (size_t)(n + 1) * 4;
    r->values = cs_col_buffer_alloc_unset(k->alloc, r->values_size);
    return r;
}

/* substring and concat: a first pass sums the bytes of the valid rows' arguments (concat's
 * result exactly, an upper bound of substring's), then the offsets and bytes are written in
 * place, with no builder call and no buffer growth per row. Results past 2 GiB take
 * string_kernel's path. */
static int substring_concat_kernel(const cs_px_kctx *k, cs_column *const *a, int na,
                                   cs_column **out, sfn f)
{
    int64_t n = k->n, bound = 0;
    int ns = f == S_CONCAT ? na : 1; /* the string args */
    int64_t st[CS_PX_MAX_STR_ARGS];
    if (na > CS_PX_MAX_STR_ARGS) return string_kernel(k, a, na, out, f);
    for (int j = 0; j < na; j++)
        st[j] = cs_px_stride(a[j], n);
    cs_column *r = new_strings(k, a, na);
    const uint8_t *valid = r->validity;
    for (int64_t i = 0; i < n; i++) {
        if (valid && !cs_bit_get(valid, i)) continue;
        for (int j = 0; j < ns; j++) {
            int32_t l;
            cs_column_bytes(a[j], i * st[j], &l);
            bound += l;
        }
    }
    if (bound > INT32_MAX) {
        cs_column_unref(r);
        return string_kernel(k, a, na, out, f);
    }
    r->data_size = (size_t)bound;
    r->data = bound ? cs_col_buffer_alloc_unset(k->alloc, r->data_size) : NULL;
    int32_t *o = (int32_t *)(void *)r->values;
    uint8_t *d = r->data;
    int32_t t = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = t;
        if (valid && !cs_bit_get(valid, i)) continue;
        int32_t l;
        const uint8_t *p = cs_column_bytes(a[0], i * st[0], &l);
        if (f == S_SUBSTRING) {
            int32_t bs, be;
            substring_range(p, l, int_at(a[1], i, n), na > 2 ? int_at(a[2], i, n) : INT32_MAX, &bs,
                            &be);
            copy_bytes(d + t, p + bs, be - bs);
            t += be - bs;
            continue;
        }
        for (int j = 0; j < na; j++) {
            if (j) p = cs_column_bytes(a[j], i * st[j], &l);
            copy_bytes(d + t, p, l);
            t += l;
        }
    }
    o[n] = t;
    if (t < bound) memset(d + t, 0, (size_t)(bound - t)); /* substring's unused bound */
    *out = r;
    return CS_OK;
}

static int substring_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return substring_concat_kernel(k, a, na, out, S_SUBSTRING);
}

static int concat_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return substring_concat_kernel(k, a, na, out, S_CONCAT);
}

#define SK(NAME, F)                                                                                \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        return string_kernel(k, a, na, out, F);                                                    \
    }
SK(upper_kernel, S_UPPER)
SK(lower_kernel, S_LOWER)
SK(trim_kernel, S_TRIM)
SK(ltrim_kernel, S_LTRIM)
SK(rtrim_kernel, S_RTRIM)
SK(replace_kernel, S_REPLACE)
SK(lpad_kernel, S_LPAD)
SK(rpad_kernel, S_RPAD)
SK(concat_ws_kernel, S_CONCAT_WS)

static bool all(const cs_col_type *const *t, int from, int n, cs_type_id id)
{
    for (int i = from; i < n; i++)
        if (t[i]->id != id) return false;
    return true;
}

cs_px_kernel cs_px_string_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    (void)result;
    const cs_type_id S = CS_TYPE_STRING, I = CS_TYPE_INT;
    if (n < 1) return NULL;
    if (strcmp(fn, "concat") == 0) return all(t, 0, n, S) ? concat_kernel : NULL;
    if (strcmp(fn, "concat_ws") == 0) return all(t, 0, n, S) ? concat_ws_kernel : NULL;
    if (n == 1) {
        if (strcmp(fn, "length") == 0 || strcmp(fn, "char_length") == 0)
            return t[0]->id == S || t[0]->id == CS_TYPE_BINARY ? length_kernel : NULL;
        if (t[0]->id != S) return NULL;
        if (strcmp(fn, "upper") == 0 || strcmp(fn, "ucase") == 0) return upper_kernel;
        if (strcmp(fn, "lower") == 0 || strcmp(fn, "lcase") == 0) return lower_kernel;
        if (strcmp(fn, "trim") == 0) return trim_kernel;
        if (strcmp(fn, "ltrim") == 0) return ltrim_kernel;
        if (strcmp(fn, "rtrim") == 0) return rtrim_kernel;
        return NULL;
    }
    if (t[0]->id != S) return NULL;
    if ((strcmp(fn, "substring") == 0 || strcmp(fn, "substr") == 0) && (n == 2 || n == 3) &&
        all(t, 1, n, I))
        return substring_kernel;
    if ((strcmp(fn, "lpad") == 0 || strcmp(fn, "rpad") == 0) && (n == 2 || n == 3) &&
        t[1]->id == I && (n == 2 || t[2]->id == S))
        return fn[0] == 'l' ? lpad_kernel : rpad_kernel;
    if (!all(t, 1, n, S)) return NULL;
    if (strcmp(fn, "like") == 0 && (n == 2 || n == 3)) return like_kernel;
    if ((strcmp(fn, "like_any") == 0 || strcmp(fn, "like_all") == 0) && n >= 2) {
        for (int i = 0; i < n; i++)
            if (t[i]->id != CS_TYPE_STRING) return NULL;
        return like_multi_kernel;
    }
    if (n == 2 && strcmp(fn, "instr") == 0) return instr_kernel;
    if (n == 2 && strcmp(fn, "startswith") == 0) return startswith_kernel;
    if (n == 2 && strcmp(fn, "endswith") == 0) return endswith_kernel;
    if (n == 2 && strcmp(fn, "contains") == 0) return contains_kernel;
    if (n == 3 && strcmp(fn, "replace") == 0) return replace_kernel;
    return NULL;
}
