/* kubesim protobuf request bodies: decodes the Kubernetes protobuf envelope ("k8s\0" +
 * runtime.Unknown) for the kinds kubectl's typed clients create (ConfigMap, Secret, Namespace,
 * Service) into the same JSON a client would have sent. Called by server.c when a body starts with
 * the magic bytes. */
#ifndef KUBESIM_PB_H
#define KUBESIM_PB_H

#include <jansson.h>
#include <stddef.h>

/* 1 if body carries the Kubernetes protobuf magic. */
int ks_pb_is_protobuf(const char *body, size_t len);
/* New JSON object, or NULL with a message in err (unsupported kind, malformed bytes). */
json_t *ks_pb_decode(const char *body, size_t len, char *err, size_t errlen);

#endif
