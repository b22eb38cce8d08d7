/* kube_exec.h — kubeconfig `exec` credential plugins (client.authentication.k8s.io/v1 and v1beta1
 * ExecCredential), as kubectl and client-go run them for EKS (aws eks get-token), GKE
 * (gke-gcloud-auth-plugin) and AKS (kubelogin): the command from `users[].user.exec` (relative to
 * the kubeconfig's directory when it contains a '/'), its args, its env added to ours, and
 * KUBERNETES_EXEC_INFO holding {"apiVersion", "kind": "ExecCredential", "spec": {"interactive":
 * false}}; stdout must be an ExecCredential of the same apiVersion whose status has a token or a
 * client certificate and key, and optionally expirationTimestamp. A plugin that exits non-zero,
 * runs over its bound (CS_KUBE_EXEC_TIMEOUT_MS, 60 s, unless the caller gives one; a plugin that
 * closes its output and keeps running counts as running) or prints anything else is an error
 * naming the plugin and quoting its stderr; it is killed when its bound passes or when this
 * process is asked to stop (SIGTERM, SIGINT: cs_shutdown_requested), so a stuck plugin never
 * holds cspark-submit.
 *
 * Called by kube_config.c (once at load, so a failing plugin stops a submission at once) and by
 * kube_http.c (again shortly before the credential expires). Ownership: *out's strings are
 * malloc'd, released by cs_kube_exec_cred_free.
 */
#ifndef CSPARK_KUBE_EXEC_H
#define CSPARK_KUBE_EXEC_H

#include <jansson.h>
#include <stdint.h>

#include "common/err.h"

typedef struct kube_exec_cred {
    char *token;        /* bearer token, or NULL */
    char *cert_pem;     /* client certificate (PEM), or NULL */
    char *key_pem;      /* its key (PEM), or NULL */
    int64_t expires_ms; /* epoch ms of expirationTimestamp, 0 = does not expire */
} kube_exec_cred;

#define CS_KUBE_EXEC_TIMEOUT_MS 60000

/* exec: the kubeconfig user's `exec` object (borrowed); dir: the kubeconfig's directory;
 * timeout_ms: the plugin's bound (0: CS_KUBE_EXEC_TIMEOUT_MS). Called from one thread at a time. */
int cs_kube_exec_run(const json_t *exec, const char *dir, int64_t timeout_ms, kube_exec_cred *out,
                     cs_error *err);
void cs_kube_exec_cred_free(kube_exec_cred *c);

/* When a credential expiring at expires_ms (epoch ms, 0 = never), fetched at now_ms, is fetched
 * again: CS_KUBE_EXEC_REFRESH_BEFORE_MS before it expires, and never sooner than
 * CS_KUBE_EXEC_MIN_REFRESH_MS after this fetch, so a plugin that answers with an expired
 * credential is run twice a minute, not before every request. 0 = never. Pure: tested with
 * explicit times. */
#define CS_KUBE_EXEC_REFRESH_BEFORE_MS 60000
#define CS_KUBE_EXEC_MIN_REFRESH_MS 30000
int64_t cs_kube_exec_refresh_at(int64_t expires_ms, int64_t now_ms);

#endif
