/* err.c — cs_error helpers and the abort-on-OOM allocators declared in err.h.
 *
 * Called from every module. The allocators log one line through cs_log before abort() so that
 * an out-of-memory death is visible in pod logs. No state.
 */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

int cs_error_set(cs_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        err->kind = CS_KIND_NONE;
        err->http_status = 0;
        err->error_class[0] = '\0';
        err->sql_state[0] = '\0';
        err->params[0] = '\0';
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void cs_error_clear(cs_error *err)
{
    if (err) {
        err->code = CS_OK;
        err->kind = CS_KIND_NONE;
        err->http_status = 0;
        err->msg[0] = '\0';
        err->error_class[0] = '\0';
        err->sql_state[0] = '\0';
        err->params[0] = '\0';
    }
}

int cs_error_set_kind(cs_error *err, cs_error_kind kind, int http_status)
{
    if (!err) return CS_OK;
    err->kind = kind;
    err->http_status = http_status;
    return err->code;
}

const char *cs_error_kind_name(cs_error_kind kind)
{
    switch (kind) {
    case CS_KIND_NONE:
        return "";
    case CS_KIND_BAD_REQUEST:
        return "BadRequest";
    case CS_KIND_UNAUTHORIZED:
        return "Unauthorized";
    case CS_KIND_FORBIDDEN:
        return "Forbidden";
    case CS_KIND_NOT_FOUND:
        return "NotFound";
    case CS_KIND_NAMESPACE_NOT_FOUND:
        return "NamespaceNotFound";
    case CS_KIND_ALREADY_EXISTS:
        return "AlreadyExists";
    case CS_KIND_CONFLICT:
        return "Conflict";
    case CS_KIND_EXPIRED:
        return "Expired";
    case CS_KIND_INVALID:
        return "Invalid";
    case CS_KIND_TOO_MANY_REQUESTS:
        return "TooManyRequests";
    case CS_KIND_SERVER_ERROR:
        return "InternalError";
    case CS_KIND_TIMEOUT:
        return "Timeout";
    case CS_KIND_UNREACHABLE:
        return "Unreachable";
    case CS_KIND_LIMIT_REACHED:
        return "LimitReached";
    }
    return "";
}

int cs_error_prefix(cs_error *err, const char *fmt, ...)
{
    if (!err) return CS_OK;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    size_t pl = strlen(prefix);
    if (pl > sizeof err->msg - 3) pl = sizeof err->msg - 3;
    memcpy(err->msg, prefix, pl);
    memcpy(err->msg + pl, ": ", 2);
    size_t room = sizeof err->msg - pl - 3;
    size_t ol = strnlen(old, room);
    memcpy(err->msg + pl + 2, old, ol);
    err->msg[pl + 2 + ol] = '\0';
    return err->code;
}

/* Every code: its constant's name (cs_strerror) and what it means (cspark_strerror). */
static const struct {
    int code;
    const char *name, *meaning;
} CODES[] = {
    {CSPARK_OK, "OK", "success"},
    {CSPARK_EINVAL, "EINVAL", "invalid argument or configuration value"},
    {CSPARK_ENOMEM, "ENOMEM", "out of memory"},
    {CSPARK_EIO, "EIO", "input/output or network error"},
    {CSPARK_ENOTFOUND, "ENOTFOUND", "not found"},
    {CSPARK_EEXIST, "EEXIST", "already exists"},
    {CSPARK_EUNSUPPORTED, "EUNSUPPORTED", "not supported"},
    {CSPARK_ETASK, "ETASK", "a task failed too many times: the job was aborted"},
    {CSPARK_ECANCELLED, "ECANCELLED", "cancelled"},
    {CSPARK_ETIMEOUT, "ETIMEOUT", "timed out"},
    {CSPARK_EPROTO, "EPROTO", "protocol error"},
    {CSPARK_EAUTH, "EAUTH", "authentication failed or permission denied"},
};

const char *cs_strerror(int code)
{
    for (size_t i = 0; i < sizeof CODES / sizeof CODES[0]; i++)
        if (CODES[i].code == code) return CODES[i].name;
    return "EUNKNOWN";
}

const char *cspark_strerror(int code)
{
    for (size_t i = 0; i < sizeof CODES / sizeof CODES[0]; i++)
        if (CODES[i].code == code) return CODES[i].meaning;
    return "unknown error code";
}

static char memory_note[256];

void cs_memory_limit_note_set(const char *note)
{
    snprintf(memory_note, sizeof memory_note, "%s", note ? note : "");
}

const char *cs_memory_limit_note(void)
{
    return memory_note;
}

static void oom(size_t n)
{
    if (memory_note[0])
        cs_log(CS_LOG_ERROR, "alloc", "out of memory bytes=%zu limit=%s", n,
               cs_log_quote(memory_note));
    else
        cs_log(CS_LOG_ERROR, "alloc", "out of memory bytes=%zu", n);
    abort();
}

void *cs_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *cs_xcalloc(size_t n, size_t m)
{
    if (n == 0 || m == 0) n = m = 1;
    void *p = calloc(n, m);
    if (!p) oom(n * m);
    return p;
}

void *cs_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *cs_xstrdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = cs_xmalloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

char *cs_xstrndup(const char *s, size_t n)
{
    if (!s) return NULL;
    size_t k = strnlen(s, n);
    char *d = cs_xmalloc(k + 1);
    memcpy(d, s, k);
    d[k] = '\0';
    return d;
}
