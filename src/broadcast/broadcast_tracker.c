/*
 * broadcast_tracker.c — where broadcast pieces are and who sends the next copy (see
 * broadcast_tracker.h). Executors are numbered once (a string map); each piece keeps the numbers
 * of its holders and of the executor it is in flight to from the driver, with the time it left.
 * Called by the coarse backend (cluster/coarse_broadcast.c) on the driver's RPC thread.
 */
#include "broadcast/broadcast_tracker.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hmap.h"

typedef struct bt_piece {
    int *holders;
    int num_holders, cap_holders;
    int inflight; /* executor number + 1 fetching it from the driver, 0 = none */
    int64_t inflight_since;
} bt_piece;

typedef struct bt_bcast {
    int num_pieces;
    bt_piece *pieces;
    uint64_t by_driver, by_executors;
} bt_bcast;

struct broadcast_tracker {
    pthread_mutex_t mu;
    int64_t busy_timeout_ms;
    cs_hmap execs; /* executor id -> number */
    char (*names)[64];
    bool *lost;
    int num_execs;
    cs_hmap bcasts; /* id -> bt_bcast * */
    uint64_t rng;
    bt_removed_fn removed;
    void *removed_arg;
};

broadcast_tracker *cs_broadcast_tracker_new(int64_t busy_timeout_ms)
{
    broadcast_tracker *t = cs_xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    t->busy_timeout_ms = busy_timeout_ms;
    cs_hmap_init_strings(&t->execs);
    t->rng = 0x9E3779B97F4A7C15ULL;
    return t;
}

static void bcast_free(bt_bcast *b)
{
    for (int i = 0; i < b->num_pieces; i++)
        free(b->pieces[i].holders);
    free(b->pieces);
    free(b);
}

void cs_broadcast_tracker_free(broadcast_tracker *t)
{
    if (!t) return;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&t->bcasts, &pos, NULL, &v))
        bcast_free((bt_bcast *)(uintptr_t)v);
    cs_hmap_free(&t->bcasts);
    cs_hmap_free(&t->execs);
    free(t->names);
    free(t->lost);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static int exec_number(broadcast_tracker *t, const char *exec)
{
    uint64_t v;
    if (cs_hmap_sget(&t->execs, exec, &v)) return (int)v;
    int n = t->num_execs++;
    t->names = cs_xrealloc(t->names, (size_t)t->num_execs * sizeof *t->names);
    t->lost = cs_xrealloc(t->lost, (size_t)t->num_execs * sizeof *t->lost);
    snprintf(t->names[n], sizeof t->names[n], "%s", exec);
    t->lost[n] = false;
    cs_hmap_sput(&t->execs, exec, (uint64_t)n);
    return n;
}

/* The broadcast's record, created at its first request. */
static bt_bcast *bcast_get(broadcast_tracker *t, int64_t id, int num_pieces)
{
    uint64_t v;
    if (cs_hmap_get(&t->bcasts, (uint64_t)id, &v)) return (bt_bcast *)(uintptr_t)v;
    if (num_pieces < 0) return NULL;
    bt_bcast *b = cs_xcalloc(1, sizeof *b);
    b->num_pieces = num_pieces;
    b->pieces = cs_xcalloc((size_t)num_pieces + 1, sizeof *b->pieces);
    cs_hmap_put(&t->bcasts, (uint64_t)id, (uint64_t)(uintptr_t)b);
    return b;
}

static uint64_t next_rand(broadcast_tracker *t)
{
    t->rng ^= t->rng << 13;
    t->rng ^= t->rng >> 7;
    t->rng ^= t->rng << 17;
    return t->rng;
}

bt_decision cs_broadcast_tracker_decide(broadcast_tracker *t, int64_t id, int piece, int num_pieces,
                                        uint64_t piece_bytes, const char *exec, bool from_driver,
                                        int64_t now_ms, bt_peer *peers, int *num_peers)
{
    *num_peers = 0;
    pthread_mutex_lock(&t->mu);
    bt_bcast *b = bcast_get(t, id, num_pieces);
    int me = exec_number(t, exec);
    bt_decision d = BT_SEND;
    if (piece >= 0 && piece < b->num_pieces && !from_driver &&
        piece_bytes > CS_BROADCAST_SMALL_PIECE_BYTES) {
        bt_piece *p = &b->pieces[piece];
        /* live holders other than the asker, from a random starting point */
        int start = p->num_holders ? (int)(next_rand(t) % (uint64_t)p->num_holders) : 0;
        for (int k = 0; k < p->num_holders && *num_peers < CS_BROADCAST_MAX_PEERS; k++) {
            int h = p->holders[(start + k) % p->num_holders];
            if (h == me || t->lost[h]) continue;
            memcpy(peers[(*num_peers)++].executor_id, t->names[h], 64);
        }
        if (*num_peers > 0) {
            d = BT_PEERS;
        } else if (p->inflight && p->inflight - 1 != me && !t->lost[p->inflight - 1] &&
                   now_ms - p->inflight_since < t->busy_timeout_ms) {
            d = BT_BUSY;
        }
    }
    if (d == BT_SEND) {
        b->by_driver += piece_bytes;
        if (piece >= 0 && piece < b->num_pieces) {
            b->pieces[piece].inflight = me + 1;
            b->pieces[piece].inflight_since = now_ms;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return d;
}

void cs_broadcast_tracker_stored(broadcast_tracker *t, int64_t id, int piece, const char *exec,
                                 const char *source, uint64_t bytes)
{
    pthread_mutex_lock(&t->mu);
    bt_bcast *b = bcast_get(t, id, -1);
    if (!b || piece < 0 || piece >= b->num_pieces) {
        pthread_mutex_unlock(&t->mu);
        return;
    }
    int me = exec_number(t, exec);
    bt_piece *p = &b->pieces[piece];
    if (p->inflight == me + 1) p->inflight = 0;
    if (source && *source && strcmp(source, "driver") != 0) b->by_executors += bytes;
    bool known = false;
    for (int i = 0; i < p->num_holders; i++)
        known |= p->holders[i] == me;
    if (!known && !t->lost[me]) {
        if (p->num_holders == p->cap_holders) {
            p->cap_holders = p->cap_holders ? p->cap_holders * 2 : 4;
            p->holders = cs_xrealloc(p->holders, (size_t)p->cap_holders * sizeof *p->holders);
        }
        p->holders[p->num_holders++] = me;
    }
    pthread_mutex_unlock(&t->mu);
}

void cs_broadcast_tracker_executor_lost(broadcast_tracker *t, const char *exec)
{
    pthread_mutex_lock(&t->mu);
    int me = exec_number(t, exec);
    t->lost[me] = true;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&t->bcasts, &pos, NULL, &v)) {
        bt_bcast *b = (bt_bcast *)(uintptr_t)v;
        for (int i = 0; i < b->num_pieces; i++) {
            bt_piece *p = &b->pieces[i];
            if (p->inflight == me + 1) p->inflight = 0;
            for (int k = 0; k < p->num_holders; k++)
                if (p->holders[k] == me) p->holders[k--] = p->holders[--p->num_holders];
        }
    }
    pthread_mutex_unlock(&t->mu);
}

void cs_broadcast_tracker_served(broadcast_tracker *t, int64_t id, uint64_t *by_driver,
                                 uint64_t *by_executors)
{
    pthread_mutex_lock(&t->mu);
    bt_bcast *b = bcast_get(t, id, -1);
    *by_driver = b ? b->by_driver : 0;
    *by_executors = b ? b->by_executors : 0;
    pthread_mutex_unlock(&t->mu);
}

void cs_broadcast_tracker_remove(broadcast_tracker *t, int64_t id)
{
    pthread_mutex_lock(&t->mu);
    bt_bcast *b = bcast_get(t, id, -1);
    if (b) {
        cs_hmap_del(&t->bcasts, (uint64_t)id);
        bcast_free(b);
    }
    bt_removed_fn fn = t->removed;
    void *arg = t->removed_arg;
    pthread_mutex_unlock(&t->mu);
    if (fn) fn(arg, id);
}

void cs_broadcast_tracker_set_removed_hook(broadcast_tracker *t, bt_removed_fn fn, void *arg)
{
    pthread_mutex_lock(&t->mu);
    t->removed = fn;
    t->removed_arg = arg;
    pthread_mutex_unlock(&t->mu);
}
