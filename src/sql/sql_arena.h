/*
 * sql_arena.h — the memory of one query's trees: every expression and logical plan node, name
 * and list the parser, analyzer and optimizer make for a statement comes from one arena and is
 * freed with it, as a query's Catalyst trees die with its QueryExecution. Rules rewrite trees
 * by building new nodes (sharing unchanged subtrees), so no node is freed on its own.
 *
 * Column types (cs_col_type), literal values (cs_column) and local batches are reference counted
 * outside the arena: the arena keeps one reference to each one given to
 * cs_sql_arena_keep_type/_column/_batch and
 * drops them when freed, so tree nodes may hold borrowed pointers to them.
 *
 * Ownership: cs_sql_arena_new's caller frees the arena. Single-threaded.
 */
#ifndef CSPARK_SQL_SQL_ARENA_H
#define CSPARK_SQL_SQL_ARENA_H

#include <stddef.h>

#include "columnar/column.h"

typedef struct cs_sql_arena cs_sql_arena;

cs_sql_arena *cs_sql_arena_new(void);
void cs_sql_arena_free(cs_sql_arena *a);
/* n zeroed bytes, aligned for any type; never NULL (aborts on exhaustion as cs_x*). */
void *cs_sql_alloc(cs_sql_arena *a, size_t n);
char *cs_sql_strdup(cs_sql_arena *a, const char *s);
char *cs_sql_strndup(cs_sql_arena *a, const char *s, size_t n);
/* Takes over one reference to t (or c) until the arena is freed; returns it, borrowed. */
cs_col_type *cs_sql_arena_keep_type(cs_sql_arena *a, cs_col_type *t);
cs_column *cs_sql_arena_keep_column(cs_sql_arena *a, cs_column *c);
/* The same for a batch (a LOCAL_RELATION's rows made outside the parser: Spark Connect's
 * createDataFrame data). */
cs_col_batch *cs_sql_arena_keep_batch(cs_sql_arena *a, cs_col_batch *b);

#endif /* CSPARK_SQL_SQL_ARENA_H */
