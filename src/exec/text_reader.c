/*
 * text_reader.c — reads the lines of one text split into batches, with Hadoop's
 * LineRecordReader rule so that every line belongs to exactly one split: a split that does not
 * start at offset 0 skips everything up to and including the first '\n' at or after its start,
 * and a split keeps reading lines while the line's first byte is at or before its end. Lines end
 * at '\n'; a '\r' before it is dropped; the last line may lack a terminator. Files are read
 * through src/fs (any scheme; a compressed file whole and decompressed, its split covering all of
 * it) sequentially in 1 MiB pieces. Lines are not copied: the output batch is a view whose data
 * pointer is the read buffer and whose records (key = line, no value) are offsets into it, so it
 * is valid until the next call, as part_iter.h promises; the buffer is only refilled (moved or
 * grown) before a batch is started, never while records point into it. A line longer than
 * CSPARK_MAX_RECORD_BYTES fails the task naming the file and offset (the buffer stops growing
 * there; the line could not travel as a record anyway).
 * Opened by the text_file kind (plan/kinds/files.c) for its partitions.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "exec/part_iter.h"
#include "fs/fs.h"

#define TEXT_READ_CHUNK (1u << 20)

typedef struct text_iter {
    part_iter base;
    cspark_task_context *tc;
    const text_split *split;
    cs_fs_reader *in;
    uint8_t *buf;
    size_t buf_cap;
    size_t lo, hi;      /* unconsumed bytes buf[lo, hi) */
    uint64_t buf_pos;   /* offset of buf[lo] in the (decompressed) file */
    uint64_t split_end; /* lines starting after it belong to the next split */
    bool eof;           /* the reader has returned everything */
    bool started, done;
    cs_batch out; /* view: data borrows buf, recs owned (freed in text_free) */
} text_iter;

/* Reads more bytes, compacting the buffer (and growing it for lines longer than a chunk).
 * Returns bytes read, 0 at end of file, <0 on error. */
static ssize_t text_fill(text_iter *t, cs_error *err)
{
    if (t->eof) return 0;
    if (t->lo > 0) {
        memmove(t->buf, t->buf + t->lo, t->hi - t->lo);
        t->hi -= t->lo;
        t->lo = 0;
    }
    if (t->buf_cap - t->hi < TEXT_READ_CHUNK / 2) {
        t->buf_cap = t->buf_cap ? t->buf_cap * 2 : TEXT_READ_CHUNK;
        t->buf = cs_xrealloc(t->buf, t->buf_cap);
    }
    size_t want = t->buf_cap - t->hi;
    ssize_t n = cs_fs_read(t->in, t->buf + t->hi, want, err);
    if (n < 0) return -1;
    if (n == 0) {
        t->eof = true;
        return 0;
    }
    t->hi += (size_t)n;
    return n;
}

/* A line of at least len bytes starting at file offset pos is over the record limit. */
static int line_too_long(const text_iter *t, uint64_t pos, size_t len, cs_error *err)
{
    return cs_error_set(err, CS_EINVAL,
                        "input file %s: the line at byte %llu is longer than the record limit of "
                        "%zu bytes (CSPARK_MAX_RECORD_BYTES, 256 MiB; it has %zu bytes or more)",
                        t->split->path, (unsigned long long)pos, CSPARK_MAX_RECORD_BYTES, len);
}

/* Skips up to and including the first '\n' at or after the split start. */
static int text_skip_first(text_iter *t, cs_error *err)
{
    for (;;) {
        uint8_t *nl = memchr(t->buf + t->lo, '\n', t->hi - t->lo);
        if (nl) {
            size_t skip = (size_t)(nl - (t->buf + t->lo)) + 1;
            t->lo += skip;
            t->buf_pos += skip;
            return 0;
        }
        t->buf_pos += t->hi - t->lo;
        t->lo = t->hi;
        ssize_t n = text_fill(t, err);
        if (n < 0) return err->code;
        if (n == 0) return 0;
    }
}

static int text_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    text_iter *t = (text_iter *)it;
    if (t->done) return 0;
    t->tc->input_file = t->split->path; /* the records of this batch come from it */
    uint64_t split_end = t->split_end;
    if (!t->started) {
        t->started = true;
        if (text_fill(t, err) < 0) return err->code;
        if (t->split->start > 0 && text_skip_first(t, err) < 0) return err->code;
    }
    /* The batch's records are offsets from buf[base]; base moves only while it is empty. The
     * loop keeps the reader's state in locals (written back below): it runs once per line. */
    uint8_t *buf = t->buf;
    size_t lo = t->lo, hi = t->hi, base = lo, n = 0;
    uint64_t pos = t->buf_pos; /* file offset of buf[lo] */
    cs_rec *recs = t->out.recs;
    while (n < CS_BATCH_TARGET_RECORDS && lo - base < CS_BATCH_TARGET_BYTES) {
        if (pos > split_end) {
            t->done = true;
            break;
        }
        uint8_t *start = buf + lo;
        uint8_t *nl = lo < hi ? memchr(start, '\n', hi - lo) : NULL; /* buf NULL until filled */
        size_t consumed, len;
        if (nl) {
            consumed = (size_t)(nl - start) + 1;
            len = consumed - 1;
        } else if (!t->eof) {
            if (n) break; /* records point into buf: refill on the next call */
            if (hi - lo > CSPARK_MAX_RECORD_BYTES) return line_too_long(t, pos, hi - lo, err);
            t->lo = lo;
            if (text_fill(t, err) < 0) return err->code;
            buf = t->buf;
            lo = base = t->lo;
            hi = t->hi;
            continue; /* at the end of the file, the next round takes the last line */
        } else {      /* end of file; the last line may lack a terminator */
            t->done = true;
            if (lo == hi) break;
            consumed = len = hi - lo;
        }
        if (len && start[len - 1] == '\r') len--;
        recs[n++] = (cs_rec){lo - base, (uint32_t)len, 0}; /* checked below when too long */
        lo += consumed;
        pos += consumed;
        if (t->done) break;
    }
    if (n && lo - base > CSPARK_MAX_RECORD_BYTES) {
        /* only the batch's last line can be that long (the others add up to less than
         * CS_BATCH_TARGET_BYTES), so lines are not checked one by one */
        size_t off = (size_t)recs[n - 1].off, len = lo - base - off;
        const uint8_t *line = buf + base + off;
        uint64_t at = pos - len;
        if (len && line[len - 1] == '\n') len--;
        if (len && line[len - 1] == '\r') len--;
        if (len > CSPARK_MAX_RECORD_BYTES) return line_too_long(t, at, len, err);
    }
    t->lo = lo;
    t->buf_pos = pos;
    t->tc->result->metrics.records_read += (int64_t)n;
    if (!n) return 0;
    t->out.data = buf + base;
    t->out.len = t->out.cap = lo - base;
    t->out.n = n;
    *out = &t->out;
    return 1;
}

static void text_free(part_iter *it)
{
    text_iter *t = (text_iter *)it;
    /* Input bytes of this split: the bytes its lines took in the file (so a file's splits add up
     * to its size, whatever the read-ahead past a split's end), or for a compressed file, read
     * whole by one task, the compressed bytes fetched. */
    uint64_t bytes =
        t->split_end == UINT64_MAX ? cs_fs_reader_bytes(t->in) : t->buf_pos - t->split->start;
    t->tc->result->metrics.bytes_read += (int64_t)bytes;
    cs_fs_reader_close(t->in);
    free(t->buf);
    free(t->out.recs);
    free(t);
}

part_iter *cs_text_iter_open(cspark_task_context *tc, const text_split *split, cs_error *err)
{
    const struct cs_codec *codec = NULL;
    cs_fs_reader *in =
        cs_fs_open_input(split->path, split->start, split->length, split->file_size, &codec, err);
    if (!in) return NULL;
    text_iter *t = cs_xcalloc(1, sizeof *t);
    t->base.next = text_next;
    t->base.free = text_free;
    t->tc = tc;
    t->split = split;
    t->in = in;
    t->buf_pos = codec ? 0 : split->start;
    t->split_end = codec ? UINT64_MAX : split->start + split->length;
    t->out.rcap = CS_BATCH_TARGET_RECORDS;
    t->out.recs = cs_xmalloc(t->out.rcap * sizeof *t->out.recs);
    return &t->base;
}
