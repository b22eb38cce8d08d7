/* test_k8s_pod_spec.c — unit tests for the driver/executor pod builders and their feature steps
 * (k8s_pod_spec.c, cs_k8s_step_basic.c, k8s_step_storage.c): names, labels, image, ports, memory
 * formula, cpu, env, args, node selectors, volumes of every type, secrets, local dirs, conf map,
 * pod templates, the driver Service, ConfigMaps (size limit, secret exclusion: the conf's
 * credentials go to the auth Secret and the driver's environment), the auth Secret,
 * owner references and the app identity round trip through spark.properties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_pod_spec.h"
#include "pod_spec_fixture.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* "spec.containers.0.name" */
static json_t *jget(json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = root;
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && cur; t = strtok_r(NULL, ".", &save)) {
        if (json_is_array(cur))
            cur = json_array_get(cur, (size_t)atoi(t));
        else
            cur = json_object_get(cur, t);
    }
    return cur;
}

static const char *jstr(json_t *root, const char *path)
{
    return json_string_value(jget(root, path));
}

static json_t *find_by(json_t *arr, const char *field, const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        const char *v = json_string_value(json_object_get(e, field));
        if (v && !strcmp(v, value)) return e;
    }
    return NULL;
}

static json_t *env_of(json_t *pod, const char *name)
{
    return find_by(jget(pod, "spec.containers.0.env"), "name", name);
}

static const char *env_val(json_t *pod, const char *name)
{
    return json_string_value(json_object_get(env_of(pod, name), "value"));
}

static json_t *driver_ok(const cs_conf *c, k8s_app *app)
{
    cs_error err = {0};
    json_t *pod = cs_k8s_driver_pod(c, app, &err);
    if (!pod) fail_msg("cs_k8s_driver_pod: %s", err.msg);
    return pod;
}

static json_t *executor_ok(const cs_conf *c, k8s_app *app, int id, const json_t *owner)
{
    cs_error err = {0};
    json_t *pod = cs_k8s_executor_pod(c, app, id, 2, owner, NULL, &err);
    if (!pod) fail_msg("cs_k8s_executor_pod: %s", err.msg);
    return pod;
}

static void expect_driver_error(cs_conf *c, const char *needle)
{
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *pod = cs_k8s_driver_pod(c, &app, &err);
    assert_null(pod);
    assert_int_equal(err.code, CS_EINVAL);
    if (!strstr(err.msg, needle)) fail_msg("error '%s' does not mention '%s'", err.msg, needle);
    cs_k8s_app_free(&app);
}

/* ---- driver ------------------------------------------------------------------------------- */

static void test_driver_basic(void **state)
{
    cs_conf *c = base_conf();
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "apiVersion"), "v1");
    assert_string_equal(jstr(pod, "kind"), "Pod");
    char want[128];
    snprintf(want, sizeof want, "spark-pi-%s-driver", app.unique_id);
    assert_string_equal(jstr(pod, "metadata.name"), want);
    assert_string_equal(jstr(pod, "metadata.namespace"), "jobs");
    assert_string_equal(jstr(pod, "metadata.labels.spark-app-selector"), app.app_id);
    assert_string_equal(jstr(pod, "metadata.labels.spark-role"), "driver");
    assert_string_equal(jstr(pod, "metadata.labels.spark-app-name"), "spark-pi");
    assert_string_equal(jstr(pod, "metadata.labels.spark-version"), K8S_SPARK_VERSION);
    assert_string_equal(jstr(pod, "spec.restartPolicy"), "Never");
    assert_null(jget(pod, "spec.serviceAccountName"));
    assert_string_equal(jstr(pod, "spec.containers.0.name"), "spark-kubernetes-driver");
    assert_string_equal(jstr(pod, "spec.containers.0.image"), "cspark:latest");
    assert_string_equal(jstr(pod, "spec.containers.0.imagePullPolicy"), "IfNotPresent");
    json_t *ports = jget(pod, "spec.containers.0.ports");
    assert_int_equal(json_integer_value(json_object_get(find_by(ports, "name", "driver-rpc-port"),
                                                        "containerPort")),
                     7078);
    assert_int_equal(json_integer_value(
                         json_object_get(find_by(ports, "name", "blockmanager"), "containerPort")),
                     7079);
    assert_int_equal(
        json_integer_value(json_object_get(find_by(ports, "name", "spark-ui"), "containerPort")),
        4040);
    /* 1g + max(0.1 x 1024, 384) */
    assert_string_equal(jstr(pod, "spec.containers.0.resources.requests.memory"), "1408Mi");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.limits.memory"), "1408Mi");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.requests.cpu"), "1");
    assert_null(jget(pod, "spec.containers.0.resources.limits.cpu"));
    assert_string_equal(env_val(pod, "SPARK_APPLICATION_ID"), app.app_id);
    assert_string_equal(env_val(pod, "SPARK_CONF_DIR"), "/opt/spark/conf");
    assert_string_equal(
        jstr(env_of(pod, "SPARK_DRIVER_BIND_ADDRESS"), "valueFrom.fieldRef.fieldPath"),
        "status.podIP");
    assert_null(env_of(pod, "_SPARK_AUTH_SECRET"));
    const char *args[] = {"driver",
                          "--properties-file",
                          "/opt/spark/conf/spark.properties",
                          "--class",
                          "cspark_main",
                          "local:///opt/jobs/pi.so",
                          "1000",
                          "x y"};
    json_t *a = jget(pod, "spec.containers.0.args");
    assert_int_equal(json_array_size(a), 8);
    for (int i = 0; i < 8; i++)
        assert_string_equal(json_string_value(json_array_get(a, i)), args[i]);
    /* conf map volume */
    json_t *vol = find_by(jget(pod, "spec.volumes"), "name", "spark-conf-volume-driver");
    assert_string_equal(jstr(vol, "configMap.name"), app.conf_map_name);
    json_t *m =
        find_by(jget(pod, "spec.containers.0.volumeMounts"), "mountPath", "/opt/spark/conf");
    assert_string_equal(jstr(m, "name"), "spark-conf-volume-driver");
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_driver_options(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.container.image", "drv:{{SPARK_VERSION}}");
    cs_conf_set(c, "spark.kubernetes.container.image.pullPolicy", "Always");
    cs_conf_set(c, "spark.kubernetes.container.image.pullSecrets", "regcred, other");
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.serviceAccountName", "spark");
    cs_conf_set(c, "spark.kubernetes.node.selector.disk", "ssd");
    cs_conf_set(c, "spark.kubernetes.node.selector.zone", "a");
    cs_conf_set(c, "spark.kubernetes.driver.node.selector.zone", "b");
    cs_conf_set(c, "spark.kubernetes.scheduler.name", "volcano");
    cs_conf_set(c, "spark.kubernetes.driver.request.cores", "0.5");
    cs_conf_set(c, "spark.kubernetes.driver.limit.cores", "2");
    cs_conf_set(c, "spark.driver.memory", "4g");
    cs_conf_set(c, "spark.kubernetes.driverEnv.FOO", "bar");
    cs_conf_set(c, "spark.kubernetes.driver.label.team", "data-{{APP_ID}}");
    cs_conf_set(c, "spark.kubernetes.driver.annotation.yunikorn.apache.org/app-id", "{{APP_ID}}");
    cs_conf_set(c, "spark.authenticate", "true");
    cs_conf_set(c, "spark.authenticate.secret", "s3cr3t");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "spec.containers.0.image"), "drv:" K8S_SPARK_VERSION);
    assert_string_equal(jstr(pod, "spec.containers.0.imagePullPolicy"), "Always");
    assert_string_equal(jstr(pod, "spec.imagePullSecrets.0.name"), "regcred");
    assert_string_equal(jstr(pod, "spec.imagePullSecrets.1.name"), "other");
    assert_string_equal(jstr(pod, "spec.serviceAccountName"), "spark");
    assert_string_equal(jstr(pod, "spec.nodeSelector.disk"), "ssd");
    assert_string_equal(jstr(pod, "spec.nodeSelector.zone"), "b");
    assert_string_equal(jstr(pod, "spec.schedulerName"), "volcano");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.requests.cpu"), "0.5");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.limits.cpu"), "2");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.limits.memory"),
                        "4505Mi"); /* (int)(0.1 x 4096) */
    assert_string_equal(env_val(pod, "FOO"), "bar");
    char want[128];
    snprintf(want, sizeof want, "data-%s", app.app_id);
    assert_string_equal(jstr(pod, "metadata.labels.team"), want);
    assert_string_equal(json_string_value(json_object_get(jget(pod, "metadata.annotations"),
                                                          "yunikorn.apache.org/app-id")),
                        app.app_id);
    /* the auth secret only ever travels through a Secret */
    json_t *e = env_of(pod, "_SPARK_AUTH_SECRET");
    assert_non_null(e);
    assert_null(json_object_get(e, "value"));
    assert_string_equal(jstr(e, "valueFrom.secretKeyRef.name"), app.auth_secret_name);
    assert_string_equal(jstr(e, "valueFrom.secretKeyRef.key"), K8S_AUTH_SECRET_KEY);
    char *dump = json_dumps(pod, 0);
    assert_null(strstr(dump, "s3cr3t"));
    free(dump);
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_memory_formula(void **state)
{
    cs_conf *c = cs_conf_new();
    int64_t heap, total;
    assert_int_equal(cs_k8s_pod_memory_mib(c, "executor", &heap, &total, NULL), CS_OK);
    assert_int_equal(heap, 1024);
    assert_int_equal(total, 1408);
    cs_conf_set(c, "spark.executor.memory", "10g");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "executor", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 10240 + 1024);
    cs_conf_set(c, "spark.executor.memoryOverheadFactor", "0.2");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "executor", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 10240 + 2048);
    cs_conf_set(c, "spark.executor.memoryOverhead", "500");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "executor", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 10740);
    cs_conf_set(c, "spark.driver.memory", "512m");
    cs_conf_set(c, "spark.driver.minMemoryOverhead", "1g");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "driver", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 512 + 1024);
    cs_conf_set(c, "spark.kubernetes.memoryOverheadFactor", "0.5");
    cs_conf_unset(c, "spark.driver.minMemoryOverhead");
    cs_conf_set(c, "spark.driver.memory", "2g");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "driver", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 3072);
    cs_conf_set(c, "spark.memory.offHeap.enabled", "true");
    cs_conf_set(c, "spark.memory.offHeap.size", "1g");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "executor", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 10740 + 1024);
    assert_int_equal(cs_k8s_pod_memory_mib(c, "driver", &heap, &total, NULL), CS_OK);
    assert_int_equal(total, 3072);
    cs_error err = {0};
    cs_conf_set(c, "spark.driver.memory", "12q");
    assert_int_equal(cs_k8s_pod_memory_mib(c, "driver", &heap, &total, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.driver.memory"));
    cs_conf_free(c);
}

static void test_custom_resources(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.executor.resource.gpu.amount", "2");
    cs_conf_set(c, "spark.executor.resource.gpu.vendor", "nvidia.com");
    cs_conf_set(c, "spark.executor.resource.gpu.discoveryScript", "/opt/gpu.sh");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = executor_ok(c, &app, 1, NULL);
    assert_string_equal(json_string_value(json_object_get(
                            jget(pod, "spec.containers.0.resources.limits"), "nvidia.com/gpu")),
                        "2");
    json_decref(pod);
    cs_conf_unset(c, "spark.executor.resource.gpu.vendor");
    cs_error err = {0};
    assert_null(cs_k8s_executor_pod(c, &app, 1, 1, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "spark.executor.resource.gpu.vendor"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_missing_image_names_key(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_unset(c, "spark.kubernetes.container.image");
    expect_driver_error(c, "spark.kubernetes.container.image");
    cs_conf_free(c);
}

static void test_reserved_and_invalid_labels(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.label.spark-app-selector", "mine");
    expect_driver_error(c, "spark.kubernetes.driver.label.spark-app-selector");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.label.spark-role", "x");
    expect_driver_error(c, "reserved");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.label.team", "has space");
    expect_driver_error(c, "spark.kubernetes.driver.label.team");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.container.image.pullPolicy", "Sometimes");
    expect_driver_error(c, "spark.kubernetes.container.image.pullPolicy");
    cs_conf_free(c);
}

static void test_volumes_every_type(void **state)
{
    cs_conf *c = base_conf();
    const char *p = "spark.kubernetes.driver.volumes.";
    char k[200];
#define SETV(rest, v)                                                                              \
    do {                                                                                           \
        snprintf(k, sizeof k, "%s%s", p, rest);                                                    \
        cs_conf_set(c, k, v);                                                                      \
    } while (0)
    SETV("hostPath.logs.mount.path", "/logs");
    SETV("hostPath.logs.mount.readOnly", "true");
    SETV("hostPath.logs.options.path", "/var/log");
    SETV("hostPath.logs.options.type", "Directory");
    SETV("emptyDir.scratch.mount.path", "/scratch");
    SETV("emptyDir.scratch.mount.subPath", "sub");
    SETV("emptyDir.scratch.options.medium", "Memory");
    SETV("emptyDir.scratch.options.sizeLimit", "1Gi");
    SETV("persistentVolumeClaim.data.mount.path", "/data");
    SETV("persistentVolumeClaim.data.options.claimName", "my-claim");
    SETV("nfs.share.mount.path", "/share");
    SETV("nfs.share.mount.readOnly", "false");
    SETV("nfs.share.options.server", "nfs.example.com");
    SETV("nfs.share.options.path", "/exports");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    json_t *vols = jget(pod, "spec.volumes"), *mounts = jget(pod, "spec.containers.0.volumeMounts");
    json_t *v = find_by(vols, "name", "logs");
    assert_string_equal(jstr(v, "hostPath.path"), "/var/log");
    assert_string_equal(jstr(v, "hostPath.type"), "Directory");
    v = find_by(vols, "name", "scratch");
    assert_string_equal(jstr(v, "emptyDir.medium"), "Memory");
    assert_string_equal(jstr(v, "emptyDir.sizeLimit"), "1Gi");
    v = find_by(vols, "name", "data");
    assert_string_equal(jstr(v, "persistentVolumeClaim.claimName"), "my-claim");
    v = find_by(vols, "name", "share");
    assert_string_equal(jstr(v, "nfs.server"), "nfs.example.com");
    assert_string_equal(jstr(v, "nfs.path"), "/exports");
    json_t *m = find_by(mounts, "name", "logs");
    assert_string_equal(jstr(m, "mountPath"), "/logs");
    assert_true(json_is_true(json_object_get(m, "readOnly")));
    m = find_by(mounts, "name", "scratch");
    assert_string_equal(jstr(m, "subPath"), "sub");
    m = find_by(mounts, "name", "share");
    assert_true(json_is_false(json_object_get(m, "readOnly")));
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_volume_errors(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.volumes.hostPath.x.options.path", "/x");
    expect_driver_error(c, "spark.kubernetes.driver.volumes.hostPath.x.mount.path");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.volumes.cephfs.x.mount.path", "/x");
    expect_driver_error(c, "cephfs");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.volumes.persistentVolumeClaim.x.mount.path", "/x");
    expect_driver_error(c, "options.claimName");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.volumes.emptyDir.x.mount.path", "/x");
    cs_conf_set(c, "spark.kubernetes.driver.volumes.emptyDir.x.mount.readOnly", "maybe");
    expect_driver_error(c, "mount.readOnly");
    cs_conf_free(c);
    c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.volumes.emptyDir.Bad_Name.mount.path", "/x");
    expect_driver_error(c, "Bad_Name");
    cs_conf_free(c);
}

static void test_secrets(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.secrets.db-creds", "/etc/db");
    cs_conf_set(c, "spark.kubernetes.driver.secretKeyRef.DB_PASSWORD", "db-creds:password");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    json_t *v = find_by(jget(pod, "spec.volumes"), "name", "db-creds-volume");
    assert_string_equal(jstr(v, "secret.secretName"), "db-creds");
    json_t *m = find_by(jget(pod, "spec.containers.0.volumeMounts"), "name", "db-creds-volume");
    assert_string_equal(jstr(m, "mountPath"), "/etc/db");
    json_t *e = env_of(pod, "DB_PASSWORD");
    assert_string_equal(jstr(e, "valueFrom.secretKeyRef.name"), "db-creds");
    assert_string_equal(jstr(e, "valueFrom.secretKeyRef.key"), "password");
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_set(c, "spark.kubernetes.driver.secretKeyRef.BAD", "nocolon");
    expect_driver_error(c, "spark.kubernetes.driver.secretKeyRef.BAD");
    cs_conf_free(c);
}

static void test_local_dirs(void **state)
{
    cs_conf *c = base_conf();
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    char want[96];
    snprintf(want, sizeof want, "/var/data/spark-%s", app.unique_id);
    assert_string_equal(env_val(pod, "SPARK_LOCAL_DIRS"), want);
    json_t *v = find_by(jget(pod, "spec.volumes"), "name", "spark-local-dir-1");
    assert_true(json_is_object(json_object_get(v, "emptyDir")));
    assert_null(jget(v, "emptyDir.medium"));
    json_decref(pod);

    cs_conf_set(c, "spark.local.dir", "/tmp/a, /tmp/b");
    cs_conf_set(c, "spark.kubernetes.local.dirs.tmpfs", "true");
    pod = driver_ok(c, &app);
    assert_string_equal(env_val(pod, "SPARK_LOCAL_DIRS"), "/tmp/a,/tmp/b");
    v = find_by(jget(pod, "spec.volumes"), "name", "spark-local-dir-2");
    assert_string_equal(jstr(v, "emptyDir.medium"), "Memory");
    json_t *m = find_by(jget(pod, "spec.containers.0.volumeMounts"), "name", "spark-local-dir-2");
    assert_string_equal(jstr(m, "mountPath"), "/tmp/b");
    json_decref(pod);

    /* a user volume named spark-local-dir-* replaces the emptyDirs */
    cs_conf_set(
        c, "spark.kubernetes.driver.volumes.persistentVolumeClaim.spark-local-dir-x.mount.path",
        "/fast");
    cs_conf_set(
        c,
        "spark.kubernetes.driver.volumes.persistentVolumeClaim.spark-local-dir-x.options.claimName",
        "fast");
    pod = driver_ok(c, &app);
    assert_string_equal(env_val(pod, "SPARK_LOCAL_DIRS"), "/fast");
    assert_null(find_by(jget(pod, "spec.volumes"), "name", "spark-local-dir-1"));
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static const char *TEMPLATE = "apiVersion: v1\n"
                              "kind: Pod\n"
                              "metadata:\n"
                              "  name: ignored\n"
                              "  labels:\n"
                              "    from-template: \"yes\"\n"
                              "spec:\n"
                              "  restartPolicy: Always\n"
                              "  priorityClassName: high\n"
                              "  tolerations:\n"
                              "  - key: dedicated\n"
                              "    operator: Equal\n"
                              "    value: spark\n"
                              "    effect: NoSchedule\n"
                              "  volumes:\n"
                              "  - name: extra\n"
                              "    emptyDir: {}\n"
                              "  containers:\n"
                              "  - name: sidecar\n"
                              "    image: busybox\n"
                              "  - name: main\n"
                              "    image: overwritten\n"
                              "    securityContext:\n"
                              "      runAsUser: 185\n"
                              "    resources:\n"
                              "      limits:\n"
                              "        nvidia.com/gpu: 1\n"
                              "    env:\n"
                              "    - name: FROM_TEMPLATE\n"
                              "      value: \"1\"\n";

static void test_pod_template(void **state)
{
    char *path = write_tmp(TEMPLATE);
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.podTemplateFile", path);
    cs_conf_set(c, "spark.kubernetes.driver.podTemplateContainerName", "main");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "metadata.name"), app.driver_pod_name);
    assert_string_equal(jstr(pod, "metadata.labels.from-template"), "yes");
    assert_string_equal(jstr(pod, "metadata.labels.spark-role"), "driver");
    assert_string_equal(jstr(pod, "spec.restartPolicy"), "Never");
    assert_string_equal(jstr(pod, "spec.priorityClassName"), "high");
    assert_string_equal(jstr(pod, "spec.tolerations.0.key"), "dedicated");
    assert_non_null(find_by(jget(pod, "spec.volumes"), "name", "extra"));
    assert_non_null(find_by(jget(pod, "spec.volumes"), "name", "spark-conf-volume-driver"));
    json_t *main = find_by(jget(pod, "spec.containers"), "name", "main");
    assert_string_equal(jstr(main, "image"), "cspark:latest");
    assert_int_equal(json_integer_value(jget(main, "securityContext.runAsUser")), 185);
    assert_string_equal(jstr(main, "resources.limits.memory"), "1408Mi");
    assert_int_equal(
        json_integer_value(json_object_get(jget(main, "resources.limits"), "nvidia.com/gpu")), 1);
    assert_non_null(find_by(json_object_get(main, "env"), "name", "FROM_TEMPLATE"));
    assert_non_null(find_by(json_object_get(main, "env"), "name", "SPARK_APPLICATION_ID"));
    json_t *side = find_by(jget(pod, "spec.containers"), "name", "sidecar");
    assert_string_equal(jstr(side, "image"), "busybox");
    assert_null(json_object_get(side, "env"));
    json_decref(pod);

    /* without a container name the first container is Spark's */
    cs_conf_unset(c, "spark.kubernetes.driver.podTemplateContainerName");
    pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "spec.containers.0.name"), "sidecar");
    assert_string_equal(jstr(pod, "spec.containers.0.image"), "cspark:latest");
    json_decref(pod);

    /* an unknown container name: the first container, as Spark (with a warning) */
    cs_conf_set(c, "spark.kubernetes.driver.podTemplateContainerName", "nope");
    pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "spec.containers.0.name"), "sidecar");
    assert_string_equal(jstr(pod, "spec.containers.0.image"), "cspark:latest");
    json_decref(pod);
    cs_conf_unset(c, "spark.kubernetes.driver.podTemplateContainerName");
    /* a file: URI names the same template */
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s", path);
    cs_conf_set(c, "spark.kubernetes.driver.podTemplateFile", uri);
    pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "metadata.labels.from-template"), "yes");
    json_decref(pod);
    cs_conf_set(c, "spark.kubernetes.driver.podTemplateFile", "/nonexistent/t.yaml");
    cs_error err = {0};
    assert_null(cs_k8s_driver_pod(c, &app, &err));
    assert_int_equal(err.code, CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "spark.kubernetes.driver.podTemplateFile"));
    assert_non_null(strstr(err.msg, "/nonexistent/t.yaml"));
    unlink(path);
    free(path);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* ---- executor ----------------------------------------------------------------------------- */

static void test_executor_pod(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.executor.memory", "2g");
    cs_conf_set(c, "spark.executorEnv.EXTRA", "1");
    cs_conf_set(c, "spark.kubernetes.executor.label.exec", "e-{{EXECUTOR_ID}}");
    cs_conf_set(c, "spark.kubernetes.executor.annotation.note", "{{APP_ID}}/{{EXECUTOR_ID}}");
    cs_conf_set(c, "spark.kubernetes.executor.volumes.persistentVolumeClaim.d.mount.path", "/d");
    cs_conf_set(c, "spark.kubernetes.executor.volumes.persistentVolumeClaim.d.options.claimName",
                "claim-SPARK_EXECUTOR_ID");
    cs_conf_set(c, "spark.kubernetes.executor.node.selector.pool", "exec");
    cs_conf_set(c, "spark.authenticate", "true");
    cs_conf_set(c, "spark.authenticate.secret", "s3cr3t");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *owner =
        json_pack("{s:{s:s, s:s}}", "metadata", "name", app.driver_pod_name, "uid", "uid-123");
    json_t *pod = executor_ok(c, &app, 7, owner);
    char want[256];
    snprintf(want, sizeof want, "spark-pi-%s-exec-7", app.unique_id);
    assert_string_equal(jstr(pod, "metadata.name"), want);
    assert_string_equal(jstr(pod, "spec.hostname"), want);
    assert_string_equal(jstr(pod, "metadata.labels.spark-role"), "executor");
    assert_string_equal(jstr(pod, "metadata.labels.spark-exec-id"), "7");
    assert_string_equal(jstr(pod, "metadata.labels.spark-exec-resourceprofile-id"), "0");
    assert_string_equal(jstr(pod, "metadata.labels.spark-app-selector"), app.app_id);
    assert_string_equal(jstr(pod, "metadata.labels.exec"), "e-7");
    snprintf(want, sizeof want, "%s/7", app.app_id);
    assert_string_equal(jstr(pod, "metadata.annotations.note"), want);
    assert_string_equal(jstr(pod, "metadata.ownerReferences.0.uid"), "uid-123");
    assert_string_equal(jstr(pod, "metadata.ownerReferences.0.kind"), "Pod");
    assert_true(json_is_true(jget(pod, "metadata.ownerReferences.0.controller")));
    assert_string_equal(jstr(pod, "spec.restartPolicy"), "Never");
    assert_string_equal(jstr(pod, "spec.nodeSelector.pool"), "exec");
    assert_string_equal(jstr(pod, "spec.containers.0.name"), "spark-kubernetes-executor");
    assert_string_equal(jstr(pod, "spec.containers.0.args.0"), "executor");
    assert_int_equal(json_array_size(jget(pod, "spec.containers.0.ports")), 1);
    assert_string_equal(jstr(pod, "spec.containers.0.ports.0.name"), "blockmanager");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.requests.memory"), "2432Mi");
    assert_string_equal(jstr(pod, "spec.containers.0.resources.requests.cpu"), "2");
    snprintf(want, sizeof want, "spark://CoarseGrainedScheduler@%s.jobs.svc:7078",
             app.driver_svc_name);
    assert_string_equal(env_val(pod, "SPARK_DRIVER_URL"), want);
    assert_string_equal(env_val(pod, "SPARK_EXECUTOR_ID"), "7");
    assert_string_equal(env_val(pod, "SPARK_EXECUTOR_CORES"), "2");
    assert_string_equal(env_val(pod, "SPARK_EXECUTOR_MEMORY"), "2048m");
    assert_string_equal(env_val(pod, "SPARK_APPLICATION_ID"), app.app_id);
    assert_string_equal(env_val(pod, "SPARK_RESOURCE_PROFILE_ID"), "0");
    assert_string_equal(env_val(pod, "SPARK_CONF_DIR"), "/opt/spark/conf");
    assert_non_null(env_val(pod, "SPARK_LOCAL_DIRS"));
    assert_string_equal(env_val(pod, "EXTRA"), "1");
    assert_string_equal(jstr(env_of(pod, "SPARK_EXECUTOR_POD_IP"), "valueFrom.fieldRef.fieldPath"),
                        "status.podIP");
    assert_string_equal(
        jstr(env_of(pod, "SPARK_EXECUTOR_POD_NAME"), "valueFrom.fieldRef.fieldPath"),
        "metadata.name");
    json_t *auth = env_of(pod, "_SPARK_AUTH_SECRET");
    assert_null(json_object_get(auth, "value"));
    assert_string_equal(jstr(auth, "valueFrom.secretKeyRef.name"), app.auth_secret_name);
    char *dump = json_dumps(pod, 0);
    assert_null(strstr(dump, "s3cr3t"));
    free(dump);
    assert_string_equal(
        jstr(find_by(jget(pod, "spec.volumes"), "name", "d"), "persistentVolumeClaim.claimName"),
        "claim-7");
    assert_string_equal(jstr(find_by(jget(pod, "spec.volumes"), "name", "spark-conf-volume-exec"),
                             "configMap.name"),
                        app.exec_conf_map_name);
    json_decref(pod);

    /* no owner, explicit url, podNamePrefix, disabled conf map */
    cs_conf_set(c, "spark.kubernetes.executor.podNamePrefix", "custom");
    cs_conf_set(c, "spark.kubernetes.executor.disableConfigMap", "true");
    cs_error err = {0};
    pod = cs_k8s_executor_pod(c, &app, 1, 0, NULL, "spark://CoarseGrainedScheduler@10.0.0.1:7078",
                              &err);
    assert_non_null(pod);
    assert_string_equal(jstr(pod, "metadata.name"), "custom-exec-1");
    assert_null(jget(pod, "metadata.ownerReferences"));
    assert_string_equal(env_val(pod, "SPARK_DRIVER_URL"),
                        "spark://CoarseGrainedScheduler@10.0.0.1:7078");
    assert_string_equal(env_val(pod, "SPARK_EXECUTOR_CORES"), "1");
    assert_null(find_by(jget(pod, "spec.volumes"), "name", "spark-conf-volume-exec"));
    json_decref(pod);
    json_decref(owner);
    cs_k8s_app_free(&app);

    cs_conf_set(c, "spark.kubernetes.executor.podNamePrefix", "Bad_Prefix");
    assert_int_equal(cs_k8s_app_init(&app, c, NULL, NULL, 0, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.executor.podNamePrefix"));
    cs_conf_free(c);
}

/* spark.kubernetes.decommission.script: the executor container's preStop hook when
 * decommissioning is on (Spark's BasicExecutorFeatureStep); no hook when it is off or the key is
 * unset; a relative path is refused naming the key. */
static void test_decommission_script(void **state)
{
    (void)state;
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.decommission.script", "/opt/other.sh");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pod = executor_ok(c, &app, 1, NULL);
    assert_null(jget(pod, "spec.containers.0.lifecycle")); /* decommissioning off */
    json_decref(pod);
    cs_conf_set(c, "spark.decommission.enabled", "true");
    pod = executor_ok(c, &app, 1, NULL);
    json_t *cmd = jget(pod, "spec.containers.0.lifecycle.preStop.exec.command");
    assert_int_equal(json_array_size(cmd), 1);
    assert_string_equal(json_string_value(json_array_get(cmd, 0)), "/opt/other.sh");
    json_decref(pod);
    cs_conf_set(c, "spark.kubernetes.decommission.script", "decom.sh");
    cs_error err = {0};
    assert_null(cs_k8s_executor_pod(c, &app, 1, 1, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "spark.kubernetes.decommission.script: 'decom.sh'"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* spark.kubernetes.hadoop.configMapName: the ConfigMap mounted at /opt/hadoop/conf with
 * HADOOP_CONF_DIR there, in the driver and the executors (Spark's HadoopConf*FeatureStep). */
static void test_hadoop_conf_map(void **state)
{
    (void)state;
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.hadoop.configMapName", "hadoop-conf");
    k8s_app app;
    app_init_ok(&app, c);
    json_t *pods[2] = {driver_ok(c, &app), executor_ok(c, &app, 3, NULL)};
    for (int i = 0; i < 2; i++) {
        json_t *vol = find_by(jget(pods[i], "spec.volumes"), "name", "hadoop-properties");
        assert_string_equal(jstr(vol, "configMap.name"), "hadoop-conf");
        json_t *mount =
            find_by(jget(pods[i], "spec.containers.0.volumeMounts"), "name", "hadoop-properties");
        assert_string_equal(jstr(mount, "mountPath"), "/opt/hadoop/conf");
        assert_string_equal(env_val(pods[i], "HADOOP_CONF_DIR"), "/opt/hadoop/conf");
        json_decref(pods[i]);
    }
    cs_conf_set(c, "spark.kubernetes.hadoop.configMapName", "Not A Name");
    cs_error err = {0};
    assert_null(cs_k8s_driver_pod(c, &app, &err));
    assert_non_null(strstr(err.msg, "spark.kubernetes.hadoop.configMapName"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* ---- service, config map, secret, owner --------------------------------------------------- */

static void test_driver_service(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.label.team", "t");
    cs_conf_set(c, "spark.kubernetes.driver.service.annotation.a", "b");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *svc = cs_k8s_driver_service(c, &app, &err);
    assert_non_null(svc);
    assert_string_equal(jstr(svc, "kind"), "Service");
    assert_string_equal(jstr(svc, "metadata.name"), app.driver_svc_name);
    assert_string_equal(jstr(svc, "metadata.annotations.a"), "b");
    assert_string_equal(jstr(svc, "spec.clusterIP"), "None");
    assert_string_equal(jstr(svc, "spec.selector.spark-app-selector"), app.app_id);
    assert_string_equal(jstr(svc, "spec.selector.spark-role"), "driver");
    assert_string_equal(jstr(svc, "spec.selector.team"), "t");
    assert_int_equal(json_array_size(jget(svc, "spec.ports")), 3);
    assert_int_equal(json_integer_value(jget(svc, "spec.ports.0.port")), 7078);
    assert_string_equal(jstr(svc, "spec.ports.1.name"), "blockmanager");
    assert_int_equal(json_integer_value(jget(svc, "spec.ports.2.port")), 4040);
    json_decref(svc);
    cs_k8s_app_free(&app);
    /* a long app name switches to spark-<uid>-driver-svc */
    cs_conf_set(c, "spark.app.name", "a-very-long-application-name-that-goes-on-and-on-and-on");
    app_init_ok(&app, c);
    char want[64];
    snprintf(want, sizeof want, "spark-%s-driver-svc", app.unique_id);
    assert_string_equal(app.driver_svc_name, want);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_configmap(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.authenticate", "true");
    cs_conf_set(c, "spark.authenticate.secret", "s3cr3t");
    cs_conf_set(c, "spark.weird", "a=b:c\nd");
    k8s_app app;
    cs_error err = {0};
    assert_int_equal(
        cs_k8s_app_init(&app, c, "cspark_main", "/home/me/build/my job.so", 0, NULL, &err), CS_OK);
    assert_string_equal(app.upload_name, "my_job.so");
    const uint8_t so[] = {0x7f, 'E', 'L', 'F', 0, 1, 2};
    json_t *cm = cs_k8s_driver_configmap(c, &app, so, sizeof so, &err);
    assert_non_null(cm);
    assert_string_equal(jstr(cm, "metadata.name"), app.conf_map_name);
    const char *props =
        json_string_value(json_object_get(json_object_get(cm, "data"), "spark.properties"));
    assert_non_null(strstr(props, "spark.app.id="));
    assert_non_null(strstr(props, "spark.kubernetes.driver.pod.name="));
    assert_non_null(strstr(props, "spark.driver.host="));
    assert_null(strstr(props, "s3cr3t"));
    assert_null(strstr(props, "spark.authenticate.secret"));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(cm, "binaryData"), "my_job.so")),
        "f0VMRgABAg==");
    /* the driver's args point at the shipped file */
    json_t *pod = driver_ok(c, &app);
    assert_string_equal(jstr(pod, "spec.containers.0.args.5"), "local:///opt/spark/conf/my_job.so");
    json_decref(pod);

    /* identity round trip through spark.properties (what the driver pod reads) */
    cs_conf *back = cs_conf_new();
    assert_int_equal(
        cs_conf_parse_properties(back, "spark.properties", props, strlen(props), true, &err),
        CS_OK);
    assert_string_equal(cs_conf_get(back, "spark.weird"), "a=b:c\nd");
    k8s_app app2;
    assert_int_equal(cs_k8s_app_init(&app2, back, NULL, NULL, 0, NULL, &err), CS_OK);
    assert_string_equal(app2.app_id, app.app_id);
    assert_string_equal(app2.unique_id, app.unique_id);
    assert_string_equal(app2.prefix, app.prefix);
    assert_string_equal(app2.driver_pod_name, app.driver_pod_name);
    assert_string_equal(app2.driver_svc_name, app.driver_svc_name);
    assert_string_equal(app2.exec_conf_map_name, app.exec_conf_map_name);
    cs_k8s_app_free(&app2);
    cs_conf_free(back);
    json_decref(cm);

    cm = cs_k8s_executor_configmap(c, &app, NULL, 0, &err);
    assert_non_null(cm);
    assert_string_equal(jstr(cm, "metadata.name"), app.exec_conf_map_name);
    assert_null(json_object_get(cm, "binaryData"));
    json_decref(cm);

    /* too large: names the key and the sizes */
    cs_conf_set(c, "spark.kubernetes.configMap.maxSize", "2k");
    uint8_t *big = calloc(1, 4096);
    assert_null(cs_k8s_driver_configmap(c, &app, big, 4096, &err));
    assert_int_equal(err.code, CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.configMap.maxSize"));
    assert_non_null(strstr(err.msg, "2048"));
    assert_non_null(strstr(err.msg, "4096"));
    free(big);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* --files without an upload path: both ConfigMaps carry them beside the .so; a name that is not
 * a ConfigMap key or is taken is refused naming spark.kubernetes.file.upload.path, and the size
 * limit counts them. */
static void test_configmap_shipped_files(void **state)
{
    (void)state;
    cs_conf *c = base_conf();
    k8s_app app;
    cs_error err = {0};
    assert_int_equal(cs_k8s_app_init(&app, c, NULL, "/b/job.so", 0, NULL, &err), CS_OK);
    assert_int_equal(
        cs_k8s_app_add_shipped(&app, "lookup.csv", (uint8_t *)strdup("a,1\n"), 4, &err), CS_OK);
    assert_int_equal(cs_k8s_app_add_shipped(&app, "job.so", (uint8_t *)strdup("x"), 1, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "taken"));
    assert_non_null(strstr(err.msg, "spark.kubernetes.file.upload.path"));
    assert_int_equal(cs_k8s_app_add_shipped(&app, "a b.txt", (uint8_t *)strdup("x"), 1, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "not a valid ConfigMap key"));
    assert_int_equal(cs_k8s_app_add_shipped(&app, "lookup.csv", (uint8_t *)strdup("x"), 1, &err),
                     CS_EINVAL);
    const uint8_t so[] = {1, 2, 3};
    json_t *cm = cs_k8s_driver_configmap(c, &app, so, sizeof so, &err);
    assert_non_null(cm);
    json_t *bin = json_object_get(cm, "binaryData");
    assert_string_equal(json_string_value(json_object_get(bin, "lookup.csv")), "YSwxCg==");
    assert_string_equal(json_string_value(json_object_get(bin, "job.so")), "AQID");
    json_decref(cm);
    cm = cs_k8s_executor_configmap(c, &app, NULL, 0, &err);
    assert_non_null(cm);
    bin = json_object_get(cm, "binaryData");
    assert_string_equal(json_string_value(json_object_get(bin, "lookup.csv")), "YSwxCg==");
    assert_null(json_object_get(bin, "job.so"));
    json_decref(cm);
    cs_conf_set(c, "spark.kubernetes.configMap.maxSize", "100");
    assert_null(cs_k8s_driver_configmap(c, &app, so, sizeof so, &err));
    assert_non_null(strstr(err.msg, "--files/--archives (4 bytes)"));
    assert_non_null(strstr(err.msg, "set spark.kubernetes.file.upload.path"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_auth_secret(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.authenticate.secret", "s3cr3t");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *s = cs_k8s_auth_secret(c, &app, &err);
    assert_string_equal(jstr(s, "kind"), "Secret");
    assert_string_equal(jstr(s, "metadata.name"), app.auth_secret_name);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(s, "data"), K8S_AUTH_SECRET_KEY)),
        "czNjcjN0");
    json_decref(s);
    cs_conf_unset(c, "spark.authenticate.secret");
    s = cs_k8s_auth_secret(c, &app, &err);
    assert_int_equal(
        strlen(json_string_value(json_object_get(json_object_get(s, "data"), K8S_AUTH_SECRET_KEY))),
        88);
    json_decref(s);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* A credential of the driver's conf (spark.connect.authenticate.token) is in neither ConfigMap
 * nor any pod spec: the auth Secret holds it under SPARK_CONNECT_AUTHENTICATE_TOKEN, which the
 * driver's container reads through secretKeyRef; executors get no such variable. */
static void test_connect_token_kept_out_of_configmaps(void **state)
{
    cs_conf *c = base_conf();
    assert_false(cs_k8s_has_conf_secrets(c));
    cs_conf_set(c, "spark.connect.authenticate.token", "t0k3n-value");
    assert_true(cs_k8s_has_conf_secrets(c));
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *objs[4];
    objs[0] = cs_k8s_driver_configmap(c, &app, NULL, 0, &err);
    objs[1] = cs_k8s_executor_configmap(c, &app, NULL, 0, &err);
    objs[2] = driver_ok(c, &app);
    objs[3] = executor_ok(c, &app, 1, NULL);
    for (int i = 0; i < 4; i++) {
        assert_non_null(objs[i]);
        char *dump = json_dumps(objs[i], 0);
        assert_null(strstr(dump, "t0k3n-value"));
        assert_null(strstr(dump, "spark.connect.authenticate.token"));
        free(dump);
    }
    json_t *tok = env_of(objs[2], "SPARK_CONNECT_AUTHENTICATE_TOKEN");
    assert_string_equal(jstr(tok, "valueFrom.secretKeyRef.name"), app.auth_secret_name);
    assert_string_equal(jstr(tok, "valueFrom.secretKeyRef.key"),
                        "SPARK_CONNECT_AUTHENTICATE_TOKEN");
    assert_null(env_of(objs[3], "SPARK_CONNECT_AUTHENTICATE_TOKEN"));
    for (int i = 0; i < 4; i++)
        json_decref(objs[i]);
    json_t *secret = cs_k8s_auth_secret(c, &app, &err);
    cs_k8s_add_conf_secrets(secret, c);
    assert_string_equal(json_string_value(json_object_get(json_object_get(secret, "data"),
                                                          "SPARK_CONNECT_AUTHENTICATE_TOKEN")),
                        "dDBrM24tdmFsdWU="); /* base64 of t0k3n-value */
    json_decref(secret);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_set_owner(void **state)
{
    json_t *obj = json_pack("{s:{s:s}}", "metadata", "name", "x");
    json_t *drv = json_pack("{s:{s:s}}", "metadata", "name", "d");
    cs_error err = {0};
    assert_int_equal(cs_k8s_set_owner(obj, drv, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "uid"));
    json_object_set_new(json_object_get(drv, "metadata"), "uid", json_string("u1"));
    assert_int_equal(cs_k8s_set_owner(obj, drv, &err), CS_OK);
    assert_int_equal(cs_k8s_set_owner(obj, drv, &err), CS_OK); /* idempotent */
    assert_int_equal(json_array_size(jget(obj, "metadata.ownerReferences")), 1);
    assert_string_equal(jstr(obj, "metadata.ownerReferences.0.apiVersion"), "v1");
    assert_string_equal(jstr(obj, "metadata.ownerReferences.0.name"), "d");
    assert_true(json_is_true(jget(obj, "metadata.ownerReferences.0.blockOwnerDeletion")));
    json_decref(obj);
    json_decref(drv);
}

static void test_on_demand_claims(void **state)
{
    cs_conf *c = base_conf();
    const char *p = "spark.kubernetes.executor.volumes.persistentVolumeClaim.work.";
    char k[200];
    snprintf(k, sizeof k, "%smount.path", p);
    cs_conf_set(c, k, "/work");
    snprintf(k, sizeof k, "%soptions.claimName", p);
    cs_conf_set(c, k, "OnDemand");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    assert_null(cs_k8s_executor_pod(c, &app, 3, 1, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "persistentVolumeClaim.work.options.sizeLimit"));
    snprintf(k, sizeof k, "%soptions.sizeLimit", p);
    cs_conf_set(c, k, "10Gi");
    snprintf(k, sizeof k, "%soptions.storageClass", p);
    cs_conf_set(c, k, "standard");
    json_t *pod = executor_ok(c, &app, 3, NULL);
    char want[256];
    snprintf(want, sizeof want, "%s-exec-3-pvc-0", app.prefix);
    assert_string_equal(
        jstr(find_by(jget(pod, "spec.volumes"), "name", "work"), "persistentVolumeClaim.claimName"),
        want);
    snprintf(k, sizeof k, "%slabel.tier", p);
    cs_conf_set(c, k, "scratch-{{EXECUTOR_ID}}");
    snprintf(k, sizeof k, "%sannotation.team", p);
    cs_conf_set(c, k, "data");
    json_t *pvcs = cs_k8s_executor_pvcs(c, &app, pod, &err);
    assert_int_equal(json_array_size(pvcs), 1);
    json_t *pvc = json_array_get(pvcs, 0);
    assert_string_equal(jstr(pvc, "kind"), "PersistentVolumeClaim");
    assert_string_equal(jstr(pvc, "metadata.name"), want);
    assert_string_equal(jstr(pvc, "metadata.namespace"), "jobs");
    /* Spark's labels: the application and the user's; a reused claim moves between executors,
     * so it names none */
    assert_int_equal(json_object_size(jget(pvc, "metadata.labels")), 2);
    assert_string_equal(jstr(pvc, "metadata.labels.spark-app-selector"), app.app_id);
    assert_string_equal(jstr(pvc, "metadata.labels.tier"), "scratch-3");
    assert_string_equal(jstr(pvc, "metadata.annotations.team"), "data");
    assert_null(jget(pvc, "metadata.ownerReferences")); /* set by the backend when it creates it */
    assert_string_equal(jstr(pvc, "spec.accessModes.0"), "ReadWriteOncePod");
    assert_string_equal(jstr(pvc, "spec.resources.requests.storage"), "10Gi");
    assert_string_equal(jstr(pvc, "spec.storageClassName"), "standard");
    json_decref(pvcs);
    cs_conf_set(c, "spark.kubernetes.legacy.useReadWriteOnceAccessMode", "true");
    pvcs = cs_k8s_executor_pvcs(c, &app, pod, &err);
    assert_string_equal(jstr(json_array_get(pvcs, 0), "spec.accessModes.0"), "ReadWriteOnce");
    json_decref(pvcs);
    json_decref(pod);
    int on_demand = 0;
    assert_int_equal(cs_k8s_executor_check(c, &app, &on_demand, &err), CS_OK);
    assert_int_equal(on_demand, 1);
    /* no storage class: the cluster's default class (Kubernetes' rule) */
    snprintf(k, sizeof k, "%soptions.storageClass", p);
    cs_conf_unset(c, k);
    pod = executor_ok(c, &app, 3, NULL);
    pvcs = cs_k8s_executor_pvcs(c, &app, pod, &err);
    assert_null(jget(json_array_get(pvcs, 0), "spec.storageClassName"));
    json_decref(pvcs);
    json_decref(pod);
    /* bad values: one line naming the key, from the pod, the claims and the check alike */
    static const struct {
        const char *opt, *value, *needle;
    } bad[] = {
        {"options.storageClass", "Fast_SSD",
         "options.storageClass: 'Fast_SSD' (expected a StorageClass name"},
        {"options.storageClass", "-ssd", "options.storageClass: '-ssd'"},
        {"options.sizeLimit", "ten", "options.sizeLimit: 'ten' (expected a positive quantity"},
        {"options.sizeLimit", "0", "options.sizeLimit: '0'"},
        {"options.sizeLimit", "-5Gi", "options.sizeLimit: '-5Gi'"},
        {"options.sizeLimit", "10GB", "options.sizeLimit: '10GB'"},
        {"options.sizeLimit", "", "options.sizeLimit: ''"},
        {"label.tier", "bad value!", "label.tier: 'bad value!'"},
        {"label.spark-app-selector", "x", "label spark-app-selector is reserved"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_conf *b = cs_conf_clone(c);
        snprintf(k, sizeof k, "%s%s", p, bad[i].opt);
        cs_conf_set(b, k, bad[i].value);
        cs_error_clear(&err);
        assert_int_equal(cs_k8s_executor_check(b, &app, NULL, &err), CS_EINVAL);
        if (!strstr(err.msg, bad[i].needle) || !strstr(err.msg, "persistentVolumeClaim.work."))
            fail_msg("%s=%s: error '%s' lacks '%s'", k, bad[i].value, err.msg, bad[i].needle);
        if (strchr(err.msg, '\n')) fail_msg("not one line: %s", err.msg);
        cs_conf_free(b);
    }
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

/* The driver's OnDemand claims: Spark's name <prefix>-driver-pvc-<index>, the same options and
 * checks as an executor's; cspark-submit creates them (owned by the driver pod). */
static void test_driver_on_demand_claims(void **state)
{
    cs_conf *c = base_conf();
    const char *p = "spark.kubernetes.driver.volumes.persistentVolumeClaim.spark-local-dir-1.";
    char k[200];
    snprintf(k, sizeof k, "%smount.path", p);
    cs_conf_set(c, k, "/scratch");
    snprintf(k, sizeof k, "%soptions.claimName", p);
    cs_conf_set(c, k, "OnDemand");
    cs_conf_set(c, "spark.kubernetes.driver.pod.name", "my-driver"); /* not in the claim's name */
    expect_driver_error(c, "persistentVolumeClaim.spark-local-dir-1.options.sizeLimit is required");
    snprintf(k, sizeof k, "%soptions.sizeLimit", p);
    cs_conf_set(c, k, "2Gi");
    snprintf(k, sizeof k, "%soptions.storageClass", p);
    cs_conf_set(c, k, "fast");
    snprintf(k, sizeof k, "%slabel.tier", p);
    cs_conf_set(c, k, "driver-scratch");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *pod = cs_k8s_driver_pod(c, &app, &err);
    assert_non_null(pod);
    char want[256];
    snprintf(want, sizeof want, "%s-driver-pvc-0", app.prefix);
    assert_string_equal(jstr(find_by(jget(pod, "spec.volumes"), "name", "spark-local-dir-1"),
                             "persistentVolumeClaim.claimName"),
                        want);
    json_t *pvcs = cs_k8s_driver_pvcs(c, &app, &err);
    assert_int_equal(json_array_size(pvcs), 1);
    json_t *pvc = json_array_get(pvcs, 0);
    assert_string_equal(jstr(pvc, "metadata.name"), want);
    assert_string_equal(jstr(pvc, "metadata.labels.spark-app-selector"), app.app_id);
    assert_string_equal(jstr(pvc, "metadata.labels.tier"), "driver-scratch");
    assert_string_equal(jstr(pvc, "spec.accessModes.0"), "ReadWriteOncePod");
    assert_string_equal(jstr(pvc, "spec.resources.requests.storage"), "2Gi");
    assert_string_equal(jstr(pvc, "spec.storageClassName"), "fast");
    assert_null(jget(pvc, "metadata.ownerReferences")); /* set by cspark-submit */
    json_decref(pvcs);
    json_decref(pod);
    /* no OnDemand volume: no claim */
    cs_conf *plain = base_conf();
    pvcs = cs_k8s_driver_pvcs(plain, &app, &err);
    assert_int_equal(json_array_size(pvcs), 0);
    json_decref(pvcs);
    cs_conf_free(plain);
    /* a bad size: one line naming the key */
    snprintf(k, sizeof k, "%soptions.sizeLimit", p);
    cs_conf_set(c, k, "10GB");
    assert_null(cs_k8s_driver_pvcs(c, &app, &err));
    assert_non_null(strstr(err.msg, "spark-local-dir-1.options.sizeLimit: '10GB'"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_executor_template_shipped(void **state)
{
    char *path = write_tmp("spec:\n  containers:\n  - name: x\n");
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.executor.podTemplateFile", path);
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *cm = cs_k8s_driver_configmap(c, &app, NULL, 0, &err);
    assert_non_null(cm);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(cm, "data"), "pod-spec-template.yml")),
        "spec:\n  containers:\n  - name: x\n");
    json_decref(cm);
    unlink(path);
    assert_null(cs_k8s_driver_configmap(c, &app, NULL, 0, &err));
    assert_int_equal(err.code, CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "spark.kubernetes.executor.podTemplateFile"));
    assert_non_null(strstr(err.msg, path));
    free(path);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_app_init_errors(void **state)
{
    cs_conf *c = base_conf();
    k8s_app app;
    cs_error err = {0};
    cs_conf_set(c, "spark.kubernetes.namespace", "Bad_NS");
    assert_int_equal(cs_k8s_app_init(&app, c, NULL, NULL, 0, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.namespace"));
    cs_conf_set(c, "spark.kubernetes.namespace", "ok");
    cs_conf_set(c, "spark.kubernetes.driver.pod.name", "Nope!");
    assert_int_equal(cs_k8s_app_init(&app, c, NULL, NULL, 0, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.driver.pod.name"));
    cs_conf_set(c, "spark.kubernetes.driver.pod.name", "my-driver");
    cs_conf_set(c, "spark.app.name", "CAPS_and_underscores__");
    assert_int_equal(cs_k8s_app_init(&app, c, NULL, "local:///x.so", 0, NULL, &err), CS_OK);
    assert_string_equal(app.driver_pod_name, "my-driver");
    assert_string_equal(app.name_label, "caps-and-underscores");
    assert_null(app.upload_name);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_basic),
        cmocka_unit_test(test_driver_options),
        cmocka_unit_test(test_memory_formula),
        cmocka_unit_test(test_custom_resources),
        cmocka_unit_test(test_missing_image_names_key),
        cmocka_unit_test(test_reserved_and_invalid_labels),
        cmocka_unit_test(test_volumes_every_type),
        cmocka_unit_test(test_volume_errors),
        cmocka_unit_test(test_secrets),
        cmocka_unit_test(test_local_dirs),
        cmocka_unit_test(test_pod_template),
        cmocka_unit_test(test_executor_pod),
        cmocka_unit_test(test_decommission_script),
        cmocka_unit_test(test_hadoop_conf_map),
        cmocka_unit_test(test_driver_service),
        cmocka_unit_test(test_configmap),
        cmocka_unit_test(test_configmap_shipped_files),
        cmocka_unit_test(test_auth_secret),
        cmocka_unit_test(test_connect_token_kept_out_of_configmaps),
        cmocka_unit_test(test_set_owner),
        cmocka_unit_test(test_on_demand_claims),
        cmocka_unit_test(test_driver_on_demand_claims),
        cmocka_unit_test(test_executor_template_shipped),
        cmocka_unit_test(test_app_init_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
