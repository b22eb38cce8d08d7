/*
 * archive_unpack.c — unpacks an archive shipped with --archives / spark.archives (see
 * shipped_files.h) into a directory, as Spark's Utils.unpack does: .zip and .jar (zip), .tar,
 * .tar.gz and .tgz, and here also .tar.bz2, .tar.zst and .tar.lz4. libarchive reads the formats
 * and their compression; this file decides what is written where.
 *
 * Regular files and directories are created (a file's permission bits kept, owner-writable);
 * symbolic and hard links, devices and FIFOs are skipped with a warning. An entry whose path is
 * absolute or climbs out with ".." fails the unpacking naming the entry, so an archive cannot
 * write outside its directory; on any failure the directory is removed, so nothing half-unpacked
 * stays. Called by shipped_files.c on the driver and the executors.
 *
 * Size cap (cspark.archives.maxUnpackedBytes): a zip of 1 MB may unpack to gigabytes. The
 * bytes an archive unpacks to (each file's extent, holes of sparse files included) are counted
 * against the cap twice: up front from each entry's declared size where the archive states one,
 * and as data is written, since a header may lie. Past the cap the unpacking fails naming the
 * archive, the key and the limit, and the directory is removed.
 *
 * Ownership: everything is freed before return; the caller owns the directory it named.
 */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
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
#include "fs/shipped_files.h"

/* The unpacking of one archive: where, and how many bytes it may still write. */
typedef struct unpack_state {
    const char *archive, *dir;
    int64_t max_bytes; /* cspark.archives.maxUnpackedBytes */
    int64_t used;      /* bytes of the files unpacked so far */
} unpack_state;

static int over_limit(const unpack_state *u, const char *rel, cs_error *err)
{
    return cs_error_set(err, CS_EINVAL,
                        "%s: unpacks to more than %lld bytes at entry '%s' (the limit "
                        "cspark.archives.maxUnpackedBytes sets; raise it to unpack this archive)",
                        u->archive, (long long)u->max_bytes, rel);
}

/* The names --archives unpacks (Spark's Utils.unpack, and the compressed tars cspark reads). */
bool cs_files_is_archive_name(const char *name)
{
    static const char *const exts[] = {".zip",    ".jar",     ".tar",     ".tgz",
                                       ".tar.gz", ".tar.bz2", ".tar.zst", ".tar.lz4"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t k = strlen(exts[i]);
        if (n >= k && strcasecmp(name + n - k, exts[i]) == 0) return true;
    }
    return false;
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

static int archive_failed(struct archive *a, const char *archive, cs_error *err)
{
    const char *why = archive_error_string(a);
    return cs_error_set(err, CS_EINVAL, "%s: cannot unpack: %s", archive,
                        why && *why ? why : "not a zip or tar archive");
}

/* Writes the current entry's data to dir/rel, counting its extent against the cap as it goes. */
static int write_file(struct archive *a, unpack_state *u, const char *rel, mode_t mode,
                      int64_t size, cs_error *err)
{
    const char *archive = u->archive;
    if (size > u->max_bytes - u->used) return over_limit(u, rel, err); /* declared size */
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", u->dir, rel) >= sizeof path)
        return cs_error_set(err, CS_EINVAL, "%s: entry '%s' has too long a path", archive, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (cs_make_dirs(path) < 0)
        return cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
    *slash = '/';
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode & 0777) | 0600);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
    int rc = 0;
    int64_t extent = 0; /* the file's length so far: the end of its furthest piece */
    for (;;) {
        const void *buf;
        size_t len;
        la_int64_t off;
        int r = archive_read_data_block(a, &buf, &len, &off);
        if (r == ARCHIVE_EOF) break;
        if (r < ARCHIVE_WARN) {
            const char *why = archive_error_string(a);
            rc = cs_error_set(err, CS_EINVAL,
                              "%s: cannot unpack entry '%s': %s (a truncated or corrupt archive)",
                              archive, rel, why && *why ? why : "read error");
            break;
        }
        /* sparse entries come in pieces at their offsets; the bytes actually written count,
         * whatever the header said */
        if (off < 0 || (int64_t)len > u->max_bytes - u->used ||
            off > u->max_bytes - u->used - (int64_t)len) {
            rc = over_limit(u, rel, err);
            break;
        }
        if ((int64_t)(off + len) > extent) extent = off + (int64_t)len;
        if (len > 0 && pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
            rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
            break;
        }
    }
    /* a sparse file's trailing hole */
    if (rc == 0 && size > 0 && ftruncate(fd, (off_t)size) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
    if (close(fd) < 0 && rc == 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
    if (rc == 0) u->used += size > extent ? size : extent;
    return rc;
}

static int unpack_entries(struct archive *a, unpack_state *u, cs_error *err)
{
    const char *archive = u->archive, *dir = u->dir;
    struct archive_entry *entry;
    for (;;) {
        int r = archive_read_next_header(a, &entry);
        if (r == ARCHIVE_EOF) return 0;
        if (r < ARCHIVE_WARN) return archive_failed(a, archive, err);
        const char *name = archive_entry_pathname(entry);
        char rel[4096];
        snprintf(rel, sizeof rel, "%s", name ? name : "");
        size_t n = strlen(rel);
        while (n > 0 && rel[n - 1] == '/')
            rel[--n] = '\0';
        const char *p = rel;
        while (p[0] == '.' && p[1] == '/')
            p += 2;
        if (!*p || strcmp(p, ".") == 0) continue; /* the archive's own "./" */
        if (!safe_path(p))
            return cs_error_set(err, CS_EINVAL,
                                "%s: entry '%s' would be written outside the archive's directory",
                                archive, rel);
        mode_t type = archive_entry_filetype(entry);
        int rc = 0;
        if (type == AE_IFREG && !archive_entry_hardlink(entry)) {
            rc = write_file(a, u, p, archive_entry_perm(entry),
                            archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0, err);
        } else if (type == AE_IFDIR) {
            char path[4096];
            if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, p) >= sizeof path)
                rc = cs_error_set(err, CS_EINVAL, "%s: entry '%s' has too long a path", archive,
                                  rel);
            else if (cs_make_dirs(path) < 0)
                rc = cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
        } else {
            CS_WARN("files",
                    "archive=%s entry=%s event=skipped reason=\"only regular files and "
                    "directories are unpacked\"",
                    cs_log_quote(archive), cs_log_quote(p));
        }
        if (rc < 0) return rc;
    }
}

int cs_files_unpack(const char *archive, const char *dir, int64_t max_bytes, cs_error *err)
{
    struct archive *a = archive_read_new();
    if (!a) return cs_error_set(err, CS_ENOMEM, "%s: cannot unpack: out of memory", archive);
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_lz4(a);
    int rc;
    if (archive_read_open_filename(a, archive, 1 << 16) != ARCHIVE_OK) {
        rc = archive_failed(a, archive, err);
    } else if (cs_make_dirs(dir) < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot create %s: %s", dir, strerror(errno));
    } else {
        unpack_state u = {archive, dir, max_bytes, 0};
        rc = unpack_entries(a, &u, err);
    }
    archive_read_free(a);
    if (rc < 0) cs_remove_tree(dir); /* nothing half-unpacked stays */
    return rc;
}
