/* libFuzzer target for the Parquet reader (src/formats/parquet): the footer (Thrift compact
 * FileMetaData, schema levels, row-group checks) and the page iterator (page headers, codecs,
 * levels, every value encoding). An input starting with "PAR1" is a whole file held in memory:
 * its footer is parsed as cs_parquet_file_open would, then every column chunk of every row group
 * is read page by page, and then the whole file goes through the scan (parquet_scan.c: the Spark
 * schema, a filter on the first column, batches of 61 rows assembled into nested columns, each
 * checked with cs_column_validate) as a file the fs stub of parquet_reader.sh serves from memory.
 * Any other input is one column chunk: its first 5 bytes choose the column (physical type, max
 * definition level, max repetition level, codec, type length) and the rest is the chunk. Every
 * outcome must be pages or one error message, never a crash, a leak, a hang or a read out of
 * bounds. Built and run by parquet_reader.sh with seeds pyarrow wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_pages.h"
#include "formats/parquet/parquet_scan.h"
#include "formats/parquet/parquet_schema.h"

/* the fs stub's file (parquet_reader.sh) */
extern const unsigned char *cs_fuzz_file;
extern size_t cs_fuzz_file_len;

/* bounds that keep a page's materialized values within libFuzzer's memory limit */
enum { MAX_VALUES = 1 << 14, MAX_PAGE = 1 << 24 };

static void read_chunk(const cs_parquet_column_desc *col, int codec, const uint8_t *chunk,
                       size_t len, int64_t num_values, int64_t max_page, int keep_dictionary)
{
    cs_parquet_page_reader r;
    cs_error err = {0};
    cs_parquet_page_reader_init(&r, "fuzz.parquet: column c, row group 0", col, codec, chunk, len,
                                num_values < MAX_VALUES ? num_values : MAX_VALUES,
                                max_page < MAX_PAGE ? max_page : MAX_PAGE);
    r.keep_dictionary = keep_dictionary;
    cs_parquet_page page;
    int rc;
    uint64_t sum = 0;
    while ((rc = cs_parquet_page_reader_next(&r, &page, &err)) > 0) {
        /* touch what the page claims to hold */
        for (uint32_t i = 0; i < page.num_values; i++) {
            if (page.def_levels) sum += (uint64_t)page.def_levels[i];
            if (page.rep_levels) sum += (uint64_t)page.rep_levels[i];
        }
        if (page.values && page.values->type == CS_PQ_BYTE_ARRAY && page.values->count)
            sum += (uint64_t)page.values->offsets[page.values->count];
        if (page.dict_indices && page.num_nonnull) sum += page.dict_indices[page.num_nonnull - 1];
    }
    if (rc < 0 && err.msg[0] == 0) abort(); /* an error always says what */
    cs_parquet_page_reader_free(&r);
    (void)sum;
}

/* The file through the scan: every batch, every column checked. */
static void scan(const uint8_t *data, size_t size, const cs_col_type *schema)
{
    cs_fuzz_file = data;
    cs_fuzz_file_len = size;
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, NULL);
    cs_scan_filter filter = {schema->fields[0].name, CS_FILTER_IS_NOT_NULL, NULL, 0};
    cs_scan_request req = {schema, schema, &filter, 1, 61, &alloc, NULL};
    cs_file_split split = {"fuzz.parquet", 0, size, size};
    cs_error err = {0};
    cs_pq_scan *s;
    if (cs_pq_scan_open(&split, &req, &s, &err)) {
        if (err.msg[0] == 0) abort();
        return;
    }
    cs_col_batch *b;
    int rc, batches = 0;
    while (batches++ < 64 && (rc = cs_pq_scan_next(s, &b, &err)) == 1) {
        for (int k = 0; k < b->n_columns; k++)
            if (cs_column_validate(b->columns[k], &err)) abort(); /* the scan built it wrong */
        cs_col_batch_unref(b);
    }
    if (rc < 0 && err.msg[0] == 0) abort();
    cs_pq_scan_free(s);
    if (alloc.allocated != 0) abort(); /* every buffer went back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 4 && memcmp(data, "PAR1", 4) == 0) {
        cs_parquet_file *f;
        cs_error err = {0};
        if (cs_parquet_file_parse("fuzz.parquet", size, data, size, data, size, &f, &err)) {
            if (err.msg[0] == 0) abort();
            return 0;
        }
        for (uint32_t g = 0; g < f->meta.num_row_groups; g++)
            for (uint32_t c = 0; c < f->num_columns; c++) {
                uint64_t off, len;
                cs_parquet_chunk_range(f, g, c, &off, &len);
                const cs_parquet_column_meta *cm = &f->meta.row_groups[g].columns[c].meta;
                read_chunk(&f->columns[c], cm->codec, data + off, (size_t)len, cm->num_values,
                           cm->total_uncompressed_size, (int)(g & 1));
            }
        cs_pq_schema schema;
        if (cs_pq_schema_build(f, &schema, &err) == 0) {
            scan(data, size, schema.root.type);
            cs_pq_schema_free(&schema);
        } else if (err.msg[0] == 0) {
            abort();
        }
        cs_parquet_file_free(f);
        return 0;
    }
    if (size < 5) return 0;
    cs_parquet_column_desc col = {.path = "c"};
    col.type = data[0] % 8;
    col.max_def = (int16_t)(data[1] % 4);
    col.max_rep = (int16_t)(data[2] % 3 <= col.max_def ? data[2] % 3 : col.max_def);
    col.type_length = 1 + data[4] % 16;
    read_chunk(&col, data[3] % 8, data + 5, size - 5, MAX_VALUES, MAX_PAGE, data[1] >= 128);
    return 0;
}
