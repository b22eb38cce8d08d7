/* parquet_writer.c — the Parquet file writer (parquet_writer.h): options, the file, row groups
 * and the footer. Each leaf column has a chunk writer (parquet_writer_chunk.c) that shreds the
 * batch's rows into its pages; after every slice of rows the writer adds up what the chunks
 * hold and, at parquet.block.size, writes the row group (every chunk, its dictionary page first)
 * through src/fs and keeps only the chunks' metadata for the footer. close(commit) writes the
 * last row group, the chunks' page indexes (ColumnIndex and OffsetIndex, as parquet-mr writes
 * them by default), the FileMetaData (Spark's schema JSON and version in its key/value metadata,
 * TYPE_ORDER column orders, created_by) and the closing magic, then finishes the fs writer
 * (the local file is renamed into place; an object store's upload is completed); close without
 * commit, or after a failure, aborts it, so nothing is left at the URI.
 *
 * Called through the "parquet" format's table (parquet_format.c) by the data source layer, and
 * by tests/formats/parquet_write_tool.c.
 */
#include "formats/parquet/parquet_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cspark.h"
#include "formats/parquet/parquet_writer_col.h"
#include "fs/fs.h"

/* The Spark version whose files these are: Spark's readers choose their date/timestamp rebase
 * mode from it (a version before 3.0 would mean the legacy hybrid calendar). */
#define CS_PARQUET_SPARK_VERSION "4.0.1"
#define SPARK_ROW_METADATA "org.apache.spark.sql.parquet.row.metadata"
enum { SLICE_ROWS = 1024 };

typedef struct pq_writer {
    char *uri;
    cs_col_type *schema;
    cs_pqw_config cfg;
    cs_pqw_schema ps;
    cs_pqw_chunk *chunks; /* one per leaf */
    cs_fs_writer *fs;
    int64_t offset; /* bytes written to the file */
    int64_t rg_rows, total_rows;
    int64_t rg_buffered; /* bytes the row group's chunks held at the last look */
    int64_t slice;       /* rows to add before the next look */
    cs_parquet_row_group *groups;
    uint32_t n_groups, cap_groups;
    cs_sbuf arena; /* pointers to the blocks the footer's metadata lives in */
    cs_sbuf column_indexes, offset_indexes; /* every chunk's page index, written at close */
    bool failed;
} pq_writer;

/* ---- options -------------------------------------------------------------------------------- */

static const struct {
    const char *name;
    int codec;
    const char *extension;
} codecs[] = {
    {"snappy", CS_PQ_CODEC_SNAPPY, "snappy.parquet"},
    {"none", CS_PQ_CODEC_UNCOMPRESSED, "parquet"},
    {"uncompressed", CS_PQ_CODEC_UNCOMPRESSED, "parquet"},
    {"gzip", CS_PQ_CODEC_GZIP, "gz.parquet"},
    {"zstd", CS_PQ_CODEC_ZSTD, "zstd.parquet"},
    {"lz4", CS_PQ_CODEC_LZ4, "lz4hadoop.parquet"}, /* Spark 4's lz4 is Hadoop-framed LZ4 */
    {"lz4_raw", CS_PQ_CODEC_LZ4_RAW, "lz4raw.parquet"},
};

static const char *codec_option(const cs_format_options *o)
{
    const char *v = o ? cs_format_option(o, "compression") : NULL;
    if (!v && o) v = cs_format_option(o, "parquet.compression");
    return v ? v : "snappy";
}

static int find_codec(const cs_format_options *o, cs_error *err)
{
    const char *v = codec_option(o);
    for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
        if (strcasecmp(v, codecs[i].name) == 0) return (int)i;
    if (strcasecmp(v, "lzo") == 0 || strcasecmp(v, "brotli") == 0)
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "option compression: the %s codec is not supported (none, "
                            "uncompressed, snappy, gzip, lz4, lz4_raw and zstd are)",
                            v);
    return cs_error_set(err, CS_EINVAL,
                        "option compression: codec [%s] is not available; known codecs are none, "
                        "uncompressed, snappy, gzip, lz4, lz4_raw, zstd",
                        v);
}

void cs_parquet_extension(const cs_format_options *options, cs_sbuf *out)
{
    cs_error err;
    int i = find_codec(options, &err);
    cs_sbuf_puts(out, codecs[i >= 0 ? i : 0].extension);
}

static int size_option(const cs_format_options *o, const char *key, int64_t dflt, int64_t *out,
                       cs_error *err)
{
    const char *v = o ? cs_format_option(o, key) : NULL;
    *out = dflt;
    if (!v) return 0;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || n <= 0)
        return cs_error_set(err, CS_EINVAL, "option %s: expected a positive number, got '%s'", key,
                            v);
    *out = n;
    return 0;
}

static int choice_option(const cs_format_options *o, const char *key, const char *const *names,
                         const int *values, int n, const char *expected, int *out, cs_error *err)
{
    const char *v = o ? cs_format_option(o, key) : NULL;
    if (!v) return 0;
    for (int i = 0; i < n; i++)
        if (strcasecmp(v, names[i]) == 0) {
            *out = values[i];
            return 0;
        }
    return cs_error_set(err, CS_EINVAL, "option %s: expected %s, got '%s'", key, expected, v);
}

static int parse_options(const cs_format_options *o, cs_pqw_config *cfg, cs_error *err)
{
    int i = find_codec(o, err);
    if (i < 0) return i;
    *cfg = (cs_pqw_config){.codec = codecs[i].codec, .timestamp = CS_PQW_TS_INT96};
    int rc;
    if ((rc = size_option(o, "parquet.block.size", 128LL << 20, &cfg->block_size, err)) ||
        (rc = size_option(o, "parquet.page.size", 1LL << 20, &cfg->page_size, err)) ||
        (rc = size_option(o, "parquet.page.row.count.limit", 20000, &cfg->page_rows, err)) ||
        (rc = size_option(o, "parquet.dictionary.page.size", 1LL << 20, &cfg->dict_page_size, err)))
        return rc;
    static const char *const bools[] = {"true", "false"};
    static const int bool_values[] = {1, 0};
    int dict = 1, v2 = 0;
    static const char *const versions[] = {"v1", "PARQUET_1_0", "v2", "PARQUET_2_0"};
    static const int version_values[] = {0, 0, 1, 1};
    static const char *const ts[] = {"INT96", "TIMESTAMP_MICROS", "TIMESTAMP_MILLIS"};
    static const int ts_values[] = {CS_PQW_TS_INT96, CS_PQW_TS_MICROS, CS_PQW_TS_MILLIS};
    if ((rc = choice_option(o, "parquet.enable.dictionary", bools, bool_values, 2, "true or false",
                            &dict, err)) ||
        (rc = choice_option(o, "parquet.writer.version", versions, version_values, 4,
                            "v1, v2, PARQUET_1_0 or PARQUET_2_0", &v2, err)) ||
        (rc = choice_option(o, "spark.sql.parquet.outputTimestampType", ts, ts_values, 3,
                            "INT96, TIMESTAMP_MICROS or TIMESTAMP_MILLIS", &cfg->timestamp, err)))
        return rc;
    cfg->dictionary = dict;
    cfg->v2 = v2;
    return 0;
}

/* ---- the writer ----------------------------------------------------------------------------- */

static void writer_free(pq_writer *w)
{
    for (int i = 0; w->chunks && i < w->ps.n_leaves; i++)
        cs_pqw_chunk_free(&w->chunks[i]);
    free(w->chunks);
    cs_pqw_schema_free(&w->ps);
    for (uint32_t i = 0; i < w->n_groups; i++)
        free(w->groups[i].columns);
    free(w->groups);
    void **blocks = (void **)(void *)w->arena.data;
    for (size_t i = 0; i < w->arena.len / sizeof(void *); i++)
        free(blocks[i]);
    cs_sbuf_free(&w->arena);
    cs_sbuf_free(&w->column_indexes);
    cs_sbuf_free(&w->offset_indexes);
    if (w->schema) cs_col_type_unref(w->schema);
    free(w->uri);
    free(w);
}

/* Puts the file's name in front of a message that does not name it yet; marks w failed. */
static int fail(pq_writer *w, cs_error *err)
{
    w->failed = true;
    int code = err->code ? err->code : CS_EIO;
    if (strncmp(err->msg, w->uri, strlen(w->uri)) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        cs_error_set(err, code, "%s: %s", w->uri, msg);
    }
    return code;
}

int cs_parquet_writer_open(const char *uri, const cs_col_type *schema,
                           const cs_format_options *options, void **writer, cs_error *err)
{
    *writer = NULL;
    pq_writer *w = cs_xcalloc(1, sizeof *w);
    w->uri = cs_xstrdup(uri);
    w->schema = cs_col_type_ref((cs_col_type *)schema);
    int rc = schema->id != CS_TYPE_STRUCT
                 ? cs_error_set(err, CS_EINVAL, "the schema of a Parquet file must be a struct")
                 : parse_options(options, &w->cfg, err);
    if (!rc) rc = cs_pqw_schema_build(schema, w->cfg.timestamp, &w->ps, err);
    if (rc) {
        fail(w, err);
        writer_free(w);
        return rc;
    }
    w->chunks = cs_xcalloc((size_t)w->ps.n_leaves + 1, sizeof *w->chunks);
    for (int i = 0; i < w->ps.n_leaves; i++)
        cs_pqw_chunk_init(&w->chunks[i], &w->ps.leaves[i], &w->cfg);
    w->fs = cs_fs_create(uri, NULL, NULL, err);
    if (!w->fs || cs_fs_write(w->fs, "PAR1", 4, err) < 0) {
        rc = fail(w, err);
        cs_fs_writer_abort(w->fs);
        writer_free(w);
        return rc;
    }
    w->offset = 4;
    w->slice = 1;
    *writer = w;
    return 0;
}

static int flush_row_group(pq_writer *w, cs_error *err)
{
    if (w->rg_rows == 0) return 0;
    if (w->n_groups == w->cap_groups) {
        w->cap_groups = w->cap_groups ? 2 * w->cap_groups : 8;
        w->groups = cs_xrealloc(w->groups, w->cap_groups * sizeof *w->groups);
    }
    cs_parquet_row_group *g = &w->groups[w->n_groups];
    *g = (cs_parquet_row_group){.columns =
                                    cs_xcalloc((size_t)w->ps.n_leaves + 1, sizeof *g->columns),
                                .num_columns = (uint32_t)w->ps.n_leaves,
                                .num_rows = w->rg_rows,
                                .has_file_offset = true,
                                .file_offset = w->offset,
                                .has_total_compressed_size = true,
                                .has_ordinal = w->n_groups < INT16_MAX,
                                .ordinal = (int16_t)w->n_groups};
    w->n_groups++;
    int64_t start = w->offset;
    for (int i = 0; i < w->ps.n_leaves; i++) {
        int rc = cs_pqw_chunk_write(&w->chunks[i], w->fs, &w->offset, &g->columns[i], &w->arena,
                                    &w->column_indexes, &w->offset_indexes, err);
        if (rc) return rc;
        g->total_byte_size += g->columns[i].meta.total_uncompressed_size;
    }
    g->total_compressed_size = w->offset - start;
    w->total_rows += w->rg_rows;
    w->rg_rows = 0;
    return 0;
}

int cs_parquet_writer_write(void *writer, const cs_col_batch *batch, cs_error *err)
{
    pq_writer *w = writer;
    if (w->failed)
        return cs_error_set(err, CS_EINVAL, "%s: the writer failed before; it takes no more rows",
                            w->uri);
    if (batch->n_columns != w->schema->n_fields) {
        cs_error_set(err, CS_EINVAL, "a batch of %d columns for a file of %d", batch->n_columns,
                     w->schema->n_fields);
        return fail(w, err);
    }
    for (int i = 0; i < batch->n_columns; i++)
        if (!cs_col_type_equal(batch->columns[i]->type, w->schema->fields[i].type)) {
            cs_error_set(err, CS_EINVAL, "column %s: the batch's type is not the file's",
                         w->schema->fields[i].name);
            return fail(w, err);
        }
    /* Slices of rows between two looks at the row group's size: from one row, doubling up to
     * SLICE_ROWS while the last slice's bytes per row say that a quarter of what is left in the
     * row group holds that many (wide rows are looked at one by one). */
    for (int64_t r0 = 0; r0 < batch->num_rows;) {
        int64_t r1 = r0 + w->slice < batch->num_rows ? r0 + w->slice : batch->num_rows;
        int64_t buffered = 0;
        for (int i = 0; i < w->ps.n_leaves; i++) {
            int rc = cs_pqw_chunk_add(&w->chunks[i], batch->columns[w->ps.leaves[i].column], r0, r1,
                                      err);
            if (rc) return fail(w, err);
            buffered += cs_pqw_chunk_buffered(&w->chunks[i]);
        }
        w->rg_rows += r1 - r0;
        int64_t row_bytes = (buffered - w->rg_buffered) / (r1 - r0);
        w->rg_buffered = buffered;
        if (buffered >= w->cfg.block_size) {
            if (flush_row_group(w, err)) return fail(w, err);
            w->rg_buffered = 0;
        }
        int64_t fits =
            row_bytes > 0 ? (w->cfg.block_size - w->rg_buffered) / 4 / row_bytes : SLICE_ROWS;
        w->slice = 2 * w->slice < fits ? 2 * w->slice : fits;
        w->slice = w->slice < 1 ? 1 : w->slice > SLICE_ROWS ? SLICE_ROWS : w->slice;
        r0 = r1;
    }
    return 0;
}

/* Every chunk's ColumnIndex, then every OffsetIndex, between the last row group and the footer
 * (parquet-mr's layout); the chunks' index offsets, relative to the buffers, become the file's. */
static int write_page_indexes(pq_writer *w, cs_error *err)
{
    int64_t column_base = w->offset, offset_base = w->offset + (int64_t)w->column_indexes.len;
    for (uint32_t g = 0; g < w->n_groups; g++)
        for (uint32_t i = 0; i < w->groups[g].num_columns; i++) {
            cs_parquet_column_chunk *c = &w->groups[g].columns[i];
            if (c->has_column_index) c->column_index_offset += column_base;
            if (c->has_offset_index) c->offset_index_offset += offset_base;
        }
    const cs_sbuf *bufs[] = {&w->column_indexes, &w->offset_indexes};
    for (int k = 0; k < 2; k++) {
        if (bufs[k]->len == 0) continue;
        if (cs_fs_write(w->fs, bufs[k]->data, bufs[k]->len, err) < 0)
            return err->code ? err->code : CS_EIO;
        w->offset += (int64_t)bufs[k]->len;
    }
    return 0;
}

static int write_footer(pq_writer *w, cs_error *err)
{
    char *json = cs_pqw_spark_schema_json(w->schema);
    static const char created_by[] = "cspark version " CSPARK_VERSION;
    cs_parquet_key_value kv[2] = {
        {{(const uint8_t *)SPARK_ROW_METADATA, (uint32_t)strlen(SPARK_ROW_METADATA)},
         {(const uint8_t *)json, (uint32_t)strlen(json)}},
        {{(const uint8_t *)"org.apache.spark.version", 24},
         {(const uint8_t *)CS_PARQUET_SPARK_VERSION, (uint32_t)strlen(CS_PARQUET_SPARK_VERSION)}},
    };
    cs_parquet_meta m = {.version = 1,
                         .schema = w->ps.elems,
                         .num_schema = w->ps.n_elems,
                         .num_rows = w->total_rows,
                         .row_groups = w->groups,
                         .num_row_groups = w->n_groups,
                         .kv = kv,
                         .num_kv = 2,
                         .created_by = {(const uint8_t *)created_by, sizeof created_by - 1},
                         .num_column_orders = (uint32_t)w->ps.n_leaves};
    cs_sbuf footer = CS_SBUF_INIT;
    cs_parquet_meta_encode(&m, &footer);
    free(json);
    uint32_t n = (uint32_t)footer.len;
    uint8_t tail[8] = {
        (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24), 'P', 'A', 'R', '1'};
    cs_sbuf_append(&footer, tail, 8);
    int rc =
        cs_fs_write(w->fs, footer.data, footer.len, err) < 0 ? (err->code ? err->code : CS_EIO) : 0;
    cs_sbuf_free(&footer);
    return rc;
}

int cs_parquet_writer_close(void *writer, bool commit, cs_error *err)
{
    pq_writer *w = writer;
    if (!w) return 0;
    int rc = 0;
    if (commit && w->failed) {
        rc = cs_error_set(err, CS_EIO, "%s: not written: a write failed before", w->uri);
    } else if (commit) {
        if ((rc = flush_row_group(w, err)) == 0 && (rc = write_page_indexes(w, err)) == 0)
            rc = write_footer(w, err);
        if (rc == 0) {
            cs_fs_writer *fs = w->fs;
            w->fs = NULL;
            if (cs_fs_writer_finish(fs, NULL, err) < 0) rc = err->code ? err->code : CS_EIO;
        }
        if (rc) fail(w, err);
    }
    cs_fs_writer_abort(w->fs);
    writer_free(w);
    return rc;
}
