/* ui_live.c — the driver's live UI: settings, the one-application provider, start and stop (see
 * ui_live.h).
 */
#include "ui/ui_live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "cspark.h"
#include "common/localaddr.h"

#define DEFAULT_MAX_RETRIES 16

struct ui_live {
    ui_store *store;
    ui_server *server;
    ui_access *access;
    char url[300];
};

static size_t live_list(void *arg, ui_app_entry **out)
{
    ui_live *ui = arg;
    ui_app_entry *e = cs_xcalloc(1, sizeof *e);
    cs_ui_store_lock(ui->store);
    const ui_app *a = cs_ui_store_app(ui->store);
    e->id = cs_xstrdup(a->id ? a->id : "");
    e->name = cs_xstrdup(a->name ? a->name : "");
    e->user = cs_xstrdup(a->user ? a->user : "");
    e->version = cs_xstrdup(a->spark_version ? a->spark_version : CSPARK_VERSION);
    e->start_ms = a->start_ms;
    e->end_ms = a->end_ms;
    e->completed = a->completed;
    e->last_updated_ms = a->completed ? a->end_ms : cs_now_ms();
    cs_ui_store_unlock(ui->store);
    *out = e;
    return 1;
}

static ui_store *live_acquire(void *arg, const char *app_id, int64_t *last_updated)
{
    ui_live *ui = arg;
    cs_ui_store_lock(ui->store);
    const char *id = cs_ui_store_app(ui->store)->id;
    bool match = id && strcmp(id, app_id) == 0;
    cs_ui_store_unlock(ui->store);
    *last_updated = 0;
    return match ? ui->store : NULL;
}

static void live_release(void *arg, ui_store *st)
{
    (void)arg, (void)st;
}

const char *cs_ui_live_bind_host(const cs_conf *conf)
{
    const char *bind = cs_conf_get(conf, "spark.driver.bindAddress");
    const char *pod_ip = getenv("SPARK_DRIVER_BIND_ADDRESS");
    const char *local_ip = getenv("SPARK_LOCAL_IP");
    bool in_pod = (pod_ip && *pod_ip) || getenv("KUBERNETES_SERVICE_HOST");
    if (bind && pod_ip && strcmp(bind, pod_ip) == 0) bind = NULL;
    if (bind && *bind) return bind;
    if (local_ip && *local_ip) return local_ip;
    return in_pod ? NULL : cs_loopback_address();
}

int cs_ui_live_start(const cs_conf *conf, const char *app_id, const ui_hooks *hooks, ui_live **out,
                     cs_error *err)
{
    *out = NULL;
    bool enabled, kill;
    int64_t port, retries;
    ui_store_limits lim;
    if (cs_conf_get_bool(conf, "spark.ui.enabled", "true", &enabled, err) < 0) return err->code;
    if (!enabled) return 0;
    if (cs_conf_entry_int(conf, "spark.ui.port", &port, err) < 0 ||
        cs_conf_entry_int(conf, "spark.port.maxRetries", &retries, err) < 0 ||
        cs_conf_get_bool(conf, "spark.ui.killEnabled", "true", &kill, err) < 0 ||
        cs_ui_store_limits_read(conf, &lim, err) < 0)
        return err->code;
    if (port != 0 && (port < 1024 || port > 65535))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.ui.port: '%lld' (expected 0 for a random "
                            "free port, or a port from 1024 to 65535)",
                            (long long)port);
    if (retries < 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.port.maxRetries: '%lld' (expected an integer "
                            ">= 0)",
                            (long long)retries);
    ui_access *access = cs_ui_access_new(conf, false, err);
    if (!access) return err->code;
    ui_live *ui = cs_xcalloc(1, sizeof *ui);
    ui->access = access;
    ui->store = cs_ui_store_new(&lim);
    cs_ui_store_set_spark_version(ui->store, CSPARK_VERSION);
    const char *bind = cs_ui_live_bind_host(conf);
    ui_server_options o = {.bind_host = bind,
                           .port = (int)port,
                           .max_retries = (int)retries,
                           .port_key = "spark.ui.port",
                           .kill_enabled = kill,
                           .live_app_id = app_id,
                           .metrics_namespace = cs_conf_get(conf, "spark.metrics.namespace"),
                           .threads = 2,
                           .access = access};
    ui_provider p = {ui, live_list, live_acquire, live_release};
    ui->server = cs_ui_server_start(&o, &p, hooks, err);
    if (!ui->server) {
        cs_ui_access_free(ui->access);
        cs_ui_store_free(ui->store);
        free(ui);
        return err->code ? err->code : CS_EIO;
    }
    const char *host = cs_conf_get(conf, "spark.driver.host");
    char hostname[256];
    if (bind && strncmp(bind, "127.", 4) == 0) host = bind; /* reachable by no other name */
    if (!host) {
        if (gethostname(hostname, sizeof hostname) != 0)
            snprintf(hostname, sizeof hostname, "localhost");
        hostname[sizeof hostname - 1] = '\0';
        host = hostname;
    }
    snprintf(ui->url, sizeof ui->url, "http://%s:%d", host, cs_ui_server_port(ui->server));
    CS_INFO("ui", "app=%s port=%d url=%s Bound SparkUI to %s, and started at %s",
            cs_log_value(app_id), cs_ui_server_port(ui->server), cs_log_value(ui->url),
            cs_log_value(bind ? bind : cs_wildcard_address()), cs_log_value(ui->url));
    *out = ui;
    return 0;
}

void cs_ui_live_attach(ui_live *ui, listener_bus *bus)
{
    if (ui) cs_listener_bus_add(bus, cs_ui_store_listener, ui->store);
}

int cs_ui_live_port(const ui_live *ui)
{
    return ui ? cs_ui_server_port(ui->server) : -1;
}

const char *cs_ui_live_url(const ui_live *ui)
{
    return ui ? ui->url : NULL;
}

ui_store *cs_ui_live_store(ui_live *ui)
{
    return ui ? ui->store : NULL;
}

void cs_ui_live_stop(ui_live *ui)
{
    if (!ui) return;
    cs_ui_server_stop(ui->server);
    ui->server = NULL;
}

void cs_ui_live_free(ui_live *ui)
{
    if (!ui) return;
    cs_ui_server_stop(ui->server);
    cs_ui_access_free(ui->access);
    cs_ui_store_free(ui->store);
    free(ui);
}

/* offset (negative: from the end) within [0, size], len cut to what is left after it. */
static int64_t clamp_range(int64_t size, int64_t offset, size_t *len)
{
    if (offset < 0) offset = size + offset;
    if (offset < 0) offset = 0;
    if (offset > size) offset = size;
    if ((int64_t)*len > size - offset) *len = (size_t)(size - offset);
    return offset;
}

int64_t cs_ui_slice_log(const char *text, size_t size, int64_t offset, size_t len, cs_sbuf *out,
                        int64_t *start)
{
    offset = clamp_range((int64_t)size, offset, &len);
    *start = offset;
    cs_sbuf_append(out, text + offset, len);
    return (int64_t)size;
}

int64_t cs_ui_read_log_file(const char *path, int64_t offset, size_t len, cs_sbuf *out,
                            int64_t *start)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    int64_t size = st.st_size;
    offset = clamp_range(size, offset, &len);
    *start = offset;
    char buf[65536];
    while (len > 0) {
        ssize_t n = pread(fd, buf, len < sizeof buf ? len : sizeof buf, offset);
        if (n <= 0) break;
        cs_sbuf_append(out, buf, (size_t)n);
        offset += n;
        len -= (size_t)n;
    }
    close(fd);
    return size;
}
