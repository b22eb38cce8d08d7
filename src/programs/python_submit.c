/*
 * python_submit.c — cs_python_submit_run (python_submit.h), called by cspark-submit
 * (submit_main.c) for a primary resource ending in ".py" in client mode: on the user's machine,
 * or in the driver pod of a cluster-mode application on Kubernetes (the submit client having
 * checked the program and its local --py-files with cs_python_submit_check_cluster, and shipped
 * them in the driver's ConfigMap or through spark.kubernetes.file.upload.path as SQL files and
 * --files travel).
 *
 * Before anything starts it checks, each failure being one "cspark-submit: " line and exit 1:
 * the program is a readable file; the interpreter — spark.pyspark.python, else the
 * PYSPARK_PYTHON environment variable, else python3, as Spark picks a Python driver's — is an
 * executable (a bare name is looked up on PATH); every --py-files entry
 * (spark.submit.pyFiles: .py, .zip or .egg files, local paths, file:// / local:// URIs, or
 * s3a:// URIs fetched first) is a readable local file; and libcspark was built with the Spark
 * Connect server. The --py-files are put first on this process's PYTHONPATH, which the program,
 * the Python UDF workers and local-cluster executor processes inherit; executor pods get them
 * as spark.files entries with spark.executorEnv.PYTHONPATH naming where they see them (s3a://
 * entries: other executors too fetch them as spark.files, and their Python workers import them
 * from there, as Spark's SparkFiles and python includes). The
 * application is then libcspark itself, as for cspark-sql (executors run their own, the
 * image's): cs_app_run loads it and calls cspark_python_app (python_app.c) with
 *   [library, interpreter, max message bytes, max batch bytes, program, program arguments...].
 *
 * Ownership: everything allocated here is freed (and fetched files removed) before returning;
 * argv is borrowed; conf is borrowed and gets the executors' keys.
 */
#define _GNU_SOURCE
#include "programs/python_submit.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/app.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/app_file.h"
#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strutil.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"

#define PROGRAM "cspark-submit"
#define PYTHON_ENTRY "cspark_python_app"

/* The interpreter's name and where it came from (for the error line). */
static const char *python_name(const cs_conf *conf, const char **source)
{
    const char *p = cs_conf_get(conf, "spark.pyspark.python");
    *source = "spark.pyspark.python";
    if (!p || !*p) {
        p = getenv("PYSPARK_PYTHON");
        *source = "PYSPARK_PYTHON";
    }
    if (!p || !*p) {
        p = "python3";
        *source = "the default (neither spark.pyspark.python nor PYSPARK_PYTHON is set)";
    }
    return p;
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* name as given when it holds a '/', else its first executable match on PATH: 0 with out
 * filled, -1 when there is none. */
static int find_executable(const char *name, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        if (!is_executable_file(name)) return -1;
        snprintf(out, cap, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && (size_t)snprintf(out, cap, "%.*s/%s", (int)n, p, name) < cap &&
            is_executable_file(out))
            return 0;
        if (!end) break;
        p = end + 1;
    }
    return -1;
}

/* NULL when path is a readable regular file, else why not. */
static const char *readable_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return strerror(errno);
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (access(path, R_OK) != 0) return strerror(errno);
    return NULL;
}

/* Where one --py-files entry is read from on this machine: a path, file:// or local:// URI as
 * its path, a remote URI (s3a://: uploaded through spark.kubernetes.file.upload.path) fetched into
 * *fetch_dir (created on first use). Fills abs (PATH_MAX bytes); 1 after an error line. */
static int py_file_local_path(const cs_conf *conf, const char *item, char **fetch_dir, char *abs)
{
    const char *local = item;
    char fetched[PATH_MAX];
    cs_error err;
    cs_error_clear(&err);
    if (strncmp(local, "file://", 7) == 0) {
        local += 7;
    } else if (strncmp(local, "local://", 8) == 0) {
        local += 8;
    } else if (cs_files_is_remote(local)) {
        const char *base = strrchr(local, '/');
        cs_fs_configure(conf); /* spark.hadoop.fs.s3a.*: no context has read them yet */
        if (!*fetch_dir && cs_local_dir_create(conf, "cspark-pyfiles", fetch_dir, &err) < 0) {
            cs_log_user_error(PROGRAM, "%s", err.msg);
            return 1;
        }
        snprintf(fetched, sizeof fetched, "%s/%s", *fetch_dir, base ? base + 1 : "pyfile.py");
        if (cs_files_fetch_one(local, fetched, &err) < 0) {
            fprintf(stderr, PROGRAM ": spark.submit.pyFiles entry '%s' cannot be fetched: %s\n",
                    item, err.msg);
            return 1;
        }
        local = fetched;
    } else if (strstr(local, "://")) {
        fprintf(stderr,
                PROGRAM ": spark.submit.pyFiles entry '%s' is not a local file (expected a "
                        "path, file://, local:// or s3a:// URI of a .py, .zip or .egg file)\n",
                item);
        return 1;
    }
    const char *why = realpath(local, abs) ? readable_file(abs) : strerror(errno);
    if (why) {
        fprintf(stderr,
                PROGRAM ": spark.submit.pyFiles entry '%s' cannot be read (expected a .py, "
                        ".zip or .egg file): %s\n",
                item, why);
        return 1;
    }
    return 0;
}

/* A --py-files path as a Python path entry: a .py file is imported from its directory; .zip and
 * .egg files are path entries themselves. Cuts path in place. */
static const char *python_path_entry(char *path)
{
    size_t n = strlen(path);
    char *slash = strrchr(path, '/');
    if (n > 3 && strcmp(path + n - 3, ".py") == 0 && slash) {
        if (slash == path) return "/";
        *slash = '\0';
    }
    return path;
}

/* Executor pods see a --py-files entry at its local:// path; in the driver pod of a cluster-mode
 * application (spark.kubernetes.submitInDriver), at the path of a file: URI (uploaded through a
 * file: spark.kubernetes.file.upload.path, which every pod shares); otherwise in their ConfigMap
 * (K8S_CONF_DIR/<name>), where a local file is shipped as a spark.files entry is. One given as,
 * or uploaded to, an s3a:// URI (or a local file of a client-mode driver, with an upload path)
 * is fetched into each executor's own files directory, which has no path known here (NULL):
 * the executor's Python workers get it on sys.path from the executor itself.
 * Returns a malloc'd Python path entry. */
static char *executor_path_entry(const cs_conf *conf, const char *item)
{
    char path[PATH_MAX];
    bool in_driver_pod = cs_conf_get(conf, "spark.kubernetes.submitInDriver") != NULL;
    const char *upload = cs_conf_get(conf, "spark.kubernetes.file.upload.path");
    bool file_uri = strncmp(item, "file://", 7) == 0;
    if (strncmp(item, "local://", 8) == 0) {
        snprintf(path, sizeof path, "%s", item + 8);
    } else if (file_uri && in_driver_pod) {
        snprintf(path, sizeof path, "%s", item + 7);
    } else if ((strstr(item, "://") && !file_uri) || (upload && *upload)) {
        return NULL;
    } else {
        const char *base = strrchr(item, '/');
        snprintf(path, sizeof path, "%s/%s", K8S_CONF_DIR, base ? base + 1 : item);
    }
    return cs_xstrdup(python_path_entry(path));
}

/* spark.submit.pyFiles as absolute local paths joined by ':' before the current PYTHONPATH,
 * set in this process's environment; with k8s executors, the entries are added to spark.files
 * and spark.executorEnv.PYTHONPATH, and with other executors the s3a:// ones to spark.files:
 * each executor fetches them into its files directory, which its Python workers put on
 * sys.path (SparkFiles' root and python includes, fs/shipped_files.h), as Spark ships
 * --py-files. 1 after an error line naming the entry. */
static int set_python_path(cs_conf *conf, bool k8s, char **fetch_dir)
{
    const char *list = cs_conf_get(conf, "spark.submit.pyFiles");
    if (!list || !*list) return 0;
    char *copy = cs_xstrdup(list);
    cs_sbuf path = {0}, exec_path = {0}, files = {0};
    int rc = 1;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item) continue;
        char abs[PATH_MAX];
        if (py_file_local_path(conf, item, fetch_dir, abs) != 0) goto out;
        cs_sbuf_printf(&path, "%s%s", path.len ? ":" : "", python_path_entry(abs));
        if (!k8s) { /* an s3a:// entry: each executor fetches it as a spark.files entry */
            if (cs_files_is_remote(item))
                cs_sbuf_printf(&files, "%s%s", files.len ? "," : "", item);
            continue;
        }
        char *entry = executor_path_entry(conf, item);
        if (entry) cs_sbuf_printf(&exec_path, "%s%s", exec_path.len ? ":" : "", entry);
        free(entry);
        cs_sbuf_printf(&files, "%s%s", files.len ? "," : "", item);
    }
    const char *old = getenv("PYTHONPATH");
    if (old && *old) cs_sbuf_printf(&path, ":%s", old);
    if (path.len) setenv("PYTHONPATH", path.data, 1);
    if (files.len) { /* the executor pods get them as they get --files */
        const char *have = cs_conf_get(conf, "spark.files");
        if (have && *have) cs_sbuf_printf(&files, ",%s", have);
        cs_conf_set(conf, "spark.files", files.data);
    }
    if (exec_path.len) {
        const char *have = cs_conf_get(conf, "spark.executorEnv.PYTHONPATH");
        if (have && *have) cs_sbuf_printf(&exec_path, ":%s", have);
        cs_conf_set(conf, "spark.executorEnv.PYTHONPATH", exec_path.data);
    }
    rc = 0;
out:
    cs_sbuf_free(&path);
    cs_sbuf_free(&exec_path);
    cs_sbuf_free(&files);
    free(copy);
    return rc;
}

int cs_python_submit_check_cluster(const cs_conf *conf, const char *app)
{
    if (!strstr(app, "://")) {
        const char *why = readable_file(app);
        if (why) {
            fprintf(stderr, PROGRAM ": cannot read the Python application %s: %s\n", app, why);
            return 1;
        }
    }
    const char *list = cs_conf_get(conf, "spark.submit.pyFiles");
    char *copy = cs_xstrdup(list ? list : "");
    char *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0;
         item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        const char *local = strncmp(item, "file://", 7) == 0 ? item + 7 : item;
        if (!*local || strstr(local, "://")) continue; /* local:// and remote: read by the pod */
        const char *why = readable_file(local);
        if (why) {
            fprintf(stderr,
                    PROGRAM ": spark.submit.pyFiles entry '%s' cannot be read (expected a .py, "
                            ".zip or .egg file): %s\n",
                    item, why);
            rc = 1;
        }
    }
    free(copy);
    return rc;
}

int cs_python_submit_run(cs_conf *conf, const char *app_path, int argc, char **argv)
{
    char **app_argv = NULL;
    char *fetch_dir = NULL;
    int status = 1;
    cs_error err;
    cs_error_clear(&err);
    const char *why = readable_file(app_path);
    if (why) {
        fprintf(stderr, PROGRAM ": cannot read the Python application %s: %s\n", app_path, why);
        goto out;
    }
    const char *source;
    const char *name = python_name(conf, &source);
    char python[PATH_MAX];
    if (find_executable(name, python, sizeof python) < 0) {
        fprintf(stderr,
                PROGRAM ": no Python interpreter '%s' (from %s): set spark.pyspark.python or "
                        "PYSPARK_PYTHON to a Python 3 that imports pyspark's Connect client\n",
                name, source);
        goto out;
    }
    void *entry = dlsym(RTLD_DEFAULT, PYTHON_ENTRY);
    Dl_info info;
    char lib[PATH_MAX];
    if (!entry || !dladdr(entry, &info) || !info.dli_fname) {
        fprintf(stderr, PROGRAM ": Python applications need the Spark Connect server, which this "
                                "build of libcspark does not have (cmake found no Spark Connect "
                                ".proto files)\n");
        goto out;
    }
    if (!realpath(info.dli_fname, lib)) snprintf(lib, sizeof lib, "%s", info.dli_fname);
    int64_t max_message = 0, max_batch = 0;
    if (cs_conf_entry_size(conf, "spark.connect.grpc.maxInboundMessageSize", &max_message, &err) !=
            CS_OK ||
        cs_conf_entry_size(conf, "spark.connect.grpc.arrow.maxBatchSize", &max_batch, &err) !=
            CS_OK) {
        cs_log_user_error(PROGRAM, "%s", err.msg);
        goto out;
    }
    const char *master = cs_conf_get(conf, "spark.master");
    bool k8s = master && strncmp(master, "k8s://", 6) == 0;
    /* the application is libcspark itself, which executors (and executor pods, from the image)
     * already run: nothing of the driver's is shipped to them but the --py-files */
    cs_conf_set(conf, "cspark.app.resource", CS_APP_SPARK_INTERNAL);
    if (set_python_path(conf, k8s, &fetch_dir) != 0) goto out;
    if (k8s && cs_k8s_executor_check_conf(conf, &err) != CS_OK) {
        cs_log_user_error(PROGRAM, "%s", err.msg);
        goto out;
    }
    char max_text[24], batch_text[24];
    snprintf(max_text, sizeof max_text, "%lld", (long long)max_message);
    snprintf(batch_text, sizeof batch_text, "%lld", (long long)max_batch);
    int n = 5 + argc;
    app_argv = cs_xcalloc((size_t)n + 1, sizeof(char *));
    app_argv[0] = lib;
    app_argv[1] = python;
    app_argv[2] = max_text;
    app_argv[3] = batch_text;
    app_argv[4] = (char *)app_path;
    for (int i = 0; i < argc; i++)
        app_argv[5 + i] = argv[i];
    CS_DEBUG("submit", "python=%s app=%s", cs_log_value(python), cs_log_value(app_path));
    fflush(stdout);
    status = cs_app_run(conf, lib, PYTHON_ENTRY, n, app_argv);
out:
    if (fetch_dir) cs_remove_tree(fetch_dir);
    free(fetch_dir);
    free(app_argv);
    return status;
}
