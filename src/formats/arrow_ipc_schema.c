/*
 * arrow_ipc_schema.c — Spark's types as Arrow Schema/Field tables and back (see arrow_ipc.h for
 * the mapping, Spark's ArrowUtils.toArrowType/fromArrowType). A variant is written as Spark
 * writes it, struct<value: binary, metadata: binary> with custom_metadata variant = true on the
 * struct and on its metadata field, and such a struct (the tag on its metadata field, as PySpark
 * checks) reads back as a variant. Called by the IPC writer and reader.
 */
#include "formats/arrow_ipc_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* Schema.fbs: union Type and the tables used here */
enum {
    TYPE_NULL = 1,
    TYPE_INT = 2,
    TYPE_FLOATING_POINT = 3,
    TYPE_BINARY = 4,
    TYPE_UTF8 = 5,
    TYPE_BOOL = 6,
    TYPE_DECIMAL = 7,
    TYPE_DATE = 8,
    TYPE_TIME = 9,
    TYPE_TIMESTAMP = 10,
    TYPE_INTERVAL = 11,
    TYPE_LIST = 12,
    TYPE_STRUCT = 13,
    TYPE_UNION = 14,
    TYPE_FIXED_SIZE_BINARY = 15,
    TYPE_FIXED_SIZE_LIST = 16,
    TYPE_MAP = 17,
    TYPE_DURATION = 18,
    TYPE_LARGE_BINARY = 19,
    TYPE_LARGE_UTF8 = 20,
    TYPE_LARGE_LIST = 21,
};
enum {
    FIELD_NAME,
    FIELD_NULLABLE,
    FIELD_TYPE_TYPE,
    FIELD_TYPE,
    FIELD_DICTIONARY,
    FIELD_CHILDREN,
    FIELD_CUSTOM_METADATA
};
enum { KEYVALUE_KEY, KEYVALUE_VALUE };
enum { DICTENC_ID, DICTENC_INDEX_TYPE, DICTENC_IS_ORDERED };
enum { PRECISION_HALF, PRECISION_SINGLE, PRECISION_DOUBLE };
enum { DATE_DAY, DATE_MILLISECOND };
enum { UNIT_SECOND, UNIT_MILLISECOND, UNIT_MICROSECOND, UNIT_NANOSECOND };
enum { INTERVAL_YEAR_MONTH, INTERVAL_DAY_TIME, INTERVAL_MONTH_DAY_NANO };

static cs_fb_ref int_table(cs_fb_builder *b, int bits)
{
    cs_fb_table_start(b);
    cs_fb_add_i32(b, 0, bits);
    cs_fb_add_u8(b, 1, 1);
    return cs_fb_table_end(b);
}

/* The Type union member of t: its table; *kind the union tag. */
static cs_fb_ref type_table(cs_fb_builder *b, const cs_col_type *t, uint8_t *kind)
{
    static const uint8_t int_bits[] = {
        [CS_TYPE_BYTE] = 8, [CS_TYPE_SHORT] = 16, [CS_TYPE_INT] = 32, [CS_TYPE_LONG] = 64};
    cs_fb_ref tz = 0;
    switch (t->id) {
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
        *kind = TYPE_INT;
        return int_table(b, int_bits[t->id]);
    case CS_TYPE_TIMESTAMP:
        tz = cs_fb_string(b, "UTC", 3);
        break;
    default:
        break;
    }
    cs_fb_table_start(b);
    switch (t->id) {
    case CS_TYPE_NULL:
        *kind = TYPE_NULL;
        break;
    case CS_TYPE_BOOLEAN:
        *kind = TYPE_BOOL;
        break;
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
        *kind = TYPE_FLOATING_POINT;
        cs_fb_add_i16(b, 0, t->id == CS_TYPE_FLOAT ? PRECISION_SINGLE : PRECISION_DOUBLE);
        break;
    case CS_TYPE_DECIMAL:
        *kind = TYPE_DECIMAL;
        cs_fb_add_i32(b, 0, t->precision);
        cs_fb_add_i32(b, 1, t->scale);
        cs_fb_add_i32(b, 2, 128);
        break;
    case CS_TYPE_STRING:
        *kind = TYPE_UTF8;
        break;
    case CS_TYPE_BINARY:
        *kind = TYPE_BINARY;
        break;
    case CS_TYPE_DATE:
        *kind = TYPE_DATE;
        cs_fb_add_i16(b, 0, DATE_DAY);
        break;
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        *kind = TYPE_TIMESTAMP;
        cs_fb_add_i16(b, 0, UNIT_MICROSECOND);
        if (tz) cs_fb_add_ref(b, 1, tz);
        break;
    case CS_TYPE_INTERVAL_YM:
        *kind = TYPE_INTERVAL;
        cs_fb_add_i16(b, 0, INTERVAL_YEAR_MONTH);
        break;
    case CS_TYPE_INTERVAL_DT:
        *kind = TYPE_DURATION;
        cs_fb_add_i16(b, 0, UNIT_MICROSECOND);
        break;
    case CS_TYPE_INTERVAL_CAL:
        *kind = TYPE_INTERVAL;
        cs_fb_add_i16(b, 0, INTERVAL_MONTH_DAY_NANO);
        break;
    case CS_TYPE_ARRAY:
        *kind = TYPE_LIST;
        break;
    case CS_TYPE_STRUCT:
        *kind = TYPE_STRUCT;
        break;
    case CS_TYPE_MAP:
        *kind = TYPE_MAP;
        cs_fb_add_u8(b, 0, 0); /* keysSorted = false */
        break;
    default:
        *kind = TYPE_NULL;
        break;
    }
    return cs_fb_table_end(b);
}

static cs_fb_ref encode_field(cs_fb_builder *b, const char *name, const cs_col_type *t,
                              bool nullable, int64_t dict_id, bool unique, bool tag);

/* custom_metadata [{"variant": "true"}]: how Spark marks a variant's struct and its metadata
 * field (ArrowUtils.toArrowField; PySpark's is_variant looks for it on the metadata field). */
static cs_fb_ref variant_tag(cs_fb_builder *b)
{
    cs_fb_ref k = cs_fb_string(b, "variant", 7), v = cs_fb_string(b, "true", 4);
    cs_fb_table_start(b);
    cs_fb_add_ref(b, KEYVALUE_KEY, k);
    cs_fb_add_ref(b, KEYVALUE_VALUE, v);
    cs_fb_ref kv = cs_fb_table_end(b);
    return cs_fb_vector_refs(b, &kv, 1);
}

static cs_fb_ref field_table(cs_fb_builder *b, const char *name, bool nullable, uint8_t kind,
                             cs_fb_ref type, cs_fb_ref dict, const cs_fb_ref *kids, int n_kids,
                             bool tag)
{
    cs_fb_ref children = cs_fb_vector_refs(b, kids, (size_t)n_kids);
    cs_fb_ref name_ref = cs_fb_string(b, name, strlen(name));
    cs_fb_ref meta = tag ? variant_tag(b) : 0;
    cs_fb_table_start(b);
    if (meta) cs_fb_add_ref(b, FIELD_CUSTOM_METADATA, meta);
    cs_fb_add_ref(b, FIELD_NAME, name_ref);
    cs_fb_add_u8(b, FIELD_NULLABLE, nullable);
    cs_fb_add_u8(b, FIELD_TYPE_TYPE, kind);
    cs_fb_add_ref(b, FIELD_TYPE, type);
    if (dict) cs_fb_add_ref(b, FIELD_DICTIONARY, dict);
    cs_fb_add_ref(b, FIELD_CHILDREN, children);
    return cs_fb_table_end(b);
}

/* The name struct field i of t is written under when names must be unique: its own, or, when
 * other fields of t share it, name_k for the k-th of them (k from 0), as Spark's
 * ArrowUtils.deduplicateFieldNames. A new string in buf (size cap) or the field's own name. */
static const char *unique_name(const cs_col_type *t, int i, char *buf, size_t cap)
{
    const char *name = t->fields[i].name;
    int before = 0, total = 0;
    for (int j = 0; j < t->n_fields; j++)
        if (strcmp(t->fields[j].name, name) == 0) {
            total++;
            if (j < i) before++;
        }
    if (total == 1) return name;
    snprintf(buf, cap, "%s_%d", name, before);
    return buf;
}

static cs_fb_ref encode_field(cs_fb_builder *b, const char *name, const cs_col_type *t,
                              bool nullable, int64_t dict_id, bool unique, bool tag)
{
    int n = t->n_fields;
    cs_fb_ref *kids = cs_xcalloc((size_t)(n ? n : 1), sizeof *kids);
    for (int i = 0; i < n; i++) {
        const char *kid = t->fields[i].name;
        char *buf = NULL;
        if (unique && t->id == CS_TYPE_STRUCT) {
            size_t cap = strlen(kid) + 16;
            buf = cs_xmalloc(cap);
            kid = unique_name(t, i, buf, cap);
        }
        kids[i] = encode_field(b, kid, t->fields[i].type, t->fields[i].nullable, -1, unique,
                               t->variant && i == 1);
        free(buf);
    }
    int n_kids = n;
    if (t->id == CS_TYPE_MAP) { /* Map<entries: Struct<key, value>> */
        cs_fb_table_start(b);   /* Struct_ {} */
        cs_fb_ref st = cs_fb_table_end(b);
        kids[0] = field_table(b, "entries", false, TYPE_STRUCT, st, 0, kids, 2, false);
        n_kids = 1;
    }
    cs_fb_ref dict = 0;
    if (dict_id >= 0) {
        cs_fb_ref index = int_table(b, 32);
        cs_fb_table_start(b);
        cs_fb_add_i64(b, DICTENC_ID, dict_id);
        cs_fb_add_ref(b, DICTENC_INDEX_TYPE, index);
        cs_fb_add_u8(b, DICTENC_IS_ORDERED, 0);
        dict = cs_fb_table_end(b);
    }
    uint8_t kind;
    cs_fb_ref type = type_table(b, t, &kind);
    cs_fb_ref f = field_table(b, name, nullable, kind, type, dict, kids, n_kids, tag || t->variant);
    free(kids);
    return f;
}

cs_fb_ref cs_ipc_schema_encode(cs_fb_builder *b, const cs_col_type *schema, const int64_t *dict_ids,
                               bool unique_nested_names)
{
    int n = schema->n_fields;
    cs_fb_ref *fields = cs_xcalloc((size_t)(n ? n : 1), sizeof *fields);
    for (int i = 0; i < n; i++)
        fields[i] = encode_field(b, schema->fields[i].name, schema->fields[i].type,
                                 schema->fields[i].nullable, dict_ids ? dict_ids[i] : -1,
                                 unique_nested_names, false);
    cs_fb_ref vec = cs_fb_vector_refs(b, fields, (size_t)n);
    free(fields);
    cs_fb_table_start(b);
    cs_fb_add_i16(b, SCHEMA_ENDIANNESS, 0);
    cs_fb_add_ref(b, SCHEMA_FIELDS, vec);
    return cs_fb_table_end(b);
}

/* ---- decoding ---- */

static int refuse(cs_error *err, int code, const char *name, size_t name_len, const char *what)
{
    return cs_error_set(err, code, "field '%.*s': %s", (int)(name_len > 200 ? 200 : name_len),
                        name ? name : "", what);
}

static int decode_field(const cs_fb_table *f, int depth, cs_col_field *out, cs_error *err);

/* The children of f as fields (*kids malloc'd, *n set). */
static int decode_children(const cs_fb_table *f, int depth, cs_col_field **kids, int *n,
                           cs_error *err)
{
    cs_fb_vector v = cs_fb_vector_field(f, FIELD_CHILDREN, 4);
    *n = (int)v.n;
    *kids = cs_xcalloc(v.n ? v.n : 1, sizeof **kids);
    for (uint32_t i = 0; i < v.n; i++) {
        cs_fb_table c = cs_fb_vector_table(&v, i);
        int rc = c.r ? decode_field(&c, depth + 1, &(*kids)[i], err)
                     : cs_error_set(err, CS_EPROTO, "a child field is not a table");
        if (rc) {
            *n = (int)i;
            return rc;
        }
    }
    return CS_OK;
}

static void free_fields(cs_col_field *fs, int n)
{
    for (int i = 0; i < n; i++) {
        free(fs[i].name);
        cs_col_type_unref(fs[i].type);
    }
    free(fs);
}

static int decode_type(const cs_fb_table *f, const char *name, size_t name_len, int depth,
                       cs_col_type **out, cs_error *err)
{
    uint8_t kind = cs_fb_u8(f, FIELD_TYPE_TYPE, 0);
    cs_fb_table t = cs_fb_table_field(f, FIELD_TYPE);
    cs_col_field *kids = NULL;
    int n = 0, rc = CS_OK;
    *out = NULL;
    if (kind == TYPE_LIST || kind == TYPE_STRUCT || kind == TYPE_MAP) {
        if (depth >= CS_IPC_MAX_DEPTH)
            return refuse(err, CS_EUNSUPPORTED, name, name_len, "nested more than 64 deep");
        rc = decode_children(f, depth, &kids, &n, err);
        if (rc) goto done;
    }
    switch (kind) {
    case TYPE_NULL:
        *out = cs_col_type_primitive(CS_TYPE_NULL);
        break;
    case TYPE_BOOL:
        *out = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        break;
    case TYPE_UTF8:
        *out = cs_col_type_primitive(CS_TYPE_STRING);
        break;
    case TYPE_BINARY:
        *out = cs_col_type_primitive(CS_TYPE_BINARY);
        break;
    case TYPE_INT: {
        int bits = cs_fb_i32(&t, 0, 0);
        bool is_signed = cs_fb_u8(&t, 1, 0);
        cs_type_id id = bits == 8    ? CS_TYPE_BYTE
                        : bits == 16 ? CS_TYPE_SHORT
                        : bits == 32 ? CS_TYPE_INT
                        : bits == 64 ? CS_TYPE_LONG
                                     : CS_TYPE_NULL;
        if (!is_signed || id == CS_TYPE_NULL)
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "unsigned or odd-width integers have no Spark type (expected signed "
                        "8, 16, 32 or 64 bits)");
        else
            *out = cs_col_type_primitive(id);
        break;
    }
    case TYPE_FLOATING_POINT: {
        int16_t p = cs_fb_i16(&t, 0, PRECISION_HALF);
        if (p == PRECISION_SINGLE)
            *out = cs_col_type_primitive(CS_TYPE_FLOAT);
        else if (p == PRECISION_DOUBLE)
            *out = cs_col_type_primitive(CS_TYPE_DOUBLE);
        else
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "half floats have no Spark type (expected float or double)");
        break;
    }
    case TYPE_DECIMAL: {
        if (cs_fb_i32(&t, 2, 128) != 128) {
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "only 128-bit decimals have a Spark type (precision up to 38)");
            break;
        }
        cs_error e;
        *out = cs_col_type_decimal(cs_fb_i32(&t, 0, 0), cs_fb_i32(&t, 1, 0), &e);
        if (!*out) rc = refuse(err, CS_EUNSUPPORTED, name, name_len, e.msg);
        break;
    }
    case TYPE_DATE:
        if (cs_fb_i16(&t, 0, DATE_MILLISECOND) == DATE_DAY)
            *out = cs_col_type_primitive(CS_TYPE_DATE);
        else
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "date64 (milliseconds) has no Spark type (expected date32, days)");
        break;
    case TYPE_TIMESTAMP: {
        size_t tz_len;
        const char *tz = cs_fb_string_field(&t, 1, &tz_len);
        if (cs_fb_i16(&t, 0, UNIT_SECOND) != UNIT_MICROSECOND)
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "timestamps must be in microseconds (Spark's unit); cast it first");
        else
            *out = cs_col_type_primitive(tz && tz_len ? CS_TYPE_TIMESTAMP : CS_TYPE_TIMESTAMP_NTZ);
        break;
    }
    case TYPE_INTERVAL:
        if (cs_fb_i16(&t, 0, INTERVAL_YEAR_MONTH) == INTERVAL_YEAR_MONTH)
            *out = cs_col_type_interval(CS_TYPE_INTERVAL_YM, CS_INTERVAL_YEAR, CS_INTERVAL_MONTH,
                                        NULL);
        else if (cs_fb_i16(&t, 0, INTERVAL_YEAR_MONTH) == INTERVAL_MONTH_DAY_NANO)
            *out = cs_col_type_primitive(CS_TYPE_INTERVAL_CAL);
        else
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "only year-month intervals have a Spark type (day-time intervals are "
                        "Arrow durations in microseconds)");
        break;
    case TYPE_DURATION:
        if (cs_fb_i16(&t, 0, UNIT_MILLISECOND) == UNIT_MICROSECOND)
            *out = cs_col_type_interval(CS_TYPE_INTERVAL_DT, CS_INTERVAL_DAY, CS_INTERVAL_SECOND,
                                        NULL);
        else
            rc = refuse(err, CS_EUNSUPPORTED, name, name_len,
                        "durations must be in microseconds (Spark's day-time interval)");
        break;
    case TYPE_LIST:
        if (n != 1) {
            rc = refuse(err, CS_EPROTO, name, name_len, "a list without exactly one child");
            break;
        }
        *out = cs_col_type_array(kids[0].type, kids[0].nullable);
        kids[0].type = NULL;
        break;
    case TYPE_STRUCT:
        *out = cs_col_type_struct(kids, n);
        for (int i = 0; i < n; i++)
            kids[i].type = NULL;
        break;
    case TYPE_MAP: {
        const cs_col_type *e = n == 1 ? kids[0].type : NULL;
        if (!e || e->id != CS_TYPE_STRUCT || e->n_fields != 2) {
            rc = refuse(err, CS_EPROTO, name, name_len,
                        "a map whose child is not a struct of key and value");
            break;
        }
        *out = cs_col_type_map(cs_col_type_ref(e->fields[0].type),
                               cs_col_type_ref(e->fields[1].type), e->fields[1].nullable);
        break;
    }
    default: {
        char what[128];
        snprintf(what, sizeof what,
                 "Arrow type %u (union member of Schema.fbs) has no Spark type here", kind);
        rc = refuse(err, CS_EUNSUPPORTED, name, name_len, what);
        break;
    }
    }
done:
    free_fields(kids, n);
    return rc;
}

/* Whether f's custom_metadata holds variant = true. */
static bool has_variant_tag(const cs_fb_table *f)
{
    cs_fb_vector v = cs_fb_vector_field(f, FIELD_CUSTOM_METADATA, 4);
    for (uint32_t i = 0; i < v.n; i++) {
        cs_fb_table kv = cs_fb_vector_table(&v, i);
        size_t kl = 0, vl = 0;
        const char *k = kv.r ? cs_fb_string_field(&kv, KEYVALUE_KEY, &kl) : NULL;
        const char *x = kv.r ? cs_fb_string_field(&kv, KEYVALUE_VALUE, &vl) : NULL;
        if (k && x && kl == 7 && memcmp(k, "variant", 7) == 0 && vl == 4 &&
            memcmp(x, "true", 4) == 0)
            return true;
    }
    return false;
}

/* Whether field f decoded as t is Spark's variant: struct<value: binary, metadata: binary>
 * whose metadata field carries the variant tag (PySpark's is_variant test). */
static bool is_variant(const cs_fb_table *f, const cs_col_type *t)
{
    if (t->id != CS_TYPE_STRUCT || t->n_fields != 2 || strcmp(t->fields[0].name, "value") != 0 ||
        strcmp(t->fields[1].name, "metadata") != 0 || t->fields[0].type->id != CS_TYPE_BINARY ||
        t->fields[1].type->id != CS_TYPE_BINARY)
        return false;
    cs_fb_vector v = cs_fb_vector_field(f, FIELD_CHILDREN, 4);
    cs_fb_table m = v.n == 2 ? cs_fb_vector_table(&v, 1) : (cs_fb_table){0};
    return m.r && has_variant_tag(&m);
}

static int decode_field(const cs_fb_table *f, int depth, cs_col_field *out, cs_error *err)
{
    size_t name_len;
    const char *name = cs_fb_string_field(f, FIELD_NAME, &name_len);
    if (cs_fb_has(f, FIELD_DICTIONARY) && depth > 0)
        return refuse(err, CS_EUNSUPPORTED, name, name_len,
                      "dictionary encoding inside a nested type is not supported");
    cs_col_type *t;
    int rc = decode_type(f, name, name_len, depth, &t, err);
    if (rc) return rc;
    if (is_variant(f, t)) {
        cs_col_type_unref(t);
        t = cs_col_type_variant();
    }
    out->name = cs_xstrndup(name ? name : "", name_len);
    out->type = t;
    out->nullable = cs_fb_u8(f, FIELD_NULLABLE, 0) != 0;
    return CS_OK;
}

int cs_ipc_schema_decode(const cs_fb_table *schema, cs_col_type **out, cs_ipc_dict_field **dicts,
                         cs_error *err)
{
    *out = NULL;
    *dicts = NULL;
    if (cs_fb_i16(schema, SCHEMA_ENDIANNESS, 0) != 0)
        return cs_error_set(err, CS_EUNSUPPORTED, "big-endian Arrow data is not supported");
    cs_fb_vector v = cs_fb_vector_field(schema, SCHEMA_FIELDS, 4);
    cs_col_field *fields = cs_xcalloc(v.n ? v.n : 1, sizeof *fields);
    cs_ipc_dict_field *d = cs_xcalloc(v.n ? v.n : 1, sizeof *d);
    int rc = CS_OK;
    uint32_t i;
    for (i = 0; i < v.n; i++) {
        cs_fb_table f = cs_fb_vector_table(&v, i);
        if (!f.r) {
            rc = cs_error_set(err, CS_EPROTO, "schema field %u is not a table", i);
            break;
        }
        rc = decode_field(&f, 0, &fields[i], err);
        if (rc) break;
        d[i].id = -1;
        cs_fb_table de = cs_fb_table_field(&f, FIELD_DICTIONARY);
        if (!de.r) continue;
        cs_fb_table it = cs_fb_table_field(&de, DICTENC_INDEX_TYPE);
        int bits = it.r ? cs_fb_i32(&it, 0, 0) : 32;
        cs_type_id vt = fields[i].type->id;
        if (vt != CS_TYPE_STRING && vt != CS_TYPE_BINARY)
            rc = cs_error_set(err, CS_EUNSUPPORTED,
                              "field '%s': only string and binary dictionaries are supported",
                              fields[i].name);
        else if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
            rc = cs_error_set(err, CS_EPROTO, "field '%s': dictionary indices of %d bits",
                              fields[i].name, bits);
        if (rc) break;
        d[i].id = cs_fb_i64(&de, DICTENC_ID, 0);
        d[i].index_bytes = bits / 8;
    }
    if (rc == CS_OK && schema->r && schema->r->bad)
        rc = cs_error_set(err, CS_EPROTO, "the schema message is not a valid flatbuffer");
    if (rc) {
        free_fields(fields, (int)v.n); /* calloc'd: fields not reached are empty */
        free(d);
        return rc;
    }
    *out = cs_col_type_struct(fields, (int)v.n);
    for (uint32_t k = 0; k < v.n; k++)
        free(fields[k].name);
    free(fields);
    *dicts = d;
    return CS_OK;
}
