/* libFuzzer target for the Arrow IPC stream reader (src/formats/arrow_ipc_read.c, flatbuf.c,
 * arrow_ipc_schema.c) and the column checks under it (src/columnar/column.c): the input is a
 * stream as it comes from a file or a Spark Connect client. The first byte chooses how many bytes
 * each read of the source returns (1..128; 0 = all at once), so that short reads are explored
 * too. Every batch the reader accepts must survive cs_column_validate-checked use: it is written
 * again with the IPC writer and read back, and must come back equal. The reader must end in a
 * batch, the end, or an error — never a crash, a leak, a read out of bounds or an allocation far
 * beyond the input. Built and run by arrow_ipc.sh. With -DARROW_IPC_SEEDS it is instead a
 * program writing seed streams (the sample of every type, uncompressed, with LZ4 and with zstd
 * bodies, an empty stream, one row) into the
 * directory argv[1].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/ipc_sample.h"
#include "formats/arrow_ipc.h"

typedef struct chunked {
    cs_ipc_mem_source mem;
    size_t piece;
} chunked;

static int read_chunked(void *arg, void *p, size_t n, size_t *got, cs_error *err)
{
    chunked *c = arg;
    if (c->piece && n > c->piece) n = c->piece;
    return cs_ipc_read_mem(&c->mem, p, n, got, err);
}

static void round_trip(const cs_col_batch *b)
{
    cs_sbuf out = CS_SBUF_INIT;
    cs_ipc_writer *w = cs_ipc_writer_new(b->schema, cs_ipc_write_sbuf, &out);
    if (cs_ipc_writer_write(w, b, NULL) || cs_ipc_writer_close(w, NULL)) abort();
    cs_ipc_writer_free(w);
    cs_ipc_mem_source src = {(const uint8_t *)out.data, out.len, 0};
    cs_ipc_reader *r;
    cs_error err;
    if (cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "copy", &r, &err)) {
        fprintf(stderr, "re-read: %s\n", err.msg);
        abort();
    }
    cs_col_batch *again;
    if (cs_ipc_reader_next(r, &again, &err) != 1) {
        fprintf(stderr, "re-read: %s\n", err.msg);
        abort();
    }
    /* equality walks every row: a column of nulls may claim 2^31 rows for free */
    if (b->num_rows <= (1 << 16) && !cs_col_batch_equal(b, again)) abort();
    cs_col_batch_unref(again);
    cs_ipc_reader_free(r);
    cs_sbuf_free(&out);
}

#ifndef ARROW_IPC_SEEDS
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    chunked src = {{data + 1, size - 1, 0}, data[0] & 0x7f};
    cs_ipc_reader *r;
    if (cs_ipc_reader_open(NULL, read_chunked, &src, "fuzz", &r, NULL)) return 0;
    cs_col_batch *b;
    int batches = 0;
    while (batches < 64 && cs_ipc_reader_next(r, &b, NULL) == 1) {
        round_trip(b);
        cs_col_batch_unref(b);
        batches++;
    }
    cs_ipc_reader_free(r);
    return 0;
}
#else
static void seed(const char *dir, const char *name, int batches, int64_t rows, const char *codec)
{
    cs_sbuf out = CS_SBUF_INIT;
    cs_sbuf_putc(&out, 0); /* read all at once */
    cs_col_type *schema = sample_schema();
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_sbuf, &out);
    cs_ipc_writer_set_compression(w, codec, NULL);
    for (int k = 0; k < batches; k++) {
        cs_col_batch *b = sample_batch(NULL, rows, (uint64_t)k + 1);
        cs_ipc_writer_write(w, b, NULL);
        cs_col_batch_unref(b);
    }
    cs_ipc_writer_close(w, NULL);
    cs_ipc_writer_free(w);
    cs_col_type_unref(schema);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f)) {
        perror(path);
        exit(1);
    }
    cs_sbuf_free(&out);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    seed(argv[1], "sample_2x6", 2, 6, NULL);
    seed(argv[1], "sample_lz4", 1, 40, "lz4");
    seed(argv[1], "sample_zstd", 1, 40, "zstd");
    seed(argv[1], "one_row", 1, 1, NULL);
    seed(argv[1], "empty", 0, 0, NULL);
    return 0;
}
#endif
