/* operator_main.c — cspark_operator_main, the `cspark-operator` program (its main() is in
 * src/programs/cspark_operator.c): the controller of SparkApplication objects (src/operator).
 *
 *   cspark-operator --master k8s://URL [--namespace NS] [--lease-namespace NS]
 *                   [--lease-duration SECONDS] [--conf KEY=VALUE]...
 *
 * --master is the API server, reached with the kubeconfig's credentials or, in a pod, its service
 * account's (kube/kube_config.h), and is the master every driver it submits is given. --namespace
 * limits it to one namespace's applications (default: all). The Lease `cspark-operator` lives in
 * --lease-namespace (default: the client's namespace); --lease-duration (15) is how long a dead
 * leader keeps it. The Lease's holder identity is $POD_NAME (the Deployment sets it) or the host
 * name, with the process id. --conf sets the operator's own API client
 * (cspark.kubernetes.client.qps, .burst, ...; kube/kube_client.h). Runs until SIGINT or SIGTERM.
 * The drivers' settings come from $SPARK_CONF_DIR/spark-defaults.conf, then each application's
 * spec. A user error is one line on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/sigpipe.h"
#include "operator/operator.h"
#include "programs/program_mains.h"

static const char usage[] =
    "usage: cspark-operator --master k8s://URL [--namespace NS] [--lease-namespace NS]\n"
    "                       [--lease-duration SECONDS] [--conf KEY=VALUE]...\n";

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int cspark_operator_main(int argc, char **argv)
{
    op_options o = {.master = NULL, .namespace_ = "", .lease_duration_s = 15};
    char **confs = calloc((size_t)argc, sizeof *confs);
    o.confs = confs;
    int status = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            status = 0;
            goto fail;
        }
        if (!v) {
            fprintf(stderr, "cspark-operator: unknown option or missing value: '%s'\n%s", a, usage);
            goto fail;
        }
        if (!strcmp(a, "--master")) {
            o.master = v;
        } else if (!strcmp(a, "--namespace")) {
            o.namespace_ = v;
        } else if (!strcmp(a, "--conf")) {
            if (!strchr(v, '=')) {
                fprintf(stderr, "cspark-operator: --conf '%s' has no '=' (expected KEY=VALUE)\n",
                        v);
                goto fail;
            }
            confs[o.nconfs++] = argv[i + 1];
        } else if (!strcmp(a, "--lease-namespace")) {
            o.lease_namespace = v;
        } else if (!strcmp(a, "--lease-duration")) {
            char *end;
            long s = strtol(v, &end, 10);
            if (*end || s < 1 || s > 3600) {
                fprintf(stderr,
                        "cspark-operator: --lease-duration '%s': expected whole seconds from 1 to "
                        "3600\n",
                        v);
                goto fail;
            }
            o.lease_duration_s = (int)s;
        } else {
            fprintf(stderr, "cspark-operator: unknown option '%s'\n%s", a, usage);
            goto fail;
        }
        i++;
    }
    if (!o.master || strncmp(o.master, "k8s://", 6) != 0) {
        fprintf(stderr, "cspark-operator: --master: expected k8s://URL of the API server\n%s",
                usage);
        goto fail;
    }
    char host[128] = "cspark-operator", identity[256];
    const char *pod = getenv("POD_NAME");
    if (!pod || !*pod) {
        gethostname(host, sizeof host - 1);
        pod = host;
    }
    snprintf(identity, sizeof identity, "%s_%d", pod, (int)getpid());
    o.identity = identity;
    cs_sigpipe_make_harmless();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cs_error err = {0};
    if (cs_operator_run(&o, &stop_requested, &err) < 0)
        fprintf(stderr, "cspark-operator: %s\n", err.msg);
    else
        status = 0;
fail:
    free(confs);
    return status;
}
