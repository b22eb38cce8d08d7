/* parquet_file.h — a Parquet file's footer: the magic "PAR1" at both ends, the 4-byte footer
 * length, the FileMetaData (parquet_meta.h), and the schema tree flattened into leaf columns,
 * each with its dotted path and its maximum definition and repetition levels. Also reads a
 * column chunk's bytes for the page reader (parquet_pages.h).
 *
 * Checks everything the footer claims against the file before anyone trusts it: the magics, a
 * footer length that fits the file, a schema whose children counts add up, row groups with one
 * chunk per leaf whose type matches the schema and whose byte range lies inside the file. Each
 * failure is one message naming the file and what lied (and the column or row group).
 *
 * Called by the Parquet scan (and tests, tools, fuzzers). Files are read through src/fs, so any
 * file system cspark has (file:, s3a://) serves. Ownership: cs_parquet_file_free releases the
 * footer bytes, the metadata (which borrows from them) and the column descriptors.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_FILE_H
#define CSPARK_FORMATS_PARQUET_PARQUET_FILE_H

#include <stdint.h>

#include "common/err.h"
#include "formats/parquet/parquet_meta.h"

#define CS_PARQUET_MAX_SCHEMA_DEPTH 100

typedef struct cs_parquet_column_desc {
    char *path;            /* "a.list.element" (owned by the file) */
    uint32_t schema_index; /* into meta.schema */
    int type;              /* physical type */
    int32_t type_length;   /* FIXED_LEN_BYTE_ARRAY */
    int16_t max_def, max_rep;
    const cs_parquet_schema_element *element; /* borrowed from the file's metadata */
} cs_parquet_column_desc;

typedef struct cs_parquet_file {
    char *name; /* as opened: messages name it */
    uint64_t size;
    uint8_t *footer; /* the FileMetaData bytes: the metadata borrows strings from them */
    size_t footer_len;
    cs_parquet_meta meta;
    cs_parquet_column_desc *columns; /* leaves, depth-first */
    uint32_t num_columns;
    int32_t *schema_parent; /* per schema element, its parent's index (-1 for the root) */
} cs_parquet_file;

/* Opens uri (any cspark file system) and reads and checks its footer. */
int cs_parquet_file_open(const char *uri, cs_parquet_file **out, cs_error *err);

/* The same from bytes in memory: head = the file's first bytes (at least 4), tail = its last
 * tail_len bytes (the footer, its length and the magic), size = the file's size. The fuzzers
 * and cs_parquet_file_open use it. */
int cs_parquet_file_parse(const char *name, uint64_t size, const uint8_t *head, size_t head_len,
                          const uint8_t *tail, size_t tail_len, cs_parquet_file **out,
                          cs_error *err);
void cs_parquet_file_free(cs_parquet_file *f);

/* Where row group rg's chunk of leaf column col lies in the file: from its dictionary page (or
 * first data page) for total_compressed_size bytes. Checked at open. */
void cs_parquet_chunk_range(const cs_parquet_file *f, uint32_t rg, uint32_t col, uint64_t *offset,
                            uint64_t *length);
/* Reads that chunk into *buf (malloc'd, caller frees). */
int cs_parquet_file_read_chunk(const cs_parquet_file *f, uint32_t rg, uint32_t col, uint8_t **buf,
                               size_t *len, cs_error *err);

/* Reads bytes [off, off + len) of the file (which must lie between the magic and the footer:
 * the page index, say) into buf. */
int cs_parquet_file_read_range(const cs_parquet_file *f, uint64_t off, size_t len, uint8_t *buf,
                               cs_error *err);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_FILE_H */
