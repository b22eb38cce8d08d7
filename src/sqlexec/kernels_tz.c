/*
 * kernels_tz.c — time zones for the datetime kernels: Spark's zone ids (IANA region names
 * such as "America/New_York", "UTC"/"GMT"/"Z", fixed offsets "+08:00", "GMT+8", "UTC-03:30")
 * resolved against the system's tz database (the TZif files of Debian's tzdata under
 * /usr/share/zoneinfo, or $TZDIR) and cached for the life of the process.
 *
 * Why not localtime_r with TZ: TZ is process-wide state (setenv + tzset race with every other
 * thread), and a task may run several session zones at once. A zone here is an immutable table
 * read once: the TZif v2+ 64-bit transitions and offsets, plus the file's POSIX TZ footer
 * ("EST5EDT,M3.2.0,M11.1.0") for instants after the last transition. Lookups are a binary
 * search, safe from any thread; the cache is guarded by a mutex taken once per kernel call
 * (per batch), never per row.
 *
 * Local to UTC follows java.time's ZonedDateTime.of as Spark does: in an overlap the earlier
 * offset (the one before the transition), in a gap the offset before the gap (the local time
 * moves forward by the gap's length).
 *
 * Called by kernels_datetime.c, kernels_cast.c and kernels_zone.c through pexpr_internal.h.
 * Ownership: zones belong to the cache and are never freed.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

/* POSIX TZ rule "Mm.w.d/time": month 1..12, week 1..5 (5 = last), weekday 0 = Sunday */
typedef struct tz_rule {
    int month, week, wday;
    int32_t secs; /* local time of the change, seconds after midnight */
} tz_rule;

struct cs_px_zone {
    char *id;
    int64_t *at;        /* transition instants, UTC seconds, ascending */
    int32_t *off_after; /* the offset in force from at[i] on */
    int n;
    int32_t first_off; /* before the first transition */
    bool has_footer, footer_dst;
    int32_t std_off, dst_off; /* seconds east of UTC */
    tz_rule start, end;
    cs_px_zone *next; /* the cache's list */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_px_zone *cache;

static const cs_px_zone *fixed_zone(const char *id, int32_t off)
{
    cs_px_zone *z = cs_xcalloc(1, sizeof *z);
    z->id = cs_xstrdup(id);
    z->first_off = off;
    return z;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* [+-]hh[:mm[:ss]] (POSIX: hours may be one digit); returns chars used, 0 when none */
static int parse_hms(const char *s, int32_t *secs)
{
    const char *p = s;
    int sign = 1;
    if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*p)) return 0;
    int32_t h = 0, m = 0, sec = 0;
    while (isdigit((unsigned char)*p))
        h = h * 10 + (*p++ - '0');
    if (*p == ':' && isdigit((unsigned char)p[1])) {
        p++;
        while (isdigit((unsigned char)*p))
            m = m * 10 + (*p++ - '0');
        if (*p == ':' && isdigit((unsigned char)p[1])) {
            p++;
            while (isdigit((unsigned char)*p))
                sec = sec * 10 + (*p++ - '0');
        }
    }
    *secs = sign * (h * 3600 + m * 60 + sec);
    return (int)(p - s);
}

static const char *skip_name(const char *p)
{
    if (*p == '<') {
        while (*p && *p != '>')
            p++;
        return *p ? p + 1 : p;
    }
    while (isalpha((unsigned char)*p))
        p++;
    return p;
}

static const char *parse_rule(const char *p, tz_rule *r)
{
    if (*p != 'M') return NULL; /* the Jn and n forms: not in the tz database's footers */
    if (sscanf(p, "M%d.%d.%d", &r->month, &r->week, &r->wday) != 3) return NULL;
    p++;
    while (isdigit((unsigned char)*p) || *p == '.')
        p++;
    r->secs = 7200;
    if (*p == '/') {
        int used = parse_hms(p + 1, &r->secs);
        if (!used) return NULL;
        p += 1 + used;
    }
    return p;
}

/* The TZif footer: std offset [dst [offset] ,rule,rule]; POSIX offsets are west-positive. */
static void parse_footer(cs_px_zone *z, const char *s)
{
    const char *p = skip_name(s);
    int32_t west = 0;
    int used = parse_hms(p, &west);
    if (p == s || !used) return;
    p += used;
    z->std_off = -west;
    z->has_footer = true;
    if (!*p) return;
    const char *q = skip_name(p);
    if (q == p) return;
    p = q;
    z->dst_off = z->std_off + 3600;
    if ((used = parse_hms(p, &west)) > 0) {
        z->dst_off = -west;
        p += used;
    }
    if (*p != ',' || !(p = parse_rule(p + 1, &z->start)) || *p != ',' ||
        !(p = parse_rule(p + 1, &z->end))) {
        z->has_footer = false;
        return;
    }
    z->footer_dst = true;
}

static cs_px_zone *read_tzif(const char *id, const uint8_t *b, size_t len)
{
    if (len < 44 || memcmp(b, "TZif", 4) != 0) return NULL;
    uint32_t c[6];
    for (int i = 0; i < 6; i++)
        c[i] = be32(b + 20 + 4 * i);
    size_t v1 = (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    const uint8_t *h = b + 44 + v1;
    bool v2 = b[4] >= '2';
    int tsize = 4;
    if (v2) {
        if ((size_t)(h - b) + 44 > len || memcmp(h, "TZif", 4) != 0) return NULL;
        for (int i = 0; i < 6; i++)
            c[i] = be32(h + 20 + 4 * i);
        h += 44;
        tsize = 8;
    } else {
        h = b + 44;
    }
    uint32_t isutcnt = c[0], isstdcnt = c[1], leapcnt = c[2], timecnt = c[3], typecnt = c[4],
             charcnt = c[5];
    size_t need = (size_t)timecnt * (size_t)(tsize + 1) + (size_t)typecnt * 6 + charcnt +
                  (size_t)leapcnt * (size_t)(tsize + 4) + isstdcnt + isutcnt;
    if (typecnt == 0 || (size_t)(h - b) + need > len) return NULL;
    const uint8_t *times = h, *idx = h + (size_t)timecnt * (size_t)tsize, *types = idx + timecnt;
    cs_px_zone *z = cs_xcalloc(1, sizeof *z);
    z->id = cs_xstrdup(id);
    z->n = (int)timecnt;
    z->at = cs_xmalloc(sizeof *z->at * (timecnt ? timecnt : 1));
    z->off_after = cs_xmalloc(sizeof *z->off_after * (timecnt ? timecnt : 1));
    for (uint32_t i = 0; i < timecnt; i++) {
        z->at[i] = tsize == 8 ? be64(times + 8 * i) : (int32_t)be32(times + 4 * i);
        uint8_t t = idx[i] < typecnt ? idx[i] : 0;
        z->off_after[i] = (int32_t)be32(types + 6 * t);
    }
    /* before the first transition: the first standard-time type (RFC 8536 3.2) */
    z->first_off = (int32_t)be32(types);
    for (uint32_t t = 0; t < typecnt; t++)
        if (!types[6 * t + 4]) {
            z->first_off = (int32_t)be32(types + 6 * t);
            break;
        }
    const uint8_t *end = h + need;
    if (v2 && end < b + len && *end == '\n') {
        const uint8_t *nl = memchr(end + 1, '\n', (size_t)(b + len - end - 1));
        if (nl) {
            char footer[128];
            size_t fl = (size_t)(nl - end - 1);
            if (fl < sizeof footer) {
                memcpy(footer, end + 1, fl);
                footer[fl] = '\0';
                parse_footer(z, footer);
            }
        }
    }
    return z;
}

static bool region_id_ok(const char *id)
{
    if (!*id || *id == '/' || strstr(id, "..")) return false;
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("/_-+", *p)) return false;
    return true;
}

static cs_px_zone *load_region(const char *id)
{
    if (!region_id_ok(id)) return NULL;
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", id);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) buf = cs_xrealloc(buf, cap = cap ? cap * 2 : 8192);
        size_t got = fread(buf + len, 1, cap - len, f);
        if (!got) break;
        len += got;
    }
    fclose(f);
    cs_px_zone *z = read_tzif(id, buf, len);
    free(buf);
    return z;
}

/* "+08:00", "-3", "+0530": seconds east, or false */
static bool parse_offset_id(const char *s, int32_t *off)
{
    if (*s != '+' && *s != '-') return false;
    int sign = *s == '-' ? -1 : 1;
    const char *p = s + 1;
    int digits = 0;
    int32_t h = 0, m = 0, sec = 0;
    while (isdigit((unsigned char)p[digits]))
        digits++;
    if (digits == 1 || digits == 2) {
        h = (int32_t)strtol(p, NULL, 10);
        p += digits;
        if (*p == ':') {
            if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2])) return false;
            m = (p[1] - '0') * 10 + (p[2] - '0');
            p += 3;
            if (*p == ':') {
                if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2])) return false;
                sec = (p[1] - '0') * 10 + (p[2] - '0');
                p += 3;
            }
        }
    } else if (digits == 4 || digits == 6) {
        h = (p[0] - '0') * 10 + (p[1] - '0');
        m = (p[2] - '0') * 10 + (p[3] - '0');
        if (digits == 6) sec = (p[4] - '0') * 10 + (p[5] - '0');
        p += digits;
    } else {
        return false;
    }
    if (*p || h > 18 || m > 59 || sec > 59) return false;
    *off = sign * (h * 3600 + m * 60 + sec);
    return *off >= -18 * 3600 && *off <= 18 * 3600;
}

static cs_px_zone *make_zone(const char *id)
{
    int32_t off = 0;
    if (strcmp(id, "Z") == 0 || strcmp(id, "UTC") == 0 || strcmp(id, "GMT") == 0 ||
        strcmp(id, "UT") == 0)
        return (cs_px_zone *)fixed_zone(id, 0);
    if (parse_offset_id(id, &off)) return (cs_px_zone *)fixed_zone(id, off);
    const char *prefixes[] = {"UTC", "GMT", "UT"};
    for (int i = 0; i < 3; i++) {
        size_t pl = strlen(prefixes[i]);
        if (strncmp(id, prefixes[i], pl) == 0 && (id[pl] == '+' || id[pl] == '-') &&
            parse_offset_id(id + pl, &off))
            return (cs_px_zone *)fixed_zone(id, off);
    }
    return load_region(id);
}

const cs_px_zone *cs_px_zone_get(const char *id, size_t len)
{
    char name[128];
    if (!id || len == 0 || len >= sizeof name) return NULL;
    memcpy(name, id, len);
    name[len] = '\0';
    pthread_mutex_lock(&cache_lock);
    cs_px_zone *z = cache;
    while (z && strcmp(z->id, name) != 0)
        z = z->next;
    if (!z && (z = make_zone(name)) != NULL) {
        z->next = cache;
        cache = z;
    }
    pthread_mutex_unlock(&cache_lock);
    return z;
}

/* Days since the epoch of the rule's day in `year` */
static int64_t rule_day(const tz_rule *r, int64_t year)
{
    int64_t first = cs_tv_days_from_civil(year, r->month, 1);
    int wday_first = (int)(((first % 7) + 11) % 7); /* 1970-01-01 was a Thursday (4) */
    int64_t d = first + ((r->wday - wday_first + 7) % 7) + 7 * (r->week - 1);
    int next_month = r->month == 12 ? 1 : r->month + 1;
    int64_t month_end = cs_tv_days_from_civil(r->month == 12 ? year + 1 : year, next_month, 1);
    while (d >= month_end)
        d -= 7;
    return d;
}

static int32_t footer_offset(const cs_px_zone *z, int64_t utc)
{
    if (!z->footer_dst) return z->std_off;
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(utc / 86400 - (utc % 86400 < 0), &y, &m, &d);
    /* start: local standard time; end: local daylight time (POSIX) */
    int64_t start = rule_day(&z->start, y) * 86400 + z->start.secs - z->std_off;
    int64_t end = rule_day(&z->end, y) * 86400 + z->end.secs - z->dst_off;
    bool dst = start < end ? (utc >= start && utc < end) : !(utc >= end && utc < start);
    return dst ? z->dst_off : z->std_off;
}

int32_t cs_px_zone_offset(const cs_px_zone *z, int64_t utc_seconds)
{
    if (z->n == 0) return z->has_footer ? footer_offset(z, utc_seconds) : z->first_off;
    if (utc_seconds < z->at[0]) return z->first_off;
    if (utc_seconds >= z->at[z->n - 1] && z->has_footer) return footer_offset(z, utc_seconds);
    int lo = 0, hi = z->n - 1; /* the last transition <= utc_seconds */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (z->at[mid] <= utc_seconds)
            lo = mid;
        else
            hi = mid - 1;
    }
    return z->off_after[lo];
}

int64_t cs_px_zone_local_to_utc(const cs_px_zone *z, int64_t local_seconds)
{
    int32_t before = cs_px_zone_offset(z, local_seconds - 86400);
    int32_t after = cs_px_zone_offset(z, local_seconds + 86400);
    if (before == after) {
        int32_t o = cs_px_zone_offset(z, local_seconds - before);
        return local_seconds - (cs_px_zone_offset(z, local_seconds - o) == o ? o : before);
    }
    if (cs_px_zone_offset(z, local_seconds - before) == before) return local_seconds - before;
    if (cs_px_zone_offset(z, local_seconds - after) == after) return local_seconds - after;
    return local_seconds - before; /* a gap: forward by its length */
}

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

int64_t cs_px_zone_utc_to_local_us(const cs_px_zone *z, int64_t utc_us)
{
    return utc_us + (int64_t)cs_px_zone_offset(z, floor_div(utc_us, 1000000)) * 1000000;
}

int64_t cs_px_zone_local_to_utc_us(const cs_px_zone *z, int64_t local_us)
{
    int64_t secs = floor_div(local_us, 1000000);
    return cs_px_zone_local_to_utc(z, secs) * 1000000 + (local_us - secs * 1000000);
}

int cs_px_err_invalid_zone(cs_error *err, const char *id, size_t len)
{
    return cs_sql_error_set(err, CS_EINVAL, "INVALID_TIMEZONE", "22009",
                            "The timezone: %.*s is invalid. The timezone must be either a region-"
                            "based zone ID or a zone offset. Region IDs must have the form "
                            "'area/city', such as 'America/Los_Angeles'. Zone offsets must be in "
                            "the format '(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', e.g '-08', "
                            "'+01:00' or '-13:33:33', and must be in the range from -18:00 to "
                            "+18:00. 'Z' and 'UTC' are accepted as synonyms for '+00:00'.",
                            (int)len, id);
}

const cs_px_zone *cs_px_session_zone(const cs_px_kctx *k)
{
    const char *id = k->ctx && k->ctx->session_tz ? k->ctx->session_tz : "UTC";
    const cs_px_zone *z = cs_px_zone_get(id, strlen(id));
    if (!z) cs_px_err_invalid_zone(k->err, id, strlen(id));
    return z;
}
