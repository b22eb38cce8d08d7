/* block_server.c — serves shuffle blocks and indirect task results of one executor over rpc
 * (block_server.h). The endpoint's loop thread only parses requests and queues them; two worker
 * threads read the files (pread straight into hand-built BlockData frames, so a block's bytes
 * are copied once, from the page cache into the frame) and queue the replies with cs_rpc_send_raw.
 * Started and stopped by the executor process; clients are block_fetcher.c and the driver.
 */
#include "blocktransfer/block_server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "broadcast/broadcast_store.h"
#include "rpc/frame.h"
#include "shuffle/shuffle.h"
#include "common/localaddr.h"

#define NWORKERS 2
#define CHUNK_MAX ((size_t)8 * 1024 * 1024)
#define QUEUE_MAX ((size_t)64 * 1024 * 1024) /* per connection: stop reading ahead above this */

typedef struct blk {
    int32_t shuffle_id, map_id, reduce_id;
    bool is_rdd; /* a cached partition rdd_<rdd_id>_<rdd_partition> */
    int32_t rdd_id, rdd_partition;
    int64_t result_task_id; /* shuffle_id -1 and not is_rdd: a task's result (TaskResultBlockId) */
} blk;

typedef struct bs_job {
    rpc_conn *c; /* referenced */
    uint64_t rid;
    int64_t task_id;
    int is_broadcast; /* BroadcastFetch: task_id = broadcast id, n = piece */
    int n;
    blk *blocks;
    struct bs_job *next;
} bs_job;

typedef struct bs_result {
    int64_t task_id;
    uint8_t *data;
    size_t len;
    struct bs_result *next;
} bs_result;

struct block_server {
    char *dir;
    rpc_endpoint *ep;
    size_t chunk;
    pthread_t workers[NWORKERS];
    int nworkers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bs_job *head, *tail;
    int stopping;
    bs_result *results;           /* under mu */
    broadcast_store *broadcasts;  /* pieces served to peers (cs_block_server_set_broadcasts) */
    cs_block_bytes_fn rdd_blocks; /* cached partitions (NULL: none served) */
    void *rdd_blocks_arg;
};

static const char *COMP = "block-server";

/* ---- replies ------------------------------------------------------------------------------- */

static int send_env(rpc_conn *c, uint64_t rid, Cspark__Envelope *env)
{
    return cs_rpc_reply(c, rid, env);
}

static void block_id_of(const blk *b, Cspark__BlockId *id)
{
    cspark__block_id__init(id);
    id->shuffle_id = b->shuffle_id;
    id->map_id = b->map_id;
    id->reduce_id = b->reduce_id;
    id->is_rdd = b->is_rdd;
    id->rdd_id = b->rdd_id;
    id->rdd_partition = b->rdd_partition;
    id->result_task_id = b->result_task_id;
}

static void send_block_error(rpc_conn *c, uint64_t rid, const blk *b, int last, const char *msg)
{
    Cspark__BlockId id;
    block_id_of(b, &id);
    Cspark__BlockData bd = CSPARK__BLOCK_DATA__INIT;
    bd.block = &id;
    bd.error = (char *)msg;
    bd.last = last;
    bd.block_end = 1;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BLOCK_DATA;
    env.block_data = &bd;
    send_env(c, rid, &env);
}

/* A frame Envelope{request_id, block_data: BlockData{block, data[n], last, block_end}} with the
 * data left for the caller to fill at *data_at. block_end: the block's last part. */
static uint8_t *block_frame(uint64_t rid, const blk *b, size_t n, int last, int block_end,
                            size_t *frame_len, uint8_t **data_at)
{
    Cspark__BlockId id;
    block_id_of(b, &id);
    size_t id_len = cspark__block_id__get_packed_size(&id);
    size_t bd_len = 1 + cs_frame_varint_size(id_len) + id_len + 1 + cs_frame_varint_size(n) + n +
                    (last ? 2 : 0) + (block_end ? 2 : 0);
    size_t env_len =
        (rid ? 1 + cs_frame_varint_size(rid) : 0) + 2 + cs_frame_varint_size(bd_len) + bd_len;
    uint8_t *buf = cs_xmalloc(FRAME_HEADER + env_len);
    cs_frame_put_header(buf, (uint32_t)env_len);
    uint8_t *p = buf + FRAME_HEADER;
    if (rid) {
        *p++ = (1 << 3) | 0; /* request_id, varint */
        p += cs_frame_put_varint(p, rid);
    }
    *p++ = (uint8_t)(((41 << 3) | 2) | 0x80); /* block_data = 41, length-delimited: 0xCA 0x02 */
    *p++ = (uint8_t)(((41 << 3) | 2) >> 7);
    p += cs_frame_put_varint(p, bd_len);
    *p++ = (1 << 3) | 2; /* BlockData.block */
    p += cs_frame_put_varint(p, id_len);
    p += cspark__block_id__pack(&id, p);
    *p++ = (2 << 3) | 2; /* BlockData.data */
    p += cs_frame_put_varint(p, n);
    *data_at = p;
    p += n;
    if (last) {
        *p++ = (3 << 3) | 0; /* BlockData.last = true */
        *p++ = 1;
    }
    if (block_end) {
        *p++ = (5 << 3) | 0; /* BlockData.block_end = true */
        *p++ = 1;
    }
    *frame_len = (size_t)(p - buf);
    return buf;
}

static int pread_full(int fd, uint8_t *buf, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t k = pread(fd, buf, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        buf += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* Sends one block (possibly in several parts). Returns <0 if the connection is gone. */
static int serve_block(block_server *bs, rpc_conn *c, uint64_t rid, const blk *b, int last)
{
    cs_error err = {0};
    char msg[4096 + 1400];
    uint64_t off = 0, len = 0;
    int rc =
        cs_shuffle_index_read(bs->dir, b->shuffle_id, b->map_id, b->reduce_id, &off, &len, &err);
    if (rc < 0) {
        snprintf(msg, sizeof msg, "shuffle %d map %d reduce %d: %s", b->shuffle_id, b->map_id,
                 b->reduce_id, err.msg);
        CS_WARN(COMP, "peer=%s event=block_missing shuffle=%d map=%d reduce=%d reason=%s",
                cs_log_value(cs_rpc_conn_peer(c)), b->shuffle_id, b->map_id, b->reduce_id,
                cs_log_quote(err.msg));
        send_block_error(c, rid, b, last, msg);
        return 0;
    }
    int fd = -1;
    if (len > 0) {
        char path[4096];
        cs_shuffle_file_paths(bs->dir, b->shuffle_id, b->map_id, path, NULL, sizeof path);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(msg, sizeof msg, "shuffle %d map %d reduce %d: cannot open %s: %s",
                     b->shuffle_id, b->map_id, b->reduce_id, path, strerror(errno));
            send_block_error(c, rid, b, last, msg);
            return 0;
        }
    }
    uint64_t done = 0;
    do {
        size_t n = (size_t)(len - done < bs->chunk ? len - done : bs->chunk);
        int block_end = done + n == len;
        size_t flen;
        uint8_t *data;
        uint8_t *frame = block_frame(rid, b, n, last && block_end, block_end, &flen, &data);
        /* back-pressure: a slow reader must not make us buffer its whole request */
        if (cs_rpc_conn_wait_writable(c, QUEUE_MAX, 120000) < 0) {
            free(frame);
            if (fd >= 0) close(fd);
            return -1;
        }
        if (n > 0 && pread_full(fd, data, n, off + done) < 0) {
            free(frame);
            snprintf(msg, sizeof msg, "shuffle %d map %d reduce %d: data file unreadable or short",
                     b->shuffle_id, b->map_id, b->reduce_id);
            send_block_error(c, rid, b, last, msg);
            break;
        }
        if (cs_rpc_send_raw(c, frame, flen) < 0) {
            if (fd >= 0) close(fd);
            return -1;
        }
        done += n;
    } while (done < len);
    if (fd >= 0) close(fd);
    return 0;
}

/* Sends bytes (taken: freed here) as block b in parts of at most bs->chunk, each waiting for
 * the connection's queue to drain below QUEUE_MAX. <0 if the connection is gone. */
static int serve_bytes(block_server *bs, rpc_conn *c, uint64_t rid, const blk *b, int last,
                       uint8_t *bytes, size_t len)
{
    size_t done = 0;
    int rc = 0;
    do {
        size_t n = len - done < bs->chunk ? len - done : bs->chunk;
        size_t flen;
        uint8_t *data;
        uint8_t *frame =
            block_frame(rid, b, n, last && done + n == len, done + n == len, &flen, &data);
        memcpy(data, bytes + done, n);
        if (cs_rpc_conn_wait_writable(c, QUEUE_MAX, 120000) < 0 ||
            cs_rpc_send_raw(c, frame, flen) < 0) {
            if (rc == 0) rc = -1;
            break;
        }
        done += n;
    } while (done < len);
    free(bytes);
    return rc;
}

/* Sends a cached partition's bytes in chunks, as serve_block does a shuffle block's. */
static int serve_rdd_block(block_server *bs, rpc_conn *c, uint64_t rid, const blk *b, int last)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    cs_error err;
    cs_error_clear(&err);
    pthread_mutex_lock(&bs->mu);
    cs_block_bytes_fn fn = bs->rdd_blocks;
    void *arg = bs->rdd_blocks_arg;
    pthread_mutex_unlock(&bs->mu);
    if (!fn) {
        send_block_error(c, rid, b, last, "this executor serves no cached partitions");
        return 0;
    }
    if (fn(arg, b->rdd_id, b->rdd_partition, &bytes, &len, &err) < 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "rdd_%d_%d: %s", b->rdd_id, b->rdd_partition, err.msg);
        send_block_error(c, rid, b, last, msg);
        return 0;
    }
    return serve_bytes(bs, c, rid, b, last, bytes, len);
}

/* A task's result kept by cs_block_server_put_result (Spark's TaskResultBlockId), in chunks as
 * any block, so that its size is bounded by memory, not by spark.rpc.message.maxSize. Removed
 * once taken, as the driver removes the block after fetching it in Spark. */
static int serve_result_block(block_server *bs, rpc_conn *c, uint64_t rid, const blk *b, int last)
{
    pthread_mutex_lock(&bs->mu);
    bs_result **pp = &bs->results, *r = NULL;
    while (*pp && (*pp)->task_id != b->result_task_id)
        pp = &(*pp)->next;
    if (*pp) {
        r = *pp;
        *pp = r->next;
    }
    pthread_mutex_unlock(&bs->mu);
    if (!r) {
        char msg[200];
        snprintf(msg, sizeof msg, "no result for task %lld on this executor (already fetched?)",
                 (long long)b->result_task_id);
        send_block_error(c, rid, b, last, msg);
        return 0;
    }
    uint8_t *bytes = r->data;
    size_t len = r->len;
    free(r);
    return serve_bytes(bs, c, rid, b, last, bytes, len);
}

/* A broadcast piece this executor holds, for a peer fetching the value (broadcast_fetch.c). */
static void serve_broadcast(block_server *bs, rpc_conn *c, uint64_t rid, int64_t id, int piece)
{
    Cspark__BroadcastReply br = CSPARK__BROADCAST_REPLY__INIT;
    br.broadcast_id = id;
    br.piece = piece;
    cs_error err;
    cs_error_clear(&err);
    broadcast_entry *e = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    pthread_mutex_lock(&bs->mu);
    broadcast_store *store = bs->broadcasts;
    pthread_mutex_unlock(&bs->mu);
    if (!store)
        cs_error_set(&err, CS_ENOTFOUND, "this executor holds no broadcast");
    else if (cs_broadcast_store_piece(store, id, piece, &e, &data, &len, &err) == 0) {
        br.data.data = (uint8_t *)data;
        br.data.len = len;
    }
    if (!e) br.error = err.msg;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BROADCAST_REPLY;
    env.broadcast_reply = &br;
    if (cs_rpc_conn_wait_writable(c, QUEUE_MAX, 120000) == 0) send_env(c, rid, &env);
    if (e) cs_broadcast_store_release(store, e);
}

static void *worker_main(void *arg)
{
    block_server *bs = arg;
    for (;;) {
        pthread_mutex_lock(&bs->mu);
        while (!bs->head && !bs->stopping)
            pthread_cond_wait(&bs->cv, &bs->mu);
        bs_job *j = bs->head;
        if (!j) {
            pthread_mutex_unlock(&bs->mu);
            return NULL;
        }
        bs->head = j->next;
        if (!bs->head) bs->tail = NULL;
        pthread_mutex_unlock(&bs->mu);
        if (j->is_broadcast) {
            serve_broadcast(bs, j->c, j->rid, j->task_id, j->n);
        } else {
            for (int i = 0; i < j->n; i++) {
                const blk *b = &j->blocks[i];
                int last = i == j->n - 1;
                int rc = b->is_rdd             ? serve_rdd_block(bs, j->c, j->rid, b, last)
                         : b->shuffle_id == -1 ? serve_result_block(bs, j->c, j->rid, b, last)
                                               : serve_block(bs, j->c, j->rid, b, last);
                if (rc < 0) break;
            }
        }
        cs_rpc_conn_unref(j->c);
        free(j->blocks);
        free(j);
    }
}

/* ---- requests (loop thread) -------------------------------------------------------------------
 */

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *m)
{
    block_server *bs = arg;
    bs_job *j = NULL;
    if (m->body_case == CSPARK__ENVELOPE__BODY_FETCH_BLOCKS) {
        Cspark__FetchBlocks *fb = m->fetch_blocks;
        j = cs_xcalloc(1, sizeof *j);
        j->n = (int)fb->n_blocks;
        j->blocks = cs_xcalloc(fb->n_blocks ? fb->n_blocks : 1, sizeof *j->blocks);
        for (size_t i = 0; i < fb->n_blocks; i++) {
            j->blocks[i].shuffle_id = fb->blocks[i]->shuffle_id;
            j->blocks[i].map_id = fb->blocks[i]->map_id;
            j->blocks[i].reduce_id = fb->blocks[i]->reduce_id;
            j->blocks[i].is_rdd = fb->blocks[i]->is_rdd;
            j->blocks[i].rdd_id = fb->blocks[i]->rdd_id;
            j->blocks[i].rdd_partition = fb->blocks[i]->rdd_partition;
            j->blocks[i].result_task_id = fb->blocks[i]->result_task_id;
        }
        if (j->n == 0) { /* nothing asked: an empty, final reply */
            free(j->blocks);
            free(j);
            Cspark__BlockData bd = CSPARK__BLOCK_DATA__INIT;
            bd.last = 1;
            Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
            env.body_case = CSPARK__ENVELOPE__BODY_BLOCK_DATA;
            env.block_data = &bd;
            send_env(c, m->request_id, &env);
            return;
        }
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_BROADCAST_FETCH) {
        j = cs_xcalloc(1, sizeof *j);
        j->is_broadcast = 1;
        j->task_id = m->broadcast_fetch->broadcast_id;
        j->n = m->broadcast_fetch->piece;
    } else {
        CS_WARN(COMP, "peer=%s event=unexpected_message body=%s", cs_log_value(cs_rpc_conn_peer(c)),
                cs_frame_body_name(m));
        if (m->request_id) {
            Cspark__ErrorReply er = CSPARK__ERROR_REPLY__INIT;
            er.message = "unsupported request for the block server";
            Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
            env.body_case = CSPARK__ENVELOPE__BODY_ERROR;
            env.error = &er;
            send_env(c, m->request_id, &env);
        }
        return;
    }
    j->rid = m->request_id;
    cs_rpc_conn_ref(c);
    j->c = c;
    pthread_mutex_lock(&bs->mu);
    if (bs->tail)
        bs->tail->next = j;
    else
        bs->head = j;
    bs->tail = j;
    pthread_cond_signal(&bs->cv);
    pthread_mutex_unlock(&bs->mu);
}

/* ---- lifecycle --------------------------------------------------------------------------------
 */

block_server *cs_block_server_start(const char *host, const char *local_dir, const rpc_options *opt,
                                    int *port, cs_error *err)
{
    if (!local_dir || !port) {
        cs_error_set(err, CS_EINVAL, "block server: local dir and port are required");
        return NULL;
    }
    block_server *bs = cs_xcalloc(1, sizeof *bs);
    bs->dir = cs_xstrdup(local_dir);
    pthread_mutex_init(&bs->mu, NULL);
    pthread_cond_init(&bs->cv, NULL);
    size_t maxf = opt && opt->max_frame ? opt->max_frame : RPC_DEFAULT_MAX_FRAME;
    bs->chunk = maxf / 2 < CHUNK_MAX ? maxf / 2 : CHUNK_MAX;
    if (bs->chunk < 1024) bs->chunk = 1024;
    rpc_options o = {.name = "block-server"};
    if (opt) o = *opt;
    if (!o.name) o.name = "block-server";
    rpc_handlers h = {.on_message = on_message, .arg = bs};
    bs->ep = cs_rpc_endpoint_new(&o, &h, err);
    if (!bs->ep) goto fail;
    for (int i = 0; i < NWORKERS; i++) {
        if (pthread_create(&bs->workers[i], NULL, worker_main, bs) != 0) break;
        bs->nworkers++;
    }
    if (bs->nworkers == 0) {
        cs_error_set(err, CS_EIO, "block server: cannot start worker threads");
        goto fail;
    }
    int bound = 0;
    if (cs_rpc_listen(bs->ep, host, *port, &bound, err) < 0) {
        cs_error_prefix(err, "block server");
        goto fail;
    }
    *port = bound;
    CS_INFO(COMP, "event=started address=%s:%d dir=%s",
            cs_log_value(host ? host : cs_wildcard_address()), bound, cs_log_value(bs->dir));
    return bs;
fail:
    cs_block_server_stop(bs);
    return NULL;
}

void cs_block_server_stop(block_server *bs)
{
    if (!bs) return;
    /* the endpoint first: no new jobs; then workers finish the queued ones (sends fail fast) */
    cs_rpc_endpoint_free(bs->ep);
    bs->ep = NULL;
    pthread_mutex_lock(&bs->mu);
    bs->stopping = 1;
    pthread_cond_broadcast(&bs->cv);
    pthread_mutex_unlock(&bs->mu);
    for (int i = 0; i < bs->nworkers; i++)
        pthread_join(bs->workers[i], NULL);
    bs_result *r = bs->results;
    while (r) {
        bs_result *n = r->next;
        free(r->data);
        free(r);
        r = n;
    }
    pthread_mutex_destroy(&bs->mu);
    pthread_cond_destroy(&bs->cv);
    free(bs->dir);
    free(bs);
}

void cs_block_server_put_result(block_server *bs, int64_t task_id, uint8_t *data, size_t len)
{
    bs_result *r = cs_xcalloc(1, sizeof *r);
    r->task_id = task_id;
    r->data = data;
    r->len = len;
    pthread_mutex_lock(&bs->mu);
    bs_result **pp = &bs->results;
    while (*pp && (*pp)->task_id != task_id)
        pp = &(*pp)->next;
    bs_result *old = *pp;
    if (old) {
        r->next = old->next;
        free(old->data);
        free(old);
    } else {
        r->next = bs->results ? bs->results : NULL;
        pp = &bs->results;
    }
    *pp = r;
    pthread_mutex_unlock(&bs->mu);
}

void cs_block_server_set_broadcasts(block_server *bs, broadcast_store *store)
{
    pthread_mutex_lock(&bs->mu);
    bs->broadcasts = store;
    pthread_mutex_unlock(&bs->mu);
}

void cs_block_server_serve_rdd_blocks(block_server *bs, cs_block_bytes_fn fn, void *arg)
{
    pthread_mutex_lock(&bs->mu);
    bs->rdd_blocks = fn;
    bs->rdd_blocks_arg = arg;
    pthread_mutex_unlock(&bs->mu);
}

size_t cs_block_server_pending_results(block_server *bs)
{
    size_t n = 0;
    pthread_mutex_lock(&bs->mu);
    for (bs_result *r = bs->results; r; r = r->next)
        n++;
    pthread_mutex_unlock(&bs->mu);
    return n;
}
