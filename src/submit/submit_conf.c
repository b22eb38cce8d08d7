/* submit_conf.c — the effective configuration of a submission and its validation.
 *
 * Precedence as spark-submit: explicit options (--master, --executor-memory, ...) > --conf >
 * --properties-file, or, when no properties file is given, $SPARK_CONF_DIR/spark-defaults.conf
 * (Spark 4 loads both only with --load-spark-defaults) > the environment (MASTER, DEPLOY_MODE,
 * SPARK_DRIVER_MEMORY, SPARK_EXECUTOR_MEMORY, SPARK_EXECUTOR_CORES). Keys that start with
 * neither "spark." nor "cspark." are dropped with a warning, as Spark does. Then defaults (master
 * local[*], deploy mode client, app name from the file name) and early validation of every typed
 * key cspark reads, so a malformed value is reported with its key before anything starts. Called by
 * submit_main.c; tests call these functions directly.
 */
#include "submit/submit_args.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"

/* Path of the spark-defaults.conf found last; *used_props may point here (until the next
 * cs_submit_build_conf call). */
static char defaults_path[PATH_MAX];

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *find_defaults(const char *conf_dir)
{
    const char *dir = conf_dir;
    char buf[PATH_MAX];
    if (!dir) {
        dir = getenv("SPARK_CONF_DIR");
        if (!dir || !*dir) {
            const char *home = getenv("SPARK_HOME");
            if (!home || !*home) return NULL;
            snprintf(buf, sizeof buf, "%s/conf", home);
            dir = buf;
        }
    }
    int n = snprintf(defaults_path, sizeof defaults_path, "%s/spark-defaults.conf", dir);
    if (n < 0 || (size_t)n >= sizeof defaults_path || !is_file(defaults_path)) return NULL;
    return defaults_path;
}

/* Base name of the application file without a trailing ".so". */
static char *default_app_name(const char *app)
{
    const char *b = strrchr(app, '/');
    b = b ? b + 1 : app;
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".so") == 0) n -= 3;
    return cs_xstrndup(b, n);
}

struct drop_ctx {
    const char **keys;
    size_t n;
};

static void collect_foreign(void *arg, const char *key, const char *value)
{
    struct drop_ctx *d = arg;
    if (!cs_str_starts_with(key, "spark.") && !cs_str_starts_with(key, "cspark."))
        d->keys[d->n++] = key;
}

int cs_submit_build_conf(const submit_args *a, const char *conf_dir, cs_conf **out,
                         const char **used_props, cs_error *err)
{
    *out = NULL;
    if (used_props) *used_props = NULL;
    cs_conf *c = cs_conf_new();
    int rc;
    if (a->properties_file) {
        if ((rc = cs_conf_load_properties(c, a->properties_file, true, err)) != CS_OK) goto fail;
        if (used_props) *used_props = a->properties_file;
    }
    if (!a->properties_file || a->load_spark_defaults) {
        const char *d = find_defaults(conf_dir);
        if (d) {
            if ((rc = cs_conf_load_properties(c, d, false, err)) != CS_OK) goto fail;
            if (used_props && !*used_props) *used_props = d;
        }
    }
    for (int i = 0; i < a->nconfs; i++) {
        const char *kv = a->confs[i], *eq = strchr(kv, '=');
        if (!eq) {
            rc = cs_error_set(err, CS_EINVAL, "--conf '%s' has no '=' (expected --conf key=value)",
                              kv);
            goto fail;
        }
        char *k = cs_xstrndup(kv, (size_t)(eq - kv));
        cs_conf_set(c, k, eq + 1);
        free(k);
    }
    /* Spark ignores (with a warning) properties that are not Spark's. */
    struct drop_ctx d = {cs_xcalloc(cs_conf_size(c) + 1, sizeof(char *)), 0};
    cs_conf_foreach(c, collect_foreign, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *k = cs_xstrdup(d.keys[i]);
        CS_WARN("submit", "ignoring non-Spark config property: %s", k);
        cs_conf_unset(c, k);
        free(k);
    }
    free(d.keys);

    static const struct {
        size_t off;
        const char *key;
    } explicit_opts[] = {
        {offsetof(submit_args, master), "spark.master"},
        {offsetof(submit_args, deploy_mode), "spark.submit.deployMode"},
        {offsetof(submit_args, name), "spark.app.name"},
        {offsetof(submit_args, entry), "cspark.app.entry"},
        {offsetof(submit_args, driver_memory), "spark.driver.memory"},
        {offsetof(submit_args, driver_cores), "spark.driver.cores"},
        {offsetof(submit_args, executor_memory), "spark.executor.memory"},
        {offsetof(submit_args, executor_cores), "spark.executor.cores"},
        {offsetof(submit_args, num_executors), "spark.executor.instances"},
        {offsetof(submit_args, total_executor_cores), "spark.cores.max"},
    };
    for (size_t i = 0; i < sizeof explicit_opts / sizeof explicit_opts[0]; i++) {
        const char *v = *(const char *const *)((const char *)a + explicit_opts[i].off);
        if (v) cs_conf_set(c, explicit_opts[i].key, v);
    }
    /* As SparkSubmitArguments.loadEnvironmentArguments: environment variables fill what neither
     * options nor properties set. */
    static const struct {
        const char *env, *key;
    } env_fallbacks[] = {
        {"MASTER", "spark.master"},
        {"DEPLOY_MODE", "spark.submit.deployMode"},
        {"SPARK_DRIVER_MEMORY", "spark.driver.memory"},
        {"SPARK_EXECUTOR_MEMORY", "spark.executor.memory"},
        {"SPARK_EXECUTOR_CORES", "spark.executor.cores"},
    };
    for (size_t i = 0; i < sizeof env_fallbacks / sizeof env_fallbacks[0]; i++) {
        const char *v = getenv(env_fallbacks[i].env);
        if (v && *v) cs_conf_set_if_missing(c, env_fallbacks[i].key, v);
    }
    cs_conf_set_if_missing(c, "spark.master", "local[*]");
    cs_conf_set_if_missing(c, "spark.submit.deployMode", "client");
    if (a->app && !cs_conf_contains(c, "spark.app.name")) {
        char *n = default_app_name(a->app);
        cs_conf_set(c, "spark.app.name", n);
        free(n);
    }
    if (!cs_conf_contains(c, "spark.app.submitTime")) {
        char t[32];
        snprintf(t, sizeof t, "%" PRId64, cs_now_ms());
        cs_conf_set(c, "spark.app.submitTime", t);
    }
    *out = c;
    return CS_OK;
fail:
    cs_conf_free(c);
    return rc;
}

/* Keys validated early, with their types (Spark 4.1 defaults are in docs/configuration.md). */
enum check_type {
    T_SIZE_KIB,
    T_SIZE_MIB,
    T_INT_POS,
    T_INT_NONNEG,
    T_DUR_S,
    T_DUR_MS,
    T_BOOL,
    T_FRACTION
};

static const struct {
    const char *key;
    enum check_type type;
} checked_keys[] = {
    {"spark.driver.memory", T_SIZE_MIB},
    {"spark.executor.memory", T_SIZE_MIB},
    {"spark.driver.memoryOverhead", T_SIZE_MIB},
    {"spark.executor.memoryOverhead", T_SIZE_MIB},
    {"spark.driver.cores", T_INT_POS},
    {"spark.executor.cores", T_INT_POS},
    {"spark.cores.max", T_INT_POS},
    {"spark.task.cpus", T_INT_POS},
    {"spark.executor.instances", T_INT_NONNEG},
    {"spark.task.maxFailures", T_INT_POS},
    {"spark.default.parallelism", T_INT_POS},
    {"spark.network.timeout", T_DUR_S},
    {"spark.executor.heartbeatInterval", T_DUR_MS},
    {"spark.memory.fraction", T_FRACTION},
    {"spark.memory.storageFraction", T_FRACTION},
    {"spark.shuffle.compress", T_BOOL},
    {"spark.shuffle.spill.compress", T_BOOL},
    {"spark.eventLog.enabled", T_BOOL},
    {"spark.ui.enabled", T_BOOL},
    {"spark.ui.showConsoleProgress", T_BOOL},
    {"spark.dynamicAllocation.enabled", T_BOOL},
    {"spark.eventLog.overwrite", T_BOOL},
    {"spark.eventLog.buffer.kb", T_SIZE_KIB},
    {"spark.scheduler.listenerbus.eventqueue.capacity", T_INT_POS},
    {"spark.ui.consoleProgress.update.interval", T_DUR_MS},
};

static int check_key(const cs_conf *c, const char *key, enum check_type t, cs_error *err)
{
    const char *v = cs_conf_get(c, key);
    if (!v) return CS_OK;
    int64_t i64;
    double d;
    bool b;
    int rc;
    switch (t) {
    case T_SIZE_KIB:
        return cs_conf_get_size(c, key, NULL, CS_KiB, &i64, err);
    case T_SIZE_MIB:
        return cs_conf_get_size(c, key, NULL, CS_MiB, &i64, err);
    case T_DUR_S:
        return cs_conf_get_duration_ms(c, key, NULL, CS_SEC, &i64, err);
    case T_DUR_MS:
        return cs_conf_get_duration_ms(c, key, NULL, CS_MS, &i64, err);
    case T_BOOL:
        return cs_conf_get_bool(c, key, NULL, &b, err);
    case T_INT_POS:
    case T_INT_NONNEG:
        if ((rc = cs_conf_get_int(c, key, NULL, &i64, err)) != CS_OK) return rc;
        if (i64 > INT_MAX || i64 < (t == T_INT_POS ? 1 : 0))
            return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (expected %s)", key, v,
                                t == T_INT_POS ? "a positive integer" : "a non-negative integer");
        return CS_OK;
    case T_FRACTION:
        if ((rc = cs_conf_get_double(c, key, NULL, &d, err)) != CS_OK) return rc;
        if (!(d > 0.0 && d <= 1.0))
            return cs_error_set(err, CS_EINVAL,
                                "invalid value for %s: '%s' (expected a number in (0, 1])", key, v);
        return CS_OK;
    }
    return CS_OK;
}

int cs_submit_validate(const cs_conf *c, cs_master *master, cs_error *err)
{
    int rc;
    const char *lvl = cs_conf_get(c, "cspark.log.level");
    cs_log_level l;
    if (lvl && cs_log_parse_level(lvl, &l) != CS_OK)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for cspark.log.level: '%s' (expected DEBUG, INFO, WARN "
                            "or ERROR)",
                            lvl);
    const char *m = cs_conf_get(c, "spark.master");
    if ((rc = cs_master_parse(m ? m : "local[*]", master, err)) != CS_OK) return rc;
    const char *mode = cs_conf_get(c, "spark.submit.deployMode");
    if (mode && strcmp(mode, "client") != 0 && strcmp(mode, "cluster") != 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.submit.deployMode: '%s' (expected client or "
                            "cluster)",
                            mode);
    if (mode && strcmp(mode, "cluster") == 0 && master->kind != MASTER_K8S)
        return cs_error_set(err, CS_EINVAL,
                            "cluster deploy mode is not compatible with master '%s' (use "
                            "--deploy-mode client, or a k8s:// master)",
                            m);
    for (size_t i = 0; i < sizeof checked_keys / sizeof checked_keys[0]; i++) {
        if ((rc = check_key(c, checked_keys[i].key, checked_keys[i].type, err)) != CS_OK) return rc;
    }
    if ((rc = cs_conf_check_redaction_regex(c, err)) != CS_OK) return rc;
    /* As SparkConf.validateSettings: the heartbeat must be shorter than the network timeout. */
    int64_t hb = 0, to = 0;
    cs_conf_get_duration_ms(c, "spark.executor.heartbeatInterval", "10s", CS_MS, &hb, NULL);
    cs_conf_get_duration_ms(c, "spark.network.timeout", "120s", CS_SEC, &to, NULL);
    if (to <= hb)
        return cs_error_set(err, CS_EINVAL,
                            "the value of spark.network.timeout=%" PRId64
                            "ms must be greater than the value of "
                            "spark.executor.heartbeatInterval=%" PRId64 "ms",
                            to, hb);
    return CS_OK;
}

const char *cs_submit_entry(const submit_args *a, const cs_conf *conf)
{
    if (a->entry) return a->entry;
    const char *e = cs_conf_get(conf, "cspark.app.entry");
    return e && *e ? e : "cspark_main";
}

struct verbose_ctx {
    FILE *f;
    const cs_conf *conf;
};

static void print_kv(void *arg, const char *key, const char *value)
{
    const struct verbose_ctx *v = arg;
    fprintf(v->f, "  (%s,%s)\n", key, cs_conf_redact_with(v->conf, key, value));
}

#define OR_NULL(s) ((s) ? (s) : "null")

void cs_submit_print_verbose(FILE *f, const submit_args *a, const cs_conf *conf,
                             const char *used_props)
{
    if (used_props) fprintf(f, "Using properties file: %s\n", used_props);
    fprintf(f, "Parsed arguments:\n");
    fprintf(f, "  master                  %s\n", OR_NULL(cs_conf_get(conf, "spark.master")));
    fprintf(f, "  deployMode              %s\n",
            OR_NULL(cs_conf_get(conf, "spark.submit.deployMode")));
    fprintf(f, "  executorMemory          %s\n",
            OR_NULL(cs_conf_get(conf, "spark.executor.memory")));
    fprintf(f, "  executorCores           %s\n",
            OR_NULL(cs_conf_get(conf, "spark.executor.cores")));
    fprintf(f, "  totalExecutorCores      %s\n", OR_NULL(cs_conf_get(conf, "spark.cores.max")));
    fprintf(f, "  propertiesFile          %s\n", OR_NULL(used_props));
    fprintf(f, "  driverMemory            %s\n", OR_NULL(cs_conf_get(conf, "spark.driver.memory")));
    fprintf(f, "  driverCores             %s\n", OR_NULL(cs_conf_get(conf, "spark.driver.cores")));
    fprintf(f, "  numExecutors            %s\n",
            OR_NULL(cs_conf_get(conf, "spark.executor.instances")));
    fprintf(f, "  entry                   %s\n", cs_submit_entry(a, conf));
    fprintf(f, "  primaryResource         %s\n", OR_NULL(a->app));
    fprintf(f, "  name                    %s\n", OR_NULL(cs_conf_get(conf, "spark.app.name")));
    fprintf(f, "  childArgs               [");
    for (int i = 0; i < a->app_argc; i++)
        fprintf(f, "%s%s", i ? " " : "", a->app_argv[i]);
    fprintf(f, "]\n");
    fprintf(f, "  verbose                 %s\n", a->verbose ? "true" : "false");
    fprintf(f,
            "\nSpark properties used, including those specified through\n --conf and those "
            "from the properties file %s:\n",
            OR_NULL(used_props));
    struct verbose_ctx v = {f, conf};
    cs_conf_foreach(conf, print_kv, &v);
    fprintf(f, "\n");
}
