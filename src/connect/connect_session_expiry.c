/*
 * connect_session_expiry.c — the idle-session rule and the maintenance schedule of the Spark
 * Connect service (connect_session_expiry.h says the rules). Called by connect_sessions.c under
 * the service's lock; pure functions of the times they are given.
 */
#include "connect/connect_session_expiry.h"

void cs_connect_activity_init(cs_connect_activity *a, int64_t now_ms)
{
    a->last_ms = now_ms;
    a->works = 0;
}

void cs_connect_activity_request(cs_connect_activity *a, int64_t now_ms)
{
    if (now_ms > a->last_ms) a->last_ms = now_ms;
}

void cs_connect_activity_work_queued(cs_connect_activity *a, int64_t now_ms)
{
    a->works++;
    cs_connect_activity_request(a, now_ms);
}

void cs_connect_activity_work_ended(cs_connect_activity *a, int64_t now_ms)
{
    if (a->works > 0) a->works--;
    cs_connect_activity_request(a, now_ms); /* idle from the end of its last work */
}

bool cs_connect_activity_expired(const cs_connect_activity *a, int64_t timeout_ms, int64_t now_ms)
{
    if (timeout_ms < 0 || a->works > 0) return false;
    return a->last_ms + timeout_ms <= now_ms;
}

void cs_connect_maintenance_init(cs_connect_maintenance *m, int64_t interval_ms, int64_t now_ms)
{
    m->interval_ms = interval_ms > 0 ? interval_ms : 1;
    m->next_ms = now_ms + m->interval_ms;
}

bool cs_connect_maintenance_due(cs_connect_maintenance *m, int64_t now_ms)
{
    if (now_ms < m->next_ms) return false;
    m->next_ms += m->interval_ms;
    if (m->next_ms <= now_ms) m->next_ms = now_ms + m->interval_ms; /* late: no catching up */
    return true;
}
