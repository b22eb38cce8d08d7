/*
 * whole_file_reader.c — reads the files of one whole_text_files partition (RDD_WHOLE_TEXT_FILES,
 * Spark's WholeTextFileRDD): each file whole, through src/fs (any scheme; decompressed when its
 * name has a codec's extension), as one record whose key is the file's path and whose value its
 * content. One file per batch, so the task context's input file (cspark_input_file_name) names
 * the file of every record handed on. A file over CSPARK_MAX_RECORD_BYTES fails the task naming
 * it. Opened by the whole_text_files kind (plan/kinds/files.c).
 *
 * Ownership: the iterator owns its batch (one file's record); the batch is valid until the next
 * call, as part_iter.h promises. One task thread.
 */
#include <string.h>

#include "common/err.h"
#include "exec/part_iter.h"
#include "fs/fs.h"

typedef struct whole_iter {
    part_iter base;
    cspark_task_context *tc;
    const cspark_rdd *rdd;
    int next_split, end_split;
    cs_batch out;
} whole_iter;

/* Appends the content of split s (one whole file) to t->out as one record. */
static int read_file(whole_iter *t, const text_split *s, cs_error *err)
{
    const struct cs_codec *codec = NULL;
    cs_fs_reader *in = cs_fs_open_input(s->path, 0, s->file_size, s->file_size, &codec, err);
    if (!in) return err->code ? err->code : CS_EIO;
    size_t klen = strlen(s->path), len = 0;
    uint8_t *buf = NULL;
    int rc = cs_fs_read_to_end(in, CSPARK_MAX_RECORD_BYTES, &buf, &len, err);
    if (rc > 0)
        rc = cs_error_set(err, CS_EINVAL,
                          "input file %s is larger than the record limit of %zu bytes "
                          "(CSPARK_MAX_RECORD_BYTES, 256 MiB): whole_text_files reads "
                          "each file as one record",
                          s->path, CSPARK_MAX_RECORD_BYTES);
    if (rc == 0 && len + klen > CSPARK_MAX_RECORD_BYTES)
        rc = cs_error_set(err, CS_EINVAL,
                          "input file %s: path and content exceed the record limit of %zu bytes "
                          "(CSPARK_MAX_RECORD_BYTES)",
                          s->path, CSPARK_MAX_RECORD_BYTES);
    if (rc == 0) {
        cs_batch_append_record(&t->out, s->path, (uint32_t)klen, buf, (uint32_t)len);
        t->tc->result->metrics.records_read++;
        t->tc->result->metrics.bytes_read += (int64_t)cs_fs_reader_bytes(in);
    }
    free(buf);
    cs_fs_reader_close(in);
    return rc;
}

static int whole_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    whole_iter *t = (whole_iter *)it;
    if (t->next_split >= t->end_split) return 0;
    cs_batch_reset(&t->out);
    const text_split *s = &t->rdd->splits[t->next_split++];
    int rc = read_file(t, s, err);
    if (rc < 0) return rc;
    t->tc->input_file = s->path;
    *out = &t->out;
    return 1;
}

static void whole_free(part_iter *it)
{
    whole_iter *t = (whole_iter *)it;
    cs_batch_free(&t->out);
    free(t);
}

part_iter *cs_whole_files_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                    cs_error *err)
{
    (void)err;
    whole_iter *t = cs_xcalloc(1, sizeof *t);
    t->base.next = whole_next;
    t->base.free = whole_free;
    t->tc = tc;
    t->rdd = rdd;
    t->next_split = rdd->group_start[partition];
    t->end_split = rdd->group_start[partition + 1];
    cs_batch_init(&t->out);
    return &t->base;
}
