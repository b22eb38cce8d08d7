/* kubesim schema of the API types: every Go struct of core/v1 (and coordination/v1 Lease,
 * meta/v1 DeleteOptions) that request bodies decode into, with each field's JSON name, kind
 * letters and Go type, as generated into schema_types.c by schemagen/ from k8s.io/api.
 *
 * Kind letters: s string, i integer, b bool, f float, o struct, q resource.Quantity,
 * n intstr.IntOrString, t metav1.Time, u metav1.MicroTime, y []byte (base64), r any JSON; a prefix
 * a = array of, m = map with string keys of ("ao" is []Struct, "ms" map[string]string).
 *
 * Used by decode.c. The table is parsed once on first use (thread-safe) and lives until exit. */
#ifndef KUBESIM_SCHEMA_H
#define KUBESIM_SCHEMA_H

#include <stddef.h>

extern const char KS_SCHEMA_TEXT[];

typedef struct ks_schema_struct ks_schema_struct;

typedef struct ks_schema_field {
    const char *name;            /* JSON name */
    const char *kinds;           /* kind letters, e.g. "ao" */
    const char *type;            /* Go type as encoding/json prints it, e.g. "[]v1.Container" */
    const ks_schema_struct *obj; /* the struct at the end of kinds ending in 'o', else NULL */
} ks_schema_field;

struct ks_schema_struct {
    const char *type; /* "v1.PodSpec" */
    const char *name; /* "PodSpec" (what decode errors call the struct) */
    size_t nfields;
    const ks_schema_field *fields;
};

/* The struct of a Go type ("v1.Pod"), or NULL if the schema has none. */
const ks_schema_struct *ks_schema_struct_get(const char *go_type);
/* The field of s named name (JSON name, case-sensitive as kube-apiserver decodes), or NULL. */
const ks_schema_field *ks_schema_field_get(const ks_schema_struct *s, const char *name);

#endif
