/* ui_server.c — routing, binding and the libmicrohttpd glue of the UI server (see ui_server.h).
 *
 * Binding follows Spark's Utils.startServiceOnPort: the configured port, then the next ones up to
 * max_retries more (wrapping above 65535 to 1024), each tried with a socket of our own so that a
 * port in use is told apart from any other error; the bound socket is handed to libmicrohttpd.
 * Each request is served on one of the daemon's pool threads: the path decides the handler, the
 * provider gives the application's store (locked while its page or JSON is built), the response
 * is built in memory and handed to libmicrohttpd, which copies it.
 * Kill requests are POSTs parsed by libmicrohttpd's form parser; they must carry the CSRF token of
 * this server (random, made at start) and, when the browser sends Origin or Referer, come from
 * the same host:port the request was sent to.
 */
#define _GNU_SOURCE
#include "ui/ui_server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/log.h"
#include "cspark.h"
#include "ui/ui_api.h"
#include "ui/ui_html.h"
#include "ui/ui_metrics.h"
#include "ui/ui_pages.h"
#include "common/localaddr.h"

#define LOG_PAGE_DEFAULT_BYTES (100 * 1024) /* Spark's logPage default byteLength */
#define LOG_PAGE_MAX_BYTES (16 * 1024 * 1024)
#define CONNECTION_IDLE_SECONDS 30 /* no byte in or out for this long: closed */
#define CONNECTIONS_PER_IP 128     /* a browser opens ~6; a proxy or port-forward more */
#define CONNECTIONS_MAX 8192

struct ui_server {
    ui_server_options opt;
    char *bind_host, *live_app_id, *metrics_namespace, *history_dir;
    ui_provider provider;
    ui_hooks hooks;
    ui_access *own_access; /* when the options gave none */
    const ui_access *access;
    struct MHD_Daemon *daemon;
    int fd;
    int port;
    char csrf[33];
    int64_t requests; /* atomically incremented */
};

void cs_ui_app_entries_free(ui_app_entry *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++) {
        free(e[i].id);
        free(e[i].name);
        free(e[i].user);
        free(e[i].version);
        free(e[i].log_path);
    }
    free(e);
}

/* ---- binding ------------------------------------------------------------------------------ */

/* A listening socket on host:port, or -1 with *err_no (EADDRINUSE when taken). */
static int listen_on(const char *host, int port, int *err_no)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    int rc = getaddrinfo(host && *host ? host : cs_wildcard_address(), service, &hints, &res);
    if (rc != 0) {
        *err_no = EADDRNOTAVAIL;
        return -1;
    }
    int fd = -1;
    *err_no = EADDRNOTAVAIL;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            *err_no = errno;
            continue;
        }
        int one = 1, off = 0;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ai->ai_family == AF_INET6) /* "::" serves IPv4 peers too (dual stack) */
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) break;
        *err_no = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) return -1;
    if (ss.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* ---- request helpers ---------------------------------------------------------------------- */

typedef struct request {
    ui_server *srv;
    struct MHD_Connection *conn;
    const char *method;
    char *user;  /* authenticated user (owned), NULL: anonymous */
    bool bearer; /* the request sent a bearer token */
    /* POST form */
    struct MHD_PostProcessor *pp;
    char form_id[32];
    char form_csrf[80];
    char attachment[320]; /* Content-Disposition's file name of a download, "" otherwise */
} request;

typedef struct arg_search {
    const char *name;
    int want, seen;
    const char *found;
} arg_search;

static enum MHD_Result arg_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    (void)kind;
    arg_search *a = cls;
    if (!key || strcmp(key, a->name) != 0) return MHD_YES;
    if (a->seen++ == a->want) {
        a->found = value ? value : "";
        return MHD_NO;
    }
    return MHD_YES;
}

/* The index-th value of a GET argument (repeated arguments in order), or NULL. */
static const char *get_arg(void *ctx, const char *name, int index)
{
    request *rq = ctx;
    arg_search a = {name, index, 0, NULL};
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, arg_iter, &a);
    return a.found;
}

/* The query parameter `name` as an integer in [min, max], or dflt when absent; a value that is
 * not a whole decimal number in range ("abc", "1x", "4294967296" for an id) clears *ok, so the
 * page answers 400 instead of reading it as 0 or cutting it to 32 bits. */
static long arg_long(request *rq, const char *name, long dflt, long min, long max, bool *ok)
{
    const char *v = get_arg(rq, name, 0);
    if (!v) return dflt;
    int64_t x;
    if (!cs_str_to_int_in(v, min, max, &x)) {
        if (ok) *ok = false;
        return dflt;
    }
    return (long)x;
}

static enum MHD_Result respond(request *rq, int status, const char *type, cs_sbuf *body)
{
    size_t len = body->len;
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body->data ? body->data : (void *)"", MHD_RESPMEM_MUST_COPY);
    cs_sbuf_free(body);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            "no-cache, no-store, must-revalidate");
    MHD_add_response_header(r, "X-Frame-Options", "SAMEORIGIN");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (rq->attachment[0]) {
        char disposition[360];
        snprintf(disposition, sizeof disposition, "attachment; filename=%s", rq->attachment);
        MHD_add_response_header(r, "Content-Disposition", disposition);
    }
    enum MHD_Result ret = MHD_queue_response(rq->conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result respond_text(request *rq, int status, const char *text)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_puts(&b, text);
    cs_sbuf_putc(&b, '\n');
    return respond(rq, status, "text/plain; charset=utf-8", &b);
}

static enum MHD_Result redirect(request *rq, int status, const char *location)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, location);
    enum MHD_Result ret = MHD_queue_response(rq->conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- access ------------------------------------------------------------------------------- */

static enum MHD_Result refuse_view(request *rq)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_printf(&b, "User %s is not authorized to access this page.",
                   rq->user ? rq->user : "(anonymous)");
    enum MHD_Result r = respond_text(rq, 403, cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return r;
}

/* In history mode, whether the user may view the application of st (ACLs from its log). */
static bool may_view_app(request *rq, ui_store *st)
{
    if (!rq->srv->opt.history) return true;
    cs_ui_store_lock(st);
    bool ok = cs_ui_access_can_view(rq->srv->access, rq->user, st);
    cs_ui_store_unlock(st);
    return ok;
}

/* Sets rq->user from the request's credentials: a bearer token when the tokens file is set, else
 * HTTP basic when the users file is. False when neither names a known user. */
static bool authenticate(request *rq)
{
    const ui_access *a = rq->srv->access;
    const char *auth =
        MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
        rq->bearer = true;
        const char *token = auth + 7;
        while (*token == ' ')
            token++;
        const char *user =
            cs_ui_access_accepts_bearer(a) ? cs_ui_access_token_user(a, token) : NULL;
        rq->user = user ? cs_xstrdup(user) : NULL;
        return user != NULL;
    }
    if (!cs_ui_access_accepts_basic(a)) return false;
    char *password = NULL;
    char *user = MHD_basic_auth_get_username_password(rq->conn, &password);
    bool ok = cs_ui_access_login_ok(a, user, password);
    if (ok) rq->user = cs_xstrdup(user);
    if (password) MHD_free(password);
    if (user) MHD_free(user);
    return ok;
}

/* 401 with a challenge for each scheme the server accepts (RFC 6750 for bearer tokens: a token
 * that was sent and is not known is an invalid_token). */
static enum MHD_Result refuse_login(request *rq)
{
    const ui_access *a = rq->srv->access;
    const char *text = rq->bearer ? "invalid bearer token\n" : "authentication required\n";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (cs_ui_access_accepts_basic(a))
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Basic realm=\"cspark\", charset=\"UTF-8\"");
    if (cs_ui_access_accepts_bearer(a))
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                rq->bearer ? "Bearer realm=\"cspark\", error=\"invalid_token\""
                                           : "Bearer realm=\"cspark\"");
    enum MHD_Result ret = MHD_queue_response(rq->conn, MHD_HTTP_UNAUTHORIZED, r);
    MHD_destroy_response(r);
    return ret;
}

/* Host, credentials and view rights of a request whose headers arrived: a response queued (and
 * true returned) when it is refused. */
static bool refused(request *rq, enum MHD_Result *ret)
{
    ui_server *s = rq->srv;
    const char *host = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!cs_ui_access_host_ok(s->access, host)) {
        CS_WARN("ui", "event=request_refused host=%s reason=unknown_host", cs_log_value(host));
        *ret = respond_text(rq, 421,
                            "this server does not serve that Host name (a page reached through "
                            "DNS rebinding?); add it to cspark.ui.allowedHosts to allow it");
        return true;
    }
    if (cs_ui_access_needs_login(s->access) && !authenticate(rq)) {
        *ret = refuse_login(rq);
        return true;
    }
    if (!s->opt.history && !cs_ui_access_can_view(s->access, rq->user, NULL)) {
        *ret = refuse_view(rq);
        return true;
    }
    return false;
}

/* ---- application pages -------------------------------------------------------------------- */

/* The part of a "host:port/..." URL (Origin or Referer) naming the server, compared to Host. */
static bool same_origin(request *rq)
{
    const char *host = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    const char *origin =
        MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ORIGIN);
    if (!origin || strcmp(origin, "null") == 0)
        origin = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_REFERER);
    if (!origin) return true; /* non-browser clients send neither; the token still guards */
    if (!host) return false;
    const char *p = strstr(origin, "://");
    p = p ? p + 3 : origin;
    size_t n = strcspn(p, "/?#");
    return strlen(host) == n && strncmp(p, host, n) == 0;
}

static bool token_ok(const ui_server *s, const char *given)
{
    size_t n = strlen(s->csrf);
    if (!given || strlen(given) != n) return false;
    unsigned diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(given[i] ^ s->csrf[i]);
    return diff == 0;
}

static enum MHD_Result kill_request(request *rq, const char *what, const char *back)
{
    ui_server *s = rq->srv;
    bool is_job = strcmp(what, "job") == 0;
    if (!s->opt.kill_enabled || s->opt.history ||
        !(is_job ? s->hooks.kill_job : s->hooks.kill_stage))
        return respond_text(rq, 405, "killing is disabled (spark.ui.killEnabled=false)");
    if (!cs_ui_access_can_modify(s->access, rq->user)) {
        CS_WARN("ui", "event=kill_refused %s=%s user=%s reason=no_modify_permission", what,
                cs_log_value(rq->form_id), cs_log_value(rq->user ? rq->user : "(anonymous)"));
        return respond_text(rq, 403,
                            "refused: this user may not kill jobs or stages (spark.modify.acls)");
    }
    if (!token_ok(s, rq->form_csrf) || !same_origin(rq))
        return respond_text(rq, 403,
                            "refused: the request did not come from this UI's page "
                            "(missing or wrong CSRF token, or another origin)");
    char *end;
    long id = strtol(rq->form_id, &end, 10);
    if (end == rq->form_id || *end || id < 0)
        return respond_text(rq, 400, "the form field id must be a job or stage id");
    CS_INFO("ui", "event=kill_requested %s=%ld", what, id);
    if (is_job)
        s->hooks.kill_job(s->hooks.arg, (int)id);
    else
        s->hooks.kill_stage(s->hooks.arg, (int)id);
    return redirect(rq, 303, back);
}

static enum MHD_Result log_page(request *rq, const ui_page_ctx *pc)
{
    ui_server *s = rq->srv;
    const char *exec = get_arg(rq, "executorId", 0);
    const char *type = get_arg(rq, "logType", 0);
    if (!type) type = "stdout";
    if (!exec || (strcmp(type, "stdout") != 0 && strcmp(type, "stderr") != 0))
        return respond_text(rq, 400, "logPage needs executorId and logType=stdout|stderr");
    bool ok = true;
    long len = arg_long(rq, "byteLength", LOG_PAGE_DEFAULT_BYTES, 1, LONG_MAX, &ok);
    long offset = arg_long(rq, "offset", -len, LONG_MIN + 1, LONG_MAX, &ok);
    if (!ok || len <= 0) return respond_text(rq, 400, "offset and byteLength must be numbers");
    if (len > LOG_PAGE_MAX_BYTES) len = LOG_PAGE_MAX_BYTES;
    cs_sbuf text = CS_SBUF_INIT;
    int64_t start = 0;
    int64_t total = s->hooks.read_log(s->hooks.arg, exec, type, offset, (size_t)len, &text, &start);
    if (total < 0) {
        cs_sbuf_free(&text);
        return respond_text(rq, 404, "no log for that executor");
    }
    cs_sbuf page = CS_SBUF_INIT;
    int status = cs_ui_page_log(pc, exec, type, cs_sbuf_str(&text), text.len, start, total, &page);
    cs_sbuf_free(&text);
    return respond(rq, status, "text/html; charset=utf-8", &page);
}

/* Serves path (below the application's base) for the application's store. */
static enum MHD_Result app_page(request *rq, const char *app_id, const char *base, const char *path)
{
    ui_server *s = rq->srv;
    bool post = strcmp(rq->method, MHD_HTTP_METHOD_POST) == 0;
    if (post) {
        char back[600];
        if (strcmp(path, "/jobs/job/kill/") == 0) {
            snprintf(back, sizeof back, "%s/jobs/", base);
            return kill_request(rq, "job", back);
        }
        if (strcmp(path, "/stages/stage/kill/") == 0) {
            snprintf(back, sizeof back, "%s/stages/", base);
            return kill_request(rq, "stage", back);
        }
        return respond_text(rq, 405, "only the kill forms accept POST");
    }
    int64_t updated = 0;
    ui_store *st = s->provider.acquire(s->provider.arg, app_id, &updated);
    if (!st) return respond_text(rq, 404, "unknown application");
    if (!may_view_app(rq, st)) {
        s->provider.release(s->provider.arg, st);
        return refuse_view(rq);
    }
    ui_page_ctx pc = {st,
                      base,
                      !s->opt.history,
                      s->opt.kill_enabled,
                      s->csrf,
                      !s->opt.history && s->hooks.read_log != NULL,
                      cs_now_ms(),
                      get_arg,
                      rq};
    if (strcmp(path, "/logPage/") == 0 && pc.executor_logs) {
        cs_ui_store_lock(st);
        enum MHD_Result r = log_page(rq, &pc);
        cs_ui_store_unlock(st);
        s->provider.release(s->provider.arg, st);
        return r;
    }
    cs_sbuf out = CS_SBUF_INIT;
    int status = 404;
    bool ok = true;
    cs_ui_store_lock(st);
    if (strcmp(path, "/jobs/") == 0) {
        status = cs_ui_page_jobs(&pc, &out);
    } else if (strcmp(path, "/jobs/job/") == 0) {
        long id = arg_long(rq, "id", -1, 0, INT_MAX, &ok);
        status = cs_ui_page_job(&pc, (int)id, &out);
    } else if (strcmp(path, "/stages/") == 0) {
        status = cs_ui_page_stages(&pc, &out);
    } else if (strcmp(path, "/stages/stage/") == 0) {
        long id = arg_long(rq, "id", -1, 0, INT_MAX, &ok),
             attempt = arg_long(rq, "attempt", -1, 0, INT_MAX, &ok);
        status = cs_ui_page_stage(&pc, (int)id, (int)attempt, &out);
    } else if (strcmp(path, "/stages/stage/task/") == 0) {
        long id = arg_long(rq, "id", -1, 0, INT_MAX, &ok),
             attempt = arg_long(rq, "attempt", -1, 0, INT_MAX, &ok);
        long task = arg_long(rq, "taskId", -1, 0, LONG_MAX, &ok);
        status = cs_ui_page_task(&pc, (int)id, (int)attempt, task, &out);
    } else if (strcmp(path, "/storage/") == 0) {
        status = cs_ui_page_storage(&pc, &out);
    } else if (strcmp(path, "/storage/rdd/") == 0) {
        long id = arg_long(rq, "id", -1, 0, INT_MAX, &ok);
        status = cs_ui_page_rdd(&pc, (int)id, &out);
    } else if (strcmp(path, "/environment/") == 0) {
        status = cs_ui_page_environment(&pc, &out);
    } else if (strcmp(path, "/executors/") == 0) {
        status = cs_ui_page_executors(&pc, &out);
    } else if (strcmp(path, "/SQL/") == 0) {
        status = cs_ui_page_sql(&pc, &out);
    } else if (strcmp(path, "/SQL/execution/") == 0) {
        long id = arg_long(rq, "id", -1, 0, LONG_MAX, &ok);
        status = cs_ui_page_sql_execution(&pc, id, &out);
    } else {
        cs_ui_page_message(&pc, "Not found", "There is no such page.", &out);
    }
    cs_ui_store_unlock(st);
    s->provider.release(s->provider.arg, st);
    if (!ok) {
        cs_sbuf_free(&out);
        return respond_text(rq, 400, "a numeric query parameter is not a number");
    }
    return respond(rq, status, "text/html; charset=utf-8", &out);
}

/* ---- REST and metrics --------------------------------------------------------------------- */

static void absolute_base(request *rq, const char *base, cs_sbuf *out)
{
    const char *host = MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    cs_sbuf_printf(out, "http://%s%s", host ? host : "localhost", base);
}

/* /applications/<id>/logs: the event log as a zip (the live UI's is empty, as Spark's). */
static enum MHD_Result event_logs(request *rq, const char *app_id)
{
    ui_server *s = rq->srv;
    char *log_path = NULL;
    if (s->opt.history) {
        ui_app_entry *apps = NULL;
        size_t n = s->provider.list(s->provider.arg, &apps);
        for (size_t i = 0; i < n && !log_path; i++)
            if (strcmp(apps[i].id, app_id) == 0 && apps[i].log_path)
                log_path = cs_xstrdup(apps[i].log_path);
        cs_ui_app_entries_free(apps, n);
    }
    cs_sbuf zip = CS_SBUF_INIT;
    bool ok = cs_ui_api_event_log_zip(log_path, &zip);
    free(log_path);
    if (!ok) {
        cs_sbuf_free(&zip);
        cs_sbuf msg = CS_SBUF_INIT;
        cs_sbuf_printf(&msg, "Event logs are not available for app: %s.\n", app_id);
        return respond(rq, 503, "text/plain; charset=utf-8", &msg);
    }
    snprintf(rq->attachment, sizeof rq->attachment, "eventLogs-%s.zip", app_id);
    for (char *c = rq->attachment; *c; c++) /* a header value: no quote, separator or control */
        if (!isalnum((unsigned char)*c) && !strchr("._-", *c)) *c = '_';
    return respond(rq, 200, "application/octet-stream", &zip);
}

static enum MHD_Result api(request *rq, const char *path)
{
    ui_server *s = rq->srv;
    cs_sbuf out = CS_SBUF_INIT;
    if (strcmp(path, "/version") == 0 || strcmp(path, "/version/") == 0) {
        json_t *v = json_object();
        json_object_set_new(v, "spark", json_string(CSPARK_VERSION));
        cs_ui_api_dump(v, &out);
        return respond(rq, 200, "application/json", &out);
    }
    if (strncmp(path, "/applications", 13) != 0 || (path[13] && path[13] != '/'))
        return respond_text(rq, 404, "unknown path");
    const char *rest = path + 13;
    if (*rest == '\0' || strcmp(rest, "/") == 0) {
        ui_app_entry *apps = NULL;
        size_t n = s->provider.list(s->provider.arg, &apps);
        int status = cs_ui_api_app_list(apps, n, get_arg, rq, cs_now_ms(), &out);
        cs_ui_app_entries_free(apps, n);
        return respond(rq, status, status == 200 ? "application/json" : "text/plain; charset=utf-8",
                       &out);
    }
    rest++;
    size_t idlen = strcspn(rest, "/");
    char *app_id = strndup(rest, idlen);
    int64_t updated = 0;
    ui_store *st = app_id ? s->provider.acquire(s->provider.arg, app_id, &updated) : NULL;
    if (!st) {
        cs_sbuf_printf(&out, "unknown app: %s\n", app_id ? app_id : "");
        free(app_id);
        return respond(rq, 404, "text/plain; charset=utf-8", &out);
    }
    if (!may_view_app(rq, st)) {
        s->provider.release(s->provider.arg, st);
        free(app_id);
        return refuse_view(rq);
    }
    if (strcmp(rest + idlen, "/logs") == 0 || strcmp(rest + idlen, "/logs/") == 0) {
        s->provider.release(s->provider.arg, st);
        enum MHD_Result ret = event_logs(rq, app_id);
        free(app_id);
        return ret;
    }
    cs_sbuf base = CS_SBUF_INIT;
    if (s->opt.history) {
        cs_sbuf_puts(&base, "/history/");
        cs_sbuf_puts(&base, app_id);
    }
    cs_sbuf log_base = CS_SBUF_INIT;
    bool logs = !s->opt.history && s->hooks.read_log;
    if (logs) absolute_base(rq, cs_sbuf_str(&base), &log_base);
    ui_api_req r = {st,
                    rest + idlen,
                    get_arg,
                    rq,
                    cs_now_ms(),
                    updated,
                    logs ? cs_sbuf_str(&log_base) : NULL,
                    !s->opt.history};
    cs_ui_store_lock(st);
    int status = cs_ui_api_app(&r, &out);
    cs_ui_store_unlock(st);
    s->provider.release(s->provider.arg, st);
    cs_sbuf_free(&base);
    cs_sbuf_free(&log_base);
    free(app_id);
    return respond(rq, status, status == 200 ? "application/json" : "text/plain; charset=utf-8",
                   &out);
}

typedef enum { METRICS_DRIVER, METRICS_DRIVER_JSON, METRICS_EXECUTORS } metrics_kind;

static enum MHD_Result metrics(request *rq, metrics_kind kind)
{
    ui_server *s = rq->srv;
    if (s->opt.history || !s->opt.live_app_id) return respond_text(rq, 404, "no metrics here");
    int64_t updated;
    ui_store *st = s->provider.acquire(s->provider.arg, s->opt.live_app_id, &updated);
    if (!st) return respond_text(rq, 404, "no application");
    cs_sbuf out = CS_SBUF_INIT;
    int64_t dropped = s->hooks.dropped_events ? s->hooks.dropped_events(s->hooks.arg) : 0;
    cs_ui_store_lock(st);
    ui_driver_metrics m = {st,
                           s->opt.metrics_namespace ? s->opt.metrics_namespace : s->opt.live_app_id,
                           dropped, __atomic_load_n(&s->requests, __ATOMIC_RELAXED)};
    if (kind == METRICS_EXECUTORS)
        cs_ui_metrics_executors(st, &out);
    else if (kind == METRICS_DRIVER_JSON)
        cs_ui_metrics_driver_json(&m, &out);
    else
        cs_ui_metrics_driver(&m, &out);
    cs_ui_store_unlock(st);
    s->provider.release(s->provider.arg, st);
    return respond(rq, 200,
                   kind == METRICS_DRIVER_JSON ? "application/json"
                                               : "text/plain; version=0.0.4; charset=utf-8",
                   &out);
}

/* ---- the history listing ------------------------------------------------------------------ */

static enum MHD_Result history_listing(request *rq)
{
    ui_server *s = rq->srv;
    ui_app_entry *apps = NULL;
    size_t n = s->provider.list(s->provider.arg, &apps);
    const char *inc = get_arg(rq, "showIncomplete", 0);
    bool incomplete = inc && cs_str_ieq(inc, "true");
    cs_sbuf out = CS_SBUF_INIT;
    ui_frame f = {"", NULL,
                  incomplete ? "History Server: incomplete applications" : "History Server",
                  UI_TAB_NONE, false};
    cs_html_page_begin(&out, &f);
    cs_sbuf_puts(&out, "<ul class=\"summary\"><li><strong>Event log directory:</strong> ");
    cs_html_escape(&out, s->opt.history_dir);
    cs_sbuf_puts(&out, "</li></ul>");
    int shown = 0;
    cs_sbuf rows = CS_SBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (apps[i].completed == incomplete) continue;
        shown++;
        cs_sbuf_puts(&rows, "<tr class=\"app\"><td><a href=\"/history/");
        cs_html_url_escape(&rows, apps[i].id);
        cs_sbuf_puts(&rows, "/jobs/\">");
        cs_html_escape(&rows, apps[i].id);
        cs_sbuf_puts(&rows, "</a></td><td>");
        cs_html_escape(&rows, apps[i].name);
        cs_sbuf_puts(&rows, "</td><td>");
        cs_html_date(&rows, apps[i].start_ms);
        cs_sbuf_puts(&rows, "</td><td>");
        cs_html_date(&rows, apps[i].completed ? apps[i].end_ms : 0);
        cs_sbuf_puts(&rows, "</td><td>");
        if (apps[i].completed) cs_html_duration(&rows, apps[i].end_ms - apps[i].start_ms);
        cs_sbuf_puts(&rows, "</td><td>");
        cs_html_escape(&rows, apps[i].user);
        cs_sbuf_puts(&rows, "</td><td>");
        cs_html_date(&rows, apps[i].last_updated_ms);
        cs_sbuf_puts(&rows, "</td></tr>\n");
    }
    cs_sbuf_printf(&out, "<h4>%s applications (<span id=\"app-count\">%d</span>)</h4>",
                   incomplete ? "Incomplete" : "Completed", shown);
    if (shown > 0) {
        cs_sbuf_puts(&out, "<table id=\"history-table\"><thead><tr><th>App ID</th><th>App Name"
                           "</th><th>Started</th><th>Completed</th><th>Duration</th>"
                           "<th>Spark User</th><th>Last Updated</th></tr></thead><tbody>\n");
        cs_sbuf_puts(&out, cs_sbuf_str(&rows));
        cs_sbuf_puts(&out, "</tbody></table>");
    } else {
        cs_sbuf_puts(&out, "<p>No applications found.</p>");
    }
    cs_sbuf_free(&rows);
    cs_sbuf_puts(&out, incomplete ? "<p><a href=\"/\">Back to completed applications</a></p>"
                                  : "<p><a href=\"/?showIncomplete=true\">Show incomplete "
                                    "applications</a></p>");
    cs_html_page_end(&out);
    cs_ui_app_entries_free(apps, n);
    return respond(rq, 200, "text/html; charset=utf-8", &out);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static bool is_app_path(const char *p)
{
    static const char *const prefixes[] = {"/jobs",      "/stages",  "/storage", "/environment",
                                           "/executors", "/logPage", "/SQL"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(p, prefixes[i], n) == 0 && (p[n] == '\0' || p[n] == '/')) return true;
    }
    return false;
}

typedef struct query_ctx {
    cs_sbuf *out;
    bool first;
} query_ctx;

static enum MHD_Result query_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind;
    query_ctx *q = cls;
    cs_sbuf_putc(q->out, q->first ? '?' : '&');
    q->first = false;
    cs_html_url_escape(q->out, key);
    if (value) {
        cs_sbuf_putc(q->out, '=');
        cs_html_url_escape(q->out, value);
    }
    return MHD_YES;
}

/* Appends the request's query string ("?a=1&b=2"), re-encoded. */
static void append_query(request *rq, cs_sbuf *out)
{
    query_ctx q = {out, true};
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, query_iter, &q);
}

static enum MHD_Result route(request *rq, const char *url)
{
    ui_server *s = rq->srv;
    bool get = strcmp(rq->method, MHD_HTTP_METHOD_GET) == 0 ||
               strcmp(rq->method, MHD_HTTP_METHOD_HEAD) == 0;
    bool post = strcmp(rq->method, MHD_HTTP_METHOD_POST) == 0;
    if (!get && !post) return respond_text(rq, 405, "method not allowed");
    if (strncmp(url, "/api/v1", 7) == 0 && (url[7] == '\0' || url[7] == '/'))
        return get ? api(rq, url + 7) : respond_text(rq, 405, "the REST API is read-only");
    if (!post) {
        if (strcmp(url, "/metrics/prometheus") == 0 || strcmp(url, "/metrics/prometheus/") == 0)
            return metrics(rq, METRICS_DRIVER);
        if (strcmp(url, "/metrics/json") == 0 || strcmp(url, "/metrics/json/") == 0)
            return metrics(rq, METRICS_DRIVER_JSON);
        if (strcmp(url, "/metrics/executors/prometheus") == 0 ||
            strcmp(url, "/metrics/executors/prometheus/") == 0)
            return metrics(rq, METRICS_EXECUTORS);
        if (strcmp(url, "/static/cspark-ui.css") == 0) {
            cs_sbuf b = CS_SBUF_INIT;
            cs_sbuf_puts(&b, cs_html_stylesheet());
            return respond(rq, 200, "text/css; charset=utf-8", &b);
        }
        if (strcmp(url, "/static/cspark-ui.js") == 0) {
            cs_sbuf b = CS_SBUF_INIT;
            cs_sbuf_puts(&b, cs_html_script());
            return respond(rq, 200, "application/javascript; charset=utf-8", &b);
        }
        if (strcmp(url, "/") == 0)
            return s->opt.history ? history_listing(rq) : redirect(rq, 302, "/jobs/");
    }
    /* application pages: "/<page>/" live, "/history/<id>/<page>/" in history mode */
    const char *app_id = s->opt.live_app_id;
    char *hist_id = NULL;
    cs_sbuf base = CS_SBUF_INIT;
    const char *path = url;
    if (s->opt.history) {
        if (strncmp(url, "/history/", 9) != 0) return respond_text(rq, 404, "no such page");
        const char *id = url + 9;
        size_t n = strcspn(id, "/");
        hist_id = strndup(id, n);
        app_id = hist_id;
        path = id + n;
        cs_sbuf_puts(&base, "/history/");
        cs_sbuf_append(&base, id, n);
        if (*path == '\0') path = "/";
    }
    enum MHD_Result r;
    if (!app_id) {
        r = respond_text(rq, 404, "no such page");
    } else if (strcmp(path, "/") == 0) {
        cs_sbuf loc = CS_SBUF_INIT;
        cs_sbuf_printf(&loc, "%s/jobs/", cs_sbuf_str(&base));
        r = redirect(rq, 302, cs_sbuf_str(&loc));
        cs_sbuf_free(&loc);
    } else if (is_app_path(path) && path[strlen(path) - 1] != '/') {
        /* Spark's pages live at ".../"; keep the query string */
        cs_sbuf loc = CS_SBUF_INIT;
        cs_sbuf_printf(&loc, "%s%s/", cs_sbuf_str(&base), path);
        append_query(rq, &loc);
        r = redirect(rq, 302, cs_sbuf_str(&loc));
        cs_sbuf_free(&loc);
    } else if (is_app_path(path)) {
        r = app_page(rq, app_id, cs_sbuf_str(&base), path);
    } else {
        r = respond_text(rq, 404, "no such page");
    }
    free(hist_id);
    cs_sbuf_free(&base);
    return r;
}

static enum MHD_Result post_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data, uint64_t off,
                                 size_t size)
{
    (void)kind, (void)filename, (void)content_type, (void)transfer_encoding;
    request *rq = cls;
    char *dst = NULL;
    size_t cap = 0;
    if (strcmp(key, "id") == 0) {
        dst = rq->form_id;
        cap = sizeof rq->form_id;
    } else if (strcmp(key, "csrf") == 0) {
        dst = rq->form_csrf;
        cap = sizeof rq->form_csrf;
    }
    if (!dst) return MHD_YES;
    if (off + size >= cap) return MHD_NO; /* longer than any valid value */
    memcpy(dst + off, data, size);
    dst[off + size] = '\0';
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    ui_server *s = cls;
    request *rq = *con_cls;
    if (!rq) {
        rq = cs_xcalloc(1, sizeof *rq);
        rq->srv = s;
        rq->conn = conn;
        rq->method = method;
        *con_cls = rq;
        enum MHD_Result ret;
        if (refused(rq, &ret)) return ret;
        if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
            rq->pp = MHD_create_post_processor(conn, 1024, post_iter, rq);
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (rq->pp) MHD_post_process(rq->pp, upload_data, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    __atomic_add_fetch(&s->requests, 1, __ATOMIC_RELAXED);
    return route(rq, url);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)conn, (void)toe;
    request *rq = *con_cls;
    if (!rq) return;
    if (rq->pp) MHD_destroy_post_processor(rq->pp);
    free(rq->user);
    free(rq);
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    CS_DEBUG("ui", "libmicrohttpd=%s", cs_log_quote(msg));
}

/* ---- life cycle --------------------------------------------------------------------------- */

static void make_token(char out[33])
{
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        uint64_t x = (uint64_t)cs_now_ns() ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof raw; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            raw[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* Half of the open-file limit, raised to its hard limit first (as the JVM's MaxFDLimit), capped:
 * idle clients then take sockets the process can spare, never the serving threads. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 256;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t was = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) rl.rlim_cur = was;
    }
    rlim_t half = rl.rlim_cur / 2;
    if (half > CONNECTIONS_MAX) half = CONNECTIONS_MAX;
    if (half < 64) half = 64;
    return (unsigned)half;
}

ui_server *cs_ui_server_start(const ui_server_options *o, const ui_provider *p, const ui_hooks *h,
                              cs_error *err)
{
    ui_server *s = cs_xcalloc(1, sizeof *s);
    s->fd = -1;
    s->opt = *o;
    s->bind_host = o->bind_host ? cs_xstrdup(o->bind_host) : NULL;
    s->live_app_id = o->live_app_id ? cs_xstrdup(o->live_app_id) : NULL;
    s->metrics_namespace = o->metrics_namespace ? cs_xstrdup(o->metrics_namespace) : NULL;
    s->opt.bind_host = s->bind_host;
    s->opt.live_app_id = s->live_app_id;
    s->opt.metrics_namespace = s->metrics_namespace;
    s->history_dir = o->history_dir ? cs_xstrdup(o->history_dir) : NULL;
    s->opt.history_dir = s->history_dir;
    s->provider = *p;
    if (h) s->hooks = *h;
    s->access = o->access;
    if (!s->access) {
        cs_conf *empty = cs_conf_new();
        s->access = s->own_access = cs_ui_access_new(empty, o->history, err);
        cs_conf_free(empty);
        if (!s->access) goto fail;
    }
    make_token(s->csrf);
    int tries = o->port == 0 ? 1 : o->max_retries + 1, err_no = 0;
    for (int i = 0; i < tries && s->fd < 0; i++) {
        int port = o->port == 0 ? 0 : ((o->port + i - 1024) % (65536 - 1024)) + 1024;
        s->fd = listen_on(s->bind_host, port, &err_no);
        if (s->fd >= 0 || err_no != EADDRINUSE) break;
        if (i + 1 < tries)
            CS_WARN("ui",
                    "port=%d event=port_in_use Service '%s' could not bind on port %d. "
                    "Attempting port %d.",
                    port, o->history ? "HistoryServerUI" : "SparkUI", port,
                    ((o->port + i + 1 - 1024) % (65536 - 1024)) + 1024);
    }
    if (s->fd < 0) {
        cs_error_set(err, CS_EIO,
                     "cannot bind the UI on %s port %d%s (%s=%d, spark.port.maxRetries=%d): %s",
                     s->bind_host ? s->bind_host : cs_wildcard_address(), o->port,
                     tries > 1 ? " or the next ports" : "", o->port_key ? o->port_key : "port",
                     o->port, o->max_retries, strerror(err_no));
        goto fail;
    }
    s->port = bound_port(s->fd);
    unsigned threads = o->threads > 0 ? (unsigned)o->threads : 2;
    s->daemon = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_LISTEN_SOCKET, s->fd,
                                 MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_NOTIFY_COMPLETED,
                                 on_completed, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_IDLE_SECONDS,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CONNECTIONS_PER_IP,
                                 MHD_OPTION_CONNECTION_LIMIT, connection_limit(), MHD_OPTION_END);
    if (!s->daemon) {
        cs_error_set(err, CS_EIO, "cannot start the UI server on port %d", s->port);
        goto fail;
    }
    return s;
fail:
    if (s->fd >= 0) close(s->fd);
    cs_ui_access_free(s->own_access);
    free(s->bind_host);
    free(s->live_app_id);
    free(s->metrics_namespace);
    free(s->history_dir);
    free(s);
    return NULL;
}

int cs_ui_server_port(const ui_server *s)
{
    return s ? s->port : -1;
}

const char *cs_ui_server_csrf_token(const ui_server *s)
{
    return s ? s->csrf : NULL;
}

void cs_ui_server_stop(ui_server *s)
{
    if (!s) return;
    MHD_stop_daemon(s->daemon); /* waits for the pool's threads; closes the socket */
    cs_ui_access_free(s->own_access);
    free(s->bind_host);
    free(s->live_app_id);
    free(s->metrics_namespace);
    free(s->history_dir);
    free(s);
}
