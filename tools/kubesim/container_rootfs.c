/*
 * container_rootfs.c — an image's root filesystem for one container (see container_rootfs.h).
 * Runs in the child of ks_container_start() (container.c), inside its private mount namespace:
 * system calls only, on strings the parent prepared.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "container_rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mkdir_ok(const char *path, mode_t mode)
{
    return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -1;
}

/* <root>/dev as a container runtime makes it */
static int mount_dev(const char *root)
{
    static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
    static const char *const links[][2] = {{"fd", "/proc/self/fd"},
                                           {"stdin", "/proc/self/fd/0"},
                                           {"stdout", "/proc/self/fd/1"},
                                           {"stderr", "/proc/self/fd/2"},
                                           {"ptmx", "pts/ptmx"}};
    char dev[PATH_MAX], p[PATH_MAX + 32], host[64];
    snprintf(dev, sizeof dev, "%s/dev", root);
    if (mkdir_ok(dev, 0755) != 0 ||
        mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_STRICTATIME, "mode=755,size=65536k") != 0)
        return -1;
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dev, nodes[i]);
        snprintf(host, sizeof host, "/dev/%s", nodes[i]);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return -1;
        close(fd);
        if (mount(host, p, NULL, MS_BIND, NULL) != 0) return -1;
    }
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dev, links[i][0]);
        if (symlink(links[i][1], p) != 0) return -1;
    }
    snprintf(p, sizeof p, "%s/shm", dev);
    if (mkdir_ok(p, 01777) != 0 ||
        mount("shm", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=65536k") != 0)
        return -1;
    snprintf(p, sizeof p, "%s/pts", dev);
    if (mkdir_ok(p, 0755) != 0) return -1;
    /* a terminal is rarely needed by a pod: without devpts here, /dev/pts stays empty */
    mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620");
    return 0;
}

int ks_rootfs_mount(const char *scratch, const char *root, const char *lowerdirs)
{
    char rw[PATH_MAX], upper[PATH_MAX + 16], work[PATH_MAX + 16], opts[3 * PATH_MAX + 64];
    snprintf(rw, sizeof rw, "%s/rw", scratch);
    snprintf(upper, sizeof upper, "%s/upper", rw);
    snprintf(work, sizeof work, "%s/work", rw);
    if (mkdir_ok(scratch, 0700) != 0 || mkdir_ok(rw, 0700) != 0 || mkdir_ok(root, 0755) != 0)
        return -1;
    if (mount("tmpfs", rw, "tmpfs", MS_NOSUID, "mode=700") != 0) return -1;
    if (mkdir_ok(upper, 0755) != 0 || mkdir_ok(work, 0700) != 0) return -1;
    int n =
        snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", lowerdirs, upper, work);
    if (n < 0 || (size_t)n >= sizeof opts) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mount("overlay", root, "overlay", 0, opts) != 0) return -1;
    return mount_dev(root);
}

int ks_rootfs_pivot(const char *root)
{
    char old[PATH_MAX + 32];
    snprintf(old, sizeof old, "%s%s", root, KS_ROOTFS_OLD);
    if (mkdir_ok(old, 0700) != 0) return -1;
    if (chdir(root) != 0) return -1;
    if (syscall(SYS_pivot_root, ".", "." KS_ROOTFS_OLD) != 0) return -1;
    return chdir("/");
}

int ks_rootfs_finish(void)
{
    if (mkdir_ok("/sys", 0555) == 0 &&
        mount(KS_ROOTFS_OLD "/sys", "/sys", NULL, MS_BIND | MS_REC, NULL) == 0)
        mount(NULL, "/sys", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
    if (mkdir_ok("/proc", 0555) != 0) return -1;
    if (umount2(KS_ROOTFS_OLD, MNT_DETACH) != 0) return -1;
    rmdir(KS_ROOTFS_OLD);
    return 0;
}
