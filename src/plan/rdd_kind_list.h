/*
 * rdd_kind_list.h — the table's list: every kind of RDD node, one line each, in the order of
 * their numbers on the wire (proto/cspark.proto RddNode.kind: never reorder, only append). A line
 * X(NAME, entry) makes the enumerator RDD_NAME (plan/rdd.h) and puts the table entry
 * cs_rdd_kind_<entry> (a const cs_rdd_kind, plan/rdd_kind.h) at that number (plan/rdd_kind.c).
 *
 * Adding a kind: write src/plan/kinds/<kind>.c defining its cs_rdd_kind_<entry> (Spark's class
 * name, constructor, codec, parents, iterator), append its line here, declare its constructor
 * below, and test it. Nothing else names a kind's fields.
 */
#ifndef CSPARK_PLAN_RDD_KIND_LIST_H
#define CSPARK_PLAN_RDD_KIND_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_RDD_KIND_LIST(X)                                                                        \
    X(PARALLELIZE, parallelize)         /* records held on the driver, sliced */                   \
    X(RANGE, range)                     /* start, end, step */                                     \
    X(TEXT_FILE, text_file)             /* line-aligned byte ranges of files */                    \
    X(MAP, map)                         /* one record per input */                                 \
    X(FLAT_MAP, flat_map)               /* zero or more per input */                               \
    X(FILTER, filter)                   /* keep when the predicate holds */                        \
    X(MAP_PARTITIONS, map_partitions)   /* whole partition through an iterator */                  \
    X(UNION, union)                     /* partitions of each parent in turn */                    \
    X(COALESCE, coalesce)               /* groups of parent partitions */                          \
    X(SHUFFLED, shuffled)               /* reads one or two shuffles and post-processes them */    \
    X(MAP_VALUES, map_values)           /* one value per input, key kept */                        \
    X(FLAT_MAP_VALUES, flat_map_values) /* zero or more values per input, key kept */              \
    X(KEY_BY, key_by)                   /* one key per input; value = the input as a pair */       \
    X(SAMPLE, sample)                   /* a seeded random subset */                               \
    X(ZIP_WITH_INDEX, zip_with_index)   /* (i64 index, pair(record)) */                            \
    X(MAP_PARTITIONS_WITH_INDEX, map_partitions_with_index) /* told the partition index */         \
    X(WHOLE_TEXT_FILES, whole_text_files)                   /* one record per file */              \
    X(PARTITION_TAG, partition_tag)       /* key prefixed with its partition (partition_by) */     \
    X(CARTESIAN, cartesian)               /* pairs of a_i, b_j */                                  \
    X(FOLD_PARTITION, fold_partition)     /* one record: the partition's values folded */          \
    X(CHECKPOINT, checkpoint)             /* a checkpointed RDD's files */                         \
    X(DATASOURCE_SCAN, datasource_scan)   /* a data source's splits as column batches */           \
    X(DATASOURCE_WRITE, datasource_write) /* batches written as files; commit messages out */      \
    X(SQL_EXEC, sql_exec)                 /* one stage of a SQL query's physical plan */

/* The constructors (each defined in its kind's file): a new node of g named `name` (copied), its
 * parents and tables set, with the next id; everything given is copied or borrowed from the same
 * graph (parents). Fields a kind does not take here (functions, aggregators, read modes) are set
 * by the caller on the returned node before it is used. */
struct lineage_graph;
struct cspark_rdd;
struct shuffle_dep;
struct text_split;
struct cs_batch;

/* parallelize: takes the records of *records (moved: *records is left empty), sliced at
 * offsets[0..num_slices] (copied). */
struct cspark_rdd *cs_rdd_parallelize_new(struct lineage_graph *g, struct cs_batch *records,
                                          const size_t *offsets, int num_slices, const char *name);
struct cspark_rdd *cs_rdd_range_new(struct lineage_graph *g, int64_t start, int64_t end,
                                    int64_t step, int num_slices, const char *name);
/* text_file / checkpoint: one partition per split (paths copied, consecutive equal paths shared) */
struct cspark_rdd *cs_rdd_text_file_new(struct lineage_graph *g, const struct text_split *splits,
                                        int num_splits, const char *name);
struct cspark_rdd *cs_rdd_checkpoint_new(struct lineage_graph *g, const struct text_split *files,
                                         int num_files, const char *name);
/* A one-parent node of `kind` with the parent's partitions (map, flat_map, filter,
 * map_partitions, map_values, ..., fold_partition); the caller sets fn (and agg for a fold). */
struct cspark_rdd *cs_rdd_narrow_new(struct lineage_graph *g, int kind, struct cspark_rdd *parent,
                                     const char *name);
/* union(a, b): a's partitions, then b's */
struct cspark_rdd *cs_rdd_union_new(struct lineage_graph *g, struct cspark_rdd *a,
                                    struct cspark_rdd *b, const char *name);
/* coalesce: output partition i reads parent partitions group_start[i]..group_start[i+1]-1
 * (group_start[0..num_partitions] copied; NULL: the parent's partitions split evenly) */
struct cspark_rdd *cs_rdd_coalesce_new(struct lineage_graph *g, struct cspark_rdd *parent,
                                       const int *group_start, int num_partitions,
                                       const char *name);
/* A shuffled node reading `dep` (may be NULL: the caller adds deps and narrow parents) with
 * read_mode a shuffle_read_mode; the caller sets the aggregator where the mode needs one. */
struct cspark_rdd *cs_rdd_shuffled_new(struct lineage_graph *g, struct shuffle_dep *dep,
                                       int read_mode, int num_partitions, const char *name);
/* A data source's scan (splits grouped by group_start[0..num_partitions]) or write (one per
 * partition of parent); desc (datasource/ds_task.h) is packed into the node. */
struct cs_ds_desc;
struct cspark_rdd *cs_rdd_datasource_scan_new(struct lineage_graph *g,
                                              const struct cs_ds_desc *desc,
                                              const struct text_split *splits, int num_splits,
                                              const int *group_start, int num_partitions,
                                              const char *name);
struct cspark_rdd *cs_rdd_datasource_write_new(struct lineage_graph *g,
                                               const struct cs_ds_desc *desc,
                                               struct cspark_rdd *parent, const char *name);
/* One stage of a SQL query (plan/kinds/sql_exec.c): plan is cs_phys_encode of the stage's tree
 * (copied); the caller then adds its shuffle deps (SHUFFLE_READ input i reads dep i) and narrow
 * parents (PARENT_READ input i), and its broadcast inputs (BROADCAST_READ input i reads broadcast
 * variable ids[i], copied) and a root RANGE exchange's bounds (cs_sql_batch_encode of a batch of
 * its sort keys' columns, copied). */
struct cspark_rdd *cs_rdd_sql_exec_new(struct lineage_graph *g, const uint8_t *plan,
                                       size_t plan_len, int num_partitions, const char *name);
void cs_rdd_sql_exec_set_broadcasts(struct cspark_rdd *r, const int64_t *ids, int n);
void cs_rdd_sql_exec_set_range_bounds(struct cspark_rdd *r, const uint8_t *bounds, size_t len);
/* Partition p of r reads shuffle partitions [start[p], end[p]) (r->num_partitions entries,
 * copied): adaptive execution's coalesced shuffle read. */
void cs_rdd_sql_exec_set_read_ranges(struct cspark_rdd *r, const int *start, const int *end);
/* The query's session settings its tasks evaluate with (tz copied; NULL: UTC). */
void cs_rdd_sql_exec_set_session(struct cspark_rdd *r, bool ansi, const char *tz);
/* cartesian(a, b): a's partitions x b's (the caller keeps the product within the limit) */
struct cspark_rdd *cs_rdd_cartesian_new(struct lineage_graph *g, struct cspark_rdd *a,
                                        struct cspark_rdd *b, const char *name);

#endif
