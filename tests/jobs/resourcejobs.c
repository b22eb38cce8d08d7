/*
 * resourcejobs.c — jobs whose tasks use custom resources (spark.task.resource.<name>.amount),
 * built as build/tests/jobs/resourcejobs.so. Used by tests/integration/task_resources.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

typedef struct gpu_args {
    char dir[512]; /* where held-<address> files mark the addresses running tasks hold */
    int amount;    /* addresses each task must get */
    int exclusive; /* 1: no two running tasks may hold one address */
} gpu_args;

/* Each record: the task's "gpu" addresses, checked (the amount asked for; held by no other
 * running task when exclusive, by an O_EXCL file per address), held for 20 ms, then emitted as
 * one comma-separated value. */
void hold_gpus(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const gpu_args *a = cspark_closure(tc, &len);
    const cspark_resource *res = NULL;
    int n = cspark_task_resources(tc, &res);
    const cspark_resource *gpu = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(res[i].name, "gpu")) gpu = &res[i];
    if (!gpu || gpu->num_addresses != a->amount)
        cspark_task_fail(tc, "task got %d gpu addresses, expected %d", gpu ? gpu->num_addresses : 0,
                         a->amount);
    char held[8][1024];
    int nheld = 0;
    for (int i = 0; a->exclusive && i < gpu->num_addresses && i < 8; i++) {
        snprintf(held[nheld], sizeof held[nheld], "%s/held-%s", a->dir, gpu->addresses[i]);
        int fd = open(held[nheld], O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd < 0)
            cspark_task_fail(tc, "gpu address %s is held by another running task (%s)",
                             gpu->addresses[i], strerror(errno));
        close(fd);
        nheld++;
    }
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    for (int i = 0; i < nheld; i++)
        unlink(held[i]);
    char line[1024] = "";
    for (int i = 0; i < gpu->num_addresses; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? "," : "",
                 gpu->addresses[i]);
    cspark_emit(out, in->key.ptr, in->key.len, line, strlen(line));
}

/* gpu_tasks DIR AMOUNT EXCLUSIVE: 24 records in 12 partitions, each task checking and printing
 * the gpu addresses it was given, one line per record ("addresses=a,b"); then "records=N". */
int gpu_tasks(cspark_context *sc, int argc, char **argv)
{
    if (argc < 4) return 2;
    gpu_args a = {.amount = atoi(argv[2]), .exclusive = atoi(argv[3])};
    snprintf(a.dir, sizeof a.dir, "%s", argv[1]);
    cspark_records *r = NULL;
    if (cspark_collect(cspark_map(cspark_range(sc, 0, 24, 1, 12), hold_gpus, &a, sizeof a), &r) < 0)
        return 1;
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_record rec = cspark_records_get(r, i);
        printf("addresses=%.*s\n", (int)rec.value.len, (const char *)rec.value.ptr);
    }
    printf("records=%zu\n", cspark_records_count(r));
    cspark_records_free(r);
    return 0;
}
