/*
 * exit_cleanup.c — see exit_cleanup.h. A fixed table of path slots, each claimed with an atomic
 * state (free -> writing -> set); the removal walks a tree with openat/getdents64/unlinkat into
 * stack buffers, so it allocates nothing and may run inside a signal handler.
 */
#define _GNU_SOURCE
#include "common/exit_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/sync.h"

enum { SLOT_FREE, SLOT_WRITING, SLOT_SET };
#define TREE_DEPTH_MAX 16 /* local directories are a few levels deep */

static struct {
    atomic_int state;
    char path[PATH_MAX];
} slots[CS_EXIT_CLEANUP_MAX];

static atomic_int ending;   /* the process is ending: create nothing more */
static atomic_int creators; /* threads between enter and leave */

bool cs_exit_cleanup_enter(void)
{
    atomic_fetch_add(&creators, 1);
    if (atomic_load(&ending)) {
        atomic_fetch_sub(&creators, 1);
        return false;
    }
    return true;
}

void cs_exit_cleanup_leave(void)
{
    atomic_fetch_sub(&creators, 1);
}

void cs_exit_cleanup_add(const char *path)
{
    if (!path || strlen(path) >= PATH_MAX) return;
    for (int i = 0; i < CS_EXIT_CLEANUP_MAX; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_WRITING)) continue;
        strcpy(slots[i].path, path);
        atomic_store(&slots[i].state, SLOT_SET);
        return;
    }
}

void cs_exit_cleanup_remove(const char *path)
{
    if (!path) return;
    for (int i = 0; i < CS_EXIT_CLEANUP_MAX; i++) {
        int expected = SLOT_SET;
        if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_WRITING)) continue;
        if (strcmp(slots[i].path, path) == 0) {
            atomic_store(&slots[i].state, SLOT_FREE);
            return;
        }
        atomic_store(&slots[i].state, SLOT_SET);
    }
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Removes the entries of the directory open as `fd`, then closes it. Entries removed while the
 * directory is read may make the kernel skip others, so it is read again while a pass removed
 * something (a few passes at most). */
static void empty_dir(int fd, int depth)
{
    char buf[2048] __attribute__((aligned(8)));
    for (int pass = 0; pass < 8; pass++) {
        bool removed = false;
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
                off += d->d_reclen;
                const char *name = d->d_name;
                if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
                if (d->d_type != DT_DIR && unlinkat(fd, name, 0) == 0) {
                    removed = true;
                    continue;
                }
                if (depth >= TREE_DEPTH_MAX) continue;
                int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0) continue;
                empty_dir(sub, depth + 1);
                if (unlinkat(fd, name, AT_REMOVEDIR) == 0) removed = true;
            }
        }
        if (!removed || lseek(fd, 0, SEEK_SET) < 0) break;
    }
    close(fd);
}

void cs_exit_cleanup_run(void)
{
    atomic_store(&ending, 1);
    cs_wait_while_positive(&creators, 200);
    for (int i = 0; i < CS_EXIT_CLEANUP_MAX; i++) {
        int expected = SLOT_SET;
        if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_WRITING)) continue;
        int fd = open(slots[i].path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            empty_dir(fd, 0);
            rmdir(slots[i].path);
        } else {
            unlink(slots[i].path);
        }
        atomic_store(&slots[i].state, SLOT_FREE);
    }
}
