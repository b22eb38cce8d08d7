/* resource_conf.h — Spark's custom resources (GPUs, FPGAs, ...) as an application asks for them:
 * each executor has spark.executor.resource.<name>.amount addresses of <name>, found by running
 * spark.executor.resource.<name>.discoveryScript on the executor (exec/resource_discovery.h), and
 * each task takes spark.task.resource.<name>.amount of them (a whole number of addresses, or a
 * fraction ≤ 0.5: floor(1 / amount) tasks share one address), as Spark's ResourceProfile.
 * spark.task.cpus is read here too: together they say how many tasks an executor can run at once.
 *
 * Read and checked by cs_conf_validate (cspark-submit, before anything starts), by the driver's
 * coarse backend (which assigns addresses to tasks, cluster/coarse_resources.c) and by executors
 * (which discover theirs). Stage-level resource profiles are not supported: one profile per
 * application.
 *
 * Ownership: a cs_resource_requests filled by cs_resource_requests_read owns its array (and
 * nothing else: strings are copied); free it with cs_resource_requests_free.
 */
#ifndef CSPARK_COMMON_RESOURCE_CONF_H
#define CSPARK_COMMON_RESOURCE_CONF_H

#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

#define CS_RESOURCE_NAME_MAX 64

typedef struct cs_resource_request {
    char name[CS_RESOURCE_NAME_MAX]; /* "gpu" */
    int64_t executor_amount;         /* addresses each executor must have; 0: not asked for */
    char *discovery_script;          /* malloc'd, NULL when unset */
    double task_amount;              /* of one task; 0: tasks do not use it */
    int task_addresses;              /* addresses a task takes: task_amount when >= 1, else 1 */
    int tasks_per_address;           /* tasks sharing an address: floor(1 / amount) when < 1 */
} cs_resource_request;

typedef struct cs_resource_requests {
    int task_cpus; /* spark.task.cpus */
    int n;
    cs_resource_request *v; /* sorted by name */
} cs_resource_requests;

/* Fills *out from conf and checks it as Spark does: amounts are positive (executor amounts whole
 * numbers; task amounts whole or ≤ 0.5), every resource a task asks for is an executor resource
 * with at least the task's amount, and every executor resource has a discovery script. CS_EINVAL
 * naming the key on anything else; *out needs no freeing then. */
int cs_resource_requests_read(const cs_conf *conf, cs_resource_requests *out, cs_error *err);
void cs_resource_requests_free(cs_resource_requests *r);

/* The request for name, or NULL. */
const cs_resource_request *cs_resource_request_find(const cs_resource_requests *r,
                                                    const char *name);

/* cs_resource_requests_read's checks, and that an executor has at least spark.task.cpus cores
 * (those of local-cluster[N,C,M], else spark.executor.cores; none in local mode): for
 * cs_conf_validate and the context's start. */
int cs_resource_conf_check(const cs_conf *conf, cs_error *err);

#endif /* CSPARK_COMMON_RESOURCE_CONF_H */
