/*
 * persist.c — cspark_persist, cspark_cache, cspark_unpersist and cspark_storage_level_of of
 * cspark.h (Spark's RDD.persist / cache / unpersist / getStorageLevel). Persisting only marks the
 * node: the stage plans carry its level and each task that computes one of its partitions keeps
 * it in its process's block manager (src/storage, exec/cache_iter.c); unpersisting forgets the
 * level and has the scheduler drop the blocks everywhere (block registry, backends).
 */
#include "api/rdd_internal.h"
#include "common/log.h"
#include "sched/scheduler.h"

static const char *level_name(cspark_storage_level level)
{
    switch (level) {
    case CSPARK_MEMORY_ONLY:
        return "MEMORY_ONLY";
    case CSPARK_MEMORY_AND_DISK:
        return "MEMORY_AND_DISK";
    case CSPARK_DISK_ONLY:
        return "DISK_ONLY";
    default:
        return "NONE";
    }
}

cspark_rdd *cspark_persist(cspark_rdd *rdd, cspark_storage_level level)
{
    if (!rdd) return NULL;
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error err;
    cs_error_clear(&err);
    if (level < CSPARK_MEMORY_ONLY || level > CSPARK_DISK_ONLY) {
        cs_error_set(&err, CS_EINVAL,
                     "cspark_persist: unknown storage level %d (expected CSPARK_MEMORY_ONLY, "
                     "CSPARK_MEMORY_AND_DISK or CSPARK_DISK_ONLY)",
                     (int)level);
        return cs_rdd_refuse(sc, &err);
    }
    if (rdd->storage_level != CSPARK_STORAGE_NONE && rdd->storage_level != (int)level) {
        cs_error_set(&err, CS_EINVAL,
                     "Cannot change storage level of an RDD after it was already assigned a "
                     "level (RDD %d is %s, asked for %s)",
                     rdd->id, level_name((cspark_storage_level)rdd->storage_level),
                     level_name(level));
        return cs_rdd_refuse(sc, &err);
    }
    rdd->storage_level = (int)level;
    CS_INFO("context", "event=persist rdd=%d level=%s name=%s", rdd->id, level_name(level),
            cs_log_quote(rdd->name ? rdd->name : ""));
    return rdd;
}

cspark_rdd *cspark_cache(cspark_rdd *rdd)
{
    return cspark_persist(rdd, CSPARK_MEMORY_ONLY);
}

int cspark_unpersist(cspark_rdd *rdd)
{
    if (!rdd) return CS_EINVAL;
    cspark_context *sc = cs_rdd_context(rdd);
    if (rdd->storage_level == CSPARK_STORAGE_NONE) return 0;
    rdd->storage_level = CSPARK_STORAGE_NONE;
    if (sc->sched) cs_scheduler_unpersist(sc->sched, rdd->id);
    CS_INFO("context", "event=unpersist rdd=%d", rdd->id);
    return 0;
}

cspark_storage_level cspark_storage_level_of(const cspark_rdd *rdd)
{
    return rdd ? (cspark_storage_level)rdd->storage_level : CSPARK_STORAGE_NONE;
}
