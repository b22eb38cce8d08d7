/*
 * rdd_kind.h — the table of RDD kinds, as fs_internal.h's table of file-system schemes: one
 * cs_rdd_kind per kind, defined in the kind's own file under src/plan/kinds/ (a file per kind or
 * per family, named after Spark's class), listed in plan/rdd_kind_list.h. Everything that differs
 * between kinds is an entry's field, so the code that walks lineages never switches on a kind:
 *   - the stage plan codec (stage_plan_encode.c / _decode.c) writes and reads the fields every
 *     node has, then calls the kind's encode / decode / check_parents for its own;
 *   - the task runner (exec/part_iter.c) opens a partition with the kind's compute;
 *   - the DAG scheduler's listener events (sched/stage_rdds.c) name a node by spark_class (or
 *     spark_name), and its locality (sched/block_registry.c) follows parent_partitions.
 *
 * Layering: this header and rdd_kind.c are plan's; the kind files sit above exec (their compute
 * builds exec's iterators) and are reached from below only through the table, as cluster
 * managers are through cluster_manager.c's list.
 *
 * Ownership: entries are static constants; every function here borrows its arguments.
 */
#ifndef CSPARK_PLAN_RDD_KIND_H
#define CSPARK_PLAN_RDD_KIND_H

#include "cspark.pb-c.h"

#include "common/err.h"
#include "plan/rdd.h"

struct part_iter;

/* num_parents of a kind that reads shuffles: 0..2 parents, read narrowly (partition i of each is
 * its partition i), besides its shuffle dependencies. */
#define CS_RDD_PARENTS_WITH_SHUFFLES (-1)

/* A parent partition a partition reads narrowly (Spark's NarrowDependency.getParents). */
typedef struct cs_rdd_parent_partition {
    const cspark_rdd *parent;
    int partition;
} cs_rdd_parent_partition;

typedef struct cs_rdd_kind {
    rdd_kind kind;
    const char *spark_class; /* Spark's RDD class: "MapPartitionsRDD", "ShuffledRDD", ... */
    /* optional: the name a node shows in the UI and event log when it is not spark_class (a
     * text file's path); borrowed from the node */
    const char *(*spark_name)(const cspark_rdd *r);
    int num_parents; /* exact, or CS_RDD_PARENTS_WITH_SHUFFLES */
    bool one_to_one; /* one parent whose partition i is partition i (same count) */

    /* Codec of the kind's own fields (optional); the codec has done id, kind, partitions, name,
     * parents, shuffle deps, fn, range_*, read_mode, aggregator and storage level. decode also
     * checks what does not depend on other nodes (functions present, table sizes) and fails with
     * CS_EPROTO (cs_rdd_kind_proto_error); idx is the node's number in the message. */
    int (*encode)(const cspark_rdd *r, Cspark__RddNode *pb, cs_error *err);
    int (*decode)(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err);
    /* optional: checks against the linked parents (their partition counts), CS_EPROTO */
    int (*check_parents)(const cspark_rdd *r, int idx, cs_error *err);

    /* optional: the parent partitions `partition` reads narrowly, the first max of them written
     * to out; returns their number, as snprintf (one_to_one kinds: parent 0's same partition). */
    int (*parent_partitions)(const cspark_rdd *r, int partition, cs_rdd_parent_partition *out,
                             int max);

    /* The iterator computing `partition` of r in a task (exec/part_iter.h), NULL + err. */
    struct part_iter *(*compute)(cspark_task_context *tc, cspark_rdd *r, int partition,
                                 cs_error *err);
} cs_rdd_kind;

/* The table's entry of kind k, NULL when k is no kind (a bad number off the wire). */
const cs_rdd_kind *cs_rdd_kind_of(int k);
/* Spark's name of a node (spark_name, else spark_class): borrowed, static or from the node. */
const char *cs_rdd_spark_name(const cspark_rdd *r);
/* The parent partitions `partition` reads narrowly, the first max written to out; returns their
 * number, which may be over max (see parent_partitions); 0 for a source. */
int cs_rdd_parent_partitions(const cspark_rdd *r, int partition, cs_rdd_parent_partition *out,
                             int max);

/* Helpers for the kinds' codecs. CS_EPROTO "stage plan: node <idx>: <msg>". */
int cs_rdd_kind_proto_error(cs_error *err, int idx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* malloc'd copies of n ints: to the message (at least one element allocated), from it (one
 * more, zeroed, allocated) */
int32_t *cs_rdd_kind_ints_to_pb(const int *v, size_t n);
int *cs_rdd_kind_ints_from_pb(const int32_t *v, size_t n);
/* The splits of a text file, checkpoint or whole-files node: to the message, and back
 * (validated: a path each, within its file; consecutive equal paths share one copy). */
int cs_rdd_kind_splits_to_pb(const cspark_rdd *r, int num_splits, Cspark__RddNode *pb,
                             cs_error *err);
int cs_rdd_kind_splits_from_pb(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err);
/* Splits grouped into partitions by group_start (whole_text_files, data source scans): to the
 * message and back (validated). */
int cs_rdd_kind_file_groups_to_pb(const cspark_rdd *r, Cspark__RddNode *pb, cs_error *err);
int cs_rdd_kind_file_groups_from_pb(const Cspark__RddNode *pb, int idx, cspark_rdd *r,
                                    cs_error *err);
/* Copies splits into r (paths copied, consecutive equal paths shared). */
void cs_rdd_kind_set_splits(cspark_rdd *r, const text_split *splits, int num_splits);

#endif
