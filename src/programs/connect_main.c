/*
 * connect_main.c — cspark_connect_main, the `cspark-connect-server` program (its main() is in
 * src/programs/cspark_connect_server.c), as Spark's start-connect-server.sh (SparkConnectServer):
 *
 *   cspark-connect-server [cspark-submit options]       e.g. --master local[4] --conf k=v
 *
 * Every option is cspark-submit's (parsed by submit_args.c into the application's conf). The
 * server reads:
 *   spark.connect.grpc.binding.port      (15002, as Spark's; 0 picks a free port)
 *   spark.connect.grpc.binding.address   (127.0.0.1; Spark binds every interface)
 *   spark.connect.grpc.maxInboundMessageSize (128m)
 *   spark.connect.grpc.arrow.maxBatchSize (4m: result batches are cut below it, as Spark's)
 *   spark.connect.authenticate.token     (a bearer token every call must carry; required when the
 *                                         address is not a loopback one)
 *   spark.cspark.connect.tls.enabled     (false; true: TLS with the PEM files below, clients use
 *   spark.cspark.connect.tls.certFile     sc://host:port/;use_ssl=true; a missing, unreadable or
 *   spark.cspark.connect.tls.keyFile      mismatched file is refused here, before the driver)
 *   spark.connect.session.manager.defaultSessionTimeout (60m), .maintenanceInterval (30s),
 *   spark.connect.session.manager.closedSessionsTombstonesSize (1000): idle sessions closed,
 *                                         as Spark's (read by the service: connect_sessions.c)
 * The application is libcspark itself, as for cspark-sql (executors, and executor pods from the
 * image, run their own: cspark.app.resource=spark-internal): cs_app_run loads it and calls
 * cspark_connect_app with the server's settings, so the driver runs as any cspark application
 * does (context, executors, UI, event log). With a k8s:// master it runs in client mode, on the
 * user's machine or in a pod (deploy/connect-server.yaml). The entry starts the service, prints
 * "Spark Connect server started at: <address>:<port>" on stderr, and serves until SIGINT or
 * SIGTERM, which the application's signal watcher turns into a stop request: the server stops
 * listening, ends its calls, and the context stops.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/app.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/app_file.h"
#include "common/conf.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/sigpipe.h"
#include "connect/connect_service.h"
#include "connect/grpc_tls.h"
#include "programs/program_mains.h"
#include "submit/submit_args.h"

#define PROGRAM "cspark-connect-server"

/* The application's entry: argv = [library, port, address, max message bytes, max batch
 * bytes, TLS certificate file, TLS key file] (the files empty: plaintext). */
CS_PROGRAM_MAIN int cspark_connect_app(cspark_context *sc, int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, PROGRAM ": cspark_connect_app expects its settings\n");
        return 1;
    }
    cs_connect_service_opts o = {.sc = sc,
                                 .port = atoi(argv[1]),
                                 .address = argv[2],
                                 .max_message = (size_t)strtoull(argv[3], NULL, 10),
                                 .max_batch = (size_t)strtoull(argv[4], NULL, 10),
                                 .token = cspark_conf_get(sc, "spark.connect.authenticate.token"),
                                 .tls_cert_file = *argv[5] ? argv[5] : NULL,
                                 .tls_key_file = *argv[6] ? argv[6] : NULL,
                                 .conf = cs_app_conf(sc)};
    cs_error err;
    cs_error_clear(&err);
    cs_connect_service *svc = cs_connect_service_start(&o, &err);
    if (!svc) {
        fprintf(stderr, PROGRAM ": %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "Spark Connect server started at: %s:%d\n", o.address,
            cs_connect_service_port(svc));
    fflush(stderr);
    cs_connect_service_run(svc);
    cs_connect_service_free(svc);
    return 0;
}

static int library_path(char *buf, size_t cap)
{
    Dl_info info;
    if (!dladdr((void *)cspark_connect_app, &info) || !info.dli_fname) return -1;
    if (!realpath(info.dli_fname, buf)) snprintf(buf, cap, "%s", info.dli_fname);
    return 0;
}

static bool loopback(const char *address)
{
    return strncmp(address, "127.", 4) == 0 || strcmp(address, "::1") == 0 ||
           strcmp(address, "localhost") == 0;
}

static int fail(const cs_error *err)
{
    cs_log_user_error(PROGRAM, "%s", err->msg);
    return 1;
}

static void usage(FILE *f)
{
    fputs("Usage: cspark-connect-server [options]\n"
          "\n"
          "Serves the Spark Connect protocol (sc://host:15002) on cspark. The server's settings\n"
          "are conf keys: spark.connect.grpc.binding.port, spark.connect.grpc.binding.address,\n"
          "spark.connect.authenticate.token, spark.connect.grpc.maxInboundMessageSize,\n"
          "spark.connect.grpc.arrow.maxBatchSize, spark.cspark.connect.tls.enabled,\n"
          "spark.cspark.connect.tls.certFile, spark.cspark.connect.tls.keyFile.\n"
          "\n"
          "Options (cspark-submit's):\n",
          f);
    cs_submit_usage(f);
}

int cspark_connect_main(int argc, char **argv)
{
    cs_sigpipe_make_harmless();
    submit_args a;
    memset(&a, 0, sizeof a);
    cs_conf *conf = NULL;
    cs_error err;
    cs_error_clear(&err);
    int status = 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    if (cs_submit_args_parse(argc, argv, &a, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    if (a.version) {
        printf(PROGRAM ": the Spark Connect server on cspark (Spark 4.0.1's protocol)\n");
        status = 0;
        goto out;
    }
    if (a.app || a.kill || a.status) {
        fprintf(stderr,
                PROGRAM ": unexpected argument '%s' (the server takes options only; see "
                        "--help)\n",
                a.app ? a.app : (a.kill ? "--kill" : "--status"));
        goto out;
    }
    const char *used_props = NULL;
    cs_master master;
    if (cs_submit_build_conf(&a, NULL, &conf, &used_props, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    int vrc = cs_submit_validate(conf, &master, &err);
    if (a.verbose) cs_submit_print_verbose(stderr, &a, conf, used_props);
    if (vrc != CS_OK) {
        status = fail(&err);
        goto out;
    }
    const char *deploy = cs_conf_get(conf, "spark.submit.deployMode");
    if (deploy && strcmp(deploy, "cluster") == 0) {
        fprintf(stderr, PROGRAM ": cluster deploy mode is not applicable to the Spark Connect "
                                "server (its driver is this process)\n");
        goto out;
    }
    int64_t port = 0, max_message = 0, max_batch = 0;
    if (cs_conf_entry_int(conf, "spark.connect.grpc.binding.port", &port, &err) != CS_OK ||
        cs_conf_entry_size(conf, "spark.connect.grpc.maxInboundMessageSize", &max_message, &err) !=
            CS_OK ||
        cs_conf_entry_size(conf, "spark.connect.grpc.arrow.maxBatchSize", &max_batch, &err) !=
            CS_OK) {
        status = fail(&err);
        goto out;
    }
    const char *address = cs_conf_entry_string(conf, "spark.connect.grpc.binding.address");
    const char *token = cs_conf_get(conf, "spark.connect.authenticate.token");
    if (!loopback(address) && (!token || !*token)) {
        fprintf(stderr,
                PROGRAM ": spark.connect.grpc.binding.address '%s' is beyond loopback: set "
                        "spark.connect.authenticate.token to the bearer token clients must "
                        "send (sc://host:port/;token=...)\n",
                address);
        goto out;
    }
    bool tls = false;
    if (cs_conf_entry_bool(conf, "spark.cspark.connect.tls.enabled", &tls, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    const char *cert = tls ? cs_conf_entry_string(conf, "spark.cspark.connect.tls.certFile") : NULL;
    const char *key = tls ? cs_conf_entry_string(conf, "spark.cspark.connect.tls.keyFile") : NULL;
    if (tls) { /* the files checked now: one line and no driver started when they are wrong */
        cs_grpc_tls *check = cs_grpc_tls_new(cert, key, &err);
        if (!check) {
            status = fail(&err);
            goto out;
        }
        cs_grpc_tls_free(check);
    }
    /* the application is libcspark itself, which executors (and executor pods, from the image)
     * already run: nothing of the driver's is shipped to them */
    cs_conf_set(conf, "cspark.app.resource", CS_APP_SPARK_INTERNAL);
    if (master.kind == MASTER_K8S && cs_k8s_executor_check_conf(conf, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    const char *lvl = cs_conf_get(conf, "cspark.log.level");
    if (!lvl) lvl = getenv("CSPARK_LOG_LEVEL");
    cs_log_level l;
    cs_log_set_level(lvl && cs_log_parse_level(lvl, &l) == CS_OK ? l : CS_LOG_WARN);
    if (!lvl) cs_conf_set(conf, "cspark.log.level", "WARN");
    char lib[4096];
    if (library_path(lib, sizeof lib) < 0) {
        fprintf(stderr, PROGRAM ": cannot locate libcspark (dladdr failed)\n");
        goto out;
    }
    char port_text[24], max_text[24], batch_text[24];
    snprintf(port_text, sizeof port_text, "%lld", (long long)port);
    snprintf(max_text, sizeof max_text, "%lld", (long long)max_message);
    snprintf(batch_text, sizeof batch_text, "%lld", (long long)max_batch);
    char *app_argv[] = {lib,
                        port_text,
                        (char *)address,
                        max_text,
                        batch_text,
                        tls ? (char *)cert : "",
                        tls ? (char *)key : "",
                        NULL};
    status = cs_app_run(conf, lib, "cspark_connect_app", 7, app_argv);
out:
    cs_conf_free(conf);
    cs_submit_args_free(&a);
    return status;
}
