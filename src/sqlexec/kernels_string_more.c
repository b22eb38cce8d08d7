/*
 * kernels_string_more.c — Spark's string functions beyond kernels_string.c: concat() of no
 * argument, trim / ltrim / rtrim of given characters (the parser's (chars, source) order) and
 * btrim(source, chars), split_part, octet_length / bit_length, locate, translate, initcap,
 * left / right, ascii, chr, space, find_in_set, elt, overlay, soundex, levenshtein,
 * substring_index, base64 / unbase64, hex / unhex, conv, repeat, reverse, and concat_ws over
 * strings and arrays of strings, ilike (like over lower-cased sides). Characters are UTF-8 code
 * points as Spark's UTF8String counts them. Null in, null out (elt: the chosen argument). Each
 * row's text is built in one scratch buffer reused for the whole batch and appended to the
 * result builder: no allocation per row. Errors are Spark's ANSI ones: split_part's
 * INVALID_INDEX_OF_ZERO, elt's INVALID_ARRAY_INDEX. Called through cs_px_string_more_lookup
 * (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "common/strutil.h"
#include "sqlexec/pexpr_internal.h"

typedef enum {
    X_CONCAT0,
    X_TRIM,
    X_LTRIM,
    X_RTRIM,
    X_BTRIM,
    X_SPLIT_PART,
    X_OCTET_LENGTH,
    X_BIT_LENGTH,
    X_LOCATE,
    X_TRANSLATE,
    X_INITCAP,
    X_LEFT,
    X_RIGHT,
    X_ASCII,
    X_CHR,
    X_SPACE,
    X_FIND_IN_SET,
    X_ELT,
    X_OVERLAY,
    X_SOUNDEX,
    X_LEVENSHTEIN,
    X_LEVENSHTEIN_MAX, /* levenshtein(a, b, threshold): -1 past the threshold */
    X_SUBSTRING_INDEX,
    X_BASE64,
    X_UNBASE64,
    X_HEX,
    X_UNHEX,
    X_CONV,
    X_REPEAT,
    X_REVERSE
} xfn;

static const struct {
    const char *name;
    xfn f;
    const char *sig; /* argument kinds: s string/binary, i int, l bigint, '*' strings repeat */
    char ret;        /* 's' string, 'b' binary, 'i' int */
} FNS[] = {
    {"concat", X_CONCAT0, "", 's'},
    {"trim", X_TRIM, "ss", 's'},
    {"ltrim", X_LTRIM, "ss", 's'},
    {"rtrim", X_RTRIM, "ss", 's'},
    {"btrim", X_BTRIM, "ss", 's'},
    {"split_part", X_SPLIT_PART, "ssi", 's'},
    {"octet_length", X_OCTET_LENGTH, "s", 'i'},
    {"bit_length", X_BIT_LENGTH, "s", 'i'},
    {"locate", X_LOCATE, "ssi", 'i'},
    {"locate", X_LOCATE, "ss", 'i'},
    {"translate", X_TRANSLATE, "sss", 's'},
    {"initcap", X_INITCAP, "s", 's'},
    {"left", X_LEFT, "si", 's'},
    {"right", X_RIGHT, "si", 's'},
    {"ascii", X_ASCII, "s", 'i'},
    {"chr", X_CHR, "l", 's'},
    {"space", X_SPACE, "i", 's'},
    {"find_in_set", X_FIND_IN_SET, "ss", 'i'},
    {"elt", X_ELT, "i*", 's'},
    {"overlay", X_OVERLAY, "ssii", 's'},
    {"overlay", X_OVERLAY, "ssi", 's'},
    {"soundex", X_SOUNDEX, "s", 's'},
    {"levenshtein", X_LEVENSHTEIN, "ss", 'i'},
    {"levenshtein", X_LEVENSHTEIN_MAX, "ssi", 'i'},
    {"substring_index", X_SUBSTRING_INDEX, "ssi", 's'},
    {"base64", X_BASE64, "s", 's'},
    {"unbase64", X_UNBASE64, "s", 'b'},
    {"hex", X_HEX, "s", 's'},
    {"hex", X_HEX, "l", 's'},
    {"hex", X_HEX, "i", 's'},
    {"unhex", X_UNHEX, "s", 'b'},
    {"conv", X_CONV, "sii", 's'},
    {"repeat", X_REPEAT, "si", 's'},
    {"reverse", X_REVERSE, "s", 's'},
};

/* ---- UTF-8 ---- */

static int char_len(uint8_t c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}
static int64_t num_chars(const uint8_t *s, int32_t l)
{
    int64_t n = 0;
    for (int32_t i = 0; i < l; i += char_len(s[i]))
        n++;
    return n;
}
/* byte offset of character ch (clamped to l) */
static int32_t char_off(const uint8_t *s, int32_t l, int64_t ch)
{
    int32_t i = 0;
    for (int64_t c = 0; c < ch && i < l; c++)
        i += char_len(s[i]);
    return i < l ? i : l;
}
static uint32_t decode(const uint8_t *s, int32_t l, int *n)
{
    int k = char_len(s[0]);
    if (k > l) k = l;
    *n = k;
    if (k == 1) return s[0];
    uint32_t c = s[0] & (0x7F >> k);
    for (int j = 1; j < k; j++)
        c = (c << 6) | (s[j] & 0x3F);
    return c;
}
/* whether code point c is among the characters of set */
static bool in_set(uint32_t c, const uint8_t *set, int32_t sl)
{
    for (int32_t j = 0; j < sl;) {
        int n;
        if (decode(set + j, sl - j, &n) == c) return true;
        j += n;
    }
    return false;
}

/* ---- one row ---- */

typedef struct row_out {
    cs_sbuf *sb; /* the text (string / binary results) */
    int64_t num; /* int results */
    bool null;
} row_out;

static int64_t int_arg(const cs_column *c, int64_t r)
{
    return c->type->id == CS_TYPE_LONG ? ((const int64_t *)(const void *)c->values)[r]
                                       : ((const int32_t *)(const void *)c->values)[r];
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_val(uint8_t c)
{
    const char *p = c ? strchr(B64, c) : NULL;
    return p ? (int)(p - B64) : -1;
}

static int hex_val(uint8_t c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static char soundex_code(uint8_t c)
{
    static const char codes[] = "01230120022455012623010202"; /* A..Z, '0' none, H/W '0' too */
    c = (uint8_t)(c & ~0x20);
    return c >= 'A' && c <= 'Z' ? codes[c - 'A'] : 0;
}

/* a row's values: s[j], l[j] (strings), v[j] (integers) */
static int one_row(const cs_px_kctx *k, xfn f, int na, const uint8_t *const *s, const int32_t *l,
                   const int64_t *v, row_out *o)
{
    cs_sbuf *sb = o->sb;
    switch (f) {
    case X_CONCAT0:
        return CS_OK;
    case X_TRIM:
    case X_LTRIM:
    case X_RTRIM:
    case X_BTRIM: {
        int src = f == X_BTRIM ? 0 : 1, set = 1 - src;
        const uint8_t *p = s[src], *cs = s[set];
        int32_t b = 0, e = l[src], cl = l[set];
        if (f != X_RTRIM)
            while (b < e) {
                int n;
                if (!in_set(decode(p + b, e - b, &n), cs, cl)) break;
                b += n;
            }
        if (f != X_LTRIM)
            while (e > b) {
                int32_t st = e - 1;
                while (st > b && (p[st] & 0xC0) == 0x80)
                    st--;
                int n;
                if (!in_set(decode(p + st, e - st, &n), cs, cl)) break;
                e = st;
            }
        cs_sbuf_append(sb, p + b, (size_t)(e - b));
        return CS_OK;
    }
    case X_SPLIT_PART: {
        int64_t idx = v[2];
        if (idx == 0)
            return cs_sql_error_set(k->err, CS_ETASK, "INVALID_INDEX_OF_ZERO", "22003",
                                    "The index 0 is invalid. An index shall be either < 0 or > 0 "
                                    "(the first element has index 1).");
        /* the parts, found by scanning for the delimiter */
        int64_t parts = 1;
        for (int32_t i = 0; l[1] > 0 && i + l[1] <= l[0];) {
            if (memcmp(s[0] + i, s[1], (size_t)l[1]) == 0) {
                parts++;
                i += l[1];
            } else {
                i++;
            }
        }
        int64_t want = idx > 0 ? idx - 1 : parts + idx;
        if (want < 0 || want >= parts) return CS_OK;
        int32_t start = 0, part = 0;
        for (int32_t i = 0; l[1] > 0 && i + l[1] <= l[0];) {
            if (memcmp(s[0] + i, s[1], (size_t)l[1]) == 0) {
                if (part == want) {
                    cs_sbuf_append(sb, s[0] + start, (size_t)(i - start));
                    return CS_OK;
                }
                part++;
                i += l[1];
                start = i;
            } else {
                i++;
            }
        }
        cs_sbuf_append(sb, s[0] + start, (size_t)(l[0] - start));
        return CS_OK;
    }
    case X_OCTET_LENGTH:
        o->num = l[0];
        return CS_OK;
    case X_BIT_LENGTH:
        o->num = (int64_t)l[0] * 8;
        return CS_OK;
    case X_LOCATE: { /* locate(sub, str[, pos]): 1-based character position, 0 when absent */
        int64_t pos = na > 2 ? v[2] : 1;
        o->num = 0;
        if (pos < 1) return CS_OK;
        int32_t from = char_off(s[1], l[1], pos - 1);
        if (pos - 1 > num_chars(s[1], l[1])) return CS_OK;
        for (int32_t i = from; i + l[0] <= l[1]; i++)
            if ((s[1][i] & 0xC0) != 0x80 && memcmp(s[1] + i, s[0], (size_t)l[0]) == 0) {
                o->num = num_chars(s[1], i) + 1;
                return CS_OK;
            }
        return CS_OK;
    }
    case X_TRANSLATE:
        for (int32_t i = 0; i < l[0];) {
            int n;
            uint32_t c = decode(s[0] + i, l[0] - i, &n);
            i += n;
            int64_t at = -1, ci = 0;
            for (int32_t j = 0; j < l[1] && at < 0; ci++) {
                int m;
                if (decode(s[1] + j, l[1] - j, &m) == c) at = ci;
                j += m;
            }
            if (at < 0) {
                uint8_t buf[4];
                cs_sbuf_append(sb, buf, cs_utf8_put(c, buf));
                continue;
            }
            int32_t to = char_off(s[2], l[2], at);
            if (to < l[2]) {
                int m;
                decode(s[2] + to, l[2] - to, &m);
                cs_sbuf_append(sb, s[2] + to, (size_t)m);
            }
        }
        return CS_OK;
    case X_INITCAP: { /* lower case, then the first letter after a space upper case */
        bool start = true;
        for (int32_t i = 0; i < l[0]; i++) {
            uint8_t c = s[0][i];
            if (c < 0x80) c = (uint8_t)(start ? toupper(c) : tolower(c));
            cs_sbuf_putc(sb, (char)c);
            start = c == ' ';
        }
        return CS_OK;
    }
    case X_LEFT:
    case X_RIGHT: {
        int64_t nc = num_chars(s[0], l[0]), len = v[1];
        if (len <= 0) return CS_OK;
        if (len > nc) len = nc;
        int32_t b = f == X_LEFT ? 0 : char_off(s[0], l[0], nc - len);
        int32_t e = f == X_LEFT ? char_off(s[0], l[0], len) : l[0];
        cs_sbuf_append(sb, s[0] + b, (size_t)(e - b));
        return CS_OK;
    }
    case X_ASCII: {
        int n;
        o->num = l[0] > 0 ? decode(s[0], l[0], &n) : 0;
        return CS_OK;
    }
    case X_CHR: {
        if (v[0] < 0) return CS_OK;
        uint8_t buf[4];
        cs_sbuf_append(sb, buf, cs_utf8_put((uint32_t)(v[0] & 255), buf));
        return CS_OK;
    }
    case X_SPACE:
        for (int64_t i = 0; i < v[0]; i++)
            cs_sbuf_putc(sb, ' ');
        return CS_OK;
    case X_FIND_IN_SET: {
        o->num = 0;
        if (memchr(s[0], ',', (size_t)l[0])) return CS_OK;
        int64_t idx = 1;
        for (int32_t st = 0;; idx++) {
            const uint8_t *c = memchr(s[1] + st, ',', (size_t)(l[1] - st));
            int32_t e = c ? (int32_t)(c - s[1]) : l[1];
            if (e - st == l[0] && memcmp(s[1] + st, s[0], (size_t)l[0]) == 0) {
                o->num = idx;
                return CS_OK;
            }
            if (!c) return CS_OK;
            st = e + 1;
        }
    }
    case X_ELT:
        return CS_OK; /* handled by the caller: it picks an argument */
    case X_OVERLAY: { /* overlay(s PLACING r FROM pos [FOR len]) */
        int64_t nc = num_chars(s[0], l[0]), pos = v[2];
        int64_t len = na > 3 && v[3] >= 0 ? v[3] : num_chars(s[1], l[1]);
        int64_t head = pos - 1 < 0 ? 0 : pos - 1, tail = pos - 1 + len;
        if (head > nc) head = nc;
        if (tail > nc) tail = nc;
        if (tail < 0) tail = 0;
        int32_t hb = char_off(s[0], l[0], head), tb = char_off(s[0], l[0], tail);
        cs_sbuf_append(sb, s[0], (size_t)hb);
        cs_sbuf_append(sb, s[1], (size_t)l[1]);
        cs_sbuf_append(sb, s[0] + tb, (size_t)(l[0] - tb));
        return CS_OK;
    }
    case X_SOUNDEX: { /* the input itself unless it starts with a letter */
        if (l[0] == 0 || !soundex_code(s[0][0])) {
            cs_sbuf_append(sb, s[0], (size_t)l[0]);
            return CS_OK;
        }
        char out[4] = {(char)(s[0][0] & ~0x20), '0', '0', '0'};
        int got = 1;
        char last = soundex_code(s[0][0]);
        for (int32_t i = 1; i < l[0] && got < 4; i++) {
            uint8_t c = s[0][i];
            char code = soundex_code(c);
            if (!code) continue;
            uint8_t u = (uint8_t)(c & ~0x20);
            if (u == 'H' || u == 'W') continue;
            if (code != '0' && code != last) out[got++] = code;
            last = code;
        }
        cs_sbuf_append(sb, out, 4);
        return CS_OK;
    }
    case X_LEVENSHTEIN:
    case X_LEVENSHTEIN_MAX: { /* over code points, two rows of the table in the scratch buffer */
        int64_t n0 = num_chars(s[0], l[0]), n1 = num_chars(s[1], l[1]);
        size_t need = sizeof(int64_t) * (size_t)(2 * (n1 + 1)) + 8;
        static const char zeros[256];
        sb->len = 0;
        while (sb->len < need)
            cs_sbuf_append(sb, zeros,
                           need - sb->len < sizeof zeros ? need - sb->len : sizeof zeros);
        int64_t *prev = (int64_t *)(void *)sb->data, *cur = prev + n1 + 1;
        for (int64_t j = 0; j <= n1; j++)
            prev[j] = j;
        int32_t i0 = 0;
        for (int64_t i = 1; i <= n0; i++) {
            int m0;
            uint32_t c0 = decode(s[0] + i0, l[0] - i0, &m0);
            i0 += m0;
            cur[0] = i;
            int32_t i1 = 0;
            for (int64_t j = 1; j <= n1; j++) {
                int m1;
                uint32_t c1 = decode(s[1] + i1, l[1] - i1, &m1);
                i1 += m1;
                int64_t best = prev[j - 1] + (c0 != c1);
                if (prev[j] + 1 < best) best = prev[j] + 1;
                if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
                cur[j] = best;
            }
            int64_t *t = prev;
            prev = cur;
            cur = t;
        }
        o->num = prev[n1];
        /* Spark's UTF8String.levenshteinDistance(other, threshold) */
        if (f == X_LEVENSHTEIN_MAX && o->num > v[2]) o->num = -1;
        return CS_OK;
    }
    case X_SUBSTRING_INDEX: {
        int64_t count = v[2];
        if (count == 0 || l[1] == 0) return CS_OK;
        if (count > 0) {
            int32_t i = 0;
            for (int64_t seen = 0; i + l[1] <= l[0]; i++)
                if (memcmp(s[0] + i, s[1], (size_t)l[1]) == 0 && ++seen == count) break;
            cs_sbuf_append(sb, s[0], (size_t)(i + l[1] <= l[0] ? i : l[0]));
        } else {
            int32_t i = l[0] - l[1];
            for (int64_t seen = 0; i >= 0; i--)
                if (memcmp(s[0] + i, s[1], (size_t)l[1]) == 0 && --seen == count) break;
            int32_t from = i >= 0 ? i + l[1] : 0;
            cs_sbuf_append(sb, s[0] + from, (size_t)(l[0] - from));
        }
        return CS_OK;
    }
    case X_BASE64:
        for (int32_t i = 0; i < l[0]; i += 3) {
            uint32_t x = (uint32_t)s[0][i] << 16;
            if (i + 1 < l[0]) x |= (uint32_t)s[0][i + 1] << 8;
            if (i + 2 < l[0]) x |= s[0][i + 2];
            char q[4] = {B64[(x >> 18) & 63], B64[(x >> 12) & 63],
                         i + 1 < l[0] ? B64[(x >> 6) & 63] : '=', i + 2 < l[0] ? B64[x & 63] : '='};
            cs_sbuf_append(sb, q, 4);
        }
        return CS_OK;
    case X_UNBASE64: {
        uint32_t acc = 0;
        int bits = 0;
        for (int32_t i = 0; i < l[0]; i++) {
            int d = b64_val(s[0][i]);
            if (d < 0) continue;
            acc = (acc << 6) | (uint32_t)d;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                cs_sbuf_putc(sb, (char)((acc >> bits) & 0xFF));
            }
        }
        return CS_OK;
    }
    case X_HEX:
        if (s[0] == NULL) { /* hex(int | bigint) */
            char buf[24];
            int n = snprintf(buf, sizeof buf, "%llX", (unsigned long long)v[0]);
            cs_sbuf_append(sb, buf, (size_t)n);
            return CS_OK;
        }
        for (int32_t i = 0; i < l[0]; i++)
            cs_sbuf_printf(sb, "%02X", s[0][i]);
        return CS_OK;
    case X_UNHEX: { /* an odd length starts with one digit; a bad digit is null */
        int32_t i = 0;
        if (l[0] % 2) {
            int d = hex_val(s[0][0]);
            if (d < 0) goto bad;
            cs_sbuf_putc(sb, (char)d);
            i = 1;
        }
        for (; i < l[0]; i += 2) {
            int hi = hex_val(s[0][i]), lo = hex_val(s[0][i + 1]);
            if (hi < 0 || lo < 0) goto bad;
            cs_sbuf_putc(sb, (char)(hi * 16 + lo));
        }
        return CS_OK;
    bad:
        o->null = true;
        return CS_OK;
    }
    case X_CONV: { /* conv(num, from, to): unsigned 64-bit, as Spark's NumberConverter */
        int64_t from = v[1], to = v[2];
        int64_t af = from < 0 ? -from : from, at = to < 0 ? -to : to;
        if (af < 2 || af > 36 || at < 2 || at > 36) {
            o->null = true;
            return CS_OK;
        }
        int32_t i = 0;
        bool neg = l[0] > 0 && s[0][0] == '-';
        if (neg) i++;
        unsigned __int128 acc = 0;
        int32_t start = i;
        for (; i < l[0]; i++) {
            uint8_t c = s[0][i];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'z' ? c - 'a' + 10
                    : c >= 'A' && c <= 'Z' ? c - 'A' + 10
                                           : 99;
            if (d >= af) break;
            acc = acc * (unsigned)af + (unsigned)d;
            if (acc > UINT64_MAX) acc = UINT64_MAX;
        }
        if (i == start) {
            o->null = true;
            return CS_OK;
        }
        uint64_t u = (uint64_t)acc;
        if (neg) u = (uint64_t)0 - u;
        bool out_neg = to < 0 && (int64_t)u < 0;
        if (out_neg) u = (uint64_t)0 - u;
        char buf[72];
        int n = 0;
        do {
            int d = (int)(u % (uint64_t)at);
            buf[n++] = (char)(d < 10 ? '0' + d : 'A' + d - 10);
            u /= (uint64_t)at;
        } while (u);
        if (out_neg) cs_sbuf_putc(sb, '-');
        while (n)
            cs_sbuf_putc(sb, buf[--n]);
        return CS_OK;
    }
    case X_REVERSE:
        for (int32_t e = l[0]; e > 0;) {
            int32_t st = e - 1;
            while (st > 0 && (s[0][st] & 0xC0) == 0x80)
                st--;
            cs_sbuf_append(sb, s[0] + st, (size_t)(e - st));
            e = st;
        }
        return CS_OK;
    case X_REPEAT:
        for (int64_t i = 0; i < v[1]; i++)
            cs_sbuf_append(sb, s[0], (size_t)l[0]);
        return CS_OK;
    }
    return CS_OK;
}

static xfn fn_of(const char *name, const cs_col_type *const *t, int n, int *slot)
{
    for (size_t i = 0; i < sizeof FNS / sizeof FNS[0]; i++) {
        if (strcmp(FNS[i].name, name) != 0) continue;
        const char *sig = FNS[i].sig;
        size_t sl = strlen(sig);
        bool star = sl && sig[sl - 1] == '*';
        if (!star && (size_t)n != sl) continue;
        if (star && (size_t)n < sl) continue;
        bool ok = true;
        for (int j = 0; j < n && ok; j++) {
            char c = star && (size_t)j >= sl - 1 ? 's' : sig[j];
            cs_type_id id = t[j]->id;
            ok = c == 's'   ? id == CS_TYPE_STRING || id == CS_TYPE_BINARY
                 : c == 'i' ? id == CS_TYPE_INT
                            : id == CS_TYPE_LONG;
        }
        if (!ok) continue;
        *slot = (int)i;
        return FNS[i].f;
    }
    *slot = -1;
    return X_CONCAT0;
}

static int text_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const cs_col_type *at[na > 0 ? na : 1];
    for (int j = 0; j < na; j++)
        at[j] = a[j]->type;
    int slot;
    xfn f = fn_of(k->e->fn, at, na, &slot);
    char ret = FNS[slot].ret;
    int64_t n = k->n;
    cs_col_builder *b = ret != 'i' ? cs_col_builder_new(k->alloc, k->e->type) : NULL;
    cs_column *r = ret == 'i' ? cs_px_new_fixed(k->alloc, k->e->type, n) : NULL;
    cs_sbuf sb = CS_SBUF_INIT;
    const uint8_t *s[na > 0 ? na : 1];
    int32_t l[na > 0 ? na : 1];
    int64_t v[na > 0 ? na : 1];
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        bool null = false;
        int64_t pick = -1;
        for (int j = 0; j < na && !null; j++) {
            int64_t rj = i * cs_px_stride(a[j], n);
            s[j] = NULL;
            l[j] = 0;
            v[j] = 0;
            bool valid = cs_column_is_valid(a[j], rj);
            if (f == X_ELT && j > 0) {
                if (j == pick) null = !valid;
                if (valid && j == pick) s[j] = cs_column_bytes(a[j], rj, &l[j]);
                continue;
            }
            null = !valid;
            if (null) break;
            if (a[j]->type->id == CS_TYPE_STRING || a[j]->type->id == CS_TYPE_BINARY)
                s[j] = cs_column_bytes(a[j], rj, &l[j]);
            else
                v[j] = int_arg(a[j], rj);
            if (f == X_ELT && j == 0) {
                pick = v[0];
                if ((pick < 1 || pick >= na) && k->ctx->ansi) {
                    rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_ARRAY_INDEX", "22003",
                                          "The index %lld is out of bounds. The array has %d "
                                          "elements. Use the SQL function `get()` to tolerate "
                                          "accessing element at invalid index and return NULL "
                                          "instead.",
                                          (long long)pick, na - 1);
                    break;
                }
                if (pick < 1 || pick >= na) null = true;
            }
        }
        if (rc) break;
        sb.len = 0;
        row_out o = {&sb, 0, null};
        if (!null && f == X_ELT) cs_sbuf_append(&sb, s[pick], (size_t)l[pick]);
        if (!null && f != X_ELT) rc = one_row(k, f, na, s, l, v, &o);
        if (rc) break;
        if (ret == 'i') {
            if (o.null) {
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
            } else {
                ((int32_t *)(void *)r->values)[i] = (int32_t)o.num;
            }
        } else if (o.null) {
            cs_col_builder_append_nulls(b, 1);
        } else {
            cs_col_builder_append_string(b, sb.data ? sb.data : "", sb.len);
        }
    }
    cs_sbuf_free(&sb);
    if (b) {
        cs_column *c = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        if (rc)
            cs_column_unref(c);
        else
            *out = c;
    } else if (rc) {
        cs_column_unref(r);
    } else {
        *out = r;
    }
    return rc;
}

/* concat_ws(sep, string | array<string>, ...): the non-null strings and elements joined by sep;
 * null only when sep is */
static int concat_ws_arrays_kernel(const cs_px_kctx *k, cs_column *const *a, int na,
                                   cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; i < n; i++) {
        int64_t r0 = i * cs_px_stride(a[0], n);
        if (!cs_column_is_valid(a[0], r0)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl;
        const uint8_t *sep = cs_column_bytes(a[0], r0, &sl);
        sb.len = 0;
        bool first = true;
        for (int j = 1; j < na; j++) {
            int64_t rj = i * cs_px_stride(a[j], n);
            if (!cs_column_is_valid(a[j], rj)) continue;
            const cs_column *el = a[j];
            int32_t lo = (int32_t)rj, hi = lo + 1;
            if (a[j]->type->id == CS_TYPE_ARRAY) {
                el = a[j]->children[0];
                lo = cs_column_offsets(a[j])[rj];
                hi = cs_column_offsets(a[j])[rj + 1];
            }
            for (int32_t e = lo; e < hi; e++) {
                if (!cs_column_is_valid(el, e)) continue;
                int32_t l;
                const uint8_t *p = cs_column_bytes(el, e, &l);
                if (!first) cs_sbuf_append(&sb, sep, (size_t)sl);
                cs_sbuf_append(&sb, p, (size_t)l);
                first = false;
            }
        }
        cs_col_builder_append_string(b, sb.data ? sb.data : "", sb.len);
    }
    cs_sbuf_free(&sb);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* ilike(s, pattern [, escape]): like over the lower-cased string and pattern, as Spark's ILike
 * (Like(Lower(s), Lower(pattern))): two lower kernel calls and one like call per batch */
static int ilike_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const cs_col_type *st = cs_col_type_primitive(CS_TYPE_STRING);
    const cs_col_type *lt[3] = {st, st, st};
    cs_pexpr lower = *k->e, like = *k->e;
    lower.fn = (char *)"lower";
    lower.type = (cs_col_type *)st;
    like.fn = (char *)"like";
    cs_px_kernel lk = cs_px_string_lookup("lower", lt, 1, st);
    cs_px_kernel kk = cs_px_string_lookup("like", lt, na, k->e->type);
    if (!lk || !kk) return cs_error_set(k->err, CS_EUNSUPPORTED, "no lower or like kernel");
    cs_column *low[3] = {NULL, NULL, na > 2 ? a[2] : NULL};
    int rc = CS_OK;
    for (int j = 0; j < 2 && rc == CS_OK; j++) {
        cs_px_kctx ck = *k;
        ck.e = &lower;
        ck.n = a[j]->length;
        rc = lk(&ck, &a[j], 1, &low[j]);
    }
    if (rc == CS_OK) {
        cs_px_kctx ck = *k;
        ck.e = &like;
        rc = kk(&ck, low, na, out);
    }
    for (int j = 0; j < 2; j++)
        if (low[j]) cs_column_unref(low[j]);
    return rc;
}

cs_px_kernel cs_px_string_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result)
{
    if (strcmp(fn, "concat_ws") == 0 && n >= 1 && t[0]->id == CS_TYPE_STRING &&
        result->id == CS_TYPE_STRING) {
        for (int j = 1; j < n; j++)
            if (t[j]->id != CS_TYPE_STRING &&
                !(t[j]->id == CS_TYPE_ARRAY && t[j]->fields[0].type->id == CS_TYPE_STRING))
                return NULL;
        return concat_ws_arrays_kernel;
    }
    if (strcmp(fn, "ilike") == 0 && (n == 2 || n == 3) && result->id == CS_TYPE_BOOLEAN) {
        for (int j = 0; j < n; j++)
            if (t[j]->id != CS_TYPE_STRING) return NULL;
        return ilike_kernel;
    }
    int slot;
    fn_of(fn, t, n, &slot);
    if (slot < 0) return NULL;
    char ret = FNS[slot].ret;
    cs_type_id want = ret == 'i' ? CS_TYPE_INT : ret == 'b' ? CS_TYPE_BINARY : CS_TYPE_STRING;
    return result->id == want ? text_kernel : NULL;
}
