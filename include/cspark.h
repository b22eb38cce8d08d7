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
 * Ownership. RDDs belong to their context and live until the context stops; jobs never free
 * them. Results returned by actions (cspark_records, reduce buffers) belong to the caller and are
 * freed with cspark_records_free() / free(). Errors: transformations return NULL on error and
 * actions return a negative code; cspark_last_error() then tells why, and cspark-submit exits
 * non-zero. A NULL parent is accepted and yields NULL, so a chain stops at the first error.
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
/* foreach: side effects only. */
typedef void (*cspark_foreach_fn)(const cspark_record *in, cspark_task_context *tc);

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

/* ---- narrow transformations (pipelined into one task) ------------------------------------ */

CSPARK_EXTERN cspark_rdd *cspark_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                     size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_flat_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                          size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_filter(cspark_rdd *rdd, cspark_filter_fn fn, const void *closure,
                                        size_t closure_len);
CSPARK_EXTERN cspark_rdd *cspark_map_partitions(cspark_rdd *rdd, cspark_partition_fn fn,
                                                const void *closure, size_t closure_len);
/* All partitions of a, then all of b. */
CSPARK_EXTERN cspark_rdd *cspark_union(cspark_rdd *a, cspark_rdd *b);
/* Merges partitions without a shuffle into at most num_partitions. */
CSPARK_EXTERN cspark_rdd *cspark_coalesce(cspark_rdd *rdd, int num_partitions);

/* ---- wide transformations (a shuffle cuts the stage) -------------------------------------
 * num_partitions = 0 uses spark.default.parallelism, else the largest parent's partitions. */

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
/* Writes part-NNNNN files (one per partition) and _SUCCESS under `path`; each record is one line:
 * the key, then a TAB and the value when the value is not empty. Refuses an existing path. */
CSPARK_EXTERN int cspark_save_as_text_file(cspark_rdd *rdd, const char *path);
CSPARK_EXTERN int cspark_foreach(cspark_rdd *rdd, cspark_foreach_fn fn, const void *closure,
                                 size_t closure_len);

/* ---- results ----------------------------------------------------------------------------- */

CSPARK_EXTERN size_t cspark_records_count(const cspark_records *r);
/* The i-th record; slices borrowed from r until cspark_records_free. */
CSPARK_EXTERN cspark_record cspark_records_get(const cspark_records *r, size_t i);
CSPARK_EXTERN void cspark_records_free(cspark_records *r);

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

/* map_partitions input: the next record, or false at the end of the partition. */
CSPARK_EXTERN bool cspark_iterator_next(cspark_iterator *it, cspark_record *out);

/* The closure buffer of the function being called (NULL/0 when none). */
CSPARK_EXTERN const void *cspark_closure(cspark_task_context *tc, size_t *len);
CSPARK_EXTERN int cspark_partition_id(const cspark_task_context *tc);
CSPARK_EXTERN int cspark_stage_id(const cspark_task_context *tc);
/* 0 for the first attempt of a task, 1 for its first retry, ... */
CSPARK_EXTERN int cspark_attempt_number(const cspark_task_context *tc);
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

/* ---- context ----------------------------------------------------------------------------- */

/* The configuration value of key (borrowed), or NULL. */
CSPARK_EXTERN const char *cspark_conf_get(cspark_context *sc, const char *key);
CSPARK_EXTERN const char *cspark_app_id(cspark_context *sc);
/* cspark_files_get for the driver's own use (the driver fetches the shipped files too). */
CSPARK_EXTERN const char *cspark_files_get_driver(cspark_context *sc, const char *name);
CSPARK_EXTERN int cspark_default_parallelism(cspark_context *sc);
CSPARK_EXTERN int cspark_num_partitions(const cspark_rdd *rdd);
/* The first error recorded by this context (a transformation refused, an action failed), or
 * NULL. Borrowed until the context stops. */
CSPARK_EXTERN const char *cspark_last_error(cspark_context *sc);

/* ---- programs ---------------------------------------------------------------------------- */

/* The main functions of cspark's own programs, `cspark-submit`, `cspark-executor` and
 * `cspark-history` (the history server), which are thin executables over libcspark (so the
 * engine and a job's .so share one copy of the library). A job never calls these. */
CSPARK_EXTERN int cspark_submit_main(int argc, char **argv);
CSPARK_EXTERN int cspark_executor_main(int argc, char **argv);
CSPARK_EXTERN int cspark_history_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* CSPARK_H */
