/*
 * locality.c — delay scheduling over PROCESS_LOCAL and ANY (see locality.h), as Spark's
 * TaskSetManager: the wait counts from the last launch at the current level, and when it expires
 * the level moves on with the last-launch time advanced by the wait (so a set that keeps
 * launching does not fall behind); and the level a launch is reported at. Called by the coarse
 * backend's offers, the event log, the UI and the history server's replay.
 */
#include "sched/locality.h"

#include <string.h>

static const char *const level_names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL",
                                          "ANY"};

const char *cs_locality_name(cs_locality_level level)
{
    if ((int)level < 0 || (size_t)level >= sizeof level_names / sizeof level_names[0])
        return level_names[0];
    return level_names[level];
}

cs_locality_level cs_locality_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcmp(name, level_names[i]) == 0) return (cs_locality_level)i;
    return CS_LOCALITY_PROCESS_LOCAL;
}

cs_locality_level cs_locality_of_launch(const cs_block_location *prefs, int n, const char *executor,
                                        const char *host)
{
    if (n <= 0) return CS_LOCALITY_PROCESS_LOCAL; /* no preference */
    cs_locality_level level = CS_LOCALITY_ANY;
    for (int i = 0; i < n; i++) {
        if (strcmp(prefs[i].executor_id, executor) == 0) return CS_LOCALITY_PROCESS_LOCAL;
        if (prefs[i].host[0] && host && strcmp(prefs[i].host, host) == 0)
            level = CS_LOCALITY_NODE_LOCAL;
    }
    return level;
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
