/*
 * kernels_variant_get.c — a variant's value as a Spark type: variant_get(v, path) and
 * try_variant_get(v, path) (the node's type is the target; the path a string column, a literal
 * parsed once per batch) and CAST(v AS type) / try_cast, as Spark's VariantGet.cast:
 *
 *   - a missing path step (a key not in an object, an index past an array's end, a step into a
 *     scalar) gives NULL, and so does the variant null for any type but VARIANT;
 *   - VARIANT: the value, re-encoded with a dictionary of its own keys only;
 *   - STRING: a string as it is, an object or array as its JSON text, another scalar as Spark's
 *     cast of its natural type prints it (timestamps in the session time zone);
 *   - other atomic types: the value's natural type (BIGINT for every integer, DOUBLE, FLOAT,
 *     DECIMAL at its digits, STRING, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ, BINARY) cast by
 *     the engine's own cast kernels in try mode, one kernel call per natural type and batch;
 *     where that gives NULL, or no cast exists, INVALID_VARIANT_CAST (try_variant_get and
 *     try_cast: NULL);
 *   - STRUCT from an object (fields by name), ARRAY from an array, MAP from an object (keys as
 *     strings), converted level by level over all the rows at once; another kind is an invalid
 *     cast.
 *
 * Called through cs_px_variant_lookup / cs_px_cast_variant_lookup (kernels_variant.c).
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h"
#include "sqlexec/variant_codec.h"

/* The values of one level: row i is x[i] when ok[i], else NULL. */
typedef struct vrows {
    int64_t n;
    cs_variant *x;
    uint8_t *ok;
} vrows;

typedef struct conv {
    const cs_px_kctx *k;
    const cs_px_zone *zone;
    bool try;
} conv;

static int32_t zone_offset(void *arg, int64_t utc_seconds)
{
    return cs_px_zone_offset((const cs_px_zone *)arg, utc_seconds);
}

/* Spark's DataType.sql: "INT", "DECIMAL(10,2)", "STRUCT<a: INT>", "ARRAY<STRING>". */
static void type_sql(const cs_col_type *t, cs_sbuf *out)
{
    if (!cs_col_type_is_variant(t) &&
        (t->id == CS_TYPE_STRUCT || t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_MAP)) {
        cs_sbuf_puts(out, t->id == CS_TYPE_STRUCT ? "STRUCT<"
                          : t->id == CS_TYPE_MAP  ? "MAP<"
                                                  : "ARRAY<");
        for (int i = 0; i < t->n_fields; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            if (t->id == CS_TYPE_STRUCT) cs_sbuf_printf(out, "%s: ", t->fields[i].name);
            type_sql(t->fields[i].type, out);
        }
        cs_sbuf_putc(out, '>');
        return;
    }
    cs_sbuf s = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &s);
    for (size_t i = 0; i < s.len; i++)
        cs_sbuf_putc(out, (char)toupper((unsigned char)s.data[i]));
    cs_sbuf_free(&s);
}

static int invalid_cast(const conv *c, const cs_variant *x, const cs_col_type *t)
{
    cs_sbuf j = CS_SBUF_INIT, ts = CS_SBUF_INIT;
    cs_variant_to_json(x, zone_offset, (void *)c->zone, &j);
    type_sql(t, &ts);
    int rc = cs_sql_error_set(c->k->err, CS_ETASK, "INVALID_VARIANT_CAST", "22023",
                              "The variant value `%s` cannot be cast into `\"%s\"`. Please use "
                              "`try_variant_get` instead.",
                              cs_sbuf_str(&j), cs_sbuf_str(&ts));
    /* Spark's message parameters: the value's JSON and the quoted target type */
    cs_sbuf q = CS_SBUF_INIT;
    cs_sbuf_printf(&q, "\"%s\"", cs_sbuf_str(&ts));
    cs_sql_error_param(c->k->err, "value", cs_sbuf_str(&j));
    cs_sql_error_param(c->k->err, "dataType", cs_sbuf_str(&q));
    cs_sbuf_free(&q);
    cs_sbuf_free(&j);
    cs_sbuf_free(&ts);
    return rc;
}

/* Rows the level cannot convert: an error, or under try a NULL (ok cleared). */
static int reject(const conv *c, vrows *r, int64_t i, const cs_col_type *t)
{
    if (!c->try) return invalid_cast(c, &r->x[i], t);
    r->ok[i] = 0;
    return CS_OK;
}

static int convert(const conv *c, vrows *r, const cs_col_type *t, cs_column **out);

static int to_string(const conv *c, vrows *r, cs_column **out)
{
    cs_col_builder *b = cs_col_builder_new(c->k->alloc, cs_col_type_primitive(CS_TYPE_STRING));
    cs_sbuf sb = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < r->n && rc == CS_OK; i++) {
        const cs_variant *x = &r->x[i];
        cs_vt vt = r->ok[i] ? cs_variant_type(x) : CS_VT_NULL;
        sb.len = 0;
        switch (vt) {
        case CS_VT_NULL:
            cs_col_builder_append_nulls(b, 1);
            continue;
        case CS_VT_BAD:
            rc = cs_px_err_malformed_variant(c->k->err);
            continue;
        case CS_VT_STRING:
        case CS_VT_BINARY: {
            size_t n;
            const uint8_t *p = cs_variant_bytes(x, &n);
            cs_col_builder_append_string(b, p, n);
            continue;
        }
        case CS_VT_DATE:
            cs_tv_format_date(cs_variant_long(x), &sb);
            break;
        case CS_VT_TIMESTAMP: {
            int64_t us = cs_variant_long(x);
            cs_tv_format_local_timestamp(cs_px_zone_utc_to_local_us(c->zone, us), &sb);
            break;
        }
        case CS_VT_TIMESTAMP_NTZ:
            cs_tv_format_local_timestamp(cs_variant_long(x), &sb);
            break;
        case CS_VT_UUID:
            cs_variant_to_json(x, NULL, NULL, &sb);
            cs_col_builder_append_string(b, sb.data + 1, sb.len - 2);
            continue;
        default:
            cs_variant_to_json(x, zone_offset, (void *)c->zone, &sb);
            break;
        }
        cs_col_builder_append_string(b, sb.data, sb.len);
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, rc, out);
}

static int to_variant(const conv *c, vrows *r, cs_column **out)
{
    cs_col_builder *b = cs_col_builder_new(c->k->alloc, cs_col_type_variant());
    cs_vb *vb = cs_vb_new();
    int rc = CS_OK;
    for (int64_t i = 0; i < r->n && rc == CS_OK; i++) {
        if (!r->ok[i]) { /* the variant null stays a variant (is_variant_null is true) */
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        cs_vb_reset(vb);
        if (cs_vb_copy(vb, &r->x[i]) != 0)
            rc = cs_px_err_malformed_variant(c->k->err);
        else
            cs_px_variant_put(b, vb);
    }
    cs_vb_free(vb);
    return cs_px_builder_result(b, rc, out);
}

/* natural-type groups: boolean, bigint, double, float, string, date, timestamp, timestamp_ntz,
 * binary, then decimal(38, s) for each scale s */
enum { G_BOOL, G_LONG, G_DOUBLE, G_FLOAT, G_STRING, G_DATE, G_TS, G_NTZ, G_BINARY, G_DEC };
#define N_GROUPS (G_DEC + 39)

static int group_of(const cs_variant *x, cs_vt vt)
{
    static const int g[] = {
        [CS_VT_BOOLEAN] = G_BOOL, [CS_VT_LONG] = G_LONG,         [CS_VT_DOUBLE] = G_DOUBLE,
        [CS_VT_FLOAT] = G_FLOAT,  [CS_VT_STRING] = G_STRING,     [CS_VT_DATE] = G_DATE,
        [CS_VT_TIMESTAMP] = G_TS, [CS_VT_TIMESTAMP_NTZ] = G_NTZ, [CS_VT_BINARY] = G_BINARY,
        [CS_VT_UUID] = G_STRING};
    if (vt == CS_VT_DECIMAL) {
        __int128 u;
        int s;
        cs_variant_decimal(x, &u, &s);
        return G_DEC + s;
    }
    return g[vt];
}

static cs_col_type *group_type(int g)
{
    static const cs_type_id ids[] = {CS_TYPE_BOOLEAN,   CS_TYPE_LONG,          CS_TYPE_DOUBLE,
                                     CS_TYPE_FLOAT,     CS_TYPE_STRING,        CS_TYPE_DATE,
                                     CS_TYPE_TIMESTAMP, CS_TYPE_TIMESTAMP_NTZ, CS_TYPE_BINARY};
    if (g >= G_DEC) return cs_col_type_decimal(38, g - G_DEC, NULL);
    return cs_col_type_primitive(ids[g]);
}

static void append_natural(cs_col_builder *b, const cs_variant *x, int g)
{
    switch (g) {
    case G_BOOL: {
        uint8_t v = cs_variant_bool(x);
        cs_col_builder_append_values(b, &v, 1, NULL);
        return;
    }
    case G_LONG:
    case G_TS:
    case G_NTZ: {
        int64_t v = cs_variant_long(x);
        cs_col_builder_append_values(b, &v, 1, NULL);
        return;
    }
    case G_DATE: {
        int32_t v = (int32_t)cs_variant_long(x);
        cs_col_builder_append_values(b, &v, 1, NULL);
        return;
    }
    case G_DOUBLE: {
        double v = cs_variant_double(x);
        cs_col_builder_append_values(b, &v, 1, NULL);
        return;
    }
    case G_FLOAT: {
        float v = (float)cs_variant_double(x);
        cs_col_builder_append_values(b, &v, 1, NULL);
        return;
    }
    case G_STRING:
    case G_BINARY: {
        if (cs_variant_type(x) == CS_VT_UUID) {
            cs_sbuf sb = CS_SBUF_INIT;
            cs_variant_to_json(x, NULL, NULL, &sb);
            cs_col_builder_append_string(b, sb.data + 1, sb.len - 2);
            cs_sbuf_free(&sb);
            return;
        }
        size_t n;
        const uint8_t *p = cs_variant_bytes(x, &n);
        cs_col_builder_append_string(b, p, n);
        return;
    }
    default: {
        __int128 u;
        int s;
        cs_variant_decimal(x, &u, &s);
        cs_col_builder_append_values(b, &u, 1, NULL);
        return;
    }
    }
}

/* One natural type's rows cast to t in try mode (or taken as they are when the types agree). */
static int cast_group(const conv *c, cs_column *col, const cs_col_type *t, cs_column **out)
{
    if (cs_col_type_equal(col->type, t)) {
        *out = cs_column_ref(col);
        return CS_OK;
    }
    cs_px_kernel kern = cs_px_cast_lookup(col->type, t);
    if (!kern) {
        *out = NULL;
        return CS_OK;
    }
    cs_pexpr node = *c->k->e;
    node.type = (cs_col_type *)t;
    node.cast_mode = CS_CAST_TRY;
    node.n_args = 1;
    node.args = NULL;
    cs_px_kctx ck = *c->k;
    ck.e = &node;
    ck.n = col->length;
    return kern(&ck, &col, 1, out);
}

static int to_atomic(const conv *c, vrows *r, const cs_col_type *t, cs_column **out)
{
    int64_t n = r->n;
    int32_t *bidx = cs_xcalloc((size_t)(n ? n : 1), sizeof *bidx);
    int32_t *ridx = cs_xmalloc((size_t)(n ? n : 1) * sizeof *ridx);
    cs_col_builder *bs[N_GROUPS] = {0};
    cs_column *cast[N_GROUPS] = {0};
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        cs_vt vt = r->ok[i] ? cs_variant_type(&r->x[i]) : CS_VT_NULL;
        ridx[i] = -1;
        if (vt == CS_VT_NULL) continue;
        if (vt == CS_VT_BAD) {
            rc = cs_px_err_malformed_variant(c->k->err);
            break;
        }
        if (vt == CS_VT_OBJECT || vt == CS_VT_ARRAY) {
            rc = reject(c, r, i, t);
            continue;
        }
        int g = group_of(&r->x[i], vt);
        if (!bs[g]) {
            cs_col_type *gt = group_type(g);
            bs[g] = cs_col_builder_new(c->k->alloc, gt);
            cs_col_type_unref(gt);
        }
        cs_col_builder *b = bs[g];
        if (b->length < i) cs_col_builder_append_nulls(b, i - b->length);
        append_natural(b, &r->x[i], g);
        bidx[i] = g;
        ridx[i] = (int32_t)i;
    }
    for (int g = 0; g < N_GROUPS; g++) {
        if (!bs[g]) continue;
        if (bs[g]->length < n) cs_col_builder_append_nulls(bs[g], n - bs[g]->length);
        cs_column *col = cs_col_builder_finish(bs[g]);
        cs_col_builder_free(bs[g]);
        if (rc == CS_OK) rc = cast_group(c, col, t, &cast[g]);
        cs_column_unref(col);
    }
    /* rows whose natural value did not cast: invalid casts */
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (ridx[i] < 0) continue;
        const cs_column *res = cast[bidx[i]];
        if (res && cs_column_is_valid(res, i)) continue;
        if ((rc = reject(c, r, i, t)) == CS_OK) ridx[i] = -1;
    }
    if (rc == CS_OK) {
        cs_column *empty = NULL;
        for (int g = 0; g < N_GROUPS; g++)
            if (!cast[g]) {
                if (!empty) empty = cs_px_all_null(c->k->alloc, t, n);
                cast[g] = cs_column_ref(empty);
            }
        *out = cs_sql_gather((cs_col_type *)t, cast, bidx, ridx, n, c->k->alloc);
        cs_column_unref(empty);
    }
    for (int g = 0; g < N_GROUPS; g++)
        cs_column_unref(cast[g]);
    free(bidx);
    free(ridx);
    return rc;
}

static vrows rows_new(int64_t n)
{
    vrows r = {n, cs_xcalloc((size_t)(n ? n : 1), sizeof(cs_variant)),
               cs_xcalloc((size_t)(n ? n : 1), 1)};
    return r;
}

static void rows_free(vrows *r)
{
    free(r->x);
    free(r->ok);
}

/* struct, array and map targets: this level's validity and shape, then the children's values
 * as the next level's rows. */
static int to_nested(const conv *c, vrows *r, const cs_col_type *t, cs_column **out)
{
    cs_vt want = t->id == CS_TYPE_ARRAY ? CS_VT_ARRAY : CS_VT_OBJECT;
    int64_t n = r->n, total = 0;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        cs_vt vt = r->ok[i] ? cs_variant_type(&r->x[i]) : CS_VT_NULL;
        if (vt == CS_VT_NULL) {
            r->ok[i] = 0;
        } else if (vt != want) {
            rc = reject(c, r, i, t);
        } else if (t->id != CS_TYPE_STRUCT) {
            total += (int64_t)cs_variant_size(&r->x[i]);
        }
    }
    if (rc) return rc;
    cs_column *res = cs_column_new_raw(c->k->alloc, cs_col_type_ref((cs_col_type *)t), n);
    cs_px_ensure_validity(res);
    for (int64_t i = 0; i < n; i++)
        if (!r->ok[i]) cs_px_set_null(res, i);
    int nc = t->id == CS_TYPE_STRUCT ? t->n_fields : t->id == CS_TYPE_MAP ? 2 : 1;
    res->n_children = nc;
    res->children = cs_xcalloc((size_t)nc, sizeof *res->children);
    if (t->id == CS_TYPE_STRUCT) {
        vrows f = rows_new(n);
        for (int fi = 0; fi < nc && rc == CS_OK; fi++) {
            const char *name = t->fields[fi].name;
            for (int64_t i = 0; i < n; i++)
                f.ok[i] = r->ok[i] && cs_variant_field(&r->x[i], name, strlen(name), &f.x[i]);
            rc = convert(c, &f, t->fields[fi].type, &res->children[fi]);
        }
        rows_free(&f);
    } else {
        res->values_size = (size_t)(n + 1) * 4;
        res->values = cs_col_buffer_alloc(res->alloc, res->values_size);
        int32_t *off = (int32_t *)(void *)res->values;
        vrows e = rows_new(total);
        cs_col_builder *keys =
            cs_col_builder_new(c->k->alloc, cs_col_type_primitive(CS_TYPE_STRING));
        int64_t at = 0;
        off[0] = 0;
        for (int64_t i = 0; i < n; i++) {
            size_t m = r->ok[i] ? cs_variant_size(&r->x[i]) : 0;
            for (size_t j = 0; j < m; j++, at++) {
                if (t->id == CS_TYPE_ARRAY) {
                    e.ok[at] = cs_variant_element(&r->x[i], j, &e.x[at]);
                } else {
                    const uint8_t *kp = NULL;
                    size_t kl = 0;
                    e.ok[at] = cs_variant_field_at(&r->x[i], j, &kp, &kl, &e.x[at]);
                    cs_col_builder_append_string(keys, kp ? kp : (const uint8_t *)"", kl);
                }
            }
            off[i + 1] = (int32_t)at;
        }
        if (t->id == CS_TYPE_MAP) {
            res->children[0] = cs_col_builder_finish(keys);
            rc = convert(c, &e, t->fields[1].type, &res->children[1]);
        } else {
            rc = convert(c, &e, t->fields[0].type, &res->children[0]);
        }
        cs_col_builder_free(keys);
        rows_free(&e);
    }
    res->null_count = 0;
    for (int64_t i = 0; i < n; i++)
        res->null_count += !r->ok[i];
    if (rc) {
        cs_column_unref(res);
        return rc;
    }
    *out = res;
    return CS_OK;
}

static int convert(const conv *c, vrows *r, const cs_col_type *t, cs_column **out)
{
    if (cs_col_type_is_variant(t)) return to_variant(c, r, out);
    if (t->id == CS_TYPE_STRING) return to_string(c, r, out);
    if (t->id == CS_TYPE_STRUCT || t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_MAP)
        return to_nested(c, r, t, out);
    return to_atomic(c, r, t, out);
}

/* The value at path steps[0..n) below v; false when a step is missing. */
static bool follow(cs_variant *v, const cs_variant_step *steps, int n)
{
    for (int s = 0; s < n; s++) {
        cs_variant next;
        bool ok = steps[s].key ? cs_variant_field(v, steps[s].key, steps[s].key_len, &next)
                               : cs_variant_element(v, (size_t)steps[s].index, &next);
        if (!ok) return false;
        *v = next;
    }
    return true;
}

static int variant_get_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    bool cast = k->e->kind == CS_PX_CAST;
    conv c = {k, cs_px_session_zone(k),
              cast ? k->e->cast_mode == CS_CAST_TRY : strncmp(k->e->fn, "try_", 4) == 0};
    if (!c.zone) return CS_EINVAL;
    int64_t n = k->n, sv = cs_px_stride(a[0], n), sp = na > 1 ? cs_px_stride(a[1], n) : 0;
    vrows r = rows_new(n);
    cs_variant_step *steps = NULL;
    int n_steps = 0, rc = CS_OK;
    const uint8_t *last = NULL;
    int32_t last_len = -1;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(a[0], i * sv) || (na > 1 && !cs_column_is_valid(a[1], i * sp)))
            continue;
        if (na > 1) {
            int32_t pl;
            const uint8_t *p = cs_px_bytes(a[1], i, sp, &pl);
            if (!last || pl != last_len || memcmp(p, last, (size_t)pl) != 0) {
                free(steps);
                steps = cs_xmalloc(((size_t)pl + 1) * sizeof *steps);
                n_steps = cs_variant_path_parse((const char *)p, (size_t)pl, steps);
                last = p;
                last_len = pl;
                if (n_steps < 0) {
                    rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_VARIANT_GET_PATH", "22023",
                                          "The path `%.*s` is not a valid variant extraction "
                                          "path in ``%s``.",
                                          (int)pl, (const char *)p, k->e->fn);
                    break;
                }
            }
        }
        if (!cs_px_variant_at(a[0], i * sv, &r.x[i])) {
            rc = cs_px_err_malformed_variant(k->err);
            break;
        }
        r.ok[i] = (uint8_t)follow(&r.x[i], steps, n_steps);
    }
    free(steps);
    if (rc == CS_OK) rc = convert(&c, &r, k->e->type, out);
    rows_free(&r);
    return rc;
}

cs_px_kernel cs_px_variant_get_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result)
{
    (void)result;
    if ((strcmp(fn, "variant_get") == 0 || strcmp(fn, "try_variant_get") == 0) && n == 2 &&
        cs_col_type_is_variant(t[0]) && t[1]->id == CS_TYPE_STRING)
        return variant_get_kernel;
    return NULL;
}

cs_px_kernel cs_px_cast_from_variant_lookup(const cs_col_type *from, const cs_col_type *to)
{
    return cs_col_type_is_variant(from) && !cs_col_type_is_variant(to) ? variant_get_kernel : NULL;
}
