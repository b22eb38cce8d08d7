/* parquet_format.c — cs_file_format_parquet, Parquet's entry in the file format registry
 * (file_format.h): the schema of a file set from its footers (Spark's mapping, parquet_schema.h),
 * splits by row group, the scan (parquet_scan.h) and the file writer (parquet_writer.h).
 *
 * infer_schema reads the first file's footer, as Spark does without mergeSchema; with the option
 * mergeSchema=true it reads every footer and appends the top-level fields later files add (a
 * field of the same name must have the same type). Called through the registry by the data
 * source layer; owns nothing between calls.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/file_format.h"
#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_scan.h"
#include "formats/parquet/parquet_schema.h"
#include "formats/parquet/parquet_writer.h"

static int file_schema(const char *uri, cs_col_type **out, cs_error *err)
{
    *out = NULL;
    cs_parquet_file *f;
    int rc = cs_parquet_file_open(uri, &f, err);
    if (rc) return rc;
    cs_pq_schema s;
    rc = cs_pq_schema_build(f, &s, err);
    if (!rc) {
        *out = cs_parquet_spark_schema(&s);
        cs_pq_schema_free(&s);
    }
    cs_parquet_file_free(f);
    return rc;
}

/* merged + the fields of more that it lacks (a new reference; both are released). */
static int merge(const char *uri, cs_col_type *merged, cs_col_type *more, cs_col_type **out,
                 cs_error *err)
{
    int n = merged->n_fields, extra = 0;
    cs_col_field *fields = cs_xcalloc((size_t)(n + more->n_fields), sizeof *fields);
    int rc = CS_OK;
    for (int k = 0; k < n; k++)
        fields[k] = (cs_col_field){merged->fields[k].name, cs_col_type_ref(merged->fields[k].type),
                                   merged->fields[k].nullable};
    for (int j = 0; j < more->n_fields && !rc; j++) {
        int k = 0;
        while (k < n && strcasecmp(merged->fields[k].name, more->fields[j].name) != 0)
            k++;
        if (k == n)
            fields[n + extra++] =
                (cs_col_field){more->fields[j].name, cs_col_type_ref(more->fields[j].type), true};
        else if (!cs_col_type_equal(merged->fields[k].type, more->fields[j].type))
            rc = cs_error_set(err, CS_EINVAL,
                              "%s: mergeSchema: column %s has another type than in the files "
                              "before it",
                              uri, more->fields[j].name);
    }
    if (!rc)
        *out = cs_col_type_struct(fields, n + extra);
    else
        for (int k = 0; k < n + extra; k++)
            cs_col_type_unref(fields[k].type);
    free(fields);
    cs_col_type_unref(merged);
    cs_col_type_unref(more);
    return rc;
}

static int parquet_infer_schema(const char *const *uris, int n, const cs_format_options *options,
                                cs_col_type **out, cs_error *err)
{
    *out = NULL;
    if (n < 1) return cs_error_set(err, CS_EINVAL, "parquet: no file to infer a schema from");
    const char *m = cs_format_option(options, "mergeSchema");
    bool merge_all = m && strcasecmp(m, "true") == 0;
    cs_col_type *schema = NULL;
    int rc = file_schema(uris[0], &schema, err);
    for (int i = 1; i < n && merge_all && !rc; i++) {
        cs_col_type *more;
        if ((rc = file_schema(uris[i], &more, err))) break;
        rc = merge(uris[i], schema, more, &schema, err);
        if (rc) schema = NULL;
    }
    if (rc) {
        cs_col_type_unref(schema);
        return rc;
    }
    *out = schema;
    return CS_OK;
}

static bool parquet_is_splittable(const char *uri, const cs_format_options *options)
{
    (void)uri;
    (void)options;
    return true;
}

static int parquet_open_reader(const cs_file_split *split, const cs_scan_request *req,
                               void **reader, cs_error *err)
{
    cs_pq_scan *s;
    int rc = cs_pq_scan_open(split, req, &s, err);
    *reader = rc ? NULL : s;
    return rc;
}

static int parquet_next_batch(void *reader, cs_col_batch **out, cs_error *err)
{
    return cs_pq_scan_next(reader, out, err);
}

static void parquet_close_reader(void *reader)
{
    cs_pq_scan_free(reader);
}

const cs_file_format cs_file_format_parquet = {
    .name = "parquet",
    .infer_schema = parquet_infer_schema,
    .is_splittable = parquet_is_splittable,
    .open_reader = parquet_open_reader,
    .next_batch = parquet_next_batch,
    .close_reader = parquet_close_reader,
    .extension = cs_parquet_extension,
    .open_writer = cs_parquet_writer_open,
    .write_batch = cs_parquet_writer_write,
    .close_writer = cs_parquet_writer_close,
};
