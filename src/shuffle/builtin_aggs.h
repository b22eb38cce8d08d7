/*
 * builtin_aggs.h — list-building reduce functions used by group_by_key and cogroup (exported
 * from libcspark with default visibility, so the executor can resolve them by name like any job
 * function). Lists use the encoding of include/cspark.h: items of [u32 LE length][bytes].
 *   create          = cs_list_wrap     acc = [len][v]
 *   merge_value     = cs_list_append   acc ++= [len][v]
 *   merge_combiners = cs_list_concat   acc ++= other (an encoded list)
 */
#ifndef CSPARK_SHUFFLE_BUILTIN_AGGS_H
#define CSPARK_SHUFFLE_BUILTIN_AGGS_H

#include "cspark.h"

void cs_list_wrap(cspark_value *acc, cspark_slice v, cspark_task_context *tc);
void cs_list_append(cspark_value *acc, cspark_slice v, cspark_task_context *tc);
void cs_list_concat(cspark_value *acc, cspark_slice other, cspark_task_context *tc);

#endif /* CSPARK_SHUFFLE_BUILTIN_AGGS_H */
