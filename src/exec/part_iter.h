/*
 * part_iter.h — pull iterators over the batches of one RDD partition. part_iter.c opens one
 * iterator per node of a stage's narrow lineage, by the node's kind's entry in the table of kinds
 * (plan/rdd_kind.h, whose compute builds one of the iterators below or its own); the task runner
 * pulls batches from the top one and feeds its sink.
 *
 * Ownership: an iterator owns its output batch and its parents' iterators; cs_part_iter_free frees
 * the whole chain. A batch returned by next is valid until the following call on the same
 * iterator. Everything here lives on one task thread.
 */
#ifndef CSPARK_EXEC_PART_ITER_H
#define CSPARK_EXEC_PART_ITER_H

#include "exec/task_context.h"

typedef struct part_iter part_iter;
struct part_iter {
    /* 1 = *out holds a batch (possibly empty), 0 = end, <0 = error (err set; for a shuffle
     * fetch failure, tc->result->status is set to TASK_FETCH_FAILED) */
    int (*next)(part_iter *it, const cs_batch **out, cs_error *err);
    void (*free)(part_iter *it);
};

/* Builds the iterator over `partition` of rdd: its cached block when rdd is persisted and the
 * block is held here or on another executor, else computed (and stored when persisted). NULL +
 * err on failure. */
part_iter *cs_part_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                             cs_error *err);
/* The iterator computing `partition` of rdd from its parents, ignoring any cached block. */
part_iter *cs_part_iter_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err);
/* Persisted RDDs (cache_iter.c): read the block (local, else fetched from its holder), else
 * compute the partition and store it as it passes. */
part_iter *cs_cache_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                              cs_error *err);
void cs_part_iter_free(part_iter *it);

/* Text splits: reads the lines of one split into batches (text_reader.c). */
part_iter *cs_text_iter_open(cspark_task_context *tc, const text_split *split, cs_error *err);
/* The per-record narrow kinds (narrow_iter.c): map, flat_map, filter, map_values,
 * flat_map_values, key_by, sample, zip_with_index, partition_tag. */
part_iter *cs_narrow_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                               cs_error *err);
/* map_partitions and map_partitions_with_index (narrow_iter.c). */
part_iter *cs_map_partitions_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                       cs_error *err);
/* A partition's values folded into one record (narrow_iter.c, tree_aggregate's first level). */
part_iter *cs_fold_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                             cs_error *err);
/* A shuffled RDD's partition: its shuffles and narrow parents read and post-processed
 * (shuffled_read.c). */
part_iter *cs_shuffled_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                 cs_error *err);
/* The records of reduce partition `partition` of one shuffle dependency as its map side wrote
 * them (a plain read of dep alone: the SQL node reads its shuffles one at a time,
 * plan/kinds/sql_exec.c). Fetch failures as a shuffled RDD's. */
part_iter *cs_shuffle_dep_iter_open(cspark_task_context *tc, const shuffle_dep *dep, int partition,
                                    cs_error *err);
/* A checkpointed partition's file (checkpoint_io.c). */
part_iter *cs_checkpoint_iter_open(cspark_task_context *tc, const text_split *file, cs_error *err);
/* Whole files: one record (path, content) per file of `partition` (whole_file_reader.c). */
part_iter *cs_whole_files_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                    cs_error *err);

#endif
