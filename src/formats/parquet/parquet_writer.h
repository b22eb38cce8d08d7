/* parquet_writer.h — the Parquet file writer, as Spark's ParquetFileFormat writes part files
 * (parquet-mr's ParquetWriter with Spark's write support): one file of a struct schema's columns,
 * written through src/fs (`file:`, `s3a://`) as it goes — each row group is buffered (compressed
 * pages) until it reaches `parquet.block.size` and then written, never the whole file.
 *
 * The four functions have the shapes of file_format.h's writer slots (extension, open_writer,
 * write_batch, close_writer); parquet_format.c puts them in the "parquet" format's table.
 *
 * Options (file_format.h's, keys case-insensitive), with Spark's and parquet-mr's defaults:
 *   compression (or parquet.compression)  snappy | none | uncompressed | gzip | zstd | lz4 |
 *                                          lz4_raw (lz4 writes LZ4_RAW, as Spark 4); snappy
 *   parquet.block.size                     row group bytes, 128 MiB
 *   parquet.page.size                      data page bytes, 1 MiB (and at most 20,000 rows,
 *                                          parquet.page.row.count.limit)
 *   parquet.enable.dictionary              true
 *   parquet.dictionary.page.size           a chunk's dictionary grows to 1 MiB, then PLAIN
 *   parquet.writer.version                 v1 (PARQUET_1_0) | v2 (PARQUET_2_0): data page v2,
 *                                          and parquet-mr's V2 encodings where the dictionary
 *                                          is off or falls back: DELTA_BINARY_PACKED (ints),
 *                                          DELTA_BYTE_ARRAY (binary, fixed-length binary)
 *   spark.sql.parquet.outputTimestampType  INT96 | TIMESTAMP_MICROS | TIMESTAMP_MILLIS: INT96
 * Types as Spark's ParquetWriteSupport (see docs/parquet.md for the table).
 * Every chunk gets a page index (OffsetIndex, and ColumnIndex where its pages have bounds),
 * as parquet-mr writes by default, so that readers can skip pages. The footer holds
 * Spark's schema JSON (org.apache.spark.sql.parquet.row.metadata) and org.apache.spark.version,
 * so that Spark reads back exactly the types written.
 *
 * Errors: one line naming the file (and the column) and what is wrong; a writer that failed
 * stays failed, and close then removes the file whatever commit says.
 * Ownership: the writer borrows the schema and options for its life (it keeps a reference to the
 * schema); batches are borrowed for the call.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_WRITER_H
#define CSPARK_FORMATS_PARQUET_PARQUET_WRITER_H

#include <stdbool.h>

#include "columnar/col_type.h"
#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "formats/file_format.h"

/* The part file's suffix for the codec the options name: "snappy.parquet", "gz.parquet",
 * "zstd.parquet", "lz4raw.parquet", "parquet" (uncompressed), as parquet-mr's codec extensions. */
void cs_parquet_extension(const cs_format_options *options, cs_sbuf *out);

/* Checks the options and the schema (every column of a type Parquet can hold), creates uri. */
int cs_parquet_writer_open(const char *uri, const cs_col_type *schema,
                           const cs_format_options *options, void **writer, cs_error *err);
/* Appends a batch of the schema's columns. */
int cs_parquet_writer_write(void *writer, const cs_col_batch *batch, cs_error *err);
/* commit: writes the last row group and the footer, and makes the file visible; !commit (or a
 * writer that failed): removes everything written. Frees the writer in every case. */
int cs_parquet_writer_close(void *writer, bool commit, cs_error *err);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_WRITER_H */
