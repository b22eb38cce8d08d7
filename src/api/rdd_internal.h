/*
 * rdd_internal.h — helpers shared by the files that build or rebuild lineage nodes: src/api
 * (rdd.c, sources.c, transformations.c, actions.c, context.c) and the executor's task codec
 * (src/exec/task_codec.c), which rebuilds nodes from stage plans.
 * Ownership: nodes from cs_rdd_new are registered with (and freed by) the context; fn_ref copies
 * are owned by the node or dependency that holds them.
 */
#ifndef CSPARK_API_RDD_INTERNAL_H
#define CSPARK_API_RDD_INTERNAL_H

#include "api/context.h"
#include "api/rdd.h"
#include "common/err.h"
#include "shuffle/builtin_aggs.h"

/* A new node named "<op> at <object>:<function>" after the caller's address. */
cspark_rdd *cs_rdd_new(cspark_context *sc, rdd_kind kind, int num_partitions, const char *op,
                       const void *caller);
void cs_rdd_free(cspark_rdd *r);
void cs_shuffle_dep_free(shuffle_dep *d);

/* A reference to one of libcspark's own functions (no dladdr needed). */
void cs_fn_ref_builtin(fn_ref *ref, const char *name, void *fn);
void cs_fn_ref_copy_closure(fn_ref *ref, const void *closure, size_t len);
void cs_fn_ref_free(fn_ref *ref);

/* Records a refused operation on the context and returns NULL (for transformations). */
cspark_rdd *cs_rdd_refuse(cspark_context *sc, const cs_error *err);

#define CALLER() __builtin_extract_return_addr(__builtin_return_address(0))

/* libcspark's functions that plans name (builtins.c): the address of a name, or the name of an
 * address (a static string), NULL for any other. The internal ones are hidden, so processes find
 * them here rather than with dlsym/dladdr. */
void *cs_builtin_lookup(const char *name);
const char *cs_builtin_name(const void *fn);

/* Internal built-in functions (builtins.c). */
void cs_builtin_tag_left(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_tag_right(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_join_flatten(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_left_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                        cspark_task_context *tc);
void cs_builtin_distinct_pack(const cspark_record *in, cspark_emitter *out,
                              cspark_task_context *tc);
void cs_builtin_distinct_unpack(const cspark_record *in, cspark_emitter *out,
                                cspark_task_context *tc);
void cs_builtin_keep_first(cspark_value *acc, cspark_slice value, cspark_task_context *tc);

#endif
