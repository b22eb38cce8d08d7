/* parquet_leaf.c — one projected leaf of a Parquet scan (parquet_scan_leaf.h): its column chunk
 * opened and closed, the entries of a batch's rows staged (levels and values, or dictionary
 * indices), and rows passed over.
 *
 * Staging copies a page piece at a time (memcpy of ranges, never an allocation per value). A
 * dictionary-encoded page of a fixed-width or top-level string column stays indices (the page
 * reader unpacks only those asked for: rows passed over inside a page are never unpacked);
 * fixed-width values are gathered from the dictionary at the end of the batch, a top-level
 * string column keeps them (its column is dictionary-encoded). Called by parquet_scan.c only.
 * Ownership: the leaf owns its chunk bytes, page reader and staging buffers (cs_pq_leaf_free).
 */
#include "formats/parquet/parquet_scan_leaf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cs_pq_leaf_close_chunk(cs_pq_leaf *l)
{
    if (l->open) cs_parquet_page_reader_free(&l->pr);
    l->open = false;
    l->have_page = false;
    l->next_page = 0;
    cs_pq_page_index_free(&l->pi);
    free(l->chunk);
    l->chunk = NULL;
    cs_column_unref(l->dict_col);
    l->dict_col = NULL;
}

void cs_pq_leaf_free(cs_pq_leaf *l)
{
    cs_pq_leaf_close_chunk(l);
    free(l->def);
    free(l->rep);
    free(l->fixed);
    free(l->offs);
    free(l->data);
    free(l->idx);
    free(l->dense);
}

int cs_pq_leaf_open_chunk(cs_pq_leaf *l, cs_parquet_file *file, uint32_t rg, cs_error *err)
{
    cs_pq_leaf_close_chunk(l);
    int rc =
        cs_parquet_file_read_chunk(file, rg, (uint32_t)l->col_index, &l->chunk, &l->chunk_len, err);
    if (rc) return rc;
    const cs_parquet_column_meta *cm = &file->meta.row_groups[rg].columns[l->col_index].meta;
    char where[512];
    snprintf(where, sizeof where, "%s: column %s, row group %u", file->name, l->col->path, rg);
    cs_parquet_page_reader_init(&l->pr, where, l->col, cm->codec, l->chunk, l->chunk_len,
                                cm->num_values, cm->total_uncompressed_size);
    /* fixed-width values stay indices until a batch stages them: rows a late filter passes
     * over are never gathered from the dictionary */
    int t = l->col->type;
    l->pr.keep_dictionary = l->keep_dict || t == CS_PQ_INT32 || t == CS_PQ_INT64 ||
                            t == CS_PQ_INT96 || t == CS_PQ_FLOAT || t == CS_PQ_DOUBLE;
    l->pr.lazy_indices = true; /* indices of rows passed over are never unpacked */
    l->open = true;
    return CS_OK;
}

static size_t leaf_width(const cs_pq_leaf *l)
{
    return cs_parquet_value_width(l->col->type, l->col->type_length);
}

/* Appends byte array values [first, first + n) of v to the staging. */
static void stage_bytes(cs_pq_leaf *l, const cs_parquet_values *v, uint32_t first, uint32_t n)
{
    int32_t base = v->offsets[first];
    size_t bytes = (size_t)(v->offsets[first + n] - base);
    cs_pq_grow((void **)&l->offs, &l->offs_cap, l->nvals + n + 1, sizeof *l->offs);
    cs_pq_grow((void **)&l->data, &l->data_cap, l->data_len + bytes + 1, 1);
    if (bytes) memcpy(l->data + l->data_len, v->data + base, bytes);
    int32_t shift = (int32_t)l->data_len - base;
    l->offs[0] = 0;
    for (uint32_t i = 1; i <= n; i++)
        l->offs[l->nvals + i] = v->offsets[first + i] + shift;
    l->nvals += n;
    l->data_len += bytes;
}

/* Appends dictionary values dict[idx[i]] to the staging (plain). */
static void stage_from_dict(cs_pq_leaf *l, const cs_parquet_values *dict, const uint32_t *idx,
                            uint32_t n)
{
    if (dict->type != CS_PQ_BYTE_ARRAY) {
        size_t w = leaf_width(l);
        cs_pq_grow((void **)&l->fixed, &l->fixed_cap, (l->nvals + n) * w + 8, 1);
        uint8_t *dst = l->fixed + l->nvals * w;
        if (w == 4) {
            for (uint32_t i = 0; i < n; i++)
                memcpy(dst + 4 * (size_t)i, dict->fixed + 4 * (size_t)idx[i], 4);
        } else if (w == 8) {
            for (uint32_t i = 0; i < n; i++)
                memcpy(dst + 8 * (size_t)i, dict->fixed + 8 * (size_t)idx[i], 8);
        } else {
            for (uint32_t i = 0; i < n; i++)
                memcpy(dst + (size_t)i * w, dict->fixed + (size_t)idx[i] * w, w);
        }
        l->nvals += n;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        stage_bytes(l, dict, idx[i], 1);
}

/* The staged indices become plain values (a page without the dictionary follows them). */
static void leave_dict_mode(cs_pq_leaf *l)
{
    size_t n = l->nvals;
    l->dict_mode = false;
    l->nvals = 0;
    l->data_len = 0;
    uint32_t *idx = l->idx;
    l->idx = NULL;
    size_t cap = l->idx_cap;
    l->idx_cap = 0;
    stage_from_dict(l, &l->pr.dict, idx, (uint32_t)n);
    free(l->idx);
    l->idx = idx;
    l->idx_cap = cap;
}

static int stage_values(cs_pq_leaf *l, uint32_t n, cs_error *err)
{
    const cs_parquet_page *pg = &l->page;
    if (pg->dict_indices || pg->dict_lazy) {
        const uint32_t *ix = pg->dict_indices
                                 ? pg->dict_indices + l->vpos
                                 : cs_parquet_page_reader_indices(&l->pr, l->vpos, n, err);
        if (!ix) return -1;
        if (l->nvals == 0) l->dict_mode = true;
        if (l->dict_mode) {
            cs_pq_grow((void **)&l->idx, &l->idx_cap, l->nvals + n, sizeof *l->idx);
            memcpy(l->idx + l->nvals, ix, (size_t)n * sizeof *l->idx);
            l->nvals += n;
        } else {
            stage_from_dict(l, pg->dictionary, ix, n);
        }
    } else {
        if (l->dict_mode) leave_dict_mode(l);
        if (l->col->type == CS_PQ_BYTE_ARRAY) {
            stage_bytes(l, pg->values, l->vpos, n);
        } else {
            size_t w = leaf_width(l);
            cs_pq_grow((void **)&l->fixed, &l->fixed_cap, (l->nvals + n) * w + 8, 1);
            memcpy(l->fixed + l->nvals * w, pg->values->fixed + (size_t)l->vpos * w, n * w);
            l->nvals += n;
        }
    }
    l->vpos += n;
    return CS_OK;
}

/* Reads the leaf's next page. 1: it is the current page; 0: the chunk ended, with `rows_left`
 * rows of the row group still wanted (0 is the chunk's right end; more is an error); <0: error. */
static int next_page(cs_pq_leaf *l, int64_t rows_left, cs_error *err)
{
    int rc = cs_parquet_page_reader_next(&l->pr, &l->page, err);
    if (rc < 0) return rc;
    if (rc == 0) {
        l->have_page = false;
        if (rows_left > 0)
            return cs_error_set(err, CS_EPROTO,
                                "%s: the column chunk ends %lld rows short of its row group",
                                l->pr.where, (long long)rows_left);
        return 0;
    }
    l->have_page = true;
    l->pos = l->vpos = 0;
    l->next_page++;
    return 1;
}

/* Stages the entries of the next `rows` rows of the leaf's chunk. */
int cs_pq_leaf_gather(cs_pq_leaf *l, int64_t rows, cs_error *err)
{
    int16_t max_def = l->col->max_def, max_rep = l->col->max_rep;
    l->n = 0;
    l->nvals = 0;
    l->data_len = 0;
    l->dict_mode = false;
    if (l->offs_cap == 0) cs_pq_grow((void **)&l->offs, &l->offs_cap, 1, sizeof *l->offs);
    l->offs[0] = 0;
    int64_t got = 0;
    for (;;) {
        if (!l->have_page || l->pos == l->page.num_values) {
            if (got == rows && max_rep == 0) break;
            int rc = next_page(l, rows - got, err);
            if (rc < 0) return rc;
            if (rc == 0) break;
            continue;
        }
        const cs_parquet_page *pg = &l->page;
        uint32_t a = l->pos, e = a, nv = pg->num_values;
        if (max_rep == 0) {
            uint64_t take = nv - a;
            if ((int64_t)take > rows - got) take = (uint64_t)(rows - got);
            e = a + (uint32_t)take;
            got += (int64_t)take;
        } else {
            while (e < nv) {
                if (pg->rep_levels[e] == 0) {
                    if (got == rows) break;
                    got++;
                }
                e++;
            }
            if (e == a) break; /* the next row begins here */
        }
        uint32_t cnt = e - a;
        if (max_def > 0) {
            cs_pq_grow((void **)&l->def, &l->def_cap, l->n + cnt, sizeof *l->def);
            memcpy(l->def + l->n, pg->def_levels + a, cnt * sizeof *l->def);
            uint32_t present = 0;
            for (uint32_t i = a; i < e; i++)
                present += pg->def_levels[i] == max_def;
            cnt = present;
        }
        if (max_rep > 0) cs_pq_grow((void **)&l->rep, &l->rep_cap, l->n + (e - a), sizeof *l->rep);
        if (max_rep > 0) memcpy(l->rep + l->n, pg->rep_levels + a, (e - a) * sizeof *l->rep);
        l->n += e - a;
        if (cnt && stage_values(l, cnt, err)) return -1;
        l->pos = e;
        if (max_rep == 0 && got == rows) break;
    }
    if (l->dict_mode && !l->keep_dict) leave_dict_mode(l); /* fixed-width values gathered */
    return CS_OK;
}

/* Passes over k rows of a leaf from row `row` of its row group, its position at the start of
 * that row: whole pages the offset index places inside them are skipped undecoded, the rest
 * decoded and dropped. A repeated leaf's rows are counted by its repetition levels (an entry
 * of level 0 begins a row); with an offset index its pages begin on rows (parquet-format's
 * rule), without one the last row may go on in the next page. */
int cs_pq_leaf_skip(cs_pq_leaf *l, int64_t row, int64_t k, int64_t *pages_skipped, cs_error *err)
{
    bool repeated = l->col->max_rep > 0;
    for (;;) {
        if (!l->have_page || l->pos == l->page.num_values) {
            if (k == 0 && (!repeated || l->pi.num_pages > 0)) break;
            uint32_t np = l->next_page;
            int rc;
            if (np < l->pi.num_pages && l->pi.first_row[np] == row &&
                l->pi.first_row[np + 1] - row <= k) {
                uint32_t nv;
                int64_t rows = l->pi.first_row[np + 1] - row;
                if ((rc = cs_parquet_page_reader_skip(&l->pr, &nv, err)) < 0) return rc;
                if (rc == 0 || (repeated ? nv < rows : nv != rows))
                    return cs_error_set(
                        err, CS_EPROTO,
                        "%s: the page index says page %u holds %lld rows, it has %u %s",
                        l->pr.where, np, (long long)rows, rc ? nv : 0,
                        repeated ? "values" : "rows");
                l->have_page = false;
                l->next_page++;
                (*pages_skipped)++;
                row += rows;
                k -= rows;
                continue;
            }
            if (!repeated && l->pi.num_pages == 0 && k > 0) {
                /* a flat column's page holds one entry per row: its header says how many */
                uint32_t nv;
                if ((rc = cs_parquet_page_reader_peek(&l->pr, &nv, err)) < 0) return rc;
                if (rc == 1 && nv > 0 && nv <= k) {
                    if ((rc = cs_parquet_page_reader_skip(&l->pr, &nv, err)) < 0) return rc;
                    l->have_page = false;
                    l->next_page++;
                    (*pages_skipped)++;
                    row += nv;
                    k -= nv;
                    continue;
                }
            }
            if ((rc = next_page(l, k, err)) < 0) return rc;
            if (rc == 0) break; /* the chunk's last row ended with its last page */
            continue;
        }
        const cs_parquet_page *pg = &l->page;
        uint32_t a = l->pos, e = a, nv = pg->num_values;
        if (!repeated) {
            uint32_t take = nv - a;
            if ((int64_t)take > k) take = (uint32_t)k;
            e = a + take;
            row += take;
            k -= take;
        } else {
            for (; e < nv; e++)
                if (pg->rep_levels[e] == 0) { /* row `row` begins */
                    if (k == 0) break;
                    row++;
                    k--;
                }
        }
        uint32_t present = e - a;
        if (pg->def_levels) {
            present = 0;
            for (uint32_t i = a; i < e; i++)
                present += pg->def_levels[i] == l->col->max_def;
        }
        l->pos = e;
        l->vpos += present;
        if (e < nv) break; /* stopped at the first entry of the row to read */
    }
    return CS_OK;
}
