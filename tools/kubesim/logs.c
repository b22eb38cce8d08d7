/* kubesim log following (see logs.h). */
#define _GNU_SOURCE
#include "logs.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct follow {
    ks_store *store;
    ks_pod_log_fn fn;
    void *arg;
    char ns[256], name[256], container[256];
    size_t sent;
    int done, fd;
    int *stopping;
    char *pending;
    size_t plen, poff;
} follow;

static int pod_finished(follow *f)
{
    json_t *pod = ks_store_get(f->store, "pods", f->ns, f->name);
    if (!pod) return 1;
    const char *ph = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    int fin = ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
    json_decref(pod);
    return fin;
}

static int client_gone(int fd)
{
    if (fd < 0) return 0;
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL));
}

/* Reads the log and keeps the part not yet sent in f->pending. */
static void refresh(follow *f)
{
    size_t len = 0;
    char *text = f->fn(f->arg, f->ns, f->name, f->container, &len);
    if (text && len > f->sent) {
        free(f->pending);
        f->pending = malloc(len - f->sent);
        if (f->pending) {
            memcpy(f->pending, text + f->sent, len - f->sent);
            f->plen = len - f->sent;
            f->poff = 0;
            f->sent = len;
        }
    }
    free(text);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    follow *f = cls;
    (void)pos;
    for (;;) {
        if (f->pending && f->poff < f->plen) {
            size_t n = f->plen - f->poff < max ? f->plen - f->poff : max;
            memcpy(buf, f->pending + f->poff, n);
            f->poff += n;
            return (ssize_t)n;
        }
        if (f->done || __atomic_load_n(f->stopping, __ATOMIC_ACQUIRE))
            return MHD_CONTENT_READER_END_OF_STREAM;
        int fin = pod_finished(f);
        refresh(f);
        if (fin) {
            f->done = 1;
            continue;
        }
        if (f->pending && f->poff < f->plen) continue;
        if (client_gone(f->fd)) return MHD_CONTENT_READER_END_WITH_ERROR;
        usleep(200 * 1000);
    }
}

static void follow_free(void *cls)
{
    follow *f = cls;
    free(f->pending);
    free(f);
}

struct MHD_Response *ks_log_follow_response(ks_store *store, ks_pod_log_fn fn, void *arg,
                                            const char *ns, const char *name, const char *container,
                                            size_t start_offset, int *stopping, int fd)
{
    follow *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->store = store;
    f->fn = fn;
    f->arg = arg;
    snprintf(f->ns, sizeof f->ns, "%s", ns);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->container, sizeof f->container, "%s", container);
    f->sent = start_offset;
    f->stopping = stopping;
    f->fd = fd;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, reader, f, follow_free);
    if (!r) {
        follow_free(f);
        return NULL;
    }
    MHD_add_response_header(r, "Content-Type", "text/plain");
    return r;
}
