/* kubesim entry point: parses flags, generates TLS material, starts the store, the kubelet half
 * (when linked in and not --no-kubelet), the HTTP server, writes the kubeconfig once the server
 * listens, and shuts everything down on SIGINT/SIGTERM. Run `kubesim --help` for the flags. */
#define _GNU_SOURCE
#include "controllers.h"
#include "faults.h"
#include "metrics.h"
#include "quantity.h"
#include "rbac.h"
#include "server.h"
#include "store.h"
#include "tls.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#include "node_agent.h"
#if __has_include("kubelet.h")
#include "kubelet.h"
#define KS_HAVE_KUBELET_H 1
/* weak references: kubesim still links while the kubelet half is being written */
#pragma weak ks_kubelet_start
#pragma weak ks_kubelet_set_apiserver
#pragma weak ks_kubelet_stop
#pragma weak ks_kubelet_pod_log
#endif
#endif

#ifdef KS_HAVE_KUBELET_H
/* Adapts the kubelet's log accessor to the server's callback type. */
static char *pod_log_thunk(void *arg, const char *ns, const char *name, const char *container,
                           size_t *len)
{
    return ks_kubelet_pod_log((ks_kubelet *)arg, ns, name, container, len);
}
#endif

/* A pod's service-account token (the kubelet asks at each pod start): one issued for
 * system:serviceaccount:NS:SA, valid for an hour as a TokenRequest's default. */
static char *pod_token(void *arg, const char *ns, const char *service_account)
{
    char user[600];
    snprintf(user, sizeof user, "system:serviceaccount:%s:%s", ns,
             service_account && *service_account ? service_account : "default");
    return ks_rbac_issue_token(arg, user, 3600);
}

/* 1 when this process's network namespace is not the machine's: not PID 1's when that can be read,
 * and in any case without a default route (a fresh namespace from unshare --net has none) */
static int private_netns(void)
{
    struct stat self, init;
    if (stat("/proc/self/ns/net", &self) == 0 && stat("/proc/1/ns/net", &init) == 0 &&
        self.st_ino == init.st_ino && self.st_dev == init.st_dev)
        return 0;
    FILE *f = fopen("/proc/net/route", "re");
    char line[256], ifname[64];
    unsigned dest;
    int default_route = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%63s %x", ifname, &dest) == 2 && dest == 0) default_route = 1;
    if (f) fclose(f);
    return !default_route;
}

static void usage(FILE *f)
{
    fprintf(
        f, "usage: kubesim [options]\n"
           "  --kubeconfig-out PATH     write a kubeconfig for this server once it listens\n"
           "  --port N                  listen port on 127.0.0.1 (default: a free port)\n"
           "  --https | --http          serve TLS with a generated CA (default) or plain HTTP (no "
           "token needed)\n"
           "  --ca-out PATH             also write the CA certificate (PEM)\n"
           "  --token TOKEN             admin bearer token (default: random)\n"
           "  --rbac FILE               token and allow rules (see docs/kubesim.md)\n"
           "  --anonymous               accept requests without a token as system:anonymous\n"
           "  --history N               watch event history length (default 10000)\n"
           "  --bookmark-ms N           watch bookmark period in ms (default 1000)\n"
           "  --nodes N --node-cpu CPU --node-memory BYTES   kubelet nodes (default 1, 8, 16Gi)\n"
           "  --node-resource NAME=N    an extended resource of every node (example.com/gpu=4)\n"
           "  --fake-kubelet [--fake-delay-ms N]             mark pods Running without processes\n"
           "  --image NAME=DIR          map an image name to a local directory (repeatable)\n"
           "  --state-dir DIR           kubelet working directory\n"
           "  --pod-network             a network namespace per pod on a bridge per node (pod CIDR "
           "10.244.N.0/24),\n"
           "                            the API server also at the kubernetes Service's "
           "10.96.0.1; only inside a\n"
           "                            network namespace of kubesim's own (unshare --net; root)\n"
           "  --no-kubelet              API server only: pods stay Pending unless a client binds "
           "them\n"
           "  --fault-error-rate R --fault-latency-ms N --fault-throttle-rate R "
           "--fault-retry-after S\n"
           "  --fault-drop-watch-ms N   fault injection (also at runtime: POST /kubesim/faults)\n"
           "  --verbose                 log every request on stderr\n");
}

static int write_kubeconfig(const char *path, const char *scheme, int port, const char *ca_pem,
                            const char *token)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: kubesim\n  cluster:\n    server: "
            "%s://127.0.0.1:%d\n",
            scheme, port);
    if (ca_pem) {
        size_t n = strlen(ca_pem);
        char *b64 = malloc(4 * ((n + 2) / 3) + 1);
        if (!b64) {
            fclose(f);
            return -1;
        }
        EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)ca_pem, (int)n);
        fprintf(f, "    certificate-authority-data: %s\n", b64);
        free(b64);
    }
    fprintf(
        f,
        "contexts:\n- name: kubesim\n  context:\n    cluster: kubesim\n    user: kubesim-admin\n"
        "    namespace: default\ncurrent-context: kubesim\nusers:\n- name: kubesim-admin\n  user:\n"
        "    token: %s\n",
        token);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--node-agent")) return ks_node_agent_main(argc - 1, argv + 1);
    const char *kubeconfig = NULL, *ca_out = NULL, *token = NULL, *rbac_file = NULL,
               *state_dir = NULL;
    int port = 0, https = 1, anonymous = 0, verbose = 0, no_kubelet = 0, fake = 0, fake_delay = 0,
        nodes = 1;
    int bookmark_ms = 1000, pod_network = 0;
    long long history = KS_HISTORY_DEFAULT, node_cpu = 8000, node_mem = 16LL << 30;
    char *node_res = NULL; /* --node-resource */
    const char *img_names[64], *img_dirs[64];
    int n_images = 0;
    ks_faults_cfg fc = {.retry_after_s = 1};
    enum {
        O_KC = 1000,
        O_PORT,
        O_HTTPS,
        O_HTTP,
        O_CA,
        O_TOKEN,
        O_RBAC,
        O_ANON,
        O_HIST,
        O_BM,
        O_NODES,
        O_CPU,
        O_MEM,
        O_RES,
        O_FAKE,
        O_FAKED,
        O_IMAGE,
        O_STATE,
        O_NOKL,
        O_FER,
        O_FLAT,
        O_FTR,
        O_FRA,
        O_FDW,
        O_VERB,
        O_PODNET,
        O_HELP
    };
    static const struct option opts[] = {{"kubeconfig-out", 1, 0, O_KC},
                                         {"port", 1, 0, O_PORT},
                                         {"https", 0, 0, O_HTTPS},
                                         {"http", 0, 0, O_HTTP},
                                         {"ca-out", 1, 0, O_CA},
                                         {"token", 1, 0, O_TOKEN},
                                         {"rbac", 1, 0, O_RBAC},
                                         {"anonymous", 0, 0, O_ANON},
                                         {"history", 1, 0, O_HIST},
                                         {"bookmark-ms", 1, 0, O_BM},
                                         {"nodes", 1, 0, O_NODES},
                                         {"node-cpu", 1, 0, O_CPU},
                                         {"node-memory", 1, 0, O_MEM},
                                         {"node-resource", 1, 0, O_RES},
                                         {"fake-kubelet", 0, 0, O_FAKE},
                                         {"fake-delay-ms", 1, 0, O_FAKED},
                                         {"image", 1, 0, O_IMAGE},
                                         {"state-dir", 1, 0, O_STATE},
                                         {"no-kubelet", 0, 0, O_NOKL},
                                         {"fault-error-rate", 1, 0, O_FER},
                                         {"fault-latency-ms", 1, 0, O_FLAT},
                                         {"fault-throttle-rate", 1, 0, O_FTR},
                                         {"fault-retry-after", 1, 0, O_FRA},
                                         {"fault-drop-watch-ms", 1, 0, O_FDW},
                                         {"verbose", 0, 0, O_VERB},
                                         {"pod-network", 0, 0, O_PODNET},
                                         {"help", 0, 0, O_HELP},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_KC:
            kubeconfig = optarg;
            break;
        case O_PORT:
            port = atoi(optarg);
            break;
        case O_HTTPS:
            https = 1;
            break;
        case O_HTTP:
            https = 0;
            break;
        case O_CA:
            ca_out = optarg;
            break;
        case O_TOKEN:
            token = optarg;
            break;
        case O_RBAC:
            rbac_file = optarg;
            break;
        case O_ANON:
            anonymous = 1;
            break;
        case O_HIST:
            history = atoll(optarg);
            break;
        case O_BM:
            bookmark_ms = atoi(optarg);
            break;
        case O_NODES:
            nodes = atoi(optarg);
            break;
        case O_CPU:
            node_cpu = ks_quantity_scaled(optarg, 1000);
            break;
        case O_MEM:
            node_mem = ks_quantity_scaled(optarg, 1);
            break;
        case O_RES: /* NAME=COUNT, split when the kubelet starts */
            node_res = optarg;
            if (!strchr(optarg, '=') || optarg[0] == '=' ||
                strspn(strchr(optarg, '=') + 1, "0123456789") != strlen(strchr(optarg, '=') + 1) ||
                !strchr(optarg, '=')[1]) {
                fprintf(stderr, "kubesim: --node-resource %s: expected NAME=COUNT\n", optarg);
                return 2;
            }
            break;
        case O_FAKE:
            fake = 1;
            break;
        case O_FAKED:
            fake_delay = atoi(optarg);
            break;
        case O_IMAGE:
            if (ks_kubelet_image_arg(optarg, img_names, img_dirs, &n_images, 64) < 0) {
                fprintf(stderr, "kubesim: --image %s: expected NAME=DIR\n", optarg);
                return 2;
            }
            break;
        case O_STATE:
            state_dir = optarg;
            break;
        case O_NOKL:
            no_kubelet = 1;
            break;
        case O_FER:
            fc.error_rate = atof(optarg);
            break;
        case O_FLAT:
            fc.latency_ms = atoi(optarg);
            break;
        case O_FTR:
            fc.throttle_rate = atof(optarg);
            break;
        case O_FRA:
            fc.retry_after_s = atoi(optarg);
            break;
        case O_FDW:
            fc.drop_watch_after_ms = atoi(optarg);
            break;
        case O_VERB:
            verbose = 1;
            break;
        case O_PODNET:
            pod_network = 1;
            break;
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (port < 0 || port > 65535 || history < 16 || nodes < 0 || node_cpu < 0 || node_mem < 0 ||
        fc.error_rate < 0 || fc.error_rate > 1 || fc.throttle_rate < 0 || fc.throttle_rate > 1) {
        fprintf(stderr, "kubesim: invalid flag value (port 0..65535, history >= 16, rates 0..1, "
                        "quantities like "
                        "8, 500m, 16Gi)\n");
        return 2;
    }
    if (pod_network && !private_netns()) {
        fprintf(stderr, "kubesim: --pod-network adds bridges and addresses to this network "
                        "namespace, which is the machine's: run kubesim in one of its own "
                        "(unshare --net, as scripts/kubesim-run does)\n");
        return 2;
    }
    char tokbuf[40];
    if (!token) {
        char u[40];
        ks_uuid(u);
        snprintf(tokbuf, sizeof tokbuf, "kubesim-%.8s%.4s", u, u + 9);
        token = tokbuf;
    }
    char err[512] = "";
    /* kubectl sends no bearer token over plain HTTP: there, a request without one is the admin (as
     * the old insecure port), unless --anonymous asks for system:anonymous */
    ks_rbac *rbac = ks_rbac_new(token, rbac_file, anonymous ? 1 : https ? 0 : 2, err, sizeof err);
    if (!rbac) {
        fprintf(stderr, "kubesim: %s\n", err);
        return 2;
    }
    ks_tls tls = {0};
    if (https && ks_tls_generate(&tls) < 0) {
        fprintf(stderr, "kubesim: cannot generate TLS certificates\n");
        return 1;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    ks_store *store = ks_store_new((size_t)history);
    ks_faults *faults = ks_faults_new();
    ks_faults_set(faults, &fc);
    ks_metrics *metrics = ks_metrics_new();
    ks_server_opts so = {.store = store,
                         .rbac = rbac,
                         .faults = faults,
                         .metrics = metrics,
                         .tls_cert_pem = tls.cert_pem,
                         .tls_key_pem = tls.key_pem,
                         .port = port,
                         .all_addresses = pod_network,
                         .bookmark_ms = bookmark_ms,
                         .verbose = verbose};
    void *kubelet = NULL; /* ks_kubelet * when the kubelet half is linked in */
#ifdef KS_HAVE_KUBELET_H
    if (!no_kubelet && ks_kubelet_start) {
        ks_kubelet_options ko;
        memset(&ko, 0, sizeof ko);
        ko.nodes = nodes;
        ko.node_cpu_millis = (int)node_cpu;
        ko.node_memory_bytes = node_mem;
        if (node_res) ks_kubelet_resource_arg(node_res, &ko); /* checked when parsed */
        ko.fake = fake;
        ko.fake_delay_ms = fake_delay;
        ko.image_names = img_names;
        ko.image_dirs = img_dirs;
        ko.n_images = n_images;
        ko.state_dir = state_dir;
        ko.pod_network = pod_network;
        kubelet = ks_kubelet_start(store, &ko);
        if (!kubelet) {
            fprintf(stderr, "kubesim: cannot start the kubelet\n");
            return 1;
        }
        if (ks_kubelet_pod_log) {
            so.log_fn = pod_log_thunk;
            so.log_arg = kubelet;
        }
    }
#else
    (void)no_kubelet;
    (void)fake;
    (void)fake_delay;
    (void)state_dir;
    (void)img_names;
    (void)img_dirs;
#endif
    ks_server *srv = ks_server_start(&so, err, sizeof err);
    if (!srv) {
        fprintf(stderr, "kubesim: %s\n", err);
        return 1;
    }
    int p = ks_server_port(srv);
    /* what every namespace of a real cluster holds, and the kubernetes Service */
    ks_controllers_opts co = {.store = store,
                              .ca_pem = https ? tls.ca_pem : NULL,
                              .address = pod_network ? KS_SERVICE_IP : "127.0.0.1",
                              .port = p};
    ks_controllers *controllers = ks_controllers_start(&co);
    if (!controllers) {
        fprintf(stderr, "kubesim: cannot start the controllers\n");
        return 1;
    }
#ifdef KS_HAVE_KUBELET_H
    if (kubelet && ks_kubelet_set_apiserver) {
        /* pods reach the API server in-cluster: KUBERNETES_SERVICE_HOST/PORT, the service
         * account's token and CA, kubernetes.default.svc */
        ks_kubelet_apiserver api = {.host = pod_network ? KS_SERVICE_IP : "127.0.0.1",
                                    .port = p,
                                    .ca_pem = https ? tls.ca_pem : NULL,
                                    .token = NULL,
                                    .token_fn = pod_token,
                                    .token_arg = rbac};
        ks_kubelet_set_apiserver(kubelet, &api);
    }
#endif
    if (ca_out && tls.ca_pem) {
        FILE *f = fopen(ca_out, "w");
        if (!f || fputs(tls.ca_pem, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "kubesim: --ca-out %s: %s\n", ca_out, strerror(errno));
            return 1;
        }
    }
    if (kubeconfig &&
        write_kubeconfig(kubeconfig, https ? "https" : "http", p, tls.ca_pem, token) < 0) {
        fprintf(stderr, "kubesim: --kubeconfig-out %s: %s\n", kubeconfig, strerror(errno));
        return 1;
    }
    fprintf(stderr, "info %lld kubesim listening url=%s://127.0.0.1:%d kubelet=%s\n",
            (long long)ks_now_ms(), https ? "https" : "http", p, kubelet ? "on" : "off");
    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "info %lld kubesim stopping signal=%d\n", (long long)ks_now_ms(), sig);
#ifdef KS_HAVE_KUBELET_H
    if (kubelet && ks_kubelet_stop) ks_kubelet_stop(kubelet);
#endif
    ks_server_stop(srv);
    ks_store_free(store);
    ks_controllers_free(controllers); /* after the store: its observers point at it */
    ks_faults_free(faults);
    ks_metrics_free(metrics);
    ks_rbac_free(rbac);
    ks_tls_clear(&tls);
    return 0;
}
