/*
 * line_reader.h — the lines of one byte range of a file, with Hadoop's LineRecordReader rule so
 * that every line belongs to exactly one split: a split that does not start at offset 0 skips
 * everything up to and including the first separator at or after its start, and a split keeps
 * reading lines while the line's first byte is at or before its end. Default separator: '\n',
 * a '\r' before it dropped; a given separator (Spark's `lineSep`) is matched exactly, and a
 * split ending inside one also reads the line after it (the next split skips that line). The
 * last line may lack a separator. A compressed file (codec.h) is read whole and decompressed.
 *
 * Lines are not copied: cs_line_reader_next returns views into the reader's buffer (a base
 * pointer and offsets from it), valid until the next call; the buffer is only moved or grown
 * before a group of lines is started. A line longer than max_line fails with one line naming the
 * file, the byte offset and the limit (`limit_name` says where it comes from).
 *
 * Callers: exec/text_reader.c (text_file's records), formats/text (the `text` data source's
 * value column). Ownership: the reader is the caller's (cs_line_reader_close); uri and line_sep
 * are copied. One thread.
 */
#ifndef CSPARK_FS_LINE_READER_H
#define CSPARK_FS_LINE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

typedef struct cs_line_reader cs_line_reader;

/* A line: base[off, off + len) of the base pointer returned with it. */
typedef struct cs_line {
    size_t off;
    size_t len;
} cs_line;

/* Opens the split [start, start + length) of uri (file_size as listed, UINT64_MAX: ask).
 * line_sep NULL or "": the default rule. NULL + err when the file cannot be opened. */
cs_line_reader *cs_line_reader_open(const char *uri, uint64_t start, uint64_t length,
                                    uint64_t file_size, const char *line_sep, size_t max_line,
                                    const char *limit_name, cs_error *err);
/* The next lines of the split: at most max_lines, stopping after max_bytes of input (at least
 * one line). *base is set; returns the number of lines, 0 at the end, < 0 with err. */
ssize_t cs_line_reader_next(cs_line_reader *r, size_t max_lines, size_t max_bytes,
                            const uint8_t **base, cs_line *lines, cs_error *err);
/* Bytes of input this split's lines took (a file's splits add up to its size), or for a
 * compressed file the compressed bytes fetched. */
uint64_t cs_line_reader_bytes(const cs_line_reader *r);
/* Whether the file is read through a codec (its split is the whole file). */
int cs_line_reader_compressed(const cs_line_reader *r);
void cs_line_reader_close(cs_line_reader *r);

#endif
