/*
 * arrow_ipc_tool.c — the C side of tests/formats/arrow_ipc_pyarrow.sh (not part of the product):
 *   write FILE [BATCHES ROWS [CODEC]]  writes sample batches (ipc_sample.h) as an Arrow IPC
 *                              stream to FILE (bodies compressed with CODEC, lz4 or zstd, when
 *                              given) and prints their dump (the schema once) on stdout
 *   dump FILE                  reads an Arrow IPC stream and prints its dump
 *   copy IN OUT                reads IN and writes every batch again to OUT
 *   check FILE [BATCHES ROWS]  reads FILE and checks that it holds exactly the sample batches
 * Exit 0, or 1 with one line on stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/arrow_ipc.h"
#include "ipc_sample.h"

static int die(const char *what, const cs_error *err)
{
    fprintf(stderr, "arrow_ipc_tool: %s: %s\n", what, err ? err->msg : "");
    return 1;
}

static int open_reader(const char *path, int *fd, cs_ipc_reader **r, cs_error *err)
{
    *fd = open(path, O_RDONLY);
    if (*fd < 0) return cs_error_set(err, CS_EIO, "cannot open %s", path);
    return cs_ipc_reader_open(NULL, cs_ipc_read_fd, fd, path, r, err);
}

int main(int argc, char **argv)
{
    cs_error err = {0};
    if (argc < 3) return die("usage: write|dump|copy|check FILE ...", NULL);
    const char *cmd = argv[1];
    int batches = 3, rows = 50;
    if ((!strcmp(cmd, "write") || !strcmp(cmd, "check")) && argc >= 5) {
        batches = atoi(argv[3]);
        rows = atoi(argv[4]);
    }
    if (!strcmp(cmd, "write")) {
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) return die(argv[2], NULL);
        cs_col_type *schema = sample_schema();
        cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_fd, &fd);
        if (argc >= 6 && cs_ipc_writer_set_compression(w, argv[5], &err)) return die("codec", &err);
        for (int k = 0; k < batches; k++) {
            cs_col_batch *b = sample_batch(NULL, rows + k, (uint64_t)k + 1);
            if (k == 0) dump_schema(b, stdout);
            dump_rows(b, stdout);
            if (cs_ipc_writer_write(w, b, &err)) return die("write", &err);
            cs_col_batch_unref(b);
        }
        if (cs_ipc_writer_close(w, &err)) return die("close", &err);
        cs_ipc_writer_free(w);
        cs_col_type_unref(schema);
        return close(fd) ? die("close", NULL) : 0;
    }
    int fd;
    cs_ipc_reader *r;
    if (open_reader(argv[2], &fd, &r, &err)) return die("open", &err);
    int out_fd = -1;
    cs_ipc_writer *w = NULL;
    if (!strcmp(cmd, "copy")) {
        if (argc < 4) return die("usage: copy IN OUT", NULL);
        out_fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0) return die(argv[3], NULL);
        w = cs_ipc_writer_new((cs_col_type *)cs_ipc_reader_schema(r), cs_ipc_write_fd, &out_fd);
    }
    cs_col_batch *b;
    int rc, k = 0;
    while ((rc = cs_ipc_reader_next(r, &b, &err)) == 1) {
        if (!strcmp(cmd, "dump")) {
            if (k == 0) dump_schema(b, stdout);
            dump_rows(b, stdout);
        } else if (w) {
            if (cs_ipc_writer_write(w, b, &err)) return die("write", &err);
        } else {
            cs_col_batch *want = sample_batch(NULL, rows + k, (uint64_t)k + 1);
            if (!cs_col_batch_equal(b, want)) {
                fprintf(stderr, "arrow_ipc_tool: batch %d differs from the sample\n", k);
                return 1;
            }
            cs_col_batch_unref(want);
        }
        cs_col_batch_unref(b);
        k++;
    }
    if (rc < 0) return die("read", &err);
    if (!strcmp(cmd, "check") && k != batches) {
        fprintf(stderr, "arrow_ipc_tool: %d batches, expected %d\n", k, batches);
        return 1;
    }
    if (w && cs_ipc_writer_close(w, &err)) return die("close", &err);
    cs_ipc_writer_free(w);
    cs_ipc_reader_free(r);
    close(fd);
    if (out_fd >= 0 && close(out_fd)) return die("close", NULL);
    return 0;
}
