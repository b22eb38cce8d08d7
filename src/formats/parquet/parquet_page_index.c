/* parquet_page_index.c — OffsetIndex and ColumnIndex decoding (see parquet_page_index.h):
 *   OffsetIndex { 1: list<PageLocation{1: i64 offset, 2: i32 compressed_page_size,
 *                 3: i64 first_row_index}> page_locations, 2: list<i64> unencoded sizes }
 *   ColumnIndex { 1: list<bool> null_pages, 2: list<binary> min_values, 3: list<binary>
 *                 max_values, 4: i32 boundary_order, 5: list<i64> null_counts, 6, 7: histograms }
 * Elements of a list<bool> are one byte each in the compact protocol (1 true, else false).
 */
#include "formats/parquet/parquet_page_index.h"

#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "formats/parquet/thrift_compact.h"

/* Index bytes one chunk may claim: far more than any writer makes (a few bytes per page). */
#define MAX_INDEX_BYTES (64u << 20)

void cs_pq_page_index_free(cs_pq_page_index *pi)
{
    free(pi->first_row);
    free(pi->null_pages);
    free(pi->min);
    free(pi->max);
    free(pi->null_counts);
    free(pi->bytes);
    memset(pi, 0, sizeof *pi);
}

static int read_bytes(const cs_parquet_file *f, int64_t off, int32_t len, uint8_t **out,
                      cs_error *err)
{
    if (off < 0 || len <= 0 || (uint32_t)len > MAX_INDEX_BYTES)
        return cs_error_set(err, CS_EPROTO, "%s: a page index of %d bytes at byte %lld", f->name,
                            len, (long long)off);
    *out = cs_xmalloc((size_t)len);
    int rc = cs_parquet_file_read_range(f, (uint64_t)off, (size_t)len, *out, err);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

static int decode_offsets(cs_thrift_reader *r, int64_t rg_rows, cs_pq_page_index *pi)
{
    int type;
    int16_t id, last = 0;
    if (cs_thrift_struct_begin(r)) return r->rc;
    while (cs_thrift_field_next(r, &last, &type, &id) > 0) {
        if (id != 1 || type != CS_THRIFT_LIST) {
            cs_thrift_skip(r, type);
            continue;
        }
        int et;
        uint32_t n;
        if (cs_thrift_read_list(r, type, &et, &n)) break;
        if (et != CS_THRIFT_STRUCT) return cs_thrift_fail(r, "page locations are not structs");
        pi->first_row = cs_xcalloc((size_t)n + 1, sizeof *pi->first_row);
        pi->num_pages = n;
        for (uint32_t i = 0; i < n && !r->rc; i++) {
            int16_t l2 = 0, fid;
            int ft;
            if (cs_thrift_struct_begin(r)) break;
            while (cs_thrift_field_next(r, &l2, &ft, &fid) > 0) {
                if (fid == 3)
                    cs_thrift_read_i64(r, ft, &pi->first_row[i]);
                else
                    cs_thrift_skip(r, ft);
            }
            cs_thrift_struct_end(r);
            if (pi->first_row[i] < 0 || pi->first_row[i] > rg_rows ||
                (i == 0 && pi->first_row[i] != 0) ||
                (i > 0 && pi->first_row[i] < pi->first_row[i - 1]))
                return cs_thrift_fail(r, "page %u starts at row %lld", i,
                                      (long long)pi->first_row[i]);
        }
        pi->first_row[n] = rg_rows;
    }
    cs_thrift_struct_end(r);
    return r->rc;
}

static int decode_bounds(cs_thrift_reader *r, cs_pq_page_index *pi)
{
    int type;
    int16_t id, last = 0;
    uint32_t n = pi->num_pages;
    if (cs_thrift_struct_begin(r)) return r->rc;
    bool seen[6] = {false};
    while (cs_thrift_field_next(r, &last, &type, &id) > 0) {
        if (id < 1 || id == 4 || id > 5 || type != CS_THRIFT_LIST) {
            cs_thrift_skip(r, type);
            continue;
        }
        int et;
        uint32_t m;
        if (cs_thrift_read_list(r, type, &et, &m)) break;
        if (m != n) return cs_thrift_fail(r, "a column index of %u pages for %u", m, n);
        seen[id] = true;
        for (uint32_t i = 0; i < n && !r->rc; i++) {
            if (id == 1) {
                if (r->p >= r->end) return cs_thrift_fail(r, "truncated null_pages");
                pi->null_pages[i] = *r->p++ == 1;
            } else if (id == 5) {
                cs_thrift_read_i64(r, et, &pi->null_counts[i]);
            } else {
                cs_parquet_bytes *b = id == 2 ? &pi->min[i] : &pi->max[i];
                cs_thrift_read_binary(r, et, &b->ptr, &b->len);
            }
        }
    }
    cs_thrift_struct_end(r);
    if (!r->rc && (!seen[1] || !seen[2] || !seen[3]))
        return cs_thrift_fail(r, "the column index lacks null_pages, min_values or max_values");
    if (!seen[5]) {
        free(pi->null_counts);
        pi->null_counts = NULL;
    }
    return r->rc;
}

int cs_pq_page_index_read(const cs_parquet_file *f, uint32_t rg, uint32_t col, bool want_bounds,
                          cs_pq_page_index *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    const cs_parquet_column_chunk *cc = &f->meta.row_groups[rg].columns[col];
    if (!cc->has_offset_index) return CS_OK;
    uint8_t *buf;
    int rc = read_bytes(f, cc->offset_index_offset, cc->offset_index_length, &buf, err);
    if (rc) return rc;
    cs_thrift_reader r;
    cs_thrift_reader_init(&r, buf, (size_t)cc->offset_index_length, err);
    rc = decode_offsets(&r, f->meta.row_groups[rg].num_rows, out);
    free(buf);
    if (!rc && want_bounds && cc->has_column_index && out->num_pages > 0) {
        uint32_t n = out->num_pages;
        out->null_pages = cs_xcalloc(n, sizeof *out->null_pages);
        out->min = cs_xcalloc(n, sizeof *out->min);
        out->max = cs_xcalloc(n, sizeof *out->max);
        out->null_counts = cs_xcalloc(n, sizeof *out->null_counts);
        rc = read_bytes(f, cc->column_index_offset, cc->column_index_length, &out->bytes, err);
        if (!rc) {
            cs_thrift_reader_init(&r, out->bytes, (size_t)cc->column_index_length, err);
            rc = decode_bounds(&r, out);
        }
        out->has_column_index = rc == CS_OK;
    }
    if (rc) {
        cs_error_prefix(err, "%s: column %s, row group %u: page index", f->name,
                        f->columns[col].path, rg);
        cs_pq_page_index_free(out);
    }
    return rc;
}
