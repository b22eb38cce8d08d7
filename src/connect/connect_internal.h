/*
 * connect_internal.h — private to src/connect: the Spark Connect service's state shared by its
 * files (connect_service.c: requests and the works' threads; connect_sessions.c: the session table;
 * connect_execute.c: operations and their responses; connect_config.c; connect_analyze.c).
 *
 * Threads: the gRPC loop thread parses requests, finds sessions and operations, and answers what
 * needs no SQL session (Interrupt, ReattachExecute, ReleaseExecute, FetchErrorDetails); everything
 * that uses a session's cs_sql_session (ExecutePlan, AnalyzePlan, Config, the end of
 * ReleaseSession) is queued. The dispatcher (cs_connect_service_run, on the application's entry
 * thread) hands each queued work to a thread of its own, as Spark's ExecuteThreadRunner, once no
 * other work of its session runs: a session's works run one at a time and in order (a
 * cs_sql_session serves one statement at a time), different sessions' at once — their statements
 * too: the context runs jobs from several threads at once (sched/scheduler.h), so one session's
 * long query does not hold up another's (cs_connect_run_statement takes no lock of the service).
 * svc->lock guards the session table, every session's busy flag, operation list and errors,
 * every operation's fields marked (L), the queue and the count of running works.
 *
 * Lock order: svc->lock, then the gRPC server's own.
 *
 * Sessions, as Spark's SparkConnectSessionManager (connect_sessions.c): the live ones are found
 * by (session_id, user_id) in a hash table. ReleaseSession, or the maintenance round for a
 * session idle past spark.connect.session.manager.defaultSessionTimeout
 * (connect_session_expiry.h), closes one: it leaves the table at once for a tombstone of its key
 * (connect_tombstones.h: a later request naming it gets SESSION_CLOSED), its operations are
 * interrupted, its artifacts freed, and a last work is queued behind its others; that work frees
 * its SQL session (temporary views, conf) and persisted relations on its own thread, then the
 * session itself with its operations and kept errors. Until then a closing session is still in
 * svc->sessions (the list of every session, live or closing) so that the watchdog and the loop
 * thread still find its operations.
 *
 * Lifetimes: a session is freed only by its last work, which runs once every earlier work of it
 * has ended; a work is queued under the same hold of svc->lock that found its session live (the
 * maintenance round closes sessions from the watchdog thread, under svc->lock, and only those
 * with no work). A loop-thread handler therefore dereferences a session only while it holds
 * svc->lock, and a work's thread its own work's session.
 *
 * Ownership: the service owns its sessions; a session owns its operations; an operation holds
 * one reference per holder (the session's list, its work while queued or running) and is freed
 * at the last one.
 */
#ifndef CSPARK_CONNECT_CONNECT_INTERNAL_H
#define CSPARK_CONNECT_CONNECT_INTERNAL_H

#include <protobuf-c/protobuf-c.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/hmap.h"
#include "common/strutil.h"
#include "connect/connect_service.h"
#include "connect/connect_session_expiry.h"
#include "connect/connect_tombstones.h"
#include "connect/grpc_server.h"
#include "session/sql_session.h"

typedef struct connect_session connect_session;
typedef struct connect_op connect_op;
typedef struct connect_artifact connect_artifact;   /* connect_artifacts.c */
typedef struct connect_persisted connect_persisted; /* connect_persist.c */
typedef struct Spark__Connect__Relation Spark__Connect__Relation;

/* One response of an operation, kept until the client releases it. */
typedef struct connect_response {
    char id[40];   /* response_id */
    uint8_t *data; /* the serialized ExecutePlanResponse */
    size_t len;
} connect_response;

struct connect_op {
    int refs; /* (L) */
    connect_session *sess;
    char id[80];        /* operation_id */
    char job_group[96]; /* its jobs' group, for cancelling */
    char **tags;
    int n_tags;
    bool reattachable;
    /* (L) */
    connect_response *responses; /* responses[first..n) not yet released */
    int first, n, cap;
    int next_send;          /* the next response to send on the attached call */
    cs_grpc_call *attached; /* the stream sending responses, or NULL */
    bool finished;          /* the last response is queued (or failed) */
    bool failed;
    cs_error error; /* when failed */
    char error_id[40];
    bool interrupted, running, released;
    int64_t detached_ms; /* when its stream went away (monotonic ms), 0 while attached */
    connect_op *next;    /* in the session's list */
};

struct connect_session {
    char *session_id, *user_id;
    char *key; /* its key in svc->live and the tombstones (connect_sessions.c) */
    char server_side_id[40];
    cs_sql_session *sql; /* its running work's only; NULL until the first use, once closed */
    bool closing;        /* (L) released or expired: out of svc->live, its last work queued */
    bool busy;           /* (L) a work of the session runs */
    cs_connect_activity activity; /* (L) its last request, its works queued or running */
    connect_op *ops;              /* (L) */
    connect_artifact *artifacts;  /* (L) what AddArtifacts uploaded (connect_artifacts.c) */
    connect_persisted *persisted; /* its works' only: persisted relations (connect_persist.c) */
    /* (L) the errors FetchErrorDetails may ask about (the last few) */
    struct {
        char id[40];
        cs_error err;
    } errors[8];
    int next_error;
    connect_session *prev, *next; /* (L) in svc->sessions */
};

/* A session's work, run on a thread of its own. */
typedef enum { WORK_EXECUTE, WORK_ANALYZE, WORK_CONFIG, WORK_DROP_SESSION } work_kind;
typedef struct connect_work {
    work_kind kind;
    cs_grpc_call *call; /* the handler's reference; NULL for WORK_DROP_SESSION */
    connect_session *sess;
    connect_op *op; /* WORK_EXECUTE (one reference) */
    void *request;  /* the unpacked request (protobuf_c_message_free_unpacked) */
    struct connect_work *next;
} connect_work;

struct cs_connect_service {
    cs_connect_service_opts opts;
    char *token; /* "Bearer <token>" expected in authorization, or NULL */
    cs_grpc_server *grpc;
    pthread_mutex_t lock;
    pthread_cond_t work_ready;          /* work queued, or a work ended */
    connect_work *head, *tail;          /* (L) */
    int running;                        /* (L) works handed to their threads and not ended */
    connect_session *sessions;          /* (L) every session, live or closing */
    cs_hmap live;                       /* (L) key -> the live session (connect_session *) */
    cs_connect_tombstones closed;       /* (L) the keys of closed sessions */
    cs_connect_maintenance maintenance; /* the watchdog thread's */
    bool stopping;                      /* (L) */
    bool stop_asked; /* (L) cs_connect_service_stop: cs_connect_service_run ends */
    pthread_t watchdog;
    bool watchdog_started;
};

/* ---- connect_sessions.c (under svc->lock, except where said) ---- */
/* Sets up the session table (svc->opts' session settings; the loop is not started yet). */
void cs_connect_sessions_init(cs_connect_service *svc, int64_t now_ms);
/* The live session of (session_id, user_id), made when missing (create), its activity noted;
 * NULL + err holding Spark's INVALID_HANDLE.* error when the id is malformed, the session was
 * closed (a tombstone), changed (observed: the client's server-side id, or NULL) or, without
 * create, is not there. The session is borrowed while svc->lock is held. */
connect_session *cs_connect_session_find(cs_connect_service *svc, const char *session_id,
                                         const char *user_id, const char *observed, bool create,
                                         cs_error *err);
/* The live session of the key, or NULL (no error, no activity noted): ReleaseSession's. */
connect_session *cs_connect_session_lookup(cs_connect_service *svc, const char *session_id,
                                           const char *user_id);
/* Closes a live session (ReleaseSession, expiry): see above; why is logged. */
void cs_connect_session_close(cs_connect_service *svc, connect_session *s, const char *why);
/* The maintenance round at now_ms (the watchdog thread; takes svc->lock): closes the sessions
 * idle for longer than the timeout when a round is due. */
void cs_connect_sessions_maintain(cs_connect_service *svc, int64_t now_ms);
/* A work of s ended (under svc->lock): frees s when it was its closing work. */
void cs_connect_session_work_ended(cs_connect_service *svc, connect_session *s, bool closing_work);
/* Remembers err for FetchErrorDetails: its id is written into id[40]. */
void cs_connect_session_keep_error(connect_session *s, const cs_error *err, char id[40]);
const cs_error *cs_connect_session_error(connect_session *s, const char *id);
/* A new random UUID (version 4) as text. */
void cs_connect_uuid(char out[40]);
/* The session's SQL session, made on first use (its work's thread). NULL + err on failure. */
cs_sql_session *cs_connect_session_sql(cs_connect_service *svc, connect_session *s, cs_error *err);
/* The closing work's part outside svc->lock (its thread): frees the SQL session and the
 * persisted relations. */
void cs_connect_session_drop_state(connect_session *s);
/* Frees every session and the tables (the service stops; no work runs). */
void cs_connect_sessions_free(cs_connect_service *svc);

/* ---- connect_service.c ---- */
/* Answers the call with err as Spark's server does (status INTERNAL + ErrorInfo), remembering
 * it in sess for FetchErrorDetails. sess: NULL, or the session of the calling work (a
 * loop-thread handler keeps the error itself under svc->lock, then calls
 * cs_connect_finish_error). Any thread. */
void cs_connect_fail_call(cs_connect_service *svc, connect_session *sess, cs_grpc_call *call,
                          const cs_error *err);
/* Answers the call with err, whose id FetchErrorDetails knows it by (error_id: "" or NULL when it
 * was not kept). Any thread. */
void cs_connect_finish_error(cs_grpc_call *call, const cs_error *err, const char *error_id);
/* Sends one serialized message then finishes the call OK. */
void cs_connect_reply(cs_grpc_call *call, const ProtobufCMessage *msg);
/* Queues w under svc->lock, in the same hold that found its session live (or w is its closing
 * work), noting the work in its session's activity. */
void cs_connect_queue_locked(cs_connect_service *svc, connect_work *w);
/* cs_sql_session_run_statement: every statement of every session goes through here; sessions'
 * statements run at once, each session's one at a time (its works are serialized). */
int cs_connect_run_statement(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                             const cs_sql_statement *st, const char *text, cs_sql_result *out,
                             bool *kept, cs_error *err);

/* ---- connect_execute.c ---- */
/* Loop thread: ExecutePlan (registers the operation and queues it), ReattachExecute,
 * ReleaseExecute, Interrupt; on_cancel for a call attached to an operation. */
void cs_connect_execute_call(cs_connect_service *svc, cs_grpc_call *call);
void cs_connect_reattach_call(cs_connect_service *svc, cs_grpc_call *call);
void cs_connect_release_execute_call(cs_connect_service *svc, cs_grpc_call *call);
void cs_connect_interrupt_call(cs_connect_service *svc, cs_grpc_call *call);
void cs_connect_execute_detach(cs_connect_service *svc, cs_grpc_call *call);
/* The watchdog thread's round: cancels again the job groups of interrupted operations still
 * running, and interrupts running operations detached for more than grace_ms. */
void cs_connect_watchdog_round(cs_connect_service *svc, int64_t now_ms, int64_t grace_ms);
/* A work's thread: runs the operation of w. */
void cs_connect_execute_run(cs_connect_service *svc, connect_work *w);
/* res's rows as one Arrow IPC stream (the schema, then every batch) into out, which the caller
 * initialised and frees: a LocalRelation's data. 0, or a negative code with err. */
int cs_connect_result_arrow(const cs_sql_result *res, cs_sbuf *out, cs_error *err);
/* Drops an operation reference (under svc->lock). */
void cs_connect_op_unref(connect_op *op);

/* ---- connect_walk.c ---- */
/* Called for each message of a walk, before the messages it holds: a non-zero result ends the
 * walk with it; *descend = false skips what m holds (a relation just replaced, say). */
typedef int (*cs_connect_visit_fn)(void *arg, ProtobufCMessage *m, bool *descend);
/* Depth-first over m and every message it holds (set oneof members, repeated items). */
int cs_connect_walk(ProtobufCMessage *m, cs_connect_visit_fn visit, void *arg);

/* ---- connect_artifacts.c ---- */
/* Loop thread: AddArtifacts (client-streaming) and ArtifactStatus. */
void cs_connect_add_artifacts_call(cs_connect_service *svc, cs_grpc_call *call);
void cs_connect_artifact_status_call(cs_connect_service *svc, cs_grpc_call *call);
/* Replaces every CachedLocalRelation in request (a whole unpacked request, changed in place) by
 * the LocalRelation the session's artifact holds: 0, or a negative code with Spark's error when
 * one is not there. Takes svc->lock. */
int cs_connect_resolve_cached(cs_connect_service *svc, connect_session *sess,
                              ProtobufCMessage *request, cs_error *err);
/* Frees the session's artifacts (under svc->lock). */
void cs_connect_artifacts_free(connect_session *s);

/* ---- connect_persist.c (the session's work thread) ---- */
/* Spark's StorageLevel as the client gives it (NONE: all false, replication 1). */
typedef struct cs_connect_storage_level {
    bool use_disk, use_memory, use_off_heap, deserialized;
    int32_t replication;
} cs_connect_storage_level;
/* Marks rel persisted with level (a relation persisted already keeps its first level). */
int cs_connect_persist(connect_session *s, const Spark__Connect__Relation *rel,
                       const cs_connect_storage_level *level, cs_error *err);
/* Forgets rel and its kept rows: whether it was persisted. */
bool cs_connect_unpersist(connect_session *s, const Spark__Connect__Relation *rel);
cs_connect_storage_level cs_connect_storage_level_of(connect_session *s,
                                                     const Spark__Connect__Relation *rel);
/* Runs rel as a query for its rows (0 and *out, which the callee fills and the caller frees). */
typedef int (*cs_connect_relation_runner)(void *arg, const Spark__Connect__Relation *rel,
                                          cs_sql_result *out, cs_error *err);
/* Replaces every persisted relation in request (a whole unpacked request, changed in place) by
 * the LocalRelation of its rows, computing them first through run when it is their first use. */
int cs_connect_persisted_use(connect_session *s, ProtobufCMessage *request,
                             cs_connect_relation_runner run, void *arg, cs_error *err);
/* Replaces, in m (changed in place), every checkpoint's CachedRemoteRelation (and with
 * persisted, every persisted relation) by the server's extension relation over its rows when
 * computed, else over its own relation (no job runs: for AnalyzePlan). */
int cs_connect_kept_mark(connect_session *s, ProtobufCMessage *m, bool persisted, cs_error *err);
typedef struct Spark__Connect__CheckpointCommand Spark__Connect__CheckpointCommand;
/* df.localCheckpoint(): the relation kept under a new id (id, 37 bytes), its rows computed now
 * through run when eager; checkpoint() refused (see connect_persist.c). */
int cs_connect_checkpoint(connect_session *s, const Spark__Connect__CheckpointCommand *cmd,
                          const char *checkpoint_dir, cs_connect_relation_runner run, void *arg,
                          char id[40], cs_error *err);
/* RemoveCachedRemoteRelationCommand: forgets the checkpoint id; whether it was kept. */
bool cs_connect_checkpoint_remove(connect_session *s, const char *id);
void cs_connect_persisted_free(connect_session *s);

/* ---- connect_config.c, connect_analyze.c (the work's thread) ---- */
void cs_connect_config_run(cs_connect_service *svc, connect_work *w);
void cs_connect_analyze_run(cs_connect_service *svc, connect_work *w);

/* ---- shared by execute and analyze (connect_analyze.c) ---- */
typedef struct cs_sql_arena cs_sql_arena;
typedef struct cs_logical_plan cs_logical_plan;
/* A relation as an unresolved plan (the `sql` relation parsed here when it has no arguments,
 * everything else through connect_plan.h). Nodes in a. */
int cs_connect_relation_plan(cs_sql_session *sql, cs_sql_arena *a,
                             const Spark__Connect__Relation *rel, cs_logical_plan **out,
                             cs_error *err);

/* ---- connect_catalog.c (the work's thread) ---- */
typedef struct Spark__Connect__Catalog Spark__Connect__Catalog;
/* A spark.catalog call answered from the session's catalog: 0 and *out (the caller frees it), or
 * a negative code with Spark's error (UNSUPPORTED_FEATURE for the calls not answered yet). */
int cs_connect_catalog_result(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                              const Spark__Connect__Catalog *cat, cs_sql_result *out,
                              cs_error *err);

#endif /* CSPARK_CONNECT_CONNECT_INTERNAL_H */
