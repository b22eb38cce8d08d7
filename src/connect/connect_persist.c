/*
 * connect_persist.c — DataFrame.cache() / persist(level) / unpersist() / storageLevel for Spark
 * Connect sessions, as Spark's CacheManager serves them for Dataset.persist: the AnalyzePlan
 * requests persist, unpersist and get_storage_level name a relation; the first action that reads
 * a persisted relation computes it once and keeps its rows, and every later plan that contains
 * the relation reads the kept rows instead of computing it again.
 *
 * A persisted relation is known by its serialized form: the Relation message packed by protobuf-c
 * with its plan ids renumbered in the order met. A client sends the same message for the same
 * DataFrame, whether alone (persist, count) or as the input of another (df.filter(...) over a
 * cached df), and for the same calls made again (spark.read...csv(p) twice) but for the plan
 * ids, so those hit the cache as they do in Spark, which matches analysed plans by their results
 * (a plan written differently with the same result, which Spark would match, is computed again
 * here). As Spark's server, a persisted relation stays the same rows until it is unpersisted,
 * even when its files change. Unlike Spark's, whose cache is the application's, each session has
 * its own.
 *
 * The rows are kept in memory as the Arrow IPC stream of a LocalRelation (a columnar copy of the
 * result: schema and record batches), whatever the storage level asked, which is reported back as
 * it was given (Spark's StorageLevel.NONE for a relation not persisted). A plan reading it gets,
 * in place of the relation, that LocalRelation (its RelationCommon kept, so columns referring to
 * the relation's plan id still resolve): the query then starts from the kept batches.
 *
 * Called by connect_analyze.c (persist, unpersist, get_storage_level) and connect_execute.c
 * (cs_connect_persisted_use before an operation is translated), on the session's work thread: a
 * session's works run one at a time, so its list needs no lock. Ownership: the session owns its
 * entries (cs_connect_persisted_free when it is released); a LocalRelation put into a request is
 * owned by the request (freed with it by protobuf_c_message_free_unpacked).
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "connect/connect_internal.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/common.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "sqlexec/sql_error.h"

struct connect_persisted {
    uint8_t *key; /* the relation, packed */
    size_t key_len;
    cs_connect_storage_level level;
    uint8_t *local; /* once computed: the packed LocalRelation of its rows */
    size_t local_len;
    int64_t rows;
    connect_persisted *next;
};

/* Plan ids renumbered 1, 2, ... in the order met (a DataFrame's own and the references to it in
 * column expressions alike), so that the same calls made again give the same key. */
typedef struct id_map {
    int64_t *from;
    int n, cap;
} id_map;

static int64_t canonical_id(id_map *m, int64_t v)
{
    for (int i = 0; i < m->n; i++)
        if (m->from[i] == v) return i + 1;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->from = cs_xrealloc(m->from, sizeof *m->from * (size_t)m->cap);
    }
    m->from[m->n++] = v;
    return m->n;
}

/* Each message's own plan_id (a set oneof member's too) gets its canonical number. */
static int renumber_visit(void *arg, ProtobufCMessage *m, bool *descend)
{
    id_map *ids = arg;
    (void)descend;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    char *base = (char *)m;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_INT64 || f->label == PROTOBUF_C_LABEL_REPEATED ||
            strcmp(f->name, "plan_id") != 0)
            continue;
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)(base + f->quantifier_offset) != f->id)
            continue; /* the union holds another member */
        int64_t *v = (int64_t *)(void *)(base + f->offset);
        *v = canonical_id(ids, *v);
    }
    return 0;
}

/* The relation's key: packed with its plan ids renumbered (the caller frees it). */
static uint8_t *pack_relation(const Spark__Connect__Relation *rel, size_t *len)
{
    *len = spark__connect__relation__get_packed_size(rel);
    uint8_t *b = cs_xmalloc(*len ? *len : 1);
    spark__connect__relation__pack(rel, b);
    Spark__Connect__Relation *copy = spark__connect__relation__unpack(NULL, *len, b);
    if (!copy) return b; /* cannot happen for what protobuf-c packed; the plain bytes then */
    id_map ids = {0};
    cs_connect_walk(&copy->base, renumber_visit, &ids);
    free(ids.from);
    free(b);
    *len = spark__connect__relation__get_packed_size(copy);
    b = cs_xmalloc(*len ? *len : 1);
    spark__connect__relation__pack(copy, b);
    protobuf_c_message_free_unpacked(&copy->base, NULL);
    return b;
}

static connect_persisted **find(connect_session *s, const uint8_t *key, size_t len)
{
    for (connect_persisted **p = &s->persisted; *p; p = &(*p)->next)
        if ((*p)->key_len == len && memcmp((*p)->key, key, len) == 0) return p;
    return NULL;
}

int cs_connect_persist(connect_session *s, const Spark__Connect__Relation *rel,
                       const cs_connect_storage_level *level, cs_error *err)
{
    if (!rel)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "persist needs a relation.");
    size_t len;
    uint8_t *key = pack_relation(rel, &len);
    if (find(s, key, len)) { /* Spark: "Asked to cache already cached data." keeps the first */
        free(key);
        return 0;
    }
    connect_persisted *e = cs_xcalloc(1, sizeof *e);
    e->key = key;
    e->key_len = len;
    e->level = *level;
    e->next = s->persisted;
    s->persisted = e;
    CS_INFO("connect", "event=persist session=%s bytes=%zu", s->session_id, len);
    return 0;
}

static void entry_free(connect_persisted *e)
{
    free(e->key);
    free(e->local);
    free(e);
}

bool cs_connect_unpersist(connect_session *s, const Spark__Connect__Relation *rel)
{
    if (!rel) return false;
    size_t len;
    uint8_t *key = pack_relation(rel, &len);
    connect_persisted **p = find(s, key, len);
    free(key);
    if (!p) return false;
    connect_persisted *e = *p;
    *p = e->next;
    CS_INFO("connect", "event=unpersist session=%s rows=%lld", s->session_id, (long long)e->rows);
    entry_free(e);
    return true;
}

cs_connect_storage_level cs_connect_storage_level_of(connect_session *s,
                                                     const Spark__Connect__Relation *rel)
{
    cs_connect_storage_level none = {.replication = 1}; /* StorageLevel.NONE */
    if (!rel) return none;
    size_t len;
    uint8_t *key = pack_relation(rel, &len);
    connect_persisted **p = find(s, key, len);
    free(key);
    return p ? (*p)->level : none;
}

void cs_connect_persisted_free(connect_session *s)
{
    while (s->persisted) {
        connect_persisted *e = s->persisted;
        s->persisted = e->next;
        entry_free(e);
    }
}

/* Computes e's rows through the caller's runner and keeps them as a packed LocalRelation. */
static int compute(connect_persisted *e, const Spark__Connect__Relation *rel,
                   cs_connect_relation_runner run, void *arg, cs_error *err)
{
    cs_sql_result res;
    int rc = run(arg, rel, &res, err);
    if (rc != 0) return rc;
    cs_sbuf data = CS_SBUF_INIT;
    rc = cs_connect_result_arrow(&res, &data, err);
    if (rc == 0) {
        Spark__Connect__LocalRelation lr = SPARK__CONNECT__LOCAL_RELATION__INIT;
        lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
        lr.data.data = (uint8_t *)data.data;
        lr.data.len = data.len;
        e->local_len = spark__connect__local_relation__get_packed_size(&lr);
        e->local = cs_xmalloc(e->local_len ? e->local_len : 1);
        spark__connect__local_relation__pack(&lr, e->local);
        e->rows = res.num_rows;
    }
    cs_sbuf_free(&data);
    cs_sql_result_free(&res);
    return rc;
}

/* rel (found persisted as e) becomes the LocalRelation of e's rows, computed first if needed. */
static int use_one(connect_persisted *e, Spark__Connect__Relation *rel,
                   cs_connect_relation_runner run, void *arg, cs_error *err)
{
    if (!e->local) {
        int rc = compute(e, rel, run, arg, err);
        if (rc != 0) return rc;
    }
    Spark__Connect__LocalRelation *lr =
        spark__connect__local_relation__unpack(NULL, e->local_len, e->local);
    if (!lr) return cs_error_set(err, CS_ENOMEM, "cannot read a cached relation back");
    /* the relation's own message (the member of its rel_type oneof) goes; its RelationCommon
     * (the plan id) stays */
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
        &spark__connect__relation__descriptor, (unsigned)rel->rel_type_case);
    if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        ProtobufCMessage **slot = (ProtobufCMessage **)(void *)((char *)rel + f->offset);
        if (*slot) protobuf_c_message_free_unpacked(*slot, NULL);
        *slot = NULL;
    }
    rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
    rel->local_relation = lr;
    return 0;
}

typedef struct walk_ctx {
    connect_session *s;
    cs_connect_relation_runner run;
    void *arg;
    cs_error *err;
} walk_ctx;

/* The persisted relation rel is, if any. */
static connect_persisted *match(walk_ctx *w, const Spark__Connect__Relation *rel)
{
    size_t len;
    uint8_t *key = pack_relation(rel, &len);
    connect_persisted **p = find(w->s, key, len);
    free(key);
    return p ? *p : NULL;
}

/* A persisted relation is read from its kept rows (and not walked into). */
static int use_visit(void *arg, ProtobufCMessage *m, bool *descend)
{
    walk_ctx *w = arg;
    if (m->descriptor != &spark__connect__relation__descriptor) return 0;
    Spark__Connect__Relation *rel = (Spark__Connect__Relation *)m;
    connect_persisted *e = match(w, rel);
    if (!e) return 0;
    *descend = false;
    return use_one(e, rel, w->run, w->arg, w->err);
}

int cs_connect_persisted_use(connect_session *s, ProtobufCMessage *request,
                             cs_connect_relation_runner run, void *arg, cs_error *err)
{
    if (!s->persisted) return 0;
    walk_ctx w = {s, run, arg, err};
    return cs_connect_walk(request, use_visit, &w);
}
