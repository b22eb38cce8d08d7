/*
 * sql_conf.h — a session's SQL configuration, as Spark's SQLConf: the spark.sql.* keys of the
 * application's conf, then what SET key=value changes for the session (RESET key goes back to
 * the application's value, RESET to all of them). Keys cspark reads are typed and checked when
 * set (a malformed value is refused with the key and what is expected); other spark.sql.* keys
 * are kept as text, as Spark keeps unknown keys.
 *
 * Known keys and Spark's defaults: spark.sql.shuffle.partitions (200),
 * spark.sql.autoBroadcastJoinThreshold (10MB; -1 turns broadcast joins off),
 * spark.sql.ansi.enabled (true), spark.sql.session.timeZone (the process's zone: $TZ, else
 * /etc/localtime, else UTC), spark.sql.files.maxPartitionBytes (128MB),
 * spark.sql.files.openCostInBytes (4MB), spark.sql.files.minPartitionNum (the default
 * parallelism), spark.sql.sources.partitionColumnTypeInference.enabled (true),
 * spark.sql.cbo.enabled (false), spark.sql.cbo.joinReorder.enabled (false),
 * spark.sql.optimizer.maxIterations (100), spark.sql.optimizer.excludedRules (none),
 * spark.sql.cli.print.header (false), spark.sql.sources.partitionOverwriteMode (STATIC),
 * spark.sql.warehouse.dir (spark-warehouse, in the current directory).
 *
 * Ownership: the conf owns its copies; strings it returns are borrowed until the next
 * change. Single-threaded (the session's thread).
 */
#ifndef CSPARK_SESSION_SQL_CONF_H
#define CSPARK_SESSION_SQL_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "sql/optimizer.h"
#include "sql/planner.h"

typedef struct cs_sql_conf cs_sql_conf;

/* The session conf over app's spark.sql.* keys (copied). NULL + err when one is malformed. */
cs_sql_conf *cs_sql_conf_new(const cs_conf *app, cs_error *err);
void cs_sql_conf_free(cs_sql_conf *c);

/* The key's value: set, else the known key's default, else NULL. */
const char *cs_sql_conf_get(const cs_sql_conf *c, const char *key);
/* The key's value when it was set (SET, or the application's conf), else NULL: no default. */
const char *cs_sql_conf_get_set(const cs_sql_conf *c, const char *key);
/* SET key=value: a known key's value is checked first (CS_EINVAL naming key and value). */
int cs_sql_conf_set(cs_sql_conf *c, const char *key, const char *value, cs_error *err);
/* RESET key (NULL: every key) back to the application's value. */
void cs_sql_conf_reset(cs_sql_conf *c, const char *key);

/* Every key with a value (the set ones and the known keys' defaults), sorted: SET's rows. */
typedef struct cs_sql_conf_entry {
    const char *key, *value, *meaning, *since;
} cs_sql_conf_entry;
/* *out: a new array (free it) of *n entries (borrowed strings); known_only: the known keys
 * with their current values and meanings (SET -v), else every set key (SET). */
void cs_sql_conf_list(const cs_sql_conf *c, bool known_only, cs_sql_conf_entry **out, int *n);

/* The settings of the optimizer and the planner (default_parallelism for minPartitionNum). */
int cs_sql_conf_optimizer(const cs_sql_conf *c, cs_sql_optimizer_conf *o, cs_error *err);
int cs_sql_conf_planner(const cs_sql_conf *c, int default_parallelism, cs_sql_planner_conf *p,
                        cs_error *err);
bool cs_sql_conf_bool(const cs_sql_conf *c, const char *key);
/* Adaptive query execution's settings (Spark's spark.sql.adaptive.* keys and defaults). */
typedef struct cs_sql_adaptive_conf {
    bool enabled;               /* spark.sql.adaptive.enabled (true) */
    bool coalesce;              /* spark.sql.adaptive.coalescePartitions.enabled (true) */
    int64_t advisory_size;      /* spark.sql.adaptive.advisoryPartitionSizeInBytes (64m) */
    int64_t min_partition_size; /* spark.sql.adaptive.coalescePartitions.minPartitionSize (1m) */
    /* spark.sql.adaptive.coalescePartitions.minPartitionNum; unset: the default parallelism
     * when spark.sql.adaptive.coalescePartitions.parallelismFirst (true), else 1 */
    int min_partitions;
    /* spark.sql.adaptive.autoBroadcastJoinThreshold, unset: spark.sql.autoBroadcastJoinThreshold
     * (10m); -1: never */
    int64_t broadcast_threshold;
} cs_sql_adaptive_conf;
int cs_sql_conf_adaptive(const cs_sql_conf *c, int default_parallelism, cs_sql_adaptive_conf *a,
                         cs_error *err);
/* An integer key's value (its default when unset): 0, or CS_EINVAL naming the key. */
int cs_sql_conf_int(const cs_sql_conf *c, const char *key, int *out, cs_error *err);

#endif /* CSPARK_SESSION_SQL_CONF_H */
