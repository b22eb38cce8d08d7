/*
 * result_rows.c — the rows of a command's result (SET, SHOW, DESCRIBE, EXPLAIN) built as one
 * batch of string and boolean columns (session_internal.h), a query's batches gathered into its
 * result, and results' release.
 */
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"

void cs_sql_result_free(cs_sql_result *r)
{
    if (!r) return;
    for (int i = 0; i < r->n_batches; i++)
        cs_col_batch_unref(r->batches[i]);
    free(r->batches);
    if (r->schema) cs_col_type_unref(r->schema);
    memset(r, 0, sizeof *r);
}

void cs_rows_begin(cs_rows_builder *b, const char *const *names, const cs_type_id *types, int n)
{
    cs_col_field *f = cs_xcalloc((size_t)n + 1, sizeof *f);
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){(char *)names[i], cs_col_type_primitive(types[i]), true};
    b->schema = cs_col_type_struct(f, n);
    free(f);
    b->n_cols = n;
    b->rows = 0;
    b->cols = cs_xcalloc((size_t)n + 1, sizeof *b->cols);
    for (int i = 0; i < n; i++)
        b->cols[i] = cs_col_builder_new(NULL, b->schema->fields[i].type);
}

void cs_rows_string(cs_rows_builder *b, int col, const char *s)
{
    if (s)
        cs_col_builder_append_string(b->cols[col], s, strlen(s));
    else
        cs_col_builder_append_nulls(b->cols[col], 1);
}

void cs_rows_bool(cs_rows_builder *b, int col, bool v)
{
    uint8_t byte = v;
    cs_col_builder_append_values(b->cols[col], &byte, 1, NULL);
}

void cs_rows_end_row(cs_rows_builder *b)
{
    b->rows++;
}

int cs_rows_finish(cs_rows_builder *b, cs_sql_result *out, cs_error *err)
{
    cs_column **cols = cs_xcalloc((size_t)b->n_cols + 1, sizeof *cols);
    for (int i = 0; i < b->n_cols; i++) {
        cols[i] = cs_col_builder_finish(b->cols[i]);
        cs_col_builder_free(b->cols[i]);
    }
    free(b->cols);
    b->cols = NULL;
    out->schema = cs_col_type_ref(b->schema);
    cs_col_batch *batch = cs_col_batch_new(b->schema, cols, b->n_cols, b->rows, err);
    free(cols);
    b->schema = NULL;
    if (!batch) return err->code ? err->code : CS_EINVAL;
    out->batches = cs_xcalloc(1, sizeof *out->batches);
    out->batches[0] = batch;
    out->n_batches = 1;
    out->num_rows = b->rows;
    return 0;
}

void cs_rows_none(cs_sql_result *out)
{
    memset(out, 0, sizeof *out);
    out->schema = cs_col_type_struct(NULL, 0);
}

void cs_result_take_batch(cs_sql_result *out, cs_col_batch *b)
{
    if (b->num_rows == 0) {
        cs_col_batch_unref(b);
        return;
    }
    out->batches = cs_xrealloc(out->batches, (size_t)(out->n_batches + 1) * sizeof *out->batches);
    out->batches[out->n_batches++] = b;
    out->num_rows += b->num_rows;
}
