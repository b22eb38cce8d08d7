/*
 * kernels_format.c — format_string(fmt, args...) and its alias printf: java.util.Formatter's
 * conversions as Spark's FormatString calls it (Locale.US) over Spark's values: %s (strings as
 * they are, numbers and booleans as Java prints them, null as "null"), %d %x %X %o over
 * integral values (int arguments wrap as Java ints for %x / %o), %f %e %E over double, float
 * and decimal values (HALF_UP from the shortest decimal form, as Java's FormattedFloatingDecimal),
 * %b, %c, %% and %n; flags '-' '0' '+' ' ' ',' '(' and '#', width, precision and explicit
 * argument indexes ("%2$s"). A conversion its argument does not take, or a missing argument,
 * is Java's exception as Spark raises it. A null format is null.
 *
 * Called through cs_px_format_lookup (pexpr.c's chain), which also hands out the number-format
 * kernels of kernels_number_format.c (to_char, to_number). Arguments are borrowed; the result is
 * one new reference; one text buffer per batch, reused by every row.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

typedef struct {
    bool left, zero, plus, space, group, paren, alt;
    int width, precision; /* -1: none */
} spec;

static bool is_integral(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG;
}

/* body (sign not included) padded to the spec's width, with sign / grouping / parentheses */
static void emit_number(cs_sbuf *o, const spec *sp, bool neg, const char *digits, size_t len)
{
    char grouped[160];
    size_t gl = 0;
    const char *dot = memchr(digits, '.', len);
    size_t int_len = dot ? (size_t)(dot - digits) : len;
    for (size_t i = 0; i < len && gl + 2 < sizeof grouped; i++) {
        if (sp->group && i > 0 && i < int_len && (int_len - i) % 3 == 0) grouped[gl++] = ',';
        grouped[gl++] = digits[i];
    }
    const char *pre = neg ? (sp->paren ? "(" : "-") : sp->plus ? "+" : sp->space ? " " : "";
    const char *post = neg && sp->paren ? ")" : "";
    size_t total = strlen(pre) + gl + strlen(post);
    size_t pad = sp->width > 0 && (size_t)sp->width > total ? (size_t)sp->width - total : 0;
    if (!sp->left && !sp->zero)
        for (size_t i = 0; i < pad; i++)
            cs_sbuf_putc(o, ' ');
    cs_sbuf_puts(o, pre);
    if (!sp->left && sp->zero)
        for (size_t i = 0; i < pad; i++)
            cs_sbuf_putc(o, '0');
    cs_sbuf_append(o, grouped, gl);
    cs_sbuf_puts(o, post);
    if (sp->left)
        for (size_t i = 0; i < pad; i++)
            cs_sbuf_putc(o, ' ');
}

static void emit_text(cs_sbuf *o, const spec *sp, const char *s, size_t len, bool upper)
{
    if (sp->precision >= 0 && (size_t)sp->precision < len) len = (size_t)sp->precision;
    size_t pad = sp->width > 0 && (size_t)sp->width > len ? (size_t)sp->width - len : 0;
    if (!sp->left)
        for (size_t i = 0; i < pad; i++)
            cs_sbuf_putc(o, ' ');
    for (size_t i = 0; i < len; i++)
        cs_sbuf_putc(o, upper ? (char)toupper((unsigned char)s[i]) : s[i]);
    if (sp->left)
        for (size_t i = 0; i < pad; i++)
            cs_sbuf_putc(o, ' ');
}

/* Shortest decimal digits and exponent of |d| (d = 0.D1D2... * 10^exp10) */
static int shortest_digits(double d, char *digits, int *exp10)
{
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        if (strtod(buf, NULL) == d) break;
    }
    int n = 0;
    const char *q = buf;
    for (; *q && *q != 'e'; q++)
        if (isdigit((unsigned char)*q)) digits[n++] = *q;
    *exp10 = atoi(q + 1) + 1;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    return n;
}

/* digits rounded HALF_UP to keep `keep` of them (keep may be 0 or past the end) */
static int round_half_up(char *digits, int n, int keep, int *exp10)
{
    if (keep >= n) return n;
    if (keep < 0) {
        digits[0] = '0';
        digits[1] = 0;
        return 1;
    }
    bool up = digits[keep] >= '5';
    n = keep;
    digits[n] = 0;
    for (int i = n - 1; up && i >= 0; i--) {
        if (digits[i] == '9') {
            digits[i] = '0';
        } else {
            digits[i]++;
            up = false;
        }
    }
    if (up) {
        memmove(digits + 1, digits, (size_t)n + 1);
        digits[0] = '1';
        n++;
        (*exp10)++;
    }
    if (n == 0) {
        digits[0] = '0';
        digits[1] = 0;
        n = 1;
        *exp10 = 1;
    }
    return n;
}

/* %f / %e of |d| into out (no sign) */
static void float_body(double d, char conv, int prec, char *out, size_t cap)
{
    char digits[48];
    int e10, n = d == 0 ? (strcpy(digits, "0"), e10 = 1, 1) : shortest_digits(d, digits, &e10);
    size_t o = 0;
    if (conv == 'f') {
        n = round_half_up(digits, n, e10 + prec, &e10);
        if (e10 <= 0) {
            out[o++] = '0';
        } else {
            for (int i = 0; i < e10 && o + 1 < cap; i++)
                out[o++] = i < n ? digits[i] : '0';
        }
        if (prec > 0) out[o++] = '.';
        for (int i = 0; i < prec && o + 1 < cap; i++) {
            int di = e10 + i;
            out[o++] = di >= 0 && di < n ? digits[di] : '0';
        }
        out[o] = 0;
        return;
    }
    n = round_half_up(digits, n, prec + 1, &e10);
    out[o++] = digits[0];
    if (prec > 0) out[o++] = '.';
    for (int i = 1; i <= prec && o + 1 < cap; i++)
        out[o++] = i < n ? digits[i] : '0';
    int ex = d == 0 ? 0 : e10 - 1;
    snprintf(out + o, cap - o, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
}

static int conversion_error(cs_error *err, char conv, const cs_col_type *t)
{
    cs_sbuf sb = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &sb);
    int rc = cs_error_set(err, CS_ETASK, "IllegalFormatConversionException: %c != %s", conv,
                          cs_sbuf_str(&sb));
    cs_sbuf_free(&sb);
    return rc;
}

/* One conversion of argument c's row r. */
static int convert(cs_sbuf *o, const spec *sp, char conv, const cs_column *c, int64_t r,
                   cs_error *err)
{
    bool valid = cs_column_is_valid(c, r);
    cs_type_id id = c->type->id;
    char buf[128];
    char lc = (char)tolower((unsigned char)conv);
    bool upper = conv != lc;
    if (lc == 'b') {
        bool v = valid && (id != CS_TYPE_BOOLEAN || cs_bit_get(c->values, r));
        emit_text(o, sp, v ? "true" : "false", v ? 4 : 5, upper);
        return CS_OK;
    }
    if (!valid) {
        emit_text(o, sp, "null", 4, upper);
        return CS_OK;
    }
    if (lc == 's') {
        int32_t l;
        size_t n;
        if (id == CS_TYPE_STRING) {
            const uint8_t *s = cs_column_bytes(c, r, &l);
            emit_text(o, sp, (const char *)s, (size_t)l, upper);
            return CS_OK;
        }
        if (id == CS_TYPE_BOOLEAN)
            n = (size_t)snprintf(buf, sizeof buf, "%s",
                                 cs_bit_get(c->values, r) ? "true" : "false");
        else if (id == CS_TYPE_DOUBLE)
            n = (size_t)cs_px_java_double_text(((const double *)(const void *)c->values)[r], false,
                                               buf);
        else if (id == CS_TYPE_FLOAT)
            n = (size_t)cs_px_java_double_text(((const float *)(const void *)c->values)[r], true,
                                               buf);
        else if (id == CS_TYPE_DECIMAL)
            n = (size_t)cs_px_dec_format(cs_px_dec_get(c, r), c->type->scale, buf);
        else if (is_integral(id) || id == CS_TYPE_DATE || id == CS_TYPE_TIMESTAMP ||
                 id == CS_TYPE_TIMESTAMP_NTZ)
            n = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)cs_sql_long_at(c, r));
        else
            return conversion_error(err, conv, c->type);
        emit_text(o, sp, buf, n, upper);
        return CS_OK;
    }
    if (lc == 'c') {
        if (!is_integral(id)) return conversion_error(err, conv, c->type);
        int64_t v = cs_sql_long_at(c, r);
        char u[8];
        size_t n = 0;
        if (v < 0x80)
            u[n++] = (char)v;
        else if (v < 0x800)
            u[n++] = (char)(0xC0 | (v >> 6)), u[n++] = (char)(0x80 | (v & 0x3F));
        else if (v < 0x10000)
            u[n++] = (char)(0xE0 | (v >> 12)), u[n++] = (char)(0x80 | ((v >> 6) & 0x3F)),
            u[n++] = (char)(0x80 | (v & 0x3F));
        else
            u[n++] = (char)(0xF0 | (v >> 18)), u[n++] = (char)(0x80 | ((v >> 12) & 0x3F)),
            u[n++] = (char)(0x80 | ((v >> 6) & 0x3F)), u[n++] = (char)(0x80 | (v & 0x3F));
        emit_text(o, sp, u, n, upper);
        return CS_OK;
    }
    if (lc == 'd' || lc == 'x' || lc == 'o') {
        if (!is_integral(id)) return conversion_error(err, conv, c->type);
        int64_t v = cs_sql_long_at(c, r);
        if (lc == 'd') {
            uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)a);
            emit_number(o, sp, v < 0, buf, (size_t)n);
            return CS_OK;
        }
        uint64_t u = id == CS_TYPE_LONG    ? (uint64_t)v
                     : id == CS_TYPE_INT   ? (uint32_t)v
                     : id == CS_TYPE_SHORT ? (uint16_t)v
                                           : (uint8_t)v;
        int n = snprintf(buf, sizeof buf, lc == 'x' ? (upper ? "%s%llX" : "%s%llx") : "%s%llo",
                         sp->alt ? (lc == 'x' ? (upper ? "0X" : "0x") : "0") : "",
                         (unsigned long long)u);
        spec plain = *sp;
        plain.plus = plain.space = plain.group = plain.paren = false;
        emit_number(o, &plain, false, buf, (size_t)n);
        return CS_OK;
    }
    if (lc == 'f' || lc == 'e') {
        double d;
        if (id == CS_TYPE_DOUBLE)
            d = ((const double *)(const void *)c->values)[r];
        else if (id == CS_TYPE_FLOAT)
            d = ((const float *)(const void *)c->values)[r];
        else if (id == CS_TYPE_DECIMAL)
            d = (double)cs_px_dec_get(c, r) / (double)cs_px_pow10(c->type->scale);
        else
            return conversion_error(err, conv, c->type);
        if (d != d || d == 1.0 / 0.0 || d == -1.0 / 0.0) {
            const char *t = d != d  ? "NaN"
                            : d > 0 ? (sp->plus ? "+Infinity" : "Infinity")
                                    : (sp->paren ? "(Infinity)" : "-Infinity");
            emit_text(o, sp, t, strlen(t), false);
            return CS_OK;
        }
        bool neg = d < 0 || (d == 0 && 1.0 / d < 0);
        float_body(neg ? -d : d, lc, sp->precision >= 0 ? sp->precision : 6, buf, sizeof buf);
        if (upper)
            for (char *q = buf; *q; q++)
                *q = (char)toupper((unsigned char)*q);
        emit_number(o, sp, neg, buf, strlen(buf));
        return CS_OK;
    }
    return cs_error_set(err, CS_ETASK, "UnknownFormatConversionException: Conversion = '%c'", conv);
}

/* The text of format f over row r of the arguments args[0..na). */
static int format_row(cs_sbuf *o, const uint8_t *f, int32_t fl, cs_column *const *args, int na,
                      const int64_t *rows, cs_error *err)
{
    int next = 0, last = -1;
    for (int32_t i = 0; i < fl;) {
        if (f[i] != '%') {
            cs_sbuf_putc(o, (char)f[i++]);
            continue;
        }
        int32_t j = i + 1, index = -1;
        int32_t d = j;
        while (d < fl && isdigit(f[d]))
            d++;
        if (d > j && d < fl && f[d] == '$') {
            index = atoi((const char *)f + j) - 1;
            j = d + 1;
        } else if (j < fl && f[j] == '<') {
            index = last;
            j++;
        }
        spec sp = {.width = -1, .precision = -1};
        for (; j < fl && strchr("-0+ ,(#", f[j]); j++) {
            sp.left |= f[j] == '-', sp.zero |= f[j] == '0', sp.plus |= f[j] == '+';
            sp.space |= f[j] == ' ', sp.group |= f[j] == ',', sp.paren |= f[j] == '(';
            sp.alt |= f[j] == '#';
        }
        if (j < fl && isdigit(f[j])) {
            sp.width = 0;
            while (j < fl && isdigit(f[j]))
                sp.width = sp.width * 10 + (f[j++] - '0');
        }
        if (j < fl && f[j] == '.') {
            sp.precision = 0;
            for (j++; j < fl && isdigit(f[j]); j++)
                sp.precision = sp.precision * 10 + (f[j] - '0');
        }
        if (j >= fl)
            return cs_error_set(err, CS_ETASK,
                                "UnknownFormatConversionException: Conversion = '%%'");
        char conv = (char)f[j];
        i = j + 1;
        if (conv == '%') {
            emit_text(o, &sp, "%", 1, false);
            continue;
        }
        if (conv == 'n') {
            cs_sbuf_putc(o, '\n');
            continue;
        }
        if (index < 0) index = next++;
        if (index >= na)
            return cs_error_set(err, CS_ETASK,
                                "MissingFormatArgumentException: Format specifier "
                                "'%%%c'",
                                conv);
        last = index;
        int rc = convert(o, &sp, conv, args[index], rows[index], err);
        if (rc) return rc;
    }
    return CS_OK;
}

static int format_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    int64_t rows[na > 0 ? na : 1];
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        for (int j = 0; j < na; j++)
            rows[j] = i * cs_px_stride(a[j], n);
        if (!cs_column_is_valid(a[0], rows[0])) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t fl;
        const uint8_t *f = cs_column_bytes(a[0], rows[0], &fl);
        sb.len = 0;
        if ((rc = format_row(&sb, f, fl, a + 1, na - 1, rows + 1, k->err)) != CS_OK) break;
        cs_col_builder_append_string(b, cs_sbuf_str(&sb), sb.len);
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    if (strcmp(fn, "format_string") == 0 && n >= 1 && t[0]->id == CS_TYPE_STRING &&
        result->id == CS_TYPE_STRING)
        return format_kernel;
    return cs_px_number_format_lookup(fn, t, n, result);
}
