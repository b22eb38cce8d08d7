/*
 * broadcast.c — the driver's side of broadcast variables (cspark.h: cspark_broadcast,
 * cspark_broadcast_destroy) and the shared variables' part of the context's life: the broadcast
 * store holding each value's one driver copy, the tracker of where executors hold its pieces
 * (served by the coarse backend, cluster/coarse_broadcast.c) and the accumulator registry.
 * The task side is src/exec/task_vars.c; executors fetch with src/broadcast/broadcast_fetch.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api/context.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "broadcast/broadcast_store.h"
#include "broadcast/broadcast_tracker.h"
#include "sched/accumulators.h"

static const char *COMP = "broadcast";

int cs_context_shared_vars_init(cspark_context *sc, cs_error *err)
{
    int64_t piece = 0, max_frame = 0;
    if (cs_conf_get_size(sc->conf, "spark.broadcast.blockSize", "4m", CS_KiB, &piece, err) < 0 ||
        cs_conf_entry_size(sc->conf, "spark.rpc.message.maxSize", &max_frame, err) < 0)
        return err->code;
    /* a piece travels in one message, with room for the rest of the reply: a size set above
     * that is refused; the default follows a smaller spark.rpc.message.maxSize */
    const char *set = cs_conf_get(sc->conf, "spark.broadcast.blockSize");
    if (set && piece > max_frame / 2)
        return cs_error_set(err, CS_EINVAL,
                            "spark.broadcast.blockSize=%s: expected at most half of "
                            "spark.rpc.message.maxSize (%lld MiB)",
                            set, (long long)(max_frame / CS_MiB));
    if (piece > max_frame / 2) piece = max_frame / 2;
    sc->broadcast_piece_size = piece;
    sc->broadcasts = cs_broadcast_store_new();
    sc->bc_tracker = cs_broadcast_tracker_new(CS_BROADCAST_BUSY_TIMEOUT_MS);
    sc->accums = cs_acc_registry_new();
    return 0;
}

/* One line per broadcast at its end: how many bytes the driver and the executors sent. */
static void log_served(cspark_context *sc, int64_t id, const char *event)
{
    uint64_t by_driver = 0, by_execs = 0;
    cs_broadcast_tracker_served(sc->bc_tracker, id, &by_driver, &by_execs);
    CS_INFO(COMP, "app=%s broadcast=%lld event=%s served_by_driver=%llu served_by_executors=%llu",
            sc->app_id, (long long)id, event, (unsigned long long)by_driver,
            (unsigned long long)by_execs);
}

void cs_context_shared_vars_free(cspark_context *sc)
{
    if (sc->broadcasts)
        for (int64_t id = 0; id < sc->next_broadcast_id; id++)
            if (cs_broadcast_store_remove(sc->broadcasts, id)) log_served(sc, id, "released");
    cs_broadcast_store_free(sc->broadcasts);
    cs_broadcast_tracker_free(sc->bc_tracker);
    cs_acc_registry_free(sc->accums);
    cs_context_custom_merges_free(sc);
    sc->broadcasts = NULL;
    sc->bc_tracker = NULL;
    sc->accums = NULL;
}

/* cspark_broadcast's body: copy (data borrowed) or take (data the store's from here on). */
static cspark_broadcast_var broadcast(cspark_context *sc, void *data, size_t len, bool take)
{
    cspark_broadcast_var b = {-1};
    if (!sc) {
        if (take) free(data);
        return b;
    }
    cs_error err;
    cs_error_clear(&err);
    if (!data && len) {
        cs_error_set(&err, CS_EINVAL, "cspark_broadcast: data is NULL with len %zu", len);
        cs_context_fail(sc, &err);
        return b;
    }
    int64_t id = __atomic_fetch_add(&sc->next_broadcast_id, 1, __ATOMIC_SEQ_CST);
    size_t piece = (size_t)sc->broadcast_piece_size;
    int rc = take ? cs_broadcast_store_put_owned(sc->broadcasts, id, data, len, piece, &err)
                  : cs_broadcast_store_put(sc->broadcasts, id, data, len, piece, &err);
    if (rc < 0) {
        cs_context_fail(sc, &err);
        return b;
    }
    CS_INFO(COMP, "app=%s broadcast=%lld event=created bytes=%zu pieces=%d piece_size=%lld",
            sc->app_id, (long long)id, len,
            cs_broadcast_num_pieces(len, (uint64_t)sc->broadcast_piece_size),
            (long long)sc->broadcast_piece_size);
    b.id = id;
    return b;
}

cspark_broadcast_var cspark_broadcast(cspark_context *sc, const void *data, size_t len)
{
    return broadcast(sc, (void *)data, len, false);
}

cspark_broadcast_var cs_context_broadcast_take(cspark_context *sc, void *data, size_t len)
{
    return broadcast(sc, data, len, true);
}

int cspark_broadcast_destroy(cspark_context *sc, cspark_broadcast_var b)
{
    if (!sc || b.id < 0 || !cs_broadcast_store_remove(sc->broadcasts, b.id)) return CS_ENOTFOUND;
    log_served(sc, b.id, "destroyed");
    cs_broadcast_tracker_remove(sc->bc_tracker, b.id); /* executors drop their copies */
    return 0;
}
