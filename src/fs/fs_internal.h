/*
 * fs_internal.h — private to src/fs: the backend table entry of a scheme and the reader/writer
 * shapes every backend and the codec layers fill in. fs.c dispatches on the URI's scheme to a
 * cs_fs_backend; backends (fs_local.c, fs_s3a.c) and codec.c implement readers and writers as
 * structs whose first member is the cs_fs_reader/cs_fs_writer below.
 *
 * Ownership: as fs.h. A backend's functions get the full URI the caller gave.
 */
#ifndef CSPARK_FS_FS_INTERNAL_H
#define CSPARK_FS_FS_INTERNAL_H

#include "fs/fs.h"

struct cs_fs_reader {
    ssize_t (*read)(cs_fs_reader *r, void *buf, size_t n, cs_error *err);
    uint64_t (*bytes)(const cs_fs_reader *r);
    void (*close)(cs_fs_reader *r);
};

struct cs_fs_writer {
    int (*write)(cs_fs_writer *w, const void *buf, size_t n, cs_error *err);
    int (*finish)(cs_fs_writer *w, cs_fs_pending **pending, cs_error *err);
    void (*abort)(cs_fs_writer *w);
};

typedef struct cs_fs_backend {
    const char *scheme; /* "file", "s3a" */
    int (*check_uri)(const char *uri, cs_error *err);
    int (*expand)(const char *uri, cs_fs_listing *out, cs_error *err);
    int (*stat)(const char *uri, cs_fs_status *st, cs_error *err);
    int (*remove)(const char *uri, bool recursive, cs_error *err);
    int (*put)(const char *uri, const void *data, size_t len, cs_error *err);
    cs_fs_reader *(*open)(const char *uri, uint64_t offset, uint64_t length, uint64_t file_size,
                          cs_error *err);
    cs_fs_writer *(*create)(const char *uri, const char *staging, cs_error *err);
    int (*abort_uploads_under)(const char *uri, const cs_fs_pending *const *keep, size_t n_keep,
                               cs_error *err);
    /* every file under a directory, any depth (the path itself when a file); CS_ENOTFOUND */
    int (*list_tree)(const char *uri, cs_fs_listing *out, cs_error *err);
    /* optional: the paths a glob matches (else fs.c matches list_tree's files under the
     * pattern's literal prefix) */
    int (*glob)(const char *pattern, cs_fs_listing *out, cs_error *err);
} cs_fs_backend;

extern const cs_fs_backend cs_fs_local_backend;
extern const cs_fs_backend cs_fs_s3a_backend;

/* A copy of the process's configuration for file systems (fs.c), owned by the caller
 * (cs_conf_free); NULL when none was configured. */
cs_conf *cs_fs_conf_snapshot(void);
/* Bumped by every cs_fs_configure: backends drop file systems cached under an older one. */
unsigned cs_fs_conf_generation(void);

/* Adds a file to a listing (uri copied). */
void cs_fs_listing_add(cs_fs_listing *l, const char *uri, uint64_t size);
/* Sorts a listing's entries from index `from` on by uri (strcmp). */
void cs_fs_listing_sort(cs_fs_listing *l, size_t from);

/* Hadoop's hidden-file rule for inputs: a name starting with '_' or '.'. */
bool cs_fs_hidden_name(const char *name);
/* How many '/'-separated names s has ("a/b" has 2; "" has 1). */
int cs_fs_path_components(const char *s);

/* Glob patterns over '/'-separated names, as Hadoop's GlobPattern: * ? [abc] [!a-z] {a,b} per
 * component ('*' never crosses '/'); cs_fs_has_glob (fs.h) tells whether a string has any of them.
 */
/* The components of `pattern` (after brace expansion) that `name` matches: returns the number
 * of leading components of name the pattern covers when all of the pattern's components match
 * them (name may have more components), 0 when it does not match. */
int cs_fs_glob_match(const char *pattern, const char *name);

#endif
