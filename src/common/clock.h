/* clock.h — wall-clock and monotonic time helpers.
 *
 * cs_now_ms() is CLOCK_REALTIME in milliseconds since the Unix epoch (for timestamps shown to
 * users, event logs, pod annotations); cs_now_ns() is CLOCK_MONOTONIC in nanoseconds (for
 * measuring durations, timeouts, heartbeats). Called by the logger, the schedulers and the
 * executor. No state, thread-safe. Implemented in log.c.
 */
#ifndef CSPARK_COMMON_CLOCK_H
#define CSPARK_COMMON_CLOCK_H

#include <stdint.h>

int64_t cs_now_ms(void);
int64_t cs_now_ns(void);
/* CLOCK_MONOTONIC in milliseconds (cs_now_ns() / 1e6), convenient for deadlines. */
int64_t cs_mono_ms(void);

#endif /* CSPARK_COMMON_CLOCK_H */
