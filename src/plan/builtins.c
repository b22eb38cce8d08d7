/*
 * builtins.c — functions of libcspark used inside lineage graphs (see builtins.h): the numeric
 * reducers of cspark.h (cspark_sum_i64, ...) and the internal helpers of cogroup/join and
 * distinct, with the table every process resolves their names through.
 */
#include "plan/builtins.h"

#include <string.h>

#include "shuffle/builtin_aggs.h"

void cspark_sum_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    if (__builtin_expect(acc->len != 8 || value.len != 8, 0))
        cspark_task_fail(tc, "cspark_sum_i64: values must be 8-byte cspark_i64 encodings");
    cspark_i64_encode(cspark_i64_decode(acc->ptr) + cspark_i64_decode(value.ptr), acc->ptr);
}

void cspark_sum_f64(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    if (acc->len != 8 || value.len != 8)
        cspark_task_fail(tc, "cspark_sum_f64: values must be 8-byte cspark_f64 encodings");
    cspark_f64_encode(cspark_f64_decode(acc->ptr) + cspark_f64_decode(value.ptr), acc->ptr);
}

void cspark_min_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    if (acc->len != 8 || value.len != 8)
        cspark_task_fail(tc, "cspark_min_i64: values must be 8-byte cspark_i64 encodings");
    if (memcmp(value.ptr, acc->ptr, 8) < 0) memcpy(acc->ptr, value.ptr, 8);
}

void cspark_max_i64(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    if (acc->len != 8 || value.len != 8)
        cspark_task_fail(tc, "cspark_max_i64: values must be 8-byte cspark_i64 encodings");
    if (memcmp(value.ptr, acc->ptr, 8) > 0) memcpy(acc->ptr, value.ptr, 8);
}

/* cogroup: values of the left/right parent are tagged with a side byte before the shuffle. */
static void tag(const cspark_record *in, cspark_emitter *out, uint8_t side)
{
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, in->key.len, (size_t)in->value.len + 1, &v);
    memcpy(k, in->key.ptr, in->key.len);
    v[0] = side;
    memcpy(v + 1, in->value.ptr, in->value.len);
}

void cs_builtin_tag_left(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    tag(in, out, 0);
}

void cs_builtin_tag_right(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    tag(in, out, 1);
}

/* Emits key -> pair(left, right?) */
static void emit_pair(cspark_emitter *out, cspark_slice key, cspark_slice left,
                      const cspark_slice *right)
{
    uint8_t *v;
    size_t vlen = 4 + (size_t)left.len + 1 + (right ? right->len : 0);
    uint8_t *k = cspark_emit_reserve(out, key.len, vlen, &v);
    memcpy(k, key.ptr, key.len);
    memcpy(v, &left.len, 4);
    memcpy(v + 4, left.ptr, left.len);
    v[4 + left.len] = right ? 1 : 0;
    if (right) memcpy(v + 5 + left.len, right->ptr, right->len);
}

static void join_flatten(const cspark_record *in, cspark_emitter *out, bool left_outer)
{
    cspark_slice lefts = {0}, rights = {0}, l, r;
    cspark_pair_split(in->value, &lefts, &rights);
    while (cspark_list_next(&lefts, &l)) {
        cspark_slice rs = rights;
        bool any = false;
        while (cspark_list_next(&rs, &r)) {
            emit_pair(out, in->key, l, &r);
            any = true;
        }
        if (!any && left_outer) emit_pair(out, in->key, l, NULL);
    }
}

void cs_builtin_join_flatten(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    join_flatten(in, out, false);
}

void cs_builtin_left_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                        cspark_task_context *tc)
{
    join_flatten(in, out, true);
}

/* distinct: the whole record becomes the key ([u32 key length][key][value]), then back. */
void cs_builtin_distinct_pack(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t *k = cspark_emit_reserve(out, 4 + (size_t)in->key.len + in->value.len, 0, NULL);
    memcpy(k, &in->key.len, 4);
    memcpy(k + 4, in->key.ptr, in->key.len);
    memcpy(k + 4 + in->key.len, in->value.ptr, in->value.len);
}

void cs_builtin_distinct_unpack(const cspark_record *in, cspark_emitter *out,
                                cspark_task_context *tc)
{
    uint32_t klen;
    if (in->key.len < 4) cspark_task_fail(tc, "distinct: malformed packed record");
    memcpy(&klen, in->key.ptr, 4);
    if (klen > in->key.len - 4) cspark_task_fail(tc, "distinct: malformed packed record");
    cspark_emit(out, in->key.ptr + 4, klen, in->key.ptr + 4 + klen, in->key.len - 4 - klen);
}

void cs_builtin_keep_first(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    (void)acc;
    (void)value;
}

/* ---- pair operations (api/pair_ops.c, api/ordered_actions.c) ---------------------------- */

void cs_builtin_keys(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit(out, in->key.ptr, in->key.len, NULL, 0);
}

void cs_builtin_values(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit(out, in->value.ptr, in->value.len, NULL, 0);
}

/* sort_by: (sort key, pair(key, value)) back to the record. */
void cs_builtin_unpack_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice k, v;
    if (!cspark_pair_split(in->value, &k, &v))
        cspark_task_fail(tc, "sort_by: malformed packed record");
    cspark_emit(out, k.ptr, k.len, v.ptr, v.len);
}

/* count_by_key: (key, 1); count_by_value: (the record, 1), the record being its key when its
 * value is empty, else the pair (key, value). */
void cs_builtin_count_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t one[8];
    cspark_i64_encode(1, one);
    cspark_emit(out, in->key.ptr, in->key.len, one, 8);
}

void cs_builtin_count_record(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (!in->value.len) {
        cs_builtin_count_key(in, out, tc);
        return;
    }
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, 4 + (size_t)in->key.len + 1 + in->value.len, 8, &v);
    memcpy(k, &in->key.len, 4);
    memcpy(k + 4, in->key.ptr, in->key.len);
    k[4 + in->key.len] = 1;
    memcpy(k + 5 + in->key.len, in->value.ptr, in->value.len);
    cspark_i64_encode(1, v);
}

/* Outer joins: key -> pair(left?, right?), an absent left written as length 0xFFFFFFFF. */
static void emit_sides(cspark_emitter *out, cspark_slice key, const cspark_slice *left,
                       const cspark_slice *right)
{
    uint8_t *v;
    size_t vlen = 4 + (left ? left->len : 0) + 1 + (right ? right->len : 0);
    uint8_t *k = cspark_emit_reserve(out, key.len, vlen, &v);
    memcpy(k, key.ptr, key.len);
    uint32_t n = left ? left->len : 0xFFFFFFFFu;
    memcpy(v, &n, 4);
    v += 4;
    if (left) {
        memcpy(v, left->ptr, left->len);
        v += left->len;
    }
    *v++ = right ? 1 : 0;
    if (right) memcpy(v, right->ptr, right->len);
}

static void outer_flatten(const cspark_record *in, cspark_emitter *out, bool keep_left)
{
    cspark_slice lefts = {0}, rights = {0}, l, r;
    cspark_pair_split(in->value, &lefts, &rights);
    bool has_left = lefts.len > 0, has_right = rights.len > 0;
    if (!has_left) {
        while (cspark_list_next(&rights, &r))
            emit_sides(out, in->key, NULL, &r);
        return;
    }
    while (cspark_list_next(&lefts, &l)) {
        cspark_slice rs = rights;
        while (cspark_list_next(&rs, &r))
            emit_sides(out, in->key, &l, &r);
        if (!has_right && keep_left) emit_sides(out, in->key, &l, NULL);
    }
}

void cs_builtin_right_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                         cspark_task_context *tc)
{
    outer_flatten(in, out, false);
}

void cs_builtin_full_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                        cspark_task_context *tc)
{
    outer_flatten(in, out, true);
}

/* subtract_by_key: the left values of keys with no right value. */
void cs_builtin_subtract_flatten(const cspark_record *in, cspark_emitter *out,
                                 cspark_task_context *tc)
{
    cspark_slice lefts = {0}, rights = {0}, l;
    cspark_pair_split(in->value, &lefts, &rights);
    if (rights.len) return;
    while (cspark_list_next(&lefts, &l))
        cspark_emit(out, in->key.ptr, in->key.len, l.ptr, l.len);
}

/* intersection: the key once when both sides have it. */
void cs_builtin_intersect_flatten(const cspark_record *in, cspark_emitter *out,
                                  cspark_task_context *tc)
{
    cspark_slice lefts = {0}, rights = {0};
    cspark_pair_split(in->value, &lefts, &rights);
    if (lefts.len && rights.len) cspark_emit(out, in->key.ptr, in->key.len, NULL, 0);
}

/* partition_by: drops the 4-byte partition tag in front of the key. */
void cs_builtin_untag(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (in->key.len < 4) cspark_task_fail(tc, "partition_by: malformed tagged record");
    cspark_emit(out, in->key.ptr + 4, in->key.len - 4, in->value.ptr, in->value.len);
}

/* tree_aggregate: key (i64 k) -> (i64 k mod m), m from the closure. */
void cs_builtin_rekey_mod(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const uint8_t *m = cspark_closure(tc, &len);
    if (len != 8 || in->key.len != 8) cspark_task_fail(tc, "tree_aggregate: malformed level");
    int64_t mod = cspark_i64_decode(m);
    uint8_t k[8];
    cspark_i64_encode(cspark_i64_decode(in->key.ptr) % mod, k);
    cspark_emit(out, k, 8, in->value.ptr, in->value.len);
}

/* Markers naming the parameters of RDD_SAMPLE / RDD_ZIP_WITH_INDEX nodes (never called: the
 * iterator does the work; the closure carries the parameters). */
void cs_builtin_sample(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_task_fail(tc, "internal: the sample marker was called");
}

void cs_builtin_zip_with_index(const cspark_record *in, cspark_emitter *out,
                               cspark_task_context *tc)
{
    cspark_task_fail(tc, "internal: the zip_with_index marker was called");
}

void cspark_list_append(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    cs_list_append(acc, value, tc);
}

void cspark_list_concat(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    cs_list_concat(acc, value, tc);
}

/* Every function of libcspark that a plan may name, public or internal. */
static const struct {
    const char *name;
    void *fn;
} builtins[] = {
#define BUILTIN(f)                                                                                 \
    {                                                                                              \
#f, (void *)f                                                                              \
    }
    BUILTIN(cspark_sum_i64),
    BUILTIN(cspark_sum_f64),
    BUILTIN(cspark_min_i64),
    BUILTIN(cspark_max_i64),
    BUILTIN(cs_builtin_tag_left),
    BUILTIN(cs_builtin_tag_right),
    BUILTIN(cs_builtin_join_flatten),
    BUILTIN(cs_builtin_left_outer_join_flatten),
    BUILTIN(cs_builtin_distinct_pack),
    BUILTIN(cs_builtin_distinct_unpack),
    BUILTIN(cs_builtin_keep_first),
    BUILTIN(cs_list_wrap),
    BUILTIN(cs_list_append),
    BUILTIN(cs_list_concat),
    BUILTIN(cs_builtin_keys),
    BUILTIN(cs_builtin_values),
    BUILTIN(cs_builtin_unpack_value),
    BUILTIN(cs_builtin_count_key),
    BUILTIN(cs_builtin_count_record),
    BUILTIN(cs_builtin_right_outer_join_flatten),
    BUILTIN(cs_builtin_full_outer_join_flatten),
    BUILTIN(cs_builtin_subtract_flatten),
    BUILTIN(cs_builtin_intersect_flatten),
    BUILTIN(cs_builtin_sample),
    BUILTIN(cs_builtin_zip_with_index),
    BUILTIN(cspark_list_append),
    BUILTIN(cspark_list_concat),
    BUILTIN(cs_builtin_untag),
    BUILTIN(cs_builtin_rekey_mod),
#undef BUILTIN
};

void *cs_builtin_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0) return builtins[i].fn;
    return NULL;
}

const char *cs_builtin_name(const void *fn)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (builtins[i].fn == fn) return builtins[i].name;
    return NULL;
}
