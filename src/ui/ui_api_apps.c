/* ui_api_apps.c — the REST endpoints answered from the provider's listing rather than one store
 * (see ui_api.h): /applications with Spark's filters and /applications/<id>/logs.
 *
 * /applications takes Spark's status (repeated; completed or running), minDate, maxDate,
 * minEndDate, maxEndDate and limit. A date is parsed as Spark's SimpleDateParam: first as
 * yyyy-MM-dd'T'HH:mm:ss.SSSz (z: GMT, UTC, GMT+hh:mm or +hhmm), else as yyyy-MM-dd in GMT
 * (text after the day is ignored, as SimpleDateFormat's lenient parse does), else 400
 * "Couldn't parse date: <value>". As Spark's ApplicationListResource, an application is kept
 * when its start lies in [minDate, maxDate] (defaults 2010-01-01 and 3000-01-01) and it either
 * completed with its end in [minEndDate, maxEndDate] or is running while maxEndDate is in the
 * future.
 *
 * /logs: a zip (libarchive) of the application's event log as Spark's
 * EventLogFileReader.zipEventLogFiles writes it: a single log as one entry named after the file,
 * a rolled log's directory as "<dir>/" and "<dir>/<file>" for each of its files. Only the
 * history server knows the logs; the live UI answers an empty zip, as Spark's SparkUI does.
 * Called by ui_server.c on a server thread; no state.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/strutil.h"
#include "ui/ui_api.h"
#include "ui/ui_server.h"

/* ---- dates -------------------------------------------------------------------------------- */

/* Digits at *p as SimpleDateFormat reads a number field (any count); false if none. */
static bool number(const char **p, long *v)
{
    const char *s = *p;
    long n = 0;
    if (*s < '0' || *s > '9') return false;
    for (; *s >= '0' && *s <= '9'; s++)
        if (n < 100000000) n = n * 10 + (*s - '0');
    *v = n;
    *p = s;
    return true;
}

static bool literal(const char **p, char c)
{
    if (**p != c) return false;
    (*p)++;
    return true;
}

/* A general or RFC 822 time zone at p (SimpleDateFormat's 'z'): its offset east of GMT. */
static bool zone(const char *p, long *offset_s)
{
    if (strncmp(p, "GMT", 3) == 0 || strncmp(p, "UTC", 3) == 0) {
        p += 3;
        if (*p == '\0') {
            *offset_s = 0;
            return true;
        }
    }
    int sign = *p == '+' ? 1 : *p == '-' ? -1 : 0;
    if (!sign) return false;
    p++;
    const char *start = p;
    long h, m = 0;
    if (!number(&p, &h)) return false;
    if (*p == ':') {
        p++;
        if (!number(&p, &m)) return false;
    } else if (p - start == 4) { /* hhmm */
        m = h % 100;
        h /= 100;
    }
    if (h > 23 || m > 59) return false;
    *offset_s = sign * (h * 3600 + m * 60);
    return true;
}

/* Days, hours, ... out of range carry into the next field, as the lenient calendar does. */
static int64_t utc_ms(long y, long mo, long d, long h, long mi, long s, long ms)
{
    struct tm tm = {.tm_year = (int)(y - 1900),
                    .tm_mon = (int)(mo - 1),
                    .tm_mday = (int)d,
                    .tm_hour = (int)h,
                    .tm_min = (int)mi,
                    .tm_sec = (int)s};
    return (int64_t)timegm(&tm) * 1000 + ms;
}

bool cs_ui_api_parse_date(const char *text, int64_t *ms)
{
    const char *p = text;
    long y, mo, d, h, mi, s, frac, off;
    if (!number(&p, &y) || !literal(&p, '-') || !number(&p, &mo) || !literal(&p, '-') ||
        !number(&p, &d))
        return false;
    if (literal(&p, 'T') && number(&p, &h) && literal(&p, ':') && number(&p, &mi) &&
        literal(&p, ':') && number(&p, &s) && literal(&p, '.') && number(&p, &frac) &&
        zone(p, &off)) {
        *ms = utc_ms(y, mo, d, h, mi, s, frac) - (int64_t)off * 1000;
        return true;
    }
    /* else the day format, which reads the prefix and ignores the rest */
    *ms = utc_ms(y, mo, d, 0, 0, 0, 0);
    return true;
}

/* ---- /applications ------------------------------------------------------------------------ */

static bool date_arg(ui_arg_fn arg, void *ctx, const char *name, const char *dflt, int64_t *ms,
                     cs_sbuf *err)
{
    const char *v = arg(ctx, name, 0);
    if (!v) v = dflt;
    if (cs_ui_api_parse_date(v, ms)) return true;
    cs_sbuf_printf(err, "Couldn't parse date: %s\n", v);
    return false;
}

int cs_ui_api_app_list(const ui_app_entry *apps, size_t n, ui_arg_fn arg, void *ctx, int64_t now_ms,
                       cs_sbuf *out)
{
    int64_t min_start, max_start, min_end, max_end;
    if (!date_arg(arg, ctx, "minDate", "2010-01-01", &min_start, out) ||
        !date_arg(arg, ctx, "maxDate", "3000-01-01", &max_start, out) ||
        !date_arg(arg, ctx, "minEndDate", "2010-01-01", &min_end, out) ||
        !date_arg(arg, ctx, "maxEndDate", "3000-01-01", &max_end, out))
        return 400;
    long limit = -1;
    const char *l = arg(ctx, "limit", 0);
    if (l) {
        char *end;
        limit = strtol(l, &end, 10);
        if (*l == '\0' || *end || limit < 0 || limit > INT_MAX) {
            cs_sbuf_puts(out, "the query parameter limit must be a number >= 0\n");
            return 400;
        }
    }
    bool want_completed = true, want_running = true;
    if (arg(ctx, "status", 0)) {
        want_completed = want_running = false;
        for (int i = 0; arg(ctx, "status", i); i++) {
            want_completed |= cs_str_ieq(arg(ctx, "status", i), "completed");
            want_running |= cs_str_ieq(arg(ctx, "status", i), "running");
        }
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n && (limit < 0 || (long)json_array_size(a) < limit); i++) {
        const ui_app_entry *e = &apps[i];
        bool running = !e->completed;
        bool start_ok = e->start_ms >= min_start && e->start_ms <= max_start;
        bool end_ok = running ? max_end > now_ms : e->end_ms >= min_end && e->end_ms <= max_end;
        if (!(running ? want_running : want_completed) || !start_ok || !end_ok) continue;
        json_array_append_new(a, cs_ui_api_application_info(e->id, e->name, e->user, e->version,
                                                            e->start_ms, e->end_ms,
                                                            e->last_updated_ms, e->completed));
    }
    cs_ui_api_dump(a, out);
    return 200;
}

/* ---- /logs -------------------------------------------------------------------------------- */

static la_ssize_t to_sbuf(struct archive *a, void *arg, const void *p, size_t n)
{
    (void)a;
    cs_sbuf_append(arg, p, n);
    return (la_ssize_t)n;
}

static bool add_file(struct archive *z, const char *path, const char *entry_name)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    struct stat st;
    bool ok = fstat(fileno(f), &st) == 0;
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, entry_name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, ok ? st.st_size : 0);
    archive_entry_set_mtime(e, ok ? st.st_mtime : 0, 0);
    ok = ok && archive_write_header(z, e) == ARCHIVE_OK;
    char buf[1 << 16];
    for (size_t got; ok && (got = fread(buf, 1, sizeof buf, f)) > 0;)
        ok = archive_write_data(z, buf, got) == (la_ssize_t)got;
    archive_entry_free(e);
    fclose(f);
    return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static bool add_log(struct archive *z, const char *log_path)
{
    const char *base = strrchr(log_path, '/') ? strrchr(log_path, '/') + 1 : log_path;
    struct stat st;
    if (stat(log_path, &st) != 0) return false;
    if (!S_ISDIR(st.st_mode)) return add_file(z, log_path, base);
    cs_sbuf name = CS_SBUF_INIT, path = CS_SBUF_INIT;
    cs_sbuf_printf(&name, "%s/", base);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, cs_sbuf_str(&name));
    archive_entry_set_filetype(e, AE_IFDIR);
    archive_entry_set_perm(e, 0755);
    bool ok = archive_write_header(z, e) == ARCHIVE_OK;
    archive_entry_free(e);
    struct dirent **files = NULL;
    int n = scandir(log_path, &files, NULL, by_name);
    for (int i = 0; i < n; i++) {
        if (ok && files[i]->d_name[0] != '.') {
            cs_sbuf_free(&name);
            cs_sbuf_free(&path);
            cs_sbuf_printf(&name, "%s/%s", base, files[i]->d_name);
            cs_sbuf_printf(&path, "%s/%s", log_path, files[i]->d_name);
            if (stat(cs_sbuf_str(&path), &st) == 0 && S_ISREG(st.st_mode))
                ok = add_file(z, cs_sbuf_str(&path), cs_sbuf_str(&name));
        }
        free(files[i]);
    }
    free(files);
    cs_sbuf_free(&name);
    cs_sbuf_free(&path);
    return ok && n >= 0;
}

bool cs_ui_api_event_log_zip(const char *log_path, cs_sbuf *out)
{
    struct archive *z = archive_write_new();
    bool ok = archive_write_set_format_zip(z) == ARCHIVE_OK &&
              archive_write_set_bytes_in_last_block(z, 1) == ARCHIVE_OK &&
              archive_write_open2(z, out, NULL, to_sbuf, NULL, NULL) == ARCHIVE_OK;
    if (ok && log_path) ok = add_log(z, log_path);
    ok = archive_write_close(z) == ARCHIVE_OK && ok;
    archive_write_free(z);
    return ok;
}
