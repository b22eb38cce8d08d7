/*
 * executor_main.c — cspark_executor_main, the `cspark-executor` program (Spark's
 * CoarseGrainedExecutorBackend command line; its main() is in src/programs/cspark_executor.c):
 * options --driver-url --executor-id --cores --app-id --hostname, each falling back to the
 * environment Spark's Kubernetes and standalone launchers set (SPARK_DRIVER_URL, SPARK_EXECUTOR_ID,
 * SPARK_EXECUTOR_CORES, SPARK_APPLICATION_ID, SPARK_EXECUTOR_POD_IP, SPARK_EXECUTOR_MEMORY). The
 * executor id EXECID (the pods of spark.kubernetes.allocation.pods.allocator=statefulset share
 * one template) becomes <ordinal + 1>, the ordinal ending the pod's name (--podName or
 * SPARK_EXECUTOR_POD_NAME: <set>-<ordinal>), as the driver counts them (k8s_statefulset.c). The
 * authentication secret comes only from the environment
 * (_SPARK_AUTH_SECRET), never from the command line. Runs cs_executor_run (src/exec/executor.c),
 * which takes SIGTERM/SIGPWR itself (graceful decommissioning when spark.decommission.enabled),
 * so nothing here may start a thread or change signal dispositions before it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "programs/program_mains.h"
#include "common/conf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/sigpipe.h"
#include "exec/executor.h"
#include "common/localaddr.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cspark-executor --driver-url spark://CoarseGrainedScheduler@HOST:PORT\n"
            "                       --executor-id ID --cores N --app-id APP --hostname HOST\n"
            "Each option falls back to SPARK_DRIVER_URL, SPARK_EXECUTOR_ID, SPARK_EXECUTOR_CORES,\n"
            "SPARK_APPLICATION_ID, SPARK_EXECUTOR_POD_IP; memory from SPARK_EXECUTOR_MEMORY;\n"
            "the spark.authenticate secret from _SPARK_AUTH_SECRET.\n");
}

static const char *env_or(const char *v, const char *name)
{
    if (v) return v;
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

int cspark_executor_main(int argc, char **argv)
{
    cs_sigpipe_make_harmless();
    static const struct option opts[] = {{"driver-url", required_argument, 0, 'd'},
                                         {"executor-id", required_argument, 0, 'e'},
                                         {"cores", required_argument, 0, 'c'},
                                         {"app-id", required_argument, 0, 'a'},
                                         {"hostname", required_argument, 0, 'n'},
                                         {"resourceProfileId", required_argument, 0, 'r'},
                                         {"podName", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *driver = NULL, *id = NULL, *cores_s = NULL, *app = NULL, *host = NULL;
    const char *pod = NULL;
    char ordinal_id[16];
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            driver = optarg;
            break;
        case 'e':
            id = optarg;
            break;
        case 'c':
            cores_s = optarg;
            break;
        case 'a':
            app = optarg;
            break;
        case 'n':
            host = optarg;
            break;
        case 'p':
            pod = optarg;
            break;
        case 'r':
            break; /* accepted for compatibility with Spark's launcher */
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cspark-executor: unexpected argument '%s'\n", argv[optind]);
        return 1;
    }
    driver = env_or(driver, "SPARK_DRIVER_URL");
    id = env_or(id, "SPARK_EXECUTOR_ID");
    cores_s = env_or(cores_s, "SPARK_EXECUTOR_CORES");
    app = env_or(app, "SPARK_APPLICATION_ID");
    host = env_or(host, "SPARK_EXECUTOR_POD_IP");
    if (!host) host = cs_loopback_address();
    pod = env_or(pod, "SPARK_EXECUTOR_POD_NAME");
    if (id && !strcmp(id, "EXECID")) {
        const char *dash = pod ? strrchr(pod, '-') : NULL;
        char *end = NULL;
        long ordinal = dash && dash[1] ? strtol(dash + 1, &end, 10) : -1;
        if (ordinal < 0 || ordinal >= 1000000000 || !end || *end) {
            fprintf(stderr,
                    "cspark-executor: executor id EXECID needs a pod name ending in -<ordinal> "
                    "(--podName or SPARK_EXECUTOR_POD_NAME), got '%s'\n",
                    pod ? pod : "");
            return 1;
        }
        snprintf(ordinal_id, sizeof ordinal_id, "%ld", ordinal + 1);
        id = ordinal_id;
    }
    if (!driver || !id || !app) {
        fprintf(stderr, "cspark-executor: missing %s (option or environment)\n",
                !driver ? "--driver-url (SPARK_DRIVER_URL)"
                : !id   ? "--executor-id (SPARK_EXECUTOR_ID)"
                        : "--app-id (SPARK_APPLICATION_ID)");
        return 1;
    }
    cs_error err;
    int64_t cores = 1, memory = 0;
    if (cores_s && (cs_conf_parse_int("--cores", cores_s, &cores, &err) < 0 || cores < 1)) {
        fprintf(stderr,
                "cspark-executor: invalid value for --cores: '%s' (expected a positive integer)\n",
                cores_s);
        return 1;
    }
    const char *mem = getenv("SPARK_EXECUTOR_MEMORY");
    if (mem && *mem &&
        cs_conf_parse_size("SPARK_EXECUTOR_MEMORY", mem, CS_MiB, &memory, &err) < 0) {
        fprintf(stderr, "cspark-executor: %s\n", err.msg);
        return 1;
    }
    const char *lvl = getenv("CSPARK_LOG_LEVEL");
    cs_log_level level;
    if (lvl && cs_log_parse_level(lvl, &level) == 0) cs_log_set_level(level);

    char *secret = NULL;
    const char *s = getenv("_SPARK_AUTH_SECRET");
    if (s && *s) secret = cs_xstrdup(s);
    executor_options o = {.driver_url = driver,
                          .executor_id = id,
                          .hostname = host,
                          .app_id = app,
                          .cores = (int)cores,
                          .memory_bytes = memory,
                          .secret = secret};
    int rc = cs_executor_run(&o);
    free(secret);
    return rc;
}
