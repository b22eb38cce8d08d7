/*
 * connect_artifacts.c — the artifacts a client uploads into its session (AddArtifacts,
 * ArtifactStatus), as Spark's SparkConnectAddArtifactsHandler and ArtifactStatusesHandler, for
 * what a PySpark program needs them for: createDataFrame of local data larger than
 * spark.sql.session.localRelationCacheThreshold, which the client uploads once as the artifact
 * "cache/<sha256>" (a serialized spark.connect.LocalRelation) and then names in its plans as
 * CachedLocalRelation(hash). Other artifacts (Python files, jars, archives) are refused with
 * UNSUPPORTED_FEATURE naming them.
 *
 * AddArtifacts is client-streaming: its messages carry a batch of small artifacts, or one large
 * artifact as a BeginChunkedArtifact followed by its chunks; every chunk's CRC-32 is checked, and
 * an artifact whose chunks do not all match is not kept (its summary says is_crc_successful =
 * false, and the client may send it again). Both RPCs are answered on the gRPC loop thread.
 *
 * Before an operation is translated, cs_connect_resolve_cached replaces every CachedLocalRelation
 * in its request (found by walking the message through its protobuf-c descriptors) by the
 * LocalRelation of the cached bytes, as Spark's planner reads the cached block. With 4.1's
 * protocol (CSPARK_CONNECT_PROTOCOL_41), a ChunkedCachedLocalRelation (what the 4.1 client sends
 * for createDataFrame above the cache threshold) names its data chunks, each an Arrow IPC stream
 * cached as an artifact, and optionally the artifact of its schema string: it becomes one
 * LocalRelation whose stream holds every chunk's batches in order, with that schema.
 *
 * Ownership: the session owns its artifacts (bytes copied from the request), freed when the
 * session is released or the service freed. A resolved LocalRelation is owned by the request it
 * was put into (freed with it by protobuf_c_message_free_unpacked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/log.h"
#include "formats/arrow_ipc.h"
#include "common/strutil.h"
#include "connect/connect_internal.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "sqlexec/sql_error.h"

#define CACHE_PREFIX "cache/"

struct connect_artifact {
    char *name;
    uint8_t *data;
    size_t len;
    connect_artifact *next;
};

static connect_artifact *find_artifact(connect_session *s, const char *name)
{
    for (connect_artifact *a = s->artifacts; a; a = a->next)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

void cs_connect_artifacts_free(connect_session *s)
{
    while (s->artifacts) {
        connect_artifact *a = s->artifacts;
        s->artifacts = a->next;
        free(a->name);
        free(a->data);
        free(a);
    }
}

/* One artifact being received: its bytes so far and whether every chunk's CRC matched. */
typedef struct incoming {
    char *name;
    cs_sbuf data;
    bool crc_ok;
} incoming;

static void add_chunk(incoming *in, const Spark__Connect__AddArtifactsRequest__ArtifactChunk *c)
{
    if (!c) {
        in->crc_ok = false;
        return;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    /* zlib takes a uInt length: a chunk beyond 4 GiB cannot come in one message anyway */
    crc = crc32(crc, c->data.data ? c->data.data : (const Bytef *)"", (uInt)c->data.len);
    if ((int64_t)crc != c->crc) in->crc_ok = false;
    cs_sbuf_append(&in->data, c->data.data, c->data.len);
}

static void *unpack_at(cs_grpc_call *call, int i, const ProtobufCMessageDescriptor *d)
{
    size_t len;
    const uint8_t *data = cs_grpc_call_message_at(call, i, &len);
    return protobuf_c_message_unpack(d, NULL, len, data);
}

static const char *user_of(const Spark__Connect__UserContext *u)
{
    return u && u->user_id ? u->user_id : "";
}

/* The artifacts of the call's messages, in order; NULL + err (Spark's error) when a message is
 * not an AddArtifactsRequest, a chunk comes outside a chunked artifact, or a name is not one
 * this server keeps. *first gets the first message (the session's ids), which the caller frees. */
static incoming *read_artifacts(cs_grpc_call *call, int *n_out,
                                Spark__Connect__AddArtifactsRequest **first, cs_error *err)
{
    int n_msgs = cs_grpc_call_message_count(call);
    incoming *items = NULL;
    int n = 0;
    int64_t chunks_left = 0;
    *first = NULL;
    for (int m = 0; m < n_msgs; m++) {
        Spark__Connect__AddArtifactsRequest *r =
            unpack_at(call, m, &spark__connect__add_artifacts_request__descriptor);
        if (!r) {
            cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                             "AddArtifacts: message %d is not a valid AddArtifactsRequest", m);
            goto fail;
        }
        bool bad_chunk = false;
        switch (r->payload_case) {
        case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BATCH:
            for (size_t i = 0; r->batch && i < r->batch->n_artifacts; i++) {
                items = cs_xrealloc(items, (size_t)(n + 1) * sizeof *items);
                items[n] = (incoming){.name = cs_xstrdup(r->batch->artifacts[i]->name),
                                      .data = CS_SBUF_INIT,
                                      .crc_ok = true};
                add_chunk(&items[n++], r->batch->artifacts[i]->data);
            }
            break;
        case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_BEGIN_CHUNK:
            items = cs_xrealloc(items, (size_t)(n + 1) * sizeof *items);
            items[n] = (incoming){
                .name = cs_xstrdup(r->begin_chunk->name), .data = CS_SBUF_INIT, .crc_ok = true};
            add_chunk(&items[n++], r->begin_chunk->initial_chunk);
            chunks_left = r->begin_chunk->num_chunks - 1;
            break;
        case SPARK__CONNECT__ADD_ARTIFACTS_REQUEST__PAYLOAD_CHUNK:
            bad_chunk = n == 0 || chunks_left <= 0;
            if (!bad_chunk) {
                add_chunk(&items[n - 1], r->chunk);
                chunks_left--;
            }
            break;
        default:
            bad_chunk = true;
            break;
        }
        if (m == 0)
            *first = r;
        else
            protobuf_c_message_free_unpacked(&r->base, NULL);
        if (bad_chunk) {
            cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                             "AddArtifacts: message %d carries no artifact, or a chunk that "
                             "belongs to no chunked artifact",
                             m);
            goto fail;
        }
    }
    for (int i = 0; i < n; i++) {
        const char *name = items[i].name;
        const char *hash = name + strlen(CACHE_PREFIX);
        if (strncmp(name, CACHE_PREFIX, strlen(CACHE_PREFIX)) != 0 || !*hash || strchr(hash, '/')) {
            cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                             "The feature is not supported: artifacts other than cached local "
                             "relations (%s).",
                             name);
            goto fail;
        }
    }
    *n_out = n;
    return items;
fail:
    for (int i = 0; i < n; i++) {
        free(items[i].name);
        cs_sbuf_free(&items[i].data);
    }
    free(items);
    *n_out = 0;
    return NULL;
}

void cs_connect_add_artifacts_call(cs_connect_service *svc, cs_grpc_call *call)
{
    cs_error err;
    cs_error_clear(&err);
    int n = 0;
    Spark__Connect__AddArtifactsRequest *first = NULL;
    incoming *items = read_artifacts(call, &n, &first, &err);
    connect_session *s = NULL;
    char server_side[40] = "";
    if (items || !err.code) {
        pthread_mutex_lock(&svc->lock);
        s = first
                ? cs_connect_session_find(
                      svc, first->session_id, user_of(first->user_context),
                      first->_client_observed_server_side_session_id_case ==
                              SPARK__CONNECT__ADD_ARTIFACTS_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
                          ? first->client_observed_server_side_session_id
                          : NULL,
                      true, &err)
                : NULL;
        for (int i = 0; s && i < n; i++) {
            if (!items[i].crc_ok || find_artifact(s, items[i].name)) continue;
            connect_artifact *a = cs_xcalloc(1, sizeof *a);
            a->name = cs_xstrdup(items[i].name);
            a->data = (uint8_t *)cs_sbuf_detach(&items[i].data, &a->len);
            a->next = s->artifacts;
            s->artifacts = a;
        }
        if (s) snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
        pthread_mutex_unlock(&svc->lock);
    }
    if (!s) {
        if (!err.code)
            cs_sql_error_set(&err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                             "AddArtifacts: the request carries no message");
        cs_connect_fail_call(svc, NULL, call, &err);
    } else {
        Spark__Connect__AddArtifactsResponse resp = SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__INIT;
        Spark__Connect__AddArtifactsResponse__ArtifactSummary *sums =
            cs_xcalloc((size_t)(n ? n : 1), sizeof *sums);
        Spark__Connect__AddArtifactsResponse__ArtifactSummary **ptrs =
            cs_xcalloc((size_t)(n ? n : 1), sizeof *ptrs);
        for (int i = 0; i < n; i++) {
            sums[i] = (Spark__Connect__AddArtifactsResponse__ArtifactSummary)
                SPARK__CONNECT__ADD_ARTIFACTS_RESPONSE__ARTIFACT_SUMMARY__INIT;
            sums[i].name = items[i].name;
            sums[i].is_crc_successful = items[i].crc_ok;
            ptrs[i] = &sums[i];
        }
        resp.session_id = first->session_id;
        resp.server_side_session_id = server_side;
        resp.n_artifacts = (size_t)n;
        resp.artifacts = ptrs;
        cs_connect_reply(call, &resp.base);
        free(ptrs);
        free(sums);
        CS_INFO("connect", "event=artifacts_added count=%d", n);
    }
    for (int i = 0; i < n; i++) {
        free(items[i].name);
        cs_sbuf_free(&items[i].data);
    }
    free(items);
    if (first) protobuf_c_message_free_unpacked(&first->base, NULL);
}

void cs_connect_artifact_status_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ArtifactStatusesRequest *r =
        unpack_at(call, 0, &spark__connect__artifact_statuses_request__descriptor);
    if (!r) {
        cs_grpc_call_finish(call, CS_GRPC_INVALID_ARGUMENT,
                            "the request is not a valid spark.connect.ArtifactStatusesRequest",
                            NULL, 0);
        return;
    }
    cs_error err;
    cs_error_clear(&err);
    size_t n = r->n_names;
    Spark__Connect__ArtifactStatusesResponse__StatusesEntry *entries =
        cs_xcalloc(n ? n : 1, sizeof *entries);
    Spark__Connect__ArtifactStatusesResponse__StatusesEntry **ptrs =
        cs_xcalloc(n ? n : 1, sizeof *ptrs);
    Spark__Connect__ArtifactStatusesResponse__ArtifactStatus *st =
        cs_xcalloc(n ? n : 1, sizeof *st);
    char server_side[40] = "";
    pthread_mutex_lock(&svc->lock);
    connect_session *s = cs_connect_session_find(
        svc, r->session_id, user_of(r->user_context),
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__ARTIFACT_STATUSES_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL,
        true, &err);
    for (size_t i = 0; s && i < n; i++) {
        st[i] = (Spark__Connect__ArtifactStatusesResponse__ArtifactStatus)
            SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__ARTIFACT_STATUS__INIT;
        st[i].exists = find_artifact(s, r->names[i]) != NULL;
        entries[i] = (Spark__Connect__ArtifactStatusesResponse__StatusesEntry)
            SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__STATUSES_ENTRY__INIT;
        entries[i].key = r->names[i];
        entries[i].value = &st[i];
        ptrs[i] = &entries[i];
    }
    if (s) snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
    pthread_mutex_unlock(&svc->lock);
    if (!s) {
        cs_connect_fail_call(svc, NULL, call, &err);
    } else {
        Spark__Connect__ArtifactStatusesResponse resp =
            SPARK__CONNECT__ARTIFACT_STATUSES_RESPONSE__INIT;
        resp.session_id = r->session_id;
        resp.server_side_session_id = server_side;
        resp.n_statuses = n;
        resp.statuses = ptrs;
        cs_connect_reply(call, &resp.base);
    }
    free(st);
    free(ptrs);
    free(entries);
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* ---- CachedLocalRelation -> LocalRelation ------------------------------------------------- */

/* rel (a CachedLocalRelation) becomes the LocalRelation of its cached bytes. Under svc->lock. */
static int resolve_one(connect_session *s, Spark__Connect__Relation *rel, cs_error *err)
{
    const char *hash = rel->cached_local_relation ? rel->cached_local_relation->hash : "";
    char name[200];
    snprintf(name, sizeof name, CACHE_PREFIX "%s", hash);
    connect_artifact *a = find_artifact(s, name);
    Spark__Connect__LocalRelation *lr =
        a ? spark__connect__local_relation__unpack(NULL, a->len, a->data) : NULL;
    if (!lr)
        return cs_sql_error_set(err, CS_ENOTFOUND, "INTERNAL_ERROR", "XX000",
                                "Not found any cached local relation with the hash: %s in the "
                                "session with sessionUUID %s.",
                                hash, s->session_id);
    protobuf_c_message_free_unpacked(&rel->cached_local_relation->base, NULL);
    rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
    rel->local_relation = lr;
    return 0;
}

#ifdef CSPARK_CONNECT_PROTOCOL_41
static int chunk_missing(connect_session *s, const char *hash, cs_error *err)
{
    return cs_sql_error_set(err, CS_ENOTFOUND, "INTERNAL_ERROR", "XX000",
                            "Not found any cached local relation with the hash: %s in the "
                            "session with sessionUUID %s.",
                            hash, s->session_id);
}

/* The batches of every data chunk (an Arrow IPC stream each) as one stream into out. */
static int join_chunks(connect_session *s, const Spark__Connect__ChunkedCachedLocalRelation *c,
                       cs_sbuf *out, cs_error *err)
{
    cs_ipc_writer *w = NULL;
    cs_col_type *first = NULL; /* the first chunk's schema: every chunk's */
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->n_datahashes; i++) {
        char name[200];
        snprintf(name, sizeof name, CACHE_PREFIX "%s", c->datahashes[i]);
        connect_artifact *a = find_artifact(s, name);
        if (!a) {
            rc = chunk_missing(s, c->datahashes[i], err);
            break;
        }
        cs_ipc_mem_source src = {a->data, a->len, 0};
        cs_ipc_reader *r = NULL;
        rc = cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "a client's local relation chunk", &r,
                                err);
        if (rc != 0) break;
        if (!w) {
            first = cs_col_type_ref((cs_col_type *)cs_ipc_reader_schema(r));
            w = cs_ipc_writer_new(first, cs_ipc_write_sbuf, out);
        } else if (!cs_col_type_equal(cs_ipc_reader_schema(r), first)) {
            rc = cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                  "The chunks of a cached local relation have different "
                                  "schemas.");
        }
        for (;;) {
            cs_col_batch *b = NULL;
            int got = rc == 0 ? cs_ipc_reader_next(r, &b, err) : 0;
            if (got <= 0) {
                rc = got < 0 ? got : rc;
                break;
            }
            rc = cs_ipc_writer_write(w, b, err);
            cs_col_batch_unref(b);
        }
        cs_ipc_reader_free(r);
    }
    if (rc == 0 && w) rc = cs_ipc_writer_close(w, err);
    cs_ipc_writer_free(w);
    if (first) cs_col_type_unref(first);
    return rc;
}

/* rel (a ChunkedCachedLocalRelation) becomes the LocalRelation of its chunks and schema. Under
 * svc->lock. */
static int resolve_chunked(connect_session *s, Spark__Connect__Relation *rel, cs_error *err)
{
    const Spark__Connect__ChunkedCachedLocalRelation *c = rel->chunked_cached_local_relation;
    char *schema = NULL;
    if (c->_schema_hash_case && c->schemahash) {
        char name[200];
        snprintf(name, sizeof name, CACHE_PREFIX "%s", c->schemahash);
        connect_artifact *a = find_artifact(s, name);
        if (!a) return chunk_missing(s, c->schemahash, err);
        schema = cs_xmalloc(a->len + 1);
        memcpy(schema, a->data, a->len);
        schema[a->len] = '\0';
    }
    cs_sbuf data = CS_SBUF_INIT;
    int rc = c->n_datahashes ? join_chunks(s, c, &data, err) : 0;
    if (rc != 0) {
        free(schema);
        cs_sbuf_free(&data);
        return rc;
    }
    /* freed with the request by protobuf_c_message_free_unpacked (the default allocator) */
    Spark__Connect__LocalRelation *lr = cs_xmalloc(sizeof *lr);
    spark__connect__local_relation__init(lr);
    if (c->n_datahashes) {
        lr->_data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
        lr->data.len = data.len;
        lr->data.data = cs_xmalloc(data.len ? data.len : 1);
        memcpy(lr->data.data, data.data, data.len);
    }
    cs_sbuf_free(&data);
    if (schema) {
        lr->_schema_case = SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA;
        lr->schema = schema;
    }
    protobuf_c_message_free_unpacked(&rel->chunked_cached_local_relation->base, NULL);
    rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
    rel->local_relation = lr;
    return 0;
}
#endif

typedef struct resolve_ctx {
    connect_session *s;
    cs_error *err;
} resolve_ctx;

/* A cached relation becomes the local relation it names (and is not walked into). */
static int resolve_visit(void *arg, ProtobufCMessage *m, bool *descend)
{
    resolve_ctx *c = arg;
    if (m->descriptor != &spark__connect__relation__descriptor) return 0;
    Spark__Connect__Relation *rel = (Spark__Connect__Relation *)m;
    if (rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_CACHED_LOCAL_RELATION) {
        *descend = false;
        return resolve_one(c->s, rel, c->err);
    }
#ifdef CSPARK_CONNECT_PROTOCOL_41
    if (rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_CHUNKED_CACHED_LOCAL_RELATION) {
        *descend = false;
        return resolve_chunked(c->s, rel, c->err);
    }
#endif
    return 0;
}

int cs_connect_resolve_cached(cs_connect_service *svc, connect_session *sess,
                              ProtobufCMessage *request, cs_error *err)
{
    pthread_mutex_lock(&svc->lock);
    resolve_ctx ctx = {sess, err};
    int rc = cs_connect_walk(request, resolve_visit, &ctx);
    pthread_mutex_unlock(&svc->lock);
    return rc;
}
