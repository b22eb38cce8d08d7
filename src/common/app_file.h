/*
 * app_file.h — checks that an application file is a loadable shared object before anything
 * maps it. dlopen maps a file's segments as its program headers describe them: a truncated .so
 * maps pages past the end of the file and the process dies of SIGBUS on first touch, and a
 * directory or a FIFO gives a misleading error (or blocks). cs_app_file_check refuses those with
 * one line naming the path and what is wrong. Called by cspark-submit before it validates the
 * rest (src/submit), by the driver before dlopen (src/api/app.c), and by the executor before
 * it loads the shipped file (src/exec/executor.c).
 *
 * It also names the application that is no file of the user's: Spark's primary resource
 * "spark-internal" (spark-sql's), whose code is the engine itself. cspark-sql and a SQL file run
 * as an application are such applications: their driver runs libcspark's own entry, and every
 * executor loads the libcspark it already runs (cs_app_engine_library), so nothing is shipped to
 * executors, which on Kubernetes find the library in the image.
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

/* The primary resource of an application whose code is cspark's own library (Spark's
 * SparkSubmit.SPARK_INTERNAL): a driver or executor given it loads the library it runs. */
#define CS_APP_SPARK_INTERNAL "spark-internal"

/* The path of the loaded libcspark this process runs (dladdr of one of its functions), resolved
 * with realpath, in buf: 0, or -1 (nothing written) when it cannot be told. */
int cs_app_engine_library(char *buf, size_t cap);

/* The application file `name` as this process loads it, malloc'd (the caller frees): the path of
 * its own libcspark for CS_APP_SPARK_INTERNAL (name itself if that cannot be told, which
 * cs_app_file_check then refuses), else a copy of name. */
char *cs_app_file_resolve(const char *name);

#endif
