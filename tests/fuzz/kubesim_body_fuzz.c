/* libFuzzer target for kubesim's request-body handling: the bytes are parsed as the API server
 * parses a body (jansson, duplicates rejected), then driven through what the server does with it:
 * validation and create of a pod/configmap/service, merge / strategic-merge / JSON patches applied
 * to a stored pod through ks_store_mutate, PUT-style update, and label/field selector parsing of
 * the raw bytes. The first byte picks the path. Built and run by kubesim_body.sh. */
#include "patch.h"
#include "pb.h"
#include "selector.h"
#include "store.h"
#include "validate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ks_store *store;

static int patch_cb(json_t *obj, void *arg, ks_err *err)
{
    const json_t *const *pa = arg;
    char msg[256];
    int kind = (int)json_integer_value(pa[1]);
    int rc = kind == 0   ? ks_merge_patch(obj, pa[0], msg, sizeof msg)
             : kind == 1 ? ks_strategic_patch(obj, pa[0], msg, sizeof msg)
                         : ks_json_patch(obj, pa[0], msg, sizeof msg);
    if (rc < 0) {
        err->code = 400;
        return -1;
    }
    if (!json_is_object(json_object_get(obj, "metadata"))) return -1;
    return ks_validate("pods", obj, 0, err) < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!store) {
        store = ks_store_new(64);
        json_t *p = json_pack("{s:{s:s,s:{s:s}},s:{s:[{s:s,s:s,s:[{s:s,s:s}]}]}}", "metadata",
                              "name", "base", "labels", "app", "x", "spec", "containers", "name",
                              "c", "image", "i", "env", "name", "A", "value", "1");
        ks_store_create(store, "pods", "default", p, NULL, NULL);
    }
    if (size < 1) return 0;
    int mode = data[0] % 7;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    if (mode == 5) {
        char *s = malloc(len + 1);
        memcpy(s, body, len);
        s[len] = 0;
        char err[512];
        ks_selector *sel = ks_selector_parse("pods", s, s, err, sizeof err);
        json_t *o = ks_store_get(store, "pods", "default", "base");
        ks_selector_match(sel, o);
        json_decref(o);
        ks_selector_free(sel);
        free(s);
        return 0;
    }
    if (mode == 6) {
        char err[512];
        json_t *o = ks_pb_decode(body, len, err, sizeof err);
        if (o) {
            ks_err e = {0};
            const char *kind = json_string_value(json_object_get(o, "kind"));
            const char *r = !strcmp(kind, "Namespace") ? "namespaces"
                            : !strcmp(kind, "Service") ? "services"
                            : !strcmp(kind, "Secret")  ? "secrets"
                                                       : "configmaps";
            if (ks_validate(r, o, 1, &e) == 0)
                ks_store_create(store, r, strcmp(r, "namespaces") ? "default" : NULL,
                                json_incref(o), NULL, &e);
            ks_err_clear(&e);
            json_decref(o);
        }
        return 0;
    }
    json_error_t je;
    json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) return 0;
    ks_err e = {0};
    if (mode == 0 && json_is_object(j)) {
        static const char *res[] = {"pods", "configmaps", "services", "namespaces"};
        const char *r = res[len % 4];
        if (ks_validate(r, j, 1, &e) == 0) {
            json_t *out = NULL;
            json_incref(j);
            if (ks_store_create(store, r, strcmp(r, "namespaces") ? "default" : NULL, j, &out,
                                &e) == 0) {
                json_t *m = json_object_get(out, "metadata");
                ks_delete_opts o = {.grace_seconds = -1};
                ks_store_delete(store, r, json_string_value(json_object_get(m, "namespace")),
                                json_string_value(json_object_get(m, "name")), &o, NULL, NULL,
                                NULL);
                json_decref(out);
            }
        }
    } else if (mode >= 1 && mode <= 3) {
        json_t *kind = json_integer(mode - 1);
        const json_t *pa[2] = {j, kind};
        ks_store_mutate(store, "pods", "default", "base", patch_cb, (void *)pa, 0, NULL, &e);
        json_decref(kind);
    } else if (mode == 4 && json_is_object(j)) {
        json_t *m = json_object_get(j, "metadata");
        if (json_is_object(m)) {
            json_object_del(m, "resourceVersion");
            if (ks_validate("pods", j, 0, &e) == 0) {
                json_incref(j);
                ks_store_update(store, "pods", "default", "base", j, len & 1, NULL, &e);
            }
        }
    }
    ks_err_clear(&e);
    json_decref(j);
    /* keep the base pod present and valid for the next input */
    json_t *b = ks_store_get(store, "pods", "default", "base");
    if (!b || ks_validate("pods", b, 0, NULL) < 0) {
        ks_delete_opts o = {.grace_seconds = 0};
        ks_store_delete(store, "pods", "default", "base", &o, NULL, NULL, NULL);
        json_t *p = json_pack("{s:{s:s},s:{s:[{s:s,s:s}]}}", "metadata", "name", "base", "spec",
                              "containers", "name", "c", "image", "i");
        ks_store_create(store, "pods", "default", p, NULL, NULL);
    }
    json_decref(b);
    return 0;
}
