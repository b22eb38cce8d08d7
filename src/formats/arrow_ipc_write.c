/*
 * arrow_ipc_write.c — the Arrow IPC stream writer (see arrow_ipc.h) and the byte sinks and
 * sources shared with the reader. Each message is planned first (field nodes and buffers in
 * pre-order, offsets into the body padded to 8 bytes), its FlatBuffers metadata built, then
 * prefix, metadata and the column buffers are written straight from the columns: the body is
 * never assembled in memory. Called by whoever sends batches as Arrow (Spark Connect results,
 * tests, tools).
 */
#include "formats/arrow_ipc.h"

#include <errno.h>
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zstd.h>

#include "columnar/col_builder.h"
#include "formats/arrow_ipc_schema.h"

typedef struct ipc_node {
    int64_t length, null_count;
} ipc_node;

typedef struct ipc_buffer {
    int64_t offset, length;
} ipc_buffer;

struct cs_ipc_writer {
    cs_col_type *schema;
    cs_ipc_write_fn fn;
    void *arg;
    bool schema_written, closed;
    int64_t *dict_ids;     /* per top-level field: its dictionary id, or -1 */
    cs_column **last_dict; /* the dictionary last sent per field (a reference) */
    cs_fb_builder fb;
    ipc_node *nodes;
    size_t n_nodes, nodes_cap;
    ipc_buffer *bufs;
    const uint8_t **buf_data; /* what each buffer holds (NULL: zeros) */
    size_t n_bufs, bufs_cap;
    int64_t body_len;
    void **temps; /* rebased offsets and the like, freed after the message */
    size_t n_temps, temps_cap;
    int codec; /* -1: uncompressed bodies; 0: LZ4 frames; 1: zstd (Message.fbs CompressionType) */
    bool unique_nested_names; /* cs_ipc_writer_set_unique_nested_names */
};

int cs_ipc_write_sbuf(void *arg, const void *p, size_t n, cs_error *err)
{
    cs_sbuf_append(arg, p, n);
    return CS_OK;
}

int cs_ipc_write_fd(void *arg, const void *p, size_t n, cs_error *err)
{
    int fd = *(int *)arg;
    const uint8_t *q = p;
    while (n) {
        ssize_t k = write(fd, q, n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return cs_error_set(err, CS_EIO, "write: %s", strerror(errno));
        q += k;
        n -= (size_t)k;
    }
    return CS_OK;
}

int cs_ipc_read_fd(void *arg, void *p, size_t n, size_t *got, cs_error *err)
{
    int fd = *(int *)arg;
    for (;;) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return cs_error_set(err, CS_EIO, "read: %s", strerror(errno));
        *got = (size_t)k;
        return CS_OK;
    }
}

int cs_ipc_read_mem(void *arg, void *p, size_t n, size_t *got, cs_error *err)
{
    cs_ipc_mem_source *s = arg;
    size_t k = s->len - s->pos < n ? s->len - s->pos : n;
    if (k) memcpy(p, s->data + s->pos, k);
    s->pos += k;
    *got = k;
    return CS_OK;
}

cs_ipc_writer *cs_ipc_writer_new(cs_col_type *schema, cs_ipc_write_fn fn, void *arg)
{
    cs_ipc_writer *w = cs_xcalloc(1, sizeof *w);
    w->schema = cs_col_type_ref(schema);
    w->fn = fn;
    w->arg = arg;
    int n = schema->n_fields ? schema->n_fields : 1;
    w->dict_ids = cs_xcalloc((size_t)n, sizeof *w->dict_ids);
    w->last_dict = cs_xcalloc((size_t)n, sizeof *w->last_dict);
    for (int i = 0; i < schema->n_fields; i++)
        w->dict_ids[i] = -1;
    w->codec = -1;
    cs_fb_builder_init(&w->fb);
    return w;
}

int cs_ipc_writer_set_compression(cs_ipc_writer *w, const char *codec, cs_error *err)
{
    if (!codec || !strcasecmp(codec, "none") || !codec[0])
        w->codec = -1;
    else if (!strcasecmp(codec, "lz4"))
        w->codec = 0;
    else if (!strcasecmp(codec, "zstd"))
        w->codec = 1;
    else
        return cs_error_set(err, CS_EINVAL,
                            "Arrow compression codec '%s': expected none, lz4 or zstd", codec);
    return CS_OK;
}

void cs_ipc_writer_set_unique_nested_names(cs_ipc_writer *w)
{
    w->unique_nested_names = true;
}

void cs_ipc_writer_free(cs_ipc_writer *w)
{
    if (!w) return;
    for (int i = 0; i < w->schema->n_fields; i++)
        cs_column_unref(w->last_dict[i]);
    free(w->last_dict);
    free(w->dict_ids);
    free(w->nodes);
    free(w->bufs);
    free(w->buf_data);
    free(w->temps);
    cs_fb_builder_free(&w->fb);
    cs_col_type_unref(w->schema);
    free(w);
}

static void add_node(cs_ipc_writer *w, int64_t length, int64_t null_count)
{
    if (w->n_nodes == w->nodes_cap) {
        w->nodes_cap = w->nodes_cap ? w->nodes_cap * 2 : 16;
        w->nodes = cs_xrealloc(w->nodes, w->nodes_cap * sizeof *w->nodes);
    }
    w->nodes[w->n_nodes++] = (ipc_node){length, null_count};
}

static void *temp(cs_ipc_writer *w, size_t n);

/* A buffer as a compressed body holds it: int64 length, then an LZ4 or zstd frame (or -1 and the
 * bytes as they are, when the frame would not be smaller). Lives until the message is sent. */
static const uint8_t *compress_buffer(cs_ipc_writer *w, const uint8_t *data, int64_t *length)
{
    size_t n = (size_t)*length;
    size_t bound = w->codec == 0 ? LZ4F_compressFrameBound(n, NULL) : ZSTD_compressBound(n);
    uint8_t *out = temp(w, 8 + (bound > n ? bound : n));
    size_t got = w->codec == 0 ? LZ4F_compressFrame(out + 8, bound, data, n, NULL)
                               : ZSTD_compress(out + 8, bound, data, n, 1);
    bool failed = w->codec == 0 ? LZ4F_isError(got) : ZSTD_isError(got);
    int64_t raw = (int64_t)n;
    if (failed || got >= n) { /* stored as is */
        raw = -1;
        memcpy(out + 8, data, n);
        got = n;
    }
    memcpy(out, &raw, 8);
    *length = (int64_t)(8 + got);
    return out;
}

static void add_buffer(cs_ipc_writer *w, const uint8_t *data, int64_t length)
{
    if (w->codec >= 0 && length > 0) {
        if (!data) data = memset(temp(w, (size_t)length), 0, (size_t)length);
        data = compress_buffer(w, data, &length);
    }
    if (w->n_bufs == w->bufs_cap) {
        w->bufs_cap = w->bufs_cap ? w->bufs_cap * 2 : 32;
        w->bufs = cs_xrealloc(w->bufs, w->bufs_cap * sizeof *w->bufs);
        w->buf_data = cs_xrealloc(w->buf_data, w->bufs_cap * sizeof *w->buf_data);
    }
    w->bufs[w->n_bufs] = (ipc_buffer){w->body_len, length};
    w->buf_data[w->n_bufs++] = data;
    w->body_len += (length + 7) & ~(int64_t)7;
}

static void *temp(cs_ipc_writer *w, size_t n)
{
    if (w->n_temps == w->temps_cap) {
        w->temps_cap = w->temps_cap ? w->temps_cap * 2 : 8;
        w->temps = cs_xrealloc(w->temps, w->temps_cap * sizeof *w->temps);
    }
    return w->temps[w->n_temps++] = cs_xmalloc(n);
}

static void reset_plan(cs_ipc_writer *w)
{
    for (size_t i = 0; i < w->n_temps; i++)
        free(w->temps[i]);
    w->n_temps = w->n_nodes = w->n_bufs = 0;
    w->body_len = 0;
}

static void plan_column(cs_ipc_writer *w, const cs_column *c)
{
    int64_t n = c->length;
    const cs_col_type *t = c->type;
    add_node(w, n, c->null_count);
    if (t->id == CS_TYPE_NULL) return; /* Null has no buffers */
    add_buffer(w, c->null_count ? c->validity : NULL, c->null_count ? (n + 7) / 8 : 0);
    if (c->dictionary) { /* int32 indices */
        add_buffer(w, c->values, n * 4);
        return;
    }
    int width = cs_col_type_width(t->id);
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        add_buffer(w, c->values, (n + 7) / 8);
        return;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        const int32_t *off = cs_column_offsets(c);
        if (!off) {
            add_buffer(w, NULL, 0);
            add_buffer(w, NULL, 0);
            return;
        }
        if (off[0] != 0) { /* a slice: rebase the offsets to the bytes written */
            int32_t *o = temp(w, (size_t)(n + 1) * 4);
            for (int64_t i = 0; i <= n; i++)
                o[i] = off[i] - off[0];
            add_buffer(w, (const uint8_t *)o, (n + 1) * 4);
        } else {
            add_buffer(w, c->values, (n + 1) * 4);
        }
        add_buffer(w, c->data ? c->data + off[0] : NULL, off[n] - off[0]);
        return;
    }
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP:
        add_buffer(w, c->values, c->values ? (n + 1) * 4 : 0);
        if (t->id == CS_TYPE_MAP) { /* the entries struct: never null */
            add_node(w, c->children[0]->length, 0);
            add_buffer(w, NULL, 0);
        }
        break;
    case CS_TYPE_STRUCT:
        break;
    default:
        add_buffer(w, c->values, n * width);
        return;
    }
    for (int i = 0; i < c->n_children; i++)
        plan_column(w, c->children[i]);
}

static cs_fb_ref record_batch_table(cs_ipc_writer *w, int64_t length)
{
    cs_fb_builder *b = &w->fb;
    cs_fb_ref nodes = cs_fb_vector_structs(b, w->nodes, 16, w->n_nodes, 8);
    cs_fb_ref bufs = cs_fb_vector_structs(b, w->bufs, 16, w->n_bufs, 8);
    cs_fb_ref compression = 0;
    if (w->codec >= 0) { /* BodyCompression { codec, method: BUFFER } */
        cs_fb_table_start(b);
        cs_fb_add_u8(b, 0, (uint8_t)w->codec);
        cs_fb_add_u8(b, 1, 0);
        compression = cs_fb_table_end(b);
    }
    cs_fb_table_start(b);
    cs_fb_add_i64(b, BATCH_LENGTH, length);
    cs_fb_add_ref(b, BATCH_NODES, nodes);
    cs_fb_add_ref(b, BATCH_BUFFERS, bufs);
    if (compression) cs_fb_add_ref(b, BATCH_COMPRESSION, compression);
    return cs_fb_table_end(b);
}

/* Wraps header in a Message, writes prefix, metadata and the planned body. */
static int emit(cs_ipc_writer *w, uint8_t header_type, cs_fb_ref header, cs_error *err)
{
    static const uint8_t zeros[8];
    cs_fb_builder *b = &w->fb;
    cs_fb_table_start(b);
    cs_fb_add_i16(b, MESSAGE_VERSION, CS_IPC_METADATA_V5);
    cs_fb_add_u8(b, MESSAGE_HEADER_TYPE, header_type);
    cs_fb_add_ref(b, MESSAGE_HEADER, header);
    cs_fb_add_i64(b, MESSAGE_BODY_LENGTH, w->body_len);
    cs_fb_ref msg = cs_fb_table_end(b);
    size_t len;
    const uint8_t *meta = cs_fb_finish(b, msg, &len);
    size_t pad = (8 - (len + 8) % 8) % 8;
    uint32_t prefix[2] = {0xFFFFFFFFu, (uint32_t)(len + pad)};
    int rc = w->fn(w->arg, prefix, 8, err);
    if (!rc) rc = w->fn(w->arg, meta, len, err);
    if (!rc && pad) rc = w->fn(w->arg, zeros, pad, err);
    for (size_t i = 0; i < w->n_bufs && !rc; i++) {
        int64_t n = w->bufs[i].length;
        const uint8_t *p = w->buf_data[i];
        for (int64_t done = 0; p == NULL && done < n && !rc; done += 8)
            rc = w->fn(w->arg, zeros, (size_t)(n - done < 8 ? n - done : 8), err);
        if (p && n && !rc) rc = w->fn(w->arg, p, (size_t)n, err);
        if ((n & 7) && !rc) rc = w->fn(w->arg, zeros, (size_t)(8 - (n & 7)), err);
    }
    cs_fb_builder_reset(b);
    reset_plan(w);
    return rc;
}

static int write_schema(cs_ipc_writer *w, cs_error *err)
{
    cs_fb_ref s = cs_ipc_schema_encode(&w->fb, w->schema, w->dict_ids, w->unique_nested_names);
    w->schema_written = true;
    return emit(w, HEADER_SCHEMA, s, err);
}

static int write_dictionary(cs_ipc_writer *w, int64_t id, const cs_column *dict, cs_error *err)
{
    plan_column(w, dict);
    cs_fb_ref data = record_batch_table(w, dict->length);
    cs_fb_builder *b = &w->fb;
    cs_fb_table_start(b);
    cs_fb_add_i64(b, DICT_ID, id);
    cs_fb_add_ref(b, DICT_DATA, data);
    cs_fb_add_u8(b, DICT_IS_DELTA, 0);
    return emit(w, HEADER_DICTIONARY_BATCH, cs_fb_table_end(b), err);
}

/* Field i is dictionary encoded in the stream but this batch's column is plain: the column's
 * values become the dictionary (nulls as empty values: a dictionary holds no nulls) and the
 * indices count up (a new column, one reference). */
static cs_column *identity_encoded(const cs_column *c)
{
    cs_col_builder *db = cs_col_builder_new(c->alloc, c->type);
    if (c->length) cs_col_builder_append_binary(db, cs_column_offsets(c), c->data, c->length, NULL);
    cs_column *dict = cs_col_builder_finish(db);
    cs_col_builder_free(db);
    cs_col_builder *b = cs_col_builder_new_dictionary(c->alloc, dict);
    cs_column_unref(dict);
    cs_col_builder_reserve(b, c->length, 0);
    int32_t *idx = (int32_t *)(void *)b->values;
    for (int64_t i = 0; i < c->length; i++)
        idx[i] = (int32_t)i;
    b->length = c->length;
    if (c->null_count) { /* the rows' nulls stay in the indices' bitmap */
        b->validity_cap = (size_t)(c->length + 7) / 8;
        b->validity = cs_col_buffer_alloc(b->alloc, b->validity_cap);
        memcpy(b->validity, c->validity, b->validity_cap);
        b->null_count = c->null_count;
    }
    cs_column *e = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return e;
}

int cs_ipc_writer_write(cs_ipc_writer *w, const cs_col_batch *batch, cs_error *err)
{
    if (w->closed) return cs_error_set(err, CS_EINVAL, "Arrow stream writer: already closed");
    if (!cs_col_type_equal(batch->schema, w->schema))
        return cs_error_set(err, CS_EINVAL, "Arrow stream writer: a batch of another schema");
    int n = batch->n_columns, rc = CS_OK;
    if (!w->schema_written) {
        for (int i = 0; i < n; i++)
            if (batch->columns[i]->dictionary && batch->columns[i]->length <= INT32_MAX)
                w->dict_ids[i] = i;
        rc = write_schema(w, err);
        if (rc) return rc;
    }
    cs_column **cols = cs_xcalloc((size_t)(n ? n : 1), sizeof *cols);
    for (int i = 0; i < n; i++) {
        cs_column *c = batch->columns[i];
        if (w->dict_ids[i] < 0)
            cols[i] = cs_column_decode(c, NULL);
        else
            cols[i] = c->dictionary ? cs_column_ref(c) : identity_encoded(c);
    }
    for (int i = 0; i < n && !rc; i++) {
        if (w->dict_ids[i] < 0 || cols[i]->dictionary == w->last_dict[i]) continue;
        rc = write_dictionary(w, w->dict_ids[i], cols[i]->dictionary, err);
        cs_column_unref(w->last_dict[i]);
        w->last_dict[i] = cs_column_ref(cols[i]->dictionary);
    }
    if (!rc) {
        for (int i = 0; i < n; i++)
            plan_column(w, cols[i]);
        cs_fb_ref rb = record_batch_table(w, batch->num_rows);
        rc = emit(w, HEADER_RECORD_BATCH, rb, err);
    }
    for (int i = 0; i < n; i++)
        cs_column_unref(cols[i]);
    free(cols);
    return rc;
}

int cs_ipc_writer_close(cs_ipc_writer *w, cs_error *err)
{
    if (w->closed) return CS_OK;
    int rc = w->schema_written ? CS_OK : write_schema(w, err);
    w->closed = true;
    static const uint32_t eos[2] = {0xFFFFFFFFu, 0};
    return rc ? rc : w->fn(w->arg, eos, 8, err);
}

int cs_ipc_write_batch_message(const cs_col_batch *b, cs_ipc_write_fn fn, void *arg, cs_error *err)
{
    cs_ipc_writer *w = cs_ipc_writer_new(b->schema, fn, arg);
    w->schema_written = true; /* known to the reader; no field is dictionary encoded */
    int rc = cs_ipc_writer_write(w, b, err);
    cs_ipc_writer_free(w);
    return rc;
}
