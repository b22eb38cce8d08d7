/*
 * file_index.c — listing, filtering and partition discovery of a data source's paths, and the
 * planning of its splits (file_index.h), after Spark's DataSource.checkAndGlobPathIfNecessary,
 * InMemoryFileIndex, PartitioningAwareFileIndex, PartitionedFileUtil.splitFiles and
 * FilePartition.getFilePartitions.
 */
#include "datasource/file_index.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs/fs.h"

/* Spark's shouldFilterOutPathName for one name (the metadata files of Parquet are no data). */
static bool filtered_name(const char *name, size_t n)
{
    if (n == 0) return false;
    if (name[0] == '.') return true;
    if (name[0] == '_' && !memchr(name, '=', n)) return true;
    return n >= 10 && memcmp(name + n - 10, "._COPYING_", 10) == 0;
}

/* Whether any '/'-separated name of rel is filtered. */
static bool filtered_path(const char *rel)
{
    while (*rel) {
        const char *slash = strchr(rel, '/');
        size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
        if (filtered_name(rel, n)) return true;
        if (!slash) break;
        rel = slash + 1;
    }
    return false;
}

/* The path as listings name it: a local uri as its path, other schemes as given. */
static char *listing_form(const char *uri)
{
    char *norm = cs_fs_normalize(uri);
    if (!cs_fs_is_local(norm)) return norm;
    char *p = cs_xstrdup(cs_fs_local_path(norm));
    free(norm);
    return p;
}

static char *parent_of(const char *uri)
{
    const char *slash = strrchr(uri, '/');
    if (!slash) return cs_xstrdup(".");
    if (slash == uri) return cs_xstrdup("/");
    return cs_xstrndup(uri, (size_t)(slash - uri));
}

typedef struct str_list {
    char **v;
    int n, cap;
} str_list;

static void str_list_add(str_list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = cs_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static void str_list_free(str_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void add_file(cs_ds_file_index *ix, int *cap, const char *uri, uint64_t size)
{
    if (ix->n_files == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        ix->files = cs_xrealloc(ix->files, (size_t)*cap * sizeof *ix->files);
    }
    ix->files[ix->n_files++] = (cs_ds_file){cs_xstrdup(uri), size, -1};
}

/* Spark's class and SQLSTATE of a missing path on err (set by cs_error_set just before), so
 * the SQL layer can tell it apart without reading the text. */
static void path_not_found_class(cs_error *err)
{
    if (!err) return;
    cs_str_copy(err->error_class, sizeof err->error_class, "PATH_NOT_FOUND");
    cs_str_copy(err->sql_state, sizeof err->sql_state, "42K03");
}

/* Lists one root (a path or a glob's match) into ix, adding its base path to bases. */
static int list_root(const char *root_spec, const char *name_glob, cs_ds_file_index *ix, int *cap,
                     str_list *bases, cs_error *err)
{
    char *root = listing_form(root_spec);
    cs_fs_listing l = {0};
    int rc = cs_fs_list_tree(root_spec, &l, err);
    if (rc == CS_ENOTFOUND) {
        char *norm = cs_fs_normalize(root_spec);
        rc = cs_error_set(err, CS_ENOTFOUND, "[PATH_NOT_FOUND] Path does not exist: %s%s.",
                          cs_fs_is_local(norm) && strncmp(norm, "file:", 5) != 0 ? "file:" : "",
                          norm);
        path_not_found_class(err);
        free(norm);
    }
    size_t rlen = strlen(root);
    bool root_is_file = rc == 0 && l.n == 1 && strcmp(l.v[0].uri, root) == 0;
    if (rc == 0) str_list_add(bases, root_is_file ? parent_of(root) : cs_xstrdup(root));
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        const char *uri = l.v[i].uri;
        if (!root_is_file) {
            if (strncmp(uri, root, rlen) != 0 || uri[rlen] != '/') continue;
            if (filtered_path(uri + rlen + 1)) continue;
        }
        const char *slash = strrchr(uri, '/');
        const char *fname = slash ? slash + 1 : uri;
        if (name_glob && fnmatch(name_glob, fname, FNM_PERIOD) != 0) continue;
        add_file(ix, cap, uri, l.v[i].size);
    }
    cs_fs_listing_free(&l);
    free(root);
    return rc;
}

int cs_ds_file_index_build(const char *const *paths, int n, const cs_format_options *options,
                           bool type_inference, cs_ds_file_index *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name_glob = cs_format_option(options, "pathGlobFilter");
    const char *recursive = cs_format_option(options, "recursiveFileLookup");
    const char *base_path = cs_format_option(options, "basePath");
    if (recursive && strcasecmp(recursive, "true") != 0 && strcasecmp(recursive, "false") != 0)
        return cs_error_set(err, CS_EINVAL,
                            "option recursiveFileLookup = '%s': expected true or false", recursive);
    bool no_partitions = recursive && strcasecmp(recursive, "true") == 0;
    if (n <= 0) return cs_error_set(err, CS_EINVAL, "a data source needs at least one path");
    int cap = 0, rc = 0;
    str_list bases = {0};
    for (int i = 0; i < n && rc == 0; i++) {
        if ((rc = cs_fs_check_uri(paths[i], err)) < 0) break;
        if (!cs_fs_has_glob(paths[i])) {
            rc = list_root(paths[i], name_glob, out, &cap, &bases, err);
            continue;
        }
        cs_fs_listing m = {0};
        rc = cs_fs_glob(paths[i], &m, err);
        if (rc == 0 && m.n == 0) {
            rc = cs_error_set(err, CS_ENOTFOUND, "[PATH_NOT_FOUND] Path does not exist: %s.",
                              paths[i]);
            path_not_found_class(err);
        }
        for (size_t k = 0; rc == 0 && k < m.n; k++) {
            const char *mu = m.v[k].uri;
            const char *slash = strrchr(mu, '/');
            const char *name = slash ? slash + 1 : mu;
            if (filtered_name(name, strlen(name))) continue; /* Hadoop's hidden-file filter */
            rc = list_root(mu, name_glob, out, &cap, &bases, err);
        }
        cs_fs_listing_free(&m);
    }
    if (rc == 0 && !no_partitions) {
        char *given_base = base_path ? listing_form(base_path) : NULL;
        const char **leaf = cs_xcalloc((size_t)out->n_files + 1, sizeof *leaf);
        char **owned = cs_xcalloc((size_t)out->n_files + 1, sizeof *owned);
        int n_listed = out->n_files; /* files outside every partition are dropped below */
        for (int i = 0; i < n_listed; i++)
            leaf[i] = owned[i] = parent_of(out->files[i].uri);
        int *row = cs_xcalloc((size_t)out->n_files + 1, sizeof *row);
        const char *one_base[1] = {given_base};
        rc = cs_ds_infer_partitions(given_base ? one_base : (const char *const *)bases.v,
                                    given_base ? 1 : bases.n, leaf, out->n_files, type_inference,
                                    &out->parts, row, err);
        if (rc == 0) {
            int kept = 0;
            bool partitioned = out->parts.schema->n_fields > 0;
            for (int i = 0; i < out->n_files; i++) {
                if (partitioned && row[i] < 0) { /* outside every partition: not read */
                    free(out->files[i].uri);
                    continue;
                }
                out->files[kept] = out->files[i];
                out->files[kept++].partition = row[i];
            }
            out->n_files = kept;
        }
        for (int i = 0; i < n_listed; i++)
            free(owned[i]);
        free(owned);
        free(leaf);
        free(row);
        free(given_base);
    } else if (rc == 0) {
        out->parts.schema = cs_col_type_struct(NULL, 0);
    }
    str_list_free(&bases);
    if (rc < 0) cs_ds_file_index_free(out);
    return rc;
}

void cs_ds_file_index_free(cs_ds_file_index *ix)
{
    for (int i = 0; i < ix->n_files; i++)
        free(ix->files[i].uri);
    free(ix->files);
    cs_ds_partition_spec_free(&ix->parts);
    memset(ix, 0, sizeof *ix);
}

int64_t cs_ds_max_split_bytes(int64_t max_partition_bytes, int64_t open_cost, int min_partitions,
                              const uint64_t *sizes, int n)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (int64_t)sizes[i] + open_cost;
    int64_t per_core = total / (min_partitions > 0 ? min_partitions : 1);
    int64_t m = per_core > open_cost ? per_core : open_cost;
    return m < max_partition_bytes ? m : max_partition_bytes;
}

static int by_length_desc(const void *a, const void *b)
{
    const cs_ds_split *x = a, *y = b;
    if (x->length != y->length) return x->length > y->length ? -1 : 1;
    /* stable: the order they were made in (file, then offset) */
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

cs_ds_split *cs_ds_plan_partitions(const uint64_t *sizes, const bool *splittable, int n,
                                   int64_t max_split, int64_t open_cost, int *n_splits,
                                   int **group_start, int *n_partitions)
{
    size_t cap = 16, ns = 0;
    cs_ds_split *s = cs_xmalloc(cap * sizeof *s);
    if (max_split <= 0) max_split = 1;
    for (int f = 0; f < n; f++) {
        /* as many pieces as Spark's cut at maxSplitBytes makes, but of equal length (to a
         * byte): a file of 1.5 maxSplitBytes is two halves, not a whole one and a half one */
        uint64_t size = sizes[f], step = splittable[f] ? (uint64_t)max_split : size;
        uint64_t pieces = size == 0 ? 0 : (size + step - 1) / step; /* an empty file: none */
        for (uint64_t k = 0; k < pieces; k++) {
            if (ns == cap) s = cs_xrealloc(s, (cap *= 2) * sizeof *s);
            uint64_t from = (uint64_t)((unsigned __int128)size * k / pieces);
            uint64_t to = (uint64_t)((unsigned __int128)size * (k + 1) / pieces);
            s[ns++] = (cs_ds_split){f, from, to - from};
        }
    }
    qsort(s, ns, sizeof *s, by_length_desc);
    int *gs = cs_xmalloc((ns + 2) * sizeof *gs);
    int np = 0;
    int64_t current = 0;
    size_t in_current = 0;
    gs[0] = 0;
    for (size_t i = 0; i < ns; i++) {
        if (in_current && current + (int64_t)s[i].length > max_split) { /* close the partition */
            gs[++np] = (int)i;
            current = 0;
            in_current = 0;
        }
        current += (int64_t)s[i].length + open_cost;
        in_current++;
    }
    if (in_current) gs[++np] = (int)ns;
    *n_splits = (int)ns;
    *group_start = gs;
    *n_partitions = np;
    return s;
}
