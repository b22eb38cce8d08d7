/* driver_url.c — cs_executor_parse_driver_url (executor.h): the driver's address from the URL an
 * executor is started with, spark://CoarseGrainedScheduler@host:port (the name part and the
 * scheme may be left out; an IPv6 address in brackets, [addr]:port). Called by executor.c at start;
 * pure, so unit-tested alone.
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
    const char *colon, *host_start = p;
    size_t n;
    if (*p == '[') { /* an IPv6 address: [addr]:port */
        const char *close = strchr(p, ']');
        if (!close || close[1] != ':' || close == p + 1) return CS_EINVAL;
        host_start = p + 1;
        n = (size_t)(close - host_start);
        colon = close + 1;
    } else {
        colon = strrchr(p, ':');
        if (!colon || colon == p) return CS_EINVAL;
        n = (size_t)(colon - p);
    }
    if (n >= host_cap) return CS_EINVAL;
    char *end;
    long v = strtol(colon + 1, &end, 10);
    if (*end || v <= 0 || v > 65535) return CS_EINVAL;
    memcpy(host, host_start, n);
    host[n] = 0;
    *port = (int)v;
    return 0;
}
