/* thrift_compact.c — Thrift compact protocol reader and writer (see thrift_compact.h).
 *
 * Wire format: integers are ULEB128 varints of their zigzag form; a field header is one byte
 * (id delta << 4 | type) or, when the delta does not fit 1..15, the type byte followed by the id
 * as a zigzag varint; a bool field carries its value in the type (1 true, 2 false); a list header
 * is (size << 4 | elem type) with size 15 meaning "a varint size follows"; a struct ends with a
 * STOP byte. Called by parquet_meta.c only.
 */
#include "formats/parquet/thrift_compact.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/parquet/parquet_bits.h"

void cs_thrift_reader_init(cs_thrift_reader *r, const void *buf, size_t len, cs_error *err)
{
    r->start = r->p = buf;
    r->end = r->p + len;
    r->depth = 0;
    r->rc = CS_OK;
    r->err = err;
}

int cs_thrift_fail(cs_thrift_reader *r, const char *fmt, ...)
{
    if (r->rc != CS_OK) return r->rc;
    r->rc = CS_EPROTO;
    if (r->err) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cs_error_set(r->err, CS_EPROTO, "%s (at byte %zu of %zu)", msg, cs_thrift_reader_pos(r),
                     (size_t)(r->end - r->start));
    }
    r->p = r->end; /* nothing more is read */
    return r->rc;
}

static uint64_t read_varint(cs_thrift_reader *r)
{
    int ok;
    uint64_t v = cs_pq_varint(&r->p, r->end, &ok);
    if (!ok) cs_thrift_fail(r, "truncated thrift varint, or longer than 64 bits");
    return v;
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int cs_thrift_struct_begin(cs_thrift_reader *r)
{
    if (r->rc) return r->rc;
    if (++r->depth > CS_THRIFT_MAX_DEPTH)
        return cs_thrift_fail(r, "thrift nesting deeper than %d", CS_THRIFT_MAX_DEPTH);
    return CS_OK;
}

void cs_thrift_struct_end(cs_thrift_reader *r)
{
    r->depth--;
}

int cs_thrift_field_next(cs_thrift_reader *r, int16_t *last_id, int *type, int16_t *id)
{
    if (r->rc) return r->rc;
    if (r->p >= r->end) return cs_thrift_fail(r, "truncated thrift struct (no STOP)");
    uint8_t b = *r->p++;
    *type = b & 0x0f;
    if (*type == CS_THRIFT_STOP) return 0;
    if (*type > CS_THRIFT_STRUCT) return cs_thrift_fail(r, "unknown thrift field type %d", *type);
    int delta = b >> 4;
    if (delta) {
        *id = (int16_t)(*last_id + delta);
    } else {
        int64_t v = unzigzag(read_varint(r));
        if (r->rc) return r->rc;
        if (v < INT16_MIN || v > INT16_MAX)
            return cs_thrift_fail(r, "thrift field id %lld out of range", (long long)v);
        *id = (int16_t)v;
    }
    *last_id = *id;
    return 1;
}

static int wrong_type(cs_thrift_reader *r, int type, const char *want)
{
    return cs_thrift_fail(r, "thrift field of type %d where %s was expected", type, want);
}

int cs_thrift_read_bool(cs_thrift_reader *r, int type, bool *out)
{
    *out = false;
    if (r->rc) return r->rc;
    if (type == CS_THRIFT_TRUE || type == CS_THRIFT_FALSE) {
        *out = type == CS_THRIFT_TRUE;
        return CS_OK;
    }
    return wrong_type(r, type, "a bool");
}

int cs_thrift_read_i64(cs_thrift_reader *r, int type, int64_t *out)
{
    *out = 0;
    if (r->rc) return r->rc;
    if (type == CS_THRIFT_I8) {
        if (r->p >= r->end) return cs_thrift_fail(r, "truncated thrift byte");
        *out = (int8_t)*r->p++;
        return CS_OK;
    }
    if (type != CS_THRIFT_I16 && type != CS_THRIFT_I32 && type != CS_THRIFT_I64)
        return wrong_type(r, type, "an integer");
    int64_t v = unzigzag(read_varint(r));
    if (r->rc) return r->rc;
    *out = v;
    return CS_OK;
}

int cs_thrift_read_i32(cs_thrift_reader *r, int type, int32_t *out)
{
    int64_t v;
    *out = 0;
    if (type == CS_THRIFT_I64) return wrong_type(r, type, "a 32-bit integer");
    if (cs_thrift_read_i64(r, type, &v)) return r->rc;
    if (v < INT32_MIN || v > INT32_MAX)
        return cs_thrift_fail(r, "thrift i32 value %lld out of range", (long long)v);
    *out = (int32_t)v;
    return CS_OK;
}

int cs_thrift_read_double(cs_thrift_reader *r, int type, double *out)
{
    *out = 0;
    if (r->rc) return r->rc;
    if (type != CS_THRIFT_DOUBLE) return wrong_type(r, type, "a double");
    if (r->end - r->p < 8) return cs_thrift_fail(r, "truncated thrift double");
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | r->p[i];
    memcpy(out, &bits, 8);
    r->p += 8;
    return CS_OK;
}

int cs_thrift_read_binary(cs_thrift_reader *r, int type, const uint8_t **ptr, uint32_t *len)
{
    *ptr = NULL;
    *len = 0;
    if (r->rc) return r->rc;
    if (type != CS_THRIFT_BINARY) return wrong_type(r, type, "a binary/string");
    uint64_t n = read_varint(r);
    if (r->rc) return r->rc;
    if (n > (uint64_t)(r->end - r->p))
        return cs_thrift_fail(r, "thrift binary of %llu bytes past the end of the buffer",
                              (unsigned long long)n);
    *ptr = r->p;
    *len = (uint32_t)n;
    r->p += n;
    return CS_OK;
}

int cs_thrift_read_list(cs_thrift_reader *r, int type, int *elem_type, uint32_t *size)
{
    *elem_type = 0;
    *size = 0;
    if (r->rc) return r->rc;
    if (type != CS_THRIFT_LIST && type != CS_THRIFT_SET) return wrong_type(r, type, "a list");
    if (r->p >= r->end) return cs_thrift_fail(r, "truncated thrift list header");
    uint8_t b = *r->p++;
    uint64_t n = b >> 4;
    if (n == 15) n = read_varint(r);
    if (r->rc) return r->rc;
    if (n > (uint64_t)(r->end - r->p))
        return cs_thrift_fail(r, "thrift list of %llu elements longer than the %zu bytes left",
                              (unsigned long long)n, (size_t)(r->end - r->p));
    *elem_type = b & 0x0f;
    if (*elem_type == CS_THRIFT_FALSE) *elem_type = CS_THRIFT_TRUE; /* bools: one byte each */
    if (*elem_type == CS_THRIFT_STOP || *elem_type > CS_THRIFT_STRUCT)
        return cs_thrift_fail(r, "unknown thrift list element type %d", *elem_type);
    *size = (uint32_t)n;
    return CS_OK;
}

static int skip_elements(cs_thrift_reader *r, int type, uint64_t n)
{
    for (uint64_t i = 0; i < n && !r->rc; i++) {
        if (type == CS_THRIFT_TRUE) { /* a bool inside a container is one byte */
            if (r->p >= r->end) return cs_thrift_fail(r, "truncated thrift bool");
            r->p++;
        } else {
            cs_thrift_skip(r, type);
        }
    }
    return r->rc;
}

int cs_thrift_skip(cs_thrift_reader *r, int type)
{
    if (r->rc) return r->rc;
    int64_t i64;
    double d;
    const uint8_t *ptr;
    uint32_t len;
    switch (type) {
    case CS_THRIFT_TRUE:
    case CS_THRIFT_FALSE:
        return CS_OK;
    case CS_THRIFT_I8:
    case CS_THRIFT_I16:
    case CS_THRIFT_I32:
    case CS_THRIFT_I64:
        return cs_thrift_read_i64(r, type, &i64);
    case CS_THRIFT_DOUBLE:
        return cs_thrift_read_double(r, type, &d);
    case CS_THRIFT_BINARY:
        return cs_thrift_read_binary(r, type, &ptr, &len);
    case CS_THRIFT_LIST:
    case CS_THRIFT_SET: {
        int et;
        uint32_t n;
        if (cs_thrift_read_list(r, type, &et, &n)) return r->rc;
        if (cs_thrift_struct_begin(r)) return r->rc;
        skip_elements(r, et, n);
        cs_thrift_struct_end(r);
        return r->rc;
    }
    case CS_THRIFT_MAP: {
        uint64_t n = read_varint(r);
        if (r->rc || n == 0) return r->rc;
        if (n > (uint64_t)(r->end - r->p))
            return cs_thrift_fail(r, "thrift map longer than its buffer");
        if (r->p >= r->end) return cs_thrift_fail(r, "truncated thrift map header");
        uint8_t kv = *r->p++;
        int kt = kv >> 4, vt = kv & 0x0f;
        if (kt == CS_THRIFT_FALSE) kt = CS_THRIFT_TRUE;
        if (vt == CS_THRIFT_FALSE) vt = CS_THRIFT_TRUE;
        if (!kt || !vt || kt > CS_THRIFT_STRUCT || vt > CS_THRIFT_STRUCT)
            return cs_thrift_fail(r, "unknown thrift map element types %d/%d", kt, vt);
        if (cs_thrift_struct_begin(r)) return r->rc;
        for (uint64_t i = 0; i < n && !r->rc; i++) {
            skip_elements(r, kt, 1);
            skip_elements(r, vt, 1);
        }
        cs_thrift_struct_end(r);
        return r->rc;
    }
    case CS_THRIFT_STRUCT: {
        if (cs_thrift_struct_begin(r)) return r->rc;
        int16_t last = 0, id;
        int ft, rc;
        while ((rc = cs_thrift_field_next(r, &last, &ft, &id)) > 0)
            if (cs_thrift_skip(r, ft)) break;
        cs_thrift_struct_end(r);
        return r->rc;
    }
    default:
        return cs_thrift_fail(r, "unknown thrift type %d", type);
    }
}

/* ---- writer ---------------------------------------------------------------------------------- */

void cs_thrift_writer_init(cs_thrift_writer *w, cs_sbuf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

void cs_thrift_write_varint(cs_thrift_writer *w, uint64_t v)
{
    cs_pq_put_varint(w->out, v);
}

void cs_thrift_write_zigzag(cs_thrift_writer *w, int64_t v)
{
    cs_thrift_write_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void cs_thrift_write_struct_begin(cs_thrift_writer *w)
{
    w->depth++;
    w->last_id[w->depth] = 0;
}

void cs_thrift_write_struct_end(cs_thrift_writer *w)
{
    cs_sbuf_putc(w->out, 0);
    w->depth--;
}

void cs_thrift_write_field(cs_thrift_writer *w, int type, int16_t id)
{
    int delta = id - w->last_id[w->depth];
    if (delta > 0 && delta <= 15) {
        cs_sbuf_putc(w->out, (char)(delta << 4 | type));
    } else {
        cs_sbuf_putc(w->out, (char)type);
        cs_thrift_write_zigzag(w, id);
    }
    w->last_id[w->depth] = id;
}

void cs_thrift_write_bool_field(cs_thrift_writer *w, int16_t id, bool v)
{
    cs_thrift_write_field(w, v ? CS_THRIFT_TRUE : CS_THRIFT_FALSE, id);
}

void cs_thrift_write_i32_field(cs_thrift_writer *w, int16_t id, int32_t v)
{
    cs_thrift_write_field(w, CS_THRIFT_I32, id);
    cs_thrift_write_zigzag(w, v);
}

void cs_thrift_write_i64_field(cs_thrift_writer *w, int16_t id, int64_t v)
{
    cs_thrift_write_field(w, CS_THRIFT_I64, id);
    cs_thrift_write_zigzag(w, v);
}

void cs_thrift_write_double_field(cs_thrift_writer *w, int16_t id, double v)
{
    uint64_t bits;
    uint8_t b[8];
    memcpy(&bits, &v, 8);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(bits >> (8 * i));
    cs_thrift_write_field(w, CS_THRIFT_DOUBLE, id);
    cs_sbuf_append(w->out, b, 8);
}

void cs_thrift_write_binary(cs_thrift_writer *w, const void *p, uint32_t len)
{
    cs_thrift_write_varint(w, len);
    if (len) cs_sbuf_append(w->out, p, len);
}

void cs_thrift_write_binary_field(cs_thrift_writer *w, int16_t id, const void *p, uint32_t len)
{
    cs_thrift_write_field(w, CS_THRIFT_BINARY, id);
    cs_thrift_write_binary(w, p, len);
}

void cs_thrift_write_list_begin(cs_thrift_writer *w, int elem_type, uint32_t size)
{
    if (size < 15) {
        cs_sbuf_putc(w->out, (char)(size << 4 | (uint32_t)elem_type));
    } else {
        cs_sbuf_putc(w->out, (char)(0xf0 | elem_type));
        cs_thrift_write_varint(w, size);
    }
}
