/*
 * kubelet_image.c — images in OCI form for the kubesim kubelet: an image directory holding
 * config.json (the OCI image config, as scripts/image writes it) and layers/0..N (the layers'
 * trees, lowest first) — an image "already present on the machine". Gives kubelet_env.c the
 * config (Entrypoint, Cmd, Env, WorkingDir, User), the layer directories the container's root is
 * stacked from (container_rootfs.c), and the user resolved as a container runtime resolves it:
 * a name or number against the image's /etc/passwd, the primary group from it unless given, the
 * supplementary groups from /etc/group, and HOME. Called on the kubelet's worker thread.
 *
 * Ownership: kl_image_open fills a kl_image the caller releases with kl_image_close.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ks_kubelet_image_arg(char *arg, const char **names, const char **dirs, int *n, int cap)
{
    char *eq = strchr(arg, '=');
    if (!eq || *n >= cap) return -1;
    *eq = 0;
    names[*n] = arg;
    dirs[(*n)++] = eq + 1;
    return 0;
}

int ks_kubelet_resource_arg(char *arg, ks_kubelet_options *o)
{
    char *eq = strchr(arg, '='), *end = NULL;
    if (!eq || eq == arg) return -1;
    long long v = strtoll(eq + 1, &end, 10);
    if (end == eq + 1 || *end || v < 0) return -1;
    *eq = 0;
    o->node_resource_name = arg;
    o->node_resource_count = v;
    return 0;
}

int kl_image_open(const char *imgdir, kl_image *img, char *msg, size_t mlen)
{
    char path[4200];
    memset(img, 0, sizeof *img);
    snprintf(path, sizeof path, "%s/config.json", imgdir);
    if (access(path, F_OK) != 0) return 0; /* the host-overlay form */
    json_error_t je;
    img->root = json_load_file(path, 0, &je);
    if (!json_is_object(img->root)) {
        snprintf(msg, mlen, "image config %s: %s", path, je.text);
        kl_image_close(img);
        return -1;
    }
    img->config = json_object_get(img->root, "config");
    size_t n = json_array_size(json_object_get(json_object_get(img->root, "rootfs"), "diff_ids"));
    img->layers = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; img->layers && i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/layers/%zu", imgdir, i);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(msg, mlen, "image %s: layer %zu of %zu is not unpacked at %s", imgdir, i, n,
                     path);
            kl_image_close(img);
            return -1;
        }
        img->layers[img->n_layers++] = strdup(path);
    }
    if (img->n_layers == 0) {
        snprintf(msg, mlen, "image %s: its config names no layers", imgdir);
        kl_image_close(img);
        return -1;
    }
    return 1;
}

void kl_image_close(kl_image *img)
{
    for (int i = 0; i < img->n_layers; i++)
        free(img->layers[i]);
    free(img->layers);
    json_decref(img->root);
    memset(img, 0, sizeof *img);
}

/* The file at rel (e.g. "etc/passwd") in the topmost layer that has it, read whole; NULL if none.
 */
static char *layer_file(const kl_image *img, const char *rel)
{
    char path[4200];
    for (int i = img->n_layers - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "%s/%s", img->layers[i], rel);
        if (access(path, F_OK) == 0) return kl_read_small_file(path);
    }
    return NULL;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* The passwd or group line whose name (field 0) is key, or whose id (field 2) is key when numeric:
 * fields copied into f[0..6]. 1 when found. */
static int find_entry(char *text, const char *key, char f[7][256])
{
    int numeric = all_digits(key);
    for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        int n = 0;
        char *p = l;
        for (; n < 7; n++) {
            char *c = strchr(p, ':');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            snprintf(f[n], 256, "%.*s", (int)len, p);
            if (!c) {
                n++;
                break;
            }
            p = c + 1;
        }
        for (int i = n; i < 7; i++)
            f[i][0] = 0;
        if (!strcmp(f[numeric ? 2 : 0], key)) return 1;
    }
    return 0;
}

int kl_image_user(const kl_image *img, long long uid_override, long long gid_override,
                  kl_image_user_out *out, char *msg, size_t mlen)
{
    const char *spec = json_string_value(json_object_get(img->config, "User"));
    char user[256] = "", group[256] = "", f[7][256];
    snprintf(user, sizeof user, "%s", spec ? spec : "");
    char *colon = strchr(user, ':');
    if (colon) {
        *colon = 0;
        snprintf(group, sizeof group, "%s", colon + 1);
    }
    if (uid_override >= 0) snprintf(user, sizeof user, "%lld", uid_override);
    if (!user[0]) snprintf(user, sizeof user, "0");
    memset(out, 0, sizeof *out);
    snprintf(out->home, sizeof out->home, "/");
    char *passwd = layer_file(img, "etc/passwd");
    int found = find_entry(passwd, user, f);
    free(passwd);
    if (!found && !all_digits(user)) {
        snprintf(msg, mlen, "unable to find user %s: no matching entries in passwd file", user);
        return -1;
    }
    out->uid = found ? atoll(f[2]) : atoll(user);
    out->gid = found ? atoll(f[3]) : 0;
    if (found && f[5][0]) snprintf(out->home, sizeof out->home, "%s", f[5]);
    snprintf(out->name, sizeof out->name, "%s", found ? f[0] : "");
    if (group[0] && gid_override < 0) {
        char *gr = layer_file(img, "etc/group");
        int gfound = find_entry(gr, group, f);
        free(gr);
        if (!gfound && !all_digits(group)) {
            snprintf(msg, mlen, "unable to find group %s: no matching entries in group file",
                     group);
            return -1;
        }
        out->gid = gfound ? atoll(f[2]) : atoll(group);
    }
    if (gid_override >= 0) out->gid = gid_override;
    /* supplementary groups: those of /etc/group that list the user */
    char *gr = out->name[0] ? layer_file(img, "etc/group") : NULL;
    for (char *save = NULL, *l = gr ? strtok_r(gr, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        char *members = strrchr(l, ':'), *id = NULL;
        if (!members) continue;
        *members++ = 0;
        id = strrchr(l, ':');
        if (!id) continue;
        for (char *s2 = NULL, *m = strtok_r(members, ",", &s2); m; m = strtok_r(NULL, ",", &s2))
            if (!strcmp(m, out->name) &&
                out->n_groups < (int)(sizeof out->groups / sizeof(long long)))
                out->groups[out->n_groups++] = atoll(id + 1);
    }
    free(gr);
    return 0;
}
