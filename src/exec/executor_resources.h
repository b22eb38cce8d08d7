/* executor_resources.h — an executor's custom resources (common/resource_conf.h): found at start
 * by running each spark.executor.resource.<name>.discoveryScript, as Spark's
 * ResourceDiscoveryScriptPlugin (the script prints one JSON object, {"name": "gpu", "addresses":
 * ["0", "1"]}, and must give at least spark.executor.resource.<name>.amount addresses; all it
 * gives are the executor's), sent to the driver in RegisterExecutor; and the addresses the driver
 * assigns to each task (LaunchTask), kept for the task's cspark_task_resources.
 *
 * Called by executor.c. Ownership: a cs_executor_resources owns its strings (free with
 * cs_executor_resources_free); the protobuf arrays of cs_executor_resources_pb point into it
 * (free the arrays only, with cs_executor_resources_pb_free, before the resources).
 * cs_task_resources_from_pb returns one malloc'd block holding the array and its strings: free()
 * it.
 */
#ifndef CSPARK_EXEC_EXECUTOR_RESOURCES_H
#define CSPARK_EXEC_EXECUTOR_RESOURCES_H

#include <stddef.h>

#include "common/conf.h"
#include "common/err.h"
#include "cspark.h"
#include "cspark.pb-c.h"

typedef struct cs_executor_resources {
    int n;
    cspark_resource *v; /* name, addresses and the array malloc'd */
} cs_executor_resources;

/* Runs the discovery script of every resource the conf gives executors (bounded by
 * CS_DISCOVERY_TIMEOUT_MS each). CS_EINVAL naming the key when a script fails, prints something
 * else than the JSON above, names another resource, or gives fewer addresses than asked for;
 * *out needs no freeing then. */
#define CS_DISCOVERY_TIMEOUT_MS 60000
int cs_executor_resources_discover(const cs_conf *conf, cs_executor_resources *out, cs_error *err);
void cs_executor_resources_free(cs_executor_resources *r);

/* r as RegisterExecutor.resources: *out is a malloc'd array of n messages pointing into r. */
Cspark__ResourceAddresses **cs_executor_resources_pb(const cs_executor_resources *r, size_t *n);
void cs_executor_resources_pb_free(Cspark__ResourceAddresses **pb, size_t n);

/* A task's assigned resources from its LaunchTask, in one block (NULL when n is 0). */
cspark_resource *cs_task_resources_from_pb(Cspark__ResourceAddresses *const *pb, size_t n);

#endif
