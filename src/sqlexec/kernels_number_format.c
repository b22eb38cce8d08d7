/*
 * kernels_number_format.c — Spark's number format strings (ToNumberParser): to_char(decimal,
 * format) writes a decimal by the format, to_number(string, format) and try_to_number read one
 * into decimal(digits of the format, digits after its point). Format elements: 0 and 9 digits
 * (a run starting with 0 before the point wants exactly that many digits and pads with zeros;
 * otherwise at most, padded with spaces), . or D the point, , or G a thousands separator, $,
 * S (a + or - sign), MI (a - when negative), PR (<...> when negative). A format that breaks
 * Spark's rules is INVALID_FORMAT.<reason>; a text that does not match is
 * INVALID_FORMAT.MISMATCH_INPUT (try_to_number: NULL); a number with more digits than the
 * format holds is written as #s. A literal format is compiled once per batch. Called through
 * cs_px_number_format_lookup (kernels_format.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdio.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

enum { T_DIGITS, T_POINT, T_SEP, T_DOLLAR, T_SIGN, T_MINUS, T_OPEN, T_CLOSE, T_BAD };
enum { MAX_TOKENS = 96 };

typedef struct ftok {
    int kind;
    int num;    /* T_DIGITS: digits in this run */
    bool exact; /* T_DIGITS: a run starting with 0 before the point */
    int group;  /* T_DIGITS, T_SEP: the digit group (runs and separators in a row) */
} ftok;

typedef struct nformat {
    ftok t[MAX_TOKENS];
    int n;
    int precision, scale;
    int before, after;   /* digits before / after the point */
    const char *invalid; /* the INVALID_FORMAT sub-class, NULL when valid */
} nformat;

static bool is_group(int kind)
{
    return kind == T_DIGITS || kind == T_SEP;
}

static void push(nformat *f, int kind, int num, bool exact)
{
    if (f->n == MAX_TOKENS) {
        f->invalid = "WRONG_NUM_TOKEN";
        return;
    }
    f->t[f->n++] = (ftok){kind, num, exact, -1};
}

/* index of the first token of a kind (a digit group for T_DIGITS), or -1 */
static int first_of(const nformat *f, int kind)
{
    for (int i = 0; i < f->n; i++)
        if (f->t[i].kind == kind) return i;
    return -1;
}

/* Spark's checks, in its order; sets f->invalid */
static void validate(nformat *f, size_t len)
{
    if (f->invalid) return;
    if (len == 0) {
        f->invalid = "EMPTY";
        return;
    }
    int digit = -1;
    for (int i = 0; i < f->n && digit < 0; i++)
        if (is_group(f->t[i].kind)) digit = i;
    if (first_of(f, T_DIGITS) < 0) {
        f->invalid = "WRONG_NUM_DIGIT";
        return;
    }
    int dollar = first_of(f, T_DOLLAR), point = first_of(f, T_POINT);
    if (digit < dollar) {
        f->invalid = "CUR_MUST_BEFORE_DIGIT";
        return;
    }
    if (point != -1 && point < dollar) {
        f->invalid = "CUR_MUST_BEFORE_DEC";
        return;
    }
    for (int i = 0; i < f->n; i++) {
        if (f->t[i].kind != T_SEP) continue;
        bool after_point = point != -1 && i > point;
        if (after_point) {
            f->invalid = "THOUSANDS_SEPS_MUST_BEFORE_DEC";
            return;
        }
        if (i == 0 || f->t[i - 1].kind != T_DIGITS || i + 1 >= f->n ||
            f->t[i + 1].kind != T_DIGITS) {
            f->invalid = "CONT_THOUSANDS_SEPS";
            return;
        }
    }
    static const int once[] = {T_POINT, T_SIGN, T_MINUS, T_DOLLAR, T_CLOSE};
    for (size_t k = 0; k < sizeof once / sizeof once[0]; k++) {
        int c = 0;
        for (int i = 0; i < f->n; i++)
            c += f->t[i].kind == once[k];
        if (c > 1) {
            f->invalid = "WRONG_NUM_TOKEN";
            return;
        }
    }
    /* [PR] [MI | S] [$] [digits] [.] [digits] [$] [PR | MI | S], one of each slot at most */
    static const int slots[][3] = {
        {T_OPEN, -1, -1},  {T_MINUS, T_SIGN, -1}, {T_DOLLAR, -1, -1}, {T_DIGITS, -1, -1},
        {T_POINT, -1, -1}, {T_DIGITS, -1, -1},    {T_DOLLAR, -1, -1}, {T_MINUS, T_SIGN, T_CLOSE}};
    int i = 0;
    for (size_t s = 0; s < sizeof slots / sizeof slots[0] && i < f->n; s++) {
        int kind = f->t[i].kind;
        if (kind == slots[s][0] || kind == slots[s][1] || kind == slots[s][2] ||
            (slots[s][0] == T_DIGITS && is_group(kind))) {
            if (is_group(kind)) { /* the whole group fills the slot */
                int g = f->t[i].group;
                while (i < f->n && is_group(f->t[i].kind) && f->t[i].group == g)
                    i++;
            } else {
                i++;
            }
        }
    }
    if (i < f->n) f->invalid = "UNEXPECTED_TOKEN";
}

static void compile(nformat *f, const char *s, size_t len)
{
    memset(f, 0, sizeof *f);
    bool point = false;
    for (size_t i = 0; i < len;) {
        char c = s[i];
        if (c == '0' || c == '9') {
            size_t b = i;
            while (i < len && (s[i] == '0' || s[i] == '9'))
                i++;
            push(f, T_DIGITS, (int)(i - b), c == '0' && !point);
            continue;
        }
        i++;
        if (c == '.' || c == 'D') {
            push(f, T_POINT, 0, false);
            point = true;
        } else if (c == ',' || c == 'G') {
            push(f, T_SEP, 0, false);
        } else if (c == '$') {
            push(f, T_DOLLAR, 0, false);
        } else if (c == 'S') {
            push(f, T_SIGN, 0, false);
        } else if (c == 'M' && i < len && s[i] == 'I') {
            push(f, T_MINUS, 0, false);
            i++;
        } else if (c == 'P' && i < len && s[i] == 'R') {
            if (f->n < MAX_TOKENS) { /* PR: < first, > last */
                memmove(&f->t[1], &f->t[0], sizeof f->t[0] * (size_t)f->n);
                f->t[0] = (ftok){T_OPEN, 0, false, -1};
                f->n++;
            }
            push(f, T_CLOSE, 0, false);
            i++;
        } else {
            push(f, T_BAD, 0, false);
        }
    }
    int group = 0;
    bool after = false;
    for (int i = 0; i < f->n; i++) {
        ftok *t = &f->t[i];
        if (is_group(t->kind)) {
            t->group = group;
            if (i + 1 >= f->n || !is_group(f->t[i + 1].kind)) group++;
        }
        if (t->kind == T_POINT) after = true;
        if (t->kind == T_DIGITS) {
            f->precision += t->num;
            if (after)
                f->after += t->num;
            else
                f->before += t->num;
        }
    }
    f->scale = f->after;
    validate(f, len);
}

/* ---- to_number ---- */

typedef struct parsed {
    char digits[80]; /* before the point, then after it */
    int n_before, n_after;
} parsed;

/* the digit group g at text[*at...]: its digits, separators and spaces, checked against the
 * group's runs counted from the right */
static bool read_group(const nformat *f, int first, const char *s, size_t len, size_t *at,
                       bool after_point, parsed *out)
{
    int sizes[MAX_TOKENS], n_sizes = 0, cur = 0;
    size_t i = *at;
    for (; i < len; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (c >= '0' && c <= '9') {
            if (out->n_before + out->n_after >= (int)sizeof out->digits - 1) return false;
            out->digits[out->n_before + out->n_after] = c;
            if (after_point)
                out->n_after++;
            else
                out->n_before++;
            cur++;
            continue;
        }
        if (c == ',') {
            if (n_sizes == MAX_TOKENS) return false;
            sizes[n_sizes++] = cur;
            cur = 0;
            continue;
        }
        break;
    }
    if (n_sizes == MAX_TOKENS) return false;
    sizes[n_sizes++] = cur;
    /* the group's runs, right to left, against the sizes read, right to left */
    int last = first;
    while (last + 1 < f->n && is_group(f->t[last + 1].kind) &&
           f->t[last + 1].group == f->t[first].group)
        last++;
    int k = 0;
    for (int j = last; j >= first; j--) {
        const ftok *t = &f->t[j];
        if (t->kind != T_DIGITS) continue;
        int actual = k < n_sizes ? sizes[n_sizes - 1 - k] : 0;
        k++;
        if (t->exact ? actual != t->num : actual > t->num) return false;
    }
    if (n_sizes > k) return false;
    *at = i;
    return true;
}

static bool parse_number(const nformat *f, const char *s, size_t len, __int128 *out)
{
    parsed p = {{0}, 0, 0};
    size_t at = 0;
    bool point = false, open = false, close = false, neg = false;
    for (int i = 0; i < f->n; i++) {
        const ftok *t = &f->t[i];
        char c = at < len ? s[at] : '\0';
        bool more = at < len;
        switch (t->kind) {
        case T_DIGITS:
        case T_SEP:
            if (i > 0 && is_group(f->t[i - 1].kind) && f->t[i - 1].group == t->group) break;
            if (!read_group(f, i, s, len, &at, point, &p)) return false;
            break;
        case T_POINT:
            if (more && c == '.') {
                point = true;
                at++;
            }
            break;
        case T_DOLLAR:
            if (more && c != '$') return false;
            if (more) at++;
            break;
        case T_SIGN:
            if (more && (c == '+' || c == '-')) {
                neg ^= c == '-';
                at++;
            }
            break;
        case T_MINUS:
            if (more && c == '-') {
                neg = !neg;
                at++;
            }
            break;
        case T_OPEN:
            if (more && c == '<') {
                if (open) return false;
                open = true;
                at++;
            }
            break;
        case T_CLOSE:
            if (more && c == '>') {
                if (!open) return false;
                close = true;
                neg = !neg;
                at++;
            }
            break;
        default:
            return false;
        }
    }
    if (at < len || open != close || p.n_before + p.n_after == 0) return false;
    __int128 v = 0;
    for (int i = 0; i < p.n_before + p.n_after; i++)
        v = v * 10 + (p.digits[i] - '0');
    for (int i = p.n_after; i < f->scale; i++)
        v *= 10;
    *out = neg ? -v : v;
    return true;
}

/* ---- to_char ---- */

static void append_moving_left(cs_sbuf *r, char ch) /* ch passes the spaces before it */
{
    cs_sbuf_putc(r, ch);
    for (size_t i = r->len - 1; i >= 1 && r->data[i - 1] == ' ' && r->data[i] == ch; i--) {
        r->data[i] = ' ';
        r->data[i - 1] = ch;
    }
}

static void append_space(cs_sbuf *r) /* a space passes the signs before it */
{
    cs_sbuf_putc(r, ' ');
    for (size_t i = r->len - 1;
         i >= 1 && r->data[i] == ' ' &&
         (r->data[i - 1] == '+' || r->data[i - 1] == '-' || r->data[i - 1] == '<');
         i--) {
        r->data[i] = r->data[i - 1];
        r->data[i - 1] = ' ';
    }
}

static void strip_lone_point(cs_sbuf *r)
{
    if (r->len == 0) return; /* an empty buffer has no data yet */
    char *p = memchr(r->data, '.', r->len);
    if (p && ((size_t)(p - r->data) == r->len - 1 || p[1] == ' ')) *p = ' ';
}

static bool format_number(const nformat *f, __int128 v, int vscale, cs_sbuf *r)
{
    bool neg = v < 0;
    char text[48];
    int len = cs_px_dec_format(neg ? -v : v, vscale, text);
    char *dot = memchr(text, '.', (size_t)len);
    int ib = dot ? (int)(dot - text) : len, fb = dot ? len - ib - 1 : 0;
    const char *ip = text, *fp = dot ? dot + 1 : text + len;
    while (ib > 0 && *ip == '0')
        ip++, ib--;
    while (fb > 0 && fp[fb - 1] == '0')
        fb--;
    char before[80], after[80];
    if (f->before > 78 || f->after > 78) return false;
    if (ib > f->before || fb > f->after) {
        memset(before, '#', (size_t)f->before);
        memset(after, '#', (size_t)f->after);
    } else {
        memset(before, ' ', (size_t)(f->before - ib));
        memcpy(before + f->before - ib, ip, (size_t)ib);
        memcpy(after, fp, (size_t)fb);
        memset(after + fb, '0', (size_t)(f->after - fb));
    }
    int bi = 0, ai = 0;
    bool point = false;
    for (int i = 0; i < f->n; i++) {
        const ftok *t = &f->t[i];
        switch (t->kind) {
        case T_DIGITS:
            for (int d = 0; d < t->num; d++) {
                if (point) {
                    cs_sbuf_putc(r, after[ai++]);
                    continue;
                }
                char c = before[bi++];
                if (c == ' ' && t->exact)
                    cs_sbuf_putc(r, '0');
                else if (c == ' ')
                    append_space(r);
                else
                    cs_sbuf_putc(r, c);
            }
            break;
        case T_SEP:
            if (r->len && r->data[r->len - 1] >= '0' && r->data[r->len - 1] <= '9')
                cs_sbuf_putc(r, ',');
            else
                append_space(r);
            break;
        case T_POINT:
            if (r->len && r->data[r->len - 1] == ' ') r->data[r->len - 1] = '0';
            cs_sbuf_putc(r, '.');
            point = true;
            break;
        case T_DOLLAR:
            cs_sbuf_putc(r, '$');
            break;
        case T_SIGN:
            strip_lone_point(r);
            append_moving_left(r, neg ? '-' : '+');
            break;
        case T_MINUS:
            if (neg) {
                strip_lone_point(r);
                append_moving_left(r, '-');
            } else {
                cs_sbuf_putc(r, ' ');
            }
            break;
        case T_OPEN:
            if (neg) cs_sbuf_putc(r, '<');
            break;
        case T_CLOSE:
            strip_lone_point(r);
            if (neg)
                append_moving_left(r, '>');
            else
                cs_sbuf_puts(r, "  ");
            break;
        default:
            break;
        }
    }
    if (bi < f->before || ai < f->after) return false;
    strip_lone_point(r);
    if (r->len == 0 || (r->len == 1 && (r->data[0] == '+' || r->data[0] == '-'))) {
        r->len = 0;
        cs_sbuf_putc(r, '0');
    }
    return true;
}

/* ---- kernels ---- */

static int format_error(const cs_px_kctx *k, const char *sub, const uint8_t *fmt, int32_t flen,
                        const char *input_type, const char *input, int32_t ilen)
{
    char cls[64];
    snprintf(cls, sizeof cls, "INVALID_FORMAT.%s", sub);
    if (input)
        return cs_sql_error_set(k->err, CS_ETASK, cls, "42601",
                                "The format is invalid: %.*s. The input \"%s\" %.*s does not "
                                "match the format.",
                                (int)flen, (const char *)fmt, input_type, (int)ilen, input);
    return cs_sql_error_set(k->err, CS_ETASK, cls, "42601", "The format is invalid: '%.*s'.",
                            (int)flen, (const char *)fmt);
}

/* to_char(decimal, format), to_number(string, format), try_to_number(string, format) */
static int number_format_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool to_char = strcmp(k->e->fn, "to_char") == 0, try = strcmp(k->e->fn, "try_to_number") == 0;
    int64_t n = k->n, sv = cs_px_stride(a[0], n), sf = cs_px_stride(a[1], n);
    const cs_col_type *rt = k->e->type;
    cs_col_builder *b = cs_col_builder_new(k->alloc, (cs_col_type *)rt);
    nformat f;
    const uint8_t *last = NULL;
    int32_t last_len = -1;
    cs_sbuf sb = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(a[0], i * sv) || !cs_column_is_valid(a[1], i * sf)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t fl;
        const uint8_t *fs = cs_px_bytes(a[1], i, sf, &fl);
        if (!last || fl != last_len || memcmp(fs, last, (size_t)fl) != 0) {
            compile(&f, (const char *)fs, (size_t)fl);
            last = fs;
            last_len = fl;
        }
        if (f.invalid) {
            rc = format_error(k, f.invalid, fs, fl, NULL, NULL, 0);
            break;
        }
        if (to_char) {
            __int128 v = cs_px_dec_get(a[0], i * sv);
            sb.len = 0;
            if (!format_number(&f, v, a[0]->type->scale, &sb)) {
                char text[48], tname[32];
                int tl = cs_px_dec_format(v, a[0]->type->scale, text);
                snprintf(tname, sizeof tname, "DECIMAL(%d,%d)", a[0]->type->precision,
                         a[0]->type->scale);
                rc = format_error(k, "MISMATCH_INPUT", fs, fl, tname, text, tl);
                break;
            }
            cs_col_builder_append_string(b, sb.data, sb.len);
            continue;
        }
        int32_t len;
        const uint8_t *s = cs_px_bytes(a[0], i, sv, &len);
        __int128 v;
        if (!parse_number(&f, (const char *)s, (size_t)len, &v) ||
            !cs_px_dec_fits(v, rt->precision)) {
            if (try) {
                cs_col_builder_append_nulls(b, 1);
                continue;
            }
            rc = format_error(k, "MISMATCH_INPUT", fs, fl, "STRING", (const char *)s, len);
            break;
        }
        cs_col_builder_append_values(b, &v, 1, NULL);
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_number_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result)
{
    if (n != 2 || t[1]->id != CS_TYPE_STRING) return NULL;
    if (strcmp(fn, "to_char") == 0 && t[0]->id == CS_TYPE_DECIMAL && result->id == CS_TYPE_STRING)
        return number_format_kernel;
    if ((strcmp(fn, "to_number") == 0 || strcmp(fn, "try_to_number") == 0) &&
        t[0]->id == CS_TYPE_STRING && result->id == CS_TYPE_DECIMAL)
        return number_format_kernel;
    return NULL;
}
