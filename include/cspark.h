/*
 * cspark.h — the public job API of cspark, the only header a job includes.
 *
 * A job is a shared object with an entry function (default `cspark_main`) that cspark-submit
 * loads and calls with a context. The job builds a lineage of RDDs with transformations and
 * runs it with actions, exactly as in Spark:
 *
 *     int cspark_main(cspark_context *sc, int argc, char **argv) {
 *         cspark_rdd *lines  = cspark_text_file(sc, argv[1], 0);
 *         cspark_rdd *words  = cspark_flat_map(lines, split_words, NULL, 0);
 *         cspark_rdd *counts = cspark_reduce_by_key(words, cspark_sum_i64, NULL, 0, 0);
 *         return cspark_save_as_text_file(cspark_map(counts, format_count, NULL, 0), argv[2]);
 *     }
 *
 * Records. Every element of an RDD is a record: a key and a value, each a byte slice. Data sources
 * that have no key (text_file, parallelize of plain items) put the item in the key and leave the
 * value empty. Records travel in batches over buffers; a record passed to a user function is
 * borrowed and valid only during that call. Numbers are encoded with the helpers below, whose
 * byte order sorts like the numbers, so sort_by_key on encoded numbers sorts numerically.
 *
 * Functions. Functions given to transformations are referenced by their exported symbol name:
 * cspark resolves the name on the driver (dladdr) and again wherever the task runs (dlsym), so a
 * function must be non-static and exported from the job's .so (the default for -fPIC builds).
 * A `static` function or an address that is not a symbol is refused with a clear error. Data a
 * function needs beyond its record is passed as an explicit closure buffer, copied when the
 * transformation is created, and handed back through cspark_closure().
 *
 * What runs where. cspark_main runs on the driver; the functions run inside tasks, on executors
 * (other processes, other machines) that load the job's .so afresh. So globals set in cspark_main
 * and pointers inside closures do not travel: pass small values as closure bytes, large ones as
 * broadcast data, and count with accumulators or in a job's result. In local[N] tasks run on the
 * driver's threads, where a driver global happens to be visible; on a cluster it is not (see
 * docs/job-api.md, "What runs where").
 *
 * Ownership. RDDs belong to their context and live until the context stops; jobs never free
 * them. Results returned by actions (cspark_records, reduce buffers) belong to the caller and are
 * freed with cspark_records_free() / free(). Errors: transformations return NULL on error and
 * actions return a negative CSPARK_E* code (below; cspark_strerror names it); cspark_last_error()
 * then tells why, and cspark-submit exits non-zero. A NULL parent is accepted and yields NULL, so a
 * chain stops at the first error. A job cancelled on request (the web UI's kill,
 * cspark_cancel_job_group) fails only its action, as in Spark: later actions run, and the
 * application's own exit status counts.
 */
#ifndef CSPARK_H
#define CSPARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CSPARK_VERSION "0.1.0"

/* The most bytes one record may hold, key and value together (256 MiB): a record travels in one
 * block of the shuffle and spill format. A longer record — cspark_emit or cspark_emit_reserve
 * with key_len + value_len above it, an accumulator grown past it with cspark_value_set or
 * cspark_value_resize — fails its task with a message naming this limit; parallelize and the
 * zero value of aggregate_by_key and fold refuse such records up front. */
#define CSPARK_MAX_RECORD_BYTES ((size_t)256 << 20)

/* Marks the functions libcspark exports. The library is built with hidden visibility, so these
 * declarations are its whole dynamic interface: nothing internal can bind to (or be bound by) a
 * job's own symbols, whatever the job names its functions. */
#if defined(__GNUC__) || defined(__clang__)
#define CSPARK_EXTERN __attribute__((visibility("default")))
#else
#define CSPARK_EXTERN
#endif

/* ---- error codes ------------------------------------------------------------------------- */

/* What a failing call returns: CSPARK_OK (0) or one of these negative codes. Decide on the code;
 * the text of cspark_last_error is for people and may change. */
enum {
    CSPARK_OK = 0,
    CSPARK_EINVAL = -1,       /* an invalid argument or configuration value */
    CSPARK_ENOMEM = -2,       /* out of memory, or a memory limit reached */
    CSPARK_EIO = -3,          /* an input/output or network failure */
    CSPARK_ENOTFOUND = -4,    /* a file, path, object or name that does not exist */
    CSPARK_EEXIST = -5,       /* something that should not exist already does (an output path) */
    CSPARK_EUNSUPPORTED = -6, /* a feature, scheme or option this build does not serve */
    CSPARK_ETASK = -7,        /* a task failed too often (spark.task.maxFailures): job aborted */
    CSPARK_ECANCELLED = -8,   /* the job was cancelled (its group, the web UI's kill, a signal) or
                                 the context failed earlier */
    CSPARK_ETIMEOUT = -9,     /* something did not happen in time */
    CSPARK_EPROTO = -10,      /* a peer or server answered what the protocol does not allow */
    CSPARK_EAUTH = -11        /* credentials refused or permission denied (Kubernetes RBAC) */
};

/* What a CSPARK_E* code means, in a few words ("not found", ...); never NULL, static. */
CSPARK_EXTERN const char *cspark_strerror(int code);

typedef struct cspark_context cspark_context;           /* one per application */
typedef struct cspark_rdd cspark_rdd;                   /* a node of the lineage graph */
typedef struct cspark_emitter cspark_emitter;           /* where user functions emit records */
typedef struct cspark_iterator cspark_iterator;         /* input of map_partitions functions */
typedef struct cspark_task_context cspark_task_context; /* the running task (Spark's TaskContext) */
typedef struct cspark_records cspark_records;           /* records returned by collect/take */

/* A borrowed byte slice. */
typedef struct cspark_slice {
    const uint8_t *ptr;
    uint32_t len;
} cspark_slice;

/* A key/value record; both slices are borrowed. */
typedef struct cspark_record {
    cspark_slice key;
    cspark_slice value;
} cspark_record;

/* A mutable accumulator value owned by an aggregation (reduce_by_key, fold, ...). A reduce
 * function updates it in place when the size does not change, or calls cspark_value_set /
 * cspark_value_resize, which move it into space owned by the aggregation. */
typedef struct cspark_value {
    uint8_t *ptr;
    uint32_t len;
    uint32_t cap;
    void *owner; /* internal: the allocator the value lives in */
} cspark_value;

/* ---- user function types ---------------------------------------------------------------- */

/* map: emit exactly one record per input. flat_map: emit zero or more. */
typedef void (*cspark_map_fn)(const cspark_record *in, cspark_emitter *out,
                              cspark_task_context *tc);
/* filter: keep the record when true. */
typedef bool (*cspark_filter_fn)(const cspark_record *in, cspark_task_context *tc);
/* map_partitions: consume the whole partition through `in`, emit anything to `out`. */
typedef void (*cspark_partition_fn)(cspark_iterator *in, cspark_emitter *out,
                                    cspark_task_context *tc);
/* reduce: fold `value` into `acc` (acc = f(acc, value)). Must be associative and commutative. */
typedef void (*cspark_reduce_fn)(cspark_value *acc, cspark_slice value, cspark_task_context *tc);
/* partition_by: the partition (0 .. num_partitions-1) of a record's key. */
typedef int (*cspark_partitioner_fn)(cspark_slice key, int num_partitions, cspark_task_context *tc);
/* foreach: side effects only. */
typedef void (*cspark_foreach_fn)(const cspark_record *in, cspark_task_context *tc);
/* map_partitions_with_index: as map_partitions, told the partition's index. */
typedef void (*cspark_partition_index_fn)(int index, cspark_iterator *in, cspark_emitter *out,
                                          cspark_task_context *tc);

/* ---- sources ----------------------------------------------------------------------------- */

/* Distributes copies of `n` records over `num_slices` partitions (0 = default parallelism). */
CSPARK_EXTERN cspark_rdd *cspark_parallelize(cspark_context *sc, const cspark_record *records,
                                             size_t n, int num_slices);
/* Numbers start, start+step, ... < end (step > 0) as records with key = cspark_i64 encoding and
 * an empty value, in `num_slices` partitions (0 = default parallelism). */
CSPARK_EXTERN cspark_rdd *cspark_range(cspark_context *sc, int64_t start, int64_t end, int64_t step,
                                       int num_slices);
/* Lines of text files: `path` is a file, a directory (its visible files) or a glob, or several
 * of these separated by commas. Files are split into byte ranges (at least `min_partitions`,
 * 0 = default) aligned to lines as Hadoop's TextInputFormat does. Each record's key is one line
 * without its terminator ("\n" or "\r\n"); the value is empty. */
CSPARK_EXTERN cspark_rdd *cspark_text_file(cspark_context *sc, const char *path,
                                           int min_partitions);
/* Whole files, as Spark's wholeTextFiles: one record per file whose key is the file's path (as
 * listed: a local path or s3a://bucket/key) and whose value is its whole content (decompressed
 * when its name has a codec's extension). `path` takes what text_file takes. Files are grouped
 * in listing order into about `min_partitions` partitions of similar size (0 = default). A file
 * larger than CSPARK_MAX_RECORD_BYTES fails its task naming the file. */
CSPARK_EXTERN cspark_rdd *cspark_whole_text_files(cspark_context *sc, const char *path,
                                                  int min_partitions);

/* ---- data sources: files as column batches (docs/datasource.md) --------------------------- */

/* Reads the files of a data source as Spark's DataSource does: `format` is a file format's short
 * name ("text", ...), paths[0..n_paths) files, directories (read at every depth, `key=value`
 * folders becoming partition columns) or globs, on any file system (file:, s3a://); options a
 * NULL-terminated list of key, value pairs (Spark's names: recursiveFileLookup, pathGlobFilter,
 * basePath, and the format's, e.g. wholetext, lineSep), NULL for none; schema the files' columns as
 * Spark's DDL ("line STRING"; NULL: the format infers them). The RDD has one partition
 * per FilePartition (spark.sql.files.maxPartitionBytes, openCostInBytes); each record is one
 * column batch (empty key; value: an Arrow IPC stream, see cspark_batch_decode) holding the
 * format's columns then the partition columns. */
CSPARK_EXTERN cspark_rdd *cspark_read_files(cspark_context *sc, const char *format,
                                            const char *const *paths, int n_paths,
                                            const char *schema, const char *const *options);

/* Writes an RDD of column batches (records as cspark_read_files makes them) to the directory
 * `path` with `format`: mode "errorifexists" (NULL, "error", "default"), "overwrite", "append"
 * or "ignore", as Spark's save modes; partition_by a NULL-terminated list of columns whose
 * values make `name=value` folders (NULL: none); options as for reading (e.g. compression). Part
 * files are named part-NNNNN-<uuid>.c000.<ext>; the output is committed when every task is done
 * (_SUCCESS last); a failed job leaves nothing of its own visible. 0 or a CSPARK_E* code. */
CSPARK_EXTERN int cspark_write_files(cspark_rdd *batches, const char *format, const char *path,
                                     const char *mode, const char *const *partition_by,
                                     const char *const *options);

/* One column batch decoded from a record's value (a copy: the record may go). NULL when the
 * value is no Arrow IPC stream of one batch. Accessors take a column index and a row below the
 * batch's counts; values of a null cell are 0 / empty. Free with cspark_batch_free. */
typedef struct cspark_batch cspark_batch;
CSPARK_EXTERN cspark_batch *cspark_batch_decode(cspark_slice value);
CSPARK_EXTERN int64_t cspark_batch_num_rows(const cspark_batch *b);
CSPARK_EXTERN int cspark_batch_num_columns(const cspark_batch *b);
CSPARK_EXTERN const char *cspark_batch_column_name(const cspark_batch *b, int column);
/* Spark's simpleString of the column's type: "string", "int", "bigint", "date", ... */
CSPARK_EXTERN const char *cspark_batch_column_type(const cspark_batch *b, int column);
/* The index of the column called name, -1 when none. */
CSPARK_EXTERN int cspark_batch_column_index(const cspark_batch *b, const char *name);
CSPARK_EXTERN bool cspark_batch_is_null(const cspark_batch *b, int column, int64_t row);
/* boolean, byte, short, int, long; date (days since 1970-01-01); timestamps (microseconds) */
CSPARK_EXTERN int64_t cspark_batch_get_long(const cspark_batch *b, int column, int64_t row);
/* float, double, and the integer types as doubles */
CSPARK_EXTERN double cspark_batch_get_double(const cspark_batch *b, int column, int64_t row);
/* string, binary: the bytes, borrowed from the batch */
CSPARK_EXTERN cspark_slice cspark_batch_get_bytes(const cspark_batch *b, int column, int64_t row);
/* Any value as Spark shows it in a partition folder ("2024-01-31", "1.5", the string itself),
 * written to buf (NUL-terminated, truncated to cap); returns false for a null. */
CSPARK_EXTERN bool cspark_batch_get_text(const cspark_batch *b, int column, int64_t row, char *buf,
                                         size_t cap);
CSPARK_EXTERN void cspark_batch_free(cspark_batch *b);

/* ---- narrow transformations (pipelined into one task) ------------------------------------ */

CSPARK_EXTERN cspark_rdd *cspark_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                     size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_flat_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                          size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_filter(cspark_rdd *rdd, cspark_filter_fn fn, const void *closure,
                                        size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_map_partitions(cspark_rdd *rdd, cspark_partition_fn fn,
                                                const void *closure, size_t closure_len);
/* As map_partitions; fn also gets the partition's index (Spark's mapPartitionsWithIndex). */
CSPARK_EXTERN cspark_rdd *cspark_map_partitions_with_index(cspark_rdd *rdd,
                                                           cspark_partition_index_fn fn,
                                                           const void *closure, size_t closure_len);
/* Per-value functions that keep each record's key, as Spark's mapValues / flatMapValues: fn sees
 * the whole record and emits values with cspark_emit_value (once for map_values, any number of
 * times for flat_map_values); calling cspark_emit there fails the task. */
CSPARK_EXTERN cspark_rdd *cspark_map_values(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                            size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_flat_map_values(cspark_rdd *rdd, cspark_map_fn fn,
                                                 const void *closure, size_t closure_len);
/* Records (key, empty value) and (value, empty value): Spark's keys() and values(). */
CSPARK_EXTERN cspark_rdd *cspark_keys(cspark_rdd *rdd);
CSPARK_EXTERN cspark_rdd *cspark_values(cspark_rdd *rdd);
/* Spark's keyBy: fn emits one key per record with cspark_emit_key; each output record is that
 * key and, as value, the input record as a pair (key, value) read with cspark_pair_split. */
CSPARK_EXTERN cspark_rdd *cspark_key_by(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                        size_t closure_len);
/* A random subset, as Spark's sample: without replacement each record is kept with probability
 * `fraction` (0..1); with replacement it appears a Poisson(fraction) number of times. The draw
 * depends only on seed, the partition's index and the record's position in its partition, so a
 * retried task (and every run) keeps the same records. */
CSPARK_EXTERN cspark_rdd *cspark_sample(cspark_rdd *rdd, bool with_replacement, double fraction,
                                        uint64_t seed);
/* Splits rdd into n disjoint random parts whose sizes follow `weights` (normalized), as Spark's
 * randomSplit: out[i] receives the i-th part; every record lands in exactly one part. Returns 0,
 * or a negative code (out[] then NULL) for bad weights. */
CSPARK_EXTERN int cspark_random_split(cspark_rdd *rdd, const double *weights, int n, uint64_t seed,
                                      cspark_rdd **out);
/* Spark's zipWithIndex: each record's position in the RDD (partition order, then order within
 * the partition) as key (cspark_i64 encoding, so it sorts numerically) and the record as a pair
 * (key, value) value (cspark_pair_split). As in Spark, a job counting the records of all
 * partitions but the last runs at once. */
CSPARK_EXTERN cspark_rdd *cspark_zip_with_index(cspark_rdd *rdd);
/* Every pair of a record of a and a record of b, as Spark's cartesian: key = the record of a as a
 * pair (key, value), value = the record of b as a pair (cspark_pair_split both); a.partitions x
 * b.partitions partitions, each holding b's partition in memory while it streams a's. */
CSPARK_EXTERN cspark_rdd *cspark_cartesian(cspark_rdd *a, cspark_rdd *b);
/* Spark's reliable checkpoint, eager (as Dataset.checkpoint()): runs a job writing every
 * partition under spark.checkpoint.dir (a directory the driver and every executor reach: a shared
 * volume on Kubernetes) and returns an RDD with the same records whose lineage starts at those
 * files, so later jobs neither recompute nor re-shuffle its ancestors. NULL on error (unset
 * directory, job failure). */
CSPARK_EXTERN cspark_rdd *cspark_checkpoint(cspark_rdd *rdd);
/* All partitions of a, then all of b. */
CSPARK_EXTERN cspark_rdd *cspark_union(cspark_rdd *a, cspark_rdd *b);
/* Merges partitions without a shuffle into at most num_partitions. */
CSPARK_EXTERN cspark_rdd *cspark_coalesce(cspark_rdd *rdd, int num_partitions);

/* ---- wide transformations (a shuffle cuts the stage) -------------------------------------
 * num_partitions = 0 uses spark.default.parallelism when it is set, else the largest parent's
 * partition count (as Spark's Partitioner.defaultPartitioner). */

/* One record per distinct (key, value). */
CSPARK_EXTERN cspark_rdd *cspark_distinct(cspark_rdd *rdd, int num_partitions);
/* Values of each key folded with fn; map-side combine. */
CSPARK_EXTERN cspark_rdd *cspark_reduce_by_key(cspark_rdd *rdd, cspark_reduce_fn fn,
                                               const void *closure, size_t closure_len,
                                               int num_partitions);
/* Per key: acc = zero; acc = seq(acc, v) for each value; partial accs merged with comb. The
 * closure is shared by seq and comb. As in Spark, the zero may be applied more than once per key
 * (once per partition, and again after a spill), so it must be neutral: comb(x, zero) == x. */
CSPARK_EXTERN cspark_rdd *cspark_aggregate_by_key(cspark_rdd *rdd, const void *zero,
                                                  size_t zero_len, cspark_reduce_fn seq,
                                                  cspark_reduce_fn comb, const void *closure,
                                                  size_t closure_len, int num_partitions);
/* One record per key whose value is the list of its values (read with cspark_list_next). */
CSPARK_EXTERN cspark_rdd *cspark_group_by_key(cspark_rdd *rdd, int num_partitions);
/* Records ordered by key bytes (memcmp order, shorter prefix first) across partitions in order,
 * with a range partitioner built from a sample of keys, as Spark's sortByKey. */
CSPARK_EXTERN cspark_rdd *cspark_sort_by_key(cspark_rdd *rdd, bool ascending, int num_partitions);
/* Inner join: one record per pair of matching values; value = pair (left, right), read with
 * cspark_pair_split. */
CSPARK_EXTERN cspark_rdd *cspark_join(cspark_rdd *left, cspark_rdd *right, int num_partitions);
/* As join, plus left records without a match (pair with right absent). */
CSPARK_EXTERN cspark_rdd *cspark_left_outer_join(cspark_rdd *left, cspark_rdd *right,
                                                 int num_partitions);
/* One record per key present in either side; value = pair (list of left values, list of right
 * values). */
CSPARK_EXTERN cspark_rdd *cspark_cogroup(cspark_rdd *left, cspark_rdd *right, int num_partitions);
/* Redistributes records round-robin into num_partitions through a shuffle. */
CSPARK_EXTERN cspark_rdd *cspark_repartition(cspark_rdd *rdd, int num_partitions);
/* Spark's partitionBy with a custom Partitioner: each record goes to partition fn(key, n) of n
 * num_partitions (fn must return 0 .. n-1; another value fails the task naming fn). Records of a
 * partition keep no particular order. */
CSPARK_EXTERN cspark_rdd *cspark_partition_by(cspark_rdd *rdd, cspark_partitioner_fn fn,
                                              const void *closure, size_t closure_len,
                                              int num_partitions);
/* Records ordered by the key fn emits for each record (cspark_emit_key, exactly once), as Spark's
 * sortBy: the records themselves are unchanged. */
CSPARK_EXTERN cspark_rdd *cspark_sort_by(cspark_rdd *rdd, cspark_map_fn key_fn, const void *closure,
                                         size_t closure_len, bool ascending, int num_partitions);
/* Spark's foldByKey: aggregate_by_key with fn as both the sequence and the combine function. */
CSPARK_EXTERN cspark_rdd *cspark_fold_by_key(cspark_rdd *rdd, const void *zero, size_t zero_len,
                                             cspark_reduce_fn fn, const void *closure,
                                             size_t closure_len, int num_partitions);
/* Spark's combineByKey: per key, create(acc, v) builds a combiner from the first value (acc is
 * empty when called), merge_value(acc, v) folds in further values, merge_combiners(acc, other)
 * merges partial combiners; map-side combine. The closure is shared by the three. */
CSPARK_EXTERN cspark_rdd *cspark_combine_by_key(cspark_rdd *rdd, cspark_reduce_fn create,
                                                cspark_reduce_fn merge_value,
                                                cspark_reduce_fn merge_combiners,
                                                const void *closure, size_t closure_len,
                                                int num_partitions);
/* As join, plus right records without a match (left absent) / plus unmatched records of either
 * side. Values are read with cspark_join_sides. */
CSPARK_EXTERN cspark_rdd *cspark_right_outer_join(cspark_rdd *left, cspark_rdd *right,
                                                  int num_partitions);
CSPARK_EXTERN cspark_rdd *cspark_full_outer_join(cspark_rdd *left, cspark_rdd *right,
                                                 int num_partitions);
/* Records of a whose key does not occur in b (Spark's subtractByKey). */
CSPARK_EXTERN cspark_rdd *cspark_subtract_by_key(cspark_rdd *a, cspark_rdd *b, int num_partitions);
/* Records of a (key and value) that do not occur in b, duplicates of a kept (Spark's subtract). */
CSPARK_EXTERN cspark_rdd *cspark_subtract(cspark_rdd *a, cspark_rdd *b, int num_partitions);
/* Distinct records (key and value) present in both (Spark's intersection). */
CSPARK_EXTERN cspark_rdd *cspark_intersection(cspark_rdd *a, cspark_rdd *b, int num_partitions);

/* ---- persistence (Spark's persist / cache / unpersist) -------------------------------------
 * A persisted RDD's partitions are kept, as blocks, by the executor (or the local process) that
 * computed them, the first time an action computes them; later jobs read the blocks instead of
 * recomputing the lineage, on the executor holding them when it has a free core within
 * spark.locality.wait, else fetched from it. Memory for blocks is shared with execution
 * (spark.memory.fraction, spark.memory.storageFraction): blocks are evicted least recently used
 * first, MEMORY_AND_DISK ones to disk, MEMORY_ONLY ones dropped (recomputed when needed). A lost
 * executor's blocks are recomputed from the lineage. See docs/caching.md. */
typedef enum cspark_storage_level {
    CSPARK_STORAGE_NONE = 0,    /* not persisted */
    CSPARK_MEMORY_ONLY = 1,     /* in memory; dropped under pressure, recomputed when needed */
    CSPARK_MEMORY_AND_DISK = 2, /* in memory; written to disk when evicted or too large */
    CSPARK_DISK_ONLY = 3        /* on the executor's local disk (checksummed blocks) */
} cspark_storage_level;

/* Marks rdd to be kept at `level` from its next computation on; returns rdd (NULL on error:
 * changing the level of an RDD that already has one, as Spark refuses, or an unknown level). */
CSPARK_EXTERN cspark_rdd *cspark_persist(cspark_rdd *rdd, cspark_storage_level level);
/* cspark_persist(rdd, CSPARK_MEMORY_ONLY). */
CSPARK_EXTERN cspark_rdd *cspark_cache(cspark_rdd *rdd);
/* Forgets rdd's blocks everywhere (memory and disk freed) and its storage level; later jobs
 * recompute it. 0, or a negative code when rdd is NULL. */
CSPARK_EXTERN int cspark_unpersist(cspark_rdd *rdd);
/* The storage level of rdd (CSPARK_STORAGE_NONE when not persisted). */
CSPARK_EXTERN cspark_storage_level cspark_storage_level_of(const cspark_rdd *rdd);

/* ---- actions ----------------------------------------------------------------------------- */

CSPARK_EXTERN int cspark_count(cspark_rdd *rdd, int64_t *count);
/* All records, partition after partition. *out is the caller's (cspark_records_free). */
CSPARK_EXTERN int cspark_collect(cspark_rdd *rdd, cspark_records **out);
/* The first n records in partition order, scanning as few partitions as possible. */
CSPARK_EXTERN int cspark_take(cspark_rdd *rdd, size_t n, cspark_records **out);
/* Folds the values of all records with fn. Fails on an empty RDD. *out is malloc'd (free()). */
CSPARK_EXTERN int cspark_reduce(cspark_rdd *rdd, cspark_reduce_fn fn, const void *closure,
                                size_t closure_len, void **out, size_t *out_len);
/* As reduce, starting every partition and the final merge from `zero`; empty RDD gives zero. */
CSPARK_EXTERN int cspark_fold(cspark_rdd *rdd, const void *zero, size_t zero_len,
                              cspark_reduce_fn fn, const void *closure, size_t closure_len,
                              void **out, size_t *out_len);
/* Spark's treeAggregate: values folded with seq from `zero` per partition, then merged with comb
 * in a tree of depth levels (shuffles of partial results; depth 2 as Spark's default) instead of
 * all on the driver. zero must be neutral for comb. *out is malloc'd (free()). */
CSPARK_EXTERN int cspark_tree_aggregate(cspark_rdd *rdd, const void *zero, size_t zero_len,
                                        cspark_reduce_fn seq, cspark_reduce_fn comb,
                                        const void *closure, size_t closure_len, int depth,
                                        void **out, size_t *out_len);
/* Writes part-NNNNN files (one per partition) and _SUCCESS under `path`; each record is one line:
 * the key, then a TAB and the value when the value is not empty. Refuses an existing path. */
CSPARK_EXTERN int cspark_save_as_text_file(cspark_rdd *rdd, const char *path);
CSPARK_EXTERN int cspark_foreach(cspark_rdd *rdd, cspark_foreach_fn fn, const void *closure,
                                 size_t closure_len);
/* The first record (take(1)); fails on an empty RDD ("first of an empty collection"). */
CSPARK_EXTERN int cspark_first(cspark_rdd *rdd, cspark_records **out);
/* The n largest (top) or smallest (take_ordered) records, in that order, comparing keys in
 * memcmp order (shorter prefix first), then values. Each task keeps a bounded heap of n records
 * (memory O(n), no sort of the data); the driver merges the tasks' heaps, as Spark's top and
 * takeOrdered. n is at most 2^28. */
CSPARK_EXTERN int cspark_top(cspark_rdd *rdd, size_t n, cspark_records **out);
CSPARK_EXTERN int cspark_take_ordered(cspark_rdd *rdd, size_t n, cspark_records **out);
/* Spark's countByKey / countByValue: one record per distinct key (per distinct record) with its
 * count as value (cspark_i64), sorted by key so cspark_records_find looks one up. countByValue's
 * key is the record's key when its value is empty (lines, words), else the record as a pair
 * (key, value) (cspark_pair_split). */
CSPARK_EXTERN int cspark_count_by_key(cspark_rdd *rdd, cspark_records **out);
CSPARK_EXTERN int cspark_count_by_value(cspark_rdd *rdd, cspark_records **out);
/* Spark's collectAsMap: one record per distinct key, sorted by key (cspark_records_find); of
 * several records with one key, the last in partition order wins. */
CSPARK_EXTERN int cspark_collect_as_map(cspark_rdd *rdd, cspark_records **out);

/* ---- results ----------------------------------------------------------------------------- */

CSPARK_EXTERN size_t cspark_records_count(const cspark_records *r);
/* The i-th record; slices borrowed from r until cspark_records_free. i must be below
 * cspark_records_count(r) (an empty result has no record 0): an index out of range, or a NULL r,
 * is a programming error with no error to return, so the application ends, as a Spark driver
 * does on an uncaught exception, with one line "cspark_records_get: index I out of range (N
 * records)" and status 1 (inside a task, the task fails with it instead). */
CSPARK_EXTERN cspark_record cspark_records_get(const cspark_records *r, size_t i);
CSPARK_EXTERN void cspark_records_free(cspark_records *r);
/* In records sorted by key (collect_as_map, count_by_key, count_by_value): the value of `key`,
 * borrowed from r; false when absent. Binary search. */
CSPARK_EXTERN bool cspark_records_find(const cspark_records *r, const void *key, size_t key_len,
                                       cspark_slice *value);

/* ---- inside user functions --------------------------------------------------------------- */

/* Appends a record (key and value are copied into the task's output batch). key_len +
 * value_len above CSPARK_MAX_RECORD_BYTES fails the task. */
CSPARK_EXTERN void cspark_emit(cspark_emitter *out, const void *key, size_t key_len,
                               const void *value, size_t value_len);
static inline void cspark_emit_record(cspark_emitter *out, const cspark_record *r)
{
    cspark_emit(out, r->key.ptr, r->key.len, r->value.ptr, r->value.len);
}
/* Reserves key_len + value_len bytes for a record and returns where the key goes; *value_out
 * receives where the value goes. Fill both before the next emit. */
CSPARK_EXTERN uint8_t *cspark_emit_reserve(cspark_emitter *out, size_t key_len, size_t value_len,
                                           uint8_t **value_out);

/* In a function called per record (map, flat_map, map_values, key_by, ...): emits the input
 * record's key with a new value (cspark_emit_value), or a new key with the input record's value
 * (cspark_emit_key; in key_by and sort_by, with the whole input record). */
CSPARK_EXTERN void cspark_emit_value(cspark_emitter *out, const void *value, size_t value_len);
CSPARK_EXTERN void cspark_emit_key(cspark_emitter *out, const void *key, size_t key_len);

/* map_partitions input: the next record, or false at the end of the partition. */
CSPARK_EXTERN bool cspark_iterator_next(cspark_iterator *it, cspark_record *out);

/* The closure buffer of the function being called (NULL/0 when none). */
CSPARK_EXTERN const void *cspark_closure(cspark_task_context *tc, size_t *len);
CSPARK_EXTERN int cspark_partition_id(const cspark_task_context *tc);
CSPARK_EXTERN int cspark_stage_id(const cspark_task_context *tc);
/* The path of the file the current record was read from (text_file, whole_text_files), as
 * Spark's input_file_name(); "" when the record comes from no file. Borrowed for the task. */
CSPARK_EXTERN const char *cspark_input_file_name(const cspark_task_context *tc);
/* 0 for the first attempt of a task, 1 for its first retry, ... */
CSPARK_EXTERN int cspark_attempt_number(const cspark_task_context *tc);
/* A custom resource assigned to a task attempt (Spark's ResourceInformation): its name ("gpu")
 * and the addresses this attempt may use, which no other running task of the executor holds
 * (unless spark.task.resource.<name>.amount is a fraction: then up to 1 / amount tasks share an
 * address). */
typedef struct cspark_resource {
    const char *name;
    const char *const *addresses;
    int num_addresses;
} cspark_resource;
/* The resources assigned to this task attempt, as Spark's TaskContext.resources(): *out gets an
 * array borrowed for the task (NULL when none); returns how many. Tasks get resources when the
 * application sets spark.task.resource.<name>.amount and its executors
 * spark.executor.resource.<name>.{amount,discoveryScript}; in local mode, none. */
CSPARK_EXTERN int cspark_task_resources(const cspark_task_context *tc, const cspark_resource **out);
/* The local path of a file shipped with the application by its name (--files, spark.files; an
 * entry's #name if it has one), or the directory an archive of --archives / spark.archives was
 * unpacked into: Spark's SparkFiles.get. Borrowed, valid while the application runs; NULL when
 * nothing was shipped under that name. */
CSPARK_EXTERN const char *cspark_files_get(cspark_task_context *tc, const char *name);
/* Fails the current task attempt with a message; the scheduler retries it up to
 * spark.task.maxFailures attempts. Does not return. */
CSPARK_EXTERN void cspark_task_fail(cspark_task_context *tc, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* Accumulator helpers for reduce functions. A len above CSPARK_MAX_RECORD_BYTES fails the task. */
CSPARK_EXTERN void cspark_value_set(cspark_value *v, const void *data, size_t len);
/* Grows or shrinks to len bytes (contents up to min(old,len) kept); returns v->ptr. */
CSPARK_EXTERN uint8_t *cspark_value_resize(cspark_value *v, size_t len);

/* ---- built-in functions (exported by libcspark, usable anywhere a function is expected) --- */

CSPARK_EXTERN void cspark_sum_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc);
CSPARK_EXTERN void cspark_sum_f64(cspark_value *acc, cspark_slice value, cspark_task_context *tc);
CSPARK_EXTERN void cspark_min_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc);
CSPARK_EXTERN void cspark_max_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc);
/* Lists as aggregate results (Spark's collect_list): with aggregate_by_key(zero = empty,
 * seq = cspark_list_append, comb = cspark_list_concat) each key's value is the list of its values.
 * list_append adds `value` as one item; list_concat appends another list's items. */
CSPARK_EXTERN void cspark_list_append(cspark_value *acc, cspark_slice value,
                                      cspark_task_context *tc);
CSPARK_EXTERN void cspark_list_concat(cspark_value *acc, cspark_slice value,
                                      cspark_task_context *tc);

/* ---- encodings --------------------------------------------------------------------------- */

/* Big-endian 64-bit load/store (one byte swap on little-endian machines). */
static inline uint64_t cspark__load_be64(const uint8_t in[8])
{
    uint64_t u;
    memcpy(&u, in, 8);
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    u = __builtin_bswap64(u);
#elif !defined(__GNUC__)
    u = 0;
    for (int i = 0; i < 8; i++)
        u = (u << 8) | in[i];
#endif
    return u;
}
static inline void cspark__store_be64(uint64_t u, uint8_t out[8])
{
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    u = __builtin_bswap64(u);
    memcpy(out, &u, 8);
#elif defined(__GNUC__)
    memcpy(out, &u, 8);
#else
    for (int i = 7; i >= 0; i--, u >>= 8)
        out[i] = (uint8_t)u;
#endif
}

/* i64 as 8 big-endian bytes with the sign bit flipped: memcmp order == numeric order. */
static inline void cspark_i64_encode(int64_t v, uint8_t out[8])
{
    cspark__store_be64((uint64_t)v ^ 0x8000000000000000ULL, out);
}
static inline int64_t cspark_i64_decode(const uint8_t in[8])
{
    return (int64_t)(cspark__load_be64(in) ^ 0x8000000000000000ULL);
}
/* f64 as 8 bytes whose memcmp order is the numeric order (NaN sorts last). */
static inline void cspark_f64_encode(double d, uint8_t out[8])
{
    uint64_t u;
    memcpy(&u, &d, 8);
    u = (u & 0x8000000000000000ULL) ? ~u : (u | 0x8000000000000000ULL);
    cspark__store_be64(u, out);
}
static inline double cspark_f64_decode(const uint8_t in[8])
{
    uint64_t u = cspark__load_be64(in);
    double d;
    u = (u & 0x8000000000000000ULL) ? (u & ~0x8000000000000000ULL) : ~u;
    memcpy(&d, &u, 8);
    return d;
}
/* A slice's value as i64/f64; 0 when the slice is not 8 bytes long. */
static inline int64_t cspark_slice_i64(cspark_slice s)
{
    return s.len == 8 ? cspark_i64_decode(s.ptr) : 0;
}
static inline double cspark_slice_f64(cspark_slice s)
{
    return s.len == 8 ? cspark_f64_decode(s.ptr) : 0.0;
}

/* Lists (group_by_key values, cogroup sides) are concatenations of items, each a 4-byte
 * little-endian length and the bytes. cspark_list_next takes the next item off the front of
 * *list; false when the list is empty (or malformed). */
static inline bool cspark_list_next(cspark_slice *list, cspark_slice *item)
{
    uint32_t n;
    if (list->len < 4) return false;
    memcpy(&n, list->ptr, 4);
    if (n > list->len - 4) return false;
    item->ptr = list->ptr + 4;
    item->len = n;
    list->ptr += 4 + n;
    list->len -= 4 + n;
    return true;
}
/* Pairs (join values, cogroup values): a 4-byte little-endian length, the first part, a flag
 * byte (1 when the second part is present) and the second part. Returns true when both parts
 * were decoded and the second is present; false when absent (left_outer_join without a match)
 * or malformed. */
static inline bool cspark_pair_split(cspark_slice v, cspark_slice *first, cspark_slice *second)
{
    uint32_t n;
    second->ptr = NULL;
    second->len = 0;
    if (v.len < 5) return false;
    memcpy(&n, v.ptr, 4);
    if (n > v.len - 5) return false;
    first->ptr = v.ptr + 4;
    first->len = n;
    if (v.ptr[4 + n] != 1) return false;
    second->ptr = v.ptr + 5 + n;
    second->len = v.len - 5 - n;
    return true;
}

/* ---- broadcast variables and accumulators ---------------------------------------------------
 * Functions run in other processes (executors), so data set up by cspark_main does not reach them
 * through globals or pointers: small values travel in closures; large read-only values are
 * broadcast; counters and sums come back through accumulators. See docs/shared-variables.md.
 *
 * Broadcast (Spark's TorrentBroadcast): cspark_broadcast copies the value once into the driver and
 * returns a small handle to copy into closures. The first task on an executor that reads it
 * fetches it, in spark.broadcast.blockSize pieces (4m) checked by checksum, from the driver or from
 * executors that already have pieces; the executor keeps one copy for all its tasks. In local mode
 * tasks read the driver's copy in place. */
typedef struct cspark_broadcast_var {
    int64_t id; /* < 0: not created (cspark_last_error tells why) */
} cspark_broadcast_var;

/* Broadcasts a copy of data[0..len). On error the handle's id is negative. */
CSPARK_EXTERN cspark_broadcast_var cspark_broadcast(cspark_context *sc, const void *data,
                                                    size_t len);
/* Inside a task: the value (and its length in *len), borrowed until the task ends. A destroyed or
 * unreachable broadcast fails the task with the reason (does not return). */
CSPARK_EXTERN const void *cspark_broadcast_value(cspark_task_context *tc, cspark_broadcast_var b,
                                                 size_t *len);
/* A per-process decoded form of a broadcast: decode(value, len, &error) runs once per executor
 * (once in local mode) on the first call and builds, e.g., a hash table; every task of that process
 * then gets the same pointer, to read only. free_fn (may be NULL) releases it when the broadcast is
 * destroyed or the executor ends. Use one decode function per broadcast. A decode that returns
 * NULL (setting *error to a malloc'd message, or leaving it NULL) fails the task. */
typedef void *(*cspark_broadcast_decode_fn)(const void *data, size_t len, char **error);
typedef void (*cspark_broadcast_free_fn)(void *decoded);
CSPARK_EXTERN const void *cspark_broadcast_decoded(cspark_task_context *tc, cspark_broadcast_var b,
                                                   cspark_broadcast_decode_fn decode,
                                                   cspark_broadcast_free_fn free_fn);
/* Frees the value on the driver and on every executor (once their running tasks are done with
 * it); a task reading it afterwards fails. 0, or a negative value for a handle that names no
 * live broadcast (destroyed already, or never created). */
CSPARK_EXTERN int cspark_broadcast_destroy(cspark_context *sc, cspark_broadcast_var b);

/* Accumulators (Spark's LongAccumulator, DoubleAccumulator, AccumulatorV2): tasks add, the driver
 * reads the sum. Only successful task attempts count. Updates made in an action (foreach, and
 * functions of the job's final stage) count once per partition even when a task or stage is
 * retried; updates made in transformations before a shuffle count again when a lost map output
 * is recomputed, as in Spark. Named accumulators appear in the event log (Accumulables). The
 * handle is a small value to copy into closures; its fields are internal. */
typedef struct cspark_accumulator {
    int64_t id;   /* < 0: not created */
    int32_t kind; /* internal */
    int32_t reserved;
    int64_t def; /* internal: a custom accumulator's definition */
} cspark_accumulator;

/* name may be NULL (unnamed: not in the event log). */
CSPARK_EXTERN cspark_accumulator cspark_long_accumulator(cspark_context *sc, const char *name);
CSPARK_EXTERN cspark_accumulator cspark_double_accumulator(cspark_context *sc, const char *name);
/* A user accumulator over bytes: each task starts from zero and folds every added value into its
 * own with merge (an exported function, as reduce functions are: acc = merge(acc, value)); the
 * driver folds the tasks' values into its value (from zero) with merge too. merge must be
 * associative and commutative, and zero neutral; it gets no closure. */
CSPARK_EXTERN cspark_accumulator cspark_custom_accumulator(cspark_context *sc, const char *name,
                                                           cspark_reduce_fn merge, const void *zero,
                                                           size_t zero_len);
/* Inside a task. Adding to an accumulator of another kind fails the task. */
CSPARK_EXTERN void cspark_long_accumulator_add(cspark_task_context *tc, cspark_accumulator acc,
                                               int64_t v);
CSPARK_EXTERN void cspark_double_accumulator_add(cspark_task_context *tc, cspark_accumulator acc,
                                                 double v);
CSPARK_EXTERN void cspark_accumulator_add(cspark_task_context *tc, cspark_accumulator acc,
                                          const void *value, size_t len);
/* On the driver: the merged value of the successful tasks so far (0 for an unknown handle). */
CSPARK_EXTERN int64_t cspark_long_accumulator_value(cspark_context *sc, cspark_accumulator acc);
CSPARK_EXTERN double cspark_double_accumulator_value(cspark_context *sc, cspark_accumulator acc);
/* A custom accumulator's value: *out malloc'd (free()). 0, or a negative code when unknown. */
CSPARK_EXTERN int cspark_accumulator_value(cspark_context *sc, cspark_accumulator acc, void **out,
                                           size_t *len);
/* Builds a list item in place: writes [len][bytes] at dst (which has room for 4 + len bytes) and
 * returns the byte after it. A list is any concatenation of items. */
static inline uint8_t *cspark_list_put(uint8_t *dst, const void *item, uint32_t len)
{
    memcpy(dst, &len, 4);
    if (len) memcpy(dst + 4, item, len);
    return dst + 4 + len;
}
/* The number of items of a list (stops at a malformed item). */
static inline size_t cspark_list_count(cspark_slice list)
{
    size_t n = 0;
    cspark_slice item;
    while (cspark_list_next(&list, &item))
        n++;
    return n;
}

/* Values of outer joins (right_outer_join, full_outer_join; also join and left_outer_join): the
 * sides present, CSPARK_LEFT | CSPARK_RIGHT, with *left / *right set to the present ones (an
 * absent side is {NULL, 0}); 0 when malformed. An absent left is encoded as the length
 * 0xFFFFFFFF. */
#define CSPARK_LEFT 1
#define CSPARK_RIGHT 2
static inline int cspark_join_sides(cspark_slice v, cspark_slice *left, cspark_slice *right)
{
    uint32_t n;
    int sides = 0;
    left->ptr = right->ptr = NULL;
    left->len = right->len = 0;
    if (v.len < 5) return 0;
    memcpy(&n, v.ptr, 4);
    size_t off = 4;
    if (n != 0xFFFFFFFFu) {
        if (n > v.len - 5) return 0;
        left->ptr = v.ptr + 4;
        left->len = n;
        off += n;
        sides |= CSPARK_LEFT;
    }
    if (v.ptr[off] == 1) {
        right->ptr = v.ptr + off + 1;
        right->len = (uint32_t)(v.len - off - 1);
        sides |= CSPARK_RIGHT;
    } else if (off + 1 != v.len) {
        return 0;
    }
    return sides;
}

/* Tuples: several fields in one key or value, without hand-packing, such that memcmp order of
 * two tuples with the same field types is the order of their fields, first field first (so
 * sort_by_key, top and take_ordered order tuples field by field, numbers numerically). Fields:
 * i64 and f64 take 8 bytes (the encodings above); bytes are written with each 0x00 byte as
 * 0x00 0xFF and end with 0x00 0x01, so a shorter string sorts first. A reader must read the
 * fields with the types they were written with.
 *
 *     uint8_t buf[64];
 *     cspark_tuple_writer w;
 *     cspark_tuple_init(&w, buf, sizeof buf);
 *     cspark_tuple_put_i64(&w, -count);          // most frequent first in ascending order
 *     cspark_tuple_put_str(&w, url);
 *     if (cspark_tuple_ok(&w)) cspark_emit_key(out, buf, w.len);
 *
 *     cspark_tuple_reader r = cspark_tuple_read(rec->key);
 *     int64_t c; cspark_slice u;
 *     if (cspark_tuple_get_i64(&r, &c) && cspark_tuple_get_bytes(&r, &u, NULL, 0)) ...
 *
 * The writer counts every byte a field needs even beyond cap (nothing is written past cap), so
 * w.len after a failed attempt is the size to allocate. */
typedef struct cspark_tuple_writer {
    uint8_t *buf;
    size_t cap;
    size_t len; /* bytes the fields need so far (may exceed cap: not ok) */
} cspark_tuple_writer;

static inline void cspark_tuple_init(cspark_tuple_writer *w, void *buf, size_t cap)
{
    w->buf = (uint8_t *)buf;
    w->cap = cap;
    w->len = 0;
}
static inline bool cspark_tuple_ok(const cspark_tuple_writer *w)
{
    return w->len <= w->cap;
}
static inline void cspark_tuple_put_i64(cspark_tuple_writer *w, int64_t v)
{
    if (w->len + 8 <= w->cap) cspark_i64_encode(v, w->buf + w->len);
    w->len += 8;
}
static inline void cspark_tuple_put_f64(cspark_tuple_writer *w, double v)
{
    if (w->len + 8 <= w->cap) cspark_f64_encode(v, w->buf + w->len);
    w->len += 8;
}
static inline void cspark_tuple_put_bytes(cspark_tuple_writer *w, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    for (size_t i = 0; i < len; i++) {
        if (w->len < w->cap) w->buf[w->len] = p[i];
        w->len++;
        if (p[i] == 0) {
            if (w->len < w->cap) w->buf[w->len] = 0xFF;
            w->len++;
        }
    }
    if (w->len + 2 <= w->cap) {
        w->buf[w->len] = 0;
        w->buf[w->len + 1] = 1;
    }
    w->len += 2;
}
static inline void cspark_tuple_put_str(cspark_tuple_writer *w, const char *s)
{
    cspark_tuple_put_bytes(w, s, strlen(s));
}

typedef struct cspark_tuple_reader {
    cspark_slice rest; /* the fields not read yet */
} cspark_tuple_reader;

static inline cspark_tuple_reader cspark_tuple_read(cspark_slice tuple)
{
    cspark_tuple_reader r;
    r.rest = tuple;
    return r;
}
static inline bool cspark_tuple_get_i64(cspark_tuple_reader *r, int64_t *out)
{
    if (r->rest.len < 8) return false;
    *out = cspark_i64_decode(r->rest.ptr);
    r->rest.ptr += 8;
    r->rest.len -= 8;
    return true;
}
static inline bool cspark_tuple_get_f64(cspark_tuple_reader *r, double *out)
{
    if (r->rest.len < 8) return false;
    *out = cspark_f64_decode(r->rest.ptr);
    r->rest.ptr += 8;
    r->rest.len -= 8;
    return true;
}
/* The next bytes field. When it holds no 0x00 byte, *out borrows it from the tuple; otherwise it
 * is decoded into scratch (scratch_cap bytes; false when too small). False when malformed. */
static inline bool cspark_tuple_get_bytes(cspark_tuple_reader *r, cspark_slice *out,
                                          uint8_t *scratch, size_t scratch_cap)
{
    const uint8_t *p = r->rest.ptr;
    size_t n = r->rest.len, i = 0, zeros = 0;
    for (;; i++) {
        if (i + 1 >= n) return false;
        if (p[i] != 0) continue;
        if (p[i + 1] == 1) break;
        if (p[i + 1] != 0xFF) return false;
        zeros++;
        i++;
    }
    if (zeros == 0) {
        out->ptr = p;
        out->len = (uint32_t)i;
    } else {
        size_t len = i - zeros, k = 0;
        if (len > scratch_cap || !scratch) return false;
        for (size_t j = 0; j < i; j++) {
            scratch[k++] = p[j];
            if (p[j] == 0) j++;
        }
        out->ptr = scratch;
        out->len = (uint32_t)len;
    }
    r->rest.ptr += i + 2;
    r->rest.len -= (uint32_t)(i + 2);
    return true;
}

/* ---- context ----------------------------------------------------------------------------- */

/* The configuration value of key (borrowed), or NULL. */
CSPARK_EXTERN const char *cspark_conf_get(cspark_context *sc, const char *key);
CSPARK_EXTERN const char *cspark_app_id(cspark_context *sc);
/* cspark_files_get for the driver's own use (the driver fetches the shipped files too). */
CSPARK_EXTERN const char *cspark_files_get_driver(cspark_context *sc, const char *name);
CSPARK_EXTERN int cspark_default_parallelism(cspark_context *sc);
CSPARK_EXTERN int cspark_num_partitions(const cspark_rdd *rdd);
/* The latest error recorded by this context (a transformation refused, an action failed, a job
 * cancelled on request), or NULL before any. A call that fails only because of an earlier
 * failure — an action after the context failed, a transformation or action given the NULL a
 * refused call returned — records nothing new, so the earlier error stays the one told.
 * Borrowed until the next call into the API or the context stops. */
CSPARK_EXTERN const char *cspark_last_error(cspark_context *sc);

/* ---- job names, descriptions and groups ---------------------------------------------------- */

/* Each job is named after the action that ran it and where it was called, as Spark's call sites:
 * "count at app.so:cspark_main" (the action, then the job's .so and the function that called
 * it); each stage after the operation that made its last RDD ("reduce_by_key at ..."; a stage of
 * a join "join at ..."); an action or transformation built from others (first, count_by_key,
 * tree_aggregate, a join's internal steps) names everything it runs after itself. The names are
 * in the log, the web UI, the REST API and the event log.
 *
 * Local properties of the jobs started from now on (Spark's SparkContext methods of the same
 * names); each returns 0, or a negative code for a NULL context or group id.
 * - set_job_description: spark.job.description, shown above the job's name in the web UI's jobs
 *   table, as "description" in the REST API's jobs and in the event log's JobStart Properties.
 *   NULL clears it.
 * - set_job_group: spark.jobGroup.id (the REST API's "jobGroup"; the web UI shows "N (group)"),
 *   the description as set_job_description, and spark.job.interruptOnCancel (reported; a cancelled
 *   task stops at its next batch of records either way, and one blocked in the job's own code is
 *   ended by the task reaper, spark.task.reaper.enabled). clear_job_group clears all three.
 * - cancel_job_group, from another thread of the driver: every running job of the group fails
 *   with "Job N cancelled part of cancelled job group G": its action returns a negative code and
 *   cspark_last_error says so; as in Spark, the driver may go on (later jobs run) and the
 *   application's exit status is its entry function's. Jobs started later are not affected.
 * As Spark's, the properties are the calling thread's own: threads that run actions at once on
 * one context (each action's job runs beside the others', the older job's tasks offered the
 * cores first) each name and group their own jobs. A new thread starts with none. */
CSPARK_EXTERN int cspark_set_job_description(cspark_context *sc, const char *description);
CSPARK_EXTERN int cspark_set_job_group(cspark_context *sc, const char *group_id,
                                       const char *description, bool interrupt_on_cancel);
CSPARK_EXTERN int cspark_clear_job_group(cspark_context *sc);
CSPARK_EXTERN int cspark_cancel_job_group(cspark_context *sc, const char *group_id);
/* Spark's setLocalProperty for the keys cspark's jobs carry, the calling thread's own as above:
 * spark.scheduler.pool (the pool of the thread's jobs when spark.scheduler.mode=FAIR: pools are
 * made on first use with minShare 0 and weight 1, and share the cores by Spark's fair
 * algorithm), spark.job.description, spark.jobGroup.id, spark.job.interruptOnCancel ("true" or
 * "false"). value NULL removes the key. CSPARK_EINVAL for another key (it fails the context). */
CSPARK_EXTERN int cspark_set_local_property(cspark_context *sc, const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif /* CSPARK_H */
