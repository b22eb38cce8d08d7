/*
 * stage_cut.c — the subtree questions of stage cutting (stage_cut.h), asked by query_run.c.
 */
#include "session/stage_cut.h"

int cs_stage_subtree_reads(const cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE || (n->kind == CS_PH_SHUFFLE_READ && n->input < 0)) return 1;
    if (n->kind == CS_PH_REUSED_EXCHANGE)
        return n->reused && n->reused->kind == CS_PH_EXCHANGE ? 1 : 0;
    if (n->kind == CS_PH_BROADCAST_EXCHANGE) return 0;
    int r = 0;
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i]) r += cs_stage_subtree_reads(n->children[i]);
    return r;
}

bool cs_stage_reads_range(const cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE) return n->partitioning == CS_PART_RANGE;
    if (n->kind == CS_PH_REUSED_EXCHANGE)
        return n->reused && n->reused->kind == CS_PH_EXCHANGE &&
               n->reused->partitioning == CS_PART_RANGE;
    if (n->kind == CS_PH_BROADCAST_EXCHANGE) return false;
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i] && cs_stage_reads_range(n->children[i])) return true;
    return false;
}

int cs_stage_coalesced_parts(int np, int n)
{
    if (np < 0) return -1;
    if (np == 0) return n == 1 ? 1 : 0;
    return np < n ? np : n;
}
