/*
 * fsutil.h — small file-system helpers shared by the driver and executors: removing a
 * directory tree (local directories, failed outputs), creating a path with its parents, and
 * the temporary file beside a final one that an atomic rename publishes.
 */
#ifndef CSPARK_COMMON_FSUTIL_H
#define CSPARK_COMMON_FSUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Removes path and everything under it (best effort, does not follow symlinks). */
int cs_remove_tree(const char *path);
/* Removes an application's local directory (shuffle, spill and cached-block files) as
 * cs_remove_tree, saying first, in one log line of `component`, how many files it deletes when
 * they are many (CS_REMOVE_ANNOUNCE_FILES or more): deleting a large job's shuffle files can take
 * tens of seconds, which the user would otherwise see as a hang after the job or Ctrl-C. */
#define CS_REMOVE_ANNOUNCE_FILES 1000
int cs_remove_local_dir(const char *dir, const char *component);
/* Gives back the descriptors cs_remove_tree keeps aside (taken with the first local directory),
 * for what runs at process exit when user code leaked every other one. */
void cs_fd_reserve_release(void);
/* mkdir -p path (mode 0777 less the umask, as mkdir -p); 0 or -1 with errno. */
int cs_make_dirs(const char *path);

struct cs_conf;
struct cs_error;
/* Reads a whole regular file into *out (malloc'd, *len bytes). CS_ENOTFOUND when it is missing
 * or not a regular file, CS_EIO when it cannot be read; the message names the path. */
int cs_read_file(const char *path, uint8_t **out, size_t *len, struct cs_error *err);
/* Creates this process's local directory "<base>/<name>-XXXXXX", where base is the first entry
 * of SPARK_LOCAL_DIRS (set by cluster managers; wins, as in Spark), else of spark.local.dir
 * (conf may be NULL), else $TMPDIR, else /tmp. *path is malloc'd. The error names the setting. */
int cs_local_dir_create(const struct cs_conf *conf, const char *name, char **path,
                        struct cs_error *err);
/* Creates "<final>.XXXXXX" (mode 0644, close-on-exec), its name in tmpl (cap bytes), for the
 * caller to fill and rename onto final; the descriptor, or a negative code whose message names
 * the path (tmpl is then ""). */
int cs_temp_file_beside(char *tmpl, size_t cap, const char *final, struct cs_error *err);

#endif
