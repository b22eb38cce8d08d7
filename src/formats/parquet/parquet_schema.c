/* parquet_schema.c — the footer's schema tree as Spark types (see parquet_schema.h).
 *
 * The schema is a depth-first list of elements where a group says how many children follow;
 * subtree_end() finds where each subtree ends so that a group's children can be looked at
 * before deciding what it is (a LIST's repeated child, a MAP's key_value group). Levels: an
 * OPTIONAL element adds one definition level, a REPEATED one a definition and a repetition
 * level, as parquet_file.c counts them for the leaves.
 */
#include "formats/parquet/parquet_schema.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strutil.h"

#define SPARK_ROW_METADATA "org.apache.spark.sql.parquet.row.metadata"

typedef struct build_ctx {
    const cs_parquet_file *f;
    uint32_t *end;    /* per element: one past its subtree */
    int32_t *leaf_of; /* per element: its leaf column index, -1 for groups */
    cs_error *err;
} build_ctx;

static uint32_t fill_ends(build_ctx *c, uint32_t i)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i];
    uint32_t next = i + 1;
    for (int32_t k = 0; k < e->num_children && next < c->f->meta.num_schema; k++)
        next = fill_ends(c, next);
    c->end[i] = next;
    return next;
}

static char *element_name(const cs_parquet_schema_element *e)
{
    char *s = cs_xmalloc((size_t)e->name.len + 1);
    if (e->name.len) memcpy(s, e->name.ptr, e->name.len);
    s[e->name.len] = 0;
    return s;
}

static int refuse(build_ctx *c, uint32_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(build_ctx *c, uint32_t i, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const cs_parquet_schema_element *e = &c->f->meta.schema[i];
    return cs_error_set(c->err, CS_EPROTO, "%s: column %.*s: %s", c->f->name, (int)e->name.len,
                        (const char *)e->name.ptr, msg);
}

static int decimal_type(build_ctx *c, uint32_t i, int precision, int scale, cs_col_type **t)
{
    if (precision < 1 || precision > CS_DECIMAL_MAX_PRECISION || scale < 0 || scale > precision)
        return refuse(c, i, "decimal(%d,%d) cannot be read (Spark's decimals have 1 to 38 digits)",
                      precision, scale);
    *t = cs_col_type_decimal(precision, scale, NULL);
    return CS_OK;
}

/* The Spark type of a leaf and how its values convert. */
static int leaf_type(build_ctx *c, uint32_t i, cs_col_type **t, cs_pq_conv *conv)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i];
    const cs_parquet_logical_type *lt = &e->logical;
    int ct = e->converted_type;
    bool is_decimal = lt->kind == CS_PQ_LT_DECIMAL || (lt->kind == 0 && ct == CS_PQ_CT_DECIMAL);
    int precision = lt->kind == CS_PQ_LT_DECIMAL ? lt->precision : e->precision;
    int scale = lt->kind == CS_PQ_LT_DECIMAL ? lt->scale : e->scale;
    int bits = 0;
    bool is_signed = true;
    if (lt->kind == CS_PQ_LT_INTEGER) {
        bits = lt->bit_width;
        is_signed = lt->is_signed;
    } else if (lt->kind == 0 && ct >= CS_PQ_CT_UINT_8 && ct <= CS_PQ_CT_INT_64) {
        static const int widths[] = {8, 16, 32, 64, 8, 16, 32, 64};
        bits = widths[ct - CS_PQ_CT_UINT_8];
        is_signed = ct >= CS_PQ_CT_INT_8;
    }
    if (lt->kind == CS_PQ_LT_TIME ||
        (lt->kind == 0 && (ct == CS_PQ_CT_TIME_MILLIS || ct == CS_PQ_CT_TIME_MICROS)))
        return refuse(c, i, "Parquet type TIME is not supported");
    if (lt->kind == CS_PQ_LT_FLOAT16) return refuse(c, i, "Parquet type FLOAT16 is not supported");
    if (ct == CS_PQ_CT_INTERVAL) return refuse(c, i, "Parquet type INTERVAL is not supported");
    switch (e->type) {
    case CS_PQ_BOOLEAN:
        *t = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        *conv = CS_PQ_CONV_BOOL;
        return CS_OK;
    case CS_PQ_INT32:
        if (is_decimal) {
            *conv = CS_PQ_CONV_I32_TO_DEC;
            return decimal_type(c, i, precision, scale, t);
        }
        if (lt->kind == CS_PQ_LT_DATE || (lt->kind == 0 && ct == CS_PQ_CT_DATE)) {
            *t = cs_col_type_primitive(CS_TYPE_DATE);
            *conv = CS_PQ_CONV_COPY;
            return CS_OK;
        }
        if (bits && !is_signed) {
            *conv = bits == 8    ? CS_PQ_CONV_U32_TO_I16
                    : bits == 16 ? CS_PQ_CONV_U32_TO_I32
                                 : CS_PQ_CONV_U32_TO_I64;
            *t = cs_col_type_primitive(bits == 8    ? CS_TYPE_SHORT
                                       : bits == 16 ? CS_TYPE_INT
                                                    : CS_TYPE_LONG);
            return CS_OK;
        }
        *conv = bits == 8    ? CS_PQ_CONV_I32_TO_I8
                : bits == 16 ? CS_PQ_CONV_I32_TO_I16
                             : CS_PQ_CONV_COPY;
        *t = cs_col_type_primitive(bits == 8    ? CS_TYPE_BYTE
                                   : bits == 16 ? CS_TYPE_SHORT
                                                : CS_TYPE_INT);
        return CS_OK;
    case CS_PQ_INT64:
        if (is_decimal) {
            *conv = CS_PQ_CONV_I64_TO_DEC;
            return decimal_type(c, i, precision, scale, t);
        }
        if (bits && !is_signed) {
            *conv = CS_PQ_CONV_U64_TO_DEC;
            *t = cs_col_type_decimal(20, 0, NULL);
            return CS_OK;
        }
        if (lt->kind == CS_PQ_LT_TIMESTAMP) {
            *conv = lt->unit == CS_PQ_UNIT_MILLIS  ? CS_PQ_CONV_MILLIS
                    : lt->unit == CS_PQ_UNIT_NANOS ? CS_PQ_CONV_NANOS
                                                   : CS_PQ_CONV_COPY;
            *t =
                cs_col_type_primitive(lt->utc_adjusted ? CS_TYPE_TIMESTAMP : CS_TYPE_TIMESTAMP_NTZ);
            return CS_OK;
        }
        if (lt->kind == 0 && (ct == CS_PQ_CT_TIMESTAMP_MILLIS || ct == CS_PQ_CT_TIMESTAMP_MICROS)) {
            *conv = ct == CS_PQ_CT_TIMESTAMP_MILLIS ? CS_PQ_CONV_MILLIS : CS_PQ_CONV_COPY;
            *t = cs_col_type_primitive(CS_TYPE_TIMESTAMP);
            return CS_OK;
        }
        *conv = CS_PQ_CONV_COPY;
        *t = cs_col_type_primitive(CS_TYPE_LONG);
        return CS_OK;
    case CS_PQ_INT96:
        *conv = CS_PQ_CONV_INT96;
        *t = cs_col_type_primitive(CS_TYPE_TIMESTAMP);
        return CS_OK;
    case CS_PQ_FLOAT:
    case CS_PQ_DOUBLE:
        *conv = CS_PQ_CONV_COPY;
        *t = cs_col_type_primitive(e->type == CS_PQ_FLOAT ? CS_TYPE_FLOAT : CS_TYPE_DOUBLE);
        return CS_OK;
    case CS_PQ_BYTE_ARRAY:
    case CS_PQ_FIXED_LEN_BYTE_ARRAY:
        if (is_decimal) {
            *conv = CS_PQ_CONV_BE_TO_DEC;
            return decimal_type(c, i, precision, scale, t);
        }
        *conv = e->type == CS_PQ_BYTE_ARRAY ? CS_PQ_CONV_BYTES : CS_PQ_CONV_FIXED_BYTES;
        bool text = e->type == CS_PQ_BYTE_ARRAY &&
                    (lt->kind == CS_PQ_LT_STRING || lt->kind == CS_PQ_LT_ENUM ||
                     lt->kind == CS_PQ_LT_JSON ||
                     (lt->kind == 0 &&
                      (ct == CS_PQ_CT_UTF8 || ct == CS_PQ_CT_ENUM || ct == CS_PQ_CT_JSON)));
        *t = cs_col_type_primitive(text ? CS_TYPE_STRING : CS_TYPE_BINARY);
        return CS_OK;
    default:
        return refuse(c, i, "unknown physical type %d", e->type);
    }
}

static void finish_group(cs_pq_node *n)
{
    n->first_leaf = n->children[0].first_leaf;
    n->end_leaf = n->children[n->n_children - 1].end_leaf;
    for (int k = 0; k < n->n_children; k++)
        n->children[k].parent = n;
}

static int convert(build_ctx *c, uint32_t i, int16_t def, int16_t rep, bool as_required,
                   cs_pq_node *out);

/* Converts the children of group i (def/rep: the group's own levels) into a struct node. */
static int convert_struct(build_ctx *c, uint32_t i, int16_t def, int16_t rep, cs_pq_node *out)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i];
    out->kind = CS_PQ_NODE_STRUCT;
    out->n_children = e->num_children;
    out->children = cs_xcalloc((size_t)e->num_children, sizeof *out->children);
    cs_col_field *fields = cs_xcalloc((size_t)e->num_children, sizeof *fields);
    uint32_t k = i + 1;
    int rc = CS_OK;
    for (int32_t n = 0; n < e->num_children; n++) {
        if ((rc = convert(c, k, def, rep, false, &out->children[n]))) break;
        fields[n] = (cs_col_field){out->children[n].name, cs_col_type_ref(out->children[n].type),
                                   out->children[n].nullable};
        k = c->end[k];
    }
    if (rc) {
        for (int32_t n = 0; n < e->num_children; n++)
            cs_col_type_unref(fields[n].type);
        free(fields);
        return rc;
    }
    out->type = cs_col_type_struct(fields, e->num_children);
    free(fields);
    finish_group(out);
    return CS_OK;
}

static bool is_list(const cs_parquet_schema_element *e)
{
    return e->logical.kind == CS_PQ_LT_LIST ||
           (e->logical.kind == 0 && e->converted_type == CS_PQ_CT_LIST);
}

static bool is_map(const cs_parquet_schema_element *e)
{
    return e->logical.kind == CS_PQ_LT_MAP ||
           (e->logical.kind == 0 &&
            (e->converted_type == CS_PQ_CT_MAP || e->converted_type == CS_PQ_CT_MAP_KEY_VALUE));
}

/* A LIST group at levels (def, rep) with its repeated child r. */
static int convert_list(build_ctx *c, uint32_t i, int16_t def, int16_t rep, cs_pq_node *out)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i], *re;
    uint32_t r = i + 1;
    if (e->num_children != 1 || (re = &c->f->meta.schema[r])->repetition != CS_PQ_REPEATED)
        return refuse(c, i, "a LIST group must have one repeated child");
    out->kind = CS_PQ_NODE_LIST;
    out->entry_def = (int16_t)(def + 1);
    out->entry_rep = (int16_t)(rep + 1);
    out->n_children = 1;
    out->children = cs_xcalloc(1, sizeof *out->children);
    int rc;
    size_t nl = e->name.len;
    bool tuple = re->name.len == nl + 6 && memcmp(re->name.ptr, e->name.ptr, nl) == 0 &&
                 memcmp(re->name.ptr + nl, "_tuple", 6) == 0;
    bool legacy = re->num_children == 0 || re->num_children > 1 ||
                  (re->name.len == 5 && memcmp(re->name.ptr, "array", 5) == 0) || tuple;
    if (legacy) /* 2-level: the repeated field itself is the (required) element */
        rc = convert(c, r, out->entry_def, out->entry_rep, true, &out->children[0]);
    else
        rc = convert(c, r + 1, out->entry_def, out->entry_rep, false, &out->children[0]);
    if (rc) return rc;
    cs_pq_node *el = &out->children[0];
    out->type = cs_col_type_array(cs_col_type_ref(el->type), el->nullable);
    finish_group(out);
    return CS_OK;
}

static int convert_map(build_ctx *c, uint32_t i, int16_t def, int16_t rep, cs_pq_node *out)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i], *kv;
    uint32_t r = i + 1;
    if (e->num_children != 1 || (kv = &c->f->meta.schema[r])->repetition != CS_PQ_REPEATED ||
        kv->num_children != 2)
        return refuse(c, i, "a MAP group must have one repeated key_value group of 2 fields");
    out->kind = CS_PQ_NODE_MAP;
    out->entry_def = (int16_t)(def + 1);
    out->entry_rep = (int16_t)(rep + 1);
    out->n_children = 2;
    out->children = cs_xcalloc(2, sizeof *out->children);
    int rc = convert(c, r + 1, out->entry_def, out->entry_rep, false, &out->children[0]);
    if (!rc)
        rc = convert(c, c->end[r + 1], out->entry_def, out->entry_rep, false, &out->children[1]);
    if (rc) return rc;
    out->type = cs_col_type_map(cs_col_type_ref(out->children[0].type),
                                cs_col_type_ref(out->children[1].type), out->children[1].nullable);
    finish_group(out);
    return CS_OK;
}

/* Element i under a parent at levels (def, rep). as_required: the element of a legacy list,
 * whose REPEATED repetition the list already counted. */
static int convert(build_ctx *c, uint32_t i, int16_t def, int16_t rep, bool as_required,
                   cs_pq_node *out)
{
    const cs_parquet_schema_element *e = &c->f->meta.schema[i];
    out->name = element_name(e);
    out->leaf = -1;
    if (e->repetition == CS_PQ_REPEATED && !as_required) {
        /* a repeated field outside a LIST: an array of non-null elements */
        out->kind = CS_PQ_NODE_LIST;
        out->def = def;
        out->rep = rep;
        out->entry_def = (int16_t)(def + 1);
        out->entry_rep = (int16_t)(rep + 1);
        out->n_children = 1;
        out->children = cs_xcalloc(1, sizeof *out->children);
        int rc = convert(c, i, out->entry_def, out->entry_rep, true, &out->children[0]);
        if (rc) return rc;
        out->type = cs_col_type_array(cs_col_type_ref(out->children[0].type), false);
        finish_group(out);
        return CS_OK;
    }
    out->nullable = !as_required && e->repetition == CS_PQ_OPTIONAL;
    out->def = (int16_t)(def + out->nullable);
    out->rep = rep;
    if (e->num_children == 0) {
        out->kind = CS_PQ_NODE_LEAF;
        out->leaf = c->leaf_of[i];
        if (out->leaf < 0) return refuse(c, i, "a leaf the footer does not list");
        out->first_leaf = out->leaf;
        out->end_leaf = out->leaf + 1;
        return leaf_type(c, i, &out->type, &out->conv);
    }
    if (is_list(e)) return convert_list(c, i, out->def, rep, out);
    if (is_map(e)) return convert_map(c, i, out->def, rep, out);
    return convert_struct(c, i, out->def, rep, out);
}

static void free_node(cs_pq_node *n)
{
    for (int k = 0; k < n->n_children && n->children; k++)
        free_node(&n->children[k]);
    free(n->children);
    free(n->name);
    cs_col_type_unref(n->type);
    memset(n, 0, sizeof *n);
}

void cs_pq_schema_free(cs_pq_schema *s)
{
    free_node(&s->root);
}

int cs_pq_schema_build(const cs_parquet_file *f, cs_pq_schema *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    out->file = f;
    uint32_t n = f->meta.num_schema;
    build_ctx c = {f, cs_xcalloc(n, sizeof(uint32_t)), cs_xmalloc(n * sizeof(int32_t)), err};
    for (uint32_t i = 0; i < n; i++)
        c.leaf_of[i] = -1;
    for (uint32_t k = 0; k < f->num_columns; k++)
        if (f->columns[k].schema_index < n) c.leaf_of[f->columns[k].schema_index] = (int32_t)k;
    fill_ends(&c, 0);
    out->root.leaf = -1;
    out->root.name = cs_xstrdup("");
    int rc = convert_struct(&c, 0, 0, 0, &out->root);
    free(c.end);
    free(c.leaf_of);
    if (rc) cs_pq_schema_free(out);
    return rc;
}

const cs_pq_node *cs_pq_node_field(const cs_pq_node *n, const char *name)
{
    for (int k = 0; k < n->n_children; k++)
        if (strcmp(n->children[k].name, name) == 0) return &n->children[k];
    for (int k = 0; k < n->n_children; k++)
        if (strcasecmp(n->children[k].name, name) == 0) return &n->children[k];
    return NULL;
}

/* ---- Spark's schema JSON (DataType.json) ---- */

static cs_col_type *spark_json_type(json_t *j);

static cs_col_type *spark_json_struct(json_t *j)
{
    json_t *fields = json_object_get(j, "fields");
    if (!json_is_array(fields)) return NULL;
    size_t n = json_array_size(fields);
    cs_col_field *fs = cs_xcalloc(n ? n : 1, sizeof *fs);
    cs_col_type *t = NULL;
    size_t k;
    for (k = 0; k < n; k++) {
        json_t *f = json_array_get(fields, k);
        const char *name = json_string_value(json_object_get(f, "name"));
        json_t *nullable = json_object_get(f, "nullable");
        if (!name || !(fs[k].type = spark_json_type(json_object_get(f, "type")))) break;
        fs[k].name = (char *)name;
        fs[k].nullable = !json_is_false(nullable);
    }
    if (k == n)
        t = cs_col_type_struct(fs, (int)n);
    else
        for (size_t m = 0; m < k; m++)
            cs_col_type_unref(fs[m].type);
    free(fs);
    return t;
}

static cs_col_type *spark_json_type(json_t *j)
{
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        static const struct {
            const char *name;
            cs_type_id id;
        } names[] = {{"boolean", CS_TYPE_BOOLEAN},     {"byte", CS_TYPE_BYTE},
                     {"short", CS_TYPE_SHORT},         {"integer", CS_TYPE_INT},
                     {"long", CS_TYPE_LONG},           {"float", CS_TYPE_FLOAT},
                     {"double", CS_TYPE_DOUBLE},       {"string", CS_TYPE_STRING},
                     {"binary", CS_TYPE_BINARY},       {"date", CS_TYPE_DATE},
                     {"timestamp", CS_TYPE_TIMESTAMP}, {"timestamp_ntz", CS_TYPE_TIMESTAMP_NTZ}};
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strcmp(s, names[k].name) == 0) return cs_col_type_primitive(names[k].id);
        int p, sc;
        if (sscanf(s, "decimal(%d,%d)", &p, &sc) == 2 || sscanf(s, "decimal(%d, %d)", &p, &sc) == 2)
            return cs_col_type_decimal(p, sc, NULL);
        if (strcmp(s, "decimal") == 0) return cs_col_type_decimal(10, 0, NULL);
        if (strncmp(s, "char(", 5) == 0 || strncmp(s, "varchar(", 8) == 0)
            return cs_col_type_primitive(CS_TYPE_STRING);
        if (strcmp(s, "variant") == 0) return cs_col_type_variant(); /* group value, metadata */
        return NULL;
    }
    const char *kind = json_string_value(json_object_get(j, "type"));
    if (!kind) return NULL;
    if (strcmp(kind, "struct") == 0) return spark_json_struct(j);
    if (strcmp(kind, "array") == 0) {
        cs_col_type *el = spark_json_type(json_object_get(j, "elementType"));
        return el ? cs_col_type_array(el, !json_is_false(json_object_get(j, "containsNull")))
                  : NULL;
    }
    if (strcmp(kind, "map") == 0) {
        cs_col_type *k = spark_json_type(json_object_get(j, "keyType"));
        cs_col_type *v = k ? spark_json_type(json_object_get(j, "valueType")) : NULL;
        if (!v) {
            cs_col_type_unref(k);
            return NULL;
        }
        return cs_col_type_map(k, v, !json_is_false(json_object_get(j, "valueContainsNull")));
    }
    return NULL;
}

cs_col_type *cs_parquet_spark_schema(const cs_pq_schema *s)
{
    const cs_parquet_meta *m = &s->file->meta;
    for (uint32_t k = 0; k < m->num_kv; k++) {
        const cs_parquet_key_value *kv = &m->kv[k];
        if (kv->key.len != strlen(SPARK_ROW_METADATA) || !kv->value.ptr ||
            memcmp(kv->key.ptr, SPARK_ROW_METADATA, kv->key.len) != 0)
            continue;
        json_t *j = json_loadb((const char *)kv->value.ptr, kv->value.len, 0, NULL);
        cs_col_type *t = j ? spark_json_type(j) : NULL;
        json_decref(j);
        if (t && t->id == CS_TYPE_STRUCT) return t;
        cs_col_type_unref(t); /* unparsable: the file's own schema, as Spark falls back */
    }
    return cs_col_type_ref(s->root.type);
}
