/* kubesim server-side printing: meta.k8s.io/v1 Table responses, which kubectl get asks for with
 * "Accept: application/json;as=Table;v=v1;g=meta.k8s.io". Columns follow the real printers (pods:
 * NAME READY STATUS RESTARTS AGE, then IP and NODE at priority 1). Called by server.c and watch.c.
 * Returns new references. */
#ifndef KUBESIM_TABLE_H
#define KUBESIM_TABLE_H

#include <jansson.h>

/* 1 if an Accept header asks for a Table. */
int ks_wants_table(const char *accept);
/* Table of items (borrowed array); include is "None", "Metadata" (default) or "Object". */
json_t *ks_table(const char *resource, const json_t *items, const char *rv, const char *cont,
                 const char *include, int with_columns);

#endif
