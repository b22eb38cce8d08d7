/*
 * connect_service.c — the SparkConnectService's front (connect_service.h): the method table, the
 * bearer-token check, request parsing for the RPCs answered from the session table
 * (ReleaseSession, FetchErrorDetails), the queue of session works and its dispatcher, which
 * runs each work on a thread of its own once its session has no other work running
 * (connect_internal.h says which parts run concurrently).
 *
 * The watchdog thread (every WATCH_MS) re-cancels interrupted operations and, when due, runs the
 * session manager's maintenance round (connect_sessions.c: idle sessions closed).
 *
 * Every call first passes authentication: with spark.connect.authenticate.token set, a call whose
 * `authorization` header is not "Bearer <token>" gets UNAUTHENTICATED, as Spark 4's
 * PreSharedKeyAuthenticationInterceptor answers. A request that does not parse as its method's
 * message gets INVALID_ARGUMENT; an unknown method UNIMPLEMENTED.
 */
#define _GNU_SOURCE
#include "connect/connect_service.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/strutil.h"
#include "common/sync.h"
#include "connect/connect_errors.h"
#include "connect/connect_internal.h"
#include "spark/connect/base.pb-c.h"

#define SERVICE "/spark.connect.SparkConnectService/"
#define WATCH_MS 100           /* the watchdog's period */
#define DETACHED_GRACE_MS 2000 /* a stream gone this long without a reattach: the client died */

static void *watchdog_main(void *arg);
static void drop_queued(cs_connect_service *svc);

void cs_connect_queue_locked(cs_connect_service *svc, connect_work *w)
{
    w->next = NULL;
    if (svc->tail)
        svc->tail->next = w;
    else
        svc->head = w;
    svc->tail = w;
    cs_connect_activity_work_queued(&w->sess->activity, cs_mono_ms());
    pthread_cond_broadcast(&svc->work_ready);
}

void cs_connect_reply(cs_grpc_call *call, const ProtobufCMessage *msg)
{
    size_t len = protobuf_c_message_get_packed_size(msg);
    uint8_t *buf = cs_xmalloc(len ? len : 1);
    protobuf_c_message_pack(msg, buf);
    cs_grpc_call_send(call, buf, len);
    free(buf);
    cs_grpc_call_finish(call, CS_GRPC_OK, NULL, NULL, 0);
}

void cs_connect_fail_call(cs_connect_service *svc, connect_session *sess, cs_grpc_call *call,
                          const cs_error *err)
{
    char id[40] = "";
    if (sess) {
        pthread_mutex_lock(&svc->lock);
        cs_connect_session_keep_error(sess, err, id);
        pthread_mutex_unlock(&svc->lock);
    }
    cs_connect_finish_error(call, err, id);
}

void cs_connect_finish_error(cs_grpc_call *call, const cs_error *err, const char *error_id)
{
    const char *id = error_id ? error_id : "";
    size_t len;
    uint8_t *details = cs_connect_error_status(err, id, &len);
    cs_error view;
    cs_grpc_call_finish(call, CS_GRPC_INTERNAL, cs_connect_error_shown(err, &view)->msg, details,
                        len);
    free(details);
}

/* Unpacks the call's message as desc: NULL after answering INVALID_ARGUMENT. */
static void *unpack(cs_grpc_call *call, const ProtobufCMessageDescriptor *desc)
{
    size_t len;
    const uint8_t *data = cs_grpc_call_message(call, &len);
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, len, data);
    if (!m) {
        char msg[200];
        snprintf(msg, sizeof msg, "the request is not a valid %s message (%zu bytes)", desc->name,
                 len);
        CS_WARN("connect", "event=bad_message method=%s bytes=%zu",
                cs_log_value(cs_grpc_call_method(call)), len);
        cs_grpc_call_finish(call, CS_GRPC_INVALID_ARGUMENT, msg, NULL, 0);
    }
    return m;
}

static const char *user_of(const Spark__Connect__UserContext *u)
{
    return u && u->user_id ? u->user_id : "";
}

/* A request for a session's work: the session found (or made), then queued. */
static void queue_session_work(cs_connect_service *svc, cs_grpc_call *call, work_kind kind,
                               ProtobufCMessage *req, const char *session_id,
                               const Spark__Connect__UserContext *user, const char *observed)
{
    cs_error err;
    cs_error_clear(&err);
    pthread_mutex_lock(&svc->lock);
    connect_session *s =
        cs_connect_session_find(svc, session_id, user_of(user), observed, true, &err);
    if (s) {
        connect_work *w = cs_xcalloc(1, sizeof *w);
        w->kind = kind;
        w->call = call;
        w->sess = s;
        w->request = req;
        cs_connect_queue_locked(svc, w);
    }
    pthread_mutex_unlock(&svc->lock);
    if (!s) {
        cs_connect_fail_call(svc, NULL, call, &err);
        protobuf_c_message_free_unpacked(req, NULL);
    }
}

static void analyze_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__AnalyzePlanRequest *r =
        unpack(call, &spark__connect__analyze_plan_request__descriptor);
    if (!r) return;
    queue_session_work(
        svc, call, WORK_ANALYZE, &r->base, r->session_id, r->user_context,
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__ANALYZE_PLAN_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL);
}

static void config_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ConfigRequest *r = unpack(call, &spark__connect__config_request__descriptor);
    if (!r) return;
    queue_session_work(
        svc, call, WORK_CONFIG, &r->base, r->session_id, r->user_context,
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__CONFIG_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL);
}

/* ReleaseSession, as Spark's SparkConnectReleaseSessionHandler: a live session is closed (its
 * server-side id answered); one unknown or closed already is no error. */
static void release_session_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ReleaseSessionRequest *r =
        unpack(call, &spark__connect__release_session_request__descriptor);
    if (!r) return;
    Spark__Connect__ReleaseSessionResponse resp = SPARK__CONNECT__RELEASE_SESSION_RESPONSE__INIT;
    resp.session_id = r->session_id;
    char server_side[40] = "";
    pthread_mutex_lock(&svc->lock);
    connect_session *s = cs_connect_session_lookup(svc, r->session_id, user_of(r->user_context));
    if (s) {
        snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
        cs_connect_session_close(svc, s, "released");
    }
    pthread_mutex_unlock(&svc->lock);
    resp.server_side_session_id = server_side;
    cs_connect_reply(call, &resp.base);
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

static void fetch_error_details_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__FetchErrorDetailsRequest *r =
        unpack(call, &spark__connect__fetch_error_details_request__descriptor);
    if (!r) return;
    cs_error err, found;
    cs_error_clear(&err);
    bool have = false;
    char server_side[40] = "";
    pthread_mutex_lock(&svc->lock);
    connect_session *s =
        cs_connect_session_find(svc, r->session_id, user_of(r->user_context), NULL, false, &err);
    if (s) {
        const cs_error *e = cs_connect_session_error(s, r->error_id);
        if (e) {
            found = *e;
            have = true;
        }
        snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
    }
    pthread_mutex_unlock(&svc->lock);
    if (!s) {
        cs_connect_fail_call(svc, NULL, call, &err);
    } else {
        size_t len;
        uint8_t *buf =
            cs_connect_error_details(have ? &found : NULL, r->session_id, server_side, &len);
        cs_grpc_call_send(call, buf, len);
        free(buf);
        cs_grpc_call_finish(call, CS_GRPC_OK, NULL, NULL, 0);
    }
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

static const struct {
    const char *method;
    void (*handle)(cs_connect_service *svc, cs_grpc_call *call);
} methods[] = {
    {SERVICE "ExecutePlan", cs_connect_execute_call},
    {SERVICE "ReattachExecute", cs_connect_reattach_call},
    {SERVICE "ReleaseExecute", cs_connect_release_execute_call},
    {SERVICE "Interrupt", cs_connect_interrupt_call},
    {SERVICE "AnalyzePlan", analyze_call},
    {SERVICE "Config", config_call},
    {SERVICE "ReleaseSession", release_session_call},
    {SERVICE "FetchErrorDetails", fetch_error_details_call},
    {SERVICE "AddArtifacts", cs_connect_add_artifacts_call},
    {SERVICE "ArtifactStatus", cs_connect_artifact_status_call},
};

static bool client_streaming(const char *method)
{
    return strcmp(method, SERVICE "AddArtifacts") == 0;
}

static bool authenticated(const cs_connect_service *svc, cs_grpc_call *call)
{
    if (!svc->token) return true;
    const char *h = cs_grpc_call_header(call, "authorization");
    size_t n = strlen(svc->token);
    /* compared in constant time: the time taken tells nothing of the token */
    return h && strlen(h) == n && CRYPTO_memcmp(h, svc->token, n) == 0;
}

static void on_call(void *arg, cs_grpc_call *call)
{
    cs_connect_service *svc = arg;
    const char *method = cs_grpc_call_method(call);
    if (!authenticated(svc, call)) {
        CS_WARN("connect", "event=unauthenticated method=%s", cs_log_value(method));
        cs_grpc_call_finish(call, CS_GRPC_UNAUTHENTICATED, "Invalid authentication token", NULL, 0);
        return;
    }
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(method, methods[i].method) == 0) {
            methods[i].handle(svc, call);
            return;
        }
    char msg[300];
    snprintf(msg, sizeof msg, "Method not found: %s", method);
    cs_grpc_call_finish(call, CS_GRPC_UNIMPLEMENTED, msg, NULL, 0);
}

static void on_cancel(void *arg, cs_grpc_call *call)
{
    cs_connect_execute_detach(arg, call);
}

cs_connect_service *cs_connect_service_start(const cs_connect_service_opts *opts, cs_error *err)
{
    cs_connect_service_opts o = *opts;
    int64_t kept = 0;
    if (cs_conf_entry_duration_ms(opts->conf, "spark.connect.session.manager.defaultSessionTimeout",
                                  &o.session_timeout_ms, err) != CS_OK ||
        cs_conf_entry_duration_ms(opts->conf, "spark.connect.session.manager.maintenanceInterval",
                                  &o.maintenance_interval_ms, err) != CS_OK ||
        cs_conf_entry_int(opts->conf, "spark.connect.session.manager.closedSessionsTombstonesSize",
                          &kept, err) != CS_OK)
        return NULL;
    o.closed_sessions_kept = (size_t)kept;
    cs_connect_service *svc = cs_xcalloc(1, sizeof *svc);
    svc->opts = o;
    svc->opts.address = NULL;
    svc->opts.token = NULL;
    svc->opts.conf = NULL;
    if (!svc->opts.max_batch) svc->opts.max_batch = (size_t)4 << 20; /* Spark's default */
    if (opts->token && *opts->token) {
        char *t = NULL;
        if (asprintf(&t, "Bearer %s", opts->token) < 0) t = NULL;
        svc->token = t;
    }
    pthread_mutex_init(&svc->lock, NULL);
    cs_cond_init_monotonic(&svc->work_ready);
    cs_connect_sessions_init(svc, cs_mono_ms());
    cs_grpc_server_opts g = {.host = opts->address,
                             .port = opts->port,
                             .max_message = opts->max_message,
                             .tls_cert_file = opts->tls_cert_file,
                             .tls_key_file = opts->tls_key_file,
                             .on_call = on_call,
                             .on_cancel = on_cancel,
                             .client_streaming = client_streaming,
                             .arg = svc};
    svc->grpc = cs_grpc_server_start(&g, err);
    if (!svc->grpc) {
        cs_connect_service_free(svc);
        return NULL;
    }
    svc->watchdog_started = pthread_create(&svc->watchdog, NULL, watchdog_main, svc) == 0;
    return svc;
}

int cs_connect_service_port(const cs_connect_service *svc)
{
    return cs_grpc_server_port(svc->grpc);
}

static void *watchdog_main(void *arg)
{
    cs_connect_service *svc = arg;
    pthread_mutex_lock(&svc->lock);
    while (!svc->stopping) {
        cs_cond_wait_ms(&svc->work_ready, &svc->lock, WATCH_MS);
        if (svc->stopping) break;
        pthread_mutex_unlock(&svc->lock);
        int64_t now = cs_mono_ms();
        cs_connect_watchdog_round(svc, now, DETACHED_GRACE_MS);
        cs_connect_sessions_maintain(svc, now);
        pthread_mutex_lock(&svc->lock);
    }
    pthread_mutex_unlock(&svc->lock);
    return NULL;
}

int cs_connect_run_statement(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                             const cs_sql_statement *st, const char *text, cs_sql_result *out,
                             bool *kept, cs_error *err)
{
    (void)svc;
    return cs_sql_session_run_statement(sql, a, st, text, out, kept, err);
}

static void run_one(cs_connect_service *svc, connect_work *w)
{
    switch (w->kind) {
    case WORK_EXECUTE:
        cs_connect_execute_run(svc, w);
        break;
    case WORK_ANALYZE:
        cs_connect_analyze_run(svc, w);
        break;
    case WORK_CONFIG:
        cs_connect_config_run(svc, w);
        break;
    case WORK_DROP_SESSION: /* the session itself goes in work_main, under svc->lock */
        cs_connect_session_drop_state(w->sess);
        break;
    }
    if (w->request) protobuf_c_message_free_unpacked(w->request, NULL);
    if (w->op) {
        pthread_mutex_lock(&svc->lock);
        cs_connect_op_unref(w->op);
        pthread_mutex_unlock(&svc->lock);
    }
    free(w);
}

typedef struct work_thread {
    cs_connect_service *svc;
    connect_work *w;
} work_thread;

/* A work's thread: runs it, then frees its session for the next one (or frees the session,
 * after its closing work). */
static void *work_main(void *arg)
{
    work_thread *t = arg;
    cs_connect_service *svc = t->svc;
    connect_session *sess = t->w->sess;
    bool closing_work = t->w->kind == WORK_DROP_SESSION;
    run_one(svc, t->w);
    free(t);
    pthread_mutex_lock(&svc->lock);
    sess->busy = false;
    cs_connect_session_work_ended(svc, sess, closing_work);
    svc->running--;
    pthread_cond_broadcast(&svc->work_ready);
    pthread_mutex_unlock(&svc->lock);
    return NULL;
}

/* The first queued work whose session runs nothing, taken off the queue and its session marked
 * busy; NULL when none. Under svc->lock. */
static connect_work *take_runnable(cs_connect_service *svc)
{
    connect_work *prev = NULL;
    for (connect_work *w = svc->head; w; prev = w, w = w->next) {
        if (w->sess->busy) continue;
        if (prev)
            prev->next = w->next;
        else
            svc->head = w->next;
        if (svc->tail == w) svc->tail = prev;
        w->next = NULL;
        w->sess->busy = true;
        svc->running++;
        return w;
    }
    return NULL;
}

/* Starts w's thread (detached: work_main reports its end through svc->running); when no thread
 * can be made, w runs on the calling thread. */
static void dispatch(cs_connect_service *svc, connect_work *w)
{
    work_thread *t = cs_xmalloc(sizeof *t);
    t->svc = svc;
    t->w = w;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t tid;
    int rc = pthread_create(&tid, &attr, work_main, t);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        CS_WARN("connect", "event=thread_failed errno=%d", rc);
        work_main(t);
    }
}

/* Interrupts every running operation (the server stops) and waits for every work's thread. */
static void stop_running(cs_connect_service *svc)
{
    pthread_mutex_lock(&svc->lock);
    for (connect_session *s = svc->sessions; s; s = s->next)
        for (connect_op *op = s->ops; op; op = op->next)
            if (op->running && !op->interrupted) {
                op->interrupted = true;
                cspark_cancel_job_group(svc->opts.sc, op->job_group);
            }
    while (svc->running > 0)
        cs_cond_wait_ms(&svc->work_ready, &svc->lock, 200);
    pthread_mutex_unlock(&svc->lock);
}

void cs_connect_service_run(cs_connect_service *svc)
{
    for (;;) {
        pthread_mutex_lock(&svc->lock);
        connect_work *w = NULL;
        while (!cs_shutdown_requested() && !svc->stop_asked && !(w = take_runnable(svc)))
            cs_cond_wait_ms(&svc->work_ready, &svc->lock, 200);
        pthread_mutex_unlock(&svc->lock);
        if (!w) break;
        dispatch(svc, w);
    }
    CS_INFO("connect", "event=stopping");
    stop_running(svc);
    cs_grpc_server_stop(svc->grpc);
    svc->grpc = NULL;
    drop_queued(svc);
}

/* Drops what is still queued once no work runs: its clients are gone with the connections (a
 * closing session's state goes with every session in cs_connect_service_free). */
static void drop_queued(cs_connect_service *svc)
{
    pthread_mutex_lock(&svc->lock);
    connect_work *w = svc->head;
    svc->head = svc->tail = NULL;
    pthread_mutex_unlock(&svc->lock);
    while (w) {
        connect_work *next = w->next;
        if (w->call)
            cs_grpc_call_finish(w->call, CS_GRPC_UNAVAILABLE, "the server is stopping", NULL, 0);
        if (w->request) protobuf_c_message_free_unpacked(w->request, NULL);
        if (w->op) {
            pthread_mutex_lock(&svc->lock);
            cs_connect_op_unref(w->op);
            pthread_mutex_unlock(&svc->lock);
        }
        free(w);
        w = next;
    }
}

void cs_connect_service_stop(cs_connect_service *svc)
{
    pthread_mutex_lock(&svc->lock);
    svc->stop_asked = true;
    pthread_cond_broadcast(&svc->work_ready);
    pthread_mutex_unlock(&svc->lock);
}

void cs_connect_service_free(cs_connect_service *svc)
{
    if (!svc) return;
    pthread_mutex_lock(&svc->lock);
    svc->stopping = true;
    pthread_cond_broadcast(&svc->work_ready);
    pthread_mutex_unlock(&svc->lock);
    if (svc->watchdog_started) pthread_join(svc->watchdog, NULL);
    cs_grpc_server_stop(svc->grpc);
    drop_queued(svc); /* the closing works the watchdog queued after the dispatcher ended */
    cs_connect_sessions_free(svc);
    pthread_cond_destroy(&svc->work_ready);
    pthread_mutex_destroy(&svc->lock);
    free(svc->token);
    free(svc);
}
