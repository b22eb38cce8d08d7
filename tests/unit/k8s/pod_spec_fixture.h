/* pod_spec_fixture.h — what the pod-builder tests (test_k8s_pod_spec.c, test_k8s_credentials.c)
 * start from: a temporary file with given text (the caller unlinks and frees its path), the conf
 * of a Spark Pi application in namespace "jobs", and its k8s_app (freed by cs_k8s_app_free). */
#ifndef CSPARK_TESTS_UNIT_K8S_POD_SPEC_FIXTURE_H
#define CSPARK_TESTS_UNIT_K8S_POD_SPEC_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/k8s/k8s_pod_spec.h"

static inline char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/k8s_test_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static inline cs_conf *base_conf(void)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.app.name", "Spark Pi");
    cs_conf_set(c, "spark.kubernetes.container.image", "cspark:latest");
    cs_conf_set(c, "spark.kubernetes.namespace", "jobs");
    return c;
}

static inline void app_init_ok(k8s_app *app, const cs_conf *c)
{
    cs_error err = {0};
    char *argv[] = {"1000", "x y"};
    if (cs_k8s_app_init(app, c, "cspark_main", "local:///opt/jobs/pi.so", 2, argv, &err) != CS_OK)
        fail_msg("cs_k8s_app_init: %s", err.msg);
}

#endif
