/*
 * app_file.h — checks that an application file is a loadable shared object before anything
 * maps it. dlopen maps a file's segments as its program headers describe them: a truncated .so
 * maps pages past the end of the file and the process dies of SIGBUS on first touch, and a
 * directory or a FIFO gives a misleading error (or blocks). cs_app_file_check refuses those with
 * one line naming the path and what is wrong. Called by cspark-submit before it validates the
 * rest (src/submit), by the driver before dlopen (src/api/app.c), and by the executor before
 * it loads the shipped file (src/exec/executor.c).
 *
 * Stateless; thread-safe.
 */
#ifndef CSPARK_COMMON_APP_FILE_H
#define CSPARK_COMMON_APP_FILE_H

#include "common/err.h"

/* 0 when `path` is a regular, readable ELF shared object of this machine's class and
 * architecture whose program and section headers, and every loadable segment, lie inside the
 * file. Otherwise CS_ENOTFOUND (missing), CS_EIO (unreadable) or CS_EINVAL (a directory, not a
 * regular file, not a shared object, truncated), with "application file PATH ..." in err. */
int cs_app_file_check(const char *path, cs_error *err);

#endif
