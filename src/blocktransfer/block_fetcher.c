/* block_fetcher.c — the executor's network shuffle_block_source (block_fetcher.h): local blocks
 * from disk, remote ones from the owning executor's block server over one cached rpc connection
 * per peer, with Spark's retry policy (spark.shuffle.io.maxRetries / retryWait) on connection
 * errors and timeouts — except for executors the driver has declared lost, whose blocks fail
 * at once (their connections are closed, and a retry wait in progress ends early). For
 * cs_block_fetcher_source, a reply stream of BlockData parts is assembled on the endpoint's
 * loop thread (a single-part block's buffer is handed over without a copy); a block_prefetch
 * (block_prefetch.c) queues the parts and lets its reader decode them as they come.
 * Used by the executor's task runner (one fetcher per executor, shared by its task threads).
 */
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_fetcher_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/sync.h"

static const char *COMP = "block-fetcher";

/* ---- one request ------------------------------------------------------------------------------
 */

typedef struct fetch_req {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int closed; /* the connection went away: retryable */
    char error[1024];
    uint8_t *buf;
    size_t len, cap;
    int parts;
} fetch_req;

static void req_unref(fetch_req *r)
{
    if (atomic_fetch_sub(&r->refs, 1) != 1) return;
    free(r->buf);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

/* Loop thread: one message of the reply stream (or NULL: the connection closed). */
static int on_reply(void *arg, rpc_conn *c, Cspark__Envelope *m, const char *reason)
{
    fetch_req *r = arg;
    int more = 0;
    pthread_mutex_lock(&r->mu);
    if (!m) {
        r->closed = 1;
        snprintf(r->error, sizeof r->error, "%s", reason ? reason : "connection closed");
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_BLOCK_DATA) {
        Cspark__BlockData *bd = m->block_data;
        if (bd->error && *bd->error) {
            snprintf(r->error, sizeof r->error, "%s", bd->error);
            more = !bd->last;
        } else if (!r->error[0]) {
            if (r->parts == 0 && bd->last) { /* the whole block in one part: keep its buffer */
                r->buf = bd->data.data;
                r->len = bd->data.len;
                bd->data.data = NULL;
                bd->data.len = 0;
            } else if (bd->data.len > 0) {
                if (r->len + bd->data.len > r->cap) {
                    size_t cap = r->cap ? r->cap : bd->data.len;
                    while (cap < r->len + bd->data.len)
                        cap *= 2;
                    r->buf = cs_xrealloc(r->buf, cap);
                    r->cap = cap;
                }
                memcpy(r->buf + r->len, bd->data.data, bd->data.len);
                r->len += bd->data.len;
            }
            r->parts++;
            more = !bd->last;
        } else {
            more = !bd->last;
        }
    } else if (m->body_case == CSPARK__ENVELOPE__BODY_ERROR) {
        snprintf(r->error, sizeof r->error, "%s",
                 m->error->message ? m->error->message : "error reply");
    } else {
        snprintf(r->error, sizeof r->error, "unexpected reply %d", (int)m->body_case);
    }
    if (m) cspark__envelope__free_unpacked(m, NULL);
    if (!more) {
        r->done = 1;
        pthread_cond_signal(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    if (!more) req_unref(r);
    return more;
}

/* ---- connections ------------------------------------------------------------------------------
 */

static void peer_free(peer *p)
{
    cs_rpc_conn_unref(p->c);
    free(p->host);
    free(p->exec_id);
    free(p);
}

/* 1 and the reason in why when the driver declared executor_id lost. */
int cs_block_fetcher_lost_reason(block_fetcher *f, const char *executor_id, char *why, size_t cap)
{
    int lost = 0;
    pthread_mutex_lock(&f->mu);
    for (lost_exec *l = f->lost; l && !lost; l = l->next)
        if (strcmp(l->id, executor_id) == 0) {
            lost = 1;
            snprintf(why, cap, "%s", l->reason);
        }
    pthread_mutex_unlock(&f->mu);
    return lost;
}

rpc_conn *cs_block_fetcher_conn(block_fetcher *f, const char *host, int port, const char *exec_id,
                                cs_error *err)
{
    pthread_mutex_lock(&f->mu);
    for (peer **pp = &f->peers; *pp; pp = &(*pp)->next) {
        peer *p = *pp;
        if (p->port == port && strcmp(p->host, host) == 0) {
            if (!cs_rpc_conn_is_closed(p->c)) {
                rpc_conn *c = p->c;
                cs_rpc_conn_ref(c);
                pthread_mutex_unlock(&f->mu);
                return c;
            }
            *pp = p->next;
            peer_free(p);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    rpc_conn *c = cs_rpc_connect(f->ep, host, port, (int)f->timeout_ms, err);
    if (!c) return NULL;
    pthread_mutex_lock(&f->mu);
    for (peer *p = f->peers; p; p = p->next) {
        if (p->port == port && strcmp(p->host, host) == 0 && !cs_rpc_conn_is_closed(p->c)) {
            /* another thread connected meanwhile: use its connection */
            rpc_conn *mine = c;
            c = p->c;
            cs_rpc_conn_ref(c);
            pthread_mutex_unlock(&f->mu);
            cs_rpc_conn_close(mine);
            cs_rpc_conn_unref(mine);
            return c;
        }
    }
    peer *p = cs_xcalloc(1, sizeof *p);
    p->host = cs_xstrdup(host);
    p->port = port;
    p->exec_id = cs_xstrdup(exec_id);
    p->c = c;
    cs_rpc_conn_ref(c);
    p->next = f->peers;
    f->peers = p;
    pthread_mutex_unlock(&f->mu);
    return c;
}

static void drop_conn(block_fetcher *f, rpc_conn *c)
{
    pthread_mutex_lock(&f->mu);
    for (peer **pp = &f->peers; *pp; pp = &(*pp)->next) {
        if ((*pp)->c == c) {
            peer *p = *pp;
            *pp = p->next;
            peer_free(p);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
    cs_rpc_conn_close(c);
}

/* Waits spark.shuffle.io.retryWait before another attempt at executor_id's block server, or
 * less when the driver declares that executor lost meanwhile. */
static void retry_wait(block_fetcher *f, const char *executor_id)
{
    int64_t deadline = cs_mono_ms() + f->retry_wait_ms, left;
    pthread_mutex_lock(&f->mu);
    while ((left = deadline - cs_mono_ms()) > 0) {
        int lost = 0;
        for (lost_exec *l = f->lost; l && !lost; l = l->next)
            lost = strcmp(l->id, executor_id) == 0;
        if (lost) break;
        cs_cond_wait_ms(&f->lost_cv, &f->mu, left);
    }
    pthread_mutex_unlock(&f->mu);
}

void cs_block_fetcher_executor_lost(block_fetcher *f, const char *executor_id, const char *reason)
{
    if (!f || !executor_id) return;
    pthread_mutex_lock(&f->mu);
    for (lost_exec *l = f->lost; l; l = l->next)
        if (strcmp(l->id, executor_id) == 0) {
            pthread_mutex_unlock(&f->mu);
            return;
        }
    lost_exec *l = cs_xcalloc(1, sizeof *l);
    l->id = cs_xstrdup(executor_id);
    l->reason = cs_xstrdup(reason && *reason ? reason : "lost");
    l->next = f->lost;
    f->lost = l;
    /* its connections go: requests waiting on them fail now rather than at the fetch timeout
     * (a hung executor's socket stays open) */
    peer *gone = NULL;
    for (peer **pp = &f->peers; *pp;) {
        peer *p = *pp;
        if (p->exec_id && strcmp(p->exec_id, executor_id) == 0) {
            *pp = p->next;
            p->next = gone;
            gone = p;
        } else {
            pp = &p->next;
        }
    }
    pthread_cond_broadcast(&f->lost_cv);
    pthread_mutex_unlock(&f->mu);
    CS_INFO(COMP, "event=peer_lost executor=%s reason=%s", cs_log_value(executor_id),
            cs_log_quote(l->reason));
    while (gone) {
        peer *n = gone->next;
        cs_rpc_conn_close(gone->c);
        peer_free(gone);
        gone = n;
    }
}

/* One attempt over c. 0 = block in *out; CS_EIO with *retryable set or not. */
static int fetch_once(int64_t timeout_ms, rpc_conn *c, Cspark__BlockId *id, uint8_t **out,
                      size_t *len, int *retryable, char *why, size_t whycap)
{
    fetch_req *r = cs_xcalloc(1, sizeof *r);
    atomic_init(&r->refs, 2);
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);

    Cspark__BlockId *ids[1] = {id};
    Cspark__FetchBlocks fb = CSPARK__FETCH_BLOCKS__INIT;
    fb.n_blocks = 1;
    fb.blocks = ids;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_FETCH_BLOCKS;
    env.fetch_blocks = &fb;
    if (cs_rpc_call_async(c, &env, on_reply, r) < 0) {
        atomic_store(&r->refs, 1);
        req_unref(r);
        *retryable = 1;
        snprintf(why, whycap, "connection closed");
        return CS_EIO;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int timed_out = 0;
    pthread_mutex_lock(&r->mu);
    while (!r->done) {
        if (!timed_out && pthread_cond_timedwait(&r->cv, &r->mu, &ts) != 0 && !r->done) {
            /* closing the connection fails the pending call, which ends the wait */
            timed_out = 1;
            pthread_mutex_unlock(&r->mu);
            cs_rpc_conn_close(c);
            pthread_mutex_lock(&r->mu);
            continue;
        }
        if (timed_out) pthread_cond_wait(&r->cv, &r->mu);
    }
    int rc = 0;
    if (timed_out) {
        *retryable = 1;
        snprintf(why, whycap, "no reply within %lld ms", (long long)timeout_ms);
        rc = CS_EIO;
    } else if (r->closed) {
        *retryable = 1;
        snprintf(why, whycap, "%s", r->error);
        rc = CS_EIO;
    } else if (r->error[0]) {
        *retryable = 0;
        snprintf(why, whycap, "%s", r->error);
        rc = CS_EIO;
    } else {
        *out = r->buf;
        *len = r->len;
        r->buf = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    req_unref(r);
    return rc;
}

void cs_block_fetcher_set_external(block_fetcher *f, const char *executor_id,
                                   const shuffle_block_source *src)
{
    free(f->external_id);
    f->external_id = cs_xstrdup(executor_id);
    f->external = *src;
}

bool cs_block_fetcher_is_external(const block_fetcher *f, const cs_map_status *st)
{
    return f->external_id && strcmp(st->executor_id, f->external_id) == 0;
}

int cs_block_fetcher_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                           size_t *len, cs_error *err)
{
    block_fetcher *f = arg;
    *out = NULL;
    *len = 0;
    if (cs_block_fetcher_is_external(f, st))
        return f->external.fetch(f->external.arg, st, reduce_id, out, len, err);
    if (f->local_dir && f->local_id && strcmp(st->executor_id, f->local_id) == 0) {
        shuffle_block_source local = cs_shuffle_local_source(f->local_dir);
        return local.fetch(local.arg, st, reduce_id, out, len, err);
    }
    char why[1024] = "";
    int attempts = 0;
    for (;;) {
        if (cs_block_fetcher_lost_reason(f, st->executor_id, why, sizeof why))
            return cs_error_set(err, CS_EIO,
                                "shuffle %d map %d reduce %d not fetched from %s:%d: executor %s "
                                "is lost (%s)",
                                st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                st->executor_id, why);
        cs_error cerr = {0};
        int retryable = 1;
        rpc_conn *c = cs_block_fetcher_conn(f, st->host, st->port, st->executor_id, &cerr);
        if (!c) {
            snprintf(why, sizeof why, "%s", cerr.msg);
        } else {
            Cspark__BlockId id = CSPARK__BLOCK_ID__INIT;
            id.shuffle_id = st->shuffle_id;
            id.map_id = st->map_id;
            id.reduce_id = reduce_id;
            int rc = fetch_once(f->timeout_ms, c, &id, out, len, &retryable, why, sizeof why);
            if (rc == 0) {
                cs_rpc_conn_unref(c);
                if (!cs_map_status_size_agrees(st, reduce_id, *len)) {
                    size_t got = *len;
                    free(*out);
                    *out = NULL;
                    *len = 0;
                    return cs_error_set(err, CS_EIO,
                                        "shuffle %d map %d reduce %d from %s:%d (executor %s): "
                                        "got %zu bytes, map status says about %llu",
                                        st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                        st->executor_id, got,
                                        (unsigned long long)cs_map_status_size(st, reduce_id));
                }
                return 0;
            }
            if (retryable) drop_conn(f, c);
            cs_rpc_conn_unref(c);
        }
        if (!retryable)
            return cs_error_set(err, CS_EIO,
                                "failed to fetch shuffle %d map %d reduce %d from %s:%d "
                                "(executor %s): %s",
                                st->shuffle_id, st->map_id, reduce_id, st->host, st->port,
                                st->executor_id, why);
        if (attempts >= f->max_retries) break;
        attempts++;
        CS_WARN(COMP,
                "peer=%s:%d event=fetch_retry shuffle=%d map=%d reduce=%d attempt=%d/%lld "
                "wait_ms=%lld reason=%s",
                cs_log_value(st->host), st->port, st->shuffle_id, st->map_id, reduce_id, attempts,
                (long long)f->max_retries, (long long)f->retry_wait_ms, cs_log_quote(why));
        retry_wait(f, st->executor_id);
    }
    return cs_error_set(err, CS_EIO,
                        "failed to fetch shuffle %d map %d reduce %d from %s:%d (executor %s) "
                        "after %lld retries: %s",
                        st->shuffle_id, st->map_id, reduce_id, st->host, st->port, st->executor_id,
                        (long long)f->max_retries, why);
}

int cs_block_fetcher_fetch_rdd_block(block_fetcher *f, const char *host, int port,
                                     const char *executor_id, int rdd_id, int partition,
                                     uint8_t **out, size_t *len, cs_error *err)
{
    char why[1024] = "";
    *out = NULL;
    *len = 0;
    if (cs_block_fetcher_lost_reason(f, executor_id, why, sizeof why))
        return cs_error_set(err, CS_EIO, "rdd_%d_%d not fetched: executor %s is lost (%s)", rdd_id,
                            partition, executor_id, why);
    cs_error cerr = {0};
    rpc_conn *c = cs_block_fetcher_conn(f, host, port, executor_id, &cerr);
    if (!c)
        return cs_error_set(err, CS_EIO, "rdd_%d_%d not fetched from %s:%d: %s", rdd_id, partition,
                            host, port, cerr.msg);
    Cspark__BlockId id = CSPARK__BLOCK_ID__INIT;
    id.is_rdd = 1;
    id.rdd_id = rdd_id;
    id.rdd_partition = partition;
    int retryable = 0;
    int rc = fetch_once(f->timeout_ms, c, &id, out, len, &retryable, why, sizeof why);
    if (rc < 0 && retryable) drop_conn(f, c);
    cs_rpc_conn_unref(c);
    if (rc < 0)
        return cs_error_set(err, CS_EIO, "rdd_%d_%d not fetched from %s:%d (executor %s): %s",
                            rdd_id, partition, host, port, executor_id, why);
    return 0;
}

int cs_block_fetch_task_result(rpc_conn *c, int64_t task_id, int64_t timeout_ms, uint8_t **out,
                               size_t *len, cs_error *err)
{
    *out = NULL;
    *len = 0;
    Cspark__BlockId id = CSPARK__BLOCK_ID__INIT;
    id.shuffle_id = -1;
    id.result_task_id = task_id;
    char why[1024] = "";
    int retryable = 0;
    if (fetch_once(timeout_ms, c, &id, out, len, &retryable, why, sizeof why) < 0)
        return cs_error_set(err, CS_EIO, "%s", why);
    return 0;
}

/* ---- lifecycle --------------------------------------------------------------------------------
 */

block_fetcher *cs_block_fetcher_new(const char *local_executor_id, const char *local_dir,
                                    const rpc_options *opt, const cs_conf *conf, cs_error *err)
{
    cs_conf *empty = conf ? NULL : cs_conf_new();
    const cs_conf *cf = conf ? conf : empty;
    int64_t retries = 3, wait = 5000, tmo = 120000, inflight = 48 * CS_MiB, net = 120000;
    int rc = cs_conf_get_int(cf, "spark.shuffle.io.maxRetries", "3", &retries, err);
    if (rc == 0)
        rc = cs_conf_get_duration_ms(cf, "spark.shuffle.io.retryWait", "5s", CS_SEC, &wait, err);
    if (rc == 0) rc = cs_conf_entry_duration_ms(cf, "spark.network.timeout", &net, err);
    if (rc == 0) {
        char d[32];
        snprintf(d, sizeof d, "%lldms", (long long)net);
        rc =
            cs_conf_get_duration_ms(cf, "spark.shuffle.io.connectionTimeout", d, CS_SEC, &tmo, err);
    }
    if (rc == 0)
        rc = cs_conf_get_size(cf, "spark.reducer.maxSizeInFlight", "48m", CS_MiB, &inflight, err);
    cs_conf_free(empty);
    if (rc == 0 && retries < 0)
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for spark.shuffle.io.maxRetries: '%lld' (expected >= 0)",
                          (long long)retries);
    if (rc < 0) return NULL;
    block_fetcher *f = cs_xcalloc(1, sizeof *f);
    f->local_id = cs_xstrdup(local_executor_id);
    f->local_dir = cs_xstrdup(local_dir);
    f->max_retries = retries;
    f->retry_wait_ms = wait;
    f->timeout_ms = tmo > 0 ? tmo : 120000;
    f->max_in_flight = inflight;
    pthread_mutex_init(&f->mu, NULL);
    cs_cond_init_monotonic(&f->lost_cv);
    rpc_options o = {.name = "block-fetcher"};
    if (opt) o = *opt;
    if (!o.name) o.name = "block-fetcher";
    f->ep = cs_rpc_endpoint_new(&o, NULL, err);
    if (!f->ep) {
        cs_block_fetcher_free(f);
        return NULL;
    }
    return f;
}

shuffle_block_source cs_block_fetcher_source(block_fetcher *f)
{
    shuffle_block_source s;
    memset(&s, 0, sizeof s);
    s.fetch = cs_block_fetcher_fetch;
    s.arg = f;
    s.open_range = NULL; /* the reader would use it for every block; remote blocks cannot */
    return s;
}

void cs_block_fetcher_free(block_fetcher *f)
{
    if (!f) return;
    free(f->external_id);
    peer *p = f->peers;
    while (p) {
        peer *n = p->next;
        peer_free(p);
        p = n;
    }
    while (f->lost) {
        lost_exec *l = f->lost;
        f->lost = l->next;
        free(l->id);
        free(l->reason);
        free(l);
    }
    cs_rpc_endpoint_free(f->ep);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->lost_cv);
    free(f->local_id);
    free(f->local_dir);
    free(f);
}
