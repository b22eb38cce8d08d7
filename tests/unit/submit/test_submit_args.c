/* test_submit_args.c — unit tests for cspark-submit's argument parsing, configuration precedence
 * and early validation (src/submit/submit_args.c, submit_conf.c). The submit sources are not in
 * libcspark, so they are compiled into this test directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "submit/submit_args.c"
#include "submit/submit_conf.c"

#define ARGV(...) ((char *[]){"cspark-submit", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"cspark-submit", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(a, err, ...) cs_submit_args_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (a), (err))

static void test_both_forms(void **state)
{
    submit_args a;
    cs_error err = {0};
    assert_int_equal(PARSE(&a, &err, "--master", "local[2]", "--name=job", "--conf", "spark.a=1",
                           "--conf=spark.b=x=y", "-c", "spark.c=3", "--deploy-mode=client",
                           "--class", "my_main", "--driver-memory", "2g", "--executor-memory=3g",
                           "--executor-cores", "2", "--num-executors=4", "--total-executor-cores",
                           "8", "--driver-cores=1", "-v", "app.so", "--master", "x", "-v", "--",
                           "z"),
                     CS_OK);
    assert_string_equal(a.master, "local[2]");
    assert_string_equal(a.name, "job");
    assert_int_equal(a.nconfs, 3);
    assert_string_equal(a.confs[0], "spark.a=1");
    assert_string_equal(a.confs[1], "spark.b=x=y");
    assert_string_equal(a.confs[2], "spark.c=3");
    assert_string_equal(a.deploy_mode, "client");
    assert_string_equal(a.entry, "my_main");
    assert_string_equal(a.driver_memory, "2g");
    assert_string_equal(a.executor_memory, "3g");
    assert_string_equal(a.executor_cores, "2");
    assert_string_equal(a.num_executors, "4");
    assert_string_equal(a.total_executor_cores, "8");
    assert_string_equal(a.driver_cores, "1");
    assert_true(a.verbose);
    assert_string_equal(a.app, "app.so");
    /* everything after the application file is the application's, untouched */
    assert_int_equal(a.app_argc, 5);
    assert_string_equal(a.app_argv[0], "--master");
    assert_string_equal(a.app_argv[2], "-v");
    assert_string_equal(a.app_argv[3], "--");
    cs_submit_args_free(&a);
}

static void test_flags(void **state)
{
    submit_args a;
    assert_int_equal(PARSE(&a, NULL, "--help"), CS_OK);
    assert_true(a.help);
    assert_null(a.app);
    cs_submit_args_free(&a);
    assert_int_equal(PARSE(&a, NULL, "-h"), CS_OK);
    assert_true(a.help);
    assert_int_equal(PARSE(&a, NULL, "--version"), CS_OK);
    assert_true(a.version);
    assert_int_equal(PARSE(&a, NULL, "--kill", "ns:app-driver"), CS_OK);
    assert_string_equal(a.kill, "ns:app-driver");
    assert_int_equal(PARSE(&a, NULL, "--status=ns:x"), CS_OK);
    assert_string_equal(a.status, "ns:x");
    assert_int_equal(PARSE(&a, NULL, "--properties-file", "/p", "--load-spark-defaults", "a.so"),
                     CS_OK);
    assert_string_equal(a.properties_file, "/p");
    assert_true(a.load_spark_defaults);
}

static void expect_usage_error(int argc, char **argv, const char *msg)
{
    submit_args a;
    cs_error err = {0};
    assert_int_equal(cs_submit_args_parse(argc, argv, &a, &err), CS_EINVAL);
    assert_string_equal(err.msg, msg);
    cs_submit_args_free(&a);
}

static void test_usage_errors(void **state)
{
    expect_usage_error(ARGC("--foo", "a.so"), ARGV("--foo", "a.so"),
                       "unknown option '--foo' (run cspark-submit --help for usage)");
    expect_usage_error(ARGC("--foo=1"), ARGV("--foo=1"),
                       "unknown option '--foo=1' (run cspark-submit --help for usage)");
    expect_usage_error(ARGC("-x"), ARGV("-x"),
                       "unknown option '-x' (run cspark-submit --help for usage)");
    expect_usage_error(ARGC("--master"), ARGV("--master"), "option --master requires a value");
    expect_usage_error(ARGC("--conf", "spark.x"), ARGV("--conf", "spark.x"),
                       "--conf 'spark.x' has no '=' (expected --conf key=value)");
    expect_usage_error(ARGC("--conf==v"), ARGV("--conf==v"),
                       "--conf '=v' has an empty key (expected --conf key=value)");
    expect_usage_error(ARGC("--verbose=yes"), ARGV("--verbose=yes"),
                       "option --verbose takes no value (got '--verbose=yes')");
    expect_usage_error(ARGC("--jars", "x.jar", "a.so"), ARGV("--jars", "x.jar", "a.so"),
                       "option --jars is not supported by cspark (run cspark-submit --help for "
                       "the supported options)");
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup_dir(void **state)
{
    strcpy(tmpdir, "/tmp/cspark-submit-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static cs_conf *build(int argc, char **argv, const char **used)
{
    submit_args a;
    cs_error err = {0};
    assert_int_equal(cs_submit_args_parse(argc, argv, &a, &err), CS_OK);
    cs_conf *c = NULL;
    if (cs_submit_build_conf(&a, tmpdir, &c, used, &err) != CS_OK)
        fail_msg("build conf: %s", err.msg);
    cs_submit_args_free(&a);
    return c;
}

static void test_precedence(void **state)
{
    write_file("spark-defaults.conf", "spark.master local[3]\n"
                                      "spark.executor.memory 1g\n"
                                      "spark.from.defaults d\n"
                                      "spark.app.name fromdefaults\n");
    char props[256];
    snprintf(props, sizeof props, "%s/my.properties", tmpdir);
    write_file("my.properties", "spark.executor.memory=2g\n"
                                "spark.executor.cores=2\n"
                                "spark.from.props=p\n"
                                "not.spark.key=dropped\n"
                                "cspark.log.level=WARN\n");
    const char *used = NULL;

    /* defaults only */
    cs_conf *c = build(ARGC("/x/pi.so"), ARGV("/x/pi.so"), &used);
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[3]");
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "1g");
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "fromdefaults");
    assert_string_equal(cs_conf_get(c, "spark.submit.deployMode"), "client");
    assert_non_null(cs_conf_get(c, "spark.app.submitTime"));
    assert_non_null(used);
    assert_true(cs_str_ends_with(used, "/spark-defaults.conf"));
    cs_conf_free(c);

    /* properties file replaces defaults (Spark 4 behaviour) */
    c = build(ARGC("--properties-file", props, "/x/pi.so"),
              ARGV("--properties-file", props, "/x/pi.so"), &used);
    assert_string_equal(used, props);
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "2g");
    assert_string_equal(cs_conf_get(c, "spark.from.props"), "p");
    assert_null(cs_conf_get(c, "spark.from.defaults"));
    assert_null(cs_conf_get(c, "not.spark.key"));
    assert_string_equal(cs_conf_get(c, "cspark.log.level"), "WARN");
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[*]");
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "pi");
    cs_conf_free(c);

    /* --load-spark-defaults: both, properties file winning */
    c = build(ARGC("--properties-file", props, "--load-spark-defaults", "/x/pi.so"),
              ARGV("--properties-file", props, "--load-spark-defaults", "/x/pi.so"), &used);
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "2g");
    assert_string_equal(cs_conf_get(c, "spark.from.defaults"), "d");
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[3]");
    cs_conf_free(c);

    /* --conf beats the properties file; explicit options beat --conf */
    c = build(ARGC("--properties-file", props, "--conf", "spark.executor.memory=3g", "--conf",
                   "spark.executor.cores=5", "--executor-cores", "6", "--conf",
                   "spark.master=local[1]", "--master", "local[2]", "--conf", "spark.app.name=c",
                   "--conf", "other=1", "--class", "entry_fn", "app.so"),
              ARGV("--properties-file", props, "--conf", "spark.executor.memory=3g", "--conf",
                   "spark.executor.cores=5", "--executor-cores", "6", "--conf",
                   "spark.master=local[1]", "--master", "local[2]", "--conf", "spark.app.name=c",
                   "--conf", "other=1", "--class", "entry_fn", "app.so"),
              &used);
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "3g");
    assert_string_equal(cs_conf_get(c, "spark.executor.cores"), "6");
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[2]");
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "c");
    assert_string_equal(cs_conf_get(c, "cspark.app.entry"), "entry_fn");
    assert_null(cs_conf_get(c, "other"));
    cs_conf_free(c);

    /* every explicit option maps to Spark's key */
    c = build(ARGC("--deploy-mode", "cluster", "--name", "n", "--driver-memory", "1g",
                   "--driver-cores", "2", "--executor-memory", "4g", "--num-executors", "7",
                   "--total-executor-cores", "9", "a/b/lib.so.1"),
              ARGV("--deploy-mode", "cluster", "--name", "n", "--driver-memory", "1g",
                   "--driver-cores", "2", "--executor-memory", "4g", "--num-executors", "7",
                   "--total-executor-cores", "9", "a/b/lib.so.1"),
              &used);
    assert_string_equal(cs_conf_get(c, "spark.submit.deployMode"), "cluster");
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "n");
    assert_string_equal(cs_conf_get(c, "spark.driver.memory"), "1g");
    assert_string_equal(cs_conf_get(c, "spark.driver.cores"), "2");
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "4g");
    assert_string_equal(cs_conf_get(c, "spark.executor.instances"), "7");
    assert_string_equal(cs_conf_get(c, "spark.cores.max"), "9");
    cs_conf_free(c);
}

static void test_missing_properties_file(void **state)
{
    submit_args a;
    cs_error err = {0};
    assert_int_equal(PARSE(&a, &err, "--properties-file", "/nonexistent/x.conf", "a.so"), CS_OK);
    cs_conf *c = (cs_conf *)1;
    assert_int_equal(cs_submit_build_conf(&a, tmpdir, &c, NULL, &err), CS_ENOTFOUND);
    assert_null(c);
    assert_string_equal(err.msg, "properties file /nonexistent/x.conf not found");
    cs_submit_args_free(&a);
}

static void test_default_name_and_entry(void **state)
{
    submit_args a;
    assert_int_equal(PARSE(&a, NULL, "/opt/apps/wordcount.so", "in", "out"), CS_OK);
    cs_conf *c = NULL;
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "wordcount");
    assert_string_equal(cs_submit_entry(&a, c), "cspark_main");
    cs_conf_set(c, "cspark.app.entry", "other_main");
    assert_string_equal(cs_submit_entry(&a, c), "other_main");
    cs_conf_free(c);
}

static void test_environment_fallbacks(void **state)
{
    setenv("MASTER", "local[5]", 1);
    setenv("SPARK_EXECUTOR_MEMORY", "3g", 1);
    setenv("SPARK_DRIVER_MEMORY", "2g", 1);
    setenv("SPARK_EXECUTOR_CORES", "3", 1);
    setenv("DEPLOY_MODE", "client", 1);
    submit_args a;
    assert_int_equal(PARSE(&a, NULL, "--conf", "spark.executor.memory=5g", "a.so"), CS_OK);
    cs_conf *c = NULL;
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[5]");
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "5g"); /* --conf beats the env */
    assert_string_equal(cs_conf_get(c, "spark.driver.memory"), "2g");
    assert_string_equal(cs_conf_get(c, "spark.executor.cores"), "3");
    assert_string_equal(cs_conf_get(c, "spark.submit.deployMode"), "client");
    cs_conf_free(c);
    cs_submit_args_free(&a);
    assert_int_equal(PARSE(&a, NULL, "--master", "local", "a.so"), CS_OK);
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.master"), "local");
    cs_conf_free(c);
    cs_submit_args_free(&a);
    unsetenv("MASTER");
    unsetenv("SPARK_EXECUTOR_MEMORY");
    unsetenv("SPARK_DRIVER_MEMORY");
    unsetenv("SPARK_EXECUTOR_CORES");
    unsetenv("DEPLOY_MODE");
}

/* A credential's variable (the driver pod's, from the Secret) fills its key when unset: the Connect
 * token comes from SPARK_CONNECT_AUTHENTICATE_TOKEN, as Spark 4 reads it; --conf beats it. */
static void test_credential_from_environment(void **state)
{
    setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", "from-env", 1);
    submit_args a;
    assert_int_equal(PARSE(&a, NULL, "a.so"), CS_OK);
    cs_conf *c = NULL;
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.connect.authenticate.token"), "from-env");
    cs_conf_free(c);
    cs_submit_args_free(&a);
    assert_int_equal(
        PARSE(&a, NULL, "--conf", "spark.connect.authenticate.token=from-conf", "a.so"), CS_OK);
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.connect.authenticate.token"), "from-conf");
    cs_conf_free(c);
    cs_submit_args_free(&a);
    unsetenv("SPARK_CONNECT_AUTHENTICATE_TOKEN");
}

static void expect_invalid(const char *key, const char *value, const char *msg)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.master", "local[2]");
    cs_conf_set(c, key, value);
    cs_master m;
    cs_error err = {0};
    assert_int_not_equal(cs_submit_validate(c, &m, &err), CS_OK);
    if (strcmp(err.msg, msg) != 0)
        fail_msg("for %s=%s got \"%s\", want \"%s\"", key, value, err.msg, msg);
    cs_conf_free(c);
}

static void test_validation(void **state)
{
    expect_invalid("spark.executor.memory", "12q",
                   "invalid value for spark.executor.memory: '12q' "
                   "(expected a size such as 512m or 2g)");
    expect_invalid("spark.driver.memory", "lots",
                   "invalid value for spark.driver.memory: 'lots' "
                   "(expected a size such as 512m or 2g)");
    expect_invalid("spark.executor.cores", "two",
                   "invalid value for spark.executor.cores: 'two' (expected an integer)");
    expect_invalid("spark.executor.cores", "0",
                   "invalid value for spark.executor.cores: '0' (expected a positive integer)");
    expect_invalid("spark.executor.instances", "-1",
                   "invalid value for spark.executor.instances: "
                   "'-1' (expected a non-negative integer)");
    expect_invalid("spark.task.maxFailures", "x",
                   "invalid value for spark.task.maxFailures: 'x' (expected an integer)");
    expect_invalid("spark.network.timeout", "soon",
                   "invalid value for spark.network.timeout: "
                   "'soon' (expected a duration such as 120s, "
                   "500ms or 5min)");
    expect_invalid("spark.executor.heartbeatInterval", "1x",
                   "invalid value for spark.executor.heartbeatInterval: '1x' (expected a duration "
                   "such as 120s, 500ms or 5min)");
    expect_invalid("spark.executor.heartbeatInterval", "200s",
                   "the value of spark.network.timeout=120000ms must be greater than the value of "
                   "spark.executor.heartbeatInterval=200000ms");
    expect_invalid("spark.memory.fraction", "1.5",
                   "invalid value for spark.memory.fraction: '1.5' (expected a number in (0, 1])");
    expect_invalid("spark.memory.fraction", "0",
                   "invalid value for spark.memory.fraction: '0' (expected a number in (0, 1])");
    expect_invalid("spark.memory.fraction", "most",
                   "invalid value for spark.memory.fraction: 'most' (expected a number)");
    expect_invalid("spark.shuffle.compress", "yes",
                   "invalid value for spark.shuffle.compress: 'yes' (expected true or false)");
    expect_invalid("spark.eventLog.enabled", "1",
                   "invalid value for spark.eventLog.enabled: '1' (expected true or false)");
    expect_invalid("spark.ui.showConsoleProgress", "no",
                   "invalid value for "
                   "spark.ui.showConsoleProgress: 'no' "
                   "(expected true or false)");
    expect_invalid("spark.submit.deployMode", "remote",
                   "invalid value for "
                   "spark.submit.deployMode: 'remote' "
                   "(expected client or cluster)");
    expect_invalid("spark.submit.deployMode", "cluster",
                   "cluster deploy mode is not compatible with master 'local[2]' (use "
                   "--deploy-mode client, or a k8s:// master)");
    expect_invalid("cspark.log.level", "LOUD",
                   "invalid value for cspark.log.level: 'LOUD' "
                   "(expected DEBUG, INFO, WARN or ERROR)");
    expect_invalid("spark.eventLog.buffer.kb", "lots",
                   "invalid value for spark.eventLog.buffer.kb: "
                   "'lots' (expected a size such as 512m or 2g)");
    expect_invalid("spark.redaction.regex", "(oops",
                   "invalid value for spark.redaction.regex: "
                   "'(oops' (expected a regular expression)");
    expect_invalid("spark.master", "yarn",
                   "invalid master URL 'yarn': expected local, local[N], local[*], local[N,F], "
                   "local-cluster[N,C,M] or k8s://https://host:port");
}

static void test_valid_and_supported(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.master", "local[2]");
    cs_conf_set(c, "spark.executor.memory", "4g");
    cs_conf_set(c, "spark.network.timeout", "300");
    cs_conf_set(c, "spark.executor.heartbeatInterval", "10000");
    cs_conf_set(c, "spark.memory.fraction", "0.75");
    cs_conf_set(c, "spark.shuffle.compress", "FALSE");
    cs_master m;
    cs_error err = {0};
    assert_int_equal(cs_submit_validate(c, &m, &err), CS_OK);
    assert_int_equal(m.kind, MASTER_LOCAL);
    assert_int_equal(m.threads, 2);

    cs_conf_set(c, "spark.master", "k8s://https://h:6443");
    cs_conf_set(c, "spark.submit.deployMode", "cluster");
    assert_int_equal(cs_submit_validate(c, &m, &err), CS_OK);
    assert_int_equal(m.kind, MASTER_K8S);
    cs_conf_set(c, "spark.submit.deployMode", "client");
    cs_conf_set(c, "spark.master", "local-cluster[2,1,1024]");
    assert_int_equal(cs_submit_validate(c, &m, &err), CS_OK);
    assert_int_equal(m.kind, MASTER_LOCAL_CLUSTER);
    cs_conf_free(c);
}

static void test_verbose_redacts(void **state)
{
    submit_args a;
    assert_int_equal(
        PARSE(&a, NULL, "-v", "--conf", "spark.authenticate.secret=hunter2", "a.so", "x", "y"),
        CS_OK);
    cs_conf *c = NULL;
    assert_int_equal(cs_submit_build_conf(&a, "/nonexistent", &c, NULL, NULL), CS_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_submit_print_verbose(f, &a, c, NULL);
    fclose(f);
    assert_non_null(strstr(buf, "Parsed arguments:"));
    assert_non_null(strstr(buf, "  master                  local[*]\n"));
    assert_non_null(strstr(buf, "  childArgs               [x y]\n"));
    assert_non_null(strstr(buf, "(spark.authenticate.secret,*********(redacted))"));
    assert_null(strstr(buf, "hunter2"));
    free(buf);
    cs_conf_free(c);
    cs_submit_args_free(&a);
}

static void test_usage_lists_options(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cs_submit_usage(f);
    fclose(f);
    const char *opts_[] = {"--master",         "--deploy-mode",   "--class",
                           "--name",           "--conf",          "--properties-file",
                           "--driver-memory",  "--driver-cores",  "--executor-memory",
                           "--executor-cores", "--num-executors", "--total-executor-cores",
                           "--kill",           "--status",        "--verbose",
                           "--help",           "--version"};
    for (size_t i = 0; i < sizeof opts_ / sizeof opts_[0]; i++) {
        if (!strstr(buf, opts_[i])) fail_msg("usage does not mention %s", opts_[i]);
    }
    free(buf);
}

/* A primary resource named *.sql (any case) is a SQL file application; nothing else is. */
static void test_sql_file_resource(void **state)
{
    (void)state;
    assert_true(cs_submit_is_sql_file("queries.sql"));
    assert_true(cs_submit_is_sql_file("local:///opt/spark/conf/TPCH.SQL"));
    assert_true(cs_submit_is_sql_file("s3a://bucket/upload/q.sql"));
    assert_false(cs_submit_is_sql_file(".sql"));
    assert_false(cs_submit_is_sql_file("app.so"));
    assert_false(cs_submit_is_sql_file("queries.sql.so"));
    assert_false(cs_submit_is_sql_file(NULL));
}

/* A primary resource named *.py is a Python application; --py-files is spark.submit.pyFiles. */
static void test_python_resource(void **state)
{
    (void)state;
    assert_true(cs_submit_is_python_file("app.py"));
    assert_true(cs_submit_is_python_file("/jobs/etl/main.py"));
    assert_false(cs_submit_is_python_file(".py"));
    assert_false(cs_submit_is_python_file("app.pyc"));
    assert_false(cs_submit_is_python_file("app.so"));
    assert_false(cs_submit_is_python_file(NULL));
    char *argv[] = {"cspark-submit", "--py-files", "a.zip,b.py", "app.py", "x"};
    cs_conf *c = build(5, argv, NULL);
    assert_string_equal(cs_conf_get(c, "spark.submit.pyFiles"), "a.zip,b.py");
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_forms),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test_setup_teardown(test_precedence, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_missing_properties_file, setup_dir, teardown_dir),
        cmocka_unit_test(test_default_name_and_entry),
        cmocka_unit_test(test_environment_fallbacks),
        cmocka_unit_test(test_credential_from_environment),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_valid_and_supported),
        cmocka_unit_test(test_verbose_redacts),
        cmocka_unit_test(test_usage_lists_options),
        cmocka_unit_test(test_sql_file_resource),
        cmocka_unit_test_setup_teardown(test_python_resource, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
