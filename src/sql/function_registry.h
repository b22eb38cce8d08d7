/*
 * function_registry.h — the type side of Spark's FunctionRegistry: the builtin names and aliases
 * a query may call (case-insensitive), the canonical name the engine implements them under
 * (sqlexec/pexpr.h), how many arguments each takes, whether it is a scalar, aggregate, window
 * or generator function, and the rule giving its result type from its arguments' types,
 * inserting Spark 4's implicit casts (AnsiTypeCoercion) on the arguments.
 *
 * Operators are functions here as in sql_expr.h: "+", "-", "*", "/", "%", "div", "=", "<=>",
 * "<", "<=", ">", ">=", "!=", "<>", "and", "or", "not", "negative", "isnull", "like", ...
 *
 * Errors are Spark's: WRONG_NUM_ARGS.WITHOUT_SUGGESTION, DATATYPE_MISMATCH.* (the message
 * names the call as Spark's toSQLExpr prints it). Called by the analyzer. Ownership: the table
 * is static; resolved nodes are made in the caller's arena.
 */
#ifndef CSPARK_SQL_FUNCTION_REGISTRY_H
#define CSPARK_SQL_FUNCTION_REGISTRY_H

#include <stdbool.h>

#include "common/err.h"
#include "sql/sql_arena.h"
#include "sql/sql_expr.h"

typedef enum cs_fn_kind {
    CS_FN_SCALAR,
    CS_FN_AGGREGATE, /* also usable as a window function with OVER */
    CS_FN_WINDOW,    /* only with OVER: row_number, rank, lag, ... */
    CS_FN_GENERATOR  /* explode, posexplode, inline, stack */
} cs_fn_kind;

typedef struct cs_fn_info {
    const char *name;       /* as the user may write it (lower case) */
    const char *canonical;  /* the engine's name (pexpr.h) */
    int min_args, max_args; /* max_args -1: any number */
    cs_fn_kind kind;
    int rule; /* the result type rule (function_registry.c) */
} cs_fn_info;

/* The builtin called name (case-insensitive), or NULL. */
const cs_fn_info *cs_fn_lookup(const char *name);
/* The i-th builtin (0 <= i < cs_fn_count()), for SHOW FUNCTIONS and the test that checks every
 * registered function has an engine kernel. */
int cs_fn_count(void);
const cs_fn_info *cs_fn_at(int i);
/* A builtin that is a table-valued function only (Spark's TableFunctionRegistry: not in
 * cs_fn_lookup, nor SHOW FUNCTIONS' list), or NULL: variant_explode and variant_explode_outer. */
const cs_fn_info *cs_fn_lookup_table_function(const char *name);

/* A builtin's description (function_docs.c): Spark's class name and usage line, either NULL
 * when not known here. Static. */
typedef struct cs_fn_doc {
    const char *name, *class_name, *usage;
} cs_fn_doc;
/* The description of the builtin called name (lower case, as registered), or NULL. */
const cs_fn_doc *cs_fn_doc_of(const char *name);

/* Resolves a call of f written as `name` (for messages: Spark prints the name as written)
 * over resolved args[0..n): checks the argument count and types, casts arguments as Spark
 * does and returns a resolved FUNC (scalar, window, generator) or AGG node with its type and
 * nullability; distinct/filter/ignore_nulls are copied from `call` (the unresolved node, for
 * positions too). NULL + err (Spark's error class) when the call is not valid. */
cs_sql_expr *cs_fn_resolve(cs_sql_arena *a, const cs_fn_info *f, const cs_sql_expr *call,
                           cs_sql_expr **args, int n, cs_error *err);

/* The common type of args[0..n) under ANSI (CASE, IF, COALESCE, IN, greatest, ...) and args
 * cast to it in place; NULL when there is none. */
cs_col_type *cs_fn_coerce_common(cs_sql_arena *a, cs_sql_expr **args, int n);

/* Spark's toSQLExpr of e for messages: "\"(a + 1)\"" (the pretty SQL in double quotes). */
void cs_fn_sql_expr_quoted(const cs_sql_expr *e, cs_sbuf *out);

/* function_registry_complex.c: the result type of struct / named_struct (named) and of map
 * calls e (arguments resolved), set in e->type; 0, or CS_EINVAL with Spark's error. */
int cs_fn_resolve_struct(cs_sql_arena *a, cs_sql_expr *e, bool named, cs_error *err);
int cs_fn_resolve_map(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* arrays_zip(a1, ...): array<struct<...>> of the arrays' element types
 * (function_registry_complex.c). */
int cs_fn_resolve_arrays_zip(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);

/* function_registry_collections.c: the type rules no signature says (array and map functions,
 * size over NULL, make_timestamp, convert_timezone, to_char, percentile, stack, ...): sets
 * e->type (and casts e's arguments); 0, or CS_EINVAL with Spark's error. */
int cs_fn_resolve_special(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* function_registry_json.c: the type rules of to_json and from_json (sets e->type, keeps only
 * the JSON argument); 0, CS_EINVAL with Spark's error, or 1 when e is neither. */
int cs_fn_resolve_json(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* function_registry_variant.c: the type rules of parse_json, try_parse_json, is_variant_null,
 * schema_of_variant, to_variant_object, variant_get and try_variant_get (sets e->type; the
 * variant_get target type leaves the arguments); 0, CS_EINVAL, or 1 when e is none of them. */
int cs_fn_resolve_variant(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* function_registry_collation.c: collate(x, name) and collation(x) (1: not one of them). */
int cs_fn_resolve_collation(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* The collation string arguments args[0..n) of e (NULL: none to name in a message) share
 * (Spark's collation strengths); casts the string arguments of another collation to it. 0, or
 * COLLATION_MISMATCH.EXPLICIT / INDETERMINATE_COLLATION_IN_EXPRESSION in err. */
int cs_fn_coerce_collations(cs_sql_arena *a, const cs_sql_expr *e, cs_sql_expr **args, int n,
                            cs_error *err);
/* Spark's errors for a variant where values must be ordered (variants are not comparable):
 * DATATYPE_MISMATCH.INVALID_ORDERING_TYPE for a comparison or sort order e over one (op: the
 * name Spark gives it, "sortorder"; NULL: e's function name), and
 * GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE for a grouping expression g of one; CS_EINVAL, or 0
 * when no variant is involved. */
int cs_fn_check_variant_order(cs_error *err, const cs_sql_expr *e, const char *op);
int cs_fn_check_variant_group(cs_error *err, const cs_sql_expr *g);
/* function_registry_time_window.c: the type rule of window(time, duration...) (a struct of
 * start and end; the durations become microseconds); 0, CS_EINVAL, or 1 when e is not window. */
int cs_fn_resolve_time_window(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* function_registry_random.c: the type rule of uniform(min, max[, seed]) (Spark's
 * Uniform.dataType); 0, CS_EINVAL with Spark's error, or 1 when e is not uniform. */
int cs_fn_resolve_uniform(cs_sql_arena *a, cs_sql_expr *e, cs_error *err);
/* The type of date_part(field, x) (EXTRACT) when Spark's is not int: decimal(8,6) for a literal
 * SECOND field (with its fraction), tinyint for HOUR, MINUTE or MONTH of an interval (Spark's
 * ExtractInterval*); NULL otherwise (function_registry_collections.c). */
cs_col_type *cs_fn_date_part_type(cs_sql_arena *a, const cs_sql_expr *e);

/* function_registry_errors.c: Spark's errors of a call e (resolved arguments). */
/* DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE: argument `index` is not of the `required` type
 * (its SQL text: "\"ARRAY\"", "(\"STRING\" or \"ARRAY\")"). Returns CS_EINVAL. */
int cs_fn_err_unexpected_type(cs_error *err, const cs_sql_expr *e, int index, const char *required,
                              const cs_sql_expr *arg);
/* DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES of a binary operator e. */
int cs_fn_err_binary_diff(cs_error *err, const cs_sql_expr *e);
/* The error of a + or - (minus) whose operands no type rule takes, as Spark's analyzer finds
 * it after rewriting the operator by its operands (date_add, TimeAdd, ...). Returns CS_EINVAL. */
int cs_fn_err_add_operands(const cs_sql_expr *e, bool minus, cs_error *err);
/* WRONG_NUM_ARGS.WITHOUT_SUGGESTION for n arguments of f called as name. */
/* For a call e of canonical name fn: DATATYPE_MISMATCH.HASH_MAP_TYPE when fn is hash or
 * xxhash64 and an argument is or holds a map (Spark's default
 * spark.sql.legacy.allowHashOnMapType=false); 0 for every other call. */
int cs_fn_check_hash_args(cs_error *err, const cs_sql_expr *e, const char *fn);
int cs_fn_err_num_args(cs_error *err, const char *name, const cs_fn_info *f, int n);

#endif /* CSPARK_SQL_FUNCTION_REGISTRY_H */
