/*
 * shipped_files.h — files shipped with an application, as Spark's --files / --archives /
 * spark.files / spark.archives and SparkFiles: every process of the application (the driver,
 * each executor) fetches each listed URI once into its own directory, unpacking archives, and
 * tasks find them by name (cspark_files_get). The spark.submit.pyFiles entries among them are
 * Python path entries of the process's Python UDF workers (cs_files_python_includes), as
 * SparkFiles' root and python includes are.
 *
 * A list is Spark's comma-separated URIs; an entry may end in `#name` to give its local name
 * (default: the URI's last path segment). Schemes: a bare path or file: (copied from the local
 * file system — on Kubernetes a path every pod shares), local:// (a path already inside the
 * image: used in place, never copied), s3a:// (downloaded through src/fs). Archives (.tar,
 * .tar.gz, .tgz; a .tar compressed with any codec of codec.h) are unpacked into a directory
 * named after them; anything else is refused with one line naming the key and the entry.
 *
 * Submit side (cspark-submit): cs_files_check_local refuses missing or unreadable local entries
 * before anything starts; in cluster mode on Kubernetes cs_files_upload* copies local entries to
 * spark.kubernetes.file.upload.path/spark-upload-<uuid>/ (Spark's
 * KubernetesUtils.uploadAndTransformFileUris) and rewrites the lists to the uploaded URIs, and
 * cs_files_upload_abort removes them again when the submission fails.
 *
 * Called by src/api/context.c (the driver, at context creation), src/exec/executor.c (each
 * executor, before the job's .so is loaded), src/submit (checks and uploads), and
 * cspark_files_get. Threads: the registry is process-wide and guarded; fetching happens once per
 * process before tasks run. Ownership: returned strings are owned by the registry until
 * cs_files_clear; upload records by the caller (cs_files_upload_free).
 */
#ifndef CSPARK_FS_SHIPPED_FILES_H
#define CSPARK_FS_SHIPPED_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/conf.h"
#include "common/err.h"

/* Fetches every entry of spark.files and spark.archives into dir (created if missing) and
 * registers their names; a second call with the same lists does nothing. Each archive unpacks
 * to at most cspark.archives.maxUnpackedBytes (default 10g). Errors name the key, the entry and
 * what went wrong. */
int cs_files_fetch_all(const cs_conf *conf, const char *dir, cs_error *err);

/* Fetches one URI into the local file dest (a temporary name, renamed when complete). */
int cs_files_fetch_one(const char *uri, const char *dest, cs_error *err);

/* True when uri must be fetched before it can be opened locally (s3a://). */
bool cs_files_is_remote(const char *uri);

/* The local path of a shipped file or unpacked archive by name; NULL when none has that name. */
const char *cs_files_lookup(const char *name);

/* The directory this process fetched the shipped files into (SparkFiles.getRootDirectory), or
 * NULL when it fetched none. Malloc'd: the caller frees it. */
char *cs_files_root(void);

/* The Python path entries of the spark.submit.pyFiles entries shipped to this process as
 * spark.files (Spark's python includes): a .py file's directory, a .zip or .egg file itself, in
 * the list's order. *out: a malloc'd array of that many malloc'd strings, which the caller
 * frees. */
size_t cs_files_python_includes(char ***out);

/* Forgets every registered file (a context that stops; its directory is removed by its owner). */
void cs_files_clear(void);

/* Checks every local entry (bare path or file:) of the comma list `list` given as `key`: it must
 * be a readable regular file; archives must have a supported extension. One line naming the key
 * and the path otherwise. */
int cs_files_check_list(const char *key, const char *list, bool archives, cs_error *err);

/* ---- uploading (cluster mode on Kubernetes) ------------------------------------------------ */

typedef struct cs_files_upload {
    char *dir; /* <spark.kubernetes.file.upload.path>/spark-upload-<uuid> */
    bool made; /* something was written under dir */
} cs_files_upload;

/* Starts an upload directory under `base` (an s3a:// or file: URI every pod can read) and checks
 * it can be written: one line naming spark.kubernetes.file.upload.path otherwise. */
int cs_files_upload_begin(cs_files_upload *u, const char *base, cs_error *err);

/* Uploads the local entries of the comma list `list`; *out (malloc'd) is the list with those
 * entries replaced by their uploaded URIs (remote and local:// entries unchanged). */
int cs_files_upload_list(cs_files_upload *u, const char *key, const char *list, char **out,
                         cs_error *err);

/* Uploads one local file as `name`; *uri (malloc'd) is where it went. */
int cs_files_upload_file(cs_files_upload *u, const char *path, const char *name, char **uri,
                         cs_error *err);

/* Removes everything uploaded (a submission that failed); then frees as cs_files_upload_free. */
void cs_files_upload_abort(cs_files_upload *u);
void cs_files_upload_free(cs_files_upload *u);

/* The name a list entry gets locally: its #fragment, else its last path segment (borrowed into
 * buf). */
const char *cs_files_entry_name(const char *entry, char *buf, size_t cap);

/* Calls fn on each trimmed, non-empty entry of a comma list; stops at (and returns) the first
 * negative result. */
int cs_files_each_entry(const char *list, int (*fn)(const char *entry, void *arg), void *arg);

/* Rewrites the local entries (bare paths, file:) of the comma list `list` given as `key`: fn gets
 * each one's path and local name and returns (*to, malloc'd) the URI to put instead; #fragments
 * and other entries are kept. *out (malloc'd) is the new list. fn's error is prefixed with key. */
typedef int (*cs_files_rewrite_fn)(const char *path, const char *name, char **to, void *arg,
                                   cs_error *err);
int cs_files_rewrite_local(const char *key, const char *list, cs_files_rewrite_fn fn, void *arg,
                           char **out, cs_error *err);

/* True when the comma list has a local entry (a bare path or file:). */
bool cs_files_has_local(const char *list);

/* True for the names --archives unpacks: .zip, .jar, .tar, .tgz, .tar.gz, .tar.bz2, .tar.zst,
 * .tar.lz4 (any case). */
bool cs_files_is_archive_name(const char *name);

/* Unpacks the zip or tar archive (plain or compressed) at local path `archive` into dir
 * (archive_unpack.c), writing at most max_bytes (cspark.archives.maxUnpackedBytes) in all; on
 * failure, a cap passed included, dir is removed. */
int cs_files_unpack(const char *archive, const char *dir, int64_t max_bytes, cs_error *err);

#endif
