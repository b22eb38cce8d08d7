/* ui_live.h — the driver's live web UI: its status store fed by the listener bus and the HTTP
 * server on spark.ui.port.
 *
 * cs_ui_live_start reads the UI's settings (spark.ui.enabled default true, spark.ui.port 4040,
 * spark.port.maxRetries 16, the address of cs_ui_live_bind_host, spark.ui.killEnabled true,
 * the access settings of ui_access.h (spark.acls.enable, *.acls, cspark.ui.auth.usersFile,
 * cspark.ui.allowedHosts),
 * spark.metrics.namespace, spark.ui.retained*) and starts the server, logging where it listens
 * as Spark does; cs_ui_live_attach then adds the store to the listener bus. The context starts
 * the UI before the bus (so a port that cannot be bound leaves no event log behind) and attaches
 * it before the first event is posted; at the end it calls
 * cs_ui_live_stop before the scheduler goes (so no kill request can reach a freed scheduler) and
 * cs_ui_live_free once the bus has stopped delivering (cs_listener_bus_free).
 *
 * Ownership: the returned object owns the store and the server; hooks are copied and their arg
 * borrowed until cs_ui_live_stop.
 */
#ifndef CSPARK_UI_LIVE_H
#define CSPARK_UI_LIVE_H

#include "common/conf.h"
#include "common/err.h"
#include "sched/listener.h"
#include "ui/ui_server.h"

typedef struct ui_live ui_live;

/* The address the UI binds (NULL: every address): spark.driver.bindAddress when set, except in a
 * driver pod where it is the pod's IP (SPARK_DRIVER_BIND_ADDRESS) and every address is bound
 * instead, so that kubectl port-forward (which connects to localhost inside the pod) reaches the
 * UI as well as the driver Service does; else SPARK_LOCAL_IP; else every address in a pod
 * (KUBERNETES_SERVICE_HOST set), 127.0.0.1 outside one. Borrowed from conf or the environment. */
const char *cs_ui_live_bind_host(const cs_conf *conf);

/* *out NULL (and 0 returned) when spark.ui.enabled=false. A bad setting or a port that cannot be
 * bound: a negative code with err naming the key. Binds before anything else of the application
 * exists, so a refusal leaves nothing behind; pages show an empty application until attached. */
int cs_ui_live_start(const cs_conf *conf, const char *app_id, const ui_hooks *hooks, ui_live **out,
                     cs_error *err);
/* Adds the UI's store to the bus as a listener: before the bus's first post. NULL ui: no-op. */
void cs_ui_live_attach(ui_live *ui, listener_bus *bus);
/* The port the UI listens on. */
int cs_ui_live_port(const ui_live *ui);
/* "http://<spark.driver.host or this host's name>:<port>". Borrowed. */
const char *cs_ui_live_url(const ui_live *ui);
/* The store (for tests). Borrowed. */
ui_store *cs_ui_live_store(ui_live *ui);
/* Stops serving (waits for requests in flight: no hook is called afterwards). NULL: no-op. */
void cs_ui_live_stop(ui_live *ui);
/* Frees the store and everything; after cs_ui_live_stop and after the bus stopped delivering.
 * NULL: no-op. */
void cs_ui_live_free(ui_live *ui);

/* Reads a log file for ui_hooks.read_log: appends up to len bytes from offset (negative: from
 * the end) to out, sets *start to where they begin and returns the file's size; -1 when the
 * file cannot be read. */
int64_t cs_ui_read_log_file(const char *path, int64_t offset, size_t len, cs_sbuf *out,
                            int64_t *start);
/* The same over a log fetched whole (size bytes of text): returns size. */
int64_t cs_ui_slice_log(const char *text, size_t size, int64_t offset, size_t len, cs_sbuf *out,
                        int64_t *start);
/* How much of the end of a fetched log (a Kubernetes executor's container log) the UI asks for. */
#define UI_FETCHED_LOG_MAX ((size_t)4 << 20)

#endif /* CSPARK_UI_LIVE_H */
