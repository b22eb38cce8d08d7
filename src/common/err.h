/* err.h — error codes, the cs_error detail record and the abort-on-OOM allocators.
 *
 * Every cspark function that can fail returns an int: CS_OK (0) or one of the negative CS_E*
 * codes below, and fills an optional caller-owned `cs_error *` (which may be NULL) with a
 * one-line, user-readable message. There is no global "last error". Constructors return NULL
 * instead. The cs_x* allocators never return NULL: on exhaustion they log one line and abort().
 * Called from everywhere; depends only on libc (and log.h for the OOM line).
 *
 * Ownership: a cs_error is a plain value owned by the caller (usually on the stack); nothing in
 * it needs freeing. Memory returned by cs_x* is owned by the caller and released with free().
 */
#ifndef CSPARK_COMMON_ERR_H
#define CSPARK_COMMON_ERR_H

#include <stddef.h>

enum {
    CS_OK = 0,
    CS_EINVAL = -1,
    CS_ENOMEM = -2,
    CS_EIO = -3,
    CS_ENOTFOUND = -4,
    CS_EEXIST = -5,
    CS_EUNSUPPORTED = -6,
    CS_ETASK = -7,
    CS_ECANCELLED = -8,
    CS_ETIMEOUT = -9,
    CS_EPROTO = -10,
    CS_EAUTH = -11
};

typedef struct cs_error {
    int code;
    char msg[1024];
} cs_error;

/* Records `code` and the formatted message in *err (if err is non-NULL); returns `code`, so that
 * callers can write `return cs_error_set(err, CS_EINVAL, "...")`. Messages longer than
 * sizeof msg are truncated. */
int cs_error_set(cs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Resets *err to {CS_OK, ""}; err may be NULL. */
void cs_error_clear(cs_error *err);

/* Prefixes the existing message of *err with the formatted text (e.g. a file or key name) and
 * ": "; keeps err->code; returns err->code (CS_OK if err is NULL). */
int cs_error_prefix(cs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Short constant name of a code, e.g. "EINVAL"; "EUNKNOWN" for anything else. Never NULL. */
const char *cs_strerror(int code);

/* Allocators that abort the process (after one log line) when memory is exhausted.
 * cs_xmalloc(0)/cs_xcalloc(0, x) return a valid unique pointer. cs_xstrdup(NULL) returns NULL. */
void *cs_xmalloc(size_t n);
void *cs_xcalloc(size_t n, size_t m);
void *cs_xrealloc(void *p, size_t n);
char *cs_xstrdup(const char *s);
/* Copies at most n bytes of s and NUL-terminates. */
char *cs_xstrndup(const char *s, size_t n);

/* Why this process may run out of memory before the host does (an executor of local-cluster
 * under its data limit): set once at start, appended to the out-of-memory line and to a task
 * failure reported while errno is ENOMEM. NULL or "" until set; the text is copied. */
void cs_memory_limit_note_set(const char *note);
const char *cs_memory_limit_note(void);

#endif /* CSPARK_COMMON_ERR_H */
