/* parquet_scan_leaf.h — private to the Parquet scan (parquet_scan.c, parquet_leaf.c): one
 * projected leaf's state while a scan reads its column chunks, and the staging of a batch's
 * entries (parquet_leaf.c). Nothing else includes it.
 *
 * Ownership: a leaf owns its chunk bytes, its page reader, its dictionary column and its staging
 * buffers; the column descriptor and schema node are the scan's file's.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_SCAN_LEAF_H
#define CSPARK_FORMATS_PARQUET_PARQUET_SCAN_LEAF_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/strutil.h"
#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_page_index.h"
#include "formats/parquet/parquet_pages.h"
#include "formats/parquet/parquet_schema.h"

typedef struct cs_pq_leaf {
    const cs_parquet_column_desc *col;
    int col_index;
    const cs_pq_node *node;
    const cs_col_type *type; /* as read: the node's, or string for binary (Spark's schema) */
    bool keep_dict;          /* a top-level string/binary column may stay dictionary-encoded */
    bool early;              /* read first, for the request's late filter */
    /* the current chunk */
    uint8_t *chunk;
    size_t chunk_len;
    bool open;
    cs_parquet_page_reader pr;
    cs_parquet_page page;
    bool have_page;
    uint32_t pos, vpos; /* next entry and next value of the page */
    cs_column *dict_col;
    cs_pq_page_index pi; /* the chunk's offset index (num_pages 0 when none) */
    uint32_t next_page;  /* data pages read or skipped so far */
    /* the batch's entries */
    int16_t *def, *rep;
    size_t n, def_cap, rep_cap;
    bool dict_mode;
    size_t nvals;
    uint8_t *fixed; /* fixed-width values, nvals * width */
    size_t fixed_cap;
    int32_t *offs; /* BYTE_ARRAY: nvals + 1 */
    size_t offs_cap;
    uint8_t *data;
    size_t data_len, data_cap;
    uint32_t *idx; /* dictionary indices, nvals */
    size_t idx_cap;
    uint8_t *dense; /* converted values before scattering around nulls */
    size_t dense_cap;
} cs_pq_leaf;

static inline void cs_pq_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    *p = cs_xrealloc(*p, c * size);
    *cap = c;
}

/* Opens column chunk rg of the leaf in file (closing the one before). */
int cs_pq_leaf_open_chunk(cs_pq_leaf *l, cs_parquet_file *file, uint32_t rg, cs_error *err);
void cs_pq_leaf_close_chunk(cs_pq_leaf *l);
void cs_pq_leaf_free(cs_pq_leaf *l);
/* Stages the entries of the next `rows` rows of the leaf's chunk (l->def, l->rep, the values or
 * indices); a fixed-width leaf's indices are gathered into values before it returns. */
int cs_pq_leaf_gather(cs_pq_leaf *l, int64_t rows, cs_error *err);
/* Passes over k rows from row `row` of the row group (the leaf at that row's start); whole pages
 * skipped undecoded are added to *pages_skipped. */
int cs_pq_leaf_skip(cs_pq_leaf *l, int64_t row, int64_t k, int64_t *pages_skipped, cs_error *err);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_SCAN_LEAF_H */
