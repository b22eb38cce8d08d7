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

#endif
