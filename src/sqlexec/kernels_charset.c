/*
 * kernels_charset.c — encode(string, charset) and decode(binary, charset) over the character
 * sets Spark 4 accepts (US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16, UTF-32, case
 * insensitive), converted by the C library's iconv. UTF-16 writes a big-endian byte order mark
 * first, as Java's encoder does. Another charset is Spark's INVALID_PARAMETER_VALUE.CHARSET; a
 * text the charset cannot carry, or bytes that are not in it, is MALFORMED_CHARACTER_CODING
 * (Spark's default spark.sql.legacy.codingErrorAction=false). Null in, null out.
 *
 * Called through cs_px_charset_lookup (pexpr.c's chain). Arguments are borrowed; the result is
 * one new reference. A converter is opened once per batch for a literal charset (again only
 * when a row's charset differs), and one output buffer is reused for every row.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static const char *const CHARSETS[] = {"US-ASCII", "ISO-8859-1", "UTF-8", "UTF-16BE",
                                       "UTF-16LE", "UTF-16",     "UTF-32"};

/* The index of charset name p in CHARSETS, -1 when Spark does not take it. */
static int charset_of(const uint8_t *p, int32_t len)
{
    for (size_t i = 0; i < sizeof CHARSETS / sizeof *CHARSETS; i++)
        if (strlen(CHARSETS[i]) == (size_t)len &&
            strncasecmp(CHARSETS[i], (const char *)p, (size_t)len) == 0)
            return (int)i;
    return -1;
}

typedef struct {
    iconv_t cd;
    int charset; /* what cd converts, -1: none open */
} converter;

static int open_converter(converter *cv, int charset, bool encode)
{
    if (cv->charset == charset) return CS_OK;
    if (cv->charset >= 0) iconv_close(cv->cd);
    cv->charset = -1;
    /* UTF-16 encodes big-endian after the mark written by hand; UTF-32 is big-endian in Java */
    const char *name = charset == 5   ? (encode ? "UTF-16BE" : "UTF-16")
                       : charset == 6 ? "UTF-32BE"
                                      : CHARSETS[charset];
    cv->cd = encode ? iconv_open(name, "UTF-8") : iconv_open("UTF-8", name);
    if (cv->cd == (iconv_t)-1) return CS_EUNSUPPORTED;
    cv->charset = charset;
    return CS_OK;
}

/* in converted into out, after Java's big-endian byte order mark when `mark` */
static int convert(converter *cv, const uint8_t *in, int32_t len, bool mark, cs_sbuf *out)
{
    out->len = 0;
    if (mark && len > 0) cs_sbuf_append(out, "\xFE\xFF", 2);
    iconv(cv->cd, NULL, NULL, NULL, NULL);
    char *src = (char *)in;
    size_t left = (size_t)len;
    char chunk[512];
    while (left > 0) {
        char *dst = chunk;
        size_t room = sizeof chunk;
        size_t rc = iconv(cv->cd, &src, &left, &dst, &room);
        cs_sbuf_append(out, chunk, sizeof chunk - room);
        if (rc == (size_t)-1 && errno != E2BIG) return CS_EINVAL;
    }
    return CS_OK;
}

static int charset_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool encode = strcmp(k->e->fn, "encode") == 0;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    converter cv = {.charset = -1};
    cs_sbuf text = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_px_valid(a[0], i, s0) || !cs_px_valid(a[1], i, s1)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t cl, vl;
        const uint8_t *cp = cs_px_bytes(a[1], i, s1, &cl);
        const uint8_t *v = cs_px_bytes(a[0], i, s0, &vl);
        int cs = charset_of(cp, cl);
        if (cs < 0 || open_converter(&cv, cs, encode) != CS_OK) {
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_PARAMETER_VALUE.CHARSET", "22023",
                                  "The value of parameter(s) `charset` in `%s` is invalid: "
                                  "expects one of the utf-8, utf-16le, utf-16be, utf-32, "
                                  "utf-16, us-ascii, iso-8859-1, but got %.*s.",
                                  k->e->fn, (int)cl, (const char *)cp);
            break;
        }
        if (convert(&cv, v, vl, encode && cs == 5, &text) != CS_OK) {
            rc = cs_sql_error_set(k->err, CS_ETASK, "MALFORMED_CHARACTER_CODING", "22000",
                                  "Invalid value found when performing `%s` with `%s`", k->e->fn,
                                  CHARSETS[cs]);
            break;
        }
        cs_col_builder_append_string(b, text.len ? text.data : "", text.len);
    }
    if (cv.charset >= 0) iconv_close(cv.cd);
    cs_sbuf_free(&text);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_charset_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result)
{
    if (n != 2 || t[1]->id != CS_TYPE_STRING) return NULL;
    if (strcmp(fn, "encode") == 0 && t[0]->id == CS_TYPE_STRING && result->id == CS_TYPE_BINARY)
        return charset_kernel;
    if (strcmp(fn, "decode") == 0 && t[0]->id == CS_TYPE_BINARY && result->id == CS_TYPE_STRING)
        return charset_kernel;
    return NULL;
}
