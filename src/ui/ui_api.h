/* ui_api.h — the REST API of one application, /api/v1/applications/<id>/..., with Spark's paths,
 * query parameters and JSON field names and types (Spark 4's status/api/v1 classes): jobs,
 * jobs/<id>, stages, stages/<id>, stages/<id>/<attempt>, .../taskSummary, .../taskList,
 * executors, allexecutors, environment, storage/rdd, storage/rdd/<id>. As Spark's Jackson
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
} ui_api_req;

int cs_ui_api_app(const ui_api_req *r, cs_sbuf *out);

/* The ApplicationInfo object of an application (for /api/v1/applications); new reference. */
json_t *cs_ui_api_application_info(const char *id, const char *name, const char *user,
                                   const char *version, int64_t start_ms, int64_t end_ms,
                                   int64_t last_updated_ms, bool completed);

/* Spark's REST date format, "2026-11-24T20:10:00.123GMT", into buf (at least 32 bytes). */
void cs_ui_api_date(int64_t ms, char *buf, size_t cap);

/* Dumps j (stolen) into out the way every response is written (indented, keys in insertion
 * order). */
void cs_ui_api_dump(json_t *j, cs_sbuf *out);

#endif /* CSPARK_UI_API_H */
