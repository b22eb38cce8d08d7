/*
 * k8s_event_batch.c — the queue of snapshot updates between the lifecycle manager's rounds (see
 * k8s_event_batch.h).
 */
#include "cluster/k8s/k8s_event_batch.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

void cs_k8s_event_batch_add(k8s_event_batch *q, const k8s_snapshot_update *u)
{
    if (!u->entry) { /* a full snapshot: the latest stands for the earlier ones */
        q->full = true;
        q->full_snapshot = u->snapshot;
        q->full_at_ms = u->at_ms;
        q->full_source = u->source;
        return;
    }
    if (q->npods == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 16;
        q->pods = cs_xrealloc(q->pods, (size_t)q->cap * sizeof *q->pods);
    }
    q->pods[q->npods++] = (k8s_queued_pod){.id = u->entry->id,
                                           .pod = json_incref((json_t *)u->pod),
                                           .status = u->status,
                                           .at_ms = u->at_ms,
                                           .source = u->source};
}

bool cs_k8s_event_batch_due(const k8s_event_batch *q, int64_t now_ms, int64_t *wait_ms)
{
    *wait_ms = -1;
    if (q->npods == 0 && !q->full) return false;
    int64_t at = q->last_round_ms ? q->last_round_ms + q->interval_ms : now_ms;
    if (now_ms >= at) return true;
    *wait_ms = at - now_ms;
    return false;
}

void cs_k8s_event_batch_take(k8s_event_batch *q, int64_t now_ms, k8s_event_batch *out)
{
    cs_k8s_event_batch_free(out);
    *out = *q;
    out->last_round_ms = now_ms;
    q->pods = NULL;
    q->npods = q->cap = 0;
    q->full = false;
    q->last_round_ms = now_ms;
}

void cs_k8s_event_batch_free(k8s_event_batch *q)
{
    for (int i = 0; i < q->npods; i++)
        json_decref(q->pods[i].pod);
    free(q->pods);
    q->pods = NULL;
    q->npods = q->cap = 0;
    q->full = false;
}
