/*
 * function_registry_internal.h — private to src/sql/function_registry*.c: the registry's table
 * entry (a cs_fn_info with its signature letters, see function_registry.c's header), its result
 * type rules and the FN/FNN entry macros, so that a family of functions may keep its entries in
 * a file of its own (function_registry_variant.c) that cs_fn_lookup searches after the main
 * table. Static tables only; nothing here is allocated.
 */
#ifndef CSPARK_SQL_FUNCTION_REGISTRY_INTERNAL_H
#define CSPARK_SQL_FUNCTION_REGISTRY_INTERNAL_H

#include "sql/function_registry.h"

enum {
    R_SIG,     /* by args/ret signature */
    R_ADD,     /* + - */
    R_MUL,     /* * */
    R_DIVIDE,  /* / */
    R_MOD,     /* % mod pmod */
    R_DIV,     /* div */
    R_COMPARE, /* = < <= > >= <=> */
    R_BETWEEN, /* between */
    R_SUM,
    R_AVG,
    R_CEIL, /* ceil, floor */
    R_ROUND,
    R_STRUCT,       /* struct(a, b): fields named after columns, else col1, col2 */
    R_NAMED_STRUCT, /* named_struct('n', v, ...) */
    R_MAP,          /* map(k, v, ...): common key type, common value type */
    R_SPECIAL       /* function_registry_collections.c: arrays, maps, percentile, stack, ... */
};

typedef struct fn_entry {
    cs_fn_info info;
    const char *args, *ret;
    bool null_intolerant_not_nullable; /* result never null (count, hash, isnull, ...) */
} fn_entry;

#define FN(n, c, lo, hi, k, r, a, t)                                                               \
    {                                                                                              \
        {n, c, lo, hi, k, r}, a, t, false                                                          \
    }
#define FNN(n, c, lo, hi, k, r, a, t)                                                              \
    {                                                                                              \
        {n, c, lo, hi, k, r}, a, t, true                                                           \
    }

/* function_registry_variant.c: the variant functions' entries (all R_SPECIAL). */
extern const fn_entry cs_fn_variant_functions[];
extern const int cs_fn_variant_count;

#endif /* CSPARK_SQL_FUNCTION_REGISTRY_INTERNAL_H */
