/*
 * kube_yaml.h — YAML documents read into jansson values through libyaml's parser (never a
 * hand-written parser): kubeconfig files (src/kube/kube_config.c), pod templates and other
 * Kubernetes objects (src/cluster/k8s), the submit client's inputs. The one YAML reader of cspark;
 * writing YAML (the dry run's manifests) is cluster/k8s/k8s_yaml.h.
 *
 * Plain scalars are typed with the YAML 1.2 core schema (null/~, true/false, ints, floats; all
 * else strings; quoted scalars stay strings), or all read as strings with KUBE_YAML_STRINGS (a
 * kubeconfig's fields are strings whatever they look like). Anchors and aliases are expanded
 * (copying at most KUBE_YAML_MAX_ALIAS_NODES nodes per document, so that a "billion laughs"
 * file cannot fill memory); only scalar
 * mapping keys are accepted; the first document of a stream is read.
 *
 * Ownership: the returned json_t is a new reference owned by the caller; NULL + err on error,
 * naming `what` (e.g. the file) with line and column. Pure: no state, thread-safe.
 */
#ifndef CSPARK_KUBE_YAML_H
#define CSPARK_KUBE_YAML_H

#include <stddef.h>

#include <jansson.h>

#include "common/err.h"

enum {
    KUBE_YAML_TYPED = 0,   /* YAML 1.2 core schema for plain scalars */
    KUBE_YAML_STRINGS = 1, /* every scalar a string */
};
#define KUBE_YAML_MAX_ALIAS_NODES 100000 /* nodes aliases may copy, per document */

/* Parses the first document of text. An empty document gives an empty object. */
json_t *cs_kube_yaml_load(const char *what, const char *text, size_t len, int flags, cs_error *err);
/* Reads path and parses it; CS_ENOTFOUND "file <path> not found" when missing, CS_EIO when
 * unreadable. */
json_t *cs_kube_yaml_load_file(const char *path, int flags, cs_error *err);

#endif
