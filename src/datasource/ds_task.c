/*
 * ds_task.c — a data source task's reading and writing (ds_task.h).
 */
#define _GNU_SOURCE
#include "datasource/ds_task.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "common/fsutil.h"
#include "datasource/partitioning.h"
#include "formats/text_values.h"
#include "fs/fs.h"

/* ---- rows ---------------------------------------------------------------------------------- */

cs_column *cs_ds_column_take(const cs_column *c, const int64_t *rows, int64_t n,
                             cs_col_allocator *alloc, cs_error *err)
{
    cs_type_id id = c->type->id;
    if (id == CS_TYPE_ARRAY || id == CS_TYPE_STRUCT || id == CS_TYPE_MAP) {
        cs_sbuf t = CS_SBUF_INIT;
        cs_col_type_simple_string(c->type, &t);
        cs_error_set(err, CS_EINVAL, "partitioned data: columns of type %s are not supported yet",
                     cs_sbuf_str(&t));
        cs_sbuf_free(&t);
        return NULL;
    }
    cs_col_builder *b = cs_col_builder_new(alloc, c->type);
    cs_col_builder_reserve(b, n, 0);
    int width = cs_col_type_width(id);
    for (int64_t i = 0; i < n; i++) {
        int64_t r = rows[i];
        if (!cs_column_is_valid(c, r)) {
            cs_col_builder_append_nulls(b, 1);
        } else if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(c, r, &len);
            cs_col_builder_append_string(b, p, (size_t)len);
        } else if (id == CS_TYPE_BOOLEAN) {
            uint8_t v = cs_bit_get(c->values, r);
            cs_col_builder_append_values(b, &v, 1, NULL);
        } else if (id == CS_TYPE_NULL) {
            cs_col_builder_append_nulls(b, 1);
        } else {
            cs_col_builder_append_values(b, c->values + (size_t)r * (size_t)width, 1, NULL);
        }
    }
    cs_column *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return out;
}

bool cs_ds_value_text(const cs_column *c, int64_t row, cs_sbuf *out)
{
    if (!cs_column_is_valid(c, row)) return false;
    const uint8_t *v = c->values;
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(out, cs_bit_get(v, row) ? "true" : "false");
        break;
    case CS_TYPE_BYTE:
        cs_sbuf_printf(out, "%d", ((const int8_t *)v)[row]);
        break;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(out, "%d", ((const int16_t *)(const void *)v)[row]);
        break;
    case CS_TYPE_INT:
        cs_sbuf_printf(out, "%d", ((const int32_t *)(const void *)v)[row]);
        break;
    case CS_TYPE_LONG:
        cs_sbuf_printf(out, "%lld", (long long)((const int64_t *)(const void *)v)[row]);
        break;
    case CS_TYPE_FLOAT:
        cs_tv_format_double(((const float *)(const void *)v)[row], out);
        break;
    case CS_TYPE_DOUBLE:
        cs_tv_format_double(((const double *)(const void *)v)[row], out);
        break;
    case CS_TYPE_DECIMAL:
        cs_tv_format_decimal(((const __int128 *)(const void *)v)[row], c->type->scale, out);
        break;
    case CS_TYPE_DATE:
        cs_tv_format_date(((const int32_t *)(const void *)v)[row], out);
        break;
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ: {
        int64_t us = ((const int64_t *)(const void *)v)[row], day = cs_tv_day_of(us);
        int64_t in_day = us - day * CS_MICROS_PER_DAY, secs = in_day / 1000000;
        cs_tv_format_date(day, out);
        cs_sbuf_printf(out, " %02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                       (int)(secs % 60));
        if (in_day % 1000000) {
            char f[8];
            snprintf(f, sizeof f, "%06lld", (long long)(in_day % 1000000));
            for (int k = 5; k > 0 && f[k] == '0'; k--)
                f[k] = 0;
            cs_sbuf_printf(out, ".%s", f);
        }
        break;
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, row, &len);
        cs_sbuf_append(out, p, (size_t)len);
        break;
    }
    default:
        cs_col_type_simple_string(c->type, out);
        break;
    }
    return true;
}

/* ---- reading ------------------------------------------------------------------------------- */

struct cs_ds_split_reader {
    const cs_file_format *fmt;
    void *reader;
    const cs_scan_request *req;
    const cs_col_batch *parts;
    int part_row;
    cs_col_type *schema; /* read_schema's fields, then the partition columns */
};

cs_col_type *cs_ds_scan_schema(const cs_col_type *read_schema, const cs_col_type *partition_schema)
{
    int np = partition_schema ? partition_schema->n_fields : 0;
    int nf = read_schema->n_fields + np;
    cs_col_field *f = cs_xcalloc((size_t)nf + 1, sizeof *f);
    for (int i = 0; i < nf; i++) {
        f[i] = i < read_schema->n_fields ? read_schema->fields[i]
                                         : partition_schema->fields[i - read_schema->n_fields];
        cs_col_type_ref(f[i].type);
    }
    cs_col_type *t = cs_col_type_struct(f, nf);
    free(f);
    return t;
}

int cs_ds_split_reader_open(const cs_file_format *fmt, const cs_file_split *split,
                            const cs_scan_request *req, const cs_col_batch *partition_values,
                            int partition_row, cs_ds_split_reader **out, cs_error *err)
{
    void *reader = NULL;
    if (fmt->open_reader(split, req, &reader, err) < 0) return err->code ? err->code : CS_EIO;
    cs_ds_split_reader *r = cs_xcalloc(1, sizeof *r);
    r->fmt = fmt;
    r->reader = reader;
    r->req = req;
    r->parts = partition_row >= 0 ? partition_values : NULL;
    r->part_row = partition_row;
    if (r->parts) r->schema = cs_ds_scan_schema(req->read_schema, r->parts->schema);
    *out = r;
    return 0;
}

int cs_ds_split_reader_next(cs_ds_split_reader *r, cs_col_batch **out, cs_error *err)
{
    cs_col_batch *b = NULL;
    int rc = r->fmt->next_batch(r->reader, &b, err);
    if (rc <= 0 || !r->parts) {
        if (rc > 0) *out = b;
        return rc;
    }
    int nd = b->n_columns, np = r->parts->n_columns;
    cs_column **cols = cs_xcalloc((size_t)(nd + np) + 1, sizeof *cols);
    for (int i = 0; i < nd; i++)
        cols[i] = cs_column_ref(b->columns[i]);
    int64_t n = b->num_rows;
    int64_t *rows = cs_xmalloc(((size_t)n + 1) * sizeof *rows);
    for (int64_t i = 0; i < n; i++)
        rows[i] = r->part_row;
    for (int k = 0; k < np && rc > 0; k++) {
        cols[nd + k] = cs_ds_column_take(r->parts->columns[k], rows, n, r->req->alloc, err);
        if (!cols[nd + k]) rc = err->code;
    }
    free(rows);
    if (rc > 0) {
        *out = cs_col_batch_new(cs_col_type_ref(r->schema), cols, nd + np, n, err);
        if (!*out) rc = err->code;
    } else {
        for (int i = 0; i < nd + np; i++)
            if (cols[i]) cs_column_unref(cols[i]);
    }
    free(cols);
    cs_col_batch_unref(b);
    return rc;
}

void cs_ds_split_reader_close(cs_ds_split_reader *r)
{
    if (!r) return;
    r->fmt->close_reader(r->reader);
    if (r->schema) cs_col_type_unref(r->schema);
    free(r);
}

/* ---- writing ------------------------------------------------------------------------------- */

typedef struct out_file {
    char *dir;    /* the partition folder ("" when not partitioned) */
    int bucket;   /* the bucket id, -1 when not bucketed */
    char *rel;    /* dir/part-... relative to the output */
    char *staged; /* where the format writes it */
    void *writer; /* the format's, until committed */
    int64_t rows;
} out_file;

struct cs_ds_task_writer {
    cs_ds_write_spec spec;
    bool local;
    char *staging_root; /* the attempt's folder */
    cs_col_type *data_schema;
    int *data_idx, n_data;
    int *part_idx, n_part;
    int bucket_idx; /* the bucket id column, -1: not bucketed */
    out_file *files;
    int n_files, cap_files;
    int last; /* the file the previous row went to */
    cs_sbuf ext;
};

static int find_column(const cs_col_type *s, const char *name)
{
    for (int i = 0; i < s->n_fields; i++)
        if (strcasecmp(s->fields[i].name, name) == 0) return i;
    return -1;
}

cs_ds_task_writer *cs_ds_task_writer_new(const cs_ds_write_spec *spec, const cs_col_type *schema,
                                         cs_error *err)
{
    int nf = schema->n_fields;
    int *part_idx = cs_xcalloc((size_t)spec->n_partition_by + 1, sizeof *part_idx);
    for (int i = 0; i < spec->n_partition_by; i++) {
        part_idx[i] = find_column(schema, spec->partition_by[i]);
        if (part_idx[i] < 0) {
            cs_sbuf t = CS_SBUF_INIT;
            cs_col_type_simple_string(schema, &t);
            cs_error_set(err, CS_EINVAL, "Partition column `%s` not found in schema %s",
                         spec->partition_by[i], cs_sbuf_str(&t));
            cs_sbuf_free(&t);
            free(part_idx);
            return NULL;
        }
    }
    int bucket_idx = spec->num_buckets > 0 ? find_column(schema, spec->bucket_column) : -1;
    if (spec->num_buckets > 0 &&
        (bucket_idx < 0 || schema->fields[bucket_idx].type->id != CS_TYPE_INT)) {
        cs_error_set(err, CS_EINVAL, "bucketed write: no int bucket id column `%s`",
                     spec->bucket_column ? spec->bucket_column : "");
        free(part_idx);
        return NULL;
    }
    if (spec->n_partition_by > 0 && spec->n_partition_by >= nf - (bucket_idx >= 0)) {
        cs_error_set(err, CS_EINVAL, "Cannot use all columns for partition columns");
        free(part_idx);
        return NULL;
    }
    cs_ds_task_writer *w = cs_xcalloc(1, sizeof *w);
    w->spec = *spec;
    w->part_idx = part_idx;
    w->n_part = spec->n_partition_by;
    w->bucket_idx = bucket_idx;
    w->data_idx = cs_xcalloc((size_t)nf + 1, sizeof *w->data_idx);
    cs_col_field *fields = cs_xcalloc((size_t)nf + 1, sizeof *fields);
    for (int i = 0; i < nf; i++) {
        bool is_part = false;
        for (int k = 0; k < w->n_part; k++)
            is_part |= part_idx[k] == i;
        if (is_part || i == bucket_idx) continue;
        fields[w->n_data] = schema->fields[i];
        cs_col_type_ref(fields[w->n_data].type);
        w->data_idx[w->n_data++] = i;
    }
    w->data_schema = cs_col_type_struct(fields, w->n_data);
    free(fields);
    w->local = cs_fs_is_local(spec->path);
    char root[4200];
    if (w->local)
        snprintf(root, sizeof root, "%s/_temporary/0/_temporary/attempt_%lld", spec->path,
                 (long long)spec->attempt_id);
    else
        snprintf(root, sizeof root, "%s/datasource-%s-attempt_%lld", spec->local_dir,
                 spec->job_uuid, (long long)spec->attempt_id);
    w->staging_root = cs_xstrdup(root);
    w->last = -1;
    spec->format->extension(spec->options, &w->ext);
    return w;
}

/* The file rows of partition folder dir and bucket (-1: not bucketed) go to, opened on first
 * use. */
static int file_for(cs_ds_task_writer *w, const char *dir, int bucket, cs_error *err)
{
    if (w->last >= 0 && w->files[w->last].bucket == bucket &&
        strcmp(w->files[w->last].dir, dir) == 0)
        return w->last;
    for (int i = 0; i < w->n_files; i++)
        if (w->files[i].bucket == bucket && strcmp(w->files[i].dir, dir) == 0) return w->last = i;
    if (w->n_files == w->cap_files) {
        w->cap_files = w->cap_files ? w->cap_files * 2 : 8;
        w->files = cs_xrealloc(w->files, (size_t)w->cap_files * sizeof *w->files);
    }
    out_file *f = &w->files[w->n_files];
    memset(f, 0, sizeof *f);
    char rel[4200], staged[8400], suffix[16] = "";
    if (bucket >= 0) /* BucketingUtils.bucketIdToString */
        snprintf(suffix, sizeof suffix, "_%05d", bucket);
    snprintf(rel, sizeof rel, "%s%spart-%05d-%s%s.c000.%s", dir, *dir ? "/" : "",
             w->spec.task_partition, w->spec.job_uuid, suffix, cs_sbuf_str(&w->ext));
    snprintf(staged, sizeof staged, "%s/%s", w->staging_root, rel);
    char *parent = cs_xstrdup(staged);
    *strrchr(parent, '/') = 0;
    int rc = cs_make_dirs(parent);
    free(parent);
    if (rc < 0)
        return cs_error_set(err, CS_EIO, "cannot create the staging folder of %s: %s", staged,
                            strerror(errno));
    if (w->spec.format->open_writer(staged, w->data_schema, w->spec.options, &f->writer, err) < 0)
        return err->code ? err->code : CS_EIO;
    f->dir = cs_xstrdup(dir);
    f->bucket = bucket;
    f->rel = cs_xstrdup(rel);
    f->staged = cs_xstrdup(staged);
    return w->last = w->n_files++;
}

/* Writes rows[0..n) of b (all when rows is NULL) to file i, data columns only. */
static int write_rows(cs_ds_task_writer *w, int i, const cs_col_batch *b, const int64_t *rows,
                      int64_t n, cs_error *err)
{
    cs_column **cols = cs_xcalloc((size_t)w->n_data + 1, sizeof *cols);
    int rc = 0;
    for (int k = 0; k < w->n_data && rc == 0; k++) {
        const cs_column *c = b->columns[w->data_idx[k]];
        cols[k] = rows ? cs_ds_column_take(c, rows, n, NULL, err) : cs_column_ref((cs_column *)c);
        if (!cols[k]) rc = err->code;
    }
    cs_col_batch *part = NULL;
    if (rc == 0) {
        part = cs_col_batch_new(cs_col_type_ref(w->data_schema), cols, w->n_data, n, err);
        if (!part) rc = err->code;
    } else {
        for (int k = 0; k < w->n_data; k++)
            if (cols[k]) cs_column_unref(cols[k]);
    }
    free(cols);
    if (rc == 0) rc = w->spec.format->write_batch(w->files[i].writer, part, err);
    if (rc == 0) w->files[i].rows += n;
    if (part) cs_col_batch_unref(part);
    return rc;
}

int cs_ds_task_writer_write(cs_ds_task_writer *w, const cs_col_batch *b, cs_error *err)
{
    int bucketed = w->bucket_idx >= 0;
    if (b->schema->n_fields != w->n_data + w->n_part + bucketed)
        return cs_error_set(err, CS_EINVAL,
                            "data source write: a batch of %d columns where the first had %d",
                            b->schema->n_fields, w->n_data + w->n_part + bucketed);
    if (w->n_part == 0 && !bucketed) {
        int i = file_for(w, "", -1, err);
        return i < 0 ? i : write_rows(w, i, b, NULL, b->num_rows, err);
    }
    /* each row's folder and bucket; rows of one file are written together, in their order */
    int64_t n = b->num_rows;
    int *file_of = cs_xmalloc(((size_t)n + 1) * sizeof *file_of);
    const cs_column *bc = bucketed ? b->columns[w->bucket_idx] : NULL;
    cs_sbuf dir = CS_SBUF_INIT, value = CS_SBUF_INIT;
    int rc = 0;
    for (int64_t r = 0; r < n && rc == 0; r++) {
        dir.len = 0;
        for (int k = 0; k < w->n_part; k++) {
            const cs_column *c = b->columns[w->part_idx[k]];
            value.len = 0;
            bool valid = cs_ds_value_text(c, r, &value);
            if (k) cs_sbuf_putc(&dir, '/');
            cs_ds_partition_path_part(b->schema->fields[w->part_idx[k]].name,
                                      valid ? (value.data ? value.data : "") : NULL, value.len,
                                      &dir);
        }
        int bucket = -1;
        if (bc) {
            bucket =
                cs_column_is_valid(bc, r) ? ((const int32_t *)(const void *)bc->values)[r] : -1;
            if (bucket < 0 || bucket >= w->spec.num_buckets) {
                rc = cs_error_set(err, CS_EINVAL, "bucketed write: bucket id %d out of [0, %d)",
                                  bucket, w->spec.num_buckets);
                break;
            }
        }
        int i = file_for(w, dir.len ? cs_sbuf_str(&dir) : "", bucket, err);
        if (i < 0) rc = i;
        file_of[r] = i;
    }
    int64_t *rows = cs_xmalloc(((size_t)n + 1) * sizeof *rows);
    for (int i = 0; i < w->n_files && rc == 0; i++) {
        int64_t m = 0;
        for (int64_t r = 0; r < n; r++)
            if (file_of[r] == i) rows[m++] = r;
        if (m) rc = write_rows(w, i, b, rows, m, err);
    }
    free(rows);
    free(file_of);
    cs_sbuf_free(&dir);
    cs_sbuf_free(&value);
    return rc;
}

static void writer_free(cs_ds_task_writer *w)
{
    for (int i = 0; i < w->n_files; i++) {
        free(w->files[i].dir);
        free(w->files[i].rel);
        free(w->files[i].staged);
    }
    free(w->files);
    free(w->data_idx);
    free(w->part_idx);
    cs_col_type_unref(w->data_schema);
    cs_sbuf_free(&w->ext);
    free(w->staging_root);
    free(w);
}

/* Uploads a staged file to its place under an object store's output: an upload the driver
 * completes (its pending commit is the message). */
static int upload_staged(cs_ds_task_writer *w, const out_file *f, cs_ds_commit_fn fn, void *arg,
                         cs_error *err)
{
    char uri[8400];
    snprintf(uri, sizeof uri, "%s/%s", w->spec.path, f->rel);
    cs_fs_reader *in = cs_fs_open(f->staged, 0, UINT64_MAX, UINT64_MAX, err);
    if (!in) return err->code ? err->code : CS_EIO;
    cs_fs_writer *out = cs_fs_create(uri, NULL, NULL, err);
    if (!out) {
        cs_fs_reader_close(in);
        return err->code ? err->code : CS_EIO;
    }
    size_t cap = 1 << 20;
    uint8_t *buf = cs_xmalloc(cap);
    int rc = 0;
    for (;;) {
        ssize_t n = cs_fs_read(in, buf, cap, err);
        if (n < 0) rc = err->code ? err->code : CS_EIO;
        if (n <= 0) break;
        if ((rc = cs_fs_write(out, buf, (size_t)n, err)) < 0) break;
    }
    free(buf);
    cs_fs_reader_close(in);
    if (rc < 0) {
        cs_fs_writer_abort(out);
        return rc;
    }
    cs_fs_pending *p = NULL;
    if ((rc = cs_fs_writer_finish(out, &p, err)) < 0) return rc;
    if (p) {
        size_t len;
        char *enc = cs_fs_pending_encode(p, &len);
        fn(arg, CS_DS_COMMIT_PENDING, enc, len);
        free(enc);
        cs_fs_pending_free(p);
    }
    return 0;
}

int cs_ds_task_writer_commit(cs_ds_task_writer *w, cs_ds_commit_fn fn, void *arg, int64_t *rows,
                             cs_error *err)
{
    int rc = 0, i = 0;
    *rows = 0;
    for (; i < w->n_files && rc == 0; i++) {
        out_file *f = &w->files[i];
        void *fw = f->writer;
        f->writer = NULL;
        rc = w->spec.format->close_writer(fw, true, err);
        *rows += f->rows;
    }
    for (; i < w->n_files; i++) { /* after a failure, the others are dropped */
        w->spec.format->close_writer(w->files[i].writer, false, err);
        w->files[i].writer = NULL;
    }
    for (i = 0; i < w->n_files && rc == 0; i++) {
        out_file *f = &w->files[i];
        if (w->local) {
            char msg[8400];
            int len =
                snprintf(msg, sizeof msg, "attempt_%lld/%s", (long long)w->spec.attempt_id, f->rel);
            fn(arg, CS_DS_COMMIT_LOCAL, msg, (size_t)len);
        } else {
            rc = upload_staged(w, f, fn, arg, err);
        }
    }
    if (!w->local) cs_remove_tree(w->staging_root);
    writer_free(w);
    return rc;
}

void cs_ds_task_writer_abort(cs_ds_task_writer *w)
{
    if (!w) return;
    cs_error e;
    for (int i = 0; i < w->n_files; i++)
        if (w->files[i].writer) w->spec.format->close_writer(w->files[i].writer, false, &e);
    cs_remove_tree(w->staging_root);
    writer_free(w);
}
