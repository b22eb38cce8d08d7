/*
 * variant_codec.h — Spark 4's variant binary encoding (Spark's common/variant module: the
 * VariantBuilder that writes it and the VariantUtil readers), written here from its spec. A
 * variant is two byte strings:
 *
 *   metadata  header byte (version 1 in the low 4 bits, offset width - 1 in the top 2 bits),
 *             the key count, key count + 1 offsets, then the object keys' UTF-8 bytes: the
 *             dictionary of every object key in the value, in order of first appearance.
 *   value     a header byte whose low 2 bits are the basic type: primitive (the high 6 bits are
 *             the primitive type: null, true, false, int1/2/4/8, double, decimal4/8/16, date,
 *             timestamp, timestamp_ntz, float, binary, long string), short string (the high 6
 *             bits are the length, up to 63 bytes), object (size, key ids, field offsets, field
 *             data: fields sorted by key) or array (size, offsets, element data); little endian.
 *
 * The builder makes Spark's exact bytes: the smallest integer type of a value, decimals by
 * precision, the smallest widths of sizes, ids and offsets, objects' fields sorted by key (Java's
 * String order: UTF-16 units) with their data in insertion order.
 * cs_variant_parse_json parses through jansson (DESIGN §5's JSON library) and reads the number
 * texts the library has accepted, so that numbers keep Spark's types (integers as the smallest
 * int, plain decimals as decimal, others double). Readers check every offset against the
 * buffers' ends, so bytes from a client or a file cannot read out of bounds.
 *
 * Users: kernels_variant*.c (parse_json, to_json, variant_get, casts). Ownership: a cs_vb owns
 * its buffers; results are borrowed until the builder is reset or freed.
 */
#ifndef CSPARK_SQLEXEC_VARIANT_CODEC_H
#define CSPARK_SQLEXEC_VARIANT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strutil.h"

/* The value kinds a reader sees (Spark's VariantUtil.Type). */
typedef enum cs_vt {
    CS_VT_NULL,
    CS_VT_BOOLEAN,
    CS_VT_LONG,
    CS_VT_DOUBLE,
    CS_VT_DECIMAL,
    CS_VT_STRING,
    CS_VT_DATE,
    CS_VT_TIMESTAMP,
    CS_VT_TIMESTAMP_NTZ,
    CS_VT_FLOAT,
    CS_VT_BINARY,
    CS_VT_UUID,
    CS_VT_OBJECT,
    CS_VT_ARRAY,
    CS_VT_BAD /* malformed bytes */
} cs_vt;

/* One value inside a variant: [p, end) holds it (and possibly more after it); m is the
 * variant's metadata. */
typedef struct cs_variant {
    const uint8_t *p, *end;
    const uint8_t *m;
    size_t m_len;
} cs_variant;

/* The order of object keys: Java's String.compareTo (UTF-16 units) over UTF-8 bytes. */
int cs_variant_key_cmp(const void *a, size_t al, const void *b, size_t bl);

/* ---- builder (Spark's VariantBuilder) ---- */
typedef struct cs_vb cs_vb;
typedef struct cs_vb_field {
    uint32_t id;     /* the key's dictionary id */
    uint32_t offset; /* the field's data, from the object's start */
} cs_vb_field;

cs_vb *cs_vb_new(void);
void cs_vb_free(cs_vb *b);
/* Empties the value and the dictionary for the next variant. */
void cs_vb_reset(cs_vb *b);
size_t cs_vb_pos(const cs_vb *b); /* bytes of value written so far */
void cs_vb_null(cs_vb *b);
void cs_vb_bool(cs_vb *b, bool v);
void cs_vb_long(cs_vb *b, int64_t v); /* the smallest of int1/2/4/8 */
void cs_vb_double(cs_vb *b, double v);
void cs_vb_float(cs_vb *b, float v);
/* A decimal of `precision` digits at `scale` (0..38): decimal4/8/16 by the larger of both. */
void cs_vb_decimal(cs_vb *b, __int128 unscaled, int precision, int scale);
void cs_vb_string(cs_vb *b, const char *s, size_t n);
void cs_vb_binary(cs_vb *b, const void *p, size_t n);
void cs_vb_date(cs_vb *b, int32_t days);
void cs_vb_timestamp(cs_vb *b, int64_t micros, bool ntz);
/* Copies an encoded value (its metadata's keys re-entered into this builder's dictionary). */
int cs_vb_copy(cs_vb *b, const cs_variant *v);
/* The dictionary id of a key (added when new). */
uint32_t cs_vb_key(cs_vb *b, const char *key, size_t n);
/* Ends an object whose field data was written from `start`: sorts fields by key and writes the
 * header; -1 when two fields have the same key (nothing changed then), else 0. */
int cs_vb_finish_object(cs_vb *b, size_t start, cs_vb_field *fields, size_t n);
/* Ends an array whose n elements were written from `start`, element i at elems[i].offset (from
 * start; the ids are not read). */
void cs_vb_finish_array(cs_vb *b, size_t start, const cs_vb_field *elems, size_t n);
/* Room for a container's n fields (or element offsets) while its values are written: a stack in
 * the builder, so a nested value takes no allocation of its own once the stack has grown.
 * cs_vb_room_take returns the room's base; cs_vb_room(b, base) points at it until the next take
 * (a nested container's take may move it: index it again after writing a value);
 * cs_vb_room_give(b, base) gives back that room and every one taken after it. */
size_t cs_vb_room_take(cs_vb *b, size_t n);
cs_vb_field *cs_vb_room(cs_vb *b, size_t base);
void cs_vb_room_give(cs_vb *b, size_t base);
/* The finished variant: value and metadata bytes (borrowed until reset/free). */
void cs_vb_result(cs_vb *b, const uint8_t **value, size_t *value_len, const uint8_t **metadata,
                  size_t *metadata_len);

/* Spark's VariantBuilder.parseJson of JSON text into a reset builder: 0, or -1 when the text is
 * not one JSON value or an object repeats a key (Spark's MALFORMED_RECORD_IN_PARSING). */
int cs_variant_parse_json(cs_vb *b, const char *s, size_t n);

/* A variant_get path (Spark's VariantPathParser): `$` then `.key`, `['key']`, `["key"]` or
 * `[index]` (0 to 2^31 - 1) steps. */
typedef struct cs_variant_step {
    const char *key; /* NULL: an array index; else into the path text */
    size_t key_len;
    int32_t index;
} cs_variant_step;
/* The steps of path s[0..n) into steps (room for n of them; NULL: only checked): their count,
 * or -1 when s is not a path. */
int cs_variant_path_parse(const char *s, size_t n, cs_variant_step *steps);

/* ---- readers (Spark's VariantUtil) ---- */
/* The variant of a value/metadata pair; false when the metadata's header is not version 1. */
bool cs_variant_init(cs_variant *v, const uint8_t *value, size_t value_len, const uint8_t *meta,
                     size_t meta_len);
cs_vt cs_variant_type(const cs_variant *v);
bool cs_variant_bool(const cs_variant *v);
int64_t cs_variant_long(const cs_variant *v);  /* ints, date, timestamps */
double cs_variant_double(const cs_variant *v); /* double and float */
/* A decimal as Spark's getDecimal gives it: trailing zeros stripped (a negative scale is
 * scaled back to 0, as Spark's Decimal does). */
void cs_variant_decimal(const cs_variant *v, __int128 *unscaled, int *scale);
/* String or binary bytes. */
const uint8_t *cs_variant_bytes(const cs_variant *v, size_t *len);
/* Objects and arrays: the element count. */
size_t cs_variant_size(const cs_variant *v);
/* The i-th field of an object (in key order): its key and value; false when malformed. */
bool cs_variant_field_at(const cs_variant *v, size_t i, const uint8_t **key, size_t *key_len,
                         cs_variant *out);
/* The field named key (binary search); false when absent. */
bool cs_variant_field(const cs_variant *v, const char *key, size_t key_len, cs_variant *out);
/* The i-th element of an array; false when absent. */
bool cs_variant_element(const cs_variant *v, size_t i, cs_variant *out);
/* Bytes [p, p + size) of the value (its header through its data). */
size_t cs_variant_value_size(const cs_variant *v);

/* Spark's Variant.toJson (timestamps shown in the zone at `zone_offset`, given per value by
 * the callback). Returns false on malformed bytes. */
typedef int32_t (*cs_variant_zone_fn)(void *arg, int64_t utc_seconds);
bool cs_variant_to_json(const cs_variant *v, cs_variant_zone_fn zone, void *zarg, cs_sbuf *out);
/* Spark's SchemaOfVariant text of v ("OBJECT<a: BIGINT>", "ARRAY<VARIANT>", ...). */
bool cs_variant_schema(const cs_variant *v, cs_sbuf *out);
/* schema_of_variant_agg's schema bytes (variant_schema.c's byte form; empty is VOID): appends
 * v's schema; appends the merge (SchemaOfVariant.mergeSchema) of two; appends the text of one.
 * The last two return false on malformed bytes. */
void cs_variant_schema_encode(const cs_variant *v, cs_sbuf *out);
bool cs_variant_schema_merge(const uint8_t *a, size_t al, const uint8_t *b, size_t bl,
                             cs_sbuf *out);
bool cs_variant_schema_print(const uint8_t *p, size_t n, cs_sbuf *out);

#endif /* CSPARK_SQLEXEC_VARIANT_CODEC_H */
