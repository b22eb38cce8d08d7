/*
 * pexpr.h — physical (bound) expressions and their vectorized evaluation: what the planner
 * turns the analyzer's resolved expressions into, and what Filter, Project, the join and
 * aggregate key projections and every other operator evaluate, one batch at a time.
 *
 * A cs_pexpr is a small tree of bound nodes: a column of the input batch by ordinal, a literal
 * (a one-row column), a call of a scalar function by its canonical name (Spark's
 * FunctionRegistry name: "+", "-", "*", "/", "%", "div", "=", "<=>", "<", "<=", ">", ">=",
 * "and", "or", "not", "isnull", "isnotnull", "like", "rlike", "negative", "substring",
 * "upper", "date_add", "year", "hash", "xxhash64", "coalesce", "if", ...), a cast (ANSI, TRY
 * or legacy), CASE WHEN, and IN over a list of literals. Every node carries its result type
 * and nullability, fixed by the analyzer: evaluation never infers types. Subqueries are not
 * here: the planner runs an uncorrelated scalar subquery first and binds its value as a literal;
 * correlated ones are rewritten into joins by the optimizer.
 *
 * Evaluation is vectorized: cs_pexpr_compile turns the tree into a program of kernels, one per
 * node, chosen once from the node's function name and argument types (no per-row dispatch; a
 * kernel loops over whole columns, with fast paths for columns without nulls and for literal
 * arguments); cs_pexpr_eval runs it over a batch and returns one column of batch->num_rows
 * values. Runtime errors are Spark's (sql_error.h): DIVIDE_BY_ZERO, ARITHMETIC_OVERFLOW,
 * CAST_INVALID_INPUT, CAST_OVERFLOW, ... under ANSI mode; null results (or wrap-around, as
 * Spark) when ctx->ansi is false. AND/OR follow SQL's three-valued logic, and a CASE / IF /
 * COALESCE / AND / OR branch is evaluated only on the rows that need it when it could fail
 * (Spark evaluates those lazily: `CASE WHEN x <> 0 THEN 1 / x END` must not raise).
 *
 * Ownership: a tree is built with the constructors below, each taking over its children and
 * type references; cs_pexpr_free frees a tree. A compiled program owns a copy of what it needs
 * (the tree may be freed after compiling) and is used by one thread at a time (it keeps
 * scratch columns); cs_pexpr_program_free frees it. Columns returned by eval are one new
 * reference the caller unrefs.
 */
#ifndef CSPARK_SQLEXEC_PEXPR_H
#define CSPARK_SQLEXEC_PEXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "sqlexec/exec_ctx.h"

typedef enum cs_pexpr_kind {
    CS_PX_COLUMN,  /* input column `ordinal` */
    CS_PX_LITERAL, /* `literal`: a column of one row (null: its one row is null) */
    CS_PX_CALL,    /* scalar function `fn` over args */
    CS_PX_CAST,    /* args[0] cast to type, by cast_mode */
    CS_PX_CASE,    /* args: when0, then0, when1, then1, ... [, else] (has_else) */
    CS_PX_IN       /* args[0] IN (args[1..n)), every one a literal, coerced to args[0]'s type */
} cs_pexpr_kind;

typedef enum cs_cast_mode {
    CS_CAST_ANSI,  /* CAST under ANSI mode: invalid input and overflow raise */
    CS_CAST_TRY,   /* try_cast: null instead */
    CS_CAST_LEGACY /* CAST with spark.sql.ansi.enabled=false: null / wrap as Spark 3 */
} cs_cast_mode;

typedef struct cs_pexpr cs_pexpr;
struct cs_pexpr {
    cs_pexpr_kind kind;
    cs_col_type *type; /* result type (one reference) */
    bool nullable;
    int ordinal;        /* CS_PX_COLUMN */
    cs_column *literal; /* CS_PX_LITERAL (one reference) */
    char *fn;           /* CS_PX_CALL: canonical function name (owned) */
    cs_cast_mode cast_mode;
    bool has_else; /* CS_PX_CASE */
    int n_args;
    cs_pexpr **args; /* owned */
};

/* Constructors: each takes over `type` and the argument trees (also on failure). */
cs_pexpr *cs_pexpr_column(int ordinal, cs_col_type *type, bool nullable);
cs_pexpr *cs_pexpr_literal(cs_column *one_row); /* takes over the column; type from it */
cs_pexpr *cs_pexpr_call(const char *fn, cs_col_type *type, bool nullable, cs_pexpr **args,
                        int n_args);
cs_pexpr *cs_pexpr_cast(cs_pexpr *child, cs_col_type *type, cs_cast_mode mode);
cs_pexpr *cs_pexpr_case(cs_col_type *type, bool nullable, cs_pexpr **args, int n_args,
                        bool has_else);
cs_pexpr *cs_pexpr_in(cs_pexpr *value, cs_pexpr **list, int n_list);
void cs_pexpr_free(cs_pexpr *e);
/* A deep copy of e (NULL for NULL): types, literals shared by reference. */
cs_pexpr *cs_pexpr_clone(const cs_pexpr *e);
/* Spark's way of printing an expression in EXPLAIN ("(l_quantity#4 * 2)" style, with ordinals
 * as "input[3, int, true]" for bound columns). */
void cs_pexpr_explain(const cs_pexpr *e, cs_sbuf *out);

/* Whether a kernel exists for function fn over these argument types (the analyzer's function
 * registry and the engine agree on names; a test checks every registered function has one). */
bool cs_pexpr_has_kernel(const char *fn, const cs_col_type *const *arg_types, int n_args);

typedef struct cs_pexpr_program cs_pexpr_program;
/* Compiles e for input batches of `input_schema` (a struct type): checks ordinals and types and
 * picks each node's kernel. NULL + err (naming the function and argument types) when there is
 * no kernel. */
cs_pexpr_program *cs_pexpr_compile(const cs_pexpr *e, const cs_col_type *input_schema,
                                   cs_error *err);
/* The column of e over every row of batch: CS_OK, or a runtime error (Spark's class). */
int cs_pexpr_eval(cs_pexpr_program *p, cs_col_batch *batch, const cs_sql_exec_ctx *ctx,
                  cs_column **out, cs_error *err);
void cs_pexpr_program_free(cs_pexpr_program *p);

/* Common subexpression elimination across the programs of one operator (pexpr_cse.c): marks
 * the subtrees that occur more than once among programs[0..n) (NULL entries skipped; only
 * deterministic subtrees evaluated on every row of the batch, none inside CASE/IF/AND/OR/
 * COALESCE), NULL when none repeats. The cse borrows the programs and is freed before them. */
typedef struct cs_pexpr_cse cs_pexpr_cse;
cs_pexpr_cse *cs_pexpr_cse_new(cs_pexpr_program *const *programs, int n);
/* cs_pexpr_eval, reusing the columns of shared subexpressions already evaluated over this batch
 * (cse may be NULL: plain cs_pexpr_eval). */
int cs_pexpr_eval_shared(cs_pexpr_program *p, cs_pexpr_cse *cse, cs_col_batch *batch,
                         const cs_sql_exec_ctx *ctx, cs_column **out, cs_error *err);
/* Forgets the columns of the last batch (call before evaluating the next one). */
void cs_pexpr_cse_clear(cs_pexpr_cse *cse);
void cs_pexpr_cse_free(cs_pexpr_cse *cse);

/* Whether e's value is fixed by its inputs (no rand, uuid, partition id, file name, ...
 * anywhere in it: Spark's Nondeterministic). */
bool cs_pexpr_deterministic(const cs_pexpr *e);
/* Whether the scalar function fn is one of Spark's Nondeterministic ones (kernels_random.c keeps
 * the one list: rand, uuid, shuffle, spark_partition_id, input_file_name, ...). */
bool cs_px_nondeterministic(const char *fn);

/* Rows of a boolean column that are true (null and false are dropped), as ascending row
 * indices into sel (room for column->length); returns how many. Filter's building block. */
int64_t cs_pexpr_true_rows(const cs_column *predicate, int32_t *sel);
/* A new column of the rows idx[0..n) of c, in that order (decoding nothing: a dictionary
 * column stays encoded). The gather every operator uses to compact or reorder rows. */
cs_column *cs_column_take(const cs_column *c, const int32_t *idx, int64_t n,
                          cs_col_allocator *alloc);
/* A new batch of the rows idx[0..n) of every column of b. */
cs_col_batch *cs_col_batch_take(cs_col_batch *b, const int32_t *idx, int64_t n,
                                cs_col_allocator *alloc);

#endif /* CSPARK_SQLEXEC_PEXPR_H */
