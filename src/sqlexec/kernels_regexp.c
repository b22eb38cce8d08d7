/*
 * kernels_regexp.c — Spark's regular-expression functions over PCRE2 (Debian's libpcre2-8, in
 * UTF mode; Spark uses java.util.regex, whose syntax PCRE2 shares for everything but a few
 * rarely used constructs):
 *   rlike(str, regexp)                        true when the pattern is found anywhere (find())
 *   regexp_extract(str, regexp[, idx = 1])    group idx of the first match, "" when there is
 *                                             none or the group did not take part
 *   regexp_replace(str, regexp, rep[, pos=1]) every match from code point pos on replaced by
 *                                             rep, where $n is group n and \x is x (Java's
 *                                             Matcher.replaceAll)
 *   regexp_count(str, regexp)                 the number of matches (Matcher.find's walk)
 *   regexp_instr(str, regexp, idx)            1-based code point where the first match starts
 *                                             (whatever the group idx, as Spark), 0 without
 *   regexp_extract_all(str, regexp, idx)      group idx of every match, as array<string>
 *   str_to_map(text, pair_delim, kv_delim)    the pairs split by two regular expressions
 *   split(str, regexp, limit)                 Java's String.split(regexp, limit), as an
 *                                             array<string> (limit <= 0: no limit, trailing
 *                                             empty strings kept, as Spark); a pattern
 *                                             that is one class of ASCII bytes (`\s+`, `,`)
 *                                             is split by a byte table, not the engine; a
 *                                             batch's pieces go to the result in one append
 * Null in, null out. A pattern is compiled once per batch when it is a literal, and again only
 * when a row's pattern differs from the last one; the match data is made once per batch. An
 * invalid pattern is Spark's INVALID_PARAMETER_VALUE.PATTERN; a group index out of range is
 * INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX. Called through cs_px_regexp_lookup.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

typedef struct compiled {
    pcre2_code *code;
    uint8_t *pattern; /* the text it was compiled from */
    int32_t len;
    pcre2_match_data *md;
} compiled;

static void compiled_free(compiled *c)
{
    if (c->md) pcre2_match_data_free(c->md);
    if (c->code) pcre2_code_free(c->code);
    free(c->pattern);
    memset(c, 0, sizeof *c);
}

/* c holds pattern p compiled (reusing it when it is the same text); CS_OK or Spark's error. */
static int compile_pattern(compiled *c, const uint8_t *p, int32_t len, const char *fn,
                           cs_error *err)
{
    if (c->code && c->len == len && memcmp(c->pattern, p, (size_t)len) == 0) return CS_OK;
    compiled_free(c);
    int code;
    PCRE2_SIZE at;
    c->code = pcre2_compile((PCRE2_SPTR)p, (PCRE2_SIZE)len, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                            &code, &at, NULL);
    if (!c->code) {
        PCRE2_UCHAR why[256];
        pcre2_get_error_message(code, why, sizeof why);
        return cs_sql_error_set(err, CS_ETASK, "INVALID_PARAMETER_VALUE.PATTERN", "22023",
                                "The value of parameter(s) `regexp` in `%s` is invalid: %.*s "
                                "(%s at offset %zu).",
                                fn, (int)len, (const char *)p, (const char *)why, (size_t)at);
    }
    c->md = pcre2_match_data_create_from_pattern(c->code, NULL);
    c->pattern = cs_xmalloc((size_t)len + 1);
    memcpy(c->pattern, p, (size_t)len);
    c->len = len;
    return CS_OK;
}

static bool row_null(cs_column *const *a, int na, int64_t i, int64_t n)
{
    for (int j = 0; j < na; j++)
        if (!cs_column_is_valid(a[j], i * cs_px_stride(a[j], n))) return true;
    return false;
}

static int64_t int_arg(const cs_column *c, int64_t i, int64_t n)
{
    return ((const int32_t *)(const void *)c->values)[i * cs_px_stride(c, n)];
}

static int rlike_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    compiled c = {0};
    for (int64_t i = 0; i < n; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        int32_t sl, pl;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        if (compile_pattern(&c, p, pl, "rlike", k->err) < 0) {
            compiled_free(&c);
            cs_column_unref(r);
            return k->err->code;
        }
        int rc = pcre2_match(c.code, (PCRE2_SPTR)s, (PCRE2_SIZE)sl, 0, 0, c.md, NULL);
        cs_bit_set(r->values, i, rc >= 0);
    }
    compiled_free(&c);
    *out = r;
    return CS_OK;
}

static int extract_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    compiled c = {0};
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (row_null(a, na, i, n)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl, pl;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        int64_t idx = na > 2 ? int_arg(a[2], i, n) : 1;
        if ((rc = compile_pattern(&c, p, pl, "regexp_extract", k->err)) < 0) break;
        uint32_t groups = 0;
        pcre2_pattern_info(c.code, PCRE2_INFO_CAPTURECOUNT, &groups);
        if (idx < 0 || idx > (int64_t)groups) {
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
                                  "22023",
                                  "The value of parameter(s) `idx` in `regexp_extract` is invalid: "
                                  "Expects group index between 0 and %u, but got %lld.",
                                  groups, (long long)idx);
            break;
        }
        int m = pcre2_match(c.code, (PCRE2_SPTR)s, (PCRE2_SIZE)sl, 0, 0, c.md, NULL);
        if (m < 0 || idx >= m) {
            cs_col_builder_append_string(b, "", 0);
            continue;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c.md);
        if (ov[2 * idx] == PCRE2_UNSET)
            cs_col_builder_append_string(b, "", 0);
        else
            cs_col_builder_append_string(b, s + ov[2 * idx], ov[2 * idx + 1] - ov[2 * idx]);
    }
    compiled_free(&c);
    cs_column *r = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc < 0) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* Appends rep to o with Java's replacement syntax: $n is group n, \x is x. */
static void append_replacement(cs_sbuf *o, const uint8_t *s, const PCRE2_SIZE *ov, int m,
                               const uint8_t *rep, int32_t rl)
{
    for (int32_t j = 0; j < rl; j++) {
        if (rep[j] == '\\' && j + 1 < rl) {
            cs_sbuf_putc(o, (char)rep[++j]);
        } else if (rep[j] == '$' && j + 1 < rl && rep[j + 1] >= '0' && rep[j + 1] <= '9') {
            int g = rep[++j] - '0';
            /* Java takes more digits while the number stays a group */
            while (j + 1 < rl && rep[j + 1] >= '0' && rep[j + 1] <= '9' &&
                   g * 10 + (rep[j + 1] - '0') < m)
                g = g * 10 + (rep[++j] - '0');
            if (g < m && ov[2 * g] != PCRE2_UNSET)
                cs_sbuf_append(o, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
        } else {
            cs_sbuf_putc(o, (char)rep[j]);
        }
    }
}

static int replace_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    compiled c = {0};
    cs_sbuf o = {0};
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (row_null(a, na, i, n)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl, pl, rl;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        const uint8_t *rep = cs_px_bytes(a[2], i, cs_px_stride(a[2], n), &rl);
        int64_t pos = na > 3 ? int_arg(a[3], i, n) : 1;
        if (pos < 1) {
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_PARAMETER_VALUE.REGEX_POSITION",
                                  "22023",
                                  "The value of parameter(s) `position` in "
                                  "`regexp_replace` is invalid: Expects a positive value, but "
                                  "got %lld.",
                                  (long long)pos);
            break;
        }
        if ((rc = compile_pattern(&c, p, pl, "regexp_replace", k->err)) < 0) break;
        /* the byte offset of code point pos - 1 */
        PCRE2_SIZE start = 0;
        for (int64_t ch = 1; ch < pos && start < (PCRE2_SIZE)sl; ch++) {
            start++;
            while (start < (PCRE2_SIZE)sl && (s[start] & 0xC0) == 0x80)
                start++;
        }
        o.len = 0;
        cs_sbuf_append(&o, s, start);
        PCRE2_SIZE at = start, copied = start;
        while (at <= (PCRE2_SIZE)sl) {
            int m = pcre2_match(c.code, (PCRE2_SPTR)s, (PCRE2_SIZE)sl, at, 0, c.md, NULL);
            if (m < 0) break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c.md);
            cs_sbuf_append(&o, s + copied, ov[0] - copied);
            append_replacement(&o, s, ov, m, rep, rl);
            copied = ov[1];
            if (ov[1] == ov[0]) { /* an empty match: step over one code point */
                if (ov[1] >= (PCRE2_SIZE)sl) break;
                PCRE2_SIZE next = ov[1] + 1;
                while (next < (PCRE2_SIZE)sl && (s[next] & 0xC0) == 0x80)
                    next++;
                cs_sbuf_append(&o, s + copied, next - copied);
                copied = next;
                at = next;
            } else {
                at = ov[1];
            }
        }
        if (copied < (PCRE2_SIZE)sl) cs_sbuf_append(&o, s + copied, (size_t)sl - copied);
        cs_col_builder_append_string(b, o.data ? o.data : "", o.len);
    }
    compiled_free(&c);
    cs_sbuf_free(&o);
    cs_column *r = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc < 0) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* The bytes of the UTF-8 code point at s[0] (1 for a stray byte). */
static int32_t code_point_len(const uint8_t *s, int32_t left)
{
    int32_t n = s[0] < 0x80 ? 1 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 1;
    return n < left ? n : left;
}

/* A split pattern that is one class of ASCII bytes, once or repeated (`\s+`, `,`, `[;,]`,
 * `[ \t]+`): its separators are found with a table of bytes, without the regex engine. The
 * matches are PCRE2's: such a class matches single ASCII bytes, which never occur inside a
 * multi-byte UTF-8 sequence, and never matches the empty string. */
typedef struct byte_class {
    bool in[256];
    bool repeat; /* a trailing '+' */
} byte_class;

/* The escape \e into bc (Java's and PCRE2's ASCII classes, and an escaped punctuation mark);
 * false for any other escape (\v, \h, \p, \Q, back references, ...). */
static bool class_escape(uint8_t e, byte_class *bc)
{
    const char *set = NULL;
    switch (e) {
    case 's':
        set = " \t\n\v\f\r";
        break;
    case 't':
        set = "\t";
        break;
    case 'n':
        set = "\n";
        break;
    case 'r':
        set = "\r";
        break;
    case 'f':
        set = "\f";
        break;
    case 'd':
        for (int c = '0'; c <= '9'; c++)
            bc->in[c] = true;
        return true;
    case 'w':
        for (int c = 0; c < 128; c++)
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_')
                bc->in[c] = true;
        return true;
    default:
        if (e < 0x21 || e > 0x7e || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') ||
            (e >= '0' && e <= '9'))
            return false;
        bc->in[e] = true; /* \. \| \, ...: the mark itself */
        return true;
    }
    for (; *set; set++)
        bc->in[(uint8_t)*set] = true;
    return true;
}

/* Whether pattern p is such a class; bc holds it then. */
static bool byte_class_parse(const uint8_t *p, int32_t len, byte_class *bc)
{
    memset(bc, 0, sizeof *bc);
    int32_t i = 0;
    if (len == 0) return false;
    if (p[0] == '[') {
        i = 1;
        if (i < len && (p[i] == '^' || p[i] == ']')) return false; /* negated; Java's "[]" */
        while (i < len && p[i] != ']') {
            uint8_t c = p[i];
            if (c >= 0x80 || c == '[' || c == '&') return false; /* Java's nested classes, && */
            if (c == '\\') {
                if (i + 1 >= len || !class_escape(p[i + 1], bc)) return false;
                i += 2;
            } else if (i + 2 < len && p[i + 1] == '-' && p[i + 2] != ']') {
                uint8_t hi = p[i + 2];
                if (hi >= 0x80 || hi == '\\' || hi == '[' || hi < c) return false;
                for (int x = c; x <= hi; x++)
                    bc->in[x] = true;
                i += 3;
            } else {
                bc->in[c] = true;
                i++;
            }
        }
        if (i >= len) return false;
        i++; /* ']' */
    } else if (p[0] == '\\') {
        if (len < 2 || !class_escape(p[1], bc)) return false;
        i = 2;
    } else {
        if (p[0] >= 0x80 || strchr(".^$|?*+()[]{}", p[0])) return false;
        bc->in[p[0]] = true;
        i = 1;
    }
    if (i < len && p[i] == '+') {
        bc->repeat = true;
        i++;
    }
    return i == len;
}

/* The pieces of a batch's rows, gathered here and handed to the element builder at once (one
 * append of every piece's bytes and offsets, not a builder call per piece): data and the
 * offsets off[0..n] of the n pieces so far. */
typedef struct pieces {
    uint8_t *data;
    size_t len, cap;
    int32_t *off;
    int64_t n, cap_n;
} pieces;

static void piece_add(pieces *p, const uint8_t *s, int32_t len)
{
    if (p->n + 1 >= p->cap_n) {
        p->cap_n = p->cap_n ? 2 * p->cap_n : 4096;
        p->off = cs_xrealloc(p->off, sizeof *p->off * (size_t)p->cap_n);
    }
    if (p->len + (size_t)len > p->cap) {
        while (p->len + (size_t)len > p->cap)
            p->cap = p->cap ? 2 * p->cap : 65536;
        p->data = cs_xrealloc(p->data, p->cap);
    }
    if (len) memcpy(p->data + p->len, s, (size_t)len);
    p->len += (size_t)len;
    p->off[++p->n] = (int32_t)p->len;
}

/* Java's s.split(pattern, limit) for a byte class: the pieces added to p; returns how many. */
static int32_t split_by_class(const byte_class *bc, const uint8_t *s, int32_t sl, int64_t limit,
                              pieces *p)
{
    int32_t n = 0, index = 0, at = 0;
    while (limit <= 0 || n < limit - 1) {
        while (at < sl && !bc->in[s[at]])
            at++;
        if (at >= sl) break;
        int32_t end = at + 1;
        if (bc->repeat)
            while (end < sl && bc->in[s[end]])
                end++;
        piece_add(p, s + index, at - index);
        n++;
        index = at = end;
    }
    piece_add(p, s + index, sl - index);
    return n + 1;
}

/* split(str, regexp, limit): Java's String.split as Spark's UTF8String.split calls it (limit 0
 * is -1: trailing empty strings are kept); a zero-width match at 0 makes no leading "" */
static int split_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder *el = cs_col_builder_child(b, 0);
    compiled c = {0};
    byte_class bc;
    bool by_class = false;
    int rc = CS_OK;
    pieces pv = {0};
    int32_t *counts = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *counts);
    uint8_t *valid = NULL; /* allocated at the first null row */
    pv.off = cs_xmalloc(sizeof *pv.off * 4096);
    pv.cap_n = 4096;
    pv.off[0] = 0;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (row_null(a, na, i, n)) {
            if (!valid) {
                valid = cs_xmalloc((size_t)n);
                memset(valid, 1, (size_t)n);
            }
            valid[i] = 0;
            continue;
        }
        int32_t sl, pl;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        int64_t limit = int_arg(a[2], i, n);
        bool same = c.code && c.len == pl && memcmp(c.pattern, p, (size_t)pl) == 0;
        if ((rc = compile_pattern(&c, p, pl, "split", k->err)) != CS_OK) break;
        if (!same) by_class = byte_class_parse(p, pl, &bc);
        if (by_class) {
            counts[i] = split_by_class(&bc, s, sl, limit, &pv);
            continue;
        }
        int32_t np = 0, index = 0, from = 0;
        while (from <= sl && (limit <= 0 || np < limit - 1)) {
            int m = pcre2_match(c.code, s, (PCRE2_SIZE)sl, (PCRE2_SIZE)from, 0, c.md, NULL);
            if (m < 0) break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c.md);
            int32_t ms = (int32_t)ov[0], me = (int32_t)ov[1];
            from = me > ms ? me : me + (me < sl ? code_point_len(s + me, sl - me) : 1);
            if (ms == 0 && me == 0) continue; /* no leading "" for a zero-width match */
            if (me == ms && ms >= sl) break;  /* Java finds no empty match at the end */
            piece_add(&pv, s + index, ms - index);
            np++;
            index = me;
        }
        piece_add(&pv, s + index, sl - index);
        counts[i] = np + 1;
    }
    if (rc == CS_OK) {
        cs_col_builder_append_binary(el, pv.off, pv.data, pv.n, NULL);
        cs_col_builder_append_lists(b, counts, n, valid);
    }
    free(pv.data);
    free(pv.off);
    free(counts);
    free(valid);
    compiled_free(&c);
    return cs_px_builder_result(b, rc, out);
}

/* Whether group idx exists in c; Spark's REGEX_GROUP_INDEX error otherwise. */
static int check_group(const compiled *c, int64_t idx, const char *fn, cs_error *err)
{
    uint32_t groups = 0;
    pcre2_pattern_info(c->code, PCRE2_INFO_CAPTURECOUNT, &groups);
    if (idx >= 0 && idx <= (int64_t)groups) return CS_OK;
    return cs_sql_error_set(err, CS_ETASK, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", "22023",
                            "The value of parameter(s) `idx` in `%s` is invalid: Expects group "
                            "index between 0 and %u, but got %lld.",
                            fn, groups, (long long)idx);
}

/* The next match at or after *from (Java's Matcher.find: after an empty match the search
 * moves on one code point); false when there is none. */
static bool find_next(const compiled *c, const uint8_t *s, int32_t sl, int32_t *from)
{
    if (*from > sl) return false;
    if (pcre2_match(c->code, s, (PCRE2_SIZE)sl, (PCRE2_SIZE)*from, 0, c->md, NULL) < 0)
        return false;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
    int32_t ms = (int32_t)ov[0], me = (int32_t)ov[1];
    *from = me > ms ? me : me + (me < sl ? code_point_len(s + me, sl - me) : 1);
    return true;
}

/* regexp_count(str, regexp), regexp_instr(str, regexp, idx): matches counted, or the 1-based
 * code point position where the first match's group idx starts (0: no match) */
static int count_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    bool instr = strcmp(k->e->fn, "regexp_instr") == 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    compiled c = {0};
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        int32_t sl, pl, from = 0, v = 0;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        if ((rc = compile_pattern(&c, p, pl, k->e->fn, k->err)) != CS_OK) break;
        if (instr) {
            int64_t idx = na > 2 ? int_arg(a[2], i, n) : 0;
            if ((rc = check_group(&c, idx, k->e->fn, k->err)) != CS_OK) break;
            if (find_next(&c, s, sl, &from)) { /* Spark answers the match's start, any idx */
                int32_t at = (int32_t)pcre2_get_ovector_pointer(c.md)[0];
                v = 1;
                for (int32_t q = 0; q < at; q += code_point_len(s + q, sl - q))
                    v++;
            }
        } else {
            while (find_next(&c, s, sl, &from))
                v++;
        }
        ((int32_t *)(void *)r->values)[i] = v;
    }
    compiled_free(&c);
    if (rc != CS_OK) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* regexp_extract_all(str, regexp, idx): group idx of every match ("" where it took no part) */
static int extract_all_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder *el = cs_col_builder_child(b, 0);
    compiled c = {0};
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (row_null(a, na, i, n)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl, pl, from = 0, count = 0;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        int64_t idx = na > 2 ? int_arg(a[2], i, n) : 1;
        if ((rc = compile_pattern(&c, p, pl, "regexp_extract_all", k->err)) != CS_OK ||
            (rc = check_group(&c, idx, "regexp_extract_all", k->err)) != CS_OK)
            break;
        while (find_next(&c, s, sl, &from)) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c.md);
            if (ov[2 * idx] == PCRE2_UNSET)
                cs_col_builder_append_string(el, "", 0);
            else
                cs_col_builder_append_string(el, s + ov[2 * idx], ov[2 * idx + 1] - ov[2 * idx]);
            count++;
        }
        cs_col_builder_append_lists(b, &count, 1, NULL);
    }
    compiled_free(&c);
    return cs_px_builder_result(b, rc, out);
}

/* The pieces of Java's s.split(regex, limit) (limit <= 0: no limit), as [start, end) pairs
 * appended to *pv (grown as needed, reused across rows); returns how many. */
static int32_t java_split(const compiled *c, const uint8_t *s, int32_t sl, int64_t limit,
                          int32_t **pv, int32_t *cap)
{
    int32_t pieces = 0, index = 0, from = 0;
    for (;;) {
        bool last = limit > 0 && pieces >= limit - 1;
        int32_t ms = sl, me = sl;
        if (!last && from <= sl &&
            pcre2_match(c->code, s, (PCRE2_SIZE)sl, (PCRE2_SIZE)from, 0, c->md, NULL) >= 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
            ms = (int32_t)ov[0], me = (int32_t)ov[1];
            from = me > ms ? me : me + (me < sl ? code_point_len(s + me, sl - me) : 1);
            if (ms == 0 && me == 0) continue; /* no leading "" for a zero-width match */
            if (me == ms && ms >= sl) ms = me = sl, last = true;
        } else {
            last = true;
        }
        if (2 * (pieces + 1) > *cap) {
            *cap = *cap ? 2 * *cap : 32;
            *pv = cs_xrealloc(*pv, sizeof **pv * (size_t)*cap);
        }
        (*pv)[2 * pieces] = index;
        (*pv)[2 * pieces + 1] = last ? sl : ms;
        pieces++;
        if (last) return pieces;
        index = me;
    }
}

/* str_to_map(text, pair_delim, key_value_delim): both delimiters regular expressions (Spark's
 * StringToMap); a pair without the delimiter has a null value; a key twice is
 * DUPLICATED_MAP_KEY (spark.sql.mapKeyDedupPolicy=EXCEPTION) */
static int str_to_map_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder *kb = cs_col_builder_child(b, 0), *vb = cs_col_builder_child(b, 1);
    compiled pc = {0}, kc = {0};
    int32_t *pairs = NULL, *kv = NULL, *ranges = NULL, pcap = 0, kcap = 0, rcap = 0;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (row_null(a, na, i, n)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl, pl, kl;
        const uint8_t *s = cs_px_bytes(a[0], i, cs_px_stride(a[0], n), &sl);
        const uint8_t *p = cs_px_bytes(a[1], i, cs_px_stride(a[1], n), &pl);
        const uint8_t *q = cs_px_bytes(a[2], i, cs_px_stride(a[2], n), &kl);
        if ((rc = compile_pattern(&pc, p, pl, "str_to_map", k->err)) != CS_OK ||
            (rc = compile_pattern(&kc, q, kl, "str_to_map", k->err)) != CS_OK)
            break;
        int32_t np = java_split(&pc, s, sl, -1, &pairs, &pcap);
        if (4 * np > rcap) {
            rcap = 4 * np;
            ranges = cs_xrealloc(ranges, sizeof *ranges * (size_t)rcap);
        }
        for (int32_t j = 0; j < np; j++) { /* key [r0, r1), value [r2, r3) or r2 = -1 */
            int32_t *r = ranges + 4 * j, off = pairs[2 * j];
            int32_t nk = java_split(&kc, s + off, pairs[2 * j + 1] - off, 2, &kv, &kcap);
            r[0] = off + kv[0], r[1] = off + kv[1];
            r[2] = nk > 1 ? off + kv[2] : -1, r[3] = nk > 1 ? off + kv[3] : -1;
        }
        for (int32_t j = 1; j < np && rc == CS_OK; j++)
            for (int32_t m = 0; m < j && rc == CS_OK; m++) {
                const int32_t *x = ranges + 4 * j, *y = ranges + 4 * m;
                if (x[1] - x[0] == y[1] - y[0] &&
                    memcmp(s + x[0], s + y[0], (size_t)(x[1] - x[0])) == 0)
                    rc = cs_sql_error_set(k->err, CS_ETASK, "DUPLICATED_MAP_KEY", "23505",
                                          "Duplicate map key %.*s was found, please check the "
                                          "input data.",
                                          (int)(x[1] - x[0]), (const char *)s + x[0]);
            }
        for (int32_t j = 0; j < np && rc == CS_OK; j++) {
            const int32_t *r = ranges + 4 * j;
            cs_col_builder_append_string(kb, s + r[0], (size_t)(r[1] - r[0]));
            if (r[2] >= 0)
                cs_col_builder_append_string(vb, s + r[2], (size_t)(r[3] - r[2]));
            else
                cs_col_builder_append_nulls(vb, 1);
        }
        if (rc == CS_OK) cs_col_builder_append_lists(b, &np, 1, NULL);
    }
    compiled_free(&pc);
    compiled_free(&kc);
    free(pairs);
    free(kv);
    free(ranges);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_regexp_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    const cs_type_id S = CS_TYPE_STRING, I = CS_TYPE_INT;
    if (n < 2 || t[0]->id != S || t[1]->id != S) return NULL;
    if (strcmp(fn, "rlike") == 0 && n == 2) return rlike_kernel;
    if (strcmp(fn, "str_to_map") == 0 && n == 3 && t[2]->id == S && result->id == CS_TYPE_MAP)
        return str_to_map_kernel;
    if (strcmp(fn, "regexp_count") == 0 && n == 2 && result->id == I) return count_kernel;
    if (strcmp(fn, "regexp_instr") == 0 && n == 3 && t[2]->id == I && result->id == I)
        return count_kernel;
    if (strcmp(fn, "regexp_extract_all") == 0 && n == 3 && t[2]->id == I &&
        result->id == CS_TYPE_ARRAY)
        return extract_all_kernel;
    if (strcmp(fn, "split") == 0 && n == 3 && t[2]->id == I) return split_kernel;
    if (strcmp(fn, "regexp_extract") == 0 && (n == 2 || (n == 3 && t[2]->id == I)))
        return extract_kernel;
    if (strcmp(fn, "regexp_replace") == 0 && t[2]->id == S && (n == 3 || (n == 4 && t[3]->id == I)))
        return replace_kernel;
    return NULL;
}
