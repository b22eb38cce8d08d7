/* driver_url.c — cs_executor_parse_driver_url (executor.h): the driver's address from the URL an
 * executor is started with, spark://CoarseGrainedScheduler@host:port (the name part and the
 * scheme may be left out). Called by executor.c at start; pure, so unit-tested alone.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "exec/executor.h"

int cs_executor_parse_driver_url(const char *url, char *host, size_t host_cap, int *port)
{
    const char *p = url;
    if (strncmp(p, "spark://", 8) == 0) p += 8;
    const char *at = strchr(p, '@');
    if (at) p = at + 1;
    const char *colon = strrchr(p, ':');
    if (!colon || colon == p) return CS_EINVAL;
    size_t n = (size_t)(colon - p);
    if (n >= host_cap) return CS_EINVAL;
    char *end;
    long v = strtol(colon + 1, &end, 10);
    if (*end || v <= 0 || v > 65535) return CS_EINVAL;
    memcpy(host, p, n);
    host[n] = 0;
    *port = (int)v;
    return 0;
}
