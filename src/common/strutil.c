/* strutil.c — growable string buffer and small string helpers (see strutil.h).
 *
 * Used by conf/props (properties text), master, submit and other modules. Allocation goes
 * through cs_x*, so nothing here fails.
 */
#include "common/strutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"

static void sbuf_reserve(cs_sbuf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = cs_xrealloc(b->data, cap);
    b->cap = cap;
}

void cs_sbuf_append(cs_sbuf *b, const void *p, size_t n)
{
    sbuf_reserve(b, n);
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void cs_sbuf_puts(cs_sbuf *b, const char *s)
{
    cs_sbuf_append(b, s, strlen(s));
}

void cs_sbuf_putc(cs_sbuf *b, char ch)
{
    cs_sbuf_append(b, &ch, 1);
}

void cs_sbuf_printf(cs_sbuf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        sbuf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

char *cs_sbuf_detach(cs_sbuf *b, size_t *len)
{
    char *d = b->data;
    if (!d) {
        d = cs_xmalloc(1);
        d[0] = '\0';
    }
    if (len) *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void cs_sbuf_free(cs_sbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *cs_sbuf_str(const cs_sbuf *b)
{
    return b->data ? b->data : "";
}

const char *cs_str_trim(const char *s, size_t *n)
{
    size_t len = *n;
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    *n = len;
    return s;
}

char *cs_str_trim_dup(const char *s, size_t n)
{
    const char *t = cs_str_trim(s, &n);
    return cs_xstrndup(t, n);
}

char *cs_str_copy(char *dst, size_t size, const char *src)
{
    size_t n = src ? strnlen(src, size - 1) : 0;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
    return dst;
}

bool cs_str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool cs_str_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool cs_str_ieq(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

bool cs_str_icontains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return true;
    return n == 0;
}

bool cs_str_parse_i64(const char *p, const char *end, bool allow_sign, int64_t *out)
{
    bool neg = false;
    if (allow_sign && p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    if (p == end) return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (limit - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

bool cs_str_to_int_in(const char *s, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    if (!s || !cs_str_parse_i64(s, s + strlen(s), min < 0, &v) || v < min || v > max) return false;
    *out = v;
    return true;
}

size_t cs_utf8_put(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xC0 | (c >> 6));
        out[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (c >> 12));
        out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (c >> 18));
    out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}
