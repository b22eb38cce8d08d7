/* parquet_writer_index.c — the page index of a chunk the writer writes (parquet-format's
 * PageIndex.md), as parquet-mr writes it by default for Spark:
 *   OffsetIndex { 1: list<PageLocation{1: i64 offset, 2: i32 compressed_page_size (with the
 *                 header), 3: i64 first_row_index}> page_locations }
 *   ColumnIndex { 1: list<bool> null_pages, 2: list<binary> min_values, 3: list<binary>
 *                 max_values, 4: i32 boundary_order, 5: list<i64> null_counts }
 * Per data page: its place in the file, its first row, and its min, max and null count in the
 * statistics' sort order. Binary bounds longer than 64 bytes are truncated as parquet-mr's
 * parquet.columnindex.truncate.length: the min to its first 64 bytes, the max to its first 64
 * bytes with the last byte below 0xff raised by one (still an upper bound). The ColumnIndex is
 * left out when a page holding values has no bounds to give (INT96, only NaN) and when a float
 * or double chunk holds a NaN (bounds without it would let a reader skip the NaN, which Spark
 * orders above every number; parquet-mr drops such an index too); readers then read every page
 * of that column. boundary_order is ASCENDING or DESCENDING when the pages'
 * bounds are (which lets a reader search them), else UNORDERED.
 *
 * Called by parquet_writer_chunk.c (cs_pqw_index_add_page per page it closes, then
 * cs_pqw_index_encode when the chunk is written). The chunk owns the page list and bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_writer_col.h"
#include "formats/parquet/thrift_compact.h"

enum { TRUNCATE_BYTES = 64, MAX_BOUND_BYTES = 4096 };
enum { ORDER_UNORDERED = 0, ORDER_ASCENDING = 1, ORDER_DESCENDING = 2 };

void cs_pqw_index_add_page(cs_pqw_chunk *c, int64_t offset, int32_t size, int64_t rows,
                           int64_t nulls, bool null_page, const uint8_t *min, size_t min_len,
                           const uint8_t *max, size_t max_len)
{
    if (c->n_pages == c->pages_cap) {
        c->pages_cap = c->pages_cap ? 2 * c->pages_cap : 16;
        c->page_locs = cs_xrealloc(c->page_locs, c->pages_cap * sizeof *c->page_locs);
    }
    cs_pqw_page *p = &c->page_locs[c->n_pages++];
    *p = (cs_pqw_page){.offset = offset,
                       .first_row = c->chunk_rows,
                       .nulls = nulls,
                       .size = size,
                       .bounds_at = (uint32_t)c->page_bounds.len,
                       .null_page = null_page};
    c->chunk_rows += rows;
    if (null_page || !min) return;
    bool binary = c->leaf->phys == CS_PQ_BYTE_ARRAY;
    size_t mn = binary && min_len > TRUNCATE_BYTES ? TRUNCATE_BYTES : min_len;
    size_t mx = max_len;
    if (binary && max_len > TRUNCATE_BYTES) { /* a prefix whose last byte is raised */
        size_t k = TRUNCATE_BYTES;
        while (k > 0 && max[k - 1] == 0xff)
            k--;
        if (k > 0) mx = k;
    }
    if (mx > MAX_BOUND_BYTES) return; /* only 0xff bytes: no shorter upper bound */
    cs_sbuf_append(&c->page_bounds, min, mn);
    cs_sbuf_append(&c->page_bounds, max, mx);
    if (mx < max_len) c->page_bounds.data[c->page_bounds.len - 1]++;
    p->min_len = (uint32_t)mn;
    p->max_len = (uint32_t)mx;
    p->has_bounds = true;
}

static const uint8_t *page_min(const cs_pqw_chunk *c, const cs_pqw_page *p)
{
    return (const uint8_t *)c->page_bounds.data + p->bounds_at;
}

static const uint8_t *page_max(const cs_pqw_chunk *c, const cs_pqw_page *p)
{
    return page_min(c, p) + p->min_len;
}

static int boundary_order(const cs_pqw_chunk *c)
{
    bool up = true, down = true;
    const cs_pqw_page *prev = NULL;
    int phys = c->leaf->phys;
    for (size_t i = 0; i < c->n_pages; i++) {
        const cs_pqw_page *p = &c->page_locs[i];
        if (p->null_page) continue;
        if (prev) {
            int lo =
                cs_pqw_compare(phys, page_min(c, prev), prev->min_len, page_min(c, p), p->min_len);
            int hi =
                cs_pqw_compare(phys, page_max(c, prev), prev->max_len, page_max(c, p), p->max_len);
            up = up && lo <= 0 && hi <= 0;
            down = down && lo >= 0 && hi >= 0;
        }
        prev = p;
    }
    return up ? ORDER_ASCENDING : down ? ORDER_DESCENDING : ORDER_UNORDERED;
}

static bool column_index_possible(const cs_pqw_chunk *c)
{
    if (c->leaf->phys == CS_PQ_INT96 || c->saw_nan || c->n_pages == 0) return false;
    for (size_t i = 0; i < c->n_pages; i++)
        if (!c->page_locs[i].null_page && !c->page_locs[i].has_bounds) return false;
    return true;
}

static void encode_column_index(const cs_pqw_chunk *c, cs_sbuf *out)
{
    cs_thrift_writer w;
    cs_thrift_writer_init(&w, out);
    uint32_t n = (uint32_t)c->n_pages;
    cs_thrift_write_struct_begin(&w);
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 1);
    cs_thrift_write_list_begin(&w, CS_THRIFT_TRUE, n);
    for (uint32_t i = 0; i < n; i++) /* a list's bools: one byte, 1 true, 2 false */
        cs_sbuf_putc(out, c->page_locs[i].null_page ? CS_THRIFT_TRUE : CS_THRIFT_FALSE);
    for (int16_t id = 2; id <= 3; id++) {
        cs_thrift_write_field(&w, CS_THRIFT_LIST, id);
        cs_thrift_write_list_begin(&w, CS_THRIFT_BINARY, n);
        for (uint32_t i = 0; i < n; i++) {
            const cs_pqw_page *p = &c->page_locs[i];
            if (!p->has_bounds)
                cs_thrift_write_binary(&w, "", 0);
            else if (id == 2)
                cs_thrift_write_binary(&w, page_min(c, p), p->min_len);
            else
                cs_thrift_write_binary(&w, page_max(c, p), p->max_len);
        }
    }
    cs_thrift_write_i32_field(&w, 4, boundary_order(c));
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 5);
    cs_thrift_write_list_begin(&w, CS_THRIFT_I64, n);
    for (uint32_t i = 0; i < n; i++)
        cs_thrift_write_zigzag(&w, c->page_locs[i].nulls);
    cs_thrift_write_struct_end(&w);
}

static void encode_offset_index(const cs_pqw_chunk *c, int64_t data_offset, cs_sbuf *out)
{
    cs_thrift_writer w;
    cs_thrift_writer_init(&w, out);
    cs_thrift_write_struct_begin(&w);
    cs_thrift_write_field(&w, CS_THRIFT_LIST, 1);
    cs_thrift_write_list_begin(&w, CS_THRIFT_STRUCT, (uint32_t)c->n_pages);
    for (size_t i = 0; i < c->n_pages; i++) {
        const cs_pqw_page *p = &c->page_locs[i];
        cs_thrift_write_struct_begin(&w);
        cs_thrift_write_i64_field(&w, 1, data_offset + p->offset);
        cs_thrift_write_i32_field(&w, 2, p->size);
        cs_thrift_write_i64_field(&w, 3, p->first_row);
        cs_thrift_write_struct_end(&w);
    }
    cs_thrift_write_struct_end(&w);
}

void cs_pqw_index_encode(cs_pqw_chunk *c, int64_t data_offset, cs_parquet_column_chunk *meta,
                         cs_sbuf *column_indexes, cs_sbuf *offset_indexes)
{
    if (c->n_pages == 0) return;
    if (column_index_possible(c)) {
        size_t at = column_indexes->len;
        encode_column_index(c, column_indexes);
        meta->has_column_index = true;
        meta->column_index_offset = (int64_t)at;
        meta->column_index_length = (int32_t)(column_indexes->len - at);
    }
    size_t at = offset_indexes->len;
    encode_offset_index(c, data_offset, offset_indexes);
    meta->has_offset_index = true;
    meta->offset_index_offset = (int64_t)at;
    meta->offset_index_length = (int32_t)(offset_indexes->len - at);
}
