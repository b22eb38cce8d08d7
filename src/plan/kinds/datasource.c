/*
 * datasource.c — the kinds of a data source: RDD_DATASOURCE_SCAN (Spark's FileScanRDD: each
 * partition a FilePartition, its splits read through the format and given their partition
 * columns) and RDD_DATASOURCE_WRITE (the task side of Spark's FileFormatWriter: each partition
 * of its parent written into part files, the output being the task's commit messages for the
 * driver's job commit). Entries of the table of kinds (plan/rdd_kind.h); the work is
 * datasource/ds_task.c's.
 *
 * Records: a scan's record has an empty key and, as value, one column batch as an Arrow IPC
 * stream (schema, the batch, end of stream; formats/arrow_ipc.h); a write reads such records
 * (a stream may hold several batches) — or, when its data schema has columns (a SQL stage's
 * output: session/query_write.c), one Arrow IPC RecordBatch message of that schema — and outputs
 * one record per file written (key: the commit message's kind, value: the message). Node fields:
 * the splits and group_start (scan), and the packed DataSourceDesc (proto/cspark.proto) with the
 * format, options and schemas as IPC streams.
 *
 * Ownership: the node owns its packed description (freed with its graph); a task's decoded
 * description lives as long as its iterator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.pb-c.h"

#include "datasource/ds_task.h"
#include "exec/part_iter.h"
#include "formats/arrow_ipc.h"
#include "plan/rdd_kind.h"

/* ---- the description ------------------------------------------------------------------------ */

static uint8_t *ipc_bytes(const cs_col_type *schema, const cs_col_batch *batch, size_t *len)
{
    cs_sbuf out = CS_SBUF_INIT;
    cs_error e;
    cs_ipc_writer *w = cs_ipc_writer_new((cs_col_type *)schema, cs_ipc_write_sbuf, &out);
    if (batch) cs_ipc_writer_write(w, batch, &e);
    cs_ipc_writer_close(w, &e);
    cs_ipc_writer_free(w);
    *len = out.len;
    return (uint8_t *)cs_sbuf_detach(&out, NULL);
}

static void pack_desc(const cs_ds_desc *d, cspark_rdd *r)
{
    Cspark__DataSourceDesc pb = CSPARK__DATA_SOURCE_DESC__INIT;
    pb.format = (char *)d->format;
    pb.n_option_keys = pb.n_option_values = (size_t)d->options.n;
    pb.option_keys = (char **)d->options.keys;
    pb.option_values = (char **)d->options.values;
    pb.data_schema.data = ipc_bytes(d->data_schema, NULL, &pb.data_schema.len);
    if (d->read_schema) pb.read_schema.data = ipc_bytes(d->read_schema, NULL, &pb.read_schema.len);
    if (d->partition_values)
        pb.partition_values.data =
            ipc_bytes(d->partition_values->schema, d->partition_values, &pb.partition_values.len);
    pb.n_split_partition = (size_t)d->n_splits;
    pb.split_partition = (int32_t *)d->split_partition;
    pb.path = (char *)(d->path ? d->path : "");
    pb.n_partition_by = (size_t)d->n_partition_by;
    pb.partition_by = (char **)d->partition_by;
    pb.job_uuid = (char *)(d->job_uuid ? d->job_uuid : "");
    pb.num_buckets = d->num_buckets;
    pb.bucket_column = (char *)(d->bucket_column ? d->bucket_column : "");
    r->datasource_len = cspark__data_source_desc__get_packed_size(&pb);
    r->datasource = cs_xmalloc(r->datasource_len + 1);
    cspark__data_source_desc__pack(&pb, r->datasource);
    free(pb.data_schema.data);
    free(pb.read_schema.data);
    free(pb.partition_values.data);
}

/* A task's view of the description. */
typedef struct ds_view {
    Cspark__DataSourceDesc *pb;
    const cs_file_format *fmt;
    cs_format_options options;
    cs_col_type *data_schema, *read_schema;
    cs_col_batch *parts;
} ds_view;

static void view_free(ds_view *v)
{
    if (v->pb) cspark__data_source_desc__free_unpacked(v->pb, NULL);
    if (v->data_schema) cs_col_type_unref(v->data_schema);
    if (v->read_schema) cs_col_type_unref(v->read_schema);
    if (v->parts) cs_col_batch_unref(v->parts);
    memset(v, 0, sizeof *v);
}

/* The schema of an IPC stream and its first batch (when batch is non-NULL). */
static int ipc_read(const ProtobufCBinaryData *bytes, const char *what, cs_col_type **schema,
                    cs_col_batch **batch, cs_error *err)
{
    cs_ipc_mem_source src = {bytes->data, bytes->len, 0};
    cs_ipc_reader *r;
    int rc = cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, what, &r, err);
    if (rc < 0) return rc;
    *schema = cs_col_type_ref((cs_col_type *)cs_ipc_reader_schema(r));
    if (batch) {
        rc = cs_ipc_reader_next(r, batch, err);
        if (rc == 0) rc = cs_error_set(err, CS_EPROTO, "%s: no batch", what);
        if (rc > 0) rc = 0;
    }
    cs_ipc_reader_free(r);
    return rc;
}

static int view_open(const cspark_rdd *r, ds_view *v, cs_error *err)
{
    memset(v, 0, sizeof *v);
    v->pb = cspark__data_source_desc__unpack(NULL, r->datasource_len, r->datasource);
    if (!v->pb) return cs_error_set(err, CS_EPROTO, "data source node %d: bad description", r->id);
    v->fmt = cs_file_format_find(v->pb->format);
    if (!v->fmt)
        return cs_error_set(err, CS_EINVAL, "data source node %d: no format '%s' here", r->id,
                            v->pb->format);
    v->options.keys = (const char *const *)v->pb->option_keys;
    v->options.values = (const char *const *)v->pb->option_values;
    v->options.n = (int)(v->pb->n_option_keys < v->pb->n_option_values ? v->pb->n_option_keys
                                                                       : v->pb->n_option_values);
    int rc = ipc_read(&v->pb->data_schema, "the data schema", &v->data_schema, NULL, err);
    if (rc == 0 && v->pb->read_schema.len)
        rc = ipc_read(&v->pb->read_schema, "the read schema", &v->read_schema, NULL, err);
    if (rc == 0 && v->pb->partition_values.len) {
        cs_col_type *ps = NULL;
        rc = ipc_read(&v->pb->partition_values, "the partition values", &ps, &v->parts, err);
        if (ps) cs_col_type_unref(ps);
    }
    return rc;
}

static int desc_encode(const cspark_rdd *r, Cspark__RddNode *pb, cs_error *err)
{
    (void)err;
    pb->datasource.data = cs_xmalloc(r->datasource_len + 1);
    memcpy(pb->datasource.data, r->datasource, r->datasource_len);
    pb->datasource.len = r->datasource_len;
    return 0;
}

static int desc_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r)
{
    Cspark__DataSourceDesc *d =
        cspark__data_source_desc__unpack(NULL, pb->datasource.len, pb->datasource.data);
    if (!d) return -1;
    cspark__data_source_desc__free_unpacked(d, NULL);
    (void)idx;
    r->datasource = cs_xmalloc(pb->datasource.len + 1);
    memcpy(r->datasource, pb->datasource.data, pb->datasource.len);
    r->datasource_len = pb->datasource.len;
    return 0;
}

/* ---- scan ----------------------------------------------------------------------------------- */

cspark_rdd *cs_rdd_datasource_scan_new(lineage_graph *g, const cs_ds_desc *desc,
                                       const text_split *splits, int num_splits,
                                       const int *group_start, int num_partitions, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_DATASOURCE_SCAN, num_partitions, name);
    cs_rdd_kind_set_splits(r, splits, num_splits);
    r->group_start = cs_xmalloc(((size_t)num_partitions + 1) * sizeof *r->group_start);
    memcpy(r->group_start, group_start, ((size_t)num_partitions + 1) * sizeof *r->group_start);
    pack_desc(desc, r);
    return r;
}

static int scan_encode(const cspark_rdd *r, Cspark__RddNode *pb, cs_error *err)
{
    int rc = cs_rdd_kind_file_groups_to_pb(r, pb, err);
    return rc < 0 ? rc : desc_encode(r, pb, err);
}

static int scan_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    int rc = cs_rdd_kind_file_groups_from_pb(pb, idx, r, err);
    if (rc < 0) return rc;
    if (desc_decode(pb, idx, r) < 0)
        return cs_rdd_kind_proto_error(err, idx, "bad data source description");
    return 0;
}

typedef struct scan_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    ds_view view;
    cs_col_allocator alloc;
    cs_scan_request req;
    int next_split, end_split;
    cs_file_split split;
    cs_ds_split_reader *reader;
    cs_batch out;
    cs_sbuf ipc;
} scan_iter;

static int scan_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    scan_iter *s = (scan_iter *)it;
    for (;;) {
        if (!s->reader) {
            if (s->next_split >= s->end_split) return 0;
            int i = s->next_split++;
            const text_split *ts = &s->rdd->splits[i];
            s->split = (cs_file_split){ts->path, ts->start, ts->length, ts->file_size};
            int row = i < (int)s->view.pb->n_split_partition ? s->view.pb->split_partition[i] : -1;
            if (row >= 0 && (!s->view.parts || row >= s->view.parts->num_rows))
                return cs_error_set(err, CS_EPROTO, "split %d: no partition row %d", i, row);
            int rc = cs_ds_split_reader_open(s->view.fmt, &s->split, &s->req, s->view.parts, row,
                                             &s->reader, err);
            if (rc < 0) return rc;
            s->tc->input_file = ts->path;
            s->tc->result->metrics.bytes_read += (int64_t)ts->length;
        }
        cs_col_batch *b = NULL;
        int rc = cs_ds_split_reader_next(s->reader, &b, err);
        if (rc < 0) return rc;
        if (rc == 0) {
            cs_ds_split_reader_close(s->reader);
            s->reader = NULL;
            continue;
        }
        s->ipc.len = 0;
        cs_ipc_writer *w = cs_ipc_writer_new(b->schema, cs_ipc_write_sbuf, &s->ipc);
        rc = cs_ipc_writer_write(w, b, err);
        if (rc == 0) rc = cs_ipc_writer_close(w, err);
        cs_ipc_writer_free(w);
        s->tc->result->metrics.records_read += b->num_rows;
        cs_col_batch_unref(b);
        if (rc < 0) return rc;
        if (s->ipc.len > CSPARK_MAX_RECORD_BYTES)
            return cs_error_set(err, CS_EINVAL,
                                "input file %s: a batch of %zu bytes is over the record limit "
                                "(CSPARK_MAX_RECORD_BYTES); lower the option batchRows",
                                s->split.uri, s->ipc.len);
        cs_batch_reset(&s->out);
        cs_batch_append_record(&s->out, NULL, 0, s->ipc.data, (uint32_t)s->ipc.len);
        *out = &s->out;
        return 1;
    }
}

static void scan_free(part_iter *it)
{
    scan_iter *s = (scan_iter *)it;
    cs_ds_split_reader_close(s->reader);
    view_free(&s->view);
    cs_batch_free(&s->out);
    cs_sbuf_free(&s->ipc);
    free(s);
}

static part_iter *scan_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                               cs_error *err)
{
    scan_iter *s = cs_xcalloc(1, sizeof *s);
    s->base.next = scan_next;
    s->base.free = scan_free;
    s->tc = tc;
    s->rdd = rdd;
    cs_batch_init(&s->out);
    if (view_open(rdd, &s->view, err) < 0) {
        scan_free(&s->base);
        return NULL;
    }
    cs_col_allocator_init(&s->alloc, NULL);
    s->req.data_schema = s->view.data_schema;
    s->req.read_schema = s->view.read_schema ? s->view.read_schema : s->view.data_schema;
    const char *rows = cs_format_option(&s->view.options, "batchRows");
    s->req.batch_rows = rows ? atoll(rows) : 4096;
    s->req.alloc = &s->alloc;
    s->req.options = &s->view.options;
    s->next_split = rdd->group_start[partition];
    s->end_split = rdd->group_start[partition + 1];
    return &s->base;
}

static const char *scan_name(const cspark_rdd *r)
{
    return r->name && *r->name ? r->name : "FileScanRDD";
}

const cs_rdd_kind cs_rdd_kind_datasource_scan = {
    .kind = RDD_DATASOURCE_SCAN,
    .spark_class = "FileScanRDD",
    .spark_name = scan_name,
    .num_parents = 0,
    .encode = scan_encode,
    .decode = scan_decode,
    .compute = scan_compute,
};

/* ---- write ---------------------------------------------------------------------------------- */

cspark_rdd *cs_rdd_datasource_write_new(lineage_graph *g, const cs_ds_desc *desc,
                                        cspark_rdd *parent, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_DATASOURCE_WRITE, parent->num_partitions, name);
    r->parents[0] = parent;
    r->num_parents = 1;
    pack_desc(desc, r);
    return r;
}

static int write_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    if (desc_decode(pb, idx, r) < 0)
        return cs_rdd_kind_proto_error(err, idx, "bad data source description");
    return 0;
}

typedef struct write_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    ds_view view;
    part_iter *parent;
    cs_ds_task_writer *writer;
    cs_batch out;
    bool done;
} write_iter;

static void on_commit_msg(void *arg, const char *kind, const void *value, size_t len)
{
    write_iter *w = arg;
    cs_batch_append_record(&w->out, kind, (uint32_t)strlen(kind), value, (uint32_t)len);
}

/* Writes one batch (the writer opened on the first). */
static int write_batch(write_iter *w, const cs_col_batch *b, cs_error *err)
{
    int rc = 0;
    if (!w->writer) {
        const char *const *pby = (const char *const *)w->view.pb->partition_by;
        cs_ds_write_spec spec = {
            .format = w->view.fmt,
            .options = &w->view.options,
            .path = w->view.pb->path,
            .job_uuid = w->view.pb->job_uuid,
            .partition_by = pby,
            .n_partition_by = (int)w->view.pb->n_partition_by,
            .task_partition = w->tc->task->partition,
            .attempt_id = w->tc->task->task_id,
            .local_dir = w->tc->env->local_dir,
            .num_buckets = w->view.pb->num_buckets,
            .bucket_column = w->view.pb->bucket_column,
        };
        w->writer = cs_ds_task_writer_new(&spec, b->schema, err);
        if (!w->writer) rc = err->code ? err->code : CS_EINVAL;
    }
    return rc < 0 ? rc : cs_ds_task_writer_write(w->writer, b, err);
}

/* Writes the batches of one record's value: an IPC stream, or a SQL stage's batch message. */
static int write_stream(write_iter *w, cspark_slice value, cs_error *err)
{
    cs_col_batch *b;
    int rc;
    if (w->view.data_schema->n_fields > 0) {
        rc = cs_ipc_read_batch_message(NULL, w->view.data_schema, value.ptr, value.len,
                                       "of a SQL stage", &b, err);
        if (rc < 0) return rc;
        if (b->num_rows > 0) rc = write_batch(w, b, err);
        cs_col_batch_unref(b);
        return rc < 0 ? rc : 0;
    }
    cs_ipc_mem_source src = {value.ptr, value.len, 0};
    cs_ipc_reader *r;
    rc = cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "a record's batch", &r, err);
    if (rc < 0) return rc;
    while ((rc = cs_ipc_reader_next(r, &b, err)) > 0) {
        rc = write_batch(w, b, err);
        cs_col_batch_unref(b);
        if (rc < 0) break;
    }
    cs_ipc_reader_free(r);
    return rc < 0 ? rc : 0;
}

static int write_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    write_iter *w = (write_iter *)it;
    if (w->done) return 0;
    const cs_batch *in;
    int rc;
    while ((rc = w->parent->next(w->parent, &in, err)) > 0) {
        for (size_t i = 0; i < in->n; i++) {
            cspark_record rec = batch_get(in, i);
            if ((rc = write_stream(w, rec.value, err)) < 0) return rc;
        }
    }
    if (rc < 0) return rc;
    w->done = true;
    if (!w->writer) return 0; /* an empty partition writes no file */
    int64_t rows = 0;
    cs_ds_task_writer *tw = w->writer;
    w->writer = NULL;
    if ((rc = cs_ds_task_writer_commit(tw, on_commit_msg, w, &rows, err)) < 0) return rc;
    w->tc->result->metrics.records_written += rows;
    *out = &w->out;
    return 1;
}

static void write_free(part_iter *it)
{
    write_iter *w = (write_iter *)it;
    cs_ds_task_writer_abort(w->writer); /* a task that failed or stopped early */
    if (w->parent) cs_part_iter_free(w->parent);
    view_free(&w->view);
    cs_batch_free(&w->out);
    free(w);
}

static part_iter *write_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    write_iter *w = cs_xcalloc(1, sizeof *w);
    w->base.next = write_next;
    w->base.free = write_free;
    w->tc = tc;
    w->rdd = rdd;
    cs_batch_init(&w->out);
    if (view_open(rdd, &w->view, err) < 0 ||
        !(w->parent = cs_part_iter_open(tc, rdd->parents[0], partition, err))) {
        write_free(&w->base);
        return NULL;
    }
    return &w->base;
}

const cs_rdd_kind cs_rdd_kind_datasource_write = {
    .kind = RDD_DATASOURCE_WRITE,
    .spark_class = "FileFormatWriter",
    .num_parents = 1,
    .one_to_one = true,
    .encode = desc_encode,
    .decode = write_decode,
    .compute = write_compute,
};
