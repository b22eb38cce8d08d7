/* spill_damage.h — test helper: flips one bit of one of this process's spill files (anonymous:
 * created in a directory and unlinked at once, so found through /proc/self/fd) to check that
 * reading a damaged spill back fails instead of yielding records. Included by the tests of the
 * shuffle writer, ext_sorter and ext_agg. */
#ifndef CSPARK_TESTS_SPILL_DAMAGE_H
#define CSPARK_TESTS_SPILL_DAMAGE_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Flips bit 2 of the byte at `off` in a spill file of `dir` (the last one listed). 0, or -1 when
 * there is no such file or it is shorter. */
static inline int spill_damage(const char *dir, off_t off)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int fd = -1;
    while (d && (e = readdir(d))) {
        char link[300], target[1024];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        if (strstr(target, "cspark-spill-") && strstr(target, dir)) fd = atoi(e->d_name);
    }
    if (d) closedir(d);
    uint8_t b;
    if (fd < 0 || pread(fd, &b, 1, off) != 1) return -1;
    b ^= 0x04;
    return pwrite(fd, &b, 1, off) == 1 ? 0 : -1;
}

#endif
