/*
 * files.c — the kinds that read files named by splits: RDD_TEXT_FILE (Spark's HadoopRDD behind
 * textFile: one partition per line-aligned byte range), RDD_WHOLE_TEXT_FILES (WholeTextFileRDD:
 * one record (path, content) per file, whole files grouped into partitions by group_start) and
 * RDD_CHECKPOINT (ReliableCheckpointRDD: partition i is the file splits[i]). Entries of the table
 * of kinds (plan/rdd_kind.h); the readers are exec's (text_reader.c, whole_file_reader.c,
 * checkpoint_io.c).
 *
 * Ownership: the node owns its splits and path table (freed with its graph).
 */
#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_text_file_new(lineage_graph *g, const text_split *splits, int num_splits,
                                 const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_TEXT_FILE, num_splits, name);
    cs_rdd_kind_set_splits(r, splits, num_splits);
    return r;
}

cspark_rdd *cs_rdd_checkpoint_new(lineage_graph *g, const text_split *files, int num_files,
                                  const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_CHECKPOINT, num_files, name);
    cs_rdd_kind_set_splits(r, files, num_files);
    return r;
}

/* text_file and checkpoint: one split per partition */
static int split_per_partition_encode(const cspark_rdd *r, Cspark__RddNode *p, cs_error *err)
{
    return cs_rdd_kind_splits_to_pb(r, r->num_partitions, p, err);
}

static int split_per_partition_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r,
                                      cs_error *err)
{
    if (pb->n_splits != (size_t)r->num_partitions)
        return cs_rdd_kind_proto_error(err, idx, "%zu splits for %d partitions", pb->n_splits,
                                       r->num_partitions);
    return cs_rdd_kind_splits_from_pb(pb, idx, r, err);
}

/* A text file's RDD is named by its path, as textFile names it. */
static const char *text_file_name(const cspark_rdd *r)
{
    return r->num_paths == 1 && r->paths[0] ? r->paths[0] : "HadoopRDD";
}

static part_iter *text_file_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                    cs_error *err)
{
    return cs_text_iter_open(tc, &rdd->splits[partition], err);
}

const cs_rdd_kind cs_rdd_kind_text_file = {
    .kind = RDD_TEXT_FILE,
    .spark_class = "HadoopRDD",
    .spark_name = text_file_name,
    .num_parents = 0,
    .encode = split_per_partition_encode,
    .decode = split_per_partition_decode,
    .compute = text_file_compute,
};

static part_iter *checkpoint_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                     cs_error *err)
{
    return cs_checkpoint_iter_open(tc, &rdd->splits[partition], err);
}

const cs_rdd_kind cs_rdd_kind_checkpoint = {
    .kind = RDD_CHECKPOINT,
    .spark_class = "ReliableCheckpointRDD",
    .num_parents = 0,
    .encode = split_per_partition_encode,
    .decode = split_per_partition_decode,
    .compute = checkpoint_compute,
};

/* whole_text_files: any number of splits (whole files), grouped into partitions */
int cs_rdd_kind_file_groups_to_pb(const cspark_rdd *r, Cspark__RddNode *p, cs_error *err)
{
    int np = r->num_partitions;
    if (!r->group_start) return cs_error_set(err, CS_EINVAL, "files node %d: no groups", r->id);
    p->group_start = cs_rdd_kind_ints_to_pb(r->group_start, (size_t)np + 1);
    p->n_group_start = (size_t)np + 1;
    return cs_rdd_kind_splits_to_pb(r, r->group_start[np], p, err);
}

int cs_rdd_kind_file_groups_from_pb(const Cspark__RddNode *pb, int idx, cspark_rdd *r,
                                    cs_error *err)
{
    size_t unp = (size_t)r->num_partitions, ns = pb->n_splits;
    if (pb->n_group_start != unp + 1 || pb->group_start[0] != 0 ||
        (size_t)pb->group_start[unp] != ns)
        return cs_rdd_kind_proto_error(err, idx, "bad file groups");
    for (size_t i = 1; i <= unp; i++)
        if (pb->group_start[i] < pb->group_start[i - 1])
            return cs_rdd_kind_proto_error(err, idx, "bad file groups");
    r->group_start = cs_rdd_kind_ints_from_pb(pb->group_start, unp + 1);
    return cs_rdd_kind_splits_from_pb(pb, idx, r, err);
}

const cs_rdd_kind cs_rdd_kind_whole_text_files = {
    .kind = RDD_WHOLE_TEXT_FILES,
    .spark_class = "WholeTextFileRDD",
    .num_parents = 0,
    .encode = cs_rdd_kind_file_groups_to_pb,
    .decode = cs_rdd_kind_file_groups_from_pb,
    .compute = cs_whole_files_iter_open,
};
