/*
 * parquet_scan_tool.c — drives cspark's Parquet format (cs_file_format_parquet: schema
 * inference and the scan of src/formats/parquet/parquet_scan.c) from the command line, for the
 * tests that compare it with pyarrow and Spark (tests/formats/parquet_scan_pyarrow.sh,
 * tests/spark/parquet_spark_read.sh) and the benchmark (bench/parquet_scan.sh). Test tool, not
 * part of the product.
 *
 *   parquet_scan_tool schema FILE          the inferred schema, Spark's simpleString
 *   parquet_scan_tool read FILE OUT [opts] the batches as an Arrow IPC stream in OUT (dictionary
 *                                          columns decoded); stderr: one JSON line of statistics
 *   parquet_scan_tool scan FILE [opts]     reads every batch, prints "rows=N seconds=S cpu=C"
 * opts: --columns a,b,c   read only these top-level columns (in this order)
 *       --batch N         rows per batch (default 4096)
 *       --split START:LEN read the byte range [START, START+LEN) only (default: the whole file)
 *       --filter COL:OP:V1[|V2...]   a pushed filter (OP: eq lt le gt ge isnull notnull in);
 *                         literals are integers (integral, date, timestamp columns: days or
 *                         microseconds), numbers (float, double) or text (string, binary); may
 * repeat Exit 0; 1 with the reader's one-line error on stderr; 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "columnar/col_type.h"
#include "formats/arrow_ipc.h"
#include "formats/file_format.h"
#include "formats/parquet/parquet_scan.h"

#define MAX_FILTERS 16
#define MAX_VALUES 64

static void usage(void)
{
    fprintf(stderr, "usage: parquet_scan_tool schema FILE | read FILE OUT [opts] | scan FILE "
                    "[opts]\n");
    exit(2);
}

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const cs_col_field *field_named(const cs_col_type *schema, const char *name)
{
    for (int k = 0; k < schema->n_fields; k++)
        if (strcmp(schema->fields[k].name, name) == 0) return &schema->fields[k];
    return NULL;
}

static void parse_literal(const cs_col_type *t, char *text, cs_scalar *v)
{
    memset(v, 0, sizeof *v);
    v->type = t->id;
    if (strcmp(text, "null") == 0) {
        v->is_null = true;
        return;
    }
    switch (t->id) {
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
        v->f64 = strtod(text, NULL);
        break;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        v->data = (const uint8_t *)text;
        v->len = (int32_t)strlen(text);
        break;
    case CS_TYPE_DECIMAL:
        v->dec = strtoll(text, NULL, 10);
        break;
    default:
        v->i64 = strtoll(text, NULL, 10);
        break;
    }
}

static int write_fd(void *arg, const void *p, size_t n, cs_error *err)
{
    return cs_ipc_write_fd(arg, p, n, err);
}

int main(int argc, char **argv)
{
    if (argc < 3) usage();
    const char *mode = argv[1], *file = argv[2], *out_path = NULL;
    int argi = 3;
    if (strcmp(mode, "read") == 0) {
        if (argc < 4) usage();
        out_path = argv[3];
        argi = 4;
    } else if (strcmp(mode, "scan") != 0 && strcmp(mode, "schema") != 0) {
        usage();
    }
    const cs_file_format *fmt = cs_file_format_find("parquet");
    cs_error err = {0};
    cs_col_type *schema;
    if (fmt->infer_schema(&file, 1, NULL, &schema, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (strcmp(mode, "schema") == 0) {
        cs_sbuf s = CS_SBUF_INIT;
        cs_col_type_simple_string(schema, &s);
        printf("%s\n", cs_sbuf_str(&s));
        cs_sbuf_free(&s);
        cs_col_type_unref(schema);
        return 0;
    }
    cs_col_type *read_schema = cs_col_type_ref(schema);
    int64_t batch = 4096;
    struct stat st;
    if (stat(file, &st) != 0) {
        fprintf(stderr, "cannot stat %s\n", file);
        return 1;
    }
    cs_file_split split = {file, 0, (uint64_t)st.st_size, (uint64_t)st.st_size};
    cs_scan_filter filters[MAX_FILTERS];
    cs_scalar values[MAX_FILTERS][MAX_VALUES];
    int nf = 0;
    for (; argi < argc; argi++) {
        const char *opt = argv[argi];
        if (argi + 1 >= argc) usage();
        char *arg = argv[++argi];
        if (strcmp(opt, "--batch") == 0) {
            batch = atoll(arg);
        } else if (strcmp(opt, "--split") == 0) {
            if (sscanf(arg, "%lu:%lu", &split.start, &split.length) != 2) usage();
        } else if (strcmp(opt, "--columns") == 0) {
            cs_col_field fields[256];
            int n = 0;
            for (char *tok = strtok(arg, ","); tok && n < 256; tok = strtok(NULL, ",")) {
                const cs_col_field *f = field_named(schema, tok);
                fields[n] = f ? (cs_col_field){f->name, cs_col_type_ref(f->type), f->nullable}
                              : (cs_col_field){tok, cs_col_type_primitive(CS_TYPE_INT), true};
                n++;
            }
            cs_col_type_unref(read_schema);
            read_schema = cs_col_type_struct(fields, n);
        } else if (strcmp(opt, "--filter") == 0 && nf < MAX_FILTERS) {
            char *col = strtok(arg, ":"), *op = strtok(NULL, ":"), *lits = strtok(NULL, "");
            const cs_col_field *f = col ? field_named(schema, col) : NULL;
            if (!f || !op) usage();
            static const char *ops[] = {"eq", "nseq",   "lt",      "le", "gt",
                                        "ge", "isnull", "notnull", "in"};
            int o = 0;
            while (o < 9 && strcmp(ops[o], op) != 0)
                o++;
            if (o == 9) usage();
            filters[nf] = (cs_scan_filter){f->name, (cs_filter_op)o, values[nf], 0};
            for (char *v = lits ? strtok(lits, "|") : NULL; v && filters[nf].n_values < MAX_VALUES;
                 v = strtok(NULL, "|"))
                parse_literal(f->type, v, &values[nf][filters[nf].n_values++]);
            nf++;
        } else {
            usage();
        }
    }
    cs_col_allocator alloc;
    cs_col_allocator_init(&alloc, NULL);
    cs_scan_request req = {schema, read_schema, nf ? filters : NULL, nf, batch, &alloc, NULL};
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    void *reader;
    int status = 0, fd = -1;
    if (fmt->open_reader(&split, &req, &reader, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        cs_col_type_unref(read_schema);
        cs_col_type_unref(schema);
        return 1;
    }
    cs_ipc_writer *w = NULL;
    if (out_path) {
        FILE *fo = fopen(out_path, "wb");
        if (!fo) {
            fprintf(stderr, "cannot write %s\n", out_path);
            exit(1);
        }
        fd = dup(fileno(fo));
        fclose(fo);
        w = cs_ipc_writer_new(read_schema, write_fd, &fd);
    }
    int64_t rows = 0, batches = 0, dict_columns = 0;
    int rc;
    cs_col_batch *b;
    while ((rc = fmt->next_batch(reader, &b, &err)) == 1) {
        rows += b->num_rows;
        batches++;
        for (int k = 0; k < b->n_columns && out_path && !status; k++)
            if (cs_column_validate(b->columns[k], &err)) { /* the scan built a bad column */
                fprintf(stderr, "column %s of batch %lld: %s\n", b->schema->fields[k].name,
                        (long long)batches, err.msg);
                status = 3;
            }
        if (w && !status) {
            cs_column **cols = cs_xcalloc((size_t)b->n_columns + 1, sizeof *cols);
            for (int k = 0; k < b->n_columns; k++) {
                dict_columns += b->columns[k]->dictionary != NULL;
                cols[k] = cs_column_decode(b->columns[k], &alloc);
            }
            cs_col_batch *plain =
                cs_col_batch_new(cs_col_type_ref(b->schema), cols, b->n_columns, b->num_rows, &err);
            free(cols);
            if (!plain || cs_ipc_writer_write(w, plain, &err)) rc = -1;
            cs_col_batch_unref(plain);
        }
        cs_col_batch_unref(b);
        if (rc < 0 || status) break;
    }
    if (rc < 0 && !status) {
        fprintf(stderr, "%s\n", err.msg);
        status = 1;
    }
    const cs_pq_scan_stats *ss = cs_pq_scan_stats_of(reader);
    if (w && !status && cs_ipc_writer_close(w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        status = 1;
    }
    if (w && !status)
        fprintf(stderr,
                "{\"rows\":%lld,\"batches\":%lld,\"dictionary_columns\":%lld,"
                "\"row_groups_in_split\":%lld,\"row_groups_pruned\":%lld,\"pages_skipped\":%lld}\n",
                (long long)rows, (long long)batches, (long long)dict_columns,
                (long long)ss->row_groups_in_split, (long long)ss->row_groups_pruned,
                (long long)ss->pages_skipped);
    else if (!status)
        printf("rows=%lld seconds=%.3f cpu=%.3f\n", (long long)rows, now(CLOCK_MONOTONIC) - t0,
               now(CLOCK_PROCESS_CPUTIME_ID) - c0);
    if (w) cs_ipc_writer_free(w);
    if (fd >= 0) close(fd);
    fmt->close_reader(reader);
    cs_col_type_unref(read_schema);
    cs_col_type_unref(schema);
    return status;
}
