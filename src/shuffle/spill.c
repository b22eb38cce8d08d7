/*
 * spill.c — anonymous spill files (see spill.h). Called by shuffle_writer.c, external_agg.c and
 * external_sort.c.
 */
#include "shuffle/spill.h"

#include "records/recio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cs_spill_file_open(const char *dir, cs_error *err)
{
    if (!dir || !*dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/cspark-spill-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return cs_error_set(err, CS_EIO, "cannot create spill file in %s: %s", dir,
                            strerror(errno));
    unlink(path);
    return fd;
}

int cs_spill_pread_full(int fd, uint8_t *buf, size_t n, uint64_t off, cs_error *err)
{
    while (n > 0) {
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0) {
            if (errno == EINTR) continue;
            return cs_error_set(err, CS_EIO, "read failed: %s", strerror(errno));
        }
        if (k == 0) return cs_error_set(err, CS_EIO, "unexpected end of file");
        buf += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

size_t cs_spill_merge_buffer(const cs_task_memory *mem, int runs)
{
    size_t bufsz = RECIO_WRITE_BUF;
    if (mem->budget > 0) {
        int64_t per = mem->budget / (4 * (int64_t)runs);
        if (per < 64 * 1024) per = 64 * 1024;
        if (per < (int64_t)bufsz) bufsz = (size_t)per;
    }
    return bufsz;
}
