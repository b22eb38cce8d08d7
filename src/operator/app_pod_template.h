/* app_pod_template.h — the fields of a SparkApplication's spec.driver / spec.executor that have no
 * Spark key of their own, turned into a pod template (a Pod object) that the submit code's
 * spark.kubernetes.{driver,executor}.podTemplateFile step starts the pod from, as the Kubeflow
 * operator's webhook patches them into the pods:
 *   <role>.template (a pod's metadata and spec)   -> the pod the template starts from; its Spark
 *       container is the one named spark-kubernetes-<role>, else its first one
 *   spec.volumes (those the role's mounts name)  -> spec.volumes
 *   <role>.volumeMounts                          -> the Spark container's volumeMounts
 *   <role>.configMaps [{name, path}]             -> a configMap volume mounted at path
 *   <role>.secrets [{name, path, secretType}]    -> a secret volume mounted at path; secretType
 *       GCPServiceAccount sets GOOGLE_APPLICATION_CREDENTIALS=<path>/key.json,
 *       HadoopDelegationToken sets HADOOP_TOKEN_FILE_LOCATION=<path>/hadoop.token
 *   <role>.env entries with valueFrom, <role>.envFrom, <role>.ports, <role>.securityContext,
 *       <role>.lifecycle                         -> the Spark container's env, envFrom, ports,
 *                                                   securityContext, lifecycle
 *   <role>.gpu {name, quantity}                  -> the Spark container's resources.limits[name]
 *   <role>.affinity, .podSecurityContext, .dnsConfig, .priorityClassName (else
 *       spec.batchSchedulerOptions.priorityClassName), .terminationGracePeriodSeconds
 *                                                -> spec.affinity, securityContext, dnsConfig,
 *                                                   priorityClassName,
 * terminationGracePeriodSeconds <role>.hostNetwork: true                     -> spec.hostNetwork,
 * dnsPolicy ClusterFirstWithHostNet <role>.shareProcessNamespace: true           ->
 * spec.shareProcessNamespace <role>.tolerations, .hostAliases             -> appended to
 * spec.tolerations, spec.hostAliases <role>.initContainers, <role>.sidecars       -> appended to
 * spec.initContainers, and to spec.containers after the Spark container The Spark container is the
 * template's first, named spark-kubernetes-<role> (the caller sets
 * spark.kubernetes.<role>.podTemplateContainerName to it). A volume mount naming no volume of
 * spec.volumes, an entry without its required fields (a sidecar or init container without a name
 * and an image, a gpu without a resource name and a positive quantity, ...) is CS_EINVAL with one
 * line naming the field.
 *
 * Called by app_submit.c for each role. Ownership: spec is borrowed for the call; *out (NULL when
 * the role has none of these fields) is the caller's reference.
 */
#ifndef CSPARK_OPERATOR_APP_POD_TEMPLATE_H
#define CSPARK_OPERATOR_APP_POD_TEMPLATE_H

#include <jansson.h>

#include "common/err.h"

/* The submit code adds its own settings to what the template holds (the Spark container's image,
 * resources, command, ...). */
int cs_operator_pod_template(const json_t *spec, const char *role, json_t **out, cs_error *err);

#endif
