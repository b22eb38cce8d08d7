/*
 * flatbuf.c — a minimal FlatBuffers builder and bounds-checked reader (see flatbuf.h). Called by
 * the Arrow IPC message encoder and decoder.
 */
#include "formats/flatbuf.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

void cs_fb_builder_init(cs_fb_builder *b)
{
    memset(b, 0, sizeof *b);
    b->minalign = 1;
}

void cs_fb_builder_free(cs_fb_builder *b)
{
    free(b->buf);
    cs_fb_builder_init(b);
}

void cs_fb_builder_reset(cs_fb_builder *b)
{
    b->head = 0;
    b->minalign = 1;
    b->n_fields = 0;
}

static void grow(cs_fb_builder *b, size_t n)
{
    if (b->cap - b->head >= n) return;
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap - b->head < n)
        cap *= 2;
    uint8_t *nb = cs_xmalloc(cap);
    if (b->head) memcpy(nb + cap - b->head, b->buf + b->cap - b->head, b->head);
    free(b->buf);
    b->buf = nb;
    b->cap = cap;
}

static uint8_t *push(cs_fb_builder *b, size_t n)
{
    grow(b, n);
    b->head += n;
    return b->buf + b->cap - b->head;
}

static void push_bytes(cs_fb_builder *b, const void *p, size_t n)
{
    if (n) memcpy(push(b, n), p, n);
}

/* Pads so that after `additional` more bytes the head is a multiple of size. */
static void prep(cs_fb_builder *b, size_t size, size_t additional)
{
    if (size > b->minalign) b->minalign = size;
    size_t pad = (~(b->head + additional) + 1) & (size - 1);
    if (pad) memset(push(b, pad), 0, pad);
}

static void push_u32(cs_fb_builder *b, uint32_t v)
{
    push_bytes(b, &v, 4);
}

static void push_ref(cs_fb_builder *b, cs_fb_ref ref)
{
    prep(b, 4, 0);
    push_u32(b, (uint32_t)(b->head + 4 - ref));
}

cs_fb_ref cs_fb_string(cs_fb_builder *b, const char *s, size_t len)
{
    prep(b, 4, len + 1);
    *push(b, 1) = 0;
    push_bytes(b, s, len);
    push_u32(b, (uint32_t)len);
    return (cs_fb_ref)b->head;
}

cs_fb_ref cs_fb_vector_refs(cs_fb_builder *b, const cs_fb_ref *refs, size_t n)
{
    prep(b, 4, 4 * n);
    for (size_t i = n; i-- > 0;)
        push_ref(b, refs[i]);
    push_u32(b, (uint32_t)n);
    return (cs_fb_ref)b->head;
}

cs_fb_ref cs_fb_vector_structs(cs_fb_builder *b, const void *data, size_t elem_size, size_t n,
                               size_t align)
{
    prep(b, 4, elem_size * n);
    prep(b, align, elem_size * n);
    push_bytes(b, data, elem_size * n);
    push_u32(b, (uint32_t)n);
    return (cs_fb_ref)b->head;
}

void cs_fb_table_start(cs_fb_builder *b)
{
    b->table_start = b->head;
    b->n_fields = 0;
    memset(b->field_loc, 0, sizeof b->field_loc);
}

static void add_scalar(cs_fb_builder *b, int id, const void *v, size_t size)
{
    prep(b, size, 0);
    push_bytes(b, v, size);
    b->field_loc[id] = (uint32_t)b->head;
    if (id + 1 > b->n_fields) b->n_fields = id + 1;
}

void cs_fb_add_u8(cs_fb_builder *b, int id, uint8_t v)
{
    add_scalar(b, id, &v, 1);
}
void cs_fb_add_i16(cs_fb_builder *b, int id, int16_t v)
{
    add_scalar(b, id, &v, 2);
}
void cs_fb_add_i32(cs_fb_builder *b, int id, int32_t v)
{
    add_scalar(b, id, &v, 4);
}
void cs_fb_add_i64(cs_fb_builder *b, int id, int64_t v)
{
    add_scalar(b, id, &v, 8);
}

void cs_fb_add_ref(cs_fb_builder *b, int id, cs_fb_ref ref)
{
    push_ref(b, ref);
    b->field_loc[id] = (uint32_t)b->head;
    if (id + 1 > b->n_fields) b->n_fields = id + 1;
}

cs_fb_ref cs_fb_table_end(cs_fb_builder *b)
{
    prep(b, 4, 0);
    push_u32(b, 0); /* the vtable offset, patched below */
    size_t obj = b->head;
    for (int id = b->n_fields - 1; id >= 0; id--) {
        uint16_t off = b->field_loc[id] ? (uint16_t)(obj - b->field_loc[id]) : 0;
        push_bytes(b, &off, 2);
    }
    uint16_t table_size = (uint16_t)(obj - b->table_start);
    uint16_t vt_size = (uint16_t)(4 + 2 * b->n_fields);
    push_bytes(b, &table_size, 2);
    push_bytes(b, &vt_size, 2);
    int32_t soff = (int32_t)(b->head - obj);
    memcpy(b->buf + b->cap - obj, &soff, 4);
    b->n_fields = 0;
    return (cs_fb_ref)obj;
}

const uint8_t *cs_fb_finish(cs_fb_builder *b, cs_fb_ref root, size_t *len)
{
    prep(b, b->minalign > 8 ? b->minalign : 8, 4);
    push_u32(b, (uint32_t)(b->head + 4 - root));
    *len = b->head;
    return b->buf + b->cap - b->head;
}

/* ---- reader ---- */

static uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint16_t rd_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static cs_fb_table bad_table(cs_fb_reader *r)
{
    r->bad = true;
    return (cs_fb_table){0};
}

static cs_fb_table table_at(cs_fb_reader *r, size_t pos)
{
    if (pos > r->len || r->len - pos < 4) return bad_table(r);
    int32_t soff;
    memcpy(&soff, r->buf + pos, 4);
    int64_t vt = (int64_t)pos - soff;
    if (vt < 0 || (uint64_t)vt > r->len - 4) return bad_table(r);
    cs_fb_table t = {r, pos, (size_t)vt, rd_u16(r->buf + vt), rd_u16(r->buf + vt + 2)};
    if (t.vt_size < 4 || t.vt_size % 2 || t.vt_size > r->len - t.vt || t.size < 4 ||
        t.size > r->len - pos)
        return bad_table(r);
    return t;
}

cs_fb_table cs_fb_root(cs_fb_reader *r)
{
    if (r->len < 8) return bad_table(r);
    return table_at(r, rd_u32(r->buf));
}

/* Position of field id holding `size` bytes, or 0 when absent (or out of the table: bad). */
static size_t field_pos(const cs_fb_table *t, int id, size_t size)
{
    if (!t->r || t->r->bad) return 0;
    size_t slot = 4 + 2 * (size_t)id;
    if (slot + 2 > t->vt_size) return 0;
    uint16_t off = rd_u16(t->r->buf + t->vt + slot);
    if (!off) return 0;
    if (off < 4 || (size_t)off + size > t->size) {
        t->r->bad = true;
        return 0;
    }
    return t->pos + off;
}

bool cs_fb_has(const cs_fb_table *t, int id)
{
    return field_pos(t, id, 1) != 0;
}

uint8_t cs_fb_u8(const cs_fb_table *t, int id, uint8_t def)
{
    size_t p = field_pos(t, id, 1);
    return p ? t->r->buf[p] : def;
}

int16_t cs_fb_i16(const cs_fb_table *t, int id, int16_t def)
{
    size_t p = field_pos(t, id, 2);
    return p ? (int16_t)rd_u16(t->r->buf + p) : def;
}

int32_t cs_fb_i32(const cs_fb_table *t, int id, int32_t def)
{
    size_t p = field_pos(t, id, 4);
    return p ? (int32_t)rd_u32(t->r->buf + p) : def;
}

int64_t cs_fb_i64(const cs_fb_table *t, int id, int64_t def)
{
    size_t p = field_pos(t, id, 8);
    return p ? cs_fb_read_i64(t->r->buf + p) : def;
}

/* Target of the uoffset stored at field id, or 0 when absent / bad. */
static size_t deref(const cs_fb_table *t, int id)
{
    size_t p = field_pos(t, id, 4);
    if (!p) return 0;
    uint32_t off = rd_u32(t->r->buf + p);
    if (off == 0 || off > t->r->len - p) {
        t->r->bad = true;
        return 0;
    }
    return p + off;
}

cs_fb_table cs_fb_table_field(const cs_fb_table *t, int id)
{
    size_t p = deref(t, id);
    return p ? table_at(t->r, p) : (cs_fb_table){0};
}

const char *cs_fb_string_field(const cs_fb_table *t, int id, size_t *len)
{
    size_t p = deref(t, id);
    *len = 0;
    if (!p) return NULL;
    cs_fb_reader *r = t->r;
    if (r->len - p < 4 || rd_u32(r->buf + p) > r->len - p - 4) {
        r->bad = true;
        return NULL;
    }
    *len = rd_u32(r->buf + p);
    return (const char *)r->buf + p + 4;
}

cs_fb_vector cs_fb_vector_field(const cs_fb_table *t, int id, size_t elem_size)
{
    size_t p = deref(t, id);
    if (!p) return (cs_fb_vector){0};
    cs_fb_reader *r = t->r;
    if (r->len - p < 4) {
        r->bad = true;
        return (cs_fb_vector){0};
    }
    uint32_t n = rd_u32(r->buf + p);
    if ((uint64_t)n * elem_size > r->len - p - 4) {
        r->bad = true;
        return (cs_fb_vector){0};
    }
    return (cs_fb_vector){r, p + 4, n};
}

cs_fb_table cs_fb_vector_table(const cs_fb_vector *v, uint32_t i)
{
    if (!v->r || i >= v->n || v->r->bad) return (cs_fb_table){0};
    size_t p = v->pos + 4 * (size_t)i;
    uint32_t off = rd_u32(v->r->buf + p);
    if (off == 0 || off > v->r->len - p) return bad_table(v->r);
    return table_at(v->r, p + off);
}

const uint8_t *cs_fb_vector_elem(const cs_fb_vector *v, uint32_t i, size_t elem_size)
{
    if (!v->r || i >= v->n) return NULL;
    return v->r->buf + v->pos + (size_t)i * elem_size;
}
