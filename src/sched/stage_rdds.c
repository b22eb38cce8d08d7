/* stage_rdds.c — a stage's RDDs for the listener events (stage_rdds.h). Called by the DAG
 * scheduler when it posts StageSubmitted and StageCompleted.
 */
#include "sched/stage_rdds.h"

#include <stdlib.h>

#include "cspark.h"
#include "common/err.h"

static const char *spark_rdd_name(const cspark_rdd *rdd)
{
    switch (rdd->kind) {
    case RDD_PARALLELIZE:
        return "ParallelCollectionRDD";
    case RDD_RANGE:
        return "RangeRDD";
    case RDD_TEXT_FILE:
        return rdd->num_paths == 1 && rdd->paths[0] ? rdd->paths[0] : "HadoopRDD";
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER:
    case RDD_MAP_PARTITIONS:
    case RDD_MAP_VALUES:
    case RDD_FLAT_MAP_VALUES:
    case RDD_KEY_BY:
    case RDD_MAP_PARTITIONS_WITH_INDEX:
    case RDD_PARTITION_TAG:
    case RDD_FOLD_PARTITION:
        return "MapPartitionsRDD";
    case RDD_CARTESIAN:
        return "CartesianRDD";
    case RDD_CHECKPOINT:
        return "ReliableCheckpointRDD";
    case RDD_SAMPLE:
        return "PartitionwiseSampledRDD";
    case RDD_ZIP_WITH_INDEX:
        return "ZippedWithIndexRDD";
    case RDD_WHOLE_TEXT_FILES:
        return "WholeTextFileRDD";
    case RDD_UNION:
        return "UnionRDD";
    case RDD_COALESCE:
        return "CoalescedRDD";
    case RDD_SHUFFLED:
        if (rdd->read_mode == SHUFFLE_READ_COGROUP) return "CoGroupedRDD";
        return rdd->num_deps ? "ShuffledRDD" : "MapPartitionsRDD"; /* Spark's narrow combine */
    }
    return "RDD";
}

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
                       .name = spark_rdd_name(rdd),
                       .callsite = rdd->name ? rdd->name : "",
                       .num_partitions = rdd->num_partitions,
                       .storage_level = rdd->storage_level};
    if (rdd->kind == RDD_SHUFFLED) /* the map sides are the parent stages' */
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
