/* parquet_scan.h — reads one split of a Parquet file into column batches (the read side of
 * cs_file_format_parquet, file_format.h).
 *
 * Open: reads the footer, builds the Spark view of its schema (parquet_schema.h), matches the
 * request's read_schema to it by name (nested struct fields too; a field the file lacks reads as
 * nulls), keeps the row groups whose midpoint lies in the split (as Spark's ParquetFileFormat),
 * and drops those the pushed filters rule out from their statistics (parquet_prune.c). Only the
 * leaves of the read schema are read.
 *
 * Next: at most batch_rows rows of one row group per batch. Each projected leaf walks its column
 * chunk's pages (parquet_pages.h); its definition and repetition levels are assembled into the
 * validity bitmaps, offsets and children of nested columns (arrays, structs and maps nested in
 * each other), its values converted into Spark's layout straight into the column buffers, paid
 * by req->alloc. A top-level string or binary column whose pages are dictionary-encoded stays
 * dictionary-encoded in the batch (column.h), sharing one dictionary column per chunk.
 *
 * Late filter (req->late, file_format.h): its columns are read first; a batch whose rows it
 * does not want has its other columns passed over (whole pages skipped undecoded where a page's
 * header or the offset index shows it lies inside the batch) and is not returned; a row group
 * its bound rules out by statistics is not opened.
 *
 * Errors: one line naming the file, the column and the row group (the page iterator adds the
 * page). Ownership: the scan owns its file, schema, chunk buffers and staging; the request and
 * split are borrowed for its life; batches returned carry one reference for the caller.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_SCAN_H
#define CSPARK_FORMATS_PARQUET_PARQUET_SCAN_H

#include <stdint.h>

#include "formats/file_format.h"

typedef struct cs_pq_scan cs_pq_scan;

/* What a scan skipped and read (tests and metrics). */
typedef struct cs_pq_scan_stats {
    int64_t row_groups_in_split;     /* row groups whose midpoint is in the split */
    int64_t row_groups_pruned;       /* of those, ruled out by statistics */
    int64_t row_groups_bound_pruned; /* of those, by the late filter's bound (a top-N's) */
    int64_t pages_skipped;           /* pages passed over undecoded (page index, late filter) */
    int64_t rows_read;               /* rows returned */
    int64_t rows_passed_over;        /* rows the late filter let go with only its columns decoded */
} cs_pq_scan_stats;

int cs_pq_scan_open(const cs_file_split *split, const cs_scan_request *req, cs_pq_scan **out,
                    cs_error *err);
/* 1: *out is a batch; 0: the end; -1: err. */
int cs_pq_scan_next(cs_pq_scan *s, cs_col_batch **out, cs_error *err);
const cs_pq_scan_stats *cs_pq_scan_stats_of(const cs_pq_scan *s);
void cs_pq_scan_free(cs_pq_scan *s);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_SCAN_H */
