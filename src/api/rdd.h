/*
 * rdd.h — the lineage graph built on the driver: RDD nodes, function references and shuffle
 * dependencies. The public functions of cspark.h (transformations.c, sources.c) create nodes;
 * the DAG scheduler cuts the graph into stages at shuffle dependencies; the task runner
 * (exec/task_runner.c) computes one partition of a node by pulling batches through its parents.
 *
 * Ownership: every node, its closure copies, source data and shuffle dependencies belong to the
 * context (context.c keeps a list) and are freed when the context stops. Nodes are immutable
 * once created, so tasks on any thread may read them without locks.
 */
#ifndef CSPARK_API_RDD_H
#define CSPARK_API_RDD_H

#include <stdbool.h>
#include <stdint.h>

#include "common/batch.h"
#include "cspark.h"
#include "shuffle/shuffle.h"

typedef enum {
    RDD_PARALLELIZE,    /* records held on the driver, sliced */
    RDD_RANGE,          /* start, end, step */
    RDD_TEXT_FILE,      /* line-aligned byte ranges of files */
    RDD_MAP,            /* one record per input */
    RDD_FLAT_MAP,       /* zero or more per input */
    RDD_FILTER,         /* keep when the predicate holds */
    RDD_MAP_PARTITIONS, /* whole partition through an iterator */
    RDD_UNION,          /* partitions of each parent in turn */
    RDD_COALESCE,       /* groups of parent partitions */
    RDD_SHUFFLED        /* reads one or two shuffles and post-processes them */
} rdd_kind;

/* How a shuffled RDD turns the records it reads into its output. */
typedef enum {
    SHUFFLE_READ_PLAIN,     /* records as read (repartition) */
    SHUFFLE_READ_AGGREGATE, /* one record per key through an aggregator (reduce/aggregate/group) */
    SHUFFLE_READ_SORT,      /* sorted by key (sort_by_key) */
    SHUFFLE_READ_COGROUP    /* two tagged shuffles aggregated into pair(list, list) */
} shuffle_read_mode;

/* A user (or built-in) function: its symbol name, its address on this process, and the closure
 * bytes copied at creation. */
typedef struct fn_ref {
    char *name;       /* exported symbol name; owned by the fn_ref */
    void *ptr;        /* resolved address (dladdr on the driver, dlsym elsewhere) */
    uint8_t *closure; /* owned copy, may be NULL */
    size_t closure_len;
} fn_ref;

/* One input split of a text file. */
typedef struct text_split {
    const char *path; /* owned by the RDD's path table */
    uint64_t start, length, file_size;
} text_split;

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
    fn_ref agg_create, agg_merge_value, agg_merge_combiners; /* for map-side combine */
    uint8_t *agg_zero;
    uint32_t agg_zero_len;
    bool agg_has_zero;
} shuffle_dep;

struct cspark_rdd {
    cspark_context *sc;
    int id;
    rdd_kind kind;
    int num_partitions;
    char *name; /* "reduce_by_key at wordcount.so" — used in stage names */

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

    /* RDD_SHUFFLED */
    shuffle_dep *deps[2];
    int num_deps;
    shuffle_read_mode read_mode;
    fn_ref agg_create, agg_merge_value, agg_merge_combiners;
    uint8_t *agg_zero;
    uint32_t agg_zero_len;
    bool agg_has_zero;
    bool values_are_combiners; /* the map side already combined */
    bool ascending;            /* SHUFFLE_READ_SORT */
};

/* Resolves `fn` to its exported symbol name (dladdr); refuses static functions and addresses
 * that are not the start of a symbol. Copies the closure. CS_EINVAL with a clear message. */
int cs_fn_ref_init(cspark_context *sc, fn_ref *ref, void *fn, const void *closure, size_t len,
                   const char *what, cs_error *err);

#endif
