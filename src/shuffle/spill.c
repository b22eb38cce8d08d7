/*
 * spill.c — anonymous spill files (see spill.h). Called by shuffle_writer.c, external_agg.c and
 * external_sort.c.
 */
#include "shuffle/spill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int spill_file_open(const char *dir, cs_error *err)
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

int spill_pread_full(int fd, uint8_t *buf, size_t n, uint64_t off, cs_error *err)
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
