/*
 * kernels_cast_complex.c — the casts kernels_cast.c does not cover: array to array (each element
 * cast by the element types' own cast kernel, over the whole element child at once), map to map
 * (keys and values), struct to struct (field by field), string to binary (the UTF-8 bytes),
 * arrays, maps and structs to string ([1, null], {k -> v}, {1, x}: one cast per child column),
 * ANSI intervals to string (Spark's INTERVAL '1-2' YEAR TO MONTH / INTERVAL '1 02:03:04.5' DAY
 * TO SECOND forms) and day-time intervals between their field ranges (truncated to the new end
 * field); void (a NULL) to any type. Element errors are the element cast's (ANSI, TRY, LEGACY as
 * the node says). Called through cs_px_cast_lookup (kernels_cast.c), which asks
 * cs_px_cast_complex_lookup first.
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

/* a[0] with k->n rows (a one-row literal repeated), one new reference */
static cs_column *full_rows(const cs_px_kctx *k, cs_column *c)
{
    if (c->length == k->n) return cs_column_ref(c);
    int32_t *zeros = cs_xcalloc((size_t)(k->n ? k->n : 1), sizeof *zeros);
    cs_column *r = cs_px_take(c, zeros, k->n, k->alloc);
    free(zeros);
    return r;
}

/* child cast to `to` with the node's cast mode: one kernel call over the whole child */
static int cast_child(const cs_px_kctx *k, cs_column *child, const cs_col_type *to, cs_column **out)
{
    if (cs_px_type_same(child->type, to)) {
        *out = cs_column_ref(child);
        return CS_OK;
    }
    cs_px_kernel kern = cs_px_cast_lookup(child->type, to);
    if (!kern) return cs_error_set(k->err, CS_EUNSUPPORTED, "no cast kernel for an element");
    cs_pexpr node = *k->e;
    node.type = (cs_col_type *)to;
    node.n_args = 1;
    node.args = NULL;
    cs_px_kctx ck = *k;
    ck.e = &node;
    ck.n = child->length;
    return kern(&ck, &child, 1, out);
}

/* array, map, struct: the children cast, the offsets and validity copied */
static int nested_kernel(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_col_type *to = k->e->type;
    cs_column *a = full_rows(k, args[0]);
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref((cs_col_type *)to), k->n);
    if (a->validity && a->null_count) {
        cs_px_ensure_validity(r);
        memcpy(r->validity, a->validity, r->validity_size);
        r->null_count = a->null_count;
    }
    if (to->id != CS_TYPE_STRUCT) {
        r->values_size = (size_t)(k->n + 1) * 4;
        r->values = cs_col_buffer_alloc(r->alloc, r->values_size);
        memcpy(r->values, a->values, r->values_size);
    }
    int nc = to->id == CS_TYPE_STRUCT ? to->n_fields : to->id == CS_TYPE_MAP ? 2 : 1;
    r->n_children = nc;
    r->children = cs_xcalloc((size_t)nc, sizeof *r->children);
    int rc = CS_OK;
    for (int c = 0; c < nc && rc == CS_OK; c++)
        rc = cast_child(k, a->children[c], to->fields[c].type, &r->children[c]);
    cs_column_unref(a);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

static int string_to_binary(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    int64_t n = k->n, s = cs_px_stride(a, n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a, i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t len;
        const uint8_t *p = cs_column_bytes(a, i * s, &len);
        cs_col_builder_append_string(b, p, (size_t)len);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* IntervalUtils.toYearMonthIntervalString */
static int ym_text(int32_t mo, const cs_col_type *t, char *buf, size_t n)
{
    const char *sign = mo < 0 ? "-" : "";
    int64_t m = mo < 0 ? -(int64_t)mo : mo;
    if (t->precision == CS_INTERVAL_YEAR && t->scale == CS_INTERVAL_YEAR)
        return snprintf(buf, n, "INTERVAL '%s%" PRId64 "' YEAR", sign, m / 12);
    if (t->precision == CS_INTERVAL_MONTH)
        return snprintf(buf, n, "INTERVAL '%s%" PRId64 "' MONTH", sign, m);
    return snprintf(buf, n, "INTERVAL '%s%" PRId64 "-%" PRId64 "' YEAR TO MONTH", sign, m / 12,
                    m % 12);
}

static const int64_t DT_UNIT[] = {86400000000LL, 3600000000LL, 60000000LL, 1000000LL};

/* IntervalUtils.toDayTimeIntervalString: days unbounded, the other fields at least two digits */
static int dt_text(int64_t us, const cs_col_type *t, char *buf, size_t n)
{
    static const char *const names[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
    int from = t->precision, to = t->scale;
    if (from < 0 || from > 3 || to < from || to > 3) from = 0, to = 3;
    uint64_t rest = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    int len = snprintf(buf, n, "INTERVAL '%s", us < 0 ? "-" : "");
    for (int f = from; f <= to; f++) {
        if (f > from) len += snprintf(buf + len, n - (size_t)len, "%c", f == 1 ? ' ' : ':');
        if (f == 3) {
            uint64_t frac = rest % 1000000;
            len += snprintf(buf + len, n - (size_t)len, "%02" PRIu64, rest / 1000000);
            if (frac) {
                char fb[8];
                snprintf(fb, sizeof fb, "%06" PRIu64, frac);
                for (int i = 5; i > 0 && fb[i] == '0'; i--)
                    fb[i] = '\0';
                len += snprintf(buf + len, n - (size_t)len, ".%s", fb);
            }
        } else {
            len += snprintf(buf + len, n - (size_t)len, f == 0 ? "%" PRIu64 : "%02" PRIu64,
                            rest / (uint64_t)DT_UNIT[f]);
            rest %= (uint64_t)DT_UNIT[f];
        }
    }
    if (from == to) return len + snprintf(buf + len, n - (size_t)len, "' %s", names[from]);
    return len + snprintf(buf + len, n - (size_t)len, "' %s TO %s", names[from], names[to]);
}

static int interval_to_string(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    int64_t n = k->n, s = cs_px_stride(a, n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    char buf[128];
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a, i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int len = a->type->id == CS_TYPE_INTERVAL_YM
                      ? ym_text(((const int32_t *)(const void *)a->values)[i * s], a->type, buf,
                                sizeof buf)
                      : dt_text(((const int64_t *)(const void *)a->values)[i * s], a->type, buf,
                                sizeof buf);
        cs_col_builder_append_string(b, buf, (size_t)len);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* day-time to day-time, year-month to year-month: the value kept to the new end field */
static int interval_to_interval(const cs_px_kctx *k, cs_column *const *args, int na,
                                cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    const cs_col_type *to = k->e->type;
    int64_t n = k->n, s = cs_px_stride(a, n);
    cs_column *r = cs_px_new_fixed(k->alloc, to, n);
    cs_px_and_validity(r, args, 1, n);
    for (int64_t i = 0; i < n; i++) {
        if (to->id == CS_TYPE_INTERVAL_YM) {
            int32_t v = ((const int32_t *)(const void *)a->values)[i * s];
            if (to->scale == CS_INTERVAL_YEAR) v = v / 12 * 12;
            ((int32_t *)(void *)r->values)[i] = v;
        } else {
            int64_t v = ((const int64_t *)(const void *)a->values)[i * s];
            int64_t unit = to->scale >= 0 && to->scale < 3 ? DT_UNIT[to->scale] : 1;
            ((int64_t *)(void *)r->values)[i] = v / unit * unit;
        }
    }
    *out = r;
    return CS_OK;
}

/* the text of every row of c (a child: its own length), by the cast to string of its type */
static int child_text(const cs_px_kctx *k, cs_column *c, cs_column **out)
{
    const cs_col_type *st = cs_col_type_primitive(CS_TYPE_STRING);
    if (c->type->id == CS_TYPE_STRING) {
        *out = cs_column_ref(c);
        return CS_OK;
    }
    /* a variant inside prints as its JSON text (Spark's VariantVal.toString) */
    cs_px_kernel kern =
        cs_col_type_is_variant(c->type) ? cs_px_variant_to_json : cs_px_cast_lookup(c->type, st);
    if (!kern) return cs_error_set(k->err, CS_EUNSUPPORTED, "no cast of an element to string");
    cs_pexpr node = *k->e;
    node.type = (cs_col_type *)st;
    cs_px_kctx ck = *k;
    ck.e = &node;
    ck.n = c->length;
    return kern(&ck, &c, 1, out);
}

static void put_text(cs_sbuf *sb, const cs_column *t, int64_t i)
{
    if (!cs_column_is_valid(t, i)) {
        cs_sbuf_puts(sb, "null");
        return;
    }
    int32_t len;
    const uint8_t *p = cs_column_bytes(t, i, &len);
    cs_sbuf_append(sb, p, (size_t)len);
}

/* CAST(array | map | struct AS STRING): [1, null], {k -> v}, {1, x} as Spark's Cast prints
 * them; the children's texts come from one cast per child column */
static int nested_to_string(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    cs_column *a = full_rows(k, args[0]);
    cs_type_id id = a->type->id;
    int nc = id == CS_TYPE_STRUCT ? a->n_children : id == CS_TYPE_MAP ? 2 : 1;
    cs_column *texts[nc > 0 ? nc : 1];
    for (int c = 0; c < nc; c++)
        texts[c] = NULL;
    int rc = CS_OK;
    for (int c = 0; c < nc && rc == CS_OK; c++)
        rc = child_text(k, a->children[c], &texts[c]);
    cs_col_builder *b = rc == CS_OK ? cs_col_builder_new(k->alloc, k->e->type) : NULL;
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; b && i < k->n; i++) {
        if (!cs_column_is_valid(a, i)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        sb.len = 0;
        if (id == CS_TYPE_STRUCT) {
            cs_sbuf_putc(&sb, '{');
            for (int f = 0; f < nc; f++) {
                if (f) cs_sbuf_puts(&sb, ", ");
                put_text(&sb, texts[f], i);
            }
            cs_sbuf_putc(&sb, '}');
        } else {
            const int32_t *off = cs_column_offsets(a);
            cs_sbuf_putc(&sb, id == CS_TYPE_MAP ? '{' : '[');
            for (int32_t e = off[i]; e < off[i + 1]; e++) {
                if (e > off[i]) cs_sbuf_puts(&sb, ", ");
                put_text(&sb, texts[0], e);
                if (id == CS_TYPE_MAP) {
                    cs_sbuf_puts(&sb, " -> ");
                    put_text(&sb, texts[1], e);
                }
            }
            cs_sbuf_putc(&sb, id == CS_TYPE_MAP ? '}' : ']');
        }
        cs_col_builder_append_string(b, sb.data, sb.len);
    }
    cs_sbuf_free(&sb);
    for (int c = 0; c < nc; c++)
        if (texts[c]) cs_column_unref(texts[c]);
    cs_column_unref(a);
    if (rc) return rc;
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* void to anything: nulls */
static int null_cast(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)args;
    (void)na;
    *out = cs_px_all_null(k->alloc, k->e->type, k->n);
    return CS_OK;
}

cs_px_kernel cs_px_cast_complex_lookup(const cs_col_type *from, const cs_col_type *to)
{
    if (from->id == CS_TYPE_NULL) return null_cast;
    if (cs_col_type_is_variant(from) || cs_col_type_is_variant(to))
        return cs_px_cast_variant_lookup(from, to);
    if ((from->id == CS_TYPE_ARRAY || from->id == CS_TYPE_MAP || from->id == CS_TYPE_STRUCT) &&
        to->id == CS_TYPE_STRING) {
        for (int c = 0; c < from->n_fields; c++)
            if (from->fields[c].type->id != CS_TYPE_STRING &&
                !cs_px_cast_lookup(from->fields[c].type, to))
                return NULL;
        return nested_to_string;
    }
    if (from->id == CS_TYPE_ARRAY && to->id == CS_TYPE_ARRAY)
        return cs_px_cast_lookup(from->fields[0].type, to->fields[0].type) ||
                       cs_px_type_same(from->fields[0].type, to->fields[0].type)
                   ? nested_kernel
                   : NULL;
    if (from->id == CS_TYPE_MAP && to->id == CS_TYPE_MAP) {
        for (int c = 0; c < 2; c++)
            if (!cs_px_type_same(from->fields[c].type, to->fields[c].type) &&
                !cs_px_cast_lookup(from->fields[c].type, to->fields[c].type))
                return NULL;
        return nested_kernel;
    }
    if (from->id == CS_TYPE_STRUCT && to->id == CS_TYPE_STRUCT) {
        if (from->n_fields != to->n_fields) return NULL;
        for (int c = 0; c < from->n_fields; c++)
            if (!cs_px_type_same(from->fields[c].type, to->fields[c].type) &&
                !cs_px_cast_lookup(from->fields[c].type, to->fields[c].type))
                return NULL;
        return nested_kernel;
    }
    if (from->id == CS_TYPE_STRING && to->id == CS_TYPE_BINARY) return string_to_binary;
    cs_px_kernel to_interval = cs_px_cast_interval_lookup(from, to);
    if (to_interval) return to_interval;
    if ((from->id == CS_TYPE_INTERVAL_YM || from->id == CS_TYPE_INTERVAL_DT) &&
        to->id == CS_TYPE_STRING)
        return interval_to_string;
    if ((from->id == CS_TYPE_INTERVAL_YM || from->id == CS_TYPE_INTERVAL_DT) && from->id == to->id)
        return interval_to_interval;
    return NULL;
}
