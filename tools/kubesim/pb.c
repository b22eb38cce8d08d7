/* kubesim protobuf body decoding (see pb.h) with protobuf-c code generated from kubesim_pb.proto.
 */
#include "pb.h"
#include "kubesim_pb.pb-c.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ks_pb_is_protobuf(const char *body, size_t len)
{
    return len >= 4 && !memcmp(body, "k8s\0", 4);
}

static json_t *string_map(KubesimPb__StringEntry **e, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        if (e[i]->key)
            json_object_set_new(o, e[i]->key, json_string(e[i]->value ? e[i]->value : ""));
    return o;
}

static json_t *bytes_map(KubesimPb__BytesEntry **e, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++) {
        if (!e[i]->key) continue;
        size_t l = e[i]->has_value ? e[i]->value.len : 0;
        char *b64 = malloc(4 * ((l + 2) / 3) + 1);
        if (!b64) continue;
        EVP_EncodeBlock((unsigned char *)b64, l ? e[i]->value.data : (const unsigned char *)"",
                        (int)l);
        json_object_set_new(o, e[i]->key, json_string(b64));
        free(b64);
    }
    return o;
}

static json_t *meta_json(const KubesimPb__ObjectMeta *m)
{
    json_t *o = json_object();
    if (!m) return o;
    if (m->name && *m->name) json_object_set_new(o, "name", json_string(m->name));
    if (m->generatename && *m->generatename)
        json_object_set_new(o, "generateName", json_string(m->generatename));
    if (m->namespace_ && *m->namespace_)
        json_object_set_new(o, "namespace", json_string(m->namespace_));
    if (m->resourceversion && *m->resourceversion)
        json_object_set_new(o, "resourceVersion", json_string(m->resourceversion));
    if (m->n_labels) json_object_set_new(o, "labels", string_map(m->labels, m->n_labels));
    if (m->n_annotations)
        json_object_set_new(o, "annotations", string_map(m->annotations, m->n_annotations));
    if (m->n_ownerreferences) {
        json_t *a = json_array();
        for (size_t i = 0; i < m->n_ownerreferences; i++) {
            KubesimPb__OwnerReference *r = m->ownerreferences[i];
            json_t *ref = json_pack("{s:s?,s:s?,s:s?,s:s?}", "apiVersion", r->apiversion, "kind",
                                    r->kind, "name", r->name, "uid", r->uid);
            if (r->has_controller)
                json_object_set_new(ref, "controller", json_boolean(r->controller));
            if (r->has_blockownerdeletion)
                json_object_set_new(ref, "blockOwnerDeletion", json_boolean(r->blockownerdeletion));
            json_array_append_new(a, ref);
        }
        json_object_set_new(o, "ownerReferences", a);
    }
    if (m->n_finalizers) {
        json_t *a = json_array();
        for (size_t i = 0; i < m->n_finalizers; i++)
            json_array_append_new(a, json_string(m->finalizers[i]));
        json_object_set_new(o, "finalizers", a);
    }
    return o;
}

static json_t *decode_kind(const char *kind, const uint8_t *raw, size_t len, char *err,
                           size_t errlen)
{
    json_t *o = NULL;
    if (!strcmp(kind, "ConfigMap")) {
        KubesimPb__ConfigMap *m = kubesim_pb__config_map__unpack(NULL, len, raw);
        if (m) {
            o = json_pack("{s:o}", "metadata", meta_json(m->metadata));
            if (m->n_data) json_object_set_new(o, "data", string_map(m->data, m->n_data));
            if (m->n_binarydata)
                json_object_set_new(o, "binaryData", bytes_map(m->binarydata, m->n_binarydata));
            if (m->has_immutable) json_object_set_new(o, "immutable", json_boolean(m->immutable));
            kubesim_pb__config_map__free_unpacked(m, NULL);
        }
    } else if (!strcmp(kind, "Secret")) {
        KubesimPb__Secret *m = kubesim_pb__secret__unpack(NULL, len, raw);
        if (m) {
            o = json_pack("{s:o}", "metadata", meta_json(m->metadata));
            if (m->n_data) json_object_set_new(o, "data", bytes_map(m->data, m->n_data));
            if (m->n_stringdata)
                json_object_set_new(o, "stringData", string_map(m->stringdata, m->n_stringdata));
            if (m->type && *m->type) json_object_set_new(o, "type", json_string(m->type));
            if (m->has_immutable) json_object_set_new(o, "immutable", json_boolean(m->immutable));
            kubesim_pb__secret__free_unpacked(m, NULL);
        }
    } else if (!strcmp(kind, "Namespace")) {
        KubesimPb__Namespace *m = kubesim_pb__namespace__unpack(NULL, len, raw);
        if (m) {
            o = json_pack("{s:o}", "metadata", meta_json(m->metadata));
            kubesim_pb__namespace__free_unpacked(m, NULL);
        }
    } else if (!strcmp(kind, "Service")) {
        KubesimPb__Service *m = kubesim_pb__service__unpack(NULL, len, raw);
        if (m) {
            json_t *spec = json_object();
            KubesimPb__ServiceSpec *sp = m->spec;
            if (sp) {
                json_t *ports = json_array();
                for (size_t i = 0; i < sp->n_ports; i++) {
                    KubesimPb__ServicePort *p = sp->ports[i];
                    json_t *pj =
                        json_pack("{s:s?,s:s?}", "name", p->name && *p->name ? p->name : NULL,
                                  "protocol", p->protocol && *p->protocol ? p->protocol : NULL);
                    if (p->has_port) json_object_set_new(pj, "port", json_integer(p->port));
                    if (p->has_nodeport && p->nodeport)
                        json_object_set_new(pj, "nodePort", json_integer(p->nodeport));
                    if (p->targetport) {
                        if (p->targetport->has_type && p->targetport->type == 1 &&
                            p->targetport->strval)
                            json_object_set_new(pj, "targetPort",
                                                json_string(p->targetport->strval));
                        else if (p->targetport->has_intval)
                            json_object_set_new(pj, "targetPort",
                                                json_integer(p->targetport->intval));
                    }
                    json_array_append_new(ports, pj);
                }
                json_object_set_new(spec, "ports", ports);
                if (sp->n_selector)
                    json_object_set_new(spec, "selector", string_map(sp->selector, sp->n_selector));
                if (sp->clusterip && *sp->clusterip)
                    json_object_set_new(spec, "clusterIP", json_string(sp->clusterip));
                if (sp->type && *sp->type) json_object_set_new(spec, "type", json_string(sp->type));
                if (sp->sessionaffinity && *sp->sessionaffinity)
                    json_object_set_new(spec, "sessionAffinity", json_string(sp->sessionaffinity));
            }
            o = json_pack("{s:o,s:o}", "metadata", meta_json(m->metadata), "spec", spec);
            kubesim_pb__service__free_unpacked(m, NULL);
        }
    } else if (!strcmp(kind, "ServiceAccount")) {
        KubesimPb__ServiceAccount *m = kubesim_pb__service_account__unpack(NULL, len, raw);
        if (m) {
            o = json_pack("{s:o}", "metadata", meta_json(m->metadata));
            if (m->n_imagepullsecrets) {
                json_t *ips = json_array();
                for (size_t i = 0; i < m->n_imagepullsecrets; i++)
                    json_array_append_new(
                        ips, json_pack("{s:s?}", "name", m->imagepullsecrets[i]->name));
                json_object_set_new(o, "imagePullSecrets", ips);
            }
            if (m->has_automountserviceaccounttoken)
                json_object_set_new(o, "automountServiceAccountToken",
                                    json_boolean(m->automountserviceaccounttoken));
            kubesim_pb__service_account__free_unpacked(m, NULL);
        }
    } else if (!strcmp(kind, "TokenRequest")) {
        KubesimPb__TokenRequest *m = kubesim_pb__token_request__unpack(NULL, len, raw);
        if (m) {
            json_t *spec = json_object();
            KubesimPb__TokenRequestSpec *sp = m->spec;
            if (sp && sp->n_audiences) {
                json_t *aud = json_array();
                for (size_t i = 0; i < sp->n_audiences; i++)
                    json_array_append_new(aud, json_string(sp->audiences[i]));
                json_object_set_new(spec, "audiences", aud);
            }
            if (sp && sp->has_expirationseconds)
                json_object_set_new(spec, "expirationSeconds", json_integer(sp->expirationseconds));
            if (sp && sp->boundobjectref)
                json_object_set_new(
                    spec, "boundObjectRef",
                    json_pack("{s:s?,s:s?,s:s?,s:s?}", "kind", sp->boundobjectref->kind,
                              "apiVersion", sp->boundobjectref->apiversion, "name",
                              sp->boundobjectref->name, "uid", sp->boundobjectref->uid));
            o = json_pack("{s:o,s:o}", "metadata", meta_json(m->metadata), "spec", spec);
            kubesim_pb__token_request__free_unpacked(m, NULL);
        }
    } else {
        snprintf(err, errlen,
                 "kubesim accepts protobuf bodies for ConfigMap, Secret, Namespace, Service, "
                 "ServiceAccount and TokenRequest only (got %s); send application/json",
                 kind);
        return NULL;
    }
    if (!o)
        snprintf(err, errlen, "unable to decode protobuf %s", kind);
    else {
        json_object_set_new(o, "kind", json_string(kind));
        json_object_set_new(
            o, "apiVersion",
            json_string(strcmp(kind, "TokenRequest") ? "v1" : "authentication.k8s.io/v1"));
    }
    return o;
}

json_t *ks_pb_decode(const char *body, size_t len, char *err, size_t errlen)
{
    if (!ks_pb_is_protobuf(body, len)) {
        snprintf(err, errlen, "not a protobuf body");
        return NULL;
    }
    KubesimPb__Unknown *u = kubesim_pb__unknown__unpack(NULL, len - 4, (const uint8_t *)body + 4);
    if (!u) {
        snprintf(err, errlen, "unable to decode the protobuf envelope (runtime.Unknown)");
        return NULL;
    }
    json_t *o = NULL;
    const char *kind = u->typemeta ? u->typemeta->kind : NULL;
    if (!kind || !u->has_raw)
        snprintf(err, errlen, "protobuf body without kind or raw object");
    else if (u->contentencoding && *u->contentencoding)
        snprintf(err, errlen, "protobuf content encoding %s is not supported", u->contentencoding);
    else
        o = decode_kind(kind, u->raw.data, u->raw.len, err, errlen);
    kubesim_pb__unknown__free_unpacked(u, NULL);
    return o;
}
