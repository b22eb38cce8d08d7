/*
 * type_coercion.c — Spark 4's ANSI type rules: widening, decimal precision and scale, implicit
 * and explicit cast validity, and Spark's SQL names of types (see type_coercion.h). Called by
 * the function registry and the analyzer.
 */
#include "sql/type_coercion.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "common/err.h"

bool cs_tc_is_integral(const cs_col_type *t)
{
    return t && (t->id == CS_TYPE_BYTE || t->id == CS_TYPE_SHORT || t->id == CS_TYPE_INT ||
                 t->id == CS_TYPE_LONG);
}

bool cs_tc_is_numeric(const cs_col_type *t)
{
    return cs_tc_is_integral(t) ||
           (t && (t->id == CS_TYPE_FLOAT || t->id == CS_TYPE_DOUBLE || t->id == CS_TYPE_DECIMAL));
}

bool cs_tc_is_atomic(const cs_col_type *t)
{
    return t && t->id != CS_TYPE_ARRAY && t->id != CS_TYPE_MAP && t->id != CS_TYPE_STRUCT;
}

bool cs_tc_is_string(const cs_col_type *t)
{
    return t && t->id == CS_TYPE_STRING;
}

bool cs_tc_is_datetime(const cs_col_type *t)
{
    return t &&
           (t->id == CS_TYPE_DATE || t->id == CS_TYPE_TIMESTAMP || t->id == CS_TYPE_TIMESTAMP_NTZ);
}

bool cs_tc_is_interval(const cs_col_type *t)
{
    return t && (t->id == CS_TYPE_INTERVAL_YM || t->id == CS_TYPE_INTERVAL_DT);
}

static const char *interval_field(cs_type_id id, int f)
{
    static const char *const ym[] = {"YEAR", "MONTH"};
    static const char *const dt[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
    if (id == CS_TYPE_INTERVAL_YM) return f >= 0 && f < 2 ? ym[f] : "?";
    return f >= 0 && f < 4 ? dt[f] : "?";
}

void cs_tc_type_sql(const cs_col_type *t, cs_sbuf *out)
{
    if (!t) {
        cs_sbuf_puts(out, "?");
        return;
    }
    switch (t->id) {
    case CS_TYPE_NULL:
        cs_sbuf_puts(out, "VOID");
        return;
    case CS_TYPE_DECIMAL:
        cs_sbuf_printf(out, "DECIMAL(%d,%d)", t->precision, t->scale);
        return;
    case CS_TYPE_STRING:
        cs_sbuf_puts(out, "STRING");
        if (t->collation) cs_sbuf_printf(out, " COLLATE %s", cs_collation_name(t->collation));
        return;
    case CS_TYPE_ARRAY:
        cs_sbuf_puts(out, "ARRAY<");
        cs_tc_type_sql(t->fields[0].type, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_TYPE_MAP:
        cs_sbuf_puts(out, "MAP<");
        cs_tc_type_sql(t->fields[0].type, out);
        cs_sbuf_puts(out, ", ");
        cs_tc_type_sql(t->fields[1].type, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_TYPE_STRUCT:
        if (t->variant) {
            cs_sbuf_puts(out, "VARIANT");
            return;
        }
        cs_sbuf_puts(out, "STRUCT<");
        for (int i = 0; i < t->n_fields; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            cs_sbuf_printf(out, "%s: ", t->fields[i].name);
            cs_tc_type_sql(t->fields[i].type, out);
        }
        cs_sbuf_putc(out, '>');
        return;
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_INTERVAL_DT:
        cs_sbuf_printf(out, "INTERVAL %s", interval_field(t->id, t->precision));
        if (t->scale != t->precision)
            cs_sbuf_printf(out, " TO %s", interval_field(t->id, t->scale));
        return;
    default:
        break;
    }
    const char *n = cs_type_id_name(t->id);
    for (; *n; n++)
        cs_sbuf_putc(out, (char)(*n >= 'a' && *n <= 'z' ? *n - 32 : *n));
}

cs_col_type *cs_tc_decimal(cs_sql_arena *a, int precision, int scale)
{
    cs_col_type *t = cs_col_type_decimal(precision, scale, NULL);
    return t ? cs_sql_arena_keep_type(a, t) : NULL;
}

cs_col_type *cs_tc_decimal_adjusted(cs_sql_arena *a, int precision, int scale)
{
    if (precision <= CS_DECIMAL_MAX_PRECISION) return cs_tc_decimal(a, precision, scale);
    int int_digits = precision - scale;
    int min_scale = scale < 6 ? scale : 6;
    int adjusted = CS_DECIMAL_MAX_PRECISION - int_digits;
    if (adjusted < min_scale) adjusted = min_scale;
    return cs_tc_decimal(a, CS_DECIMAL_MAX_PRECISION, adjusted);
}

/* DecimalType.bounded */
static cs_col_type *decimal_bounded(cs_sql_arena *a, int precision, int scale)
{
    if (precision > CS_DECIMAL_MAX_PRECISION) precision = CS_DECIMAL_MAX_PRECISION;
    if (scale > CS_DECIMAL_MAX_PRECISION) scale = CS_DECIMAL_MAX_PRECISION;
    return cs_tc_decimal(a, precision, scale);
}

int cs_tc_integral_digits(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BYTE:
        return 3;
    case CS_TYPE_SHORT:
        return 5;
    case CS_TYPE_INT:
        return 10;
    case CS_TYPE_LONG:
        return 20;
    default:
        return 0;
    }
}

static int64_t literal_integral(const cs_column *c)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)c->values)[0];
    case CS_TYPE_SHORT:
        return ((const int16_t *)c->values)[0];
    case CS_TYPE_INT:
        return ((const int32_t *)c->values)[0];
    default:
        return ((const int64_t *)c->values)[0];
    }
}

cs_col_type *cs_tc_decimal_of(cs_sql_arena *a, const cs_sql_expr *e)
{
    const cs_col_type *t = e->type;
    if (t && t->id == CS_TYPE_DECIMAL) return (cs_col_type *)t;
    if (!cs_tc_is_integral(t)) return NULL;
    if (e->kind == CS_EX_LITERAL && e->literal && e->literal->null_count == 0) {
        /* DecimalType.fromLiteral: the digits of the value itself */
        int64_t v = literal_integral(e->literal);
        uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        int digits = 1;
        while (m >= 10) {
            m /= 10;
            digits++;
        }
        return cs_tc_decimal(a, digits, 0);
    }
    return cs_tc_decimal(a, cs_tc_integral_digits(t->id), 0);
}

cs_col_type *cs_tc_decimal_result(cs_sql_arena *a, char op, const cs_col_type *l,
                                  const cs_col_type *r)
{
    int p1 = l->precision, s1 = l->scale, p2 = r->precision, s2 = r->scale;
    int max_s = s1 > s2 ? s1 : s2;
    switch (op) {
    case '+':
    case '-': {
        int range = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
        return cs_tc_decimal_adjusted(a, range + max_s + 1, max_s);
    }
    case '*':
        return cs_tc_decimal_adjusted(a, p1 + p2 + 1, s1 + s2);
    case '/': {
        int scale = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
        return cs_tc_decimal_adjusted(a, p1 - s1 + s2 + scale, scale);
    }
    default: { /* '%' */
        int range = p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2;
        return cs_tc_decimal_adjusted(a, range + max_s, max_s);
    }
    }
}

static int numeric_rank(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BYTE:
        return 1;
    case CS_TYPE_SHORT:
        return 2;
    case CS_TYPE_INT:
        return 3;
    case CS_TYPE_LONG:
        return 4;
    case CS_TYPE_FLOAT:
        return 5;
    case CS_TYPE_DOUBLE:
        return 6;
    default:
        return 0;
    }
}

/* DecimalPrecision.widerDecimalType */
static cs_col_type *wider_decimal(cs_sql_arena *a, int p1, int s1, int p2, int s2)
{
    int scale = s1 > s2 ? s1 : s2;
    int range = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
    return decimal_bounded(a, range + scale, scale);
}

/* AnsiTypeCoercion.findTightestCommonType */
static cs_col_type *tightest(cs_sql_arena *a, cs_col_type *x, cs_col_type *y)
{
    if (cs_col_type_equal(x, y)) return x;
    /* strings of two collations: the collated one wins over UTF8_BINARY (the analyzer refuses
     * two different collations first: COLLATION_MISMATCH) */
    if (x->id == CS_TYPE_STRING && y->id == CS_TYPE_STRING) return x->collation ? x : y;
    if (x->id == CS_TYPE_NULL) return y;
    if (y->id == CS_TYPE_NULL) return x;
    if (cs_tc_is_integral(x) && y->id == CS_TYPE_DECIMAL &&
        y->precision - y->scale >= cs_tc_integral_digits(x->id))
        return y;
    if (cs_tc_is_integral(y) && x->id == CS_TYPE_DECIMAL &&
        x->precision - x->scale >= cs_tc_integral_digits(y->id))
        return x;
    int rx = numeric_rank(x->id), ry = numeric_rank(y->id);
    if (rx && ry) {
        int r = rx > ry ? rx : ry;
        cs_type_id id = r == rx ? x->id : y->id;
        /* an integral type with float widens to double (no precision loss) */
        if (id == CS_TYPE_FLOAT) id = CS_TYPE_DOUBLE;
        return cs_col_type_primitive(id);
    }
    if (cs_tc_is_datetime(x) && cs_tc_is_datetime(y)) {
        if (x->id == CS_TYPE_TIMESTAMP || y->id == CS_TYPE_TIMESTAMP)
            return cs_col_type_primitive(CS_TYPE_TIMESTAMP);
        return cs_col_type_primitive(CS_TYPE_TIMESTAMP_NTZ);
    }
    if (x->id == y->id && cs_tc_is_interval(x)) {
        int start = x->precision < y->precision ? x->precision : y->precision;
        int end = x->scale > y->scale ? x->scale : y->scale;
        return cs_sql_arena_keep_type(a, cs_col_type_interval(x->id, start, end, NULL));
    }
    return NULL;
}

static cs_col_type *wider_complex(cs_sql_arena *a, cs_col_type *x, cs_col_type *y)
{
    if (x->id != y->id) return NULL;
    if (x->id == CS_TYPE_ARRAY) {
        cs_col_type *e = cs_tc_wider(a, x->fields[0].type, y->fields[0].type);
        if (!e) return NULL;
        return cs_sql_arena_keep_type(
            a,
            cs_col_type_array(cs_col_type_ref(e), x->fields[0].nullable || y->fields[0].nullable));
    }
    if (x->id == CS_TYPE_MAP) { /* keys and values widened apart, as Spark's MapType */
        cs_col_type *k = cs_tc_wider(a, x->fields[0].type, y->fields[0].type);
        cs_col_type *v = cs_tc_wider(a, x->fields[1].type, y->fields[1].type);
        if (!k || !v) return NULL;
        return cs_sql_arena_keep_type(
            a, cs_col_type_map(cs_col_type_ref(k), cs_col_type_ref(v),
                               x->fields[1].nullable || y->fields[1].nullable));
    }
    if (x->id == CS_TYPE_STRUCT && !x->variant && !y->variant && x->n_fields == y->n_fields) {
        /* findTypeForComplex: field by field, names equal under the (case-insensitive) resolver;
         * two spellings of one name give the first's in lower case */
        int n = x->n_fields, k = 0;
        cs_col_field *f = cs_xcalloc((size_t)(n ? n : 1), sizeof *f);
        for (; k < n; k++) {
            const cs_col_field *fx = &x->fields[k], *fy = &y->fields[k];
            cs_col_type *t =
                strcasecmp(fx->name, fy->name) == 0 ? cs_tc_wider(a, fx->type, fy->type) : NULL;
            if (!t) break;
            f[k].name = cs_xstrdup(fx->name);
            if (strcmp(fx->name, fy->name) != 0)
                for (char *c = f[k].name; *c; c++)
                    *c = (char)tolower((unsigned char)*c);
            f[k].type = cs_col_type_ref(t);
            f[k].nullable = fx->nullable || fy->nullable;
        }
        cs_col_type *st = NULL;
        if (k == n) {
            st = cs_sql_arena_keep_type(a, cs_col_type_struct(f, n)); /* takes the types */
        } else {
            for (int i = 0; i < k; i++)
                cs_col_type_unref(f[i].type);
        }
        for (int i = 0; i < k; i++)
            free(f[i].name);
        free(f);
        return st;
    }
    return NULL;
}

cs_col_type *cs_tc_wider(cs_sql_arena *a, cs_col_type *x, cs_col_type *y)
{
    cs_col_type *t = tightest(a, x, y);
    if (t) return t;
    /* findWiderTypeForDecimal */
    if (x->id == CS_TYPE_DECIMAL || y->id == CS_TYPE_DECIMAL) {
        cs_col_type *d = x->id == CS_TYPE_DECIMAL ? x : y, *o = d == x ? y : x;
        if (o->id == CS_TYPE_DECIMAL)
            return wider_decimal(a, x->precision, x->scale, y->precision, y->scale);
        if (cs_tc_is_integral(o))
            return wider_decimal(a, d->precision, d->scale, cs_tc_integral_digits(o->id), 0);
        if (o->id == CS_TYPE_FLOAT || o->id == CS_TYPE_DOUBLE)
            return cs_col_type_primitive(CS_TYPE_DOUBLE);
    }
    /* findWiderTypeForString (ANSI): a string meets an atomic type */
    if (cs_tc_is_string(x) || cs_tc_is_string(y)) {
        cs_col_type *o = cs_tc_is_string(x) ? y : x;
        if (cs_tc_is_integral(o)) return cs_col_type_primitive(CS_TYPE_LONG);
        if (o->id == CS_TYPE_FLOAT || o->id == CS_TYPE_DOUBLE || o->id == CS_TYPE_DECIMAL)
            return cs_col_type_primitive(CS_TYPE_DOUBLE);
        if (cs_tc_is_atomic(o) && o->id != CS_TYPE_BINARY && o->id != CS_TYPE_BOOLEAN &&
            !cs_tc_is_interval(o))
            return o;
        if (o->id == CS_TYPE_BOOLEAN) return o;
        return NULL;
    }
    return wider_complex(a, x, y);
}

bool cs_tc_can_implicit_cast(const cs_col_type *from, const cs_col_type *to)
{
    if (cs_col_type_equal(from, to) || from->id == CS_TYPE_NULL) return true;
    if (cs_tc_is_numeric(from) && cs_tc_is_numeric(to)) {
        if (to->id == CS_TYPE_DECIMAL || to->id == CS_TYPE_DOUBLE) return true;
        if (from->id == CS_TYPE_DECIMAL) return false;
        if (to->id == CS_TYPE_FLOAT) return true;
        return numeric_rank(from->id) <= numeric_rank(to->id);
    }
    if (cs_tc_is_string(from))
        return cs_tc_is_atomic(to) && !cs_tc_is_interval(to) && to->id != CS_TYPE_NULL;
    if (from->id == CS_TYPE_DATE &&
        (to->id == CS_TYPE_TIMESTAMP || to->id == CS_TYPE_TIMESTAMP_NTZ))
        return true;
    if (from->id == CS_TYPE_TIMESTAMP_NTZ && to->id == CS_TYPE_TIMESTAMP) return true;
    return false;
}

bool cs_tc_can_implicit_cast_to(const cs_col_type *from, const cs_col_type *to)
{
    return cs_tc_can_implicit_cast(from, to) || (cs_tc_is_numeric(from) && cs_tc_is_numeric(to));
}

/* Spark's VariantGet.checkDataType: a type a variant can be cast to (structs and maps too) or,
 * without them, cast from (Cast.canCast to VARIANT: atomic types and arrays of them). */
bool cs_tc_variant_castable(const cs_col_type *t, bool structs_and_maps)
{
    if (cs_col_type_is_variant(t)) return true;
    switch (t->id) {
    case CS_TYPE_ARRAY:
        return cs_tc_variant_castable(t->fields[0].type, structs_and_maps);
    case CS_TYPE_MAP:
        return structs_and_maps && cs_tc_is_string(t->fields[0].type) &&
               cs_tc_variant_castable(t->fields[1].type, true);
    case CS_TYPE_STRUCT:
        for (int i = 0; structs_and_maps && i < t->n_fields; i++)
            if (!cs_tc_variant_castable(t->fields[i].type, true)) return false;
        return structs_and_maps;
    case CS_TYPE_NULL:
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_INTERVAL_DT:
    case CS_TYPE_INTERVAL_CAL:
        return false;
    default:
        return true;
    }
}

bool cs_tc_can_cast(const cs_col_type *from, const cs_col_type *to)
{
    if (cs_col_type_equal(from, to) || from->id == CS_TYPE_NULL) return true;
    if (cs_col_type_is_variant(from)) return cs_tc_variant_castable(to, true);
    if (cs_col_type_is_variant(to)) return cs_tc_variant_castable(from, false);
    if (cs_tc_is_string(to)) return true;
    if (cs_tc_is_string(from))
        return to->id != CS_TYPE_ARRAY && to->id != CS_TYPE_MAP && to->id != CS_TYPE_STRUCT;
    bool fn = cs_tc_is_numeric(from), tn = cs_tc_is_numeric(to);
    if ((fn || from->id == CS_TYPE_BOOLEAN) && (tn || to->id == CS_TYPE_BOOLEAN)) return true;
    if (fn && to->id == CS_TYPE_TIMESTAMP) return true;
    if (from->id == CS_TYPE_TIMESTAMP && tn) return true;
    if (cs_tc_is_datetime(from) && cs_tc_is_datetime(to)) return true;
    if (from->id == to->id && cs_tc_is_interval(from)) return true;
    if (cs_tc_is_interval(from) && cs_tc_is_integral(to)) return true;
    if (cs_tc_is_integral(from) && cs_tc_is_interval(to)) return true;
    if (from->id == CS_TYPE_ARRAY && to->id == CS_TYPE_ARRAY)
        return cs_tc_can_cast(from->fields[0].type, to->fields[0].type);
    /* maps key by key and value by value; structs field by field, by position (names may
     * differ), with as many fields on both sides (Spark's Cast.canAnsiCast) */
    if ((from->id == CS_TYPE_MAP && to->id == CS_TYPE_MAP) ||
        (from->id == CS_TYPE_STRUCT && to->id == CS_TYPE_STRUCT)) {
        if (from->n_fields != to->n_fields) return false;
        for (int f = 0; f < from->n_fields; f++)
            if (!cs_tc_can_cast(from->fields[f].type, to->fields[f].type)) return false;
        return true;
    }
    return false;
}

cs_sql_expr *cs_tc_cast(cs_sql_arena *a, cs_sql_expr *e, cs_col_type *to)
{
    if (cs_col_type_equal(e->type, to)) return e;
    cs_sql_expr *c = cs_sql_expr_new(a, CS_EX_CAST, 1);
    c->args[0] = e;
    c->cast_type = to;
    c->cast_mode = CS_CAST_ANSI;
    c->type = to;
    c->nullable = e->nullable;
    c->resolved = true;
    c->implicit_cast = true;
    return c;
}

void cs_tc_reduce_integral_decimal(cs_sql_arena *a, cs_sql_expr *e)
{
    static const char *const ops[] = {">", ">=", "<", "<="};
    int op = -1;
    for (int k = 0; k < 4 && e->fn; k++)
        if (strcmp(e->fn, ops[k]) == 0) op = k;
    for (int side = 0; op >= 0 && side < 2; side++) {
        cs_sql_expr *d = e->args[1 - side];
        if (!cs_tc_is_integral(e->args[side]->type) || d->kind != CS_EX_LITERAL || !d->literal ||
            d->literal->null_count || d->type->id != CS_TYPE_DECIMAL)
            continue;
        __int128 v, unit = 1;
        memcpy(&v, d->literal->values, sizeof v);
        for (int k = 0; k < d->type->scale; k++)
            unit *= 10;
        __int128 q = v / unit, r = v % unit, floor = q - (r < 0), ceil = q + (r > 0);
        /* integral on the left: > and <= take the floor; on the right: >= and < do */
        bool take_floor = side == 0 ? (op == 0 || op == 3) : (op == 1 || op == 2);
        __int128 x = take_floor ? floor : ceil;
        if (x < INT64_MIN || x > INT64_MAX) return; /* Spark folds these to true / false */
        int64_t l = (int64_t)x;
        cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
        cs_col_builder_append_values(b, &l, 1, NULL);
        e->args[1 - side] = cs_sql_expr_literal(a, cs_col_builder_finish(b));
        cs_col_builder_free(b);
        return;
    }
}
