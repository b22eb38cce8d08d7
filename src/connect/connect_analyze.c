/*
 * connect_analyze.c — the AnalyzePlan RPC, as Spark's SparkConnectAnalyzeHandler, on the job
 * thread: the plan is translated (cs_connect_relation_plan) and resolved against the session's
 * catalog without running a job.
 *
 *   schema          the resolved plan's output as a struct DataType
 *   explain         EXPLAIN of the query in the mode asked (simple, extended, formatted, ...)
 *   tree_string     the schema's treeString ("root\n |-- a: integer (nullable = false)"), to level
 *   is_local        the plan is a local relation
 *   is_streaming    false (no streaming sources)
 *   input_files     the files the plan reads (cs_sql_plan_input_files: each relation's files)
 *   spark_version   "4.0.1": the Spark release whose protocol and semantics cspark follows
 *   ddl_parse       a DDL schema ("a int, b string") or type string as a DataType
 *   same_semantics  the two resolved plans print the same once expression ids are set aside
 *   semantic_hash   a hash of that same text
 *
 *   persist         the relation is persisted in the session (connect_persist.c): computed by
 *                   the first action that reads it, then read from the kept rows; the storage
 *                   level asked (Dataset.persist()'s MEMORY_AND_DISK when none) is remembered
 *   unpersist       the relation and its kept rows are forgotten
 *   get_storage_level  the level it was persisted with, StorageLevel.NONE when it is not
 *
 * json_to_ddl is refused with UNSUPPORTED_FEATURE.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/column.h"
#include "connect/connect_internal.h"
#include "connect/connect_plan.h"
#include "connect/connect_types.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/common.pb-c.h"
#include "sql/logical_plan.h"
#include "sql/planner.h"
#include "sql/sql_arena.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

#define SPARK_VERSION "4.0.1"

int cs_connect_relation_plan(cs_sql_session *sql, cs_sql_arena *a,
                             const Spark__Connect__Relation *rel, cs_logical_plan **out,
                             cs_error *err)
{
    if (!rel)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "The plan has no relation.");
    if (rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SQL && rel->sql &&
        rel->sql->n_pos_arguments == 0 && rel->sql->n_named_arguments == 0 &&
        rel->sql->n_args == 0 && rel->sql->n_pos_args == 0) {
        cs_sql_statement *st;
        int rc = cs_sql_parse_statement(a, rel->sql->query, &st, NULL, err);
        if (rc != 0) return rc;
        if (st->kind != CS_STMT_QUERY || !st->plan)
            return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                    "The feature is not supported: a command as a relation.");
        *out = st->plan;
        return 0;
    }
    cs_connect_plan_ctx ctx = {.arena = a, .session = sql, .err = err};
    return cs_connect_plan_relation(&ctx, rel, out);
}

/* The resolved plan of a Plan message's root relation. */
static int resolve(cs_sql_session *sql, cs_sql_arena *a, const Spark__Connect__Plan *plan,
                   cs_logical_plan **resolved, cs_error *err)
{
    if (!plan || plan->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "AnalyzePlan expects a plan with a root relation.");
    cs_logical_plan *p;
    int rc = cs_connect_relation_plan(sql, a, plan->root, &p, err);
    if (rc == 0) rc = cs_sql_session_analyze(sql, a, p, resolved, err);
    return rc;
}

/* The resolved plan's tree with expression ids ("#12") left out: equal for the same query. */
static void canonical_text(const cs_logical_plan *p, cs_sbuf *out)
{
    cs_sbuf raw = CS_SBUF_INIT;
    cs_logical_plan_print(p, &raw);
    const char *s = cs_sbuf_str(&raw);
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '#' && s[i + 1] >= '0' && s[i + 1] <= '9') {
            while (s[i + 1] >= '0' && s[i + 1] <= '9')
                i++;
            continue;
        }
        cs_sbuf_putc(out, s[i]);
    }
    cs_sbuf_free(&raw);
}

static int explain(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                   const Spark__Connect__AnalyzePlanRequest__Explain *e, cs_sbuf *out,
                   cs_error *err)
{
    static const char *const modes[] = {"SIMPLE",  "SIMPLE", "EXTENDED",
                                        "CODEGEN", "COST",   "FORMATTED"};
    if (!e->plan || e->plan->op_type_case != SPARK__CONNECT__PLAN__OP_TYPE_ROOT)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "AnalyzePlan expects a plan with a root relation.");
    cs_logical_plan *p;
    int rc = cs_connect_relation_plan(sql, a, e->plan->root, &p, err);
    if (rc != 0) return rc;
    cs_sql_statement *inner = cs_sql_alloc(a, sizeof *inner);
    inner->kind = CS_STMT_QUERY;
    inner->plan = p;
    cs_sql_statement st = {.kind = CS_STMT_EXPLAIN, .inner = inner, .plan = p};
    size_t m = (size_t)e->explain_mode;
    st.mode = modes[m < sizeof modes / sizeof modes[0] ? m : 0];
    cs_sql_result r;
    bool kept = false;
    rc = cs_connect_run_statement(svc, sql, a, &st, "EXPLAIN", &r, &kept, err);
    if (rc != 0) return rc;
    for (int b = 0; b < r.n_batches; b++)
        for (int64_t i = 0; i < r.batches[b]->num_rows && r.batches[b]->n_columns > 0; i++) {
            int32_t len;
            const uint8_t *s = cs_column_bytes(r.batches[b]->columns[0], i, &len);
            cs_sbuf_append(out, s, (size_t)len);
        }
    cs_sql_result_free(&r);
    return 0;
}

/* A copy of rel (NULL when rel is) with its kept relations marked (cs_connect_kept_mark). */
static Spark__Connect__Relation *
marked_copy(connect_session *s, const Spark__Connect__Relation *rel, int *rc, cs_error *err)
{
    *rc = 0;
    if (!rel) return NULL;
    size_t len = spark__connect__relation__get_packed_size(rel);
    uint8_t *b = cs_xmalloc(len ? len : 1);
    spark__connect__relation__pack(rel, b);
    Spark__Connect__Relation *copy = spark__connect__relation__unpack(NULL, len, b);
    free(b);
    if (!copy) {
        *rc = cs_error_set(err, CS_ENOMEM, "cannot copy a relation");
        return NULL;
    }
    *rc = cs_connect_kept_mark(s, &copy->base, true, err);
    return copy;
}

void cs_connect_analyze_run(cs_connect_service *svc, connect_work *w)
{
    Spark__Connect__AnalyzePlanRequest *req = w->request;
    cs_error err;
    cs_error_clear(&err);
    Spark__Connect__AnalyzePlanResponse resp = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__INIT;
    resp.session_id = req->session_id;
    resp.server_side_session_id = w->sess->server_side_id;
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sbuf text = CS_SBUF_INIT;
    Spark__Connect__DataType *dt = NULL;
    cs_col_type *schema = NULL;
    int rc = 0;
    cs_logical_plan *resolved = NULL, *other = NULL;
    Spark__Connect__AnalyzePlanResponse__Schema r_schema =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SCHEMA__INIT;
    Spark__Connect__AnalyzePlanResponse__Explain r_explain =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__EXPLAIN__INIT;
    Spark__Connect__AnalyzePlanResponse__TreeString r_tree =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__TREE_STRING__INIT;
    Spark__Connect__AnalyzePlanResponse__IsLocal r_local =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__IS_LOCAL__INIT;
    Spark__Connect__AnalyzePlanResponse__IsStreaming r_streaming =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__IS_STREAMING__INIT;
    Spark__Connect__AnalyzePlanResponse__InputFiles r_files =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__INPUT_FILES__INIT;
    Spark__Connect__AnalyzePlanResponse__SparkVersion r_version =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SPARK_VERSION__INIT;
    Spark__Connect__AnalyzePlanResponse__DDLParse r_ddl =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__DDLPARSE__INIT;
    Spark__Connect__AnalyzePlanResponse__SameSemantics r_same =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SAME_SEMANTICS__INIT;
    Spark__Connect__AnalyzePlanResponse__SemanticHash r_hash =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__SEMANTIC_HASH__INIT;
    Spark__Connect__AnalyzePlanResponse__Persist r_persist =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__PERSIST__INIT;
    Spark__Connect__AnalyzePlanResponse__Unpersist r_unpersist =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__UNPERSIST__INIT;
    Spark__Connect__AnalyzePlanResponse__GetStorageLevel r_level =
        SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__GET_STORAGE_LEVEL__INIT;
    Spark__Connect__StorageLevel level_msg = SPARK__CONNECT__STORAGE_LEVEL__INIT;

    cs_sql_session *sql = cs_connect_session_sql(svc, w->sess, &err);
    if (!sql) {
        rc = err.code ? err.code : CS_EINVAL;
        goto out;
    }
    rc = cs_connect_resolve_cached(svc, w->sess, &req->base, &err);
    if (rc != 0) goto out;
    /* persisted and checkpointed relations read as Spark's InMemoryRelation / LogicalRDD (no
     * job runs); the persist requests name their relation by its bytes, kept as sent */
    bool keyed =
        req->analyze_case == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_PERSIST ||
        req->analyze_case == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_UNPERSIST ||
        req->analyze_case == SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_GET_STORAGE_LEVEL;
    if (!keyed && (rc = cs_connect_kept_mark(w->sess, &req->base, true, &err)) != 0) goto out;
    switch (req->analyze_case) {
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SCHEMA:
        rc = resolve(sql, a, req->schema->plan, &resolved, &err);
        if (rc != 0) break;
        schema = cs_connect_plan_schema(resolved);
        r_schema.schema = dt = cs_connect_data_type(schema);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SCHEMA;
        resp.schema = &r_schema;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_EXPLAIN:
        rc = explain(svc, sql, a, req->explain, &text, &err);
        r_explain.explain_string = (char *)cs_sbuf_str(&text);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_EXPLAIN;
        resp.explain = &r_explain;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_TREE_STRING:
        rc = resolve(sql, a, req->tree_string->plan, &resolved, &err);
        if (rc != 0) break;
        schema = cs_connect_plan_schema(resolved);
        cs_col_type_tree_string(
            schema,
            req->tree_string->_level_case ==
                    SPARK__CONNECT__ANALYZE_PLAN_REQUEST__TREE_STRING___LEVEL_LEVEL
                ? req->tree_string->level
                : 0,
            &text);
        r_tree.tree_string = (char *)cs_sbuf_str(&text);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_TREE_STRING;
        resp.tree_string = &r_tree;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_IS_LOCAL: {
        const Spark__Connect__Plan *p = req->is_local->plan;
        r_local.is_local =
            p && p->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT && p->root &&
            p->root->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_IS_LOCAL;
        resp.is_local = &r_local;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_IS_STREAMING:
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_IS_STREAMING;
        resp.is_streaming = &r_streaming;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_INPUT_FILES: {
        rc = resolve(sql, a, req->input_files->plan, &resolved, &err);
        char **files = NULL;
        int n_files = 0;
        if (rc == 0) rc = cs_sql_plan_input_files(resolved, &files, &n_files, &err);
        if (rc != 0) break;
        r_files.files = files;
        r_files.n_files = (size_t)n_files;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_INPUT_FILES;
        resp.input_files = &r_files;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SPARK_VERSION:
        r_version.version = SPARK_VERSION;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SPARK_VERSION;
        resp.spark_version = &r_version;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_DDL_PARSE: {
        /* a table schema ("a int, b string") first, as Spark's parseTableSchema, then a type */
        char *wrapped = NULL;
        if (asprintf(&wrapped, "struct<%s>", req->ddl_parse->ddl_string) < 0) wrapped = NULL;
        cs_col_type *t = NULL;
        cs_error first;
        cs_error_clear(&first);
        rc = wrapped ? cs_sql_parse_data_type(a, wrapped, &t, &first) : CS_ENOMEM;
        free(wrapped);
        if (rc != 0) rc = cs_sql_parse_data_type(a, req->ddl_parse->ddl_string, &t, &err);
        if (rc != 0) break;
        r_ddl.parsed = dt = cs_connect_data_type(t);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_DDL_PARSE;
        resp.ddl_parse = &r_ddl;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SAME_SEMANTICS: {
        rc = resolve(sql, a, req->same_semantics->target_plan, &resolved, &err);
        if (rc == 0) rc = resolve(sql, a, req->same_semantics->other_plan, &other, &err);
        if (rc != 0) break;
        cs_sbuf t2 = CS_SBUF_INIT;
        canonical_text(resolved, &text);
        canonical_text(other, &t2);
        r_same.result = strcmp(cs_sbuf_str(&text), cs_sbuf_str(&t2)) == 0;
        cs_sbuf_free(&t2);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SAME_SEMANTICS;
        resp.same_semantics = &r_same;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_SEMANTIC_HASH: {
        rc = resolve(sql, a, req->semantic_hash->plan, &resolved, &err);
        if (rc != 0) break;
        canonical_text(resolved, &text);
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const char *s = cs_sbuf_str(&text); *s; s++)
            h = (h ^ (uint8_t)*s) * 16777619u;
        r_hash.result = (int32_t)h;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_SEMANTIC_HASH;
        resp.semantic_hash = &r_hash;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_PERSIST: {
        /* Dataset.persist()'s MEMORY_AND_DISK when the client names no level */
        cs_connect_storage_level lv = {true, true, false, true, 1};
        const Spark__Connect__AnalyzePlanRequest__Persist *pr = req->persist;
        if (pr->_storage_level_case && pr->storage_level) {
            const Spark__Connect__StorageLevel *l = pr->storage_level;
            lv = (cs_connect_storage_level){l->use_disk, l->use_memory, l->use_off_heap,
                                            l->deserialized, l->replication};
        }
        /* resolved first, as Spark's Dataset is: a plan that cannot run is refused here */
        cs_logical_plan *p = NULL;
        Spark__Connect__Relation *copy = marked_copy(w->sess, pr->relation, &rc, &err);
        if (rc == 0) rc = cs_connect_relation_plan(sql, a, copy, &p, &err);
        if (copy) protobuf_c_message_free_unpacked(&copy->base, NULL);
        if (rc == 0) rc = cs_sql_session_analyze(sql, a, p, &resolved, &err);
        if (rc == 0) rc = cs_connect_persist(w->sess, pr->relation, &lv, &err);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_PERSIST;
        resp.persist = &r_persist;
        break;
    }
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_UNPERSIST:
        cs_connect_unpersist(w->sess, req->unpersist->relation);
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_UNPERSIST;
        resp.unpersist = &r_unpersist;
        break;
    case SPARK__CONNECT__ANALYZE_PLAN_REQUEST__ANALYZE_GET_STORAGE_LEVEL: {
        cs_connect_storage_level lv =
            cs_connect_storage_level_of(w->sess, req->get_storage_level->relation);
        level_msg.use_disk = lv.use_disk;
        level_msg.use_memory = lv.use_memory;
        level_msg.use_off_heap = lv.use_off_heap;
        level_msg.deserialized = lv.deserialized;
        level_msg.replication = lv.replication;
        r_level.storage_level = &level_msg;
        resp.result_case = SPARK__CONNECT__ANALYZE_PLAN_RESPONSE__RESULT_GET_STORAGE_LEVEL;
        resp.get_storage_level = &r_level;
        break;
    }
    default:
        rc = cs_sql_error_set(&err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                              "The feature is not supported: AnalyzePlan request %d.",
                              (int)req->analyze_case);
        break;
    }
out:
    if (rc != 0)
        cs_connect_fail_call(svc, w->sess, w->call, &err);
    else
        cs_connect_reply(w->call, &resp.base);
    w->call = NULL;
    for (size_t i = 0; i < r_files.n_files; i++)
        free(r_files.files[i]);
    free(r_files.files);
    if (dt) protobuf_c_message_free_unpacked(&dt->base, NULL);
    if (schema) cs_col_type_unref(schema);
    cs_sbuf_free(&text);
    cs_sql_arena_free(a);
}
