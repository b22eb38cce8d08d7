/* kube_exec.c — kubeconfig exec credential plugins (see kube_exec.h). */
#define _GNU_SOURCE
#include "kube/kube_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/run_command.h"

void cs_kube_exec_cred_free(kube_exec_cred *c)
{
    if (!c) return;
    if (c->token) memset(c->token, 0, strlen(c->token));
    if (c->key_pem) memset(c->key_pem, 0, strlen(c->key_pem));
    free(c->token);
    free(c->cert_pem);
    free(c->key_pem);
    memset(c, 0, sizeof *c);
}

/* "2006-01-02T15:04:05Z" (fractions and offsets as RFC 3339) -> epoch ms, 0 if unreadable. */
static int64_t parse_time(const char *s)
{
    struct tm tm = {0};
    const char *rest = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!rest) return 0;
    int64_t t = (int64_t)timegm(&tm);
    if (*rest == '.')
        while (*++rest >= '0' && *rest <= '9')
            ;
    if (*rest == '+' || *rest == '-') {
        int h = 0, m = 0;
        if (sscanf(rest + 1, "%2d:%2d", &h, &m) >= 1)
            t -= (*rest == '+' ? 1 : -1) * (h * 3600 + m * 60);
    }
    return t * 1000;
}

int64_t cs_kube_exec_refresh_at(int64_t expires_ms, int64_t now_ms)
{
    if (!expires_ms) return 0;
    int64_t at = expires_ms - CS_KUBE_EXEC_REFRESH_BEFORE_MS;
    return at < now_ms + CS_KUBE_EXEC_MIN_REFRESH_MS ? now_ms + CS_KUBE_EXEC_MIN_REFRESH_MS : at;
}

int cs_kube_exec_run(const json_t *exec, const char *dir, int64_t timeout_ms, kube_exec_cred *out,
                     cs_error *err)
{
    memset(out, 0, sizeof *out);
    const char *cmd = json_string_value(json_object_get(exec, "command"));
    const char *api = json_string_value(json_object_get(exec, "apiVersion"));
    if (!cmd || !*cmd) return cs_error_set(err, CS_EINVAL, "exec plugin: no command");
    if (!api || (strcmp(api, "client.authentication.k8s.io/v1") &&
                 strcmp(api, "client.authentication.k8s.io/v1beta1")))
        return cs_error_set(err, CS_EINVAL,
                            "exec plugin %s: apiVersion '%s' is not supported (expected "
                            "client.authentication.k8s.io/v1 or v1beta1)",
                            cmd, api ? api : "");
    char *path = NULL;
    if (strchr(cmd, '/') && cmd[0] != '/' && dir && asprintf(&path, "%s/%s", dir, cmd) < 0)
        path = NULL;
    const json_t *args = json_object_get(exec, "args"), *env = json_object_get(exec, "env");
    size_t nargs = json_array_size(args), nenv = json_array_size(env);
    char **argv = cs_xcalloc(nargs + 2, sizeof *argv);
    extern char **environ;
    size_t nown = 0;
    while (environ[nown])
        nown++;
    char **envp = cs_xcalloc(nown + nenv + 2, sizeof *envp);
    char *info = NULL;
    argv[0] = path ? path : (char *)cmd;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = (char *)(json_string_value(json_array_get(args, i)) ?: "");
    size_t ne = 0;
    for (size_t i = 0; i < nown; i++)
        if (strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21)) envp[ne++] = environ[i];
    char **added = cs_xcalloc(nenv + 1, sizeof *added);
    for (size_t i = 0; i < nenv; i++) {
        const json_t *e = json_array_get(env, i);
        const char *k = json_string_value(json_object_get(e, "name"));
        const char *v = json_string_value(json_object_get(e, "value"));
        if (k && asprintf(&added[i], "%s=%s", k, v ? v : "") >= 0) envp[ne++] = added[i];
    }
    if (asprintf(&info,
                 "KUBERNETES_EXEC_INFO={\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\","
                 "\"spec\":{\"interactive\":false}}",
                 api) >= 0)
        envp[ne++] = info;
    char *stdout_text = NULL, *stderr_text = NULL;
    int status = 0;
    int rc = cs_run_command(argv, envp, timeout_ms > 0 ? timeout_ms : CS_KUBE_EXEC_TIMEOUT_MS,
                            &stdout_text, &stderr_text, &status, err);
    for (size_t i = 0; i < nenv; i++)
        free(added[i]);
    free(added);
    free(info);
    free(argv);
    free(envp);
    if (rc != CS_OK) cs_error_prefix(err, "exec plugin %s", cmd);
    if (rc == CS_OK && status != 0) {
        size_t l = strlen(stderr_text);
        while (l && (stderr_text[l - 1] == '\n' || stderr_text[l - 1] == '\r'))
            stderr_text[--l] = 0;
        char *nl = strrchr(stderr_text, '\n'); /* the last line says most */
        rc = cs_error_set(err, CS_EAUTH, "exec plugin %s exited with status %d%s%s", cmd, status,
                          *stderr_text ? ": " : "", nl ? nl + 1 : stderr_text);
    }
    if (rc == CS_OK) {
        json_error_t je;
        json_t *cred = json_loads(stdout_text, 0, &je);
        const char *kind = json_string_value(json_object_get(cred, "kind"));
        const char *capi = json_string_value(json_object_get(cred, "apiVersion"));
        const json_t *st = json_object_get(cred, "status");
        const char *tok = json_string_value(json_object_get(st, "token"));
        const char *cert = json_string_value(json_object_get(st, "clientCertificateData"));
        const char *key = json_string_value(json_object_get(st, "clientKeyData"));
        if (!cred || !kind || strcmp(kind, "ExecCredential"))
            rc = cs_error_set(err, CS_EAUTH, "exec plugin %s did not print an ExecCredential", cmd);
        else if (!capi || strcmp(capi, api))
            rc =
                cs_error_set(err, CS_EAUTH,
                             "exec plugin %s answered apiVersion '%s', the kubeconfig asked for %s",
                             cmd, capi ? capi : "", api);
        else if (!(tok && *tok) && !(cert && *cert && key && *key))
            rc = cs_error_set(err, CS_EAUTH,
                              "exec plugin %s gave neither status.token nor "
                              "status.clientCertificateData and clientKeyData",
                              cmd);
        else {
            out->token = tok && *tok ? strdup(tok) : NULL;
            out->cert_pem = cert && *cert ? strdup(cert) : NULL;
            out->key_pem = key && *key ? strdup(key) : NULL;
            out->expires_ms =
                parse_time(json_string_value(json_object_get(st, "expirationTimestamp")));
        }
        json_decref(cred);
    }
    if (stdout_text) memset(stdout_text, 0, strlen(stdout_text));
    free(stdout_text);
    free(stderr_text);
    free(path);
    return rc;
}
