/* test_operator_pod_template.c — unit tests for the pod template the operator builds from a
 * SparkApplication's spec (src/operator/app_pod_template.c): the volumes a role's mounts name,
 * configMaps and secrets as volumes, valueFrom env and envFrom, affinity and tolerations; the
 * Kubeflow pod fields (sidecars, init containers, gpu, security contexts, host network, DNS, host
 * aliases, lifecycle, ports, grace period, priority class, shared process namespace); a role's
 * own template as the base, its Spark container found, named and put first; no template for a
 * role without such fields; a mount naming no volume, a sidecar without an image, a gpu without
 * a quantity refused naming the field; and the template as written for the submit code (indented
 * JSON) read back by its YAML loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kube/kube_yaml.h"
#include "operator/app_pod_template.h"

static const char *spec_text =
    "{\"volumes\": [{\"name\": \"scratch\", \"emptyDir\": {}},"
    "               {\"name\": \"unused\", \"emptyDir\": {}}],"
    " \"driver\": {\"volumeMounts\": [{\"name\": \"scratch\", \"mountPath\": \"/scratch\"}],"
    "   \"configMaps\": [{\"name\": \"conf\", \"path\": \"/etc/conf\"}],"
    "   \"secrets\": [{\"name\": \"gcp\", \"path\": \"/etc/gcp\", \"secretType\": "
    "\"GCPServiceAccount\"}],"
    "   \"env\": [{\"name\": \"PLAIN\", \"value\": \"x\"},"
    "           {\"name\": \"NODE\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": "
    "\"spec.nodeName\"}}}],"
    "   \"envFrom\": [{\"configMapRef\": {\"name\": \"conf\"}}],"
    "   \"tolerations\": [{\"key\": \"k\", \"operator\": \"Exists\"}],"
    "   \"affinity\": {\"nodeAffinity\": {}}, \"cores\": 1},"
    " \"executor\": {\"cores\": 1, \"tolerations\": []}}";

static json_t *load_spec(void)
{
    json_error_t je;
    json_t *spec = json_loads(spec_text, 0, &je);
    assert_non_null(spec);
    return spec;
}

static const char *str_at(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static void test_driver_template(void **state)
{
    json_t *spec = load_spec(), *tpl = NULL;
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "driver", &tpl, &err), 0);
    assert_non_null(tpl);
    assert_string_equal(str_at(tpl, "kind"), "Pod");
    const json_t *ps = json_object_get(tpl, "spec");
    const json_t *vols = json_object_get(ps, "volumes");
    assert_int_equal(json_array_size(vols), 3); /* scratch, not unused; the ConfigMap, the Secret */
    assert_string_equal(str_at(json_array_get(vols, 0), "name"), "scratch");
    assert_string_equal(str_at(json_array_get(vols, 1), "name"), "configmap-conf");
    assert_string_equal(str_at(json_object_get(json_array_get(vols, 1), "configMap"), "name"),
                        "conf");
    assert_string_equal(str_at(json_array_get(vols, 2), "name"), "secret-gcp");
    assert_string_equal(str_at(json_object_get(json_array_get(vols, 2), "secret"), "secretName"),
                        "gcp");
    assert_int_equal(json_array_size(json_object_get(ps, "tolerations")), 1);
    assert_non_null(json_object_get(ps, "affinity"));
    const json_t *c = json_array_get(json_object_get(ps, "containers"), 0);
    /* the submit code's name for the Spark container (podTemplateContainerName) */
    assert_string_equal(str_at(c, "name"), "spark-kubernetes-driver");
    const json_t *mounts = json_object_get(c, "volumeMounts");
    assert_int_equal(json_array_size(mounts), 3);
    assert_string_equal(str_at(json_array_get(mounts, 0), "mountPath"), "/scratch");
    assert_string_equal(str_at(json_array_get(mounts, 1), "mountPath"), "/etc/conf");
    assert_string_equal(str_at(json_array_get(mounts, 2), "mountPath"), "/etc/gcp");
    /* the Secret's variable, the valueFrom entry; the plain value is a Spark key, not here */
    const json_t *env = json_object_get(c, "env");
    assert_int_equal(json_array_size(env), 2);
    assert_string_equal(str_at(json_array_get(env, 0), "name"), "GOOGLE_APPLICATION_CREDENTIALS");
    assert_string_equal(str_at(json_array_get(env, 0), "value"), "/etc/gcp/key.json");
    assert_string_equal(str_at(json_array_get(env, 1), "name"), "NODE");
    assert_int_equal(json_array_size(json_object_get(c, "envFrom")), 1);
    json_decref(tpl);
    json_decref(spec);
}

/* an executor with none of the fields (an empty toleration list too) gets no template */
static void test_no_template_without_fields(void **state)
{
    json_t *spec = load_spec(), *tpl = NULL;
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "executor", &tpl, &err), 0);
    assert_null(tpl);
    json_decref(spec);
}

static void test_mount_of_unknown_volume(void **state)
{
    json_t *spec = load_spec(), *tpl = NULL;
    json_t *m = json_array_get(json_object_get(json_object_get(spec, "driver"), "volumeMounts"), 0);
    json_object_set_new(m, "name", json_string("missing"));
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "driver", &tpl, &err), CS_EINVAL);
    assert_null(tpl);
    assert_string_equal(err.msg,
                        "spec.driver.volumeMounts[0]: volume 'missing' is not in spec.volumes");
    json_decref(spec);
}

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    if (!v) fail_msg("%s: %s", text, je.text);
    return v;
}

/* the fields Kubeflow's webhook patches into the pods, as the template holds them */
static void test_kubeflow_pod_fields(void **state)
{
    json_t *spec = parse(
        "{\"batchSchedulerOptions\": {\"priorityClassName\": \"batch\"},"
        " \"executor\": {"
        "  \"sidecars\": [{\"name\": \"log\", \"image\": \"cspark:dev\", \"command\": "
        "[\"sleep\"]}],"
        "  \"initContainers\": [{\"name\": \"prep\", \"image\": \"cspark:dev\"}],"
        "  \"gpu\": {\"name\": \"nvidia.com/gpu\", \"quantity\": 2},"
        "  \"podSecurityContext\": {\"fsGroup\": 185},"
        "  \"securityContext\": {\"runAsUser\": 185, \"runAsNonRoot\": true},"
        "  \"hostNetwork\": true, \"shareProcessNamespace\": true,"
        "  \"dnsConfig\": {\"options\": [{\"name\": \"ndots\", \"value\": \"2\"}]},"
        "  \"hostAliases\": [{\"ip\": \"10.1.2.3\", \"hostnames\": [\"store\"]}],"
        "  \"lifecycle\": {\"preStop\": {\"exec\": {\"command\": [\"true\"]}}},"
        "  \"ports\": [{\"name\": \"metrics\", \"containerPort\": 9090, \"protocol\": \"TCP\"}],"
        "  \"terminationGracePeriodSeconds\": 3}}");
    json_t *tpl = NULL;
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "executor", &tpl, &err), 0);
    assert_non_null(tpl);
    const json_t *ps = json_object_get(tpl, "spec");
    const json_t *cs = json_object_get(ps, "containers");
    assert_int_equal(json_array_size(cs), 2);
    const json_t *c = json_array_get(cs, 0);
    assert_string_equal(str_at(c, "name"), "spark-kubernetes-executor");
    assert_string_equal(str_at(json_array_get(cs, 1), "name"), "log");
    assert_string_equal(str_at(json_array_get(json_object_get(ps, "initContainers"), 0), "name"),
                        "prep");
    assert_int_equal(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(c, "resources"), "limits"), "nvidia.com/gpu")),
        2);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(ps, "securityContext"), "fsGroup")),
        185);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(c, "securityContext"), "runAsUser")),
        185);
    assert_true(json_is_true(json_object_get(ps, "hostNetwork")));
    assert_string_equal(str_at(ps, "dnsPolicy"), "ClusterFirstWithHostNet");
    assert_true(json_is_true(json_object_get(ps, "shareProcessNamespace")));
    assert_non_null(json_object_get(ps, "dnsConfig"));
    assert_string_equal(str_at(json_array_get(json_object_get(ps, "hostAliases"), 0), "ip"),
                        "10.1.2.3");
    assert_non_null(json_object_get(json_object_get(c, "lifecycle"), "preStop"));
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(json_object_get(c, "ports"), 0), "containerPort")),
                     9090);
    assert_int_equal(json_integer_value(json_object_get(ps, "terminationGracePeriodSeconds")), 3);
    assert_string_equal(str_at(ps, "priorityClassName"), "batch");
    json_decref(tpl);
    json_decref(spec);
}

/* a role's template is the base: its Spark container (named so, here second) becomes the first,
 * keeps what it had and gets the role's fields; its other containers, volumes and metadata stay */
static void test_role_template_is_the_base(void **state)
{
    json_t *spec =
        parse("{\"volumes\": [{\"name\": \"data\", \"emptyDir\": {}}],"
              " \"driver\": {"
              "  \"template\": {\"metadata\": {\"labels\": {\"team\": \"a\"}},"
              "   \"spec\": {\"containers\": [{\"name\": \"proxy\", \"image\": \"cspark:dev\"},"
              "                              {\"name\": \"spark-kubernetes-driver\","
              "                               \"env\": [{\"name\": \"K\", \"value\": \"v\"}]}],"
              "             \"volumes\": [{\"name\": \"cache\", \"emptyDir\": {}}]}},"
              "  \"volumeMounts\": [{\"name\": \"data\", \"mountPath\": \"/data\"}]}}");
    json_t *tpl = NULL;
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "driver", &tpl, &err), 0);
    assert_non_null(tpl);
    assert_string_equal(str_at(json_object_get(json_object_get(tpl, "metadata"), "labels"), "team"),
                        "a");
    const json_t *ps = json_object_get(tpl, "spec");
    const json_t *cs = json_object_get(ps, "containers");
    assert_int_equal(json_array_size(cs), 2);
    const json_t *c = json_array_get(cs, 0);
    assert_string_equal(str_at(c, "name"), "spark-kubernetes-driver");
    assert_string_equal(str_at(json_array_get(json_object_get(c, "env"), 0), "name"), "K");
    assert_string_equal(str_at(json_array_get(json_object_get(c, "volumeMounts"), 0), "name"),
                        "data");
    assert_string_equal(str_at(json_array_get(cs, 1), "name"), "proxy");
    const json_t *vols = json_object_get(ps, "volumes");
    assert_int_equal(json_array_size(vols), 2);
    assert_string_equal(str_at(json_array_get(vols, 0), "name"), "cache");
    assert_string_equal(str_at(json_array_get(vols, 1), "name"), "data");
    json_decref(tpl);
    json_decref(spec);
}

/* shapes the pod could not take are refused naming the field */
static void test_refused_shapes(void **state)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        {"{\"driver\": {\"sidecars\": [{\"name\": \"s\"}]}}",
         "spec.driver.sidecars[0]: expected a container with a name and an image"},
        {"{\"driver\": {\"initContainers\": [{\"name\": \"spark-kubernetes-x\", \"image\": "
         "\"i\"}]}}",
         "spec.driver.initContainers[0]: expected a container name of its own"},
        {"{\"executor\": {\"gpu\": {\"name\": \"nvidia.com/gpu\", \"quantity\": 0}}}",
         "spec.executor.gpu: expected a resource name (e.g. nvidia.com/gpu) and a positive "
         "quantity"},
        {"{\"driver\": {\"ports\": [{\"name\": \"p\"}]}}",
         "spec.driver.ports[0]: expected a containerPort between 1 and 65535"},
        {"{\"driver\": {\"terminationGracePeriodSeconds\": -1}}",
         "spec.driver.terminationGracePeriodSeconds: expected a number of seconds (0 or more)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *spec = parse(cases[i].spec), *tpl = NULL;
        const char *role = json_object_get(spec, "driver") ? "driver" : "executor";
        cs_error err = {0};
        assert_int_equal(cs_operator_pod_template(spec, role, &tpl, &err), CS_EINVAL);
        assert_null(tpl);
        assert_string_equal(err.msg, cases[i].msg);
        json_decref(spec);
    }
}

/* what app_submit.c writes for podTemplateFile is what the submit code's YAML loader reads */
static void test_template_reads_back_as_yaml(void **state)
{
    json_t *spec = load_spec(), *tpl = NULL;
    cs_error err = {0};
    assert_int_equal(cs_operator_pod_template(spec, "driver", &tpl, &err), 0);
    char *text = json_dumps(tpl, JSON_INDENT(2));
    json_t *back = cs_kube_yaml_load("template", text, strlen(text), KUBE_YAML_TYPED, &err);
    assert_non_null(back);
    assert_true(json_equal(back, tpl));
    free(text);
    json_decref(back);
    json_decref(tpl);
    json_decref(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_template),
        cmocka_unit_test(test_no_template_without_fields),
        cmocka_unit_test(test_mount_of_unknown_volume),
        cmocka_unit_test(test_kubeflow_pod_fields),
        cmocka_unit_test(test_role_template_is_the_base),
        cmocka_unit_test(test_refused_shapes),
        cmocka_unit_test(test_template_reads_back_as_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
