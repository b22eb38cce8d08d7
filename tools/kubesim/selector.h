/* kubesim label and field selectors: parses the labelSelector / fieldSelector query parameters
 * (=, ==, !=, in, notin, exists, !exists; fields metadata.name, metadata.namespace, status.phase,
 * spec.nodeName and a few per-resource ones) and matches objects. Called by server.c and watch.c.
 * A ks_selector is owned by the caller (ks_selector_free). */
#ifndef KUBESIM_SELECTOR_H
#define KUBESIM_SELECTOR_H

#include <jansson.h>

typedef struct ks_selector ks_selector;

/* Parses both selectors for resource (either may be NULL/empty). Returns NULL and writes a message
 * (as the API server's 400 BadRequest text) into err on a syntax error or unsupported field. */
ks_selector *ks_selector_parse(const char *resource, const char *label_sel, const char *field_sel,
                               char *err, size_t errlen);
/* 1 if obj matches (a NULL selector matches everything). */
int ks_selector_match(const ks_selector *sel, const json_t *obj);
void ks_selector_free(ks_selector *sel);

#endif
