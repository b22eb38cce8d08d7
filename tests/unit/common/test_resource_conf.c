/* test_resource_conf.c — unit tests for resource_conf.c: executor and task amounts (whole
 * numbers, fractions up to one half, tasks per shared address), names sorted, spark.task.cpus,
 * and the refusals naming the key: a bad number, a task amount without the executors having the
 * resource or with fewer addresses, a missing discovery script, task cpus above executor cores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/resource_conf.h"

static void test_amounts(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.executor.resource.gpu.amount", "4");
    cs_conf_set(c, "spark.executor.resource.gpu.discoveryScript", "/opt/find-gpus");
    cs_conf_set(c, "spark.task.resource.gpu.amount", "2");
    cs_conf_set(c, "spark.executor.resource.fpga.amount", "1");
    cs_conf_set(c, "spark.executor.resource.fpga.discoveryScript", "/opt/find-fpgas");
    cs_conf_set(c, "spark.executor.resource.fpga.vendor", "xilinx.com"); /* not read here */
    cs_conf_set(c, "spark.task.resource.fpga.amount", "0.25");
    cs_conf_set(c, "spark.task.cpus", "2");
    cs_resource_requests r;
    cs_error err = {0};
    assert_int_equal(cs_resource_requests_read(c, &r, &err), 0);
    assert_int_equal(r.task_cpus, 2);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.v[0].name, "fpga"); /* sorted */
    assert_int_equal(r.v[0].executor_amount, 1);
    assert_int_equal(r.v[0].task_addresses, 1);
    assert_int_equal(r.v[0].tasks_per_address, 4);
    assert_string_equal(r.v[0].discovery_script, "/opt/find-fpgas");
    const cs_resource_request *g = cs_resource_request_find(&r, "gpu");
    assert_non_null(g);
    assert_int_equal(g->executor_amount, 4);
    assert_int_equal(g->task_addresses, 2);
    assert_int_equal(g->tasks_per_address, 1);
    assert_null(cs_resource_request_find(&r, "tpu"));
    cs_resource_requests_free(&r);
    cs_conf_free(c);
}

static void test_defaults(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_resource_requests r;
    cs_error err = {0};
    assert_int_equal(cs_resource_requests_read(c, &r, &err), 0);
    assert_int_equal(r.task_cpus, 1);
    assert_int_equal(r.n, 0);
    cs_resource_requests_free(&r);
    cs_conf_free(c);
}

/* The conf with key=value (and a gpu executor resource unless bare) fails naming want. */
static void refused(const char *master, const char *key, const char *value, bool bare,
                    const char *want)
{
    cs_conf *c = cs_conf_new();
    if (!bare) {
        cs_conf_set(c, "spark.executor.resource.gpu.amount", "2");
        cs_conf_set(c, "spark.executor.resource.gpu.discoveryScript", "/opt/find-gpus");
    }
    if (master) cs_conf_set(c, "spark.master", master);
    cs_conf_set(c, key, value);
    cs_error err = {0};
    assert_int_equal(cs_resource_conf_check(c, &err), CS_EINVAL);
    if (!strstr(err.msg, want)) fail_msg("'%s' not in: %s", want, err.msg);
    cs_conf_free(c);
}

static void test_refusals(void **state)
{
    refused(NULL, "spark.task.resource.gpu.amount", "x", false,
            "invalid value for spark.task.resource.gpu.amount: 'x'");
    refused(NULL, "spark.task.resource.gpu.amount", "0.75", false,
            "invalid value for spark.task.resource.gpu.amount: '0.75'");
    refused(NULL, "spark.task.resource.gpu.amount", "-1", false, "expected a positive number");
    refused(NULL, "spark.executor.resource.gpu.amount", "1.5", true,
            "invalid value for spark.executor.resource.gpu.amount: '1.5'");
    refused(NULL, "spark.task.resource.tpu.amount", "1", false,
            "spark.task.resource.tpu.amount is set but spark.executor.resource.tpu.amount is not");
    refused(NULL, "spark.task.resource.gpu.amount", "3", false,
            "spark.executor.resource.gpu.amount (2) must be at least "
            "spark.task.resource.gpu.amount (3)");
    refused(NULL, "spark.executor.resource.gpu.amount", "1", true,
            "spark.executor.resource.gpu.discoveryScript is not set");
    refused("local-cluster[2,1,512]", "spark.task.cpus", "2", false,
            "spark.executor.cores (1) must not be less than spark.task.cpus (2)");
    refused("k8s://https://127.0.0.1:6443", "spark.task.cpus", "3", false,
            "spark.executor.cores (1) must not be less than spark.task.cpus (3)");
}

static void test_local_mode_has_no_executor_cores(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.master", "local[1]");
    cs_conf_set(c, "spark.task.cpus", "4");
    cs_error err = {0};
    assert_int_equal(cs_resource_conf_check(c, &err), 0);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amounts),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_local_mode_has_no_executor_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
