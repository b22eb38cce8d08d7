/*
 * kernels_variant.c — Spark 4's variant functions over columns (the encoding is
 * variant_codec.h's; a variant column is the struct of its value and metadata binaries):
 *
 *   parse_json(s)         Spark's ParseJson: the variant of the JSON text; text that is not JSON
 *                         raises MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION
 *   try_parse_json(s)     the same with NULL for text that is not JSON
 *   to_json(v)            Spark's Variant.toJson (timestamps in the session time zone)
 *   is_variant_null(v)    whether v is the variant null (a SQL NULL gives false)
 *   schema_of_variant(v)  Spark's SchemaOfVariant text
 *   to_variant_object(x) and CAST(x AS VARIANT)
 *                         Spark's castToVariant: integers as the smallest int, decimals by
 *                         their digits, structs and maps as objects (keys in field order into the
 *                         dictionary), arrays as arrays, nested variants re-keyed, NULL inside a
 *                         value as the variant null
 *
 * variant_get, try_variant_get and casts from a variant are kernels_variant_get.c's. Called
 * through cs_px_variant_lookup (kernels_json.c's chain) and cs_px_cast_variant_lookup
 * (kernels_cast_complex.c's). Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/variant_codec.h"

bool cs_px_variant_at(const cs_column *c, int64_t row, cs_variant *v)
{
    int32_t vl = 0, ml = 0;
    const uint8_t *vp = cs_column_bytes(c->children[0], row, &vl);
    const uint8_t *mp = cs_column_bytes(c->children[1], row, &ml);
    return cs_variant_init(v, vp, (size_t)vl, mp, (size_t)ml);
}

void cs_px_variant_put(cs_col_builder *b, cs_vb *vb)
{
    const uint8_t *v, *m;
    size_t vl, ml;
    cs_vb_result(vb, &v, &vl, &m, &ml);
    cs_col_builder_append_structs(b, 1, NULL);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), v, vl);
    cs_col_builder_append_string(cs_col_builder_child(b, 1), m, ml);
}

int cs_px_err_malformed_variant(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "MALFORMED_VARIANT", "22023",
                            "Variant binary is malformed. Please check the data source is valid.");
}

static int32_t zone_offset(void *arg, int64_t utc_seconds)
{
    return cs_px_zone_offset((const cs_px_zone *)arg, utc_seconds);
}

static int parse_json_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool try = k->e->fn[0] == 't';
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_vb *vb = cs_vb_new();
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(a[0], i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t len;
        const char *text = (const char *)cs_px_bytes(a[0], i, s, &len);
        cs_vb_reset(vb);
        if (cs_variant_parse_json(vb, text, (size_t)len) == 0) {
            cs_px_variant_put(b, vb);
        } else if (try) {
            cs_col_builder_append_nulls(b, 1);
        } else {
            rc = cs_sql_error_set(k->err, CS_ETASK,
                                  "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", "22023",
                                  "Malformed records are detected in record parsing: %.*s.\n"
                                  "Parse Mode: FAILFAST. To process malformed records as null "
                                  "result, try setting the option 'mode' as 'PERMISSIVE'.",
                                  (int)len, text);
            cs_sql_error_param(k->err, "failFastMode", "FAILFAST");
        }
    }
    cs_vb_free(vb);
    return cs_px_builder_result(b, rc, out);
}

int cs_px_variant_to_json(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    const cs_px_zone *z = cs_px_session_zone(k);
    if (!z) return CS_EINVAL;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, cs_col_type_primitive(CS_TYPE_STRING));
    cs_sbuf sb = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        cs_variant v;
        if (!cs_column_is_valid(a[0], i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        sb.len = 0;
        if (!cs_px_variant_at(a[0], i * s, &v) ||
            !cs_variant_to_json(&v, zone_offset, (void *)z, &sb)) {
            rc = cs_px_err_malformed_variant(k->err);
            break;
        }
        cs_col_builder_append_string(b, sb.data ? sb.data : "", sb.len);
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, rc, out);
}

static int variant_info_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool is_null = k->e->fn[0] == 'i';
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        cs_variant v;
        bool valid = cs_column_is_valid(a[0], i * s);
        if (valid && !cs_px_variant_at(a[0], i * s, &v)) {
            rc = cs_px_err_malformed_variant(k->err);
        } else if (is_null) {
            uint8_t x = valid && cs_variant_type(&v) == CS_VT_NULL;
            cs_col_builder_append_values(b, &x, 1, NULL);
        } else if (!valid) {
            cs_col_builder_append_nulls(b, 1);
        } else {
            sb.len = 0;
            cs_variant_schema(&v, &sb);
            cs_col_builder_append_string(b, sb.data, sb.len);
        }
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, rc, out);
}

/* castToVariant of row i of c into vb; -1 on a malformed nested variant. */
static int put_value(cs_vb *vb, const cs_column *c, int64_t i)
{
    if (!cs_column_is_valid(c, i)) {
        cs_vb_null(vb);
        return 0;
    }
    const cs_col_type *t = c->type;
    if (cs_col_type_is_variant(t)) {
        cs_variant v;
        return cs_px_variant_at(c, i, &v) ? cs_vb_copy(vb, &v) : -1;
    }
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        cs_vb_bool(vb, cs_bit_get(c->values, i));
        return 0;
    case CS_TYPE_BYTE:
        cs_vb_long(vb, ((const int8_t *)c->values)[i]);
        return 0;
    case CS_TYPE_SHORT:
        cs_vb_long(vb, ((const int16_t *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_INT:
        cs_vb_long(vb, ((const int32_t *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_LONG:
        cs_vb_long(vb, ((const int64_t *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_FLOAT:
        cs_vb_float(vb, ((const float *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_DOUBLE:
        cs_vb_double(vb, ((const double *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_DECIMAL: {
        __int128 u = cs_px_dec_get(c, i);
        cs_vb_decimal(vb, u, cs_tv_decimal_digits(u), t->scale);
        return 0;
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        if (t->id == CS_TYPE_STRING)
            cs_vb_string(vb, (const char *)p, (size_t)len);
        else
            cs_vb_binary(vb, p, (size_t)len);
        return 0;
    }
    case CS_TYPE_DATE:
        cs_vb_date(vb, ((const int32_t *)(const void *)c->values)[i]);
        return 0;
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        cs_vb_timestamp(vb, ((const int64_t *)(const void *)c->values)[i],
                        t->id == CS_TYPE_TIMESTAMP_NTZ);
        return 0;
    case CS_TYPE_ARRAY: {
        const int32_t *off = cs_column_offsets(c);
        size_t n = (size_t)(off[i + 1] - off[i]), start = cs_vb_pos(vb);
        size_t room = cs_vb_room_take(vb, n);
        int rc = 0;
        for (size_t e = 0; e < n && !rc; e++) {
            cs_vb_room(vb, room)[e].offset = (uint32_t)(cs_vb_pos(vb) - start);
            rc = put_value(vb, c->children[0], off[i] + (int64_t)e);
        }
        if (!rc) cs_vb_finish_array(vb, start, cs_vb_room(vb, room), n);
        cs_vb_room_give(vb, room);
        return rc;
    }
    case CS_TYPE_STRUCT:
    case CS_TYPE_MAP: {
        bool map = t->id == CS_TYPE_MAP;
        const int32_t *off = map ? cs_column_offsets(c) : NULL;
        int64_t lo = map ? off[i] : 0, hi = map ? off[i + 1] : t->n_fields;
        size_t n = (size_t)(hi - lo), start = cs_vb_pos(vb);
        size_t room = cs_vb_room_take(vb, n);
        int rc = 0;
        for (int64_t e = lo; e < hi && !rc; e++) {
            uint32_t id;
            if (map) {
                int32_t kl;
                const uint8_t *key = cs_column_bytes(c->children[0], e, &kl);
                id = cs_vb_key(vb, (const char *)key, (size_t)kl);
            } else {
                id = cs_vb_key(vb, t->fields[e].name, strlen(t->fields[e].name));
            }
            cs_vb_room(vb, room)[e - lo] = (cs_vb_field){id, (uint32_t)(cs_vb_pos(vb) - start)};
            rc = map ? put_value(vb, c->children[1], e) : put_value(vb, c->children[e], i);
        }
        /* a struct repeating a field name fails, as Spark's builder without duplicate keys */
        if (!rc) rc = cs_vb_finish_object(vb, start, cs_vb_room(vb, room), n);
        cs_vb_room_give(vb, room);
        return rc;
    }
    default:
        return -1;
    }
}

static int to_variant_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, cs_col_type_variant());
    cs_vb *vb = cs_vb_new();
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(a[0], i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        cs_vb_reset(vb);
        if (put_value(vb, a[0], i * s) != 0)
            rc = cs_px_err_malformed_variant(k->err);
        else
            cs_px_variant_put(b, vb);
    }
    cs_vb_free(vb);
    return cs_px_builder_result(b, rc, out);
}

cs_px_kernel cs_px_variant_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result)
{
    (void)result;
    if (n < 1) return NULL;
    bool str = t[0]->id == CS_TYPE_STRING, var = cs_col_type_is_variant(t[0]);
    if ((strcmp(fn, "parse_json") == 0 || strcmp(fn, "try_parse_json") == 0) && n == 1 && str)
        return parse_json_kernel;
    if (strcmp(fn, "to_json") == 0 && n == 1 && var) return cs_px_variant_to_json;
    if ((strcmp(fn, "is_variant_null") == 0 || strcmp(fn, "schema_of_variant") == 0) && n == 1 &&
        var)
        return variant_info_kernel;
    if (strcmp(fn, "to_variant_object") == 0 && n == 1) return to_variant_kernel;
    return cs_px_variant_get_lookup(fn, t, n, result);
}

cs_px_kernel cs_px_cast_variant_lookup(const cs_col_type *from, const cs_col_type *to)
{
    if (cs_col_type_is_variant(to) && !cs_col_type_is_variant(from) && from->id != CS_TYPE_NULL)
        return to_variant_kernel;
    return cs_px_cast_from_variant_lookup(from, to);
}
