/*
 * checkpoint.c — checkpoint of cspark.h (Spark's reliable RDD checkpoint, eager as Dataset's
 * checkpoint()): a job writes every partition of the RDD to
 * <spark.checkpoint.dir>/<application id>/rdd-<id>/part-NNNNN (exec/checkpoint_io.c), and the
 * returned RDD reads those files, so its lineage starts there: later jobs neither recompute nor
 * re-shuffle what came before, and a lost executor's tasks read the files again. The directory
 * must be a file system path every executor sees (a shared volume on Kubernetes); the files stay
 * after the application ends, as Spark's do unless
 * spark.cleaner.referenceTracking.cleanCheckpoints.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "common/fsutil.h"
#include "fs/fs.h"
#include "sched/scheduler.h"

static void ignore_result(void *arg, int partition, task_result *r)
{
    (void)arg;
    (void)partition;
    (void)r;
}

cspark_rdd *cspark_checkpoint(cspark_rdd *rdd)
{
    if (!rdd) {
        cs_context_null_argument("checkpoint", "RDD");
        return NULL;
    }
    cspark_context *sc = cs_rdd_context(rdd);
    const void *caller = CALLER();
    cs_error err;
    cs_error_clear(&err);
    if (sc->failed) return NULL;
    const char *dir = cspark_conf_get(sc, "spark.checkpoint.dir");
    if (!dir || !*dir) {
        cs_error_set(&err, CS_EINVAL,
                     "checkpoint: Checkpoint directory has not been set (set spark.checkpoint.dir "
                     "to a directory every executor can reach)");
        return cs_rdd_refuse(sc, &err);
    }
    if (!cs_fs_is_local(dir)) {
        cs_error_set(&err, CS_EINVAL,
                     "checkpoint: spark.checkpoint.dir must be a file system path shared by the "
                     "driver and the executors (a shared volume on Kubernetes), got '%s'",
                     dir);
        return cs_rdd_refuse(sc, &err);
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/rdd-%d", cs_fs_local_path(dir), cspark_app_id(sc), rdd->id);
    cs_remove_tree(path); /* an earlier checkpoint of the same RDD is replaced */
    if (cs_make_dirs(path) < 0) {
        cs_error_set(&err, CS_EIO, "checkpoint: cannot create %s: %s", path, strerror(errno));
        return cs_rdd_refuse(sc, &err);
    }
    task_sink sink = {.kind = SINK_CHECKPOINT, .save_path = path};
    if (cs_api_run_job(sc, rdd, NULL, 0, &sink, ignore_result, NULL, "checkpoint", caller, &err) <
        0) {
        cs_remove_tree(path);
        return cs_rdd_refuse(sc, &err);
    }
    int np = rdd->num_partitions;
    cspark_rdd *r = cs_api_rdd_new(sc, RDD_CHECKPOINT, np, "checkpoint", caller);
    r->num_paths = np;
    r->paths = cs_xcalloc((size_t)np + 1, sizeof *r->paths);
    r->splits = cs_xcalloc((size_t)np + 1, sizeof *r->splits);
    for (int i = 0; i < np; i++) {
        char part[PATH_MAX + 16];
        snprintf(part, sizeof part, "%s/part-%05d", path, i);
        struct stat st;
        if (stat(part, &st) < 0) {
            cs_error_set(&err, CS_EIO, "checkpoint: %s is missing after the job: %s", part,
                         strerror(errno));
            return cs_rdd_refuse(sc, &err); /* the node stays, unused, in the graph */
        }
        r->paths[i] = cs_xstrdup(part);
        r->splits[i] = (text_split){r->paths[i], 0, (uint64_t)st.st_size, (uint64_t)st.st_size};
    }
    return r;
}
