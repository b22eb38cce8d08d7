/*
 * coarse_backend_internal.h — private to src/cluster/coarse_*.c: the state of the driver's coarse
 * backend that its parts share. coarse_backend.c launches tasks and dispatches messages;
 * coarse_registry.c registers executors and receives their heartbeats (Spark's
 * executorDataMap and HeartbeatReceiver); coarse_decommission.c removes and decommissions
 * executors and moves their shuffle outputs; coarse_result_fetcher.c fetches large results
 * (Spark's TaskResultGetter).
 *
 * Lock: one mutex guards everything below; messages are handled on the RPC loop thread,
 * completions are handed to the scheduler outside the lock. A task is in exactly one place: the
 * task scheduler's pending queues (sched/task_scheduler.h, which places tasks), the running table
 * (by task id, with the executor it runs on), or reported — so a late StatusUpdate from an executor
 * that was already declared lost is ignored, and nothing is reported twice. Functions below say
 * whether they take the lock or expect it held.
 */
#ifndef CSPARK_CLUSTER_COARSE_BACKEND_INTERNAL_H
#define CSPARK_CLUSTER_COARSE_BACKEND_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster/coarse_backend.h"
#include "common/hmap.h"
#include "common/resource_conf.h"
#include "cspark.pb-c.h"
#include "rpc/endpoint.h"

/* The most cores one executor may register with (a RegisterExecutor above it is refused): far
 * above any machine's, low enough that sums over executors stay in an int. */
#define CS_MAX_EXECUTOR_CORES 4096

/* One custom resource of an executor that tasks use (coarse_resources.c). */
typedef struct exec_resource {
    int request;      /* index in coarse_backend.res.v */
    int n;            /* addresses */
    char **addresses; /* as the executor discovered them (malloc'd copies) */
    int *used;        /* per address: running tasks holding it */
} exec_resource;

typedef struct exec_info {
    char id[64];
    char host[256];
    int block_port;
    int cores, free;
    bool alive;
    rpc_conn *conn;
    int64_t last_seen_ms;
    int *sent_attempt; /* per stage id: attempt + 1 of the plan last sent, 0 = none */
    int cap_sent;
    char lost_reason[1024];
    /* its connection closed (conn is NULL, alive still set) and the launcher has not said why
     * yet: reported lost when it does, or at exit_reason_deadline_ms with closed_reason */
    bool awaiting_exit_reason;
    int64_t exit_reason_deadline_ms;
    char closed_reason[128];
    /* removal (dynamic allocation) and decommissioning: no new tasks once either is set */
    bool removing;           /* told to exit (StopExecutor) */
    bool decommissioning;    /* finishing its tasks, then its shuffle files move to peers */
    int migrations;          /* MigrateShuffle / MigrateRddBlocks batches not answered yet */
    bool stop_when_unread;   /* migrated: StopExecutor once no running stage reads from it */
    coarse_exec_stats stats; /* what the executor roller ranks it by (id unused) */
    exec_resource *res;      /* the resources tasks ask for, as this executor has them */
    int nres;
} exec_info;

typedef struct taken_address {
    int resource, address; /* index in exec_info.res, index of the address there */
} taken_address;

typedef struct running {
    const task_desc *t;
    int exec;             /* index in execs */
    taken_address *taken; /* the addresses it holds (malloc'd; NULL when none) */
    int ntaken;
} running;

typedef struct plan_frame {
    struct plan_frame *next;
    int stage_id, attempt;
    uint8_t *frame; /* NULL: the plan is over spark.rpc.message.maxSize (len says by how much) */
    size_t len;
} plan_frame;

typedef struct fetch_job {
    struct fetch_job *next;
    const task_desc *t;
    int64_t size; /* of the whole serialized TaskResult the executor keeps as a block */
    char host[256];
    int port;
    char exec_id[64];
} fetch_job;

/* encoded stage plans kept for executors that have not received them yet; an evicted one is
 * encoded again when needed */
#define MAX_PLAN_FRAMES 32

struct coarse_backend {
    sched_backend base;
    cluster_env env; /* borrowed pointers: the context outlives the backend */
    coarse_options opt;
    char *secret, *app_file;
    rpc_endpoint *ep;
    int port;
    int64_t network_timeout_ms;
    bool migrate_shuffles;    /* spark.storage.decommission.enabled + shuffleBlocks.enabled */
    bool migrate_rdd_blocks;  /* spark.storage.decommission.enabled + rddBlocks.enabled */
    bool fallback_storage;    /* spark.storage.decommission.fallbackStorage.path is set */
    int64_t max_result_size;  /* spark.driver.maxResultSize (0: no limit): indirect results over
                               * it are not fetched */
    cs_resource_requests res; /* spark.task.cpus and the custom resources tasks ask for */

    pthread_mutex_t lock;
    pthread_cond_t cond; /* registrations, fetch jobs, housekeeping wake-ups */
    exec_info *execs;
    int num_execs, cap_execs;
    cs_hmap exec_index; /* executor id -> index in execs (entries are never removed) */
    cs_hmap running;    /* task id -> running * (malloc'd) */
    plan_frame *plans;  /* newest first, at most MAX_PLAN_FRAMES */
    int num_plans;
    fetch_job *fetch_head, *fetch_tail;
    bool stopping;
    bool expiry_due; /* cs_coarse_expire_silent is posted to the RPC loop and has not run yet */
    pthread_t housekeeper, fetcher;
};

/* ---- coarse_backend.c ---- */
/* Executor e is lost (its lost_reason says why): its running tasks fail, its map outputs are
 * lost, listeners and the launcher are told. Called with b->lock held, which it releases. */
void cs_coarse_report_loss(coarse_backend *b, exec_info *e);
/* Offers free cores to the task scheduler, launches what it gives and reports the ones whose plan
 * could not be sent. Takes the lock. */
void cs_coarse_offer_and_report(coarse_backend *b);

/* ---- coarse_resources.c (lock held) ---- */
/* Copies the resources tasks ask for from e's registration into e: NULL, or why e cannot run
 * any task (fewer cores than spark.task.cpus, fewer addresses than a task's amount; in why). */
const char *cs_coarse_resources_admit(coarse_backend *b, exec_info *e,
                                      const Cspark__RegisterExecutor *re, char *why, size_t cap);
void cs_coarse_resources_free(exec_info *e);
/* How many more tasks e can run now: its free cores and free addresses decide. */
int cs_coarse_task_slots(const coarse_backend *b, const exec_info *e);
/* A task (r) launched on e takes its cores and addresses; lt->resources names the addresses
 * (arrays freed by cs_coarse_resources_pb_free, strings borrowed from e). */
void cs_coarse_resources_take(coarse_backend *b, exec_info *e, running *r, Cspark__LaunchTask *lt);
/* r ended on e: its cores and addresses are free again. */
void cs_coarse_resources_release(coarse_backend *b, exec_info *e, running *r);
void cs_coarse_resources_pb_free(Cspark__LaunchTask *lt);

/* ---- coarse_registry.c (lock held unless said) ---- */
/* Housekeeper, b->lock held (released and taken again): executors whose wait for an exit reason
 * passed its deadline are lost with their connection's reason. */
void cs_coarse_expire_exit_reason_waits(coarse_backend *b, int64_t now);
int cs_coarse_find_exec(coarse_backend *b, const char *id);
exec_info *cs_coarse_exec_of_conn(coarse_backend *b, rpc_conn *c);
/* RegisterExecutor (RPC thread; takes the lock). */
void cs_coarse_on_register(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                           const Cspark__RegisterExecutor *re);
/* Heartbeat (RPC thread; takes the lock). */
void cs_coarse_on_heartbeat(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                            const Cspark__Heartbeat *hb);
/* True when an executor has been silent for longer than spark.network.timeout by the clock
 * (housekeeper thread, lock held): cs_coarse_expire_silent is then due. */
bool cs_coarse_any_silent(coarse_backend *b);
/* The driver itself did not run for stalled_ms (SIGSTOP, a starved machine): that time is not
 * counted against any executor's silence (housekeeper thread, lock held). */
void cs_coarse_forgive_stall(coarse_backend *b, int64_t stalled_ms);
/* Closes the connections of executors silent for longer than spark.network.timeout. Runs on the
 * RPC loop thread, posted with cs_rpc_endpoint_post_after_input (takes the lock). */
void cs_coarse_expire_silent(void *backend);
/* Tells the executor at c that executor `id` is lost (RemoveExecutor): its block fetcher stops
 * fetching from it at once instead of retrying a peer that will not come back. Sent to every
 * live executor when one is lost, and to each that registers later about those lost before. */
void cs_coarse_send_executor_lost(rpc_conn *c, const char *id, const char *reason);
/* Sends env to every live executor (takes the lock): unpersist, broadcast removal. */
void cs_coarse_send_to_live(coarse_backend *b, const Cspark__Envelope *env);

/* ---- coarse_decommission.c ---- */
void cs_coarse_send_stop(rpc_conn *c);
/* DecommissionExecutor / ExecutorDrained / ShuffleMigrated (RPC thread; take the lock). */
void cs_coarse_on_decommission(coarse_backend *b, rpc_conn *c,
                               const Cspark__DecommissionExecutor *d);
void cs_coarse_on_drained(coarse_backend *b, rpc_conn *c);
void cs_coarse_on_migrated(coarse_backend *b, rpc_conn *c, const Cspark__ShuffleMigrated *sm);
/* A peer stored cached partitions of a decommissioning executor (RddBlocksMigrated). */
void cs_coarse_on_rdd_migrated(coarse_backend *b, rpc_conn *c, const Cspark__RddBlocksMigrated *rm);
/* StopExecutor to migrated executors no running stage reads from (housekeeper, lock held). */
void cs_coarse_stop_unread(coarse_backend *b);

/* ---- coarse_broadcast.c (RPC thread; take the lock where they need it) ---- */
void cs_coarse_on_broadcast_fetch(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                                  const Cspark__BroadcastFetch *bf);
void cs_coarse_on_broadcast_stored(coarse_backend *b, const Cspark__BroadcastStored *bs);
/* coarse_barrier.c: an executor's barrier sync, answered when the coordinator answers it (loop
 * thread). */
void cs_coarse_on_barrier_sync(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                               const Cspark__BarrierSync *bs);
/* on: destroyed broadcasts are sent to the executors (BroadcastRemoved); off before stopping. */
void cs_coarse_broadcast_attach(coarse_backend *b, bool on);
/* The executor's pieces are gone with it (lock not held). */
void cs_coarse_broadcast_executor_lost(coarse_backend *b, const char *executor_id);

/* ---- coarse_result_fetcher.c ---- */
/* Queues the fetch of task t's result (size bytes, an IndirectTaskResult) from the block
 * server of executor exec_id at host:port; the fetcher thread reports the task once it has it,
 * or fails it saying why. */
void cs_coarse_fetch_later(coarse_backend *b, const task_desc *t, int64_t size, const char *host,
                           int port, const char *exec_id);
void *cs_coarse_fetcher_main(void *arg);

#endif
