/*
 * checkpoint_io.h — the files of a reliable checkpoint (Spark's ReliableCheckpointRDD): a task of
 * the checkpoint job writes its partition's records as recio blocks (compressed and checksummed as
 * shuffle blocks) to <dir>/.part-NNNNN-<task id> and renames it to <dir>/part-NNNNN at commit,
 * so a retried or speculative attempt replaces the file whole; a checkpointed RDD's tasks read
 * them back (cs_checkpoint_iter_open, part_iter.h). The directory is on a file system every
 * executor sees (spark.checkpoint.dir). Called by task_runner.c (SINK_CHECKPOINT).
 *
 * Ownership: a ckpt_writer owns its file until commit or abort (abort removes it). One task
 * thread.
 */
#ifndef CSPARK_EXEC_CHECKPOINT_IO_H
#define CSPARK_EXEC_CHECKPOINT_IO_H

#include "exec/task_context.h"

typedef struct ckpt_writer {
    int fd;
    char tmp[4200], final[4200];
    struct recio_writer *w;
} ckpt_writer;

int cs_checkpoint_writer_open(ckpt_writer *c, const task_desc *t, const exec_env *env,
                              cs_error *err);
int cs_checkpoint_writer_add(ckpt_writer *c, const cs_batch *b, cs_error *err);
/* Flushes, syncs and renames the file into place. */
int cs_checkpoint_writer_commit(ckpt_writer *c, cs_error *err);
/* Closes and removes an uncommitted file (no-op after commit or on a zeroed writer). */
void cs_checkpoint_writer_abort(ckpt_writer *c);

#endif
