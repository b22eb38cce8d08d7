/* kube_config.h — where the Kubernetes API server is and how to authenticate to it.
 *
 * Resolves, as Spark (fabric8) and kubectl do: the server from the master URL
 * (k8s://https://h:p, k8s://h:p meaning https, k8s://http://127.0.0.1:8001 for kubectl proxy) or
 * else from the kubeconfig; the kubeconfig from KUBECONFIG (several files separated by ':',
 * merged as kubectl does: the first file that names a cluster/context/user or sets
 * current-context wins) or ~/.kube/config; the context `spark.kubernetes.context` or else the
 * current-context (a user's `exec` credential plugin is run, see kube_exec.h); without any
 * kubeconfig file, in-cluster service-account credentials
 * (/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}, server from
 * KUBERNETES_SERVICE_HOST/_PORT). The `<prefix>.{caCertFile,clientKeyFile,clientCertFile,
 * oauthToken,oauthTokenFile}` keys override what those sources give;
 * `spark.kubernetes.trust.certificates=true` turns TLS verification off (on otherwise).
 * Namespace: spark.kubernetes.namespace, else the context's (or service account's), else
 * "default". Called by cspark-submit (prefix spark.kubernetes.authenticate.submission) and the
 * driver's k8s backend (prefix spark.kubernetes.authenticate.driver.mounted in cluster mode,
 * spark.kubernetes.authenticate in client mode); consumed by kube_client.
 *
 * Ownership: a kube_config is a caller-owned value filled by cs_kube_config_load; every string in
 * it is malloc'd and released, and the private temp files written from kubeconfig *-data fields are
 * removed, by cs_kube_config_free (which also zeroes it; freeing a zeroed value is a no-op).
 */
#ifndef CSPARK_KUBE_CONFIG_H
#define CSPARK_KUBE_CONFIG_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/err.h"

#define KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct kube_config {
    char *server;              /* "https://host:port" or "http://host:port", no trailing '/' */
    char *namespace_;          /* never NULL after a successful load */
    char *context;             /* kubeconfig context used, NULL when none */
    char *token;               /* bearer token, NULL when none */
    char *token_file;          /* file the token came from (re-read when it changes), or NULL */
    char *ca_file;             /* PEM bundle to verify the server with, NULL = system store */
    char *client_cert_file;    /* PEM client certificate, or NULL */
    char *client_key_file;     /* PEM client key, or NULL */
    bool insecure;             /* skip TLS verification */
    char *auth_source;         /* human description of the credential source, for 401 messages */
    char *exec_json;           /* the user's exec credential plugin (JSON), run again near expiry */
    char *exec_dir;            /* the kubeconfig's directory (relative plugin commands) */
    long long exec_expires_ms; /* epoch ms the plugin's credential expires, 0 = never */
    char *tmp_files[4];        /* temp files written from *-data fields; removed on free */
} kube_config;

int cs_kube_config_load(const cs_conf *conf, const char *master, const char *key_prefix,
                        kube_config *out, cs_error *err);
void cs_kube_config_free(kube_config *cfg);

/* The environment cs_kube_config_load reads, made explicit: cs_kube_config_load uses getenv
 * (KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT) and KUBE_SA_DIR.
 * Internal; unit tests pass their own values. NULL fields mean "unset". */
typedef struct kube_config_env {
    const char *kubeconfig;   /* KUBECONFIG */
    const char *home;         /* HOME (for ~/.kube/config) */
    const char *service_host; /* KUBERNETES_SERVICE_HOST */
    const char *service_port; /* KUBERNETES_SERVICE_PORT */
    const char *sa_dir;       /* service-account directory */
} kube_config_env;

int cs_kube_config_load_env(const cs_conf *conf, const char *master, const char *key_prefix,
                            const kube_config_env *env, kube_config *out, cs_error *err);

#endif /* CSPARK_KUBE_CONFIG_H */
