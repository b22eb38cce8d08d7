/* app_submit.c — see app_submit.h. The spec's fields and the Spark keys they become (docs/
 * operator.md has the whole table):
 *   mainApplicationFile -> the application (.so or .sql; local:// = in the image), mainClass -> the
 *   entry symbol, arguments -> its arguments, sparkConf -> --conf, hadoopConf -> spark.hadoop.*,
 *   image / imagePullPolicy / imagePullSecrets -> spark.kubernetes.container.image*,
 *   driver|executor .cores .memory .memoryOverhead .coreRequest .coreLimit .image .labels
 *   .annotations .env .envVars .nodeSelector .serviceAccount .schedulerName -> the role's Spark
 *   keys, driver .serviceLabels .serviceAnnotations .kubernetesMaster -> the driver Service's
 *   labels and annotations, spark.kubernetes.driver.master,
 *   executor.instances / deleteOnTermination, nodeSelector, deps.files / archives,
 *   dynamicAllocation.* -> spark.dynamicAllocation.*;
 *   volumes and the role's template, volumeMounts, configMaps, secrets, env (valueFrom), envFrom,
 *   ports, securityContext, lifecycle, gpu, affinity, tolerations, podSecurityContext, dnsConfig,
 *   hostNetwork, hostAliases, initContainers, sidecars, terminationGracePeriodSeconds,
 *   priorityClassName, shareProcessNamespace -> a pod template per role (app_pod_template.h) in a
 *   directory of this submission, removed when the submit code has read it;
 *   batchScheduler volcano / yunikorn and batchSchedulerOptions -> the scheduler name, the submit
 *   code's Volcano or YuniKorn feature step and a PodGroup template (add_batch_scheduler).
 * A field cspark cannot honour (type Python or R, client mode, jars, packages, javaOptions, ...)
 * is refused naming it, before anything is created.
 *
 * Each attempt's identity (spark.app.id, cspark.kubernetes.uniqueId) is a hash of the
 * application's uid, the spec's generation (metadata.generation) and the attempt's number: the
 * attempts of an edited spec count from 1 again, as Kubeflow's do, and still never share a driver
 * name with a run of the earlier spec.
 */
#include "operator/app_submit.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/fsutil.h"
#include "common/master.h"
#include "common/strutil.h"
#include "operator/app_pod_template.h"
#include "submit/submit_args.h"

/* The --conf list of one submission: "key=value" strings, owned. */
typedef struct conf_list {
    char **kv;
    int n, cap;
} conf_list;

static void conf_add(conf_list *l, const char *key, const char *value)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->kv = cs_xrealloc(l->kv, (size_t)l->cap * sizeof *l->kv);
    }
    size_t n = strlen(key) + strlen(value) + 2;
    l->kv[l->n] = cs_xmalloc(n);
    snprintf(l->kv[l->n], n, "%s=%s", key, value);
    l->n++;
}

static void conf_list_free(conf_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->kv[i]);
    free(l->kv);
}

static const char *str_at(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* A JSON scalar as Spark's text: strings as they are, integers and booleans printed. */
static int scalar_text(const json_t *v, char *buf, size_t cap)
{
    if (json_is_string(v)) return snprintf(buf, cap, "%s", json_string_value(v)) < (int)cap;
    if (json_is_integer(v)) return snprintf(buf, cap, "%lld", (long long)json_integer_value(v)) > 0;
    if (json_is_boolean(v)) return snprintf(buf, cap, "%s", json_is_true(v) ? "true" : "false") > 0;
    return 0;
}

/* Every key of the map obj (strings) as `prefix + key = value`. */
static void conf_add_map(conf_list *l, const json_t *obj, const char *prefix)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (!json_is_string(v)) continue; /* the schema allows strings only */
        char key[512];
        snprintf(key, sizeof key, "%s%s", prefix, k);
        conf_add(l, key, json_string_value(v));
    }
}

/* An array of strings joined with commas (spark.files, pull secrets); NULL when empty. */
static char *join_strings(const json_t *arr)
{
    if (!json_array_size(arr)) return NULL;
    cs_sbuf b = {0};
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        if (!s) continue;
        if (b.len) cs_sbuf_putc(&b, ',');
        cs_sbuf_puts(&b, s);
    }
    return cs_sbuf_detach(&b, NULL);
}

static int unsupported(cs_error *err, const char *field, const char *why)
{
    return cs_error_set(err, CS_EINVAL, "spec.%s is not supported by cspark-operator: %s", field,
                        why);
}

/* driver or executor (role) fields -> Spark keys. */
static int pod_fields(conf_list *l, const json_t *pod, const char *role, cs_error *err)
{
    char key[256], val[256];
    bool driver = strcmp(role, "driver") == 0;
    static const struct {
        const char *field, *driver_key, *executor_key;
    } direct[] = {
        {"cores", "spark.driver.cores", "spark.executor.cores"},
        {"memory", "spark.driver.memory", "spark.executor.memory"},
        {"memoryOverhead", "spark.driver.memoryOverhead", "spark.executor.memoryOverhead"},
        {"coreRequest", "spark.kubernetes.driver.request.cores",
         "spark.kubernetes.executor.request.cores"},
        {"coreLimit", "spark.kubernetes.driver.limit.cores",
         "spark.kubernetes.executor.limit.cores"},
        {"image", "spark.kubernetes.driver.container.image",
         "spark.kubernetes.executor.container.image"},
        {"serviceAccount", "spark.kubernetes.authenticate.driver.serviceAccountName",
         "spark.kubernetes.authenticate.executor.serviceAccountName"},
        {"schedulerName", "spark.kubernetes.driver.scheduler.name",
         "spark.kubernetes.executor.scheduler.name"},
        {"kubernetesMaster", "spark.kubernetes.driver.master", NULL},
        {"instances", NULL, "spark.executor.instances"},
        {"deleteOnTermination", NULL, "spark.kubernetes.executor.deleteOnTermination"},
    };
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++) {
        const json_t *v = json_object_get(pod, direct[i].field);
        const char *k = driver ? direct[i].driver_key : direct[i].executor_key;
        if (!v || !k) continue;
        if (!scalar_text(v, val, sizeof val)) {
            snprintf(key, sizeof key, "%s.%s", role, direct[i].field);
            return cs_error_set(err, CS_EINVAL, "spec.%s: expected a string or a number", key);
        }
        conf_add(l, k, val);
    }
    snprintf(key, sizeof key, "spark.kubernetes.%s.label.", role);
    conf_add_map(l, json_object_get(pod, "labels"), key);
    snprintf(key, sizeof key, "spark.kubernetes.%s.annotation.", role);
    conf_add_map(l, json_object_get(pod, "annotations"), key);
    snprintf(key, sizeof key, "spark.kubernetes.%s.node.selector.", role);
    conf_add_map(l, json_object_get(pod, "nodeSelector"), key);
    if (driver) {
        conf_add_map(l, json_object_get(pod, "serviceLabels"),
                     "spark.kubernetes.driver.service.label.");
        conf_add_map(l, json_object_get(pod, "serviceAnnotations"),
                     "spark.kubernetes.driver.service.annotation.");
    }
    const char *env_prefix = driver ? "spark.kubernetes.driverEnv." : "spark.executorEnv.";
    conf_add_map(l, json_object_get(pod, "envVars"), env_prefix);
    const json_t *env = json_object_get(pod, "env");
    for (size_t i = 0; i < json_array_size(env); i++) {
        const json_t *e = json_array_get(env, i);
        const char *name = str_at(e, "name");
        if (json_object_get(e, "valueFrom")) continue; /* the pod template's */
        if (!name) {
            snprintf(key, sizeof key, "%s.env[%zu]", role, i);
            return cs_error_set(err, CS_EINVAL, "spec.%s: expected a name and a value", key);
        }
        snprintf(key, sizeof key, "%s%s", env_prefix, name);
        conf_add(l, key, str_at(e, "value") ? str_at(e, "value") : "");
    }
    static const struct {
        const char *field, *why;
    } refused[] = {
        {"javaOptions", "a cspark driver or executor runs no JVM (set sparkConf keys instead)"},
        {"memoryLimit", "the memory limit is the pod's request (memory + memoryOverhead)"},
        {"podName", "each attempt's driver pod has a name of its own"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const json_t *v = json_object_get(pod, refused[i].field);
        if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v))) continue;
        snprintf(key, sizeof key, "%s.%s", role, refused[i].field);
        return unsupported(err, key, refused[i].why);
    }
    return 0;
}

/* FNV-1a, 64 bits: the identity of one attempt of one generation of an application. */
static uint64_t run_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* A C identifier (the entry symbol the driver looks up with dlsym); with dots allowed, a Java
 * class name (`org.apache.spark.examples.SparkPi`). */
static bool is_symbol(const char *s, bool dots)
{
    if (!*s || isdigit((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && !(dots && *s == '.' && s[1] && s[1] != '.'))
            return false;
    return true;
}

/* Each role's pod template (app_pod_template.h) written as JSON (which YAML reads) into a local
 * directory made for this submission (*dir, created on the first template; the caller removes it
 * once the submit code has read the files), its path given as spark.kubernetes.<role>.
 * podTemplateFile. */
static int add_pod_templates(const json_t *spec, conf_list *l, char **dir, cs_error *err)
{
    for (int r = 0; r < 2; r++) {
        const char *role = r ? "executor" : "driver";
        json_t *tpl = NULL;
        int rc = cs_operator_pod_template(spec, role, &tpl, err);
        if (rc < 0) return rc;
        if (!tpl) continue;
        if (!*dir && (rc = cs_local_dir_create(NULL, "operator-templates", dir, err)) < 0) {
            json_decref(tpl);
            return rc;
        }
        char path[4096], key[128];
        snprintf(path, sizeof path, "%s/%s.json", *dir, role);
        rc = json_dump_file(tpl, path, JSON_INDENT(2));
        json_decref(tpl);
        if (rc < 0)
            return cs_error_set(err, CS_EIO, "%s: cannot write the %s pod template", path, role);
        snprintf(key, sizeof key, "spark.kubernetes.%s.podTemplateFile", role);
        conf_add(l, key, path);
        snprintf(key, sizeof key, "spark.kubernetes.%s.podTemplateContainerName", role);
        snprintf(path, sizeof path, "spark-kubernetes-%s", role);
        conf_add(l, key, path);
    }
    return 0;
}

/* batchScheduler volcano or yunikorn, as Kubeflow's batch scheduler plugins: the pods go to that
 * scheduler, with the submit code's Volcano or YuniKorn feature step (Spark's); for Volcano, a
 * PodGroup template from batchSchedulerOptions (queue, priorityClassName, resources as the
 * group's minResources; without resources the step sums the driver's and the initial executors'
 * requests), for YuniKorn the queue as the pods' label "queue". Any other name is accepted and
 * not used (the default scheduler places the pods). */
static int add_batch_scheduler(const json_t *spec, conf_list *l, char **dir, cs_error *err)
{
    const char *bs = str_at(spec, "batchScheduler");
    const json_t *opts = json_object_get(spec, "batchSchedulerOptions");
    bool volcano = bs && !strcmp(bs, "volcano"), yunikorn = bs && !strcmp(bs, "yunikorn");
    if (!volcano && !yunikorn) return 0;
    const char *step = volcano ? "org.apache.spark.deploy.k8s.features.VolcanoFeatureStep"
                               : "org.apache.spark.deploy.k8s.features.YuniKornFeatureStep";
    const char *queue = str_at(opts, "queue");
    for (int r = 0; r < 2; r++) {
        char key[128];
        const char *role = r ? "executor" : "driver";
        snprintf(key, sizeof key, "spark.kubernetes.%s.pod.featureSteps", role);
        conf_add(l, key, step);
        snprintf(key, sizeof key, "spark.kubernetes.%s.scheduler.name", role);
        conf_add(l, key, bs);
        if (yunikorn && queue) {
            snprintf(key, sizeof key, "spark.kubernetes.%s.label.queue", role);
            conf_add(l, key, queue);
        }
    }
    const char *prio = str_at(opts, "priorityClassName");
    const json_t *res = json_object_get(opts, "resources");
    if (!volcano) return 0;
    /* as Kubeflow's: minMember 1, so that the driver is scheduled first */
    json_t *pg = json_pack("{s:s, s:s, s:{s:i}}", "apiVersion", "scheduling.volcano.sh/v1beta1",
                           "kind", "PodGroup", "spec", "minMember", 1);
    json_t *pgs = json_object_get(pg, "spec");
    if (queue) json_object_set_new(pgs, "queue", json_string(queue));
    if (prio) json_object_set_new(pgs, "priorityClassName", json_string(prio));
    if (json_object_size(res)) json_object_set(pgs, "minResources", (json_t *)res);
    int rc = *dir ? 0 : cs_local_dir_create(NULL, "operator-templates", dir, err);
    char path[4096];
    if (rc == 0) {
        snprintf(path, sizeof path, "%s/podgroup.json", *dir);
        if (json_dump_file(pg, path, JSON_INDENT(2)) < 0)
            rc = cs_error_set(err, CS_EIO, "%s: cannot write the PodGroup template", path);
        else
            conf_add(l, "spark.kubernetes.scheduler.volcano.podGroupTemplateFile", path);
    }
    json_decref(pg);
    return rc;
}

static int spec_to_confs(const json_t *app, int attempt, conf_list *l, submit_args *a,
                         char **tpl_dir, cs_error *err)
{
    const json_t *meta = json_object_get(app, "metadata");
    const json_t *spec = json_object_get(app, "spec");
    const char *type = str_at(spec, "type"), *mode = str_at(spec, "mode");
    if (!type || (strcmp(type, "Java") != 0 && strcmp(type, "Scala") != 0))
        return cs_error_set(err, CS_EINVAL,
                            "spec.type '%s' is not supported by cspark-operator: a cspark "
                            "application (a .so or a .sql file) is type Java or Scala",
                            type ? type : "");
    if (mode && strcmp(mode, "cluster") != 0)
        return unsupported(err, "mode", "applications run in cluster mode only");
    const char *file = str_at(spec, "mainApplicationFile");
    if (!file || !*file)
        return cs_error_set(err, CS_EINVAL,
                            "spec.mainApplicationFile: expected the application's "
                            ".so (local:// in the image, or a path)");
    const char *main_class = str_at(spec, "mainClass");
    if (main_class && !is_symbol(main_class, true))
        return cs_error_set(err, CS_EINVAL,
                            "spec.mainClass '%s': expected the name of the application's entry "
                            "function (a C identifier, default cspark_main)",
                            main_class);
    /* a Kubeflow manifest's Java class (only the image, type and file changed): the .so's
     * default entry */
    if (main_class && !is_symbol(main_class, false)) main_class = NULL;
    const json_t *deps = json_object_get(spec, "deps");
    static const char *const deps_refused[] = {"jars", "pyFiles", "packages", "repositories",
                                               "excludePackages"};
    for (size_t i = 0; i < sizeof deps_refused / sizeof deps_refused[0]; i++) {
        if (json_array_size(json_object_get(deps, deps_refused[i]))) {
            char f[64];
            snprintf(f, sizeof f, "deps.%s", deps_refused[i]);
            return unsupported(err, f,
                               "a C application links its libraries (files and "
                               "archives are shipped)");
        }
    }
    static const char *const spec_refused[] = {"sparkConfigMap", "hadoopConfigMap", "proxyUser",
                                               "monitoring", "driverIngressOptions"};
    for (size_t i = 0; i < sizeof spec_refused / sizeof spec_refused[0]; i++) {
        const json_t *v = json_object_get(spec, spec_refused[i]);
        if (v && !json_is_null(v) && !(json_is_array(v) && !json_array_size(v)))
            return unsupported(err, spec_refused[i], "see docs/operator.md");
    }
    if (json_is_true(json_object_get(spec, "suspend")))
        return unsupported(err, "suspend", "an application runs when it is applied");

    a->app = file;
    a->entry = main_class;
    a->name = str_at(meta, "name");
    a->deploy_mode = "cluster";
    a->files = join_strings(json_object_get(deps, "files"));
    a->archives = join_strings(json_object_get(deps, "archives"));

    /* the deterministic identity of (uid, generation, attempt) */
    char hex[40] = "", id[64];
    size_t nhex = 0;
    const char *uid = str_at(meta, "uid");
    for (const char *p = uid ? uid : ""; *p && nhex < 32; p++)
        if (isxdigit((unsigned char)*p)) hex[nhex++] = (char)tolower((unsigned char)*p);
    hex[nhex] = '\0';
    if (nhex < 28) return cs_error_set(err, CS_EINVAL, "metadata.uid: not a UUID");
    const json_t *gen = json_object_get(meta, "generation");
    char what[96];
    snprintf(what, sizeof what, "%s/%lld/%d", hex,
             json_is_integer(gen) ? (long long)json_integer_value(gen) : 0LL, attempt);
    uint64_t h = run_hash(what);
    snprintf(id, sizeof id, "spark-%.16s%016llx", hex, (unsigned long long)h);
    conf_add(l, "spark.app.id", id);
    snprintf(id, sizeof id, "%016llx", (unsigned long long)h);
    conf_add(l, "cspark.kubernetes.uniqueId", id);
    conf_add(l, "spark.kubernetes.namespace", str_at(meta, "namespace"));
    for (int r = 0; r < 2; r++) {
        char key[256];
        const char *role = r ? "executor" : "driver";
        snprintf(key, sizeof key, "spark.kubernetes.%s.label.%s", role, OP_LABEL_APP_NAME);
        conf_add(l, key, a->name);
        snprintf(key, sizeof key, "spark.kubernetes.%s.label.%s", role, OP_LABEL_SUBMISSION);
        conf_add(l, key, id);
        snprintf(key, sizeof key, "spark.kubernetes.%s.label.%s", role, OP_LABEL_LAUNCHED);
        conf_add(l, key, "true");
    }
    if (str_at(spec, "image"))
        conf_add(l, "spark.kubernetes.container.image", str_at(spec, "image"));
    if (str_at(spec, "imagePullPolicy"))
        conf_add(l, "spark.kubernetes.container.image.pullPolicy", str_at(spec, "imagePullPolicy"));
    char *secrets = join_strings(json_object_get(spec, "imagePullSecrets"));
    if (secrets) conf_add(l, "spark.kubernetes.container.image.pullSecrets", secrets);
    free(secrets);
    if (str_at(spec, "memoryOverheadFactor"))
        conf_add(l, "spark.kubernetes.memoryOverheadFactor", str_at(spec, "memoryOverheadFactor"));
    conf_add_map(l, json_object_get(spec, "nodeSelector"), "spark.kubernetes.node.selector.");
    /* as Kubeflow: only an enabled dynamicAllocation says anything, and it tracks shuffle files
     * unless told not to (an executor holding shuffle data is not released) */
    const json_t *dyn = json_object_get(spec, "dynamicAllocation");
    if (json_is_true(json_object_get(dyn, "enabled"))) {
        static const struct {
            const char *field, *key;
        } dyn_keys[] = {{"initialExecutors", "spark.dynamicAllocation.initialExecutors"},
                        {"minExecutors", "spark.dynamicAllocation.minExecutors"},
                        {"maxExecutors", "spark.dynamicAllocation.maxExecutors"}};
        char val[64];
        conf_add(l, "spark.dynamicAllocation.enabled", "true");
        for (size_t i = 0; i < sizeof dyn_keys / sizeof dyn_keys[0]; i++)
            if (scalar_text(json_object_get(dyn, dyn_keys[i].field), val, sizeof val))
                conf_add(l, dyn_keys[i].key, val);
        conf_add(l, "spark.dynamicAllocation.shuffleTracking.enabled",
                 json_is_false(json_object_get(dyn, "shuffleTrackingEnabled")) ? "false" : "true");
        if (json_is_integer(json_object_get(dyn, "shuffleTrackingTimeout"))) {
            snprintf(val, sizeof val, "%lldms",
                     (long long)json_integer_value(json_object_get(dyn, "shuffleTrackingTimeout")));
            conf_add(l, "spark.dynamicAllocation.shuffleTracking.timeout", val);
        }
    }
    if (pod_fields(l, json_object_get(spec, "driver"), "driver", err) < 0 ||
        pod_fields(l, json_object_get(spec, "executor"), "executor", err) < 0)
        return err->code;
    int rc = add_pod_templates(spec, l, tpl_dir, err);
    if (rc < 0 || (rc = add_batch_scheduler(spec, l, tpl_dir, err)) < 0) return rc;
    conf_add_map(l, json_object_get(spec, "hadoopConf"), "spark.hadoop.");
    conf_add_map(l, json_object_get(spec, "sparkConf"), ""); /* last: the user's word wins */
    return 0;
}

int cs_operator_submit(kube_client *kc, const json_t *app, int attempt, const char *master,
                       submit_k8s_started *out, cs_error *err)
{
    conf_list l = {0};
    submit_args a;
    memset(&a, 0, sizeof a);
    a.master = master;
    a.load_spark_defaults = true;
    cs_conf *conf = NULL;
    json_t *owner = NULL;
    char **argv = NULL, *tpl_dir = NULL;
    int rc = spec_to_confs(app, attempt, &l, &a, &tpl_dir, err);
    if (rc < 0) goto out;
    a.confs = (const char **)l.kv;
    a.nconfs = l.n;
    const json_t *args = json_object_get(json_object_get(app, "spec"), "arguments");
    a.app_argc = (int)json_array_size(args);
    argv = cs_xcalloc((size_t)a.app_argc + 1, sizeof *argv);
    for (int i = 0; i < a.app_argc; i++)
        argv[i] = (char *)(json_string_value(json_array_get(args, (size_t)i)) ?: "");
    a.app_argv = argv;
    cs_master m;
    if ((rc = cs_submit_build_conf(&a, NULL, &conf, NULL, err)) < 0 ||
        (rc = cs_submit_validate(conf, &m, err)) < 0)
        goto out;
    cs_conf_set(conf, "cspark.app.resource", a.app);
    const json_t *meta = json_object_get(app, "metadata");
    owner =
        json_pack("{s:s, s:s, s:s?, s:s?, s:b, s:b}", "apiVersion", "sparkoperator.k8s.io/v1beta2",
                  "kind", "SparkApplication", "name", str_at(meta, "name"), "uid",
                  str_at(meta, "uid"), "controller", 1, "blockOwnerDeletion", 1);
    bool sql = cs_submit_is_sql_file(a.app);
    rc = cs_submit_k8s_start(kc, conf, &a, sql ? NULL : cs_submit_entry(&a, conf), owner, out, err);
out:
    if (tpl_dir) cs_remove_tree(tpl_dir);
    free(tpl_dir);
    json_decref(owner);
    cs_conf_free(conf);
    conf_list_free(&l);
    free(argv);
    free((char *)a.files);
    free((char *)a.archives);
    return rc;
}
