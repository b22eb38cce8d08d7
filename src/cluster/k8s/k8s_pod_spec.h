/* k8s_pod_spec.h — pure builders of the Kubernetes objects of one application (no network).
 *
 * The driver pod and executor pods are built as Spark's KubernetesDriverBuilder /
 * KubernetesExecutorBuilder do: start from the pod template (spark.kubernetes.{driver,executor}.
 * podTemplateFile, YAML) or an empty pod, then apply an ordered list of feature steps — basic
 * (names, labels, annotations, image, ports, resources, env, args, node selector, scheduler,
 * service account), secrets (mounted and as env), volumes (hostPath, emptyDir, nfs,
 * persistentVolumeClaim), local dirs (emptyDir per dir, SPARK_LOCAL_DIRS) and the conf map
 * volume at /opt/spark/conf. Also the headless driver Service, the conf ConfigMaps
 * (spark.properties + the uploaded job .so) and the auth Secret. Keys, defaults and names are
 * Spark's (see SPARK-K8S-REFERENCE.md §1). Called by cspark-submit (cluster mode, dry run) and
 * by the k8s scheduler backend (executor pods).
 *
 * Ownership: every `json_t *` returned is a new reference owned by the caller (json_decref).
 * conf, app and driver_pod arguments are borrowed for the call only. A k8s_app is a caller-owned
 * value whose strings are owned by it and released by cs_k8s_app_free. All builders return NULL
 * (or a negative CS_E* code) with err filled on a user-causable error, naming the conf key.
 */
#ifndef CSPARK_CLUSTER_K8S_POD_SPEC_H
#define CSPARK_CLUSTER_K8S_POD_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cluster/k8s/k8s_naming.h"
#include "cspark.h"
#include "common/conf.h"
#include "common/err.h"

struct cs_files_upload; /* fs/shipped_files.h */

#define K8S_DRIVER_CONTAINER "spark-kubernetes-driver"
#define K8S_EXECUTOR_CONTAINER "spark-kubernetes-executor"
#define K8S_CONF_DIR "/opt/spark/conf"
#define K8S_PROPERTIES_FILE "/opt/spark/conf/spark.properties"
#define K8S_EXEC_TEMPLATE_PATH "/opt/spark/conf/pod-spec-template.yml"
#define K8S_AUTH_SECRET_KEY "auth-secret" /* key inside the auth Secret */
#define K8S_SPARK_VERSION CSPARK_VERSION  /* value of the spark-version label */

/* Identity of one application on Kubernetes. */
typedef struct k8s_app {
    char app_id[K8S_APP_ID_SIZE];       /* spark-<32 hex>: spark-app-selector label */
    char unique_id[K8S_UNIQUE_ID_SIZE]; /* short id used in derived names */
    char *app_name;                     /* spark.app.name as given (default "spark") */
    char *namespace_;                   /* spark.kubernetes.namespace (default "default") */
    char *prefix;                       /* resource name prefix */
    char *name_label;                   /* spark-app-name label value */
    char *driver_pod_name;              /* spark.kubernetes.driver.pod.name or <prefix>-driver */
    char *driver_svc_name;              /* headless service name */
    char *conf_map_name;                /* spark-drv-<uid>-conf-map */
    char *exec_conf_map_name;           /* spark-exec-<uid>-conf-map */
    char *auth_secret_name;             /* spark-<uid>-auth-secret */
    char *main_class;                   /* --class / entry function; NULL = default */
    char *resource;                     /* application resource as given (local://, file, path) */
    char *upload_name; /* basename under /opt/spark/conf when the resource is shipped in the
                          conf map (not local://), else NULL */
    int argc;
    char **argv; /* application arguments */
    struct k8s_shipped_file {
        char *key; /* its name under /opt/spark/conf */
        uint8_t *data;
        size_t len;
    } * shipped; /* --files/--archives the ConfigMaps carry (no upload path); owned */
    int n_shipped;
} k8s_app;

/* Adds a file the driver and executor ConfigMaps carry as binaryData under key (pods read it at
 * K8S_CONF_DIR/key); takes data (malloc'd). CS_EINVAL when key is not a valid ConfigMap key or
 * is taken (spark.properties, the template, the .so, another file). */
int cs_k8s_app_add_shipped(k8s_app *app, const char *key, uint8_t *data, size_t len, cs_error *err);

/* A cs_files_rewrite_fn (fs/shipped_files.h) for spark.files / spark.archives without an upload
 * path: reads the local file at path into app's ConfigMaps under name (arg is the k8s_app) and
 * gives the URI pods read it at, local://K8S_CONF_DIR/name. */
int cs_k8s_ship_in_configmap(const char *path, const char *name, char **to, void *arg,
                             cs_error *err);

/* Ships the local entries of from's spark.files and spark.archives — uploaded with u when it is
 * given (begun), else in app's ConfigMaps — and sets the rewritten lists in to (which may be
 * from). Used by the cluster-mode submit client and by a client-mode driver. */
int cs_k8s_ship_file_lists(const cs_conf *from, cs_conf *to, struct cs_files_upload *u,
                           k8s_app *app, cs_error *err);

/* Fills *app from conf: reuses spark.app.id, cspark.kubernetes.uniqueId and
 * spark.kubernetes.executor.podNamePrefix when set (inside the driver pod, from the
 * spark.properties this module wrote), otherwise generates new ids. main_class, resource and
 * argv are copied (all may be NULL/0). CS_EINVAL naming the key for an invalid user-set
 * spark.kubernetes.executor.podNamePrefix or driver pod name. On error *app needs no freeing. */
int cs_k8s_app_init(k8s_app *app, const cs_conf *conf, const char *main_class, const char *resource,
                    int argc, char *const *argv, cs_error *err);
void cs_k8s_app_free(k8s_app *app);

/* Spark's driver "system properties" that go into the driver's spark.properties: spark.app.id,
 * spark.kubernetes.driver.pod.name, spark.kubernetes.executor.podNamePrefix,
 * cspark.kubernetes.uniqueId, spark.driver.host=<svc>.<ns>.svc, spark.driver.port=7078,
 * spark.driver.blockManager.port=7079, spark.kubernetes.submitInDriver=true. Sets them in c. */
void cs_k8s_add_driver_system_properties(cs_conf *c, const k8s_app *app);

/* Pod memory request = limit in MiB: <role>.memory (default 1g) + <role>.memoryOverhead if set,
 * else max(<role>.memoryOverheadFactor (default spark.kubernetes.memoryOverheadFactor, 0.10) x
 * memory, <role>.minMemoryOverhead (384m)), + spark.memory.offHeap.size for executors when
 * spark.memory.offHeap.enabled. role is "driver" or "executor". */
int cs_k8s_pod_memory_mib(const cs_conf *conf, const char *role, int64_t *heap_mib,
                          int64_t *total_mib, cs_error *err);

/* The driver Pod. Missing image is CS_EINVAL naming spark.kubernetes.container.image. */
json_t *cs_k8s_driver_pod(const cs_conf *conf, const k8s_app *app, cs_error *err);

/* Executor Pod `<prefix>-exec-<exec_id>` with `cores` cores. driver_pod (may be NULL) becomes
 * the controller ownerReference when it has metadata.uid. driver_url NULL means
 * spark://CoarseGrainedScheduler@<svc>.<ns>.svc:7078. */
json_t *cs_k8s_executor_pod(const cs_conf *conf, const k8s_app *app, int exec_id, int cores,
                            const json_t *driver_pod, const char *driver_url, cs_error *err);

/* The PersistentVolumeClaims an executor pod needs for its
 * spark.kubernetes.executor.volumes.persistentVolumeClaim.<name>.options.claimName=OnDemand
 * volumes: a JSON array (possibly empty) of PVCs named as the pod's claims
 * (`<pod name>-pvc-<index of the volume>`, as Spark), labelled spark-app-selector=<app id> plus
 * .label.* (annotations .annotation.*), access mode ReadWriteOncePod (ReadWriteOnce with
 * spark.kubernetes.legacy.useReadWriteOnceAccessMode), storage = .options.sizeLimit (required, a
 * positive quantity), storageClassName = .options.storageClass (a DNS-1123 subdomain; absent: the
 * cluster's default class). exec_pod is the pod cs_k8s_executor_pod returned. The backend
 * creates them (k8s_claims.c) after the pod, or reuses free ones. */
json_t *cs_k8s_executor_pvcs(const cs_conf *conf, const k8s_app *app, const json_t *exec_pod,
                             cs_error *err);

/* The same for the driver: spark.kubernetes.driver.volumes.persistentVolumeClaim.<name>
 * .options.claimName=OnDemand volumes as claims `<prefix>-driver-pvc-<index>` (Spark's name for
 * them), which cspark-submit creates after the driver pod, owned by it (Spark's
 * MountVolumesFeatureStep and KubernetesClientApplication). A JSON array, possibly empty; NULL
 * with err on a bad option, label or annotation. */
json_t *cs_k8s_driver_pvcs(const cs_conf *conf, const k8s_app *app, cs_error *err);

/* Checks every executor setting by building executor 1's pod and its claims (nothing is kept),
 * so that a bad executor key (a volume, a storage class, a size) is refused before anything is
 * created; *on_demand (optional) gets how many OnDemand claims each executor has. */
int cs_k8s_executor_check(const cs_conf *conf, const k8s_app *app, int *on_demand, cs_error *err);
/* The same from the conf alone (an application identity made for the check only): cspark-submit
 * calls it in client mode before the driver starts. */
int cs_k8s_executor_check_conf(const cs_conf *conf, cs_error *err);

/* Headless Service <driver_svc_name>: clusterIP None, selector = driver labels, ports
 * driver-rpc-port 7078, blockmanager 7079, spark-ui 4040; spark.kubernetes.driver.service.
 * {label,annotation}.*, ipFamilyPolicy / ipFamilies. */
json_t *cs_k8s_driver_service(const cs_conf *conf, const k8s_app *app, cs_error *err);

/* ConfigMap <conf_map_name>: data."spark.properties" = conf + driver system properties,
 * properties-escaped, without spark.authenticate.secret*; binaryData.<upload_name> = base64 of
 * app_so when app_so != NULL. The executor pod template (spark.kubernetes.executor.
 * podTemplateFile, a path on the submitting host) is shipped as data."pod-spec-template.yml" and
 * the key rewritten to /opt/spark/conf/pod-spec-template.yml, as Spark does. Refuses (CS_EINVAL)
 * when the total exceeds spark.kubernetes.configMap.maxSize (1048576), naming the key and both
 * sizes. */
json_t *cs_k8s_driver_configmap(const cs_conf *conf, const k8s_app *app, const uint8_t *app_so,
                                size_t len, cs_error *err);
/* Same content under exec_conf_map_name (mounted by executor pods), without the driver-only
 * system properties. */
json_t *cs_k8s_executor_configmap(const cs_conf *conf, const k8s_app *app, const uint8_t *app_so,
                                  size_t len, cs_error *err);

/* Secret <auth_secret_name> (type Opaque) holding spark.authenticate.secret (or 32 random bytes
 * as hex when unset) under key "auth-secret"; driver and executors read it through secretKeyRef
 * into _SPARK_AUTH_SECRET when spark.authenticate=true. */
json_t *cs_k8s_auth_secret(const cs_conf *conf, const k8s_app *app, cs_error *err);

/* The credentials of the driver's conf (conf_entries.c entries marked secret, with an
 * environment variable) never travel in its ConfigMap: in cluster mode the submit client adds
 * each one set in conf to the auth Secret, under its variable's name
 * (cs_k8s_add_conf_secrets, into a Secret made by cs_k8s_auth_secret), and the driver's container
 * reads it into that variable through secretKeyRef (cs_k8s_env_conf_secrets), where cspark-submit
 * in the pod takes it back (submit_conf.c). Executors get none of them this way. */
bool cs_k8s_has_conf_secrets(const cs_conf *conf);
void cs_k8s_add_conf_secrets(json_t *secret, const cs_conf *conf);
void cs_k8s_env_conf_secrets(json_t *container, const cs_conf *conf, const k8s_app *app);

/* The driver's API-server credentials, as Spark's DriverKubernetesCredentialsFeatureStep
 * (k8s_step_credentials.c): the files named by spark.kubernetes.authenticate.driver.
 * {caCertFile,clientCertFile,clientKeyFile,oauthTokenFile} (read on the submitting machine) and
 * the value of .oauthToken go into the Secret <prefix>-kubernetes-credentials (keys ca-cert,
 * client-cert, client-key, oauth-token), mounted in the driver at K8S_CREDENTIALS_DIR.
 * *out is a new Secret, or NULL when none of the keys is set. CS_EINVAL / CS_ENOTFOUND naming the
 * key for a missing file, or for a token given both as a value and as a file. */
#define K8S_CREDENTIALS_DIR "/mnt/secrets/spark-kubernetes-credentials"
int cs_k8s_driver_credentials_secret(const cs_conf *conf, const k8s_app *app, json_t **out,
                                     cs_error *err);
/* Points spark.kubernetes.authenticate.driver.mounted.* (unless the user set them) at the
 * mounted copies of the credentials set in c: the driver pod's client reads them there. */
void cs_k8s_driver_credentials_properties(cs_conf *c);

/* The batch schedulers' feature steps (k8s_step_batch_scheduler.c), turned on by
 * spark.kubernetes.{driver,executor}.pod.featureSteps naming Spark's VolcanoFeatureStep /
 * YuniKornFeatureStep classes; any other class is refused (CS_EINVAL naming the key). */
#define K8S_FEATURE_VOLCANO 1u
#define K8S_FEATURE_YUNIKORN 2u
int cs_k8s_feature_steps(const cs_conf *conf, const char *role, unsigned *steps, cs_error *err);
/* The Volcano PodGroup <app id>-podgroup (scheduling.volcano.sh/v1beta1) when the driver's
 * featureSteps include Volcano's, else *out = NULL: spark.kubernetes.scheduler.volcano.
 * podGroupTemplateFile (a YAML PodGroup) or an empty one, named and namespaced for the
 * application; spec.minResources, when the template has none, = driver_pod's requests + the
 * initial executors'. cspark-submit creates it before the driver pod. *out is new. */
int cs_k8s_volcano_pod_group(const cs_conf *conf, const k8s_app *app, const json_t *driver_pod,
                             json_t **out, cs_error *err);

/* Adds (replacing an existing one with the same uid) a controller ownerReference
 * {apiVersion v1, kind Pod, name, uid, controller true, blockOwnerDeletion true} pointing at
 * driver_pod (which must carry metadata.name and metadata.uid, i.e. be the created pod). */
int cs_k8s_set_owner(json_t *obj, const json_t *driver_pod, cs_error *err);

#endif /* CSPARK_CLUSTER_K8S_POD_SPEC_H */
