/* master.h — parsing of Spark master URLs (spark.master / --master).
 *
 * Accepted forms, as Spark: local, local[N], local[*], local[N,F], local[*,F],
 * local-cluster[N,C,M] and k8s://[scheme://]host:port (no scheme means https). Called by
 * cspark-submit (validation) and by the context when it picks a cluster backend.
 * cs_master is a plain value; nothing to free.
 */
#ifndef CSPARK_COMMON_MASTER_H
#define CSPARK_COMMON_MASTER_H

#include "common/err.h"

typedef enum { MASTER_LOCAL, MASTER_LOCAL_CLUSTER, MASTER_K8S } cs_master_kind;

typedef struct cs_master {
    cs_master_kind kind;
    int threads;      /* local: N (local=1, local[*]=number of online processors) */
    int max_failures; /* local[N,F]: F, else 0 meaning "use spark.task.maxFailures" */
    int executors, cores_per_executor, memory_mb; /* local-cluster[N,C,M] */
    char api_url[512]; /* k8s: normalised https://host:port (no scheme => https; port mandatory) */
} cs_master;

/* Fills *out (zeroed first). Errors (CS_EINVAL): "invalid master URL 'xyz': expected local,
 * local[N], local[*], local[N,F], local-cluster[N,C,M] or k8s://https://host:port". */
int cs_master_parse(const char *url, cs_master *out, cs_error *err);

/* "local", "local-cluster" or "k8s". */
const char *cs_master_kind_name(cs_master_kind kind);

#endif /* CSPARK_COMMON_MASTER_H */
