/*
 * scheduler_options.c — the scheduler's settings read from the application's configuration
 * (cs_scheduler_options_read, see scheduler.h): spark.stage.maxConsecutiveAttempts and
 * spark.driver.maxResultSize. Called by the context before it creates the scheduler.
 */
#include "common/conf.h"
#include "sched/scheduler.h"

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
    o->max_stage_attempts = (int)attempts;
    o->max_result_size = max_result;
    return 0;
}
