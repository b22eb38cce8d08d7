/*
 * locality.c — delay scheduling over PROCESS_LOCAL and ANY (see locality.h), as Spark's
 * TaskSetManager: the wait counts from the last launch at the current level, and when it expires
 * the level moves on with the last-launch time advanced by the wait (so a set that keeps
 * launching does not fall behind). Called by the coarse backend's offers.
 */
#include "sched/locality.h"

const char *cs_locality_name(cs_locality_level level)
{
    return level == CS_LOCALITY_PROCESS_LOCAL ? "PROCESS_LOCAL" : "ANY";
}

void cs_locality_init(cs_locality_state *s, int64_t now_ms)
{
    s->level = CS_LOCALITY_PROCESS_LOCAL;
    s->last_launch_ms = now_ms;
}

cs_locality_level cs_locality_allowed(cs_locality_state *s, int64_t now_ms, int64_t wait_ms,
                                      bool local_pending)
{
    if (s->level == CS_LOCALITY_PROCESS_LOCAL) {
        if (!local_pending) {
            s->level = CS_LOCALITY_ANY; /* nothing waits for a local executor */
        } else if (now_ms - s->last_launch_ms >= wait_ms) {
            s->last_launch_ms += wait_ms;
            s->level = CS_LOCALITY_ANY;
        }
    }
    return s->level;
}

void cs_locality_launched(cs_locality_state *s, cs_locality_level level, int64_t now_ms)
{
    s->level = level;
    s->last_launch_ms = now_ms;
}

int64_t cs_locality_wait_left(const cs_locality_state *s, int64_t now_ms, int64_t wait_ms)
{
    if (s->level == CS_LOCALITY_ANY) return 0;
    int64_t left = s->last_launch_ms + wait_ms - now_ms;
    return left > 0 ? left : 0;
}
