/*
 * column.c — columns and batches in Arrow's layout (see column.h): reference counting,
 * dictionary decoding, the invariant check every reader runs on what it did not build, and
 * logical equality. Called by the builders, the format readers and writers, and operators.
 */
#include "columnar/column.h"

#include <stdlib.h>
#include <string.h>

cs_column *cs_column_new_raw(cs_col_allocator *alloc, cs_col_type *type, int64_t length)
{
    cs_column *c = cs_xcalloc(1, sizeof *c);
    atomic_store(&c->refs, 1);
    c->type = type;
    c->alloc = alloc ? alloc : cs_col_default_allocator();
    c->length = length;
    return c;
}

cs_column *cs_column_ref(cs_column *c)
{
    if (c) atomic_fetch_add(&c->refs, 1);
    return c;
}

void cs_column_unref(cs_column *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1) return;
    cs_col_buffer_free(c->alloc, c->validity, c->validity_size);
    cs_col_buffer_free(c->alloc, c->values, c->values_size);
    cs_col_buffer_free(c->alloc, c->data, c->data_size);
    for (int i = 0; i < c->n_children; i++)
        cs_column_unref(c->children[i]);
    free(c->children);
    cs_column_unref(c->dictionary);
    cs_col_type_unref(c->type);
    free(c);
}

cs_column *cs_column_decode(const cs_column *c, cs_col_allocator *alloc)
{
    if (!c->dictionary) return cs_column_ref((cs_column *)c);
    int64_t total = 0;
    for (int64_t i = 0; i < c->length; i++) {
        int32_t len = 0;
        if (cs_column_is_valid(c, i)) cs_column_bytes(c, i, &len);
        total += len;
    }
    cs_column *out = cs_column_new_raw(alloc, cs_col_type_ref(c->type), c->length);
    out->null_count = c->null_count;
    if (c->validity) {
        out->validity_size = (size_t)(c->length + 7) / 8;
        out->validity = cs_col_buffer_copy(out->alloc, c->validity, out->validity_size);
    }
    /* every offset and every byte written below */
    out->values_size = (size_t)(c->length + 1) * 4;
    out->values = cs_col_buffer_alloc_unset(out->alloc, out->values_size);
    out->data_size = (size_t)total;
    out->data = cs_col_buffer_alloc_unset(out->alloc, out->data_size);
    int32_t *off = (int32_t *)(void *)out->values;
    int32_t pos = 0;
    for (int64_t i = 0; i < c->length; i++) {
        off[i] = pos;
        if (!cs_column_is_valid(c, i)) continue;
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        if (len) memcpy(out->data + pos, p, (size_t)len);
        pos += len;
    }
    off[c->length] = pos;
    return (cs_column *)out;
}

static int64_t count_valid(const uint8_t *bits, int64_t n)
{
    int64_t v = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w;
        memcpy(&w, bits + i / 8, 8);
        v += __builtin_popcountll(w);
    }
    for (; i < n; i++)
        v += cs_bit_get(bits, i);
    return v;
}

static int invalid(cs_error *err, const cs_column *c, const char *what)
{
    cs_sbuf t = CS_SBUF_INIT;
    cs_col_type_simple_string(c->type, &t);
    cs_error_set(err, CS_EINVAL, "%s column of %lld rows: %s", cs_sbuf_str(&t),
                 (long long)c->length, what);
    cs_sbuf_free(&t);
    return CS_EINVAL;
}

static int validate_offsets(const cs_column *c, int64_t limit, cs_error *err)
{
    if (c->length == 0 && !c->values) return CS_OK;
    if (c->values_size / 4 < (size_t)c->length + 1) return invalid(err, c, "offsets too short");
    const int32_t *off = cs_column_offsets(c);
    if (off[0] < 0) return invalid(err, c, "negative first offset");
    for (int64_t i = 0; i < c->length; i++)
        if (off[i + 1] < off[i]) return invalid(err, c, "offsets decrease");
    if (off[c->length] > limit) return invalid(err, c, "offsets past the end of the data");
    return CS_OK;
}

int cs_column_validate(const cs_column *c, cs_error *err)
{
    const cs_col_type *t = c->type;
    if (c->length < 0 || c->null_count < 0 || c->null_count > c->length)
        return invalid(err, c, "bad length or null count");
    if (t->id == CS_TYPE_NULL) {
        if (c->null_count != c->length) return invalid(err, c, "a null column with values");
        return CS_OK;
    }
    if (c->validity) {
        if (c->validity_size < (size_t)(c->length + 7) / 8)
            return invalid(err, c, "validity bitmap too short");
        if (c->length - count_valid(c->validity, c->length) != c->null_count)
            return invalid(err, c, "null count does not match the validity bitmap");
    } else if (c->null_count) {
        return invalid(err, c, "nulls without a validity bitmap");
    }
    int width = cs_col_type_width(t->id);
    int want_children = t->id == CS_TYPE_STRUCT  ? t->n_fields
                        : t->id == CS_TYPE_ARRAY ? 1
                        : t->id == CS_TYPE_MAP   ? 2
                                                 : 0;
    if (c->n_children != want_children) return invalid(err, c, "wrong number of children");
    if (c->dictionary) {
        const cs_column *d = c->dictionary;
        if ((t->id != CS_TYPE_STRING && t->id != CS_TYPE_BINARY) || d->dictionary ||
            !cs_col_type_equal(d->type, t))
            return invalid(err, c, "a dictionary of another type");
        int rc = cs_column_validate(d, err);
        if (rc) return rc;
        /* a null in the dictionary would make rows null that the validity bitmap calls valid */
        if (d->null_count) return invalid(err, c, "a dictionary with null values");
        if (c->values_size / 4 < (size_t)c->length) return invalid(err, c, "indices too short");
        const int32_t *idx = (const int32_t *)(const void *)c->values;
        for (int64_t i = 0; i < c->length; i++)
            if (cs_column_is_valid(c, i) && (idx[i] < 0 || idx[i] >= d->length))
                return invalid(err, c, "dictionary index out of range");
        return CS_OK;
    }
    if (t->id == CS_TYPE_BOOLEAN) {
        if (c->values_size < (size_t)(c->length + 7) / 8 && c->length)
            return invalid(err, c, "values too short");
    } else if (width) {
        if (c->values_size / (size_t)width < (size_t)c->length)
            return invalid(err, c, "values too short");
    } else if (t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY) {
        int rc = validate_offsets(c, (int64_t)c->data_size, err);
        if (rc) return rc;
    } else if (t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_MAP) {
        int64_t n = c->children[0]->length;
        if (t->id == CS_TYPE_MAP) {
            if (c->children[1]->length != n) return invalid(err, c, "keys and values differ");
            if (c->children[0]->null_count) return invalid(err, c, "a null map key");
        }
        int rc = validate_offsets(c, n, err);
        if (rc) return rc;
    }
    for (int i = 0; i < c->n_children; i++) {
        const cs_column *ch = c->children[i];
        if (!cs_col_type_equal(ch->type, t->fields[i].type))
            return invalid(err, c, "a child of another type");
        if (t->id == CS_TYPE_STRUCT && ch->length != c->length)
            return invalid(err, c, "a field of another length");
        int rc = cs_column_validate(ch, err);
        if (rc) return rc;
    }
    return CS_OK;
}

static bool value_equal(const cs_column *a, int64_t i, const cs_column *b, int64_t j)
{
    bool va = cs_column_is_valid(a, i), vb = cs_column_is_valid(b, j);
    if (va != vb) return false;
    if (!va) return true;
    const cs_col_type *t = a->type;
    int width = cs_col_type_width(t->id);
    if (t->id == CS_TYPE_NULL) return true;
    if (t->id == CS_TYPE_BOOLEAN) return cs_bit_get(a->values, i) == cs_bit_get(b->values, j);
    if (width) return memcmp(a->values + i * width, b->values + j * width, (size_t)width) == 0;
    if (t->id == CS_TYPE_STRING || t->id == CS_TYPE_BINARY) {
        int32_t la, lb;
        const uint8_t *pa = cs_column_bytes(a, i, &la), *pb = cs_column_bytes(b, j, &lb);
        return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
    }
    if (t->id == CS_TYPE_STRUCT) {
        for (int f = 0; f < a->n_children; f++)
            if (!value_equal(a->children[f], i, b->children[f], j)) return false;
        return true;
    }
    const int32_t *oa = cs_column_offsets(a), *ob = cs_column_offsets(b);
    int32_t n = oa[i + 1] - oa[i];
    if (n != ob[j + 1] - ob[j]) return false;
    for (int f = 0; f < a->n_children; f++)
        for (int32_t k = 0; k < n; k++)
            if (!value_equal(a->children[f], oa[i] + k, b->children[f], ob[j] + k)) return false;
    return true;
}

bool cs_column_equal(const cs_column *a, const cs_column *b)
{
    if (a->length != b->length || !cs_col_type_equal(a->type, b->type)) return false;
    for (int64_t i = 0; i < a->length; i++)
        if (!value_equal(a, i, b, i)) return false;
    return true;
}

int64_t cs_column_memory(const cs_column *c)
{
    int64_t n = (int64_t)(cs_col_padded(c->validity_size) + cs_col_padded(c->values_size) +
                          cs_col_padded(c->data_size));
    for (int i = 0; i < c->n_children; i++)
        n += cs_column_memory(c->children[i]);
    if (c->dictionary) n += cs_column_memory(c->dictionary);
    return n;
}

cs_col_batch *cs_col_batch_new(cs_col_type *schema, cs_column **columns, int n, int64_t num_rows,
                               cs_error *err)
{
    int rc = CS_OK;
    if (schema->id != CS_TYPE_STRUCT || schema->n_fields != n) {
        rc = cs_error_set(err, CS_EINVAL, "batch: %d columns for a schema of %d fields", n,
                          schema->id == CS_TYPE_STRUCT ? schema->n_fields : 0);
    }
    for (int i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_col_type_equal(columns[i]->type, schema->fields[i].type))
            rc = cs_error_set(err, CS_EINVAL, "batch: column %d (%s) is not of its field's type", i,
                              schema->fields[i].name);
        else if (columns[i]->length != num_rows)
            rc = cs_error_set(err, CS_EINVAL, "batch: column %d (%s) has %lld rows, not %lld", i,
                              schema->fields[i].name, (long long)columns[i]->length,
                              (long long)num_rows);
    }
    if (rc) {
        for (int i = 0; i < n; i++)
            cs_column_unref(columns[i]);
        cs_col_type_unref(schema);
        return NULL;
    }
    cs_col_batch *b = cs_xcalloc(1, sizeof *b);
    atomic_store(&b->refs, 1);
    b->schema = schema;
    b->num_rows = num_rows;
    b->n_columns = n;
    b->columns = cs_xcalloc((size_t)(n ? n : 1), sizeof *b->columns);
    if (n) memcpy(b->columns, columns, (size_t)n * sizeof *columns);
    return b;
}

cs_col_batch *cs_col_batch_ref(cs_col_batch *b)
{
    if (b) atomic_fetch_add(&b->refs, 1);
    return b;
}

void cs_col_batch_unref(cs_col_batch *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (int i = 0; i < b->n_columns; i++)
        cs_column_unref(b->columns[i]);
    free(b->columns);
    cs_col_type_unref(b->schema);
    free(b);
}

cs_col_batch *cs_col_batch_project(cs_col_batch *b, const int *idx, int n, cs_error *err)
{
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= b->n_columns) {
            cs_error_set(err, CS_EINVAL, "project: column %d of a batch of %d columns", idx[i],
                         b->n_columns);
            return NULL;
        }
    cs_col_field *fields = cs_xcalloc((size_t)(n ? n : 1), sizeof *fields);
    cs_column **cols = cs_xcalloc((size_t)(n ? n : 1), sizeof *cols);
    for (int i = 0; i < n; i++) {
        fields[i] = b->schema->fields[idx[i]];
        cs_col_type_ref(fields[i].type);
        cols[i] = cs_column_ref(b->columns[idx[i]]);
    }
    cs_col_batch *out = cs_col_batch_new(cs_col_type_struct(fields, n), cols, n, b->num_rows, err);
    free(fields);
    free(cols);
    return out;
}

bool cs_col_batch_equal(const cs_col_batch *a, const cs_col_batch *b)
{
    if (a->num_rows != b->num_rows || !cs_col_type_equal(a->schema, b->schema)) return false;
    for (int i = 0; i < a->n_columns; i++)
        if (!cs_column_equal(a->columns[i], b->columns[i])) return false;
    return true;
}

int64_t cs_col_batch_memory(const cs_col_batch *b)
{
    int64_t n = 0;
    for (int i = 0; i < b->n_columns; i++)
        n += cs_column_memory(b->columns[i]);
    return n;
}
