/* parquet_meta.c — decodes and encodes Parquet's Thrift metadata (see parquet_meta.h): field ids
 * and required fields follow parquet.thrift of apache/parquet-format. Each struct has one decode
 * function (a loop over its fields, skipping unknown ones) and one encode function. Arrays are
 * carved from an arena owned by the cs_parquet_meta; a list's length is checked against the bytes
 * left before anything is allocated (thrift_compact.c), so a lying count cannot allocate more
 * than the footer's size times the element size.
 */
#include "formats/parquet/parquet_meta.h"

#include <stdlib.h>
#include <string.h>

#include "formats/parquet/thrift_compact.h"

/* ---- arena ----------------------------------------------------------------------------------- */

struct cs_parquet_arena {
    struct cs_parquet_arena *next;
    size_t used, cap;
    max_align_t data[];
};

static void *arena_alloc(cs_parquet_arena **head, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    cs_parquet_arena *a = *head;
    if (!a || a->cap - a->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        cs_parquet_arena *b = cs_xmalloc(sizeof *b + cap);
        b->used = 0;
        b->cap = cap;
        if (a && n > 65536) { /* a big block goes behind the current one, which stays in use */
            b->next = a->next;
            a->next = b;
            b->used = n;
            return memset(b->data, 0, n);
        }
        b->next = a;
        *head = a = b;
    }
    void *p = (char *)a->data + a->used;
    a->used += n;
    return memset(p, 0, n);
}

static void arena_free(cs_parquet_arena *a)
{
    while (a) {
        cs_parquet_arena *next = a->next;
        free(a);
        a = next;
    }
}

/* ---- decoding -------------------------------------------------------------------------------- */

typedef struct decoder {
    cs_thrift_reader r;
    cs_parquet_arena *arena;
} decoder;

#define FIELDS_BEGIN(d)                                                                            \
    if (cs_thrift_struct_begin(&(d)->r)) return (d)->r.rc;                                         \
    int16_t last_ = 0, id;                                                                         \
    int t, more_;                                                                                  \
    while ((more_ = cs_thrift_field_next(&(d)->r, &last_, &t, &id)) > 0) {                         \
        switch (id) {
#define FIELDS_END(d)                                                                              \
    default:                                                                                       \
        cs_thrift_skip(&(d)->r, t);                                                                \
        }                                                                                          \
        if ((d)->r.rc) break;                                                                      \
        }                                                                                          \
        cs_thrift_struct_end(&(d)->r);                                                             \
        if ((d)->r.rc) return (d)->r.rc;

static int missing(decoder *d, const char *strct, const char *field)
{
    return cs_thrift_fail(&d->r, "%s has no %s (a required field)", strct, field);
}

static int read_enum(decoder *d, int t, int *out)
{
    int32_t v;
    cs_thrift_read_i32(&d->r, t, &v);
    *out = v;
    return d->r.rc;
}

static int read_bytes(decoder *d, int t, cs_parquet_bytes *b)
{
    return cs_thrift_read_binary(&d->r, t, &b->ptr, &b->len);
}

/* A list header and an array of n elements of `size` bytes from the arena. */
static void *read_list(decoder *d, int t, int want_elem, size_t size, uint32_t *n)
{
    int et;
    *n = 0;
    if (cs_thrift_read_list(&d->r, t, &et, n)) return NULL;
    if (et != want_elem) {
        cs_thrift_fail(&d->r, "thrift list of element type %d where %d was expected", et,
                       want_elem);
        *n = 0;
        return NULL;
    }
    return arena_alloc(&d->arena, (size_t)*n * size + 1);
}

static int decode_statistics(decoder *d, cs_parquet_statistics *s)
{
    FIELDS_BEGIN(d)
case 1:
    s->has_max = !read_bytes(d, t, &s->max);
    break;
case 2:
    s->has_min = !read_bytes(d, t, &s->min);
    break;
case 3:
    s->has_null_count = !cs_thrift_read_i64(&d->r, t, &s->null_count);
    break;
case 4:
    s->has_distinct_count = !cs_thrift_read_i64(&d->r, t, &s->distinct_count);
    break;
case 5:
    s->has_max_value = !read_bytes(d, t, &s->max_value);
    break;
case 6:
    s->has_min_value = !read_bytes(d, t, &s->min_value);
    break;
case 7:
    s->has_exact_flags = true;
    cs_thrift_read_bool(&d->r, t, &s->is_max_value_exact);
    break;
case 8:
    s->has_exact_flags = true;
    cs_thrift_read_bool(&d->r, t, &s->is_min_value_exact);
    break;
    FIELDS_END(d)
    return CS_OK;
}

static int decode_key_value(decoder *d, cs_parquet_key_value *kv)
{
    bool has_key = false;
    FIELDS_BEGIN(d)
case 1:
    has_key = !read_bytes(d, t, &kv->key);
    break;
case 2:
    read_bytes(d, t, &kv->value);
    break;
    FIELDS_END(d)
    return has_key ? CS_OK : missing(d, "KeyValue", "key");
}

static int decode_key_values(decoder *d, int t, cs_parquet_key_value **out, uint32_t *n)
{
    *out = read_list(d, t, CS_THRIFT_STRUCT, sizeof **out, n);
    for (uint32_t i = 0; i < *n && !d->r.rc; i++)
        decode_key_value(d, &(*out)[i]);
    return d->r.rc;
}

/* A union of empty structs (TimeUnit) or of one member (LogicalType's): *kind = the field id. */
static int decode_time_unit(decoder *d, int *unit)
{
    FIELDS_BEGIN(d)
case 1:
case 2:
case 3:
    *unit = id;
    cs_thrift_skip(&d->r, t);
    break;
    FIELDS_END(d)
    return CS_OK;
}

static int decode_logical_member(decoder *d, int kind, cs_parquet_logical_type *lt)
{
    int64_t v;
    FIELDS_BEGIN(d)
case 1:
    if (kind == CS_PQ_LT_DECIMAL) {
        cs_thrift_read_i32(&d->r, t, &lt->scale);
    } else if (kind == CS_PQ_LT_INTEGER) {
        cs_thrift_read_i64(&d->r, t, &v);
        lt->bit_width = (int8_t)v;
    } else if (kind == CS_PQ_LT_TIME || kind == CS_PQ_LT_TIMESTAMP) {
        cs_thrift_read_bool(&d->r, t, &lt->utc_adjusted);
    } else {
        cs_thrift_skip(&d->r, t);
    }
    break;
case 2:
    if (kind == CS_PQ_LT_DECIMAL)
        cs_thrift_read_i32(&d->r, t, &lt->precision);
    else if (kind == CS_PQ_LT_INTEGER)
        cs_thrift_read_bool(&d->r, t, &lt->is_signed);
    else if ((kind == CS_PQ_LT_TIME || kind == CS_PQ_LT_TIMESTAMP) && t == CS_THRIFT_STRUCT)
        decode_time_unit(d, &lt->unit);
    else
        cs_thrift_skip(&d->r, t);
    break;
    FIELDS_END(d)
    return CS_OK;
}

static int decode_logical_type(decoder *d, cs_parquet_logical_type *lt)
{
    FIELDS_BEGIN(d)
default:
    if (t != CS_THRIFT_STRUCT) {
        cs_thrift_skip(&d->r, t);
        break;
    }
    lt->kind = id;
    decode_logical_member(d, id, lt);
    break;
}
if (d->r.rc) break;
}
cs_thrift_struct_end(&d->r);
return d->r.rc;
}

static int decode_schema_element(decoder *d, cs_parquet_schema_element *e)
{
    bool has_name = false;
    e->type = e->repetition = e->converted_type = -1;
    FIELDS_BEGIN(d)
case 1:
    read_enum(d, t, &e->type);
    break;
case 2:
    cs_thrift_read_i32(&d->r, t, &e->type_length);
    break;
case 3:
    read_enum(d, t, &e->repetition);
    break;
case 4:
    has_name = !read_bytes(d, t, &e->name);
    break;
case 5:
    cs_thrift_read_i32(&d->r, t, &e->num_children);
    break;
case 6:
    read_enum(d, t, &e->converted_type);
    break;
case 7:
    cs_thrift_read_i32(&d->r, t, &e->scale);
    break;
case 8:
    cs_thrift_read_i32(&d->r, t, &e->precision);
    break;
case 9:
    e->has_field_id = !cs_thrift_read_i32(&d->r, t, &e->field_id);
    break;
case 10:
    if (t == CS_THRIFT_STRUCT)
        decode_logical_type(d, &e->logical);
    else
        cs_thrift_skip(&d->r, t);
    break;
    FIELDS_END(d)
    return has_name ? CS_OK : missing(d, "SchemaElement", "name");
}

static int decode_column_meta(decoder *d, cs_parquet_column_meta *m)
{
    unsigned seen = 0;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1u << 1;
    read_enum(d, t, &m->type);
    break;
case 2:
    seen |= 1u << 2;
    m->encodings = read_list(d, t, CS_THRIFT_I32, sizeof *m->encodings, &m->num_encodings);
    for (uint32_t i = 0; i < m->num_encodings && !d->r.rc; i++)
        cs_thrift_read_i32(&d->r, CS_THRIFT_I32, &m->encodings[i]);
    break;
case 3:
    seen |= 1u << 3;
    m->path = read_list(d, t, CS_THRIFT_BINARY, sizeof *m->path, &m->path_len);
    for (uint32_t i = 0; i < m->path_len && !d->r.rc; i++)
        read_bytes(d, CS_THRIFT_BINARY, &m->path[i]);
    break;
case 4:
    seen |= 1u << 4;
    read_enum(d, t, &m->codec);
    break;
case 5:
    seen |= 1u << 5;
    cs_thrift_read_i64(&d->r, t, &m->num_values);
    break;
case 6:
    seen |= 1u << 6;
    cs_thrift_read_i64(&d->r, t, &m->total_uncompressed_size);
    break;
case 7:
    seen |= 1u << 7;
    cs_thrift_read_i64(&d->r, t, &m->total_compressed_size);
    break;
case 8:
    decode_key_values(d, t, &m->kv, &m->num_kv);
    break;
case 9:
    seen |= 1u << 9;
    cs_thrift_read_i64(&d->r, t, &m->data_page_offset);
    break;
case 10:
    m->has_index_page_offset = !cs_thrift_read_i64(&d->r, t, &m->index_page_offset);
    break;
case 11:
    m->has_dictionary_page_offset = !cs_thrift_read_i64(&d->r, t, &m->dictionary_page_offset);
    break;
case 12:
    m->has_statistics = t == CS_THRIFT_STRUCT && !decode_statistics(d, &m->statistics);
    if (t != CS_THRIFT_STRUCT) cs_thrift_skip(&d->r, t);
    break;
case 14:
    m->has_bloom_filter = !cs_thrift_read_i64(&d->r, t, &m->bloom_filter_offset);
    break;
case 15:
    cs_thrift_read_i32(&d->r, t, &m->bloom_filter_length);
    break;
    FIELDS_END(d)
    static const char *const names[] = {[1] = "type",
                                        [2] = "encodings",
                                        [3] = "path_in_schema",
                                        [4] = "codec",
                                        [5] = "num_values",
                                        [6] = "total_uncompressed_size",
                                        [7] = "total_compressed_size",
                                        [9] = "data_page_offset"};
    for (int f = 1; f <= 9; f++)
        if (names[f] && !(seen & (1u << f))) return missing(d, "ColumnMetaData", names[f]);
    return CS_OK;
}

static int decode_column_chunk(decoder *d, cs_parquet_column_chunk *c)
{
    FIELDS_BEGIN(d)
case 1:
    read_bytes(d, t, &c->file_path);
    break;
case 2:
    cs_thrift_read_i64(&d->r, t, &c->file_offset);
    break;
case 3:
    if (t != CS_THRIFT_STRUCT)
        return cs_thrift_fail(&d->r, "ColumnChunk.meta_data is not a struct");
    c->has_meta_data = !decode_column_meta(d, &c->meta);
    break;
case 4:
    c->has_offset_index = !cs_thrift_read_i64(&d->r, t, &c->offset_index_offset);
    break;
case 5:
    cs_thrift_read_i32(&d->r, t, &c->offset_index_length);
    break;
case 6:
    c->has_column_index = !cs_thrift_read_i64(&d->r, t, &c->column_index_offset);
    break;
case 7:
    cs_thrift_read_i32(&d->r, t, &c->column_index_length);
    break;
    FIELDS_END(d)
    return CS_OK;
}

static int decode_row_group(decoder *d, cs_parquet_row_group *g)
{
    unsigned seen = 0;
    int64_t v;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    g->columns = read_list(d, t, CS_THRIFT_STRUCT, sizeof *g->columns, &g->num_columns);
    for (uint32_t i = 0; i < g->num_columns && !d->r.rc; i++)
        decode_column_chunk(d, &g->columns[i]);
    break;
case 2:
    seen |= 2;
    cs_thrift_read_i64(&d->r, t, &g->total_byte_size);
    break;
case 3:
    seen |= 4;
    cs_thrift_read_i64(&d->r, t, &g->num_rows);
    break;
case 5:
    g->has_file_offset = !cs_thrift_read_i64(&d->r, t, &g->file_offset);
    break;
case 6:
    g->has_total_compressed_size = !cs_thrift_read_i64(&d->r, t, &g->total_compressed_size);
    break;
case 7:
    g->has_ordinal = !cs_thrift_read_i64(&d->r, t, &v);
    g->ordinal = (int16_t)v;
    break;
    FIELDS_END(d)
    if (!(seen & 1)) return missing(d, "RowGroup", "columns");
    if (!(seen & 4)) return missing(d, "RowGroup", "num_rows");
    return CS_OK;
}

static int decode_file_meta(decoder *d, cs_parquet_meta *m)
{
    unsigned seen = 0;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    cs_thrift_read_i32(&d->r, t, &m->version);
    break;
case 2:
    seen |= 2;
    m->schema = read_list(d, t, CS_THRIFT_STRUCT, sizeof *m->schema, &m->num_schema);
    for (uint32_t i = 0; i < m->num_schema && !d->r.rc; i++)
        decode_schema_element(d, &m->schema[i]);
    break;
case 3:
    seen |= 4;
    cs_thrift_read_i64(&d->r, t, &m->num_rows);
    break;
case 4:
    seen |= 8;
    m->row_groups = read_list(d, t, CS_THRIFT_STRUCT, sizeof *m->row_groups, &m->num_row_groups);
    for (uint32_t i = 0; i < m->num_row_groups && !d->r.rc; i++)
        decode_row_group(d, &m->row_groups[i]);
    break;
case 5:
    decode_key_values(d, t, &m->kv, &m->num_kv);
    break;
case 6:
    read_bytes(d, t, &m->created_by);
    break;
    FIELDS_END(d)
    if (!(seen & 2)) return missing(d, "FileMetaData", "schema");
    if (!(seen & 4)) return missing(d, "FileMetaData", "num_rows");
    if (!(seen & 8)) return missing(d, "FileMetaData", "row_groups");
    return CS_OK;
}

int cs_parquet_meta_decode(const uint8_t *buf, size_t len, cs_parquet_meta *out, cs_error *err)
{
    decoder d = {0};
    memset(out, 0, sizeof *out);
    cs_thrift_reader_init(&d.r, buf, len, err);
    if (decode_file_meta(&d, out)) {
        arena_free(d.arena);
        memset(out, 0, sizeof *out);
        return err ? err->code : CS_EPROTO;
    }
    out->arena = d.arena;
    return CS_OK;
}

void cs_parquet_meta_free(cs_parquet_meta *m)
{
    if (!m) return;
    arena_free(m->arena);
    memset(m, 0, sizeof *m);
}

static int decode_data_page_v1(decoder *d, cs_parquet_page_header *h)
{
    unsigned seen = 0;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    cs_thrift_read_i32(&d->r, t, &h->num_values);
    break;
case 2:
    seen |= 2;
    read_enum(d, t, &h->encoding);
    break;
case 3:
    read_enum(d, t, &h->def_encoding);
    break;
case 4:
    read_enum(d, t, &h->rep_encoding);
    break;
case 5:
    h->has_statistics = t == CS_THRIFT_STRUCT && !decode_statistics(d, &h->statistics);
    if (t != CS_THRIFT_STRUCT) cs_thrift_skip(&d->r, t);
    break;
    FIELDS_END(d)
    if (seen != 3) return missing(d, "DataPageHeader", seen & 1 ? "encoding" : "num_values");
    return CS_OK;
}

static int decode_data_page_v2(decoder *d, cs_parquet_page_header *h)
{
    unsigned seen = 0;
    h->is_compressed = true;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    cs_thrift_read_i32(&d->r, t, &h->num_values);
    break;
case 2:
    seen |= 2;
    cs_thrift_read_i32(&d->r, t, &h->num_nulls);
    break;
case 3:
    seen |= 4;
    cs_thrift_read_i32(&d->r, t, &h->num_rows);
    break;
case 4:
    seen |= 8;
    read_enum(d, t, &h->encoding);
    break;
case 5:
    seen |= 16;
    cs_thrift_read_i32(&d->r, t, &h->def_levels_len);
    break;
case 6:
    seen |= 32;
    cs_thrift_read_i32(&d->r, t, &h->rep_levels_len);
    break;
case 7:
    cs_thrift_read_bool(&d->r, t, &h->is_compressed);
    break;
case 8:
    h->has_statistics = t == CS_THRIFT_STRUCT && !decode_statistics(d, &h->statistics);
    if (t != CS_THRIFT_STRUCT) cs_thrift_skip(&d->r, t);
    break;
    FIELDS_END(d)
    if (seen != 63)
        return missing(d, "DataPageHeaderV2",
                       "num_values/num_nulls/num_rows/encoding/levels lengths");
    return CS_OK;
}

static int decode_dictionary_page(decoder *d, cs_parquet_page_header *h)
{
    unsigned seen = 0;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    cs_thrift_read_i32(&d->r, t, &h->num_values);
    break;
case 2:
    seen |= 2;
    read_enum(d, t, &h->encoding);
    break;
case 3:
    cs_thrift_read_bool(&d->r, t, &h->is_sorted);
    break;
    FIELDS_END(d)
    if (seen != 3) return missing(d, "DictionaryPageHeader", seen & 1 ? "encoding" : "num_values");
    return CS_OK;
}

static int decode_page_header(decoder *d, cs_parquet_page_header *h)
{
    unsigned seen = 0, sub = 0;
    FIELDS_BEGIN(d)
case 1:
    seen |= 1;
    read_enum(d, t, &h->type);
    break;
case 2:
    seen |= 2;
    cs_thrift_read_i32(&d->r, t, &h->uncompressed_size);
    break;
case 3:
    seen |= 4;
    cs_thrift_read_i32(&d->r, t, &h->compressed_size);
    break;
case 4:
    h->has_crc = !cs_thrift_read_i32(&d->r, t, &h->crc);
    break;
case 5:
case 7:
case 8:
    if (t != CS_THRIFT_STRUCT)
        return cs_thrift_fail(&d->r, "PageHeader field %d is not a struct", id);
    sub |= 1u << id;
    if (id == 5) decode_data_page_v1(d, h);
    if (id == 7) decode_dictionary_page(d, h);
    if (id == 8) decode_data_page_v2(d, h);
    break;
    FIELDS_END(d)
    if (seen != 7)
        return missing(d, "PageHeader", "type/uncompressed_page_size/compressed_page_size");
    if (h->uncompressed_size < 0 || h->compressed_size < 0)
        return cs_thrift_fail(
            &d->r, "PageHeader has a negative page size (%d compressed, %d uncompressed)",
            h->compressed_size, h->uncompressed_size);
    int want = h->type == CS_PQ_PAGE_DATA         ? 5
               : h->type == CS_PQ_PAGE_DICTIONARY ? 7
               : h->type == CS_PQ_PAGE_DATA_V2    ? 8
                                                  : 0;
    if (want && !(sub & (1u << want)))
        return cs_thrift_fail(&d->r, "PageHeader of type %d has no header for that type", h->type);
    if (h->num_values < 0) return cs_thrift_fail(&d->r, "PageHeader has a negative num_values");
    return CS_OK;
}

int cs_parquet_page_header_decode(const uint8_t *buf, size_t len, cs_parquet_page_header *out,
                                  size_t *header_len, cs_error *err)
{
    decoder d = {0};
    memset(out, 0, sizeof *out);
    cs_thrift_reader_init(&d.r, buf, len, err);
    int rc = decode_page_header(&d, out);
    arena_free(d.arena); /* page headers allocate nothing; kept for symmetry */
    if (rc) return cs_error_prefix(err, "page header");
    *header_len = cs_thrift_reader_pos(&d.r);
    return CS_OK;
}
