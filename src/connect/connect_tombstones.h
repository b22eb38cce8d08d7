/*
 * connect_tombstones.h — the closed sessions the Spark Connect service remembers, as Spark 4's
 * SparkConnectSessionManager's closedSessionsCache: a released or expired session leaves only
 * its key here (its state is freed), so that a later request naming it gets
 * INVALID_HANDLE.SESSION_CLOSED instead of a new session. At most
 * spark.connect.session.manager.closedSessionsTombstonesSize (1000) keys are kept: adding one
 * more drops the oldest, whose id then makes a new session again, as in Spark.
 *
 * Lookup is by hash (common/hmap.h), never a scan; the keys are kept in the order they came in a
 * ring. Used by connect_sessions.c under the service's lock; not thread-safe by itself.
 *
 * Ownership: a cs_connect_tombstones is a value its owner initialises and frees
 * (cs_connect_tombstones_free); it keeps copies of the keys it is given.
 */
#ifndef CSPARK_CONNECT_CONNECT_TOMBSTONES_H
#define CSPARK_CONNECT_CONNECT_TOMBSTONES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/hmap.h"

typedef struct cs_connect_tombstones {
    char **ring;  /* ring[(oldest + i) % cap], i < count: the keys, oldest first */
    size_t cap;   /* the most kept; 0: none is */
    size_t count; /* kept now */
    size_t oldest;
    cs_hmap set; /* the same keys, for lookup */
} cs_connect_tombstones;

/* Empty, keeping at most cap keys. */
void cs_connect_tombstones_init(cs_connect_tombstones *t, size_t cap);
/* Remembers key (copied), dropping the oldest when cap are kept already; a key kept already
 * stays where it is. */
void cs_connect_tombstones_add(cs_connect_tombstones *t, const char *key);
bool cs_connect_tombstones_has(const cs_connect_tombstones *t, const char *key);
void cs_connect_tombstones_free(cs_connect_tombstones *t);

#endif /* CSPARK_CONNECT_CONNECT_TOMBSTONES_H */
