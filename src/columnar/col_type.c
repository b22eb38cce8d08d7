/*
 * col_type.c — Spark's data types (see col_type.h): static primitives, reference-counted nested
 * types, equality, Spark's simpleString and treeString. Called by everything in src/columnar and
 * src/formats.
 */
#include "columnar/col_type.h"

#include "columnar/col_collation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIM(ID)                                                                                   \
    {                                                                                              \
        .refs = -1, .id = ID                                                                       \
    }
static cs_col_type primitives[] = {
    PRIM(CS_TYPE_NULL),      PRIM(CS_TYPE_BOOLEAN),       PRIM(CS_TYPE_BYTE),
    PRIM(CS_TYPE_SHORT),     PRIM(CS_TYPE_INT),           PRIM(CS_TYPE_LONG),
    PRIM(CS_TYPE_FLOAT),     PRIM(CS_TYPE_DOUBLE),        PRIM(CS_TYPE_DECIMAL),
    PRIM(CS_TYPE_STRING),    PRIM(CS_TYPE_BINARY),        PRIM(CS_TYPE_DATE),
    PRIM(CS_TYPE_TIMESTAMP), PRIM(CS_TYPE_TIMESTAMP_NTZ),
};
static cs_col_type calendar_interval = PRIM(CS_TYPE_INTERVAL_CAL);
#define COLLATED(C)                                                                                \
    {                                                                                              \
        .refs = -1, .id = CS_TYPE_STRING, .collation = C                                           \
    }
static cs_col_type collated_strings[CS_COLLATION_COUNT] = {COLLATED(0), COLLATED(1), COLLATED(2),
                                                           COLLATED(3)};

cs_col_type *cs_col_type_string(int collation)
{
    if (collation == CS_COLLATION_UTF8_BINARY) return &primitives[CS_TYPE_STRING];
    return collation > 0 && collation < CS_COLLATION_COUNT ? &collated_strings[collation] : NULL;
}
static char value_name[] = "value", metadata_name[] = "metadata";
static cs_col_field variant_fields[] = {{value_name, &primitives[CS_TYPE_BINARY], false},
                                        {metadata_name, &primitives[CS_TYPE_BINARY], false}};
static cs_col_type variant_type = {
    .refs = -1, .id = CS_TYPE_STRUCT, .n_fields = 2, .fields = variant_fields, .variant = true};

cs_col_type *cs_col_type_variant(void)
{
    return &variant_type;
}

cs_col_type *cs_col_type_primitive(cs_type_id id)
{
    if (id == CS_TYPE_INTERVAL_CAL) return &calendar_interval;
    if (id == CS_TYPE_DECIMAL || id > CS_TYPE_TIMESTAMP_NTZ) return NULL;
    return &primitives[id];
}

static cs_col_type *type_new(cs_type_id id, int n_fields)
{
    cs_col_type *t = cs_xcalloc(1, sizeof *t);
    atomic_store(&t->refs, 1);
    t->id = id;
    t->n_fields = n_fields;
    t->fields = n_fields ? cs_xcalloc((size_t)n_fields, sizeof *t->fields) : NULL;
    return t;
}

cs_col_type *cs_col_type_decimal(int precision, int scale, cs_error *err)
{
    if (precision < 1 || precision > CS_DECIMAL_MAX_PRECISION || scale < 0 || scale > precision) {
        cs_error_set(err, CS_EINVAL,
                     "decimal(%d,%d): expected a precision of 1 to 38 and a scale of 0 to the "
                     "precision",
                     precision, scale);
        return NULL;
    }
    cs_col_type *t = type_new(CS_TYPE_DECIMAL, 0);
    t->precision = precision;
    t->scale = scale;
    return t;
}

cs_col_type *cs_col_type_interval(cs_type_id id, int start, int end, cs_error *err)
{
    int last = id == CS_TYPE_INTERVAL_YM ? CS_INTERVAL_MONTH : CS_INTERVAL_SECOND;
    if ((id != CS_TYPE_INTERVAL_YM && id != CS_TYPE_INTERVAL_DT) || start < 0 || end > last ||
        start > end) {
        cs_error_set(err, CS_EINVAL,
                     "interval fields %d to %d: expected a year-month or day-time "
                     "interval whose start field is not after its end",
                     start, end);
        return NULL;
    }
    cs_col_type *t = type_new(id, 0);
    t->precision = start;
    t->scale = end;
    return t;
}

cs_col_type *cs_col_type_array(cs_col_type *element, bool contains_null)
{
    cs_col_type *t = type_new(CS_TYPE_ARRAY, 1);
    t->fields[0] = (cs_col_field){cs_xstrdup("element"), element, contains_null};
    return t;
}

cs_col_type *cs_col_type_map(cs_col_type *key, cs_col_type *value, bool value_contains_null)
{
    cs_col_type *t = type_new(CS_TYPE_MAP, 2);
    t->fields[0] = (cs_col_field){cs_xstrdup("key"), key, false};
    t->fields[1] = (cs_col_field){cs_xstrdup("value"), value, value_contains_null};
    return t;
}

cs_col_type *cs_col_type_struct(const cs_col_field *fields, int n)
{
    cs_col_type *t = type_new(CS_TYPE_STRUCT, n);
    for (int i = 0; i < n; i++)
        t->fields[i] = (cs_col_field){cs_xstrdup(fields[i].name ? fields[i].name : ""),
                                      fields[i].type, fields[i].nullable};
    return t;
}

cs_col_type *cs_col_type_ref(cs_col_type *t)
{
    if (t && atomic_load(&t->refs) >= 0) atomic_fetch_add(&t->refs, 1);
    return t;
}

void cs_col_type_unref(cs_col_type *t)
{
    if (!t || atomic_load(&t->refs) < 0) return;
    if (atomic_fetch_sub(&t->refs, 1) != 1) return;
    for (int i = 0; i < t->n_fields; i++) {
        free(t->fields[i].name);
        cs_col_type_unref(t->fields[i].type);
    }
    free(t->fields);
    free(t);
}

bool cs_col_type_equal(const cs_col_type *a, const cs_col_type *b)
{
    if (a == b) return true;
    if (!a || !b || a->id != b->id || a->n_fields != b->n_fields || a->variant != b->variant ||
        a->collation != b->collation)
        return false;
    if ((a->id == CS_TYPE_DECIMAL || a->id == CS_TYPE_INTERVAL_YM ||
         a->id == CS_TYPE_INTERVAL_DT) &&
        (a->precision != b->precision || a->scale != b->scale))
        return false;
    for (int i = 0; i < a->n_fields; i++) {
        const cs_col_field *fa = &a->fields[i], *fb = &b->fields[i];
        if (fa->nullable != fb->nullable || !cs_col_type_equal(fa->type, fb->type)) return false;
        /* element/key/value names are Arrow's business, not Spark's: only struct names count */
        if (a->id == CS_TYPE_STRUCT && strcmp(fa->name, fb->name) != 0) return false;
    }
    return true;
}

int cs_col_type_width(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BYTE:
        return 1;
    case CS_TYPE_SHORT:
        return 2;
    case CS_TYPE_INT:
    case CS_TYPE_FLOAT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        return 4;
    case CS_TYPE_LONG:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        return 8;
    case CS_TYPE_DECIMAL:
    case CS_TYPE_INTERVAL_CAL:
        return 16;
    default:
        return 0;
    }
}

int cs_col_type_integral_width(cs_type_id id)
{
    bool integral = id != CS_TYPE_FLOAT && id != CS_TYPE_DOUBLE && id != CS_TYPE_DECIMAL &&
                    id != CS_TYPE_INTERVAL_CAL;
    return integral ? cs_col_type_width(id) : 0;
}

bool cs_col_type_has_offsets(cs_type_id id)
{
    return id == CS_TYPE_STRING || id == CS_TYPE_BINARY || id == CS_TYPE_ARRAY || id == CS_TYPE_MAP;
}

const char *cs_type_id_name(cs_type_id id)
{
    static const char *const names[] = {
        [CS_TYPE_NULL] = "void",
        [CS_TYPE_BOOLEAN] = "boolean",
        [CS_TYPE_BYTE] = "tinyint",
        [CS_TYPE_SHORT] = "smallint",
        [CS_TYPE_INT] = "int",
        [CS_TYPE_LONG] = "bigint",
        [CS_TYPE_FLOAT] = "float",
        [CS_TYPE_DOUBLE] = "double",
        [CS_TYPE_DECIMAL] = "decimal",
        [CS_TYPE_STRING] = "string",
        [CS_TYPE_BINARY] = "binary",
        [CS_TYPE_DATE] = "date",
        [CS_TYPE_TIMESTAMP] = "timestamp",
        [CS_TYPE_TIMESTAMP_NTZ] = "timestamp_ntz",
        [CS_TYPE_ARRAY] = "array",
        [CS_TYPE_STRUCT] = "struct",
        [CS_TYPE_MAP] = "map",
        [CS_TYPE_INTERVAL_YM] = "interval",
        [CS_TYPE_INTERVAL_DT] = "interval",
        [CS_TYPE_INTERVAL_CAL] = "interval",
    };
    return (unsigned)id < sizeof names / sizeof *names ? names[id] : "unknown";
}

void cs_col_type_simple_string(const cs_col_type *t, cs_sbuf *out)
{
    if (t->variant) {
        cs_sbuf_puts(out, "variant");
        return;
    }
    switch (t->id) {
    case CS_TYPE_DECIMAL:
        cs_sbuf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
        return;
    case CS_TYPE_STRING:
        cs_sbuf_puts(out, "string");
        if (t->collation) cs_sbuf_printf(out, " collate %s", cs_collation_name(t->collation));
        return;
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_INTERVAL_DT: {
        static const char *const ym[] = {"year", "month"};
        static const char *const dt[] = {"day", "hour", "minute", "second"};
        const char *const *names = t->id == CS_TYPE_INTERVAL_YM ? ym : dt;
        cs_sbuf_printf(out, "interval %s", names[t->precision]);
        if (t->scale != t->precision) cs_sbuf_printf(out, " to %s", names[t->scale]);
        return;
    }
    case CS_TYPE_ARRAY:
        cs_sbuf_puts(out, "array<");
        cs_col_type_simple_string(t->fields[0].type, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_TYPE_MAP:
        cs_sbuf_puts(out, "map<");
        cs_col_type_simple_string(t->fields[0].type, out);
        cs_sbuf_putc(out, ',');
        cs_col_type_simple_string(t->fields[1].type, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_TYPE_STRUCT:
        cs_sbuf_puts(out, "struct<");
        for (int i = 0; i < t->n_fields; i++) {
            if (i) cs_sbuf_putc(out, ',');
            cs_sbuf_printf(out, "%s:", t->fields[i].name);
            cs_col_type_simple_string(t->fields[i].type, out);
        }
        cs_sbuf_putc(out, '>');
        return;
    default:
        cs_sbuf_puts(out, cs_type_id_name(t->id));
        return;
    }
}

/* Spark's DataType.typeName for treeString. */
static void type_name(const cs_col_type *t, cs_sbuf *out)
{
    switch (t->id) {
    case CS_TYPE_NULL:
        cs_sbuf_puts(out, "void");
        return;
    case CS_TYPE_BYTE:
        cs_sbuf_puts(out, "byte");
        return;
    case CS_TYPE_SHORT:
        cs_sbuf_puts(out, "short");
        return;
    case CS_TYPE_INT:
        cs_sbuf_puts(out, "integer");
        return;
    case CS_TYPE_LONG:
        cs_sbuf_puts(out, "long");
        return;
    case CS_TYPE_ARRAY:
        cs_sbuf_puts(out, "array");
        return;
    case CS_TYPE_MAP:
        cs_sbuf_puts(out, "map");
        return;
    case CS_TYPE_STRUCT:
        cs_sbuf_puts(out, t->variant ? "variant" : "struct");
        return;
    default:
        cs_col_type_simple_string(t, out);
        return;
    }
}

/* Spark's StructType.treeString: one line per field, nested types indented with " |   ". */
static void tree_lines(const cs_col_type *t, const char *prefix, int depth, int max_depth,
                       cs_sbuf *out)
{
    if (max_depth > 0 && depth > max_depth) return;
    char next[512];
    snprintf(next, sizeof next, "%s    |", prefix);
    if (t->id == CS_TYPE_STRUCT && !t->variant) {
        for (int i = 0; i < t->n_fields; i++) {
            cs_sbuf_printf(out, "%s-- %s: ", prefix, t->fields[i].name);
            type_name(t->fields[i].type, out);
            cs_sbuf_printf(out, " (nullable = %s)\n", t->fields[i].nullable ? "true" : "false");
            tree_lines(t->fields[i].type, next, depth + 1, max_depth, out);
        }
    } else if (t->id == CS_TYPE_ARRAY) {
        cs_sbuf_printf(out, "%s-- element: ", prefix);
        type_name(t->fields[0].type, out);
        cs_sbuf_printf(out, " (containsNull = %s)\n", t->fields[0].nullable ? "true" : "false");
        tree_lines(t->fields[0].type, next, depth + 1, max_depth, out);
    } else if (t->id == CS_TYPE_MAP) {
        cs_sbuf_printf(out, "%s-- key: ", prefix);
        type_name(t->fields[0].type, out);
        cs_sbuf_puts(out, "\n");
        tree_lines(t->fields[0].type, next, depth + 1, max_depth, out);
        cs_sbuf_printf(out, "%s-- value: ", prefix);
        type_name(t->fields[1].type, out);
        cs_sbuf_printf(out, " (valueContainsNull = %s)\n",
                       t->fields[1].nullable ? "true" : "false");
        tree_lines(t->fields[1].type, next, depth + 1, max_depth, out);
    }
}

void cs_col_type_tree_string(const cs_col_type *schema, int max_depth, cs_sbuf *out)
{
    cs_sbuf_puts(out, "root\n");
    tree_lines(schema, " |", 1, max_depth, out);
}
