/* parquet_page_index.h — a column chunk's page index (parquet-format's PageIndex.md): the
 * OffsetIndex (where each data page lies and the first row it holds) and the ColumnIndex (per
 * page: all null or not, min and max, null count), stored between the row groups and the footer
 * and pointed at by the ColumnChunk. parquet-mr (so Spark) writes them by default, pyarrow with
 * write_page_index=True.
 *
 * Called by the scan (parquet_scan.c) to skip the pages no row of which can pass the pushed
 * filters. Decoding is bounded as every Thrift read (thrift_compact.h); an index that does not
 * fit its chunk (pages not rising, rows past the row group, counts that disagree) is refused
 * with one message naming the file, column and row group — the scan then reads every page.
 *
 * Ownership: cs_pq_page_index owns its arrays and the index bytes its bounds point into.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_PAGE_INDEX_H
#define CSPARK_FORMATS_PARQUET_PARQUET_PAGE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "formats/parquet/parquet_file.h"

typedef struct cs_pq_page_index {
    uint32_t num_pages;    /* 0: no offset index */
    int64_t *first_row;    /* num_pages + 1 entries, the last the row group's row count */
    bool has_column_index; /* the bounds below are there */
    bool *null_pages;
    cs_parquet_bytes *min, *max;
    int64_t *null_counts; /* NULL when the index has none */
    uint8_t *bytes;       /* the column index's bytes (min and max point into them) */
} cs_pq_page_index;

/* Reads row group rg's offset index of leaf col, and its column index when want_bounds. A chunk
 * without an offset index gives num_pages 0 and CS_OK. */
int cs_pq_page_index_read(const cs_parquet_file *f, uint32_t rg, uint32_t col, bool want_bounds,
                          cs_pq_page_index *out, cs_error *err);
void cs_pq_page_index_free(cs_pq_page_index *pi);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_PAGE_INDEX_H */
