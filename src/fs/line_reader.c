/*
 * line_reader.c — the lines of one split (line_reader.h): Hadoop's LineRecordReader rule over a
 * cs_fs_reader read sequentially in 1 MiB pieces. The buffer holds the unconsumed bytes
 * buf[lo, hi); buf_pos is the file offset of buf[lo]. It is compacted or grown only when a call
 * starts without a complete line, so the views handed out stay valid until the next call.
 */
#define _GNU_SOURCE /* memmem */
#include "fs/line_reader.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs.h"

#define LINE_READ_CHUNK (1u << 20)

struct cs_line_reader {
    cs_fs_reader *in;
    char *uri;
    char *sep; /* NULL: '\n' with '\r' dropped */
    size_t sep_len;
    size_t max_line;
    const char *limit_name;
    uint64_t start;
    uint8_t *buf;
    size_t buf_cap;
    size_t lo, hi;
    uint64_t buf_pos;
    uint64_t split_end; /* lines starting after it belong to the next split */
    bool compressed, eof, started, done;
    bool one_more; /* the last line's separator straddled split_end: take the next line too */
};

/* Reads more bytes, compacting the buffer (and growing it for lines longer than a chunk).
 * Returns bytes read, 0 at end of file, <0 on error. */
static ssize_t line_fill(cs_line_reader *r, cs_error *err)
{
    if (r->eof) return 0;
    if (r->lo > 0) {
        memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
        r->hi -= r->lo;
        r->lo = 0;
    }
    if (r->buf_cap - r->hi < LINE_READ_CHUNK / 2) {
        r->buf_cap = r->buf_cap ? r->buf_cap * 2 : LINE_READ_CHUNK;
        r->buf = cs_xrealloc(r->buf, r->buf_cap);
    }
    ssize_t n = cs_fs_read(r->in, r->buf + r->hi, r->buf_cap - r->hi, err);
    if (n < 0) return -1;
    if (n == 0) {
        r->eof = true;
        return 0;
    }
    r->hi += (size_t)n;
    return n;
}

static int line_too_long(const cs_line_reader *r, uint64_t pos, size_t len, cs_error *err)
{
    return cs_error_set(err, CS_EINVAL,
                        "input file %s: the line at byte %llu is longer than the record limit of "
                        "%zu bytes (%s; it has %zu bytes or more)",
                        r->uri, (unsigned long long)pos, r->max_line, r->limit_name, len);
}

/* The first separator in p[0, n): its start, or NULL. */
static const uint8_t *find_sep(const cs_line_reader *r, const uint8_t *p, size_t n)
{
    if (!n) return NULL;
    if (!r->sep) return memchr(p, '\n', n);
    return memmem(p, n, r->sep, r->sep_len);
}

static size_t sep_len(const cs_line_reader *r)
{
    return r->sep ? r->sep_len : 1;
}

/* Skips up to and including the first separator at or after the split start. */
static int skip_first(cs_line_reader *r, cs_error *err)
{
    for (;;) {
        const uint8_t *s = find_sep(r, r->buf + r->lo, r->hi - r->lo);
        if (s) {
            size_t skip = (size_t)(s - (r->buf + r->lo)) + sep_len(r);
            r->lo += skip;
            r->buf_pos += skip;
            return 0;
        }
        size_t keep = sep_len(r) - 1; /* a separator may straddle the refill */
        size_t drop = r->hi - r->lo > keep ? r->hi - r->lo - keep : 0;
        r->buf_pos += drop;
        r->lo += drop;
        ssize_t n = line_fill(r, err);
        if (n < 0) return err->code;
        if (n == 0) {
            r->buf_pos += r->hi - r->lo;
            r->lo = r->hi;
            return 0;
        }
    }
}

cs_line_reader *cs_line_reader_open(const char *uri, uint64_t start, uint64_t length,
                                    uint64_t file_size, const char *line_sep, size_t max_line,
                                    const char *limit_name, cs_error *err)
{
    const struct cs_codec *codec = NULL;
    cs_fs_reader *in = cs_fs_open_input(uri, start, length, file_size, &codec, err);
    if (!in) return NULL;
    cs_line_reader *r = cs_xcalloc(1, sizeof *r);
    r->in = in;
    r->uri = cs_xstrdup(uri);
    if (line_sep && *line_sep) {
        r->sep = cs_xstrdup(line_sep);
        r->sep_len = strlen(line_sep);
    }
    r->max_line = max_line;
    r->limit_name = limit_name;
    r->compressed = codec != NULL;
    r->start = codec ? 0 : start;
    r->buf_pos = r->start;
    r->split_end = codec ? UINT64_MAX : start + length;
    return r;
}

ssize_t cs_line_reader_next(cs_line_reader *r, size_t max_lines, size_t max_bytes,
                            const uint8_t **base_out, cs_line *lines, cs_error *err)
{
    if (r->done) return 0;
    if (!r->started) {
        r->started = true;
        if (line_fill(r, err) < 0) return err->code;
        if (r->start > 0 && skip_first(r, err) < 0) return err->code;
    }
    /* Lines are offsets from buf[base]; base moves only while no line is taken. The loop keeps
     * the reader's state in locals (written back below): it runs once per line. */
    uint8_t *buf = r->buf;
    size_t lo = r->lo, hi = r->hi, base = lo, n = 0, slen = sep_len(r);
    uint64_t pos = r->buf_pos; /* file offset of buf[lo] */
    while (n < max_lines && lo - base < max_bytes) {
        if (pos > r->split_end && !r->one_more) {
            r->done = true;
            break;
        }
        uint8_t *start = buf + lo;
        const uint8_t *s = lo < hi ? find_sep(r, start, hi - lo) : NULL; /* buf NULL until filled */
        size_t consumed, len;
        if (s) {
            len = (size_t)(s - start);
            consumed = len + slen;
        } else if (!r->eof) {
            if (n) break; /* lines point into buf: refill on the next call */
            if (hi - lo > r->max_line) return line_too_long(r, pos, hi - lo, err);
            r->lo = lo;
            if (line_fill(r, err) < 0) return err->code;
            buf = r->buf;
            lo = base = r->lo;
            hi = r->hi;
            continue; /* at the end of the file, the next round takes the last line */
        } else {      /* end of file; the last line may lack a separator */
            r->done = true;
            if (lo == hi) break;
            consumed = len = hi - lo;
        }
        /* the next split skips to the end of the first separator found from its start: a
         * split ending inside a separator reads the line after it (Hadoop's
         * needAdditionalRecordAfterSplit) */
        r->one_more = s && pos + len < r->split_end && pos + consumed > r->split_end;
        if (!r->sep && len && start[len - 1] == '\r') len--;
        lines[n++] = (cs_line){lo - base, len}; /* checked below when too long */
        lo += consumed;
        pos += consumed;
        if (r->done) break;
    }
    /* only the last line can be over the limit when the lines before it add up to less than
     * max_bytes and max_bytes is below it, so lines are not checked one by one */
    for (size_t i = n; i-- > 0;) {
        if (lines[i].len > r->max_line)
            return line_too_long(r, pos - (lo - base - lines[i].off), lines[i].len, err);
        if (lo - base <= r->max_line) break;
    }
    r->lo = lo;
    r->buf_pos = pos;
    *base_out = buf + base;
    return (ssize_t)n;
}

uint64_t cs_line_reader_bytes(const cs_line_reader *r)
{
    return r->compressed ? cs_fs_reader_bytes(r->in) : r->buf_pos - r->start;
}

int cs_line_reader_compressed(const cs_line_reader *r)
{
    return r->compressed;
}

void cs_line_reader_close(cs_line_reader *r)
{
    if (!r) return;
    cs_fs_reader_close(r->in);
    free(r->buf);
    free(r->sep);
    free(r->uri);
    free(r);
}
