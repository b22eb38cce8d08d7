/* parquet_prune.h — row-group pruning from column statistics for the filters a data source
 * pushes down (file_format.h: EQ, <=>, <, <=, >, >=, IS NULL, IS NOT NULL, IN on a top-level
 * column). A row group is skipped only when its statistics prove that no row can pass; the
 * caller still evaluates the filters on what is read (a superset of the matching rows).
 *
 * Statistics are read as parquet-mr reads them: min_value/max_value (ordered as the column's
 * logical type says: signed for integers, dates, timestamps and decimals, unsigned for UINT_*
 * annotations, unsigned byte-wise for strings and binary), and the deprecated min/max only for
 * columns whose order is signed, where the old writers' signed comparison was right. INT96,
 * NaN bounds and statistics a column cannot be compared with are not used.
 *
 * Called by parquet_scan.c when a split is opened, and for each page of the page index
 * (parquet_page_index.h) when a row group is. Borrows everything; owns nothing.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_PRUNE_H
#define CSPARK_FORMATS_PARQUET_PARQUET_PRUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/file_format.h"
#include "formats/parquet/parquet_schema.h"

/* False when row group rg's statistics show no row can pass all of filters[0..n). */
bool cs_pq_row_group_may_match(const cs_pq_schema *s, uint32_t rg, const cs_scan_filter *filters,
                               int n);

/* False when statistics st of num_values entries of column node (physical type physical) show
 * that none can pass f. The page index's bounds use it too, one page at a time. */
bool cs_pq_stats_may_match(const cs_pq_node *node, int physical, const cs_parquet_statistics *st,
                           int64_t num_values, const cs_scan_filter *f);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_PRUNE_H */
