/*
 * csv_tokenizer.c — splits a buffer into CSV records and values with univocity's rules as Spark
 * configures them (csv.h says which). Values that are a plain slice of the buffer are not
 * copied: a token holds its offset; only a quoted value with an escaped quote or a "\r\n"
 * (multiLine) is rebuilt in the token set's scratch buffer. The token array and the scratch buffer
 * are reused from record to record, so nothing is allocated per record once they have grown. Called
 * by csv_reader.c and csv_infer.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"

static cs_csv_token *push_token(cs_csv_tokens *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = cs_xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    return &t->v[t->n++];
}

void cs_csv_tokens_free(cs_csv_tokens *t)
{
    free(t->v);
    cs_sbuf_free(&t->scratch);
    memset(t, 0, sizeof *t);
}

static bool is_ws(char c)
{
    return (unsigned char)c <= ' ';
}

/* Parses one record starting at buf[p] (a line's start). `limit`: where the record must end
 * without multiLine (the line end, '\r' excluded), or n. Returns the index just after the
 * record's last value (at a '\n' / '\r' / limit), or SIZE_MAX when the buffer ends inside a
 * quoted value of a multiLine record that the input goes on after (at_eof false). */
static size_t parse_record(const cs_csv_options *o, const char *buf, size_t n, size_t p,
                           size_t limit, bool at_eof, cs_csv_tokens *t)
{
    const char sep = o->sep, q = o->quote, esc = o->escape;
    const bool ml = o->multi_line;
    t->n = 0;
    t->scratch.len = 0;
    size_t i = p;
    for (;;) {
        cs_csv_token *tok = push_token(t);
        tok->scratch = false;
        tok->kind = CS_CSV_TOK_TEXT;
        size_t fs = i;
        if (o->ignore_leading_ws)
            while (i < limit && buf[i] != sep && buf[i] != '\n' && is_ws(buf[i]))
                i++;
        if (q && i < limit && buf[i] == q) {
            size_t vstart = i + 1, j = vstart, seg = vstart; /* seg: start of the uncopied run */
            bool copied = false, closed = false;
            size_t sstart = t->scratch.len;
            while (j < limit) {
                char c = buf[j];
                if (!ml && c == '\n') break;
                if (c == esc && esc != q && j + 1 < limit && buf[j + 1] == q) {
                    cs_sbuf_append(&t->scratch, buf + seg, j - seg);
                    cs_sbuf_putc(&t->scratch, q);
                    copied = true;
                    j += 2;
                    seg = j;
                } else if (c == q && esc == q && j + 1 < limit && buf[j + 1] == q) {
                    cs_sbuf_append(&t->scratch, buf + seg, j - seg);
                    cs_sbuf_putc(&t->scratch, q);
                    copied = true;
                    j += 2;
                    seg = j;
                } else if (c == q) {
                    closed = true;
                    break;
                } else if (ml && c == '\r' && j + 1 < limit && buf[j + 1] == '\n') {
                    cs_sbuf_append(&t->scratch, buf + seg, j - seg);
                    copied = true;
                    j++;
                    seg = j;
                } else
                    j++;
            }
            if (!closed && ml && j >= limit && !at_eof)
                return SIZE_MAX; /* the value goes on past the buffer */
            size_t after = closed ? j + 1 : j, k = after;
            if (o->ignore_trailing_ws)
                while (k < limit && buf[k] != sep && buf[k] != '\n' && buf[k] != '\r' &&
                       is_ws(buf[k]))
                    k++;
            bool at_end = k >= limit || buf[k] == sep || buf[k] == '\n' ||
                          (buf[k] == '\r' && (k + 1 >= limit || buf[k + 1] == '\n'));
            if (!closed || at_end) {
                if (copied) {
                    cs_sbuf_append(&t->scratch, buf + seg, j - seg);
                    tok->scratch = true;
                    tok->off = sstart;
                    tok->len = t->scratch.len - sstart;
                } else {
                    tok->off = vstart;
                    tok->len = j - vstart;
                }
                if (tok->len == 0) tok->kind = CS_CSV_TOK_EMPTY_QUOTED;
                i = k;
            } else { /* an unescaped quote: the raw text up to the next separator */
                t->scratch.len = sstart;
                size_t e = after;
                while (e < limit && buf[e] != sep && buf[e] != '\n' && buf[e] != '\r')
                    e++;
                size_t vs = o->ignore_leading_ws ? i : fs, ve = e;
                if (o->ignore_trailing_ws)
                    while (ve > vs && is_ws(buf[ve - 1]))
                        ve--;
                tok->off = vs;
                tok->len = ve - vs;
                i = e;
            }
        } else {
            size_t e = i;
            if (!ml) { /* a line holds no '\n': only the separator ends the value */
                const char *at = i < limit ? memchr(buf + i, sep, limit - i) : NULL;
                e = at ? (size_t)(at - buf) : limit;
            } else
                while (e < limit && buf[e] != sep && buf[e] != '\n')
                    e++;
            size_t ve = e;
            if (ml && ve > i && buf[ve - 1] == '\r' && (ve == limit || buf[ve] == '\n')) ve--;
            if (o->ignore_trailing_ws)
                while (ve > i && is_ws(buf[ve - 1]))
                    ve--;
            tok->off = i;
            tok->len = ve - i;
            if (tok->len == 0) tok->kind = CS_CSV_TOK_NULL;
            i = e;
        }
        if (i < limit && buf[i] == sep) {
            i++;
            continue;
        }
        return i;
    }
}

int cs_csv_next_record(const cs_csv_options *o, const char *buf, size_t n, size_t *pos, bool at_eof,
                       cs_csv_tokens *t, size_t *rec_start, size_t *rec_end)
{
    size_t p = *pos;
    while (p < n) {
        const char *nl = memchr(buf + p, '\n', n - p);
        if (!nl && !at_eof) return 0;
        size_t line_end = nl ? (size_t)(nl - buf) : n, next = nl ? line_end + 1 : n;
        size_t content_end = line_end > p && buf[line_end - 1] == '\r' ? line_end - 1 : line_end;
        /* blank and comment lines */
        bool blank = true;
        if (o->multi_line)
            blank = content_end == p;
        else
            for (size_t k = p; k < content_end && blank; k++)
                blank = is_ws(buf[k]);
        if (blank || (o->comment && buf[p] == o->comment)) {
            p = next;
            continue;
        }
        if (!o->multi_line) {
            parse_record(o, buf, n, p, content_end, true, t);
            *rec_start = p;
            *rec_end = content_end;
            *pos = next;
            return 1;
        }
        /* at the end of the input an unclosed quote's value runs to it, line ends included */
        size_t end = parse_record(o, buf, n, p, n, at_eof, t);
        if (end == SIZE_MAX) return 0;
        size_t after = end;
        if (after < n && buf[after] == '\r') after++;
        if (after < n && buf[after] == '\n')
            after++;
        else if (after >= n && !at_eof)
            return 0; /* the record's line end is not in the buffer yet */
        *rec_start = p;
        *rec_end = end;
        *pos = after;
        return 1;
    }
    *pos = p;
    return 0;
}

const char *cs_csv_token_value(const cs_csv_options *o, const char *buf, const cs_csv_tokens *t,
                               int i, size_t *len)
{
    const cs_csv_token *tok = &t->v[i];
    if (tok->kind == CS_CSV_TOK_NULL) {
        *len = strlen(o->null_value);
        return o->null_value;
    }
    if (tok->kind == CS_CSV_TOK_EMPTY_QUOTED) {
        *len = strlen(o->empty_value_read);
        return o->empty_value_read;
    }
    *len = tok->len;
    return (tok->scratch ? t->scratch.data : buf) + tok->off;
}

cs_ftype *cs_csv_header_schema(const cs_csv_options *o, const char *buf, const cs_csv_tokens *t)
{
    cs_ftype *st = cs_ftype_new(CS_FT_STRUCT);
    char name[64];
    for (int i = 0; i < t->n; i++) {
        size_t len = 0;
        const char *v = o->header ? cs_csv_token_value(o, buf, t, i, &len) : NULL;
        char *s = NULL;
        if (!o->header || !len || (t->v[i].kind == CS_CSV_TOK_NULL && !strcmp(v, o->null_value)) ||
            (len == strlen(o->null_value) && !memcmp(v, o->null_value, len))) {
            snprintf(name, sizeof name, "_c%d", i);
            s = cs_xstrdup(name);
        } else {
            s = cs_xstrndup(v, len);
            for (int j = 0; j < t->n; j++) { /* a duplicate: name<index> */
                size_t l2;
                const char *v2 = cs_csv_token_value(o, buf, t, j, &l2);
                if (j != i && l2 == len && !strncasecmp(v2, v, len)) {
                    free(s);
                    s = cs_xmalloc(len + 16);
                    memcpy(s, v, len);
                    snprintf(s + len, 16, "%d", i);
                    break;
                }
            }
        }
        cs_ftype_add_field(st, s, cs_ftype_new(CS_FT_STRING));
        free(s);
    }
    return st;
}
