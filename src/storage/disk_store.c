/*
 * disk_store.c — one recio file per cached partition on local disk (see disk_store.h). Called by
 * the block manager (writers, eviction to disk, removal) and its readers.
 */
#define _GNU_SOURCE
#include "storage/disk_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "records/recio.h"

void cs_disk_store_path(const char *dir, int rdd_id, int partition, char *out, size_t cap)
{
    snprintf(out, cap, "%s/rdd_%d_%d", dir, rdd_id, partition);
}

struct disk_writer {
    int fd;
    char *path;
    recio_writer *w;
};

disk_writer *cs_disk_writer_open(const char *path, bool compress, cs_checksum_algo algo,
                                 cs_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        cs_error_set(err, CS_EIO, "cannot create block file %s: %s", path, strerror(errno));
        return NULL;
    }
    disk_writer *w = cs_xcalloc(1, sizeof *w);
    w->fd = fd;
    w->path = cs_xstrdup(path);
    w->w = cs_recio_writer_new(fd, compress, 0);
    cs_recio_writer_set_checksum(w->w, algo);
    return w;
}

int cs_disk_writer_add(disk_writer *w, const cs_batch *b, cs_error *err)
{
    int rc = cs_recio_writer_add_batch(w->w, b, err);
    if (rc < 0) cs_error_prefix(err, w->path);
    return rc;
}

static void writer_release(disk_writer *w, bool remove)
{
    cs_recio_writer_free(w->w);
    close(w->fd);
    if (remove) unlink(w->path);
    free(w->path);
    free(w);
}

int cs_disk_writer_close(disk_writer *w, int64_t *size, cs_error *err)
{
    int rc = cs_recio_writer_flush(w->w, err);
    if (rc < 0) {
        cs_error_prefix(err, w->path);
        writer_release(w, true);
        return rc;
    }
    *size = (int64_t)cs_recio_writer_offset(w->w);
    writer_release(w, false);
    return 0;
}

void cs_disk_writer_abort(disk_writer *w)
{
    if (w) writer_release(w, true);
}

struct disk_reader {
    int fd;
    recio_reader *r;
};

disk_reader *cs_disk_reader_open(const char *path, cs_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        cs_error_set(err, CS_EIO, "cannot open block file %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    disk_reader *d = cs_xcalloc(1, sizeof *d);
    d->fd = fd;
    d->r = cs_recio_reader_fd(fd, 0, (uint64_t)st.st_size, 0);
    return d;
}

int cs_disk_reader_next(disk_reader *d, cs_batch *out, cs_error *err)
{
    cs_batch_reset(out);
    for (;;) {
        int rc = cs_recio_reader_next_block(d->r, out, err);
        if (rc < 0) return rc;
        if (rc == 0) return out->n ? 1 : 0;
        if (batch_full(out)) return 1;
    }
}

void cs_disk_reader_free(disk_reader *d)
{
    if (!d) return;
    cs_recio_reader_free(d->r);
    close(d->fd);
    free(d);
}

int cs_disk_store_read_all(const char *path, uint8_t **data, size_t *len, cs_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return cs_error_set(err, CS_EIO, "cannot open block file %s: %s", path, strerror(e));
    }
    size_t n = (size_t)st.st_size, done = 0;
    uint8_t *buf = cs_xmalloc(n ? n : 1);
    while (done < n) {
        ssize_t k = pread(fd, buf + done, n - done, (off_t)done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            close(fd);
            free(buf);
            return cs_error_set(err, CS_EIO, "block file %s: short read", path);
        }
        done += (size_t)k;
    }
    close(fd);
    *data = buf;
    *len = n;
    return 0;
}
