/*
 * tar_unpack.c — unpacks a tar archive shipped with --archives / spark.archives (see
 * shipped_files.h) into a directory, as Spark's Utils.unpack does for .tar/.tar.gz/.tgz. The
 * archive is read through src/fs, decompressed by its extension (.tgz and .tar.gz with gzip;
 * .tar.bz2, .tar.zst, .tar.lz4 with their codecs).
 *
 * The format: 512-byte headers (POSIX ustar and GNU), each followed by the entry's data padded
 * to 512 bytes; two zero blocks end it. Regular files and directories are created; symbolic and
 * hard links, devices and FIFOs are skipped with a warning; GNU long names ('L') and pax
 * headers' `path` ('x') give names longer than 100 bytes. An entry whose path is absolute or
 * climbs out with ".." is refused, so an archive cannot write outside its directory. Called by
 * shipped_files.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "common/strutil.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"

#define TAR_BLOCK 512
#define TAR_MAX_META (1u << 20) /* a long name or pax header larger than this is refused */

typedef struct tar_in {
    cs_fs_reader *r;
    const char *archive;
    uint64_t pos;
} tar_in;

/* Reads exactly n bytes (0), or fails naming the archive (short read: truncated). */
static int read_full(tar_in *t, void *buf, size_t n, cs_error *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = cs_fs_read(t->r, (uint8_t *)buf + got, n - got, err);
        if (k < 0) return err->code ? err->code : CS_EIO;
        if (k == 0)
            return cs_error_set(err, CS_EINVAL, "%s: truncated tar archive at byte %llu",
                                t->archive, (unsigned long long)(t->pos + got));
        got += (size_t)k;
    }
    t->pos += n;
    return 0;
}

static uint64_t octal(const char *p, size_t n)
{
    uint64_t v = 0;
    if (n > 0 && ((unsigned char)p[0] & 0x80)) { /* GNU base-256 for sizes of 8 GiB and more */
        for (size_t i = 1; i < n; i++)
            v = (v << 8) | (unsigned char)p[i];
        return v;
    }
    for (size_t i = 0; i < n && p[i]; i++) {
        if (p[i] == ' ') continue;
        if (p[i] < '0' || p[i] > '7') break;
        v = v * 8 + (uint64_t)(p[i] - '0');
    }
    return v;
}

static bool checksum_ok(const uint8_t *h)
{
    uint64_t want = octal((const char *)h + 148, 8), sum = 0;
    for (int i = 0; i < TAR_BLOCK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum == want;
}

/* A relative path that stays inside the directory. */
static bool safe_path(const char *p)
{
    if (!*p || p[0] == '/') return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') return false;
        s += n;
        while (*s == '/')
            s++;
    }
    return true;
}

/* The `path=` record of a pax header, malloc'd, or NULL. */
static char *pax_path(const char *data, size_t len)
{
    size_t i = 0;
    while (i < len) {
        char *end;
        unsigned long rec = strtoul(data + i, &end, 10);
        if (rec == 0 || i + rec > len || *end != ' ') return NULL;
        const char *kv = end + 1;
        size_t kvlen = (size_t)(data + i + rec - kv);
        if (kvlen > 5 && strncmp(kv, "path=", 5) == 0)
            return cs_xstrndup(kv + 5, kvlen - 6); /* without the trailing '\n' */
        i += rec;
    }
    return NULL;
}

static int skip(tar_in *t, uint64_t n, cs_error *err)
{
    uint8_t buf[8192];
    while (n > 0) {
        size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
        if (read_full(t, buf, k, err) < 0) return err->code;
        n -= k;
    }
    return 0;
}

static uint64_t padded(uint64_t n)
{
    return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static int write_entry(tar_in *t, const char *dir, const char *name, uint64_t size, mode_t mode,
                       cs_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (cs_make_dirs(path) < 0)
        return cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
    *slash = '/';
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode & 0777) | 0600);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
    uint8_t buf[65536];
    uint64_t left = padded(size), data = size;
    int rc = 0;
    while (left > 0 && rc == 0) {
        size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
        if ((rc = read_full(t, buf, k, err)) < 0) break;
        size_t w = data < k ? (size_t)data : k;
        if (w > 0 && write(fd, buf, w) != (ssize_t)w)
            rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
        data -= w;
        left -= k;
    }
    if (close(fd) < 0 && rc == 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

static int untar(tar_in *t, const char *dir, cs_error *err)
{
    uint8_t h[TAR_BLOCK];
    char *long_name = NULL;
    int rc = 0;
    for (;;) {
        if ((rc = read_full(t, h, TAR_BLOCK, err)) < 0) break;
        bool zero = true;
        for (int i = 0; i < TAR_BLOCK && zero; i++)
            zero = h[i] == 0;
        if (zero) break; /* the end (a second zero block may follow; nothing after matters) */
        if (!checksum_ok(h)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s: not a tar archive (bad header checksum at byte "
                              "%llu)",
                              t->archive, (unsigned long long)(t->pos - TAR_BLOCK));
            break;
        }
        uint64_t size = octal((const char *)h + 124, 12);
        char type = (char)h[156];
        if (type == 'L' || type == 'x') { /* the next entry's long name */
            if (size > TAR_MAX_META) {
                rc = cs_error_set(err, CS_EINVAL, "%s: a tar header of %llu bytes", t->archive,
                                  (unsigned long long)size);
                break;
            }
            char *meta = cs_xmalloc((size_t)padded(size) + 1);
            if ((rc = read_full(t, meta, (size_t)padded(size), err)) < 0) {
                free(meta);
                break;
            }
            meta[size] = '\0';
            char *name = type == 'L' ? cs_xstrndup(meta, (size_t)size) : pax_path(meta, size);
            free(meta);
            if (name) {
                free(long_name);
                long_name = name;
            }
            continue;
        }
        if (type == 'g') { /* global pax header: nothing cspark uses */
            if ((rc = skip(t, padded(size), err)) < 0) break;
            continue;
        }
        char name[512];
        if (long_name) {
            snprintf(name, sizeof name, "%s", long_name);
        } else if (memcmp(h + 257, "ustar", 5) == 0 && h[345]) {
            snprintf(name, sizeof name, "%.155s/%.100s", (const char *)h + 345, (const char *)h);
        } else {
            snprintf(name, sizeof name, "%.100s", (const char *)h);
        }
        free(long_name);
        long_name = NULL;
        size_t n = strlen(name);
        while (n > 0 && name[n - 1] == '/')
            name[--n] = '\0';
        const char *rel = name;
        while (rel[0] == '.' && rel[1] == '/')
            rel += 2;
        if (!*rel || strcmp(rel, ".") == 0) { /* the archive's own "./" */
            if ((rc = skip(t, padded(size), err)) < 0) break;
            continue;
        }
        if (!safe_path(rel)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s: entry '%s' would be written outside the archive's directory",
                              t->archive, name);
            break;
        }
        mode_t mode = (mode_t)octal((const char *)h + 100, 8);
        if (type == '0' || type == '\0' || type == '7') {
            rc = write_entry(t, dir, rel, size, mode, err);
        } else if (type == '5') {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, rel);
            if (cs_make_dirs(path) < 0)
                rc = cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
            else
                rc = skip(t, padded(size), err);
        } else {
            CS_WARN("files",
                    "archive=%s entry=%s type=%c event=skipped reason=\"only regular "
                    "files and directories are unpacked\"",
                    cs_log_quote(t->archive), cs_log_quote(rel), type);
            rc = skip(t, padded(size), err);
        }
        if (rc < 0) break;
    }
    free(long_name);
    return rc;
}

int cs_files_untar(const char *archive, const char *dir, cs_error *err)
{
    const cs_codec *codec = cs_codec_for_path(archive);
    if (!codec && cs_str_ends_with(archive, ".tgz")) codec = cs_codec_for_name("gzip");
    cs_fs_reader *r = cs_fs_open(archive, 0, UINT64_MAX, UINT64_MAX, err);
    if (r && codec) r = cs_codec_reader_new(codec, r, archive, err);
    if (!r) return err->code ? err->code : CS_EIO;
    if (cs_make_dirs(dir) < 0) {
        cs_fs_reader_close(r);
        return cs_error_set(err, CS_EIO, "cannot create %s: %s", dir, strerror(errno));
    }
    tar_in t = {r, archive, 0};
    int rc = untar(&t, dir, err);
    cs_fs_reader_close(r);
    if (rc < 0) cs_remove_tree(dir); /* nothing half-unpacked stays */
    return rc;
}
