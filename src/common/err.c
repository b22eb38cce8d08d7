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
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void cs_error_clear(cs_error *err)
{
    if (err) {
        err->code = CS_OK;
        err->msg[0] = '\0';
    }
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

const char *cs_strerror(int code)
{
    switch (code) {
    case CS_OK:
        return "OK";
    case CS_EINVAL:
        return "EINVAL";
    case CS_ENOMEM:
        return "ENOMEM";
    case CS_EIO:
        return "EIO";
    case CS_ENOTFOUND:
        return "ENOTFOUND";
    case CS_EEXIST:
        return "EEXIST";
    case CS_EUNSUPPORTED:
        return "EUNSUPPORTED";
    case CS_ETASK:
        return "ETASK";
    case CS_ECANCELLED:
        return "ECANCELLED";
    case CS_ETIMEOUT:
        return "ETIMEOUT";
    case CS_EPROTO:
        return "EPROTO";
    case CS_EAUTH:
        return "EAUTH";
    default:
        return "EUNKNOWN";
    }
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
