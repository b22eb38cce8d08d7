/* parquet_scan.c — Parquet pages into column batches (see parquet_scan.h).
 *
 * Per batch, each projected leaf first stages the entries of its batch's rows: their definition
 * and repetition levels and their non-null values (parquet_leaf.c). Then the read plan (a tree
 * mirroring the read schema, each node tied to the file's node) is assembled top-down. A node's
 * "slots" are the entries of one leaf's stream that begin its values: the rows at the top (entries
 * with repetition level 0), then, through a list or map, the entries at the list's entry level
 * whose repetition level is the list's own (a new element) or that begin the list. A slot is null
 * when its definition level is below the node's, an empty list when below the list's entry level.
 * Structs take their validity from their first projected leaf; each child computes its slots in its
 * own leaf's stream, and lengths that disagree between leaves are reported as a corrupt file.
 */
#include "formats/parquet/parquet_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "columnar/col_builder.h"
#include "formats/parquet/parquet_prune.h"
#include "formats/parquet/parquet_scan_leaf.h"

#define DEFAULT_BATCH_ROWS 4096

typedef struct pq_plan pq_plan;
struct pq_plan {
    const cs_pq_node *node; /* NULL: not in the file, reads as nulls */
    const cs_col_type *type;
    int n_children;
    pq_plan *children;
    pq_plan *parent;
    int level_leaf; /* the leaf whose levels give this node's slots (-1 when node is NULL) */
};

struct cs_pq_scan {
    cs_parquet_file *file;
    cs_pq_schema schema;
    const cs_scan_request *req;
    int64_t batch_rows;
    pq_plan root;
    cs_pq_leaf *leaves;
    int n_leaves, leaves_cap;
    uint32_t *row_groups; /* selected */
    int n_row_groups, next_rg;
    int cur_rg;
    bool rg_open;
    int64_t rg_row;  /* the next row of the current row group */
    int64_t *ranges; /* its rows to read: [ranges[2i], ranges[2i+1]), rising */
    int n_ranges, range_i, ranges_cap;
    const cs_scan_late_filter *late; /* NULL: every column read for every batch */
    int64_t late_behind;       /* rows the other leaves are behind rg_row (passed over lazily) */
    cs_col_type *early_schema; /* the late filter's columns */
    cs_pq_scan_stats stats;
};

/* ---- the read plan ---- */

static int add_leaf(cs_pq_scan *s, const cs_pq_node *node, const cs_col_type *type, bool top)
{
    for (int k = 0; k < s->n_leaves; k++)
        if (s->leaves[k].col_index == node->leaf) return k;
    if (s->n_leaves == s->leaves_cap) {
        s->leaves_cap = s->leaves_cap ? 2 * s->leaves_cap : 8;
        s->leaves = cs_xrealloc(s->leaves, (size_t)s->leaves_cap * sizeof *s->leaves);
    }
    cs_pq_leaf *l = &s->leaves[s->n_leaves];
    memset(l, 0, sizeof *l);
    l->col_index = node->leaf;
    l->col = &s->file->columns[node->leaf];
    l->node = node;
    l->type = type;
    l->keep_dict = top && node->conv == CS_PQ_CONV_BYTES;
    return s->n_leaves++;
}

static const cs_pq_node *first_leaf_node(const cs_pq_node *n)
{
    while (n->kind != CS_PQ_NODE_LEAF)
        n = &n->children[0];
    return n;
}

static int mismatch(cs_pq_scan *s, const cs_pq_node *node, const cs_col_type *type, cs_error *err)
{
    cs_sbuf want = CS_SBUF_INIT, have = CS_SBUF_INIT;
    cs_col_type_simple_string(type, &want);
    cs_col_type_simple_string(node->type, &have);
    cs_error_set(err, CS_EINVAL, "%s: column %s: the file stores %s, the read schema asks for %s",
                 s->file->name, node->name, cs_sbuf_str(&have), cs_sbuf_str(&want));
    cs_sbuf_free(&want);
    cs_sbuf_free(&have);
    return CS_EINVAL;
}

/* Ties the requested type to the file's node (NULL: the file lacks it). */
static int plan_build(cs_pq_scan *s, pq_plan *p, const cs_pq_node *node, const cs_col_type *type,
                      bool top, cs_error *err)
{
    p->node = node;
    p->type = type;
    p->level_leaf = -1;
    if (!node) return CS_OK;
    int rc = CS_OK;
    if (type->id == CS_TYPE_STRUCT && node->kind == CS_PQ_NODE_STRUCT) {
        p->n_children = type->n_fields;
        p->children =
            cs_xcalloc((size_t)(type->n_fields ? type->n_fields : 1), sizeof *p->children);
        for (int k = 0; k < type->n_fields && !rc; k++) {
            p->children[k].parent = p;
            rc = plan_build(s, &p->children[k], cs_pq_node_field(node, type->fields[k].name),
                            type->fields[k].type, false, err);
            if (p->level_leaf < 0) p->level_leaf = p->children[k].level_leaf;
        }
        if (!rc && p->level_leaf < 0) /* none of its fields is in the file: read one for levels */
            p->level_leaf = add_leaf(s, first_leaf_node(node), first_leaf_node(node)->type, false);
        return rc;
    }
    bool list = type->id == CS_TYPE_ARRAY && node->kind == CS_PQ_NODE_LIST;
    bool map = type->id == CS_TYPE_MAP && node->kind == CS_PQ_NODE_MAP;
    if (list || map) {
        p->n_children = list ? 1 : 2;
        p->children = cs_xcalloc((size_t)p->n_children, sizeof *p->children);
        for (int k = 0; k < p->n_children && !rc; k++) {
            p->children[k].parent = p;
            rc = plan_build(s, &p->children[k], &node->children[k], type->fields[k].type, false,
                            err);
        }
        if (!rc) p->level_leaf = p->children[0].level_leaf;
        return rc;
    }
    /* string and binary share their layout: Spark's schema may read one as the other */
    bool bytes = node->kind == CS_PQ_NODE_LEAF && node->conv == CS_PQ_CONV_BYTES &&
                 (type->id == CS_TYPE_STRING || type->id == CS_TYPE_BINARY);
    if (node->kind != CS_PQ_NODE_LEAF || (!bytes && !cs_col_type_equal(type, node->type)))
        return mismatch(s, node, type, err);
    p->level_leaf = add_leaf(s, node, type, top);
    return CS_OK;
}

static void plan_free(pq_plan *p)
{
    for (int k = 0; k < p->n_children; k++)
        plan_free(&p->children[k]);
    free(p->children);
}

/* ---- assembling columns ---- */

#define SLOT(slots, k) ((slots) ? (slots)[k] : (uint32_t)(k))

/* The entries of l that begin rows; NULL when every entry does (l is not repeated). */
static uint32_t *top_slots(const cs_pq_leaf *l, int64_t *n)
{
    if (l->col->max_rep == 0) {
        *n = (int64_t)l->n;
        return NULL;
    }
    uint32_t *out = cs_xmalloc((l->n + 1) * sizeof *out);
    int64_t m = 0;
    for (size_t e = 0; e < l->n; e++)
        if (l->rep[e] == 0) out[m++] = (uint32_t)e;
    *n = m;
    return out;
}

/* Through a list or map node: the slots of its entries, from the slots of the node itself.
 * offsets (n + 1), when given, receive where each slot's entries begin. */
static uint32_t *expand(const cs_pq_leaf *l, const cs_pq_node *node, const uint32_t *slots,
                        int64_t n, int32_t *offsets, int64_t *child_n)
{
    uint32_t *out = cs_xmalloc((l->n + 1) * sizeof *out);
    int64_t m = 0;
    int16_t D = node->entry_def, R = node->entry_rep;
    for (int64_t k = 0; k < n; k++) {
        uint32_t s0 = SLOT(slots, k);
        if (offsets) offsets[k] = (int32_t)m;
        if (l->def[s0] < D) continue; /* null or empty */
        out[m++] = s0;
        for (size_t e = (size_t)s0 + 1; e < l->n && l->rep[e] >= R; e++)
            if (l->rep[e] == R) out[m++] = (uint32_t)e;
    }
    if (offsets) offsets[n] = (int32_t)m;
    *child_n = m;
    return out;
}

/* The slots of plan p in its own level leaf's stream, walking down from the rows. */
static uint32_t *slots_for(cs_pq_scan *s, const pq_plan *p, int64_t *n)
{
    const cs_pq_leaf *l = &s->leaves[p->level_leaf];
    const pq_plan *path[CS_PARQUET_MAX_SCHEMA_DEPTH + 2];
    int depth = 0;
    for (const pq_plan *a = p->parent; a && a->parent; a = a->parent)
        path[depth++] = a;
    uint32_t *slots = top_slots(l, n);
    for (int d = depth - 1; d >= 0; d--) {
        const cs_pq_node *node = path[d]->node;
        if (node->kind != CS_PQ_NODE_LIST && node->kind != CS_PQ_NODE_MAP) continue;
        int64_t m;
        uint32_t *next = expand(l, node, slots, *n, NULL, &m);
        free(slots);
        slots = next;
        *n = m;
    }
    return slots;
}

static cs_column *new_column(cs_pq_scan *s, const cs_col_type *type, int64_t n)
{
    return cs_column_new_raw(s->req->alloc, cs_col_type_ref((cs_col_type *)type), n);
}

static void *column_buffer(cs_column *c, uint8_t **which, size_t *size, size_t bytes)
{
    *size = bytes;
    *which = cs_col_buffer_alloc(c->alloc, bytes);
    return *which;
}

/* column_buffer for a buffer the caller writes every byte of (not zeroed first). */
static void *filled_buffer(cs_column *c, uint8_t **which, size_t *size, size_t bytes)
{
    *size = bytes;
    *which = cs_col_buffer_alloc_unset(c->alloc, bytes);
    return *which;
}

/* Null where the slot's definition level is below def. */
static void set_validity(cs_column *c, const cs_pq_leaf *l, const uint32_t *slots, int64_t n,
                         int16_t def)
{
    if (def == 0 || l->col->max_def == 0) return;
    int64_t nulls = 0;
    for (int64_t k = 0; k < n; k++)
        nulls += l->def[SLOT(slots, k)] < def;
    c->null_count = nulls;
    if (!nulls) return;
    uint8_t *bits = column_buffer(c, &c->validity, &c->validity_size, (size_t)(n + 7) / 8);
    for (int64_t k = 0; k < n; k++)
        if (l->def[SLOT(slots, k)] >= def) bits[k >> 3] |= (uint8_t)(1u << (k & 7));
}

static cs_column *null_column(cs_pq_scan *s, const cs_col_type *type, int64_t n)
{
    cs_col_builder *b = cs_col_builder_new(s->req->alloc, (cs_col_type *)type);
    cs_col_builder_append_nulls(b, n);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static int64_t read_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return (int64_t)v;
}

/* Converts staged values [0, count) into out, in the Spark type's width. */
static void convert_dense(const cs_pq_leaf *l, size_t count, uint8_t *out)
{
    if (count == 0) return; /* no buffers at all */
    const uint8_t *src = l->fixed;
    switch (l->node->conv) {
    case CS_PQ_CONV_I32_TO_I8:
        for (size_t i = 0; i < count; i++)
            out[i] = (uint8_t)((const int32_t *)(const void *)src)[i];
        break;
    case CS_PQ_CONV_I32_TO_I16:
    case CS_PQ_CONV_U32_TO_I16:
        for (size_t i = 0; i < count; i++)
            ((int16_t *)(void *)out)[i] = (int16_t)((const int32_t *)(const void *)src)[i];
        break;
    case CS_PQ_CONV_U32_TO_I32:
        memcpy(out, src, count * 4);
        break;
    case CS_PQ_CONV_U32_TO_I64:
        for (size_t i = 0; i < count; i++)
            ((int64_t *)(void *)out)[i] = ((const uint32_t *)(const void *)src)[i];
        break;
    case CS_PQ_CONV_I32_TO_DEC:
        for (size_t i = 0; i < count; i++) {
            __int128 v = ((const int32_t *)(const void *)src)[i];
            memcpy(out + 16 * i, &v, 16);
        }
        break;
    case CS_PQ_CONV_I64_TO_DEC:
        for (size_t i = 0; i < count; i++) {
            __int128 v = read_le64(src + 8 * i);
            memcpy(out + 16 * i, &v, 16);
        }
        break;
    case CS_PQ_CONV_U64_TO_DEC:
        for (size_t i = 0; i < count; i++) {
            __int128 v = (__int128)(uint64_t)read_le64(src + 8 * i);
            memcpy(out + 16 * i, &v, 16);
        }
        break;
    case CS_PQ_CONV_BE_TO_DEC:
        for (size_t i = 0; i < count; i++) {
            __int128 v;
            if (l->col->type == CS_PQ_BYTE_ARRAY)
                v = cs_pq_decimal_from_be(l->data + l->offs[i],
                                          (size_t)(l->offs[i + 1] - l->offs[i]));
            else
                v = cs_pq_decimal_from_be(src + i * (size_t)l->col->type_length,
                                          (size_t)l->col->type_length);
            memcpy(out + 16 * i, &v, 16);
        }
        break;
    case CS_PQ_CONV_MILLIS:
        for (size_t i = 0; i < count; i++)
            ((int64_t *)(void *)out)[i] = read_le64(src + 8 * i) * 1000;
        break;
    case CS_PQ_CONV_NANOS:
        for (size_t i = 0; i < count; i++) {
            int64_t v = read_le64(src + 8 * i), q = v / 1000;
            ((int64_t *)(void *)out)[i] = q - (v % 1000 < 0);
        }
        break;
    case CS_PQ_CONV_INT96:
        for (size_t i = 0; i < count; i++) {
            const uint8_t *p = src + 12 * i;
            int64_t nanos = read_le64(p);
            int32_t julian;
            memcpy(&julian, p + 8, 4);
            ((int64_t *)(void *)out)[i] =
                ((int64_t)julian - 2440588) * INT64_C(86400000000) + nanos / 1000;
        }
        break;
    default: /* COPY */
        memcpy(out, src, count * (size_t)cs_col_type_width(l->node->type->id));
        break;
    }
}

static cs_column *dict_column(cs_pq_scan *s, cs_pq_leaf *l)
{
    if (l->dict_col) return l->dict_col;
    const cs_parquet_values *d = &l->pr.dict;
    cs_column *c = new_column(s, l->type, d->count);
    int32_t *off = filled_buffer(c, &c->values, &c->values_size, ((size_t)d->count + 1) * 4);
    memcpy(off, d->offsets, ((size_t)d->count + 1) * 4);
    if (d->offsets[d->count] > 0)
        memcpy(filled_buffer(c, &c->data, &c->data_size, (size_t)d->offsets[d->count]), d->data,
               (size_t)d->offsets[d->count]);
    l->dict_col = c;
    return c;
}

static cs_column *leaf_column(cs_pq_scan *s, cs_pq_leaf *l, const cs_col_type *type,
                              const uint32_t *slots, int64_t n)
{
    cs_column *c = new_column(s, type, n);
    int16_t max_def = l->col->max_def;
    set_validity(c, l, slots, n, max_def);
    bool dense = c->null_count == 0; /* slot k holds value k */
#define PRESENT(k) (max_def == 0 || l->def[SLOT(slots, k)] == max_def)
    cs_pq_conv conv = l->node->conv;
    if (conv == CS_PQ_CONV_BYTES || conv == CS_PQ_CONV_FIXED_BYTES) {
        if (l->dict_mode) {
            int32_t *ix = dense ? filled_buffer(c, &c->values, &c->values_size, (size_t)n * 4)
                                : column_buffer(c, &c->values, &c->values_size, (size_t)n * 4);
            if (dense && n > 0)
                memcpy(ix, l->idx, (size_t)n * 4);
            else
                for (int64_t k = 0, vi = 0; k < n; k++)
                    if (PRESENT(k)) ix[k] = (int32_t)l->idx[vi++];
            c->dictionary = cs_column_ref(dict_column(s, l));
            return c;
        }
        int32_t *off = filled_buffer(c, &c->values, &c->values_size, (size_t)(n + 1) * 4);
        int32_t w = l->col->type_length;
        size_t vi = 0;
        for (int64_t k = 0; k < n; k++) {
            off[k] = conv == CS_PQ_CONV_BYTES ? l->offs[vi] : (int32_t)vi * w;
            if (dense || PRESENT(k)) vi++;
        }
        off[n] = conv == CS_PQ_CONV_BYTES ? l->offs[vi] : (int32_t)vi * w;
        const uint8_t *src = conv == CS_PQ_CONV_BYTES ? l->data : l->fixed;
        if (off[n] > 0)
            memcpy(filled_buffer(c, &c->data, &c->data_size, (size_t)off[n]), src, (size_t)off[n]);
        return c;
    }
    if (conv == CS_PQ_CONV_BOOL) {
        uint8_t *bits = column_buffer(c, &c->values, &c->values_size, (size_t)(n + 7) / 8);
        for (int64_t k = 0, vi = 0; k < n; k++)
            if (dense || PRESENT(k)) {
                if (l->fixed[vi]) bits[k >> 3] |= (uint8_t)(1u << (k & 7));
                vi++;
            }
        return c;
    }
    size_t tw = (size_t)cs_col_type_width(type->id);
    /* dense: every value converted; otherwise null rows keep zero values */
    uint8_t *dst = dense ? filled_buffer(c, &c->values, &c->values_size, (size_t)n * tw)
                         : column_buffer(c, &c->values, &c->values_size, (size_t)n * tw);
    if (dense) {
        convert_dense(l, (size_t)n, dst);
        return c;
    }
    size_t present = (size_t)(n - c->null_count);
    const uint8_t *from = l->fixed;
    if (conv != CS_PQ_CONV_COPY) {
        cs_pq_grow((void **)&l->dense, &l->dense_cap, present * tw + 16, 1);
        convert_dense(l, present, l->dense);
        from = l->dense;
    }
    size_t vi = 0;
    if (tw == 4) {
        for (int64_t k = 0; k < n; k++)
            if (PRESENT(k)) memcpy(dst + 4 * k, from + 4 * vi++, 4);
    } else if (tw == 8) {
        for (int64_t k = 0; k < n; k++)
            if (PRESENT(k)) memcpy(dst + 8 * k, from + 8 * vi++, 8);
    } else {
        for (int64_t k = 0; k < n; k++)
            if (PRESENT(k)) memcpy(dst + tw * (size_t)k, from + tw * vi++, tw);
    }
#undef PRESENT
    return c;
}

static cs_column *assemble(cs_pq_scan *s, const pq_plan *p, const uint32_t *slots, int64_t n,
                           cs_error *err);

/* Child k of p: its slots are the parent's entries when it shares p's level leaf. */
static cs_column *assemble_child(cs_pq_scan *s, const pq_plan *p, int k, const uint32_t *slots,
                                 int64_t n, cs_error *err)
{
    const pq_plan *ch = &p->children[k];
    if (!ch->node) return null_column(s, ch->type, n);
    if (ch->level_leaf == p->level_leaf) return assemble(s, ch, slots, n, err);
    int64_t m;
    uint32_t *own = slots_for(s, ch, &m);
    cs_column *c = NULL;
    if (m != n)
        cs_error_set(err, CS_EPROTO, "%s: column %s has %lld values where column %s has %lld",
                     s->file->name, s->leaves[ch->level_leaf].col->path, (long long)m,
                     s->leaves[p->level_leaf].col->path, (long long)n);
    else
        c = assemble(s, ch, own, m, err);
    free(own);
    return c;
}

static cs_column *assemble(cs_pq_scan *s, const pq_plan *p, const uint32_t *slots, int64_t n,
                           cs_error *err)
{
    cs_pq_leaf *l = &s->leaves[p->level_leaf];
    const cs_pq_node *node = p->node;
    if (node->kind == CS_PQ_NODE_LEAF) return leaf_column(s, l, p->type, slots, n);
    cs_column *c = new_column(s, p->type, n);
    set_validity(c, l, slots, n, node->def);
    c->n_children = p->n_children;
    c->children = cs_xcalloc((size_t)p->n_children, sizeof *c->children);
    uint32_t *child_slots = NULL;
    int64_t child_n = n;
    const uint32_t *use = slots;
    if (node->kind != CS_PQ_NODE_STRUCT) {
        int32_t *off = column_buffer(c, &c->values, &c->values_size, (size_t)(n + 1) * 4);
        child_slots = expand(l, node, slots, n, off, &child_n);
        use = child_slots;
    }
    for (int k = 0; k < p->n_children; k++) {
        c->children[k] = assemble_child(s, p, k, use, child_n, err);
        if (!c->children[k]) {
            free(child_slots);
            cs_column_unref(c);
            return NULL;
        }
    }
    free(child_slots);
    return c;
}

/* ---- the scan ---- */

void cs_pq_scan_free(cs_pq_scan *s)
{
    if (!s) return;
    for (int k = 0; k < s->n_leaves; k++)
        cs_pq_leaf_free(&s->leaves[k]);
    free(s->leaves);
    plan_free(&s->root);
    free(s->row_groups);
    free(s->ranges);
    if (s->early_schema) cs_col_type_unref(s->early_schema);
    if (s->file) cs_pq_schema_free(&s->schema);
    cs_parquet_file_free(s->file);
    free(s);
}

const cs_pq_scan_stats *cs_pq_scan_stats_of(const cs_pq_scan *s)
{
    return &s->stats;
}

/* Sets up the request's late filter when its columns are top-level leaves of the file and
 * some other column is read (else there is nothing to pass over). */
static void plan_late_filter(cs_pq_scan *s)
{
    const cs_scan_late_filter *lf = s->req->late;
    if (!lf || lf->n_columns <= 0 || !lf->test || lf->n_columns >= s->root.n_children) return;
    cs_col_field *fields = cs_xcalloc((size_t)lf->n_columns, sizeof *fields);
    for (int i = 0; i < lf->n_columns; i++) {
        int c = lf->columns[i];
        if (c < 0 || c >= s->root.n_children || (i > 0 && c <= lf->columns[i - 1])) goto out;
        const pq_plan *p = &s->root.children[c];
        if (!p->node || p->node->kind != CS_PQ_NODE_LEAF) goto out;
        fields[i] = s->req->read_schema->fields[c];
    }
    for (int i = 0; i < lf->n_columns; i++) {
        s->leaves[s->root.children[lf->columns[i]].level_leaf].early = true;
        cs_col_type_ref(fields[i].type);
    }
    s->early_schema = cs_col_type_struct(fields, lf->n_columns);
    s->late = lf;
out:
    free(fields);
}

/* Whether the late filter's bound rules row group g out by its statistics. */
static bool bound_rules_out(cs_pq_scan *s, uint32_t g)
{
    cs_scan_filter f;
    bool nulls_pass = false;
    if (!s->late || !s->late->bound || !s->late->bound(s->late->arg, &f, &nulls_pass)) return false;
    const cs_pq_node *node = cs_pq_node_field(&s->schema.root, f.column);
    if (!node || node->kind != CS_PQ_NODE_LEAF || node->leaf < 0) return false;
    if (nulls_pass) {
        const cs_parquet_column_meta *cm = &s->file->meta.row_groups[g].columns[node->leaf].meta;
        if (!cm->has_statistics || !cm->statistics.has_null_count || cm->statistics.null_count != 0)
            return false;
    }
    return !cs_pq_row_group_may_match(&s->schema, g, &f, 1);
}

/* The row groups whose midpoint lies in the split (Spark's rule), less those the filters rule
 * out from their statistics. */
static void select_row_groups(cs_pq_scan *s, const cs_file_split *split)
{
    const cs_parquet_meta *m = &s->file->meta;
    s->row_groups = cs_xmalloc((m->num_row_groups + 1) * sizeof *s->row_groups);
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        uint64_t start, len, total = 0;
        cs_parquet_chunk_range(s->file, g, 0, &start, &len);
        for (uint32_t c = 0; c < m->row_groups[g].num_columns; c++)
            total += (uint64_t)m->row_groups[g].columns[c].meta.total_compressed_size;
        uint64_t mid = start + total / 2;
        if (mid < split->start || mid - split->start >= split->length) continue;
        s->stats.row_groups_in_split++;
        if (!cs_pq_row_group_may_match(&s->schema, g, s->req->filters, s->req->n_filters)) {
            s->stats.row_groups_pruned++;
            continue;
        }
        s->row_groups[s->n_row_groups++] = g;
    }
}

int cs_pq_scan_open(const cs_file_split *split, const cs_scan_request *req, cs_pq_scan **out,
                    cs_error *err)
{
    *out = NULL;
    cs_pq_scan *s = cs_xcalloc(1, sizeof *s);
    s->req = req;
    s->batch_rows = req->batch_rows > 0 ? req->batch_rows : DEFAULT_BATCH_ROWS;
    int rc = cs_parquet_file_open(split->uri, &s->file, err);
    if (!rc) rc = cs_pq_schema_build(s->file, &s->schema, err);
    if (rc) {
        cs_pq_scan_free(s);
        return rc;
    }
    const cs_col_type *rs = req->read_schema;
    s->root.type = rs;
    s->root.node = &s->schema.root;
    s->root.level_leaf = -2; /* never a child's: each top-level column finds its own rows */
    s->root.n_children = rs->n_fields;
    s->root.children =
        cs_xcalloc((size_t)(rs->n_fields ? rs->n_fields : 1), sizeof *s->root.children);
    for (int k = 0; k < rs->n_fields && !rc; k++) {
        s->root.children[k].parent = &s->root;
        rc = plan_build(s, &s->root.children[k],
                        cs_pq_node_field(&s->schema.root, rs->fields[k].name), rs->fields[k].type,
                        true, err);
    }
    if (rc) {
        cs_pq_scan_free(s);
        return rc;
    }
    select_row_groups(s, split);
    plan_late_filter(s);
    *out = s;
    return CS_OK;
}

static void add_range(cs_pq_scan *s, int64_t a, int64_t b)
{
    if (a >= b) return;
    if (s->n_ranges > 0 && s->ranges[2 * s->n_ranges - 1] == a) {
        s->ranges[2 * s->n_ranges - 1] = b;
        return;
    }
    if (s->n_ranges == s->ranges_cap) {
        s->ranges_cap = s->ranges_cap ? 2 * s->ranges_cap : 8;
        s->ranges = cs_xrealloc(s->ranges, (size_t)s->ranges_cap * 2 * sizeof *s->ranges);
    }
    s->ranges[2 * s->n_ranges] = a;
    s->ranges[2 * s->n_ranges + 1] = b;
    s->n_ranges++;
}

/* s->ranges &= the pages of one filter column that may hold a passing row. */
static void intersect_pages(cs_pq_scan *s, const cs_pq_node *node, const cs_pq_page_index *pi,
                            const cs_scan_filter *f)
{
    int64_t *old = s->ranges;
    int n_old = s->n_ranges;
    s->ranges = NULL;
    s->n_ranges = s->ranges_cap = 0;
    int j = 0;
    for (uint32_t p = 0; p < pi->num_pages; p++) {
        int64_t a = pi->first_row[p], b = pi->first_row[p + 1];
        cs_parquet_statistics st = {0};
        st.has_min_value = st.has_max_value = !pi->null_pages[p];
        st.min_value = pi->min[p];
        st.max_value = pi->max[p];
        st.has_null_count = pi->null_counts || pi->null_pages[p];
        st.null_count = pi->null_pages[p] ? b - a : pi->null_counts ? pi->null_counts[p] : 0;
        int physical = s->file->columns[node->leaf].type;
        if (!cs_pq_stats_may_match(node, physical, &st, b - a, f)) continue;
        while (j < n_old && old[2 * j + 1] <= a)
            j++;
        for (int m = j; m < n_old && old[2 * m] < b; m++)
            add_range(s, old[2 * m] > a ? old[2 * m] : a, old[2 * m + 1] < b ? old[2 * m + 1] : b);
    }
    free(old);
}

/* The rows of row group g to read, from the filters and the page index; the leaves' offset
 * indexes for skipping. A page index that cannot be read only means no page is skipped. */
static void plan_row_group(cs_pq_scan *s, uint32_t g)
{
    s->n_ranges = s->range_i = 0;
    add_range(s, 0, s->file->meta.row_groups[g].num_rows);
    if (s->req->n_filters == 0) return;
    cs_error ignored = {0};
    for (int k = 0; k < s->req->n_filters; k++) {
        const cs_scan_filter *f = &s->req->filters[k];
        const cs_pq_node *node = cs_pq_node_field(&s->schema.root, f->column);
        if (!node || node->kind != CS_PQ_NODE_LEAF || s->file->columns[node->leaf].max_rep > 0)
            continue;
        cs_pq_page_index pi;
        if (cs_pq_page_index_read(s->file, g, (uint32_t)node->leaf, true, &pi, &ignored)) continue;
        if (pi.has_column_index) intersect_pages(s, node, &pi, f);
        cs_pq_page_index_free(&pi);
    }
}

static int open_row_group(cs_pq_scan *s, uint32_t g, cs_error *err)
{
    s->cur_rg = (int)g;
    s->rg_row = 0;
    for (int k = 0; k < s->n_leaves; k++) {
        cs_pq_leaf *l = &s->leaves[k];
        if (cs_pq_leaf_open_chunk(l, s->file, g, err)) return -1;
        cs_error ignored = {0};
        if (s->n_ranges != 1 || s->ranges[0] != 0)
            cs_pq_page_index_read(s->file, g, (uint32_t)l->col_index, false, &l->pi, &ignored);
    }
    s->rg_open = true;
    return CS_OK;
}

/* Gathers the next n rows of the leaves whose `early` flag is `early`. */
static int gather_leaves(cs_pq_scan *s, bool early, int64_t n, cs_error *err)
{
    for (int k = 0; k < s->n_leaves; k++)
        if (s->leaves[k].early == early && cs_pq_leaf_gather(&s->leaves[k], n, err)) return -1;
    return CS_OK;
}

/* Assembles the top-level columns k with cols[k] still NULL (the early ones are already). */
static int assemble_rest(cs_pq_scan *s, cs_column **cols, int64_t n, cs_error *err)
{
    for (int k = 0; k < s->root.n_children; k++)
        if (!cols[k] && !(cols[k] = assemble_child(s, &s->root, k, NULL, n, err))) return -1;
    return CS_OK;
}

/* The late filter over the early columns of the next n rows (assembled into cols): *any false
 * when none of them is wanted. */
static int test_early(cs_pq_scan *s, cs_column **cols, int64_t n, bool *any, cs_error *err)
{
    const cs_scan_late_filter *lf = s->late;
    if (gather_leaves(s, true, n, err)) return -1;
    cs_column **early = cs_xcalloc((size_t)lf->n_columns, sizeof *early);
    for (int i = 0; i < lf->n_columns; i++) {
        int k = lf->columns[i];
        if (!(cols[k] = assemble_child(s, &s->root, k, NULL, n, err))) {
            for (int j = 0; j < i; j++)
                cs_column_unref(early[j]);
            free(early);
            return -1;
        }
        early[i] = cs_column_ref(cols[k]);
    }
    cs_col_batch *b =
        cs_col_batch_new(cs_col_type_ref(s->early_schema), early, lf->n_columns, n, err);
    free(early);
    if (!b) return -1;
    int rc = lf->test(lf->arg, b, any, err);
    cs_col_batch_unref(b);
    return rc < 0 ? -1 : CS_OK;
}

/* Brings the leaves read after the late filter up to rg_row: the rows of the batches it let go
 * are passed over in one go, so that whole pages inside them are skipped undecoded. */
static int catch_up(cs_pq_scan *s, cs_error *err)
{
    int64_t k = s->late_behind;
    s->late_behind = 0;
    for (int i = 0; i < s->n_leaves && k > 0; i++)
        if (!s->leaves[i].early &&
            cs_pq_leaf_skip(&s->leaves[i], s->rg_row - k, k, &s->stats.pages_skipped, err))
            return -1;
    return CS_OK;
}

int cs_pq_scan_next(cs_pq_scan *s, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    int nf = s->root.n_children;
    cs_column **cols = cs_xcalloc((size_t)(nf ? nf : 1), sizeof *cols);
    int rc = 0;
    for (;;) {
        while (!s->rg_open || s->range_i == s->n_ranges) {
            if (s->rg_open)
                for (int k = 0; k < s->n_leaves; k++)
                    cs_pq_leaf_close_chunk(&s->leaves[k]);
            s->rg_open = false;
            s->late_behind = 0;
            if (s->next_rg >= s->n_row_groups) goto done; /* the end: rc 0 */
            uint32_t g = s->row_groups[s->next_rg++];
            if (bound_rules_out(s, g)) {
                s->stats.row_groups_pruned++;
                s->stats.row_groups_bound_pruned++;
                if (s->late->counts) s->late->counts->row_groups++;
                continue;
            }
            plan_row_group(s, g);
            if (s->n_ranges == 0) { /* every page of a filter column ruled out */
                s->stats.row_groups_pruned++;
                continue;
            }
            if (open_row_group(s, g, err)) goto fail;
        }
        int64_t start = s->ranges[2 * s->range_i], end = s->ranges[2 * s->range_i + 1];
        if (s->rg_row < start) {
            if (catch_up(s, err)) goto fail;
            for (int k = 0; k < s->n_leaves; k++)
                if (cs_pq_leaf_skip(&s->leaves[k], s->rg_row, start - s->rg_row,
                                    &s->stats.pages_skipped, err))
                    goto fail;
            s->rg_row = start;
        }
        int64_t n = end - s->rg_row < s->batch_rows ? end - s->rg_row : s->batch_rows;
        bool any = true;
        if (s->late && test_early(s, cols, n, &any, err)) goto fail;
        if (!any) { /* no row wanted: the other columns' rows passed over undecoded */
            s->late_behind += n;
            for (int k = 0; k < nf; k++) {
                cs_column_unref(cols[k]);
                cols[k] = NULL;
            }
            s->stats.rows_passed_over += n;
            if (s->late->counts) s->late->counts->rows += n;
        } else {
            /* without a late filter every leaf is a late one */
            if (catch_up(s, err) || gather_leaves(s, false, n, err) ||
                assemble_rest(s, cols, n, err))
                goto fail;
            *out = cs_col_batch_new(cs_col_type_ref((cs_col_type *)s->root.type), cols, nf, n, err);
            memset(cols, 0, sizeof *cols * (size_t)nf); /* taken over, also on failure */
            if (!*out) goto fail;
            s->stats.rows_read += n;
        }
        s->rg_row += n;
        if (s->rg_row == end) s->range_i++;
        if (*out) {
            rc = 1;
            goto done;
        }
    }
fail:
    rc = -1;
done:
    for (int k = 0; k < nf; k++)
        cs_column_unref(cols[k]);
    free(cols);
    return rc;
}
