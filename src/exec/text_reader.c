/*
 * text_reader.c — reads the lines of one text split into batches of records (key = line, no
 * value). The lines come from fs/line_reader.c, which keeps Hadoop's LineRecordReader rule (every
 * line belongs to exactly one split; '\n' ends a line, a '\r' before it dropped; a compressed file
 * read whole) and reads through src/fs (any scheme). Lines are not copied: the output batch is a
 * view whose data pointer is the line reader's buffer and whose records are offsets into it, so
 * it is valid until the next call, as part_iter.h promises. A line longer than
 * CSPARK_MAX_RECORD_BYTES fails the task naming the file and offset (it could not travel as a
 * record anyway). Opened by the text_file kind (plan/kinds/files.c) for its partitions.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "exec/part_iter.h"
#include "fs/line_reader.h"

typedef struct text_iter {
    part_iter base;
    cspark_task_context *tc;
    const text_split *split;
    cs_line_reader *in;
    cs_line *lines;
    cs_batch out; /* view: data borrows the line reader's buffer, recs owned */
} text_iter;

static int text_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    text_iter *t = (text_iter *)it;
    t->tc->input_file = t->split->path; /* the records of this batch come from it */
    const uint8_t *base;
    ssize_t n = cs_line_reader_next(t->in, CS_BATCH_TARGET_RECORDS, CS_BATCH_TARGET_BYTES, &base,
                                    t->lines, err);
    if (n <= 0) return (int)n;
    cs_rec *recs = t->out.recs;
    for (ssize_t i = 0; i < n; i++)
        recs[i] = (cs_rec){t->lines[i].off, (uint32_t)t->lines[i].len, 0};
    t->tc->result->metrics.records_read += (int64_t)n;
    t->out.data = (uint8_t *)base;
    t->out.len = t->out.cap = t->lines[n - 1].off + t->lines[n - 1].len;
    t->out.n = (size_t)n;
    *out = &t->out;
    return 1;
}

static void text_free(part_iter *it)
{
    text_iter *t = (text_iter *)it;
    /* Input bytes of this split: the bytes its lines took in the file (so a file's splits add up
     * to its size, whatever the read-ahead past a split's end), or for a compressed file, read
     * whole by one task, the compressed bytes fetched. */
    t->tc->result->metrics.bytes_read += (int64_t)cs_line_reader_bytes(t->in);
    cs_line_reader_close(t->in);
    free(t->lines);
    free(t->out.recs);
    free(t);
}

part_iter *cs_text_iter_open(cspark_task_context *tc, const text_split *split, cs_error *err)
{
    cs_line_reader *in =
        cs_line_reader_open(split->path, split->start, split->length, split->file_size, NULL,
                            CSPARK_MAX_RECORD_BYTES, "CSPARK_MAX_RECORD_BYTES, 256 MiB", err);
    if (!in) return NULL;
    text_iter *t = cs_xcalloc(1, sizeof *t);
    t->base.next = text_next;
    t->base.free = text_free;
    t->tc = tc;
    t->split = split;
    t->in = in;
    t->lines = cs_xmalloc(CS_BATCH_TARGET_RECORDS * sizeof *t->lines);
    t->out.rcap = CS_BATCH_TARGET_RECORDS;
    t->out.recs = cs_xmalloc(t->out.rcap * sizeof *t->out.recs);
    return &t->base;
}
