/*
 * fallback_storage.h — Spark's FallbackStorage: where a decommissioning executor's map outputs
 * go when no live executor can take them (spark.storage.decommission.fallbackStorage.path, a
 * file: path or an s3a:// prefix, through src/fs). The files keep Spark's layout,
 * <path><appId>/<shuffleId>/shuffle_<shuffleId>_<mapId>_0.data and .index (the index's
 * num_reduces + 1 big-endian offsets), so an output copied there is served by reading the two
 * offsets of a reduce partition from the index and that range of the data file. The driver
 * registers such an output at the placeholder executor CS_FALLBACK_EXECUTOR_ID (Spark's
 * FALLBACK_BLOCK_MANAGER_ID "fallback"); every executor's block fetcher reads blocks located
 * there through cs_fallback_storage_source instead of the network. With
 * spark.storage.decommission.fallbackStorage.cleanUp the driver deletes <path><appId> when the
 * application stops.
 *
 * Used by the executor (copying: executor_decommission.c / shuffle_migration.c; reading:
 * executor.c gives the source to its block fetcher) and by the driver's context stop (clean-up).
 * Ownership: a cs_fallback_storage is its opener's (cs_fallback_storage_free); the source's arg
 * borrows it until the fetcher using it is freed.
 */
#ifndef CSPARK_EXEC_FALLBACK_STORAGE_H
#define CSPARK_EXEC_FALLBACK_STORAGE_H

#include "common/conf.h"
#include "common/err.h"
#include "shuffle/shuffle.h"

/* The executor id map outputs in the fallback storage are registered at. */
#define CS_FALLBACK_EXECUTOR_ID "fallback"

typedef struct cs_fallback_storage cs_fallback_storage;

/* The fallback storage conf names for application app_id into *out: NULL (and 0) when
 * spark.storage.decommission.fallbackStorage.path is unset; CS_EINVAL with one line naming the
 * key when the path does not end with '/' (as Spark requires) or names no file system cspark
 * can use. */
int cs_fallback_storage_open(const cs_conf *conf, const char *app_id, cs_fallback_storage **out,
                             cs_error *err);
void cs_fallback_storage_free(cs_fallback_storage *fb); /* NULL is fine */

/* Copies map output st, whose files are in local_dir (shuffle_writer.c's names), to the fallback
 * storage: data file first, index last (the index makes it readable). 0, or CS_EIO/CS_ENOTFOUND
 * with err naming the file. */
int cs_fallback_storage_copy(const cs_fallback_storage *fb, const char *local_dir,
                             const cs_map_status *st, cs_error *err);

/* A shuffle_block_source (fetch only) reading reduce blocks of outputs copied to fb. */
shuffle_block_source cs_fallback_storage_source(cs_fallback_storage *fb);

/* With spark.storage.decommission.fallbackStorage.cleanUp (default false) and a fallback path:
 * removes <path><app_id> and everything under it. 0 when there is nothing to do. */
int cs_fallback_storage_clean_up(const cs_conf *conf, const char *app_id, cs_error *err);

#endif /* CSPARK_EXEC_FALLBACK_STORAGE_H */
