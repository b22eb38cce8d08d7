/*
 * kubelet_volumes.c — a pod's files as the kubesim kubelet materialises them on the host: volumes
 * (configMap incl. items and binaryData, secret, emptyDir, hostPath, persistentVolumeClaim,
 * downwardAPI, projected with serviceAccountToken sources from a TokenRequest), the
 * service-account directory, /etc/hosts (hostAliases; Service names when kubesim plays cluster DNS)
 * and /etc/resolv.conf (the cluster DNS server when there is one). Called by kubelet_run.c on the
 * worker thread.
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

/* ---------------- volumes ---------------- */

int kl_json_mode(const json_t *v, int dflt)
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
            unsigned char *data = kl_object_key(obj, secret, key, &len);
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
            kl_write_file(path, data, len, (mode_t)kl_json_mode(json_object_get(it, "mode"), mode));
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
            unsigned char *data = kl_object_key(obj, secret, key, &len);
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
        kl_write_file(path, v, strlen(v), (mode_t)kl_json_mode(json_object_get(it, "mode"), mode));
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
                        kl_json_mode(json_object_get(src, "defaultMode"), mode), optional,
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
                                    kl_json_mode(json_object_get(src, "defaultMode"), 0644), e2,
                                    sizeof e2);
            else if ((src = json_object_get(vol, "projected"))) {
                int mode = kl_json_mode(json_object_get(src, "defaultMode"), 0644);
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

const char *kl_pod_hostname(const kpod *p)
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
        fprintf(f, "%s\t%s.%s.%s.svc.cluster.local\t%s\n", p->ip, kl_pod_hostname(p), sub, p->ns,
                kl_pod_hostname(p));
    else
        fprintf(f, "%s\t%s\n", p->ip, kl_pod_hostname(p));
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
        const char *sns = kl_meta_s(svc, "namespace"), *sname = kl_meta_s(svc, "name");
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
                    fprintf(f, "%s\t%s.%s.%s.svc.cluster.local\n", q->ip, kl_pod_hostname(q), sname,
                            sns);
            }
    }
done:
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/hosts", p->dir);
    char *old = kl_read_small_file(path);
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
    char *host = kl_read_small_file("/etc/resolv.conf");
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
    int n = snprintf(hn, sizeof hn, "%s\n", kl_pod_hostname(p));
    kl_write_file(path, hn, (size_t)n, 0644);
    free(buf);
    free(host);
}
