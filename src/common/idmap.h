/* idmap.h — a string → int map for identifiers (executor ids) looked up on hot paths: open
 * addressing with linear probing and tombstones, FNV-1a hashes, grown at 1/2 load.
 *
 * Used where a table of executors is indexed by id (the coarse backend's registry, the
 * allocation manager's monitor), so that a lookup per task or per map output costs O(1) instead
 * of a scan over every executor.
 *
 * Ownership: a cs_idmap is a caller-owned value (zero-initialised = empty, cs_idmap_free
 * releases it); it keeps its own copies of the keys. Not thread-safe: callers lock.
 */
#ifndef CSPARK_COMMON_IDMAP_H
#define CSPARK_COMMON_IDMAP_H

#include <stddef.h>

typedef struct cs_idmap {
    struct cs_idmap_slot *slots;
    size_t cap, used; /* used counts live keys and tombstones */
} cs_idmap;

/* Sets key's value (inserting it when absent). */
void cs_idmap_put(cs_idmap *m, const char *key, int value);
/* key's value, or -1 when absent. */
int cs_idmap_get(const cs_idmap *m, const char *key);
/* Removes key (nothing when absent). */
void cs_idmap_del(cs_idmap *m, const char *key);
void cs_idmap_free(cs_idmap *m);

#endif
