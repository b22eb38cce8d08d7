/* k8s_step_credentials.c — the driver's own API-server credentials, shipped from the submitting
 * machine, as Spark's DriverKubernetesCredentialsFeatureStep: cspark-submit reads the files named
 * by spark.kubernetes.authenticate.driver.{caCertFile,clientCertFile,clientKeyFile,
 * oauthTokenFile} and the value of .oauthToken into one Secret, <prefix>-kubernetes-credentials
 * (keys ca-cert, client-cert, client-key, oauth-token, Spark's names); the driver pod mounts it
 * at /mnt/secrets/spark-kubernetes-credentials (volume kubernetes-credentials), and the driver's
 * spark.properties point spark.kubernetes.authenticate.driver.mounted.* at the mounted copies,
 * which the driver's Kubernetes client reads (k8s_backend.c). A mounted.* key the user set wins.
 * The token's value never reaches the ConfigMap (k8s_pod_spec.c leaves it out).
 *
 * Departure: Spark leaves the driver pod's serviceAccountName unset when it mounts credentials;
 * cspark keeps it (the mounted credentials are what the driver's client uses either way, and the
 * account may carry image pull secrets and other policies the pod needs).
 *
 * Called by the driver step list of k8s_pod_spec.c (the pod part), by cspark-submit (the
 * Secret) and by cs_k8s_add_driver_system_properties (the properties). Every json_t * returned
 * is owned by the caller; conf and app are borrowed for the call.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_steps.h"
#include "common/fsutil.h"

#define AUTH_DRIVER "spark.kubernetes.authenticate.driver."
#define VOLUME_NAME "kubernetes-credentials"

/* One credential: the key naming it on the submitting machine, the key in the Secret (and file
 * name under K8S_CREDENTIALS_DIR), the mounted.* key the driver reads it from. */
static const struct credential {
    const char *conf_suffix; /* after AUTH_DRIVER */
    const char *secret_key;
    const char *mounted_suffix; /* after AUTH_DRIVER "mounted." */
    bool is_file;
} CREDENTIALS[] = {
    {"caCertFile", "ca-cert", "caCertFile", true},
    {"clientCertFile", "client-cert", "clientCertFile", true},
    {"clientKeyFile", "client-key", "clientKeyFile", true},
    {"oauthToken", "oauth-token", "oauthTokenFile", false},
    {"oauthTokenFile", "oauth-token", "oauthTokenFile", true},
};
#define N_CREDENTIALS (sizeof CREDENTIALS / sizeof CREDENTIALS[0])

static const char *credential_value(const cs_conf *conf, const struct credential *cr)
{
    char key[128];
    snprintf(key, sizeof key, AUTH_DRIVER "%s", cr->conf_suffix);
    const char *v = cs_conf_get(conf, key);
    return v && *v ? v : NULL;
}

static bool any_credential(const cs_conf *conf)
{
    for (size_t i = 0; i < N_CREDENTIALS; i++)
        if (credential_value(conf, &CREDENTIALS[i])) return true;
    return false;
}

static void secret_name(const k8s_app *app, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s-kubernetes-credentials", app->prefix);
}

int cs_k8s_step_driver_credentials(k8s_pod_ctx *ctx, cs_error *err)
{
    (void)err;
    if (!ctx->driver || !any_credential(ctx->conf)) return CS_OK;
    char name[320];
    secret_name(ctx->app, name, sizeof name);
    cs_k8s_upsert_by(
        cs_k8s_child_arr(cs_k8s_child_obj(ctx->pod, "spec"), "volumes"), "name",
        json_pack("{s:s, s:{s:s}}", "name", VOLUME_NAME, "secret", "secretName", name));
    cs_k8s_upsert_by(cs_k8s_child_arr(ctx->container, "volumeMounts"), "mountPath",
                     json_pack("{s:s, s:s, s:b}", "name", VOLUME_NAME, "mountPath",
                               K8S_CREDENTIALS_DIR, "readOnly", 1));
    return CS_OK;
}

int cs_k8s_driver_credentials_secret(const cs_conf *conf, const k8s_app *app, json_t **out,
                                     cs_error *err)
{
    *out = NULL;
    if (!any_credential(conf)) return CS_OK;
    if (credential_value(conf, &CREDENTIALS[3]) && credential_value(conf, &CREDENTIALS[4]))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for " AUTH_DRIVER
                            "oauthTokenFile: both it and " AUTH_DRIVER
                            "oauthToken are set (expected the driver's token as a value or as a "
                            "file, not both)");
    json_t *data = json_object();
    for (size_t i = 0; i < N_CREDENTIALS; i++) {
        const struct credential *cr = &CREDENTIALS[i];
        const char *v = credential_value(conf, cr);
        if (!v) continue;
        uint8_t *bytes = NULL;
        size_t len = strlen(v);
        if (cr->is_file) {
            int rc = cs_read_file(v, &bytes, &len, err);
            if (rc < 0) {
                cs_error_prefix(err, AUTH_DRIVER "%s", cr->conf_suffix);
                json_decref(data);
                return rc;
            }
        }
        char *b64 = cs_k8s_base64_new(bytes ? bytes : (const uint8_t *)v, len);
        json_object_set_new(data, cr->secret_key, json_string(b64));
        free(b64);
        free(bytes);
    }
    char name[320];
    secret_name(app, name, sizeof name);
    *out = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:s, s:o}", "apiVersion", "v1", "kind",
                     "Secret", "metadata", "name", name, "namespace", app->namespace_, "labels",
                     "spark-app-selector", app->app_id, "type", "Opaque", "data", data);
    return CS_OK;
}

void cs_k8s_driver_credentials_properties(cs_conf *c)
{
    for (size_t i = 0; i < N_CREDENTIALS; i++) {
        const struct credential *cr = &CREDENTIALS[i];
        if (!credential_value(c, cr)) continue;
        char key[160], path[160];
        snprintf(key, sizeof key, AUTH_DRIVER "mounted.%s", cr->mounted_suffix);
        snprintf(path, sizeof path, K8S_CREDENTIALS_DIR "/%s", cr->secret_key);
        cs_conf_set_if_missing(c, key, path);
    }
}
