/*
 * datasource_api.c — cspark_read_files, cspark_write_files and the cspark_batch accessors
 * (cspark.h): the driver's side of a data source. Reading lists the paths and discovers their
 * partitions (datasource/file_index.c), asks the format for the schema, plans Spark's
 * FilePartitions and makes a data source scan node (plan/kinds/datasource.c). Writing checks the
 * save mode (datasource/ds_commit.c), runs a job over a write node on top of the user's RDD,
 * collecting each task's commit messages, and commits or aborts the job's output.
 *
 * Configuration (Spark's keys): spark.sql.files.maxPartitionBytes (128m),
 * spark.sql.files.openCostInBytes (4m), spark.sql.files.minPartitionNum (default: the default
 * parallelism), spark.sql.sources.partitionColumnTypeInference.enabled (true).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "columnar/column.h"
#include "common/conf_entries.h"
#include "datasource/ds_commit.h"
#include "datasource/ds_task.h"
#include "datasource/file_index.h"
#include "datasource/schema_ddl.h"
#include "formats/arrow_ipc.h"
#include "fs/fs.h"

/* A NULL-terminated key, value list as format options (pointers borrowed); CS_EINVAL when a key
 * has no value. */
static int options_of(const char *const *kv, cs_format_options *o, cs_error *err)
{
    memset(o, 0, sizeof *o);
    if (!kv) return 0;
    int n = 0;
    while (kv[2 * n]) {
        if (!kv[2 * n + 1])
            return cs_error_set(err, CS_EINVAL, "data source option '%s' has no value", kv[2 * n]);
        n++;
    }
    const char **keys = cs_xcalloc((size_t)n + 1, sizeof *keys);
    const char **values = cs_xcalloc((size_t)n + 1, sizeof *values);
    for (int i = 0; i < n; i++) {
        keys[i] = kv[2 * i];
        values[i] = kv[2 * i + 1];
    }
    o->keys = keys;
    o->values = values;
    o->n = n;
    return 0;
}

static void options_free(cs_format_options *o)
{
    free((void *)o->keys);
    free((void *)o->values);
}

static const cs_file_format *format_of(const char *name, cs_error *err)
{
    const cs_file_format *f = cs_file_format_find(name);
    if (!f)
        cs_error_set(err, CS_EINVAL, "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: %s.",
                     name ? name : "(null)");
    return f;
}

/* The splits of the index's files as FilePartitions; fills the scan's node. */
static cspark_rdd *plan_scan(cspark_context *sc, const cs_file_format *fmt,
                             const cs_ds_file_index *ix, const cs_format_options *o,
                             cs_col_type *data_schema, const void *caller, cs_error *err)
{
    int64_t max_bytes, open_cost, min_parts = sc->default_parallelism;
    if (cs_conf_entry_size(sc->conf, "spark.sql.files.maxPartitionBytes", &max_bytes, err) < 0 ||
        cs_conf_entry_size(sc->conf, "spark.sql.files.openCostInBytes", &open_cost, err) < 0)
        return NULL;
    int rc = cs_conf_get_int(sc->conf, "spark.sql.files.minPartitionNum", NULL, &min_parts, err);
    if (rc < 0 && rc != CS_ENOTFOUND) return NULL;
    int nf = ix->n_files;
    uint64_t *sizes = cs_xcalloc((size_t)nf + 1, sizeof *sizes);
    bool *splittable = cs_xcalloc((size_t)nf + 1, sizeof *splittable);
    for (int i = 0; i < nf; i++) {
        sizes[i] = ix->files[i].size;
        splittable[i] = fmt->is_splittable(ix->files[i].uri, o);
    }
    int64_t max_split = cs_ds_max_split_bytes(max_bytes, open_cost, (int)min_parts, sizes, nf);
    int ns, np, *group_start;
    cs_ds_split *s =
        cs_ds_plan_partitions(sizes, splittable, nf, max_split, open_cost, &ns, &group_start, &np);
    text_split *ts = cs_xcalloc((size_t)ns + 1, sizeof *ts);
    int *split_part = cs_xcalloc((size_t)ns + 1, sizeof *split_part);
    for (int i = 0; i < ns; i++) {
        const cs_ds_file *f = &ix->files[s[i].file];
        ts[i] = (text_split){f->uri, s[i].start, s[i].length, f->size};
        split_part[i] = f->partition;
    }
    cs_ds_desc d = {
        .format = fmt->name,
        .options = *o,
        .data_schema = data_schema,
        .read_schema = data_schema,
        .partition_values = ix->parts.values,
        .split_partition = split_part,
        .n_splits = ns,
    };
    char name[512];
    cs_api_call_site("read_files", caller, name, sizeof name);
    cspark_rdd *r = cs_rdd_datasource_scan_new(&sc->graph, &d, ts, ns, group_start, np, name);
    free(ts);
    free(split_part);
    free(s);
    free(group_start);
    free(sizes);
    free(splittable);
    return r;
}

/* The user's schema without the partition columns (whose types partition discovery gives). */
static cs_col_type *user_data_schema(const char *ddl, const cs_col_type *parts, cs_error *err)
{
    cs_col_type *user = cs_ds_parse_ddl(ddl, err);
    if (!user) return NULL;
    cs_col_field *f = cs_xcalloc((size_t)user->n_fields + 1, sizeof *f);
    int n = 0;
    for (int i = 0; i < user->n_fields; i++) {
        bool is_part = false;
        for (int k = 0; k < parts->n_fields; k++)
            is_part |= strcasecmp(parts->fields[k].name, user->fields[i].name) == 0;
        if (is_part) continue;
        f[n] = user->fields[i];
        cs_col_type_ref(f[n++].type);
    }
    cs_col_type *out = cs_col_type_struct(f, n);
    free(f);
    cs_col_type_unref(user);
    return out;
}

cspark_rdd *cspark_read_files(cspark_context *sc, const char *format, const char *const *paths,
                              int n_paths, const char *schema_ddl, const char *const *options)
{
    if (!sc) {
        cs_context_null_argument("read_files", "context");
        return NULL;
    }
    const void *caller = CALLER();
    cs_error err;
    cs_error_clear(&err);
    cs_format_options o;
    const cs_file_format *fmt = format_of(format, &err);
    if (!fmt || options_of(options, &o, &err) < 0) return cs_rdd_refuse(sc, &err);
    if (!paths || n_paths <= 0) {
        options_free(&o);
        cs_error_set(&err, CS_EINVAL, "read_files: no path given");
        return cs_rdd_refuse(sc, &err);
    }
    bool infer = true;
    cs_ds_file_index ix;
    cs_col_type *schema = NULL;
    cspark_rdd *r = NULL;
    if (cs_conf_entry_bool(sc->conf, "spark.sql.sources.partitionColumnTypeInference.enabled",
                           &infer, &err) == 0 &&
        cs_ds_file_index_build(paths, n_paths, &o, infer, &ix, &err) == 0) {
        const char **uris = cs_xcalloc((size_t)ix.n_files + 1, sizeof *uris);
        for (int i = 0; i < ix.n_files; i++)
            uris[i] = ix.files[i].uri;
        if (schema_ddl)
            schema = user_data_schema(schema_ddl, ix.parts.schema, &err);
        else if (fmt->infer_schema(uris, ix.n_files, &o, &schema, &err) < 0)
            schema = NULL;
        if (schema) r = plan_scan(sc, fmt, &ix, &o, schema, caller, &err);
        free(uris);
        if (schema) cs_col_type_unref(schema);
        cs_ds_file_index_free(&ix);
    }
    options_free(&o);
    return r ? r : cs_rdd_refuse(sc, &err);
}

/* ---- writing ------------------------------------------------------------------------------- */

/* A random (version 4) UUID, as Spark's job UUID in part file names. */
static void new_uuid(char out[37])
{
    uint8_t b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = (uint8_t)rand();
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

typedef struct write_results {
    cs_batch *parts; /* per partition: its commit messages, as records */
    int n;
} write_results;

static void on_write_result(void *arg, int partition, task_result *r)
{
    write_results *w = arg;
    if (partition < 0 || partition >= w->n) return;
    cs_batch_free(&w->parts[partition]);
    w->parts[partition] = r->data; /* moved */
    cs_batch_init(&r->data);
}

static int write_files(cspark_context *sc, cspark_rdd *rdd, const cs_file_format *fmt,
                       const char *path, cs_ds_save_mode mode, const char *const *partition_by,
                       const cs_format_options *o, const void *caller, cs_error *err)
{
    bool fresh;
    int rc = cs_ds_write_prepare(path, mode, &fresh, err);
    if (rc != 0) return rc > 0 ? 0 : rc; /* ignore: nothing to do */
    int npb = 0;
    while (partition_by && partition_by[npb])
        npb++;
    char uuid[37];
    new_uuid(uuid);
    cs_col_type *empty = cs_col_type_struct(NULL, 0);
    cs_ds_desc d = {
        .format = fmt->name,
        .options = *o,
        .data_schema = empty,
        .path = path,
        .partition_by = partition_by,
        .n_partition_by = npb,
        .job_uuid = uuid,
    };
    char name[512];
    cs_api_call_site("write_files", caller, name, sizeof name);
    cspark_rdd *w = cs_rdd_datasource_write_new(&sc->graph, &d, rdd, name);
    cs_col_type_unref(empty);
    task_sink sink = {.kind = SINK_COLLECT};
    write_results res = {cs_xcalloc((size_t)w->num_partitions + 1, sizeof *res.parts),
                         w->num_partitions};
    for (int i = 0; i < res.n; i++)
        cs_batch_init(&res.parts[i]);
    if (sc->failed)
        rc = cs_error_set(err, CS_ECANCELLED, "the context has failed");
    else
        rc = cs_api_run_job(sc, w, NULL, 0, &sink, on_write_result, &res, "write_files", caller,
                            err);
    size_t n = 0, cap = 16;
    cs_ds_commit_msg *msgs = cs_xmalloc(cap * sizeof *msgs);
    char **kinds = NULL;
    size_t n_kinds = 0;
    for (int p = 0; p < res.n; p++)
        for (size_t i = 0; i < res.parts[p].n; i++) {
            cspark_record rec = batch_get(&res.parts[p], i);
            if (n == cap) msgs = cs_xrealloc(msgs, (cap *= 2) * sizeof *msgs);
            kinds = cs_xrealloc(kinds, (n_kinds + 1) * sizeof *kinds);
            kinds[n_kinds] = cs_xstrndup((const char *)rec.key.ptr, rec.key.len);
            msgs[n++] = (cs_ds_commit_msg){kinds[n_kinds++], rec.value.ptr, rec.value.len};
        }
    if (rc == 0)
        rc = cs_ds_job_commit(path, fresh, msgs, n, err);
    else
        cs_ds_job_abort(path, fresh, msgs, n);
    for (size_t i = 0; i < n_kinds; i++)
        free(kinds[i]);
    free(kinds);
    free(msgs);
    for (int i = 0; i < res.n; i++)
        cs_batch_free(&res.parts[i]);
    free(res.parts);
    return rc;
}

int cspark_write_files(cspark_rdd *batches, const char *format, const char *path, const char *mode,
                       const char *const *partition_by, const char *const *options)
{
    if (!batches) return cs_context_null_argument("write_files", "RDD");
    const void *caller = CALLER();
    cspark_context *sc = cs_rdd_context(batches);
    cs_error err;
    cs_error_clear(&err);
    cs_format_options o;
    cs_ds_save_mode m;
    const cs_file_format *fmt = format_of(format, &err);
    if (!fmt || cs_ds_parse_save_mode(mode, &m, &err) < 0 || options_of(options, &o, &err) < 0)
        return cs_context_fail(sc, &err);
    if (!path || !*path) {
        options_free(&o);
        cs_error_set(&err, CS_EINVAL, "write_files: the output path is empty");
        return cs_context_fail(sc, &err);
    }
    int rc = cs_fs_check_uri(path, &err);
    char *normalized = cs_fs_normalize(path);
    bool local = cs_fs_is_local(normalized);
    if (rc == 0)
        rc = write_files(sc, batches, fmt, local ? cs_fs_local_path(normalized) : normalized, m,
                         partition_by, &o, caller, &err);
    free(normalized);
    options_free(&o);
    if (rc < 0) return err.code == CS_ECANCELLED ? rc : cs_api_action_failed(sc, &err);
    return 0;
}

/* ---- batches ------------------------------------------------------------------------------- */

struct cspark_batch {
    cs_col_batch *b;
    char **types; /* simpleString per column, made on first use */
};

cspark_batch *cspark_batch_decode(cspark_slice value)
{
    cs_ipc_mem_source src = {value.ptr, value.len, 0};
    cs_ipc_reader *r;
    cs_error err;
    if (cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "a record's batch", &r, &err) < 0)
        return NULL;
    cs_col_batch *b = NULL;
    int rc = cs_ipc_reader_next(r, &b, &err);
    cs_ipc_reader_free(r);
    if (rc <= 0) return NULL;
    cspark_batch *out = cs_xcalloc(1, sizeof *out);
    out->b = b;
    out->types = cs_xcalloc((size_t)b->n_columns + 1, sizeof *out->types);
    return out;
}

int64_t cspark_batch_num_rows(const cspark_batch *b)
{
    return b ? b->b->num_rows : 0;
}

int cspark_batch_num_columns(const cspark_batch *b)
{
    return b ? b->b->n_columns : 0;
}

static const cs_column *column_at(const cspark_batch *b, int c, int64_t row)
{
    if (!b || c < 0 || c >= b->b->n_columns || row < 0 || row >= b->b->num_rows) return NULL;
    return b->b->columns[c];
}

const char *cspark_batch_column_name(const cspark_batch *b, int column)
{
    if (!b || column < 0 || column >= b->b->n_columns) return NULL;
    return b->b->schema->fields[column].name;
}

const char *cspark_batch_column_type(const cspark_batch *b, int column)
{
    if (!b || column < 0 || column >= b->b->n_columns) return NULL;
    if (!b->types[column]) {
        cs_sbuf s = CS_SBUF_INIT;
        cs_col_type_simple_string(b->b->schema->fields[column].type, &s);
        b->types[column] = cs_sbuf_detach(&s, NULL);
    }
    return b->types[column];
}

int cspark_batch_column_index(const cspark_batch *b, const char *name)
{
    for (int i = 0; b && name && i < b->b->n_columns; i++)
        if (strcmp(b->b->schema->fields[i].name, name) == 0) return i;
    return -1;
}

bool cspark_batch_is_null(const cspark_batch *b, int column, int64_t row)
{
    const cs_column *c = column_at(b, column, row);
    return !c || !cs_column_is_valid(c, row);
}

int64_t cspark_batch_get_long(const cspark_batch *b, int column, int64_t row)
{
    const cs_column *c = column_at(b, column, row);
    if (!c || !cs_column_is_valid(c, row)) return 0;
    const void *v = c->values;
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        return cs_bit_get(c->values, row);
    case CS_TYPE_BYTE:
        return ((const int8_t *)v)[row];
    case CS_TYPE_SHORT:
        return ((const int16_t *)v)[row];
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        return ((const int32_t *)v)[row];
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        return ((const int64_t *)v)[row];
    default:
        return 0;
    }
}

double cspark_batch_get_double(const cspark_batch *b, int column, int64_t row)
{
    const cs_column *c = column_at(b, column, row);
    if (!c || !cs_column_is_valid(c, row)) return 0;
    if (c->type->id == CS_TYPE_FLOAT) return ((const float *)(const void *)c->values)[row];
    if (c->type->id == CS_TYPE_DOUBLE) return ((const double *)(const void *)c->values)[row];
    return (double)cspark_batch_get_long(b, column, row);
}

cspark_slice cspark_batch_get_bytes(const cspark_batch *b, int column, int64_t row)
{
    const cs_column *c = column_at(b, column, row);
    cspark_slice s = {(const uint8_t *)"", 0};
    if (!c || !cs_column_is_valid(c, row)) return s;
    if (c->type->id != CS_TYPE_STRING && c->type->id != CS_TYPE_BINARY) return s;
    int32_t len;
    s.ptr = cs_column_bytes(c, row, &len);
    s.len = (uint32_t)len;
    return s;
}

bool cspark_batch_get_text(const cspark_batch *b, int column, int64_t row, char *buf, size_t cap)
{
    const cs_column *c = column_at(b, column, row);
    if (cap) buf[0] = 0;
    cs_sbuf s = CS_SBUF_INIT;
    bool valid = c && cs_ds_value_text(c, row, &s);
    if (valid && cap) snprintf(buf, cap, "%.*s", (int)s.len, s.data ? s.data : "");
    cs_sbuf_free(&s);
    return valid;
}

void cspark_batch_free(cspark_batch *b)
{
    if (!b) return;
    for (int i = 0; i < b->b->n_columns; i++)
        free(b->types[i]);
    free(b->types);
    cs_col_batch_unref(b->b);
    free(b);
}
