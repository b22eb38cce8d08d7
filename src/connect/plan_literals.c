/*
 * plan_literals.c — Spark Connect literals and data types (spark.connect.Expression.Literal,
 * spark.connect.DataType) as cspark's literal expressions and column types, following Spark's
 * LiteralValueProtoConverter and DataTypeProtoConverter:
 *
 *   null (typed by its DataType), binary, boolean, byte, short, integer, long, float, double,
 *   decimal (the text, at the precision and scale sent, else the text's own), string, date
 *   (days), timestamp and timestamp_ntz (microseconds), year-month and day-time intervals ->
 *   a one-row literal column of that type;
 *   array, map, struct and specialized arrays -> array(...), map(...), named_struct(...) of
 *   their element literals under a cast to the declared type (the analyzer folds them), so an
 *   empty array keeps its element type;
 *   calendar_interval -> refused: cspark has no CalendarIntervalType.
 *
 * Schema strings: JSON (DataType.json()) or DDL, as Spark's parseTypeWithFallback.
 * Types: char(n) and varchar(n) are strings (Spark's replaceCharVarcharWithString for casts);
 * a UDT is its SQL type; an unparsed type string is read as Spark's parseDatatypeString.
 *
 * Called by plan_expressions.c, plan_local_relation.c and the relations that read a schema.
 * Ownership: columns and types are handed to the arena as soon as they are made.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

typedef __int128 i128;

/* ---- types ---- */

static int interval_type(cs_cp *c, cs_type_id id, bool has_start, int start, bool has_end, int end,
                         cs_col_type **out)
{
    int lo = has_start ? start : 0;
    int hi = has_end ? end : (id == CS_TYPE_INTERVAL_YM ? CS_INTERVAL_MONTH : CS_INTERVAL_SECOND);
    cs_col_type *t = cs_col_type_interval(id, lo, hi, c->err);
    if (!t) return cs_cp_invalid(c, "invalid interval type fields %d to %d", lo, hi);
    *out = cs_sql_arena_keep_type(c->a, t);
    return 0;
}

static int collation_invalid(cs_cp *c, const char *name)
{
    cs_sbuf props = {0};
    cs_collation_proposals(name, &props);
    cs_sql_error_set(c->err, CS_EINVAL, "COLLATION_INVALID_NAME", "42704",
                     "The value %s does not represent a correct collation name. Suggested valid "
                     "collation names: [%s].",
                     name, cs_sbuf_str(&props));
    cs_sbuf_free(&props);
    return CS_EINVAL;
}

int cs_cp_data_type(cs_cp *c, const Spark__Connect__DataType *t, cs_col_type **out)
{
    if (!t) return cs_cp_invalid(c, "a data type is missing");
    if (++c->depth > CS_CP_MAX_DEPTH) return cs_cp_invalid(c, "the data type nests too deeply");
    cs_type_id id;
    int rc = 0;
    switch (t->kind_case) {
    case SPARK__CONNECT__DATA_TYPE__KIND_NULL:
        id = CS_TYPE_NULL;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BINARY:
        id = CS_TYPE_BINARY;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BOOLEAN:
        id = CS_TYPE_BOOLEAN;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_BYTE:
        id = CS_TYPE_BYTE;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_SHORT:
        id = CS_TYPE_SHORT;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_INTEGER:
        id = CS_TYPE_INT;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_LONG:
        id = CS_TYPE_LONG;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_FLOAT:
        id = CS_TYPE_FLOAT;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE:
        id = CS_TYPE_DOUBLE;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_STRING:
        if (t->string && t->string->collation && t->string->collation[0]) {
            /* Spark's DataType.String.collation: a collation name ("UNICODE_CI") */
            int coll = cs_collation_lookup(t->string->collation);
            if (coll < 0) {
                rc = collation_invalid(c, t->string->collation);
                goto done;
            }
            *out = cs_col_type_string(coll);
            goto done;
        }
        id = CS_TYPE_STRING;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_CHAR:
    case SPARK__CONNECT__DATA_TYPE__KIND_VAR_CHAR:
        id = CS_TYPE_STRING;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DATE:
        id = CS_TYPE_DATE;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP:
        id = CS_TYPE_TIMESTAMP;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_TIMESTAMP_NTZ:
        id = CS_TYPE_TIMESTAMP_NTZ;
        break;
    case SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL: {
        const Spark__Connect__DataType__Decimal *d = t->decimal;
        int p = d && CS_CP_HAS(d, precision) ? d->precision : 10;
        int s = d && CS_CP_HAS(d, scale) ? d->scale : 0;
        cs_col_type *dt = cs_col_type_decimal(p, s, c->err);
        if (!dt)
            rc = cs_sql_error_set(c->err, CS_EINVAL, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                                  "22003", "Decimal precision %d exceeds max precision 38.", p);
        else
            *out = cs_sql_arena_keep_type(c->a, dt);
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_YEAR_MONTH_INTERVAL: {
        const Spark__Connect__DataType__YearMonthInterval *y = t->year_month_interval;
        rc = interval_type(c, CS_TYPE_INTERVAL_YM, y && CS_CP_HAS(y, start_field),
                           y ? y->start_field : 0, y && CS_CP_HAS(y, end_field),
                           y ? y->end_field : 0, out);
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_DAY_TIME_INTERVAL: {
        const Spark__Connect__DataType__DayTimeInterval *y = t->day_time_interval;
        rc = interval_type(c, CS_TYPE_INTERVAL_DT, y && CS_CP_HAS(y, start_field),
                           y ? y->start_field : 0, y && CS_CP_HAS(y, end_field),
                           y ? y->end_field : 0, out);
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_ARRAY: {
        cs_col_type *e;
        if (!t->array || (rc = cs_cp_data_type(c, t->array->element_type, &e)) != 0) {
            if (!t->array) rc = cs_cp_invalid(c, "an array type without its element type");
            goto done;
        }
        *out = cs_sql_arena_keep_type(
            c->a, cs_col_type_array(cs_col_type_ref(e), t->array->contains_null));
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_MAP: {
        cs_col_type *k, *v;
        if (!t->map) {
            rc = cs_cp_invalid(c, "a map type without its key and value types");
            goto done;
        }
        if ((rc = cs_cp_data_type(c, t->map->key_type, &k)) != 0 ||
            (rc = cs_cp_data_type(c, t->map->value_type, &v)) != 0)
            goto done;
        *out = cs_sql_arena_keep_type(c->a, cs_col_type_map(cs_col_type_ref(k), cs_col_type_ref(v),
                                                            t->map->value_contains_null));
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_STRUCT: {
        size_t n = t->struct_ ? t->struct_->n_fields : 0;
        cs_col_field *f = cs_sql_alloc(c->a, sizeof *f * (n + 1));
        for (size_t i = 0; i < n; i++) {
            const Spark__Connect__DataType__StructField *sf = t->struct_->fields[i];
            cs_col_type *ft;
            if ((rc = cs_cp_data_type(c, sf->data_type, &ft)) != 0) goto done;
            f[i].name = sf->name;
            f[i].type = cs_col_type_ref(ft);
            f[i].nullable = sf->nullable;
        }
        *out = cs_sql_arena_keep_type(c->a, cs_col_type_struct(f, (int)n));
        goto done;
    }
    case SPARK__CONNECT__DATA_TYPE__KIND_UDT:
        if (t->udt && CS_CP_HAS(t->udt, sql_type)) {
            rc = cs_cp_data_type(c, t->udt->sql_type, out);
            goto done;
        }
        rc = cs_cp_unsupported(c, "the user-defined type %s without its SQL type",
                               t->udt && t->udt->type ? t->udt->type : "");
        goto done;
    case SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED:
        rc = cs_cp_schema_string(c, t->unparsed ? t->unparsed->data_type_string : "", false, out);
        goto done;
    case SPARK__CONNECT__DATA_TYPE__KIND_CALENDAR_INTERVAL:
        rc = cs_cp_unsupported(c, "the data type \"INTERVAL\" (CalendarIntervalType)");
        goto done;
    case SPARK__CONNECT__DATA_TYPE__KIND_VARIANT:
        *out = cs_col_type_variant();
        goto done;
    default:
        rc =
            cs_cp_invalid(c, "This oneOf field in spark.connect.DataType is not set: KIND_NOT_SET");
        goto done;
    }
    *out = cs_col_type_primitive(id);
done:
    c->depth--;
    return rc;
}

/* A table schema "a int, b string" (a struct of those columns), as Spark's parseTableSchema:
 * read as the columns of a CREATE TABLE; NULL without an error when it is not one. */
static cs_col_type *table_schema(cs_cp *c, const char *text)
{
    static const char head[] = "CREATE TABLE __schema (", tail[] = ") USING parquet";
    size_t n = strlen(text) + sizeof head + sizeof tail;
    char *ddl = cs_sql_alloc(c->a, n);
    snprintf(ddl, n, "%s%s%s", head, text, tail);
    cs_error ignored;
    cs_error_clear(&ignored);
    cs_sql_statement *st = NULL;
    if (cs_sql_parse_statement(c->a, ddl, &st, NULL, &ignored) != 0 || !st->schema) return NULL;
    return st->schema;
}

/* Spark's DataType JSON (DataType.json(): what PySpark sends for schemas) */

static int spark_json_type(cs_cp *c, json_t *j, int depth, cs_col_type **out);

/* Spark 4 keeps a string's collation out of its JSON type: a struct field's metadata
 * "__COLLATIONS" maps the path of each collated string inside the field ("name",
 * "name.element", "name.key", "name.value", nested) to "provider.NAME" ("icu.UNICODE_CI",
 * "spark.UTF8_LCASE"). t with the string at path (after the field's name) collated. */
static int json_collation(cs_cp *c, cs_col_type *t, const char *path, const char *value, int depth,
                          cs_col_type **out)
{
    if (depth > 100) return cs_cp_invalid(c, "the schema nests too deeply");
    if (!*path) {
        const char *dot = strchr(value, '.');
        const char *name = dot ? dot + 1 : value;
        int coll = cs_collation_lookup(name);
        if (coll < 0) return collation_invalid(c, name);
        if (t->id != CS_TYPE_STRING)
            return cs_cp_invalid(c, "a collation for a field that is not a string");
        *out = cs_col_type_string(coll);
        return 0;
    }
    static const char *const parts[] = {".element", ".key", ".value"};
    for (int k = 0; k < 3; k++) {
        size_t pl = strlen(parts[k]);
        if (strncmp(path, parts[k], pl) != 0 || (path[pl] != '\0' && path[pl] != '.')) continue;
        int child = k == 2 ? 1 : 0;
        if ((k == 0) != (t->id == CS_TYPE_ARRAY) || (k > 0 && t->id != CS_TYPE_MAP)) break;
        cs_col_type *inner;
        int rc = json_collation(c, t->fields[child].type, path + pl, value, depth + 1, &inner);
        if (rc) return rc;
        if (t->id == CS_TYPE_ARRAY)
            *out = cs_sql_arena_keep_type(
                c->a, cs_col_type_array(cs_col_type_ref(inner), t->fields[0].nullable));
        else
            *out = cs_sql_arena_keep_type(
                c->a, cs_col_type_map(cs_col_type_ref(child ? t->fields[0].type : inner),
                                      cs_col_type_ref(child ? inner : t->fields[1].type),
                                      t->fields[1].nullable));
        return 0;
    }
    return cs_cp_invalid(c, "a collation path \"%s\" that names no string", path);
}

static int spark_json_struct(cs_cp *c, json_t *fields, int depth, cs_col_type **out)
{
    if (!json_is_array(fields)) return cs_cp_invalid(c, "a struct type's fields are not a list");
    size_t n = json_array_size(fields);
    cs_col_field *f = cs_sql_alloc(c->a, sizeof *f * (n + 1));
    for (size_t i = 0; i < n; i++) {
        json_t *fj = json_array_get(fields, i);
        const char *name = json_string_value(json_object_get(fj, "name"));
        cs_col_type *t;
        if (!name) return cs_cp_invalid(c, "a struct field without a name");
        int rc = spark_json_type(c, json_object_get(fj, "type"), depth + 1, &t);
        if (rc) return rc;
        json_t *colls = json_object_get(json_object_get(fj, "metadata"), "__COLLATIONS");
        const char *path;
        json_t *v;
        json_object_foreach(colls, path, v)
        {
            size_t nl = strlen(name);
            if (strncmp(path, name, nl) != 0 || (path[nl] != '\0' && path[nl] != '.') ||
                !json_is_string(v))
                continue;
            if ((rc = json_collation(c, t, path + nl, json_string_value(v), depth, &t)) != 0)
                return rc;
        }
        json_t *nullable = json_object_get(fj, "nullable");
        f[i].name = cs_sql_strdup(c->a, name);
        f[i].type = cs_col_type_ref(t);
        f[i].nullable = !nullable || json_is_true(nullable);
    }
    *out = cs_sql_arena_keep_type(c->a, cs_col_type_struct(f, (int)n));
    return 0;
}

static int spark_json_type(cs_cp *c, json_t *j, int depth, cs_col_type **out)
{
    if (depth > 100) return cs_cp_invalid(c, "the schema nests too deeply");
    if (json_is_string(j)) {
        const char *name = json_string_value(j);
        if (strcmp(name, "void") == 0) {
            *out = cs_col_type_primitive(CS_TYPE_NULL);
            return 0;
        }
        return cs_sql_parse_data_type(c->a, name, out, c->err);
    }
    const char *kind = json_string_value(json_object_get(j, "type"));
    if (!kind) return cs_cp_invalid(c, "a data type without its \"type\"");
    cs_col_type *a, *b;
    int rc;
    if (strcmp(kind, "struct") == 0)
        return spark_json_struct(c, json_object_get(j, "fields"), depth, out);
    if (strcmp(kind, "array") == 0) {
        if ((rc = spark_json_type(c, json_object_get(j, "elementType"), depth + 1, &a)) != 0)
            return rc;
        json_t *cn = json_object_get(j, "containsNull");
        *out = cs_sql_arena_keep_type(
            c->a, cs_col_type_array(cs_col_type_ref(a), !cn || json_is_true(cn)));
        return 0;
    }
    if (strcmp(kind, "map") == 0) {
        if ((rc = spark_json_type(c, json_object_get(j, "keyType"), depth + 1, &a)) != 0 ||
            (rc = spark_json_type(c, json_object_get(j, "valueType"), depth + 1, &b)) != 0)
            return rc;
        json_t *vn = json_object_get(j, "valueContainsNull");
        *out = cs_sql_arena_keep_type(
            c->a, cs_col_type_map(cs_col_type_ref(a), cs_col_type_ref(b), !vn || json_is_true(vn)));
        return 0;
    }
    if (strcmp(kind, "udt") == 0 && json_object_get(j, "sqlType"))
        return spark_json_type(c, json_object_get(j, "sqlType"), depth + 1, out);
    return cs_cp_unsupported(c, "the data type \"%s\" in a schema", kind);
}

int cs_cp_schema_string(cs_cp *c, const char *text, bool wrap_value, cs_col_type **out)
{
    cs_col_type *t = NULL;
    cs_error first;
    cs_error_clear(&first);
    const char *j = text;
    while (*j == ' ' || *j == '\t' || *j == '\n')
        j++;
    if (*j == '{') { /* DataType.fromJson, Spark's fallback parser */
        json_error_t je;
        json_t *root = json_loads(j, 0, &je);
        if (!root) return cs_cp_invalid(c, "Invalid schema %s: %s", text, je.text);
        int rc = spark_json_type(c, root, 0, &t);
        json_decref(root);
        if (rc) return rc;
        goto found;
    }
    /* Spark: a table schema first, then a data type, then struct<text> */
    bool looks_struct = false;
    for (const char *p = text; *p; p++)
        if (*p == ' ' || *p == ':') looks_struct = true;
    if (looks_struct && (t = table_schema(c, text)) != NULL) goto found;
    if (cs_sql_parse_data_type(c->a, text, &t, &first) == 0) goto found;
    if ((t = table_schema(c, text)) != NULL) goto found;
    if (c->err) *c->err = first;
    return first.code ? first.code : CS_EINVAL;
found:
    if (t->id != CS_TYPE_STRUCT && wrap_value) {
        cs_col_field f = {"value", cs_col_type_ref(t), true};
        t = cs_sql_arena_keep_type(c->a, cs_col_type_struct(&f, 1));
    }
    *out = t;
    return 0;
}

/* ---- one-row literal columns ---- */

static cs_sql_expr *lit_values(cs_cp *c, cs_col_type *type, const void *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, type);
    if (v)
        cs_col_builder_append_values(b, v, 1, NULL);
    else
        cs_col_builder_append_nulls(b, 1);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return cs_sql_expr_literal(c->a, col);
}

static cs_sql_expr *lit_bytes(cs_cp *c, cs_type_id id, const void *s, size_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(id));
    cs_col_builder_append_string(b, s, n);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return cs_sql_expr_literal(c->a, col);
}

static cs_sql_expr *typed_null(cs_cp *c, cs_col_type *type)
{
    if (type->id != CS_TYPE_NULL) return lit_values(c, type, NULL);
    cs_column *col = cs_column_new_raw(NULL, cs_col_type_primitive(CS_TYPE_NULL), 1);
    col->validity_size = 1;
    col->validity = cs_col_buffer_alloc(col->alloc, 1);
    col->validity[0] = 0;
    col->null_count = 1;
    return cs_sql_expr_literal(c->a, col);
}

/* Java's BigDecimal(text): unscaled value and scale; false on a malformed text or more than
 * 38 digits. */
static bool parse_decimal(const char *s, i128 *unscaled, int *precision, int *scale)
{
    while (isspace((unsigned char)*s))
        s++;
    bool neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    i128 v = 0;
    int digits = 0, frac = 0;
    bool in_frac = false, any = false, started = false;
    for (; *s; s++) {
        if (*s == '.' && !in_frac) {
            in_frac = true;
            continue;
        }
        if (!isdigit((unsigned char)*s)) break;
        any = true;
        if (in_frac) frac++;
        if (*s != '0' || started) {
            started = true;
            if (++digits > 38) return false;
        }
        v = v * 10 + (*s - '0');
    }
    if (!any) return false;
    long exp = 0;
    if (*s == 'e' || *s == 'E') {
        char *end;
        exp = strtol(s + 1, &end, 10);
        if (exp > 10000 || exp < -10000) return false; /* beyond any decimal(38) */
        s = end;
    }
    if (*s) return false;
    long sc = frac - exp;
    if (v == 0 && sc < 0) sc = 0; /* 0E+n: no digits to shift */
    while (sc < 0) {              /* BigDecimal's negative scale: Spark raises it to 0 */
        if (++digits > 38 && v != 0) return false;
        v *= 10;
        sc++;
    }
    if (sc > 38) return false;
    *unscaled = neg ? -v : v;
    *precision = digits > (int)sc ? digits : (int)sc;
    if (*precision == 0) *precision = 1;
    *scale = (int)sc;
    return true;
}

static int decimal_literal(cs_cp *c, const Spark__Connect__Expression__Literal__Decimal *d,
                           cs_sql_expr **out)
{
    i128 v;
    int p, s;
    const char *text = d && d->value ? d->value : "";
    if (!parse_decimal(text, &v, &p, &s))
        return cs_sql_error_set(c->err, CS_EINVAL, "INVALID_TYPED_LITERAL", "42604",
                                "The value of the typed literal \"DECIMAL\" is invalid: '%.300s'.",
                                text);
    int want_s = CS_CP_HAS(d, scale) ? d->scale : s;
    int want_p = CS_CP_HAS(d, precision) ? d->precision : p;
    /* to the scale asked, rounding half up as Spark's Decimal.set(BigDecimal, p, s) */
    for (; s < want_s; s++)
        v *= 10;
    for (; s > want_s; s--) {
        i128 q = v / 10, r = v % 10;
        v = q + (r >= 5 ? 1 : r <= -5 ? -1 : 0);
    }
    i128 limit = 1;
    for (int k = 0; k < want_p; k++)
        limit *= 10;
    cs_col_type *t = cs_col_type_decimal(want_p, want_s, c->err);
    if (!t || v >= limit || v <= -limit) {
        if (t) cs_col_type_unref(t);
        return cs_sql_error_set(c->err, CS_EINVAL, "NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION",
                                "22003",
                                "The %s rounded half up from %s cannot be represented as "
                                "Decimal(%d, %d).",
                                text, text, want_p, want_s);
    }
    *out = lit_values(c, cs_sql_arena_keep_type(c->a, t), &v);
    return 0;
}

/* array / map / struct: the constructor function over the elements, cast to the type sent */
static cs_sql_expr *cast_to(cs_cp *c, cs_sql_expr *e, cs_col_type *t)
{
    cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
    x->args[0] = e;
    x->cast_type = t;
    x->cast_mode = CS_CAST_ANSI;
    return x;
}

static int literal_list(cs_cp *c, Spark__Connect__Expression__Literal *const *items, size_t n,
                        cs_sql_expr **args)
{
    for (size_t i = 0; i < n; i++) {
        int rc = cs_cp_literal(c, items[i], &args[i]);
        if (rc) return rc;
    }
    return 0;
}

static int array_literal(cs_cp *c, const Spark__Connect__Expression__Literal__Array *a,
                         cs_sql_expr **out)
{
    size_t n = a->n_elements;
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, n);
    int rc = literal_list(c, a->elements, n, args);
    if (rc) return rc;
    cs_sql_expr *e = cs_cp_call(c, "array", args, (int)n);
    if (a->element_type) {
        cs_col_type *et;
        if ((rc = cs_cp_data_type(c, a->element_type, &et)) != 0) return rc;
        e = cast_to(c, e,
                    cs_sql_arena_keep_type(c->a, cs_col_type_array(cs_col_type_ref(et), true)));
    }
    *out = e;
    return 0;
}

static int map_literal(cs_cp *c, const Spark__Connect__Expression__Literal__Map *m,
                       cs_sql_expr **out)
{
    if (m->n_keys != m->n_values)
        return cs_cp_invalid(c, "a map literal has %zu keys and %zu values", m->n_keys,
                             m->n_values);
    size_t n = m->n_keys;
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, 2 * n);
    for (size_t i = 0; i < n; i++) {
        int rc = cs_cp_literal(c, m->keys[i], &args[2 * i]);
        if (!rc) rc = cs_cp_literal(c, m->values[i], &args[2 * i + 1]);
        if (rc) return rc;
    }
    cs_sql_expr *e = cs_cp_call(c, "map", args, (int)(2 * n));
    if (m->key_type && m->value_type) {
        cs_col_type *k, *v;
        int rc = cs_cp_data_type(c, m->key_type, &k);
        if (!rc) rc = cs_cp_data_type(c, m->value_type, &v);
        if (rc) return rc;
        e = cast_to(c, e,
                    cs_sql_arena_keep_type(
                        c->a, cs_col_type_map(cs_col_type_ref(k), cs_col_type_ref(v), true)));
    }
    *out = e;
    return 0;
}

static int struct_literal(cs_cp *c, const Spark__Connect__Expression__Literal__Struct *s,
                          cs_sql_expr **out)
{
    cs_col_type *t;
    int rc = cs_cp_data_type(c, s->struct_type, &t);
    if (rc) return rc;
    if (t->id != CS_TYPE_STRUCT || (size_t)t->n_fields != s->n_elements)
        return cs_cp_invalid(c, "a struct literal has %zu values for its type's %d fields",
                             s->n_elements, t->id == CS_TYPE_STRUCT ? t->n_fields : 0);
    size_t n = s->n_elements;
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, 2 * n);
    for (size_t i = 0; i < n; i++) {
        const char *name = t->fields[i].name;
        args[2 * i] = lit_bytes(c, CS_TYPE_STRING, name, strlen(name));
        if ((rc = cs_cp_literal(c, s->elements[i], &args[2 * i + 1])) != 0) return rc;
    }
    *out = cast_to(c, cs_cp_call(c, "named_struct", args, (int)(2 * n)), t);
    return 0;
}

static int specialized_array(cs_cp *c,
                             const Spark__Connect__Expression__Literal__SpecializedArray *s,
                             cs_sql_expr **out)
{
    size_t n = 0;
    cs_type_id id;
    switch (s->value_type_case) {
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_BOOLS:
        n = s->bools->n_values;
        id = CS_TYPE_BOOLEAN;
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_INTS:
        n = s->ints->n_values;
        id = CS_TYPE_INT;
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_LONGS:
        n = s->longs->n_values;
        id = CS_TYPE_LONG;
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_FLOATS:
        n = s->floats->n_values;
        id = CS_TYPE_FLOAT;
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_DOUBLES:
        n = s->doubles->n_values;
        id = CS_TYPE_DOUBLE;
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__SPECIALIZED_ARRAY__VALUE_TYPE_STRINGS:
        n = s->strings->n_values;
        id = CS_TYPE_STRING;
        break;
    default:
        return cs_cp_invalid(c, "a specialized array literal without values");
    }
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, n);
    for (size_t i = 0; i < n; i++) {
        cs_col_type *t = cs_col_type_primitive(id);
        switch (id) {
        case CS_TYPE_BOOLEAN: {
            uint8_t v = s->bools->values[i] != 0;
            args[i] = lit_values(c, t, &v);
            break;
        }
        case CS_TYPE_INT:
            args[i] = lit_values(c, t, &s->ints->values[i]);
            break;
        case CS_TYPE_LONG:
            args[i] = lit_values(c, t, &s->longs->values[i]);
            break;
        case CS_TYPE_FLOAT:
            args[i] = lit_values(c, t, &s->floats->values[i]);
            break;
        case CS_TYPE_DOUBLE:
            args[i] = lit_values(c, t, &s->doubles->values[i]);
            break;
        default:
            args[i] =
                lit_bytes(c, CS_TYPE_STRING, s->strings->values[i], strlen(s->strings->values[i]));
            break;
        }
    }
    cs_col_type *at = cs_col_type_array(cs_col_type_primitive(id), true);
    *out = cast_to(c, cs_cp_call(c, "array", args, (int)n), cs_sql_arena_keep_type(c->a, at));
    return 0;
}

int cs_cp_literal(cs_cp *c, const Spark__Connect__Expression__Literal *l, cs_sql_expr **out)
{
    if (!l) return cs_cp_invalid(c, "a literal is missing");
    if (++c->depth > CS_CP_MAX_DEPTH) return cs_cp_invalid(c, "the literal nests too deeply");
    int rc = 0;
    cs_col_type *t;
    switch (l->literal_type_case) {
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL:
        if ((rc = cs_cp_data_type(c, l->null, &t)) == 0) *out = typed_null(c, t);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BINARY:
        *out = lit_bytes(c, CS_TYPE_BINARY, l->binary.data, l->binary.len);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN: {
        uint8_t v = l->boolean != 0;
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_BOOLEAN), &v);
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE: {
        int8_t v = (int8_t)l->byte;
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_BYTE), &v);
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT: {
        int16_t v = (int16_t)l->short_;
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_SHORT), &v);
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_INT), &l->integer);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_LONG), &l->long_);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_FLOAT), &l->float_);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_DOUBLE), &l->double_);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL:
        rc = decimal_literal(c, l->decimal, out);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING: {
        const char *s = l->string ? l->string : "";
        *out = lit_bytes(c, CS_TYPE_STRING, s, strlen(s));
        break;
    }
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_DATE), &l->date);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_TIMESTAMP), &l->timestamp);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ:
        *out = lit_values(c, cs_col_type_primitive(CS_TYPE_TIMESTAMP_NTZ), &l->timestamp_ntz);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_YEAR_MONTH_INTERVAL:
        if ((rc = interval_type(c, CS_TYPE_INTERVAL_YM, false, 0, false, 0, &t)) == 0)
            *out = lit_values(c, t, &l->year_month_interval);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DAY_TIME_INTERVAL:
        if ((rc = interval_type(c, CS_TYPE_INTERVAL_DT, false, 0, false, 0, &t)) == 0)
            *out = lit_values(c, t, &l->day_time_interval);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_ARRAY:
        rc = array_literal(c, l->array, out);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_MAP:
        rc = map_literal(c, l->map, out);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRUCT:
        rc = struct_literal(c, l->struct_, out);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SPECIALIZED_ARRAY:
        rc = specialized_array(c, l->specialized_array, out);
        break;
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_CALENDAR_INTERVAL:
        rc = cs_cp_unsupported(c, "a literal of the data type \"INTERVAL\" (CalendarIntervalType)");
        break;
    default:
        rc = cs_cp_invalid(c, "This oneOf field in spark.connect.Expression.Literal is not set: "
                              "LITERALTYPE_NOT_SET");
        break;
    }
    c->depth--;
    return rc;
}
