/*
 * plan_local_relation.c — Spark Connect's LocalRelation (createDataFrame of lists, Rows and
 * pandas frames, and the empty DataFrame of a schema) as a LocalRelation of column batches,
 * following SparkConnectPlanner's transformLocalRelation:
 *
 *   data    an Arrow IPC stream (schema, record batches) read by formats/arrow_ipc.h; each batch
 *           is kept by the arena and the relation's columns are the stream's fields;
 *   schema  Spark's schema string: a DataType's JSON (what PySpark sends: StructType.json()),
 *           else DDL ("a int, b string"), a non-struct type meaning one column `value`. With
 *           data, the schema names the columns and their types: a column whose Arrow type
 *           differs is cast to the schema's (Spark's Dataset.to(schema) over the batches).
 *           Without data it is an empty relation of that schema.
 *
 * Called by plan_relations.c. Ownership: batches and types are kept by the arena; the message's
 * bytes are only read during the call.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "formats/arrow_ipc.h"
#include "sql/sql_parser.h"

/* ---- Spark's DataType JSON ---- */

static int spark_json_type(cs_cp *c, json_t *j, int depth, cs_col_type **out);

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

/* LocalRelation's schema: JSON first when it looks like JSON, else Spark's DDL rules. */
static int schema_of(cs_cp *c, const char *text, cs_col_type **out)
{
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    if (*p == '{' || *p == '"') {
        json_error_t je;
        json_t *j = json_loads(p, JSON_DECODE_ANY, &je);
        if (!j) return cs_cp_invalid(c, "Invalid schema %s: %s", text, je.text);
        int rc = spark_json_type(c, j, 0, out);
        json_decref(j);
        if (rc) return rc;
        if ((*out)->id != CS_TYPE_STRUCT) {
            cs_col_field f = {"value", cs_col_type_ref(*out), true};
            *out = cs_sql_arena_keep_type(c->a, cs_col_type_struct(&f, 1));
        }
        return 0;
    }
    return cs_cp_schema_string(c, text, true, out);
}

/* ---- the relation ---- */

static int read_batches(cs_cp *c, const ProtobufCBinaryData *data, cs_logical_plan *p,
                        cs_col_type **stream_schema)
{
    cs_ipc_mem_source src = {data->data, data->len, 0};
    cs_ipc_reader *r = NULL;
    int rc =
        cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "a client's local relation", &r, c->err);
    if (rc) return rc;
    *stream_schema =
        cs_sql_arena_keep_type(c->a, cs_col_type_ref((cs_col_type *)cs_ipc_reader_schema(r)));
    int n = 0, cap = 0;
    cs_col_batch **batches = NULL;
    for (;;) {
        cs_col_batch *b;
        int got = cs_ipc_reader_next(r, &b, c->err);
        if (got < 0) {
            rc = got;
            break;
        }
        if (got == 0) break;
        cs_sql_arena_keep_batch(c->a, b);
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            cs_col_batch **nb = (cs_col_batch **)cs_cp_array(c, (size_t)cap);
            if (n) memcpy(nb, batches, sizeof *nb * (size_t)n);
            batches = nb;
        }
        batches[n++] = b;
    }
    cs_ipc_reader_free(r);
    p->n_batches = n;
    p->batches = batches;
    return rc;
}

int cs_cp_local_relation(cs_cp *c, const Spark__Connect__LocalRelation *r, cs_logical_plan **out)
{
    cs_col_type *schema = NULL, *stream = NULL;
    int rc = 0;
    if (CS_CP_HAS(r, schema) && (rc = schema_of(c, r->schema, &schema)) != 0) return rc;
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_LOCAL_RELATION, 0);
    if (!CS_CP_HAS(r, data)) {
        if (!schema)
            return cs_cp_invalid(c, "Schema for LocalRelation is required when the input data "
                                    "is not provided.");
        p->declared_schema = schema;
        *out = p;
        return 0;
    }
    if ((rc = read_batches(c, &r->data, p, &stream)) != 0) return rc;
    if (!schema) {
        p->declared_schema = stream;
        *out = p;
        return 0;
    }
    if (schema->n_fields != stream->n_fields)
        return cs_cp_invalid(c, "the schema of a local relation has %d columns, its data %d",
                             schema->n_fields, stream->n_fields);
    /* the data's columns under the schema's names, cast where the types differ */
    p->declared_schema = stream;
    bool same = true;
    for (int i = 0; i < schema->n_fields; i++)
        same &= cs_col_type_equal(schema->fields[i].type, stream->fields[i].type) &&
                strcmp(schema->fields[i].name, stream->fields[i].name) == 0;
    if (same) {
        p->declared_schema = schema;
        *out = p;
        return 0;
    }
    cs_logical_plan *named = cs_logical_plan_new(c->a, CS_LP_SUBQUERY_ALIAS, 1);
    named->children[0] = p;
    named->alias = "__auto_generated_subquery_name";
    named->n_column_aliases = schema->n_fields;
    named->column_aliases = (const char **)cs_cp_array(c, (size_t)schema->n_fields);
    for (int i = 0; i < schema->n_fields; i++) {
        char col[32];
        snprintf(col, sizeof col, "col_%d", i); /* Spark's normalized names before toDF */
        named->column_aliases[i] = cs_sql_strdup(c->a, col);
    }
    cs_logical_plan *proj = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    proj->children[0] = named;
    proj->n_exprs = schema->n_fields;
    proj->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)schema->n_fields);
    for (int i = 0; i < schema->n_fields; i++) {
        cs_sql_expr *e = cs_cp_column1(c, named->column_aliases[i]);
        if (!cs_col_type_equal(schema->fields[i].type, stream->fields[i].type)) {
            cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
            x->args[0] = e;
            x->cast_type = schema->fields[i].type;
            x->cast_mode = CS_CAST_ANSI;
            e = x;
        }
        proj->exprs[i] = cs_cp_alias(c, e, schema->fields[i].name);
    }
    *out = proj;
    return 0;
}
