/* libFuzzer target for event-log replay (src/history/event_replay.c) into the UI status store
 * (src/ui/app_status*.c), as the history server does when an application is opened: the input is
 * a log, split into lines with a 4 KiB line cap, each line replayed into one store; then the
 * store's listings are walked. Replay must never crash, leak or take memory out of proportion to
 * the input (libFuzzer's -rss_limit_mb and -malloc_limit_mb catch a 256 MiB bitmap from one task
 * index, issue 21 item 6). Built and run by event_replay.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "history/event_replay.h"
#include "ui/app_status.h"

typedef struct ctx {
    ui_store *st;
    char *version;
} ctx;

static int replay_one(void *arg, const char *line, size_t len)
{
    ctx *c = arg;
    cs_replay_line(line, len, cs_ui_store_listener, c->st, &c->version);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) return 0;
    ctx c = {cs_ui_store_new(NULL), NULL};
    replay_stats st = {0};
    cs_replay_each_line(f, 4096, replay_one, &c, &st);
    fclose(f);
    cs_ui_store_lock(c.st);
    size_t n = cs_ui_store_num_stages(c.st);
    for (size_t i = 0; i < n; i++) {
        const ui_stage *s = cs_ui_store_stage_at(c.st, i);
        if (s->completed_indices < 0) abort();
    }
    for (size_t i = 0; i < cs_ui_store_num_executors(c.st); i++)
        (void)cs_ui_store_executor_at(c.st, i);
    for (size_t i = 0; i < cs_ui_store_num_rdds(c.st); i++)
        (void)cs_ui_store_rdd_at(c.st, i);
    cs_ui_store_unlock(c.st);
    cs_ui_store_free(c.st);
    free(c.version);
    return 0;
}
