/* err.h — error codes, the cs_error detail record and the abort-on-OOM allocators.
 *
 * Every cspark function that can fail returns an int: CS_OK (0) or one of the negative CS_E*
 * codes below (cspark.h's CSPARK_E*), and fills an optional caller-owned `cs_error *` (which may
 * be NULL) with a one-line, user-readable message and, where the failing module knows it, a kind
 * and an HTTP status. Decisions read the code and the kind, never the message
 * (tests/integration/error_text_decisions.sh). There is no global "last error". Constructors
 * return NULL instead. The cs_x* allocators never return NULL: on exhaustion they log one line and
 * abort(). Called from everywhere; depends only on libc and cspark.h (and log.h for the OOM
 * line).
 *
 * Ownership: a cs_error is a plain value owned by the caller (usually on the stack); nothing in
 * it needs freeing. Memory returned by cs_x* is owned by the caller and released with free().
 */
#ifndef CSPARK_COMMON_ERR_H
#define CSPARK_COMMON_ERR_H

#include <stddef.h>

#include "cspark.h"

/* The public CSPARK_E* codes of cspark.h under their internal names: one set of numbers, so an
 * internal code is returned to a job as it is. */
enum {
    CS_OK = CSPARK_OK,
    CS_EINVAL = CSPARK_EINVAL,
    CS_ENOMEM = CSPARK_ENOMEM,
    CS_EIO = CSPARK_EIO,
    CS_ENOTFOUND = CSPARK_ENOTFOUND,
    CS_EEXIST = CSPARK_EEXIST,
    CS_EUNSUPPORTED = CSPARK_EUNSUPPORTED,
    CS_ETASK = CSPARK_ETASK,
    CS_ECANCELLED = CSPARK_ECANCELLED,
    CS_ETIMEOUT = CSPARK_ETIMEOUT,
    CS_EPROTO = CSPARK_EPROTO,
    CS_EAUTH = CSPARK_EAUTH
};

/* What an error is about, finer than its code, for the callers that decide on it: the only
 * thing besides the code a decision may read (the message is for people and may change). The
 * HTTP kinds are the Kubernetes API's Status.reason values, taken from the answer's Status body
 * (its HTTP status when the body has none); cs_error.http_status then holds the status code. */
typedef enum cs_error_kind {
    CS_KIND_NONE = 0,            /* nothing finer than the code */
    CS_KIND_BAD_REQUEST,         /* 400 BadRequest */
    CS_KIND_UNAUTHORIZED,        /* 401 Unauthorized: the credentials were refused */
    CS_KIND_FORBIDDEN,           /* 403 Forbidden: RBAC, an admission check, a quota */
    CS_KIND_NOT_FOUND,           /* 404 NotFound: the object itself */
    CS_KIND_NAMESPACE_NOT_FOUND, /* 404 NotFound whose details name a namespace */
    CS_KIND_ALREADY_EXISTS,      /* 409 AlreadyExists */
    CS_KIND_CONFLICT,            /* 409 Conflict: a stale resourceVersion */
    CS_KIND_EXPIRED,             /* 410 Gone / Expired: a watch's resourceVersion is too old */
    CS_KIND_INVALID,             /* 422 Invalid: the object failed validation */
    CS_KIND_TOO_MANY_REQUESTS,   /* 429 TooManyRequests */
    CS_KIND_SERVER_ERROR,        /* 5xx InternalError, ServiceUnavailable, ... */
    CS_KIND_TIMEOUT,             /* 504 / Timeout / ServerTimeout, or no answer in time */
    CS_KIND_UNREACHABLE,         /* no HTTP answer at all */
    CS_KIND_LIMIT_REACHED        /* a limit of the application's own configuration */
} cs_error_kind;

typedef struct cs_error {
    int code;           /* CS_OK or a CS_E* code */
    cs_error_kind kind; /* CS_KIND_NONE unless the failing module knows better */
    int http_status;    /* the HTTP answer's status code, 0 when none */
    char msg[1024];
    /* Spark SQL errors (sqlexec/sql_error.h): Spark's error class ("DIVIDE_BY_ZERO",
     * "UNRESOLVED_COLUMN.WITH_SUGGESTION") and SQLSTATE, for decisions and for clients that map
     * a class to an exception type; "" for every other error. */
    char error_class[96];
    char sql_state[6];
    /* Spark SQL errors: the message parameters, as a JSON object of strings
     * ({"objectName":"`x`"}), which Spark Connect clients show; "" when the error gives none. */
    char params[512];
} cs_error;

/* Records `code` and the formatted message in *err (if err is non-NULL), with kind CS_KIND_NONE
 * and no HTTP status; returns `code`, so that callers can write
 * `return cs_error_set(err, CS_EINVAL, "...")`. Messages longer than sizeof msg are truncated. */
int cs_error_set(cs_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets the kind and HTTP status (0: none) of *err, after cs_error_set; err may be NULL. Returns
 * err->code (CS_OK if err is NULL). */
int cs_error_set_kind(cs_error *err, cs_error_kind kind, int http_status);

/* The name of a kind as the Kubernetes API spells its Status reasons, e.g. "Forbidden",
 * "NamespaceNotFound"; "" for CS_KIND_NONE. Never NULL. */
const char *cs_error_kind_name(cs_error_kind kind);

/* Resets *err to {CS_OK, CS_KIND_NONE, 0, ""}; err may be NULL. */
void cs_error_clear(cs_error *err);

/* Prefixes the existing message of *err with the formatted text (e.g. a file or key name) and
 * ": "; keeps err->code, kind and http_status; returns err->code (CS_OK if err is NULL). */
int cs_error_prefix(cs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Short constant name of a code, e.g. "EINVAL"; "EUNKNOWN" for anything else. Never NULL.
 * The codes are those of cspark.h's CSPARK_E*, whose cspark_strerror says what each means. */
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
