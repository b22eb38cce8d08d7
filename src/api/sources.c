/*
 * sources.c — the data sources of cspark.h: parallelize (records copied to the driver and
 * sliced), range (numbers computed per partition) and text_file (files, directories, globs and
 * comma-separated lists on any file system of src/fs — local paths, s3a:// — split into
 * line-aligned byte ranges as Hadoop's FileInputFormat does: split size = max(1, min(total /
 * minPartitions, 32 MiB)), a file's last split absorbing up to 10% extra; a compressed file
 * (.gz, .bz2, .zst, .lz4, .deflate) is one split). Input problems are reported when the RDD is
 * created, naming the path.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "records/recio.h"
#include "fs/codec.h"
#include "fs/fs.h"

#define TEXT_BLOCK_SIZE (32LL * 1024 * 1024) /* Hadoop's local file system block size */
#define SPLIT_SLOP 1.1

/* A NULL context given to `op` (see cs_context_null_argument). */
static cspark_rdd *null_context(const char *op)
{
    cs_context_null_argument(op, "context");
    return NULL;
}

cspark_rdd *cspark_parallelize(cspark_context *sc, const cspark_record *records, size_t n,
                               int num_slices)
{
    if (!sc) return null_context("parallelize");
    if (num_slices < 0 || num_slices > CS_MAX_PARTITIONS) {
        cs_error e;
        cs_error_set(&e, CS_EINVAL,
                     "parallelize: number of slices must be between 1 and %d, got %d",
                     CS_MAX_PARTITIONS, num_slices);
        return cs_rdd_refuse(sc, &e);
    }
    for (size_t i = 0; i < n; i++) {
        cs_error e;
        if (cs_recio_check_record(records[i].key.len, records[i].value.len, "parallelize", &e) < 0)
            return cs_rdd_refuse(sc, &e);
    }
    int slices = num_slices ? num_slices : sc->default_parallelism;
    cs_batch data;
    cs_batch_init(&data);
    for (size_t i = 0; i < n; i++)
        cs_batch_append_record(&data, records[i].key.ptr, records[i].key.len, records[i].value.ptr,
                               records[i].value.len);
    size_t *offsets = cs_xcalloc((size_t)slices + 1, sizeof *offsets);
    for (int i = 0; i <= slices; i++)
        offsets[i] = (size_t)((unsigned __int128)n * (unsigned)i / (unsigned)slices);
    char name[512];
    cs_api_call_site("parallelize", CALLER(), name, sizeof name);
    cspark_rdd *r = cs_rdd_parallelize_new(&sc->graph, &data, offsets, slices, name);
    free(offsets);
    return r;
}

cspark_rdd *cspark_range(cspark_context *sc, int64_t start, int64_t end, int64_t step,
                         int num_slices)
{
    if (!sc) return null_context("range");
    cs_error e;
    if (step == 0) {
        cs_error_set(&e, CS_EINVAL, "range: step must not be 0");
        return cs_rdd_refuse(sc, &e);
    }
    if (num_slices < 0 || num_slices > CS_MAX_PARTITIONS) {
        cs_error_set(&e, CS_EINVAL, "range: number of slices must be between 1 and %d, got %d",
                     CS_MAX_PARTITIONS, num_slices);
        return cs_rdd_refuse(sc, &e);
    }
    int slices = num_slices ? num_slices : sc->default_parallelism;
    char name[512];
    cs_api_call_site("range", CALLER(), name, sizeof name);
    return cs_rdd_range_new(&sc->graph, start, end, step, slices, name);
}

/* ---- text_file ----------------------------------------------------------------------------- */

int cs_api_list_inputs(cspark_context *sc, const char *path, int min_partitions,
                       cs_fs_listing *files, uint64_t *goal, cs_error *err)
{
    char *specs = cs_xstrdup(path), *save = NULL;
    for (char *tok = strtok_r(specs, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (cs_fs_expand(tok, files, err) < 0) break;
    free(specs);
    if (err->code) return err->code;
    uint64_t total = 0;
    for (size_t i = 0; i < files->n; i++)
        total += files->v[i].size;
    int minp = min_partitions > 0 ? min_partitions
                                  : (sc->default_parallelism < 2 ? sc->default_parallelism : 2);
    if (minp > CS_MAX_PARTITIONS) minp = CS_MAX_PARTITIONS; /* a hint, as Hadoop's minSplits */
    *goal = total / (uint64_t)(minp > 0 ? minp : 1);
    return 0;
}

cspark_rdd *cspark_text_file(cspark_context *sc, const char *path, int min_partitions)
{
    if (!sc) return null_context("text_file");
    cs_error err;
    cs_error_clear(&err);
    cs_fs_listing files = {0};
    text_split *splits = NULL;
    size_t nsplits = 0, cap = 0;
    if (!path || !*path) {
        cs_error_set(&err, CS_EINVAL, "text_file: the path is empty");
        goto fail;
    }
    uint64_t goal;
    if (cs_api_list_inputs(sc, path, min_partitions, &files, &goal, &err) < 0) goto fail;
    uint64_t split_size = goal < (uint64_t)TEXT_BLOCK_SIZE ? goal : (uint64_t)TEXT_BLOCK_SIZE;
    if (split_size < 1) split_size = 1;

    cspark_rdd *r = cs_api_rdd_new(sc, RDD_TEXT_FILE, 0, "text_file", CALLER());
    r->num_paths = (int)files.n;
    r->paths = cs_xcalloc(files.n + 1, sizeof *r->paths);
    for (size_t i = 0; i < files.n; i++) {
        r->paths[i] = files.v[i].uri; /* moved */
        files.v[i].uri = NULL;
        uint64_t size = files.v[i].size, off = 0, remaining = size;
        /* a compressed file is not splittable: one task reads (and decompresses) all of it */
        bool whole = cs_codec_for_path(r->paths[i]) != NULL;
        do {
            uint64_t len = remaining;
            if (!whole && (double)remaining / (double)split_size > SPLIT_SLOP) len = split_size;
            if (nsplits == cap) {
                cap = cap ? cap * 2 : 16;
                splits = cs_xrealloc(splits, cap * sizeof *splits);
            }
            splits[nsplits++] = (text_split){r->paths[i], off, len, size};
            off += len;
            remaining -= len;
        } while (remaining > 0);
    }
    cs_fs_listing_free(&files);
    r->splits = splits;
    r->num_partitions = (int)nsplits;
    return r;
fail:
    cs_fs_listing_free(&files);
    free(splits);
    return cs_rdd_refuse(sc, &err);
}
