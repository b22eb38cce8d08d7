/*
 * connect_service.h — the Spark Connect service (spark.connect.SparkConnectService, as Spark's
 * SparkConnectService): ExecutePlan (server-streaming, reattachable), ReattachExecute,
 * ReleaseExecute, AnalyzePlan, Config, Interrupt, ReleaseSession and FetchErrorDetails over the
 * gRPC server of grpc_server.h, with one cs_sql_session per client session (session_id + user)
 * over the application's one context. docs/connect.md describes what each RPC answers.
 *
 * Called by cspark-connect-server (programs/connect_main.c) from the application's entry: start
 * it, then hand the entry's thread to cs_connect_service_run, which gives each session's work
 * (ExecutePlan, AnalyzePlan, Config) a thread of its own — different sessions' at once, one
 * session's in order; statements enter the context one at a time, as the context runs its jobs
 * — until the process is asked to stop (SIGINT/SIGTERM: common/shutdown.h) or
 * cs_connect_service_stop is called, then free it. cspark-submit's Python applications
 * (programs/python_app.c) run it the same way, stopping it when the program ends.
 *
 * Ownership: the service borrows sc (it outlives the service) and copies the options' strings.
 */
#ifndef CSPARK_CONNECT_CONNECT_SERVICE_H
#define CSPARK_CONNECT_CONNECT_SERVICE_H

#include <stddef.h>

#include "common/conf.h"
#include "common/err.h"
#include "cspark.h"

typedef struct cs_connect_service cs_connect_service;

typedef struct cs_connect_service_opts {
    cspark_context *sc;
    const char *address; /* spark.connect.grpc.binding.address */
    int port;            /* spark.connect.grpc.binding.port (0: a free one) */
    size_t max_message;  /* spark.connect.grpc.maxInboundMessageSize */
    size_t max_batch;    /* spark.connect.grpc.arrow.maxBatchSize: results cut below it (0: 4m) */
    const char *token;   /* spark.connect.authenticate.token, or NULL: no authentication */
    /* spark.cspark.connect.tls.certFile / keyFile when spark.cspark.connect.tls.enabled (PEM
     * files, grpc_tls.h), else NULL: plaintext */
    const char *tls_cert_file, *tls_key_file;
    /* the application's conf (borrowed during cs_connect_service_start; NULL: Spark's defaults),
     * for the session manager's keys: spark.connect.session.manager.defaultSessionTimeout,
     * .maintenanceInterval and .closedSessionsTombstonesSize (connect_sessions.c) */
    const cs_conf *conf;
    /* read from conf by cs_connect_service_start */
    int64_t session_timeout_ms;      /* -1: never */
    int64_t maintenance_interval_ms; /* > 0 */
    size_t closed_sessions_kept;
} cs_connect_service_opts;

/* Listens (the port is bound when this returns). NULL + err naming the address, or the session
 * manager's key whose value is not valid, on failure. */
cs_connect_service *cs_connect_service_start(const cs_connect_service_opts *opts, cs_error *err);
int cs_connect_service_port(const cs_connect_service *svc);
/* Dispatches the queued work to threads until a stop is requested; then interrupts the running
 * operations, waits for their threads, stops listening and answers what is left with
 * UNAVAILABLE. */
void cs_connect_service_run(cs_connect_service *svc);
/* Asks cs_connect_service_run to end as a stop request would, for this service alone (any
 * thread: cspark-submit's Python application ended, programs/python_app.c). */
void cs_connect_service_stop(cs_connect_service *svc);
void cs_connect_service_free(cs_connect_service *svc);

#endif /* CSPARK_CONNECT_CONNECT_SERVICE_H */
