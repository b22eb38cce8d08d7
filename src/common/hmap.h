/*
 * hmap.h — the one hash table of cspark's control paths: open addressing with linear probing and
 * tombstones, grown at half load. Keys are 64-bit values (task ids, pointers as uintptr_t) or,
 * in a string map, NUL-terminated strings the map copies (executor ids); values are 64-bit.
 *
 * Used where a lookup per task, per executor event or per lineage node must not scan: the coarse
 * backend's executor registry and running-task table, the allocation manager's executor monitor,
 * the stage plan encoder's node and dependency numbering. (The shuffle's aggregation map is its
 * own structure: records, not ids.)
 *
 * Ownership: a cs_hmap is a caller-owned value — zero-initialised it is an empty 64-bit-key map;
 * cs_hmap_init_strings makes a string map; cs_hmap_free releases it (and the key copies). Not
 * thread-safe: callers lock.
 */
#ifndef CSPARK_COMMON_HMAP_H
#define CSPARK_COMMON_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cs_hmap {
    struct cs_hmap_slot *slots;
    size_t cap, used, live; /* used counts live keys and tombstones */
    bool strings;           /* keys are strings (copied) */
} cs_hmap;

/* MurmurHash3's 64-bit finalizer: spreads a 64-bit key (an id, an integer group or join key)
 * over every bit of its hash. The map's own hash, and the SQL hash operators' for word keys. */
static inline uint64_t cs_hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* An empty map of string keys (a zero-initialised cs_hmap has 64-bit keys). */
void cs_hmap_init_strings(cs_hmap *m);

/* 64-bit keys. get: true and *val when present. put: inserts or overwrites. del: true when it was
 * there. */
bool cs_hmap_get(const cs_hmap *m, uint64_t key, uint64_t *val);
void cs_hmap_put(cs_hmap *m, uint64_t key, uint64_t val);
bool cs_hmap_del(cs_hmap *m, uint64_t key);

/* The same with string keys (in a string map only). */
bool cs_hmap_sget(const cs_hmap *m, const char *key, uint64_t *val);
void cs_hmap_sput(cs_hmap *m, const char *key, uint64_t val);
bool cs_hmap_sdel(cs_hmap *m, const char *key);

/* Iteration: *pos starts at 0; each call gives the next live entry (key: the 64-bit key, or the
 * string's address in a string map) until it returns false. Deleting the entry just returned is
 * allowed; any other change ends the iteration's validity. */
bool cs_hmap_next(const cs_hmap *m, size_t *pos, uint64_t *key, uint64_t *val);
size_t cs_hmap_size(const cs_hmap *m);
void cs_hmap_free(cs_hmap *m);

#endif
