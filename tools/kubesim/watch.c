/* kubesim watch streams (see watch.h). The content-reader callback runs on the connection's own
 * thread (MHD thread-per-connection mode), so it may block on the store's condition variable in
 * short slices, checking for shutdown, timeouts, bookmarks and client disconnects in between. */
#define _GNU_SOURCE
#include "watch.h"
#include "table.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define WAIT_SLICE_MS 200
#define MAX_BATCH 256

typedef struct watch {
    ks_store *store;
    ks_metrics *metrics;
    ks_metric_labels labels; /* strings static */
    char resource[48];
    char *ns;
    ks_selector *sel;
    const char *kind;
    uint64_t since;
    int64_t started, deadline, next_bookmark;
    ks_faults *faults;
    int bookmarks, table, first_table, bookmark_ms, fd, done, dropped, initial_end_bookmark;
    char include[16];
    int *stopping;
    json_t *initial; /* objects to send as ADDED first */
    size_t initial_pos;
    char *out;
    size_t out_len, out_off, out_cap;
} watch;

static void out_append(watch *w, const char *s, size_t n)
{
    if (w->out_len + n + 1 > w->out_cap) {
        size_t nc = w->out_cap ? w->out_cap : 4096;
        while (nc < w->out_len + n + 1)
            nc *= 2;
        char *p = realloc(w->out, nc);
        if (!p) return;
        w->out = p;
        w->out_cap = nc;
    }
    memcpy(w->out + w->out_len, s, n);
    w->out_len += n;
}

/* Appends one event line; ser (may be NULL) is obj's stored serialization, spliced in as is. */
static void emit_ser(watch *w, const char *type, json_t *obj, const json_t *ser);

static void emit(watch *w, const char *type, json_t *obj /* borrowed */)
{
    emit_ser(w, type, obj, NULL);
}

static void emit_ser(watch *w, const char *type, json_t *obj, const json_t *ser)
{
    if (ser && !w->table) {
        char head[48];
        int hl = snprintf(head, sizeof head, "{\"type\":\"%s\",\"object\":", type);
        out_append(w, head, (size_t)hl);
        out_append(w, json_string_value(ser), json_string_length(ser));
        out_append(w, "}\n", 2);
        return;
    }
    json_t *o = obj;
    json_t *tbl = NULL;
    if (w->table && strcmp(type, "BOOKMARK") && strcmp(type, "ERROR")) {
        json_t *items = json_pack("[O]", obj);
        tbl = ks_table(
            w->resource, items,
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion")),
            NULL, w->include, w->first_table);
        w->first_table = 0;
        json_decref(items);
        o = tbl;
    }
    json_t *ev = json_pack("{s:s,s:O}", "type", type, "object", o);
    char *s = json_dumps(ev, JSON_COMPACT);
    if (s) {
        out_append(w, s, strlen(s));
        out_append(w, "\n", 1);
        free(s);
    }
    json_decref(ev);
    json_decref(tbl);
}

static void emit_bookmark(watch *w, int initial_end)
{
    char rv[32];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)w->since);
    json_t *o = json_pack("{s:s,s:s,s:{s:s}}", "kind", w->kind, "apiVersion",
                          ks_resource_api_version(w->resource), "metadata", "resourceVersion", rv);
    if (initial_end)
        json_object_set_new(json_object_get(o, "metadata"), "annotations",
                            json_pack("{s:s}", "k8s.io/initial-events-end", "true"));
    emit(w, "BOOKMARK", o);
    json_decref(o);
}

static int matches(watch *w, const json_t *obj)
{
    if (w->ns) {
        const char *ons =
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
        if (!ons || strcmp(ons, w->ns)) return 0;
    }
    return ks_selector_match(w->sel, obj);
}

static int client_gone(watch *w)
{
    if (w->fd < 0) return 0;
    struct pollfd pfd = {.fd = w->fd, .events = POLLIN | POLLRDHUP};
    if (poll(&pfd, 1, 0) <= 0) return 0;
    if (pfd.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) return 1;
    return 0;
}

/* Fills w->out with the next events; returns 0 to continue, 1 when the stream should end cleanly,
 * -1 when it should be cut (drop fault / client gone). */
static int produce(watch *w)
{
    if (w->initial) {
        size_t n = json_array_size(w->initial);
        for (int k = 0; k < MAX_BATCH && w->initial_pos < n; k++)
            emit(w, "ADDED", json_array_get(w->initial, w->initial_pos++));
        if (w->initial_pos >= n) {
            json_decref(w->initial);
            w->initial = NULL;
            if (w->initial_end_bookmark) emit_bookmark(w, 1);
        }
        return 0;
    }
    ks_event evs[MAX_BATCH];
    for (;;) {
        if (__atomic_load_n(w->stopping, __ATOMIC_ACQUIRE)) return 1;
        int64_t now = ks_mono_ms();
        if (w->faults) {
            ks_faults_cfg fc;
            ks_faults_get(w->faults, &fc);
            if (fc.drop_watch_after_ms > 0 && now - w->started >= fc.drop_watch_after_ms) {
                w->dropped = 1;
                return -1;
            }
        }
        if (now >= w->deadline) return 1;
        if (w->bookmarks && now >= w->next_bookmark) {
            w->next_bookmark = now + w->bookmark_ms;
            emit_bookmark(w, 0);
            return 0;
        }
        if (client_gone(w)) return -1;
        uint64_t now_rv = 0, floor = 0;
        int n = ks_store_events(w->store, w->resource, w->since, evs, MAX_BATCH, WAIT_SLICE_MS,
                                &now_rv, &floor);
        if (n == -ETIME) {
            char msg[160];
            snprintf(msg, sizeof msg, "too old resource version: %llu (%llu)",
                     (unsigned long long)w->since, (unsigned long long)(floor ? floor - 1 : 0));
            json_t *st = ks_status(410, "Expired", msg, NULL);
            emit(w, "ERROR", st);
            json_decref(st);
            w->done = 1;
            return 0;
        }
        for (int i = 0; i < n; i++) {
            /* as the API server's watch cache: an object that starts or stops matching the selector
             * is ADDED to or DELETED from the filtered view */
            int now_in = matches(w, evs[i].obj);
            if (!strcmp(evs[i].type, "MODIFIED") && evs[i].prev) {
                int was_in = matches(w, evs[i].prev);
                if (now_in && was_in)
                    emit_ser(w, "MODIFIED", evs[i].obj, evs[i].ser);
                else if (now_in)
                    emit_ser(w, "ADDED", evs[i].obj, evs[i].ser);
                else if (was_in)
                    emit_ser(w, "DELETED", evs[i].obj, evs[i].ser);
            } else if (now_in) {
                emit_ser(w, evs[i].type, evs[i].obj, evs[i].ser);
            }
            json_decref(evs[i].obj);
            json_decref(evs[i].prev);
            json_decref(evs[i].ser);
        }
        if (n >= 0 && now_rv > w->since) w->since = now_rv;
        if (w->out_len > w->out_off) return 0;
    }
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    watch *w = cls;
    (void)pos;
    for (;;) {
        if (w->out_len > w->out_off) {
            size_t n = w->out_len - w->out_off;
            if (n > max) n = max;
            memcpy(buf, w->out + w->out_off, n);
            w->out_off += n;
            if (w->out_off == w->out_len) w->out_off = w->out_len = 0;
            return (ssize_t)n;
        }
        if (w->done) return MHD_CONTENT_READER_END_OF_STREAM;
        int rc = produce(w);
        if (rc > 0) return MHD_CONTENT_READER_END_OF_STREAM;
        if (rc < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
    }
}

static void watch_free(void *cls)
{
    watch *w = cls;
    if (w->metrics) ks_metrics_watch_delta(w->metrics, &w->labels, -1);
    ks_selector_free(w->sel);
    json_decref(w->initial);
    free(w->ns);
    free(w->out);
    free(w);
}

static int initial_filter(const json_t *obj, void *arg)
{
    return ks_selector_match((const ks_selector *)arg, obj);
}

struct MHD_Response *ks_watch_response(const ks_watch_params *p)
{
    watch *w = calloc(1, sizeof *w);
    if (!w) {
        ks_selector_free(p->sel);
        return NULL;
    }
    w->store = p->store;
    w->metrics = p->metrics;
    w->labels = (ks_metric_labels){.group = ks_resource_group(ks_resource_api_version(p->resource)),
                                   .version = "v1",
                                   .resource = p->resource,
                                   .subresource = "",
                                   .scope = p->ns ? "namespace" : "cluster"};
    snprintf(w->resource, sizeof w->resource, "%s", p->resource);
    w->ns = p->ns ? strdup(p->ns) : NULL;
    w->sel = p->sel;
    w->kind = "Object";
    ks_resource_info(p->resource, &w->kind, NULL);
    w->bookmarks = p->bookmarks;
    w->table = p->table;
    w->first_table = 1;
    snprintf(w->include, sizeof w->include, "%s", p->include ? p->include : "Metadata");
    w->bookmark_ms = p->bookmark_ms > 0 ? p->bookmark_ms : 1000;
    w->fd = p->fd;
    w->stopping = p->stopping;
    int64_t now = ks_mono_ms();
    w->deadline = now + (int64_t)(p->timeout_s > 0 ? p->timeout_s : 1800) * 1000;
    w->next_bookmark = now + w->bookmark_ms;
    w->started = now;
    w->faults = p->faults;
    const char *rv = p->rv;
    if (p->timeout_s < 0) {
        w->done = 1; /* as the API server: a negative timeout ends the watch at once */
    } else if (!rv || !*rv || !strcmp(rv, "0") || p->send_initial) {
        uint64_t lrv = 0;
        w->initial = ks_store_list_refs(p->store, p->resource, p->ns, initial_filter, w->sel, NULL,
                                        0, &lrv, NULL);
        w->since = lrv;
        w->initial_end_bookmark = p->send_initial && p->bookmarks;
        if (json_array_size(w->initial) == 0 && !w->initial_end_bookmark) {
            json_decref(w->initial);
            w->initial = NULL;
        }
    } else {
        w->since = strtoull(rv, NULL, 10);
    }
    if (w->metrics) ks_metrics_watch_delta(w->metrics, &w->labels, 1);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, reader, w, watch_free);
    if (!r) {
        watch_free(w);
        return NULL;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    return r;
}
