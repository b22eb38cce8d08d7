/* history_main.c — cspark_history_main, the `cspark-history` program: Spark's History Server
 * over a directory of event logs (its main() is in src/programs/cspark_history.c).
 *
 *   cspark-history [--properties-file FILE] [--conf KEY=VALUE]... [LOG_DIR]
 *
 * Settings come, in increasing precedence, from SPARK_HISTORY_OPTS (-Dkey=value words, as Spark's
 * start-history-server.sh), the properties file, --conf, and LOG_DIR (as the legacy argument of
 * Spark's script): spark.history.fs.logDirectory (default file:/tmp/spark-events; file:/x,
 * file:///x, a plain path, or s3a://bucket/prefix, read through a local copy: history_mirror.h),
 * spark.history.ui.port (18080), spark.history.fs.update.interval (10s),
 * spark.history.retainedApplications (50), spark.port.maxRetries (16), and the access settings of
 * ui/ui_access.h (spark.history.ui.acls.enable, spark.history.ui.admin.acls,
 * cspark.ui.auth.usersFile, cspark.ui.allowedHosts); the server binds SPARK_LOCAL_IP, else every
 * address in a pod (as Spark's, for the Service) and 127.0.0.1 outside one. It lists the directory
 * at start and every update interval, serves the application list at / and each application's UI
 * and REST API, and runs until SIGINT or SIGTERM. A user error (missing directory, bad value, port
 * taken) is one line on stderr naming the key and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/sigpipe.h"
#include "programs/program_mains.h"
#include "fs/fs.h"
#include "history/history_mirror.h"
#include "history/history_provider.h"
#include "ui/ui_server.h"
#include "common/localaddr.h"

#define KEY_DIR "spark.history.fs.logDirectory"

static const char usage[] =
    "Usage: cspark-history [--properties-file FILE] [--conf KEY=VALUE]... [LOG_DIR]\n"
    "Serves the web UI and REST API of the applications whose event logs are in LOG_DIR\n"
    "(spark.history.fs.logDirectory, default file:/tmp/spark-events) on port\n"
    "spark.history.ui.port (18080).\n";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cspark-history: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* SPARK_HISTORY_OPTS: words of the form -Dkey=value (others are JVM options: ignored). */
static void env_options(cs_conf *conf)
{
    const char *opts = getenv("SPARK_HISTORY_OPTS");
    if (!opts) return;
    char *copy = cs_xstrdup(opts), *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(w, '=');
        if (strncmp(w, "-D", 2) == 0 && eq && eq > w + 2) {
            *eq = '\0';
            cs_conf_set(conf, w + 2, eq + 1);
        }
    }
    free(copy);
}

/* file:/x, file:///x, file://localhost/x or a plain path -> the local directory (malloc'd). */
static char *local_dir(const char *uri, cs_error *err)
{
    const char *p = uri;
    if (strncmp(p, "file:", 5) == 0) {
        p += 5;
        if (strncmp(p, "//", 2) == 0) {
            p += 2;
            if (strncmp(p, "localhost/", 10) == 0) p += 9;
            if (*p != '/') p = NULL;
        }
    } else if (strstr(p, "://")) {
        p = NULL;
    }
    if (!p || !*p) {
        cs_error_set(err, CS_EUNSUPPORTED,
                     "unsupported value for " KEY_DIR ": '%s' (expected a directory: "
                     "file:/path, file:///path, /path or s3a://bucket/path)",
                     uri);
        return NULL;
    }
    return cs_xstrdup(p);
}

/* An object-store log directory (Spark reads it through Hadoop's S3A): it must exist, as Spark
 * requires of any log directory, and is copied locally before every scan. */
static int open_mirror(const cs_conf *conf, const char *uri, history_mirror **out, cs_error *err)
{
    cs_fs_configure(conf); /* spark.hadoop.fs.s3a.* */
    cs_fs_status st = {0};
    if (cs_fs_stat(uri, &st, err) < 0) return cs_error_prefix(err, KEY_DIR "=%s", uri);
    if (!st.exists || !st.is_dir)
        return cs_error_set(err, CS_ENOTFOUND,
                            "Log directory specified does not exist: %s. Did you configure the "
                            "correct one through " KEY_DIR "?",
                            uri);
    if (!(*out = cs_history_mirror_new(uri, err))) return err->code;
    if (cs_history_mirror_sync(*out, err) < 0) return cs_error_prefix(err, KEY_DIR "=%s", uri);
    return 0;
}

/* The cleaner's deletions reach the store (the local copy goes after them). */
static int remove_from_store(void *arg, const char *path, bool is_dir)
{
    (void)is_dir;
    cs_error err = {0};
    if (cs_history_mirror_remove(arg, path, &err) == 0) return 0;
    CS_WARN("history", "path=%s event=log_delete_failed error=%s", cs_log_value(path),
            cs_log_quote(err.msg));
    return -1;
}

static int parse_args(int argc, char **argv, cs_conf *conf, bool *help, cs_error *err)
{
    const char *props = NULL, *dir = NULL;
    cs_conf *cli = cs_conf_new();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
        } else if (strcmp(a, "--properties-file") == 0 || strcmp(a, "--conf") == 0) {
            if (i + 1 >= argc) {
                cs_conf_free(cli);
                return cs_error_set(err, CS_EINVAL, "%s needs a value", a);
            }
            const char *v = argv[++i];
            if (a[2] == 'p') {
                props = v;
                continue;
            }
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                cs_conf_free(cli);
                return cs_error_set(err, CS_EINVAL, "--conf expects KEY=VALUE, got '%s'", v);
            }
            char *k = cs_xstrndup(v, (size_t)(eq - v));
            cs_conf_set(cli, k, eq + 1);
            free(k);
        } else if (a[0] == '-' && a[1]) {
            cs_conf_free(cli);
            return cs_error_set(err, CS_EINVAL, "unknown option %s (see --help)", a);
        } else if (!dir) {
            dir = a;
        } else {
            cs_conf_free(cli);
            return cs_error_set(err, CS_EINVAL, "one log directory only, got '%s' and '%s'", dir,
                                a);
        }
    }
    env_options(conf);
    if (props && cs_conf_load_properties(conf, props, true, err) < 0) {
        cs_conf_free(cli);
        return err->code;
    }
    cs_conf_merge(conf, cli, true);
    cs_conf_free(cli);
    if (dir) cs_conf_set(conf, KEY_DIR, dir);
    return 0;
}

static int run(int argc, char **argv)
{
    cs_conf *conf = cs_conf_new();
    cs_error err = {0};
    bool help = false;
    int rc = 1;
    char *dir = NULL;
    history_mirror *mirror = NULL; /* an object-store log directory's local copy */
    history_provider *hp = NULL;
    ui_server *srv = NULL;
    ui_access *access = NULL;
    if (parse_args(argc, argv, conf, &help, &err) < 0) {
        rc = fail("%s", err.msg);
        goto out;
    }
    if (help) {
        fputs(usage, stdout);
        rc = 0;
        goto out;
    }
    int64_t port, interval_ms, retained, retries;
    bool cleaner = false; /* Spark's log cleaner: spark.history.fs.cleaner.* */
    int64_t clean_interval_ms, clean_max_age_ms, clean_max_num;
    if (cs_conf_get_bool(conf, "spark.history.fs.cleaner.enabled", "false", &cleaner, &err) < 0 ||
        cs_conf_get_duration_ms(conf, "spark.history.fs.cleaner.interval", "1d", CS_SEC,
                                &clean_interval_ms, &err) < 0 ||
        cs_conf_get_duration_ms(conf, "spark.history.fs.cleaner.maxAge", "7d", CS_SEC,
                                &clean_max_age_ms, &err) < 0 ||
        cs_conf_get_int(conf, "spark.history.fs.cleaner.maxNum", "2147483647", &clean_max_num,
                        &err) < 0) {
        rc = fail("%s", err.msg);
        goto out;
    }
    if (cs_conf_get_int(conf, "spark.history.ui.port", "18080", &port, &err) < 0 ||
        cs_conf_get_duration_ms(conf, "spark.history.fs.update.interval", "10s", CS_SEC,
                                &interval_ms, &err) < 0 ||
        cs_conf_get_int(conf, "spark.history.retainedApplications", "50", &retained, &err) < 0 ||
        cs_conf_entry_int(conf, "spark.port.maxRetries", &retries, &err) < 0) {
        rc = fail("%s", err.msg);
        goto out;
    }
    if (port != 0 && (port < 1024 || port > 65535)) {
        rc = fail("invalid value for spark.history.ui.port: '%lld' (expected 0 or a port from "
                  "1024 to 65535)",
                  (long long)port);
        goto out;
    }
    if (interval_ms <= 0 || retained < 1 || retries < 0) {
        rc = fail("invalid value for %s (expected a positive %s)",
                  interval_ms <= 0 ? "spark.history.fs.update.interval"
                  : retained < 1   ? "spark.history.retainedApplications"
                                   : "spark.port.maxRetries",
                  interval_ms <= 0 ? "duration" : "integer");
        goto out;
    }
    const char *uri = cs_conf_get(conf, KEY_DIR);
    if (!uri) uri = "file:/tmp/spark-events";
    if (strncasecmp(uri, "s3a://", 6) == 0) {
        if (open_mirror(conf, uri, &mirror, &err) < 0) {
            rc = fail("%s", err.msg);
            goto out;
        }
        dir = cs_xstrdup(cs_history_mirror_dir(mirror));
    } else if (!(dir = local_dir(uri, &err))) {
        rc = fail("%s", err.msg);
        goto out;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = fail("Log directory specified does not exist: %s (" KEY_DIR "=%s). Did you configure "
                  "the correct one through " KEY_DIR "?",
                  dir, uri);
        goto out;
    }
    hp = cs_history_provider_new(dir, (int)retained);
    if (mirror) cs_history_provider_set_remover(hp, remove_from_store, mirror);
    if (cs_history_provider_scan(hp, &err) < 0) {
        rc = fail("%s (" KEY_DIR "=%s)", err.msg, uri);
        goto out;
    }
    /* SIGINT/SIGTERM are taken by sigtimedwait below, on this thread only */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    ui_provider p = cs_history_provider_ui(hp);
    if (!(access = cs_ui_access_new(conf, true, &err))) {
        rc = fail("%s", err.msg);
        goto out;
    }
    const char *bind = getenv("SPARK_LOCAL_IP");
    if (!bind || !*bind) bind = getenv("KUBERNETES_SERVICE_HOST") ? NULL : cs_loopback_address();
    ui_server_options o = {.bind_host = bind,
                           .port = (int)port,
                           .max_retries = (int)retries,
                           .port_key = "spark.history.ui.port",
                           .history = true,
                           .threads = 4,
                           .history_dir = mirror ? uri : dir,
                           .access = access};
    srv = cs_ui_server_start(&o, &p, NULL, &err);
    if (!srv) {
        rc = fail("%s", err.msg);
        goto out;
    }
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    CS_INFO("history",
            "dir=%s port=%d update_interval_ms=%lld Bound HistoryServer to %s, and "
            "started at http://%s:%d",
            cs_log_value(mirror ? uri : dir), cs_ui_server_port(srv), (long long)interval_ms,
            cs_log_value(o.bind_host ? o.bind_host : cs_wildcard_address()), cs_log_value(host),
            cs_ui_server_port(srv));
    int64_t cleaned_at = INT64_MIN; /* Spark's cleaner starts at once, then every interval */
    for (;;) {
        if (cleaner &&
            (cleaned_at == INT64_MIN || cs_mono_ms() - cleaned_at >= clean_interval_ms)) {
            cleaned_at = cs_mono_ms();
            cs_history_provider_clean(hp, cs_now_ms(), clean_max_age_ms, clean_max_num);
        }
        struct timespec ts = {(time_t)(interval_ms / 1000), (long)(interval_ms % 1000) * 1000000L};
        int sig = sigtimedwait(&stop, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            CS_INFO("history", "event=stopping signal=%s", strsignal(sig));
            break;
        }
        if (mirror && cs_history_mirror_sync(mirror, &err) < 0)
            CS_WARN("history", "event=sync_failed error=%s", cs_log_quote(err.msg));
        if (cs_history_provider_scan(hp, &err) < 0)
            CS_WARN("history", "event=scan_failed error=%s", cs_log_quote(err.msg));
    }
    rc = 0;
out:
    cs_ui_server_stop(srv);
    cs_ui_access_free(access);
    cs_history_provider_free(hp);
    cs_history_mirror_free(mirror);
    free(dir);
    cs_conf_free(conf);
    return rc;
}

int cspark_history_main(int argc, char **argv)
{
    cs_sigpipe_make_harmless();
    return run(argc, argv);
}
