/*
 * ds_commit.c — save modes and the job commit of data source writes (ds_commit.h).
 */
#include "datasource/ds_commit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fsutil.h"
#include "datasource/ds_task.h"
#include "fs/fs.h"

int cs_ds_parse_save_mode(const char *name, cs_ds_save_mode *mode, cs_error *err)
{
    if (!name || strcasecmp(name, "error") == 0 || strcasecmp(name, "errorifexists") == 0 ||
        strcasecmp(name, "default") == 0)
        *mode = CS_DS_MODE_ERROR;
    else if (strcasecmp(name, "overwrite") == 0)
        *mode = CS_DS_MODE_OVERWRITE;
    else if (strcasecmp(name, "append") == 0)
        *mode = CS_DS_MODE_APPEND;
    else if (strcasecmp(name, "ignore") == 0)
        *mode = CS_DS_MODE_IGNORE;
    else
        return cs_error_set(err, CS_EINVAL,
                            "[INVALID_SAVE_MODE] The specified save mode \"%s\" is invalid. Valid "
                            "save modes include \"append\", \"overwrite\", \"ignore\", \"error\", "
                            "\"errorifexists\", and \"default\".",
                            name);
    return 0;
}

/* The path as Spark prints it ("file:/x" for a local one). */
static void shown(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s",
             cs_fs_is_local(path) && strncmp(path, "file:", 5) != 0 ? "file:" : "", path);
}

int cs_ds_write_prepare(const char *path, cs_ds_save_mode mode, bool *fresh, cs_error *err)
{
    cs_fs_status st;
    *fresh = false;
    if (cs_fs_stat(path, &st, err) < 0) return err->code;
    char p[4200];
    shown(path, p, sizeof p);
    if (st.exists) {
        switch (mode) {
        case CS_DS_MODE_ERROR:
            return cs_error_set(err, CS_EEXIST,
                                "[PATH_ALREADY_EXISTS] Path %s already exists. Set mode as "
                                "\"overwrite\" to overwrite the existing path.",
                                p);
        case CS_DS_MODE_IGNORE:
            return 1;
        case CS_DS_MODE_OVERWRITE:
            if (cs_fs_delete(path, true, err) < 0) return err->code;
            *fresh = true;
            break;
        case CS_DS_MODE_APPEND:
            break;
        }
    } else {
        *fresh = true;
    }
    if (cs_fs_is_local(path)) {
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s/_temporary/0/_temporary", cs_fs_local_path(path));
        if (cs_make_dirs(tmp) < 0)
            return cs_error_set(err, CS_EIO, "cannot create output directory %s: %s", p,
                                strerror(errno));
    }
    return 0;
}

void cs_ds_job_abort(const char *path, bool fresh, const cs_ds_commit_msg *msgs, size_t n)
{
    cs_error e;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(msgs[i].kind, CS_DS_COMMIT_PENDING) != 0) continue;
        cs_fs_pending *p = cs_fs_pending_decode(msgs[i].value, msgs[i].len, &e);
        if (p) cs_fs_pending_abort(p, &e);
        cs_fs_pending_free(p);
    }
    cs_fs_abort_uploads_under(path, NULL, 0, &e);
    if (cs_fs_is_local(path)) {
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s/_temporary", cs_fs_local_path(path));
        cs_remove_tree(tmp);
        if (fresh) cs_remove_tree(cs_fs_local_path(path));
    } else if (fresh) {
        cs_fs_delete(path, true, &e);
    }
}

/* Moves a local attempt's file into place: msg is "attempt_<id>/<relative path>". */
static int move_local(const char *dir, const char *msg, size_t len, cs_error *err)
{
    char rel[4200], from[8600], to[8600];
    if (len >= sizeof rel) return cs_error_set(err, CS_EINVAL, "commit message too long");
    memcpy(rel, msg, len);
    rel[len] = 0;
    const char *slash = strchr(rel, '/');
    if (!slash || strstr(rel, "..")) return cs_error_set(err, CS_EINVAL, "bad commit message");
    snprintf(from, sizeof from, "%s/_temporary/0/_temporary/%s", dir, rel);
    snprintf(to, sizeof to, "%s/%s", dir, slash + 1);
    char *parent = cs_xstrdup(to);
    *strrchr(parent, '/') = 0;
    int rc = cs_make_dirs(parent);
    free(parent);
    if (rc < 0 || rename(from, to) < 0)
        return cs_error_set(err, CS_EIO, "cannot commit %s to %s: %s", from, to, strerror(errno));
    return 0;
}

int cs_ds_job_commit(const char *path, bool fresh, const cs_ds_commit_msg *msgs, size_t n,
                     cs_error *err)
{
    bool local = cs_fs_is_local(path);
    const char *dir = local ? cs_fs_local_path(path) : path;
    cs_fs_pending **kept = cs_xcalloc(n + 1, sizeof *kept);
    size_t n_kept = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (strcmp(msgs[i].kind, CS_DS_COMMIT_LOCAL) == 0 && local) {
            rc = move_local(dir, msgs[i].value, msgs[i].len, err);
        } else if (strcmp(msgs[i].kind, CS_DS_COMMIT_PENDING) == 0) {
            cs_fs_pending *p = cs_fs_pending_decode(msgs[i].value, msgs[i].len, err);
            if (!p) {
                rc = err->code ? err->code : CS_EPROTO;
                break;
            }
            kept[n_kept++] = p;
            rc = cs_fs_pending_commit(p, err);
        }
    }
    if (rc == 0 && !local)
        rc = cs_fs_abort_uploads_under(path, (const cs_fs_pending *const *)kept, n_kept, err);
    if (rc == 0 && local) {
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s/_temporary", dir);
        cs_remove_tree(tmp);
    }
    if (rc == 0) {
        char success[4300];
        snprintf(success, sizeof success, "%s/_SUCCESS", path);
        rc = cs_fs_put(success, "", 0, err);
    }
    for (size_t i = 0; i < n_kept; i++)
        cs_fs_pending_free(kept[i]);
    free(kept);
    if (rc < 0) cs_ds_job_abort(path, fresh, msgs, n);
    return rc;
}
