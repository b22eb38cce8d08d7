/* parquet_pages.h — the page iterator of one column chunk: reads each page header, decompresses
 * the page, decodes its repetition and definition levels and its values into flat typed arrays
 * (parquet_encoding.h), one page per call. Dictionary pages are read on the way and kept for
 * the data pages that follow; index pages are skipped. Data pages v1 and v2 are both read.
 *
 * What a page claims is checked against what surrounds it: its compressed size against the bytes
 * left in the chunk, its uncompressed size against the chunk's (and what the codec produces), its
 * value count against the chunk's, its level and value sections against the page; the values
 * against the levels (one value per entry at the maximum definition level). A failure is one
 * message: "<file>: column <path>, <where>, page at byte <n> of the chunk: <what lied>".
 *
 * Called by the Parquet scan (and the tests, the dump tool, the fuzzer), one reader per column
 * chunk, on one thread. Ownership: the chunk bytes are borrowed for the reader's life; a page's
 * arrays belong to the reader and stay valid until the next call or cs_parquet_page_reader_free.
 * The reader's buffers grow to the largest page and are reused: no allocation per value.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_PAGES_H
#define CSPARK_FORMATS_PARQUET_PARQUET_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "formats/parquet/parquet_encoding.h"
#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_meta.h"

/* Level entries one page may hold: writers cut pages at 20,000 rows (parquet-mr) or 1 MiB
 * (Arrow); this bound keeps a lying header (2^31 entries in a 6-byte RLE run) from allocating
 * gigabytes of levels. */
#define CS_PARQUET_MAX_PAGE_VALUES (1u << 27)

typedef struct cs_parquet_page {
    int type;                        /* CS_PQ_PAGE_DATA or CS_PQ_PAGE_DATA_V2 */
    int encoding;                    /* of the values */
    uint32_t num_values;             /* level entries (rows, nulls and list elements) */
    uint32_t num_rows;               /* entries with repetition level 0 */
    uint32_t num_nonnull;            /* values: entries at the maximum definition level */
    const int16_t *def_levels;       /* num_values entries; NULL when the column's max_def is 0 */
    const int16_t *rep_levels;       /* NULL when max_rep is 0 */
    const cs_parquet_values *values; /* num_nonnull values (materialized from the dictionary) */
    /* with keep_dictionary and a dictionary-encoded page: the indices, values left empty; with
     * lazy_indices too, dict_lazy instead and the indices from cs_parquet_page_reader_indices */
    const uint32_t *dict_indices;
    bool dict_lazy;
    const cs_parquet_values *dictionary; /* the chunk's dictionary, NULL when it has none */
} cs_parquet_page;

typedef struct cs_parquet_page_reader {
    char *where; /* "<file>: column <path>, row group <g>" for messages */
    const cs_parquet_column_desc *col;
    int codec;
    const uint8_t *chunk;
    size_t chunk_len, pos;
    int64_t values_left;    /* the chunk's num_values minus the pages' so far */
    int64_t max_page_bytes; /* bound on one page's uncompressed size */
    bool keep_dictionary;
    bool lazy_indices; /* decode a page's indices as asked for, passing over those never read */
    cs_parquet_rle_decoder idx_dec; /* the current page's, with lazy_indices */
    uint32_t idx_next, idx_count;
    bool has_dictionary, seen_data;
    cs_parquet_values dict, values;
    uint8_t *scratch;
    size_t scratch_cap;
    int16_t *def, *rep;
    uint32_t *indices;
    size_t levels_cap, indices_cap;
} cs_parquet_page_reader;

/* Sets r up over chunk[0..chunk_len) of column col. num_values and total_uncompressed_size come
 * from the chunk's ColumnMetaData; where names the file and row group in messages (copied). */
void cs_parquet_page_reader_init(cs_parquet_page_reader *r, const char *where,
                                 const cs_parquet_column_desc *col, int codec, const uint8_t *chunk,
                                 size_t chunk_len, int64_t num_values,
                                 int64_t total_uncompressed_size);
/* The next data page: 1 with *page filled, 0 at the end of the chunk (after checking that the
 * pages held the chunk's num_values), <0 on error. */
int cs_parquet_page_reader_next(cs_parquet_page_reader *r, cs_parquet_page *page, cs_error *err);
/* Passes over the next data page without decompressing or decoding it (a dictionary page before
 * it is still read): 1 with *num_values its level entries, 0 at the end, <0 on error. The page
 * index's skipping (parquet_scan.c) uses it. */
int cs_parquet_page_reader_skip(cs_parquet_page_reader *r, uint32_t *num_values, cs_error *err);
/* The level entries of the next data page without passing over it (dictionary and index pages
 * before it are read as by _next): 1 with *num_values, 0 at the end, <0 on error. A scan that
 * knows a flat column's page holds only rows it does not want skips it after this. */
int cs_parquet_page_reader_peek(cs_parquet_page_reader *r, uint32_t *num_values, cs_error *err);
/* With lazy_indices, the dictionary indices [from, from + n) of the current page (from at or
 * past the end of the last call's): a buffer of the reader's, valid until the next call. NULL
 * with err when the page does not hold them or they are corrupt. */
const uint32_t *cs_parquet_page_reader_indices(cs_parquet_page_reader *r, uint32_t from, uint32_t n,
                                               cs_error *err);
void cs_parquet_page_reader_free(cs_parquet_page_reader *r);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_PAGES_H */
