/* parquet_file.c — reads and checks a Parquet footer and flattens the schema (see
 * parquet_file.h). Layout of a file: "PAR1" <column chunks> <FileMetaData> <u32 LE footer
 * length> "PAR1". The schema is a depth-first list of elements where a group says how many
 * children follow; a leaf's maximum definition level counts its non-REQUIRED ancestors (itself
 * included), its maximum repetition level its REPEATED ones.
 */
#include "formats/parquet/parquet_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "fs/fs.h"

static int fail(cs_error *err, int code, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(cs_error *err, int code, const char *name, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_error_set(err, code, "%s: %s", name, msg);
}

void cs_parquet_file_free(cs_parquet_file *f)
{
    if (!f) return;
    for (uint32_t i = 0; i < f->num_columns; i++)
        free(f->columns[i].path);
    free(f->columns);
    free(f->schema_parent);
    cs_parquet_meta_free(&f->meta);
    free(f->footer);
    free(f->name);
    free(f);
}

/* Walks the schema: parents, leaves with their levels and paths. */
static int build_schema(cs_parquet_file *f, cs_error *err)
{
    const cs_parquet_meta *m = &f->meta;
    if (m->num_schema == 0) return fail(err, CS_EPROTO, f->name, "the schema is empty");
    if (m->schema[0].num_children <= 0)
        return fail(err, CS_EPROTO, f->name, "the schema's root has no children");
    f->schema_parent = cs_xmalloc(m->num_schema * sizeof *f->schema_parent);
    struct frame {
        uint32_t index;
        int32_t children_left;
        int16_t def, rep;
        size_t path_len;
    } stack[CS_PARQUET_MAX_SCHEMA_DEPTH + 1];
    int depth = 0;
    cs_sbuf path = CS_SBUF_INIT;
    uint32_t leaves = 0, cap = 0;
    stack[0] = (struct frame){0, m->schema[0].num_children, 0, 0, 0};
    f->schema_parent[0] = -1;
    int rc = CS_OK;
    uint32_t i;
    for (i = 1; i < m->num_schema; i++) {
        while (depth > 0 && stack[depth].children_left == 0)
            depth--;
        if (stack[depth].children_left == 0) break; /* the root is complete: extra elements */
        stack[depth].children_left--;
        const cs_parquet_schema_element *e = &m->schema[i];
        f->schema_parent[i] = (int32_t)stack[depth].index;
        int16_t def = stack[depth].def, rep = stack[depth].rep;
        if (e->repetition == CS_PQ_OPTIONAL) def++;
        if (e->repetition == CS_PQ_REPEATED) def++, rep++;
        path.len = stack[depth].path_len;
        if (path.data) path.data[path.len] = 0;
        if (depth > 0) cs_sbuf_putc(&path, '.');
        cs_sbuf_append(&path, e->name.ptr, e->name.len);
        if (e->num_children < 0) {
            rc = fail(err, CS_EPROTO, f->name, "schema element %s has %d children", path.data,
                      (int)e->num_children);
            break;
        }
        if (e->num_children > 0) {
            if (depth + 1 > CS_PARQUET_MAX_SCHEMA_DEPTH) {
                rc = fail(err, CS_EPROTO, f->name, "the schema nests deeper than %d levels",
                          CS_PARQUET_MAX_SCHEMA_DEPTH);
                break;
            }
            depth++;
            stack[depth] = (struct frame){i, e->num_children, def, rep, path.len};
            continue;
        }
        if (e->type < 0 || e->type > CS_PQ_FIXED_LEN_BYTE_ARRAY) {
            rc = fail(err, CS_EPROTO, f->name, "schema leaf %s has no valid physical type (%d)",
                      path.data, e->type);
            break;
        }
        if (e->type == CS_PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0) {
            rc = fail(err, CS_EPROTO, f->name, "FIXED_LEN_BYTE_ARRAY column %s has type_length %d",
                      path.data, e->type_length);
            break;
        }
        if (leaves == cap) {
            cap = cap ? cap * 2 : 16;
            f->columns = cs_xrealloc(f->columns, cap * sizeof *f->columns);
        }
        f->columns[leaves++] = (cs_parquet_column_desc){.path = cs_xstrdup(path.data),
                                                        .schema_index = i,
                                                        .type = e->type,
                                                        .type_length = e->type_length,
                                                        .max_def = def,
                                                        .max_rep = rep,
                                                        .element = e};
        f->num_columns = leaves;
    }
    cs_sbuf_free(&path);
    if (rc) return rc;
    bool incomplete = false;
    for (int d = 0; d <= depth; d++)
        incomplete |= stack[d].children_left > 0;
    if (i < m->num_schema || incomplete)
        return fail(err, CS_EPROTO, f->name,
                    "the schema's children counts do not match its %u elements", m->num_schema);
    if (leaves == 0) return fail(err, CS_EPROTO, f->name, "the schema has no leaf column");
    return CS_OK;
}

void cs_parquet_chunk_range(const cs_parquet_file *f, uint32_t rg, uint32_t col, uint64_t *offset,
                            uint64_t *length)
{
    const cs_parquet_column_meta *cm = &f->meta.row_groups[rg].columns[col].meta;
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < start)
        start = cm->dictionary_page_offset;
    *offset = (uint64_t)start;
    *length = (uint64_t)cm->total_compressed_size;
}

static int check_row_groups(cs_parquet_file *f, cs_error *err)
{
    const cs_parquet_meta *m = &f->meta;
    uint64_t data_end = f->size - 8 - f->footer_len;
    int64_t rows = 0;
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const cs_parquet_row_group *rg = &m->row_groups[g];
        if (rg->num_columns != f->num_columns)
            return fail(err, CS_EPROTO, f->name,
                        "row group %u has %u column chunks, the schema %u leaves", g,
                        rg->num_columns, f->num_columns);
        if (rg->num_rows < 0)
            return fail(err, CS_EPROTO, f->name, "row group %u has %lld rows", g,
                        (long long)rg->num_rows);
        rows += rg->num_rows;
        for (uint32_t c = 0; c < rg->num_columns; c++) {
            const cs_parquet_column_chunk *cc = &rg->columns[c];
            const char *col = f->columns[c].path;
            if (!cc->has_meta_data)
                return fail(err, CS_EUNSUPPORTED, f->name,
                            "column %s, row group %u: no column metadata "
                            "(encrypted files are not supported)",
                            col, g);
            if (cc->file_path.ptr)
                return fail(err, CS_EUNSUPPORTED, f->name,
                            "column %s, row group %u: chunk in another file "
                            "(%.*s)",
                            col, g, (int)cc->file_path.len, (const char *)cc->file_path.ptr);
            const cs_parquet_column_meta *cm = &cc->meta;
            if (cm->type != f->columns[c].type)
                return fail(err, CS_EPROTO, f->name,
                            "column %s, row group %u: chunk of type %s, the schema says %s", col, g,
                            cs_parquet_type_name(cm->type),
                            cs_parquet_type_name(f->columns[c].type));
            if (cm->num_values < 0 || cm->total_compressed_size < 0 || cm->data_page_offset < 0)
                return fail(err, CS_EPROTO, f->name,
                            "column %s, row group %u: negative size or count", col, g);
            uint64_t off, len;
            cs_parquet_chunk_range(f, g, c, &off, &len);
            if (off < 4 || off > data_end || len > data_end - off)
                return fail(
                    err, CS_EPROTO, f->name,
                    "column %s, row group %u: chunk at byte %llu of %llu bytes lies outside the "
                    "data (%llu bytes before the footer)",
                    col, g, (unsigned long long)off, (unsigned long long)len,
                    (unsigned long long)data_end);
        }
    }
    if (rows != m->num_rows)
        return fail(err, CS_EPROTO, f->name, "the footer says %lld rows, its row groups hold %lld",
                    (long long)m->num_rows, (long long)rows);
    return CS_OK;
}

int cs_parquet_file_parse(const char *name, uint64_t size, const uint8_t *head, size_t head_len,
                          const uint8_t *tail, size_t tail_len, cs_parquet_file **out,
                          cs_error *err)
{
    *out = NULL;
    if (size < 12 || head_len < 4 || tail_len < 8)
        return fail(err, CS_EPROTO, name,
                    "not a Parquet file (%llu bytes, too short for its magic and footer)",
                    (unsigned long long)size);
    if (memcmp(head, "PAR1", 4) != 0)
        return fail(err, CS_EPROTO, name,
                    "not a Parquet file (it does not start with the magic PAR1)");
    const uint8_t *t = tail + tail_len - 8;
    if (memcmp(t + 4, "PAR1", 4) != 0)
        return fail(err, CS_EPROTO, name,
                    memcmp(t + 4, "PARE", 4) == 0
                        ? "encrypted Parquet files (magic PARE) are not supported"
                        : "not a Parquet file or truncated (it does not end with the magic PAR1)");
    uint32_t footer_len =
        (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    if ((uint64_t)footer_len > size - 12)
        return fail(err, CS_EPROTO, name,
                    "the footer length %u does not fit in the file (%llu bytes)", footer_len,
                    (unsigned long long)size);
    if ((size_t)footer_len > tail_len - 8)
        return fail(err, CS_EINVAL, name, "footer of %u bytes, only %zu were read", footer_len,
                    tail_len - 8);
    cs_parquet_file *f = cs_xcalloc(1, sizeof *f);
    f->name = cs_xstrdup(name);
    f->size = size;
    f->footer_len = footer_len;
    f->footer = cs_xmalloc(footer_len + 1);
    memcpy(f->footer, t - footer_len, footer_len);
    int rc = cs_parquet_meta_decode(f->footer, footer_len, &f->meta, err);
    if (rc) {
        cs_error_prefix(err, "%s: corrupt footer", name);
    } else if (!(rc = build_schema(f, err))) {
        rc = check_row_groups(f, err);
    }
    if (rc) {
        cs_parquet_file_free(f);
        return rc;
    }
    *out = f;
    return CS_OK;
}

/* Reads [off, off+len) of uri into buf. */
static int read_range(const char *uri, uint64_t size, uint64_t off, size_t len, uint8_t *buf,
                      cs_error *err)
{
    cs_fs_reader *r = cs_fs_open(uri, off, len, size, err);
    if (!r) return err ? err->code : CS_EIO;
    size_t got = 0;
    int rc = CS_OK;
    while (got < len) {
        ssize_t n = cs_fs_read(r, buf + got, len - got, err);
        if (n < 0) {
            rc = (int)n;
            break;
        }
        if (n == 0) {
            rc = fail(err, CS_EIO, uri, "ended at byte %llu, %zu bytes before the %llu expected",
                      (unsigned long long)(off + got), len - got, (unsigned long long)(off + len));
            break;
        }
        got += (size_t)n;
    }
    cs_fs_reader_close(r);
    return rc;
}

int cs_parquet_file_open(const char *uri, cs_parquet_file **out, cs_error *err)
{
    *out = NULL;
    cs_fs_status st;
    int rc = cs_fs_stat(uri, &st, err);
    if (rc) return rc;
    if (!st.exists || st.is_dir)
        return fail(err, st.exists ? CS_EINVAL : CS_ENOTFOUND, uri,
                    st.exists ? "is a directory" : "does not exist");
    if (st.size < 12)
        return fail(err, CS_EPROTO, uri,
                    "not a Parquet file (%llu bytes, too short for its magic and footer)",
                    (unsigned long long)st.size);
    uint8_t head[4];
    size_t tail_len = st.size - 4 < 65536 ? (size_t)(st.size - 4) : 65536;
    uint8_t *tail = cs_xmalloc(tail_len);
    rc = read_range(uri, st.size, 0, 4, head, err);
    if (!rc) rc = read_range(uri, st.size, st.size - tail_len, tail_len, tail, err);
    if (!rc) {
        rc = cs_parquet_file_parse(uri, st.size, head, 4, tail, tail_len, out, err);
        if (rc == CS_EINVAL) { /* the footer is longer than the first read: read it whole */
            const uint8_t *t = tail + tail_len - 8;
            size_t want =
                8 + ((size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24);
            free(tail);
            tail_len = want;
            tail = cs_xmalloc(tail_len);
            rc = read_range(uri, st.size, st.size - tail_len, tail_len, tail, err);
            if (!rc) rc = cs_parquet_file_parse(uri, st.size, head, 4, tail, tail_len, out, err);
        }
    }
    free(tail);
    return rc;
}

int cs_parquet_file_read_chunk(const cs_parquet_file *f, uint32_t rg, uint32_t col, uint8_t **buf,
                               size_t *len, cs_error *err)
{
    uint64_t off, n;
    cs_parquet_chunk_range(f, rg, col, &off, &n);
    *buf = cs_xmalloc((size_t)n + 1);
    *len = (size_t)n;
    int rc = read_range(f->name, f->size, off, (size_t)n, *buf, err);
    if (rc) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}

int cs_parquet_file_read_range(const cs_parquet_file *f, uint64_t off, size_t len, uint8_t *buf,
                               cs_error *err)
{
    uint64_t data_end = f->size - 8 - f->footer_len;
    if (off < 4 || off > data_end || len > data_end - off)
        return fail(err, CS_EPROTO, f->name,
                    "%zu bytes at byte %llu lie outside the data (%llu bytes before the footer)",
                    len, (unsigned long long)off, (unsigned long long)data_end);
    return read_range(f->name, f->size, off, len, buf, err);
}
