/*
 * dsjobs.c — data source jobs for tests/integration/datasource_text.sh, built as
 * build/tests/jobs/dsjobs.so:
 *   write_failing IN OUT MODE   reads the text table IN and writes it to OUT, the batches going
 *                               through a map that fails the task at a batch holding the line
 *                               "boom" (after the task wrote the batches before it): the job
 *                               fails and OUT must show nothing of it.
 *   read_options IN [schema DDL] KEY VALUE..
 *                               prints the rows of the text table IN read with the options given,
 *                               one "col=value | ..." line each, then "partitions=N".
 */
#include <stdio.h>
#include <string.h>

#include "cspark.h"

void ds_fail_at_boom(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_batch *b = cspark_batch_decode(in->value);
    if (!b) cspark_task_fail(tc, "not a column batch");
    int col = cspark_batch_column_index(b, "value");
    for (int64_t r = 0; r < cspark_batch_num_rows(b); r++) {
        cspark_slice v = cspark_batch_get_bytes(b, col, r);
        if (v.len == 4 && memcmp(v.ptr, "boom", 4) == 0) {
            cspark_batch_free(b);
            cspark_task_fail(tc, "boom in the data");
        }
    }
    cspark_batch_free(b);
    cspark_emit_record(out, in);
}

int write_failing(cspark_context *sc, int argc, char **argv)
{
    if (argc < 4) return 2;
    const char *paths[] = {argv[1]};
    cspark_rdd *t = cspark_read_files(sc, "text", paths, 1, NULL, NULL);
    cspark_rdd *checked = cspark_map(t, ds_fail_at_boom, NULL, 0);
    return cspark_write_files(checked, "text", argv[2], argv[3], NULL, NULL) < 0 ? 1 : 0;
}

int read_options(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *paths[] = {argv[1]};
    const char *options[32] = {NULL}, *schema = NULL;
    int first = 2;
    if (argc > 3 && strcmp(argv[2], "schema") == 0) { /* a DDL schema, not an option */
        schema = argv[3];
        first = 4;
    }
    for (int i = first; i < argc && i - first < 31; i++)
        options[i - first] = argv[i];
    cspark_rdd *t = cspark_read_files(sc, "text", paths, 1, schema, options);
    cspark_records *recs;
    if (cspark_collect(t, &recs) < 0) return 1;
    char text[4096];
    for (size_t i = 0; i < cspark_records_count(recs); i++) {
        cspark_batch *b = cspark_batch_decode(cspark_records_get(recs, i).value);
        if (!b) return 1;
        for (int64_t r = 0; r < cspark_batch_num_rows(b); r++) {
            for (int c = 0; c < cspark_batch_num_columns(b); c++) {
                bool valid = cspark_batch_get_text(b, c, r, text, sizeof text);
                printf("%s%s=%s", c ? " | " : "", cspark_batch_column_name(b, c),
                       valid ? text : "null");
            }
            printf("\n");
        }
        cspark_batch_free(b);
    }
    cspark_records_free(recs);
    printf("partitions=%d\n", cspark_num_partitions(t));
    return 0;
}
