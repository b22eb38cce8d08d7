/*
 * task_codec.h — wire encodings (proto/cspark.proto) of what a task reports: task results (records
 * recio-encoded), map statuses and task metrics. Used by the executor (StatusUpdate, heartbeats),
 * the driver's coarse backend (decoding them, migrating map outputs) and the stage plan codec
 * (the map outputs a task reads).
 *
 * Ownership: encoders fill caller-zeroed protobuf-c structures whose fields they malloc, released
 * by the matching *_pb_clear; decoders fill caller-owned values (task_result initialised with
 * cs_task_result_init, cs_map_status released with cs_map_status_free). Decoding validates and
 * rejects malformed input with CS_EPROTO.
 */
#ifndef CSPARK_PLAN_TASK_CODEC_H
#define CSPARK_PLAN_TASK_CODEC_H

#include "cspark.pb-c.h"

#include "common/err.h"
#include "plan/task.h"
#include "shuffle/shuffle.h"

int cs_task_result_encode(const task_result *r, Cspark__TaskResult *out, cs_error *err);
void cs_task_result_pb_clear(Cspark__TaskResult *pb);
int cs_task_result_decode(const Cspark__TaskResult *pb, task_result *out, cs_error *err);
int cs_map_status_encode(const cs_map_status *st, Cspark__MapStatus *out, cs_error *err);
void cs_map_status_pb_clear(Cspark__MapStatus *pb);
int cs_map_status_decode(const Cspark__MapStatus *pb, cs_map_status *out, cs_error *err);
void cs_task_metrics_to_pb(const cs_task_metrics *m, Cspark__TaskMetrics *pb);
void cs_task_metrics_from_pb(const Cspark__TaskMetrics *pb, cs_task_metrics *m);

#endif
