/*
 * python_submit.c — cs_python_submit_run (python_submit.h), called by cspark-submit
 * (submit_main.c) for a primary resource ending in ".py", in client mode.
 *
 * Before anything starts it checks, each failure being one "cspark-submit: " line and exit 1:
 * the program is a readable file; the interpreter — spark.pyspark.python, else the
 * PYSPARK_PYTHON environment variable, else python3, as Spark picks a Python driver's — is an
 * executable (a bare name is looked up on PATH); every --py-files entry
 * (spark.submit.pyFiles: .py, .zip or .egg files, local paths or file:// / local:// URIs) is a
 * readable local file; and libcspark was built with the Spark Connect server. The --py-files are
 * put first on this process's PYTHONPATH, which the program, the Python UDF workers and
 * local-cluster executor processes inherit. The application is then libcspark itself, as for
 * cspark-sql: cs_app_run loads it and calls cspark_python_app (python_app.c) with
 *   [library, interpreter, max message bytes, max batch bytes, program, program arguments...].
 *
 * Ownership: everything allocated here is freed before returning; conf and argv are borrowed.
 */
#define _GNU_SOURCE
#include "programs/python_submit.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/app.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/strutil.h"

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

/* spark.submit.pyFiles as absolute local paths joined by ':' before the current PYTHONPATH,
 * set in this process's environment. 1 after an error line naming the entry. */
static int set_python_path(const cs_conf *conf)
{
    const char *list = cs_conf_get(conf, "spark.submit.pyFiles");
    if (!list || !*list) return 0;
    char *copy = cs_xstrdup(list);
    cs_sbuf path = {0};
    int rc = 1;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item) continue;
        const char *local = item;
        if (strncmp(local, "file://", 7) == 0)
            local += 7;
        else if (strncmp(local, "local://", 8) == 0)
            local += 8;
        else if (strstr(local, "://")) {
            fprintf(stderr,
                    PROGRAM ": spark.submit.pyFiles entry '%s' is not a local file (expected a "
                            "path, file:// or local:// URI of a .py, .zip or .egg file)\n",
                    item);
            goto out;
        }
        char abs[PATH_MAX];
        const char *why = realpath(local, abs) ? readable_file(abs) : strerror(errno);
        if (why) {
            fprintf(stderr,
                    PROGRAM ": spark.submit.pyFiles entry '%s' cannot be read (expected a .py, "
                            ".zip or .egg file): %s\n",
                    item, why);
            goto out;
        }
        /* a .py file is imported from its directory; .zip and .egg files are path entries */
        size_t n = strlen(abs);
        if (n > 3 && strcmp(abs + n - 3, ".py") == 0) *strrchr(abs, '/') = '\0';
        cs_sbuf_printf(&path, "%s%s", path.len ? ":" : "", abs);
    }
    const char *old = getenv("PYTHONPATH");
    if (old && *old) cs_sbuf_printf(&path, ":%s", old);
    if (path.len) setenv("PYTHONPATH", path.data, 1);
    rc = 0;
out:
    cs_sbuf_free(&path);
    free(copy);
    return rc;
}

int cs_python_submit_run(cs_conf *conf, const char *app_path, int argc, char **argv)
{
    char **app_argv = NULL;
    int status;
    const char *why = readable_file(app_path);
    if (why) {
        fprintf(stderr, PROGRAM ": cannot read the Python application %s: %s\n", app_path, why);
        return 1;
    }
    const char *source;
    const char *name = python_name(conf, &source);
    char python[PATH_MAX];
    if (find_executable(name, python, sizeof python) < 0) {
        fprintf(stderr,
                PROGRAM ": no Python interpreter '%s' (from %s): set spark.pyspark.python or "
                        "PYSPARK_PYTHON to a Python 3 that imports pyspark's Connect client\n",
                name, source);
        return 1;
    }
    void *entry = dlsym(RTLD_DEFAULT, PYTHON_ENTRY);
    Dl_info info;
    char lib[PATH_MAX];
    if (!entry || !dladdr(entry, &info) || !info.dli_fname) {
        fprintf(stderr, PROGRAM ": Python applications need the Spark Connect server, which this "
                                "build of libcspark does not have (cmake found no Spark Connect "
                                ".proto files)\n");
        return 1;
    }
    if (!realpath(info.dli_fname, lib)) snprintf(lib, sizeof lib, "%s", info.dli_fname);
    int64_t max_message = 0, max_batch = 0;
    cs_error err;
    cs_error_clear(&err);
    if (cs_conf_entry_size(conf, "spark.connect.grpc.maxInboundMessageSize", &max_message, &err) !=
            CS_OK ||
        cs_conf_entry_size(conf, "spark.connect.grpc.arrow.maxBatchSize", &max_batch, &err) !=
            CS_OK) {
        cs_log_user_error(PROGRAM, "%s", err.msg);
        return 1;
    }
    if (set_python_path(conf) != 0) return 1;
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
    free(app_argv);
    return status;
}
