/* k8s_yaml.h — Kubernetes objects written as YAML, through libyaml (never hand-written); reading
 * YAML is src/kube/kube_yaml.h, whose reader round-trips this output.
 *
 * cs_k8s_write_yaml emits jansson values as a multi-document YAML stream with libyaml's emitter
 * (`---` before each document, map key order preserved, strings quoted whenever a plain scalar
 * would read back as something else, numbers/bools/null plain, multi-line strings as literal
 * blocks when possible) — the output of `cspark.kubernetes.dryRun=true`. Called by cspark-submit.
 *
 * Ownership: objs are borrowed; the returned json_t is a new reference owned by the caller.
 */
#ifndef CSPARK_CLUSTER_K8S_YAML_H
#define CSPARK_CLUSTER_K8S_YAML_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/err.h"

/* Writes n documents; CS_EIO on write failure, CS_EINVAL for a non-finite real. */
int cs_k8s_write_yaml(FILE *out, json_t *const *objs, int n, cs_error *err);
/* Same into a malloc'd NUL-terminated string (caller frees); NULL on error. */
char *cs_k8s_yaml_dump(json_t *const *objs, int n, cs_error *err);

#endif /* CSPARK_CLUSTER_K8S_YAML_H */
