/* submit_main.c — cspark_submit_main, the `cspark-submit` program (its main() is in
 * src/programs/cspark_submit.c).
 *
 * Parses the command line (submit_args.c), builds and validates the effective configuration
 * (submit_conf.c), hands --kill/--status to submit_k8s_kill.c (k8s:// masters only),
 * applies cspark.log.level, and hands the application to cs_app_run() from src/api, which loads
 * the .so, creates the context, calls the entry and stops the context. A SQL file as the primary
 * resource (FILE.sql, cs_submit_is_sql_file) is run as `cspark-sql -f FILE` would, the arguments
 * after it being cspark-sql's options (sql_main.h); in cluster mode it travels to the driver pod
 * as a .so does (the driver's ConfigMap, or spark.kubernetes.file.upload.path). A Python program
 * (FILE.py, cs_submit_is_python_file) runs as a Spark Connect client of this driver
 * (python_submit.h), the arguments after it being the program's; in cluster mode on Kubernetes
 * it travels to the driver pod as a SQL file does, with its --py-files, and runs there.
 * Every user error is one line on stderr starting with "cspark-submit: " and exit status 1;
 * --help and --version exit 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "programs/program_mains.h"
#include "programs/python_submit.h"
#include "programs/sql_main.h"
#include "common/app_file.h"
#include "common/conf.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/sigpipe.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"
#include "submit/submit_args.h"

#include "api/app.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "submit/submit_k8s.h"

#ifndef CSPARK_VERSION
#define CSPARK_VERSION "0.1.0"
#endif

static int fail(const cs_error *err)
{
    cs_log_user_error("cspark-submit", "%s", err->msg);
    return 1;
}

/* The .so at an object-store URI, fetched into a local directory of this process. */
static int fetch_app(const cs_conf *conf, const char *uri, char **dir, char **path, cs_error *err)
{
    cs_fs_configure(conf);
    if (cs_local_dir_create(conf, "cspark-app", dir, err) < 0) return err->code;
    const char *base = strrchr(uri, '/');
    size_t n = strlen(*dir) + strlen(base ? base : "/app.so") + 1;
    *path = cs_xmalloc(n);
    snprintf(*path, n, "%s%s", *dir, base ? base : "/app.so");
    if (cs_files_fetch_one(uri, *path, err) < 0)
        return cs_error_prefix(err, "cannot fetch the application %s", uri);
    return 0;
}

static int run(int argc, char **argv)
{
    submit_args a;
    cs_error err = {0};
    cs_conf *conf = NULL;
    cs_master master;
    int status = 1;
    char **app_argv = NULL;
    char *fetched_dir = NULL, *fetched = NULL;

    if (cs_submit_args_parse(argc, argv, &a, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    if (a.help) {
        cs_submit_usage(stdout);
        status = 0;
        goto out;
    }
    if (a.version) {
        printf("cspark-submit version %s\n"
               "Apache Spark's execution model in C; spark-submit options and Spark 4.1 "
               "configuration keys\n",
               CSPARK_VERSION);
        status = 0;
        goto out;
    }
    if (a.kill || a.status) { /* Spark's K8SSparkSubmitOperation: k8s:// masters only */
        const char *opt = a.kill ? "--kill" : "--status";
        if (a.kill && a.status) {
            fprintf(stderr, "cspark-submit: --kill and --status cannot be used together\n");
            goto out;
        }
        if (cs_submit_build_conf(&a, NULL, &conf, NULL, &err) != CS_OK ||
            cs_master_parse(cs_conf_get(conf, "spark.master"), &master, &err) != CS_OK) {
            status = fail(&err);
            goto out;
        }
        if (master.kind != MASTER_K8S) {
            fprintf(
                stderr,
                "cspark-submit: %s needs a Kubernetes master (--master k8s://https://host:port), "
                "got '%s'\n",
                opt, cs_conf_get(conf, "spark.master"));
            goto out;
        }
        const char *lv = cs_conf_get(conf, "cspark.log.level");
        cs_log_level ll;
        if (lv && cs_log_parse_level(lv, &ll) == CS_OK) cs_log_set_level(ll);
        status = cs_submit_k8s_kill_status(conf, a.kill ? a.kill : a.status, a.kill != NULL, stdout,
                                           &err);
        if (status < 0) status = fail(&err);
        goto out;
    }
    if (!a.app) {
        fprintf(stderr, "cspark-submit: missing application file (usage: cspark-submit "
                        "[options] <app.so> [app arguments]; see --help)\n");
        goto out;
    }
    bool sql = cs_submit_is_sql_file(a.app);
    if (sql && cs_sql_file_args_check(a.app, a.app_argc, a.app_argv, &err) < 0) {
        status = fail(&err);
        goto out;
    }
    const char *used_props = NULL;
    if (cs_submit_build_conf(&a, NULL, &conf, &used_props, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    int vrc = cs_submit_validate(conf, &master, &err);
    if (a.verbose) cs_submit_print_verbose(stderr, &a, conf, used_props);
    if (vrc != CS_OK) {
        status = fail(&err);
        goto out;
    }
    if (cs_files_check_list("spark.files", cs_conf_get(conf, "spark.files"), false, &err) < 0 ||
        cs_files_check_list("spark.archives", cs_conf_get(conf, "spark.archives"), true, &err) <
            0) {
        status = fail(&err);
        goto out;
    }
    const char *lvl = cs_conf_get(conf, "cspark.log.level");
    cs_log_level l;
    if (lvl && cs_log_parse_level(lvl, &l) == CS_OK) cs_log_set_level(l);

    /* the resource as given (local:// = a path inside the image) travels to Kubernetes pods */
    cs_conf_set(conf, "cspark.app.resource", a.app);
    const char *deploy = cs_conf_get(conf, "spark.submit.deployMode");
    bool python = cs_submit_is_python_file(a.app);
    if (master.kind == MASTER_K8S && deploy && strcmp(deploy, "cluster") == 0) {
        /* a Python program and its --py-files are checked here, before anything is created */
        if (python && cs_python_submit_check_cluster(conf, a.app) != 0) goto out;
        status =
            cs_submit_k8s_cluster(conf, &a, sql || python ? NULL : cs_submit_entry(&a, conf), &err);
        if (status < 0) status = fail(&err);
        goto out;
    }
    const char *app_path = strncmp(a.app, "local://", 8) == 0 ? a.app + 8 : a.app;
    /* a driver pod given the .so uploaded through spark.kubernetes.file.upload.path */
    if (cs_fs_local_path(app_path)) app_path = cs_fs_local_path(app_path);
    if (cs_files_is_remote(app_path)) {
        if (fetch_app(conf, app_path, &fetched_dir, &fetched, &err) < 0) {
            status = fail(&err);
            goto out;
        }
        app_path = fetched;
    }
    if (sql && access(app_path, R_OK) != 0) {
        fprintf(stderr, "cspark-submit: cannot read the SQL file %s: %s\n", app_path,
                strerror(errno));
        goto out;
    }
    if (python) {
        status = cs_python_submit_run(conf, app_path, a.app_argc, a.app_argv);
        goto out;
    }
    if (sql) { /* the statements of the file, as cspark-sql -f runs them */
        app_argv = cs_xcalloc((size_t)a.app_argc + 3, sizeof(char *));
        app_argv[0] = "-f";
        app_argv[1] = (char *)app_path;
        for (int i = 0; i < a.app_argc; i++)
            app_argv[i + 2] = a.app_argv[i];
        status = cs_sql_app_run(conf, &master, "cspark-submit", a.app_argc + 2, app_argv);
        goto out;
    }
    if (cs_app_file_check(app_path, &err) != CS_OK) { /* before anything maps it */
        status = fail(&err);
        goto out;
    }
    /* client mode on Kubernetes: the executors' settings are refused before the driver starts */
    if (master.kind == MASTER_K8S && cs_k8s_executor_check_conf(conf, &err) != CS_OK) {
        status = fail(&err);
        goto out;
    }
    /* The application's argv: argv[0] is the application path, then its arguments. */
    app_argv = cs_xcalloc((size_t)a.app_argc + 2, sizeof(char *));
    app_argv[0] = (char *)app_path;
    for (int i = 0; i < a.app_argc; i++)
        app_argv[i + 1] = a.app_argv[i];
    CS_DEBUG("submit", "app=%s entry=%s master=%s", cs_log_value(a.app),
             cs_log_value(cs_submit_entry(&a, conf)),
             cs_log_value(cs_conf_get(conf, "spark.master")));
    fflush(stdout);
    status = cs_app_run(conf, app_path, cs_submit_entry(&a, conf), a.app_argc + 1, app_argv);
out:
    if (fetched_dir) cs_remove_tree(fetched_dir);
    free(fetched_dir);
    free(fetched);
    free(app_argv);
    cs_conf_free(conf);
    cs_submit_args_free(&a);
    return status;
}

int cspark_submit_main(int argc, char **argv)
{
    cs_sigpipe_make_harmless();
    return run(argc, argv);
}
