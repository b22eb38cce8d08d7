/*
 * node_agent.c — `kubesim --node-agent`: kubesim's kubelet as the node agent of any Kubernetes API
 * server (the real control plane of scripts/k8s-up, or kubesim itself), through the API alone.
 *
 * One process is one node. It registers its Node (labels first, so the controller manager assigns
 * the pod CIDR; then capacity, conditions, addresses), brings up the node's bridge for that CIDR,
 * watches the pods the scheduler bound to it, runs them (kubelet.c: network namespace, containers,
 * status through the status subresource, graceful deletion, finalization), renews its Lease, and
 * serves container logs over HTTPS on <node-ip>:10250 (`/containerLogs/<ns>/<pod>/<container>`,
 * `tailLines`, `limitBytes`, `previous`, `follow`), which is where the API server's `pods/log`
 * proxies `kubectl logs` to. Pods get KUBERNETES_SERVICE_HOST/PORT from the `kubernetes` Service,
 * their token from a TokenRequest bound to the pod (the projected volume the ServiceAccount
 * admission plugin adds) and cluster DNS from --cluster-dns. --fake-kubelet marks pods Running
 * without processes (scale runs).
 *
 * Called by kubesim's main when argv[1] is --node-agent; runs until SIGINT/SIGTERM, then stops the
 * watch, kills its pods' processes (the pod objects stay, as when a kubelet stops) and sends what
 * is queued. Ownership: everything is freed before ks_node_agent_main returns.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "node_agent.h"

#include "kubelet_http.h"
#include "kubelet_int.h"

#include <curl/curl.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------- container logs ---------------- */

typedef struct logsrv {
    const char *pods_dir;
    volatile int stopping;
} logsrv;

typedef struct follow {
    logsrv *ls;
    FILE *f;
    char exited[4600]; /* marker the kubelet writes when the container ends */
    char dir[4200];
} follow;

static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0, r;
    char *b = malloc(cap);
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += r) == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                return NULL;
            }
            b = nb;
        }
    *len = n;
    return b;
}

static ssize_t follow_read(void *arg, uint64_t pos, char *out, size_t max)
{
    follow *fo = arg;
    (void)pos;
    for (;;) {
        size_t n = fread(out, 1, max, fo->f);
        if (n > 0) return (ssize_t)n;
        clearerr(fo->f);
        struct stat st;
        if (fo->ls->stopping || access(fo->exited, F_OK) == 0 || stat(fo->dir, &st) != 0) {
            n = fread(out, 1, max, fo->f); /* what was written before the end */
            return n > 0 ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
        }
        usleep(200000);
    }
}

static void follow_free(void *arg)
{
    follow *fo = arg;
    fclose(fo->f);
    free(fo);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "text/plain");
    enum MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result logs_cb(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_len, void **state)
{
    logsrv *ls = cls;
    (void)version, (void)upload, (void)upload_len;
    if (!*state) { /* headers only: answer on the second call */
        *state = (void *)1;
        return MHD_YES;
    }
    if (strcmp(method, "GET")) return reply(conn, 405, "method not allowed\n");
    char ns[256], pod[256], cont[256];
    if (sscanf(url, "/containerLogs/%255[^/]/%255[^/]/%255[^/?]", ns, pod, cont) != 3 ||
        strstr(url, ".."))
        return reply(conn, 404, "404 page not found\n");
    const char *tail = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "tailLines");
    const char *limit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limitBytes");
    const char *fol = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "follow");
    const char *prev = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "previous");
    int previous = prev && !strcmp(prev, "true");
    char dir[4200], path[4600];
    snprintf(dir, sizeof dir, "%s/%s_%s", ls->pods_dir, ns, pod);
    snprintf(path, sizeof path, "%s/%s.log%s", dir, cont, previous ? ".previous" : "");
    FILE *f = fopen(path, "re");
    if (!f) {
        char msg[900];
        snprintf(msg, sizeof msg, "container \"%s\" in pod \"%s\" is not available\n", cont, pod);
        return reply(conn, 404, msg);
    }
    size_t len = 0;
    char *text = slurp(f, &len);
    size_t off = 0;
    if (text && tail) {
        long want = atol(tail), lines = 0;
        for (size_t i = len; i > 0; i--)
            if (text[i - 1] == '\n' && i != len && ++lines >= want) {
                off = i;
                break;
            }
        if (want <= 0) off = len;
    }
    if (text && limit && atoll(limit) > 0 && (size_t)atoll(limit) < len - off)
        len = off + (size_t)atoll(limit);
    struct MHD_Response *r = MHD_create_response_from_buffer(
        text ? len - off : 0, text ? text + off : (void *)"", MHD_RESPMEM_MUST_COPY);
    free(text);
    enum MHD_Result ret;
    if (fol && !strcmp(fol, "true") && !previous && !limit) {
        /* what is there, then what comes until the container ends */
        MHD_destroy_response(r);
        follow *fo = calloc(1, sizeof *fo);
        if (!fo) {
            fclose(f);
            return reply(conn, 500, "out of memory\n");
        }
        fo->ls = ls;
        fo->f = f;
        if (tail)
            fseek(f, (long)off, SEEK_SET);
        else
            fseek(f, 0, SEEK_SET);
        snprintf(fo->exited, sizeof fo->exited, "%s/%s.exited", dir, cont);
        snprintf(fo->dir, sizeof fo->dir, "%s", dir);
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32768, follow_read, fo,
                                              follow_free);
    } else {
        fclose(f);
    }
    MHD_add_response_header(r, "Content-Type", "text/plain");
    ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static char *read_pem(const char *path)
{
    FILE *f = path ? fopen(path, "re") : NULL;
    if (!f) return NULL;
    size_t len;
    char *b = slurp(f, &len);
    fclose(f);
    if (b) {
        char *nb = realloc(b, len + 1);
        if (nb) b = nb;
        b[len] = 0;
    }
    return b;
}

/* ---------------- main ---------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kubesim --node-agent --server URL --node-name NAME --node-ip IP [options]\n"
            "  --ca-file F --cert-file F --key-file F   TLS: the server's CA, the node's client\n"
            "                                           certificate (CN system:node:NAME)\n"
            "  --token T                 bearer token instead of a client certificate\n"
            "  --serving-cert F --serving-key F   certificate of the log server (port 10250)\n"
            "  --cluster-dns IP          nameserver of the pods (default: the host's)\n"
            "  --state-dir DIR           pod directories and logs\n"
            "  --node-cpu CPU --node-memory BYTES --max-pods N   capacity (8, 16Gi, 110)\n"
            "  --node-resource NAME=N    an extended resource of the node (example.com/gpu=4)\n"
            "  --image NAME=DIR          image directory (repeatable; docs/kubesim-kubelet.md)\n"
            "  --fake-kubelet            pods go Running without processes (scale runs)\n");
}

int ks_node_agent_main(int argc, char **argv)
{
    kl_http_options ho = {0};
    const char *node_ip = NULL, *cluster_dns = NULL, *state_dir = NULL, *serving_cert = NULL,
               *serving_key = NULL;
    const char *img_names[64], *img_dirs[64];
    ks_kubelet_options res = {0}; /* --node-resource */
    int n_images = 0, fake = 0, max_pods = 0;
    long long cpu = 8000, mem = 16LL << 30;
    enum {
        O_SERVER = 1000,
        O_CA,
        O_CERT,
        O_KEY,
        O_TOKEN,
        O_NAME,
        O_IP,
        O_DNS,
        O_STATE,
        O_SCERT,
        O_SKEY,
        O_CPU,
        O_MEM,
        O_PODS,
        O_RES,
        O_IMAGE,
        O_FAKE,
        O_HELP
    };
    static const struct option opts[] = {{"server", 1, 0, O_SERVER},
                                         {"ca-file", 1, 0, O_CA},
                                         {"cert-file", 1, 0, O_CERT},
                                         {"key-file", 1, 0, O_KEY},
                                         {"token", 1, 0, O_TOKEN},
                                         {"node-name", 1, 0, O_NAME},
                                         {"node-ip", 1, 0, O_IP},
                                         {"cluster-dns", 1, 0, O_DNS},
                                         {"state-dir", 1, 0, O_STATE},
                                         {"serving-cert", 1, 0, O_SCERT},
                                         {"serving-key", 1, 0, O_SKEY},
                                         {"node-cpu", 1, 0, O_CPU},
                                         {"node-memory", 1, 0, O_MEM},
                                         {"max-pods", 1, 0, O_PODS},
                                         {"image", 1, 0, O_IMAGE},
                                         {"fake-kubelet", 0, 0, O_FAKE},
                                         {"node-resource", 1, 0, O_RES},
                                         {"help", 0, 0, O_HELP},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_SERVER:
            ho.server = optarg;
            break;
        case O_CA:
            ho.ca_file = optarg;
            break;
        case O_CERT:
            ho.cert_file = optarg;
            break;
        case O_KEY:
            ho.key_file = optarg;
            break;
        case O_TOKEN:
            ho.token = optarg;
            break;
        case O_NAME:
            ho.node_name = optarg;
            break;
        case O_IP:
            node_ip = optarg;
            break;
        case O_DNS:
            cluster_dns = optarg;
            break;
        case O_STATE:
            state_dir = optarg;
            break;
        case O_SCERT:
            serving_cert = optarg;
            break;
        case O_SKEY:
            serving_key = optarg;
            break;
        case O_CPU:
            cpu = ks_quantity_scaled(optarg, 1000);
            break;
        case O_MEM:
            mem = ks_quantity_scaled(optarg, 1);
            break;
        case O_PODS:
            max_pods = atoi(optarg);
            break;
        case O_RES:
            if (ks_kubelet_resource_arg(optarg, &res) < 0) {
                fprintf(stderr, "kubesim --node-agent: --node-resource %s: expected NAME=COUNT\n",
                        optarg);
                return 2;
            }
            break;
        case O_FAKE:
            fake = 1;
            break;
        case O_IMAGE:
            if (ks_kubelet_image_arg(optarg, img_names, img_dirs, &n_images, 64) < 0) {
                fprintf(stderr, "kubesim --node-agent: --image %s: expected NAME=DIR\n", optarg);
                return 2;
            }
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!ho.server || !ho.node_name || !node_ip || cpu <= 0 || mem <= 0 || max_pods < 0) {
        fprintf(stderr, "kubesim --node-agent: --server, --node-name and --node-ip are required "
                        "(capacities positive)\n");
        usage(stderr);
        return 2;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    int rc = 1;
    char *cidr = NULL, *cert_pem = NULL, *key_pem = NULL;
    struct MHD_Daemon *d = NULL;
    ks_kubelet *k = NULL;
    logsrv ls = {0};
    kl_http *h = kl_http_new(&ho);
    if (!h) goto out;
    kl_http_register_minimal(h);
    /* the controller manager assigns it within a second, far later on a loaded machine;
     * scripts/k8s-up waits 240 s for the nodes to be Ready, so this says why first */
    enum { POD_CIDR_WAIT_SECONDS = 180 };
    if (!fake && !(cidr = kl_http_wait_pod_cidr(h, POD_CIDR_WAIT_SECONDS))) {
        fprintf(stderr,
                "kubesim --node-agent: node %s got no spec.podCIDR within %d s (is the "
                "controller manager running with --allocate-node-cidrs?)\n",
                ho.node_name, POD_CIDR_WAIT_SECONDS);
        goto out;
    }
    ks_kubelet_options ko = {.nodes = 1,
                             .node_cpu_millis = (int)cpu,
                             .node_memory_bytes = mem,
                             .node_resource_name = res.node_resource_name,
                             .node_resource_count = res.node_resource_count,
                             .fake = fake,
                             .image_names = img_names,
                             .image_dirs = img_dirs,
                             .n_images = n_images,
                             .state_dir = state_dir,
                             .node_name = ho.node_name,
                             .node_ip = node_ip,
                             .pod_cidr = cidr,
                             .cluster_dns = cluster_dns,
                             .max_pods = max_pods};
    k = kl_start(kl_http_ops(), h, &ko);
    if (!k) goto out;
    /* in-cluster access: the `kubernetes` Service, as the kubelet derives the env from it */
    json_t *svc = kl_http_ops()->get(h, "services", "default", "kubernetes");
    const json_t *spec = json_object_get(svc, "spec");
    const char *cip = json_string_value(json_object_get(spec, "clusterIP"));
    json_int_t port = json_integer_value(
        json_object_get(json_array_get(json_object_get(spec, "ports"), 0), "port"));
    if (cip && port > 0) {
        ks_kubelet_apiserver api = {.host = cip, .port = (int)port};
        ks_kubelet_set_apiserver(k, &api);
    }
    json_decref(svc);
    if (kl_http_start_watch(h, k) != 0) goto out;
    ls.pods_dir = k->pods_dir;
    cert_pem = read_pem(serving_cert);
    key_pem = read_pem(serving_key);
    if (cert_pem && key_pem) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(10250)};
        inet_pton(AF_INET, node_ip, &sa.sin_addr);
        d = MHD_start_daemon(
            MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS, 0, NULL,
            NULL, logs_cb, &ls, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_HTTPS_MEM_KEY, key_pem,
            MHD_OPTION_HTTPS_MEM_CERT, cert_pem, MHD_OPTION_END);
        if (!d) {
            fprintf(stderr, "kubesim --node-agent: cannot serve logs on %s:10250\n", node_ip);
            goto out;
        }
    } else {
        kl_log("WARN",
               "node=%s msg=\"no --serving-cert/--serving-key: kubectl logs will not "
               "reach this node\"",
               ho.node_name);
    }
    kl_log("INFO", "node=%s ip=%s podCIDR=%s server=%s event=ready", ho.node_name, node_ip,
           cidr ? cidr : "-", ho.server);
    int sig;
    sigwait(&set, &sig);
    kl_log("INFO", "node=%s signal=%d event=stopping", ho.node_name, sig);
    rc = 0;
out:
    ls.stopping = 1;
    if (h) kl_http_stop_watch(h);
    if (d) MHD_stop_daemon(d);
    ks_kubelet_stop(k);
    kl_http_free(h);
    free(cidr);
    free(cert_pem);
    free(key_pem);
    curl_global_cleanup();
    return rc;
}
