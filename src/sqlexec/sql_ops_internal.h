/*
 * sql_ops_internal.h — private to the stateful operators of sql_ops.h (op_hash_aggregate.c,
 * op_hash_join.c, op_sort.c, op_limit.c, op_union.c, op_window.c, ...): normalized keys
 * (sort_keys.c), the gather of rows from several batches (col_gather.c) and batch spill files
 * (batch_spill.c). Nothing outside those files includes it.
 *
 * Normalized keys: the key columns of a row encoded into bytes whose memcmp order is Spark's
 * ordering of the keys (each ASC/DESC, NULLS FIRST/LAST) and whose equality is Spark's grouping
 * equality (NaN = NaN, -0.0 = 0.0, null = null). One encoding serves the hash aggregate's and the
 * join's hash tables (hash + memcmp of the bytes) and the sort (memcmp). Per key column: a marker
 * byte (0x00 null first, 0x01 a value, 0x02 null last) then, for a value, its bytes (inverted
 * for DESC): integers, dates, timestamps and intervals big-endian with the sign bit flipped;
 * float/double normalized (-0.0 -> 0.0, every NaN -> the canonical NaN) then the IEEE bits made
 * monotone; decimals as 16-byte big-endian two's complement with the sign bit flipped; booleans
 * one byte; strings and binary with each 0x00 byte written 0x00 0xFF and ended by 0x00 0x00 (so
 * no key is a prefix of another); structs as their marker then each field's encoding (the fields
 * of a null struct as nulls). Keys encoded with all-ASC NULLS FIRST decode back into columns
 * (cs_sql_keys_decode), which is how the aggregate outputs its group keys.
 */
#ifndef CSPARK_SQLEXEC_SQL_OPS_INTERNAL_H
#define CSPARK_SQLEXEC_SQL_OPS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_ops.h"

/* ---- sort_keys.c ---- */

/* Whether a key of this type can be encoded (fixed-width types, string, binary). */
bool cs_sql_key_type_ok(const cs_col_type *t);
/* Whether a group or sort key of this type can be encoded: those, and structs of them (a struct
 * is its marker byte then its fields' encodings, a null struct's fields written as nulls; a
 * field's nulls come first when the key is ascending, last when descending, as Spark orders
 * structs). */
bool cs_sql_struct_key_type_ok(const cs_col_type *t);

/* Encoded keys of rows [0, n) of a batch: row i is bytes[off[i] .. off[i+1]). any_null[i] says
 * a key column of row i is null (joins skip those rows). Buffers are reused between batches
 * (plain heap: scratch of one batch, not state). */
typedef struct cs_sql_keybuf {
    uint8_t *bytes;
    int64_t *off;
    uint8_t *any_null;
    uint64_t *hash;
    size_t bytes_cap;
    int64_t rows_cap;
} cs_sql_keybuf;

/* Encodes the keys (ordinals with directions; descending/nulls_first as cs_sort_key) of every
 * row of b into kb, and their XXH3 hashes when with_hash. */
void cs_sql_keys_encode(cs_sql_keybuf *kb, const cs_col_batch *b, const cs_sort_key *keys,
                        int n_keys, bool with_hash);
void cs_sql_keybuf_free(cs_sql_keybuf *kb);

/* The encoded key (as cs_sql_keys_encode's) of the group being gathered from input sorted by it:
 * set by the group's first row, compared with each next row's. Owns its bytes (free them);
 * `have = false` starts the next group. */
typedef struct cs_sql_run_key {
    uint8_t *bytes;
    size_t len, cap;
    bool have;
} cs_sql_run_key;
void cs_sql_run_key_set(cs_sql_run_key *rk, const uint8_t *k, size_t kl);
/* true when a key is set and k is another one: the group before k ends */
bool cs_sql_run_key_ends(const cs_sql_run_key *rk, const uint8_t *k, size_t kl);
/* Integral column c's n values (byte .. long and the types stored as them), sign-extended to
 * 64-bit words, into out[0], out[stride], out[2 * stride], ... (null rows' words unspecified). */
void cs_sql_key_words(const cs_column *c, int64_t n, uint64_t *out, int stride);
/* Columns of the given types from n encoded ASC NULLS FIRST keys (rows[i], lens unused: the
 * encoding is self-delimiting). cols[] get one new reference each. */
void cs_sql_keys_decode(const uint8_t *const *rows, int64_t n, cs_col_type *const *types,
                        int n_types, cs_col_allocator *alloc, cs_column **cols);

/* ---- col_gather.c ---- */

/* A new column of n rows: row i is row ridx[i] of srcs[bidx ? bidx[i] : 0], or null when
 * ridx[i] < 0. Every source has the type `type`. Fixed width, boolean, string, binary (plain or
 * dictionary: the output is plain), struct, array and map. */
cs_column *cs_sql_gather(cs_col_type *type, cs_column *const *srcs, const int32_t *bidx,
                         const int32_t *ridx, int64_t n, cs_col_allocator *alloc);
/* A batch of `schema`: column c gathered from batches[*]->columns[c] as above. */
cs_col_batch *cs_sql_gather_batch(cs_col_type *schema, cs_col_batch *const *batches,
                                  const int32_t *bidx, const int32_t *ridx, int64_t n,
                                  cs_col_allocator *alloc);
/* A new column whose rows are the runs' rows one after another,
 * srcs[runs[r].batch] the source of run r (every source of type `type`): one copy per run and
 * buffer where the values allow (fixed width, boolean, plain string and binary, structs of
 * those), row by row otherwise. */
cs_column *cs_sql_gather_runs(cs_col_type *type, cs_column *const *srcs, const cs_sql_row_run *runs,
                              int n_runs, cs_col_allocator *alloc);
/* A batch of `schema`: column c gathered from batches[*]->columns[c] as above. */
cs_col_batch *cs_sql_gather_runs_batch(cs_col_type *schema, cs_col_batch *const *batches,
                                       const cs_sql_row_run *runs, int n_runs,
                                       cs_col_allocator *alloc);

/* ---- batch_spill.c ---- */

/* A spill file of batches (Arrow IPC stream in an unlinked file of the spill dir). */
typedef struct cs_sql_spill cs_sql_spill;
cs_sql_spill *cs_sql_spill_new(const char *dir, cs_col_type *schema, cs_error *err);
int cs_sql_spill_write(cs_sql_spill *s, const cs_col_batch *b, cs_error *err);
/* Ends writing; later calls of next read the batches back in order. */
int cs_sql_spill_finish(cs_sql_spill *s, cs_col_allocator *alloc, cs_error *err);
/* 1 + *out: a batch; 0: the end; < 0: error. */
int cs_sql_spill_next(cs_sql_spill *s, cs_col_batch **out, cs_error *err);
/* After finish: the next call of next reads the first batch again (a file read several times). */
int cs_sql_spill_rewind(cs_sql_spill *s, cs_col_allocator *alloc, cs_error *err);
int64_t cs_sql_spill_bytes(const cs_sql_spill *s);
int64_t cs_sql_spill_rows(const cs_sql_spill *s);
void cs_sql_spill_free(cs_sql_spill *s);

/* Whether an operator holding `held` bytes should spill now: its allocator is over the task's
 * share and it holds at least the task's spill floor. */
bool cs_sql_should_spill(const cs_sql_exec_ctx *ctx, int64_t held);
/* The same for an operator about to allocate `upcoming` more bytes at once (a hash index sized
 * for the rows it keeps): over when the task's usage plus those bytes passes its budget. */
bool cs_sql_should_spill_before(const cs_sql_exec_ctx *ctx, int64_t held, int64_t upcoming);
/* Records a spill in the operator's metrics and the task's counters. */
void cs_sql_note_spill(cs_sql_op *op, int64_t memory_bytes, int64_t disk_bytes);

/* A struct type of the fields of each of the given struct types, one after the other; nullable
 * forced true for the fields of parts whose force_nullable is set (NULL: none). */
cs_col_type *cs_sql_concat_schema(const cs_col_type *const *parts, const bool *force_nullable,
                                  int n_parts);

/* ---- agg_functions.c ---- */

/* Row i of a byte, short, int, long, date, timestamp or interval column widened to int64. */
static inline int64_t cs_sql_long_at(const cs_column *c, int64_t i)
{
    const void *v = c->values;
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)v)[i];
    case CS_TYPE_SHORT:
        return ((const int16_t *)v)[i];
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        return ((const int32_t *)v)[i];
    default:
        return ((const int64_t *)v)[i];
    }
}
/* Row i of a numeric (a decimal's unscaled value / 10^scale), date, timestamp or interval column
 * as a double. */
double cs_sql_double_at(const cs_column *c, int64_t i);

/* A bump arena of 64 KiB+ chunks from the operator's allocator (charged to the task): group keys
 * and the bytes of string aggregation values. Freed all at once. */
typedef struct cs_sql_arena {
    cs_col_allocator *alloc;
    uint8_t **chunks;
    size_t *sizes;
    int n, cap;
    size_t pos;
    int64_t held;
} cs_sql_arena;
void *cs_sql_arena_alloc(cs_sql_arena *a, size_t n);
void cs_sql_arena_reset(cs_sql_arena *a);

/* One aggregate function bound to its argument type: Spark's buffer schema (aggBufferAttributes)
 * and result type, and where its state lives in a group's state row. */
#define CS_SQL_AGG_MAX_BUF 6
typedef struct cs_sql_agg {
    cs_agg_fn fn;
    int impl;                            /* the state layout and loops (agg_functions*.c) */
    cs_col_type *arg_type, *result_type; /* references (arg_type NULL for count(*)) */
    cs_col_type *arg2_type;              /* two-input aggregates' second argument */
    int n_buf;
    cs_col_type *buf_types[CS_SQL_AGG_MAX_BUF];
    const char *buf_names[CS_SQL_AGG_MAX_BUF];
    int state_off, state_size;
    bool ignore_nulls;
    bool never_ansi;   /* try_sum: overflow gives null whatever the session's ANSI mode */
    int res_precision; /* decimal sum/avg: the buffer's / result's precision */
    int hll_p;         /* approx_count_distinct: log2 of the register count */
    int nbins;         /* histogram_numeric: the bins kept */
    double rel_error;  /* percentile_approx: 1 / accuracy */
    double *percentages;
    int n_percentages;
    bool pct_array;
} cs_sql_agg;

int cs_sql_agg_bind(cs_sql_agg *a, cs_agg_fn fn, const cs_col_type *arg_type, bool ignore_nulls,
                    cs_error *err);
/* Binds every field of a spec (input ordinals aside). */
int cs_sql_agg_bind_spec(cs_sql_agg *a, const cs_agg_spec *spec, cs_error *err);
void cs_sql_agg_release(cs_sql_agg *a);
/* Folds rows [0, n) of column in (NULL for count(*)) into the states of groups gid[i]
 * (state row of group g at states + g * stride + a->state_off). States start zeroed. */
int cs_sql_agg_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                      const cs_column *in, int64_t n, bool ansi, cs_sql_arena *arena,
                      cs_error *err);
/* The same for two-input aggregates (in2: the second input; NULL for the others). */
int cs_sql_agg_update2(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                       const cs_column *in, const cs_column *in2, int64_t n, bool ansi,
                       cs_sql_arena *arena, cs_error *err);
/* The same over rows [row0, row0 + n) of in (and in2): row row0 + k goes to group gid[k] (the
 * window's frames fold a range of a partition's rows). */
int cs_sql_agg_update_rows(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                           const cs_column *in, const cs_column *in2, int64_t row0, int64_t n,
                           bool ansi, cs_sql_arena *arena, cs_error *err);
/* update2 when every row goes to group 0 (a global aggregate; zeros: n zero group ids): count
 * and sum fold the batch into one local value, the others as update2 (agg_global.c). */
int cs_sql_agg_update_one(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *zeros,
                          const cs_column *in, const cs_column *in2, int64_t n, bool ansi,
                          cs_sql_arena *arena, cs_error *err);
/* Spark's ARITHMETIC_OVERFLOW "long overflow" of a sum under ANSI (into err; returns its code). */
int cs_sql_agg_long_overflow(cs_error *err);
/* Merges buffer columns bufs[0..a->n_buf) of rows [0, n) (another task's partial buffers). */
int cs_sql_agg_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                     cs_column *const *bufs, int64_t n, bool ansi, cs_sql_arena *arena,
                     cs_error *err);
/* Buffer columns (n_buf of them) of groups [g0, g0 + n). */
void cs_sql_agg_export(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                       int64_t n, cs_col_allocator *alloc, cs_column **bufs);
/* The result column of groups [g0, g0 + n). */
int cs_sql_agg_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                        int64_t n, bool ansi, cs_col_allocator *alloc, cs_column **out,
                        cs_error *err);

/* ---- agg_functions_ext.c: the statistical, collecting and sketching aggregates ---- */

/* The first impl number of agg_functions_ext.c; bind fills a for the functions it owns
 * (returns 1), 0 for the others, < 0 on a bad argument. */
enum { CS_SQL_AGG_IMPL_EXT = 100 };
int cs_sql_agg_ext_bind(cs_sql_agg *a, const cs_agg_spec *spec, cs_error *err);
int cs_sql_agg_ext_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                          const cs_column *in, const cs_column *in2, int64_t row0, int64_t n,
                          cs_sql_arena *arena, cs_error *err);
int cs_sql_agg_ext_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                         cs_column *const *bufs, int64_t n, cs_sql_arena *arena, cs_error *err);
void cs_sql_agg_ext_export(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                           int64_t n, cs_col_allocator *alloc, cs_column **bufs);
int cs_sql_agg_ext_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                            int64_t n, cs_col_allocator *alloc, cs_column **out, cs_error *err);
/* agg_functions.c's value helpers for the ext file: a min/max/first state's 16-byte form of
 * row i (strings: pointer + length into the column), kept with string bytes copied to the
 * arena, Spark's ordering of two such forms, and a column of such forms (valid when
 * st[has_off], has_off < 0: always). */
void cs_sql_agg_load_value(const cs_column *c, int64_t i, uint8_t *dst);
void cs_sql_agg_keep_value(cs_type_id id, uint8_t *st, const uint8_t *v, cs_sql_arena *arena);
int cs_sql_agg_cmp_value(cs_type_id id, const uint8_t *a, const uint8_t *b);
cs_column *cs_sql_agg_value_column(cs_col_type *type, const uint8_t *states, size_t stride, int off,
                                   int has_off, int64_t g0, int64_t n, cs_col_allocator *alloc);
/* Spark's DATATYPE_MISMATCH error of an aggregate over a type it does not take. */
int cs_sql_agg_bad_arg(cs_agg_fn fn, const cs_col_type *t, cs_error *err);
/* Spark's name of an aggregate function ("count", "stddev_samp", ...; agg_functions.c). */
const char *cs_agg_fn_name(cs_agg_fn fn);

/* ---- kernels_hash.c ---- */

/* Spark's xxhash64 of rows [row0, row0 + n) of c folded into h[i] (its seed on entry; nulls
 * leave it). */
void cs_sql_xxhash64_fold(const cs_column *c, int64_t row0, int64_t n, uint64_t *h);

/* ---- agg_quantiles.c: Spark's QuantileSummaries (percentile_approx) ---- */

typedef struct cs_sql_gk_stat {
    double v;
    int64_t g, delta;
} cs_sql_gk_stat;

typedef struct cs_sql_digest {
    double rel;
    double *head;
    int64_t nhead, headcap;
    cs_sql_gk_stat *s, *tmp;
    int64_t ns, scap, tcap;
    int64_t count;
    bool compressed;
} cs_sql_digest;

/* Room for n stats in *p (keep: how many to carry over). */
void cs_sql_gk_reserve(cs_sql_gk_stat **p, int64_t *cap, int64_t n, cs_sql_arena *arena,
                       int64_t keep);
void cs_sql_gk_add(cs_sql_digest *d, double x, cs_sql_arena *arena);
/* Merges a compressed summary (rel, count, os[0..ons)) into d (PercentileDigest.merge). */
void cs_sql_gk_merge(cs_sql_digest *d, double orel, int64_t ocount, const cs_sql_gk_stat *os,
                     int64_t ons, cs_sql_arena *arena);
/* A compressed copy of d in scratch (d unchanged: window frames go on adding to it). */
void cs_sql_gk_compressed_copy(const cs_sql_digest *d, cs_sql_digest *c, cs_sql_arena *scratch);
/* Spark's query of a compressed summary with at least one sample. */
double cs_sql_gk_query(const cs_sql_digest *d, double q);

/* ---- agg_moments.c: statistical states (order: the highest central moment, 2 to 4) ---- */

void cs_sql_moment_add(uint8_t *st, double x, int order);
void cs_sql_moment_merge(uint8_t *st, const double *o, int order);
void cs_sql_covar_add(uint8_t *st, double x, double y, bool corr);
void cs_sql_covar_merge(uint8_t *st, const double *o, bool corr);
/* fn's result over a moment / covariance / correlation state; false: null. */
bool cs_sql_stat_result(cs_agg_fn fn, const uint8_t *st, double *out);

/* ---- agg_collect.c: collect_list / collect_set / percentile / mode ---- */

/* Adds row i of c (non-null) to the group's values at st. */
void cs_sql_collect_add(const cs_sql_agg *a, uint8_t *st, const cs_column *c, int64_t i,
                        cs_sql_arena *arena);
/* Adds the non-null rows of c to the groups' states (states + gid[k] * stride + state_off): row
 * row0 + k to group gid[k], or, with row_off, rows [row_off[k], row_off[k + 1]) (a merged
 * buffer's elements). The way in for struct values (encoded a column at a time). */
void cs_sql_collect_add_rows(const cs_sql_agg *a, uint8_t *states, size_t stride,
                             const int32_t *gid, const int32_t *row_off, const cs_column *c,
                             int64_t row0, int64_t n, cs_sql_arena *arena);
/* The groups' values as an array column of a->buf_types[0] (the buffer; collect's result). */
cs_column *cs_sql_collect_column(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                 int64_t g0, int64_t n, cs_col_allocator *alloc);
cs_column *cs_sql_percentile_column(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                    int64_t g0, int64_t n, cs_col_allocator *alloc);
cs_column *cs_sql_mode_column(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                              int64_t n, cs_col_allocator *alloc);

/* ---- agg_histogram.c ---- */

/* histogram_numeric's state: bins (x[i], y[i]) sorted by x, at most nbins once trimmed. */
typedef struct cs_sql_hist {
    int nbins, n, cap;
    double *x, *y;
} cs_sql_hist;

/* The histogram a state row points to (made in the arena on first use). */
cs_sql_hist *cs_sql_hist_of(uint8_t *st, int nbins, cs_sql_arena *arena);
void cs_sql_hist_add(cs_sql_hist *h, double v, cs_sql_arena *arena);
/* Merges a histogram in its wire form (cs_sql_hist_bytes); CS_EINVAL on a malformed one. */
int cs_sql_hist_merge(cs_sql_hist *h, const uint8_t *buf, int32_t len, cs_sql_arena *arena,
                      cs_error *err);
/* The wire form of h (NULL: an empty histogram of nbins) in out (reset first). */
void cs_sql_hist_bytes(const cs_sql_hist *h, int nbins, cs_sbuf *out);

/* ---- agg_variant.c: schema_of_variant_agg ---- */

int cs_sql_vschema_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                          const cs_column *in, int64_t row0, int64_t n, cs_sql_arena *arena,
                          cs_error *err);
int cs_sql_vschema_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                         const cs_column *buf, int64_t n, cs_sql_arena *arena, cs_error *err);
cs_column *cs_sql_vschema_export(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                 int64_t g0, int64_t n, cs_col_allocator *alloc);
int cs_sql_vschema_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                            int64_t n, cs_col_allocator *alloc, cs_column **out, cs_error *err);

/* ---- variant_explode.c: Spark's VariantExplode entries for op_generate.c ---- */

/* array<struct<pos: int, key: string, value: variant>> (one reference). */
cs_col_type *cs_sql_variant_entries_type(void);
/* Rows [0, n) of a variant column as their entries (an object's fields, an array's elements;
 * none for the others); NULL + err on malformed bytes. */
cs_column *cs_sql_variant_entries(const cs_column *in, int64_t n, cs_col_allocator *alloc,
                                  cs_error *err);

/* ---- agg_hll.c ---- */

/* Spark's HyperLogLog++ at precision p (4..18): registers reg[0 .. 2^p) take a 64-bit hash; the
 * estimate of the distinct values seen. */
void cs_sql_hll_add(uint8_t *reg, int p, uint64_t h);
int64_t cs_sql_hll_estimate(const uint8_t *reg, int p);

#endif /* CSPARK_SQLEXEC_SQL_OPS_INTERNAL_H */
