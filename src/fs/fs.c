/*
 * fs.c — the file-system table (see fs.h): finds a URI's backend by scheme, normalises the path
 * it is given (repeated and trailing slashes, as Hadoop's Path) before any backend sees it, holds
 * the process's file-system configuration, wraps readers and writers in codec layers, and the
 * helpers every backend shares (listings, the hidden-file rule, glob matching per path
 * component).
 */
#define _GNU_SOURCE
#include "fs/fs.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fs/codec.h"
#include "fs/fs_internal.h"
#include "fs/fs_s3a.h"

/* ---- configuration ------------------------------------------------------------------------ */

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_conf *current_conf;
static atomic_uint conf_gen;

void cs_fs_configure(const cs_conf *conf)
{
    pthread_mutex_lock(&conf_lock);
    cs_conf_free(current_conf);
    current_conf = conf ? cs_conf_clone(conf) : NULL;
    atomic_fetch_add(&conf_gen, 1);
    pthread_mutex_unlock(&conf_lock);
}

cs_conf *cs_fs_conf_snapshot(void)
{
    pthread_mutex_lock(&conf_lock);
    cs_conf *c = current_conf ? cs_conf_clone(current_conf) : NULL;
    pthread_mutex_unlock(&conf_lock);
    return c;
}

#define OUTPUT_COMPRESS "spark.hadoop.mapreduce.output.fileoutputformat.compress"

int cs_fs_output_codec(const cs_codec **codec, cs_error *err)
{
    *codec = NULL;
    cs_conf *c = cs_fs_conf_snapshot();
    if (!c) return 0;
    bool on = false;
    int rc = cs_conf_get_bool(c, "spark.hadoop.mapreduce.output.fileoutputformat.compress", "false",
                              &on, err);
    if (rc == 0 && on) {
        const char *name = cs_conf_get(c, OUTPUT_COMPRESS ".codec");
        if (!name || !*name) name = "org.apache.hadoop.io.compress.DefaultCodec";
        if (!(*codec = cs_codec_for_name(name)))
            rc = cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (expected %s)",
                              OUTPUT_COMPRESS ".codec", name, cs_codec_names());
    }
    cs_conf_free(c);
    return rc;
}

unsigned cs_fs_conf_generation(void)
{
    return atomic_load(&conf_gen);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

/* The scheme of uri ("s3a" for "s3a://b/k"), or "" for a bare path. */
static void uri_scheme(const char *uri, char *out, size_t cap)
{
    out[0] = 0;
    size_t i = 0;
    while (uri[i] &&
           (uri[i] == '+' || uri[i] == '-' || uri[i] == '.' || (uri[i] >= 'a' && uri[i] <= 'z') ||
            (uri[i] >= 'A' && uri[i] <= 'Z') || (i > 0 && uri[i] >= '0' && uri[i] <= '9')))
        i++;
    if (i == 0 || uri[i] != ':' || i >= cap) return;
    /* "C:..." or "a:b" without "//" is still a scheme in Hadoop's Path; keep it simple: a
     * scheme needs at least two letters, so odd relative names like "x:y" stay paths */
    if (i < 2) return;
    memcpy(out, uri, i);
    out[i] = 0;
    for (size_t k = 0; k < i; k++)
        if (out[k] >= 'A' && out[k] <= 'Z') out[k] = (char)(out[k] - 'A' + 'a');
}

char *cs_fs_normalize(const char *uri)
{
    size_t n = strlen(uri);
    char *out = cs_xmalloc(n + 1);
    char scheme[32];
    uri_scheme(uri, scheme, sizeof scheme);
    /* the part kept as it is: "scheme:" and, after "//", the authority (s3a's bucket) */
    size_t keep = 0;
    if (scheme[0]) {
        keep = strlen(scheme) + 1;
        if (strncmp(uri + keep, "//", 2) == 0) keep += 2 + strcspn(uri + keep + 2, "/");
    }
    memcpy(out, uri, keep);
    size_t o = keep;
    for (size_t i = keep; i < n; i++)
        if (uri[i] != '/' || o == keep || out[o - 1] != '/') out[o++] = uri[i];
    if (o > keep + 1 && out[o - 1] == '/') o--; /* a trailing slash, unless the path is "/" */
    out[o] = 0;
    return out;
}

static const cs_fs_backend *backend_of(const char *uri, cs_error *err)
{
    if (!uri || !*uri) {
        cs_error_set(err, CS_EINVAL, "the path is empty");
        return NULL;
    }
    char scheme[32];
    uri_scheme(uri, scheme, sizeof scheme);
    if (!scheme[0] || strcmp(scheme, "file") == 0) return &cs_fs_local_backend;
    if (strcmp(scheme, "s3a") == 0) return &cs_fs_s3a_backend;
    if (strcmp(scheme, "s3") == 0 || strcmp(scheme, "s3n") == 0)
        cs_error_set(err, CS_EINVAL, "No FileSystem for scheme \"%s\" in %s (use s3a://)", scheme,
                     uri);
    else
        cs_error_set(err, CS_EINVAL,
                     "No FileSystem for scheme \"%s\" in %s (cspark reads file: "
                     "and s3a://)",
                     scheme, uri);
    return NULL;
}

bool cs_fs_is_local(const char *uri)
{
    char scheme[32];
    uri_scheme(uri, scheme, sizeof scheme);
    return !scheme[0] || strcmp(scheme, "file") == 0;
}

const char *cs_fs_local_path(const char *uri)
{
    if (!cs_fs_is_local(uri)) return NULL;
    if (strncmp(uri, "file://", 7) == 0) return uri + 7;
    if (strncmp(uri, "file:", 5) == 0) return uri + 5;
    return uri;
}

int cs_fs_check_uri(const char *uri, cs_error *err)
{
    const cs_fs_backend *b = backend_of(uri, err);
    if (!b) return err ? err->code : CS_EINVAL;
    return b->check_uri ? b->check_uri(uri, err) : 0;
}

/* The backend of uri, checked, and uri normalised into *norm (malloc'd, NULL on failure): every
 * operation works on the normalised form, so "s3a://b/out/" and "s3a://b/out" are one place. */
static const cs_fs_backend *backend_for(const char *uri, char **norm, cs_error *err)
{
    *norm = NULL;
    const cs_fs_backend *b = backend_of(uri, err);
    if (!b || (b->check_uri && b->check_uri(uri, err) < 0)) return NULL;
    *norm = cs_fs_normalize(uri);
    return b;
}

#define FAILED(err) ((err) ? (err)->code : CS_EINVAL)

int cs_fs_expand(const char *spec, cs_fs_listing *out, cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(spec, &uri, err);
    int rc = b ? b->expand(uri, out, err) : FAILED(err);
    free(uri);
    return rc;
}

int cs_fs_list_tree(const char *path, cs_fs_listing *out, cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    int rc = b ? b->list_tree(uri, out, err) : FAILED(err);
    free(uri);
    return rc;
}

/* A glob over a store without directories: the files under the pattern's literal prefix, each
 * giving the path its first `covered` components name (deduplicated). */
static int glob_by_listing(const cs_fs_backend *b, const char *pattern, cs_fs_listing *out,
                           cs_error *err)
{
    size_t lit = strcspn(pattern, "*?[{");
    while (lit > 0 && pattern[lit - 1] != '/')
        lit--;
    char *prefix = cs_xstrndup(pattern, lit ? lit - 1 : 0);
    cs_fs_listing files = {0};
    int rc = b->list_tree(prefix, &files, err);
    free(prefix);
    if (rc == CS_ENOTFOUND) {
        cs_fs_listing_free(&files);
        return 0;
    }
    size_t from = out->n;
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        const char *name = files.v[i].uri;
        int covered = cs_fs_glob_match(pattern, name);
        if (!covered) continue;
        const char *end = name; /* after the first `covered` components */
        for (int c = 0; c < covered && end; c++)
            end = strchr(c ? end + 1 : end, '/');
        size_t len = end ? (size_t)(end - name) : strlen(name);
        bool whole = name[len] == 0;
        if (out->n > from && strlen(out->v[out->n - 1].uri) == len &&
            strncmp(out->v[out->n - 1].uri, name, len) == 0)
            continue;
        char *match = cs_xstrndup(name, len);
        cs_fs_listing_add(out, match, whole ? files.v[i].size : 0);
        free(match);
    }
    cs_fs_listing_free(&files);
    return rc;
}

int cs_fs_glob(const char *pattern, cs_fs_listing *out, cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(pattern, &uri, err);
    int rc = !b        ? FAILED(err)
             : b->glob ? b->glob(uri, out, err)
                       : glob_by_listing(b, uri, out, err);
    free(uri);
    return rc;
}

int cs_fs_stat(const char *path, cs_fs_status *st, cs_error *err)
{
    memset(st, 0, sizeof *st);
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    int rc = b ? b->stat(uri, st, err) : FAILED(err);
    free(uri);
    return rc;
}

int cs_fs_delete(const char *path, bool recursive, cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    int rc = b ? b->remove(uri, recursive, err) : FAILED(err);
    free(uri);
    return rc;
}

int cs_fs_put(const char *path, const void *data, size_t len, cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    int rc = b ? b->put(uri, data, len, err) : FAILED(err);
    free(uri);
    return rc;
}

int cs_fs_get(const char *uri, uint8_t **out, size_t *len, cs_error *err)
{
    *out = NULL;
    *len = 0;
    cs_fs_reader *r = cs_fs_open(uri, 0, UINT64_MAX, UINT64_MAX, err);
    if (!r) return err ? err->code : CS_EIO;
    int rc = cs_fs_read_to_end(r, SIZE_MAX - 1, out, len, err);
    cs_fs_reader_close(r);
    return rc;
}

int cs_fs_read_to_end(cs_fs_reader *r, size_t limit, uint8_t **out, size_t *len, cs_error *err)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = cs_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap > limit) { /* a byte past the limit was read */
                free(buf);
                return 1;
            }
            cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            buf = cs_xrealloc(buf, cap + 1);
        }
        ssize_t k = cs_fs_read(r, buf + n, cap - n, err);
        if (k < 0) {
            free(buf);
            return err && err->code ? err->code : CS_EIO;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    if (n > limit) {
        free(buf);
        return 1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int cs_fs_abort_uploads_under(const char *path, const cs_fs_pending *const *keep, size_t n_keep,
                              cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    int rc = !b                       ? FAILED(err)
             : b->abort_uploads_under ? b->abort_uploads_under(uri, keep, n_keep, err)
                                      : 0;
    free(uri);
    return rc;
}

cs_fs_reader *cs_fs_open(const char *path, uint64_t offset, uint64_t length, uint64_t file_size,
                         cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    cs_fs_reader *r = b ? b->open(uri, offset, length, file_size, err) : NULL;
    free(uri);
    return r;
}

cs_fs_reader *cs_fs_open_input(const char *uri, uint64_t offset, uint64_t length,
                               uint64_t file_size, const cs_codec **codec_out, cs_error *err)
{
    const cs_codec *codec = cs_codec_for_path(uri);
    if (codec_out) *codec_out = codec;
    if (!codec) return cs_fs_open(uri, offset, length, file_size, err);
    /* a compressed file is read whole by one task (its split starts at 0) */
    cs_fs_reader *raw = cs_fs_open(uri, 0, file_size, file_size, err);
    if (!raw) return NULL;
    return cs_codec_reader_new(codec, raw, uri, err);
}

ssize_t cs_fs_read(cs_fs_reader *r, void *buf, size_t n, cs_error *err)
{
    return r->read(r, buf, n, err);
}

uint64_t cs_fs_reader_bytes(const cs_fs_reader *r)
{
    return r ? r->bytes(r) : 0;
}

void cs_fs_reader_close(cs_fs_reader *r)
{
    if (r) r->close(r);
}

cs_fs_writer *cs_fs_create(const char *path, const char *staging, const cs_codec *codec,
                           cs_error *err)
{
    char *uri;
    const cs_fs_backend *b = backend_for(path, &uri, err);
    cs_fs_writer *w = b ? b->create(uri, staging, err) : NULL;
    if (w && codec) w = cs_codec_writer_new(codec, w, uri, err);
    free(uri);
    return w;
}

int cs_fs_write(cs_fs_writer *w, const void *buf, size_t n, cs_error *err)
{
    return w->write(w, buf, n, err);
}

int cs_fs_writer_finish(cs_fs_writer *w, cs_fs_pending **pending, cs_error *err)
{
    cs_fs_pending *p = NULL;
    int rc = w->finish(w, &p, err);
    if (pending)
        *pending = p;
    else if (p) { /* the caller does not defer: make it visible now */
        if (rc == 0) rc = cs_fs_pending_commit(p, err);
        cs_fs_pending_free(p);
    }
    return rc;
}

void cs_fs_writer_abort(cs_fs_writer *w)
{
    if (w) w->abort(w);
}

/* Pendings exist only on object stores: they are s3a's (fs_s3a.h). */
char *cs_fs_pending_encode(const cs_fs_pending *p, size_t *len)
{
    return cs_s3a_pending_encode(p, len);
}

cs_fs_pending *cs_fs_pending_decode(const void *data, size_t len, cs_error *err)
{
    return cs_s3a_pending_decode(data, len, err);
}

const char *cs_fs_pending_uri(const cs_fs_pending *p)
{
    return cs_s3a_pending_uri(p);
}

int cs_fs_pending_commit(const cs_fs_pending *p, cs_error *err)
{
    return cs_s3a_pending_commit(p, err);
}

int cs_fs_pending_abort(const cs_fs_pending *p, cs_error *err)
{
    return cs_s3a_pending_abort(p, err);
}

void cs_fs_pending_free(cs_fs_pending *p)
{
    cs_s3a_pending_free(p);
}

/* ---- shared helpers ----------------------------------------------------------------------- */

void cs_fs_listing_add(cs_fs_listing *l, const char *uri, uint64_t size)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = cs_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n].uri = cs_xstrdup(uri);
    l->v[l->n].size = size;
    l->v[l->n].mtime_ms = 0;
    l->n++;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const cs_fs_file *)a)->uri, ((const cs_fs_file *)b)->uri);
}

void cs_fs_listing_sort(cs_fs_listing *l, size_t from)
{
    if (l->n > from) qsort(l->v + from, l->n - from, sizeof *l->v, cmp_file);
}

void cs_fs_listing_free(cs_fs_listing *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].uri);
    free(l->v);
    memset(l, 0, sizeof *l);
}

bool cs_fs_hidden_name(const char *name)
{
    return name[0] == '_' || name[0] == '.';
}

int cs_fs_path_components(const char *s)
{
    int n = 1;
    for (; *s; s++)
        if (*s == '/') n++;
    return n;
}

bool cs_fs_has_glob(const char *s)
{
    return strpbrk(s, "*?[{") != NULL;
}

/* Expands the first {a,b,...} group of pattern (nesting allowed) and recurses; calls fn on each
 * brace-free pattern until it returns non-zero. */
static int brace_expand(const char *pattern, int (*fn)(const char *p, void *arg), void *arg)
{
    const char *open = strchr(pattern, '{');
    if (!open) return fn(pattern, arg);
    int depth = 0;
    const char *close = NULL;
    for (const char *q = open; *q; q++) {
        if (*q == '{') depth++;
        if (*q == '}' && --depth == 0) {
            close = q;
            break;
        }
    }
    if (!close) return fn(pattern, arg); /* unbalanced: literal, as fnmatch sees it */
    size_t pre = (size_t)(open - pattern);
    const char *alt = open + 1;
    depth = 0;
    for (const char *q = alt; q <= close; q++) {
        if (*q == '{') depth++;
        if (*q == '}' && q != close) depth--;
        if ((*q == ',' && depth == 0) || q == close) {
            size_t alen = (size_t)(q - alt), tail = strlen(close + 1);
            char *p = cs_xmalloc(pre + alen + tail + 1);
            memcpy(p, pattern, pre);
            memcpy(p + pre, alt, alen);
            memcpy(p + pre + alen, close + 1, tail + 1);
            int rc = brace_expand(p, fn, arg);
            free(p);
            if (rc) return rc;
            alt = q + 1;
        }
    }
    return 0;
}

typedef struct glob_try {
    const char *name;
    int covered;
} glob_try;

static int try_pattern(const char *p, void *arg)
{
    glob_try *t = arg;
    int k = cs_fs_path_components(p);
    /* the first k components of name */
    const char *end = t->name;
    for (int i = 0; i < k; i++) {
        end = strchr(end, '/');
        if (!end) {
            if (i != k - 1) return 0;
            end = t->name + strlen(t->name);
            break;
        }
        if (i < k - 1) end++;
    }
    char *head = cs_xstrndup(t->name, (size_t)(end - t->name));
    int ok = fnmatch(p, head, FNM_PATHNAME) == 0;
    free(head);
    if (ok) t->covered = k;
    return ok;
}

int cs_fs_glob_match(const char *pattern, const char *name)
{
    glob_try t = {name, 0};
    brace_expand(pattern, try_pattern, &t);
    return t.covered;
}
