/* strutil.h — small string helpers and a growable string buffer.
 *
 * cs_sbuf is an append-only, always NUL-terminated byte buffer used to build messages, properties
 * text and JSON-free output; the helpers cover trimming, case-insensitive comparisons and
 * prefix/suffix tests, and the one strict decimal-integer parser (conf values, ids and counts in
 * UI and REST URLs). Used by conf, props, master, submit and anyone else who needs them.
 *
 * Ownership: a cs_sbuf is a caller-owned value; its `data` is heap memory released by
 * cs_sbuf_free, or handed over to the caller by cs_sbuf_detach (then free()). All allocation
 * goes through cs_x* (aborts on OOM), so appends cannot fail.
 */
#ifndef CSPARK_COMMON_STRUTIL_H
#define CSPARK_COMMON_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cs_sbuf {
    char *data; /* NUL-terminated once anything was appended; may be NULL when empty */
    size_t len;
    size_t cap;
} cs_sbuf;

#define CS_SBUF_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void cs_sbuf_append(cs_sbuf *b, const void *p, size_t n);
/* Code point c (at most 0x10FFFF) as UTF-8 at out, which has room for 4 bytes; returns the
 * bytes written (1 to 4). */
size_t cs_utf8_put(uint32_t c, uint8_t *out);
void cs_sbuf_puts(cs_sbuf *b, const char *s);
void cs_sbuf_putc(cs_sbuf *b, char ch);
void cs_sbuf_printf(cs_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the (malloc'd, NUL-terminated, never NULL) contents and resets b to empty. */
char *cs_sbuf_detach(cs_sbuf *b, size_t *len);
void cs_sbuf_free(cs_sbuf *b);
/* Read-only view: "" when empty. */
const char *cs_sbuf_str(const cs_sbuf *b);

/* Returns a new malloc'd copy of s[0..n) without leading/trailing ASCII whitespace. */
char *cs_str_trim_dup(const char *s, size_t n);
/* Pointer to the first non-whitespace char; writes the trimmed length into *n. */
const char *cs_str_trim(const char *s, size_t *n);
/* Copies src (NULL: empty) into dst of size bytes, cut to fit and always terminated (size > 0);
 * returns dst. What snprintf(dst, size, "%s", src) does, without the format machinery (hot
 * paths copy executor ids and hosts per task). */
char *cs_str_copy(char *dst, size_t size, const char *src);
bool cs_str_starts_with(const char *s, const char *prefix);
bool cs_str_ends_with(const char *s, const char *suffix);
bool cs_str_ieq(const char *a, const char *b); /* ASCII case-insensitive equality */
/* ASCII case-insensitive substring search; returns true if needle occurs in hay. */
bool cs_str_icontains(const char *hay, const char *needle);

/* Decimal integer in [p, end): digits only (a leading '+' or '-' when allow_sign), no spaces,
 * no overflow; false otherwise. */
bool cs_str_parse_i64(const char *p, const char *end, bool allow_sign, int64_t *out);
/* The whole of s as a decimal integer within [min, max] (a sign only when min < 0), else false:
 * the one strict parser for ids and counts in URLs, "abc", "1x", "4294967296" for an int. */
bool cs_str_to_int_in(const char *s, int64_t min, int64_t max, int64_t *out);

#endif /* CSPARK_COMMON_STRUTIL_H */
