/*
 * fs.h — file systems by scheme, as Hadoop's FileSystem: one interface for listing, reading byte
 * ranges, writing files that become visible only when committed, deleting and stat, served by
 * a table of backends keyed by the URI's scheme:
 *   - `file:` (`file:/x`, `file:///x`) and bare paths: the local file system (fs_local.c);
 *   - `s3a://bucket/key`: S3 and S3-compatible object stores over libcurl (fs_s3a*.c), configured
 *     with Spark's `spark.hadoop.fs.s3a.*` keys and the AWS environment (see fs_s3a.h).
 * Any other scheme is refused as Hadoop does: `No FileSystem for scheme "hdfs"`.
 *
 * Text sources (api/sources.c) expand their paths with cs_fs_expand and the task's line reader
 * (exec/text_reader.c) reads its split through cs_fs_open_input, which decompresses files whose
 * extension names a codec (codec.h). save_as_text_file (api/actions.c, exec/task_runner.c) writes
 * each task attempt's part with cs_fs_create and hands the driver what commits it (cs_fs_pending);
 * the event log writes through the same writer.
 *
 * Configuration: cs_fs_configure(conf) gives the process's file systems their configuration (the
 * driver's SparkConf on the driver, the configuration fetched from the driver on an executor);
 * until it is called, s3a reads only the environment. File systems are created on first use per
 * scheme and bucket and cached, as Hadoop's FileSystem.get cache; cs_fs_configure drops the cache.
 *
 * Threads: every function may be called from any thread; a reader or writer belongs to the
 * thread using it. Ownership: listings, readers, writers and pendings are owned by the caller and
 * released with their _free/_close/_abort function; strings in them are owned by them.
 */
#ifndef CSPARK_FS_FS_H
#define CSPARK_FS_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/conf.h"
#include "common/err.h"

struct cs_codec;

/* Sets (replaces) the configuration of this process's file systems; conf is copied. A NULL conf
 * clears it. Drops cached file systems (their connections close when their last user ends). */
void cs_fs_configure(const cs_conf *conf);

/* Checks that `uri` names a file system cspark can use and is well formed (scheme, bucket),
 * without any I/O; CS_EINVAL with one line naming the URL otherwise. */
int cs_fs_check_uri(const char *uri, cs_error *err);

/* uri with repeated slashes in its path made one and a trailing slash removed (unless the path
 * is "/"), as Hadoop's Path normalises every path: "s3a://b/out//part-*" -> "s3a://b/out/part-*",
 * "file:///tmp/x/" -> "file:///tmp/x", "out/" -> "out". The scheme and the authority (s3a's
 * bucket) are kept as given. Every function below works on this form, so a path written with a
 * trailing slash and a glob built from it name the same files. Returns a malloc'd string. */
char *cs_fs_normalize(const char *uri);

/* True when uri is on the local file system (a bare path or file:). */
bool cs_fs_is_local(const char *uri);

/* The local path of a local uri ("file:///x" -> "/x"), borrowed from uri; NULL otherwise. */
const char *cs_fs_local_path(const char *uri);

/* The codec output files are written with, from the configuration given to cs_fs_configure:
 * spark.hadoop.mapreduce.output.fileoutputformat.compress (default false) and .compress.codec
 * (a short name or Hadoop class; default DefaultCodec, i.e. deflate, as Hadoop). *codec is NULL
 * for uncompressed output; an unknown codec is CS_EINVAL naming the key. */
int cs_fs_output_codec(const struct cs_codec **codec, cs_error *err);

/* ---- listing --------------------------------------------------------------------------------- */

typedef struct cs_fs_file {
    char *uri;        /* as given to cs_fs_open_input: a local path, or s3a://bucket/key */
    uint64_t size;    /* bytes stored (compressed size for a compressed file) */
    int64_t mtime_ms; /* last modified (ms since the epoch): cs_fs_list_tree only, else 0 */
} cs_fs_file;

typedef struct cs_fs_listing {
    cs_fs_file *v;
    size_t n, cap;
} cs_fs_listing;

/* Appends the files `spec` names, as FileInputFormat lists input paths: a file; a directory's
 * visible files (names starting with '_' or '.' are hidden), sorted; or a glob (* ? [...] {a,b})
 * whose matches are files or directories (expanded one level). CS_ENOTFOUND with Hadoop's
 * "Input path does not exist: URI" / "Input Pattern URI matches 0 files" when nothing is there. */
int cs_fs_expand(const char *spec, cs_fs_listing *out, cs_error *err);
void cs_fs_listing_free(cs_fs_listing *l);

/* Every file under the directory uri at any depth (or uri itself when it is a file), sorted, with
 * hidden names kept (the data source filters them as Spark's InMemoryFileIndex). CS_ENOTFOUND
 * "Path does not exist: URI" when nothing is there. */
int cs_fs_list_tree(const char *uri, cs_fs_listing *out, cs_error *err);
/* The files and directories a glob pattern (see cs_fs_expand) matches, sorted (size 0 for a
 * directory); matching nothing is not an error here. */
int cs_fs_glob(const char *pattern, cs_fs_listing *out, cs_error *err);
/* Whether s has glob characters (* ? [ {). */
bool cs_fs_has_glob(const char *s);

typedef struct cs_fs_status {
    bool exists;
    bool is_dir;   /* a directory, or an object-store prefix with objects under it */
    uint64_t size; /* files only */
} cs_fs_status;

/* Whether uri is a file, a directory (a prefix with objects under it) or nothing. An error only
 * when it cannot be told (no access, unreachable store): the message names the URI. */
int cs_fs_stat(const char *uri, cs_fs_status *st, cs_error *err);

/* Removes uri and, when recursive, everything under it; a missing uri is not an error. */
int cs_fs_delete(const char *uri, bool recursive, cs_error *err);

/* Writes a whole small file at once (visible when this returns). */
int cs_fs_put(const char *uri, const void *data, size_t len, cs_error *err);

/* Reads a whole small file into *out (malloc'd, *len bytes, NUL-terminated beyond len). */
int cs_fs_get(const char *uri, uint8_t **out, size_t *len, cs_error *err);

/* ---- reading --------------------------------------------------------------------------------- */

typedef struct cs_fs_reader cs_fs_reader;

/* Opens uri for reading from `offset`. `length` is how far the caller expects to read (the
 * split): object stores fetch that range as the reader goes (one request, or parallel ranges for
 * a store far away) and anything after it in small pieces on demand. `file_size` is the size listed
 * (UINT64_MAX: ask the store). */
cs_fs_reader *cs_fs_open(const char *uri, uint64_t offset, uint64_t length, uint64_t file_size,
                         cs_error *err);

/* As cs_fs_open, and through the codec of uri's extension (a whole file, offset 0) when it has
 * one: the reader then returns decompressed bytes, and a corrupt stream is an error naming the
 * file and the codec. *codec (if non-NULL) receives the codec, NULL for plain files. */
cs_fs_reader *cs_fs_open_input(const char *uri, uint64_t offset, uint64_t length,
                               uint64_t file_size, const struct cs_codec **codec, cs_error *err);

/* Reads up to n bytes; returns bytes read, 0 at the end of the file, <0 on error (err names the
 * file). Reads past `length` are allowed up to the end of the file. */
ssize_t cs_fs_read(cs_fs_reader *r, void *buf, size_t n, cs_error *err);
/* Reads the rest of r into *out (malloc'd, *len bytes): 0; 1 when it holds more than limit bytes
 * (nothing returned); < 0 on an error (err names the file). */
int cs_fs_read_to_end(cs_fs_reader *r, size_t limit, uint8_t **out, size_t *len, cs_error *err);
/* Bytes fetched from storage so far (compressed bytes for a compressed input). */
uint64_t cs_fs_reader_bytes(const cs_fs_reader *r);
void cs_fs_reader_close(cs_fs_reader *r);

/* ---- writing --------------------------------------------------------------------------------- */

typedef struct cs_fs_writer cs_fs_writer;
typedef struct cs_fs_pending cs_fs_pending;

/* Creates uri for writing, compressed with codec when it is non-NULL (the caller puts the
 * codec's extension in uri). Nothing is visible at uri until the writer is finished and, on an
 * object store, its pending commit is committed. `staging` (local file system only, may be NULL)
 * is where the bytes go until cs_fs_writer_finish renames them to uri. */
cs_fs_writer *cs_fs_create(const char *uri, const char *staging, const struct cs_codec *codec,
                           cs_error *err);
int cs_fs_write(cs_fs_writer *w, const void *buf, size_t n, cs_error *err);
/* Flushes everything and closes the writer (freed, even on error). Local files are renamed to
 * their uri here (visible at once) and *pending is NULL. On an object store every byte is
 * uploaded but invisible: *pending (owned by the caller) is what makes it visible
 * (cs_fs_pending_commit) or removes it (cs_fs_pending_abort), on whichever process holds it. */
int cs_fs_writer_finish(cs_fs_writer *w, cs_fs_pending **pending, cs_error *err);
/* Discards everything written (nothing stays visible or stored); frees the writer. NULL is fine. */
void cs_fs_writer_abort(cs_fs_writer *w);

/* A pending commit travels from the task to the driver as bytes. */
char *cs_fs_pending_encode(const cs_fs_pending *p, size_t *len);
cs_fs_pending *cs_fs_pending_decode(const void *data, size_t len, cs_error *err);
const char *cs_fs_pending_uri(const cs_fs_pending *p);
int cs_fs_pending_commit(const cs_fs_pending *p, cs_error *err);
int cs_fs_pending_abort(const cs_fs_pending *p, cs_error *err);
void cs_fs_pending_free(cs_fs_pending *p);

/* Aborts every upload under prefix uri that was started but never committed (attempts whose
 * result never reached the driver); `keep` (n_keep entries) are left alone. Local: nothing to do.
 */
int cs_fs_abort_uploads_under(const char *uri, const cs_fs_pending *const *keep, size_t n_keep,
                              cs_error *err);

#endif
