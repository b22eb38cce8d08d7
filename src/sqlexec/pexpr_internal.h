/*
 * pexpr_internal.h — private to src/sqlexec's expression files (pexpr*.c, kernels_*.c,
 * op_filter.c, op_project.c): the kernel signature, the per-family kernel lookups and the column
 * helpers every kernel shares. Not for other modules: they use pexpr.h.
 *
 * A kernel computes one node over whole columns: args[i] has either k->n rows or one row (a
 * literal, read with stride 0: cs_px_stride), and *out gets a new column of k->n rows of the
 * node's result type. A kernel is picked once per node at compile time by the family lookups
 * below (each returns NULL for a name or argument types it does not serve) and called once per
 * batch, never per row.
 *
 * Ownership: args are borrowed; *out is one new reference; the helpers' columns are new
 * references from k->alloc.
 */
#ifndef CSPARK_SQLEXEC_PEXPR_INTERNAL_H
#define CSPARK_SQLEXEC_PEXPR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/sql_error.h"

/* A nondeterministic function's generator (kernels_random.c), kept by its compiled node and
 * moved on across the task's batches: XORShiftRandom's seed for rand / randn (with
 * nextGaussian's second deviate), the Mersenne Twister's words for uuid. */
typedef struct cs_px_rng {
    bool started; /* seeded at the first batch, from the seed argument and the partition */
    uint64_t xs;
    bool have_gauss;
    double next_gauss;
    int mti;
    uint32_t mt[624];
} cs_px_rng;

typedef struct cs_px_kctx {
    const cs_pexpr *e; /* the node: result type, name, cast mode */
    const cs_sql_exec_ctx *ctx;
    cs_col_allocator *alloc;
    cs_error *err;
    int64_t n;      /* rows of the result */
    cs_px_rng *rng; /* the node's generator (cs_px_is_random functions), else NULL */
} cs_px_kctx;

typedef int (*cs_px_kernel)(const cs_px_kctx *k, cs_column *const *args, int n_args,
                            cs_column **out);

/* A compiled node: its (cloned) expression, its kernel (NULL for column, literal and the lazy
 * nodes pexpr_eval.c runs itself) and whether evaluating its subtree could raise an error (then
 * a lazy parent evaluates it only on the rows that reach it). */
typedef struct cs_px_node cs_px_node;
/* A higher-order function's kernel (kernels_lambda.c): args are its evaluated arguments (NULL
 * at its lambdas' places), b the batch it is evaluated over (its lambdas read columns of it). */
typedef int (*cs_px_hof)(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                         cs_column *const *args, cs_column **out);
typedef struct cs_px_lambda cs_px_lambda; /* a lambda's compiled body (kernels_lambda.c) */
struct cs_px_node {
    const cs_pexpr *e;
    cs_px_kernel kernel;
    cs_px_hof hof;        /* a higher-order function: evaluated by pexpr_eval.c through it */
    cs_px_lambda *lambda; /* lambdafunction(body, vars...): its body, compiled; no children */
    bool could_raise;
    int shared;     /* the slot of a subexpression shared across programs (pexpr_cse.c), or -1 */
    cs_px_rng *rng; /* a nondeterministic function's generator (owned), else NULL */
    int n_children;
    cs_px_node *children;
};
struct cs_pexpr_program {
    cs_pexpr *tree; /* the program's own copy */
    cs_px_node root;
};
/* cs_pexpr_eval with the columns of shared subexpressions (cache: one per slot, NULL until a
 * node of that slot is evaluated, then one reference kept there; NULL cache: none shared). */
int cs_px_eval_cached(cs_pexpr_program *p, cs_column **cache, cs_col_batch *batch,
                      const cs_sql_exec_ctx *ctx, cs_column **out, cs_error *err);
/* Any function's kernel (every family asked in turn). */
cs_px_kernel cs_px_lookup_call(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);

/* The families' lookups (kernels_<family>.c). `result` is the node's result type. */
cs_px_kernel cs_px_arith_lookup(const char *fn, const cs_col_type *const *t, int n,
                                const cs_col_type *result);
/* collate / collation / collationkey over strings (kernels_compare.c). */
cs_px_kernel cs_px_collation_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);
cs_px_kernel cs_px_compare_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result);
cs_px_kernel cs_px_logic_lookup(const char *fn, const cs_col_type *const *t, int n,
                                const cs_col_type *result);
cs_px_kernel cs_px_hash_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
/* A cast kernel from `from` to `to`, NULL when Spark has no such cast. */
cs_px_kernel cs_px_cast_lookup(const cs_col_type *from, const cs_col_type *to);
/* The casts of complex values, binaries and intervals (kernels_cast_complex.c). */
cs_px_kernel cs_px_cast_complex_lookup(const cs_col_type *from, const cs_col_type *to);
/* CAST(string AS INTERVAL ...) (kernels_cast_interval.c). */
cs_px_kernel cs_px_cast_interval_lookup(const cs_col_type *from, const cs_col_type *to);
/* IN over literals: the kernel for a value of type t. */
cs_px_kernel cs_px_in_lookup(const cs_col_type *t);
/* Higher-order functions and their lambdas (kernels_lambda.c). */
bool cs_px_is_lambda(const cs_pexpr *e);
cs_px_hof cs_px_hof_lookup(const cs_pexpr *e);
/* Compiles the lambda e (lambdafunction(body, vars...)) for the batches of `schema` into n. */
int cs_px_lambda_compile(cs_px_node *n, const cs_pexpr *e, const cs_col_type *schema,
                         cs_error *err);
void cs_px_lambda_free(cs_px_lambda *l);
/* Lazy nodes (and, or, if, coalesce, nvl, case) are evaluated by pexpr_eval.c itself. */
bool cs_px_is_lazy(const char *fn);

/* 0 for a one-row (literal) argument of a longer result, 1 otherwise. */
/* A kernel's result from its builder b (freed here): *out gets the column when rc is CS_OK;
 * otherwise the column is dropped and rc returned. */
static inline int cs_px_builder_result(cs_col_builder *b, int rc, cs_column **out)
{
    cs_column *r = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc != CS_OK) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

static inline int64_t cs_px_stride(const cs_column *c, int64_t n)
{
    return c->length == n ? 1 : 0;
}
static inline bool cs_px_valid(const cs_column *c, int64_t i, int64_t stride)
{
    return cs_column_is_valid(c, i * stride);
}

/* A fixed-width (or boolean) column of n rows of `type` (a new reference is taken), values zero,
 * no validity bitmap. */
cs_column *cs_px_new_fixed(cs_col_allocator *alloc, const cs_col_type *type, int64_t n);
/* A column of list type `type` (array or map) with lens[i] elements in row i over children
 * (nc of them: one for an array, keys and values for a map); rows with null[i] set are null
 * (null may be NULL). Takes over the children (pexpr_take.c). */
cs_column *cs_px_list_column(const cs_px_kctx *k, const cs_col_type *type, const int32_t *lens,
                             const uint8_t *null, cs_column **children, int nc);
/* Gives c a validity bitmap, all rows valid, when it has none. */
void cs_px_ensure_validity(cs_column *c);
/* Marks row i of c null (c has a bitmap: cs_px_ensure_validity first). */
static inline void cs_px_set_null(cs_column *c, int64_t i)
{
    if (cs_bit_get(c->validity, i)) {
        cs_bit_set(c->validity, i, false);
        c->null_count++;
    }
}
/* c's validity := the AND of the args' validity over n rows (nulls in, nulls out: Spark's
 * null-intolerant functions); leaves c without a bitmap when no argument has nulls. */
void cs_px_and_validity(cs_column *c, cs_column *const *args, int n_args, int64_t n);
/* A dictionary-encoded string column x of n rows whose predicate against a literal pays to be
 * evaluated per dictionary entry (no more entries than rows), kernels_dict.c. */
bool cs_px_dict_pays(const cs_column *x, int64_t n);
/* r's value bits (a boolean column of n rows, validity already set) from entry[e] (0 or 1), the
 * predicate's result on x's dictionary entry e, by each valid row's index. */
void cs_px_dict_spread(cs_column *r, const cs_column *x, const uint8_t *entry, int64_t n);
/* A column of n nulls of type. */
cs_column *cs_px_all_null(cs_col_allocator *alloc, const cs_col_type *type, int64_t n);
/* Bytes of string/binary row i*stride of c. */
static inline const uint8_t *cs_px_bytes(const cs_column *c, int64_t i, int64_t stride,
                                         int32_t *len)
{
    return cs_column_bytes(c, i * stride, len);
}

/* 128-bit decimal helpers (kernels_arith.c): 10^k for 0 <= k <= 38. */
__int128 cs_px_pow10(int k);
/* Whether |v| fits `precision` digits. */
bool cs_px_dec_fits(__int128 v, int precision);
/* v (at scale from) rescaled to scale to, HALF_UP when digits are dropped; false on overflow of
 * 128 bits while scaling up. */
bool cs_px_dec_rescale(__int128 v, int from, int to, __int128 *out);
static inline __int128 cs_px_dec_get(const cs_column *c, int64_t i)
{
    __int128 v;
    __builtin_memcpy(&v, c->values + i * 16, 16);
    return v;
}
static inline void cs_px_dec_put(cs_column *c, int64_t i, __int128 v)
{
    __builtin_memcpy(c->values + i * 16, &v, 16);
}
/* v stored as row i of an integral (byte, short, int, long), date or boolean column (truncated
 * to the column's width; the caller checks the range with cs_px_int_fits where it must). */
static inline void cs_px_int_put(cs_column *r, int64_t i, int64_t v)
{
    switch (r->type->id) {
    case CS_TYPE_BYTE:
        ((int8_t *)r->values)[i] = (int8_t)v;
        break;
    case CS_TYPE_SHORT:
        ((int16_t *)(void *)r->values)[i] = (int16_t)v;
        break;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        ((int32_t *)(void *)r->values)[i] = (int32_t)v;
        break;
    case CS_TYPE_BOOLEAN:
        cs_bit_set(r->values, i, v != 0);
        break;
    default:
        ((int64_t *)(void *)r->values)[i] = v;
    }
}
/* Whether v is in the range of the integral type id (long: always). */
static inline bool cs_px_int_fits(cs_type_id id, int64_t v)
{
    switch (id) {
    case CS_TYPE_BYTE:
        return v >= INT8_MIN && v <= INT8_MAX;
    case CS_TYPE_SHORT:
        return v >= INT16_MIN && v <= INT16_MAX;
    case CS_TYPE_INT:
        return v >= INT32_MIN && v <= INT32_MAX;
    default:
        return true;
    }
}
/* Decimal text of v at scale ("-1.50"), into buf (>= 48 bytes); returns its length. */
int cs_px_dec_format(__int128 v, int scale, char *buf);

/* d as Java's Double.toString (or Float.toString when is_float) prints it: "1.0E20", "0.001",
 * "1234567.0" (kernels_cast.c); buf >= 40 bytes; returns the length. */
int cs_px_java_double_text(double d, bool is_float, char *buf);
cs_px_kernel cs_px_math_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
cs_px_kernel cs_px_string_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
cs_px_kernel cs_px_datetime_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result);
cs_px_kernel cs_px_regexp_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
cs_px_kernel cs_px_zone_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
cs_px_kernel cs_px_collection_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result);
cs_px_kernel cs_px_construct_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);
/* arrays_zip (kernels_arrays_zip.c). */
cs_px_kernel cs_px_arrays_zip_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result);
cs_px_kernel cs_px_access_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
cs_px_kernel cs_px_math_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);
cs_px_kernel cs_px_integral_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result);
cs_px_kernel cs_px_string_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result);
cs_px_kernel cs_px_datetime_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result);
/* window(time, window_us, start_us) (kernels_time_window.c). */
cs_px_kernel cs_px_time_window_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result);
cs_px_kernel cs_px_datetime_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                          const cs_col_type *result);
cs_px_kernel cs_px_array_set_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);
cs_px_kernel cs_px_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
/* to_char / to_number / try_to_number by a number format (kernels_number_format.c). */
cs_px_kernel cs_px_number_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result);
cs_px_kernel cs_px_compare_complex_lookup(const char *fn, const cs_col_type *const *t, int n,
                                          const cs_col_type *result);
cs_px_kernel cs_px_map_lookup(const char *fn, const cs_col_type *const *t, int n,
                              const cs_col_type *result);
cs_px_kernel cs_px_charset_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result);
cs_px_kernel cs_px_interval_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result);
/* make_ym_interval / make_dt_interval (kernels_interval_make.c). */
cs_px_kernel cs_px_interval_make_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result);
cs_px_kernel cs_px_digest_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
/* rand, randn, uuid (kernels_random.c): is fn one of them (its node keeps a cs_px_rng) */
bool cs_px_is_random(const char *fn);
cs_px_kernel cs_px_random_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result);
/* make_interval and calendar intervals as strings (kernels_interval_calendar.c) */
cs_px_kernel cs_px_calendar_make_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result);
cs_px_kernel cs_px_cast_calendar_lookup(const cs_col_type *from, const cs_col_type *to);
/* mask (kernels_mask.c) */
cs_px_kernel cs_px_mask_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
/* sentences (kernels_sentences.c) */
cs_px_kernel cs_px_sentences_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);
cs_px_kernel cs_px_misc_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
/* Whether a and b are the same type up to nullability flags (kernels_construct.c). */
bool cs_px_type_same(const cs_col_type *a, const cs_col_type *b);
/* Spark's ordering of a[i] and b[j], both valid, of one comparable type (kernels_collection.c). */
int cs_px_elem_cmp(const cs_column *a, int64_t i, const cs_column *b, int64_t j);
/* cs_px_elem_cmp for any comparable type: arrays element by element, structs field by field,
 * nulls first (kernels_compare_complex.c). */
int cs_px_value_cmp(const cs_column *a, int64_t i, const cs_column *b, int64_t j);
cs_px_kernel cs_px_json_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result);
/* Variants (kernels_variant.c, kernels_variant_get.c; the encoding is variant_codec.h's):
 * parse_json, try_parse_json, to_json, is_variant_null, schema_of_variant, to_variant_object,
 * variant_get, try_variant_get, and the casts to and from VARIANT. */
cs_px_kernel cs_px_variant_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result);
cs_px_kernel cs_px_variant_get_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result);
cs_px_kernel cs_px_cast_variant_lookup(const cs_col_type *from, const cs_col_type *to);
cs_px_kernel cs_px_cast_from_variant_lookup(const cs_col_type *from, const cs_col_type *to);
/* to_json of a variant column: Spark's Variant.toJson text (the nested casts to string print
 * variants so). */
int cs_px_variant_to_json(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out);
/* The variant at row `row` of a variant column c; false on a malformed metadata header. */
struct cs_variant;
struct cs_vb;
bool cs_px_variant_at(const cs_column *c, int64_t row, struct cs_variant *v);
/* Appends the builder's finished variant as one row of a variant column builder. */
void cs_px_variant_put(cs_col_builder *b, struct cs_vb *vb);
/* MALFORMED_VARIANT. */
int cs_px_err_malformed_variant(cs_error *err);
cs_px_kernel cs_px_json_write_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result);
cs_px_kernel cs_px_json_read_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result);

/* Days since 1970-01-01 of a proleptic Gregorian date, and back: cs_tv_days_from_civil and
 * cs_tv_civil_from_days of formats/text_values.h, one conversion for the whole tree. */

/* Time zones (kernels_tz.c): Spark's zone ids over the system tz database, cached for the
 * process, immutable, safe from any thread. NULL: no such zone. */
typedef struct cs_px_zone cs_px_zone;
const cs_px_zone *cs_px_zone_get(const char *id, size_t len);
/* The session zone of k (ctx->session_tz, "UTC" when unset); NULL + Spark's error when unknown. */
const cs_px_zone *cs_px_session_zone(const cs_px_kctx *k);
/* Seconds east of UTC in force at the instant utc_seconds. */
int32_t cs_px_zone_offset(const cs_px_zone *z, int64_t utc_seconds);
/* The instant of a local time (java.time's rules for gaps and overlaps), seconds and micros. */
int64_t cs_px_zone_local_to_utc(const cs_px_zone *z, int64_t local_seconds);
int64_t cs_px_zone_local_to_utc_us(const cs_px_zone *z, int64_t local_us);
int64_t cs_px_zone_utc_to_local_us(const cs_px_zone *z, int64_t utc_us);
int cs_px_err_invalid_zone(cs_error *err, const char *id, size_t len);

/* Spark's runtime errors. */
/* NULL_MAP_KEY (null_key) or DUPLICATED_MAP_KEY naming keys' element e (kernels_construct.c). */
int cs_px_err_map_key(const cs_px_kctx *k, const cs_column *keys, int64_t e, bool null_key);
int cs_px_err_overflow(cs_error *err, const char *what, const char *try_fn);
int cs_px_err_divide_by_zero(cs_error *err);
int cs_px_err_numeric_out_of_range(cs_error *err, __int128 v, int scale, int precision, int rscale);

/* A copy of rows idx[0..n) of c (pexpr_take.c). */
cs_column *cs_px_take(const cs_column *c, const int32_t *idx, int64_t n, cs_col_allocator *a);
/* Merges: out row i = src[which[i]] row row[i] (rows with which[i] < 0 are null); every src
 * of type `type` (any type: arrays, maps and structs too; src[s] may be NULL when no row
 * names it). For CASE / IF / COALESCE results put back together from branches evaluated on
 * sub-batches, and for the constructors that interleave their arguments. */
cs_column *cs_px_merge(cs_col_allocator *alloc, const cs_col_type *type, cs_column *const *src,
                       int n_src, const int32_t *which, const int32_t *row, int64_t n);

#endif /* CSPARK_SQLEXEC_PEXPR_INTERNAL_H */
