/*
 * parquet_write_tool.c — the C side of tests/formats/parquet_writer_pyarrow.sh and
 * tests/spark/parquet_writer.sh (not part of the product): reads an Arrow IPC stream (pyarrow
 * wrote it) with cspark's IPC reader and writes its batches as one Parquet file with cspark's
 * writer (src/formats/parquet/parquet_writer.c), through the same four functions the "parquet"
 * format's table holds.
 *
 *   parquet_write_tool IN.arrows OUT [KEY=VALUE ...]   the options (compression, parquet.*)
 *   parquet_write_tool --abort IN.arrows OUT ...        writes every batch, then closes without
 *                                                       committing (a failed task)
 *   parquet_write_tool --extension [KEY=VALUE ...]      prints the part file's extension
 * Exit 0, or 1 with the writer's one-line error on stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/arrow_ipc.h"
#include "formats/parquet/parquet_writer.h"

static int die(const char *what, const cs_error *err)
{
    fprintf(stderr, "parquet_write_tool: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
    return 1;
}

enum { MAX_OPTIONS = 32 };
static const char *option_keys[MAX_OPTIONS], *option_values[MAX_OPTIONS];

static void parse_options(int argc, char **argv, cs_format_options *o)
{
    for (int i = 0; i < argc && o->n < MAX_OPTIONS; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) continue;
        *eq = 0;
        option_keys[o->n] = argv[i];
        option_values[o->n++] = eq + 1;
    }
    o->keys = option_keys;
    o->values = option_values;
}

int main(int argc, char **argv)
{
    cs_error err = {0};
    cs_format_options opts = {0};
    if (argc >= 2 && !strcmp(argv[1], "--extension")) {
        parse_options(argc - 2, argv + 2, &opts);
        cs_sbuf ext = CS_SBUF_INIT;
        cs_parquet_extension(&opts, &ext);
        printf("%s\n", cs_sbuf_str(&ext));
        cs_sbuf_free(&ext);
        return 0;
    }
    bool abort_at_end = argc >= 2 && !strcmp(argv[1], "--abort");
    if (abort_at_end) argc--, argv++;
    if (argc < 3) return die("usage: [--abort] IN.arrows OUT [KEY=VALUE ...]", NULL);
    parse_options(argc - 3, argv + 3, &opts);
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) return die(argv[1], NULL);
    cs_ipc_reader *r;
    if (cs_ipc_reader_open(NULL, cs_ipc_read_fd, &fd, argv[1], &r, &err)) return die("read", &err);
    void *w;
    if (cs_parquet_writer_open(argv[2], cs_ipc_reader_schema(r), &opts, &w, &err)) {
        cs_ipc_reader_free(r);
        return die("open", &err);
    }
    cs_col_batch *b;
    int rc;
    while ((rc = cs_ipc_reader_next(r, &b, &err)) == 1) {
        rc = cs_parquet_writer_write(w, b, &err);
        cs_col_batch_unref(b);
        if (rc) {
            cs_error ignored;
            cs_parquet_writer_close(w, false, &ignored);
            cs_ipc_reader_free(r);
            return die("write", &err);
        }
    }
    if (rc < 0) {
        cs_error ignored;
        cs_parquet_writer_close(w, false, &ignored);
        cs_ipc_reader_free(r);
        return die("read", &err);
    }
    if (cs_parquet_writer_close(w, !abort_at_end, &err)) {
        cs_ipc_reader_free(r);
        return die("close", &err);
    }
    cs_ipc_reader_free(r);
    close(fd);
    return 0;
}
