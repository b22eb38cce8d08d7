/*
 * phys_canonical.c — canonical forms of physical subtrees (phys_canonical.h), for exchange
 * reuse. Each node's own fields go through the wire encoder (phys_encode.c), so every field a
 * task reads takes part and a field added to the wire form later takes part too; the plan id and
 * the output names (which a consumer never reads: it binds columns by ordinal) are left out.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/phys_canonical.h"

#define MAX_DEPTH 200

static void put_u32(cs_sbuf *out, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    cs_sbuf_append(out, b, sizeof b);
}

static int canonical(const cs_phys_node *n, cs_sbuf *out, int depth, cs_error *err)
{
    if (depth > MAX_DEPTH)
        return cs_error_set(err, CS_EINVAL, "SQL plan: deeper than %d nodes", MAX_DEPTH);
    if (n->kind == CS_PH_REUSED_EXCHANGE) { /* the exchange it reads */
        if (!n->reused)
            return cs_error_set(err, CS_EINVAL, "a ReusedExchange of no exchange (plan id %d)",
                                n->input);
        return canonical(n->reused, out, depth + 1, err);
    }
    cs_sbuf self = CS_SBUF_INIT;
    int rc = cs_phys_encode_node_canonical(n, &self, err);
    if (rc == 0) {
        put_u32(out, (uint32_t)self.len);
        cs_sbuf_append(out, self.data, self.len);
        if (n->kind == CS_PH_EXCHANGE) { /* the driver's: not in the wire form */
            put_u32(out, (uint32_t)n->shuffle_origin);
            put_u32(out, n->user_partitions ? 1u : 0u);
        }
        put_u32(out, (uint32_t)n->n_children);
    }
    cs_sbuf_free(&self);
    for (int i = 0; rc == 0 && i < n->n_children; i++) {
        if (!n->children[i])
            return cs_error_set(err, CS_EINVAL, "SQL plan: %s without child %d",
                                cs_phys_node_name(n), i);
        rc = canonical(n->children[i], out, depth + 1, err);
    }
    return rc;
}

int cs_phys_canonical(const cs_phys_node *n, cs_sbuf *out, cs_error *err)
{
    if (!n) return cs_error_set(err, CS_EINVAL, "SQL plan: no tree to canonicalize");
    return canonical(n, out, 0, err);
}

bool cs_phys_canonical_equal(const cs_phys_node *a, const cs_phys_node *b)
{
    cs_sbuf ca = CS_SBUF_INIT, cb = CS_SBUF_INIT;
    cs_error err = {0};
    bool eq = cs_phys_canonical(a, &ca, &err) == 0 && cs_phys_canonical(b, &cb, &err) == 0 &&
              ca.len == cb.len && (ca.len == 0 || memcmp(ca.data, cb.data, ca.len) == 0);
    cs_sbuf_free(&ca);
    cs_sbuf_free(&cb);
    return eq;
}

int cs_phys_canonical_map_get(const cs_phys_canonical_map *m, const cs_sbuf *key)
{
    for (int i = 0; i < m->n; i++)
        if (m->keys[i].len == key->len &&
            (key->len == 0 || memcmp(m->keys[i].data, key->data, key->len) == 0))
            return m->values[i];
    return -1;
}

void cs_phys_canonical_map_put(cs_phys_canonical_map *m, cs_sbuf *key, int value)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 8;
        m->keys = cs_xrealloc(m->keys, sizeof *m->keys * (size_t)m->cap);
        m->values = cs_xrealloc(m->values, sizeof *m->values * (size_t)m->cap);
    }
    m->keys[m->n] = *key;
    m->values[m->n++] = value;
    *key = (cs_sbuf)CS_SBUF_INIT;
}

void cs_phys_canonical_map_free(cs_phys_canonical_map *m)
{
    for (int i = 0; i < m->n; i++)
        cs_sbuf_free(&m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
