/* parquet_writer_schema.c — the Parquet schema of a Spark struct type, as Spark's
 * SparkToParquetSchemaConverter writes it (the standard layout, not the legacy one), and
 * Spark's schema JSON for the footer's org.apache.spark.sql.parquet.row.metadata.
 *
 *   boolean BOOLEAN; byte/short INT32 INTEGER(8/16, signed); int INT32; long INT64; float FLOAT;
 *   double DOUBLE; decimal(p<=9) INT32, (p<=18) INT64, else FIXED_LEN_BYTE_ARRAY of the fewest
 *   bytes that hold p digits, all DECIMAL(p, s); string BYTE_ARRAY STRING; binary BYTE_ARRAY;
 *   date INT32 DATE; timestamp INT96 (or INT64 TIMESTAMP(MICROS|MILLIS, UTC)); timestamp_ntz
 *   INT64 TIMESTAMP(MICROS, not UTC); array: <name> (LIST) { repeated group list { element } };
 *   map: <name> (MAP) { repeated group key_value { required key; value } }; struct: a group.
 * A nullable field is OPTIONAL, else REQUIRED. Called by parquet_writer.c; see
 * parquet_writer_col.h for ownership.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_writer_col.h"

typedef struct builder {
    cs_parquet_schema_element *elems;
    uint32_t n_elems, cap_elems;
    cs_pqw_leaf *leaves;
    int n_leaves, cap_leaves;
    cs_pqw_step *steps; /* the steps down to the field being built */
    int n_steps, cap_steps;
    cs_parquet_bytes *path; /* the names down to it (repeated groups included) */
    int n_path, cap_path;
    int timestamp;
    int column;
} builder;

static cs_parquet_bytes name_bytes(const char *s)
{
    return (cs_parquet_bytes){(const uint8_t *)s, (uint32_t)strlen(s)};
}

static cs_parquet_schema_element *add_elem(builder *b, const char *name, int repetition)
{
    if (b->n_elems == b->cap_elems) {
        b->cap_elems = b->cap_elems ? 2 * b->cap_elems : 16;
        b->elems = cs_xrealloc(b->elems, b->cap_elems * sizeof *b->elems);
    }
    cs_parquet_schema_element *e = &b->elems[b->n_elems++];
    *e = (cs_parquet_schema_element){
        .type = -1, .repetition = repetition, .name = name_bytes(name), .converted_type = -1};
    return e;
}

static int push_step(builder *b, cs_pqw_step step)
{
    if (b->n_steps == b->cap_steps) {
        b->cap_steps = b->cap_steps ? 2 * b->cap_steps : 8;
        b->steps = cs_xrealloc(b->steps, (size_t)b->cap_steps * sizeof *b->steps);
    }
    b->steps[b->n_steps] = step;
    return b->n_steps++;
}

static void push_path(builder *b, const char *name)
{
    if (b->n_path == b->cap_path) {
        b->cap_path = b->cap_path ? 2 * b->cap_path : 8;
        b->path = cs_xrealloc(b->path, (size_t)b->cap_path * sizeof *b->path);
    }
    b->path[b->n_path++] = name_bytes(name);
}

/* Bytes of the smallest two's-complement integer holding `precision` decimal digits (Spark's
 * Decimal.minBytesForPrecision). */
static int32_t decimal_bytes(int precision)
{
    int32_t n = 1;
    while (pow(2.0, 8.0 * n - 1) < pow(10.0, precision))
        n++;
    return n;
}

static int set_primitive(builder *b, cs_parquet_schema_element *e, const cs_col_type *t,
                         const char *name, cs_error *err)
{
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        e->type = CS_PQ_BOOLEAN;
        break;
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
        e->type = CS_PQ_INT32;
        e->converted_type = t->id == CS_TYPE_BYTE ? CS_PQ_CT_INT_8 : CS_PQ_CT_INT_16;
        e->logical = (cs_parquet_logical_type){.kind = CS_PQ_LT_INTEGER,
                                               .bit_width = t->id == CS_TYPE_BYTE ? 8 : 16,
                                               .is_signed = true};
        break;
    case CS_TYPE_INT:
        e->type = CS_PQ_INT32;
        break;
    case CS_TYPE_LONG:
        e->type = CS_PQ_INT64;
        break;
    case CS_TYPE_FLOAT:
        e->type = CS_PQ_FLOAT;
        break;
    case CS_TYPE_DOUBLE:
        e->type = CS_PQ_DOUBLE;
        break;
    case CS_TYPE_DECIMAL:
        if (t->precision <= 9) {
            e->type = CS_PQ_INT32;
        } else if (t->precision <= 18) {
            e->type = CS_PQ_INT64;
        } else {
            e->type = CS_PQ_FIXED_LEN_BYTE_ARRAY;
            e->type_length = decimal_bytes(t->precision);
        }
        e->converted_type = CS_PQ_CT_DECIMAL;
        e->scale = t->scale;
        e->precision = t->precision;
        e->logical = (cs_parquet_logical_type){
            .kind = CS_PQ_LT_DECIMAL, .scale = t->scale, .precision = t->precision};
        break;
    case CS_TYPE_STRING:
        e->type = CS_PQ_BYTE_ARRAY;
        e->converted_type = CS_PQ_CT_UTF8;
        e->logical.kind = CS_PQ_LT_STRING;
        break;
    case CS_TYPE_BINARY:
        e->type = CS_PQ_BYTE_ARRAY;
        break;
    case CS_TYPE_DATE:
        e->type = CS_PQ_INT32;
        e->converted_type = CS_PQ_CT_DATE;
        e->logical.kind = CS_PQ_LT_DATE;
        break;
    case CS_TYPE_TIMESTAMP:
        if (b->timestamp == CS_PQW_TS_INT96) {
            e->type = CS_PQ_INT96;
            break;
        }
        e->type = CS_PQ_INT64;
        bool millis = b->timestamp == CS_PQW_TS_MILLIS;
        e->converted_type = millis ? CS_PQ_CT_TIMESTAMP_MILLIS : CS_PQ_CT_TIMESTAMP_MICROS;
        e->logical =
            (cs_parquet_logical_type){.kind = CS_PQ_LT_TIMESTAMP,
                                      .utc_adjusted = true,
                                      .unit = millis ? CS_PQ_UNIT_MILLIS : CS_PQ_UNIT_MICROS};
        break;
    case CS_TYPE_TIMESTAMP_NTZ:
        e->type = CS_PQ_INT64;
        e->logical = (cs_parquet_logical_type){
            .kind = CS_PQ_LT_TIMESTAMP, .utc_adjusted = false, .unit = CS_PQ_UNIT_MICROS};
        break;
    default:
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "the Parquet data source does not support the column `%s` of the "
                            "type \"%s\"",
                            name, t->id == CS_TYPE_NULL ? "VOID" : cs_type_id_name(t->id));
    }
    return 0;
}

static void add_leaf(builder *b, const cs_col_type *t, const cs_parquet_schema_element *e)
{
    if (b->n_leaves == b->cap_leaves) {
        b->cap_leaves = b->cap_leaves ? 2 * b->cap_leaves : 8;
        b->leaves = cs_xrealloc(b->leaves, (size_t)b->cap_leaves * sizeof *b->leaves);
    }
    cs_pqw_leaf *l = &b->leaves[b->n_leaves++];
    *l = (cs_pqw_leaf){.column = b->column,
                       .n_steps = b->n_steps,
                       .type = t,
                       .phys = e->type,
                       .type_length = e->type_length,
                       .path_len = (uint32_t)b->n_path};
    l->steps = cs_xmalloc((size_t)b->n_steps * sizeof *l->steps);
    memcpy(l->steps, b->steps, (size_t)b->n_steps * sizeof *l->steps);
    l->path = cs_xmalloc((size_t)b->n_path * sizeof *l->path);
    memcpy(l->path, b->path, (size_t)b->n_path * sizeof *l->path);
    for (int i = 0; i < b->n_steps; i++) {
        if (b->steps[i].optional) l->max_def++;
        if (b->steps[i].kind == CS_PQW_LIST || b->steps[i].kind == CS_PQW_MAP) {
            l->max_def++;
            l->max_rep++;
        }
    }
    cs_sbuf dotted = CS_SBUF_INIT;
    for (int i = 0; i < b->n_path; i++) {
        if (i) cs_sbuf_putc(&dotted, '.');
        cs_sbuf_append(&dotted, l->path[i].ptr, l->path[i].len);
    }
    l->dotted = cs_sbuf_detach(&dotted, NULL);
}

/* Adds the element(s) of the field `name` of type t and the leaves under it. */
static int add_field(builder *b, const char *name, const cs_col_type *t, bool nullable,
                     cs_error *err)
{
    int rep = nullable ? CS_PQ_OPTIONAL : CS_PQ_REQUIRED;
    int si = push_step(b, (cs_pqw_step){.optional = nullable});
    push_path(b, name);
    int rc = 0;
    if (t->id == CS_TYPE_STRUCT) {
        b->steps[si].kind = CS_PQW_STRUCT;
        cs_parquet_schema_element *e = add_elem(b, name, rep);
        e->num_children = t->n_fields;
        if (t->n_fields == 0)
            rc = cs_error_set(err, CS_EUNSUPPORTED,
                              "the Parquet data source cannot write the empty struct `%s`", name);
        for (int k = 0; k < t->n_fields && !rc; k++) {
            b->steps[si].child = k;
            rc = add_field(b, t->fields[k].name, t->fields[k].type, t->fields[k].nullable, err);
        }
    } else if (t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_MAP) {
        bool list = t->id == CS_TYPE_ARRAY;
        b->steps[si].kind = list ? CS_PQW_LIST : CS_PQW_MAP;
        int16_t level = 0;
        for (int i = 0; i <= si; i++)
            level += b->steps[i].kind == CS_PQW_LIST || b->steps[i].kind == CS_PQW_MAP;
        b->steps[si].rep_level = level;
        cs_parquet_schema_element *e = add_elem(b, name, rep);
        e->num_children = 1;
        e->converted_type = list ? CS_PQ_CT_LIST : CS_PQ_CT_MAP;
        e->logical.kind = list ? CS_PQ_LT_LIST : CS_PQ_LT_MAP;
        const char *group = list ? "list" : "key_value";
        e = add_elem(b, group, CS_PQ_REPEATED);
        e->num_children = list ? 1 : 2;
        push_path(b, group);
        for (int k = 0; k < (list ? 1 : 2) && !rc; k++) {
            b->steps[si].child = k;
            const char *child = list ? "element" : k == 0 ? "key" : "value";
            bool child_null = list ? t->fields[0].nullable : k == 1 && t->fields[1].nullable;
            rc = add_field(b, child, t->fields[k].type, child_null, err);
        }
        b->n_path--;
    } else {
        b->steps[si].kind = CS_PQW_LEAF;
        cs_parquet_schema_element *e = add_elem(b, name, rep);
        rc = set_primitive(b, e, t, name, err);
        if (!rc) add_leaf(b, t, e);
    }
    b->n_steps--;
    b->n_path--;
    return rc;
}

int cs_pqw_schema_build(const cs_col_type *schema, int timestamp_mode, cs_pqw_schema *out,
                        cs_error *err)
{
    builder b = {.timestamp = timestamp_mode};
    cs_parquet_schema_element *root = add_elem(&b, "spark_schema", -1);
    root->num_children = schema->n_fields;
    int rc = 0;
    for (int i = 0; i < schema->n_fields && !rc; i++) {
        b.column = i;
        rc = add_field(&b, schema->fields[i].name, schema->fields[i].type,
                       schema->fields[i].nullable, err);
    }
    free(b.steps);
    free(b.path);
    *out = (cs_pqw_schema){
        .elems = b.elems, .n_elems = b.n_elems, .leaves = b.leaves, .n_leaves = b.n_leaves};
    if (rc) cs_pqw_schema_free(out);
    return rc;
}

void cs_pqw_schema_free(cs_pqw_schema *s)
{
    for (int i = 0; i < s->n_leaves; i++) {
        free(s->leaves[i].steps);
        free(s->leaves[i].path);
        free(s->leaves[i].dotted);
    }
    free(s->leaves);
    free(s->elems);
    *s = (cs_pqw_schema){0};
}

/* ---- Spark's DataType.json ------------------------------------------------------------------ */

static json_t *type_json(const cs_col_type *t);

static json_t *struct_json(const cs_col_type *t)
{
    json_t *fields = json_array();
    for (int i = 0; i < t->n_fields; i++) {
        json_t *f = json_object();
        json_object_set_new(f, "name", json_string(t->fields[i].name));
        json_object_set_new(f, "type", type_json(t->fields[i].type));
        json_object_set_new(f, "nullable", json_boolean(t->fields[i].nullable));
        json_object_set_new(f, "metadata", json_object());
        json_array_append_new(fields, f);
    }
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("struct"));
    json_object_set_new(o, "fields", fields);
    return o;
}

static json_t *type_json(const cs_col_type *t)
{
    json_t *o;
    if (cs_col_type_is_variant(t)) return json_string("variant"); /* its group of two binaries */
    switch (t->id) {
    case CS_TYPE_STRUCT:
        return struct_json(t);
    case CS_TYPE_ARRAY:
        o = json_object();
        json_object_set_new(o, "type", json_string("array"));
        json_object_set_new(o, "elementType", type_json(t->fields[0].type));
        json_object_set_new(o, "containsNull", json_boolean(t->fields[0].nullable));
        return o;
    case CS_TYPE_MAP:
        o = json_object();
        json_object_set_new(o, "type", json_string("map"));
        json_object_set_new(o, "keyType", type_json(t->fields[0].type));
        json_object_set_new(o, "valueType", type_json(t->fields[1].type));
        json_object_set_new(o, "valueContainsNull", json_boolean(t->fields[1].nullable));
        return o;
    case CS_TYPE_BYTE:
        return json_string("byte");
    case CS_TYPE_SHORT:
        return json_string("short");
    case CS_TYPE_INT:
        return json_string("integer");
    case CS_TYPE_LONG:
        return json_string("long");
    default: {
        cs_sbuf s = CS_SBUF_INIT; /* "decimal(10,2)", "string", "timestamp_ntz", ... */
        cs_col_type_simple_string(t, &s);
        o = json_string(cs_sbuf_str(&s));
        cs_sbuf_free(&s);
        return o;
    }
    }
}

char *cs_pqw_spark_schema_json(const cs_col_type *schema)
{
    json_t *o = struct_json(schema);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s ? s : cs_xstrdup("{}");
}
