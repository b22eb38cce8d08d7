/* stage_rdds.c — a stage's RDDs for the listener events (stage_rdds.h). Called by the DAG
 * scheduler when it posts StageSubmitted and StageCompleted. Names are the table of kinds'
 * (plan/rdd_kind.h).
 */
#include "sched/stage_rdds.h"

#include <stdlib.h>

#include "cspark.h"
#include "common/err.h"
#include "plan/rdd_kind.h"

static void add(const cspark_rdd *rdd, cs_rdd_info **out, int *n, int *cap)
{
    for (int i = 0; i < *n; i++)
        if ((*out)[i].id == rdd->id) return;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *out = cs_xrealloc(*out, (size_t)*cap * sizeof **out);
    }
    cs_rdd_info *r = &(*out)[(*n)++];
    *r = (cs_rdd_info){.id = rdd->id,
                       .name = cs_rdd_spark_name(rdd),
                       .callsite = rdd->name ? rdd->name : "",
                       .num_partitions = rdd->num_partitions,
                       .storage_level = rdd->storage_level};
    /* a shuffled RDD's map sides are the parent stages' */
    for (int d = 0; d < rdd->num_deps && d < 2; d++)
        r->parent_ids[r->num_parents++] = rdd->deps[d]->parent->id;
    for (int p = 0; p < rdd->num_parents && r->num_parents < 2; p++)
        r->parent_ids[r->num_parents++] = rdd->parents[p]->id;
    for (int p = 0; p < rdd->num_parents && p < 2; p++)
        add(rdd->parents[p], out, n, cap);
}

int cs_stage_rdd_infos(const cspark_rdd *rdd, cs_rdd_info **out)
{
    int n = 0, cap = 0;
    *out = NULL;
    if (rdd) add(rdd, out, &n, &cap);
    return n;
}
