/*
 * sql_conf.c — a session's SQL configuration (sql_conf.h): the application's spark.sql.* keys,
 * SET and RESET over them, Spark's defaults of the keys cspark reads, and the optimizer's and
 * planner's settings made from them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/sql_conf.h"

typedef enum { K_INT, K_SIZE, K_BOOL, K_TEXT, K_ZONE, K_SECONDS } key_type;

static const struct known_key {
    const char *key;
    key_type type;
    const char *dflt; /* NULL: computed (time zone, minPartitionNum) or none */
    const char *meaning, *since;
} known[] = {
    {"spark.sql.adaptive.advisoryPartitionSizeInBytes", K_SIZE, "64MB",
     "The advisory size in bytes of the shuffle partition during adaptive optimization (when "
     "spark.sql.adaptive.enabled is true). It takes effect when Spark coalesces small shuffle "
     "partitions or splits skewed shuffle partition.",
     "3.0.0"},
    {"spark.sql.adaptive.autoBroadcastJoinThreshold", K_SIZE, NULL,
     "Configures the maximum size in bytes for a table that will be broadcast to all worker "
     "nodes when performing a join. By setting this value to -1 broadcasting can be disabled. "
     "The default value is the same as spark.sql.autoBroadcastJoinThreshold. Note that, this "
     "config is used only in adaptive framework.",
     "3.2.0"},
    {"spark.sql.adaptive.coalescePartitions.enabled", K_BOOL, "true",
     "When true and 'spark.sql.adaptive.enabled' is true, Spark will coalesce contiguous shuffle "
     "partitions according to the target size (specified by "
     "'spark.sql.adaptive.advisoryPartitionSizeInBytes'), to avoid too many small tasks.",
     "3.0.0"},
    {"spark.sql.adaptive.coalescePartitions.minPartitionNum", K_INT, NULL,
     "(deprecated) The suggested (not guaranteed) minimum number of shuffle partitions after "
     "coalescing. If not set, the default value is the default parallelism of the Spark "
     "cluster. This configuration only has an effect when 'spark.sql.adaptive.enabled' and "
     "'spark.sql.adaptive.coalescePartitions.enabled' are both true.",
     "3.0.0"},
    {"spark.sql.adaptive.coalescePartitions.minPartitionSize", K_SIZE, "1MB",
     "The minimum size of shuffle partitions after coalescing. This is useful when the adaptively "
     "calculated target size is too small during partition coalescing.",
     "3.2.0"},
    {"spark.sql.adaptive.coalescePartitions.parallelismFirst", K_BOOL, "true",
     "When true, Spark does not respect the target size specified by "
     "'spark.sql.adaptive.advisoryPartitionSizeInBytes' (default 64MB) when coalescing "
     "contiguous shuffle partitions, but adaptively calculate the target size according to the "
     "default parallelism of the Spark cluster.",
     "3.2.0"},
    {"spark.sql.adaptive.enabled", K_BOOL, "true",
     "When true, enable adaptive query execution, which re-optimizes the query plan in the "
     "middle of query execution, based on accurate runtime statistics.",
     "1.6.0"},
    {"spark.sql.ansi.enabled", K_BOOL, "true",
     "When true, Spark SQL uses an ANSI compliant dialect instead of being Hive compliant.",
     "3.0.0"},
    {"spark.sql.autoBroadcastJoinThreshold", K_SIZE, "10MB",
     "Maximum size in bytes for a table that will be broadcast to all worker nodes when "
     "performing a join. By setting this value to -1 broadcasting can be disabled.",
     "1.1.0"},
    {"spark.sql.broadcastExchange.maxThreadThreshold", K_INT, "128",
     "The maximum degree of parallelism to fetch and broadcast the table. If we encounter memory "
     "issue like frequently full GC or OOM when broadcast table we can decrease this number in "
     "order to reduce memory usage. Notice the number should be carefully chosen since decreasing "
     "parallelism might cause longer waiting for other broadcasting. Also, increasing "
     "parallelism may cause memory problem.",
     "3.0.0"},
    {"spark.sql.broadcastTimeout", K_SECONDS, "300",
     "Timeout in seconds for the broadcast wait time in broadcast joins.", "1.3.0"},
    {"spark.sql.cbo.enabled", K_BOOL, "false",
     "Enables CBO for estimation of plan statistics when set true.", "2.2.0"},
    {"spark.sql.cbo.joinReorder.enabled", K_BOOL, "false", "Enables join reorder in CBO.", "2.2.0"},
    {"spark.sql.crossJoin.enabled", K_BOOL, "true",
     "When false, we will throw an error if a query contains a cartesian product without "
     "explicit CROSS JOIN syntax.",
     "2.0.0"},
    {"spark.sql.cli.print.header", K_BOOL, "false",
     "When set to true, spark-sql CLI prints the names of the columns in query output.", "3.2.0"},
    {"spark.sql.exchange.reuse", K_BOOL, "true",
     "When true, the planner will try to find out duplicated exchanges and re-use them.", "2.0.0"},
    {"spark.sql.execution.arrow.maxRecordsPerBatch", K_INT, "10000",
     "When using Apache Arrow, limit the maximum number of records that can be written to a "
     "single ArrowRecordBatch in memory. This configuration is not effective for the grouping "
     "API such as DataFrame(.cogroup).groupby.applyInPandas because each group becomes each "
     "ArrowRecordBatch. If set to zero or negative there is no limit.",
     "2.3.0"},
    {"spark.sql.execution.pandas.convertToArrowArraySafely", K_BOOL, "false",
     "When true, Arrow will perform safe type conversion when converting Pandas.Series to "
     "Arrow array during serialization. Arrow will raise errors when detecting unsafe type "
     "conversion like overflow. When false, disabling Arrow's type check and do type "
     "conversions anyway.",
     "3.0.0"},
    {"spark.sql.execution.pyspark.udf.faulthandler.enabled", K_BOOL, NULL,
     "Same as spark.python.worker.faulthandler.enabled for Python execution with DataFrame and "
     "SQL. It can change during runtime.",
     "4.0.0"},
    {"spark.sql.execution.rangeExchange.sampleSizePerPartition", K_INT, "100",
     "Number of points to sample per partition in order to determine the range boundaries "
     "for range partitioning, typically used in global sorting (without limit).",
     "2.3.0"},
    {"spark.sql.files.maxPartitionBytes", K_SIZE, "128MB",
     "The maximum number of bytes to pack into a single partition when reading files.", "2.0.0"},
    {"spark.sql.files.minPartitionNum", K_INT, NULL,
     "The suggested (not guaranteed) minimum number of split file partitions. If not set, the "
     "default value is `spark.sql.leafNodeDefaultParallelism`.",
     "3.1.0"},
    {"spark.sql.files.openCostInBytes", K_SIZE, "4MB",
     "The estimated cost to open a file, measured by the number of bytes could be scanned in "
     "the same time.",
     "2.0.0"},
    {"spark.sql.leafNodeDefaultParallelism", K_INT, NULL,
     "The default parallelism of Spark SQL leaf nodes that produce data, such as the file scan "
     "node, the local data scan node, the range node, etc. The default value of this config is "
     "'SparkContext#defaultParallelism'.",
     "3.2.0"},
    {"spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName", K_BOOL, "true",
     "When true, columns will be looked up by name if labeled with a string and fallback to use "
     "position if not. When false, a grouped map Pandas UDF will assign columns from the "
     "returned Pandas DataFrame based on position, regardless of column label type.",
     "2.4.1"},
    {"spark.sql.optimizer.excludedRules", K_TEXT, NULL,
     "Configures a list of rules to be disabled in the optimizer, in which the rules are "
     "specified by their rule names and separated by comma.",
     "2.4.0"},
    {"spark.sql.optimizer.maxIterations", K_INT, "100",
     "The max number of iterations the optimizer runs.", "2.0.0"},
    {"spark.sql.session.timeZone", K_ZONE, NULL,
     "The ID of session local timezone in the format of either region-based zone IDs or zone "
     "offsets.",
     "2.2.0"},
    {"spark.sql.shuffle.partitions", K_INT, "200",
     "The default number of partitions to use when shuffling data for joins or aggregations.",
     "1.1.0"},
    {"spark.sql.sources.partitionColumnTypeInference.enabled", K_BOOL, "true",
     "When true, automatically infer the data types for partitioned columns.", "1.5.0"},
    {"spark.sql.sources.partitionOverwriteMode", K_TEXT, "STATIC",
     "When INSERT OVERWRITE a partitioned data source table, we currently support 2 modes: "
     "static and dynamic. In static mode, Spark deletes all the partitions that match the "
     "partition specification(e.g. PARTITION(a=1,b)) in the INSERT statement, before "
     "overwriting. In dynamic mode, Spark doesn't delete partitions ahead, and only overwrite "
     "those partitions that have data written into it at runtime.",
     "2.3.0"},
    {"spark.sql.warehouse.dir", K_TEXT, "spark-warehouse",
     "The default location for managed databases and tables.", "2.0.0"},
};
#define N_KNOWN ((int)(sizeof known / sizeof known[0]))

struct cs_sql_conf {
    cs_conf *app;    /* the application's spark.sql.* keys */
    cs_conf *values; /* the current values: app's, then SET's */
    char zone[128];  /* the process's time zone (the default of session.timeZone) */
};

static const struct known_key *find_known(const char *key)
{
    for (int i = 0; i < N_KNOWN; i++)
        if (strcmp(known[i].key, key) == 0) return &known[i];
    return NULL;
}

/* Java's TimeZone.getDefault: $TZ, else the zone /etc/localtime links to, else UTC. */
static void process_zone(char *out, size_t cap)
{
    const char *tz = getenv("TZ");
    if (tz && *tz == ':') tz++;
    if (tz && *tz) {
        snprintf(out, cap, "%s", tz);
        return;
    }
    char link[PATH_MAX];
    ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
    if (n > 0) {
        link[n] = 0;
        const char *z = strstr(link, "zoneinfo/");
        if (z) {
            snprintf(out, cap, "%s", z + strlen("zoneinfo/"));
            return;
        }
    }
    snprintf(out, cap, "UTC");
}

static int check_value(const struct known_key *k, const char *value, cs_error *err)
{
    int64_t i;
    bool b;
    switch (k->type) {
    case K_INT:
        if (cs_conf_parse_int(k->key, value, &i, err) < 0) return err->code;
        if (i <= 0)
            return cs_error_set(err, CS_EINVAL, "%s=%s: expected a positive integer", k->key,
                                value);
        return 0;
    case K_SIZE:
        if (strcmp(value, "-1") == 0) return 0;
        return cs_conf_parse_size(k->key, value, 1, &i, err) < 0 ? err->code : 0;
    case K_BOOL:
        return cs_conf_parse_bool(k->key, value, &b, err) < 0 ? err->code : 0;
    case K_ZONE:
        if (!*value)
            return cs_error_set(err, CS_EINVAL, "%s is empty: expected a zone id such as UTC",
                                k->key);
        return 0;
    case K_TEXT:
        return 0;
    case K_SECONDS: /* negative: no limit */
        return value[0] == '-' || cs_conf_parse_duration_ms(k->key, value, 1000, &i, err) == 0
                   ? 0
                   : err->code;
    }
    return 0;
}

typedef struct copy_arg {
    cs_sql_conf *c;
    cs_error *err;
    int rc;
} copy_arg;

static void copy_sql_key(void *arg, const char *key, const char *value)
{
    copy_arg *a = arg;
    /* the SQL keys, and the interpreter of Python UDFs' workers (a query's plan carries it) */
    if ((strncmp(key, "spark.sql.", 10) != 0 && strcmp(key, "spark.pyspark.python") != 0) ||
        a->rc < 0)
        return;
    const struct known_key *k = find_known(key);
    if (k && check_value(k, value, a->err) < 0) {
        a->rc = a->err->code;
        return;
    }
    cs_conf_set(a->c->app, key, value);
}

cs_sql_conf *cs_sql_conf_new(const cs_conf *app, cs_error *err)
{
    cs_sql_conf *c = cs_xcalloc(1, sizeof *c);
    c->app = cs_conf_new();
    process_zone(c->zone, sizeof c->zone);
    copy_arg a = {c, err, 0};
    if (app) cs_conf_foreach(app, copy_sql_key, &a);
    if (a.rc < 0) {
        cs_sql_conf_free(c);
        return NULL;
    }
    c->values = cs_conf_clone(c->app);
    return c;
}

void cs_sql_conf_free(cs_sql_conf *c)
{
    if (!c) return;
    cs_conf_free(c->app);
    cs_conf_free(c->values);
    free(c);
}

const char *cs_sql_conf_get(const cs_sql_conf *c, const char *key)
{
    const char *v = cs_conf_get(c->values, key);
    if (v) return v;
    const struct known_key *k = find_known(key);
    if (!k) return NULL;
    if (k->type == K_ZONE) return c->zone;
    return k->dflt;
}

const char *cs_sql_conf_get_set(const cs_sql_conf *c, const char *key)
{
    return cs_conf_get(c->values, key);
}

int cs_sql_conf_set(cs_sql_conf *c, const char *key, const char *value, cs_error *err)
{
    const struct known_key *k = find_known(key);
    if (k && check_value(k, value, err) < 0) return err->code;
    cs_conf_set(c->values, key, value);
    return 0;
}

void cs_sql_conf_reset(cs_sql_conf *c, const char *key)
{
    if (!key) {
        cs_conf_free(c->values);
        c->values = cs_conf_clone(c->app);
        return;
    }
    const char *v = cs_conf_get(c->app, key);
    if (v)
        cs_conf_set(c->values, key, v);
    else
        cs_conf_unset(c->values, key);
}

typedef struct list_arg {
    cs_sql_conf_entry *e;
    int n, cap;
} list_arg;

static void add_entry(list_arg *l, cs_sql_conf_entry e)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->e = cs_xrealloc(l->e, (size_t)l->cap * sizeof *l->e);
    }
    l->e[l->n++] = e;
}

static void list_set_key(void *arg, const char *key, const char *value)
{
    list_arg *l = arg;
    const struct known_key *k = find_known(key);
    add_entry(l, (cs_sql_conf_entry){key, value, k ? k->meaning : "", k ? k->since : ""});
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const cs_sql_conf_entry *)a)->key, ((const cs_sql_conf_entry *)b)->key);
}

void cs_sql_conf_list(const cs_sql_conf *c, bool known_only, cs_sql_conf_entry **out, int *n)
{
    list_arg l = {0};
    if (known_only) {
        for (int i = 0; i < N_KNOWN; i++) {
            const char *v = cs_sql_conf_get(c, known[i].key);
            add_entry(&l, (cs_sql_conf_entry){known[i].key, v ? v : "<undefined>", known[i].meaning,
                                              known[i].since});
        }
    } else {
        cs_conf_foreach(c->values, list_set_key, &l);
    }
    if (l.n) qsort(l.e, (size_t)l.n, sizeof *l.e, by_key);
    *out = l.e;
    *n = l.n;
}

bool cs_sql_conf_bool(const cs_sql_conf *c, const char *key)
{
    const char *v = cs_sql_conf_get(c, key);
    bool b = false;
    cs_error ignored;
    return v && cs_conf_parse_bool(key, v, &b, &ignored) == 0 && b;
}

static int get_int(const cs_sql_conf *c, const char *key, int64_t *out, cs_error *err)
{
    const char *v = cs_sql_conf_get(c, key);
    return cs_conf_parse_int(key, v ? v : "0", out, err) < 0 ? err->code : 0;
}

static int get_size(const cs_sql_conf *c, const char *key, int64_t *out, cs_error *err)
{
    const char *v = cs_sql_conf_get(c, key);
    if (v && strcmp(v, "-1") == 0) {
        *out = -1;
        return 0;
    }
    return cs_conf_parse_size(key, v ? v : "0", 1, out, err) < 0 ? err->code : 0;
}

int cs_sql_conf_int(const cs_sql_conf *c, const char *key, int *out, cs_error *err)
{
    int64_t v;
    if (get_int(c, key, &v, err) < 0) return err->code;
    *out = (int)(v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : v);
    return 0;
}

int cs_sql_conf_adaptive(const cs_sql_conf *c, int default_parallelism, cs_sql_adaptive_conf *a,
                         cs_error *err)
{
    memset(a, 0, sizeof *a);
    a->enabled = cs_sql_conf_bool(c, "spark.sql.adaptive.enabled");
    a->coalesce = cs_sql_conf_bool(c, "spark.sql.adaptive.coalescePartitions.enabled");
    if (get_size(c, "spark.sql.adaptive.advisoryPartitionSizeInBytes", &a->advisory_size, err) <
            0 ||
        get_size(c, "spark.sql.adaptive.coalescePartitions.minPartitionSize",
                 &a->min_partition_size, err) < 0)
        return err->code;
    int64_t min_parts = 1;
    if (cs_sql_conf_get(c, "spark.sql.adaptive.coalescePartitions.minPartitionNum")) {
        if (get_int(c, "spark.sql.adaptive.coalescePartitions.minPartitionNum", &min_parts, err) <
            0)
            return err->code;
    } else if (cs_sql_conf_bool(c, "spark.sql.adaptive.coalescePartitions.parallelismFirst")) {
        min_parts = default_parallelism > 0 ? default_parallelism : 1;
    }
    a->min_partitions = (int)(min_parts > INT_MAX ? INT_MAX : min_parts);
    const char *thr = cs_sql_conf_get(c, "spark.sql.adaptive.autoBroadcastJoinThreshold")
                          ? "spark.sql.adaptive.autoBroadcastJoinThreshold"
                          : "spark.sql.autoBroadcastJoinThreshold";
    return get_size(c, thr, &a->broadcast_threshold, err) < 0 ? err->code : 0;
}

int cs_sql_conf_optimizer(const cs_sql_conf *c, cs_sql_optimizer_conf *o, cs_error *err)
{
    int64_t iters;
    if (get_int(c, "spark.sql.optimizer.maxIterations", &iters, err) < 0) return err->code;
    cs_sql_optimizer_conf_default(o);
    /* constant folding evaluates as the query would: the session's ANSI mode and zone */
    o->ansi = cs_sql_conf_bool(c, "spark.sql.ansi.enabled");
    o->session_tz = cs_sql_conf_get(c, "spark.sql.session.timeZone");
    o->cbo = cs_sql_conf_bool(c, "spark.sql.cbo.enabled");
    o->join_reorder = cs_sql_conf_bool(c, "spark.sql.cbo.joinReorder.enabled");
    o->cross_join = cs_sql_conf_bool(c, "spark.sql.crossJoin.enabled");
    o->max_iterations = (int)iters;
    o->excluded_rules = cs_sql_conf_get(c, "spark.sql.optimizer.excludedRules");
    if (get_size(c, "spark.sql.autoBroadcastJoinThreshold", &o->broadcast_threshold, err) < 0)
        return err->code;
    return 0;
}

int cs_sql_conf_planner(const cs_sql_conf *c, int default_parallelism, cs_sql_planner_conf *p,
                        cs_error *err)
{
    int64_t parts, leaf = default_parallelism;
    if (cs_sql_conf_get(c, "spark.sql.leafNodeDefaultParallelism") &&
        get_int(c, "spark.sql.leafNodeDefaultParallelism", &leaf, err) < 0)
        return err->code;
    int64_t min_parts = leaf;
    if (get_int(c, "spark.sql.shuffle.partitions", &parts, err) < 0 ||
        get_size(c, "spark.sql.autoBroadcastJoinThreshold", &p->auto_broadcast_threshold, err) <
            0 ||
        get_size(c, "spark.sql.files.maxPartitionBytes", &p->max_partition_bytes, err) < 0 ||
        get_size(c, "spark.sql.files.openCostInBytes", &p->open_cost_bytes, err) < 0)
        return err->code;
    if (cs_sql_conf_get(c, "spark.sql.files.minPartitionNum") &&
        get_int(c, "spark.sql.files.minPartitionNum", &min_parts, err) < 0)
        return err->code;
    p->shuffle_partitions = (int)(parts > INT_MAX ? INT_MAX : parts);
    p->min_partitions = (int)(min_parts > INT_MAX ? INT_MAX : min_parts);
    p->leaf_parallelism = (int)(leaf > INT_MAX ? INT_MAX : leaf < 1 ? 1 : leaf);
    p->partition_type_inference =
        cs_sql_conf_bool(c, "spark.sql.sources.partitionColumnTypeInference.enabled");
    if (get_int(c, "spark.sql.execution.arrow.maxRecordsPerBatch", &p->arrow_max_records, err) < 0)
        return err->code;
    p->arrow_safe_cast =
        cs_sql_conf_bool(c, "spark.sql.execution.pandas.convertToArrowArraySafely");
    p->pandas_columns_by_name =
        cs_sql_conf_bool(c, "spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName");
    const char *fh = "spark.sql.execution.pyspark.udf.faulthandler.enabled";
    if (!cs_sql_conf_get(c, fh)) fh = "spark.python.worker.faulthandler.enabled";
    p->py_faulthandler = cs_sql_conf_bool(c, fh);
    p->python_exec = cs_sql_conf_get(c, "spark.pyspark.python");
    if (!p->python_exec || !p->python_exec[0]) p->python_exec = getenv("PYSPARK_PYTHON");
    if (!p->python_exec || !p->python_exec[0]) p->python_exec = "python3";
    return 0;
}
