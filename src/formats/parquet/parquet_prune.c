/* parquet_prune.c — statistics against pushed filters (see parquet_prune.h). A bound is decoded
 * from its PLAIN bytes into a cs_scalar of the column's Spark type, so that it compares with the
 * filter's literal in one domain (microseconds for every timestamp unit, the unscaled value for
 * decimals, bytes for strings).
 */
#include "formats/parquet/parquet_prune.h"

#include <math.h>
#include <string.h>

static int64_t le_int(const uint8_t *p, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    if (n == 4) return (int64_t)(int32_t)(uint32_t)v;
    return (int64_t)v;
}

static bool signed_order(cs_pq_conv conv)
{
    switch (conv) {
    case CS_PQ_CONV_BOOL:
    case CS_PQ_CONV_COPY:
    case CS_PQ_CONV_I32_TO_I8:
    case CS_PQ_CONV_I32_TO_I16:
    case CS_PQ_CONV_I32_TO_DEC:
    case CS_PQ_CONV_I64_TO_DEC:
    case CS_PQ_CONV_MILLIS:
    case CS_PQ_CONV_NANOS:
        return true;
    default:
        return false;
    }
}

/* One bound in the column's Spark domain; false when it cannot be used. */
static bool decode_bound(const cs_pq_node *node, int physical, cs_parquet_bytes b, cs_scalar *out)
{
    memset(out, 0, sizeof *out);
    out->type = node->type->id;
    const uint8_t *p = b.ptr;
    uint32_t n = b.len;
    if (!p) return false;
    switch (node->conv) {
    case CS_PQ_CONV_BOOL:
        if (n < 1) return false;
        out->i64 = p[0] != 0;
        return true;
    case CS_PQ_CONV_COPY:
        if (physical == CS_PQ_FLOAT || physical == CS_PQ_DOUBLE) {
            if (physical == CS_PQ_FLOAT) {
                float f;
                if (n != 4) return false;
                memcpy(&f, p, 4);
                out->f64 = f;
            } else {
                if (n != 8) return false;
                memcpy(&out->f64, p, 8);
            }
            return !isnan(out->f64);
        }
        if (n != (physical == CS_PQ_INT32 ? 4u : 8u)) return false; /* int, long, date, micros */
        out->i64 = le_int(p, n);
        return true;
    case CS_PQ_CONV_I32_TO_I8:
    case CS_PQ_CONV_I32_TO_I16:
        if (n != (physical == CS_PQ_INT32 ? 4u : 8u)) return false;
        out->i64 = le_int(p, n);
        return true;
    case CS_PQ_CONV_U32_TO_I16:
    case CS_PQ_CONV_U32_TO_I32:
    case CS_PQ_CONV_U32_TO_I64:
        if (n != 4) return false;
        out->i64 = (int64_t)(uint32_t)le_int(p, 4);
        return true;
    case CS_PQ_CONV_MILLIS:
    case CS_PQ_CONV_NANOS: {
        if (n != 8) return false;
        int64_t v = le_int(p, 8);
        if (node->conv == CS_PQ_CONV_MILLIS)
            out->i64 = v * 1000;
        else
            out->i64 = v / 1000 - (v % 1000 < 0);
        return true;
    }
    case CS_PQ_CONV_I32_TO_DEC:
    case CS_PQ_CONV_I64_TO_DEC:
        if (n != (physical == CS_PQ_INT32 ? 4u : 8u)) return false;
        out->dec = le_int(p, n);
        return true;
    case CS_PQ_CONV_U64_TO_DEC:
        if (n != 8) return false;
        out->dec = (__int128)(uint64_t)le_int(p, 8);
        return true;
    case CS_PQ_CONV_BE_TO_DEC:
        if (n == 0 || n > 16) return false;
        out->dec = cs_pq_decimal_from_be(p, n);
        return true;
    case CS_PQ_CONV_BYTES:
    case CS_PQ_CONV_FIXED_BYTES:
        out->data = p;
        out->len = (int32_t)n;
        return true;
    default: /* INT96: no defined order */
        return false;
    }
}

/* literal <=> bound: -1, 0, 1; 2 when they cannot be compared. */
static int compare(const cs_scalar *lit, const cs_scalar *bound)
{
    switch (bound->type) {
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
        if (isnan(lit->f64)) return 2;
        return lit->f64 < bound->f64 ? -1 : lit->f64 > bound->f64;
    case CS_TYPE_DECIMAL:
        return lit->dec < bound->dec ? -1 : lit->dec > bound->dec;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t m = lit->len < bound->len ? lit->len : bound->len;
        int c = m > 0 ? memcmp(lit->data, bound->data, (size_t)m) : 0;
        if (c) return c < 0 ? -1 : 1;
        return lit->len < bound->len ? -1 : lit->len > bound->len;
    }
    default:
        return lit->i64 < bound->i64 ? -1 : lit->i64 > bound->i64;
    }
}

bool cs_pq_stats_may_match(const cs_pq_node *node, int physical, const cs_parquet_statistics *st,
                           int64_t num_values, const cs_scan_filter *f)
{
    bool all_null = st->has_null_count && st->null_count >= num_values;
    switch (f->op) {
    case CS_FILTER_IS_NULL:
        return !(st->has_null_count && st->null_count == 0);
    case CS_FILTER_IS_NOT_NULL:
        return !all_null;
    case CS_FILTER_NULL_SAFE_EQ:
        if (f->n_values >= 1 && f->values[0].is_null)
            return !(st->has_null_count && st->null_count == 0);
        break;
    default:
        break;
    }
    if (all_null) return false; /* a comparison with null is never true */
    cs_parquet_bytes lo_b = st->min_value, hi_b = st->max_value;
    if (!st->has_min_value || !st->has_max_value) {
        if (!signed_order(node->conv) || !st->has_min || !st->has_max) return true;
        lo_b = st->min;
        hi_b = st->max;
    }
    cs_scalar lo, hi;
    if (!decode_bound(node, physical, lo_b, &lo) || !decode_bound(node, physical, hi_b, &hi))
        return true;
    int nv = f->op == CS_FILTER_IN ? f->n_values : 1;
    if (f->n_values < 1) return true;
    for (int k = 0; k < nv; k++) {
        const cs_scalar *v = &f->values[k];
        if (v->is_null) {
            if (f->op == CS_FILTER_IN) continue; /* never equal */
            return true;
        }
        int c_lo = compare(v, &lo), c_hi = compare(v, &hi);
        if (c_lo == 2 || c_hi == 2) return true;
        switch (f->op) {
        case CS_FILTER_EQ:
        case CS_FILTER_NULL_SAFE_EQ:
        case CS_FILTER_IN:
            if (c_lo >= 0 && c_hi <= 0) return true;
            break;
        case CS_FILTER_LT: /* some value < v: min < v */
            return c_lo > 0;
        case CS_FILTER_LE:
            return c_lo >= 0;
        case CS_FILTER_GT: /* max > v */
            return c_hi < 0;
        case CS_FILTER_GE:
            return c_hi <= 0;
        default:
            return true;
        }
    }
    return false; /* no value of EQ / IN lies within [min, max] */
}

bool cs_pq_row_group_may_match(const cs_pq_schema *s, uint32_t rg, const cs_scan_filter *filters,
                               int n)
{
    for (int k = 0; k < n; k++) {
        const cs_pq_node *node = cs_pq_node_field(&s->root, filters[k].column);
        if (!node || node->kind != CS_PQ_NODE_LEAF || node->leaf < 0) continue;
        if (s->file->columns[node->leaf].max_rep != 0) continue;
        const cs_parquet_column_meta *cm = &s->file->meta.row_groups[rg].columns[node->leaf].meta;
        if (cm->has_statistics &&
            !cs_pq_stats_may_match(node, cm->type, &cm->statistics, cm->num_values, &filters[k]))
            return false;
    }
    return true;
}
