/*
 * phys_canonical.h — Spark's SparkPlan.canonicalized for cspark's physical trees: a byte string
 * that two subtrees share exactly when they compute the same rows the same way, whatever their
 * plan ids (Spark's expression ids: a bound tree has none, its columns are ordinals already) and
 * the names of their output columns. Exchange reuse compares exchanges by it
 * (sql/exchange_reuse.h: ReuseExchangeAndSubquery; session/query_run.c: adaptive execution's
 * stage cache).
 *
 * The form: per node in pre-order, its wire form alone (cs_phys_encode_node_canonical: plan id
 * 0, output unnamed, no children) and, for an exchange, what only the driver reads of it (the
 * shuffle origin, REPARTITION(n)'s fixed count), each length-prefixed, then its child count. A
 * REUSED_EXCHANGE leaf is written as the exchange it reads (Spark's ReusedExchangeExec is
 * canonicalized as its child), so a parent of a reused exchange equals a parent of the exchange.
 *
 * Pure functions over borrowed trees; the caller owns out.
 */
#ifndef CSPARK_SQLEXEC_PHYS_CANONICAL_H
#define CSPARK_SQLEXEC_PHYS_CANONICAL_H

#include <stdbool.h>

#include "sqlexec/phys_plan.h"

/* Appends n's canonical form to out: 0, or a negative code with err (a tree the wire form
 * refuses: deeper than it allows, a child missing). */
int cs_phys_canonical(const cs_phys_node *n, cs_sbuf *out, cs_error *err);

/* Whether a and b have the same canonical form (false when either cannot be written). */
bool cs_phys_canonical_equal(const cs_phys_node *a, const cs_phys_node *b);

/* Canonical forms with a value each (the caller's index): Spark's map of exchanges by their
 * canonicalized plan (ReuseExchangeAndSubquery) and AQE's stage cache. Zeroed is empty. */
typedef struct cs_phys_canonical_map {
    cs_sbuf *keys; /* owned */
    int *values;
    int n, cap;
} cs_phys_canonical_map;

/* The value of form key, or -1 when the map has none. */
int cs_phys_canonical_map_get(const cs_phys_canonical_map *m, const cs_sbuf *key);
/* Adds form key (taken over: *key is left empty) with value. */
void cs_phys_canonical_map_put(cs_phys_canonical_map *m, cs_sbuf *key, int value);
void cs_phys_canonical_map_free(cs_phys_canonical_map *m);

#endif /* CSPARK_SQLEXEC_PHYS_CANONICAL_H */
