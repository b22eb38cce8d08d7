/*
 * wire_bitflip.c — an LD_PRELOAD shim for the fault suites: damages one bit "on the wire".
 * Built as <build>/tests/wire_bitflip.so and preloaded into executors (spark.executorEnv.
 * LD_PRELOAD) by tests/fault/shuffle_wire_bitflip.sh and tests/k8s/shuffle_bitflip.sh.
 *
 * With CSPARK_TEST_WIRE_FLIP=<path> in the environment, the first write(2)/writev(2)/send(2)/
 * sendmsg(2) to a socket of at least CSPARK_TEST_WIRE_FLIP_MIN bytes (default 65536) — in a
 * process where the file <path> can still be created (O_EXCL: once across all the processes
 * sharing the path) — goes out with bit 0x10 of its byte 4096 flipped: past any frame header,
 * inside the bytes of a shuffle block when the write is a block server's BlockData frame (the
 * only frames that large in the suites' jobs). The caller's buffer is never modified (a copy is
 * sent). When the flipped byte did not go out (a short or failed write), <path> is removed, so a
 * later write flips instead. Without the variable every call passes straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FLIP_AT 4096

/* The marker path when this write should be damaged (claimed), else NULL. */
static const char *claim(int fd, size_t total)
{
    const char *path = getenv("CSPARK_TEST_WIRE_FLIP");
    if (!path || !*path) return NULL;
    const char *m = getenv("CSPARK_TEST_WIRE_FLIP_MIN");
    size_t min = m ? (size_t)strtoull(m, NULL, 10) : 65536;
    if (total < min || total <= FLIP_AT) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return NULL;
    int saved = errno;
    int mfd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    errno = saved;
    if (mfd < 0) return NULL;
    close(mfd);
    return path;
}

/* A copy of the iovecs with the bit flipped (malloc'd), or NULL. */
static void *flipped_copy(const struct iovec *iov, int n, size_t total)
{
    char *buf = malloc(total);
    if (!buf) return NULL;
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    buf[FLIP_AT] ^= 0x10;
    return buf;
}

/* After the damaged write: if byte FLIP_AT did not go out, another write gets the flip. */
static ssize_t settle(const char *path, ssize_t k)
{
    int saved = errno;
    if (k <= FLIP_AT) unlink(path);
    errno = saved;
    return k;
}

static size_t iov_total(const struct iovec *iov, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += iov[i].iov_len;
    return t;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    static ssize_t (*next)(int, const struct iovec *, int);
    if (!next) next = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    size_t total = n > 0 ? iov_total(iov, n) : 0;
    const char *path = claim(fd, total);
    void *copy = path ? flipped_copy(iov, n, total) : NULL;
    if (!copy) return next(fd, iov, n);
    struct iovec one = {copy, total};
    ssize_t k = settle(path, next(fd, &one, 1));
    free(copy);
    return k;
}

ssize_t write(int fd, const void *p, size_t len)
{
    static ssize_t (*next)(int, const void *, size_t);
    if (!next) next = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *path = claim(fd, len);
    struct iovec one = {(void *)p, len};
    void *copy = path ? flipped_copy(&one, 1, len) : NULL;
    if (!copy) return next(fd, p, len);
    ssize_t k = settle(path, next(fd, copy, len));
    free(copy);
    return k;
}

ssize_t send(int fd, const void *p, size_t len, int flags)
{
    static ssize_t (*next)(int, const void *, size_t, int);
    if (!next) next = (ssize_t(*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
    const char *path = claim(fd, len);
    struct iovec one = {(void *)p, len};
    void *copy = path ? flipped_copy(&one, 1, len) : NULL;
    if (!copy) return next(fd, p, len, flags);
    ssize_t k = settle(path, next(fd, copy, len, flags));
    free(copy);
    return k;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    static ssize_t (*next)(int, const struct msghdr *, int);
    if (!next) next = (ssize_t(*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
    size_t total = iov_total(msg->msg_iov, (int)msg->msg_iovlen);
    const char *path = claim(fd, total);
    void *copy = path ? flipped_copy(msg->msg_iov, (int)msg->msg_iovlen, total) : NULL;
    if (!copy) return next(fd, msg, flags);
    struct iovec one = {copy, total};
    struct msghdr m = *msg;
    m.msg_iov = &one;
    m.msg_iovlen = 1;
    ssize_t k = settle(path, next(fd, &m, flags));
    free(copy);
    return k;
}
