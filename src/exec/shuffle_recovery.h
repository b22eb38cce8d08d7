/*
 * shuffle_recovery.h — shuffle files that outlive their executor on a reused volume (Spark's
 * KubernetesLocalDiskShuffleDataIO and KubernetesLocalDiskShuffleExecutorComponents
 * .recoverDiskStore). With spark.shuffle.sort.io.plugin.class set to Spark's
 * org.apache.spark.shuffle.KubernetesLocalDiskShuffleDataIO, an executor marks its local
 * directory with the application id (cs_shuffle_recovery_mark) and leaves its shuffle files behind
 * when it is killed; the next executor whose local directory is on the same volume (the pod took
 * the same PersistentVolumeClaim) finds the directories of earlier executors of the application
 * beside its own, moves every complete map output (its .data and .index files) into its own
 * directory and reports them when it registers, so the driver registers them at the new executor
 * instead of running their map tasks again (cs_shuffle_recover, through
 * cs_shuffle_recovery_attach). Called by the executor (src/exec/executor.c): the mark when it
 * makes its local directory, the recovery when it registers with the driver.
 *
 * Ownership: local_dir and app_id are borrowed for the call; *out (an array of cs_map_status,
 * each with malloc'd sizes) is the caller's: cs_shuffle_recovered_free.
 */
#ifndef CSPARK_EXEC_SHUFFLE_RECOVERY_H
#define CSPARK_EXEC_SHUFFLE_RECOVERY_H

#include <stdbool.h>

#include "cspark.pb-c.h"
#include "common/conf.h"
#include "common/err.h"
#include "shuffle/map_status.h"

/* Spark's value of spark.shuffle.sort.io.plugin.class that turns recovery on. */
#define CS_SHUFFLE_IO_K8S_LOCAL_DISK "org.apache.spark.shuffle.KubernetesLocalDiskShuffleDataIO"

/* Whether conf asks for recovery (spark.shuffle.sort.io.plugin.class is Spark's
 * KubernetesLocalDiskShuffleDataIO; the conf entry refuses any class but it and the default). */
bool cs_shuffle_recovery_enabled(const cs_conf *conf);

/* Writes the application id into local_dir's marker file, which recovery matches, and keeps it
 * open with an exclusive flock until the process ends (the descriptor is never closed): a
 * directory whose marker can be locked is one whose executor is gone, so executors sharing a
 * parent directory (local-cluster, hostPath, a ReadWriteMany claim) never take each other's
 * files. Call once per process. */
int cs_shuffle_recovery_mark(const char *local_dir, const char *app_id, cs_error *err);

/* Recovers into local_dir the map outputs found in the sibling directories (same parent)
 * named like an executor's local directory ("cspark-executor-*") whose marker names app_id and
 * is not locked (its executor is gone): each
 * complete output (an index of num_reduces + 1 ascending big-endian offsets from 0 whose last
 * one is the data file's size) is renamed into local_dir and reported in *out with its sizes
 * (location fields empty, records_written 0); an output found twice is taken once; the sibling
 * directory is then removed with what was not taken. Never fails the executor: an unreadable
 * sibling or output is skipped with a log line. Returns how many outputs *out holds. */
int cs_shuffle_recover(const char *local_dir, const char *app_id, const cs_map_status_opts *opts,
                       cs_map_status **out);

/* Frees what cs_shuffle_recover returned (NULL is fine). */
void cs_shuffle_recovered_free(cs_map_status *outs, int n);

/* When conf turns recovery on: recovers into local_dir (cs_shuffle_recover, with the map-status
 * options of conf) and sets re's recovered_outputs to the outputs found, whose location the
 * driver fills with re's. Called by the executor just before it registers; the messages are
 * re's until cs_shuffle_recovery_detach frees them. */
void cs_shuffle_recovery_attach(Cspark__RegisterExecutor *re, const cs_conf *conf,
                                const char *local_dir, const char *app_id);
void cs_shuffle_recovery_detach(Cspark__RegisterExecutor *re);

#endif /* CSPARK_EXEC_SHUFFLE_RECOVERY_H */
