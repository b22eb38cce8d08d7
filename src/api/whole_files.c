/*
 * whole_files.c — whole_text_files of cspark.h (Spark's wholeTextFiles): the files of a path
 * (what text_file takes: files, directories, globs, comma-separated lists, any scheme of src/fs)
 * grouped in listing order into partitions of about total / min_partitions bytes, as Hadoop's
 * CombineFileInputFormat packs them; each file is one record (path, content) read whole by
 * exec/whole_file_reader.c. Problems with the path are reported when the RDD is created.
 */
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "fs/fs.h"

cspark_rdd *cspark_whole_text_files(cspark_context *sc, const char *path, int min_partitions)
{
    if (!sc) {
        cs_context_null_argument("whole_text_files", "context");
        return NULL;
    }
    cs_error err;
    cs_error_clear(&err);
    cs_fs_listing files = {0};
    if (!path || !*path) {
        cs_error_set(&err, CS_EINVAL, "whole_text_files: the path is empty");
        return cs_rdd_refuse(sc, &err);
    }
    if (min_partitions < 0) {
        cs_error_set(&err, CS_EINVAL,
                     "whole_text_files: number of partitions must be positive, got %d",
                     min_partitions);
        return cs_rdd_refuse(sc, &err);
    }
    uint64_t goal;
    if (cs_api_list_inputs(sc, path, min_partitions, &files, &goal, &err) < 0) {
        cs_fs_listing_free(&files);
        return cs_rdd_refuse(sc, &err);
    }
    if (goal < 1) goal = 1;

    size_t nf = files.n;
    cspark_rdd *r = cs_api_rdd_new(sc, RDD_WHOLE_TEXT_FILES, 0, "whole_text_files", CALLER());
    r->num_paths = (int)nf;
    r->paths = cs_xcalloc(nf + 1, sizeof *r->paths);
    r->splits = cs_xcalloc(nf + 1, sizeof *r->splits);
    r->group_start = cs_xcalloc(nf + 2, sizeof(int));
    int np = 0;
    uint64_t in_group = 0;
    for (size_t i = 0; i < nf; i++) {
        r->paths[i] = files.v[i].uri; /* moved */
        files.v[i].uri = NULL;
        r->splits[i] = (text_split){r->paths[i], 0, files.v[i].size, files.v[i].size};
        if (i == 0 || in_group >= goal) { /* a new partition starts with this file */
            r->group_start[np++] = (int)i;
            in_group = 0;
        }
        in_group += files.v[i].size;
    }
    r->group_start[np] = (int)nf;
    r->num_partitions = np;
    cs_fs_listing_free(&files);
    return r;
}
