/* parquet_writer_col.h — the Parquet writer's inside (not a public interface): the schema a
 * Spark struct type becomes (parquet_writer_schema.c: schema elements, one leaf per primitive
 * column with its path and levels, Spark's schema JSON for the footer) and the writer of one
 * leaf's column chunk (parquet_writer_chunk.c: Dremel shredding into definition/repetition
 * levels, Spark's value conversions, pages with dictionary or PLAIN values, statistics; the
 * page index in parquet_writer_index.c).
 *
 * Called only by parquet_writer.c. Ownership: a cs_pqw_schema owns its elements, leaves and
 * their steps and paths; names are borrowed from the cs_col_type it was built from (the writer
 * holds a reference). A cs_pqw_chunk owns its buffers; the statistics and encodings it reports
 * through cs_pqw_chunk_write are copied into the caller's metadata arena.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_WRITER_COL_H
#define CSPARK_FORMATS_PARQUET_PARQUET_WRITER_COL_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_type.h"
#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "formats/parquet/parquet_encoding.h"
#include "formats/parquet/parquet_meta.h"
#include "fs/fs.h"

/* How timestamps are written (spark.sql.parquet.outputTimestampType). */
enum { CS_PQW_TS_INT96, CS_PQW_TS_MICROS, CS_PQW_TS_MILLIS };

typedef struct cs_pqw_config {
    int codec;              /* CS_PQ_CODEC_* */
    int64_t block_size;     /* row group bytes */
    int64_t page_size;      /* data page bytes */
    int64_t page_rows;      /* rows per page at most */
    bool dictionary;        /* parquet.enable.dictionary */
    int64_t dict_page_size; /* a dictionary larger than this falls back to PLAIN */
    bool v2;                /* data page v2 */
    int timestamp;          /* CS_PQW_TS_* */
} cs_pqw_config;

/* One level of the way from a top-level column down to a leaf. */
enum { CS_PQW_LEAF, CS_PQW_STRUCT, CS_PQW_LIST, CS_PQW_MAP };
typedef struct cs_pqw_step {
    uint8_t kind;
    bool optional;     /* this level's value may be null (one definition level) */
    int child;         /* STRUCT: the field; MAP: 0 keys, 1 values; LIST: 0 */
    int16_t rep_level; /* LIST, MAP: the repetition level of the repeated group */
} cs_pqw_step;

typedef struct cs_pqw_leaf {
    int column; /* top-level column of the batch */
    cs_pqw_step *steps;
    int n_steps;
    const cs_col_type *type; /* the leaf's Spark type */
    int phys;                /* CS_PQ_* physical type */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY */
    int16_t max_def, max_rep;
    cs_parquet_bytes *path; /* names from the top-level column down */
    uint32_t path_len;
    char *dotted; /* "a.list.element", for messages */
} cs_pqw_leaf;

typedef struct cs_pqw_schema {
    cs_parquet_schema_element *elems; /* depth-first, the root ("spark_schema") first */
    uint32_t n_elems;
    cs_pqw_leaf *leaves;
    int n_leaves;
} cs_pqw_schema;

/* Builds the Parquet schema of a struct type, as Spark's SparkToParquetSchemaConverter (the
 * standard, non-legacy layout). A type Parquet cannot hold (void) is CS_EUNSUPPORTED naming it. */
int cs_pqw_schema_build(const cs_col_type *schema, int timestamp_mode, cs_pqw_schema *out,
                        cs_error *err);
void cs_pqw_schema_free(cs_pqw_schema *s);
/* Spark's StructType.json of the schema (malloc'd). */
char *cs_pqw_spark_schema_json(const cs_col_type *schema);

/* One data page of the chunk, for the page index: where its header begins in the chunk's pages,
 * its size with the header, its first row in the row group, its nulls and its min and max (at
 * bounds_at in the chunk's page_bounds, min first). */
typedef struct cs_pqw_page {
    int64_t offset, first_row, nulls;
    int32_t size;
    uint32_t bounds_at, min_len, max_len;
    bool null_page; /* no value but nulls */
    bool has_bounds;
} cs_pqw_page;

/* The writer of one leaf's column chunk in the current row group. */
typedef struct cs_pqw_chunk {
    const cs_pqw_leaf *leaf;
    const cs_pqw_config *cfg;
    /* the page being filled */
    int16_t *def, *rep;
    size_t n_levels, levels_cap;
    cs_parquet_values vals;
    uint32_t page_rows, page_nulls;
    /* dictionary: on until it outgrows cfg->dict_page_size or does not pay */
    bool dict_on, dict_used;
    cs_parquet_dict_builder dict;
    uint32_t *idx;
    size_t idx_cap;
    /* the chunk's pages (headers and bodies), its totals, statistics and encodings */
    cs_sbuf pages;
    int64_t num_values, uncompressed, null_count;
    bool has_minmax;
    cs_sbuf min, max;
    uint32_t encodings; /* bit per CS_PQ_ENC_* */
    /* the page index: one entry per data page */
    cs_pqw_page *page_locs;
    size_t n_pages, pages_cap;
    int64_t chunk_rows;
    cs_sbuf page_bounds;
    bool saw_nan; /* a NaN value: no ColumnIndex (Spark orders NaN above every number) */
    cs_sbuf scratch_levels, scratch_body, scratch_raw, scratch_comp;
    bool bad_null; /* a null in a field that is not nullable */
} cs_pqw_chunk;

void cs_pqw_chunk_init(cs_pqw_chunk *c, const cs_pqw_leaf *leaf, const cs_pqw_config *cfg);
void cs_pqw_chunk_free(cs_pqw_chunk *c);
/* Shreds rows [r0, r1) of the leaf's top-level column, closing pages as they fill. */
int cs_pqw_chunk_add(cs_pqw_chunk *c, const cs_column *top, int64_t r0, int64_t r1, cs_error *err);
/* Bytes the chunk holds so far (its pages and the page being filled). */
int64_t cs_pqw_chunk_buffered(const cs_pqw_chunk *c);

/* parquet_writer_index.c: records the page just closed (its header at `offset` of the chunk's
 * pages, `size` bytes with it; min/max NULL when it has none) for the page index. */
void cs_pqw_index_add_page(cs_pqw_chunk *c, int64_t offset, int32_t size, int64_t rows,
                           int64_t nulls, bool null_page, const uint8_t *min, size_t min_len,
                           const uint8_t *max, size_t max_len);
/* Encodes the chunk's ColumnIndex (when every page has bounds) and OffsetIndex (its pages
 * placed from data_offset, the file offset of its first data page) into meta's fields. */
void cs_pqw_index_encode(cs_pqw_chunk *c, int64_t data_offset, cs_parquet_column_chunk *meta,
                         cs_sbuf *column_indexes, cs_sbuf *offset_indexes);
/* Orders two values in the PLAIN byte form of a physical type (statistics' sort order). */
int cs_pqw_compare(int phys, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Closes the last page, writes the chunk (dictionary page first) at file offset *offset through
 * w, fills *meta (statistics and encodings copied into arena: freed by the caller) and starts an
 * empty chunk for the next row group. The chunk's page index is appended to column_indexes (its
 * ColumnIndex, left out when a page has no min and max to give: INT96, only NaN, a value too
 * long) and offset_indexes (its OffsetIndex); meta's column_index_offset and
 * offset_index_offset are where they begin in those buffers, for the writer to move by where it
 * writes them (before the footer, as parquet-mr). */
int cs_pqw_chunk_write(cs_pqw_chunk *c, cs_fs_writer *w, int64_t *offset,
                       cs_parquet_column_chunk *meta, cs_sbuf *arena_list, cs_sbuf *column_indexes,
                       cs_sbuf *offset_indexes, cs_error *err);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_WRITER_COL_H */
