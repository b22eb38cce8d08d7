/*
 * checkpoint_io.c — writing and reading the partition files of a reliable checkpoint (see
 * checkpoint_io.h).
 */
#include "exec/checkpoint_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/recio.h"
#include "exec/part_iter.h"

int cs_checkpoint_writer_open(ckpt_writer *c, const task_desc *t, const exec_env *env,
                              cs_error *err)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    const char *dir = t->sink->save_path;
    snprintf(c->final, sizeof c->final, "%s/part-%05d", dir, t->partition);
    snprintf(c->tmp, sizeof c->tmp, "%s/.part-%05d-%lld", dir, t->partition, (long long)t->task_id);
    c->fd = open(c->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c->fd < 0)
        return cs_error_set(err, CS_EIO, "checkpoint: cannot create %s: %s", c->tmp,
                            strerror(errno));
    c->w = cs_recio_writer_new(c->fd, env->shuffle_compress, 1 << 20);
    cs_recio_writer_set_checksum(c->w, env->shuffle_checksum);
    return 0;
}

int cs_checkpoint_writer_add(ckpt_writer *c, const cs_batch *b, cs_error *err)
{
    return cs_recio_writer_add_batch(c->w, b, err) < 0 ? err->code : 0;
}

int cs_checkpoint_writer_commit(ckpt_writer *c, cs_error *err)
{
    if (cs_recio_writer_flush(c->w, err) < 0) return err->code;
    if (fsync(c->fd) < 0 || close(c->fd) < 0) {
        c->fd = -1;
        return cs_error_set(err, CS_EIO, "checkpoint: cannot write %s: %s", c->tmp,
                            strerror(errno));
    }
    c->fd = -1;
    if (rename(c->tmp, c->final) < 0)
        return cs_error_set(err, CS_EIO, "checkpoint: cannot rename %s to %s: %s", c->tmp, c->final,
                            strerror(errno));
    c->tmp[0] = 0;
    return 0;
}

void cs_checkpoint_writer_abort(ckpt_writer *c)
{
    if (c->w) cs_recio_writer_free(c->w);
    c->w = NULL;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    if (c->tmp[0]) unlink(c->tmp);
    c->tmp[0] = 0;
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct ckpt_iter {
    part_iter base;
    cspark_task_context *tc;
    const text_split *file;
    int fd;
    recio_reader *r;
    cs_batch out;
} ckpt_iter;

static int ckpt_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    ckpt_iter *c = (ckpt_iter *)it;
    cs_batch_reset(&c->out);
    int rc = cs_recio_reader_next_block(c->r, &c->out, err);
    if (rc < 0) return cs_error_set(err, rc, "checkpoint file %s: %s", c->file->path, err->msg);
    if (rc == 0) return 0;
    c->tc->result->metrics.records_read += (int64_t)c->out.n;
    *out = &c->out;
    return 1;
}

static void ckpt_free(part_iter *it)
{
    ckpt_iter *c = (ckpt_iter *)it;
    c->tc->result->metrics.bytes_read += (int64_t)c->file->file_size;
    cs_recio_reader_free(c->r);
    close(c->fd);
    cs_batch_free(&c->out);
    free(c);
}

part_iter *cs_checkpoint_iter_open(cspark_task_context *tc, const text_split *file, cs_error *err)
{
    int fd = open(file->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cs_error_set(err, CS_EIO, "cannot open checkpoint file %s: %s", file->path,
                     strerror(errno));
        return NULL;
    }
    ckpt_iter *c = cs_xcalloc(1, sizeof *c);
    c->base.next = ckpt_next;
    c->base.free = ckpt_free;
    c->tc = tc;
    c->file = file;
    c->fd = fd;
    c->r = cs_recio_reader_fd(fd, 0, file->file_size, 1 << 20);
    cs_batch_init(&c->out);
    return &c->base;
}
