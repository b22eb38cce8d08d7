/*
 * ds_commit.h — a data source write on the driver, around its job: the save mode before it
 * (Spark's InsertIntoHadoopFsRelationCommand: error/errorifexists/default, overwrite, append,
 * ignore) and the job commit or abort after it (FileOutputCommitter's commitJob: the accepted
 * task attempts' files moved into place, or their uploads completed, then _SUCCESS; abortJob:
 * nothing of the job stays visible or stored).
 *
 * Called by the API (api/datasource_api.c). Ownership: messages are borrowed.
 */
#ifndef CSPARK_DATASOURCE_DS_COMMIT_H
#define CSPARK_DATASOURCE_DS_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

typedef enum cs_ds_save_mode {
    CS_DS_MODE_ERROR, /* error, errorifexists, default */
    CS_DS_MODE_OVERWRITE,
    CS_DS_MODE_APPEND,
    CS_DS_MODE_IGNORE
} cs_ds_save_mode;

/* Spark's name of a save mode (NULL: errorifexists), case-insensitive; CS_EINVAL with Spark's
 * [INVALID_SAVE_MODE] message. */
int cs_ds_parse_save_mode(const char *name, cs_ds_save_mode *mode, cs_error *err);

/* Before the job, for output directory path (normalised): 1 when the write is to be skipped
 * (ignore, path exists), 0 to run it, < 0 with Spark's message ([PATH_ALREADY_EXISTS] for error).
 * Overwrite removes what is there. *fresh tells whether the job owns the whole directory (it was
 * not there, or was overwritten): then an abort removes it. */
int cs_ds_write_prepare(const char *path, cs_ds_save_mode mode, bool *fresh, cs_error *err);

/* One task's commit message (ds_task.h: kind and value). */
typedef struct cs_ds_commit_msg {
    const char *kind;
    const void *value;
    size_t len;
} cs_ds_commit_msg;

/* Job commit: every message's file made visible, stray uploads aborted, _SUCCESS written. On
 * failure the job is aborted (as cs_ds_job_abort) and the error returned. */
int cs_ds_job_commit(const char *path, bool fresh, const cs_ds_commit_msg *msgs, size_t n,
                     cs_error *err);
/* Job abort: uploads of msgs and any other under path aborted, the staging folder removed, and
 * the directory itself when fresh. */
void cs_ds_job_abort(const char *path, bool fresh, const cs_ds_commit_msg *msgs, size_t n);

#endif
