/* submit_args.c — parsing of cspark-submit's command line (submit_args.h).
 *
 * Follows Spark's SparkSubmitOptionParser: options are recognised in `--opt value` and
 * `--opt=value` forms until the first argument that is not an option, which is the primary
 * resource (the application .so); everything after it belongs to the application. Spark options
 * that make no sense without a JVM (--jars, --packages, ...) are refused by name rather than
 * reported as unknown. Called by programs/submit_main.c.
 */
#include "submit/submit_args.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum opt_id {
    OPT_MASTER,
    OPT_DEPLOY_MODE,
    OPT_NAME,
    OPT_CLASS,
    OPT_CONF,
    OPT_PROPERTIES_FILE,
    OPT_DRIVER_MEMORY,
    OPT_DRIVER_CORES,
    OPT_EXECUTOR_MEMORY,
    OPT_EXECUTOR_CORES,
    OPT_NUM_EXECUTORS,
    OPT_TOTAL_EXECUTOR_CORES,
    OPT_FILES,
    OPT_PY_FILES,
    OPT_ARCHIVES,
    OPT_KILL,
    OPT_STATUS,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
    OPT_LOAD_SPARK_DEFAULTS,
};

static const struct opt_def {
    const char *name, *alias;
    bool takes_value;
    enum opt_id id;
} opts[] = {
    {"--master", NULL, true, OPT_MASTER},
    {"--deploy-mode", NULL, true, OPT_DEPLOY_MODE},
    {"--name", NULL, true, OPT_NAME},
    {"--class", NULL, true, OPT_CLASS},
    {"--conf", "-c", true, OPT_CONF},
    {"--properties-file", NULL, true, OPT_PROPERTIES_FILE},
    {"--driver-memory", NULL, true, OPT_DRIVER_MEMORY},
    {"--driver-cores", NULL, true, OPT_DRIVER_CORES},
    {"--executor-memory", NULL, true, OPT_EXECUTOR_MEMORY},
    {"--executor-cores", NULL, true, OPT_EXECUTOR_CORES},
    {"--num-executors", NULL, true, OPT_NUM_EXECUTORS},
    {"--total-executor-cores", NULL, true, OPT_TOTAL_EXECUTOR_CORES},
    {"--files", NULL, true, OPT_FILES},
    {"--py-files", NULL, true, OPT_PY_FILES},
    {"--archives", NULL, true, OPT_ARCHIVES},
    {"--kill", NULL, true, OPT_KILL},
    {"--status", NULL, true, OPT_STATUS},
    {"--verbose", "-v", false, OPT_VERBOSE},
    {"--help", "-h", false, OPT_HELP},
    {"--version", NULL, false, OPT_VERSION},
    {"--load-spark-defaults", NULL, false, OPT_LOAD_SPARK_DEFAULTS},
};

/* spark-submit options cspark does not implement (JVM class paths, Python, Ivy, YARN, ...). */
static const char *const unsupported_opts[] = {
    "--jars",
    "--packages",
    "--exclude-packages",
    "--repositories",
    "--driver-java-options",
    "--driver-library-path",
    "--driver-class-path",
    "--proxy-user",
    "--principal",
    "--keytab",
    "--queue",
    "--supervise",
    "--remote",
    "--usage-error",
};

static int set_opt(submit_args *a, enum opt_id id, const char *v)
{
    switch (id) {
    case OPT_MASTER:
        a->master = v;
        break;
    case OPT_DEPLOY_MODE:
        a->deploy_mode = v;
        break;
    case OPT_NAME:
        a->name = v;
        break;
    case OPT_CLASS:
        a->entry = v;
        break;
    case OPT_CONF:
        a->confs = cs_xrealloc(a->confs, (size_t)(a->nconfs + 1) * sizeof *a->confs);
        a->confs[a->nconfs++] = v;
        break;
    case OPT_PROPERTIES_FILE:
        a->properties_file = v;
        break;
    case OPT_DRIVER_MEMORY:
        a->driver_memory = v;
        break;
    case OPT_DRIVER_CORES:
        a->driver_cores = v;
        break;
    case OPT_EXECUTOR_MEMORY:
        a->executor_memory = v;
        break;
    case OPT_EXECUTOR_CORES:
        a->executor_cores = v;
        break;
    case OPT_NUM_EXECUTORS:
        a->num_executors = v;
        break;
    case OPT_TOTAL_EXECUTOR_CORES:
        a->total_executor_cores = v;
        break;
    case OPT_FILES:
        a->files = v;
        break;
    case OPT_PY_FILES:
        a->py_files = v;
        break;
    case OPT_ARCHIVES:
        a->archives = v;
        break;
    case OPT_KILL:
        a->kill = v;
        break;
    case OPT_STATUS:
        a->status = v;
        break;
    case OPT_VERBOSE:
        a->verbose = true;
        break;
    case OPT_HELP:
        a->help = true;
        break;
    case OPT_VERSION:
        a->version = true;
        break;
    case OPT_LOAD_SPARK_DEFAULTS:
        a->load_spark_defaults = true;
        break;
    }
    return CS_OK;
}

int cs_submit_args_parse(int argc, char **argv, submit_args *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0')
            break; /* the application file (a lone "-" is not an option either) */
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        const char *eq = strchr(arg, '=');
        size_t nlen = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const struct opt_def *d = NULL;
        for (size_t k = 0; k < sizeof opts / sizeof opts[0] && !d; k++) {
            if ((strlen(opts[k].name) == nlen && strncmp(arg, opts[k].name, nlen) == 0) ||
                (opts[k].alias && strcmp(arg, opts[k].alias) == 0))
                d = &opts[k];
        }
        if (!d) {
            for (size_t k = 0; k < sizeof unsupported_opts / sizeof unsupported_opts[0]; k++) {
                if (strlen(unsupported_opts[k]) == nlen &&
                    strncmp(arg, unsupported_opts[k], nlen) == 0)
                    return cs_error_set(err, CS_EINVAL,
                                        "option %s is not supported by cspark (run cspark-submit "
                                        "--help for the supported options)",
                                        unsupported_opts[k]);
            }
            return cs_error_set(err, CS_EINVAL,
                                "unknown option '%s' (run cspark-submit --help for usage)", arg);
        }
        const char *v = NULL;
        bool inline_value = eq && nlen == strlen(d->name) && arg[1] == '-';
        if (d->takes_value) {
            if (inline_value) {
                v = eq + 1;
            } else if (i + 1 < argc) {
                v = argv[++i];
            } else {
                return cs_error_set(err, CS_EINVAL, "option %s requires a value", d->name);
            }
        } else if (inline_value) {
            return cs_error_set(err, CS_EINVAL, "option %s takes no value (got '%s')", d->name,
                                arg);
        }
        if (d->id == OPT_CONF) {
            const char *e = strchr(v, '=');
            if (!e)
                return cs_error_set(err, CS_EINVAL,
                                    "--conf '%s' has no '=' (expected --conf key=value)", v);
            if (e == v)
                return cs_error_set(err, CS_EINVAL,
                                    "--conf '%s' has an empty key (expected --conf key=value)", v);
        }
        set_opt(out, d->id, v);
    }
    if (i < argc) {
        out->app = argv[i];
        out->app_argc = argc - i - 1;
        out->app_argv = argv + i + 1;
    }
    return CS_OK;
}

bool cs_submit_option_takes_value(const char *arg)
{
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (strcmp(arg, opts[k].name) == 0 || (opts[k].alias && strcmp(arg, opts[k].alias) == 0))
            return opts[k].takes_value;
    return false;
}

bool cs_submit_is_sql_file(const char *resource)
{
    size_t n = resource ? strlen(resource) : 0;
    return n > 4 && strcasecmp(resource + n - 4, ".sql") == 0;
}

bool cs_submit_is_python_file(const char *resource)
{
    size_t n = resource ? strlen(resource) : 0;
    return n > 3 && strcmp(resource + n - 3, ".py") == 0;
}

void cs_submit_args_free(submit_args *a)
{
    if (!a) return;
    free(a->confs);
    a->confs = NULL;
    a->nconfs = 0;
}

void cs_submit_usage(FILE *f)
{
    fputs("Usage: cspark-submit [options] <app.so | app.py | file.sql> [app arguments]\n"
          "Usage: cspark-submit --kill [submission ID] --master [k8s://https://host:port]\n"
          "Usage: cspark-submit --status [submission ID] --master [k8s://https://host:port]\n"
          "\n"
          "Options:\n"
          "  --master MASTER_URL         local, local[N], local[*], local[N,F],\n"
          "                              local-cluster[N,C,M] or k8s://https://host:port\n"
          "                              (default: local[*])\n"
          "  --deploy-mode DEPLOY_MODE   client (driver runs here, default) or cluster\n"
          "  --class ENTRY               the application's entry function (default: cspark_main)\n"
          "  --name NAME                 a name for the application (spark.app.name)\n"
          "  --conf, -c PROP=VALUE       an arbitrary Spark configuration property (repeatable)\n"
          "  --properties-file FILE      file to load extra properties from; default:\n"
          "                              $SPARK_CONF_DIR/spark-defaults.conf\n"
          "  --load-spark-defaults       also load spark-defaults.conf with --properties-file\n"
          "  --driver-memory MEM         memory for the driver, e.g. 1000M, 2G (default: 1024M)\n"
          "  --driver-cores NUM          cores for the driver (cluster mode, default: 1)\n"
          "  --executor-memory MEM       memory per executor, e.g. 1000M, 2G (default: 1G)\n"
          "  --executor-cores NUM        cores per executor (default: 1)\n"
          "  --num-executors NUM         number of executors to launch (default: 2)\n"
          "  --total-executor-cores NUM  total cores for all executors (spark.cores.max)\n"
          "  --files FILES               comma-separated files fetched into every executor's\n"
          "                              and the driver's directory (cspark_files_get)\n"
          "  --py-files PY_FILES         comma-separated .py, .zip, .egg files put on the\n"
          "                              PYTHONPATH of a Python application and its UDFs\n"
          "  --archives ARCHIVES         comma-separated .tar, .tar.gz, .tgz archives,\n"
          "                              unpacked there\n"
          "  --kill SUBMISSION_ID        kill the driver of a cluster-mode submission\n"
          "  --status SUBMISSION_ID      print the status of a cluster-mode submission\n"
          "  --verbose, -v               print the parsed arguments and effective configuration\n"
          "  --help, -h                  show this help and exit\n"
          "  --version                   print the version and exit\n"
          "\n"
          "Environment: SPARK_CONF_DIR (spark-defaults.conf location), CSPARK_LOG_LEVEL\n"
          "(DEBUG, INFO, WARN, ERROR; also --conf cspark.log.level=...).\n",
          f);
}
