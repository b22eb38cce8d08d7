/* k8s_steps.h — internal: the feature steps that build driver and executor pods, and the small
 * jansson helpers they share. Only src/cluster/k8s/ includes this file.
 *
 * A build starts from the pod template (or an empty Pod) and runs the steps in order over one
 * k8s_pod_ctx; each step edits ctx->pod and ctx->container in place, as Spark's
 * KubernetesFeatureConfigStep.configurePod does. Steps return CS_OK or a negative CS_E* code
 * with err naming the offending conf key.
 *
 * Ownership: ctx->pod is owned by the builder that created the context; ctx->container is a
 * borrowed pointer into ctx->pod (spec.containers[i]); conf and app are borrowed. Helpers that
 * return json_t * return borrowed references into their parent unless named *_new; strings
 * returned by cs_k8s_subst and k8s_conf_* are malloc'd and owned by the caller.
 */
#ifndef CSPARK_CLUSTER_K8S_STEPS_H
#define CSPARK_CLUSTER_K8S_STEPS_H

#include <stdbool.h>

#include <jansson.h>

#include "cluster/k8s/k8s_pod_spec.h"

typedef struct k8s_pod_ctx {
    const cs_conf *conf;
    const k8s_app *app;
    bool driver;            /* driver pod (else executor) */
    const char *role;       /* "driver" / "executor" (conf key part) */
    int exec_id;            /* executor only */
    int cores;              /* executor only: cores of this executor */
    const char *driver_url; /* executor only; NULL = default */
    char *pod_name;         /* owned by the ctx */
    json_t *pod;
    json_t *container;
} k8s_pod_ctx;

/* spark.kubernetes.hadoop.configMapName: where the ConfigMap is mounted (Spark's path). */
#define K8S_HADOOP_CONF_DIR "/opt/hadoop/conf"
#define K8S_HADOOP_CONF_VOLUME "hadoop-properties"

typedef int (*k8s_step_fn)(k8s_pod_ctx *ctx, cs_error *err);

int cs_k8s_step_template(k8s_pod_ctx *ctx, cs_error *err); /* the starting pod */
int cs_k8s_step_basic(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_driver_credentials(k8s_pod_ctx *ctx, cs_error *err); /* k8s_step_credentials.c */
int cs_k8s_step_mount_secrets(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_env_secrets(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_volumes(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_local_dirs(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_conf_map(k8s_pod_ctx *ctx, cs_error *err);
int cs_k8s_step_hadoop_conf(k8s_pod_ctx *ctx, cs_error *err);     /* hadoop.configMapName */
int cs_k8s_step_batch_scheduler(k8s_pod_ctx *ctx, cs_error *err); /* Volcano, YuniKorn */

/* The labels every pod of this role carries (reserved + user labels with {{APP_ID}} /
 * {{EXECUTOR_ID}} substituted); new reference. exec_id < 0 for the driver. */
json_t *cs_k8s_role_labels_new(const cs_conf *conf, const k8s_app *app, bool driver, int exec_id,
                               cs_error *err);
/* User annotations/labels under `prefix` (e.g. "spark.kubernetes.driver.annotation.") merged
 * into obj with substitution; validates keys (and values when labels). */
int cs_k8s_merge_user_map(json_t *obj, const cs_conf *conf, const char *prefix, const k8s_app *app,
                          int exec_id, bool labels, cs_error *err);

/* spark.driver.port, spark.driver.blockManager.port, spark.ui.port (defaults 7078/7079/4040). */
int cs_k8s_driver_ports(const cs_conf *conf, int64_t ports[3], cs_error *err);

/* jansson helpers */
json_t *cs_k8s_child_obj(json_t *parent, const char *key); /* get or create an object member */
json_t *cs_k8s_child_arr(json_t *parent, const char *key); /* get or create an array member */
/* Replaces the array element whose `field` equals value of item's `field`, or appends; steals. */
void cs_k8s_upsert_by(json_t *arr, const char *field, json_t *item);
void cs_k8s_env_set_new(json_t *container, json_t *env_entry); /* upsert by name; steals */
void cs_k8s_env_value(json_t *container, const char *name, const char *value);
void cs_k8s_env_field_ref(json_t *container, const char *name, const char *field_path);
void cs_k8s_env_secret_ref(json_t *container, const char *name, const char *secret,
                           const char *key);

/* A pod template's text: a local path (or file: URI) on this machine, or a remote one
 * (s3a://...), fetched as Spark downloads it. *out is malloc'd and NUL-terminated. */
bool cs_k8s_template_is_remote(const char *path);
int cs_k8s_read_template(const char *path, char **out, size_t *len, cs_error *err);

/* Standard base64 of n bytes at p, NUL-terminated; malloc'd, owned by the caller. */
char *cs_k8s_base64_new(const uint8_t *p, size_t n);

/* {{APP_ID}} -> app id, {{EXECUTOR_ID}} -> exec_id (when >= 0), {{SPARK_VERSION}}. */
char *cs_k8s_subst(const char *s, const k8s_app *app, int exec_id);
/* All conf entries whose key starts with prefix, as {suffix: value} in key order; new ref. */
json_t *cs_k8s_conf_prefixed(const cs_conf *conf, const char *prefix);
/* conf value of "spark.kubernetes.<role>.<rest>" (borrowed, may be NULL). */
const char *cs_k8s_role_conf(const cs_conf *conf, const char *role, const char *rest);

#endif /* CSPARK_CLUSTER_K8S_STEPS_H */
