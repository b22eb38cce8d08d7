/*
 * connect_sessions.c — the Spark Connect service's sessions, as Spark 4's
 * SparkConnectSessionManager: one per (session_id, user_id), made on first use with a fresh
 * server-side session id (a UUID the client echoes back, so that it notices a restarted server),
 * and a cs_sql_session made on its work's thread at its first statement. Spark's INVALID_HANDLE
 * errors: FORMAT (the id is not a UUID), SESSION_CLOSED (released or expired, and still among the
 * tombstones), SESSION_CHANGED (the client saw another server-side id), SESSION_NOT_FOUND.
 *
 * The live sessions are found by their key in a hash table (svc->live). Closing one — on
 * ReleaseSession, or when the maintenance round finds it idle past
 * spark.connect.session.manager.defaultSessionTimeout (connect_session_expiry.h, checked every
 * spark.connect.session.manager.maintenanceInterval) — takes it out of the table for a tombstone
 * (connect_tombstones.h, at most spark.connect.session.manager.closedSessionsTombstonesSize),
 * interrupts its operations, frees its artifacts and queues its closing work, which frees the
 * rest (connect_internal.h tells the lifetimes).
 *
 * Called with svc->lock held (connect_internal.h), except cs_connect_session_sql and
 * cs_connect_session_drop_state (the session's work's thread) and cs_connect_sessions_maintain
 * (the watchdog thread, which takes the lock).
 */
#include <ctype.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"
#include "connect/connect_internal.h"
#include "sqlexec/sql_error.h"

void cs_connect_uuid(char out[40])
{
    uint8_t b[16];
    if (RAND_bytes(b, sizeof b) != 1) /* no entropy: still unique within the process */
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = (uint8_t)rand();
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

static bool is_uuid(const char *s)
{
    if (!s || strlen(s) != 36) return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i])) return false;
    }
    return true;
}

/* The table's key of (session_id, user_id): the id is a UUID (no '/'), so the key is unique.
 * The caller frees it. */
static char *session_key(const char *session_id, const char *user_id)
{
    cs_sbuf b = {0};
    cs_sbuf_printf(&b, "%s/%s", session_id, user_id);
    return cs_sbuf_detach(&b, NULL);
}

void cs_connect_sessions_init(cs_connect_service *svc, int64_t now_ms)
{
    cs_hmap_init_strings(&svc->live);
    cs_connect_tombstones_init(&svc->closed, svc->opts.closed_sessions_kept);
    cs_connect_maintenance_init(&svc->maintenance, svc->opts.maintenance_interval_ms, now_ms);
}

static void set_closed_error(cs_error *err, const char *session_id)
{
    cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_CLOSED", "HY000",
                     "The handle %s is invalid. Session was closed.", session_id);
}

static void set_changed_error(cs_error *err, const char *session_id)
{
    cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_CHANGED", "HY000",
                     "The handle %s is invalid. The existing Spark server driver instance has "
                     "restarted. Please reconnect.",
                     session_id);
}

static connect_session *live_session(cs_connect_service *svc, const char *key)
{
    uint64_t v;
    return cs_hmap_sget(&svc->live, key, &v) ? (connect_session *)(uintptr_t)v : NULL;
}

connect_session *cs_connect_session_lookup(cs_connect_service *svc, const char *session_id,
                                           const char *user_id)
{
    if (!is_uuid(session_id)) return NULL;
    char *key = session_key(session_id, user_id);
    connect_session *s = live_session(svc, key);
    free(key);
    return s;
}

connect_session *cs_connect_session_find(cs_connect_service *svc, const char *session_id,
                                         const char *user_id, const char *observed, bool create,
                                         cs_error *err)
{
    if (!is_uuid(session_id)) {
        cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.FORMAT", "HY000",
                         "The handle %s is invalid. Handle must be an UUID string of the format "
                         "'00112233-4455-6677-8899-aabbccddeeff'",
                         session_id ? session_id : "");
        return NULL;
    }
    char *key = session_key(session_id, user_id);
    connect_session *s = live_session(svc, key);
    if (s) {
        free(key);
        if (observed && *observed && strcmp(observed, s->server_side_id) != 0) {
            set_changed_error(err, session_id);
            return NULL;
        }
        cs_connect_activity_request(&s->activity, cs_mono_ms());
        return s;
    }
    if (cs_connect_tombstones_has(&svc->closed, key)) {
        free(key);
        set_closed_error(err, session_id);
        return NULL;
    }
    if (!create || (observed && *observed)) {
        free(key);
        /* a client that saw a server-side id talks to a server that never had its session */
        if (observed && *observed)
            set_changed_error(err, session_id);
        else
            cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_NOT_FOUND", "HY000",
                             "The handle %s is invalid. Session not found.", session_id);
        return NULL;
    }
    s = cs_xcalloc(1, sizeof *s);
    s->session_id = cs_xstrdup(session_id);
    s->user_id = cs_xstrdup(user_id);
    s->key = key;
    cs_connect_uuid(s->server_side_id);
    cs_connect_activity_init(&s->activity, cs_mono_ms());
    cs_hmap_sput(&svc->live, key, (uint64_t)(uintptr_t)s);
    s->next = svc->sessions;
    if (svc->sessions) svc->sessions->prev = s;
    svc->sessions = s;
    CS_INFO("connect", "event=session_started session=%s user=%s server_side=%s", session_id,
            cs_log_value(user_id), s->server_side_id);
    return s;
}

void cs_connect_session_close(cs_connect_service *svc, connect_session *s, const char *why)
{
    if (s->closing) return;
    s->closing = true;
    cs_hmap_sdel(&svc->live, s->key);
    cs_connect_tombstones_add(&svc->closed, s->key);
    for (connect_op *op = s->ops; op; op = op->next)
        if (!op->finished && !op->interrupted) {
            op->interrupted = true; /* the watchdog cancels its job group while it runs */
            if (op->running) cspark_cancel_job_group(svc->opts.sc, op->job_group);
        }
    cs_connect_artifacts_free(s);
    /* the rest goes as the session's last work, after those queued before */
    connect_work *w = cs_xcalloc(1, sizeof *w);
    w->kind = WORK_DROP_SESSION;
    w->sess = s;
    cs_connect_queue_locked(svc, w);
    CS_INFO("connect", "event=session_closed session=%s user=%s reason=%s", s->session_id,
            cs_log_value(s->user_id), why);
}

void cs_connect_sessions_maintain(cs_connect_service *svc, int64_t now_ms)
{
    if (!cs_connect_maintenance_due(&svc->maintenance, now_ms)) return;
    pthread_mutex_lock(&svc->lock);
    size_t pos = 0;
    uint64_t key, val;
    while (cs_hmap_next(&svc->live, &pos, &key, &val)) {
        connect_session *s = (connect_session *)(uintptr_t)val;
        /* closing deletes the entry just returned, which the iteration allows */
        if (cs_connect_activity_expired(&s->activity, svc->opts.session_timeout_ms, now_ms))
            cs_connect_session_close(svc, s, "expired");
    }
    pthread_mutex_unlock(&svc->lock);
}

void cs_connect_session_keep_error(connect_session *s, const cs_error *err, char id[40])
{
    int i = s->next_error;
    s->next_error = (i + 1) % (int)(sizeof s->errors / sizeof s->errors[0]);
    cs_connect_uuid(s->errors[i].id);
    s->errors[i].err = *err;
    memcpy(id, s->errors[i].id, 40);
}

const cs_error *cs_connect_session_error(connect_session *s, const char *id)
{
    for (size_t i = 0; i < sizeof s->errors / sizeof s->errors[0]; i++)
        if (s->errors[i].id[0] && id && strcmp(s->errors[i].id, id) == 0) return &s->errors[i].err;
    return NULL;
}

cs_sql_session *cs_connect_session_sql(cs_connect_service *svc, connect_session *s, cs_error *err)
{
    if (!s->sql) s->sql = cs_sql_session_new(svc->opts.sc, err);
    return s->sql;
}

void cs_connect_session_drop_state(connect_session *s)
{
    cs_sql_session_free(s->sql);
    s->sql = NULL;
    cs_connect_persisted_free(s);
}

/* Frees s and its operations (under svc->lock; its SQL state dropped already, or dropped here
 * when the service stops). */
static void session_free(cs_connect_service *svc, connect_session *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        svc->sessions = s->next;
    if (s->next) s->next->prev = s->prev;
    if (!s->closing) cs_hmap_sdel(&svc->live, s->key);
    while (s->ops) {
        connect_op *op = s->ops;
        s->ops = op->next;
        op->sess = NULL;
        cs_connect_op_unref(op);
    }
    cs_connect_session_drop_state(s);
    cs_connect_artifacts_free(s);
    free(s->session_id);
    free(s->user_id);
    free(s->key);
    free(s);
}

void cs_connect_session_work_ended(cs_connect_service *svc, connect_session *s, bool closing_work)
{
    cs_connect_activity_work_ended(&s->activity, cs_mono_ms());
    if (closing_work) session_free(svc, s);
}

void cs_connect_sessions_free(cs_connect_service *svc)
{
    while (svc->sessions)
        session_free(svc, svc->sessions);
    cs_hmap_free(&svc->live);
    cs_connect_tombstones_free(&svc->closed);
}
