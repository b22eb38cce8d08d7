/* kubesim object validation, as the API server's: names (DNS-1123 subdomain / label, DNS-1035 label
 * for Services), label keys and values, and required fields (pod spec.containers, container name
 * and image). Called by server.c before create and update. On failure fills a ks_err with code 422,
 * reason Invalid, the real message text and a new causes array ([{reason,message,field}]). */
#ifndef KUBESIM_VALIDATE_H
#define KUBESIM_VALIDATE_H

#include "store.h"

/* Returns 0 if obj is valid for resource, else -EINVAL with err filled. For create, a name may be
 * absent when generateName is present. */
int ks_validate(const char *resource, const json_t *obj, int create, ks_err *err);
/* The checks of an update against the stored object old (both borrowed): immutable uid, no new
 * finalizers while deleting, a Secret's type, the data of an immutable ConfigMap or Secret.
 * Called by the store under its lock. 0, or -EINVAL with err filled as above. */
int ks_validate_update(const char *resource, const json_t *old, const json_t *upd, ks_err *err);

#endif
