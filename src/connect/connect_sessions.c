/*
 * connect_sessions.c — the Spark Connect service's sessions, as Spark's
 * SparkConnectSessionManager: one per (session_id, user_id), made on first use with a fresh
 * server-side session id (a UUID the client echoes back, so that it notices a restarted server),
 * and a cs_sql_session made on its work's thread at its first statement. Spark's INVALID_HANDLE
 * errors: FORMAT (the id is not a UUID), SESSION_CLOSED (released), SESSION_CHANGED (the client
 * saw another server-side id), SESSION_NOT_FOUND.
 *
 * Called with svc->lock held (connect_internal.h), except cs_connect_session_sql (the work's
 * thread).
 */
#include <ctype.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    connect_session *s = svc->sessions;
    while (s && !(strcmp(s->session_id, session_id) == 0 && strcmp(s->user_id, user_id) == 0))
        s = s->next;
    if (s && s->released) {
        cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_CLOSED", "HY000",
                         "The handle %s is invalid. Session was closed.", session_id);
        return NULL;
    }
    if (s && observed && *observed && strcmp(observed, s->server_side_id) != 0) {
        cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_CHANGED", "HY000",
                         "The handle %s is invalid. The existing Spark server driver instance "
                         "has restarted. Please reconnect.",
                         session_id);
        return NULL;
    }
    if (s) return s;
    if (!create || (observed && *observed)) {
        /* a client that saw a server-side id talks to a server that never had its session */
        if (observed && *observed)
            cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_CHANGED", "HY000",
                             "The handle %s is invalid. The existing Spark server driver "
                             "instance has restarted. Please reconnect.",
                             session_id);
        else
            cs_sql_error_set(err, CS_EINVAL, "INVALID_HANDLE.SESSION_NOT_FOUND", "HY000",
                             "The handle %s is invalid. Session not found.", session_id);
        return NULL;
    }
    s = cs_xcalloc(1, sizeof *s);
    s->session_id = cs_xstrdup(session_id);
    s->user_id = cs_xstrdup(user_id);
    cs_connect_uuid(s->server_side_id);
    s->next = svc->sessions;
    svc->sessions = s;
    CS_INFO("connect", "event=session_started session=%s user=%s server_side=%s", session_id,
            cs_log_value(user_id), s->server_side_id);
    return s;
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

void cs_connect_sessions_free(cs_connect_service *svc)
{
    connect_session *s = svc->sessions;
    svc->sessions = NULL;
    while (s) {
        connect_session *next = s->next;
        while (s->ops) {
            connect_op *op = s->ops;
            s->ops = op->next;
            op->sess = NULL;
            cs_connect_op_unref(op);
        }
        cs_sql_session_free(s->sql);
        cs_connect_artifacts_free(s);
        cs_connect_persisted_free(s);
        free(s->session_id);
        free(s->user_id);
        free(s);
        s = next;
    }
}
