/*
 * kubelet_env.c — what one container of a pod gets when the kubesim kubelet starts it
 * (kl_build_spec): its argv by Docker rules (command replaces ENTRYPOINT, args replace CMD, $(VAR)
 * expansion), its environment (image env, PATH/HOME/HOSTNAME, KUBERNETES_SERVICE_*, Service links,
 * envFrom, env with value / fieldRef / resourceFieldRef / configMapKeyRef / secretKeyRef), its
 * mounts (the image's rootfs tree, volumeMounts with subPath, the service-account directory, hosts,
 * resolv.conf, hostname), working directory, resources and securityContext user and groups. Called
 * by kubelet_run.c on the worker thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SA_PATH "/var/run/secrets/kubernetes.io/serviceaccount"

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
    free(s->layers);
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
    unsigned char *v = key ? kl_object_key(obj, secret, key, &len) : NULL;
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
    const char *q = kl_res_str(json_object_get(ct, "resources"), kind, cpu ? "cpu" : "memory");
    if (!q && !strcmp(kind, "requests"))
        q = kl_res_str(json_object_get(ct, "resources"), "limits", cpu ? "cpu" : "memory");
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
    char *text = kl_read_small_file(path);
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
        const char *name = kl_meta_s(svc, "name");
        const json_t *spec = json_object_get(svc, "spec");
        /* the master Service's variables come from where the kubelet reaches the API server */
        if (name && !strcmp(name, "kubernetes") && !strcmp(p->ns, "default")) continue;
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

/* securityContext: the container's runAsUser, runAsGroup over the pod's; the pod's
 * supplementalGroups and fsGroup */
static void security_user(kpod *p, const json_t *ct, kl_spec *s)
{
    const json_t *psc = json_object_get(p->spec, "securityContext"),
                 *csc = json_object_get(ct, "securityContext");
    const json_t *v;
    size_t i;
    s->run_as_user = s->run_as_group = -1;
    if (json_is_integer(v = json_object_get(csc, "runAsUser")) ||
        json_is_integer(v = json_object_get(psc, "runAsUser")))
        s->run_as_user = json_integer_value(v);
    if (json_is_integer(v = json_object_get(csc, "runAsGroup")) ||
        json_is_integer(v = json_object_get(psc, "runAsGroup")))
        s->run_as_group = json_integer_value(v);
    json_array_foreach(json_object_get(psc, "supplementalGroups"), i, v)
    {
        if (json_is_integer(v) && s->n_groups < 63)
            s->groups[s->n_groups++] = json_integer_value(v);
    }
    if (json_is_integer(v = json_object_get(psc, "fsGroup")) && s->n_groups < 63)
        s->groups[s->n_groups++] = json_integer_value(v);
}

/* A JSON array of strings as a malloc'd NULL-terminated list (free_lines). */
static char **json_lines(const json_t *arr, int *n)
{
    char **out = calloc(json_array_size(arr) + 1, sizeof(char *));
    size_t i;
    const json_t *a;
    *n = 0;
    json_array_foreach(arr, i, a) if (out && json_is_string(a)) out[(*n)++] =
        strdup(json_string_value(a));
    return out;
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

    kl_image img;
    int oci = imgdir ? kl_image_open(imgdir, &img, msg, mlen) : 0;
    if (oci < 0) {
        snprintf(reason, rlen, "CreateContainerError");
        goto out;
    }
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
    if (oci) {
        size_t ei;
        json_t *e;
        json_array_foreach(json_object_get(img.config, "Env"), ei, e)
        {
            const char *kv = json_string_value(e), *eq = kv ? strchr(kv, '=') : NULL;
            if (!eq) continue;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - kv), kv);
            env_set(&env, name, eq + 1);
        }
    } else if (imgdir) {
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
    env_set(&env, "HOSTNAME", kl_pod_hostname(p));
    /* the user: securityContext over the image's USER (resolved in its /etc/passwd) */
    security_user(p, ct, s);
    if (oci) {
        kl_image_user_out u;
        if (kl_image_user(&img, s->run_as_user, s->run_as_group, &u, msg, mlen) != 0) {
            snprintf(reason, rlen, "CreateContainerError");
            goto out;
        }
        s->run_as_user = u.uid;
        s->run_as_group = u.gid;
        for (int g = 0; g < u.n_groups && s->n_groups < 63; g++)
            s->groups[s->n_groups++] = u.groups[g];
        if (!env_get(&env, "HOME", 4)) env_set(&env, "HOME", u.home);
    }
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
                unsigned char *val = kl_object_key(obj, secret, key, &len);
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
    char **img_cmd = NULL, **img_entry = NULL;
    int n_img_cmd = 0, n_img_entry = 0;
    if (oci) {
        img_entry = json_lines(json_object_get(img.config, "Entrypoint"), &n_img_entry);
        img_cmd = json_lines(json_object_get(img.config, "Cmd"), &n_img_cmd);
    } else if (imgdir) {
        snprintf(path, sizeof path, "%s/entrypoint", imgdir);
        if (access(path, F_OK) == 0) {
            json_t *one = json_pack("[s]", path);
            img_entry = json_lines(one, &n_img_entry);
            json_decref(one);
        }
        snprintf(path, sizeof path, "%s/cmd", imgdir);
        img_cmd = read_lines(path, &n_img_cmd);
    }
    int argc = 0;
    s->argv = calloc(json_array_size(command) + json_array_size(args) + (size_t)n_img_cmd +
                         (size_t)n_img_entry + 1,
                     sizeof(char *));
    if (json_array_size(command) > 0) {
        json_t *a;
        json_array_foreach(command, i, a) s->argv[argc++] =
            sp_add(s, expand(json_string_value(a) ? json_string_value(a) : "", &env));
    } else {
        for (int j = 0; j < n_img_entry; j++)
            s->argv[argc++] = sp_add(s, strdup(img_entry[j]));
    }
    if (json_array_size(args) > 0) {
        json_t *a;
        json_array_foreach(args, i, a) s->argv[argc++] =
            sp_add(s, expand(json_string_value(a) ? json_string_value(a) : "", &env));
    } else if (json_array_size(command) == 0) {
        for (int j = 0; j < n_img_cmd; j++)
            s->argv[argc++] = sp_add(s, strdup(img_cmd[j]));
    }
    free_lines(img_entry, n_img_entry);
    free_lines(img_cmd, n_img_cmd);
    if (argc == 0) {
        snprintf(reason, rlen, "CreateContainerError");
        snprintf(msg, mlen, "failed to generate container spec: no command specified");
        goto out;
    }

    /* mounts: image tree, volumes, service account, hosts, resolv.conf, hostname */
    if (oci) { /* the container's root is the image's layers */
        s->layers = calloc((size_t)img.n_layers + 1, sizeof(char *));
        for (int j = 0; s->layers && j < img.n_layers; j++)
            s->layers[s->n_layers++] = sp_add(s, strdup(img.layers[j]));
    } else if (imgdir) {
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
    const char *iwd = oci ? json_string_value(json_object_get(img.config, "WorkingDir")) : NULL;
    if (wd && *wd)
        s->workdir = sp_add(s, strdup(wd));
    else if (iwd && *iwd)
        s->workdir = sp_add(s, strdup(iwd));
    else if (imgdir && !oci) {
        int n;
        snprintf(path, sizeof path, "%s/workdir", imgdir);
        char **lines = read_lines(path, &n);
        if (n > 0) s->workdir = sp_add(s, strdup(lines[0]));
        free_lines(lines, n);
    }

    /* without a mount namespace: rewrite paths under mount points to their host directories */
    if (!ks_container_probe()->mount_ns && !oci) {
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
    const char *lim = kl_res_str(res, "limits", "memory");
    s->memory_limit = lim ? ks_quantity_scaled(lim, 1) : 0;
    const char *cl = kl_res_str(res, "limits", "cpu"), *cr = kl_res_str(res, "requests", "cpu");
    s->cpu_limit = cl ? ks_quantity_scaled(cl, 1000) : 0;
    s->cpu_request = cr ? ks_quantity_scaled(cr, 1000) : s->cpu_limit;
    const json_t *psc = json_object_get(p->spec, "securityContext"),
                 *csc = json_object_get(ct, "securityContext");
    const char *iuser = oci ? json_string_value(json_object_get(img.config, "User")) : NULL;
    char iname[256] = "";
    snprintf(iname, sizeof iname, "%s", iuser ? iuser : "");
    iname[strcspn(iname, ":")] = 0;
    int explicit_uid = json_is_integer(json_object_get(csc, "runAsUser")) ||
                       json_is_integer(json_object_get(psc, "runAsUser"));
    if ((json_is_true(json_object_get(csc, "runAsNonRoot")) ||
         json_is_true(json_object_get(psc, "runAsNonRoot"))) &&
        oci && !explicit_uid && iname[0] && !isdigit((unsigned char)iname[0])) {
        snprintf(reason, rlen, "CreateContainerConfigError");
        snprintf(msg, mlen,
                 "container has runAsNonRoot and image has non-numeric user (%s), cannot verify "
                 "user is non-root (pod: \"%s_%s(%s)\", container: %s)",
                 iname, p->name, p->ns, p->uid, c->name);
        goto out;
    }
    if ((json_is_true(json_object_get(csc, "runAsNonRoot")) ||
         json_is_true(json_object_get(psc, "runAsNonRoot"))) &&
        s->run_as_user <= 0) {
        snprintf(reason, rlen, "CreateContainerConfigError");
        snprintf(msg, mlen,
                 s->run_as_user == 0 && explicit_uid
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
    if (oci > 0) kl_image_close(&img);
    if (rc) kl_spec_free(s);
    return rc;
}
