/*
 * cartesian.c — the kind RDD_CARTESIAN, Spark's CartesianRDD: partition i * nb + j pairs every
 * record of the left parent's partition i with every record of the right parent's partition j
 * (nb = the right parent's partitions). An entry of the table of kinds (plan/rdd_kind.h): its
 * constructor, its check against its parents and its iterator. The right partition is read once
 * into memory (Spark recomputes it for every left record instead), then the left one is streamed
 * batch by batch; output records are (pair(left key, left value), pair(right key, right value)),
 * read with cspark_pair_split.
 *
 * Ownership: the iterator owns its parents' iterators, the right partition's copy and its output
 * batch (valid until the next call). One task thread.
 */
#include <string.h>

#include "common/err.h"
#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_cartesian_new(lineage_graph *g, cspark_rdd *a, cspark_rdd *b, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_CARTESIAN, a->num_partitions * b->num_partitions, name);
    r->parents[0] = a;
    r->parents[1] = b;
    r->num_parents = 2;
    return r;
}

typedef struct cart_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    part_iter *left;
    cs_batch right; /* the right partition, read whole */
    bool right_loaded, eof;
    const cs_batch *lin; /* the left parent's current batch */
    size_t li, rj;       /* next pair: left record li with right record rj */
    cs_batch out;
} cart_iter;

static int load_right(cart_iter *c, cs_error *err)
{
    int nb = c->rdd->parents[1]->num_partitions;
    part_iter *it = cs_part_iter_open(c->tc, c->rdd->parents[1], c->partition % nb, err);
    if (!it) return err->code ? err->code : CS_EINVAL;
    const cs_batch *b;
    int rc;
    while ((rc = it->next(it, &b, err)) > 0)
        cs_batch_append_batch(&c->right, b);
    cs_part_iter_free(it);
    c->right_loaded = true;
    return rc < 0 ? rc : 0;
}

/* [u32 key length][key][1][value]: the record as a pair */
static void put_pair(uint8_t *p, cspark_record r)
{
    memcpy(p, &r.key.len, 4);
    memcpy(p + 4, r.key.ptr, r.key.len);
    p[4 + r.key.len] = 1;
    memcpy(p + 5 + r.key.len, r.value.ptr, r.value.len);
}

static int cart_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    cart_iter *c = (cart_iter *)it;
    if (!c->right_loaded) {
        int rc = load_right(c, err);
        if (rc < 0) return rc;
    }
    cs_batch_reset(&c->out);
    while (!batch_full(&c->out)) {
        if (!c->lin || c->li >= c->lin->n) {
            int rc = c->eof || !c->right.n ? 0 : c->left->next(c->left, &c->lin, err);
            if (rc < 0) return rc;
            if (rc == 0) {
                c->eof = true;
                break;
            }
            c->li = c->rj = 0;
            continue;
        }
        cspark_record a = batch_get(c->lin, c->li);
        size_t klen = 5 + (size_t)a.key.len + a.value.len;
        for (; c->rj < c->right.n && !batch_full(&c->out); c->rj++) {
            cspark_record b = batch_get(&c->right, c->rj);
            size_t vlen = 5 + (size_t)b.key.len + b.value.len;
            if (klen + vlen > CSPARK_MAX_RECORD_BYTES)
                return cs_error_set(err, CS_EINVAL,
                                    "cartesian: a pair of %zu bytes is over the record limit",
                                    klen + vlen);
            uint8_t *k = batch_append(&c->out, (uint32_t)klen, (uint32_t)vlen);
            put_pair(k, a);
            put_pair(k + klen, b);
        }
        if (c->rj >= c->right.n) {
            c->li++;
            c->rj = 0;
        }
    }
    if (!c->out.n) return 0;
    *out = &c->out;
    return 1;
}

static void cart_free(part_iter *it)
{
    cart_iter *c = (cart_iter *)it;
    cs_part_iter_free(c->left);
    cs_batch_free(&c->right);
    cs_batch_free(&c->out);
    free(c);
}

static part_iter *cartesian_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                    cs_error *err)
{
    int nb = rdd->parents[1]->num_partitions;
    part_iter *left = cs_part_iter_open(tc, rdd->parents[0], partition / nb, err);
    if (!left) return NULL;
    cart_iter *c = cs_xcalloc(1, sizeof *c);
    c->base.next = cart_next;
    c->base.free = cart_free;
    c->tc = tc;
    c->rdd = rdd;
    c->partition = partition;
    c->left = left;
    cs_batch_init(&c->right);
    cs_batch_init(&c->out);
    return &c->base;
}

static int cartesian_check_parents(const cspark_rdd *r, int idx, cs_error *err)
{
    int na = r->parents[0]->num_partitions, nb = r->parents[1]->num_partitions;
    if ((int64_t)na * nb != r->num_partitions)
        return cs_rdd_kind_proto_error(err, idx, "%d partitions for a %d x %d cartesian product",
                                       r->num_partitions, na, nb);
    return 0;
}

const cs_rdd_kind cs_rdd_kind_cartesian = {
    .kind = RDD_CARTESIAN,
    .spark_class = "CartesianRDD",
    .num_parents = 2,
    .check_parents = cartesian_check_parents,
    .compute = cartesian_compute,
};
