/*
 * broadcast_tracker.h — the driver's record of where broadcast pieces are (the broadcast part of
 * Spark's BlockManagerMasterEndpoint) and its rule for who sends a piece: an executor asking for
 * a piece is sent to peers that hold it; when none does, the driver sends it — unless another
 * executor is fetching that piece from the driver right now, in which case the asker is told to
 * come back (busy) and fetches other pieces meanwhile. So the driver sends each piece about once
 * and executors spread the rest between them. A small piece (CS_BROADCAST_SMALL_PIECE_BYTES or
 * less: a small broadcast, e.g. the centroids of an iteration) is sent by the driver to whoever
 * asks: a busy wait or a fetch from a peer costs more than its bytes (Spark's executors fetch a
 * piece from any holder, the driver included, in one round trip). An executor fetching from the
 * driver for longer than the busy timeout, or lost, no longer blocks the piece. Counts the bytes
 * each source served.
 *
 * A pure state machine with explicit times (tests drive it directly); the coarse backend calls it
 * from its RPC thread. Thread-safe (one mutex). Ownership: strings are copied; the peers returned
 * are copied into the caller's array.
 */
#ifndef CSPARK_EXEC_BROADCAST_TRACKER_H
#define CSPARK_EXEC_BROADCAST_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct broadcast_tracker broadcast_tracker;

/* How long a piece counts as being fetched from the driver by one executor (10 s). */
#define CS_BROADCAST_BUSY_TIMEOUT_MS 10000
#define CS_BROADCAST_MAX_PEERS 4
/* A piece this small is always sent by the driver. */
#define CS_BROADCAST_SMALL_PIECE_BYTES (64 * 1024)

typedef enum {
    BT_SEND,  /* the driver sends the piece (now counted as in flight to the asker) */
    BT_PEERS, /* fetch it from one of the peers returned */
    BT_BUSY   /* another executor is fetching it from the driver: ask again later */
} bt_decision;

typedef struct bt_peer {
    char executor_id[64];
} bt_peer;

broadcast_tracker *cs_broadcast_tracker_new(int64_t busy_timeout_ms);
void cs_broadcast_tracker_free(broadcast_tracker *t);

/* Executor exec asks for piece `piece` (of num_pieces, piece_bytes long) of broadcast id at
 * now_ms. from_driver: the peers failed it — the driver sends. BT_SEND counts piece_bytes as
 * served by the driver. BT_PEERS fills up to CS_BROADCAST_MAX_PEERS holders (random order). */
bt_decision cs_broadcast_tracker_decide(broadcast_tracker *t, int64_t id, int piece, int num_pieces,
                                        uint64_t piece_bytes, const char *exec, bool from_driver,
                                        int64_t now_ms, bt_peer *peers, int *num_peers);
/* exec stored the piece, got from `source` (NULL or "driver": the driver): it holds it now;
 * bytes served by a peer are counted for that peer. */
void cs_broadcast_tracker_stored(broadcast_tracker *t, int64_t id, int piece, const char *exec,
                                 const char *source, uint64_t bytes);
/* exec is gone: it holds nothing and fetches nothing. */
void cs_broadcast_tracker_executor_lost(broadcast_tracker *t, const char *exec);
/* Bytes of broadcast id sent by the driver and by executors so far (0 for an unknown id). */
void cs_broadcast_tracker_served(broadcast_tracker *t, int64_t id, uint64_t *by_driver,
                                 uint64_t *by_executors);
/* Forgets id (destroyed) and tells the removal hook, which passes it on to the executors. */
void cs_broadcast_tracker_remove(broadcast_tracker *t, int64_t id);
/* The driver's backend: fn(arg, id) after each removal (NULL: none). Set once it can send. */
typedef void (*bt_removed_fn)(void *arg, int64_t id);
void cs_broadcast_tracker_set_removed_hook(broadcast_tracker *t, bt_removed_fn fn, void *arg);

#endif
