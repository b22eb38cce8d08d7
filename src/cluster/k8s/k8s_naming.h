/* k8s_naming.h — the names cspark gives to Kubernetes objects, exactly as Spark derives them.
 *
 * Application id `spark-<32 lowercase hex>` (random, from OpenSSL RAND_bytes); the short
 * unique id (`<6 random hex><10 hex of the clock>`, Spark's KubernetesUtils.uniqueID); the
 * resource name prefix `<sanitized appName>-<unique id>` (lowercase, every character outside
 * [a-z0-9-] becomes '-', dash runs collapsed, leading/trailing dashes trimmed, a leading digit
 * becomes 'x' as in Spark, the name part cut
 * so that the prefix stays <= 237 characters and `<prefix>-exec-<id>` <= 253); the
 * `spark-app-name` label value (same sanitizing, <= 63, no leading/trailing dash); the driver pod,
 * executor pod, driver service and conf map names; the executor hostname. App names with
 * capitals, underscores, any bytes or 300 characters are sanitized, never rejected. Also the
 * DNS-1123 / label-value validators and the resource-quantity parser used by the builders and
 * tests.
 * Pure functions, no network. Called by k8s_pod_spec.c, the submit client and the k8s backend.
 *
 * Ownership: every `char *` returned is malloc'd and owned by the caller (free()). Fixed-size
 * outputs (`char out[N]`) are caller buffers. Inputs are borrowed for the call only.
 */
#ifndef CSPARK_CLUSTER_K8S_NAMING_H
#define CSPARK_CLUSTER_K8S_NAMING_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

#define K8S_DNS_LABEL_MAX 63      /* label values, DNS-1123 labels, service names, hostnames */
#define K8S_DNS_SUBDOMAIN_MAX 253 /* object names such as pods */
#define K8S_POD_PREFIX_MAX 237    /* 253 - strlen("-exec-") - 10 digits of executor id */
#define K8S_APP_ID_SIZE 39        /* "spark-" + 32 hex + NUL */
#define K8S_UNIQUE_ID_SIZE 17     /* 16 hex + NUL */

/* "spark-<32 lowercase hex>" from 16 random bytes. CS_EIO if no randomness is available. */
int cs_k8s_new_app_id(char out[K8S_APP_ID_SIZE], cs_error *err);
/* Spark's uniqueID: 3 random bytes as hex followed by (now_ms & 0xFFFFFFFFFF) as 10 hex digits. */
int cs_k8s_new_unique_id(char out[K8S_UNIQUE_ID_SIZE], cs_error *err);

/* Lowercases, maps every byte outside [a-z0-9-] to '-', collapses dash runs, trims leading and
 * trailing dashes, then cuts to at most `max` characters (and trims a dash left at the cut).
 * May return "" (never NULL). */
char *cs_k8s_sanitize_name(const char *s, size_t max);

/* `<sanitized app name>-<unique_id>`, <= K8S_POD_PREFIX_MAX; an app name that sanitizes to ""
 * becomes "spark". */
char *cs_k8s_resource_prefix(const char *app_name, const char *unique_id);
/* Value of the spark-app-name label: sanitized app name, <= 63, may be "". */
char *cs_k8s_app_name_label(const char *app_name);

char *cs_k8s_driver_pod_name(const char *prefix);                 /* <prefix>-driver */
char *cs_k8s_executor_pod_name(const char *prefix, long exec_id); /* <prefix>-exec-<id> */
/* `<prefix>-driver-svc` when that is a DNS-1035 label (<= 63 characters, starts with a letter),
 * else `spark-<unique_id>-driver-svc`. */
char *cs_k8s_driver_service_name(const char *prefix, const char *unique_id);
char *cs_k8s_driver_configmap_name(const char *unique_id);   /* spark-drv-<uid>-conf-map */
char *cs_k8s_executor_configmap_name(const char *unique_id); /* spark-exec-<uid>-conf-map */
char *cs_k8s_auth_secret_name(const char *unique_id);        /* spark-<uid>-auth-secret */
/* Last 63 characters of the pod name with leading non-alphanumerics removed (Spark's rule). */
char *cs_k8s_executor_hostname(const char *pod_name);

/* Validators (Kubernetes' own rules). */
bool cs_k8s_is_dns1123_label(const char *s);     /* [a-z0-9]([-a-z0-9]*[a-z0-9])?, <= 63 */
bool cs_k8s_is_dns1123_subdomain(const char *s); /* labels joined by '.', <= 253 */
bool cs_k8s_is_label_value(
    const char *s); /* "" or ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], <=63 */
/* A label/annotation key: optional DNS subdomain prefix and '/', name part <= 63 of
 * [A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]. */
bool cs_k8s_is_qualified_name(const char *s);
/* A resource quantity as the API server parses it ("10Gi", "500M", "1.5e9", "100"): a signed
 * decimal, then a binary suffix (Ki Mi Gi Ti Pi Ei), a decimal one (n u m k M G T P E, or none)
 * or an exponent (e/E and a signed integer). True and *value (in base units, optional) when s
 * is one. */
bool cs_k8s_parse_quantity(const char *s, long double *value);

#endif /* CSPARK_CLUSTER_K8S_NAMING_H */
