/* block_server.h — an executor's block server (Spark's BlockManager transfer service, port
 * 7079 by default in Kubernetes): serves its shuffle outputs to reduce tasks on other executors
 * and large ("indirect") task results to the driver, over an rpc endpoint (rpc/endpoint.h) with
 * the application's authentication.
 *
 * Requests: FetchBlocks(blocks) -> one stream of BlockData replies carrying the request id, in
 * request order; a block larger than the chunk size (min(8 MiB, max frame / 2)) is sent as
 * several consecutive BlockData with the same BlockId whose data concatenate; `last` is set on
 * the final message of the stream; a missing or unreadable block gets BlockData.error naming it
 * (and no data). Blocks are read from <local_dir>/shuffle_<s>_<m>_0.{data,index} through
 * cs_shuffle_index_read, with pread straight into the reply frame. A BlockId with shuffle_id -1
 * names a task's result (Spark's TaskResultBlockId, result_task_id) kept by
 * cs_block_server_put_result: it is streamed in parts as any block, then removed; an unknown id
 * gets BlockData.error. BroadcastFetch(id, piece) -> BroadcastReply
 * with the piece from the executor's broadcast store (cs_block_server_set_broadcasts), or its
 * error when the piece is not held. Disk reads run on two worker threads, not on
 * the endpoint's loop thread. Started by the executor; the driver and block_fetcher.c are its
 * clients.
 *
 * Ownership: host, local_dir and opt are copied. Result buffers given to cs_block_server_put_result
 * become the server's (freed with free()).
 */
#ifndef CSPARK_EXEC_BLOCK_SERVER_H
#define CSPARK_EXEC_BLOCK_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "rpc/endpoint.h"

typedef struct block_server block_server;

/* Listens on host:*port (in: the port to bind, 0 = any free port; out: the bound port).
 * NULL + err (naming host:port) on failure. */
block_server *cs_block_server_start(const char *host, const char *local_dir, const rpc_options *opt,
                                    int *port, cs_error *err);
/* Closes every connection, joins the workers, frees unfetched results. NULL is fine. */
void cs_block_server_stop(block_server *bs);
/* Registers a task result for a FetchBlocks of its TaskResultBlockId; ownership of data moves to
 * the server (a previous result of the same task is replaced). Thread-safe. */
void cs_block_server_put_result(block_server *bs, int64_t task_id, uint8_t *data, size_t len);
/* The broadcast pieces this server gives peers (borrowed; it outlives the server's use of it:
 * set before registering, cleared with NULL before the store is freed). */
struct broadcast_store;
void cs_block_server_set_broadcasts(block_server *bs, struct broadcast_store *store);
/* Cached partitions: a FetchBlocks BlockId with is_rdd asks for rdd_<rdd_id>_<rdd_partition>,
 * whose bytes (a recio stream, storage/memory_store.h) fn returns malloc'd (<0 + err when the
 * block is not held: the reply's BlockData.error names it). Sent in chunks as shuffle blocks are.
 * Set once, before peers can ask (the executor, at start-up). */
typedef int (*cs_block_bytes_fn)(void *arg, int rdd_id, int partition, uint8_t **data, size_t *len,
                                 cs_error *err);
void cs_block_server_serve_rdd_blocks(block_server *bs, cs_block_bytes_fn fn, void *arg);
/* Added: number of results registered and not yet fetched (for tests and metrics). */
size_t cs_block_server_pending_results(block_server *bs);

#endif /* CSPARK_EXEC_BLOCK_SERVER_H */
