/* procstat.h — the calling process's resource use, from /proc/self: resident and virtual memory
 * and CPU time. Read by executors for their heartbeat (Spark's ProcessTree* executor metrics) and
 * by the driver's /metrics/prometheus. Stateless and thread-safe.
 */
#ifndef CSPARK_COMMON_PROCSTAT_H
#define CSPARK_COMMON_PROCSTAT_H

#include <stdint.h>

/* Fills what can be read; a figure that cannot be read is 0. */
void cs_process_usage(int64_t *rss_bytes, int64_t *vmem_bytes, int64_t *cpu_time_ns);

#endif /* CSPARK_COMMON_PROCSTAT_H */
