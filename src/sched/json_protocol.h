/* json_protocol.h — Spark's JsonProtocol: a listener event as the JSON object Spark's event log
 * holds for it (SparkListenerTaskEnd with its "Task Info", "Task Metrics", ...), so that Spark's
 * history server replays what cspark writes. The event log (event_log.c) writes the objects, one
 * a line; cspark's history server (src/history) reads them back.
 *
 * Ownership: cs_json_protocol_new returns a protocol owned by the caller (cs_json_protocol_free);
 * it keeps what later events need but do not carry (running stages and task launch times), so
 * one protocol sees every event of one log, from one thread at a time. Returned objects are the
 * caller's (json_decref); strings in events are borrowed during the call.
 */
#ifndef CSPARK_SCHED_JSON_PROTOCOL_H
#define CSPARK_SCHED_JSON_PROTOCOL_H

#include <jansson.h>

#include "common/conf.h"
#include "common/err.h"
#include "sched/listener.h"

typedef struct cs_json_protocol cs_json_protocol;

/* Reads spark.redaction.regex (Spark Properties matching it are redacted; without it, the keys
 * cs_conf_redact knows). NULL + err on a regular expression that does not compile. */
cs_json_protocol *cs_json_protocol_new(const cs_conf *conf, cs_error *err);
void cs_json_protocol_free(cs_json_protocol *jp);

/* ev as Spark's JSON object, or NULL for the events Spark does not log this way (executor
 * metrics; block updates, see below). */
json_t *cs_json_protocol_event(cs_json_protocol *jp, const cs_event *ev);

/* Spark's SparkListenerBlockUpdated for block i of a CS_EV_BLOCK_UPDATED event. */
json_t *cs_json_protocol_block_updated(const cs_event *ev, int i);

/* Spark's event name for a kind ("SparkListenerTaskEnd"); same as cs_event_kind_name. */
const char *cs_json_protocol_event_name(cs_event_kind kind);

#endif /* CSPARK_SCHED_JSON_PROTOCOL_H */
