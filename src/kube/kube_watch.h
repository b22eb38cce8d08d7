/* kube_watch.h — list-then-watch of one resource kind, resumed across disconnects.
 *
 * cs_kube_watch_start LISTs the resource (delivered as one "RELIST" call with the whole list),
 * then watches from the list's resourceVersion with allowWatchBookmarks=true on its own thread
 * and its own connection. Events are delivered in order as "ADDED", "MODIFIED", "DELETED"
 * (obj = the object). When the stream ends (disconnect, server timeout, error) the watch resumes
 * from the last resourceVersion it saw (events and bookmarks advance it) after a backoff
 * (100 ms doubling up to 5 s, reset by any event); when that version is too old (HTTP 410 or an
 * ERROR event with code 410) it LISTs again and delivers "RELIST" before watching on, so a
 * consumer that treats RELIST as "replace your whole view" never misses a change.
 * Used by the submit client's status watcher and the driver's executor-pod snapshot source.
 *
 * Threads: the first RELIST is delivered on the calling thread before cs_kube_watch_start returns;
 * every later call comes from the watch thread, one at a time. fn must not call cs_kube_watch_stop
 * on its own watch. cs_kube_watch_stop interrupts the transfer and returns promptly.
 *
 * Ownership: the client is borrowed and must outlive the watch. obj is borrowed for the duration
 * of the call (json_incref to keep it). cs_kube_watch_stop joins the thread and frees the watch.
 */
#ifndef CSPARK_KUBE_WATCH_H
#define CSPARK_KUBE_WATCH_H

#include <jansson.h>
#include <stdint.h>

#include "common/err.h"
#include "kube/kube_client.h"

typedef struct kube_watch kube_watch;

typedef void (*kube_watch_fn)(void *arg, const char *type, const json_t *obj);

/* Returns NULL and fills err when the first LIST fails (after the client's retries). */
kube_watch *cs_kube_watch_start(kube_client *c, const char *resource, const char *ns,
                                const char *label_selector, kube_watch_fn fn, void *arg,
                                cs_error *err);
/* The same with a field selector too (e.g. "metadata.name=spark-pi-driver" to follow one pod);
 * either selector may be NULL. */
kube_watch *cs_kube_watch_start_sel(kube_client *c, const char *resource, const char *ns,
                                    const char *label_selector, const char *field_selector,
                                    kube_watch_fn fn, void *arg, cs_error *err);
void cs_kube_watch_stop(kube_watch *w);

/* Counters for tests and metrics: watch connections opened, and lists made (initial included). */
int64_t cs_kube_watch_connects(const kube_watch *w);
int64_t cs_kube_watch_relists(const kube_watch *w);

#endif /* CSPARK_KUBE_WATCH_H */
