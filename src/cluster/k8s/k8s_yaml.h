/* k8s_yaml.h — YAML in and out for Kubernetes objects, through libyaml (never hand-written).
 *
 * cs_k8s_write_yaml emits jansson values as a multi-document YAML stream with libyaml's emitter
 * (`---` before each document, map key order preserved, strings quoted whenever a plain scalar
 * would read back as something else, numbers/bools/null plain, multi-line strings as literal
 * blocks when possible) — the output of `cspark.kubernetes.dryRun=true`. cs_k8s_yaml_load_file /
 * cs_k8s_yaml_load parse YAML (pod templates, kubeconfig-like files) into jansson with YAML 1.2
 * core schema typing of plain scalars (null/~, true/false, ints, floats; all else strings;
 * quoted scalars stay strings). Called by k8s_pod_spec.c and cspark-submit.
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

/* Parses the first document of text (anchors/aliases refused). An empty document gives an
 * empty object. Errors name `what` (e.g. the file) with line and column. */
json_t *cs_k8s_yaml_load(const char *what, const char *text, size_t len, cs_error *err);
/* Reads path and parses it; CS_ENOTFOUND naming the file when missing. */
json_t *cs_k8s_yaml_load_file(const char *path, cs_error *err);

#endif /* CSPARK_CLUSTER_K8S_YAML_H */
