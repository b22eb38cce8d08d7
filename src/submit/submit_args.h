/* submit_args.h — cspark-submit's command line, its effective configuration and validation.
 *
 * cs_submit_args_parse turns argv into a submit_args (spark-submit's options in both `--opt value`
 * and `--opt=value` forms, then the application file and its untouched arguments).
 * cs_submit_build_conf applies Spark's precedence (explicit options > --conf > --properties-file,
 * or $SPARK_CONF_DIR/spark-defaults.conf when no properties file is given) and defaults;
 * cs_submit_validate checks the master URL, the deploy mode and every typed key cspark reads, so a
 * malformed value fails before anything starts. Called only by programs/submit_main.c (and unit
 * tests).
 *
 * Ownership: strings in submit_args are borrowed from argv (which outlives them); the `confs`
 * array is owned and released by cs_submit_args_free. The cs_conf from cs_submit_build_conf is
 * owned by the caller (cs_conf_free).
 */
#ifndef CSPARK_SUBMIT_ARGS_H
#define CSPARK_SUBMIT_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/master.h"

typedef struct submit_args {
    const char *master, *deploy_mode, *name, *entry, *properties_file;
    const char *driver_memory, *driver_cores, *executor_memory, *executor_cores;
    const char *num_executors, *total_executor_cores;
    const char *files, *archives; /* --files, --archives: comma-separated URIs */
    const char *py_files;         /* --py-files: comma-separated .py/.zip/.egg files */
    const char *kill, *status;    /* submission ids */
    const char **confs;           /* "key=value" strings of --conf, in order */
    int nconfs;
    bool verbose, help, version, load_spark_defaults;
    const char *app; /* application file (.so); NULL if none given */
    int app_argc;    /* arguments after the application file */
    char **app_argv; /* borrowed from argv */
} submit_args;

/* Parses argv[1..argc). Usage errors return CS_EINVAL with a message (no "cspark-submit: "
 * prefix) such as "unknown option '--foo' (run cspark-submit --help for usage)". */
int cs_submit_args_parse(int argc, char **argv, submit_args *out, cs_error *err);
void cs_submit_args_free(submit_args *a);
/* Whether arg is an option whose value is the next argument ("--master", "--conf", "-c"; not
 * "--verbose" nor "--master=x"): cspark-sql passes such pairs on untouched. */
bool cs_submit_option_takes_value(const char *arg);

/* Whether the primary resource is a SQL file (a name ending in ".sql", as Spark tells a Python
 * application by ".py"): cspark-submit runs its statements as `cspark-sql -f FILE` would, in the
 * driver (a driver pod in cluster mode), with the arguments after it as cspark-sql's options. */
bool cs_submit_is_sql_file(const char *resource);
/* Whether the primary resource is a Python application (a name ending in ".py", as Spark's
 * SparkSubmit tells one): cspark-submit runs it as a Spark Connect client of its driver
 * (programs/python_submit.h), the arguments after it being the program's. */
bool cs_submit_is_python_file(const char *resource);

/* Builds the effective conf. conf_dir is where spark-defaults.conf is looked for (NULL: from
 * $SPARK_CONF_DIR, else $SPARK_HOME/conf). *used_props receives the properties file actually
 * read (borrowed from `a` or static storage valid until the next call; NULL if none). On error *out
 * is NULL. */
int cs_submit_build_conf(const submit_args *a, const char *conf_dir, cs_conf **out,
                         const char **used_props, cs_error *err);

/* Validates the master (*master filled), deploy mode, cspark.log.level and typed keys.
 * Messages name the key and value. */
int cs_submit_validate(const cs_conf *conf, cs_master *master, cs_error *err);

/* Writes the usage text. */
void cs_submit_usage(FILE *f);

/* Writes --verbose output: parsed arguments, then the effective conf (redacted). */
void cs_submit_print_verbose(FILE *f, const submit_args *a, const cs_conf *conf,
                             const char *used_props);

/* The entry symbol: --class, else cspark.app.entry, else "cspark_main". */
const char *cs_submit_entry(const submit_args *a, const cs_conf *conf);

#endif /* CSPARK_SUBMIT_ARGS_H */
