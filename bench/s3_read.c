/*
 * s3_read.c — reads an object through src/fs as text_file's tasks do (cs_fs_open over a split,
 * 1 MiB reads), with T threads each reading one of T equal splits, and prints the bytes/s. Run
 * by bench/s3_bench.sh against the tests' S3 server beside `curl` downloading the same object.
 * usage: s3_read URI SIZE_BYTES THREADS [KEY=VALUE...]   (configuration, e.g.
 * spark.hadoop.fs.s3a.*)
 */
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fs/fs.h"

typedef struct job {
    const char *uri;
    uint64_t off, len, size, got;
    int failed;
} job;

static void *run(void *arg)
{
    job *j = arg;
    cs_error err;
    cs_fs_reader *r = cs_fs_open(j->uri, j->off, j->len, j->size, &err);
    if (!r) {
        fprintf(stderr, "s3_read: %s\n", err.msg);
        j->failed = 1;
        return NULL;
    }
    char *buf = malloc(1 << 20);
    while (j->got < j->len) {
        ssize_t n = cs_fs_read(r, buf, 1 << 20, &err);
        if (n <= 0) {
            if (n < 0) fprintf(stderr, "s3_read: %s\n", err.msg);
            j->failed = n < 0;
            break;
        }
        j->got += (uint64_t)n;
    }
    free(buf);
    cs_fs_reader_close(r);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: s3_read URI SIZE_BYTES THREADS [KEY=VALUE...]\n");
        return 2;
    }
    cs_conf *conf = cs_conf_new();
    for (int i = 4; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) return 2;
        *eq = 0;
        cs_conf_set(conf, argv[i], eq + 1);
    }
    cs_fs_configure(conf);
    cs_conf_free(conf);
    uint64_t size = strtoull(argv[2], NULL, 10);
    int t = atoi(argv[3]);
    if (t < 1 || t > 64) return 2;
    job jobs[64];
    pthread_t th[64];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < t; i++) {
        uint64_t lo = size * (uint64_t)i / (uint64_t)t, hi = size * (uint64_t)(i + 1) / (uint64_t)t;
        jobs[i] = (job){argv[1], lo, hi - lo, size, 0, 0};
        pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    uint64_t total = 0;
    int failed = 0;
    for (int i = 0; i < t; i++) {
        pthread_join(th[i], NULL);
        total += jobs[i].got;
        failed |= jobs[i].failed;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    if (failed || total != size) {
        fprintf(stderr, "s3_read: read %llu of %llu bytes\n", (unsigned long long)total,
                (unsigned long long)size);
        return 1;
    }
    printf("%.3f\n", s);
    return 0;
}
