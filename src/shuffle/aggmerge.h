/*
 * aggmerge.h — k-way merge of aggregation runs sorted by (hash, key), folding equal keys with
 * merge_combiners: the iteration of ext_agg after spills, and the commit of a map-side-combining
 * shuffle writer that spilled (per partition). Sources are recio runs (spill file ranges) and
 * at most one in-memory array of aggmap entries, all sorted by aggmap_cmp order.
 * Internal to src/shuffle. Readers added are owned (freed by cs_agg_merger_free); entry arrays and
 * the aggregator are borrowed until free.
 */
#ifndef CSPARK_SHUFFLE_AGGMERGE_H
#define CSPARK_SHUFFLE_AGGMERGE_H

#include "records/recio.h"
#include "shuffle/aggmap.h"

typedef struct agg_merger agg_merger;

agg_merger *cs_agg_merger_new(const cs_aggregator *agg);
void cs_agg_merger_add_run(agg_merger *m, recio_reader *rd);
/* ents[idx[i]] for i in [0, n) (idx NULL: ents[i]) in (hash, key) order. */
void cs_agg_merger_add_mem(agg_merger *m, aggmap_entry *const *ents, const uint32_t *idx, size_t n);
/* The next key and its combined value (borrowed until the next call): 1, 0 at the end, <0 on a
 * corrupt or unreadable run. */
int cs_agg_merger_next(agg_merger *m, cspark_slice *key, cspark_slice *value, cs_error *err);
void cs_agg_merger_free(agg_merger *m);

#endif /* CSPARK_SHUFFLE_AGGMERGE_H */
