/*
 * builtins.h — libcspark's functions that lineage graphs name: the public reducers of cspark.h
 * (cspark_sum_i64, ...), the aggregators of group_by_key and cogroup (shuffle/builtin_aggs.h) and
 * the internal helpers of cogroup/join and distinct below. The internal ones are hidden (not
 * exported), so every process finds them through this table rather than with dlsym/dladdr.
 * Called by fn_ref.c (both directions) and by the API's transformations. No state.
 */
#ifndef CSPARK_PLAN_BUILTINS_H
#define CSPARK_PLAN_BUILTINS_H

#include "cspark.h"

/* The address of a built-in's name, or the name of a built-in's address (a static string); NULL
 * for any other. */
void *cs_builtin_lookup(const char *name);
const char *cs_builtin_name(const void *fn);

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
/* pair operations and ordered actions (api/pair_ops.c, api/ordered_actions.c, api/sampling.c) */
void cs_builtin_keys(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_values(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_unpack_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_count_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_count_record(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_right_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                         cspark_task_context *tc);
void cs_builtin_full_outer_join_flatten(const cspark_record *in, cspark_emitter *out,
                                        cspark_task_context *tc);
void cs_builtin_subtract_flatten(const cspark_record *in, cspark_emitter *out,
                                 cspark_task_context *tc);
void cs_builtin_intersect_flatten(const cspark_record *in, cspark_emitter *out,
                                  cspark_task_context *tc);
void cs_builtin_untag(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_rekey_mod(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_sample(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc);
void cs_builtin_zip_with_index(const cspark_record *in, cspark_emitter *out,
                               cspark_task_context *tc);

#endif
