/*
 * broadcast_fetch.h — how an executor gets a broadcast value it does not hold (Spark's
 * TorrentBroadcast.readBlocks): the description from the driver, then every piece in a random
 * order of its own, each from a peer the driver names (the peers' block servers) or from the
 * driver itself, verified against its xxh64, stored, and announced to the driver so the next
 * executor can fetch it here. A piece the driver calls busy (being fetched from it by another
 * executor) is asked for again after the others; a peer that fails or sends a bad piece is
 * skipped and the driver asked to send the piece itself.
 *
 * Used by the executor (executor.c): it is the source of the executor's broadcast_store. Threads:
 * fetches run on task threads, several at once; connections to peers are cached and shared.
 * Ownership: the fetcher borrows the endpoint and the driver connection (they outlive it) and
 * copies executor_id.
 */
#ifndef CSPARK_EXEC_BROADCAST_FETCH_H
#define CSPARK_EXEC_BROADCAST_FETCH_H

#include "broadcast/broadcast_store.h"
#include "rpc/endpoint.h"

typedef struct broadcast_fetcher broadcast_fetcher;

/* timeout_ms bounds each request (spark.network.timeout). */
broadcast_fetcher *cs_broadcast_fetcher_new(rpc_endpoint *ep, rpc_conn *driver,
                                            const char *executor_id, int64_t timeout_ms);
/* Makes f the source of store s. */
void cs_broadcast_fetcher_attach(broadcast_fetcher *f, broadcast_store *s);
/* Closes the peer connections. NULL is fine. */
void cs_broadcast_fetcher_free(broadcast_fetcher *f);

#endif
