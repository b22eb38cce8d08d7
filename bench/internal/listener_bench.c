/*
 * listener_bench.c — throughput of the listener bus (src/sched/listener.c), which the scheduler
 * posts task start and end to for every task: posts N TaskEnd events from one thread to a bus
 * with one counting listener, waits for delivery, and prints posts/s and the time until every
 * event was delivered. Run by hand: build/bin/listener_bench [N] (default 200000). The unit test
 * checks delivery and order; this is the figure (moved here from it: a benchmark is no test).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/conf.h"
#include "sched/listener.h"

static void count_only(void *arg, const cs_event *ev)
{
    (void)ev;
    (*(int64_t *)arg)++;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200000;
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.ui.showConsoleProgress", "false");
    cs_conf_set(c, "spark.scheduler.listenerbus.eventqueue.capacity", "1000000");
    cs_conf_set(c, "cspark.log.level", "WARN");
    listener_bus *bus = cs_listener_bus_new(c, "bench", "listener_bench", NULL);
    if (!bus) return 1;
    int64_t delivered = 0;
    cs_listener_bus_add(bus, count_only, &delivered);
    int64_t t0 = cs_now_ns();
    for (int i = 0; i < n; i++) {
        cs_event ev = {.kind = CS_EV_TASK_END,
                       .task_id = i,
                       .stage_id = 1,
                       .executor_id = "12",
                       .host = "10.0.0.12",
                       .task_type = "ShuffleMapTask",
                       .succeeded = true,
                       .time_ms = 1};
        cs_listener_bus_post(bus, &ev);
    }
    int64_t posted = cs_now_ns() - t0;
    cs_listener_bus_flush(bus);
    int64_t all = cs_now_ns() - t0;
    printf("listener bus: %d posts in %.1f ms (%.0f posts/s), all delivered after %.1f ms, "
           "%lld delivered, %lld dropped\n",
           n, posted / 1e6, n / (posted / 1e9), all / 1e6, (long long)delivered,
           (long long)cs_listener_bus_dropped(bus));
    cs_listener_bus_free(bus);
    cs_conf_free(c);
    return delivered == n ? 0 : 1;
}
