/* log.h — one-line structured logging to stderr.
 *
 * Every event is ONE line: `INFO 2026-11-21T07:30:00.123Z scheduler job=1 stage=2 text\n`
 * (level name, ISO-8601 UTC time with milliseconds, the component name, then the caller's
 * formatted `key=value ...` text, single spaces between fields). Each line is emitted with a
 * single write(2) on fd 2, so lines from concurrent threads and processes never interleave.
 * Newlines and tabs inside the caller's text become spaces, so one call is always one line;
 * other control bytes (ESC, ...) and bytes that are not valid UTF-8 are written as \xHH.
 * A value that may contain spaces, quotes or anything a user chose (an application name, a path,
 * an error message) is logged with cs_log_quote: `CS_INFO("context", "name=%s", cs_log_quote(n))`
 * gives `name="my \"app\""`, so every line stays parseable as key=value fields; cs_log_value
 * quotes only when the value is not a plain token (ids, paths).
 *
 * The threshold comes from the environment variable CSPARK_LOG_LEVEL (DEBUG, INFO, WARN, ERROR;
 * case-insensitive; default INFO), read on first use, and may be changed at any time with
 * cs_log_set_level() (cspark-submit applies the conf key cspark.log.level this way).
 * The CS_DEBUG/CS_INFO/CS_WARN/CS_ERROR macros skip argument evaluation and formatting when
 * the level is disabled. Called by every component; no ownership to manage.
 */
#ifndef CSPARK_COMMON_LOG_H
#define CSPARK_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "common/clock.h"

typedef enum { CS_LOG_DEBUG, CS_LOG_INFO, CS_LOG_WARN, CS_LOG_ERROR } cs_log_level;

void cs_log(cs_log_level lvl, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cs_logv(cs_log_level lvl, const char *component, const char *fmt, va_list ap);

/* `s` as a double-quoted log value: '"' and '\\' escaped with a backslash, at most ~1 KiB
 * (longer values end in "..."), "(null)" for NULL. The result lives in a small per-thread ring:
 * valid for the next 7 calls on this thread, so use it directly in a log call's arguments. */
const char *cs_log_quote(const char *s);
/* `s` as a log value: as it is when it is a plain token (printable ASCII other than space, '"',
 * '\\' and '='; not empty), else as cs_log_quote gives it. For ids, names and paths that are
 * usually plain (`app=local-1 path=/tmp/x`) but come from the user. Same ring as cs_log_quote. */
const char *cs_log_value(const char *s);

/* Writes "PROGRAM: message\n" to stderr with one write(2), escaped as log lines are (newlines
 * and tabs become spaces, other control bytes and invalid UTF-8 \xHH): a user's error line
 * stays one line of printable text whatever bytes the value it names holds. */
void cs_log_user_error(const char *program, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The process is ending after a fatal report whose line must stay the last: every later log line
 * is dropped, and a line another thread is writing is waited for (50 ms at most).
 * Async-signal-safe (atomics and nanosleep). */
void cs_log_stop(void);

void cs_log_set_level(cs_log_level lvl);
cs_log_level cs_log_get_level(void);
/* True if a message at `lvl` would be printed. */
bool cs_log_enabled(cs_log_level lvl);
/* Parses "DEBUG"/"INFO"/"WARN"/"WARNING"/"ERROR" (case-insensitive); 0 on success, CS_EINVAL
 * otherwise. */
int cs_log_parse_level(const char *s, cs_log_level *out);
/* Formats one complete line (with trailing '\n') into buf as cs_log would; for tests and for
 * callers that log to other sinks. Returns the line length (truncated lines still end in '\n'). */
int cs_log_format(char *buf, int cap, cs_log_level lvl, int64_t time_ms, const char *component,
                  const char *fmt, va_list ap);

#define CS_LOG_AT(lvl, comp, ...)                                                                  \
    do {                                                                                           \
        if (cs_log_enabled(lvl)) cs_log((lvl), (comp), __VA_ARGS__);                               \
    } while (0)
#define CS_DEBUG(comp, ...) CS_LOG_AT(CS_LOG_DEBUG, comp, __VA_ARGS__)
#define CS_INFO(comp, ...) CS_LOG_AT(CS_LOG_INFO, comp, __VA_ARGS__)
#define CS_WARN(comp, ...) CS_LOG_AT(CS_LOG_WARN, comp, __VA_ARGS__)
#define CS_ERROR(comp, ...) CS_LOG_AT(CS_LOG_ERROR, comp, __VA_ARGS__)

#endif /* CSPARK_COMMON_LOG_H */
