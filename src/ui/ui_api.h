/* ui_api.h — the REST API of one application, /api/v1/applications/<id>/..., with Spark's paths,
 * query parameters and JSON field names and types (Spark 4's status/api/v1 classes): jobs,
 * jobs/<id>, stages, stages/<id>, stages/<id>/<attempt>, .../taskSummary, .../taskList,
 * executors, executors/<id>/threads, allexecutors, allmiscellaneousprocess, environment,
 * storage/rdd, storage/rdd/<id>, sql, sql/<executionId>. As Spark's Jackson
 * writer, an absent optional field is left out, dates are "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'", a
 * pair is a two-element array and a map keyed by number has string keys. The jobs and stages
 * lists take, besides Spark's parameters, optional offset and length (as taskList's) so a client
 * can page through an application of many stages; without them the whole list is answered.
 *
 * Every function is given the store locked by the caller (ui_server.c) and builds the response
 * into `out` (pretty-printed JSON, as Spark's) or an error text; it returns the HTTP status.
 */
#ifndef CSPARK_UI_API_H
#define CSPARK_UI_API_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/strutil.h"
#include "ui/app_status.h"

/* Query parameters of the request: the value of `name` (the first if repeated) or NULL; for
 * repeated parameters (status=a&status=b), fn is called with index 0, 1, ... until NULL. */
typedef const char *(*ui_arg_fn)(void *arg, const char *name, int index);

typedef struct ui_api_req {
    const ui_store *st;  /* locked */
    const char *subpath; /* after /api/v1/applications/<id>: "", "/jobs", "/stages/1/0", ... */
    ui_arg_fn arg;
    void *arg_ctx;
    int64_t now_ms;
    int64_t last_updated_ms; /* for ApplicationAttemptInfo.lastUpdated (history: the log's
                                mtime); 0: the application's last event time */
    const char *log_base;    /* absolute URL of the application's pages when the server serves
                                executor logs (executorLogs links), else NULL */
    bool live;               /* the driver's own UI (thread dumps), not the history server */
} ui_api_req;

int cs_ui_api_app(const ui_api_req *r, cs_sbuf *out);

/* /sql and /sql/<executionId> (ui_api_sql.c); rest is the path after "sql". */
int cs_ui_api_sql(const ui_api_req *r, const char *rest, cs_sbuf *out);

/* /executors/<executor_id>/threads and /allmiscellaneousprocess (ui_api_process.c). */
int cs_ui_api_threads(const ui_api_req *r, const char *executor_id, cs_sbuf *out);
int cs_ui_api_misc_processes(const ui_api_req *r, cs_sbuf *out);

/* The ApplicationInfo object of an application (for /api/v1/applications); new reference. */
json_t *cs_ui_api_application_info(const char *id, const char *name, const char *user,
                                   const char *version, int64_t start_ms, int64_t end_ms,
                                   int64_t last_updated_ms, bool completed);

/* /applications from the provider's listing with Spark's status, minDate, maxDate, minEndDate,
 * maxEndDate and limit filters (ui_api_apps.c); returns 200, or 400 with Spark's message. */
struct ui_app_entry;
int cs_ui_api_app_list(const struct ui_app_entry *apps, size_t n, ui_arg_fn arg, void *ctx,
                       int64_t now_ms, cs_sbuf *out);

/* Spark's SimpleDateParam: "yyyy-MM-dd'T'HH:mm:ss.SSSz", else "yyyy-MM-dd" (GMT), into ms since
 * the epoch; false when neither reads. */
bool cs_ui_api_parse_date(const char *text, int64_t *ms);

/* Appends a zip of the event log at log_path (a file, or a rolled log's directory) to out, as
 * Spark's /logs; log_path NULL: an empty zip. False on an I/O error. */
bool cs_ui_api_event_log_zip(const char *log_path, cs_sbuf *out);

/* Spark's REST date format, "2026-11-24T20:10:00.123GMT", into buf (at least 32 bytes). */
void cs_ui_api_date(int64_t ms, char *buf, size_t cap);

/* Dumps j (stolen) into out the way every response is written (indented, keys in insertion
 * order). */
void cs_ui_api_dump(json_t *j, cs_sbuf *out);

#endif /* CSPARK_UI_API_H */
