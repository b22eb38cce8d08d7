/* scheduled_app.h — ScheduledSparkApplication: a SparkApplication created from spec.template on
 * a cron schedule (cron_schedule.h), as the Kubeflow operator does it.
 *
 * Each run is the SparkApplication `<name>-<the run's Unix time in seconds>`, owned by the
 * ScheduledSparkApplication (deleting it deletes the runs) and labelled
 * sparkoperator.k8s.io/scheduled-app-name=<name>. Its name is the scheduled time's, so an
 * operator restarted after creating a run but before writing the status finds it (409) rather than
 * making a second. When the time comes: concurrencyPolicy Allow (the default) creates the run
 * whatever runs; Forbid skips this time while an earlier run has not ended; Replace deletes the
 * runs that have not ended and creates the new one. Ended runs beyond successfulRunHistoryLimit
 * (COMPLETED) and failedRunHistoryLimit (FAILED), each 1 by default, are deleted, oldest first.
 * The status carries scheduleState (Scheduled, FailedValidation with a reason), lastRun,
 * lastRunName, nextRun, pastSuccessfulRunNames and pastFailedRunNames. Times missed while no
 * operator ran are skipped: the next run is the schedule's first time after now. spec.suspend
 * stops new runs. timeZone other than UTC is refused (FailedValidation).
 *
 * Called by the controller (operator.c) on its reconciling thread. Ownership: every argument is
 * borrowed for the call.
 */
#ifndef CSPARK_OPERATOR_SCHEDULED_APP_H
#define CSPARK_OPERATOR_SCHEDULED_APP_H

#include <jansson.h>
#include <stdint.h>

#include "kube/kube_client.h"

#define OP_LABEL_SCHEDULED "sparkoperator.k8s.io/scheduled-app-name"

/* sched: the ScheduledSparkApplication; apps: "namespace/name" -> every SparkApplication known.
 * Returns when to look again (its next run), 0 for on a change. */
int64_t cs_operator_reconcile_scheduled(kube_client *kc, const json_t *sched, const json_t *apps,
                                        int64_t now_ms);

#endif
