/* kubesim resource quantities ("500m", "1.5", "512Mi", "1G", "2e3"): the one parser of
 * k8s.io/apimachinery's Quantity syntax in kubesim, used by validation (pod resources, PVC
 * storage), the kubelet half (requests, limits, node capacity) and main.c (--node-cpu,
 * --node-memory). Pure functions; no allocation. */
#ifndef KUBESIM_QUANTITY_H
#define KUBESIM_QUANTITY_H

/* The API server's messages for a quantity it cannot parse. */
#define KS_QUANTITY_FORMAT_MSG                                                                     \
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define KS_QUANTITY_SUFFIX_MSG "unable to parse quantity's suffix"

/* Parses q; on success *value gets the amount in base units (bytes, cores) and 0 is returned; on a
 * syntax error returns -1 and *msg (optional) gets one of the messages above. */
int ks_quantity_parse(const char *q, long double *value, const char **msg);
/* The amount times scale (1000 for millicores), rounded up as Kubernetes rounds fractional
 * millicores and bytes; -1 on a syntax error or a NULL/empty q. */
long long ks_quantity_scaled(const char *q, int scale);

#endif
