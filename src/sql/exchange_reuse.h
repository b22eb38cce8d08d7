/*
 * exchange_reuse.h — Spark's ReuseExchangeAndSubquery preparation rule (exchanges only) over a
 * physical plan (planner.h's output): an exchange, shuffle or broadcast, whose canonical form
 * (sqlexec/phys_canonical.h: the same rows computed the same way, plan ids and output names
 * aside) equals an earlier one's becomes a REUSED_EXCHANGE leaf reading that one, so its map
 * stage or broadcast job runs once and both consumers read its output. Earlier is Spark's
 * transformUp order: children before parents, left to right; a subtree whose exchanges were
 * already replaced compares as the exchanges they read.
 *
 * The session applies it when spark.sql.exchange.reuse is on and adaptive execution is off
 * (adaptive execution hides the plan from preparation rules in Spark too, and reuses stages by
 * its stage cache instead: session/query_run.c). EXPLAIN then shows Spark's
 * "ReusedExchange [cols], Exchange hashpartitioning(...), ENSURE_REQUIREMENTS, [plan_id=N]".
 *
 * Ownership: the tree is changed in place; a replaced exchange's subtree is freed, and each
 * REUSED_EXCHANGE leaf borrows the exchange it reads, which stays in the tree.
 */
#ifndef CSPARK_SQL_EXCHANGE_REUSE_H
#define CSPARK_SQL_EXCHANGE_REUSE_H

#include "common/err.h"
#include "sqlexec/phys_plan.h"

/* Appends the form exchange ex is compared by to key: its canonical form and, for a broadcast,
 * the mode its reader parent (ex being child i) builds (a hash join's build keys, else the rows
 * as they are). 0, or a negative code with err. Adaptive execution's stage cache uses it too. */
int cs_sql_exchange_key(const cs_phys_node *ex, const cs_phys_node *parent, int i, cs_sbuf *key,
                        cs_error *err);

/* Replaces the exchanges of root that repeat an earlier one: the count replaced, or a negative
 * code with err (a tree that cannot be canonicalized). */
int cs_sql_reuse_exchanges(cs_phys_node *root, cs_error *err);

#endif /* CSPARK_SQL_EXCHANGE_REUSE_H */
