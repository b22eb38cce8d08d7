/*
 * rdd_kind.c — the table of RDD kinds (rdd_kind.h): the entries of plan/rdd_kind_list.h by
 * number, and the helpers the kinds' files share (split tables, int arrays, protocol errors).
 */
#include "plan/rdd_kind.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/pb_helpers.h"

#define CS_RDD_KIND_EXTERN(name, entry) extern const cs_rdd_kind cs_rdd_kind_##entry;
CS_RDD_KIND_LIST(CS_RDD_KIND_EXTERN)
#undef CS_RDD_KIND_EXTERN

static const cs_rdd_kind *const kinds[RDD_KIND_COUNT] = {
#define CS_RDD_KIND_ENTRY(name, entry) [RDD_##name] = &cs_rdd_kind_##entry,
    CS_RDD_KIND_LIST(CS_RDD_KIND_ENTRY)
#undef CS_RDD_KIND_ENTRY
};

const cs_rdd_kind *cs_rdd_kind_of(int k)
{
    return k >= 0 && k < RDD_KIND_COUNT ? kinds[k] : NULL;
}

const char *cs_rdd_spark_name(const cspark_rdd *r)
{
    const cs_rdd_kind *k = cs_rdd_kind_of(r->kind);
    if (!k) return "RDD";
    return k->spark_name ? k->spark_name(r) : k->spark_class;
}

int cs_rdd_parent_partitions(const cspark_rdd *r, int partition, cs_rdd_parent_partition *out,
                             int max)
{
    const cs_rdd_kind *k = cs_rdd_kind_of(r->kind);
    if (!k || partition < 0 || partition >= r->num_partitions) return 0;
    if (k->parent_partitions) return k->parent_partitions(r, partition, out, max);
    if (!k->one_to_one || r->num_parents < 1) return 0;
    if (max > 0) out[0] = (cs_rdd_parent_partition){r->parents[0], partition};
    return 1;
}

int cs_rdd_kind_proto_error(cs_error *err, int idx, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_error_set(err, CS_EPROTO, "stage plan: node %d: %s", idx, msg);
}

int32_t *cs_rdd_kind_ints_to_pb(const int *v, size_t n)
{
    int32_t *o = cs_xmalloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = v[i];
    return o;
}

int *cs_rdd_kind_ints_from_pb(const int32_t *v, size_t n)
{
    int *o = cs_xcalloc(n + 1, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = v[i];
    return o;
}

int cs_rdd_kind_splits_to_pb(const cspark_rdd *r, int num_splits, Cspark__RddNode *pb,
                             cs_error *err)
{
    if (num_splits > 0 && !r->splits)
        return cs_error_set(err, CS_EINVAL, "text node %d: no splits", r->id);
    if (num_splits > 0) pb->splits = cs_xcalloc((size_t)num_splits, sizeof *pb->splits);
    for (int i = 0; i < num_splits; i++) {
        Cspark__TextSplit *s = cs_xmalloc(sizeof *s);
        cspark__text_split__init(s);
        s->path = cs_xstrdup(cs_pb_str(r->splits[i].path));
        s->start = r->splits[i].start;
        s->length = r->splits[i].length;
        s->file_size = r->splits[i].file_size;
        pb->splits[i] = s;
        pb->n_splits = (size_t)i + 1;
    }
    return 0;
}

int cs_rdd_kind_splits_from_pb(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    size_t ns = pb->n_splits;
    r->splits = cs_xcalloc(ns ? ns : 1, sizeof *r->splits);
    r->paths = cs_xcalloc(ns ? ns : 1, sizeof *r->paths);
    for (size_t i = 0; i < ns; i++) {
        const Cspark__TextSplit *s = pb->splits[i];
        if (!s || !s->path || !*s->path)
            return cs_rdd_kind_proto_error(err, idx, "split without a path");
        if (s->start > s->file_size || s->length > s->file_size - s->start)
            return cs_rdd_kind_proto_error(err, idx, "split beyond its file");
        if (r->num_paths == 0 || strcmp(r->paths[r->num_paths - 1], s->path) != 0)
            r->paths[r->num_paths++] = cs_xstrdup(s->path);
        r->splits[i] = (text_split){r->paths[r->num_paths - 1], s->start, s->length, s->file_size};
    }
    return 0;
}

void cs_rdd_kind_set_splits(cspark_rdd *r, const text_split *splits, int num_splits)
{
    size_t ns = num_splits > 0 ? (size_t)num_splits : 0;
    r->splits = cs_xcalloc(ns ? ns : 1, sizeof *r->splits);
    r->paths = cs_xcalloc(ns ? ns : 1, sizeof *r->paths);
    for (size_t i = 0; i < ns; i++) {
        if (r->num_paths == 0 || strcmp(r->paths[r->num_paths - 1], splits[i].path) != 0)
            r->paths[r->num_paths++] = cs_xstrdup(splits[i].path);
        r->splits[i] = (text_split){r->paths[r->num_paths - 1], splits[i].start, splits[i].length,
                                    splits[i].file_size};
    }
}
