/*
 * filesjob.c — a job that reads files shipped with --files / --archives in its tasks, for
 * tests/integration/shipped_files.sh and tests/k8s/shipped_files.sh. Each of 4 tasks
 * finds "lookup.csv" (lines "word,number") with cspark_files_get and emits
 * "task <p> sum=<sum of the numbers> archive=<first line of <archive>/inner/hello.txt or none>";
 * the driver prints the sorted lines and "driver sum=<sum>" from its own copy. Built a second time
 * with a 20 MiB table (filesjob_big.so) to ship an application beyond a ConfigMap's 1 MiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.h"

#ifdef FILESJOB_PAD_MB
/* initialised, so it is stored in the .so (.data), not allocated at load (.bss) */
volatile const unsigned char filesjob_pad[FILESJOB_PAD_MB << 20] = {1};
#endif

static long long lookup_sum(const char *path)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) return -1;
    char line[256];
    long long sum = 0;
    while (fgets(line, sizeof line, f)) {
        char *comma = strchr(line, ',');
        if (comma) sum += atoll(comma + 1);
    }
    fclose(f);
    return sum;
}

static void archive_line(const char *dir, char *out, size_t cap)
{
    snprintf(out, cap, "none");
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/inner/hello.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(out, cap, "missing");
        return;
    }
    if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

void read_shipped(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_record r;
    while (cspark_iterator_next(in, &r)) {
    }
    size_t len;
    const char *archive = cspark_closure(tc, &len);
    char line[512], first[256];
    archive_line(len > 1 ? cspark_files_get(tc, archive) : NULL, first, sizeof first);
    int n = snprintf(line, sizeof line, "task %d sum=%lld archive=%s", cspark_partition_id(tc),
                     lookup_sum(cspark_files_get(tc, "lookup.csv")), first);
    cspark_emit(out, line, (size_t)n, NULL, 0);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* argv[1]: the name of a shipped archive to read (optional). */
int cspark_main(cspark_context *sc, int argc, char **argv)
{
    const char *archive = argc > 1 ? argv[1] : "";
    cspark_rdd *rdd = cspark_map_partitions(cspark_range(sc, 0, 4, 1, 4), read_shipped, archive,
                                            strlen(archive) + 1);
    cspark_records *recs;
    if (cspark_collect(rdd, &recs) < 0) return 1;
    size_t n = cspark_records_count(recs);
    char **lines = calloc(n ? n : 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        cspark_record r = cspark_records_get(recs, i);
        lines[i] = strndup((const char *)r.key.ptr, r.key.len);
    }
    qsort(lines, n, sizeof *lines, by_key);
    for (size_t i = 0; i < n; i++) {
        printf("%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    cspark_records_free(recs);
    printf("driver sum=%lld\n", lookup_sum(cspark_files_get_driver(sc, "lookup.csv")));
#ifdef FILESJOB_PAD_MB
    printf("pad=%d\n", filesjob_pad[0]);
#endif
    return 0;
}
