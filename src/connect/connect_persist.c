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
 * Checkpoints (df.localCheckpoint(eager, storageLevel): Connect's CheckpointCommand, as Spark's
 * handleCheckpointCommand) are entries of the same list known by an id (a UUID) instead: their
 * rows are computed when the command runs (eager, Spark's default) or by the first action that
 * reads them, and kept until RemoveCachedRemoteRelationCommand names the id; a plan refers to
 * one as CachedRemoteRelation(id). df.checkpoint() (reliable, to files) is refused: without
 * spark.checkpoint.dir as Spark refuses it (_LEGACY_ERROR_TEMP_3016), with it as not done.
 *
 * In a plan, a kept relation becomes the server's own relation extension (an Any whose type
 * names what it is: KEPT_CACHED or KEPT_CHECKPOINT, whose value is a packed
 * AnalyzePlanRequest.Persist: the storage level and the relation), which plan_local_relation.c
 * translates into a local relation that EXPLAIN names as Spark names it (InMemoryRelation /
 * InMemoryTableScan, LogicalRDD / Scan ExistingRDD). For a query the relation in it is the
 * LocalRelation of the kept rows; for AnalyzePlan (explain, schema: no job runs) it is the rows
 * when computed already, else the relation itself, whose schema alone is taken.
 *
 * Called by connect_analyze.c (persist, unpersist, get_storage_level, cs_connect_kept_mark) and
 * connect_execute.c (cs_connect_persisted_use before an operation is translated, checkpoint
 * commands), on the session's work thread: a session's works run one at a time, so its list
 * needs no lock. Ownership: the session owns its
 * entries (cs_connect_persisted_free when it is released); a LocalRelation put into a request is
 * owned by the request (freed with it by protobuf_c_message_free_unpacked).
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "connect/connect_internal.h"
#include "connect/connect_plan.h"
#include "spark/connect/base.pb-c.h"
#include "spark/connect/common.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "google/protobuf/any.pb-c.h"
#include "sqlexec/sql_error.h"

struct connect_persisted {
    char *relation_id; /* a checkpoint's id; NULL for a persisted relation */
    uint8_t *key;      /* the relation, packed (a checkpoint's: as given) */
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
        if (!(*p)->relation_id && (*p)->key_len == len && memcmp((*p)->key, key, len) == 0)
            return p;
    return NULL;
}

static connect_persisted **find_id(connect_session *s, const char *id)
{
    for (connect_persisted **p = &s->persisted; *p; p = &(*p)->next)
        if ((*p)->relation_id && id && strcmp((*p)->relation_id, id) == 0) return p;
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
    free(e->relation_id);
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

typedef struct walk_ctx {
    connect_session *s;
    cs_connect_relation_runner run; /* NULL: AnalyzePlan's marking (no job) */
    void *arg;
    cs_error *err;
    bool persisted;               /* persisted relations too, not only checkpoints */
    const ProtobufCMessage *skip; /* the relation being computed itself */
} walk_ctx;

static int use_visit(void *arg, ProtobufCMessage *m, bool *descend);

/* Computes e's rows through the caller's runner and keeps them as a packed LocalRelation: rel
 * (e's relation) is run as a copy whose own kept relations are read from their rows. */
static int compute(connect_persisted *e, const Spark__Connect__Relation *rel, walk_ctx *w)
{
    cs_sql_result res;
    size_t len = spark__connect__relation__get_packed_size(rel);
    uint8_t *b = cs_xmalloc(len ? len : 1);
    spark__connect__relation__pack(rel, b);
    Spark__Connect__Relation *copy = spark__connect__relation__unpack(NULL, len, b);
    free(b);
    if (!copy) return cs_error_set(w->err, CS_ENOMEM, "cannot copy a kept relation");
    walk_ctx inner = *w;
    inner.persisted = true;
    inner.skip = &copy->base;
    int rc = cs_connect_walk(&copy->base, use_visit, &inner);
    if (rc == 0) rc = w->run(w->arg, copy, &res, w->err);
    protobuf_c_message_free_unpacked(&copy->base, NULL);
    cs_error *err = w->err;
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

/* The relation e's rows are computed from (a new message), or NULL. */
static Spark__Connect__Relation *source_of(const connect_persisted *e)
{
    return spark__connect__relation__unpack(NULL, e->key_len, e->key);
}

/* rel (found kept as e) becomes the server's extension relation over the LocalRelation of e's
 * rows, computed first if needed (w->run), or over its own relation when they are not and no
 * job may run (w->run NULL: AnalyzePlan). */
static int use_one(connect_persisted *e, Spark__Connect__Relation *rel, walk_ctx *w)
{
    if (!e->local && w->run) {
        Spark__Connect__Relation *src = e->relation_id ? source_of(e) : NULL;
        int rc = compute(e, src ? src : rel, w);
        if (src) protobuf_c_message_free_unpacked(&src->base, NULL);
        if (rc != 0) return rc;
    }
    Spark__Connect__Relation inner = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__Relation *source = NULL;
    Spark__Connect__LocalRelation *lr = NULL;
    if (e->local) {
        lr = spark__connect__local_relation__unpack(NULL, e->local_len, e->local);
        if (!lr) return cs_error_set(w->err, CS_ENOMEM, "cannot read a cached relation back");
        inner.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
        inner.local_relation = lr;
    } else if (e->relation_id) {
        source = source_of(e);
        if (!source) return cs_error_set(w->err, CS_ENOMEM, "cannot read a checkpoint back");
    }
    Spark__Connect__StorageLevel level = SPARK__CONNECT__STORAGE_LEVEL__INIT;
    level.use_disk = e->level.use_disk;
    level.use_memory = e->level.use_memory;
    level.use_off_heap = e->level.use_off_heap;
    level.deserialized = e->level.deserialized;
    level.replication = e->level.replication;
    Spark__Connect__AnalyzePlanRequest__Persist kept =
        SPARK__CONNECT__ANALYZE_PLAN_REQUEST__PERSIST__INIT;
    kept.relation = lr ? &inner : source ? source : rel;
    kept._storage_level_case =
        SPARK__CONNECT__ANALYZE_PLAN_REQUEST__PERSIST___STORAGE_LEVEL_STORAGE_LEVEL;
    kept.storage_level = &level;
    /* freed with the request by protobuf_c_message_free_unpacked (the default allocator) */
    Google__Protobuf__Any *any = cs_xmalloc(sizeof *any);
    google__protobuf__any__init(any);
    any->type_url =
        cs_xstrdup(e->relation_id ? CS_CONNECT_KEPT_CHECKPOINT : CS_CONNECT_KEPT_CACHED);
    any->value.len = protobuf_c_message_get_packed_size(&kept.base);
    any->value.data = cs_xmalloc(any->value.len ? any->value.len : 1);
    protobuf_c_message_pack(&kept.base, any->value.data);
    if (lr) protobuf_c_message_free_unpacked(&lr->base, NULL);
    if (source) protobuf_c_message_free_unpacked(&source->base, NULL);
    /* the relation's own message (the member of its rel_type oneof) goes; its RelationCommon
     * (the plan id) stays */
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
        &spark__connect__relation__descriptor, (unsigned)rel->rel_type_case);
    if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        ProtobufCMessage **slot = (ProtobufCMessage **)(void *)((char *)rel + f->offset);
        if (*slot) protobuf_c_message_free_unpacked(*slot, NULL);
        *slot = NULL;
    }
    rel->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_EXTENSION;
    rel->extension = any;
    return 0;
}

/* The persisted relation rel is, if any. */
static connect_persisted *match(walk_ctx *w, const Spark__Connect__Relation *rel)
{
    size_t len;
    uint8_t *key = pack_relation(rel, &len);
    connect_persisted **p = find(w->s, key, len);
    free(key);
    return p ? *p : NULL;
}

/* A kept relation is read from its rows (and not walked into); a checkpoint's id not kept is
 * Spark's InvalidPlanInput. */
static int use_visit(void *arg, ProtobufCMessage *m, bool *descend)
{
    walk_ctx *w = arg;
    if (m->descriptor != &spark__connect__relation__descriptor || m == w->skip) return 0;
    Spark__Connect__Relation *rel = (Spark__Connect__Relation *)m;
    connect_persisted *e = NULL;
    if (rel->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_CACHED_REMOTE_RELATION) {
        const char *id =
            rel->cached_remote_relation ? rel->cached_remote_relation->relation_id : NULL;
        connect_persisted **p = find_id(w->s, id);
        if (!p)
            return cs_sql_error_set(w->err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                    "No DataFrame with id %s is found in the session %s",
                                    id ? id : "", w->s->session_id);
        e = *p;
    } else if (w->persisted && w->s->persisted) {
        e = match(w, rel);
    }
    if (!e) return 0;
    *descend = false;
    return use_one(e, rel, w);
}

int cs_connect_persisted_use(connect_session *s, ProtobufCMessage *request,
                             cs_connect_relation_runner run, void *arg, cs_error *err)
{
    walk_ctx w = {s, run, arg, err, true, NULL};
    return cs_connect_walk(request, use_visit, &w);
}

int cs_connect_kept_mark(connect_session *s, ProtobufCMessage *m, bool persisted, cs_error *err)
{
    walk_ctx w = {s, NULL, NULL, err, persisted, NULL};
    return cs_connect_walk(m, use_visit, &w);
}

int cs_connect_checkpoint(connect_session *s, const Spark__Connect__CheckpointCommand *cmd,
                          const char *checkpoint_dir, cs_connect_relation_runner run, void *arg,
                          char id[40], cs_error *err)
{
    if (!cmd->relation)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "CheckpointCommand needs a relation.");
    if (!cmd->local) { /* RDD.checkpoint: files under the context's checkpoint directory */
        if (!checkpoint_dir || !checkpoint_dir[0])
            return cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_3016", "",
                                    "Checkpoint directory has not been set in the SparkContext");
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: DataFrame.checkpoint() to "
                                "spark.checkpoint.dir (localCheckpoint() is).");
    }
    connect_persisted *e = cs_xcalloc(1, sizeof *e);
    /* Dataset.localCheckpoint's level: the one asked, else MEMORY_AND_DISK */
    e->level = (cs_connect_storage_level){true, true, false, true, 1};
    if (cmd->_storage_level_case && cmd->storage_level) {
        const Spark__Connect__StorageLevel *l = cmd->storage_level;
        e->level = (cs_connect_storage_level){l->use_disk, l->use_memory, l->use_off_heap,
                                              l->deserialized, l->replication};
    }
    e->key_len = spark__connect__relation__get_packed_size(cmd->relation);
    e->key = cs_xmalloc(e->key_len ? e->key_len : 1);
    spark__connect__relation__pack(cmd->relation, e->key);
    cs_connect_uuid(id);
    e->relation_id = cs_xstrdup(id);
    if (cmd->eager) {
        walk_ctx w = {s, run, arg, err, true, NULL};
        int rc = compute(e, cmd->relation, &w);
        if (rc != 0) {
            entry_free(e);
            return rc;
        }
    }
    e->next = s->persisted;
    s->persisted = e;
    CS_INFO("connect", "event=checkpoint session=%s id=%s eager=%d rows=%lld", s->session_id, id,
            (int)cmd->eager, (long long)e->rows);
    return 0;
}

bool cs_connect_checkpoint_remove(connect_session *s, const char *id)
{
    connect_persisted **p = find_id(s, id);
    if (!p) return false;
    connect_persisted *e = *p;
    *p = e->next;
    entry_free(e);
    return true;
}
