/* cron_schedule.h — the schedules of ScheduledSparkApplication.spec.schedule, as the Kubeflow
 * operator reads them (robfig/cron's standard parser): five fields "minute hour day-of-month month
 * day-of-week", each `*` (or `?`), a value, a range `a-b`, a step (`*` or a range, then `/n`) or a
 * comma-separated list of those, with month and weekday names (JAN..DEC, SUN..SAT; 7 is Sunday
 * too); the descriptors @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly; and
 * `@every DURATION` (h, m, s, ms units, e.g. 1m30s; at least one second). As cron, when both day
 * fields are restricted a day matching either runs. Times are UTC. No Debian package gives C a
 * cron expression parser, hence this file.
 *
 * Pure functions; a cron_schedule is a caller-owned value with no heap parts.
 */
#ifndef CSPARK_OPERATOR_CRON_SCHEDULE_H
#define CSPARK_OPERATOR_CRON_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

typedef struct cron_schedule {
    uint64_t minutes;      /* bit m: minute m (0-59) */
    uint32_t hours;        /* bit h (0-23) */
    uint32_t days;         /* bit d (1-31) */
    uint16_t months;       /* bit m (1-12) */
    uint8_t weekdays;      /* bit w (0-6, Sunday 0) */
    bool dom_any, dow_any; /* the day fields were `*` */
    int64_t every_ms;      /* @every: the period; 0 = fields */
} cron_schedule;

/* CS_EINVAL with one line naming the field and the expected form. */
int cs_cron_parse(const char *text, cron_schedule *out, cs_error *err);
/* The first time strictly after after_ms (Unix ms) that the schedule fires; @every counts from
 * after_ms. -1 when none within five years (a day that never comes, e.g. 30 February). */
int64_t cs_cron_next(const cron_schedule *s, int64_t after_ms);

#endif
