/* cron_schedule.c — see cron_schedule.h. */
#define _GNU_SOURCE
#include "operator/cron_schedule.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct field_def {
    const char *name;
    int lo, hi;
    const char *const *names; /* names of lo, lo+1, ...; NULL = numbers only */
} field_def;

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                          "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};

static const field_def fields[5] = {
    {"minute", 0, 59, NULL},          {"hour", 0, 23, NULL},
    {"day of month", 1, 31, NULL},    {"month", 1, 12, month_names},
    {"day of week", 0, 7, day_names},
};

/* A number or a name of the field at *p; advances *p. */
static int value(const field_def *f, const char **p, int *out)
{
    const char *s = *p;
    if (isdigit((unsigned char)*s)) {
        char *end;
        long v = strtol(s, &end, 10);
        if (v < f->lo || v > f->hi) return -1;
        *out = (int)v;
        *p = end;
        return 0;
    }
    for (int i = 0; f->names && f->names[i]; i++) {
        if (strncasecmp(s, f->names[i], 3) == 0) {
            *out = f->lo + i;
            *p = s + 3;
            return 0;
        }
    }
    return -1;
}

/* One field (text up to its end) into the bit set *bits. */
static int field(const field_def *f, const char *text, uint64_t *bits, bool *any)
{
    *bits = 0;
    *any = strcmp(text, "*") == 0 || strcmp(text, "?") == 0;
    const char *p = text;
    while (*p) {
        int a = f->lo, b = f->hi, step = 1;
        if (*p == '*' || *p == '?') {
            p++;
        } else {
            if (value(f, &p, &a) < 0) return -1;
            b = a;
            if (*p == '-') {
                p++;
                if (value(f, &p, &b) < 0 || b < a) return -1;
            }
        }
        if (*p == '/') {
            char *end;
            p++;
            long n = strtol(p, &end, 10);
            if (end == p || n < 1 || n > f->hi) return -1;
            step = (int)n;
            p = end;
            if (a == b) b = f->hi; /* "5/15": from 5 on */
        }
        for (int v = a; v <= b; v += step)
            *bits |= 1ull << v;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return *bits ? 0 : -1;
}

static int parse_every(const char *p, cron_schedule *out, cs_error *err, const char *text)
{
    int64_t total = 0;
    while (*p == ' ')
        p++;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || v < 0) goto bad;
        int64_t unit = *end == 'h'                    ? 3600000
                       : *end == 'm' && end[1] != 's' ? 60000
                       : *end == 's'                  ? 1000
                       : *end == 'm'                  ? 1
                                                      : 0;
        if (!unit) goto bad;
        total += (int64_t)(v * (double)unit);
        p = end + (unit == 1 ? 2 : 1);
    }
    if (total < 1000) goto bad;
    out->every_ms = total;
    return 0;
bad:
    return cs_error_set(err, CS_EINVAL,
                        "spec.schedule '%s': expected @every DURATION of at least 1s (e.g. 1m30s)",
                        text);
}

int cs_cron_parse(const char *text, cron_schedule *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    static const struct {
        const char *name, *fields;
    } descriptors[] = {{"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
                       {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
                       {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
                       {"@hourly", "0 * * * *"}};
    const char *spec = text;
    if (strncmp(text, "@every ", 7) == 0) return parse_every(text + 7, out, err, text);
    for (size_t i = 0; i < sizeof descriptors / sizeof descriptors[0]; i++)
        if (strcmp(text, descriptors[i].name) == 0) spec = descriptors[i].fields;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL, *tok = strtok_r(buf, " \t", &save);
    uint64_t bits[5];
    bool any[5];
    int n = 0;
    for (; tok; tok = strtok_r(NULL, " \t", &save), n++) {
        if (n == 5 || field(&fields[n], tok, &bits[n], &any[n]) < 0) {
            if (n == 5) break;
            return cs_error_set(err, CS_EINVAL,
                                "spec.schedule '%s': invalid %s field '%s' (expected *, a value "
                                "from %d to %d, a list, a range or a step)",
                                text, fields[n].name, tok, fields[n].lo, fields[n].hi);
        }
    }
    if (n != 5)
        return cs_error_set(err, CS_EINVAL,
                            "spec.schedule '%s': expected five fields (minute hour day-of-month "
                            "month day-of-week), a descriptor such as @hourly, or @every DURATION",
                            text);
    out->minutes = bits[0];
    out->hours = (uint32_t)bits[1];
    out->days = (uint32_t)bits[2];
    out->months = (uint16_t)bits[3];
    out->weekdays = (uint8_t)((bits[4] | (bits[4] >> 7)) & 0x7f); /* 7 is Sunday */
    out->dom_any = any[2];
    out->dow_any = any[4];
    return 0;
}

static bool day_matches(const cron_schedule *s, const struct tm *tm)
{
    bool dom = s->days >> tm->tm_mday & 1, dow = s->weekdays >> tm->tm_wday & 1;
    if (s->dom_any || s->dow_any) return dom && dow;
    return dom || dow; /* cron: both restricted, either day runs */
}

int64_t cs_cron_next(const cron_schedule *s, int64_t after_ms)
{
    if (s->every_ms) return after_ms + s->every_ms;
    time_t t = (time_t)(after_ms / 1000 / 60 + 1) * 60; /* the next whole minute */
    time_t limit = t + (time_t)5 * 366 * 86400;
    while (t < limit) {
        struct tm tm;
        gmtime_r(&t, &tm);
        if (!(s->months >> (tm.tm_mon + 1) & 1) || !day_matches(s, &tm)) {
            t += 86400 - (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec); /* next day */
            continue;
        }
        if (!(s->hours >> tm.tm_hour & 1)) {
            t += 3600 - (tm.tm_min * 60 + tm.tm_sec);
            continue;
        }
        if (s->minutes >> tm.tm_min & 1) return (int64_t)t * 1000;
        t += 60;
    }
    return -1;
}
