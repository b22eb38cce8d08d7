/*
 * connect_config.c — the Config RPC (spark.conf in a Spark Connect client), as Spark's
 * SparkConnectConfigHandler over the session's RuntimeConfig, on the work's thread:
 *
 *   set (pairs)             SET key=value in the session (a known key's value is checked; a
 *                           pair without a value is refused: IllegalArgumentException)
 *   get (keys)              the values; a key with no value and no default fails the call with
 *                           SQL_CONF_NOT_FOUND (the client raises SparkNoSuchElementException)
 *   get_with_default        the value set, else the default the client gave (even none: a
 *                           known key's own default is not used, as RuntimeConfig.get(k, d))
 *   get_option              the value, else the key without a value
 *   get_all (prefix)        every key with a value starting with prefix
 *   unset (keys)            RESET key
 *   is_modifiable (keys)    "true" for session (spark.sql.*) keys that are not static
 *
 * A key's value is the session's (SET, or the application's spark.sql.* keys), else the
 * application's conf, else Spark's default for the keys Spark's clients read (the table below,
 * Spark 4.0's SQLConf defaults; the session's own known keys have theirs in session/sql_conf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/column.h"
#include "connect/connect_internal.h"
#include "spark/connect/base.pb-c.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sqlexec/sql_error.h"

/* Spark 4.0's defaults of keys its Python client reads and cspark's session does not define. */
static const struct {
    const char *key, *value;
} spark_defaults[] = {
    {"spark.sql.repl.eagerEval.enabled", "false"},
    {"spark.sql.repl.eagerEval.maxNumRows", "20"},
    {"spark.sql.repl.eagerEval.truncate", "20"},
    {"spark.sql.execution.arrow.pyspark.enabled", "false"},
    {"spark.sql.execution.arrow.pyspark.fallback.enabled", "true"},
    {"spark.sql.execution.arrow.maxRecordsPerBatch", "10000"},
    {"spark.sql.execution.arrow.useLargeVarTypes", "false"},
    {"spark.sql.execution.arrow.pyspark.selfDestruct.enabled", "false"},
    {"spark.sql.execution.pandas.inferPandasDictAsMap", "false"},
    {"spark.sql.execution.pythonUDTF.arrow.enabled", "false"},
    {"spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled", "false"},
    {"spark.sql.artifact.isolation.enabled", "true"},
    {"spark.sql.artifact.isolation.alwaysApplyClassloader", "false"},
    {"spark.sql.streaming.stateStore.providerClass",
     "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"},
    {"spark.sql.execution.pandas.convertToArrowArraySafely", "false"},
    {"spark.sql.execution.pandas.structHandlingMode", "legacy"},
    {"spark.sql.execution.pythonUDF.arrow.enabled", "false"},
    {"spark.sql.pyspark.inferNestedDictAsStruct.enabled", "false"},
    {"spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled", "false"},
    {"spark.sql.pyspark.jvmStacktrace.enabled", "false"},
    {"spark.sql.caseSensitive", "false"},
    {"spark.sql.timestampType", "TIMESTAMP_LTZ"},
    {"spark.sql.legacy.timeParserPolicy", "CORRECTED"},
    {"spark.sql.session.localRelationCacheThreshold", "67108864"},
    /* keys the 4.1 client reads in createDataFrame (a missing one fails it): the chunking of
     * local data it caches. The 4.0.1 protocol this server speaks has no chunked cached
     * relation, so they only need to be valid numbers: 10000 rows, 16 MiB, 128 MiB */
    {"spark.sql.session.localRelationChunkSizeRows", "10000"},
    {"spark.sql.session.localRelationChunkSizeBytes", "16777216"},
    {"spark.sql.session.localRelationBatchOfChunksSizeBytes", "134217728"},
    {"spark.sql.connect.enrichError.enabled", "true"},
    {"spark.sql.connect.serverStacktrace.enabled", "false"},
    {"spark.sql.warehouse.dir", "spark-warehouse"},
    {"spark.sql.catalogImplementation", "in-memory"},
};

/* Static SQL keys (Spark's StaticSQLConf): read-only once the session exists. */
static const char *const static_keys[] = {"spark.sql.warehouse.dir",
                                          "spark.sql.catalogImplementation", "spark.sql.extensions",
                                          "spark.sql.globalTempDatabase"};

static const char *lookup(cs_connect_service *svc, cs_sql_session *sql, const char *key)
{
    const char *v = cs_sql_session_conf(sql, key);
    if (!v) v = cspark_conf_get(svc->opts.sc, key);
    for (size_t i = 0; !v && i < sizeof spark_defaults / sizeof spark_defaults[0]; i++)
        if (strcmp(spark_defaults[i].key, key) == 0) v = spark_defaults[i].value;
    return v;
}

static bool modifiable(const char *key)
{
    if (strncmp(key, "spark.sql.", 10) != 0) return false;
    for (size_t i = 0; i < sizeof static_keys / sizeof static_keys[0]; i++)
        if (strcmp(static_keys[i], key) == 0) return false;
    return true;
}

/* SET key=value or RESET key (value NULL) through the session, as the SQL statements do. */
static int set_or_reset(cs_connect_service *svc, cs_sql_session *sql, const char *key,
                        const char *value, cs_error *err)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement st = {
        .kind = CS_STMT_SET, .mode = value ? "SET" : "RESET", .key = key, .value = value};
    cs_sql_result r;
    bool kept = false;
    int rc = cs_connect_run_statement(svc, sql, a, &st, value ? "SET" : "RESET", &r, &kept, err);
    if (rc == 0) cs_sql_result_free(&r);
    if (!kept) cs_sql_arena_free(a);
    return rc;
}

typedef struct pairs {
    Spark__Connect__KeyValue **kv;
    size_t n, cap;
} pairs;

static void add_pair(pairs *p, const char *key, const char *value)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->kv = cs_xrealloc(p->kv, p->cap * sizeof *p->kv);
    }
    Spark__Connect__KeyValue *kv = cs_xmalloc(sizeof *kv);
    spark__connect__key_value__init(kv);
    kv->key = cs_xstrdup(key);
    if (value) {
        kv->_value_case = SPARK__CONNECT__KEY_VALUE___VALUE_VALUE;
        kv->value = cs_xstrdup(value);
    }
    p->kv[p->n++] = kv;
}

static void free_pairs(pairs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->kv[i]->key);
        if (p->kv[i]->_value_case == SPARK__CONNECT__KEY_VALUE___VALUE_VALUE) free(p->kv[i]->value);
        free(p->kv[i]);
    }
    free(p->kv);
}

/* get_all: SET's rows (every key with a value) filtered by prefix. */
static int all_pairs(cs_connect_service *svc, cs_sql_session *sql, const char *prefix, pairs *p,
                     cs_error *err)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement st = {.kind = CS_STMT_SET, .mode = "SET"};
    cs_sql_result r;
    bool kept = false;
    int rc = cs_connect_run_statement(svc, sql, a, &st, "SET", &r, &kept, err);
    if (!kept) cs_sql_arena_free(a);
    if (rc != 0) return rc;
    size_t plen = prefix ? strlen(prefix) : 0;
    for (int b = 0; b < r.n_batches; b++) {
        const cs_col_batch *batch = r.batches[b];
        if (batch->n_columns < 2) continue;
        for (int64_t i = 0; i < batch->num_rows; i++) {
            int32_t klen, vlen;
            const uint8_t *k = cs_column_bytes(batch->columns[0], i, &klen);
            const uint8_t *v = cs_column_bytes(batch->columns[1], i, &vlen);
            char *key = cs_xmalloc((size_t)klen + 1), *value = cs_xmalloc((size_t)vlen + 1);
            memcpy(key, k, (size_t)klen);
            key[klen] = '\0';
            memcpy(value, v, (size_t)vlen);
            value[vlen] = '\0';
            if (!plen || strncmp(key, prefix, plen) == 0) add_pair(p, key, value);
            free(key);
            free(value);
        }
    }
    cs_sql_result_free(&r);
    return 0;
}

void cs_connect_config_run(cs_connect_service *svc, connect_work *w)
{
    Spark__Connect__ConfigRequest *req = w->request;
    cs_error err;
    cs_error_clear(&err);
    pairs p = {0};
    int rc = 0;
    cs_sql_session *sql = cs_connect_session_sql(svc, w->sess, &err);
    const Spark__Connect__ConfigRequest__Operation *op = req->operation;
    if (!sql) {
        rc = err.code ? err.code : CS_EINVAL;
    } else if (!op) {
        rc = cs_error_set(&err, CS_EINVAL, "ConfigRequest without an operation");
    } else {
        switch (op->op_type_case) {
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_SET:
            for (size_t i = 0; rc == 0 && i < op->set->n_pairs; i++) {
                const Spark__Connect__KeyValue *kv = op->set->pairs[i];
                if (kv->_value_case != SPARK__CONNECT__KEY_VALUE___VALUE_VALUE) {
                    /* RuntimeConfig.set refuses a null value (IllegalArgumentException) */
                    rc = cs_error_set(&err, CS_EINVAL, "value cannot be null for key: %s", kv->key);
                    break;
                }
                rc = set_or_reset(svc, sql, kv->key, kv->value, &err);
            }
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET:
            for (size_t i = 0; rc == 0 && i < op->get->n_keys; i++) {
                const char *key = op->get->keys[i], *v = lookup(svc, sql, key);
                if (!v)
                    rc = cs_sql_error_set(&err, CS_ENOTFOUND, "SQL_CONF_NOT_FOUND", "42K0I",
                                          "The SQL config \"%s\" cannot be found. Please verify "
                                          "that the config exists.",
                                          key);
                else
                    add_pair(&p, key, v);
            }
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_WITH_DEFAULT:
            for (size_t i = 0; i < op->get_with_default->n_pairs; i++) {
                const Spark__Connect__KeyValue *kv = op->get_with_default->pairs[i];
                const char *v = cs_sql_session_conf_set(sql, kv->key);
                if (!v) v = cspark_conf_get(svc->opts.sc, kv->key);
                if (!v && kv->_value_case == SPARK__CONNECT__KEY_VALUE___VALUE_VALUE) v = kv->value;
                add_pair(&p, kv->key, v);
            }
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION:
            for (size_t i = 0; i < op->get_option->n_keys; i++)
                add_pair(&p, op->get_option->keys[i], lookup(svc, sql, op->get_option->keys[i]));
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_ALL:
            rc = all_pairs(svc, sql,
                           op->get_all->_prefix_case ==
                                   SPARK__CONNECT__CONFIG_REQUEST__GET_ALL___PREFIX_PREFIX
                               ? op->get_all->prefix
                               : NULL,
                           &p, &err);
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_UNSET:
            for (size_t i = 0; rc == 0 && i < op->unset->n_keys; i++)
                rc = set_or_reset(svc, sql, op->unset->keys[i], NULL, &err);
            break;
        case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_IS_MODIFIABLE:
            for (size_t i = 0; i < op->is_modifiable->n_keys; i++)
                add_pair(&p, op->is_modifiable->keys[i],
                         modifiable(op->is_modifiable->keys[i]) ? "true" : "false");
            break;
        default:
            rc = cs_error_set(&err, CS_EUNSUPPORTED, "ConfigRequest operation %d is not supported",
                              (int)op->op_type_case);
            break;
        }
    }
    if (rc != 0) {
        cs_connect_fail_call(svc, w->sess, w->call, &err);
    } else {
        Spark__Connect__ConfigResponse resp = SPARK__CONNECT__CONFIG_RESPONSE__INIT;
        resp.session_id = req->session_id;
        resp.server_side_session_id = w->sess->server_side_id;
        resp.n_pairs = p.n;
        resp.pairs = p.kv;
        cs_connect_reply(w->call, &resp.base);
    }
    w->call = NULL;
    free_pairs(&p);
}
