/*
 * kubelet_pod.c — what the kubesim kubelet derives from a pod spec before starting a container:
 * resource quantities and requests (for scheduling), QoS class, image lookup (image name -> host
 * dir), fieldRef values, the container's environment (value, fieldRef, resourceFieldRef,
 * configMapKeyRef, secretKeyRef, envFrom, $(VAR) expansion, KUBERNETES_SERVICE_*), its argv (Docker
 * ENTRYPOINT/CMD rules), volumes materialised on the host (configMap incl. items and binaryData,
 * secret, emptyDir, hostPath, persistentVolumeClaim, downwardAPI, projected) and their mounts, the
 * service-account directory and the per-pod /etc/hosts and /etc/resolv.conf. Called by kubelet.c on
 * its worker thread.
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

static char *read_small_file(const char *path)
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

static const char *res_str(const json_t *resources, const char *kind, const char *name)
{
    return json_string_value(json_object_get(json_object_get(resources, kind), name));
}

static long long container_req(const json_t *c, const char *name, int scale)
{
    const json_t *r = json_object_get(c, "resources");
    const char *q = res_str(r, "requests", name);
    if (!q) q = res_str(r, "limits", name);
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
                const char *req = res_str(r, "requests", names[n]),
                           *lim = res_str(r, "limits", names[n]);
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

static const char *meta_s(const json_t *obj, const char *k)
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
static unsigned char *object_key(const json_t *obj, int secret, const char *key, size_t *len)
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

/* ---------------- volumes ---------------- */

static int json_mode(const json_t *v, int dflt)
{
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

/* Writes keys of a ConfigMap/Secret into dir. items: optional [{key,path,mode}]. */
static int write_keys(const char *dir, const json_t *obj, int secret, const json_t *items, int mode,
                      int optional, const char *kind, const char *ns, const char *name, char *err,
                      size_t errlen)
{
    char path[4096];
    if (json_array_size(items) > 0) {
        size_t i;
        json_t *it;
        json_array_foreach(items, i, it)
        {
            const char *key = json_string_value(json_object_get(it, "key"));
            const char *rel = json_string_value(json_object_get(it, "path"));
            if (!key) continue;
            size_t len = 0;
            unsigned char *data = object_key(obj, secret, key, &len);
            if (!data) {
                if (optional) continue;
                snprintf(err, errlen, "%s references non-existent %s key: %s", kind,
                         secret ? "secret" : "config", key);
                return -1;
            }
            snprintf(path, sizeof path, "%s/%s", dir, rel ? rel : key);
            char *slash = strrchr(path, '/');
            *slash = 0;
            kl_mkdirs(path, 0755);
            *slash = '/';
            kl_write_file(path, data, len, (mode_t)json_mode(json_object_get(it, "mode"), mode));
            free(data);
        }
        return 0;
    }
    const char *fields[] = {"data", "binaryData", "stringData"};
    for (int f = 0; f < 3; f++) {
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(obj, fields[f]), key, v)
        {
            size_t len = 0;
            unsigned char *data = object_key(obj, secret, key, &len);
            if (!data) continue;
            snprintf(path, sizeof path, "%s/%s", dir, key);
            kl_write_file(path, data, len, (mode_t)mode);
            free(data);
        }
    }
    (void)ns, (void)name;
    return 0;
}

static int write_downward(kpod *p, const char *dir, const json_t *items, int mode, char *err,
                          size_t errlen)
{
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *rel = json_string_value(json_object_get(it, "path"));
        const char *fp =
            json_string_value(json_object_get(json_object_get(it, "fieldRef"), "fieldPath"));
        if (!rel || !fp) continue;
        char *v = kl_field_ref(p, fp, err, errlen);
        if (!v) return -1;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        kl_write_file(path, v, strlen(v), (mode_t)json_mode(json_object_get(it, "mode"), mode));
        free(v);
    }
    return 0;
}

static int volume_source(kpod *p, const char *dir, const char *type, const json_t *src, int mode,
                         char *err, size_t errlen)
{
    ks_kubelet *k = p->k;
    int secret = !strcmp(type, "secret");
    const char *name = json_string_value(json_object_get(src, secret ? "secretName" : "name"));
    if (secret && !name)
        name = json_string_value(json_object_get(src, "name")); /* projected secret source */
    int optional = json_is_true(json_object_get(src, "optional"));
    json_t *obj =
        name ? k->api->get(k->api_ctx, secret ? "secrets" : "configmaps", p->ns, name) : NULL;
    if (!obj) {
        if (optional) return 0;
        snprintf(err, errlen, "%s \"%s\" not found", secret ? "secret" : "configmap",
                 name ? name : "");
        return -1;
    }
    int rc = write_keys(dir, obj, secret, json_object_get(src, "items"),
                        json_mode(json_object_get(src, "defaultMode"), mode), optional,
                        secret ? "secret" : "configMap", p->ns, name, err, errlen);
    json_decref(obj);
    return rc;
}

char *kl_volume_host_path(kpod *p, const json_t *vol)
{
    const char *name = json_string_value(json_object_get(vol, "name"));
    char *out = NULL;
    const json_t *hp = json_object_get(vol, "hostPath");
    const json_t *pvc = json_object_get(vol, "persistentVolumeClaim");
    if (hp)
        return strdup(json_string_value(json_object_get(hp, "path"))
                          ? json_string_value(json_object_get(hp, "path"))
                          : "/");
    if (pvc) {
        const char *claim = json_string_value(json_object_get(pvc, "claimName"));
        if (asprintf(&out, "%s/pvc/%s/%s", p->k->state_dir, p->ns, claim ? claim : "unnamed") < 0)
            return NULL;
        return out;
    }
    if (asprintf(&out, "%s/volumes/%s", p->dir, name ? name : "unnamed") < 0) return NULL;
    return out;
}

int kl_prepare_volumes(kpod *p, char *err, size_t errlen)
{
    size_t i;
    json_t *vol;
    json_array_foreach(json_object_get(p->spec, "volumes"), i, vol)
    {
        const char *vname = json_string_value(json_object_get(vol, "name"));
        char *dir = kl_volume_host_path(p, vol);
        if (!dir) return -1;
        int rc = 0;
        char e2[400] = "";
        const json_t *src;
        if ((src = json_object_get(vol, "hostPath"))) {
            const char *t = json_string_value(json_object_get(src, "type"));
            if (t && !strcmp(t, "DirectoryOrCreate"))
                kl_mkdirs(dir, 0755);
            else if (t && !strcmp(t, "FileOrCreate")) {
                if (access(dir, F_OK) != 0) kl_write_file(dir, "", 0, 0644);
            } else if (t && (!strcmp(t, "Directory") || !strcmp(t, "File")) &&
                       access(dir, F_OK) != 0) {
                snprintf(e2, sizeof e2, "hostPath type check failed: %s is not a %s", dir,
                         !strcmp(t, "File") ? "file" : "directory");
                rc = -1;
            }
        } else {
            kl_mkdirs(dir, 0755);
            if (json_object_get(vol, "emptyDir") || json_object_get(vol, "persistentVolumeClaim"))
                chmod(dir, 0777); /* writable by any runAsUser, as the kubelet's emptyDir */
            if ((src = json_object_get(vol, "configMap")))
                rc = volume_source(p, dir, "configMap", src, 0644, e2, sizeof e2);
            else if ((src = json_object_get(vol, "secret")))
                rc = volume_source(p, dir, "secret", src, 0644, e2, sizeof e2);
            else if ((src = json_object_get(vol, "downwardAPI")))
                rc = write_downward(p, dir, json_object_get(src, "items"),
                                    json_mode(json_object_get(src, "defaultMode"), 0644), e2,
                                    sizeof e2);
            else if ((src = json_object_get(vol, "projected"))) {
                int mode = json_mode(json_object_get(src, "defaultMode"), 0644);
                size_t j;
                json_t *s;
                json_array_foreach(json_object_get(src, "sources"), j, s)
                {
                    const json_t *x;
                    if ((x = json_object_get(s, "configMap")))
                        rc = volume_source(p, dir, "configMap", x, mode, e2, sizeof e2);
                    else if ((x = json_object_get(s, "secret")))
                        rc = volume_source(p, dir, "secret", x, mode, e2, sizeof e2);
                    else if ((x = json_object_get(s, "downwardAPI")))
                        rc = write_downward(p, dir, json_object_get(x, "items"), mode, e2,
                                            sizeof e2);
                    else if ((x = json_object_get(s, "serviceAccountToken"))) {
                        /* a TokenRequest bound to this pod, as the kubelet's token manager */
                        const char *rel = json_string_value(json_object_get(x, "path"));
                        const char *sa =
                            json_string_value(json_object_get(p->spec, "serviceAccountName"));
                        char path[4096];
                        char *tok = kl_sa_token(
                            p->k, p->ns, sa && *sa ? sa : "default", p->name, p->uid,
                            json_string_value(json_object_get(x, "audience")),
                            json_integer_value(json_object_get(x, "expirationSeconds")));
                        snprintf(path, sizeof path, "%s/%s", dir, rel ? rel : "token");
                        kl_write_file(path, tok ? tok : "", tok ? strlen(tok) : 0, (mode_t)mode);
                        free(tok);
                    }
                    if (rc) break;
                }
            }
            /* emptyDir, persistentVolumeClaim and unknown types: the directory itself */
        }
        if (rc)
            snprintf(err, errlen, "MountVolume.SetUp failed for volume \"%s\" : %s",
                     vname ? vname : "", e2);
        free(dir);
        if (rc) return -1;
    }
    return 0;
}

char *kl_sa_token(ks_kubelet *k, const char *ns, const char *sa, const char *pod, const char *uid,
                  const char *audience, long long expiration_s)
{
    if (k->api->sa_token)
        return k->api->sa_token(k->api_ctx, ns, sa, pod, uid, audience, expiration_s);
    /* kubesim signs no tokens: main gave a token function or one token for every pod */
    char *tok = NULL;
    pthread_mutex_lock(&k->api_mu);
    if (k->token_fn)
        tok = k->token_fn(k->token_arg, ns, sa);
    else if (k->api_token)
        tok = strdup(k->api_token);
    pthread_mutex_unlock(&k->api_mu);
    return tok;
}

void kl_prepare_service_account(kpod *p)
{
    ks_kubelet *k = p->k;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/serviceaccount", p->dir);
    kl_mkdirs(dir, 0755);
    const char *sa = json_string_value(json_object_get(p->spec, "serviceAccountName"));
    if (!sa || !*sa) sa = "default";
    char *tok = kl_sa_token(k, p->ns, sa, p->name, p->uid, NULL, 0), *ca = NULL;
    pthread_mutex_lock(&k->api_mu);
    if (k->api_ca_pem) ca = strdup(k->api_ca_pem);
    pthread_mutex_unlock(&k->api_mu);
    snprintf(path, sizeof path, "%s/token", dir);
    kl_write_file(path, tok ? tok : "", tok ? strlen(tok) : 0, 0644);
    snprintf(path, sizeof path, "%s/ca.crt", dir);
    kl_write_file(path, ca ? ca : "", ca ? strlen(ca) : 0, 0644);
    snprintf(path, sizeof path, "%s/namespace", dir);
    kl_write_file(path, p->ns, strlen(p->ns), 0644);
    free(tok);
    free(ca);
}

/* ---------------- hosts / resolv.conf ---------------- */

static int labels_match(const json_t *selector, const json_t *labels)
{
    if (json_object_size(selector) == 0) return 0; /* a Service without selector selects nothing */
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)selector, key, v)
    {
        const char *l = json_string_value(json_object_get(labels, key));
        if (!l || !json_string_value(v) || strcmp(l, json_string_value(v))) return 0;
    }
    return 1;
}

static const char *pod_hostname(const kpod *p)
{
    const char *h = json_string_value(json_object_get(p->spec, "hostname"));
    return (h && *h) ? h : p->name;
}

static int pod_serving(const kpod *q)
{
    if (!q->ip[0] || q->deleting || q->state != POD_ACTIVE) return 0;
    for (int i = q->n_init; i < q->n_init + q->n_cont; i++)
        if (q->cs[i].state == CS_RUNNING && q->cs[i].ready) return 1;
    return 0;
}

void kl_write_hosts(struct ks_kubelet *k, kpod *p, const json_t *services)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    fprintf(f, "# Kubernetes-managed hosts file (kubesim).\n127.0.0.1\tlocalhost\n::1\tlocalhost "
               "ip6-localhost "
               "ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-"
               "allnodes\nfe00::2\t"
               "ip6-allrouters\n");
    const char *sub = json_string_value(json_object_get(p->spec, "subdomain"));
    if (sub && *sub)
        fprintf(f, "%s\t%s.%s.%s.svc.cluster.local\t%s\n", p->ip, pod_hostname(p), sub, p->ns,
                pod_hostname(p));
    else
        fprintf(f, "%s\t%s\n", p->ip, pod_hostname(p));
    size_t ai;
    json_t *alias;
    json_array_foreach(json_object_get(p->spec, "hostAliases"), ai, alias)
    {
        const char *aip = json_string_value(json_object_get(alias, "ip"));
        if (!aip) continue;
        if (ai == 0) fprintf(f, "\n# Entries added by HostAliases.\n");
        fprintf(f, "%s", aip);
        size_t hi;
        json_t *hn;
        json_array_foreach(json_object_get(alias, "hostnames"), hi, hn)
        {
            if (json_string_value(hn)) fprintf(f, "\t%s", json_string_value(hn));
        }
        fprintf(f, "\n");
    }
    if (k->opt.cluster_dns) goto done; /* names come from the cluster's DNS server */
    fprintf(f, "\n# Entries added by kubesim for cluster DNS names of Services.\n");
    pthread_mutex_lock(&k->api_mu);
    if (k->api_host) /* the API server, as the `kubernetes` Service of a cluster */
        fprintf(f,
                "%s\tkubernetes.default.svc.cluster.local\tkubernetes.default.svc\tkubernetes."
                "default%s\n",
                k->api_host, !strcmp(p->ns, "default") ? "\tkubernetes" : "");
    pthread_mutex_unlock(&k->api_mu);
    size_t i;
    json_t *svc;
    json_array_foreach(services, i, svc)
    {
        const char *sns = meta_s(svc, "namespace"), *sname = meta_s(svc, "name");
        const json_t *sspec = json_object_get(svc, "spec");
        const char *cip = json_string_value(json_object_get(sspec, "clusterIP"));
        if (!sns || !sname) continue;
        char names[1024];
        int same = !strcmp(sns, p->ns);
        snprintf(names, sizeof names, "%s.%s.svc.cluster.local\t%s.%s.svc\t%s.%s%s%s", sname, sns,
                 sname, sns, sname, sns, same ? "\t" : "", same ? sname : "");
        if (cip && strcmp(cip, "None") && *cip) {
            fprintf(f, "%s\t%s\n", cip, names);
            continue;
        }
        if (!cip || strcmp(cip, "None")) continue;
        /* headless: one line per serving pod it selects, plus <hostname>.<subdomain> names */
        const json_t *sel = json_object_get(sspec, "selector");
        for (size_t b = 0; b < k->hcap; b++)
            for (kpod *q = k->htab[b]; q; q = q->hnext) {
                if (strcmp(q->ns, sns) || !pod_serving(q) ||
                    !labels_match(sel,
                                  json_object_get(json_object_get(q->obj, "metadata"), "labels")))
                    continue;
                fprintf(f, "%s\t%s\n", q->ip, names);
                const char *qsub = json_string_value(json_object_get(q->spec, "subdomain"));
                if (qsub && !strcmp(qsub, sname) && q != p)
                    fprintf(f, "%s\t%s.%s.%s.svc.cluster.local\n", q->ip, pod_hostname(q), sname,
                            sns);
            }
    }
done:
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/hosts", p->dir);
    char *old = read_small_file(path);
    if (!old || strcmp(old, buf)) {
        /* in place (O_TRUNC on the same inode): the pod's bind mount of this file sees the change
         */
        kl_write_file(path, buf, len, 0644);
    }
    free(old);
    free(buf);
}

void kl_write_resolv(kpod *p)
{
    char *host = read_small_file("/etc/resolv.conf");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        free(host);
        return;
    }
    fprintf(f, "search %s.svc.cluster.local svc.cluster.local cluster.local\n", p->ns);
    if (p->k->opt.cluster_dns) /* as the kubelet's --cluster-dns */
        fprintf(f, "nameserver %s\noptions ndots:5\n", p->k->opt.cluster_dns);
    else
        for (char *line = host ? strtok(host, "\n") : NULL; line; line = strtok(NULL, "\n"))
            if (!strncmp(line, "nameserver", 10)) fprintf(f, "%s\n", line);
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/resolv.conf", p->dir);
    kl_write_file(path, buf, len, 0644);
    snprintf(path, sizeof path, "%s/hostname", p->dir);
    char hn[300];
    int n = snprintf(hn, sizeof hn, "%s\n", pod_hostname(p));
    kl_write_file(path, hn, (size_t)n, 0644);
    free(buf);
    free(host);
}

/* ---------------- container spec ---------------- */

static char *sp_add(kl_spec *s, char *str)
{
    if (!str) return NULL;
    if (s->n_strings == s->cap_strings) {
        int cap = s->cap_strings ? s->cap_strings * 2 : 64;
        char **n = realloc(s->strings, (size_t)cap * sizeof(char *));
        if (!n) {
            free(str);
            return NULL;
        }
        s->strings = n;
        s->cap_strings = cap;
    }
    s->strings[s->n_strings++] = str;
    return str;
}

void kl_spec_free(kl_spec *s)
{
    for (int i = 0; i < s->n_strings; i++)
        free(s->strings[i]);
    free(s->strings);
    free(s->argv);
    free(s->envp);
    free(s->mounts);
    memset(s, 0, sizeof *s);
}

/* ordered env map */
typedef struct envmap {
    char **names, **values;
    int n, cap;
} envmap;

static void env_set(envmap *e, const char *name, const char *value)
{
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->names[i], name)) {
            free(e->values[i]);
            e->values[i] = strdup(value ? value : "");
            return;
        }
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 32;
        e->names = realloc(e->names, (size_t)e->cap * sizeof(char *));
        e->values = realloc(e->values, (size_t)e->cap * sizeof(char *));
    }
    e->names[e->n] = strdup(name);
    e->values[e->n] = strdup(value ? value : "");
    e->n++;
}

static const char *env_get(const envmap *e, const char *name, size_t nlen)
{
    for (int i = 0; i < e->n; i++)
        if (strlen(e->names[i]) == nlen && !strncmp(e->names[i], name, nlen)) return e->values[i];
    return NULL;
}

static void env_free(envmap *e)
{
    for (int i = 0; i < e->n; i++) {
        free(e->names[i]);
        free(e->values[i]);
    }
    free(e->names);
    free(e->values);
}

/* Kubernetes $(VAR) expansion: $$ -> $, $(NAME) -> value if defined, else left as is. */
static char *expand(const char *in, const envmap *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (const char *p = in; *p; p++) {
        if (p[0] == '$' && p[1] == '$') {
            fputc('$', f);
            p++;
        } else if (p[0] == '$' && p[1] == '(') {
            const char *close = strchr(p + 2, ')');
            const char *v = close ? env_get(e, p + 2, (size_t)(close - p - 2)) : NULL;
            if (v) {
                fputs(v, f);
                p = close;
            } else {
                fputc('$', f);
            }
        } else {
            fputc(*p, f);
        }
    }
    fclose(f);
    return buf;
}

static int valid_env_name(const char *n)
{
    if (!*n) return 0;
    for (const char *p = n; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.')) return 0;
    return !isdigit((unsigned char)n[0]);
}

static int env_from_ref(kpod *p, const json_t *ref, int secret, char *reason, size_t rlen,
                        char *msg, size_t mlen, char **out)
{
    const char *name = json_string_value(json_object_get(ref, "name"));
    const char *key = json_string_value(json_object_get(ref, "key"));
    int optional = json_is_true(json_object_get(ref, "optional"));
    *out = NULL;
    json_t *obj =
        name ? p->k->api->get(p->k->api_ctx, secret ? "secrets" : "configmaps", p->ns, name) : NULL;
    if (!obj) {
        if (optional) return 0;
        snprintf(reason, rlen, "CreateContainerConfigError");
        snprintf(msg, mlen, "%s \"%s\" not found", secret ? "secret" : "configmap",
                 name ? name : "");
        return -1;
    }
    size_t len = 0;
    unsigned char *v = key ? object_key(obj, secret, key, &len) : NULL;
    json_decref(obj);
    if (!v) {
        if (optional) return 0;
        snprintf(reason, rlen, "CreateContainerConfigError");
        snprintf(msg, mlen, "couldn't find key %s in %s %s/%s", key ? key : "",
                 secret ? "Secret" : "ConfigMap", p->ns, name);
        return -1;
    }
    char *s = malloc(len + 1);
    memcpy(s, v, len);
    s[len] = 0;
    free(v);
    *out = s;
    return 0;
}

static char *resource_field(kcont *c, const json_t *ref)
{
    kpod *p = c->pod;
    const char *res = json_string_value(json_object_get(ref, "resource"));
    const char *cname = json_string_value(json_object_get(ref, "containerName"));
    const char *div = json_string_value(json_object_get(ref, "divisor"));
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    if (cname && *cname) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(p->spec, "containers"), i, x)
        {
            const char *n = json_string_value(json_object_get(x, "name"));
            if (n && !strcmp(n, cname)) {
                ct = x;
                break;
            }
        }
    }
    if (!res) return strdup("0");
    int cpu = strstr(res, "cpu") != NULL;
    const char *kind = !strncmp(res, "limits.", 7) ? "limits" : "requests";
    const char *q = res_str(json_object_get(ct, "resources"), kind, cpu ? "cpu" : "memory");
    if (!q && !strcmp(kind, "requests"))
        q = res_str(json_object_get(ct, "resources"), "limits", cpu ? "cpu" : "memory");
    long long v;
    if (q)
        v = ks_quantity_scaled(q, cpu ? 1000 : 1);
    else if (!strcmp(kind, "limits"))
        v = cpu ? (p->node ? p->node->cpu_alloc : 1000) : (p->node ? p->node->mem_alloc : 0);
    else
        v = 0;
    long long d = div ? ks_quantity_scaled(div, cpu ? 1000 : 1) : (cpu ? 1000 : 1);
    if (d <= 0) d = 1;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (v + d - 1) / d);
    return strdup(buf);
}

static void add_mount(kl_spec *s, char *src, char *dst, int ro)
{
    s->mounts = realloc(s->mounts, (size_t)(s->n_mounts + 1) * sizeof(ks_mount));
    s->mounts[s->n_mounts].src = sp_add(s, src);
    s->mounts[s->n_mounts].dst = sp_add(s, dst);
    s->mounts[s->n_mounts].read_only = ro;
    s->n_mounts++;
}

/* Binds the image's rootfs/ tree: at the first level where the host lacks the path (or it is a
 * file). */
static void add_rootfs(kl_spec *s, const char *root, const char *rel, int depth)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *src = NULL, *dst = NULL;
        if (asprintf(&src, "%s%s/%s", root, rel, e->d_name) < 0 ||
            asprintf(&dst, "%s/%s", rel, e->d_name) < 0) {
            free(src);
            break;
        }
        struct stat hs, is;
        int host_dir = stat(dst, &hs) == 0 && S_ISDIR(hs.st_mode);
        int img_dir = stat(src, &is) == 0 && S_ISDIR(is.st_mode);
        if (host_dir && img_dir && depth < 8) {
            add_rootfs(s, root, dst, depth + 1);
            free(src);
            free(dst);
        } else {
            add_mount(s, src, dst, 0);
        }
    }
    if (d) closedir(d);
}

static const json_t *find_volume(kpod *p, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(p->spec, "volumes"), i, v)
    {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (n && name && !strcmp(n, name)) return v;
    }
    return NULL;
}

static char **read_lines(const char *path, int *n)
{
    char *text = read_small_file(path);
    *n = 0;
    if (!text) return NULL;
    char **lines = NULL;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r') l[ll - 1] = 0;
        lines = realloc(lines, (size_t)(*n + 2) * sizeof(char *));
        lines[(*n)++] = strdup(l);
        lines[*n] = NULL;
    }
    free(text);
    return lines;
}

static void free_lines(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static void add_service_links(ks_kubelet *k, kpod *p, envmap *env)
{
    json_t *svcs = k->api->list(k->api_ctx, "services", p->ns);
    size_t i;
    json_t *svc;
    json_array_foreach(svcs, i, svc)
    {
        const char *name = meta_s(svc, "name");
        const json_t *spec = json_object_get(svc, "spec");
        const char *ip = json_string_value(json_object_get(spec, "clusterIP"));
        const json_t *ports = json_object_get(spec, "ports");
        if (!name || !ip || !*ip || !strcmp(ip, "None") || json_array_size(ports) == 0) continue;
        char up[300], var[600], val[400];
        size_t n = 0;
        for (const char *c = name; *c && n < sizeof up - 1; c++)
            up[n++] = *c == '-' ? '_' : (char)toupper((unsigned char)*c);
        up[n] = 0;
        const json_t *first = json_array_get(ports, 0);
        long long fport = json_integer_value(json_object_get(first, "port"));
        const char *fproto = json_string_value(json_object_get(first, "protocol"));
        snprintf(var, sizeof var, "%s_SERVICE_HOST", up);
        env_set(env, var, ip);
        snprintf(var, sizeof var, "%s_SERVICE_PORT", up);
        snprintf(val, sizeof val, "%lld", fport);
        env_set(env, var, val);
        snprintf(var, sizeof var, "%s_PORT", up);
        char lproto[16];
        snprintf(lproto, sizeof lproto, "%s", fproto ? fproto : "TCP");
        for (char *c = lproto; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        snprintf(val, sizeof val, "%s://%s:%lld", lproto, ip, fport);
        env_set(env, var, val);
        size_t j;
        const json_t *pt;
        json_array_foreach(ports, j, pt)
        {
            long long port = json_integer_value(json_object_get(pt, "port"));
            const char *pname = json_string_value(json_object_get(pt, "name"));
            const char *proto = json_string_value(json_object_get(pt, "protocol"));
            char uproto[16], lp[16];
            snprintf(uproto, sizeof uproto, "%s", proto ? proto : "TCP");
            snprintf(lp, sizeof lp, "%s", uproto);
            for (char *c = lp; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            if (pname && *pname) {
                char upn[100];
                size_t m = 0;
                for (const char *c = pname; *c && m < sizeof upn - 1; c++)
                    upn[m++] = *c == '-' ? '_' : (char)toupper((unsigned char)*c);
                upn[m] = 0;
                snprintf(var, sizeof var, "%s_SERVICE_PORT_%s", up, upn);
                snprintf(val, sizeof val, "%lld", port);
                env_set(env, var, val);
            }
            snprintf(var, sizeof var, "%s_PORT_%lld_%s", up, port, uproto);
            snprintf(val, sizeof val, "%s://%s:%lld", lp, ip, port);
            env_set(env, var, val);
            snprintf(var, sizeof var, "%s_PORT_%lld_%s_PROTO", up, port, uproto);
            env_set(env, var, lp);
            snprintf(var, sizeof var, "%s_PORT_%lld_%s_PORT", up, port, uproto);
            snprintf(val, sizeof val, "%lld", port);
            env_set(env, var, val);
            snprintf(var, sizeof var, "%s_PORT_%lld_%s_ADDR", up, port, uproto);
            env_set(env, var, ip);
        }
    }
    json_decref(svcs);
}

int kl_build_spec(kcont *c, kl_spec *s, char *reason, size_t rlen, char *msg, size_t mlen)
{
    kpod *p = c->pod;
    ks_kubelet *k = p->k;
    const json_t *ct = json_array_get(
        json_object_get(p->spec, c->init ? "initContainers" : "containers"), (size_t)c->index);
    const char *imgdir = kl_image_dir(k, c->image);
    const json_t *command = json_object_get(ct, "command"), *args = json_object_get(ct, "args");
    envmap env = {0};
    int rc = -1;
    char path[4096];
    memset(s, 0, sizeof *s);

    if (!imgdir && json_array_size(command) == 0) {
        snprintf(reason, rlen, "ErrImagePull");
        snprintf(msg, mlen,
                 "failed to pull and unpack image \"%s\": image not mapped by kubesim (use --image "
                 "%s=DIR) and "
                 "the container has no command",
                 c->image ? c->image : "", c->image ? c->image : "NAME");
        goto out;
    }
    /* 1. image ENV, defaults */
    if (imgdir) {
        int n;
        snprintf(path, sizeof path, "%s/env", imgdir);
        char **lines = read_lines(path, &n);
        for (int i = 0; i < n; i++) {
            char *eq = strchr(lines[i], '=');
            if (!eq || lines[i][0] == '#') continue;
            *eq = 0;
            env_set(&env, lines[i], eq + 1);
        }
        free_lines(lines, n);
    }
    if (!env_get(&env, "PATH", 4))
        env_set(&env, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env_set(&env, "HOSTNAME", pod_hostname(p));
    if (!env_get(&env, "HOME", 4)) env_set(&env, "HOME", "/root");
    /* 2. service environment */
    pthread_mutex_lock(&k->api_mu);
    if (k->api_host) {
        char port[16], url[300], var[64];
        snprintf(port, sizeof port, "%d", k->api_port);
        snprintf(url, sizeof url, "tcp://%s:%d", k->api_host, k->api_port);
        env_set(&env, "KUBERNETES_SERVICE_HOST", k->api_host);
        env_set(&env, "KUBERNETES_SERVICE_PORT", port);
        env_set(&env, "KUBERNETES_SERVICE_PORT_HTTPS", port);
        env_set(&env, "KUBERNETES_PORT", url);
        snprintf(var, sizeof var, "KUBERNETES_PORT_%d_TCP", k->api_port);
        env_set(&env, var, url);
        snprintf(var, sizeof var, "KUBERNETES_PORT_%d_TCP_PROTO", k->api_port);
        env_set(&env, var, "tcp");
        snprintf(var, sizeof var, "KUBERNETES_PORT_%d_TCP_PORT", k->api_port);
        env_set(&env, var, port);
        snprintf(var, sizeof var, "KUBERNETES_PORT_%d_TCP_ADDR", k->api_port);
        env_set(&env, var, k->api_host);
    }
    pthread_mutex_unlock(&k->api_mu);
    /* 2b. Docker-link variables of the namespace's Services (enableServiceLinks, default true);
     * headless Services (clusterIP None) get none, as in the kubelet */
    if (!json_is_false(json_object_get(p->spec, "enableServiceLinks")))
        add_service_links(k, p, &env);
    /* 3. envFrom */
    size_t i;
    json_t *ef;
    json_array_foreach(json_object_get(ct, "envFrom"), i, ef)
    {
        const char *prefix = json_string_value(json_object_get(ef, "prefix"));
        const json_t *ref = json_object_get(ef, "configMapRef");
        int secret = 0;
        if (!ref) {
            ref = json_object_get(ef, "secretRef");
            secret = 1;
        }
        const char *name = json_string_value(json_object_get(ref, "name"));
        json_t *obj =
            name ? k->api->get(k->api_ctx, secret ? "secrets" : "configmaps", p->ns, name) : NULL;
        if (!obj) {
            if (json_is_true(json_object_get(ref, "optional"))) continue;
            snprintf(reason, rlen, "CreateContainerConfigError");
            snprintf(msg, mlen, "%s \"%s\" not found", secret ? "secret" : "configmap",
                     name ? name : "");
            goto out;
        }
        const char *fields[] = {"data", "binaryData", "stringData"};
        for (int f = 0; f < 3; f++) {
            const char *key;
            json_t *v;
            json_object_foreach(json_object_get(obj, fields[f]), key, v)
            {
                size_t len;
                unsigned char *val = object_key(obj, secret, key, &len);
                char full[512];
                snprintf(full, sizeof full, "%s%s", prefix ? prefix : "", key);
                if (val && valid_env_name(full)) {
                    char *z = malloc(len + 1);
                    memcpy(z, val, len);
                    z[len] = 0;
                    env_set(&env, full, z);
                    free(z);
                }
                free(val);
            }
        }
        json_decref(obj);
    }
    /* 4. env */
    json_t *ev;
    json_array_foreach(json_object_get(ct, "env"), i, ev)
    {
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (!name) continue;
        const json_t *vf = json_object_get(ev, "valueFrom");
        char *val = NULL;
        if (!vf) {
            const char *v = json_string_value(json_object_get(ev, "value"));
            val = expand(v ? v : "", &env);
        } else if (json_object_get(vf, "fieldRef")) {
            char e2[256];
            val = kl_field_ref(
                p, json_string_value(json_object_get(json_object_get(vf, "fieldRef"), "fieldPath")),
                e2, sizeof e2);
            if (!val) {
                snprintf(reason, rlen, "CreateContainerConfigError");
                snprintf(msg, mlen, "%s", e2);
                goto out;
            }
        } else if (json_object_get(vf, "resourceFieldRef")) {
            val = resource_field(c, json_object_get(vf, "resourceFieldRef"));
        } else if (json_object_get(vf, "configMapKeyRef") || json_object_get(vf, "secretKeyRef")) {
            int secret = json_object_get(vf, "secretKeyRef") != NULL;
            if (env_from_ref(p, json_object_get(vf, secret ? "secretKeyRef" : "configMapKeyRef"),
                             secret, reason, rlen, msg, mlen, &val) != 0)
                goto out;
            if (!val) continue; /* optional and absent: the variable is not set */
        }
        env_set(&env, name, val ? val : "");
        free(val);
    }

    /* argv: Docker ENTRYPOINT/CMD rules */
    char **img_cmd = NULL;
    int n_img_cmd = 0;
    char *entry = NULL;
    if (imgdir) {
        snprintf(path, sizeof path, "%s/entrypoint", imgdir);
        if (access(path, F_OK) == 0) entry = strdup(path);
        snprintf(path, sizeof path, "%s/cmd", imgdir);
        img_cmd = read_lines(path, &n_img_cmd);
    }
    int argc = 0;
    s->argv = calloc(json_array_size(command) + json_array_size(args) + (size_t)n_img_cmd + 2,
                     sizeof(char *));
    if (json_array_size(command) > 0) {
        json_t *a;
        json_array_foreach(command, i, a) s->argv[argc++] =
            sp_add(s, expand(json_string_value(a) ? json_string_value(a) : "", &env));
    } else if (entry) {
        s->argv[argc++] = sp_add(s, strdup(entry));
    }
    if (json_array_size(args) > 0) {
        json_t *a;
        json_array_foreach(args, i, a) s->argv[argc++] =
            sp_add(s, expand(json_string_value(a) ? json_string_value(a) : "", &env));
    } else if (json_array_size(command) == 0) {
        for (int j = 0; j < n_img_cmd; j++)
            s->argv[argc++] = sp_add(s, strdup(img_cmd[j]));
    }
    free(entry);
    free_lines(img_cmd, n_img_cmd);
    if (argc == 0) {
        snprintf(reason, rlen, "CreateContainerError");
        snprintf(msg, mlen, "failed to generate container spec: no command specified");
        goto out;
    }

    /* mounts: image tree, volumes, service account, hosts, resolv.conf, hostname */
    if (imgdir) {
        snprintf(path, sizeof path, "%s/rootfs", imgdir);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) add_rootfs(s, path, "", 0);
    }
    int sa_mounted = 0;
    json_t *vm;
    json_array_foreach(json_object_get(ct, "volumeMounts"), i, vm)
    {
        const char *vname = json_string_value(json_object_get(vm, "name"));
        const char *mp = json_string_value(json_object_get(vm, "mountPath"));
        const char *sub = json_string_value(json_object_get(vm, "subPath"));
        const json_t *vol = find_volume(p, vname);
        if (!vol || !mp) continue;
        char *src = kl_volume_host_path(p, vol);
        if (sub && *sub) {
            char *full = NULL;
            if (asprintf(&full, "%s/%s", src, sub) >= 0) {
                if (access(full, F_OK) != 0) kl_mkdirs(full, 0755);
                free(src);
                src = full;
            }
        }
        int ro = json_is_true(json_object_get(vm, "readOnly")) ||
                 json_object_get(vol, "configMap") || json_object_get(vol, "secret") ||
                 json_object_get(vol, "downwardAPI") || json_object_get(vol, "projected");
        if (!strcmp(mp, SA_PATH)) sa_mounted = 1;
        add_mount(s, src, strdup(mp), ro);
    }
    const json_t *automount = json_object_get(p->spec, "automountServiceAccountToken");
    if (!sa_mounted && !json_is_false(automount)) {
        char *src = NULL;
        if (asprintf(&src, "%s/serviceaccount", p->dir) >= 0) add_mount(s, src, strdup(SA_PATH), 1);
    }
    const char *etc[] = {"hosts", "resolv.conf", "hostname"};
    for (int j = 0; j < 3; j++) {
        char *src = NULL, *dst = NULL;
        if (asprintf(&src, "%s/%s", p->dir, etc[j]) >= 0 && asprintf(&dst, "/etc/%s", etc[j]) >= 0)
            add_mount(s, src, dst, 0);
    }

    /* workdir */
    const char *wd = json_string_value(json_object_get(ct, "workingDir"));
    if (wd && *wd)
        s->workdir = sp_add(s, strdup(wd));
    else if (imgdir) {
        int n;
        snprintf(path, sizeof path, "%s/workdir", imgdir);
        char **lines = read_lines(path, &n);
        if (n > 0) s->workdir = sp_add(s, strdup(lines[0]));
        free_lines(lines, n);
    }

    /* without a mount namespace: rewrite paths under mount points to their host directories */
    if (!ks_container_probe()->mount_ns) {
        for (int m = 0; m < s->n_mounts; m++) {
            const char *dst = s->mounts[m].dst;
            size_t dl = strlen(dst);
            for (int j = 0; j < env.n; j++) {
                const char *v = env.values[j];
                if (!strncmp(v, dst, dl) && (v[dl] == 0 || v[dl] == '/')) {
                    char *nv = NULL;
                    if (asprintf(&nv, "%s%s", s->mounts[m].src, v + dl) >= 0) {
                        free(env.values[j]);
                        env.values[j] = nv;
                    }
                }
            }
            if (s->workdir && !strncmp(s->workdir, dst, dl) &&
                (s->workdir[dl] == 0 || s->workdir[dl] == '/')) {
                char *nw = NULL;
                if (asprintf(&nw, "%s%s", s->mounts[m].src, s->workdir + dl) >= 0)
                    s->workdir = sp_add(s, nw);
            }
        }
    }

    s->envp = calloc((size_t)env.n + 1, sizeof(char *));
    for (int j = 0; j < env.n; j++) {
        char *kv = NULL;
        if (asprintf(&kv, "%s=%s", env.names[j], env.values[j]) >= 0) s->envp[j] = sp_add(s, kv);
    }
    const json_t *res = json_object_get(ct, "resources");
    const char *lim = res_str(res, "limits", "memory");
    s->memory_limit = lim ? ks_quantity_scaled(lim, 1) : 0;
    const char *cl = res_str(res, "limits", "cpu"), *cr = res_str(res, "requests", "cpu");
    s->cpu_limit = cl ? ks_quantity_scaled(cl, 1000) : 0;
    s->cpu_request = cr ? ks_quantity_scaled(cr, 1000) : s->cpu_limit;
    /* securityContext: the container's fields override the pod's */
    const json_t *psc = json_object_get(p->spec, "securityContext"),
                 *csc = json_object_get(ct, "securityContext");
    const json_t *v;
    s->run_as_user = s->run_as_group = -1;
    if (json_is_integer(v = json_object_get(csc, "runAsUser")) ||
        json_is_integer(v = json_object_get(psc, "runAsUser")))
        s->run_as_user = json_integer_value(v);
    if (json_is_integer(v = json_object_get(csc, "runAsGroup")) ||
        json_is_integer(v = json_object_get(psc, "runAsGroup")))
        s->run_as_group = json_integer_value(v);
    json_array_foreach(json_object_get(psc, "supplementalGroups"), i,
                       v) if (json_is_integer(v) && s->n_groups < 63) s->groups[s->n_groups++] =
        json_integer_value(v);
    if (json_is_integer(v = json_object_get(psc, "fsGroup")))
        s->groups[s->n_groups++] = json_integer_value(v);
    if ((json_is_true(json_object_get(csc, "runAsNonRoot")) ||
         json_is_true(json_object_get(psc, "runAsNonRoot"))) &&
        s->run_as_user <= 0) {
        snprintf(reason, rlen, "CreateContainerConfigError");
        snprintf(msg, mlen,
                 s->run_as_user == 0
                     ? "container's runAsUser breaks non-root policy (pod: \"%s_%s(%s)\", "
                       "container: %s)"
                     : "container has runAsNonRoot and image will run as root (pod: "
                       "\"%s_%s(%s)\", container: %s)",
                 p->name, p->ns, p->uid, c->name);
        goto out;
    }
    rc = 0;
out:
    env_free(&env);
    if (rc) kl_spec_free(s);
    return rc;
}
