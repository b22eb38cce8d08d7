/* parquet_writer_chunk.c — writes one leaf column's chunk of a row group, as parquet-mr's
 * ColumnWriter does for Spark:
 *   - shredding (Dremel): each top-level row of the batch column is walked down the leaf's steps
 *     (struct field, list elements, map keys or values), giving one (definition, repetition)
 *     level pair per entry and a value for entries at the maximum definition level;
 *   - values converted as Spark's ParquetWriteSupport: byte/short widened to INT32, decimals as
 *     INT32/INT64 or big-endian FIXED_LEN_BYTE_ARRAY, timestamps as INT96 (Julian day and
 *     nanoseconds of the day) or INT64 micros/millis;
 *   - pages closed at parquet.page.size bytes of values or page_rows rows, on a row boundary;
 *     levels RLE/bit-packed; values dictionary-encoded while the chunk's dictionary stays under
 *     parquet.dictionary.page.size and pays for itself on the first page (parquet-mr's
 *     isCompressionSatisfying), else PLAIN (in data page v2, as parquet-mr's V2 writers:
 *     DELTA_BINARY_PACKED for ints, DELTA_BYTE_ARRAY for binary and fixed-length binary);
 *     each page compressed with the file's codec (v1: levels and values; v2: values only);
 *   - statistics: null count and min/max in the type's sort order (signed integers, decimals
 *     as signed big-endian, floats without NaN and with -0.0/+0.0 as the spec says, strings
 *     and binary unsigned bytewise; none for INT96, whose order is undefined); min/max larger
 *     than 4 KiB are left out, as parquet-mr does; each page's bounds, place and first row go
 *     to the chunk's page index (parquet_writer_index.c).
 * The chunk's pages stay in memory until the row group is written (cs_pqw_chunk_write); the
 * dictionary page is written in front of them then. Called by parquet_writer.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/parquet/parquet_codec.h"
#include "formats/parquet/parquet_writer_col.h"

enum { MAX_STATS_BYTES = 4096 };

static bool dictionary_allowed(const cs_pqw_chunk *c)
{
    return c->cfg->dictionary && c->leaf->phys != CS_PQ_BOOLEAN;
}

void cs_pqw_chunk_init(cs_pqw_chunk *c, const cs_pqw_leaf *leaf, const cs_pqw_config *cfg)
{
    *c = (cs_pqw_chunk){.leaf = leaf, .cfg = cfg};
    cs_parquet_values_reset(&c->vals, leaf->phys, leaf->type_length);
    cs_parquet_dict_builder_init(&c->dict, leaf->phys, leaf->type_length);
    c->dict_on = dictionary_allowed(c);
}

void cs_pqw_chunk_free(cs_pqw_chunk *c)
{
    free(c->def);
    free(c->rep);
    free(c->idx);
    free(c->page_locs);
    cs_parquet_values_free(&c->vals);
    cs_parquet_dict_builder_free(&c->dict);
    cs_sbuf *bufs[] = {&c->pages,        &c->min,         &c->max,          &c->scratch_levels,
                       &c->scratch_body, &c->scratch_raw, &c->scratch_comp, &c->page_bounds};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        cs_sbuf_free(bufs[i]);
}

/* ---- shredding ------------------------------------------------------------------------------ */

static void add_level(cs_pqw_chunk *c, int16_t def, int16_t rep)
{
    if (c->n_levels == c->levels_cap) {
        c->levels_cap = c->levels_cap ? 2 * c->levels_cap : 1024;
        c->def = cs_xrealloc(c->def, c->levels_cap * sizeof *c->def);
        c->rep = cs_xrealloc(c->rep, c->levels_cap * sizeof *c->rep);
    }
    c->def[c->n_levels] = def;
    c->rep[c->n_levels] = rep;
    c->n_levels++;
    if (def < c->leaf->max_def) c->page_nulls++;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void put_fixed(cs_pqw_chunk *c, const void *p, size_t n)
{
    memcpy(cs_parquet_values_reserve_fixed(&c->vals, 1), p, n);
    c->vals.count++;
}

/* Appends value i of the leaf column col, converted to the leaf's physical type. */
static int add_value(cs_pqw_chunk *c, const cs_column *col, int64_t i, cs_error *err)
{
    const cs_pqw_leaf *l = c->leaf;
    switch (l->type->id) {
    case CS_TYPE_BOOLEAN: {
        uint8_t b = cs_bit_get(col->values, i);
        put_fixed(c, &b, 1);
        return 0;
    }
    case CS_TYPE_BYTE: {
        int32_t v = ((const int8_t *)col->values)[i];
        put_fixed(c, &v, 4);
        return 0;
    }
    case CS_TYPE_SHORT: {
        int16_t s;
        memcpy(&s, col->values + 2 * i, 2);
        int32_t v = s;
        put_fixed(c, &v, 4);
        return 0;
    }
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_FLOAT:
        put_fixed(c, col->values + 4 * i, 4);
        return 0;
    case CS_TYPE_LONG:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_TIMESTAMP_NTZ:
        put_fixed(c, col->values + 8 * i, 8);
        return 0;
    case CS_TYPE_TIMESTAMP: {
        int64_t us;
        memcpy(&us, col->values + 8 * i, 8);
        if (l->phys == CS_PQ_INT96) {
            const int64_t day_us = 86400000000LL;
            int64_t days = floor_div(us, day_us);
            int64_t nanos = (us - days * day_us) * 1000;
            int32_t julian = (int32_t)(days + 2440588);
            uint8_t b[12];
            memcpy(b, &nanos, 8);
            memcpy(b + 8, &julian, 4);
            put_fixed(c, b, 12);
        } else {
            int64_t v = c->cfg->timestamp == CS_PQW_TS_MILLIS ? floor_div(us, 1000) : us;
            put_fixed(c, &v, 8);
        }
        return 0;
    }
    case CS_TYPE_DECIMAL: {
        __int128 v;
        memcpy(&v, col->values + 16 * i, 16);
        if (l->phys == CS_PQ_INT32) {
            int32_t x = (int32_t)v;
            put_fixed(c, &x, 4);
        } else if (l->phys == CS_PQ_INT64) {
            int64_t x = (int64_t)v;
            put_fixed(c, &x, 8);
        } else {
            uint8_t b[16];
            int32_t n = l->type_length;
            for (int32_t k = 0; k < n; k++)
                b[n - 1 - k] = (uint8_t)(v >> (8 * k));
            put_fixed(c, b, (size_t)n);
        }
        return 0;
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(col, i, &len);
        return cs_parquet_values_append_bytes(&c->vals, p, (size_t)len, err);
    }
    default:
        return cs_error_set(err, CS_EINVAL, "column %s: unexpected type", l->dotted);
    }
}

/* Walks value i of col (the column at step s) down to the leaf. */
static int shred(cs_pqw_chunk *c, int s, const cs_column *col, int64_t i, int16_t def, int16_t rep,
                 cs_error *err)
{
    const cs_pqw_step *st = &c->leaf->steps[s];
    if (!cs_column_is_valid(col, i)) {
        if (!st->optional) c->bad_null = true;
        add_level(c, def, rep);
        return 0;
    }
    if (st->optional) def++;
    switch (st->kind) {
    case CS_PQW_LEAF:
        add_level(c, def, rep);
        return add_value(c, col, i, err);
    case CS_PQW_STRUCT:
        return shred(c, s + 1, col->children[st->child], i, def, rep, err);
    default: {
        const int32_t *off = cs_column_offsets(col);
        if (off[i] == off[i + 1]) { /* an empty list or map */
            add_level(c, def, rep);
            return 0;
        }
        const cs_column *child = col->children[st->child];
        for (int32_t j = off[i]; j < off[i + 1]; j++) {
            int rc = shred(c, s + 1, child, j, (int16_t)(def + 1),
                           j == off[i] ? rep : st->rep_level, err);
            if (rc) return rc;
        }
        return 0;
    }
    }
}

/* ---- statistics ----------------------------------------------------------------------------- */

int cs_pqw_compare(int phys, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    switch (phys) {
    case CS_PQ_BOOLEAN:
        return (int)a[0] - (int)b[0];
    case CS_PQ_INT32: {
        int32_t x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case CS_PQ_INT64: {
        int64_t x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case CS_PQ_FLOAT: {
        float x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case CS_PQ_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case CS_PQ_FIXED_LEN_BYTE_ARRAY: { /* a signed big-endian decimal */
        if (alen && (a[0] ^ 0x80) != (b[0] ^ 0x80)) return (int)(a[0] ^ 0x80) - (int)(b[0] ^ 0x80);
        return alen > 1 ? memcmp(a + 1, b + 1, alen - 1) : 0;
    }
    default: { /* BYTE_ARRAY: unsigned bytes, then length */
        int r = memcmp(a, b, alen < blen ? alen : blen);
        return r ? r : (alen > blen) - (alen < blen);
    }
    }
}

static const uint8_t *value_at(const cs_parquet_values *v, uint32_t i, size_t *len)
{
    if (v->type == CS_PQ_BYTE_ARRAY) {
        *len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return v->data + v->offsets[i];
    }
    *len = cs_parquet_value_width(v->type, v->type_length);
    return v->fixed + *len * i;
}

static bool is_nan(int phys, const uint8_t *p)
{
    if (phys == CS_PQ_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    if (phys == CS_PQ_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return isnan(d);
    }
    return false;
}

static void set_bytes(cs_sbuf *b, const uint8_t *p, size_t n)
{
    b->len = 0;
    cs_sbuf_append(b, p, n);
}

/* Merges the page's min and max into the chunk's; *min and *max are the page's (NULL when it has
 * none: INT96, only nulls or NaN), pointing into its values. */
static void page_statistics(cs_pqw_chunk *c, const uint8_t **min, size_t *min_len,
                            const uint8_t **max, size_t *max_len)
{
    const cs_parquet_values *v = &c->vals;
    int phys = c->leaf->phys;
    *min = *max = NULL;
    if (phys == CS_PQ_INT96) return;
    const uint8_t *mn = NULL, *mx = NULL;
    size_t mnl = 0, mxl = 0;
    bool typed = (phys == CS_PQ_INT32 || phys == CS_PQ_INT64) && v->count;
    if (typed) { /* the common case, without a comparison call per value */
        uint32_t imin = 0, imax = 0;
        if (phys == CS_PQ_INT32) {
            const int32_t *x = (const int32_t *)(const void *)v->fixed;
            for (uint32_t i = 1; i < v->count; i++) {
                if (x[i] < x[imin]) imin = i;
                if (x[i] > x[imax]) imax = i;
            }
        } else {
            const int64_t *x = (const int64_t *)(const void *)v->fixed;
            for (uint32_t i = 1; i < v->count; i++) {
                if (x[i] < x[imin]) imin = i;
                if (x[i] > x[imax]) imax = i;
            }
        }
        mn = value_at(v, imin, &mnl);
        mx = value_at(v, imax, &mxl);
    }
    for (uint32_t i = 0; !typed && i < v->count; i++) {
        size_t len;
        const uint8_t *p = value_at(v, i, &len);
        if (is_nan(phys, p)) {
            c->saw_nan = true;
            continue;
        }
        if (!mn || cs_pqw_compare(phys, p, len, mn, mnl) < 0) mn = p, mnl = len;
        if (!mx || cs_pqw_compare(phys, p, len, mx, mxl) > 0) mx = p, mxl = len;
    }
    if (!mn) return;
    *min = mn, *min_len = mnl, *max = mx, *max_len = mxl;
    if (!c->has_minmax ||
        cs_pqw_compare(phys, mn, mnl, (const uint8_t *)c->min.data, c->min.len) < 0)
        set_bytes(&c->min, mn, mnl);
    if (!c->has_minmax ||
        cs_pqw_compare(phys, mx, mxl, (const uint8_t *)c->max.data, c->max.len) > 0)
        set_bytes(&c->max, mx, mxl);
    c->has_minmax = true;
}

/* -0.0 as the minimum and +0.0 as the maximum when either is a zero (parquet-format's rule for
 * floating-point statistics, so that a reader's pruning is right for both zeros). */
static void signed_zeros(int phys, uint8_t *min, uint8_t *max)
{
    if (phys == CS_PQ_FLOAT) {
        float mn, mx;
        memcpy(&mn, min, 4), memcpy(&mx, max, 4);
        if (mn == 0) mn = -0.0f, memcpy(min, &mn, 4);
        if (mx == 0) mx = 0.0f, memcpy(max, &mx, 4);
    } else if (phys == CS_PQ_DOUBLE) {
        double mn, mx;
        memcpy(&mn, min, 8), memcpy(&mx, max, 8);
        if (mn == 0) mn = -0.0, memcpy(min, &mn, 8);
        if (mx == 0) mx = 0.0, memcpy(max, &mx, 8);
    }
}

/* ---- pages ---------------------------------------------------------------------------------- */

static int64_t page_value_bytes(const cs_pqw_chunk *c)
{
    const cs_parquet_values *v = &c->vals;
    if (v->type == CS_PQ_BYTE_ARRAY) return (int64_t)v->data_len + 4 * (int64_t)v->count;
    return (int64_t)(v->count * cs_parquet_value_width(v->type, v->type_length));
}

static void put_u32le(cs_sbuf *b, uint32_t n)
{
    uint8_t l4[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    cs_sbuf_append(b, l4, 4);
}

static void encode_levels(cs_pqw_chunk *c, const int16_t *lv, int16_t max, cs_sbuf *out)
{
    if (!max) return;
    size_t at = out->len;
    if (!c->cfg->v2) put_u32le(out, 0); /* v1: the section's length in front */
    cs_parquet_rle_encode_levels(lv, (uint32_t)c->n_levels, cs_parquet_bit_width((uint64_t)max),
                                 out);
    if (!c->cfg->v2) {
        uint32_t n = (uint32_t)(out->len - at - 4);
        uint8_t l4[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
        memcpy(out->data + at, l4, 4);
    }
}

/* Drops the dictionary entries past `keep` (those the page that overflowed it added). */
static void dictionary_truncate(cs_pqw_chunk *c, uint32_t keep)
{
    cs_parquet_values *d = &c->dict.dict;
    if (d->type == CS_PQ_BYTE_ARRAY) d->data_len = (size_t)d->offsets[keep];
    d->count = keep;
}

/* The page's values into c->scratch_body; returns the encoding used. */
static int encode_values(cs_pqw_chunk *c)
{
    cs_sbuf *body = &c->scratch_body;
    uint32_t n = c->vals.count;
    if (c->dict_on && n > 0) {
        if (c->idx_cap < n) {
            c->idx_cap = n;
            c->idx = cs_xrealloc(c->idx, n * sizeof *c->idx);
        }
        uint32_t before = c->dict.dict.count;
        cs_parquet_dict_builder_add(&c->dict, &c->vals, 0, n, c->idx);
        int64_t dict_bytes = (int64_t)cs_parquet_dict_builder_bytes(&c->dict);
        int64_t index_bytes =
            ((int64_t)n * cs_parquet_bit_width(c->dict.dict.count ? c->dict.dict.count - 1 : 0) +
             7) /
            8;
        if (dict_bytes > c->cfg->dict_page_size ||
            (!c->dict_used && dict_bytes + index_bytes >= page_value_bytes(c))) {
            dictionary_truncate(c, c->dict_used ? before : 0);
            c->dict_on = false;
        }
    }
    if (c->dict_on && (n > 0 || c->dict_used)) {
        cs_parquet_dict_indices_encode(c->idx, n, c->dict.dict.count, body);
        c->dict_used = true;
        return c->cfg->v2 ? CS_PQ_ENC_RLE_DICTIONARY : CS_PQ_ENC_PLAIN_DICTIONARY;
    }
    int phys = c->leaf->phys;
    if (c->cfg->v2 && (phys == CS_PQ_INT32 || phys == CS_PQ_INT64)) {
        cs_parquet_delta_encode_ints(c->vals.fixed, phys, n, body);
        return CS_PQ_ENC_DELTA_BINARY_PACKED;
    }
    if (c->cfg->v2 && (phys == CS_PQ_BYTE_ARRAY || phys == CS_PQ_FIXED_LEN_BYTE_ARRAY)) {
        cs_parquet_delta_byte_array_encode(&c->vals, n, body);
        return CS_PQ_ENC_DELTA_BYTE_ARRAY;
    }
    cs_parquet_plain_encode(&c->vals, 0, n, body);
    return CS_PQ_ENC_PLAIN;
}

/* Closes the page being filled: encodes, compresses and appends it to the chunk's pages. */
static int flush_page(cs_pqw_chunk *c, cs_error *err)
{
    if (c->n_levels == 0) return 0;
    const cs_pqw_leaf *l = c->leaf;
    if (c->n_levels > INT32_MAX / 2)
        return cs_error_set(err, CS_EINVAL, "column %s: too many values in one page", l->dotted);
    const uint8_t *pmin, *pmax;
    size_t pmin_len = 0, pmax_len = 0;
    page_statistics(c, &pmin, &pmin_len, &pmax, &pmax_len);
    uint8_t zeros[16];
    if (pmin && (l->phys == CS_PQ_FLOAT || l->phys == CS_PQ_DOUBLE)) {
        memcpy(zeros, pmin, pmin_len);
        memcpy(zeros + 8, pmax, pmax_len);
        signed_zeros(l->phys, zeros, zeros + 8);
        pmin = zeros, pmax = zeros + 8;
    }
    cs_sbuf *lv = &c->scratch_levels, *body = &c->scratch_body, *raw = &c->scratch_raw,
            *comp = &c->scratch_comp;
    lv->len = body->len = raw->len = comp->len = 0;
    int encoding = encode_values(c);
    encode_levels(c, c->rep, l->max_rep, lv);
    size_t rep_len = lv->len;
    encode_levels(c, c->def, l->max_def, lv);
    cs_parquet_page_header h = {.num_values = (int32_t)c->n_levels,
                                .encoding = encoding,
                                .def_encoding = CS_PQ_ENC_RLE,
                                .rep_encoding = CS_PQ_ENC_RLE,
                                .uncompressed_size = (int32_t)(lv->len + body->len)};
    int rc;
    if (!c->cfg->v2) {
        h.type = CS_PQ_PAGE_DATA;
        cs_sbuf_append(raw, lv->data, lv->len);
        cs_sbuf_append(raw, body->data, body->len);
        rc = cs_parquet_compress(c->cfg->codec, (const uint8_t *)raw->data, raw->len, comp, err);
    } else {
        h.type = CS_PQ_PAGE_DATA_V2;
        h.num_nulls = (int32_t)c->page_nulls;
        h.num_rows = (int32_t)c->page_rows;
        h.rep_levels_len = (int32_t)rep_len;
        h.def_levels_len = (int32_t)(lv->len - rep_len);
        h.is_compressed = c->cfg->codec != CS_PQ_CODEC_UNCOMPRESSED;
        cs_sbuf_append(comp, lv->data, lv->len);
        rc = cs_parquet_compress(c->cfg->codec, (const uint8_t *)body->data, body->len, comp, err);
    }
    if (rc) return rc;
    if ((uint64_t)lv->len + body->len > INT32_MAX || comp->len > INT32_MAX)
        return cs_error_set(err, CS_EINVAL, "column %s: a page passes 2 GiB", l->dotted);
    h.compressed_size = (int32_t)comp->len;
    size_t before = c->pages.len;
    cs_parquet_page_header_encode(&h, &c->pages);
    c->uncompressed += (int64_t)(c->pages.len - before) + h.uncompressed_size;
    cs_sbuf_append(&c->pages, comp->data, comp->len);
    cs_pqw_index_add_page(c, (int64_t)before, (int32_t)(c->pages.len - before), c->page_rows,
                          c->page_nulls, c->vals.count == 0, pmin, pmin_len, pmax, pmax_len);
    c->num_values += (int64_t)c->n_levels;
    c->null_count += c->page_nulls;
    c->encodings |= 1u << encoding;
    if (l->max_def || l->max_rep) c->encodings |= 1u << CS_PQ_ENC_RLE;
    c->n_levels = 0;
    c->page_rows = c->page_nulls = 0;
    cs_parquet_values_reset(&c->vals, l->phys, l->type_length);
    return 0;
}

/* Bytes per value when a top-level leaf's values are copied as they are (int, date, float: 4;
 * long, double, timestamp_ntz, timestamp as micros: 8), else 0. */
static size_t flat_width(const cs_pqw_chunk *c)
{
    const cs_pqw_leaf *l = c->leaf;
    if (l->n_steps != 1) return 0;
    switch (l->type->id) {
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_FLOAT:
        return 4;
    case CS_TYPE_LONG:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_TIMESTAMP_NTZ:
        return 8;
    case CS_TYPE_TIMESTAMP:
        return l->phys == CS_PQ_INT64 && c->cfg->timestamp == CS_PQW_TS_MICROS ? 8 : 0;
    default:
        return 0;
    }
}

/* The fast way for a top-level column of such values: runs of rows up to the page's end, values
 * copied in bulk (one by one where there are nulls), levels without the walk. */
static int add_flat(cs_pqw_chunk *c, const cs_column *col, int64_t r0, int64_t r1, size_t width,
                    cs_error *err)
{
    int16_t max_def = c->leaf->max_def;
    for (int64_t r = r0; r < r1;) {
        int64_t room_bytes = c->cfg->page_size - page_value_bytes(c) - 2 * (int64_t)c->n_levels;
        int64_t room = room_bytes / (int64_t)(width + 2) + 1;
        if (room > c->cfg->page_rows - c->page_rows) room = c->cfg->page_rows - c->page_rows;
        int64_t n = r1 - r < room ? r1 - r : room;
        if (n < 1) n = 1;
        if (c->n_levels + (size_t)n > c->levels_cap) {
            while (c->n_levels + (size_t)n > c->levels_cap)
                c->levels_cap = c->levels_cap ? 2 * c->levels_cap : 1024;
            c->def = cs_xrealloc(c->def, c->levels_cap * sizeof *c->def);
            c->rep = cs_xrealloc(c->rep, c->levels_cap * sizeof *c->rep);
        }
        int16_t *def = c->def + c->n_levels;
        memset(c->rep + c->n_levels, 0, (size_t)n * sizeof *c->rep);
        uint8_t *dst = cs_parquet_values_reserve_fixed(&c->vals, (size_t)n);
        const uint8_t *src = col->values + (size_t)r * width;
        if (!col->validity) {
            memcpy(dst, src, (size_t)n * width);
            for (int64_t i = 0; i < n; i++)
                def[i] = max_def;
            c->vals.count += (uint32_t)n;
        } else {
            uint32_t k = 0;
            for (int64_t i = 0; i < n; i++) {
                bool valid = cs_bit_get(col->validity, r + i);
                def[i] = valid ? max_def : 0;
                if (valid) {
                    memcpy(dst + (size_t)k * width, src + (size_t)i * width, width);
                    k++;
                } else if (!max_def) {
                    c->bad_null = true;
                }
            }
            c->vals.count += k;
            c->page_nulls += (uint32_t)n - k;
        }
        if (c->bad_null)
            return cs_error_set(err, CS_EINVAL,
                                "column %s: a null value in a field that is not nullable",
                                c->leaf->dotted);
        c->n_levels += (size_t)n;
        c->page_rows += (uint32_t)n;
        r += n;
        if (page_value_bytes(c) + 2 * (int64_t)c->n_levels >= c->cfg->page_size ||
            c->page_rows >= c->cfg->page_rows) {
            int rc = flush_page(c, err);
            if (rc) return rc;
        }
    }
    return 0;
}

int cs_pqw_chunk_add(cs_pqw_chunk *c, const cs_column *top, int64_t r0, int64_t r1, cs_error *err)
{
    size_t width = flat_width(c);
    if (width) return add_flat(c, top, r0, r1, width, err);
    for (int64_t r = r0; r < r1; r++) {
        int rc = shred(c, 0, top, r, 0, 0, err);
        if (rc) return rc;
        if (c->bad_null)
            return cs_error_set(err, CS_EINVAL,
                                "column %s: a null value in row %lld of a field that is not "
                                "nullable",
                                c->leaf->dotted, (long long)r);
        c->page_rows++;
        if (page_value_bytes(c) + 2 * (int64_t)c->n_levels >= c->cfg->page_size ||
            c->page_rows >= c->cfg->page_rows) {
            rc = flush_page(c, err);
            if (rc) return rc;
        }
    }
    return 0;
}

int64_t cs_pqw_chunk_buffered(const cs_pqw_chunk *c)
{
    return (int64_t)c->pages.len + page_value_bytes(c) + 2 * (int64_t)c->n_levels +
           (c->dict_used ? (int64_t)cs_parquet_dict_builder_bytes(&c->dict) : 0);
}

/* Starts the chunk of the next row group. */
static void chunk_reset(cs_pqw_chunk *c)
{
    cs_parquet_dict_builder_free(&c->dict);
    cs_parquet_dict_builder_init(&c->dict, c->leaf->phys, c->leaf->type_length);
    c->dict_on = dictionary_allowed(c);
    c->dict_used = false;
    c->pages.len = 0;
    c->num_values = c->uncompressed = c->null_count = 0;
    c->has_minmax = false;
    c->encodings = 0;
    c->n_pages = 0;
    c->chunk_rows = 0;
    c->saw_nan = false;
    c->page_bounds.len = 0;
}

static int fs_put(cs_fs_writer *w, int64_t *offset, const void *p, size_t n, cs_error *err)
{
    int rc = cs_fs_write(w, p, n, err);
    *offset += (int64_t)n;
    return rc < 0 ? (err->code ? err->code : CS_EIO) : 0;
}

int cs_pqw_chunk_write(cs_pqw_chunk *c, cs_fs_writer *w, int64_t *offset,
                       cs_parquet_column_chunk *meta, cs_sbuf *arena_list, cs_sbuf *column_indexes,
                       cs_sbuf *offset_indexes, cs_error *err)
{
    int rc = flush_page(c, err);
    if (rc) return rc;
    const cs_pqw_leaf *l = c->leaf;
    int64_t start = *offset, compressed = 0, uncompressed = c->uncompressed;
    if (c->dict_used) {
        cs_sbuf *raw = &c->scratch_raw, *comp = &c->scratch_comp, *hdr = &c->scratch_levels;
        raw->len = comp->len = hdr->len = 0;
        cs_parquet_plain_encode(&c->dict.dict, 0, c->dict.dict.count, raw);
        rc = cs_parquet_compress(c->cfg->codec, (const uint8_t *)raw->data, raw->len, comp, err);
        if (rc) return rc;
        cs_parquet_page_header h = {.type = CS_PQ_PAGE_DICTIONARY,
                                    .num_values = (int32_t)c->dict.dict.count,
                                    .encoding =
                                        c->cfg->v2 ? CS_PQ_ENC_PLAIN : CS_PQ_ENC_PLAIN_DICTIONARY,
                                    .uncompressed_size = (int32_t)raw->len,
                                    .compressed_size = (int32_t)comp->len};
        cs_parquet_page_header_encode(&h, hdr);
        uncompressed += (int64_t)(hdr->len + raw->len);
        if ((rc = fs_put(w, offset, hdr->data, hdr->len, err)) ||
            (rc = fs_put(w, offset, comp->data, comp->len, err)))
            return rc;
        c->encodings |= 1u << h.encoding;
    }
    int64_t data_offset = *offset;
    if ((rc = fs_put(w, offset, c->pages.data, c->pages.len, err))) return rc;
    compressed = *offset - start;
    if (c->has_minmax) signed_zeros(l->phys, (uint8_t *)c->min.data, (uint8_t *)c->max.data);

    /* what the footer keeps: encodings and statistics, in one block the writer frees */
    int n_enc = __builtin_popcount(c->encodings);
    bool minmax = c->has_minmax && c->min.len <= MAX_STATS_BYTES && c->max.len <= MAX_STATS_BYTES;
    size_t stats_len = minmax ? c->min.len + c->max.len : 0;
    uint8_t *block = cs_xmalloc((size_t)n_enc * sizeof(int32_t) + stats_len + 1);
    cs_sbuf_append(arena_list, &block, sizeof block);
    int32_t *encodings = (int32_t *)(void *)block;
    n_enc = 0;
    for (int e = 0; e < 32; e++)
        if (c->encodings >> e & 1) encodings[n_enc++] = e;
    uint8_t *stats = block + (size_t)n_enc * sizeof(int32_t);
    if (minmax) {
        memcpy(stats, c->min.data, c->min.len);
        memcpy(stats + c->min.len, c->max.data, c->max.len);
    }
    cs_parquet_statistics st = {.has_null_count = true, .null_count = c->null_count};
    if (minmax) {
        cs_parquet_bytes mn = {stats, (uint32_t)c->min.len};
        cs_parquet_bytes mx = {stats + c->min.len, (uint32_t)c->max.len};
        st.has_min_value = st.has_max_value = true;
        st.min_value = mn;
        st.max_value = mx;
        if (l->phys != CS_PQ_BYTE_ARRAY) { /* the legacy fields: signed order only */
            st.has_min = st.has_max = true;
            st.min = mn;
            st.max = mx;
        }
    }
    *meta = (cs_parquet_column_chunk){.file_offset = start, .has_meta_data = true};
    meta->meta = (cs_parquet_column_meta){.type = l->phys,
                                          .encodings = encodings,
                                          .num_encodings = (uint32_t)n_enc,
                                          .path = l->path,
                                          .path_len = l->path_len,
                                          .codec = c->cfg->codec,
                                          .num_values = c->num_values,
                                          .total_uncompressed_size = uncompressed,
                                          .total_compressed_size = compressed,
                                          .data_page_offset = data_offset,
                                          .has_dictionary_page_offset = c->dict_used,
                                          .dictionary_page_offset = start,
                                          .has_statistics = true,
                                          .statistics = st};
    cs_pqw_index_encode(c, data_offset, meta, column_indexes, offset_indexes);
    chunk_reset(c);
    return 0;
}
