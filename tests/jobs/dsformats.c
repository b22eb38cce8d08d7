/*
 * dsformats.c — data source jobs for tests/spark/datasource_formats.sh (Parquet, CSV and JSON
 * tables in key=value folders, read and written through cspark_read_files / cspark_write_files),
 * built as build/tests/jobs/dsformats.so:
 *   dump FORMAT IN OUTDIR [KEY VALUE..]
 *       reads the table IN with the read options given, writes each batch's record value (an
 *       Arrow IPC stream) as OUTDIR/batch-NNNNN.arrows for pyarrow to read, and prints
 *       "schema struct<name:type,...>" (Spark's simpleString of the batches' columns; every batch
 *       must have the same) and "batches=N rows=R".
 *   copy IN_FORMAT IN OUT_FORMAT OUT MODE COLUMNS [KEY VALUE..]
 *       reads the table IN (no options) and writes its batches to OUT with OUT_FORMAT, save mode
 *       MODE, partitioned by the comma-separated COLUMNS ("-" for none) and the write options
 * given.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cspark.h"

/* The batch's schema as Spark's simpleString, in buf. */
static void schema_string(const cspark_batch *b, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "struct<");
    for (int c = 0; c < cspark_batch_num_columns(b) && n < cap; c++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s:%s", c ? "," : "",
                              cspark_batch_column_name(b, c), cspark_batch_column_type(b, c));
    if (n < cap) snprintf(buf + n, cap - n, ">");
}

int dump(cspark_context *sc, int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: dump FORMAT IN OUTDIR [KEY VALUE..]\n");
        return 2;
    }
    const char *paths[] = {argv[2]};
    const char *options[64] = {NULL};
    for (int i = 4; i < argc && i - 4 < 63; i++)
        options[i - 4] = argv[i];
    cspark_rdd *t = cspark_read_files(sc, argv[1], paths, 1, NULL, options);
    cspark_records *recs;
    if (!t || cspark_collect(t, &recs) < 0) return 1;
    char schema[8192] = "", first[8192] = "", name[4096];
    int64_t rows = 0;
    size_t n = cspark_records_count(recs);
    for (size_t i = 0; i < n; i++) {
        cspark_slice v = cspark_records_get(recs, i).value;
        cspark_batch *b = cspark_batch_decode(v);
        if (!b) {
            fprintf(stderr, "record %zu is not a column batch\n", i);
            return 1;
        }
        schema_string(b, schema, sizeof schema);
        if (i == 0) memcpy(first, schema, sizeof first);
        if (strcmp(first, schema) != 0) {
            fprintf(stderr, "batch %zu has schema %s, batch 0 %s\n", i, schema, first);
            return 1;
        }
        rows += cspark_batch_num_rows(b);
        cspark_batch_free(b);
        snprintf(name, sizeof name, "%s/batch-%05zu.arrows", argv[3], i);
        FILE *f = fopen(name, "wb");
        if (!f || fwrite(v.ptr, 1, v.len, f) != v.len || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", name);
            return 1;
        }
    }
    cspark_records_free(recs);
    printf("schema %s\nbatches=%zu rows=%" PRId64 "\n", first, n, rows);
    return 0;
}

int copy(cspark_context *sc, int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: copy IN_FORMAT IN OUT_FORMAT OUT MODE COLUMNS [KEY VALUE..]\n");
        return 2;
    }
    const char *paths[] = {argv[2]};
    cspark_rdd *t = cspark_read_files(sc, argv[1], paths, 1, NULL, NULL);
    if (!t) return 1;
    const char *by[32] = {NULL};
    char columns[1024];
    snprintf(columns, sizeof columns, "%s", argv[6]);
    int nby = 0;
    for (char *save = NULL, *c = strtok_r(columns, ",", &save); c && nby < 31;
         c = strtok_r(NULL, ",", &save))
        if (strcmp(c, "-") != 0) by[nby++] = c;
    const char *options[64] = {NULL};
    for (int i = 7; i < argc && i - 7 < 63; i++)
        options[i - 7] = argv[i];
    return cspark_write_files(t, argv[3], argv[4], argv[5], by, options) < 0 ? 1 : 0;
}
