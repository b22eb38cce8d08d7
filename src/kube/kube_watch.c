/* kube_watch.c — list-then-watch with resume, bookmarks and re-list on 410 Gone.
 *
 * One thread and one CURL easy handle (driven through its own multi handle, so that
 * cs_kube_watch_stop can wake it at once with curl_multi_wakeup) per watch. The chunked response is
 * split into lines and each line parsed with json_loadb. The resourceVersion of every delivered
 * object and of every BOOKMARK is remembered; a new connection resumes from it, so no change is
 * missed across reconnects; when the server says that version is gone (HTTP 410 or an ERROR
 * event with code 410) the watch LISTs again and delivers RELIST. Memory is bounded whatever the
 * server sends: an event line may be up to WATCH_LINE_MAX bytes (a longer one ends the stream with
 * a WARN naming the cap, and the watch resumes from its last version), only the bytes that
 * arrived since the last scan are searched for a newline (linear in the stream), and an error
 * body is kept up to WATCH_ERROR_BODY_MAX (enough for its message; the transfer then ends, so an
 * endless error body is neither buffered nor waited for). Called by the submit client's
 * status watcher and the driver's executor-pod snapshot source; see kube_watch.h.
 */
#include "kube/kube_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "kube/kube_internal.h"

#define WATCH_BACKOFF_MIN_MS 100
#define WATCH_BACKOFF_MAX_MS 5000
/* One event is one object, which the API server keeps under 1.5 MiB (etcd's request limit) */
#define WATCH_LINE_MAX (16 * 1024 * 1024)
#define WATCH_ERROR_BODY_MAX (64 * 1024)

struct kube_watch {
    kube_client *c;
    char *resource, *ns, *selector, *fields;
    kube_watch_fn fn;
    void *arg;
    pthread_t th;
    atomic_bool stop;
    CURLM *multi;
    CURL *h; /* the handle of the connection in progress */
    char rv[128];
    _Atomic int64_t connects, relists;
    /* per-connection stream state */
    cs_sbuf buf;    /* bytes of the stream not yet split into lines */
    size_t scanned; /* bytes of buf known to hold no newline */
    bool relist_needed, stream_error;
    int events;
    unsigned seed;
};

/* Copies metadata.resourceVersion of obj into w->rv (if present). */
static void remember_rv(kube_watch *w, const json_t *obj)
{
    const char *rv =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    if (rv && *rv && strlen(rv) < sizeof w->rv) snprintf(w->rv, sizeof w->rv, "%s", rv);
}

static int do_list(kube_watch *w, cs_error *err)
{
    json_t *list = NULL;
    int rc = cs_kube_list(w->c, w->resource, w->ns, w->selector, w->fields, &list, err);
    if (rc) return rc;
    atomic_fetch_add(&w->relists, 1);
    remember_rv(w, list);
    w->fn(w->arg, "RELIST", list);
    json_decref(list);
    return CS_OK;
}

/* Handles one event line; returns false to end the connection. */
static bool handle_line(kube_watch *w, const char *line, size_t n)
{
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
        n--;
    if (n == 0) return true;
    json_error_t jerr;
    json_t *ev = json_loadb(line, n, 0, &jerr);
    if (!ev) {
        CS_WARN("kube", "watch=%s ns=%s malformed event line: %s", cs_log_value(w->resource),
                cs_log_value(w->ns), cs_log_value(jerr.text));
        w->stream_error = true;
        return false;
    }
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    bool go_on = true;
    if (!type || !json_is_object(obj)) { /* a watch event's object is always an object */
        w->stream_error = true;
        go_on = false;
    } else if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") || !strcmp(type, "DELETED")) {
        remember_rv(w, obj);
        w->events++;
        w->fn(w->arg, type, obj);
    } else if (!strcmp(type, "BOOKMARK")) {
        remember_rv(w, obj);
    } else if (!strcmp(type, "ERROR")) {
        json_int_t code = json_integer_value(json_object_get(obj, "code"));
        const char *msg = json_string_value(json_object_get(obj, "message"));
        if (code == 410) {
            CS_INFO("kube", "watch=%s ns=%s resourceVersion=%s expired (%s); re-listing",
                    cs_log_value(w->resource), cs_log_value(w->ns), cs_log_value(w->rv),
                    cs_log_value(msg ? msg : "410 Gone"));
            w->relist_needed = true;
        } else {
            CS_WARN("kube", "watch=%s ns=%s error event code=%lld: %s", cs_log_value(w->resource),
                    cs_log_value(w->ns), (long long)code, cs_log_value(msg ? msg : ""));
            w->stream_error = true;
        }
        go_on = false;
    }
    json_decref(ev);
    return go_on;
}

/* Splits the bytes of a 200 stream into event lines and handles them; n to go on, 0 to end the
 * transfer (an event said so, a stop was asked, or a line passed WATCH_LINE_MAX). */
static size_t feed_stream(kube_watch *w, const char *ptr, size_t n)
{
    cs_sbuf_append(&w->buf, ptr, n);
    size_t start = 0, from = w->scanned;
    for (;;) {
        char *nl = memchr(w->buf.data + from, '\n', w->buf.len - from);
        if (!nl) break;
        size_t ll = (size_t)(nl - (w->buf.data + start));
        bool go_on = handle_line(w, w->buf.data + start, ll);
        start += ll + 1;
        from = start;
        if (!go_on || atomic_load(&w->stop)) {
            w->buf.len = w->scanned = 0;
            return 0; /* abort the transfer */
        }
    }
    memmove(w->buf.data, w->buf.data + start, w->buf.len - start);
    w->buf.len -= start;
    w->scanned = w->buf.len;
    if (w->buf.len > WATCH_LINE_MAX) {
        CS_WARN("kube",
                "watch=%s ns=%s event=watch_line_too_long bytes=%zu limit=%d An event line of "
                "the watch stream is longer than %d MiB; ending the stream, the watch resumes "
                "from resourceVersion=%s",
                cs_log_value(w->resource), cs_log_value(w->ns), w->buf.len, WATCH_LINE_MAX,
                WATCH_LINE_MAX >> 20, cs_log_value(w->rv));
        w->stream_error = true;
        w->buf.len = w->scanned = 0;
        return 0;
    }
    return n;
}

static size_t stream_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
    kube_watch *w = ud;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        /* an error body: its start is enough for the message; past that, end the transfer */
        size_t room = w->buf.len < WATCH_ERROR_BODY_MAX ? WATCH_ERROR_BODY_MAX - w->buf.len : 0;
        cs_sbuf_append(&w->buf, ptr, n < room ? n : room);
        return n <= room ? n : 0;
    }
    return feed_stream(w, ptr, n);
}

static int xfer_cb(void *ud, curl_off_t a, curl_off_t b, curl_off_t c_, curl_off_t d)
{
    kube_watch *w = ud;
    return atomic_load(&w->stop) ? 1 : 0;
}

/* One watch connection; returns the HTTP status (0 if none). */
static long watch_once(kube_watch *w, CURL *h)
{
    char path[4096];
    cs_error err;
    if (cs_kube_resource_path(w->c, w->resource, w->ns, NULL, path, sizeof path, &err)) return 0;
    int timeout_s = 300 + (int)(rand_r(&w->seed) % 300);
    size_t len = strlen(path);
    snprintf(path + len, sizeof path - len,
             "?watch=true&allowWatchBookmarks=true&timeoutSeconds=%d", timeout_s);
    if (w->rv[0]) {
        char *e = curl_easy_escape(NULL, w->rv, 0);
        len = strlen(path);
        snprintf(path + len, sizeof path - len, "&resourceVersion=%s", e ? e : "");
        curl_free(e);
    }
    if (w->selector) {
        char *e = curl_easy_escape(NULL, w->selector, 0);
        len = strlen(path);
        snprintf(path + len, sizeof path - len, "&labelSelector=%s", e ? e : "");
        curl_free(e);
    }
    if (w->fields) {
        char *e = curl_easy_escape(NULL, w->fields, 0);
        len = strlen(path);
        snprintf(path + len, sizeof path - len, "&fieldSelector=%s", e ? e : "");
        curl_free(e);
    }
    kube_req q = {
        .verb = "watch", .method = "GET", .path = path, .resource = w->resource, .ns = w->ns};
    kube_resp r = {0};
    struct curl_slist *hdrs = NULL;
    cs_kube_http_setup(w->c, h, &q, (long)(timeout_s + 30) * 1000L, &hdrs, r.curl_msg);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_cb);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, w);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xfer_cb);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, w);
    w->h = h;
    w->buf.len = w->scanned = 0;
    w->relist_needed = w->stream_error = false;
    w->events = 0;

    cs_kube_rate_acquire(w->c, "watch");
    atomic_fetch_add(&w->connects, 1);
    CS_DEBUG("kube", "watch=%s ns=%s resourceVersion=%s connecting", cs_log_value(w->resource),
             cs_log_value(w->ns), cs_log_value(w->rv));
    curl_multi_add_handle(w->multi, h);
    int running = 1;
    CURLcode rc = CURLE_OK;
    while (running && !atomic_load(&w->stop)) {
        CURLMcode mc = curl_multi_perform(w->multi, &running);
        if (mc != CURLM_OK) {
            rc = CURLE_RECV_ERROR;
            break;
        }
        if (!running) break;
        curl_multi_poll(w->multi, NULL, 0, 1000, NULL);
    }
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(w->multi, &left))) {
        if (m->msg == CURLMSG_DONE) rc = m->data.result;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.status);
    curl_multi_remove_handle(w->multi, h);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(hdrs);
    if (atomic_load(&w->stop)) return r.status;

    if (r.status == 200) {
        if (w->buf.len > 0 && !w->relist_needed && !w->stream_error) {
            handle_line(w, w->buf.data, w->buf.len); /* a last line without '\n' */
            w->buf.len = w->scanned = 0;
        }
        if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
            CS_DEBUG("kube", "watch=%s ns=%s stream ended: %s", cs_log_value(w->resource),
                     cs_log_value(w->ns),
                     cs_log_quote(r.curl_msg[0] ? r.curl_msg : curl_easy_strerror(rc)));
        }
    } else if (r.status == 410) {
        w->relist_needed = true;
    } else {
        /* a failed exchange: report it as one line, with the body read by stream_cb unusable */
        r.curl_rc = r.status ? CURLE_OK : rc;
        if (!r.status && !r.curl_msg[0]) {
            snprintf(r.curl_msg, sizeof r.curl_msg, "%s", curl_easy_strerror(rc));
        }
        if (r.status && w->buf.len > 0) cs_sbuf_append(&r.body, w->buf.data, w->buf.len);
        cs_kube_error_from(w->c, &q, &r, &err);
        CS_WARN("kube", "watch=%s ns=%s failed, will retry: %s", cs_log_value(w->resource),
                cs_log_value(w->ns), cs_log_value(err.msg));
        w->stream_error = true;
        cs_kube_resp_free(&r);
        w->buf.len = w->scanned = 0;
    }
    return r.status;
}

static void *watch_main(void *arg)
{
    kube_watch *w = arg;
    CURL *h = curl_easy_init();
    if (!h) {
        CS_ERROR("kube", "watch=%s curl_easy_init failed", cs_log_value(w->resource));
        return NULL;
    }
    int64_t backoff = WATCH_BACKOFF_MIN_MS;
    while (!atomic_load(&w->stop)) {
        bool failed = false;
        if (w->relist_needed) {
            cs_error err;
            if (do_list(w, &err) == CS_OK) {
                w->relist_needed = false;
            } else {
                CS_WARN("kube", "watch=%s ns=%s re-list failed, will retry: %s",
                        cs_log_value(w->resource), cs_log_value(w->ns), cs_log_value(err.msg));
                failed = true;
            }
        } else {
            watch_once(w, h);
            if (atomic_load(&w->stop)) break;
            if (w->events > 0) backoff = WATCH_BACKOFF_MIN_MS;
            failed = w->stream_error;
            if (w->relist_needed) continue; /* re-list at once */
            if (!failed && w->events == 0) {
                /* an empty stream that ended by itself: do not spin */
                cs_kube_sleep_ms(WATCH_BACKOFF_MIN_MS, &w->stop);
            }
        }
        if (failed) {
            cs_kube_sleep_ms(backoff, &w->stop);
            backoff *= 2;
            if (backoff > WATCH_BACKOFF_MAX_MS) backoff = WATCH_BACKOFF_MAX_MS;
        }
    }
    curl_easy_cleanup(h);
    return NULL;
}

kube_watch *cs_kube_watch_start(kube_client *c, const char *resource, const char *ns,
                                const char *label_selector, kube_watch_fn fn, void *arg,
                                cs_error *err)
{
    return cs_kube_watch_start_sel(c, resource, ns, label_selector, NULL, fn, arg, err);
}

kube_watch *cs_kube_watch_start_sel(kube_client *c, const char *resource, const char *ns,
                                    const char *label_selector, const char *field_selector,
                                    kube_watch_fn fn, void *arg, cs_error *err)
{
    char path[2048];
    if (!fn) {
        cs_error_set(err, CS_EINVAL, "cs_kube_watch_start: no callback");
        return NULL;
    }
    if (cs_kube_resource_path(c, resource, ns, NULL, path, sizeof path, err)) return NULL;
    kube_watch *w = cs_xcalloc(1, sizeof *w);
    w->c = c;
    w->resource = cs_xstrdup(resource);
    w->ns = cs_xstrdup(ns ? ns : cs_kube_client_namespace(c));
    w->selector = label_selector && *label_selector ? cs_xstrdup(label_selector) : NULL;
    w->fields = field_selector && *field_selector ? cs_xstrdup(field_selector) : NULL;
    w->fn = fn;
    w->arg = arg;
    w->seed = (unsigned)cs_now_ns();
    atomic_init(&w->stop, false);
    atomic_init(&w->connects, 0);
    atomic_init(&w->relists, 0);
    w->multi = curl_multi_init();
    if (!w->multi) {
        cs_error_set(err, CS_ENOMEM, "curl_multi_init failed");
        goto fail;
    }
    if (do_list(w, err)) goto fail;
    if (pthread_create(&w->th, NULL, watch_main, w) != 0) {
        cs_error_set(err, CS_EIO, "cannot start the watch thread");
        goto fail;
    }
    return w;
fail:
    if (w->multi) curl_multi_cleanup(w->multi);
    free(w->resource);
    free(w->ns);
    free(w->selector);
    free(w->fields);
    free(w);
    return NULL;
}

void cs_kube_watch_stop(kube_watch *w)
{
    if (!w) return;
    atomic_store(&w->stop, true);
    curl_multi_wakeup(w->multi);
    pthread_join(w->th, NULL);
    curl_multi_cleanup(w->multi);
    cs_sbuf_free(&w->buf);
    free(w->resource);
    free(w->ns);
    free(w->selector);
    free(w->fields);
    free(w);
}

int64_t cs_kube_watch_connects(const kube_watch *w)
{
    return atomic_load(&w->connects);
}

int64_t cs_kube_watch_relists(const kube_watch *w)
{
    return atomic_load(&w->relists);
}
