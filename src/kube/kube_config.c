/* kube_config.c — kubeconfig / in-cluster / Spark-key resolution of API server and credentials.
 *
 * Reads kubeconfig files with libyaml (each document node tree is converted to a jansson value
 * of strings, objects and arrays, then navigated as JSON), merges several files as kubectl does,
 * resolves relative file paths against the directory of the file that names them, decodes the
 * *-data fields with OpenSSL's base64 decoder into private temp files for libcurl, and applies
 * Spark's overriding keys. Called through cs_kube_config_load by cspark-submit and the driver; the
 * result is consumed by cs_kube_client_new. See kube_config.h for the precedence rules.
 */
#include "kube/kube_config.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf_entries.h"
#include "common/log.h"
#include "common/master.h"
#include "kube/kube_exec.h"
#include "kube/kube_yaml.h"

static char *kfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *kfmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *s = cs_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* One kubeconfig file as a JSON object (every scalar a string; an empty file gives an empty
 * object). */
static int yaml_file_load(const char *path, json_t **out, cs_error *err)
{
    *out = cs_kube_yaml_load_file(path, KUBE_YAML_STRINGS, err);
    if (!*out) return cs_error_prefix(err, "kubeconfig");
    if (!json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return cs_error_set(err, CS_EINVAL,
                            "kubeconfig %s: not a kubeconfig (expected a mapping with clusters, "
                            "contexts and users)",
                            path);
    }
    return CS_OK;
}

/* ---------------------------------------------------------------- merged kubeconfig */

/* Merged view: clusters/contexts/users as name -> {"file": path, "v": entry-body}. */
typedef struct kc_merged {
    json_t *clusters, *contexts, *users;
    char *current_context;
    char *files; /* the file list, for messages */
    int nfiles;  /* files actually read */
} kc_merged;

static void kc_merged_free(kc_merged *m)
{
    json_decref(m->clusters);
    json_decref(m->contexts);
    json_decref(m->users);
    free(m->current_context);
    free(m->files);
    memset(m, 0, sizeof *m);
}

/* Makes a relative path field absolute against dir. */
static void resolve_path_field(json_t *obj, const char *field, const char *dir)
{
    const char *v = json_string_value(json_object_get(obj, field));
    if (!v || !*v || v[0] == '/') return;
    char *abs = kfmt("%s/%s", dir, v);
    json_object_set_new(obj, field, json_string(abs));
    free(abs);
}

static int merge_section(kc_merged *m, json_t *dst, json_t *doc, const char *section,
                         const char *body_key, const char *path, const char *dir, cs_error *err)
{
    json_t *arr = json_object_get(doc, section);
    if (!arr || json_is_null(arr)) return CS_OK;
    if (!json_is_array(arr)) {
        return cs_error_set(err, CS_EINVAL, "kubeconfig %s: '%s' must be a list", path, section);
    }
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name) {
            return cs_error_set(err, CS_EINVAL, "kubeconfig %s: entry %zu of '%s' has no name",
                                path, i + 1, section);
        }
        if (json_object_get(dst, name)) continue; /* first occurrence wins */
        json_t *body = json_object_get(e, body_key);
        json_t *copy = json_is_object(body) ? json_deep_copy(body) : json_object();
        if (!strcmp(section, "clusters")) {
            resolve_path_field(copy, "certificate-authority", dir);
        } else if (!strcmp(section, "users")) {
            resolve_path_field(copy, "client-certificate", dir);
            resolve_path_field(copy, "client-key", dir);
            resolve_path_field(copy, "tokenFile", dir);
        }
        json_t *ent = json_pack("{s:s, s:o}", "file", path, "v", copy);
        json_object_set_new(dst, name, ent);
    }
    (void)m;
    return CS_OK;
}

static int kc_merge_file(kc_merged *m, const char *path, cs_error *err)
{
    json_t *doc = NULL;
    int rc = yaml_file_load(path, &doc, err);
    if (rc) return rc;
    char *pcopy = cs_xstrdup(path);
    char *dir = dirname(pcopy);
    if ((rc = merge_section(m, m->clusters, doc, "clusters", "cluster", path, dir, err)) ||
        (rc = merge_section(m, m->contexts, doc, "contexts", "context", path, dir, err)) ||
        (rc = merge_section(m, m->users, doc, "users", "user", path, dir, err))) {
        goto out;
    }
    const char *cur = json_string_value(json_object_get(doc, "current-context"));
    if (!m->current_context && cur && *cur) m->current_context = cs_xstrdup(cur);
    m->nfiles++;
out:
    free(pcopy);
    json_decref(doc);
    return rc;
}

/* Loads the kubeconfig files named by env (KUBECONFIG list, else ~/.kube/config). Missing files
 * are skipped, as kubectl does; m->nfiles == 0 means "no kubeconfig". */
static int kc_load(const kube_config_env *env, kc_merged *m, cs_error *err)
{
    memset(m, 0, sizeof *m);
    m->clusters = json_object();
    m->contexts = json_object();
    m->users = json_object();
    char *list = NULL;
    if (env->kubeconfig && *env->kubeconfig) {
        list = cs_xstrdup(env->kubeconfig);
    } else if (env->home && *env->home) {
        list = kfmt("%s/.kube/config", env->home);
    } else {
        m->files = cs_xstrdup("");
        return CS_OK;
    }
    m->files = cs_xstrdup(list);
    int rc = CS_OK;
    char *save = NULL;
    for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        if (!*p) continue;
        struct stat st;
        if (stat(p, &st) != 0 && errno == ENOENT) continue;
        if ((rc = kc_merge_file(m, p, err))) break;
    }
    free(list);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

static int read_small_file(const char *path, char **out, cs_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return cs_error_set(err, CS_EIO, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = cs_xmalloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            if (cap >= (1u << 24)) break;
            cap *= 2;
            buf = cs_xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = 0;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
                       buf[len - 1] == '\t'))
        buf[--len] = 0;
    *out = buf;
    return CS_OK;
}

/* Decodes base64 `b64` (newlines allowed) into a new 0600 temp file; *path gets its name. */
/* Writes n bytes to a new private (0600) temp file; *path is malloc'd. */
static int bytes_to_temp_file(const unsigned char *bin, size_t n, const char *what, char **path,
                              cs_error *err)
{
    *path = NULL;
    const char *tmpdir = getenv("TMPDIR");
    char *tmpl = kfmt("%s/cspark-kube-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(tmpl); /* mode 0600 */
    if (fd < 0) {
        int rc = cs_error_set(err, CS_EIO, "cannot create a temp file for %s: %s", what,
                              strerror(errno));
        free(tmpl);
        return rc;
    }
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, bin + off, n - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            int rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmpl, strerror(errno));
            close(fd);
            unlink(tmpl);
            free(tmpl);
            return rc;
        }
        off += (size_t)w;
    }
    close(fd);
    *path = tmpl;
    return CS_OK;
}

static int data_to_temp_file(const char *b64, const char *what, char **path, cs_error *err)
{
    *path = NULL;
    size_t in_len = strlen(b64);
    unsigned char *bin = cs_xmalloc(in_len / 4 * 3 + 64);
    EVP_ENCODE_CTX *ctx = EVP_ENCODE_CTX_new();
    if (!ctx) {
        free(bin);
        return cs_error_set(err, CS_ENOMEM, "out of memory decoding %s", what);
    }
    int out1 = 0, out2 = 0;
    EVP_DecodeInit(ctx);
    int ok = EVP_DecodeUpdate(ctx, bin, &out1, (const unsigned char *)b64, (int)in_len) >= 0 &&
             EVP_DecodeFinal(ctx, bin + out1, &out2) >= 0;
    EVP_ENCODE_CTX_free(ctx);
    if (!ok) {
        free(bin);
        return cs_error_set(err, CS_EINVAL, "%s is not valid base64", what);
    }
    size_t n = (size_t)out1 + (size_t)out2;
    int rc = bytes_to_temp_file(bin, n, what, path, err);
    OPENSSL_cleanse(bin, n);
    free(bin);
    return rc;
}

static void add_tmp(kube_config *c, char *path)
{
    for (size_t i = 0; i < sizeof c->tmp_files / sizeof c->tmp_files[0]; i++) {
        if (!c->tmp_files[i]) {
            c->tmp_files[i] = path;
            return;
        }
    }
    unlink(path); /* cannot happen: at most three data fields */
    free(path);
}

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = v ? cs_xstrdup(v) : NULL;
}

/* A user's exec credential plugin, run once now (a failure stops the load with the plugin's
 * message); the kube_client runs it again before the credential expires. */
static int run_exec_plugin(kube_config *out, const json_t *exec, const char *u_file,
                           const char *user_name, cs_error *err)
{
    char *fcopy = cs_xstrdup(u_file ? u_file : ".");
    char *dir = cs_xstrdup(dirname(fcopy));
    free(fcopy);
    kube_exec_cred cred;
    int rc = cs_kube_exec_run(exec, dir, 0, &cred, err);
    if (rc) {
        free(dir);
        return cs_error_prefix(err, "kubeconfig %s: user '%s'", u_file, user_name);
    }
    const char *pems[2] = {cred.cert_pem, cred.key_pem};
    char **dst[2] = {&out->client_cert_file, &out->client_key_file};
    for (int i = 0; i < 2 && rc == CS_OK; i++) {
        char *p = NULL;
        if (!pems[i]) continue;
        rc = bytes_to_temp_file((const unsigned char *)pems[i], strlen(pems[i]),
                                "an exec plugin's credential", &p, err);
        if (rc == CS_OK) {
            add_tmp(out, p);
            set_str(dst[i], p);
        }
    }
    if (rc == CS_OK) {
        set_str(&out->token, cred.token);
        out->exec_json = json_dumps(exec, JSON_COMPACT);
        out->exec_dir = dir;
        dir = NULL;
        out->exec_expires_ms = cred.expires_ms;
        free(out->auth_source);
        out->auth_source =
            kfmt("the exec plugin %s of user '%s' in kubeconfig %s",
                 json_string_value(json_object_get(exec, "command")), user_name, u_file);
    }
    free(dir);
    cs_kube_exec_cred_free(&cred);
    return rc;
}

static bool str_true(const char *s)
{
    return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"));
}

/* Normalises the master argument: k8s://..., or a bare http(s)://host[:port] URL (as
 * spark.kubernetes.driver.master). */
static int server_from_master(const char *master, char **out, cs_error *err)
{
    if (!strncmp(master, "k8s://", 6)) {
        cs_master m;
        int rc = cs_master_parse(master, &m, err);
        if (rc) return rc;
        if (m.kind != MASTER_K8S) {
            return cs_error_set(err, CS_EINVAL,
                                "invalid Kubernetes master URL '%s': expected "
                                "k8s://https://host:port",
                                master);
        }
        *out = cs_xstrdup(m.api_url);
    } else if (!strncmp(master, "https://", 8) || !strncmp(master, "http://", 7)) {
        const char *host = strstr(master, "://") + 3;
        if (!*host || *host == '/') {
            return cs_error_set(err, CS_EINVAL, "invalid Kubernetes API server URL '%s': no host",
                                master);
        }
        *out = cs_xstrdup(master);
    } else {
        return cs_error_set(err, CS_EINVAL,
                            "invalid Kubernetes master URL '%s': expected k8s://https://host:port",
                            master);
    }
    size_t n = strlen(*out);
    while (n > 0 && (*out)[n - 1] == '/')
        (*out)[--n] = 0;
    return CS_OK;
}

static int check_readable(const char *key, const char *path, cs_error *err)
{
    if (access(path, R_OK) != 0) {
        return cs_error_set(err, CS_EINVAL, "%s: cannot read %s: %s", key, path, strerror(errno));
    }
    return CS_OK;
}

/* ---------------------------------------------------------------- kubeconfig context */

static int apply_kubeconfig(const cs_conf *conf, kc_merged *m, kube_config *out,
                            const char **ctx_ns, cs_error *err)
{
    const char *want = cs_conf_get(conf, "spark.kubernetes.context");
    const char *ctx_name = (want && *want) ? want : m->current_context;
    if (!ctx_name) return CS_OK; /* no context: nothing from the kubeconfig */
    json_t *ctx = json_object_get(m->contexts, ctx_name);
    if (!ctx) {
        if (want && *want) {
            return cs_error_set(err, CS_EINVAL,
                                "kubeconfig %s: context '%s' not found (spark.kubernetes.context)",
                                m->files, ctx_name);
        }
        return cs_error_set(err, CS_EINVAL, "kubeconfig %s: current-context '%s' not found",
                            m->files, ctx_name);
    }
    const char *ctx_file = json_string_value(json_object_get(ctx, "file"));
    json_t *cv = json_object_get(ctx, "v");
    set_str(&out->context, ctx_name);
    *ctx_ns = json_string_value(json_object_get(cv, "namespace"));

    const char *cluster_name = json_string_value(json_object_get(cv, "cluster"));
    if (cluster_name && *cluster_name) {
        json_t *cl = json_object_get(m->clusters, cluster_name);
        if (!cl) {
            return cs_error_set(err, CS_EINVAL,
                                "kubeconfig %s: context '%s' names cluster '%s', which is not "
                                "defined",
                                ctx_file, ctx_name, cluster_name);
        }
        json_t *c = json_object_get(cl, "v");
        const char *cl_file = json_string_value(json_object_get(cl, "file"));
        const char *server = json_string_value(json_object_get(c, "server"));
        if (server && *server && !out->server) {
            int rc = server_from_master(server, &out->server, err);
            if (rc) {
                return cs_error_prefix(err, "kubeconfig %s: cluster '%s'", cl_file, cluster_name);
            }
        }
        const char *ca_data = json_string_value(json_object_get(c, "certificate-authority-data"));
        const char *ca = json_string_value(json_object_get(c, "certificate-authority"));
        if (ca_data && *ca_data) {
            char *p = NULL;
            char *what = kfmt("kubeconfig %s: cluster '%s' certificate-authority-data", cl_file,
                              cluster_name);
            int rc = data_to_temp_file(ca_data, what, &p, err);
            free(what);
            if (rc) return rc;
            add_tmp(out, p);
            set_str(&out->ca_file, p);
        } else if (ca && *ca) {
            set_str(&out->ca_file, ca);
        }
        if (str_true(json_string_value(json_object_get(c, "insecure-skip-tls-verify")))) {
            out->insecure = true;
        }
    }

    const char *user_name = json_string_value(json_object_get(cv, "user"));
    if (user_name && *user_name) {
        json_t *us = json_object_get(m->users, user_name);
        if (!us) {
            return cs_error_set(err, CS_EINVAL,
                                "kubeconfig %s: context '%s' names user '%s', which is not defined",
                                ctx_file, ctx_name, user_name);
        }
        json_t *u = json_object_get(us, "v");
        const char *u_file = json_string_value(json_object_get(us, "file"));
        const char *token = json_string_value(json_object_get(u, "token"));
        const char *token_file = json_string_value(json_object_get(u, "tokenFile"));
        if (token && *token) {
            set_str(&out->token, token);
            free(out->auth_source);
            out->auth_source = kfmt("the token of user '%s' in kubeconfig %s", user_name, u_file);
        } else if (token_file && *token_file) {
            char *t = NULL;
            int rc = read_small_file(token_file, &t, err);
            if (rc) {
                return cs_error_prefix(err, "kubeconfig %s: user '%s' tokenFile", u_file,
                                       user_name);
            }
            free(out->token);
            out->token = t;
            set_str(&out->token_file, token_file);
            free(out->auth_source);
            out->auth_source = kfmt("the token file %s of user '%s' in kubeconfig %s", token_file,
                                    user_name, u_file);
        }
        static const char *const fields[2][2] = {{"client-certificate-data", "client-certificate"},
                                                 {"client-key-data", "client-key"}};
        for (int i = 0; i < 2; i++) {
            char **dst = i == 0 ? &out->client_cert_file : &out->client_key_file;
            const char *data = json_string_value(json_object_get(u, fields[i][0]));
            const char *file = json_string_value(json_object_get(u, fields[i][1]));
            if (data && *data) {
                char *p = NULL;
                char *what = kfmt("kubeconfig %s: user '%s' %s", u_file, user_name, fields[i][0]);
                int rc = data_to_temp_file(data, what, &p, err);
                free(what);
                if (rc) return rc;
                add_tmp(out, p);
                set_str(dst, p);
            } else if (file && *file) {
                set_str(dst, file);
            }
        }
        if (out->client_cert_file && !out->token) {
            free(out->auth_source);
            out->auth_source =
                kfmt("the client certificate of user '%s' in kubeconfig %s", user_name, u_file);
        }
        const json_t *exec = json_object_get(u, "exec");
        if (!out->token && !out->client_cert_file && exec) {
            int rc = run_exec_plugin(out, exec, u_file, user_name, err);
            if (rc) return rc;
        } else if (!out->token && !out->client_cert_file && json_object_get(u, "auth-provider")) {
            CS_WARN("kube",
                    "kubeconfig=%s user=%s uses an auth-provider plugin (removed from kubectl in "
                    "1.26), which cspark does not run; use its exec plugin, a token or a client "
                    "certificate",
                    cs_log_value(u_file), cs_log_value(user_name));
        }
    }
    return CS_OK;
}

/* ---------------------------------------------------------------- Spark key overrides */

static int apply_overrides(const cs_conf *conf, const char *prefix, kube_config *out, cs_error *err)
{
    if (!prefix || !*prefix) return CS_OK;
    char key[256], key2[256];
    snprintf(key, sizeof key, "%s.oauthToken", prefix);
    snprintf(key2, sizeof key2, "%s.oauthTokenFile", prefix);
    const char *tok = cs_conf_get(conf, key), *tokf = cs_conf_get(conf, key2);
    if (tok && *tok && tokf && *tokf) {
        return cs_error_set(err, CS_EINVAL, "%s and %s cannot both be set", key, key2);
    }
    if (tok && *tok) {
        set_str(&out->token, tok);
        set_str(&out->token_file, NULL);
        set_str(&out->auth_source, key);
    } else if (tokf && *tokf) {
        char *t = NULL;
        int rc = read_small_file(tokf, &t, err);
        if (rc) return cs_error_prefix(err, "%s", key2);
        free(out->token);
        out->token = t;
        set_str(&out->token_file, tokf);
        free(out->auth_source);
        out->auth_source = kfmt("the token file %s (%s)", tokf, key2);
    }
    static const char *const names[3] = {"caCertFile", "clientCertFile", "clientKeyFile"};
    char **dsts[3] = {&out->ca_file, &out->client_cert_file, &out->client_key_file};
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s.%s", prefix, names[i]);
        const char *v = cs_conf_get(conf, key);
        if (!v || !*v) continue;
        int rc = check_readable(key, v, err);
        if (rc) return rc;
        set_str(dsts[i], v);
        if (i == 1 && !out->token) {
            free(out->auth_source);
            out->auth_source = kfmt("the client certificate %s (%s)", v, key);
        }
    }
    return CS_OK;
}

/* ---------------------------------------------------------------- entry points */

int cs_kube_config_load_env(const cs_conf *conf, const char *master, const char *key_prefix,
                            const kube_config_env *env, kube_config *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    kc_merged m;
    char *sa_ns = NULL;
    const char *ctx_ns = NULL;
    int rc;
    if (master && *master && (rc = server_from_master(master, &out->server, err))) goto fail;
    if ((rc = kc_load(env, &m, err))) goto fail_m;

    if (m.nfiles > 0) {
        if ((rc = apply_kubeconfig(conf, &m, out, &ctx_ns, err))) goto fail_m;
    } else {
        const char *want = cs_conf_get(conf, "spark.kubernetes.context");
        if (want && *want) {
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.kubernetes.context=%s but no kubeconfig was found (%s)", want,
                              env->kubeconfig && *env->kubeconfig ? env->kubeconfig
                                                                  : "KUBECONFIG or ~/.kube/config");
            goto fail_m;
        }
        /* in-cluster: the pod's service account */
        const char *sa = env->sa_dir ? env->sa_dir : KUBE_SA_DIR;
        char *p = kfmt("%s/token", sa);
        if (access(p, R_OK) == 0) {
            char *t = NULL;
            if ((rc = read_small_file(p, &t, err))) {
                free(p);
                goto fail_m;
            }
            out->token = t;
            out->token_file = cs_xstrdup(p);
            out->auth_source = kfmt("the service account token %s", p);
        }
        free(p);
        p = kfmt("%s/ca.crt", sa);
        if (access(p, R_OK) == 0) {
            out->ca_file = p;
        } else {
            free(p);
        }
        p = kfmt("%s/namespace", sa);
        if (access(p, R_OK) == 0 && read_small_file(p, &sa_ns, NULL) == 0 && !*sa_ns) {
            free(sa_ns);
            sa_ns = NULL;
        }
        free(p);
        if (!out->server && env->service_host && *env->service_host) {
            const char *port = env->service_port && *env->service_port ? env->service_port : "443";
            bool v6 = strchr(env->service_host, ':') != NULL;
            out->server =
                kfmt("https://%s%s%s:%s", v6 ? "[" : "", env->service_host, v6 ? "]" : "", port);
        }
    }
    if (!out->server) {
        rc = cs_error_set(err, CS_EINVAL,
                          "no Kubernetes API server: give --master k8s://https://host:port or set "
                          "KUBECONFIG");
        goto fail_m;
    }
    if ((rc = apply_overrides(conf, key_prefix, out, err))) goto fail_m;
    bool trust = false;
    if ((rc = cs_conf_entry_bool(conf, "spark.kubernetes.trust.certificates", &trust, err)))
        goto fail_m;
    if (trust) out->insecure = true;

    const char *ns = cs_conf_get(conf, "spark.kubernetes.namespace");
    if (ns && *ns) {
        out->namespace_ = cs_xstrdup(ns);
    } else if (ctx_ns && *ctx_ns) {
        out->namespace_ = cs_xstrdup(ctx_ns);
    } else if (sa_ns) {
        out->namespace_ = cs_xstrdup(sa_ns);
    } else {
        out->namespace_ = cs_xstrdup(cs_conf_entry_string(conf, "spark.kubernetes.namespace"));
    }
    if (!out->auth_source) {
        out->auth_source = cs_xstrdup(out->client_cert_file ? "the client certificate"
                                                            : "no credentials (anonymous)");
    }
    free(sa_ns);
    kc_merged_free(&m);
    return CS_OK;
fail_m:
    free(sa_ns);
    kc_merged_free(&m);
fail:
    cs_kube_config_free(out);
    return rc;
}

int cs_kube_config_load(const cs_conf *conf, const char *master, const char *key_prefix,
                        kube_config *out, cs_error *err)
{
    kube_config_env env = {
        .kubeconfig = getenv("KUBECONFIG"),
        .home = getenv("HOME"),
        .service_host = getenv("KUBERNETES_SERVICE_HOST"),
        .service_port = getenv("KUBERNETES_SERVICE_PORT"),
        .sa_dir = KUBE_SA_DIR,
    };
    return cs_kube_config_load_env(conf, master, key_prefix, &env, out, err);
}

void cs_kube_config_free(kube_config *cfg)
{
    if (!cfg) return;
    for (size_t i = 0; i < sizeof cfg->tmp_files / sizeof cfg->tmp_files[0]; i++) {
        if (cfg->tmp_files[i]) {
            unlink(cfg->tmp_files[i]);
            free(cfg->tmp_files[i]);
        }
    }
    if (cfg->token) OPENSSL_cleanse(cfg->token, strlen(cfg->token));
    free(cfg->server);
    free(cfg->namespace_);
    free(cfg->context);
    free(cfg->token);
    free(cfg->exec_json);
    free(cfg->exec_dir);
    free(cfg->token_file);
    free(cfg->ca_file);
    free(cfg->client_cert_file);
    free(cfg->client_key_file);
    free(cfg->auth_source);
    memset(cfg, 0, sizeof *cfg);
}
