/* kubesim typed decoding: checks a JSON request body against the Go type kube-apiserver decodes
 * it into (schema.h), with the decoder's own messages: "json: cannot unmarshal string into Go
 * struct field PodSpec.spec.terminationGracePeriodSeconds of type int64", the Quantity,
 * IntOrString, Time and base64 errors, and the unknown fields that strict decoding reports
 * (`unknown field "spec.containers[0].foo"`). Called by the request handlers (api_write.c,
 * api_delete.c) before validation. Pure; thread-safe. */
#ifndef KUBESIM_DECODE_H
#define KUBESIM_DECODE_H

#include <jansson.h>
#include <stddef.h>

/* Checks body against go_type ("v1.Pod"). Returns 0 when it decodes, -1 with the decoder's message
 * in err when it does not (the first error, as Go's decoder reports it). When unknown is non-NULL,
 * the paths of fields the type does not have are appended to it as strings
 * ("unknown field \"spec.foo\""). A go_type without a schema decodes (returns 0). */
int ks_decode_check(const char *go_type, const json_t *body, char *err, size_t errlen,
                    json_t *unknown);

#endif
