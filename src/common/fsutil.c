/*
 * fsutil.c — see fsutil.h. Uses nftw depth-first so children go before their directory.
 */
#define _GNU_SOURCE
#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/log.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Descriptors kept aside so that a process whose user code leaked every descriptor can still
 * remove its local directory (nftw opens one per level): taken with the first local directory,
 * given back for a removal that failed for want of descriptors, then taken again. */
#define FD_RESERVE 4
static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
static int reserve[FD_RESERVE] = {-1, -1, -1, -1};

static void reserve_take(void)
{
    pthread_mutex_lock(&reserve_lock);
    for (int i = 0; i < FD_RESERVE; i++)
        if (reserve[i] < 0) reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pthread_mutex_unlock(&reserve_lock);
}

void cs_fd_reserve_release(void)
{
    pthread_mutex_lock(&reserve_lock);
    for (int i = 0; i < FD_RESERVE; i++) {
        if (reserve[i] >= 0) close(reserve[i]);
        reserve[i] = -1;
    }
    pthread_mutex_unlock(&reserve_lock);
}

int cs_remove_tree(const char *path)
{
    int rc = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (rc < 0 && (errno == EMFILE || errno == ENFILE)) {
        cs_fd_reserve_release();
        rc = nftw(path, remove_entry, FD_RESERVE, FTW_DEPTH | FTW_PHYS);
        reserve_take();
    }
    return rc;
}

/* The regular files under dir (names only: readdir's d_type, no stat), at most `limit` levels
 * deep. */
static size_t count_files(const char *dir, int limit)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (e->d_type == DT_DIR && limit > 0) {
            char sub[PATH_MAX];
            if (snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) < (int)sizeof sub)
                n += count_files(sub, limit - 1);
        } else if (e->d_type != DT_DIR) {
            n++;
        }
    }
    closedir(d);
    return n;
}

int cs_remove_local_dir(const char *dir, const char *component)
{
    size_t files = count_files(dir, 8);
    if (files >= CS_REMOVE_ANNOUNCE_FILES)
        CS_INFO(component,
                "event=deleting_local_files files=%zu dir=%s: deleting the shuffle and spill "
                "files of the application (this can take a while)...",
                files, cs_log_quote(dir));
    return cs_remove_tree(dir);
}

int cs_make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0777) < 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

int cs_local_dir_create(const cs_conf *conf, const char *name, char **path, cs_error *err)
{
    const char *dirs = getenv("SPARK_LOCAL_DIRS"), *key = "SPARK_LOCAL_DIRS";
    if ((!dirs || !*dirs) && conf) {
        dirs = cs_conf_get(conf, "spark.local.dir");
        key = "spark.local.dir";
    }
    if (!dirs || !*dirs) {
        dirs = getenv("TMPDIR");
        key = "TMPDIR";
    }
    if (!dirs || !*dirs) {
        dirs = "/tmp";
        key = "default";
    }
    char base[PATH_MAX];
    size_t n = strcspn(dirs, ",");
    if (n >= sizeof base) n = sizeof base - 1;
    memcpy(base, dirs, n);
    base[n] = 0;
    char tmpl[PATH_MAX + 160];
    snprintf(tmpl, sizeof tmpl, "%s/%s-XXXXXX", base, name);
    (void)cs_make_dirs(base); /* a root that does not exist yet is made, as Spark's mkdirs */
    if (!mkdtemp(tmpl))
        return cs_error_set(err, CS_EIO, "cannot create a local directory under %s (%s): %s", base,
                            key, strerror(errno));
    *path = cs_xstrdup(tmpl);
    reserve_take(); /* so that the directory can be removed even if user code leaks descriptors */
    return 0;
}

int cs_read_file(const char *path, uint8_t **out, size_t *len, cs_error *err)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : EISDIR;
        if (fd >= 0) close(fd);
        return cs_error_set(err, e == ENOENT || e == EISDIR ? CS_ENOTFOUND : CS_EIO,
                            "cannot read %s: %s", path, strerror(e));
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = cs_xmalloc(n ? n : 1);
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        free(buf);
        return cs_error_set(err, CS_EIO, "cannot read %s: short read", path);
    }
    *out = buf;
    *len = n;
    return 0;
}

int cs_temp_file_beside(char *tmpl, size_t cap, const char *final, cs_error *err)
{
    int len = snprintf(tmpl, cap, "%s.XXXXXX", final);
    if (len < 0 || (size_t)len >= cap) {
        if (cap > 0) tmpl[0] = '\0';
        return cs_error_set(err, CS_EIO, "cannot create a file beside %s: path too long", final);
    }
    int fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd < 0) {
        int rc = cs_error_set(err, CS_EIO, "cannot create %s: %s", tmpl, strerror(errno));
        tmpl[0] = '\0';
        return rc;
    }
    fchmod(fd, 0644);
    return fd;
}
