/*
 * text_split.h — the streamed input of one split of a CSV or JSON file (csv/csv_format.c,
 * json/json_format.c): the file read through src/fs (file:, s3a://, decompressed by its
 * extension) in a bounded buffer, cut as Hadoop's LineRecordReader cuts a text file: a split not
 * starting at 0 skips up to and including the first '\n' at or after its start, and its input
 * ends with the line holding byte start + length, so a record belongs to the split where its line
 * starts (the rule of cs_line_split_range, text_values.h). A record that does not fit
 * CS_TEXT_RECORD_LIMIT bytes is one error naming the file, the line (counted from the start of
 * the file when the split starts at 0) and its byte offset; the buffer never grows past the
 * limit, so a 1 GB line costs 256 MiB, not 1 GB.
 *
 * Output (cs_text_sink): one part file written through src/fs, compressed by Spark's
 * `compression` option (none, uncompressed, gzip, deflate, bzip2, zstd, lz4, as src/fs/codec.c
 * knows them), the text buffered and written in pieces of about 1 MiB.
 *
 * Ownership: a split is its opener's (cs_text_split_close); it borrows the cs_file_split's URI
 * for its life. A sink is its creator's until cs_text_sink_close. One per task thread.
 */
#ifndef CSPARK_FORMATS_TEXT_SPLIT_H
#define CSPARK_FORMATS_TEXT_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "cspark.h"
#include "formats/file_format.h"

/* The longest record (a line, or a whole multiLine file) the text formats read: cspark's record
 * limit, as for text files (exec/text_reader.c). */
#define CS_TEXT_RECORD_LIMIT ((size_t)CSPARK_MAX_RECORD_BYTES)

typedef struct cs_text_split {
    char *buf;       /* buf[pos, len): the bytes not consumed yet */
    size_t pos, len; /* the reader advances pos */
    bool eof;        /* nothing follows buf[len) in this split */
    bool file_start; /* the split begins at the start of the file (the header is in it) */
    /* private */
    size_t cap;
    const char *uri;
    void *in;        /* cs_fs_reader */
    uint64_t offset; /* file offset (decompressed) of buf[0] */
    uint64_t end;    /* the split's last byte + 1 (UINT64_MAX: the whole file) */
    uint64_t lines;  /* '\n' before buf[0] (counted only when file_start) */
    bool skipping;   /* still dropping the partial first line */
} cs_text_split;

/* Opens split (whole: read the whole file, as for a compressed or multiLine file; it must then
 * start at 0). */
int cs_text_split_open(const cs_file_split *split, bool whole, cs_text_split **out, cs_error *err);
/* The parser found no complete record in buf[pos, len): drops what it consumed and reads more
 * (sets eof at the end of the split). CS_EINVAL when the record at pos is longer than
 * CS_TEXT_RECORD_LIMIT, an I/O error as src/fs gives it; both name the file. */
int cs_text_split_more(cs_text_split *s, cs_error *err);
void cs_text_split_close(cs_text_split *s);

/* Whether the file's extension names a codec of src/fs/codec.c (such a file is not splittable). */
bool cs_text_is_compressed(const char *uri);

/* ---- output ------------------------------------------------------------------------------- */

struct cs_codec;
/* The codec of Spark's `compression` value (NULL or none/uncompressed: *codec NULL); CS_EINVAL
 * with one line naming the value and what is accepted. */
int cs_text_codec(const char *compression, const struct cs_codec **codec, cs_error *err);
/* Appends the part file's extension: base ("csv") and the codec's (".gz"). */
void cs_text_extension(const char *base, const char *compression, cs_sbuf *out);

typedef struct cs_text_sink {
    cs_sbuf text; /* the writer appends here; cs_text_sink_flush sends it on */
    void *w;      /* cs_fs_writer */
} cs_text_sink;
/* Creates uri (nothing visible there until closed with commit). */
cs_text_sink *cs_text_sink_open(const char *uri, const char *compression, cs_error *err);
/* Writes the text appended so far once it holds about 1 MiB (force: whatever it holds). */
int cs_text_sink_flush(cs_text_sink *k, bool force, cs_error *err);
/* commit: flushes and makes the file visible (an object store's upload committed);
 * otherwise removes everything written. Frees the sink. */
int cs_text_sink_close(cs_text_sink *k, bool commit, cs_error *err);

#endif /* CSPARK_FORMATS_TEXT_SPLIT_H */
