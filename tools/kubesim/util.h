/* kubesim small helpers shared by the API-server files: clock, RFC 3339 timestamps, random uids and
 * names, and the Status body builder (status.c). All returned strings are written into caller
 * buffers unless stated; json_t results are new references owned by the caller. */
#ifndef KUBESIM_UTIL_H
#define KUBESIM_UTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t ks_now_ms(void);
/* Monotonic milliseconds. */
int64_t ks_mono_ms(void);
/* RFC 3339 UTC timestamp for epoch seconds t (buf >= 32 bytes). */
void ks_rfc3339(int64_t t, char *buf, size_t len);
/* Parses an RFC 3339 timestamp; returns epoch seconds or -1. */
int64_t ks_parse_rfc3339(const char *s);
/* Random RFC 4122 v4 uuid (buf >= 37 bytes). */
void ks_uuid(char *buf);
/* n random characters from the Kubernetes generateName alphabet, NUL terminated (buf >= n+1). */
void ks_random_suffix(char *buf, int n);
/* Uniform random double in [0,1). Thread-safe. */
double ks_random01(void);

/* New Status object: {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...}.
 * details (stolen, may be NULL) becomes .details. */
json_t *ks_status(int code, const char *reason, const char *message, json_t *details);
/* New Status Success object (used for delete-collection style answers). */
json_t *ks_status_success(void);

#endif
