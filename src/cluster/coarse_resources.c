/* coarse_resources.c — what each executor can run at once and which of its custom resources each
 * running task holds (Spark's ExecutorData.resourcesInfo and the task scheduler's resource
 * assignment, for the one resource profile cspark has): an executor takes as many tasks as its
 * free cores allow (spark.task.cpus each) and, for every resource tasks ask for
 * (spark.task.resource.<name>.amount), as many as its free addresses allow — whole addresses a
 * task holds alone, or a share of an address (1 / amount tasks per address). The task scheduler
 * is offered that number of slots per executor (sched/task_scheduler.h stays unaware of
 * resources); a task launched on an executor takes its cores and the lowest free addresses, and
 * gives them back when its status update comes.
 *
 * Called by coarse_registry.c (registration) and coarse_backend.c (offers, launch, completion),
 * always with b->lock held. Ownership: the address copies in exec_info.res and a running task's
 * `taken` indices are malloc'd and freed here (cs_coarse_resources_free, _release); the arrays of
 * cs_coarse_resources_take's LaunchTask.resources are freed by cs_coarse_resources_pb_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/strutil.h"

/* The resource of e tasks use that r (a request with a task amount) is. */
static const cs_resource_request *request_of(const coarse_backend *b, const exec_resource *er)
{
    return &b->res.v[er->request];
}

const char *cs_coarse_resources_admit(coarse_backend *b, exec_info *e,
                                      const Cspark__RegisterExecutor *re, char *why, size_t cap)
{
    if (re->cores < b->res.task_cpus) {
        snprintf(why, cap, "it has %d cores, fewer than spark.task.cpus (%d)", re->cores,
                 b->res.task_cpus);
        return why;
    }
    e->res = cs_xcalloc((size_t)b->res.n + 1, sizeof *e->res);
    for (int i = 0; i < b->res.n; i++) {
        const cs_resource_request *q = &b->res.v[i];
        if (q->task_amount <= 0) continue;
        const Cspark__ResourceAddresses *found = NULL;
        for (size_t k = 0; k < re->n_resources && !found; k++)
            if (re->resources[k]->name && !strcmp(re->resources[k]->name, q->name))
                found = re->resources[k];
        size_t n = found ? found->n_addresses : 0;
        if ((int64_t)n < q->task_addresses) {
            snprintf(why, cap,
                     "it has %zu addresses of resource %s, fewer than "
                     "spark.task.resource.%s.amount (%d)",
                     n, q->name, q->name, q->task_addresses);
            cs_coarse_resources_free(e);
            return why;
        }
        exec_resource *er = &e->res[e->nres++];
        er->request = i;
        er->n = (int)n;
        er->addresses = cs_xcalloc(n, sizeof *er->addresses);
        er->used = cs_xcalloc(n, sizeof *er->used);
        for (size_t a = 0; a < n; a++)
            er->addresses[a] = cs_xstrdup(found->addresses[a] ? found->addresses[a] : "");
    }
    return NULL;
}

void cs_coarse_resources_free(exec_info *e)
{
    for (int i = 0; i < e->nres; i++) {
        for (int a = 0; a < e->res[i].n; a++)
            free(e->res[i].addresses[a]);
        free(e->res[i].addresses);
        free(e->res[i].used);
    }
    free(e->res);
    e->res = NULL;
    e->nres = 0;
}

int cs_coarse_task_slots(const coarse_backend *b, const exec_info *e)
{
    int slots = e->free > 0 ? e->free / b->res.task_cpus : 0;
    for (int i = 0; i < e->nres && slots > 0; i++) {
        const exec_resource *er = &e->res[i];
        const cs_resource_request *q = request_of(b, er);
        int room = 0;
        for (int a = 0; a < er->n; a++)
            room += q->tasks_per_address > 1 ? q->tasks_per_address - er->used[a] : !er->used[a];
        if (q->tasks_per_address == 1) room /= q->task_addresses;
        if (room < slots) slots = room;
    }
    return slots;
}

void cs_coarse_resources_take(coarse_backend *b, exec_info *e, running *r, Cspark__LaunchTask *lt)
{
    e->free -= b->res.task_cpus;
    int total = 0;
    for (int i = 0; i < e->nres; i++)
        total += request_of(b, &e->res[i])->task_addresses;
    r->taken = total ? cs_xcalloc((size_t)total, sizeof *r->taken) : NULL;
    r->ntaken = 0;
    lt->n_resources = (size_t)e->nres;
    lt->resources = e->nres ? cs_xcalloc((size_t)e->nres, sizeof *lt->resources) : NULL;
    for (int i = 0; i < e->nres; i++) {
        exec_resource *er = &e->res[i];
        const cs_resource_request *q = request_of(b, er);
        Cspark__ResourceAddresses *pb = cs_xmalloc(sizeof *pb);
        cspark__resource_addresses__init(pb);
        pb->name = (char *)q->name;
        pb->addresses = cs_xcalloc((size_t)q->task_addresses, sizeof *pb->addresses);
        /* the lowest addresses with room: the slots offered guarantee there are enough */
        for (int a = 0; a < er->n && (int)pb->n_addresses < q->task_addresses; a++) {
            if (er->used[a] >= q->tasks_per_address) continue;
            er->used[a]++;
            r->taken[r->ntaken++] = (taken_address){i, a};
            pb->addresses[pb->n_addresses++] = er->addresses[a];
        }
        lt->resources[i] = pb;
    }
}

void cs_coarse_resources_release(coarse_backend *b, exec_info *e, running *r)
{
    e->free += b->res.task_cpus;
    for (int k = 0; k < r->ntaken; k++) {
        exec_resource *er = &e->res[r->taken[k].resource];
        if (er->used[r->taken[k].address] > 0) er->used[r->taken[k].address]--;
    }
    free(r->taken);
    r->taken = NULL;
    r->ntaken = 0;
}

void cs_coarse_resources_pb_free(Cspark__LaunchTask *lt)
{
    for (size_t i = 0; i < lt->n_resources; i++) {
        free(lt->resources[i]->addresses);
        free(lt->resources[i]);
    }
    free(lt->resources);
    lt->resources = NULL;
    lt->n_resources = 0;
}
