/*
 * batch_spill.c — spill files of column batches for the stateful SQL operators: an Arrow IPC
 * stream (src/formats/arrow_ipc.h) written through a 64 KiB buffer into an anonymous, already
 * unlinked file of the task's spill directory (src/shuffle/spill.h: nothing is left behind, not
 * even after a crash), then read back in order. Also the spill decision and bookkeeping every
 * operator shares, and the schema concatenation of the join. Called by op_hash_aggregate.c,
 * op_hash_join.c, op_sort.c and op_window.c on the task's thread.
 */
#include "sqlexec/sql_ops_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/arrow_ipc.h"
#include "shuffle/spill.h"

#define SPILL_BUF (64 * 1024)

struct cs_sql_spill {
    int fd;
    cs_col_type *schema;
    cs_ipc_writer *w;
    cs_ipc_reader *r;
    uint8_t *buf;
    size_t buf_len, buf_pos;
    int64_t bytes, rows;
};

static int flush_buf(cs_sql_spill *s, cs_error *err)
{
    size_t done = 0;
    while (done < s->buf_len) {
        ssize_t k = write(s->fd, s->buf + done, s->buf_len - done);
        if (k < 0) {
            if (errno == EINTR) continue;
            return cs_error_set(err, CS_EIO, "writing a SQL spill file: %s", strerror(errno));
        }
        done += (size_t)k;
    }
    s->buf_len = 0;
    return CS_OK;
}

static int spill_write(void *arg, const void *p, size_t n, cs_error *err)
{
    cs_sql_spill *s = arg;
    s->bytes += (int64_t)n;
    while (n > 0) {
        if (s->buf_len == SPILL_BUF && flush_buf(s, err) != CS_OK) return CS_EIO;
        size_t k = SPILL_BUF - s->buf_len < n ? SPILL_BUF - s->buf_len : n;
        memcpy(s->buf + s->buf_len, p, k);
        s->buf_len += k;
        p = (const uint8_t *)p + k;
        n -= k;
    }
    return CS_OK;
}

static int spill_read(void *arg, void *p, size_t n, size_t *got, cs_error *err)
{
    cs_sql_spill *s = arg;
    *got = 0;
    while (n > 0) {
        if (s->buf_pos == s->buf_len) {
            ssize_t k = read(s->fd, s->buf, SPILL_BUF);
            if (k < 0) {
                if (errno == EINTR) continue;
                return cs_error_set(err, CS_EIO, "reading a SQL spill file: %s", strerror(errno));
            }
            if (k == 0) break;
            s->buf_len = (size_t)k;
            s->buf_pos = 0;
        }
        size_t k = s->buf_len - s->buf_pos < n ? s->buf_len - s->buf_pos : n;
        memcpy(p, s->buf + s->buf_pos, k);
        s->buf_pos += k;
        *got += k;
        p = (uint8_t *)p + k;
        n -= k;
    }
    return CS_OK;
}

cs_sql_spill *cs_sql_spill_new(const char *dir, cs_col_type *schema, cs_error *err)
{
    int fd = cs_spill_file_open(dir, err);
    if (fd < 0) return NULL;
    cs_sql_spill *s = cs_xcalloc(1, sizeof *s);
    s->fd = fd;
    s->schema = cs_col_type_ref(schema);
    s->buf = cs_xmalloc(SPILL_BUF);
    s->w = cs_ipc_writer_new(schema, spill_write, s);
    return s;
}

int cs_sql_spill_write(cs_sql_spill *s, const cs_col_batch *b, cs_error *err)
{
    s->rows += b->num_rows;
    return cs_ipc_writer_write(s->w, b, err);
}

int cs_sql_spill_finish(cs_sql_spill *s, cs_col_allocator *alloc, cs_error *err)
{
    int rc = cs_ipc_writer_close(s->w, err);
    cs_ipc_writer_free(s->w);
    s->w = NULL;
    if (rc != CS_OK || flush_buf(s, err) != CS_OK) return rc != CS_OK ? rc : CS_EIO;
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return cs_error_set(err, CS_EIO, "rewinding a SQL spill file: %s", strerror(errno));
    s->buf_len = s->buf_pos = 0;
    return cs_ipc_reader_open(alloc, spill_read, s, "a SQL spill file", &s->r, err);
}

int cs_sql_spill_rewind(cs_sql_spill *s, cs_col_allocator *alloc, cs_error *err)
{
    if (!s->r)
        return cs_error_set(err, CS_EINVAL, "rewinding a SQL spill file that is still written");
    cs_ipc_reader_free(s->r);
    s->r = NULL;
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return cs_error_set(err, CS_EIO, "rewinding a SQL spill file: %s", strerror(errno));
    s->buf_len = s->buf_pos = 0;
    return cs_ipc_reader_open(alloc, spill_read, s, "a SQL spill file", &s->r, err);
}

int cs_sql_spill_next(cs_sql_spill *s, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    return cs_ipc_reader_next(s->r, out, err);
}

int64_t cs_sql_spill_bytes(const cs_sql_spill *s)
{
    return s->bytes;
}

int64_t cs_sql_spill_rows(const cs_sql_spill *s)
{
    return s->rows;
}

void cs_sql_spill_free(cs_sql_spill *s)
{
    if (!s) return;
    if (s->w) cs_ipc_writer_free(s->w);
    if (s->r) cs_ipc_reader_free(s->r);
    close(s->fd);
    cs_col_type_unref(s->schema);
    free(s->buf);
    free(s);
}

bool cs_sql_should_spill(const cs_sql_exec_ctx *ctx, int64_t held)
{
    if (!ctx->task_memory || !cs_col_allocator_over(ctx->alloc)) return false;
    return held >= cs_task_memory_spill_floor(ctx->task_memory);
}

bool cs_sql_should_spill_before(const cs_sql_exec_ctx *ctx, int64_t held, int64_t upcoming)
{
    const cs_task_memory *m = ctx->task_memory;
    if (!m) return false;
    bool over =
        cs_col_allocator_over(ctx->alloc) || (m->budget > 0 && m->used + upcoming > m->budget);
    return over && held >= cs_task_memory_spill_floor(m);
}

void cs_sql_note_spill(cs_sql_op *op, int64_t memory_bytes, int64_t disk_bytes)
{
    op->metrics.spill_count++;
    op->metrics.spill_bytes += disk_bytes;
    if (op->ctx && op->ctx->task_memory)
        cs_task_memory_note_spill(op->ctx->task_memory, memory_bytes, disk_bytes);
}

cs_col_type *cs_sql_concat_schema(const cs_col_type *const *parts, const bool *force_nullable,
                                  int n_parts)
{
    int n = 0;
    for (int p = 0; p < n_parts; p++)
        n += parts[p]->n_fields;
    cs_col_field *f = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *f);
    int k = 0;
    for (int p = 0; p < n_parts; p++)
        for (int i = 0; i < parts[p]->n_fields; i++, k++) {
            f[k].name = parts[p]->fields[i].name;
            f[k].type = cs_col_type_ref(parts[p]->fields[i].type);
            f[k].nullable = parts[p]->fields[i].nullable || (force_nullable && force_nullable[p]);
        }
    cs_col_type *t = cs_col_type_struct(f, n);
    free(f);
    return t;
}
