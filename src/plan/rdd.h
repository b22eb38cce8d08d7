/*
 * rdd.h — the lineage graph: RDD nodes and shuffle dependencies. On the driver the public
 * functions of cspark.h (src/api) add nodes to the context's graph and the DAG scheduler cuts it
 * into stages at shuffle dependencies; on an executor the stage plan decoder rebuilds the narrow
 * lineage of one stage into a graph of its own; in both, the task runner (src/exec) computes one
 * partition of a node by pulling batches through its parents. A node is the same thing in every
 * process: it belongs to exactly one lineage_graph, which frees it.
 *
 * Ownership: a lineage_graph owns every node and dependency added to it, with their closure
 * copies, source data and tables (cs_lineage_free, or cs_lineage_release for a part). Nodes are
 * immutable once built (but for the storage level, which the driver changes only between jobs), so
 * tasks on any thread may read them without locks; adding to a graph is thread-safe (the graph's
 * lock).
 */
#ifndef CSPARK_PLAN_RDD_H
#define CSPARK_PLAN_RDD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "records/batch.h"
#include "cspark.h"
#include "plan/fn_ref.h"
#include "plan/rdd_kind_list.h"
#include "shuffle/shuffle.h"

struct lineage_graph;

/* The kinds of node, numbered as on the wire; each has its entry in the table of kinds
 * (plan/rdd_kind.h), which gives its Spark class name, codec, parents and iterator. */
typedef enum {
#define CS_RDD_KIND_ENUM(name, entry) RDD_##name,
    CS_RDD_KIND_LIST(CS_RDD_KIND_ENUM)
#undef CS_RDD_KIND_ENUM
        RDD_KIND_COUNT
} rdd_kind;
#define RDD_KIND_LAST (RDD_KIND_COUNT - 1)

/* RDD_SAMPLE's closure: keep a record when its draw u (uniform in [0,1)) is in [lo, hi), or,
 * with replacement, repeat it Poisson(fraction) times. Same process layout everywhere. */
typedef struct sample_params {
    double lo, hi, fraction;
    uint64_t seed;
    uint32_t with_replacement;
} sample_params;

/* How a shuffled RDD turns the records it reads into its output. */
typedef enum {
    SHUFFLE_READ_PLAIN,     /* records as read (repartition) */
    SHUFFLE_READ_AGGREGATE, /* one record per key through an aggregator (reduce/aggregate/group) */
    SHUFFLE_READ_SORT,      /* sorted by key (sort_by_key) */
    SHUFFLE_READ_COGROUP    /* two tagged shuffles aggregated into pair(list, list) */
} shuffle_read_mode;

/* One input split of a text file. */
typedef struct text_split {
    const char *path; /* owned by the RDD's path table */
    uint64_t start, length, file_size;
} text_split;

/* Spark's Aggregator as the plan carries it: function references (with the closure on
 * merge_value) and an optional zero value; cs_plan_aggregator_bind gives the shuffle's view. */
typedef struct plan_aggregator {
    fn_ref create, merge_value, merge_combiners;
    uint8_t *zero;
    uint32_t zero_len;
    bool has_zero;
} plan_aggregator;

/* A shuffle dependency: the map side (parent RDD partitioned by `partitioner`, optionally
 * combined) of a shuffled RDD. Shared by every job that reads it, which is how a shuffle
 * computed by an earlier job is reused. */
typedef struct shuffle_dep {
    int shuffle_id;
    struct cspark_rdd *parent; /* the map side */
    cs_partitioner partitioner;
    cspark_slice *range_bounds; /* owned backing for partitioner.bounds */
    uint8_t *range_bound_data;
    bool map_side_combine;
    plan_aggregator agg; /* for map-side combine */
} shuffle_dep;

/* Spark's RDD.partitioner: how the records of an RDD were placed in its partitions by key, known
 * on the driver only (stage plans do not carry it). Equal partitioners (cs_rdd_partitioner_equal)
 * put every key in the same partition, so an operation whose partitioner equals its parent's reads
 * that parent narrowly (Spark's OneToOneDependency in CoGroupedRDD, reduceByKey without a
 * shuffle). Kinds and their equality, as Spark's: HASH (HashPartitioner: same number of
 * partitions), RANGE (RangePartitioner: same bounds and order), FUNCTION (partition_by's function:
 * same function, closure bytes and number of partitions, as PySpark's PythonPartitioner). */
typedef enum {
    RDD_PARTITIONER_NONE,
    RDD_PARTITIONER_HASH,
    RDD_PARTITIONER_RANGE,
    RDD_PARTITIONER_FUNCTION
} rdd_partitioner_kind;

typedef struct rdd_partitioner {
    rdd_partitioner_kind kind;
    int num_partitions;
    const cs_partitioner *range; /* RANGE: the sort's dependency's partitioner (bounds, order);
                                    borrowed from the graph */
    const fn_ref *fn;            /* FUNCTION: partition_by's function and closure (its tagging
                                    node's fn); borrowed from the graph */
} rdd_partitioner;

struct cspark_rdd {
    struct lineage_graph *graph; /* the graph that owns it */
    int id;
    rdd_kind kind;
    int num_partitions;
    char *name;   /* "reduce_by_key at wordcount.so" — used in stage names */
    bool barrier; /* Spark's RDDBarrier: a node of barrier mode (mapInPandas(barrier=True)); driver
                     only (a barrier task's descriptor says so to executors) */

    struct cspark_rdd *parents[2];
    int num_parents;
    fn_ref fn; /* map / flat_map / filter / map_partitions */

    /* RDD_PARALLELIZE: all records, and where each slice starts (num_partitions + 1). */
    cs_batch par_data;
    size_t *par_offsets;
    /* RDD_RANGE */
    int64_t range_start, range_end, range_step;
    /* RDD_TEXT_FILE */
    text_split *splits;
    char **paths;
    int num_paths;
    /* RDD_UNION: partition i -> (parent, parent partition) */
    int *union_parent, *union_index;
    /* RDD_COALESCE: output partition i reads parent partitions group_start[i]..group_start[i+1]-1
     */
    int *group_start;

    /* RDD_SHUFFLED: the inputs are the shuffles deps[0..num_deps) and, read narrowly (partition
     * i of the parent is partition i here: it is partitioned as this node), the parents
     * parents[0..num_parents); one of each, two shuffles or two parents for a cogroup */
    shuffle_dep *deps[2];
    int num_deps;
    shuffle_read_mode read_mode;
    plan_aggregator agg;       /* SHUFFLE_READ_AGGREGATE / COGROUP */
    bool values_are_combiners; /* the map side already combined */
    bool ascending;            /* SHUFFLE_READ_SORT */

    /* RDD_DATASOURCE_SCAN / _WRITE: the packed description (proto DataSourceDesc) */
    uint8_t *datasource;
    size_t datasource_len;

    /* RDD_SQL_EXEC: the stage's encoded physical plan (proto SqlPlan), a root RANGE exchange's
     * bounds (an encoded batch, NULL: none), the broadcast variables its BROADCAST_READ leaves
     * read, and the plan decoded once where the node was decoded (NULL on the driver), freed
     * with sql_tree_free */
    uint8_t *sql_plan, *sql_bounds;
    size_t sql_plan_len, sql_bounds_len;
    int64_t *broadcast_ids;
    int num_broadcasts;
    /* > 0: a range exchange's sampling node (the root EXCHANGE's input is sampled, not
     * partitioned): each task outputs one record, key = its row count (8 bytes big-endian),
     * value = a reservoir sample of this many rows' sort keys (an encoded batch) */
    int sql_sample_size;
    /* adaptive execution's coalesced reads (Spark's AQEShuffleRead of CoalescedPartitionSpecs):
     * partition p reads partitions [sql_read_start[p], sql_read_end[p]) of every shuffle the
     * node reads (num_partitions entries each); NULL: partition p reads partition p */
    int *sql_read_start, *sql_read_end;
    void *sql_tree;
    void (*sql_tree_free)(void *tree);
    /* RDD_SQL_EXEC: the query's session settings the operators read (SET in the session):
     * sql_session set, spark.sql.ansi.enabled and spark.sql.session.timeZone (owned) */
    bool sql_session, sql_ansi;
    char *sql_tz;

    /* cspark_storage_level: partitions are kept as blocks where they are computed (set by
     * cspark_persist on the driver between jobs, carried by the stage plan) */
    int storage_level;

    rdd_partitioner partitioner; /* driver only: NONE unless the records are placed by key */
};

/* The nodes and dependencies of one application (driver) or one stage plan (executor). */
typedef struct lineage_graph {
    pthread_mutex_t lock; /* guards the arrays and counters */
    struct cspark_rdd **rdds;
    int num_rdds, cap_rdds;
    shuffle_dep **deps;
    int num_deps, cap_deps;
    int next_rdd_id, next_shuffle_id;
} lineage_graph;

void cs_lineage_init(lineage_graph *g);
/* Frees every node and dependency of the graph (not the graph struct itself). */
void cs_lineage_free(lineage_graph *g);
/* Takes nodes rdds[0..n) and dependencies deps[0..nd) out of g and frees them, before the
 * application ends: a finished SQL execution's, which nothing refers to any more (its jobs
 * ended and its shuffles were removed from the scheduler). Thread-safe as adding. */
void cs_lineage_release(lineage_graph *g, cspark_rdd *const *rdds, int n, shuffle_dep *const *deps,
                        int nd);
/* A new node of g with the next id, named `name` (copied). */
cspark_rdd *cs_rdd_new(lineage_graph *g, rdd_kind kind, int num_partitions, const char *name);
/* A new shuffle dependency of g with the next shuffle id, whose map side is parent. */
shuffle_dep *cs_shuffle_dep_new(lineage_graph *g, cspark_rdd *parent);
/* Spark's RDD.isBarrier: rdd or a node it reads narrowly (within its stage) is a barrier node, so
 * its stage is a barrier stage. */
bool cs_rdd_is_barrier(const cspark_rdd *rdd);
/* True when a and b place every key in the same partition (neither is NONE). */
bool cs_rdd_partitioner_equal(const rdd_partitioner *a, const rdd_partitioner *b);
/* The partitioner a shuffle dependency's reduce side has: HASH or RANGE as the dependency's
 * (borrowing its bounds), NONE for round robin. */
rdd_partitioner cs_rdd_partitioner_of_dep(const shuffle_dep *d);
/* The shuffle's aggregator over a's functions and zero (borrowed), calling them with tc. */
void cs_plan_aggregator_bind(const plan_aggregator *a, cspark_task_context *tc, cs_aggregator *out);

#endif
