/*
 * broadcast_fetch.c — an executor's broadcast source (see broadcast_fetch.h): BroadcastFetch
 * requests to the driver and to peers' block servers (cs_rpc_call), BroadcastStored
 * announcements, a random piece order per fetch, and a small cache of peer connections. A value
 * of one small piece arrives with its description: the fetch then asks nothing more. Called by
 * broadcast_store.c on the task thread that first asks for a value.
 */
#define _GNU_SOURCE
#include "broadcast/broadcast_fetch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

#define MAX_PEER_CONNS 64

typedef struct peer_conn {
    char key[300]; /* host:port */
    rpc_conn *c;
} peer_conn;

struct broadcast_fetcher {
    rpc_endpoint *ep;
    rpc_conn *driver;
    char *executor_id;
    int64_t timeout_ms;
    pthread_mutex_t mu; /* guards peers */
    peer_conn peers[MAX_PEER_CONNS];
    int num_peers;
};

static const char *COMP = "broadcast";

/* The bytes of a value of one small piece that came with its description (describe), kept for
 * the fetch that follows on the same thread (broadcast_store.c calls describe, then fetch). */
static __thread struct {
    int64_t id;
    uint8_t *bytes;
    size_t len;
} described_piece;

broadcast_fetcher *cs_broadcast_fetcher_new(rpc_endpoint *ep, rpc_conn *driver,
                                            const char *executor_id, int64_t timeout_ms)
{
    broadcast_fetcher *f = cs_xcalloc(1, sizeof *f);
    f->ep = ep;
    f->driver = driver;
    f->executor_id = cs_xstrdup(executor_id);
    f->timeout_ms = timeout_ms > 0 ? timeout_ms : 120000;
    pthread_mutex_init(&f->mu, NULL);
    return f;
}

void cs_broadcast_fetcher_free(broadcast_fetcher *f)
{
    if (!f) return;
    for (int i = 0; i < f->num_peers; i++) {
        cs_rpc_conn_close(f->peers[i].c);
        cs_rpc_conn_unref(f->peers[i].c);
    }
    pthread_mutex_destroy(&f->mu);
    free(f->executor_id);
    free(f);
}

/* One BroadcastFetch on c; *reply is the BroadcastReply's envelope (free it). */
static int ask(broadcast_fetcher *f, rpc_conn *c, int64_t id, int piece, bool from_driver,
               Cspark__Envelope **reply, cs_error *err)
{
    Cspark__BroadcastFetch bf = CSPARK__BROADCAST_FETCH__INIT;
    bf.broadcast_id = id;
    bf.piece = piece;
    bf.executor_id = f->executor_id;
    bf.from_driver = from_driver;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
    req.body_case = CSPARK__ENVELOPE__BODY_BROADCAST_FETCH;
    req.broadcast_fetch = &bf;
    int tmo = f->timeout_ms > 0x7fffffff ? 0x7fffffff : (int)f->timeout_ms;
    if (cs_rpc_call(c, &req, reply, tmo, err) < 0) return err && err->code ? err->code : CS_EIO;
    if ((*reply)->body_case != CSPARK__ENVELOPE__BODY_BROADCAST_REPLY) {
        cspark__envelope__free_unpacked(*reply, NULL);
        *reply = NULL;
        return cs_error_set(err, CS_EPROTO, "broadcast %lld: unexpected reply from %s",
                            (long long)id, cs_rpc_conn_peer(c));
    }
    const char *e = (*reply)->broadcast_reply->error;
    if (e && *e) {
        int rc = cs_error_set(err, CS_ENOTFOUND, "%s", e);
        cspark__envelope__free_unpacked(*reply, NULL);
        *reply = NULL;
        return rc;
    }
    return 0;
}

static int describe(void *arg, int64_t id, broadcast_desc *d, uint64_t **checksums, cs_error *err)
{
    broadcast_fetcher *f = arg;
    Cspark__Envelope *reply = NULL;
    int rc = ask(f, f->driver, id, -1, false, &reply, err);
    if (rc < 0) return rc;
    Cspark__BroadcastReply *br = reply->broadcast_reply;
    d->size = br->size;
    d->piece_size = br->piece_size;
    d->num_pieces = cs_broadcast_num_pieces(br->size, br->piece_size);
    if (br->piece_size == 0 || (size_t)d->num_pieces != br->n_checksums) {
        cspark__envelope__free_unpacked(reply, NULL);
        return cs_error_set(err, CS_EPROTO, "broadcast %lld: inconsistent description",
                            (long long)id);
    }
    *checksums = cs_xcalloc(br->n_checksums + 1, sizeof **checksums);
    memcpy(*checksums, br->checksums, br->n_checksums * sizeof **checksums);
    d->checksums = *checksums;
    free(described_piece.bytes);
    described_piece.bytes = NULL;
    if (d->num_pieces == 1 && br->data.len > 0) {
        described_piece.id = id;
        described_piece.len = br->data.len;
        described_piece.bytes = cs_xmalloc(br->data.len);
        memcpy(described_piece.bytes, br->data.data, br->data.len);
    }
    cspark__envelope__free_unpacked(reply, NULL);
    return 0;
}

/* A cached connection to a peer's block server (referenced: unref when done). */
static rpc_conn *peer(broadcast_fetcher *f, const char *host, int port, cs_error *err)
{
    char key[300];
    snprintf(key, sizeof key, "%s:%d", host, port);
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < f->num_peers; i++) {
        if (strcmp(f->peers[i].key, key) != 0) continue;
        if (cs_rpc_conn_is_closed(f->peers[i].c)) { /* gone: drop it, connect again */
            cs_rpc_conn_unref(f->peers[i].c);
            f->peers[i] = f->peers[--f->num_peers];
            break;
        }
        rpc_conn *c = f->peers[i].c;
        cs_rpc_conn_ref(c);
        pthread_mutex_unlock(&f->mu);
        return c;
    }
    pthread_mutex_unlock(&f->mu);
    rpc_conn *c = cs_rpc_connect(f->ep, host, port, 30000, err);
    if (!c) return NULL;
    pthread_mutex_lock(&f->mu);
    if (f->num_peers < MAX_PEER_CONNS) {
        snprintf(f->peers[f->num_peers].key, sizeof f->peers[0].key, "%s", key);
        f->peers[f->num_peers++].c = c;
        cs_rpc_conn_ref(c);
    }
    pthread_mutex_unlock(&f->mu);
    return c;
}

/* Copies a piece's bytes into e if they match its checksum. */
static int take_bytes(broadcast_entry *e, int piece, const uint8_t *bytes, size_t n,
                      const char *from, cs_error *err)
{
    size_t len;
    uint8_t *dst = cs_broadcast_entry_piece_buf(e, piece, &len);
    if (n != len ||
        cs_broadcast_piece_checksum(bytes, len) != cs_broadcast_entry_checksum(e, piece))
        return cs_error_set(err, CS_EIO,
                            "broadcast %lld piece %d from %s: checksum mismatch (%zu bytes, "
                            "expected %zu)",
                            (long long)cs_broadcast_entry_id(e), piece, from, n, len);
    memcpy(dst, bytes, len);
    return 0;
}

static int take_piece(broadcast_entry *e, int piece, const Cspark__BroadcastReply *br,
                      const char *from, cs_error *err)
{
    return take_bytes(e, piece, br->data.data, br->data.len, from, err);
}

static void announce(broadcast_fetcher *f, int64_t id, int piece, const char *source,
                     uint64_t bytes)
{
    Cspark__BroadcastStored bs = CSPARK__BROADCAST_STORED__INIT;
    bs.broadcast_id = id;
    bs.piece = piece;
    bs.executor_id = f->executor_id;
    bs.source = (char *)source;
    bs.bytes = bytes;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BROADCAST_STORED;
    env.broadcast_stored = &bs;
    cs_rpc_send(f->driver, &env);
}

/* Tries the peers of reply in turn; 0 once one sent a good piece (*source = its id). */
static int from_peers(broadcast_fetcher *f, broadcast_entry *e, int piece,
                      const Cspark__BroadcastReply *br, char *source, size_t cap, int *asked)
{
    int64_t id = cs_broadcast_entry_id(e);
    for (size_t i = 0; i < br->n_peers; i++) {
        const Cspark__BroadcastPeer *p = br->peers[i];
        cs_error err;
        cs_error_clear(&err);
        rpc_conn *c = peer(f, p->host, p->port, &err);
        Cspark__Envelope *reply = NULL;
        int rc = c ? ask(f, c, id, piece, false, &reply, &err) : CS_EIO;
        *asked += c != NULL;
        if (c) cs_rpc_conn_unref(c);
        if (rc == 0) rc = take_piece(e, piece, reply->broadcast_reply, p->executor_id, &err);
        if (reply) cspark__envelope__free_unpacked(reply, NULL);
        if (rc == 0) {
            snprintf(source, cap, "%s", p->executor_id);
            return 0;
        }
        CS_WARN(COMP,
                "executor=%s broadcast=%lld piece=%d event=peer_fetch_failed peer=%s "
                "error=\"%s\"",
                f->executor_id, (long long)id, piece, p->executor_id, err.msg);
    }
    return CS_EIO;
}

/* One piece: 1 stored, 0 busy (ask later), <0 failed. *asked counts the requests sent. */
static int fetch_piece(broadcast_fetcher *f, broadcast_store *s, broadcast_entry *e, int piece,
                       int *asked, cs_error *err)
{
    int64_t id = cs_broadcast_entry_id(e);
    bool from_driver = false;
    for (int round = 0; round < 2; round++) {
        Cspark__Envelope *reply = NULL;
        int rc = ask(f, f->driver, id, piece, from_driver, &reply, err);
        (*asked)++;
        if (rc < 0) return rc;
        Cspark__BroadcastReply *br = reply->broadcast_reply;
        char source[64] = "driver";
        if (br->busy && !from_driver) {
            cspark__envelope__free_unpacked(reply, NULL);
            return 0;
        }
        if (br->n_peers > 0 && !from_driver) {
            rc = from_peers(f, e, piece, br, source, sizeof source, asked);
            cspark__envelope__free_unpacked(reply, NULL);
            if (rc < 0) {
                from_driver = true; /* every peer failed: the driver sends it */
                continue;
            }
        } else {
            rc = take_piece(e, piece, br, "the driver", err);
            cspark__envelope__free_unpacked(reply, NULL);
            if (rc < 0) return rc;
        }
        size_t len;
        cs_broadcast_entry_piece_buf(e, piece, &len);
        cs_broadcast_store_piece_done(s, e, piece);
        announce(f, id, piece, source, len);
        return 1;
    }
    return cs_error_set(err, CS_EIO, "broadcast %lld piece %d: no source sent it", (long long)id,
                        piece);
}

static int fetch(void *arg, broadcast_store *s, broadcast_entry *e, cs_error *err)
{
    broadcast_fetcher *f = arg;
    broadcast_desc d;
    cs_broadcast_entry_desc(e, &d);
    int n = d.num_pieces;
    int *order = cs_xcalloc((size_t)n + 1, sizeof *order);
    uint64_t seed = (uint64_t)cs_now_ns() ^ ((uint64_t)getpid() << 20);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates, as Spark's Random.shuffle */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((seed >> 33) % (uint64_t)(i + 1));
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    int64_t start = cs_mono_ms();
    int left = n, wait_ms = 2, rc = 0, asked = 1; /* the description's request */
    if (described_piece.bytes && described_piece.id == cs_broadcast_entry_id(e) && n == 1) {
        cs_error bad;
        cs_error_clear(&bad);
        if (take_bytes(e, 0, described_piece.bytes, described_piece.len, "the driver", &bad) == 0) {
            cs_broadcast_store_piece_done(s, e, 0);
            announce(f, cs_broadcast_entry_id(e), 0, "driver", described_piece.len);
            left = 0;
        } else { /* fetched again below, as any piece */
            CS_WARN(COMP, "executor=%s event=described_piece_rejected error=\"%s\"", f->executor_id,
                    bad.msg);
        }
    }
    free(described_piece.bytes);
    described_piece.bytes = NULL;
    while (left > 0) {
        int kept = 0;
        for (int k = 0; k < left; k++) {
            rc = fetch_piece(f, s, e, order[k], &asked, err);
            if (rc < 0) goto done;
            if (rc == 0) order[kept++] = order[k]; /* busy: after the others */
        }
        if (kept == left) { /* nothing could be fetched this round: others are at it */
            struct timespec ts = {0, (long)wait_ms * 1000000L};
            nanosleep(&ts, NULL);
            if (wait_ms < 100) wait_ms *= 2;
        } else {
            wait_ms = 2;
        }
        left = kept;
    }
    rc = 0;
    CS_INFO(COMP,
            "executor=%s broadcast=%lld event=fetched bytes=%llu pieces=%d requests=%d ms=%lld",
            f->executor_id, (long long)cs_broadcast_entry_id(e), (unsigned long long)d.size, n,
            asked, (long long)(cs_mono_ms() - start));
done:
    free(order);
    return rc;
}

void cs_broadcast_fetcher_attach(broadcast_fetcher *f, broadcast_store *s)
{
    cs_broadcast_store_set_source(s, describe, fetch, f);
}
