/* block_fetcher_internal.h — private to src/blocktransfer/block_fetcher.c and block_prefetch.c: the
 * fetcher's state (peers with their cached connections, executors declared lost) and what the
 * prefetching reader borrows from the fetcher. mu guards peers and lost; lost_cv is signalled when
 * an executor is declared lost.
 */
#ifndef CSPARK_EXEC_BLOCK_FETCHER_INTERNAL_H
#define CSPARK_EXEC_BLOCK_FETCHER_INTERNAL_H

#include <pthread.h>

#include "blocktransfer/block_fetcher.h"

typedef struct peer {
    char *host;
    int port;
    char *exec_id; /* the executor serving host:port (from the map status that connected) */
    rpc_conn *c;   /* referenced */
    struct peer *next;
} peer;

/* An executor the driver declared lost (RemoveExecutor). */
typedef struct lost_exec {
    char *id, *reason;
    struct lost_exec *next;
} lost_exec;

struct block_fetcher {
    char *local_id, *local_dir;
    rpc_endpoint *ep;
    int64_t max_retries, retry_wait_ms, timeout_ms, max_in_flight;
    pthread_mutex_t mu;
    pthread_cond_t lost_cv; /* signalled when an executor is declared lost */
    peer *peers;
    lost_exec *lost;
    char *external_id;             /* NULL, or the executor id whose blocks external serves */
    shuffle_block_source external; /* cs_block_fetcher_set_external */
};

/* 1 and *why filled when the driver declared executor_id lost, else 0. Takes mu. */
int cs_block_fetcher_lost_reason(block_fetcher *f, const char *executor_id, char *why, size_t cap);
/* The cached connection to host:port (connecting when needed), referenced; NULL + err. */
rpc_conn *cs_block_fetcher_conn(block_fetcher *f, const char *host, int port, const char *exec_id,
                                cs_error *err);
/* True when st's blocks are served by the external source (never over the network). */
bool cs_block_fetcher_is_external(const block_fetcher *f, const cs_map_status *st);
/* The fetcher's shuffle_block_source.fetch: one whole block, with Spark's retries. */
int cs_block_fetcher_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                           size_t *len, cs_error *err);

#endif
