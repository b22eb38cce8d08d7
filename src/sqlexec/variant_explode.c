/*
 * variant_explode.c — the rows of Spark's VariantExplode for op_generate.c: a variant column as
 * the array<struct<pos: int, key: string, value: variant>> of each value's entries, which the
 * Generate operator then emits as inline does. An object gives one entry per field in the
 * object's (sorted) field order with its key, an array one per element with a null key; the
 * value is the field's or element's own bytes with the variant's metadata (as Spark's
 * VariantVal of the child). A scalar, the variant null and a SQL NULL give no entries (so
 * variant_explode_outer's single row of nulls). Malformed bytes raise MALFORMED_VARIANT.
 *
 * Ownership: the input is borrowed; the result is one new reference from alloc.
 */
#include <stdlib.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "sqlexec/variant_codec.h"

cs_col_type *cs_sql_variant_entries_type(void)
{
    cs_col_field f[3] = {{"pos", cs_col_type_primitive(CS_TYPE_INT), false},
                         {"key", cs_col_type_primitive(CS_TYPE_STRING), true},
                         {"value", cs_col_type_variant(), false}};
    return cs_col_type_array(cs_col_type_struct(f, 3), false);
}

static int malformed(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "MALFORMED_VARIANT", "22023",
                            "Variant binary is malformed. Please check the data source is valid.");
}

cs_column *cs_sql_variant_entries(const cs_column *in, int64_t n, cs_col_allocator *alloc,
                                  cs_error *err)
{
    cs_col_type *t = cs_sql_variant_entries_type();
    cs_col_builder *b = cs_col_builder_new(alloc, t);
    cs_col_type_unref(t);
    cs_col_builder *st = cs_col_builder_child(b, 0);
    cs_col_builder *pos = cs_col_builder_child(st, 0), *key = cs_col_builder_child(st, 1);
    cs_col_builder *val = cs_col_builder_child(st, 2);
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        int32_t len = 0;
        cs_variant v;
        if (!cs_column_is_valid(in, i)) {
            cs_col_builder_append_lists(b, &len, 1, NULL);
            continue;
        }
        int32_t vl = 0, ml = 0;
        const uint8_t *vp = cs_column_bytes(in->children[0], i, &vl);
        const uint8_t *mp = cs_column_bytes(in->children[1], i, &ml);
        if (!cs_variant_init(&v, vp, (size_t)vl, mp, (size_t)ml)) {
            rc = malformed(err);
            break;
        }
        cs_vt k = cs_variant_type(&v);
        if (k == CS_VT_BAD) {
            rc = malformed(err);
            break;
        }
        size_t m = k == CS_VT_OBJECT || k == CS_VT_ARRAY ? cs_variant_size(&v) : 0;
        for (size_t j = 0; j < m; j++) {
            const uint8_t *kp = NULL;
            size_t kl = 0;
            cs_variant x;
            bool ok = k == CS_VT_OBJECT ? cs_variant_field_at(&v, j, &kp, &kl, &x)
                                        : cs_variant_element(&v, j, &x);
            size_t xl = ok ? cs_variant_value_size(&x) : 0;
            if (!xl || xl > (size_t)(x.end - x.p)) {
                rc = malformed(err);
                break;
            }
            int32_t p = (int32_t)j;
            cs_col_builder_append_structs(st, 1, NULL);
            cs_col_builder_append_values(pos, &p, 1, NULL);
            if (kp)
                cs_col_builder_append_string(key, kp, kl);
            else
                cs_col_builder_append_nulls(key, 1);
            cs_col_builder_append_structs(val, 1, NULL);
            cs_col_builder_append_string(cs_col_builder_child(val, 0), x.p, xl);
            cs_col_builder_append_string(cs_col_builder_child(val, 1), x.m, x.m_len);
            len++;
        }
        cs_col_builder_append_lists(b, &len, 1, NULL);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc != CS_OK) {
        cs_column_unref(c);
        return NULL;
    }
    return c;
}
