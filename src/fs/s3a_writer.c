/*
 * s3a_writer.c — writes one object as a multipart upload (see fs_s3a.h): the upload is started
 * when the writer is created (so bad credentials or a missing bucket fail before any work),
 * written bytes fill a part buffer of fs.s3a.multipart.size, each full part is uploaded
 * (UploadPart, retried by the client), and finishing uploads the last part and returns the
 * pending commit: until it is committed (CompleteMultipartUpload) no object is visible under the
 * key, and aborting it (AbortMultipartUpload) leaves nothing stored. This is what lets the
 * driver alone decide which task attempt's output appears, without a rename (S3 has none).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "fs/fs_s3a.h"

typedef struct s3a_writer {
    cs_fs_writer base;
    s3a_fs *fs;
    char *uri, *key;
    cs_fs_pending *pending; /* upload id and the parts uploaded so far */
    uint8_t *buf;
    size_t len, cap;
} s3a_writer;

static int upload_part(s3a_writer *w, cs_error *err)
{
    int number = w->pending->n_parts + 1;
    char num[16];
    snprintf(num, sizeof num, "%d", number);
    s3a_buf q = {0};
    cs_s3a_query_add(&q, "partNumber", num);
    cs_s3a_query_add(&q, "uploadId", w->pending->upload_id);
    s3a_call c = {.method = "PUT",
                  .key = w->key,
                  .query = (const char *)q.data,
                  .body = w->buf,
                  .body_len = w->len};
    int rc = cs_s3a_call(w->fs, &c, w->uri, err);
    if (rc == 0 && !c.etag[0])
        rc = cs_error_set(err, CS_EPROTO, "%s: part %d was stored without an ETag", w->uri, number);
    if (rc == 0) cs_s3a_pending_add_part(w->pending, number, c.etag);
    cs_s3a_call_reset(&c);
    cs_s3a_buf_free(&q);
    w->len = 0;
    return rc;
}

static int s3a_write(cs_fs_writer *base, const void *data, size_t n, cs_error *err)
{
    s3a_writer *w = (s3a_writer *)base;
    const uint8_t *p = data;
    size_t part = (size_t)w->fs->multipart_size;
    while (n) {
        if (w->len == w->cap && w->cap < part) { /* grow toward a part: small files stay small */
            w->cap = w->cap ? w->cap * 4 : 256 * 1024;
            if (w->cap > part) w->cap = part;
            w->buf = cs_xrealloc(w->buf, w->cap);
        }
        size_t k = w->cap - w->len < n ? w->cap - w->len : n;
        memcpy(w->buf + w->len, p, k);
        w->len += k;
        p += k;
        n -= k;
        if (w->len == part && upload_part(w, err) < 0) return err ? err->code : CS_EIO;
    }
    return 0;
}

static void writer_free(s3a_writer *w)
{
    cs_s3a_pending_free(w->pending);
    cs_s3a_fs_release(w->fs);
    free(w->buf);
    free(w->uri);
    free(w->key);
    free(w);
}

static void s3a_abort(cs_fs_writer *base)
{
    s3a_writer *w = (s3a_writer *)base;
    cs_error e;
    if (cs_s3a_pending_abort(w->pending, &e) < 0) /* the driver's sweep aborts it later */
        CS_WARN("s3a", "uri=%s event=abort-failed error=%s", cs_log_quote(w->uri),
                cs_log_quote(e.msg));
    writer_free(w);
}

static int s3a_finish(cs_fs_writer *base, cs_fs_pending **pending, cs_error *err)
{
    s3a_writer *w = (s3a_writer *)base;
    /* the last part (the only one of a small file, possibly empty) */
    if ((w->len > 0 || w->pending->n_parts == 0) && upload_part(w, err) < 0) {
        s3a_abort(base);
        return err ? err->code : CS_EIO;
    }
    *pending = w->pending;
    w->pending = NULL;
    writer_free(w);
    return 0;
}

cs_fs_writer *cs_s3a_writer_create(const char *uri, cs_error *err)
{
    char *bucket, *key;
    if (cs_s3a_parse_uri(uri, &bucket, &key, err) < 0) return NULL;
    if (!*key) {
        cs_error_set(err, CS_EINVAL, "malformed URL '%s': no object key", uri);
        free(bucket);
        free(key);
        return NULL;
    }
    s3a_fs *fs = cs_s3a_fs_get(bucket, err);
    if (!fs) {
        free(bucket);
        free(key);
        return NULL;
    }
    s3a_call c = {.method = "POST", .key = key, .query = "uploads="};
    int rc = cs_s3a_call(fs, &c, uri, err);
    char *upload = NULL;
    if (rc == 0) {
        xmlDocPtr doc = cs_s3a_xml_parse(&c.resp);
        xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
        upload = root ? cs_s3a_xml_text(root, "UploadId") : NULL;
        if (doc) xmlFreeDoc(doc);
        if (!upload || !*upload)
            rc = cs_error_set(err, CS_EPROTO, "%s: the multipart upload has no UploadId", uri);
    }
    cs_s3a_call_reset(&c);
    if (rc < 0) {
        free(upload);
        free(bucket);
        free(key);
        cs_s3a_fs_release(fs);
        return NULL;
    }
    s3a_writer *w = cs_xcalloc(1, sizeof *w);
    w->base.write = s3a_write;
    w->base.finish = s3a_finish;
    w->base.abort = s3a_abort;
    w->fs = fs;
    w->uri = cs_xstrdup(uri);
    w->key = key;
    w->pending = cs_s3a_pending_new(bucket, key, upload);
    free(upload);
    free(bucket);
    return &w->base;
}
