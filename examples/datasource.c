/*
 * datasource.c — reads a table of text files laid out in key=value folders as column batches,
 * prints its rows, and writes it back partitioned by the given columns.
 *
 * Spark equivalent:
 *
 *     val df = spark.read.format("text").load(input)   // value + the folders' columns
 *     df.collect().foreach(println)
 *     df.write.format("text").mode(mode).partitionBy(cols: _*).save(output)
 *
 * Usage: datasource.so INPUT OUTPUT MODE [PARTITION_COLUMN...]
 *   INPUT   a file, directory (read at every depth) or glob, on file: or s3a://
 *   OUTPUT  the directory to write; MODE errorifexists, overwrite, append or ignore
 * stdout: one line per row, "col=value" for every column joined by " | " (null for a null), in
 * the order the rows were read; then "rows=N partitions=P".
 *
 * Each record of cspark_read_files is one column batch (an Arrow IPC stream in its value);
 * cspark_batch_decode gives it back as columns to walk from C. The same RDD goes to
 * cspark_write_files, which routes every row into the folder of its partition values.
 */
#include <cspark.h>

#include <inttypes.h>
#include <stdio.h>

/* Prints the rows of one batch. */
static int64_t print_batch(const cspark_batch *b)
{
    char text[4096];
    for (int64_t row = 0; row < cspark_batch_num_rows(b); row++) {
        for (int c = 0; c < cspark_batch_num_columns(b); c++) {
            bool valid = cspark_batch_get_text(b, c, row, text, sizeof text);
            printf("%s%s=%s", c ? " | " : "", cspark_batch_column_name(b, c),
                   valid ? text : "null");
        }
        printf("\n");
    }
    return cspark_batch_num_rows(b);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: datasource.so INPUT OUTPUT MODE [PARTITION_COLUMN...]\n");
        return 2;
    }
    const char *paths[] = {argv[1]};
    cspark_rdd *table = cspark_read_files(sc, "text", paths, 1, NULL, NULL);
    cspark_records *batches;
    if (cspark_collect(table, &batches) < 0) return 1;
    int64_t rows = 0;
    for (size_t i = 0; i < cspark_records_count(batches); i++) {
        cspark_batch *b = cspark_batch_decode(cspark_records_get(batches, i).value);
        if (!b) {
            fprintf(stderr, "record %zu is not a column batch\n", i);
            return 1;
        }
        rows += print_batch(b);
        cspark_batch_free(b);
    }
    cspark_records_free(batches);
    printf("rows=%" PRId64 " partitions=%d\n", rows, cspark_num_partitions(table));

    /* argv[4..argc) are the partition columns, as a NULL-terminated list */
    const char *partition_by[32] = {NULL};
    for (int i = 4; i < argc && i - 4 < 31; i++)
        partition_by[i - 4] = argv[i];
    return cspark_write_files(table, "text", argv[2], argv[3], partition_by, NULL) < 0 ? 1 : 0;
}
