/*
 * arrow_ipc_read.c — the Arrow IPC stream reader (see arrow_ipc.h). Reads one message at a time
 * (continuation marker + metadata length, or the pre-0.15 bare length; end-of-stream or the end
 * of the input ends the stream), copies every buffer of a record batch into 64-byte aligned
 * column buffers from the reader's allocator, and checks each column before handing a batch out.
 * Buffers grow with the bytes that actually arrive, so a length that lies costs no memory.
 * Called by Spark Connect (createDataFrame data), tests and tools.
 */
#include "formats/arrow_ipc.h"

#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#include <zstd.h>

#include "columnar/col_builder.h"
#include "formats/arrow_ipc_schema.h"

#define MAX_METADATA ((size_t)64 << 20)
#define READ_CHUNK ((size_t)64 << 10)

struct cs_ipc_reader {
    cs_col_allocator *alloc;
    cs_ipc_read_fn fn;
    void *arg;
    char *name;
    cs_col_type *schema;
    cs_ipc_dict_field *dicts;
    cs_column **dict_values; /* per top-level field: its current dictionary */
    uint8_t *meta, *body;
    size_t meta_cap, body_cap;
    bool done;
};

typedef struct ipc_message {
    uint8_t type;
    cs_fb_reader fbr;
    cs_fb_table header;
    int64_t body_len;
} ipc_message;

/* Reads exactly n bytes at buf + have.., growing *buf as they arrive; *got is how many came. */
static int read_growing(cs_ipc_reader *r, uint8_t **buf, size_t *cap, size_t n, size_t *got,
                        cs_error *err)
{
    size_t have = 0;
    while (have < n) {
        size_t step = have > READ_CHUNK ? have : READ_CHUNK; /* at most doubles what came */
        size_t want = n - have < step ? n - have : step;
        if (*cap < have + want) {
            *buf = cs_xrealloc(*buf, have + want);
            *cap = have + want;
        }
        size_t k = 0;
        int rc = r->fn(r->arg, *buf + have, want, &k, err);
        if (rc) return rc;
        if (k == 0) break;
        have += k;
    }
    *got = have;
    return CS_OK;
}

static int read_exact(cs_ipc_reader *r, void *p, size_t n, size_t *got, cs_error *err)
{
    size_t have = 0;
    while (have < n) {
        size_t k = 0;
        int rc = r->fn(r->arg, (uint8_t *)p + have, n - have, &k, err);
        if (rc) return rc;
        if (k == 0) break;
        have += k;
    }
    *got = have;
    return CS_OK;
}

static int truncated(cs_error *err, const char *what)
{
    return cs_error_set(err, CS_EPROTO, "truncated: the input ends inside %s", what);
}

/* 1: a message in *m; 0: the end of the stream. */
static int read_message(cs_ipc_reader *r, ipc_message *m, cs_error *err)
{
    uint32_t word;
    size_t got;
    int rc = read_exact(r, &word, 4, &got, err);
    if (rc) return rc;
    if (got == 0) return 0; /* the input ended between messages: as pyarrow, the end */
    if (got < 4) return truncated(err, "a message prefix");
    if (word == 0xFFFFFFFFu) {
        rc = read_exact(r, &word, 4, &got, err);
        if (rc) return rc;
        if (got < 4) return truncated(err, "a message prefix");
    }
    if (word == 0) return 0;
    if (word > MAX_METADATA)
        return cs_error_set(err, CS_EPROTO, "a message metadata length of %u bytes (at most %zu)",
                            word, MAX_METADATA);
    rc = read_growing(r, &r->meta, &r->meta_cap, word, &got, err);
    if (rc) return rc;
    if (got < word) return truncated(err, "a message's metadata");
    m->fbr = (cs_fb_reader){r->meta, word, false};
    cs_fb_table msg = cs_fb_root(&m->fbr);
    int16_t version = cs_fb_i16(&msg, MESSAGE_VERSION, 0);
    m->type = cs_fb_u8(&msg, MESSAGE_HEADER_TYPE, 0);
    m->header = cs_fb_table_field(&msg, MESSAGE_HEADER);
    m->body_len = cs_fb_i64(&msg, MESSAGE_BODY_LENGTH, 0);
    if (m->fbr.bad || !m->header.r)
        return cs_error_set(err, CS_EPROTO, "a message whose metadata is not a valid flatbuffer");
    if (version < CS_IPC_METADATA_V4)
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "metadata version V%d (Arrow before 0.8): expected V4 or V5",
                            version + 1);
    if (m->body_len < 0)
        return cs_error_set(err, CS_EPROTO, "a negative body length (%lld)",
                            (long long)m->body_len);
    if ((uint64_t)m->body_len > SIZE_MAX / 2)
        return cs_error_set(err, CS_EPROTO, "a body of %lld bytes", (long long)m->body_len);
    rc = read_growing(r, &r->body, &r->body_cap, (size_t)m->body_len, &got, err);
    if (rc) return rc;
    if (got < (size_t)m->body_len) return truncated(err, "a message body");
    return 1;
}

enum { CODEC_NONE = -1, CODEC_LZ4_FRAME = 0, CODEC_ZSTD = 1 }; /* Message.fbs CompressionType */

typedef struct cursor {
    cs_fb_vector nodes, bufs;
    uint32_t node_i, buf_i;
    const uint8_t *body;
    int64_t body_len;
    int codec;
    void *decompressed; /* the last decompressed buffer (freed at the next one and at the end) */
} cursor;

static int next_node(cursor *c, int64_t *length, int64_t *nulls, cs_error *err)
{
    const uint8_t *p = cs_fb_vector_elem(&c->nodes, c->node_i++, 16);
    if (!p) return cs_error_set(err, CS_EPROTO, "a record batch with too few field nodes");
    *length = cs_fb_read_i64(p);
    *nulls = cs_fb_read_i64(p + 8);
    /* Spark's batches count rows in an int; so do the int32 offsets of every child */
    if (*length < 0 || *length > INT32_MAX || *nulls < 0 || *nulls > *length)
        return cs_error_set(err, CS_EPROTO, "a field node of length %lld with %lld nulls",
                            (long long)*length, (long long)*nulls);
    return CS_OK;
}

/* A compressed body's buffer (Message.fbs BodyCompression, method BUFFER): an int64 length
 * uncompressed, -1 for "stored as is", then an LZ4 frame or a zstd frame. The length is believed
 * only as far as the frame can expand: LZ4 at most 255 to 1, zstd as its frame header says. */
static int decompress(cursor *c, const uint8_t **data, int64_t *len, cs_error *err)
{
    if (*len < 8)
        return cs_error_set(err, CS_EPROTO, "a compressed buffer of %lld bytes", (long long)*len);
    int64_t raw = cs_fb_read_i64(*data);
    const uint8_t *src = *data + 8;
    size_t src_len = (size_t)*len - 8;
    if (raw == -1) {
        *data = src;
        *len = (int64_t)src_len;
        return CS_OK;
    }
    uint64_t limit = c->codec == CODEC_LZ4_FRAME ? (uint64_t)src_len * 255 + 65536
                                                 : ZSTD_getFrameContentSize(src, src_len);
    if (raw < 0 || (uint64_t)raw > limit || (c->codec == CODEC_ZSTD && (uint64_t)raw != limit))
        return cs_error_set(err, CS_EPROTO,
                            "a compressed buffer of %zu bytes that claims %lld bytes", src_len,
                            (long long)raw);
    free(c->decompressed);
    c->decompressed = cs_xmalloc((size_t)raw);
    size_t out = 0;
    bool ok;
    if (c->codec == CODEC_ZSTD) {
        out = ZSTD_decompress(c->decompressed, (size_t)raw, src, src_len);
        ok = !ZSTD_isError(out);
    } else {
        LZ4F_dctx *dctx = NULL;
        ok = !LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION));
        size_t in_pos = 0;
        while (ok && in_pos < src_len && out < (size_t)raw) {
            size_t dst = (size_t)raw - out, srcn = src_len - in_pos;
            size_t rc = LZ4F_decompress(dctx, (uint8_t *)c->decompressed + out, &dst, src + in_pos,
                                        &srcn, NULL);
            ok = !LZ4F_isError(rc) && (dst || srcn);
            out += dst;
            in_pos += srcn;
        }
        if (dctx) LZ4F_freeDecompressionContext(dctx);
    }
    if (!ok || out != (size_t)raw)
        return cs_error_set(err, CS_EPROTO, "a %s buffer that does not decompress to %lld bytes",
                            c->codec == CODEC_ZSTD ? "zstd" : "lz4", (long long)raw);
    *data = c->decompressed;
    *len = raw;
    return CS_OK;
}

static int next_buffer(cursor *c, const uint8_t **data, int64_t *len, cs_error *err)
{
    const uint8_t *p = cs_fb_vector_elem(&c->bufs, c->buf_i++, 16);
    if (!p) return cs_error_set(err, CS_EPROTO, "a record batch with too few buffers");
    int64_t off = cs_fb_read_i64(p), n = cs_fb_read_i64(p + 8);
    if (off < 0 || n < 0 || off > c->body_len || n > c->body_len - off)
        return cs_error_set(err, CS_EPROTO,
                            "a buffer at %lld of %lld bytes outside a body of %lld bytes",
                            (long long)off, (long long)n, (long long)c->body_len);
    *data = c->body ? c->body + off : (const uint8_t *)""; /* an empty body: no bytes */
    *len = n;
    return c->codec == CODEC_NONE || n == 0 ? CS_OK : decompress(c, data, len, err);
}

/* Copies `need` bytes of the next buffer (which must hold them) into a new column buffer. */
static int take_buffer(cs_ipc_reader *r, cursor *cur, int64_t need, uint8_t **out, size_t *size,
                       cs_error *err)
{
    const uint8_t *p;
    int64_t n;
    int rc = next_buffer(cur, &p, &n, err);
    if (rc) return rc;
    if (need < 0) need = n; /* all of it */
    if (n < need)
        return cs_error_set(err, CS_EPROTO, "a buffer of %lld bytes where %lld are needed",
                            (long long)n, (long long)need);
    *size = (size_t)need;
    *out = cs_col_buffer_copy(r->alloc, p, (size_t)need);
    return CS_OK;
}

static int64_t bytes_for(int64_t rows, int64_t width)
{
    return rows > (INT64_MAX - 8) / width ? -2 : rows * width;
}

static int load_column(cs_ipc_reader *r, cursor *cur, const cs_col_type *t, int index_bytes,
                       cs_column **out, cs_error *err)
{
    int64_t length, nulls;
    int rc = next_node(cur, &length, &nulls, err);
    if (rc) return rc;
    cs_column *c = cs_column_new_raw(r->alloc, cs_col_type_ref((cs_col_type *)t), length);
    *out = c;
    c->null_count = nulls;
    if (t->id == CS_TYPE_NULL) return CS_OK;
    if (nulls) {
        rc = take_buffer(r, cur, (length + 7) / 8, &c->validity, &c->validity_size, err);
    } else {
        const uint8_t *p;
        int64_t n;
        rc = next_buffer(cur, &p, &n, err);
    }
    if (rc) return rc;
    if (index_bytes) { /* dictionary indices, widened to int32 */
        const uint8_t *p;
        int64_t n;
        rc = next_buffer(cur, &p, &n, err);
        if (rc) return rc;
        if (bytes_for(length, index_bytes) < 0 || n < length * index_bytes)
            return cs_error_set(err, CS_EPROTO, "dictionary indices shorter than the column");
        c->values_size = (size_t)length * 4;
        c->values = cs_col_buffer_alloc(r->alloc, c->values_size);
        int32_t *idx = (int32_t *)(void *)c->values;
        for (int64_t i = 0; i < length; i++) {
            int64_t v = 0;
            if (index_bytes == 1)
                v = (int8_t)p[i];
            else if (index_bytes == 2) {
                int16_t x;
                memcpy(&x, p + 2 * i, 2);
                v = x;
            } else if (index_bytes == 4) {
                int32_t x;
                memcpy(&x, p + 4 * i, 4);
                v = x;
            } else {
                memcpy(&v, p + 8 * i, 8);
            }
            idx[i] = v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
        }
        return CS_OK;
    }
    int width = cs_col_type_width(t->id);
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        return take_buffer(r, cur, (length + 7) / 8, &c->values, &c->values_size, err);
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP: {
        int64_t need = bytes_for(length + 1, 4);
        if (need < 0) return cs_error_set(err, CS_EPROTO, "a column too long for its offsets");
        const uint8_t *p;
        int64_t n;
        rc = next_buffer(cur, &p, &n, err);
        if (rc) return rc;
        if (!(length == 0 && n == 0)) {
            if (n < need)
                return cs_error_set(err, CS_EPROTO, "offsets of %lld bytes for %lld values",
                                    (long long)n, (long long)length);
            c->values_size = (size_t)need;
            c->values = cs_col_buffer_copy(r->alloc, p, (size_t)need);
        }
        break;
    }
    case CS_TYPE_STRUCT:
        break;
    default: {
        int64_t need = bytes_for(length, width);
        if (need < 0) return cs_error_set(err, CS_EPROTO, "a column too long for its values");
        return take_buffer(r, cur, need, &c->values, &c->values_size, err);
    }
    }
    if (t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY)
        return take_buffer(r, cur, -1, &c->data, &c->data_size, err);
    if (t->id == CS_TYPE_MAP) { /* entries: a struct that is never null, then key and value */
        int64_t n, entry_nulls;
        const uint8_t *p;
        rc = next_node(cur, &n, &entry_nulls, err);
        if (!rc) rc = next_buffer(cur, &p, &n, err);
        if (rc) return rc;
        if (entry_nulls) return cs_error_set(err, CS_EPROTO, "a map with null entries");
    }
    c->n_children = t->n_fields;
    c->children = cs_xcalloc((size_t)(t->n_fields ? t->n_fields : 1), sizeof *c->children);
    for (int i = 0; i < t->n_fields && !rc; i++)
        rc = load_column(r, cur, t->fields[i].type, 0, &c->children[i], err);
    return rc;
}

/* Names the column in err; returns rc (cs_error_prefix would return CS_OK for a NULL err). */
static int field_path_error(int rc, cs_error *err, const char *name)
{
    cs_error_prefix(err, "column '%s'", name);
    return rc;
}

/* Decodes a RecordBatch table over the body into columns of `schema` (one per field). */
static int load_batch(cs_ipc_reader *r, const cs_fb_table *rb, int64_t body_len,
                      const cs_col_type *schema, const cs_ipc_dict_field *dicts, cs_column **cols,
                      int64_t *rows, cs_error *err)
{
    cursor cur = {cs_fb_vector_field(rb, BATCH_NODES, 16),
                  cs_fb_vector_field(rb, BATCH_BUFFERS, 16),
                  0,
                  0,
                  r->body,
                  body_len,
                  CODEC_NONE,
                  NULL};
    cs_fb_table compression = cs_fb_table_field(rb, BATCH_COMPRESSION);
    if (compression.r) {
        cur.codec = cs_fb_u8(&compression, 0, CODEC_LZ4_FRAME);
        if (cur.codec != CODEC_LZ4_FRAME && cur.codec != CODEC_ZSTD)
            return cs_error_set(err, CS_EUNSUPPORTED,
                                "a body compressed with codec %d (expected "
                                "LZ4_FRAME or ZSTD)",
                                cur.codec);
        if (cs_fb_u8(&compression, 1, 0) != 0)
            return cs_error_set(err, CS_EUNSUPPORTED,
                                "a body compression method other than BUFFER");
    }
    *rows = cs_fb_i64(rb, BATCH_LENGTH, 0);
    if (rb->r->bad)
        return cs_error_set(err, CS_EPROTO, "a record batch that is not a valid flatbuffer");
    if (*rows < 0 || *rows > INT32_MAX)
        return cs_error_set(err, CS_EPROTO, "a record batch of %lld rows (at most 2^31 - 1)",
                            (long long)*rows);
    for (int i = 0; i < schema->n_fields; i++) {
        int ib = dicts && dicts[i].id >= 0 ? dicts[i].index_bytes : 0;
        int rc = load_column(r, &cur, schema->fields[i].type, ib, &cols[i], err);
        if (rc == CS_OK && ib) {
            if (!r->dict_values[i])
                rc = cs_error_set(err, CS_EPROTO, "a record batch before its dictionary (id %lld)",
                                  (long long)dicts[i].id);
            else
                cols[i]->dictionary = cs_column_ref(r->dict_values[i]);
        }
        if (rc == CS_OK) rc = cs_column_validate(cols[i], err);
        if (rc) {
            free(cur.decompressed);
            return field_path_error(rc, err, schema->fields[i].name);
        }
    }
    free(cur.decompressed);
    return CS_OK;
}

static void free_columns(cs_column **cols, int n)
{
    for (int i = 0; i < n; i++)
        cs_column_unref(cols[i]);
    free(cols);
}

static int load_dictionary(cs_ipc_reader *r, const ipc_message *m, cs_error *err)
{
    int64_t id = cs_fb_i64(&m->header, DICT_ID, 0);
    bool delta = cs_fb_u8(&m->header, DICT_IS_DELTA, 0) != 0;
    cs_fb_table data = cs_fb_table_field(&m->header, DICT_DATA);
    int field = -1;
    for (int i = 0; i < r->schema->n_fields && field < 0; i++)
        if (r->dicts[i].id == id) field = i;
    if (field < 0 || !data.r)
        return cs_error_set(err, CS_EPROTO, "a dictionary batch for unknown id %lld",
                            (long long)id);
    cs_col_field f = {"dictionary", cs_col_type_ref(r->schema->fields[field].type), true};
    cs_col_type *one = cs_col_type_struct(&f, 1);
    cs_column **cols = cs_xcalloc(1, sizeof *cols);
    int64_t rows;
    int rc = load_batch(r, &data, m->body_len, one, NULL, cols, &rows, err);
    cs_col_type_unref(one);
    if (rc) {
        free_columns(cols, 1);
        return rc;
    }
    cs_column *d = cols[0];
    free(cols);
    cs_column *old = r->dict_values[field];
    if (delta && old) { /* appended to the current dictionary */
        cs_col_builder *b = cs_col_builder_new(r->alloc, d->type);
        for (int k = 0; k < 2; k++) {
            cs_column *part = k ? d : old;
            if (part->length)
                cs_col_builder_append_binary(b, cs_column_offsets(part), part->data, part->length,
                                             NULL);
        }
        cs_column_unref(d);
        d = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        if ((int64_t)d->length > INT32_MAX)
            rc = cs_error_set(err, CS_EPROTO, "a dictionary of more than 2^31 values");
    }
    cs_column_unref(old);
    r->dict_values[field] = d;
    return rc;
}

int cs_ipc_reader_open(cs_col_allocator *alloc, cs_ipc_read_fn fn, void *arg, const char *name,
                       cs_ipc_reader **out, cs_error *err)
{
    cs_ipc_reader *r = cs_xcalloc(1, sizeof *r);
    r->alloc = alloc ? alloc : cs_col_default_allocator();
    r->fn = fn;
    r->arg = arg;
    r->name = cs_xstrdup(name ? name : "stream");
    *out = NULL;
    ipc_message m;
    int rc = read_message(r, &m, err);
    if (rc == 0)
        rc = cs_error_set(err, CS_EPROTO, "empty: no schema message");
    else if (rc == 1 && m.type != HEADER_SCHEMA)
        rc = cs_error_set(err, CS_EPROTO, "the first message is not a schema (header type %u)",
                          m.type);
    else if (rc == 1)
        rc = cs_ipc_schema_decode(&m.header, &r->schema, &r->dicts, err);
    if (rc) {
        cs_error_prefix(err, "Arrow stream %s", r->name);
        cs_ipc_reader_free(r);
        return rc;
    }
    r->dict_values =
        cs_xcalloc((size_t)(r->schema->n_fields ? r->schema->n_fields : 1), sizeof *r->dict_values);
    *out = r;
    return CS_OK;
}

const cs_col_type *cs_ipc_reader_schema(const cs_ipc_reader *r)
{
    return r->schema;
}

int cs_ipc_reader_next(cs_ipc_reader *r, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    int rc = 0;
    while (!r->done) {
        ipc_message m;
        rc = read_message(r, &m, err);
        if (rc <= 0) break;
        rc = 0;
        if (m.type == HEADER_DICTIONARY_BATCH) {
            rc = load_dictionary(r, &m, err);
            if (rc) break;
            continue;
        }
        if (m.type != HEADER_RECORD_BATCH) {
            rc = cs_error_set(err, CS_EPROTO, "an unexpected message (header type %u)", m.type);
            break;
        }
        int n = r->schema->n_fields;
        cs_column **cols = cs_xcalloc((size_t)(n ? n : 1), sizeof *cols);
        int64_t rows;
        rc = load_batch(r, &m.header, m.body_len, r->schema, r->dicts, cols, &rows, err);
        if (rc) {
            free_columns(cols, n);
            break;
        }
        *out = cs_col_batch_new(cs_col_type_ref(r->schema), cols, n, rows, err);
        free(cols);
        if (!*out) {
            rc = CS_EPROTO;
            break;
        }
        return 1;
    }
    if (rc == 0) {
        r->done = true;
        return 0;
    }
    r->done = true;
    cs_error_prefix(err, "Arrow stream %s", r->name);
    return rc;
}

void cs_ipc_reader_free(cs_ipc_reader *r)
{
    if (!r) return;
    if (r->dict_values && r->schema)
        for (int i = 0; i < r->schema->n_fields; i++)
            cs_column_unref(r->dict_values[i]);
    free(r->dict_values);
    free(r->dicts);
    cs_col_type_unref(r->schema);
    free(r->meta);
    free(r->body);
    free(r->name);
    free(r);
}

int cs_ipc_read_batch_message(cs_col_allocator *alloc, const cs_col_type *schema,
                              const uint8_t *buf, size_t len, const char *name, cs_col_batch **out,
                              cs_error *err)
{
    *out = NULL;
    cs_ipc_mem_source src = {buf, len, 0};
    cs_ipc_reader r = {
        .alloc = alloc ? alloc : cs_col_default_allocator(),
        .fn = cs_ipc_read_mem,
        .arg = &src,
        .schema = (cs_col_type *)schema,
    };
    int n = schema->n_fields;
    ipc_message m;
    int rc = read_message(&r, &m, err);
    if (rc == 0)
        rc = cs_error_set(err, CS_EPROTO, "no record batch message");
    else if (rc == 1 && m.type != HEADER_RECORD_BATCH)
        rc = cs_error_set(err, CS_EPROTO, "a message of header type %u (expected a record batch)",
                          m.type);
    else if (rc == 1 && src.pos != len)
        rc = cs_error_set(err, CS_EPROTO, "%zu bytes after the record batch", len - src.pos);
    else if (rc == 1)
        rc = CS_OK;
    if (rc == CS_OK) {
        cs_column **cols = cs_xcalloc((size_t)(n ? n : 1), sizeof *cols);
        int64_t rows;
        rc = load_batch(&r, &m.header, m.body_len, schema, NULL, cols, &rows, err);
        if (rc)
            free_columns(cols, n);
        else {
            *out = cs_col_batch_new(cs_col_type_ref((cs_col_type *)schema), cols, n, rows, err);
            free(cols);
            if (!*out) rc = CS_EPROTO;
        }
    }
    free(r.meta);
    free(r.body);
    if (rc) cs_error_prefix(err, "Arrow record batch %s", name ? name : "");
    return rc;
}
