/*
 * fs_s3a.c — the `s3a://bucket/key` backend of fs.c's table (see fs_s3a.h): URL checks, the
 * cache of buckets' file systems, listing with ListObjectsV2 (paged with continuation tokens;
 * a "directory" is a key prefix ending in '/', globs are matched per component on the keys under
 * their literal prefix), stat (HEAD, then a one-key listing for a prefix), delete, whole-object
 * put, and pending multipart uploads: encoded as JSON for the trip from task to driver, completed
 * (CompleteMultipartUpload — the object appears atomically) or aborted there.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "fs/fs_s3a.h"

/* ---- URLs --------------------------------------------------------------------------------- */

static bool bucket_name_ok(const char *b, size_t n)
{
    if (n < 3 || n > 63) return false;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && c != '.' && c != '-') return false;
        if ((i == 0 || i == n - 1) && !alnum) return false;
    }
    return true;
}

int cs_s3a_parse_uri(const char *uri, char **bucket, char **key, cs_error *err)
{
    if (bucket) *bucket = NULL;
    if (key) *key = NULL;
    if (strncasecmp(uri, "s3a://", 6) != 0)
        return cs_error_set(err, CS_EINVAL, "malformed URL '%s' (expected s3a://BUCKET/KEY)", uri);
    const char *b = uri + 6, *slash = strchr(b, '/');
    size_t bn = slash ? (size_t)(slash - b) : strlen(b);
    if (bn == 0)
        return cs_error_set(err, CS_EINVAL,
                            "malformed URL '%s': no bucket (expected "
                            "s3a://BUCKET/KEY)",
                            uri);
    if (!bucket_name_ok(b, bn))
        return cs_error_set(err, CS_EINVAL,
                            "malformed URL '%s': bucket '%.*s' is not a valid S3 bucket name "
                            "(3-63 lowercase letters, digits, dots and hyphens)",
                            uri, (int)bn, b);
    if (bucket) *bucket = cs_xstrndup(b, bn);
    if (key) *key = cs_xstrdup(slash ? slash + 1 : "");
    return 0;
}

static int s3a_check_uri(const char *uri, cs_error *err)
{
    return cs_s3a_parse_uri(uri, NULL, NULL, err);
}

/* ---- the cache ---------------------------------------------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static s3a_fs **cache;
static int cache_n, cache_cap;

s3a_fs *cs_s3a_fs_get(const char *bucket, cs_error *err)
{
    unsigned gen = cs_fs_conf_generation();
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < cache_n; i++) {
        s3a_fs *fs = cache[i];
        if (fs->generation != gen) { /* configured again since: drop it from the cache */
            cache[i--] = cache[--cache_n];
            if (--fs->refs == 0) cs_s3a_fs_free(fs);
            continue;
        }
        if (strcmp(fs->bucket, bucket) == 0) {
            fs->refs++;
            pthread_mutex_unlock(&cache_lock);
            return fs;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    cs_conf *conf = cs_fs_conf_snapshot();
    s3a_fs *fs = cs_s3a_fs_new(conf, bucket, err);
    cs_conf_free(conf);
    if (!fs) return NULL;
    fs->generation = gen;
    fs->refs = 2; /* the cache's and the caller's */
    pthread_mutex_lock(&cache_lock);
    if (cache_n == cache_cap) {
        cache_cap = cache_cap ? cache_cap * 2 : 8;
        cache = cs_xrealloc(cache, (size_t)cache_cap * sizeof *cache);
    }
    cache[cache_n++] = fs;
    pthread_mutex_unlock(&cache_lock);
    return fs;
}

void cs_s3a_fs_release(s3a_fs *fs)
{
    if (!fs) return;
    pthread_mutex_lock(&cache_lock);
    bool last = --fs->refs == 0;
    pthread_mutex_unlock(&cache_lock);
    if (last) cs_s3a_fs_free(fs);
}

/* Opens the fs of uri's bucket; *key receives the key (malloc'd). */
static s3a_fs *fs_of(const char *uri, char **key, cs_error *err)
{
    char *bucket;
    if (cs_s3a_parse_uri(uri, &bucket, key, err) < 0) return NULL;
    s3a_fs *fs = cs_s3a_fs_get(bucket, err);
    free(bucket);
    if (!fs) {
        free(*key);
        *key = NULL;
    }
    return fs;
}

/* ---- listing ------------------------------------------------------------------------------ */

typedef int (*list_fn)(void *arg, const char *key, uint64_t size, int64_t mtime_ms, bool is_prefix);

/* A paged listing ends only when the server says so: one that gives a page marker it gave
 * before, or a truncated page with nothing in it, would be listed for ever (a server once
 * answered 705,585 pages in 120 s). The guard keeps every marker of one listing. */
typedef struct page_guard {
    cs_hmap seen; /* marker -> the page that gave it */
    uint64_t page;
} page_guard;

static void page_guard_init(page_guard *g)
{
    cs_hmap_init_strings(&g->seen);
    g->page = 0;
}

/* Checks the page just read, which held `entries` keys and prefixes and gave `marker` (NULL:
 * the last page). CS_EPROTO naming the bucket, the prefix and what the server did. */
static int page_guard_check(page_guard *g, const s3a_fs *fs, const char *prefix, size_t entries,
                            const char *marker, const char *uri, cs_error *err)
{
    g->page++;
    if (!marker) return 0;
    uint64_t first;
    if (cs_hmap_sget(&g->seen, marker, &first))
        return cs_error_set(err, CS_EPROTO,
                            "%s: the S3 listing of bucket '%s', prefix '%s' at %s does not end: "
                            "page %llu gave the continuation token '%.100s' again (page %llu "
                            "gave it first); stopped listing",
                            uri, fs->bucket, prefix, fs->endpoint, (unsigned long long)g->page,
                            marker, (unsigned long long)first);
    if (entries == 0)
        return cs_error_set(err, CS_EPROTO,
                            "%s: the S3 listing of bucket '%s', prefix '%s' at %s makes no "
                            "progress: page %llu is a truncated page with no key and no prefix "
                            "(next token '%.100s'); stopped listing",
                            uri, fs->bucket, prefix, fs->endpoint, (unsigned long long)g->page,
                            marker);
    cs_hmap_sput(&g->seen, marker, g->page);
    return 0;
}

/* One ListObjectsV2 page (a ListBucketResult): fn per object and common prefix, *entries counted;
 * with paging, *truncated from IsTruncated and *token (malloc'd, NULL when absent) from
 * NextContinuationToken. 0, fn's non-zero result, or CS_EPROTO when the body is no listing. */
static int parse_list_page(const s3a_buf *resp, bool paging, list_fn fn, void *arg, size_t *entries,
                           bool *truncated, char **token, const char *uri, cs_error *err)
{
    int rc = 0;
    xmlDocPtr doc = cs_s3a_xml_parse(resp);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || strcmp((const char *)root->name, "ListBucketResult") != 0) {
        rc = cs_error_set(err, CS_EPROTO, "%s: the listing is not a ListBucketResult", uri);
    } else {
        for (xmlNodePtr n = root->children; n && rc == 0; n = n->next) {
            if (n->type != XML_ELEMENT_NODE) continue;
            if (strcmp((const char *)n->name, "Contents") == 0) {
                char *k = cs_s3a_xml_text(n, "Key"), *sz = cs_s3a_xml_text(n, "Size"),
                     *mt = cs_s3a_xml_text(n, "LastModified");
                if (k)
                    rc = fn(arg, k, sz ? strtoull(sz, NULL, 10) : 0, cs_s3a_iso8601_ms(mt), false);
                *entries += k != NULL;
                free(k);
                free(sz);
                free(mt);
            } else if (strcmp((const char *)n->name, "CommonPrefixes") == 0) {
                char *p = cs_s3a_xml_text(n, "Prefix");
                if (p) rc = fn(arg, p, 0, 0, true);
                *entries += p != NULL;
                free(p);
            }
        }
        char *trunc = cs_s3a_xml_text(root, "IsTruncated");
        *truncated = paging && trunc && strcmp(trunc, "true") == 0;
        if (*truncated) *token = cs_s3a_xml_text(root, "NextContinuationToken");
        free(trunc);
    }
    if (doc) xmlFreeDoc(doc);
    return rc;
}

/* ListObjectsV2 over every page; fn is called per object and (with a delimiter) per common
 * prefix. max_keys 0: the server's page size; otherwise one page of at most that many. */
static int list_objects(s3a_fs *fs, const char *prefix, const char *delimiter, int max_keys,
                        list_fn fn, void *arg, const char *uri, cs_error *err)
{
    char *token = NULL;
    int rc = 0;
    page_guard guard;
    page_guard_init(&guard);
    do {
        s3a_buf q = {0};
        if (token) cs_s3a_query_add(&q, "continuation-token", token);
        if (delimiter) cs_s3a_query_add(&q, "delimiter", delimiter);
        cs_s3a_query_add(&q, "list-type", "2");
        char mk[16];
        snprintf(mk, sizeof mk, "%d", max_keys);
        if (max_keys > 0) cs_s3a_query_add(&q, "max-keys", mk);
        cs_s3a_query_add(&q, "prefix", prefix);
        free(token);
        token = NULL;
        s3a_call c = {.method = "GET", .query = (const char *)q.data};
        rc = cs_s3a_call(fs, &c, uri, err);
        cs_s3a_buf_free(&q);
        if (rc < 0) {
            cs_s3a_call_reset(&c);
            break;
        }
        size_t entries = 0;
        bool truncated = false;
        rc = parse_list_page(&c.resp, max_keys == 0, fn, arg, &entries, &truncated, &token, uri,
                             err);
        if (rc == 0 && truncated && (!token || !*token))
            rc = cs_error_set(err, CS_EPROTO,
                              "%s: the S3 listing of bucket '%s', prefix '%s' at %s says it "
                              "is truncated but gives no NextContinuationToken",
                              uri, fs->bucket, prefix, fs->endpoint);
        if (rc == 0) rc = page_guard_check(&guard, fs, prefix, entries, token, uri, err);
        cs_s3a_call_reset(&c);
    } while (token && rc == 0);
    free(token);
    cs_hmap_free(&guard.seen);
    return rc;
}

static void uri_of(char *out, size_t cap, const s3a_fs *fs, const char *key)
{
    snprintf(out, cap, "s3a://%s/%s", fs->bucket, key);
}

typedef struct dir_list {
    s3a_fs *fs;
    cs_fs_listing *out;
    size_t files, prefixes;
    const char *pattern; /* glob: the key pattern */
} dir_list;

static const char *last_component(const char *key)
{
    const char *s = strrchr(key, '/');
    return s ? s + 1 : key;
}

static int on_dir_entry(void *arg, const char *key, uint64_t size, int64_t mtime_ms, bool is_prefix)
{
    (void)mtime_ms;
    dir_list *d = arg;
    if (is_prefix) {
        d->prefixes++;
        return 0;
    }
    d->files++;
    size_t n = strlen(key);
    if (n && key[n - 1] == '/') return 0; /* a directory marker */
    if (cs_fs_hidden_name(last_component(key))) return 0;
    char u[4200];
    uri_of(u, sizeof u, d->fs, key);
    cs_fs_listing_add(d->out, u, size);
    return 0;
}

static int on_glob_entry(void *arg, const char *key, uint64_t size, int64_t mtime_ms,
                         bool is_prefix)
{
    (void)mtime_ms;
    dir_list *d = arg;
    (void)is_prefix;
    size_t n = strlen(key);
    if (n && key[n - 1] == '/') return 0;
    int covered = cs_fs_glob_match(d->pattern, key);
    if (!covered) return 0;
    int comps = cs_fs_path_components(key);
    bool direct = comps == covered, in_dir = comps == covered + 1;
    if (!direct && !in_dir) return 0;
    if (in_dir && cs_fs_hidden_name(last_component(key))) return 0;
    d->files++;
    char u[4200];
    uri_of(u, sizeof u, d->fs, key);
    cs_fs_listing_add(d->out, u, size);
    return 0;
}

/* HEAD of an object: 0 and *size when it exists, CS_ENOTFOUND when not, <0 + err on errors. */
static int head_object(s3a_fs *fs, const char *key, const char *uri, uint64_t *size, cs_error *err)
{
    s3a_call c = {.method = "HEAD", .key = key};
    int rc = cs_s3a_call(fs, &c, uri, err);
    if (rc == 0) *size = c.content_length;
    cs_s3a_call_reset(&c);
    return rc;
}

static int s3a_expand(const char *uri, cs_fs_listing *out, cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    size_t from = out->n;
    dir_list d = {fs, out, 0, 0, NULL};
    int rc = 0;
    if (cs_fs_has_glob(key)) {
        size_t lit = strcspn(key, "*?[{");
        while (lit > 0 && key[lit - 1] != '/')
            lit--;
        char *prefix = cs_xstrndup(key, lit);
        d.pattern = key;
        rc = list_objects(fs, prefix, NULL, 0, on_glob_entry, &d, uri, err);
        free(prefix);
        if (rc == 0 && out->n == from)
            rc = cs_error_set(err, CS_ENOTFOUND, "Input Pattern %s matches 0 files", uri);
    } else {
        uint64_t size = 0;
        size_t kn = strlen(key);
        rc = kn && key[kn - 1] != '/' ? head_object(fs, key, uri, &size, err) : CS_ENOTFOUND;
        if (rc == 0) {
            cs_fs_listing_add(out, uri, size);
        } else if (rc == CS_ENOTFOUND) {
            char *prefix = cs_xmalloc(kn + 2);
            snprintf(prefix, kn + 2, "%s%s", key, kn && key[kn - 1] != '/' ? "/" : "");
            rc = list_objects(fs, prefix, "/", 0, on_dir_entry, &d, uri, err);
            free(prefix);
            if (rc == 0 && d.files == 0 && d.prefixes == 0)
                rc = cs_error_set(err, CS_ENOTFOUND, "Input path does not exist: %s", uri);
        }
    }
    cs_fs_listing_sort(out, from);
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

static int on_tree_entry(void *arg, const char *key, uint64_t size, int64_t mtime_ms,
                         bool is_prefix)
{
    dir_list *d = arg;
    size_t n = strlen(key);
    if (is_prefix || (n && key[n - 1] == '/')) return 0; /* directory markers */
    d->files++;
    char u[4200];
    uri_of(u, sizeof u, d->fs, key);
    cs_fs_listing_add(d->out, u, size);
    d->out->v[d->out->n - 1].mtime_ms = mtime_ms;
    return 0;
}

static int s3a_list_tree(const char *uri, cs_fs_listing *out, cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    size_t from = out->n, kn = strlen(key);
    dir_list d = {fs, out, 0, 0, NULL};
    uint64_t size = 0;
    int rc = kn && key[kn - 1] != '/' ? head_object(fs, key, uri, &size, err) : CS_ENOTFOUND;
    if (rc == 0) {
        cs_fs_listing_add(out, uri, size);
    } else if (rc == CS_ENOTFOUND) {
        char *prefix = cs_xmalloc(kn + 2);
        snprintf(prefix, kn + 2, "%s%s", key, kn && key[kn - 1] != '/' ? "/" : "");
        rc = list_objects(fs, kn ? prefix : "", NULL, 0, on_tree_entry, &d, uri, err);
        free(prefix);
        if (rc == 0 && d.files == 0)
            rc = cs_error_set(err, CS_ENOTFOUND, "Path does not exist: %s", uri);
    }
    cs_fs_listing_sort(out, from);
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

static int on_any(void *arg, const char *key, uint64_t size, int64_t mtime_ms, bool is_prefix)
{
    (void)mtime_ms;
    (void)key;
    (void)size;
    (void)is_prefix;
    (*(int *)arg)++;
    return 0;
}

static int s3a_stat(const char *uri, cs_fs_status *st, cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    size_t kn = strlen(key);
    int rc = CS_ENOTFOUND;
    if (kn && key[kn - 1] != '/') rc = head_object(fs, key, uri, &st->size, err);
    if (rc == 0) {
        st->exists = true;
    } else if (rc == CS_ENOTFOUND) {
        char *prefix = cs_xmalloc(kn + 2);
        snprintf(prefix, kn + 2, "%s%s", key, kn && key[kn - 1] != '/' ? "/" : "");
        int n = 0;
        rc = list_objects(fs, prefix, NULL, 1, on_any, &n, uri, err);
        free(prefix);
        if (rc == 0 && n > 0) st->exists = st->is_dir = true;
    }
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

static int delete_object(s3a_fs *fs, const char *key, cs_error *err)
{
    char u[4200];
    uri_of(u, sizeof u, fs, key);
    s3a_call c = {.method = "DELETE", .key = key};
    int rc = cs_s3a_call(fs, &c, u, err);
    cs_s3a_call_reset(&c);
    return rc == CS_ENOTFOUND ? 0 : rc;
}

typedef struct key_list {
    char **v;
    size_t n, cap;
} key_list;

static int on_collect(void *arg, const char *key, uint64_t size, int64_t mtime_ms, bool is_prefix)
{
    (void)mtime_ms;
    key_list *l = arg;
    (void)size;
    if (is_prefix) return 0;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = cs_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = cs_xstrdup(key);
    return 0;
}

static int s3a_remove(const char *uri, bool recursive, cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    int rc = 0;
    size_t kn = strlen(key);
    if (kn && key[kn - 1] != '/') rc = delete_object(fs, key, err);
    if (rc == 0 && recursive) {
        char *prefix = cs_xmalloc(kn + 2);
        snprintf(prefix, kn + 2, "%s%s", key, kn && key[kn - 1] != '/' ? "/" : "");
        key_list l = {0};
        rc = list_objects(fs, prefix, NULL, 0, on_collect, &l, uri, err);
        for (size_t i = 0; i < l.n; i++) {
            if (rc == 0) rc = delete_object(fs, l.v[i], err);
            free(l.v[i]);
        }
        free(l.v);
        free(prefix);
    }
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

static int s3a_put(const char *uri, const void *data, size_t len, cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    s3a_call c = {.method = "PUT", .key = key, .body = data, .body_len = len};
    int rc = cs_s3a_call(fs, &c, uri, err);
    cs_s3a_call_reset(&c);
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

/* ---- pending multipart uploads ------------------------------------------------------------ */

char *cs_s3a_pending_encode(const cs_fs_pending *p, size_t *len)
{
    json_t *parts = json_array();
    for (int i = 0; i < p->n_parts; i++)
        json_array_append_new(
            parts, json_pack("{s:i,s:s}", "n", p->parts[i].number, "etag", p->parts[i].etag));
    json_t *o = json_pack("{s:s,s:s,s:s,s:o}", "bucket", p->bucket, "key", p->key, "upload",
                          p->upload_id, "parts", parts);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (len) *len = strlen(s);
    return s;
}

static cs_fs_pending *pending_new(const char *bucket, const char *key, const char *upload)
{
    cs_fs_pending *p = cs_xcalloc(1, sizeof *p);
    p->bucket = cs_xstrdup(bucket);
    p->key = cs_xstrdup(key);
    p->upload_id = cs_xstrdup(upload);
    size_t n = strlen(bucket) + strlen(key) + 8;
    p->uri = cs_xmalloc(n);
    snprintf(p->uri, n, "s3a://%s/%s", bucket, key);
    return p;
}

cs_fs_pending *cs_s3a_pending_decode(const void *data, size_t len, cs_error *err)
{
    json_error_t je;
    json_t *o = json_loadb(data, len, 0, &je), *parts = NULL;
    const char *bucket = NULL, *key = NULL, *upload = NULL;
    if (!o ||
        json_unpack(o, "{s:s,s:s,s:s,s:o}", "bucket", &bucket, "key", &key, "upload", &upload,
                    "parts", &parts) < 0 ||
        !json_is_array(parts)) {
        json_decref(o);
        cs_error_set(err, CS_EPROTO, "a task's pending upload record is malformed");
        return NULL;
    }
    cs_fs_pending *p = pending_new(bucket, key, upload);
    p->n_parts = (int)json_array_size(parts);
    p->parts = cs_xcalloc((size_t)p->n_parts + 1, sizeof *p->parts);
    for (int i = 0; i < p->n_parts; i++) {
        json_t *e = json_array_get(parts, (size_t)i);
        const char *etag = "";
        json_unpack(e, "{s:i,s:s}", "n", &p->parts[i].number, "etag", &etag);
        p->parts[i].etag = cs_xstrdup(etag);
    }
    json_decref(o);
    return p;
}

cs_fs_pending *cs_s3a_pending_new(const char *bucket, const char *key, const char *upload_id)
{
    return pending_new(bucket, key, upload_id);
}

void cs_s3a_pending_add_part(cs_fs_pending *p, int number, const char *etag)
{
    p->parts = cs_xrealloc(p->parts, (size_t)(p->n_parts + 1) * sizeof *p->parts);
    p->parts[p->n_parts].number = number;
    p->parts[p->n_parts].etag = cs_xstrdup(etag);
    p->n_parts++;
}

const char *cs_s3a_pending_uri(const cs_fs_pending *p)
{
    return p ? p->uri : NULL;
}

void cs_s3a_pending_free(cs_fs_pending *p)
{
    if (!p) return;
    for (int i = 0; i < p->n_parts; i++)
        free(p->parts[i].etag);
    free(p->parts);
    free(p->uri);
    free(p->bucket);
    free(p->key);
    free(p->upload_id);
    free(p);
}

int cs_s3a_pending_commit(const cs_fs_pending *p, cs_error *err)
{
    if (!p) return 0;
    s3a_fs *fs = cs_s3a_fs_get(p->bucket, err);
    if (!fs) return err ? err->code : CS_EIO;
    xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
    xmlNodePtr root = xmlNewNode(NULL, BAD_CAST "CompleteMultipartUpload");
    xmlDocSetRootElement(doc, root);
    for (int i = 0; i < p->n_parts; i++) {
        xmlNodePtr part = xmlNewChild(root, NULL, BAD_CAST "Part", NULL);
        char num[16];
        snprintf(num, sizeof num, "%d", p->parts[i].number);
        xmlNewTextChild(part, NULL, BAD_CAST "PartNumber", BAD_CAST num);
        xmlNewTextChild(part, NULL, BAD_CAST "ETag", BAD_CAST p->parts[i].etag);
    }
    xmlChar *body = NULL;
    int body_len = 0;
    xmlDocDumpMemory(doc, &body, &body_len);
    xmlFreeDoc(doc);
    s3a_buf q = {0};
    cs_s3a_query_add(&q, "uploadId", p->upload_id);
    s3a_call c = {.method = "POST",
                  .key = p->key,
                  .query = (const char *)q.data,
                  .body = body,
                  .body_len = (size_t)body_len,
                  .content_type = "application/xml"};
    int rc = cs_s3a_call(fs, &c, p->uri, err);
    if (rc == 0) { /* S3 may answer 200 with an error inside */
        xmlDocPtr r = cs_s3a_xml_parse(&c.resp);
        xmlNodePtr rr = r ? xmlDocGetRootElement(r) : NULL;
        if (rr && strcmp((const char *)rr->name, "Error") == 0) {
            char *code = cs_s3a_xml_text(rr, "Code"), *msg = cs_s3a_xml_text(rr, "Message");
            rc = cs_error_set(err, CS_EIO, "%s: completing the upload failed: %s: %s", p->uri,
                              code ? code : "?", msg ? msg : "");
            free(code);
            free(msg);
        }
        if (r) xmlFreeDoc(r);
    }
    cs_s3a_call_reset(&c);
    cs_s3a_buf_free(&q);
    xmlFree(body);
    cs_s3a_fs_release(fs);
    return rc;
}

static int abort_upload(s3a_fs *fs, const char *key, const char *upload_id, const char *uri,
                        cs_error *err)
{
    s3a_buf q = {0};
    cs_s3a_query_add(&q, "uploadId", upload_id);
    s3a_call c = {.method = "DELETE", .key = key, .query = (const char *)q.data};
    int rc = cs_s3a_call(fs, &c, uri, err);
    if (rc < 0 && c.status == 404) { /* NoSuchUpload: already gone */
        rc = 0;
        cs_error_clear(err);
    }
    cs_s3a_call_reset(&c);
    cs_s3a_buf_free(&q);
    return rc;
}

int cs_s3a_pending_abort(const cs_fs_pending *p, cs_error *err)
{
    if (!p) return 0;
    s3a_fs *fs = cs_s3a_fs_get(p->bucket, err);
    if (!fs) return err ? err->code : CS_EIO;
    int rc = abort_upload(fs, p->key, p->upload_id, p->uri, err);
    cs_s3a_fs_release(fs);
    return rc;
}

static int s3a_abort_uploads_under(const char *uri, const cs_fs_pending *const *keep, size_t n_keep,
                                   cs_error *err)
{
    char *key;
    s3a_fs *fs = fs_of(uri, &key, err);
    if (!fs) return err ? err->code : CS_EIO;
    size_t kn = strlen(key);
    char *prefix = cs_xmalloc(kn + 2);
    snprintf(prefix, kn + 2, "%s%s", key, kn && key[kn - 1] != '/' ? "/" : "");
    char *key_marker = NULL, *id_marker = NULL;
    int rc = 0;
    page_guard guard;
    page_guard_init(&guard);
    do {
        s3a_buf q = {0};
        if (key_marker) cs_s3a_query_add(&q, "key-marker", key_marker);
        cs_s3a_query_add(&q, "prefix", prefix);
        if (id_marker) cs_s3a_query_add(&q, "upload-id-marker", id_marker);
        cs_s3a_query_add(&q, "uploads", NULL);
        free(key_marker);
        free(id_marker);
        key_marker = id_marker = NULL;
        s3a_call c = {.method = "GET", .query = (const char *)q.data};
        rc = cs_s3a_call(fs, &c, uri, err);
        cs_s3a_buf_free(&q);
        xmlDocPtr doc = rc == 0 ? cs_s3a_xml_parse(&c.resp) : NULL;
        xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
        size_t uploads = 0;
        for (xmlNodePtr n = root ? root->children : NULL; n && rc == 0; n = n->next) {
            if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "Upload")) continue;
            uploads++;
            char *k = cs_s3a_xml_text(n, "Key"), *id = cs_s3a_xml_text(n, "UploadId");
            bool kept = false;
            for (size_t i = 0; k && id && i < n_keep && !kept; i++)
                kept = keep[i] && strcmp(keep[i]->upload_id, id) == 0;
            if (k && id && !kept) {
                char u[4200];
                uri_of(u, sizeof u, fs, k);
                rc = abort_upload(fs, k, id, u, err);
            }
            free(k);
            free(id);
        }
        if (root) {
            char *trunc = cs_s3a_xml_text(root, "IsTruncated");
            if (trunc && strcmp(trunc, "true") == 0) {
                key_marker = cs_s3a_xml_text(root, "NextKeyMarker");
                id_marker = cs_s3a_xml_text(root, "NextUploadIdMarker");
            }
            free(trunc);
            if (rc == 0 && key_marker) { /* the pair of markers is the page's token */
                size_t kl = strlen(key_marker), il = id_marker ? strlen(id_marker) : 0;
                char *marker = cs_xmalloc(kl + il + 2);
                snprintf(marker, kl + il + 2, "%s %s", key_marker, id_marker ? id_marker : "");
                rc = page_guard_check(&guard, fs, prefix, uploads, marker, uri, err);
                free(marker);
            }
        }
        if (doc) xmlFreeDoc(doc);
        cs_s3a_call_reset(&c);
    } while (rc == 0 && key_marker);
    cs_hmap_free(&guard.seen);
    free(key_marker);
    free(id_marker);
    free(prefix);
    free(key);
    cs_s3a_fs_release(fs);
    return rc;
}

static cs_fs_writer *s3a_create(const char *uri, const char *staging, cs_error *err)
{
    (void)staging;
    return cs_s3a_writer_create(uri, err);
}

const cs_fs_backend cs_fs_s3a_backend = {
    .scheme = "s3a",
    .check_uri = s3a_check_uri,
    .expand = s3a_expand,
    .stat = s3a_stat,
    .remove = s3a_remove,
    .put = s3a_put,
    .open = cs_s3a_reader_open,
    .create = s3a_create,
    .abort_uploads_under = s3a_abort_uploads_under,
    .list_tree = s3a_list_tree,
};
