/*
 * scheduler_options.c — cs_scheduler_options_read (see scheduler.h): the scheduler's settings
 * read once from the application's conf by the context (src/api/context.c): stage attempts, the
 * result size limit, the task reaper and the locality waits (common/shutdown.h).
 */
#include "common/shutdown.h"
#include "sched/scheduler.h"
#include "sched/task_scheduler.h"

int cs_scheduler_options_read(const cs_conf *conf, scheduler_options *o, cs_error *err)
{
    int64_t attempts = 4, max_result = 0;
    if (cs_conf_get_int(conf, "spark.stage.maxConsecutiveAttempts", "4", &attempts, err) < 0)
        return err->code;
    if (attempts < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.stage.maxConsecutiveAttempts: '%lld' "
                            "(expected an integer >= 1)",
                            (long long)attempts);
    if (cs_conf_get_size(conf, "spark.driver.maxResultSize", "1g", CS_BYTE, &max_result, err) < 0)
        return err->code;
    if (cs_task_reaper_timeout(conf, &o->task_kill_timeout_ms, err) < 0) return err->code;
    if (cs_locality_waits_read(conf, &o->locality_waits, err) < 0) return err->code;
    o->task_reaper = o->task_kill_timeout_ms >= 0;
    o->max_stage_attempts = (int)attempts;
    o->max_result_size = max_result;
    return 0;
}
