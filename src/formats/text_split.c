/*
 * text_split.c — the bounded, streamed input of one split of a text file (see text_split.h).
 * Called by the CSV and JSON file formats' readers on the task's thread.
 *
 * The buffer holds buf[0, len) = file bytes [offset, offset + len); the parser consumes up to pos.
 * cs_text_split_more moves the unconsumed tail to the front (counting the '\n' it drops, for the
 * line number of an error), grows the buffer by doubling while one record does not fit (never
 * past CS_TEXT_RECORD_LIMIT + one read), and reads: after every read the split's end is looked
 * for (the first '\n' at or after byte `end`), and the partial first line of a split not starting
 * at 0 is dropped as it arrives, without being kept.
 */
#include "formats/text_split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs/codec.h"
#include "fs/fs.h"

#define SPLIT_READ_BYTES ((size_t)1 << 20) /* the first buffer, and the least read at a time */

bool cs_text_is_compressed(const char *uri)
{
    return cs_codec_for_path(uri) != NULL;
}

static uint64_t count_lines(const char *p, size_t n)
{
    uint64_t k = 0;
    const char *end = p + n;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        k++;
        p++;
    }
    return k;
}

/* Drops buf[0, pos). */
static void compact(cs_text_split *s)
{
    if (!s->pos) return;
    if (s->file_start) s->lines += count_lines(s->buf, s->pos);
    memmove(s->buf, s->buf + s->pos, s->len - s->pos);
    s->offset += s->pos;
    s->len -= s->pos;
    s->pos = 0;
}

/* After a read of buf[from, len): cut at the split's end; drop the partial first line. */
static void after_read(cs_text_split *s, size_t from)
{
    if (s->end != UINT64_MAX && s->offset + s->len > s->end) {
        size_t at = s->end > s->offset ? (size_t)(s->end - s->offset) : 0;
        if (at < from) at = from;
        const char *nl = memchr(s->buf + at, '\n', s->len - at);
        if (nl) {
            s->len = (size_t)(nl - s->buf) + 1;
            s->eof = true;
        }
    }
    if (s->skipping) {
        const char *nl = memchr(s->buf + s->pos, '\n', s->len - s->pos);
        if (nl) {
            s->pos = (size_t)(nl - s->buf) + 1;
            s->skipping = false;
        } else
            s->pos = s->len; /* all of it belongs to the line before the split */
    }
}

static int read_more(cs_text_split *s, cs_error *err)
{
    if (s->cap - s->len < SPLIT_READ_BYTES / 2) {
        size_t cap = s->cap * 2;
        if (cap > CS_TEXT_RECORD_LIMIT + SPLIT_READ_BYTES)
            cap = CS_TEXT_RECORD_LIMIT + SPLIT_READ_BYTES;
        if (cap > s->cap) {
            s->buf = cs_xrealloc(s->buf, cap);
            s->cap = cap;
        }
    }
    ssize_t n = cs_fs_read(s->in, s->buf + s->len, s->cap - s->len, err);
    if (n < 0) return err->code ? err->code : CS_EIO;
    if (n == 0) {
        s->eof = true;
        if (s->skipping) s->pos = s->len;
        return CS_OK;
    }
    size_t from = s->len;
    s->len += (size_t)n;
    after_read(s, from);
    return CS_OK;
}

int cs_text_split_open(const cs_file_split *split, bool whole, cs_text_split **out, cs_error *err)
{
    *out = NULL;
    if (whole && split->start != 0)
        return cs_error_set(err, CS_EINVAL,
                            "%s: this file is not splittable (compressed, or read with "
                            "multiLine) but a split starting at byte %llu was asked for",
                            split->uri, (unsigned long long)split->start);
    bool compressed = cs_text_is_compressed(split->uri);
    cs_fs_reader *in = cs_fs_open_input(
        split->uri, compressed ? 0 : split->start, whole || compressed ? UINT64_MAX : split->length,
        split->file_size ? split->file_size : UINT64_MAX, NULL, err);
    if (!in) return err && err->code ? err->code : CS_EIO;
    cs_text_split *s = cs_xcalloc(1, sizeof *s);
    s->in = in;
    s->uri = split->uri;
    s->cap = SPLIT_READ_BYTES;
    s->buf = cs_xmalloc(s->cap);
    s->offset = compressed ? 0 : split->start;
    s->file_start = s->offset == 0;
    s->skipping = !s->file_start;
    bool to_end = split->file_size && split->start + split->length >= split->file_size;
    s->end = whole || compressed || to_end || split->length > UINT64_MAX - split->start
                 ? UINT64_MAX
                 : split->start + split->length;
    *out = s;
    return CS_OK;
}

int cs_text_split_more(cs_text_split *s, cs_error *err)
{
    while (!s->eof) {
        compact(s);
        if (s->len >= CS_TEXT_RECORD_LIMIT) {
            char line[48] = "";
            if (s->file_start)
                snprintf(line, sizeof line, "line %llu ", (unsigned long long)s->lines + 1);
            return cs_error_set(err, CS_EINVAL,
                                "input file %s: the record at %s(byte %llu) is longer than the "
                                "record limit of %zu bytes (CSPARK_MAX_RECORD_BYTES, %zu MiB)",
                                s->uri, line, (unsigned long long)s->offset, CS_TEXT_RECORD_LIMIT,
                                CS_TEXT_RECORD_LIMIT >> 20);
        }
        size_t before = s->len - s->pos;
        int rc = read_more(s, err);
        if (rc != CS_OK) return rc; /* src/fs names the file */
        if (s->len - s->pos > before || s->eof) return CS_OK;
    }
    return CS_OK;
}

void cs_text_split_close(cs_text_split *s)
{
    if (!s) return;
    cs_fs_reader_close(s->in);
    free(s->buf);
    free(s);
}

/* ---- output -----------------------------------------------------------------------------------
 */

#define SINK_FLUSH_BYTES ((size_t)1 << 20)

int cs_text_codec(const char *compression, const cs_codec **codec, cs_error *err)
{
    *codec = NULL;
    if (!compression || !strcasecmp(compression, "none") ||
        !strcasecmp(compression, "uncompressed"))
        return CS_OK;
    *codec = cs_codec_for_name(compression);
    if (!*codec)
        return cs_error_set(err, CS_EINVAL,
                            "compression: codec [%s] is not available; use none, uncompressed, %s",
                            compression, cs_codec_names());
    return CS_OK;
}

void cs_text_extension(const char *base, const char *compression, cs_sbuf *out)
{
    const cs_codec *codec = NULL;
    cs_sbuf_puts(out, base);
    if (cs_text_codec(compression, &codec, NULL) == CS_OK && codec)
        cs_sbuf_puts(out, codec->extension);
}

cs_text_sink *cs_text_sink_open(const char *uri, const char *compression, cs_error *err)
{
    const cs_codec *codec;
    if (cs_text_codec(compression, &codec, err) != CS_OK) return NULL;
    cs_fs_writer *w = cs_fs_create(uri, NULL, codec, err);
    if (!w) return NULL;
    cs_text_sink *k = cs_xcalloc(1, sizeof *k);
    k->w = w;
    return k;
}

int cs_text_sink_flush(cs_text_sink *k, bool force, cs_error *err)
{
    if (!k->text.len || (!force && k->text.len < SINK_FLUSH_BYTES)) return CS_OK;
    int rc = cs_fs_write(k->w, k->text.data, k->text.len, err);
    k->text.len = 0;
    return rc;
}

int cs_text_sink_close(cs_text_sink *k, bool commit, cs_error *err)
{
    if (!k) return CS_OK;
    int rc = commit ? cs_text_sink_flush(k, true, err) : CS_OK;
    if (!commit || rc != CS_OK) {
        cs_fs_writer_abort(k->w);
    } else {
        cs_fs_pending *pending = NULL;
        rc = cs_fs_writer_finish(k->w, &pending, err);
        if (rc == CS_OK && pending) rc = cs_fs_pending_commit(pending, err);
        cs_fs_pending_free(pending);
    }
    cs_sbuf_free(&k->text);
    free(k);
    return rc;
}
