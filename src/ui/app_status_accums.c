/* app_status_accums.c — the named accumulators a stage attempt and its tasks show (Spark's
 * StageData.accumulatorUpdates and TaskData.accumulatorUpdates), from the Accumulables of task
 * ends and stage completions (see app_status_internal.h). A stage keeps each accumulator's latest
 * value: every successful task end carries the value after its update, the stage completion the
 * final one, so the live UI and a replayed log end with the same figures. Unnamed accumulators
 * never reach the events. Called by app_status.c's listener with the store's lock held.
 */
#include <stdlib.h>
#include <string.h>

#include "ui/app_status_internal.h"

void cs_ui_accums_free(ui_accum *a, int n)
{
    for (int i = 0; i < n; i++) {
        free(a[i].name);
        free(a[i].update);
        free(a[i].value);
    }
    free(a);
}

void cs_ui_accums_stage_update(ui_stage *s, const cs_accumulable *a, int n)
{
    for (int k = 0; a && k < n; k++) {
        int i = 0;
        while (i < s->num_accums && s->accums[i].id != a[k].id)
            i++;
        if (i == s->num_accums) {
            s->accums = cs_xrealloc(s->accums, (size_t)(s->num_accums + 1) * sizeof *s->accums);
            s->accums[s->num_accums++] = (ui_accum){.id = a[k].id};
        }
        ui_accum *x = &s->accums[i];
        if (a[k].name && (!x->name || strcmp(x->name, a[k].name) != 0)) {
            free(x->name);
            x->name = cs_xstrdup(a[k].name);
        }
        if (a[k].value) {
            free(x->value);
            x->value = cs_xstrdup(a[k].value);
        }
    }
}

void cs_ui_accums_task_set(ui_task *t, const cs_accumulable *a, int n)
{
    cs_ui_accums_free(t->accums, t->num_accums);
    t->accums = NULL;
    t->num_accums = 0;
    if (!a || n <= 0) return;
    t->accums = cs_xcalloc((size_t)n, sizeof *t->accums);
    for (int k = 0; k < n; k++)
        t->accums[k] = (ui_accum){.id = a[k].id,
                                  .update = a[k].update ? cs_xstrdup(a[k].update) : NULL,
                                  .value = a[k].value ? cs_xstrdup(a[k].value) : NULL};
    t->num_accums = n;
}
