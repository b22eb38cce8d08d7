/*
 * locality.c — Spark's names of the locality levels (see locality.h). Called by the event log,
 * the UI and the history server's replay.
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
