/*
 * coarse_broadcast.c — the driver's broadcast service for executors (the driver side of Spark's
 * TorrentBroadcast): answers BroadcastFetch with a value's description (with the bytes too when
 * the value is one small piece), or with a piece — its bytes from the driver's copy, or the peers
 * that hold it, or "busy", as the tracker decides (exec/broadcast_tracker.h) — records
 * BroadcastStored, forgets lost executors' pieces, and sends BroadcastRemoved to every live
 * executor when the application destroys a broadcast. Called by coarse_backend.c on the RPC loop
 * thread (and the removal hook on the job's thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "broadcast/broadcast_store.h"
#include "broadcast/broadcast_tracker.h"

static void reply(rpc_conn *c, uint64_t rid, Cspark__BroadcastReply *br)
{
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BROADCAST_REPLY;
    env.broadcast_reply = br;
    cs_rpc_reply(c, rid, &env);
}

/* Fills peers with the addresses of the tracker's holders that are live executors here. */
static size_t peer_addresses(coarse_backend *b, const bt_peer *ids, int n,
                             Cspark__BroadcastPeer *pb, Cspark__BroadcastPeer **ptrs,
                             char (*hosts)[256])
{
    size_t k = 0;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < n; i++) {
        int idx = cs_coarse_find_exec(b, ids[i].executor_id);
        if (idx < 0 || !b->execs[idx].alive || !b->execs[idx].conn || b->execs[idx].block_port <= 0)
            continue;
        cspark__broadcast_peer__init(&pb[k]);
        snprintf(hosts[k], 256, "%s", b->execs[idx].host);
        pb[k].executor_id = (char *)ids[i].executor_id;
        pb[k].host = hosts[k];
        pb[k].port = b->execs[idx].block_port;
        ptrs[k] = &pb[k];
        k++;
    }
    pthread_mutex_unlock(&b->lock);
    return k;
}

void cs_coarse_on_broadcast_fetch(coarse_backend *b, rpc_conn *c, uint64_t rid,
                                  const Cspark__BroadcastFetch *bf)
{
    Cspark__BroadcastReply br = CSPARK__BROADCAST_REPLY__INIT;
    br.broadcast_id = bf->broadcast_id;
    br.piece = bf->piece;
    broadcast_store *store = b->env.broadcasts;
    broadcast_entry *e = NULL;
    cs_error err;
    cs_error_clear(&err);
    if (!store || cs_broadcast_store_acquire(store, bf->broadcast_id, &e, &err) < 0) {
        if (!store) cs_error_set(&err, CS_ENOTFOUND, "the driver holds no broadcast");
        br.error = err.msg;
        reply(c, rid, &br);
        return;
    }
    broadcast_desc d;
    cs_broadcast_entry_desc(e, &d);
    const char *exec = bf->executor_id ? bf->executor_id : "";
    if (bf->piece < 0) {
        br.size = d.size;
        br.piece_size = d.piece_size;
        br.n_checksums = (size_t)d.num_pieces;
        br.checksums = (uint64_t *)d.checksums;
        /* a value of one small piece (the tracker always has the driver send those) comes with
         * its description: one round trip, as Spark's executors read a one-block broadcast */
        size_t len = 0;
        uint8_t *data = d.num_pieces == 1 ? cs_broadcast_entry_piece_buf(e, 0, &len) : NULL;
        bt_peer ids[CS_BROADCAST_MAX_PEERS];
        int n = 0;
        if (data && len <= CS_BROADCAST_SMALL_PIECE_BYTES &&
            cs_broadcast_tracker_decide(b->env.broadcast_tracker, bf->broadcast_id, 0, 1, len, exec,
                                        false, cs_mono_ms(), ids, &n) == BT_SEND) {
            br.data.data = data;
            br.data.len = len;
        }
        reply(c, rid, &br);
    } else if (bf->piece >= d.num_pieces) {
        snprintf(err.msg, sizeof err.msg, "broadcast %lld has no piece %d",
                 (long long)bf->broadcast_id, bf->piece);
        br.error = err.msg;
        reply(c, rid, &br);
    } else {
        size_t len;
        uint8_t *data = cs_broadcast_entry_piece_buf(e, bf->piece, &len);
        bt_peer ids[CS_BROADCAST_MAX_PEERS];
        int n = 0;
        bt_decision dec = cs_broadcast_tracker_decide(b->env.broadcast_tracker, bf->broadcast_id,
                                                      bf->piece, d.num_pieces, len, exec,
                                                      bf->from_driver, cs_mono_ms(), ids, &n);
        Cspark__BroadcastPeer pb[CS_BROADCAST_MAX_PEERS];
        Cspark__BroadcastPeer *ptrs[CS_BROADCAST_MAX_PEERS];
        char hosts[CS_BROADCAST_MAX_PEERS][256];
        if (dec == BT_PEERS) {
            br.n_peers = peer_addresses(b, ids, n, pb, ptrs, hosts);
            br.peers = ptrs;
            if (br.n_peers == 0) /* holders not reachable from here: the driver sends it */
                dec = cs_broadcast_tracker_decide(b->env.broadcast_tracker, bf->broadcast_id,
                                                  bf->piece, d.num_pieces, len, exec, true,
                                                  cs_mono_ms(), ids, &n);
        }
        if (dec == BT_BUSY) br.busy = true;
        if (dec == BT_SEND) {
            br.data.data = data;
            br.data.len = len;
        }
        reply(c, rid, &br);
    }
    cs_broadcast_store_release(store, e);
}

void cs_coarse_on_broadcast_stored(coarse_backend *b, const Cspark__BroadcastStored *bs)
{
    if (!b->env.broadcast_tracker || !bs->executor_id) return;
    cs_broadcast_tracker_stored(b->env.broadcast_tracker, bs->broadcast_id, bs->piece,
                                bs->executor_id, bs->source, bs->bytes);
}

/* The tracker's removal hook: every live executor drops its copy. */
static void on_removed(void *arg, int64_t id)
{
    coarse_backend *b = arg;
    Cspark__BroadcastRemoved br = CSPARK__BROADCAST_REMOVED__INIT;
    br.broadcast_id = id;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BROADCAST_REMOVED;
    env.broadcast_removed = &br;
    cs_coarse_send_to_live(b, &env);
}

void cs_coarse_broadcast_attach(coarse_backend *b, bool on)
{
    if (!b->env.broadcast_tracker) return;
    cs_broadcast_tracker_set_removed_hook(b->env.broadcast_tracker, on ? on_removed : NULL,
                                          on ? b : NULL);
}

void cs_coarse_broadcast_executor_lost(coarse_backend *b, const char *executor_id)
{
    if (b->env.broadcast_tracker)
        cs_broadcast_tracker_executor_lost(b->env.broadcast_tracker, executor_id);
}
