/*
 * sql_arena.c — chunked bump allocation for one query's trees, and the type and column
 * references they borrow (see sql_arena.h). Called by the parser, analyzer, optimizer, planner.
 */
#include "sql/sql_arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
} arena_chunk;

struct cs_sql_arena {
    arena_chunk *chunks;
    cs_col_type **types;
    size_t n_types, cap_types;
    cs_column **columns;
    size_t n_columns, cap_columns;
    cs_col_batch **batches;
    size_t n_batches, cap_batches;
};

cs_sql_arena *cs_sql_arena_new(void)
{
    return cs_xcalloc(1, sizeof(cs_sql_arena));
}

void cs_sql_arena_free(cs_sql_arena *a)
{
    if (!a) return;
    for (arena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    for (size_t i = 0; i < a->n_types; i++)
        cs_col_type_unref(a->types[i]);
    for (size_t i = 0; i < a->n_columns; i++)
        cs_column_unref(a->columns[i]);
    free(a->types);
    free(a->columns);
    for (size_t i = 0; i < a->n_batches; i++)
        cs_col_batch_unref(a->batches[i]);
    free(a->batches);
    free(a);
}

void *cs_sql_alloc(cs_sql_arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0) n = align;
    arena_chunk *c = a->chunks;
    if (!c || c->size - c->used < n) {
        size_t size = c ? c->size * 2 : 16384;
        if (size > (1u << 20)) size = 1u << 20;
        if (size < n) size = n;
        arena_chunk *fresh = cs_xmalloc(sizeof *fresh + size);
        fresh->size = size;
        fresh->used = 0;
        /* a big one-off allocation goes behind the current chunk, which keeps its free room */
        if (c && size == n && c->size - c->used > 0) {
            fresh->next = c->next;
            c->next = fresh;
        } else {
            fresh->next = c;
            a->chunks = fresh;
        }
        c = fresh;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *cs_sql_strndup(cs_sql_arena *a, const char *s, size_t n)
{
    char *d = cs_sql_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *cs_sql_strdup(cs_sql_arena *a, const char *s)
{
    return s ? cs_sql_strndup(a, s, strlen(s)) : NULL;
}

cs_col_type *cs_sql_arena_keep_type(cs_sql_arena *a, cs_col_type *t)
{
    if (!t) return NULL;
    if (a->n_types == a->cap_types) {
        a->cap_types = a->cap_types ? a->cap_types * 2 : 32;
        a->types = cs_xrealloc(a->types, sizeof *a->types * a->cap_types);
    }
    a->types[a->n_types++] = t;
    return t;
}

cs_column *cs_sql_arena_keep_column(cs_sql_arena *a, cs_column *c)
{
    if (!c) return NULL;
    if (a->n_columns == a->cap_columns) {
        a->cap_columns = a->cap_columns ? a->cap_columns * 2 : 32;
        a->columns = cs_xrealloc(a->columns, sizeof *a->columns * a->cap_columns);
    }
    a->columns[a->n_columns++] = c;
    return c;
}

cs_col_batch *cs_sql_arena_keep_batch(cs_sql_arena *a, cs_col_batch *b)
{
    if (!b) return NULL;
    if (a->n_batches == a->cap_batches) {
        a->cap_batches = a->cap_batches ? a->cap_batches * 2 : 8;
        a->batches = cs_xrealloc(a->batches, sizeof *a->batches * a->cap_batches);
    }
    a->batches[a->n_batches++] = b;
    return b;
}
