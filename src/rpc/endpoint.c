/* endpoint.c — an rpc endpoint and its loop thread: creation and shutdown, the three lists other
 * threads hand work to the loop through (posted functions, connections with output to flush,
 * connections to close) and the uv_async_t that wakes it. See endpoint.h for the API and
 * rpc_internal.h for the locks, the request-id rule and the connection lifetimes the other
 * files of the endpoint keep.
 * Used by the driver's cluster backend, the executor, the block server and the block fetcher.
 *
 * A function posted with cs_rpc_endpoint_post_after_input runs after drain_all_input: every
 * connection first reads and dispatches what its socket holds at that moment.
 *
 * Threads: cs_rpc_endpoint_new/free and cs_rpc_endpoint_post run on any thread but the loop's
 * (post also on it); on_async, shutdown_all and loop_main are the loop thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/conf_entries.h"
#include "common/log.h"
#include "rpc/rpc_internal.h"

const char *const cs_rpc_log_component = "rpc";

static void list_push(item_list *l, post_item *it)
{
    it->next = NULL;
    if (l->tail)
        l->tail->next = it;
    else
        l->head = it;
    l->tail = it;
}

static post_item *list_take(item_list *l)
{
    post_item *h = l->head;
    l->head = l->tail = NULL;
    return h;
}

int cs_rpc_kick(rpc_endpoint *e, item_list *l, post_item *it)
{
    pthread_mutex_lock(&e->mu);
    int ok = !e->stopped;
    if (ok) {
        list_push(l, it);
        uv_async_send(&e->async);
    }
    pthread_mutex_unlock(&e->mu);
    return ok;
}

void cs_rpc_free_handle(uv_handle_t *h)
{
    free(h);
}

int cs_rpc_endpoint_in_loop(const rpc_endpoint *e)
{
    return pthread_equal(pthread_self(), e->loop_tid);
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* Loop thread: reads what every connection has waiting (cs_rpc_endpoint_post_after_input). The
 * connections are held first: a handler may close (and unlink) any of them meanwhile. */
static void drain_all_input(rpc_endpoint *e)
{
    int n = 0;
    for (rpc_conn *c = e->conns; c; c = c->next_open)
        n++;
    rpc_conn **held = cs_xcalloc((size_t)n + 1, sizeof *held);
    n = 0;
    for (rpc_conn *c = e->conns; c; c = c->next_open) {
        cs_rpc_conn_ref(c);
        held[n++] = c;
    }
    for (int i = 0; i < n; i++) {
        cs_rpc_conn_drain_input(held[i]);
        cs_rpc_conn_unref(held[i]);
    }
    free(held);
}

static void post(rpc_endpoint *e, void (*fn)(void *arg), void *arg, int after_input)
{
    post_item *it = cs_xcalloc(1, sizeof *it);
    it->fn = fn;
    it->arg = arg;
    it->after_input = after_input;
    if (!cs_rpc_kick(e, &e->posts, it)) {
        free(it);
        CS_WARN(cs_rpc_log_component, "endpoint=%s event=post_after_stop", cs_log_value(e->name));
    }
}

void cs_rpc_endpoint_post(rpc_endpoint *e, void (*fn)(void *arg), void *arg)
{
    post(e, fn, arg, 0);
}

void cs_rpc_endpoint_post_after_input(rpc_endpoint *e, void (*fn)(void *arg), void *arg)
{
    post(e, fn, arg, 1);
}

static void shutdown_all(rpc_endpoint *e)
{
    while (e->conns)
        cs_rpc_conn_close_now(e->conns, "endpoint stopped");
    for (int i = 0; i < e->nlisteners; i++)
        uv_close((uv_handle_t *)e->listeners[i], cs_rpc_free_handle);
    e->nlisteners = 0;
    uv_close((uv_handle_t *)&e->async, NULL);
}

static void on_async(uv_async_t *a)
{
    rpc_endpoint *e = a->data;
    pthread_mutex_lock(&e->mu);
    post_item *posts = list_take(&e->posts);
    post_item *dirty = list_take(&e->dirty);
    post_item *closes = list_take(&e->closes);
    int stopping = e->stopping;
    if (stopping) e->stopped = 1;
    pthread_mutex_unlock(&e->mu);
    while (posts) {
        post_item *n = posts->next;
        if (posts->after_input) drain_all_input(e);
        posts->fn(posts->arg);
        free(posts);
        posts = n;
    }
    while (dirty) {
        post_item *n = dirty->next;
        rpc_conn *c = dirty->conn;
        pthread_mutex_lock(&c->mu);
        c->kicked = 0;
        pthread_mutex_unlock(&c->mu);
        cs_rpc_flush(c);
        cs_rpc_conn_unref(c);
        free(dirty);
        dirty = n;
    }
    while (closes) {
        post_item *n = closes->next;
        cs_rpc_conn_close_now(closes->conn, "closed locally");
        cs_rpc_conn_unref(closes->conn);
        free(closes);
        closes = n;
    }
    if (stopping) shutdown_all(e);
}

static void loop_main(void *arg)
{
    rpc_endpoint *e = arg;
    e->loop_tid = pthread_self();
    uv_sem_post(&e->started);
    uv_run(&e->loop, UV_RUN_DEFAULT);
}

/* ---- settings ---------------------------------------------------------------------------- */

/* A value that is set is checked against its declaration (common/conf_entries.c), so these keys
 * are refused with the same words here as by cspark-submit. */
static int check_key(const cs_conf *conf, const char *key, cs_error *err)
{
    const char *v = cs_conf_get(conf, key);
    const cs_conf_entry *e = cs_conf_entry_find(key);
    return v && e ? cs_conf_entry_check(e, v, err) : 0;
}

int cs_rpc_options_from_conf(const cs_conf *conf, rpc_options *o, cs_error *err)
{
    static const char *const keys[] = {"spark.rpc.message.maxSize", "spark.shuffle.sasl.timeout",
                                       "spark.network.auth.rpcTimeout",
                                       "cspark.rpc.maxUnauthenticatedConnections"};
    int64_t max = 0, sasl = 0, timeout = 0, pending = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (check_key(conf, keys[i], err) < 0) return CS_EINVAL;
    if (cs_conf_entry_size(conf, "spark.rpc.message.maxSize", &max, err) < 0 ||
        cs_conf_get_duration_ms(conf, "spark.shuffle.sasl.timeout", "30s", CS_SEC, &sasl, err) < 0)
        return CS_EINVAL;
    char dflt[32]; /* Spark: spark.network.auth.rpcTimeout falls back to the SASL timeout */
    snprintf(dflt, sizeof dflt, "%lldms", (long long)sasl);
    if (cs_conf_get_duration_ms(conf, "spark.network.auth.rpcTimeout", dflt, CS_SEC, &timeout,
                                err) < 0 ||
        cs_conf_get_int(conf, "cspark.rpc.maxUnauthenticatedConnections", "256", &pending, err) < 0)
        return CS_EINVAL;
    o->max_frame = (size_t)max;
    o->auth_timeout_ms = timeout;
    o->max_unauthenticated = (int)pending;
    return 0;
}

size_t cs_rpc_endpoint_max_frame(const rpc_endpoint *e)
{
    return atomic_load(&((rpc_endpoint *)e)->max_frame);
}

/* Loop thread: open connections take the new limit from their next frame on. */
static void apply_max_frame(void *arg)
{
    rpc_endpoint *e = arg;
    for (rpc_conn *c = e->conns; c; c = c->next_open)
        if (c->state == C_OPEN)
            cs_frame_decoder_set_limit(&c->dec, cs_rpc_endpoint_max_frame(e), c->dec.trusted, NULL);
}

void cs_rpc_endpoint_set_max_frame(rpc_endpoint *e, size_t max_frame)
{
    if (!max_frame) max_frame = RPC_DEFAULT_MAX_FRAME;
    if (max_frame > 0x7fffffffu) max_frame = 0x7fffffffu; /* what a 4-byte length can carry */
    size_t old = atomic_exchange(&e->max_frame, max_frame);
    if (old && old != max_frame) cs_rpc_endpoint_post(e, apply_max_frame, e);
}

/* ---- creation and shutdown --------------------------------------------------------------- */

rpc_endpoint *cs_rpc_endpoint_new(const rpc_options *opt, const rpc_handlers *h, cs_error *err)
{
    rpc_endpoint *e = cs_xcalloc(1, sizeof *e);
    e->name = cs_xstrdup(opt && opt->name ? opt->name : "rpc");
    e->app_id = cs_xstrdup(opt && opt->app_id ? opt->app_id : "");
    e->secret = opt && opt->secret && *opt->secret ? cs_xstrdup(opt->secret) : NULL;
    atomic_init(&e->max_frame, 0);
    cs_rpc_endpoint_set_max_frame(e, opt ? opt->max_frame : 0);
    e->auth_timeout_ms = opt && opt->auth_timeout_ms > 0 ? (uint64_t)opt->auth_timeout_ms
                                                         : RPC_DEFAULT_AUTH_TIMEOUT_MS;
    e->max_unauthenticated = opt && opt->max_unauthenticated > 0 ? opt->max_unauthenticated
                                                                 : RPC_DEFAULT_MAX_UNAUTHENTICATED;
    if (h) e->h = *h;
    atomic_init(&e->next_id, 0);
    pthread_mutex_init(&e->mu, NULL);
    int rc = uv_loop_init(&e->loop);
    if (rc == 0) {
        rc = uv_async_init(&e->loop, &e->async, on_async);
        if (rc < 0) uv_loop_close(&e->loop);
    }
    if (rc < 0) {
        cs_error_set(err, CS_EIO, "rpc endpoint %s: cannot start event loop: %s", e->name,
                     uv_strerror(rc));
        goto fail;
    }
    e->async.data = e;
    uv_sem_init(&e->started, 0);
    rc = uv_thread_create(&e->thread, loop_main, e);
    if (rc < 0) {
        cs_error_set(err, CS_EIO, "rpc endpoint %s: cannot start loop thread: %s", e->name,
                     uv_strerror(rc));
        uv_close((uv_handle_t *)&e->async, NULL);
        uv_run(&e->loop, UV_RUN_DEFAULT);
        uv_loop_close(&e->loop);
        uv_sem_destroy(&e->started);
        goto fail;
    }
    uv_sem_wait(&e->started);
    return e;
fail:
    pthread_mutex_destroy(&e->mu);
    free(e->name);
    free(e->app_id);
    cs_auth_secret_free(e->secret);
    free(e);
    return NULL;
}

static void drain_list(post_item *l, int conns)
{
    while (l) {
        post_item *n = l->next;
        if (conns) cs_rpc_conn_unref(l->conn);
        free(l);
        l = n;
    }
}

void cs_rpc_endpoint_free(rpc_endpoint *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->stopping = 1;
    uv_async_send(&e->async);
    pthread_mutex_unlock(&e->mu);
    uv_thread_join(&e->thread);
    /* items queued after the loop's last pass */
    pthread_mutex_lock(&e->mu);
    post_item *posts = list_take(&e->posts);
    post_item *dirty = list_take(&e->dirty);
    post_item *closes = list_take(&e->closes);
    pthread_mutex_unlock(&e->mu);
    drain_list(posts, 0);
    drain_list(dirty, 1);
    drain_list(closes, 1);
    uv_loop_close(&e->loop);
    uv_sem_destroy(&e->started);
    pthread_mutex_destroy(&e->mu);
    free(e->listeners);
    free(e->rbuf);
    free(e->name);
    free(e->app_id);
    cs_auth_secret_free(e->secret);
    free(e);
}
