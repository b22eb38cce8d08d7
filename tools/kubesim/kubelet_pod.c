/*
 * kubelet_pod.c — the kubesim kubelet's small pieces about a pod spec: the log line format, file
 * helpers, resource quantities and requests (for scheduling), QoS class, image lookup (image name
 * -> host dir), fieldRef values, ConfigMap/Secret key values (base64 for Secrets). The container's
 * environment and argv are in kubelet_env.c, volumes and per-pod files in kubelet_volumes.c.
 * Called by the other kubelet files on the worker thread.
 *
 * Image directory layout (see docs/kubesim-kubelet.md): entrypoint (ENTRYPOINT, optional), cmd
 * (CMD, one argument per line, optional), env (KEY=VALUE lines, optional), workdir (optional),
 * rootfs/ (a tree bound into the container at the same paths, optional).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SA_PATH "/var/run/secrets/kubernetes.io/serviceaccount"

void kl_log(const char *level, const char *fmt, ...)
{
    char line[2048];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%s %04d-%02d-%02dT%02d:%02d:%02d.%03ldZ kubelet ", level,
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ts.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    size_t len =
        (size_t)n +
        ((size_t)m < sizeof line - (size_t)n - 1 ? (size_t)m : sizeof line - (size_t)n - 2);
    for (size_t i = 0; i < len; i++)
        if (line[i] == '\n') line[i] = ' ';
    line[len++] = '\n';
    ssize_t w = write(2, line, len);
    (void)w;
}

/* ---------------- files ---------------- */

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void kl_remove_tree(const char *path)
{
    if (path && *path && strcmp(path, "/")) nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int kl_mkdirs(const char *path, mode_t mode)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, mode) != 0 && errno != EEXIST) return -errno;
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST) return -errno;
    return 0;
}

int kl_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) return -errno;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return -e;
        }
        p += w;
        len -= (size_t)w;
    }
    fchmod(fd, mode);
    close(fd);
    return 0;
}

char *kl_read_small_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, tmp, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = 0;
    return buf;
}

/* ---------------- requests ---------------- */

const char *kl_res_str(const json_t *resources, const char *kind, const char *name)
{
    return json_string_value(json_object_get(json_object_get(resources, kind), name));
}

static long long container_req(const json_t *c, const char *name, int scale)
{
    const json_t *r = json_object_get(c, "resources");
    const char *q = kl_res_str(r, "requests", name);
    if (!q) q = kl_res_str(r, "limits", name);
    long long v = q ? ks_quantity_scaled(q, scale) : 0;
    return v > 0 ? v : 0;
}

void kl_pod_requests(const json_t *spec, long long *cpu, long long *mem)
{
    long long c = 0, m = 0, ic = 0, im = 0;
    size_t i;
    json_t *ct;
    json_array_foreach(json_object_get(spec, "containers"), i, ct)
    {
        c += container_req(ct, "cpu", 1000);
        m += container_req(ct, "memory", 1);
    }
    json_array_foreach(json_object_get(spec, "initContainers"), i, ct)
    {
        long long a = container_req(ct, "cpu", 1000), b = container_req(ct, "memory", 1);
        if (a > ic) ic = a;
        if (b > im) im = b;
    }
    *cpu = c > ic ? c : ic;
    *mem = m > im ? m : im;
}

long long kl_pod_extended_request(const json_t *spec, const char *name)
{
    if (!name) return 0;
    long long n = 0, in = 0;
    size_t i;
    json_t *ct;
    json_array_foreach(json_object_get(spec, "containers"), i, ct) n += container_req(ct, name, 1);
    json_array_foreach(json_object_get(spec, "initContainers"), i, ct)
    {
        long long a = container_req(ct, name, 1);
        if (a > in) in = a;
    }
    return n > in ? n : in;
}

const char *kl_qos_class(const json_t *spec)
{
    int any = 0, guaranteed = 1;
    const char *lists[] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *ct;
        json_array_foreach(json_object_get(spec, lists[l]), i, ct)
        {
            const json_t *r = json_object_get(ct, "resources");
            const char *names[] = {"cpu", "memory"};
            for (int n = 0; n < 2; n++) {
                const char *req = kl_res_str(r, "requests", names[n]),
                           *lim = kl_res_str(r, "limits", names[n]);
                if (req || lim) any = 1;
                if (!lim || (req && ks_quantity_scaled(req, 1000) != ks_quantity_scaled(lim, 1000)))
                    guaranteed = 0;
            }
        }
    }
    if (!any) return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

/* ---------------- images ---------------- */

const char *kl_image_dir(struct ks_kubelet *k, const char *image)
{
    if (!image) return NULL;
    const char *bare = image;
    if (!strncmp(bare, "docker.io/", 10)) bare = bare + 10;
    if (!strncmp(bare, "library/", 8)) bare = bare + 8;
    for (int i = 0; i < k->opt.n_images; i++) {
        const char *n = k->image_names[i];
        if (!strcmp(n, image) || !strcmp(n, bare)) return k->image_dirs[i];
        /* "name" matches "name:latest" both ways */
        size_t ln = strlen(n), lb = strlen(bare);
        if (!strchr(n, ':') && lb == ln + 7 && !strncmp(bare, n, ln) &&
            !strcmp(bare + ln, ":latest"))
            return k->image_dirs[i];
        if (!strchr(bare, ':') && ln == lb + 7 && !strncmp(n, bare, lb) &&
            !strcmp(n + lb, ":latest"))
            return k->image_dirs[i];
    }
    return NULL;
}

/* ---------------- field references ---------------- */

static char *bracket_key(const char *path, const char *prefix)
{
    /* prefix['key'] or prefix["key"] */
    size_t l = strlen(prefix);
    if (strncmp(path, prefix, l) || path[l] != '[') return NULL;
    const char *s = path + l + 1;
    char q = *s;
    if (q != '\'' && q != '"') return NULL;
    const char *e = strchr(s + 1, q);
    if (!e || e[1] != ']') return NULL;
    return strndup(s + 1, (size_t)(e - s - 1));
}

const char *kl_meta_s(const json_t *obj, const char *k)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), k));
}

char *kl_field_ref(kpod *p, const char *path, char *err, size_t errlen)
{
    const json_t *o = p->obj;
    const json_t *spec = p->spec;
    if (!path) path = "";
    if (!strcmp(path, "metadata.name")) return strdup(p->name);
    if (!strcmp(path, "metadata.namespace")) return strdup(p->ns);
    if (!strcmp(path, "metadata.uid")) return strdup(p->uid);
    if (!strcmp(path, "spec.nodeName")) return strdup(p->node ? p->node->name : "");
    if (!strcmp(path, "spec.serviceAccountName")) {
        const char *sa = json_string_value(json_object_get(spec, "serviceAccountName"));
        return strdup(sa ? sa : "default");
    }
    if (!strcmp(path, "status.podIP") || !strcmp(path, "status.podIPs")) return strdup(p->ip);
    if (!strcmp(path, "status.hostIP") || !strcmp(path, "status.hostIPs"))
        return strdup(p->node ? p->node->host_ip : "");
    char *key;
    const char *maps[] = {"metadata.labels", "metadata.annotations"};
    for (int i = 0; i < 2; i++) {
        if ((key = bracket_key(path, maps[i]))) {
            const char *v = json_string_value(
                json_object_get(json_object_get(json_object_get(o, "metadata"), maps[i] + 9), key));
            free(key);
            return strdup(v ? v : "");
        }
        if (!strcmp(path, maps[i])) {
            /* key="value" lines, sorted, like the downward API */
            json_t *m = json_object_get(json_object_get(o, "metadata"), maps[i] + 9);
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            const char **keys = calloc(json_object_size(m) + 1, sizeof(char *));
            size_t n = 0;
            const char *kk;
            json_t *vv;
            json_object_foreach(m, kk, vv) keys[n++] = kk;
            for (size_t a = 1; a < n; a++)
                for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
                    const char *t = keys[b];
                    keys[b] = keys[b - 1];
                    keys[b - 1] = t;
                }
            for (size_t a = 0; a < n; a++)
                fprintf(f, "%s%s=\"%s\"", a ? "\n" : "", keys[a],
                        json_string_value(json_object_get(m, keys[a])));
            fclose(f);
            free(keys);
            return buf;
        }
    }
    snprintf(err, errlen, "unsupported fieldPath: %s", path);
    return NULL;
}

/* ---------------- base64 ---------------- */

static unsigned char *b64_decode(const char *in, size_t *out_len)
{
    size_t n = strlen(in);
    unsigned char *out = malloc(n / 4 * 3 + 4);
    if (!out) return NULL;
    unsigned v = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)in[i], d;
        if (c >= 'A' && c <= 'Z')
            d = c - 'A';
        else if (c >= 'a' && c <= 'z')
            d = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            d = c - '0' + 52;
        else if (c == '+' || c == '-')
            d = 62;
        else if (c == '/' || c == '_')
            d = 63;
        else
            continue; /* '=', whitespace */
        v = (v << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)((v >> bits) & 0xFF);
        }
    }
    *out_len = o;
    return out;
}

/* Value of key in a ConfigMap (data / binaryData) or Secret (data base64 / stringData). malloc'd.
 */
unsigned char *kl_object_key(const json_t *obj, int secret, const char *key, size_t *len)
{
    const char *v;
    if (secret) {
        if ((v = json_string_value(json_object_get(json_object_get(obj, "stringData"), key)))) {
            *len = strlen(v);
            return (unsigned char *)strdup(v);
        }
        if ((v = json_string_value(json_object_get(json_object_get(obj, "data"), key))))
            return b64_decode(v, len);
        return NULL;
    }
    if ((v = json_string_value(json_object_get(json_object_get(obj, "data"), key)))) {
        *len = strlen(v);
        return (unsigned char *)strdup(v);
    }
    if ((v = json_string_value(json_object_get(json_object_get(obj, "binaryData"), key))))
        return b64_decode(v, len);
    return NULL;
}
