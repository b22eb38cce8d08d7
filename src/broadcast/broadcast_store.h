/*
 * broadcast_store.h — the broadcast values one process holds (Spark's BroadcastManager and the
 * broadcast part of its BlockManager): one entry per broadcast id with the whole value in one
 * buffer, cut into pieces of spark.broadcast.blockSize, the xxh64 of each piece, which pieces are
 * present, and the per-process decoded form built once by a task's decode hook (and values
 * derived under keys, each built once).
 *
 * Three users: the driver puts each value created with cspark_broadcast (its only copy; tasks of
 * local mode read it in place); an executor's tasks acquire a value, and the first to ask makes
 * the store fetch it through its source (broadcast_fetch.c: pieces from the driver or from peers)
 * while the others wait; the executor's block server serves the pieces present to peers. Removal
 * (cspark_broadcast_destroy, BroadcastRemoved) hides an entry at once and frees it when its last
 * task releases it.
 *
 * Threads: every function is thread-safe (one mutex; a fetch runs without it).
 * Ownership: the store owns entries, their buffers and decoded values (freed with the hook's free
 * function). An acquired entry stays valid until cs_broadcast_store_release, whatever removal
 * happens meanwhile; pointers from cs_broadcast_entry_* are borrowed for that long.
 */
#ifndef CSPARK_EXEC_BROADCAST_STORE_H
#define CSPARK_EXEC_BROADCAST_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct broadcast_store broadcast_store;
typedef struct broadcast_entry broadcast_entry;

/* spark.broadcast.blockSize's default (4m). */
#define CS_BROADCAST_DEFAULT_PIECE ((size_t)4 << 20)

/* What a value is before its bytes arrive (the driver's BroadcastReply for piece -1). */
typedef struct broadcast_desc {
    uint64_t size;
    uint64_t piece_size;
    int num_pieces;
    const uint64_t *checksums; /* num_pieces xxh64 values, borrowed */
} broadcast_desc;

/* Fills entry e (acquired, its buffer allocated from desc) with every piece, calling
 * cs_broadcast_store_piece_done for each as it arrives. 0, or <0 with err. Runs on the thread of
 * the first task that asked, without the store's lock. */
typedef int (*broadcast_fetch_fn)(void *arg, broadcast_store *s, broadcast_entry *e, cs_error *err);
/* Asks for the description of broadcast id (its checksums copied into *checksums, malloc'd). */
typedef int (*broadcast_describe_fn)(void *arg, int64_t id, broadcast_desc *desc,
                                     uint64_t **checksums, cs_error *err);

broadcast_store *cs_broadcast_store_new(void);
/* Frees every entry (decoded values through their free function). NULL is fine. */
void cs_broadcast_store_free(broadcast_store *s);
/* Executors: where values not present come from. Set once, before tasks run. */
void cs_broadcast_store_set_source(broadcast_store *s, broadcast_describe_fn describe,
                                   broadcast_fetch_fn fetch, void *arg);

/* The driver: keeps a copy of data as broadcast id (present whole), cut into pieces of
 * piece_size with their checksums. CS_EINVAL when the id exists. */
int cs_broadcast_store_put(broadcast_store *s, int64_t id, const void *data, size_t len,
                           size_t piece_size, cs_error *err);
/* cs_broadcast_store_put without the copy: the store takes data (malloc'd; NULL for an empty
 * value), freed with the entry, or at once when the id exists. */
int cs_broadcast_store_put_owned(broadcast_store *s, int64_t id, void *data, size_t len,
                                 size_t piece_size, cs_error *err);

/* A task: the entry of id, present whole — fetched first through the source when absent (other
 * callers wait for that fetch). CS_ENOTFOUND when the id is unknown or removed (no source), or
 * the fetch's error. Release it when the task ends. */
int cs_broadcast_store_acquire(broadcast_store *s, int64_t id, broadcast_entry **out,
                               cs_error *err);
void cs_broadcast_store_release(broadcast_store *s, broadcast_entry *e);
/* Hides id (later acquires fail or fetch again) and frees it once released. Returns whether it
 * was there. */
bool cs_broadcast_store_remove(broadcast_store *s, int64_t id);

/* Piece `piece` of id if present, acquired (release with cs_broadcast_store_release), for the
 * block server and the driver's RPC. CS_ENOTFOUND naming what is missing. */
int cs_broadcast_store_piece(broadcast_store *s, int64_t id, int piece, broadcast_entry **out,
                             const uint8_t **data, size_t *len, cs_error *err);
/* id's description (checksums borrowed from the acquired entry). */
void cs_broadcast_entry_desc(const broadcast_entry *e, broadcast_desc *out);

int64_t cs_broadcast_entry_id(const broadcast_entry *e);
const uint8_t *cs_broadcast_entry_data(const broadcast_entry *e, size_t *len);
/* For a fetch: where piece i goes and how long it is. */
uint8_t *cs_broadcast_entry_piece_buf(broadcast_entry *e, int piece, size_t *len);
uint64_t cs_broadcast_entry_checksum(const broadcast_entry *e, int piece);
/* For a fetch: piece i is in place and verified; it may be served from now on. */
void cs_broadcast_store_piece_done(broadcast_store *s, broadcast_entry *e, int piece);

/* The value's decoded form, built once per process by decode(data, len, &error) on the first
 * call and shared by every later one; freed with free_fn when the entry goes. A call with a
 * different decode function than the first fails with CS_EINVAL; a decode that returns NULL
 * fails with its error (the next call tries again). */
typedef void *(*broadcast_decode_fn)(const void *data, size_t len, char **error);
typedef void (*broadcast_decoded_free_fn)(void *decoded);
int cs_broadcast_entry_decoded(broadcast_store *s, broadcast_entry *e, broadcast_decode_fn decode,
                               broadcast_decoded_free_fn free_fn, void **out, cs_error *err);

/* A value derived from the entry's bytes under key (e.g. a join's hash table over a broadcast
 * relation, for its key columns), built once per process by derive(arg, data, len, team, err) on
 * the first call with that key, then shared, read-only, by every caller (Spark's broadcast
 * relation, built once per executor). The callers that ask while it is built join the builder's
 * team (common/work_team.h) and run the parallel loops derive posts on it, then wait for the
 * value; derive may ignore team. Freed with free_fn when the entry goes (its broadcast removed
 * and its last pin released). A derive that returns NULL fails this call with its error and
 * leaves nothing: the next call tries again. Any thread; derive runs without the store's lock. */
struct cs_work_team;
typedef void *(*broadcast_derive_fn)(void *arg, const void *data, size_t len,
                                     struct cs_work_team *team, cs_error *err);
int cs_broadcast_entry_derived(broadcast_store *s, broadcast_entry *e, const char *key,
                               broadcast_derive_fn derive, void *arg,
                               broadcast_decoded_free_fn free_fn, void **out, cs_error *err);

/* xxh64 of one piece, as the store computes it. */
uint64_t cs_broadcast_piece_checksum(const void *data, size_t len);
/* Pieces of a value of size bytes cut at piece_size (none for an empty value). */
int cs_broadcast_num_pieces(uint64_t size, uint64_t piece_size);

#endif
