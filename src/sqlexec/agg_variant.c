/*
 * agg_variant.c — schema_of_variant_agg for agg_functions_ext.c: Spark's SchemaOfVariantAgg,
 * the merged schema (SchemaOfVariant.mergeSchema) of a group's non-null variants, as
 * schema_of_variant's text; VOID for a group without any. The state row holds a pointer to the
 * group's schema in variant_schema.c's byte form (in the aggregate's arena, grown geometrically,
 * so the arena's garbage stays below the live size); the buffer column is that byte form
 * (binary). A row whose schema is the group's own leaves the state as it is.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "sqlexec/variant_codec.h"

typedef struct vs_state {
    uint32_t len, cap;
    uint8_t bytes[];
} vs_state;

#define STATE(g) (states + (size_t)(g)*stride + a->state_off)

static const vs_state *state_at(const uint8_t *st)
{
    const vs_state *s;
    memcpy(&s, st, sizeof s);
    return s;
}

static void state_set(uint8_t *st, const cs_sbuf *sb, cs_sql_arena *arena)
{
    vs_state *s;
    memcpy(&s, st, sizeof s);
    if (!s || s->cap < sb->len) {
        size_t cap = s ? 2 * (size_t)s->cap : 32;
        while (cap < sb->len)
            cap *= 2;
        s = cs_sql_arena_alloc(arena, sizeof *s + cap);
        s->cap = (uint32_t)cap;
        memcpy(st, &s, sizeof s);
    }
    s->len = (uint32_t)sb->len;
    memcpy(s->bytes, sb->data, sb->len);
}

/* Merges schema bytes [p, p + n) into the state st. */
static bool fold(uint8_t *st, const uint8_t *p, size_t n, cs_sbuf *tmp, cs_sql_arena *arena)
{
    const vs_state *s = state_at(st);
    size_t sl = s ? s->len : 0;
    if (sl == n && (n == 0 || memcmp(s->bytes, p, n) == 0)) return true;
    tmp->len = 0;
    if (!cs_variant_schema_merge(s ? s->bytes : NULL, sl, p, n, tmp)) return false;
    if (!s || tmp->len != sl || memcmp(s->bytes, tmp->data, sl) != 0) state_set(st, tmp, arena);
    return true;
}

static int malformed(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "MALFORMED_VARIANT", "22023",
                            "Variant binary is malformed. Please check the data source is valid.");
}

int cs_sql_vschema_update(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                          const cs_column *in, int64_t row0, int64_t n, cs_sql_arena *arena,
                          cs_error *err)
{
    cs_sbuf one = CS_SBUF_INIT, tmp = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t k = 0; k < n && rc == CS_OK; k++) {
        int64_t i = row0 + k;
        if (!cs_column_is_valid(in, i)) continue;
        int32_t vl = 0, ml = 0;
        const uint8_t *vp = cs_column_bytes(in->children[0], i, &vl);
        const uint8_t *mp = cs_column_bytes(in->children[1], i, &ml);
        cs_variant v;
        if (!cs_variant_init(&v, vp, (size_t)vl, mp, (size_t)ml)) {
            rc = malformed(err);
            break;
        }
        one.len = 0;
        cs_variant_schema_encode(&v, &one);
        if (!fold(STATE(gid[k]), (const uint8_t *)one.data, one.len, &tmp, arena))
            rc = malformed(err);
    }
    cs_sbuf_free(&one);
    cs_sbuf_free(&tmp);
    return rc;
}

int cs_sql_vschema_merge(const cs_sql_agg *a, uint8_t *states, size_t stride, const int32_t *gid,
                         const cs_column *buf, int64_t n, cs_sql_arena *arena, cs_error *err)
{
    cs_sbuf tmp = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_column_is_valid(buf, i)) continue;
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(buf, i, &len);
        if (!fold(STATE(gid[i]), p, (size_t)len, &tmp, arena))
            rc = cs_error_set(err, CS_EINVAL, "schema_of_variant_agg: a malformed buffer");
    }
    cs_sbuf_free(&tmp);
    return rc;
}

cs_column *cs_sql_vschema_export(const cs_sql_agg *a, const uint8_t *states, size_t stride,
                                 int64_t g0, int64_t n, cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BINARY));
    for (int64_t i = 0; i < n; i++) {
        const vs_state *s = state_at(STATE(g0 + i));
        cs_col_builder_append_string(b, s ? (const void *)s->bytes : "", s ? s->len : 0);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

int cs_sql_vschema_evaluate(const cs_sql_agg *a, const uint8_t *states, size_t stride, int64_t g0,
                            int64_t n, cs_col_allocator *alloc, cs_column **out, cs_error *err)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_STRING));
    cs_sbuf sb = CS_SBUF_INIT;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        const vs_state *s = state_at(STATE(g0 + i));
        sb.len = 0;
        if (!cs_variant_schema_print(s ? s->bytes : NULL, s ? s->len : 0, &sb)) {
            rc = malformed(err);
            break;
        }
        cs_col_builder_append_string(b, sb.data, sb.len);
    }
    cs_sbuf_free(&sb);
    if (rc != CS_OK) {
        cs_col_builder_free(b);
        return rc;
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}
