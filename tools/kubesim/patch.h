/* kubesim patch application: JSON merge patch (RFC 7386), a strategic-merge subset (lists of
 * containers/env/ports/volumes/... merged by their merge keys, $patch directives, $setElementOrder
 * and $retainKeys ignored, $deleteFromPrimitiveList honoured) and JSON patch (RFC 6902). Called by
 * server.c inside ks_store_mutate. target is modified in place; patch is borrowed. */
#ifndef KUBESIM_PATCH_H
#define KUBESIM_PATCH_H

#include <jansson.h>
#include <stddef.h>

/* Each returns 0, or -1 with a message (the API server's wording where known) in err. */
int ks_merge_patch(json_t *target, const json_t *patch, char *err, size_t errlen);
int ks_strategic_patch(json_t *target, const json_t *patch, char *err, size_t errlen);
int ks_json_patch(json_t *target, const json_t *patch, char *err, size_t errlen);

#endif
