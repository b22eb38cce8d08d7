/*
 * job_errors.c — a failed job's error as the SQL statement's (see session_internal.h): the
 * Spark error a task raised, or Spark's SPARK_JOB_CANCELLED for a job cancelled on request.
 * Called by query_run.c on the query's thread; err is the caller's.
 */
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "session/session_internal.h"

/* A job failed: when a task's message carries Spark's "[CLASS] ... SQLSTATE: xxxxx", err becomes
 * that error (class, state, message from the class on), as Spark rethrows the task's
 * SparkThrowable. A class may start with '_' (Spark's _LEGACY_ERROR_TEMP_*, no SQLSTATE). */
int cs_session_job_error(cs_error *err)
{
    if (err->error_class[0]) return err->code;
    if (err->code == CS_ECANCELLED) { /* the scheduler's "Job N cancelled <reason>": Spark's
                                       * SparkCoreErrors.sparkJobCancelled */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "[SPARK_JOB_CANCELLED] %.*s SQLSTATE: XXKDA",
                 (int)strcspn(err->msg, "\n"), err->msg);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
        snprintf(err->error_class, sizeof err->error_class, "SPARK_JOB_CANCELLED");
        memcpy(err->sql_state, "XXKDA", 6);
        return err->code;
    }
    for (const char *p = strchr(err->msg, '['); p; p = strchr(p + 1, '[')) {
        const char *e = p + 1;
        while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_' || *e == '.')
            e++;
        if (*e != ']' || e - p < 4 || !((p[1] >= 'A' && p[1] <= 'Z') || p[1] == '_')) continue;
        char cls[96], state[6] = "";
        snprintf(cls, sizeof cls, "%.*s", (int)(e - p - 1), p + 1);
        const char *st = strstr(p, "SQLSTATE: ");
        if (st) snprintf(state, sizeof state, "%.5s", st + 10);
        char msg[sizeof err->msg];
        size_t n = strcspn(p, "\n"), upto = st ? (size_t)(st + 15 - p) : 0;
        if (st && (upto < n || strcmp(cls, "PYTHON_EXCEPTION") == 0)) n = upto; /* tracebacks */
        snprintf(msg, sizeof msg, "%.*s", (int)n, p);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
        snprintf(err->error_class, sizeof err->error_class, "%s", cls);
        memcpy(err->sql_state, state, sizeof state);
        break;
    }
    return err->code;
}
