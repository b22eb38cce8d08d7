/* app_pod_template.h — the fields of a SparkApplication's spec.driver / spec.executor that have no
 * Spark key of their own, turned into a pod template (a Pod object) that the submit code's
 * spark.kubernetes.{driver,executor}.podTemplateFile step starts the pod from, as the Kubeflow
 * operator's webhook patches them into the pods:
 *   spec.volumes (those the role's mounts name)  -> spec.volumes
 *   <role>.volumeMounts                          -> the Spark container's volumeMounts
 *   <role>.configMaps [{name, path}]             -> a configMap volume mounted at path
 *   <role>.secrets [{name, path, secretType}]    -> a secret volume mounted at path; secretType
 *       GCPServiceAccount sets GOOGLE_APPLICATION_CREDENTIALS=<path>/key.json,
 *       HadoopDelegationToken sets HADOOP_TOKEN_FILE_LOCATION=<path>/hadoop.token
 *   <role>.env entries with valueFrom, <role>.envFrom -> the Spark container's env, envFrom
 *   <role>.affinity, <role>.tolerations           -> spec.affinity, spec.tolerations
 * A volume mount naming no volume of spec.volumes, or an entry without its required fields, is
 * CS_EINVAL with one line naming the field.
 *
 * Called by app_submit.c for each role. Ownership: spec is borrowed for the call; *out (NULL when
 * the role has none of these fields) is the caller's reference.
 */
#ifndef CSPARK_OPERATOR_APP_POD_TEMPLATE_H
#define CSPARK_OPERATOR_APP_POD_TEMPLATE_H

#include <jansson.h>

#include "common/err.h"

/* The template's one container has no name: the submit code names it as the role's Spark
 * container and adds its own settings to what the template holds. */
int cs_operator_pod_template(const json_t *spec, const char *role, json_t **out, cs_error *err);

#endif
