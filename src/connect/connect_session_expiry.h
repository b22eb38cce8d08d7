/*
 * connect_session_expiry.h — when the Spark Connect service closes an idle session, as Spark 4's
 * SparkConnectSessionManager decides it: a session that received no request for
 * spark.connect.session.manager.defaultSessionTimeout (60m; -1: never) is closed by the
 * maintenance round, which runs every spark.connect.session.manager.maintenanceInterval (30s).
 * A session with work queued or running (an ExecutePlan, AnalyzePlan or Config not ended) is
 * never idle, however long that work takes: its idle time starts again when its last work ends.
 *
 * A pure state machine over explicit times: the caller (connect_sessions.c, under the service's
 * lock) passes every time in monotonic milliseconds; nothing here reads the clock, so that its
 * rules are unit-tested with given times (tests/unit/connect/test_connect_session_expiry.c).
 *
 * Ownership: plain values inside their owner (a session, the service); nothing to free.
 */
#ifndef CSPARK_CONNECT_CONNECT_SESSION_EXPIRY_H
#define CSPARK_CONNECT_CONNECT_SESSION_EXPIRY_H

#include <stdbool.h>
#include <stdint.h>

#define CS_CONNECT_NEVER_EXPIRE (-1) /* a timeout of -1: sessions are kept until released */

/* One session's activity. */
typedef struct cs_connect_activity {
    int64_t last_ms; /* its last request, or the end of its last work */
    int works;       /* works queued or running */
} cs_connect_activity;

/* A session made at now_ms: active now, no work. */
void cs_connect_activity_init(cs_connect_activity *a, int64_t now_ms);
/* A request for the session arrived (any RPC that names it). */
void cs_connect_activity_request(cs_connect_activity *a, int64_t now_ms);
/* A work of the session was queued / ended (ran or was dropped). */
void cs_connect_activity_work_queued(cs_connect_activity *a, int64_t now_ms);
void cs_connect_activity_work_ended(cs_connect_activity *a, int64_t now_ms);
/* Whether the session is to be closed at now_ms with this timeout (ms, or
 * CS_CONNECT_NEVER_EXPIRE): no work, and idle for timeout_ms or longer (Spark's
 * lastAccessTime + timeout <= now). */
bool cs_connect_activity_expired(const cs_connect_activity *a, int64_t timeout_ms, int64_t now_ms);

/* The maintenance round's schedule: at a fixed rate of interval_ms (> 0) from its start. */
typedef struct cs_connect_maintenance {
    int64_t next_ms;
    int64_t interval_ms;
} cs_connect_maintenance;

void cs_connect_maintenance_init(cs_connect_maintenance *m, int64_t interval_ms, int64_t now_ms);
/* Whether a round is due at now_ms; when it is, the next one is scheduled (a round missed by
 * more than an interval is not run twice). */
bool cs_connect_maintenance_due(cs_connect_maintenance *m, int64_t now_ms);

#endif /* CSPARK_CONNECT_CONNECT_SESSION_EXPIRY_H */
