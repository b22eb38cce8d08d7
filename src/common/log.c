/* log.c — the one-line stderr logger and the clock helpers (log.h, clock.h).
 *
 * Every component logs through cs_log/CS_INFO etc. A line is formatted into a stack buffer and
 * emitted with one write(2) so concurrent writers never interleave (POSIX guarantees atomicity
 * for pipes up to PIPE_BUF; for files opened O_APPEND and terminals a single write is not split
 * in practice). The formatted text is escaped on its way into the line (escape_text): a value
 * can never start a new line, move the terminal's cursor (ESC) or put invalid UTF-8 into a log
 * collector; values that may hold spaces or quotes go through cs_log_quote. The level threshold is
 * a process-wide atomic, initialised lazily from CSPARK_LOG_LEVEL; no locks are taken.
 */
#include "common/log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/sync.h"

#define LOG_LINE_MAX 8192
#define LOG_QUOTE_SLOTS 8
#define LOG_QUOTE_MAX 1024

/* -1: not yet initialised from the environment. */
static atomic_int log_level = -1;

int64_t cs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t cs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t cs_mono_ms(void)
{
    return cs_now_ns() / 1000000;
}

int cs_log_parse_level(const char *s, cs_log_level *out)
{
    if (!s) return CS_EINVAL;
    static const struct {
        const char *name;
        cs_log_level lvl;
    } names[] = {{"DEBUG", CS_LOG_DEBUG},
                 {"INFO", CS_LOG_INFO},
                 {"WARN", CS_LOG_WARN},
                 {"WARNING", CS_LOG_WARN},
                 {"ERROR", CS_LOG_ERROR}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].lvl;
            return CS_OK;
        }
    }
    return CS_EINVAL;
}

static int level_now(void)
{
    int l = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (l >= 0) return l;
    cs_log_level env = CS_LOG_INFO;
    const char *s = getenv("CSPARK_LOG_LEVEL");
    if (s && *s && cs_log_parse_level(s, &env) != CS_OK) env = CS_LOG_INFO;
    int expected = -1;
    atomic_compare_exchange_strong(&log_level, &expected, (int)env);
    return atomic_load(&log_level);
}

void cs_log_set_level(cs_log_level lvl)
{
    atomic_store(&log_level, (int)lvl);
}

cs_log_level cs_log_get_level(void)
{
    return (cs_log_level)level_now();
}

bool cs_log_enabled(cs_log_level lvl)
{
    return (int)lvl >= level_now();
}

static const char *level_name(cs_log_level lvl)
{
    switch (lvl) {
    case CS_LOG_DEBUG:
        return "DEBUG";
    case CS_LOG_INFO:
        return "INFO";
    case CS_LOG_WARN:
        return "WARN";
    case CS_LOG_ERROR:
        return "ERROR";
    }
    return "INFO";
}

/* Length of the valid UTF-8 sequence (2-4 bytes) at p, or 0 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
static size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (avail < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return len;
}

/* Copies text into out (at most cap bytes), keeping the line one line of printable text:
 * newlines, carriage returns and tabs become spaces, other control bytes and bytes that are not
 * valid UTF-8 become \xHH. Returns the bytes written; a sequence that does not fit is dropped. */
static int escape_text(char *out, int cap, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    int n = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7F) { /* a run of printable ASCII, the usual whole line */
            size_t run = 1;
            while (i + run < len && p[i + run] >= 0x20 && p[i + run] < 0x7F)
                run++;
            if (run > (size_t)(cap - n)) run = (size_t)(cap - n);
            if (run == 0) break;
            memcpy(out + n, p + i, run);
            n += (int)run;
            i += run;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            if (n + 1 > cap) break;
            out[n++] = ' ';
            i++;
        } else if (c >= 0x80 && utf8_seq_len(p + i, len - i)) {
            size_t k = utf8_seq_len(p + i, len - i);
            if (n + (int)k > cap) break;
            memcpy(out + n, p + i, k);
            n += (int)k;
            i += k;
        } else {
            if (n + 4 > cap) break;
            static const char hex[] = "0123456789abcdef";
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
            i++;
        }
    }
    return n;
}

const char *cs_log_value(const char *s)
{
    if (!s || !*s) return cs_log_quote(s);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\\' || *p == '=') return cs_log_quote(s);
    return s;
}

const char *cs_log_quote(const char *s)
{
    /* A few slots per thread, so one log call may quote several values. */
    static _Thread_local char ring[LOG_QUOTE_SLOTS][LOG_QUOTE_MAX];
    static _Thread_local unsigned next;
    char *out = ring[next++ % LOG_QUOTE_SLOTS];
    if (!s) {
        strcpy(out, "(null)");
        return out;
    }
    size_t n = 0, cap = LOG_QUOTE_MAX - 5; /* room for '"', "...", '"' and NUL */
    out[n++] = '"';
    bool cut = false;
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            if (n + 2 > cap) {
                cut = true;
                break;
            }
            out[n++] = '\\';
            out[n++] = *p;
        } else {
            if (n + 1 > cap) {
                cut = true;
                break;
            }
            out[n++] = *p; /* control and non-UTF-8 bytes are escaped by the line formatter */
        }
    }
    if (cut) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n++] = '"';
    out[n] = '\0';
    return out;
}

/* "YYYY-MM-DDTHH:MM:SS" of a UTC second into out; returns its length. Each thread keeps the last
 * second it formatted: lines come many to a second, and gmtime plus six %02d cost more than the
 * rest of a line. */
static size_t format_second(int64_t secs, char out[64])
{
    static _Thread_local int64_t cached_secs = INT64_MIN;
    static _Thread_local char cached[64];
    static _Thread_local size_t cached_len;
    if (secs != cached_secs) {
        time_t t = (time_t)secs;
        struct tm tm;
        gmtime_r(&t, &tm);
        int len =
            snprintf(cached, sizeof cached, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        cached_len = len > 0 ? (size_t)len : 0;
        cached_secs = secs;
    }
    memcpy(out, cached, cached_len + 1);
    return cached_len;
}

int cs_log_format(char *buf, int cap, cs_log_level lvl, int64_t time_ms, const char *component,
                  const char *fmt, va_list ap)
{
    if (cap < 2) return 0;
    int64_t secs = time_ms / 1000;
    int ms = (int)(time_ms % 1000);
    if (ms < 0) {
        ms += 1000;
        secs -= 1;
    }
    char second[64];
    size_t second_len = format_second(secs, second);
    const char *level = level_name(lvl), *comp = component && *component ? component : "-";
    size_t level_len = strlen(level), comp_len = strlen(comp);
    int n;
    if (level_len + second_len + comp_len + 7 <=
        (size_t)cap - 2) { /* "LEVEL <second>.mmmZ comp " */
        char *p = buf;
        memcpy(p, level, level_len);
        p += level_len;
        *p++ = ' ';
        memcpy(p, second, second_len);
        p += second_len;
        *p++ = '.';
        *p++ = (char)('0' + ms / 100);
        *p++ = (char)('0' + ms / 10 % 10);
        *p++ = (char)('0' + ms % 10);
        *p++ = 'Z';
        *p++ = ' ';
        memcpy(p, comp, comp_len);
        p += comp_len;
        *p++ = ' ';
        *p = '\0';
        n = (int)(p - buf);
    } else {
        n = snprintf(buf, (size_t)cap, "%s %s.%03dZ %s ", level, second, ms, comp);
    }
    if (n < 0) n = 0;
    if (n > cap - 2) n = cap - 2;
    int start = n;
    char text[LOG_LINE_MAX];
    int m = vsnprintf(text, sizeof text, fmt, ap);
    if (m < 0) m = 0;
    if (m > (int)sizeof text - 1) m = (int)sizeof text - 1;
    n += escape_text(buf + n, cap - 2 - n, text, (size_t)m);
    /* A message with no text leaves a trailing space after the component: drop it. */
    if (n > 0 && buf[n - 1] == ' ' && n == start) n--;
    buf[n++] = '\n';
    buf[n] = '\0';
    return n;
}

/* Lines being formatted or written now: cs_log_stop waits for them, so none lands after the
 * line it protects. */
static atomic_int lines_in_flight;

void cs_logv(cs_log_level lvl, const char *component, const char *fmt, va_list ap)
{
    atomic_fetch_add(&lines_in_flight, 1);
    if (!cs_log_enabled(lvl)) {
        atomic_fetch_sub(&lines_in_flight, 1);
        return;
    }
    int saved = errno;
    char buf[LOG_LINE_MAX];
    int n = cs_log_format(buf, sizeof buf, lvl, cs_now_ms(), component, fmt, ap);
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, p, (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        p += w;
        n -= (int)w;
    }
    atomic_fetch_sub(&lines_in_flight, 1);
    errno = saved;
}

void cs_log(cs_log_level lvl, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cs_logv(lvl, component, fmt, ap);
    va_end(ap);
}

void cs_log_user_error(const char *program, const char *fmt, ...)
{
    char msg[LOG_LINE_MAX], line[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m < 0) return;
    size_t mlen = (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1;
    int n = snprintf(line, sizeof line, "%s: ", program);
    if (n < 0 || n >= (int)sizeof line - 1) n = 0;
    n += escape_text(line + n, (int)sizeof line - 1 - n, msg, mlen);
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void cs_log_stop(void)
{
    atomic_store(&log_level, CS_LOG_ERROR + 1);
    /* a line another thread had begun before the stop is let out first (50 ms at most: the
     * caller may itself be inside a line, a crash in the logger) */
    cs_wait_while_positive(&lines_in_flight, 50);
}
