/*
 * fsutil.h — small file-system helpers shared by the driver and executors: removing a
 * directory tree (local directories, failed outputs) and creating a path with its parents.
 */
#ifndef CSPARK_COMMON_FSUTIL_H
#define CSPARK_COMMON_FSUTIL_H

/* Removes path and everything under it (best effort, does not follow symlinks). */
int cs_remove_tree(const char *path);
/* mkdir -p path (mode 0755); 0 or -1 with errno. */
int cs_make_dirs(const char *path);

struct cs_conf;
struct cs_error;
/* Creates this process's local directory "<base>/<name>-XXXXXX", where base is the first entry
 * of SPARK_LOCAL_DIRS (set by cluster managers; wins, as in Spark), else of spark.local.dir
 * (conf may be NULL), else $TMPDIR, else /tmp. *path is malloc'd. The error names the setting. */
int cs_local_dir_create(const struct cs_conf *conf, const char *name, char **path,
                        struct cs_error *err);

#endif
