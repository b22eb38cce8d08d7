/*
 * sources.c — the data sources of cspark.h: parallelize (records copied to the driver and
 * sliced), range (numbers computed per partition) and text_file (files, directories, globs and
 * comma-separated lists, split into line-aligned byte ranges as Hadoop's FileInputFormat does:
 * split size = max(1, min(total / minPartitions, 32 MiB)), a file's last split absorbing up to
 * 10% extra). Input problems are reported when the RDD is created, naming the path.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/rdd_internal.h"
#include "common/recio.h"

#define TEXT_BLOCK_SIZE (32LL * 1024 * 1024) /* Hadoop's local file system block size */
#define SPLIT_SLOP 1.1

cspark_rdd *cspark_parallelize(cspark_context *sc, const cspark_record *records, size_t n,
                               int num_slices)
{
    if (!sc) return NULL;
    if (num_slices < 0) {
        cs_error e;
        cs_error_set(&e, CS_EINVAL, "parallelize: number of slices must be positive, got %d",
                     num_slices);
        return cs_rdd_refuse(sc, &e);
    }
    for (size_t i = 0; i < n; i++) {
        cs_error e;
        if (cs_recio_check_record(records[i].key.len, records[i].value.len, "parallelize", &e) < 0)
            return cs_rdd_refuse(sc, &e);
    }
    int slices = num_slices ? num_slices : sc->default_parallelism;
    cspark_rdd *r = cs_rdd_new(sc, RDD_PARALLELIZE, slices, "parallelize", CALLER());
    for (size_t i = 0; i < n; i++)
        cs_batch_append_record(&r->par_data, records[i].key.ptr, records[i].key.len,
                               records[i].value.ptr, records[i].value.len);
    r->par_offsets = cs_xcalloc((size_t)slices + 1, sizeof *r->par_offsets);
    for (int i = 0; i <= slices; i++)
        r->par_offsets[i] = (size_t)((unsigned __int128)n * (unsigned)i / (unsigned)slices);
    return r;
}

cspark_rdd *cspark_range(cspark_context *sc, int64_t start, int64_t end, int64_t step,
                         int num_slices)
{
    if (!sc) return NULL;
    cs_error e;
    if (step == 0) {
        cs_error_set(&e, CS_EINVAL, "range: step must not be 0");
        return cs_rdd_refuse(sc, &e);
    }
    if (num_slices < 0) {
        cs_error_set(&e, CS_EINVAL, "range: number of slices must be positive, got %d", num_slices);
        return cs_rdd_refuse(sc, &e);
    }
    int slices = num_slices ? num_slices : sc->default_parallelism;
    cspark_rdd *r = cs_rdd_new(sc, RDD_RANGE, slices, "range", CALLER());
    r->range_start = start;
    r->range_end = end;
    r->range_step = step;
    return r;
}

/* ---- text_file ----------------------------------------------------------------------------- */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static void path_add(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = cs_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = cs_xstrdup(p);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *strip_scheme(const char *p)
{
    if (strncmp(p, "file://", 7) == 0) return p + 7;
    if (strncmp(p, "file:", 5) == 0) return p + 5;
    return p;
}

/* Adds the visible files of a directory (names not starting with '.' or '_'), sorted. */
static int add_dir(path_list *l, const char *dir, cs_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cs_error_set(err, CS_EIO, "cannot read input directory %s: %s", dir,
                            strerror(errno));
    path_list local = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) path_add(&local, p);
    }
    closedir(d);
    qsort(local.v, local.n, sizeof *local.v, cmp_str);
    for (size_t i = 0; i < local.n; i++) {
        path_add(l, local.v[i]);
        free(local.v[i]);
    }
    free(local.v);
    return 0;
}

static int expand_one(path_list *l, const char *spec, cs_error *err)
{
    const char *p = strip_scheme(spec);
    if (strpbrk(p, "*?[{")) {
        glob_t g;
        int rc = glob(p, GLOB_BRACE, NULL, &g);
        if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
            if (rc == 0) globfree(&g);
            return cs_error_set(err, CS_ENOTFOUND, "Input Pattern file:%s matches 0 files", p);
        }
        if (rc != 0) return cs_error_set(err, CS_EIO, "cannot expand input pattern %s", p);
        int out = 0;
        for (size_t i = 0; i < g.gl_pathc && out == 0; i++) {
            struct stat st;
            if (stat(g.gl_pathv[i], &st) < 0) continue;
            if (S_ISDIR(st.st_mode))
                out = add_dir(l, g.gl_pathv[i], err);
            else if (g.gl_pathv[i][strlen(g.gl_pathv[i]) - 1] != '/')
                path_add(l, g.gl_pathv[i]);
        }
        globfree(&g);
        return out;
    }
    struct stat st;
    if (stat(p, &st) < 0) {
        if (errno == ENOENT)
            return cs_error_set(err, CS_ENOTFOUND, "Input path does not exist: file:%s", p);
        return cs_error_set(err, CS_EIO, "cannot read input path %s: %s", p, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return add_dir(l, p, err);
    path_add(l, p);
    return 0;
}

cspark_rdd *cspark_text_file(cspark_context *sc, const char *path, int min_partitions)
{
    if (!sc) return NULL;
    cs_error err;
    cs_error_clear(&err);
    path_list files = {0};
    text_split *splits = NULL;
    size_t nsplits = 0, cap = 0;
    uint64_t *sizes = NULL;
    if (!path || !*path) {
        cs_error_set(&err, CS_EINVAL, "text_file: the path is empty");
        goto fail;
    }
    char *specs = cs_xstrdup(path), *save = NULL;
    for (char *tok = strtok_r(specs, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (expand_one(&files, tok, &err) < 0) break;
    }
    free(specs);
    if (err.code) goto fail;

    sizes = cs_xcalloc(files.n + 1, sizeof *sizes);
    uint64_t total = 0;
    for (size_t i = 0; i < files.n; i++) {
        struct stat st;
        if (stat(files.v[i], &st) < 0 || access(files.v[i], R_OK) < 0) {
            cs_error_set(&err, CS_EIO, "cannot read input file %s: %s", files.v[i],
                         strerror(errno));
            goto fail;
        }
        sizes[i] = (uint64_t)st.st_size;
        total += sizes[i];
    }
    int minp = min_partitions > 0 ? min_partitions
                                  : (sc->default_parallelism < 2 ? sc->default_parallelism : 2);
    uint64_t goal = total / (uint64_t)(minp > 0 ? minp : 1);
    uint64_t split_size = goal < (uint64_t)TEXT_BLOCK_SIZE ? goal : (uint64_t)TEXT_BLOCK_SIZE;
    if (split_size < 1) split_size = 1;

    cspark_rdd *r = cs_rdd_new(sc, RDD_TEXT_FILE, 0, "text_file", CALLER());
    r->paths = files.v;
    r->num_paths = (int)files.n;
    files.v = NULL;
    for (size_t i = 0; i < (size_t)r->num_paths; i++) {
        uint64_t off = 0, remaining = sizes[i];
        do {
            uint64_t len = remaining;
            if ((double)remaining / (double)split_size > SPLIT_SLOP) len = split_size;
            if (nsplits == cap) {
                cap = cap ? cap * 2 : 16;
                splits = cs_xrealloc(splits, cap * sizeof *splits);
            }
            splits[nsplits++] = (text_split){r->paths[i], off, len, sizes[i]};
            off += len;
            remaining -= len;
        } while (remaining > 0);
    }
    r->splits = splits;
    r->num_partitions = (int)nsplits;
    free(sizes);
    return r;
fail:
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(files.v);
    free(splits);
    free(sizes);
    return cs_rdd_refuse(sc, &err);
}
