/*
 * shutdown.c — the process's stop request and the task reaper's settings (see shutdown.h).
 */
#include "common/shutdown.h"

static int requested_signal; /* atomics: written by the signal watcher, read by any thread */
static int hurried;
static int abandoned_tasks;
static int exit_pending;

void cs_shutdown_request(int sig)
{
    int none = 0;
    __atomic_compare_exchange_n(&requested_signal, &none, sig > 0 ? sig : 1, false,
                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

void cs_shutdown_hurry(void)
{
    cs_shutdown_request(0);
    __atomic_store_n(&hurried, 1, __ATOMIC_SEQ_CST);
}

int cs_shutdown_signal(void)
{
    return __atomic_load_n(&requested_signal, __ATOMIC_SEQ_CST);
}

bool cs_shutdown_requested(void)
{
    return cs_shutdown_signal() != 0;
}

bool cs_shutdown_hurried(void)
{
    return __atomic_load_n(&hurried, __ATOMIC_SEQ_CST) != 0;
}

int64_t cs_shutdown_grace_ms(int64_t grace_ms)
{
    return cs_shutdown_hurried() ? 0 : grace_ms;
}

void cs_shutdown_task_abandoned(int delta)
{
    __atomic_add_fetch(&abandoned_tasks, delta, __ATOMIC_SEQ_CST);
}

int cs_shutdown_abandoned_tasks(void)
{
    return __atomic_load_n(&abandoned_tasks, __ATOMIC_SEQ_CST);
}

void cs_shutdown_set_exit_pending(void)
{
    __atomic_store_n(&exit_pending, 1, __ATOMIC_SEQ_CST);
}

bool cs_shutdown_exit_pending(void)
{
    return __atomic_load_n(&exit_pending, __ATOMIC_SEQ_CST) || cs_shutdown_abandoned_tasks() > 0;
}

int cs_task_reaper_timeout(const cs_conf *conf, int64_t *out_ms, cs_error *err)
{
    cs_error local;
    if (!err) err = &local;
    *out_ms = -1;
    bool enabled = true;
    if (cs_conf_get_bool(conf, "spark.task.reaper.enabled", "true", &enabled, err) < 0)
        return err->code;
    if (!enabled) return 0;
    int64_t ms;
    if (cs_conf_get_duration_ms(conf, "spark.task.reaper.killTimeout",
                                CS_TASK_REAPER_DEFAULT_TIMEOUT, CS_MS, &ms, err) < 0)
        return err->code;
    if (ms == -1) return 0; /* Spark's "never" */
    if (ms < 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.task.reaper.killTimeout: '%s' (expected a "
                            "duration >= 0, or -1 for never)",
                            cs_conf_get(conf, "spark.task.reaper.killTimeout"));
    *out_ms = ms;
    return 0;
}
