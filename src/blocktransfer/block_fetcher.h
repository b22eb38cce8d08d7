/* block_fetcher.h — the network shuffle_block_source of an executor process.
 *
 * Blocks written by this executor (st->executor_id == local_executor_id) are read from
 * local_dir directly (as cs_shuffle_local_source, including open_range streaming); others are
 * fetched from the block server (block_server.h) at st->host:st->port over one cached,
 * authenticated rpc connection per peer, with Spark's retries (spark.shuffle.io.maxRetries,
 * spark.shuffle.io.retryWait) and bounded prefetching of the following blocks of the same
 * reduce partition (spark.reducer.maxSizeInFlight). Used by the executor's task runner for
 * shuffle reads; one fetcher may serve several tasks (threads) at once.
 *
 * Ownership: strings and opt are copied; conf is read during cs_block_fetcher_new only. The source
 * returned by cs_block_fetcher_source borrows f, which must outlive every reader using it.
 * Fetched blocks are malloc'd and owned by the caller of fetch (shuffle_block_source contract).
 */
#ifndef CSPARK_EXEC_BLOCK_FETCHER_H
#define CSPARK_EXEC_BLOCK_FETCHER_H

#include "common/conf.h"
#include "common/err.h"
#include "rpc/endpoint.h"
#include "shuffle/shuffle.h"

typedef struct block_fetcher block_fetcher;

/* local_executor_id/local_dir: blocks of this executor are read from disk directly; others are
 * fetched from st->host:st->port with one cached, authenticated connection per peer.
 * local_executor_id/local_dir may be NULL (everything is fetched over the network). conf may be
 * NULL (Spark defaults). */
block_fetcher *cs_block_fetcher_new(const char *local_executor_id, const char *local_dir,
                                    const rpc_options *opt, const cs_conf *conf, cs_error *err);
shuffle_block_source cs_block_fetcher_source(block_fetcher *f);
/* The driver declared executor_id lost (RemoveExecutor; any thread): from now on its blocks are
 * not fetched — a fetch fails at once with CS_EIO naming the executor and reason, without
 * Spark's retries (which only wait for a peer that may come back) — its cached connections are
 * closed, failing the requests in flight on them, and fetches waiting to retry it stop
 * waiting. The reader turns that into a fetch failure, so the stage is resubmitted after about
 * one round trip instead of maxRetries x retryWait. Repeats are ignored. */
void cs_block_fetcher_executor_lost(block_fetcher *f, const char *executor_id, const char *reason);
void cs_block_fetcher_free(block_fetcher *f);
/* Blocks of map outputs registered at executor_id (the fallback storage's placeholder) are read
 * through src->fetch instead of the network, whole and never prefetched. src is copied (its arg
 * borrowed until cs_block_fetcher_free); executor_id is copied. Call before any fetch. */
void cs_block_fetcher_set_external(block_fetcher *f, const char *executor_id,
                                   const shuffle_block_source *src);
/* A cached partition (rdd_<rdd_id>_<partition>) from the block server of the executor holding
 * it, as a recio stream (malloc'd in *out). One attempt, no retries: a task that cannot fetch a
 * block computes the partition from its lineage instead. CS_EIO naming the block and peer. */
int cs_block_fetcher_fetch_rdd_block(block_fetcher *f, const char *host, int port,
                                     const char *executor_id, int rdd_id, int partition,
                                     uint8_t **out, size_t *len, cs_error *err);
/* The result of task_id kept by the block server at the other end of c (Spark's
 * TaskResultBlockId: BlockId{shuffle_id -1, result_task_id}), in *out (malloc'd, the caller's).
 * Streamed in parts, so its size is not bound by spark.rpc.message.maxSize; one attempt waiting
 * at most timeout_ms; the server forgets the result once sent. CS_EIO with the reason. Used by
 * the driver (cluster/coarse_result_fetcher.c), any thread but c's loop thread. */
int cs_block_fetch_task_result(rpc_conn *c, int64_t task_id, int64_t timeout_ms, uint8_t **out,
                               size_t *len, cs_error *err);

/* Added: prefetching for one shuffle_reader. maps/num_maps/reduce_id are those the reader is
 * created with (borrowed until cs_block_prefetch_free, like the reader's). The returned source
 * answers the reader's fetches in that order while keeping up to spark.reducer.maxSizeInFlight
 * bytes of the following remote blocks requested ahead, grouped per peer into FetchBlocks of up
 * to maxSizeInFlight/5 bytes (Spark's targetRequestSize); several peers are fetched from in
 * parallel. The source streams: a remote block reaches the reader part by part as the
 * BlockData messages arrive (open_stream; the parts' buffers are handed over without a copy and
 * leave the in-flight count as they are consumed), and a local block is read from disk through
 * a bounded buffer (open_range), when the remote requests are already out. A block that could
 * not be prefetched, or whose stream broke, is fetched whole as cs_block_fetcher_source does (with
 * the retries; a broken stream resumes after the bytes already read). Use one block_prefetch
 * per reader (one thread); free it after the reader (unconsumed blocks are dropped). */
typedef struct block_prefetch block_prefetch;
block_prefetch *cs_block_fetcher_prefetch(block_fetcher *f, const cs_map_status *const *maps,
                                          int num_maps, int reduce_id);
shuffle_block_source cs_block_prefetch_source(block_prefetch *p);
void cs_block_prefetch_free(block_prefetch *p);

#endif /* CSPARK_EXEC_BLOCK_FETCHER_H */
