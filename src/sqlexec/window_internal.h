/*
 * window_internal.h — private to the Window operator (op_window.c) and its frames and ranking /
 * value functions (window_frames.c): a bound window function, the rows of one window partition
 * inside a chunk of closed partitions, and the functions that compute over them. Nothing else
 * includes it. Everything here is borrowed from op_window.c's operator for the duration of a
 * call; nothing is kept.
 */
#ifndef CSPARK_SQLEXEC_WINDOW_INTERNAL_H
#define CSPARK_SQLEXEC_WINDOW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sqlexec/sql_ops_internal.h"

typedef struct cs_sql_win_fn {
    cs_window_fn f; /* copy: columns and types referenced */
    cs_sql_agg agg; /* CS_WIN_AGGREGATE */
    int col;        /* index of its argument among the gathered columns, -1: none */
    int col2;       /* two-input aggregates: the second argument's, -1: none */
    size_t stride;
} cs_sql_win_fn;

/* The order key's values of a chunk in a comparable form (RANGE offsets). */
typedef struct cs_sql_win_okey {
    const cs_column *c;
    bool is_double, desc, nulls_first;
} cs_sql_win_okey;

/* One window partition of a chunk: its rows [p0, p1) in chunk indices, the peer-group flags and
 * bounds of the chunk's rows, and the RANGE order key. */
typedef struct cs_sql_win_part {
    int64_t p0, p1;            /* the partition's rows (chunk indices) */
    const uint8_t *peer_start; /* chunk-indexed */
    int64_t *peer_end;         /* chunk-indexed: end of row i's peer group */
    int64_t *peer_first;       /* start of row i's peer group */
    cs_sql_win_okey ok;
} cs_sql_win_part;

/* Row i's frame [*lo, *hi) in its partition. */
void cs_sql_win_frame(const cs_sql_win_fn *fn, const cs_sql_win_part *pc, int64_t i, int64_t *lo,
                      int64_t *hi);
/* A ranking function's column over the n rows of a chunk's partitions pcs[0..npc). */
cs_column *cs_sql_win_ranking(const cs_sql_win_fn *fn, const cs_sql_win_part *pcs, int npc,
                              int64_t n, cs_col_allocator *alloc);
/* Value functions (lag, lead, nth / first / last value) of a partition: ridx[i] = the chunk row
 * whose value row i takes (-1: null, -2: the default); nn: scratch of the partition's size. */
void cs_sql_win_value_rows(const cs_sql_win_fn *fn, const cs_column *in, const cs_sql_win_part *pc,
                           int32_t *ridx, int64_t *nn);

#endif /* CSPARK_SQLEXEC_WINDOW_INTERNAL_H */
