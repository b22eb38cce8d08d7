/* test_k8s_manifests.c — builds the full set of objects of one rich application (driver pod
 * with volumes of every type, secrets, env from secrets, a pod template with a sidecar, auth;
 * its Service, ConfigMaps with the job .so, auth Secret; an executor pod owned by the driver)
 * and checks they survive the YAML dry-run round trip. When CSPARK_K8S_DUMP_DIR is set it also
 * writes them there as NN-<kind>.json plus manifests.yaml, for tests/k8s/validate_manifests.py
 * (run by tests/k8s/manifests_schema.sh) to check against the Kubernetes schema. */
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
#include "cluster/k8s/k8s_yaml.h"
#include "kube/kube_yaml.h"

static const char *DRIVER_TEMPLATE = "apiVersion: v1\n"
                                     "kind: Pod\n"
                                     "metadata:\n"
                                     "  labels:\n"
                                     "    template: driver\n"
                                     "  annotations:\n"
                                     "    prometheus.io/scrape: \"true\"\n"
                                     "spec:\n"
                                     "  priorityClassName: spark-high\n"
                                     "  securityContext:\n"
                                     "    runAsUser: 185\n"
                                     "    fsGroup: 185\n"
                                     "  tolerations:\n"
                                     "  - key: dedicated\n"
                                     "    operator: Equal\n"
                                     "    value: spark\n"
                                     "    effect: NoSchedule\n"
                                     "  affinity:\n"
                                     "    nodeAffinity:\n"
                                     "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                                     "        nodeSelectorTerms:\n"
                                     "        - matchExpressions:\n"
                                     "          - key: kubernetes.io/arch\n"
                                     "            operator: In\n"
                                     "            values: [amd64, arm64]\n"
                                     "  initContainers:\n"
                                     "  - name: init\n"
                                     "    image: busybox:1.36\n"
                                     "    command: [sh, -c, \"echo init\"]\n"
                                     "  containers:\n"
                                     "  - name: log-shipper\n"
                                     "    image: fluent-bit:2\n"
                                     "    resources:\n"
                                     "      requests:\n"
                                     "        cpu: 100m\n"
                                     "  - name: spark\n"
                                     "    securityContext:\n"
                                     "      allowPrivilegeEscalation: false\n"
                                     "    resources:\n"
                                     "      limits:\n"
                                     "        nvidia.com/gpu: \"1\"\n"
                                     "    env:\n"
                                     "    - name: TEMPLATE_ENV\n"
                                     "      value: \"1\"\n";

static const char *EXECUTOR_TEMPLATE = "apiVersion: v1\n"
                                       "kind: Pod\n"
                                       "spec:\n"
                                       "  containers:\n"
                                       "  - name: exec\n"
                                       "    readinessProbe:\n"
                                       "      tcpSocket:\n"
                                       "        port: 7079\n"
                                       "      periodSeconds: 5\n";

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/k8s_manifest_tpl_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void set_all(cs_conf *c, const char *const *kv)
{
    for (; kv[0]; kv += 2)
        cs_conf_set(c, kv[0], kv[1]);
}

static void test_rich_manifests(void **state)
{
    char *dtpl = write_tmp(DRIVER_TEMPLATE), *etpl = write_tmp(EXECUTOR_TEMPLATE);
    cs_conf *c = cs_conf_new();
    /* clang-format off */
    const char *const kv[] = {
        "spark.app.name", "Rich_Manifest Test",
        "spark.kubernetes.namespace", "spark-jobs",
        "spark.kubernetes.container.image", "registry.example.com/cspark:{{SPARK_VERSION}}",
        "spark.kubernetes.container.image.pullSecrets", "regcred",
        "spark.kubernetes.authenticate.driver.serviceAccountName", "spark",
        "spark.kubernetes.node.selector.pool", "batch",
        "spark.kubernetes.scheduler.name", "volcano",
        "spark.kubernetes.driver.request.cores", "500m",
        "spark.kubernetes.driver.limit.cores", "2",
        "spark.kubernetes.executor.limit.cores", "4",
        "spark.driver.memory", "2g",
        "spark.executor.memory", "4g",
        "spark.executor.memoryOverhead", "1g",
        "spark.kubernetes.driverEnv.MODE", "rich",
        "spark.executorEnv.MODE", "rich",
        "spark.kubernetes.driver.label.team", "data",
        "spark.kubernetes.driver.annotation.yunikorn.apache.org/app-id", "{{APP_ID}}",
        "spark.kubernetes.executor.label.exec-of", "{{APP_ID}}",
        "spark.kubernetes.executor.annotation.exec", "{{EXECUTOR_ID}}",
        "spark.kubernetes.driver.service.label.svc", "yes",
        "spark.kubernetes.driver.podTemplateFile", dtpl,
        "spark.kubernetes.driver.podTemplateContainerName", "spark",
        "spark.kubernetes.executor.podTemplateFile", etpl,
        "spark.kubernetes.driver.secrets.db-creds", "/etc/secrets/db",
        "spark.kubernetes.driver.secretKeyRef.DB_PASSWORD", "db-creds:password",
        "spark.kubernetes.executor.secrets.db-creds", "/etc/secrets/db",
        "spark.kubernetes.executor.secretKeyRef.DB_PASSWORD", "db-creds:password",
        "spark.kubernetes.driver.volumes.hostPath.logs.mount.path", "/logs",
        "spark.kubernetes.driver.volumes.hostPath.logs.mount.readOnly", "true",
        "spark.kubernetes.driver.volumes.hostPath.logs.options.path", "/var/log/spark",
        "spark.kubernetes.driver.volumes.hostPath.logs.options.type", "DirectoryOrCreate",
        "spark.kubernetes.driver.volumes.emptyDir.scratch.mount.path", "/scratch",
        "spark.kubernetes.driver.volumes.emptyDir.scratch.mount.subPath", "sub",
        "spark.kubernetes.driver.volumes.emptyDir.scratch.options.medium", "Memory",
        "spark.kubernetes.driver.volumes.emptyDir.scratch.options.sizeLimit", "1Gi",
        "spark.kubernetes.driver.volumes.persistentVolumeClaim.data.mount.path", "/data",
        "spark.kubernetes.driver.volumes.persistentVolumeClaim.data.options.claimName", "data-claim",
        "spark.kubernetes.driver.volumes.nfs.share.mount.path", "/share",
        "spark.kubernetes.driver.volumes.nfs.share.mount.subPathExpr", "$(POD_NAME)",
        "spark.kubernetes.driver.volumes.nfs.share.options.server", "nfs.example.com",
        "spark.kubernetes.driver.volumes.nfs.share.options.path", "/exports/spark",
        "spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.mount.path", "/local",
        "spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.options.claimName", "OnDemand",
        "spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.options.sizeLimit", "100Gi",
        "spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.options.storageClass", "fast-ssd",
        "spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1.label.tier", "scratch",
        "spark.kubernetes.executor.volumes.nfs.share.mount.path", "/share",
        "spark.kubernetes.executor.volumes.nfs.share.mount.readOnly", "true",
        "spark.kubernetes.executor.volumes.nfs.share.options.server", "nfs.example.com",
        "spark.kubernetes.executor.volumes.nfs.share.options.path", "/exports/spark",
        "spark.kubernetes.executor.terminationGracePeriodSeconds", "45s",
        "spark.local.dir", "/tmp/spark-a,/tmp/spark-b",
        "spark.kubernetes.local.dirs.tmpfs", "true",
        "spark.authenticate", "true",
        "spark.authenticate.secret", "not-in-any-manifest-but-the-secret",
        NULL};
    /* clang-format on */
    set_all(c, kv);
    k8s_app app;
    cs_error err = {0};
    char *argv[] = {"--input", "/data/in", "100"};
    if (cs_k8s_app_init(&app, c, "cspark_main", "/home/me/jobs/rich.so", 3, argv, &err))
        fail_msg("%s", err.msg);
    json_t *objs[10];
    int n = 0;
    json_t *driver = cs_k8s_driver_pod(c, &app, &err);
    if (!driver) fail_msg("driver: %s", err.msg);
    /* what the API server returns from the create call */
    json_t *created = json_deep_copy(driver);
    json_object_set_new(json_object_get(created, "metadata"), "uid",
                        json_string("6f2c1a8e-0d7b-4c55-9f0e-3a1b2c3d4e5f"));
    json_t *svc = cs_k8s_driver_service(c, &app, &err);
    if (!svc) fail_msg("service: %s", err.msg);
    static const uint8_t so[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    json_t *cm = cs_k8s_driver_configmap(c, &app, so, sizeof so, &err);
    if (!cm) fail_msg("configmap: %s", err.msg);
    json_t *ecm = cs_k8s_executor_configmap(c, &app, so, sizeof so, &err);
    if (!ecm) fail_msg("exec configmap: %s", err.msg);
    json_t *sec = cs_k8s_auth_secret(c, &app, &err);
    if (!sec) fail_msg("secret: %s", err.msg);
    assert_int_equal(cs_k8s_set_owner(svc, created, &err), CS_OK);
    assert_int_equal(cs_k8s_set_owner(cm, created, &err), CS_OK);
    assert_int_equal(cs_k8s_set_owner(ecm, created, &err), CS_OK);
    assert_int_equal(cs_k8s_set_owner(sec, created, &err), CS_OK);
    json_t *exec = cs_k8s_executor_pod(c, &app, 1, 4, created, NULL, &err);
    if (!exec) fail_msg("executor: %s", err.msg);
    json_t *exec2 = cs_k8s_executor_pod(c, &app, 12, 4, created, NULL, &err);
    if (!exec2) fail_msg("executor: %s", err.msg);
    objs[n++] = driver;
    objs[n++] = svc;
    objs[n++] = cm;
    objs[n++] = ecm;
    objs[n++] = sec;
    objs[n++] = exec;
    objs[n++] = exec2;
    json_t *pvcs = cs_k8s_executor_pvcs(c, &app, exec, &err);
    if (!pvcs) fail_msg("pvcs: %s", err.msg);
    assert_int_equal(json_array_size(pvcs), 1);
    json_t *pvc = json_incref(json_array_get(pvcs, 0));
    json_decref(pvcs);
    assert_int_equal(cs_k8s_set_owner(pvc, created, &err), CS_OK);
    objs[n++] = pvc;
    /* the executor template travels inside the driver's conf map */
    json_t *data = json_object_get(cm, "data");
    assert_string_equal(json_string_value(json_object_get(data, "pod-spec-template.yml")),
                        EXECUTOR_TEMPLATE);
    assert_non_null(strstr(json_string_value(json_object_get(data, "spark.properties")),
                           "spark.kubernetes.executor.podTemplateFile=" K8S_EXEC_TEMPLATE_PATH));

    /* the secret value appears only in the Secret (base64) */
    for (int i = 0; i < n; i++) {
        char *s = json_dumps(objs[i], 0);
        assert_null(strstr(s, "not-in-any-manifest-but-the-secret"));
        free(s);
    }
    /* YAML dry run reads back as the same objects */
    char *yaml = cs_k8s_yaml_dump(objs, n, &err);
    assert_non_null(yaml);
    const char *doc = yaml;
    for (int i = 0; i < n; i++) {
        doc = strstr(doc, "---\n");
        assert_non_null(doc);
        doc += 4;
        const char *next = strstr(doc, "\n---\n");
        size_t len = next ? (size_t)(next - doc) + 1 : strlen(doc);
        json_t *back = cs_kube_yaml_load("dry-run", doc, len, KUBE_YAML_TYPED, &err);
        if (!back) fail_msg("reload: %s", err.msg);
        if (!json_equal(back, objs[i]))
            fail_msg("document %d differs after the YAML round trip", i);
        json_decref(back);
    }

    const char *dir = getenv("CSPARK_K8S_DUMP_DIR");
    if (dir && *dir) {
        static const char *const names[] = {
            "driver-pod",  "driver-service", "driver-configmap", "executor-configmap",
            "auth-secret", "executor-pod-1", "executor-pod-12",  "executor-pvc-1"};
        char path[1024];
        for (int i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/%02d-%s.json", dir, i + 1, names[i]);
            assert_int_equal(json_dump_file(objs[i], path, JSON_INDENT(2) | JSON_PRESERVE_ORDER),
                             0);
        }
        snprintf(path, sizeof path, "%s/manifests.yaml", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(cs_k8s_write_yaml(f, objs, n, &err), CS_OK);
        fclose(f);
    }
    free(yaml);
    for (int i = 0; i < n; i++)
        json_decref(objs[i]);
    json_decref(created);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
    unlink(dtpl);
    unlink(etpl);
    free(dtpl);
    free(etpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rich_manifests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
