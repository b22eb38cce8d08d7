/*
 * plan_local_relation.c — Spark Connect's LocalRelation (createDataFrame of lists, Rows and
 * pandas frames, and the empty DataFrame of a schema) as a LocalRelation of column batches,
 * following SparkConnectPlanner's transformLocalRelation:
 *
 *   data    an Arrow IPC stream (schema, record batches) read by formats/arrow_ipc.h; each batch
 *           is kept by the arena and the relation's columns are the stream's fields;
 *   schema  Spark's schema string (cs_cp_schema_string: a DataType's JSON, which PySpark sends,
 *           or DDL), a non-struct type meaning one column `value`. With
 *           data, the schema names the columns and their types: a column whose Arrow type
 *           differs is cast to the schema's (Spark's Dataset.to(schema) over the batches).
 *           Without data it is an empty relation of that schema.
 *
 * The server's own extension relations (connect_plan.h's CS_CONNECT_KEPT_CACHED /
 * CS_CONNECT_KEPT_CHECKPOINT, put in place of a persisted or checkpointed DataFrame by
 * connect_persist.c) become the local relation of their rows, or of their relation's schema
 * alone when the rows are not computed (AnalyzePlan), marked for EXPLAIN as Spark's
 * InMemoryRelation (with the storage level's text) or LogicalRDD.
 *
 * Called by plan_relations.c. Ownership: batches and types are kept by the arena; the message's
 * bytes are only read during the call.
 */
#include <stdio.h>
#include <string.h>

#include "common/strutil.h"
#include "connect/plan_internal.h"
#include "formats/arrow_ipc.h"
#include "google/protobuf/any.pb-c.h"
#include "spark/connect/base.pb-c.h"
#include "sql/sql_parser.h"

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
    if (CS_CP_HAS(r, schema) && (rc = cs_cp_schema_string(c, r->schema, true, &schema)) != 0)
        return rc;
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

/* Spark's StorageLevel.toString: "StorageLevel(disk, memory, deserialized, 1 replicas)". */
static const char *storage_level_text(cs_cp *c, const Spark__Connect__StorageLevel *l)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_puts(&b, "StorageLevel(");
    if (l && l->use_disk) cs_sbuf_puts(&b, "disk, ");
    if (l && l->use_memory) cs_sbuf_puts(&b, "memory, ");
    if (l && l->use_off_heap) cs_sbuf_puts(&b, "offheap, ");
    if (l && l->deserialized) cs_sbuf_puts(&b, "deserialized, ");
    cs_sbuf_printf(&b, "%d replicas)", l ? (int)l->replication : 1);
    const char *out = cs_sql_strdup(c->a, cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return out;
}

/* The relation's columns as a struct type (kept by the arena): analyzed, no job runs. */
static int schema_of(cs_cp *c, const Spark__Connect__Relation *rel, cs_col_type **out)
{
    cs_logical_plan *src, *resolved;
    int rc = cs_cp_relation(c, rel, &src);
    if (rc == 0) rc = cs_cp_input_columns(c, src, &resolved);
    if (rc) return rc;
    *out = cs_sql_arena_keep_type(c->a, cs_connect_plan_schema(resolved));
    return 0;
}

int cs_cp_kept_relation(cs_cp *c, const Google__Protobuf__Any *x, cs_logical_plan **out)
{
    const char *type = x && x->type_url ? x->type_url : "";
    bool cached = strcmp(type, CS_CONNECT_KEPT_CACHED) == 0;
    if (!cached && strcmp(type, CS_CONNECT_KEPT_CHECKPOINT) != 0)
        return cs_cp_unsupported(c, "Spark Connect relation extensions");
    Spark__Connect__AnalyzePlanRequest__Persist *k =
        (Spark__Connect__AnalyzePlanRequest__Persist *)protobuf_c_message_unpack(
            &spark__connect__analyze_plan_request__persist__descriptor, NULL, x->value.len,
            x->value.data);
    if (!k || !k->relation) {
        if (k) protobuf_c_message_free_unpacked(&k->base, NULL);
        return cs_cp_invalid(c, "a kept relation without its relation");
    }
    cs_logical_plan *p = NULL;
    int rc = 0;
    if (k->relation->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION) {
        rc = cs_cp_local_relation(c, k->relation->local_relation, &p);
    } else {
        cs_col_type *schema = NULL;
        rc = schema_of(c, k->relation, &schema);
        if (rc == 0) {
            p = cs_logical_plan_new(c->a, CS_LP_LOCAL_RELATION, 0);
            p->declared_schema = schema;
        }
    }
    if (rc == 0 && p->kind == CS_LP_LOCAL_RELATION) {
        p->local_origin = cached ? CS_LOCAL_CACHED : CS_LOCAL_CHECKPOINT;
        p->local_note = cached ? storage_level_text(c, k->storage_level) : "false";
    }
    protobuf_c_message_free_unpacked(&k->base, NULL);
    if (rc == 0) *out = p;
    return rc;
}
