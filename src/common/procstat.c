/* procstat.c — resident/virtual memory from /proc/self/statm and user + system CPU time from
 * /proc/self/stat (see procstat.h).
 */
#include "common/procstat.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cs_process_usage(int64_t *rss_bytes, int64_t *vmem_bytes, int64_t *cpu_time_ns)
{
    *rss_bytes = *vmem_bytes = *cpu_time_ns = 0;
    long page = sysconf(_SC_PAGESIZE), ticks = sysconf(_SC_CLK_TCK);
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        long long size = 0, resident = 0;
        if (fscanf(f, "%lld %lld", &size, &resident) == 2) {
            *vmem_bytes = size * page;
            *rss_bytes = resident * page;
        }
        fclose(f);
    }
    f = fopen("/proc/self/stat", "r");
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        /* fields after the command (which may hold spaces) start past the last ')' */
        char *p = strrchr(buf, ')');
        unsigned long long utime = 0, stime = 0;
        if (p && ticks > 0 &&
            sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                   &stime) == 2)
            *cpu_time_ns = (int64_t)((utime + stime) * (1000000000ULL / (unsigned long long)ticks));
    }
}
