/* submit_conf.c — the effective configuration of a submission and its validation.
 *
 * Precedence as spark-submit: explicit options (--master, --executor-memory, ...) > --conf >
 * --properties-file, or, when no properties file is given, $SPARK_CONF_DIR/spark-defaults.conf
 * (Spark 4 loads both only with --load-spark-defaults) > the environment (MASTER, DEPLOY_MODE,
 * SPARK_DRIVER_MEMORY, SPARK_EXECUTOR_MEMORY, SPARK_EXECUTOR_CORES, and a credential's variable,
 * SPARK_CONNECT_AUTHENTICATE_TOKEN: conf_entries.c's secret_env). Keys that start with
 * neither "spark." nor "cspark." are dropped with a warning, as Spark does. Then defaults (master
 * local[*], deploy mode client, app name from the file name) and early validation of every typed
 * key cspark reads, so a malformed value is reported with its key before anything starts. Called by
 * programs/submit_main.c; tests call these functions directly.
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
#include "common/conf_entries.h"
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
        CS_WARN("submit", "ignoring non-Spark config property: %s", cs_log_value(k));
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
        {offsetof(submit_args, files), "spark.files"},
        {offsetof(submit_args, archives), "spark.archives"},
        {offsetof(submit_args, py_files), "spark.submit.pyFiles"},
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
    /* credentials a pod is given through its environment (conf_entries.c: the driver pod reads
     * them from a Kubernetes Secret, never from its ConfigMap), as Spark 4 reads
     * SPARK_CONNECT_AUTHENTICATE_TOKEN */
    int nentries;
    const cs_conf_entry *entries = cs_conf_entries(&nentries);
    for (int i = 0; i < nentries; i++) {
        const char *v = entries[i].secret_env ? getenv(entries[i].secret_env) : NULL;
        if (v && *v) cs_conf_set_if_missing(c, entries[i].key, v);
    }
    /* shown by --verbose and passed on to the driver as set */
    cs_conf_set_if_missing(c, "spark.master", cs_conf_entry_string(c, "spark.master"));
    cs_conf_set_if_missing(c, "spark.submit.deployMode",
                           cs_conf_entry_string(c, "spark.submit.deployMode"));
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

/* Every typed key is checked against its declaration (common/conf_entries.c) before anything
 * is created; the master and deploy mode first, so their errors come first. */
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
    const char *env_lvl = getenv("CSPARK_LOG_LEVEL");
    if (env_lvl && *env_lvl && cs_log_parse_level(env_lvl, &l) != CS_OK)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for CSPARK_LOG_LEVEL: '%s' (expected DEBUG, INFO, WARN "
                            "or ERROR)",
                            env_lvl);
    const char *m = cs_conf_entry_string(c, "spark.master");
    if ((rc = cs_master_parse(m, master, err)) != CS_OK) return rc;
    const char *mode = cs_conf_get(c, "spark.submit.deployMode");
    const cs_conf_entry *mode_entry = cs_conf_entry_find("spark.submit.deployMode");
    if (mode && (rc = cs_conf_entry_check(mode_entry, mode, err)) != CS_OK) return rc;
    if (mode && strcmp(mode, "cluster") == 0 && master->kind != MASTER_K8S)
        return cs_error_set(err, CS_EINVAL,
                            "cluster deploy mode is not compatible with master '%s' (use "
                            "--deploy-mode client, or a k8s:// master)",
                            m);
    if ((rc = cs_conf_validate(c, err)) != CS_OK) return rc;
    return cs_conf_check_redaction_regex(c, err);
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
