/* ui_server.h — the HTTP server of the web UI, the REST API and the metrics (libmicrohttpd):
 * the driver's live UI on spark.ui.port (4040) and the history server's on 18080.
 *
 * The server knows applications only through a provider: the live driver's has one (its own
 * store, ui_live.c), the history server's lists every event log and loads a log's store on
 * demand (history/history_provider.c). Routes:
 *   <base>/jobs/, /jobs/job/?id=, /stages/, /stages/stage/?id=&attempt=, /stages/stage/task/,
 *   /storage/, /environment/, /executors/, /logPage/?executorId=&logType= (live, with a log
 *   reader), POST /jobs/job/kill/ and /stages/stage/kill/ (live, spark.ui.killEnabled, with the
 *   page's CSRF token and a same-origin Origin/Referer);
 *   base is "" in live mode and "/history/<app id>" in history mode, where "/" lists the
 *   applications;
 *   /api/v1/applications[/<id>[/...]] and /api/v1/version (ui_api.h),
 * /api/v1/applications/<id>/logs (the event log as a zip; ui_api_apps.c); /metrics/prometheus,
 * /metrics/json and /metrics/executors/prometheus (live; ui_metrics.h); /static/cspark-ui.css and
 * /static/cspark-ui.js. Every request first passes ui_access.h: a Host it does not serve gets 421,
 * missing or wrong credentials 401 (when a users file is set), a user without view rights 403 (in
 * history mode, checked against the application asked for), a kill without modify rights 403. Slow
 * clients: connections are handled by epoll on a pool of threads, so a client that sends or reads
 * slowly holds a socket, never a thread; each is closed after CONNECTION_IDLE_SECONDS without
 * progress, one address may hold at most CONNECTIONS_PER_IP, and the server accepts up to half of
 * the open-file limit (raised to its hard limit, as the JVM does) so that a thousand idle
 * clients leave /metrics and the pages answering.
 * Requests are served on the server's own threads; a page is rendered with the application's
 * store locked, so the listener thread waits for at most one page at a time and the scheduler,
 * which only posts to the bus, never waits.
 *
 * Ownership: cs_ui_server_start copies the options; the provider and hooks are borrowed until
 * cs_ui_server_stop returns (which waits for requests in flight).
 */
#ifndef CSPARK_UI_SERVER_H
#define CSPARK_UI_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"
#include "ui/app_status.h"
#include "ui/ui_access.h"

/* One application as listings show it. */
typedef struct ui_app_entry {
    char *id, *name, *user, *version;
    char *log_path; /* history: the event log; NULL live */
    int64_t start_ms, end_ms, last_updated_ms;
    bool completed;
} ui_app_entry;

void cs_ui_app_entries_free(ui_app_entry *e, size_t n);

typedef struct ui_provider {
    void *arg;
    /* Every application, newest first: a malloc'd array (cs_ui_app_entries_free). Any thread. */
    size_t (*list)(void *arg, ui_app_entry **out);
    /* The store of app_id, NULL when unknown; valid until release. *last_updated_ms: when the
     * application last changed (0: unknown). Any thread. */
    ui_store *(*acquire)(void *arg, const char *app_id, int64_t *last_updated_ms);
    void (*release)(void *arg, ui_store *st);
} ui_provider;

/* What only the live driver can do; every member may be NULL. Called on server threads. */
typedef struct ui_hooks {
    void *arg;
    void (*kill_job)(void *arg, int job_id);
    void (*kill_stage)(void *arg, int stage_id);
    /* Appends up to len bytes of an executor's log ("stdout"/"stderr") from offset (a negative
     * offset counts from the end); returns the log's total size, or -1 when there is none. */
    int64_t (*read_log)(void *arg, const char *executor_id, const char *type, int64_t offset,
                        size_t len, cs_sbuf *out, int64_t *start);
    /* Events the listener bus dropped so far. */
    int64_t (*dropped_events)(void *arg);
} ui_hooks;

typedef struct ui_server_options {
    const char *bind_host;         /* address to bind: NULL or "0.0.0.0" = every IPv4 address */
    int port;                      /* 0: any free port, else 1024..65535 (as Spark) */
    int max_retries;               /* next ports tried when taken (spark.port.maxRetries) */
    const char *port_key;          /* the key naming the port, for errors ("spark.ui.port") */
    bool history;                  /* history server: "/" lists applications, base /history/<id> */
    bool kill_enabled;             /* spark.ui.killEnabled */
    const char *live_app_id;       /* live mode: the application */
    const char *metrics_namespace; /* spark.metrics.namespace, or NULL: the application id */
    int threads;                   /* serving threads (>= 1) */
    const char *history_dir;       /* history mode: the log directory, shown on the listing */
    const ui_access *access;       /* Host check, login, ACLs (borrowed); NULL: the defaults of an
                                    * empty conf (Host check only) */
} ui_server_options;

typedef struct ui_server ui_server;

/* Binds (trying port, port+1, ... port+max_retries as Spark's startServiceOnPort) and starts
 * serving. NULL with err naming the key and the ports tried when nothing could be bound. */
ui_server *cs_ui_server_start(const ui_server_options *o, const ui_provider *p, const ui_hooks *h,
                              cs_error *err);
/* The port bound. */
int cs_ui_server_port(const ui_server *s);
/* The CSRF token kill forms carry (for tests). Borrowed. */
const char *cs_ui_server_csrf_token(const ui_server *s);
/* Stops serving (waits for requests in flight) and frees the server. NULL is a no-op. */
void cs_ui_server_stop(ui_server *s);

#endif /* CSPARK_UI_SERVER_H */
