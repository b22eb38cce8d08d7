/* kubesim watch streams: one JSON event per line ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR",
 * "object":{...}}) over a chunked HTTP response, replayed from the store's bounded event history.
 * Handles resourceVersion replay (or synthetic ADDED events for the current state when none is
 * given), allowWatchBookmarks, timeoutSeconds, 410 Expired as an ERROR event, Table output and the
 * dropWatchAfterMs fault (a watch older than that is cut abruptly; read each slice, so a fault set
 * at runtime also cuts watches that are already open). Called by server.c, which owns the MHD
 * connection. */
#ifndef KUBESIM_WATCH_H
#define KUBESIM_WATCH_H

#include "faults.h"
#include "metrics.h"
#include "selector.h"
#include "store.h"

#include <microhttpd.h>

typedef struct ks_watch_params {
    ks_store *store;
    ks_metrics *metrics;  /* may be NULL */
    const char *resource; /* "pods" */
    const char *ns;       /* NULL = all namespaces */
    ks_selector *sel;     /* stolen (freed with the stream); may be NULL */
    const char *rv;       /* resourceVersion parameter or NULL */
    int timeout_s;        /* 0 = default (30 min), negative = end at once */
    int bookmarks;        /* allowWatchBookmarks */
    int send_initial;     /* sendInitialEvents=true */
    int table;            /* Table output */
    const char *include;  /* includeObject for Table output */
    int bookmark_ms;      /* bookmark period */
    ks_faults
        *faults;   /* dropWatchAfterMs is read while the watch runs, so it also cuts open watches */
    int *stopping; /* server shutdown flag (atomic access) */
    int fd;        /* client socket (to notice disconnects), -1 if unknown */
} ks_watch_params;

/* New MHD response streaming the watch (all strings copied). NULL on allocation failure. */
struct MHD_Response *ks_watch_response(const ks_watch_params *p);

#endif
