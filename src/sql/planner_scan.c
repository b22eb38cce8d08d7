/*
 * planner_scan.c — the planner's FileSourceScanExec (planner.h): a RELATION (and the FILTER
 * over it) becomes a FILE_SCAN of the relation's files, listed now on the driver
 * (datasource/file_index.h), cut into splits and packed into partitions as Spark's
 * FilePartition does, reading the columns the relation outputs, with the conjuncts a data
 * source can use pushed down and the whole condition in a FILTER above.
 *
 * Also the files a plan reads (cs_sql_plan_input_files, Spark's Dataset.inputFiles), listed
 * the same way.
 *
 * Called by planner.c, and by the Spark Connect server for InputFiles. Ownership: the node owns
 * copies of everything it holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datasource/file_index.h"
#include "sql/catalog.h"
#include "sql/planner_internal.h"

static bool is_fn(const cs_sql_expr *e, const char *fn)
{
    return e && e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, fn) == 0;
}

/* Spark's DataSourceStrategy.translateFilter, for what cs_scan_filter carries: a comparison of
 * a data column with a literal, a null test of a data column, a data column IN literals. */
static bool pushable(const cs_sql_expr *e, cs_sql_expr *const *data, int n_data)
{
    static const char *const cmp[] = {"=", "<=>", "<", "<=", ">", ">="};
    for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++) {
        if (!is_fn(e, cmp[i]) || e->n_args != 2) continue;
        const cs_sql_expr *a = e->args[0], *b = e->args[1];
        if (a->kind == CS_EX_LITERAL) {
            const cs_sql_expr *t = a;
            a = b;
            b = t;
        }
        return a->kind == CS_EX_ATTR && b->kind == CS_EX_LITERAL &&
               cs_col_type_equal(a->type, b->type) && cs_pl_find(data, n_data, a->id) >= 0;
    }
    if ((is_fn(e, "isnull") || is_fn(e, "isnotnull")) && e->n_args == 1)
        return e->args[0]->kind == CS_EX_ATTR && cs_pl_find(data, n_data, e->args[0]->id) >= 0;
    if (e->kind == CS_EX_IN_LIST && !e->negated && e->n_args > 1) {
        if (e->args[0]->kind != CS_EX_ATTR || cs_pl_find(data, n_data, e->args[0]->id) < 0)
            return false;
        for (int i = 1; i < e->n_args; i++)
            if (e->args[i]->kind != CS_EX_LITERAL ||
                !cs_col_type_equal(e->args[i]->type, e->args[0]->type))
                return false;
        return true;
    }
    return false;
}

/* Whether e reads attributes, all of them among attrs (and no subquery). */
static bool only_attrs(const cs_sql_expr *e, cs_sql_expr *const *attrs, int n)
{
    if (!e) return true;
    if (e->kind == CS_EX_ATTR) return cs_pl_find(attrs, n, e->id) >= 0;
    if (e->kind == CS_EX_OUTER_ATTR || e->kind == CS_EX_SCALAR_SUBQUERY ||
        e->kind == CS_EX_EXISTS || e->kind == CS_EX_IN_SUBQUERY)
        return false;
    for (int i = 0; i < e->n_args; i++)
        if (!only_attrs(e->args[i], attrs, n)) return false;
    return true;
}

static void conjuncts(const cs_sql_expr *e, const cs_sql_expr **out, int *n, int cap)
{
    if (is_fn(e, "and") && e->n_args == 2) {
        conjuncts(e->args[0], out, n, cap);
        conjuncts(e->args[1], out, n, cap);
    } else if (*n < cap) {
        out[(*n)++] = e;
    }
}

static int field_index(const cs_col_type *t, const char *name, int from, int to)
{
    for (int i = from; i < to; i++)
        if (strcasecmp(t->fields[i].name, name) == 0) return i;
    return -1;
}

static cs_col_type *struct_of(const cs_col_type *t, const int *idx, int n)
{
    cs_col_field *f = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *f);
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){t->fields[idx[i]].name, cs_col_type_ref(t->fields[idx[i]].type),
                              t->fields[idx[i]].nullable};
    cs_col_type *s = cs_col_type_struct(f, n);
    free(f);
    return s;
}

/* Spark's partition pruning (PartitioningAwareFileIndex.listFiles with partition filters):
 * the rows of the partition values for which prune (over the partition columns) is true, in
 * keep[row]; false when it cannot be evaluated here (then nothing is pruned and the Filter
 * above decides, raising any error at run time as Spark would). */
static bool prune_partitions(const cs_pexpr *prune, cs_col_batch *values, bool *keep)
{
    cs_error err = {0};
    cs_pexpr_program *pg = cs_pexpr_compile(prune, values->schema, &err);
    if (!pg) return false;
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
    cs_column *v = NULL;
    bool ok = cs_pexpr_eval(pg, values, &ctx, &v, &err) == 0;
    cs_pexpr_program_free(pg);
    if (!ok) return false;
    int32_t *sel = cs_xcalloc((size_t)(values->num_rows + 1), sizeof *sel);
    int64_t n = cs_pexpr_true_rows(v, sel);
    for (int64_t i = 0; i < values->num_rows; i++)
        keep[i] = false;
    for (int64_t i = 0; i < n; i++)
        keep[sel[i]] = true;
    free(sel);
    cs_column_unref(v);
    return true;
}

static int list_splits(cs_pl_ctx *c, cs_phys_node *n, const cs_catalog_table *t,
                       const cs_format_options *opts, const cs_file_format *fmt,
                       const cs_pexpr *prune)
{
    cs_ds_file_index ix = {0};
    const char *path = t->location;
    if (cs_ds_file_index_build(&path, 1, opts, c->pc->conf.partition_type_inference, &ix, c->err) !=
        0)
        return -1;
    if (prune && ix.parts.values && t->n_partition_columns > 0) {
        bool *keep = cs_xcalloc((size_t)(ix.parts.values->num_rows + 1), sizeof *keep);
        if (prune_partitions(prune, ix.parts.values, keep)) {
            int k = 0;
            for (int i = 0; i < ix.n_files; i++) {
                if (ix.files[i].partition >= 0 && !keep[ix.files[i].partition]) {
                    free(ix.files[i].uri);
                    continue;
                }
                ix.files[k++] = ix.files[i];
            }
            ix.n_files = k;
        }
        free(keep);
    }
    int nf = ix.n_files;
    uint64_t *sizes = cs_xcalloc((size_t)(nf + 1), sizeof *sizes);
    bool *splittable = cs_xcalloc((size_t)(nf + 1), sizeof *splittable);
    for (int i = 0; i < nf; i++) {
        sizes[i] = ix.files[i].size;
        splittable[i] = fmt->is_splittable ? fmt->is_splittable(ix.files[i].uri, opts) : false;
    }
    const cs_sql_planner_conf *conf = &c->pc->conf;
    int64_t max_split = cs_ds_max_split_bytes(conf->max_partition_bytes, conf->open_cost_bytes,
                                              conf->min_partitions, sizes, nf);
    int n_splits = 0, n_groups = 0;
    int *group_start = NULL;
    cs_ds_split *sp = cs_ds_plan_partitions(sizes, splittable, nf, max_split, conf->open_cost_bytes,
                                            &n_splits, &group_start, &n_groups);
    n->n_splits = n_splits;
    n->split_uri = cs_xcalloc((size_t)(n_splits + 1), sizeof *n->split_uri);
    n->split_start = cs_xcalloc((size_t)(n_splits + 1), sizeof *n->split_start);
    n->split_length = cs_xcalloc((size_t)(n_splits + 1), sizeof *n->split_length);
    n->split_file_size = cs_xcalloc((size_t)(n_splits + 1), sizeof *n->split_file_size);
    n->split_partition = cs_xcalloc((size_t)(n_splits + 1), sizeof *n->split_partition);
    for (int i = 0; i < n_splits; i++) {
        const cs_ds_file *f = &ix.files[sp[i].file];
        n->split_uri[i] = cs_xstrdup(f->uri);
        n->split_start[i] = sp[i].start;
        n->split_length[i] = sp[i].length;
        n->split_file_size[i] = f->size;
        n->split_partition[i] = t->n_partition_columns > 0 ? f->partition : -1;
    }
    n->n_groups = n_groups;
    if (!group_start) group_start = cs_xcalloc(1, sizeof *group_start);
    n->group_start = group_start;
    if (t->n_partition_columns > 0 && ix.parts.values)
        n->partition_values = cs_col_batch_ref(ix.parts.values);
    free(sp);
    free(sizes);
    free(splittable);
    cs_ds_file_index_free(&ix);
    return 0;
}

int cs_pl_scan(cs_pl_ctx *c, const cs_logical_plan *rel, const cs_sql_expr *condition,
               cs_pl_out *out)
{
    const cs_catalog_table *t = rel->table;
    if (!t || !t->format || !t->location)
        return cs_pl_unsupported(c, "a relation that is not over files");
    const cs_file_format *fmt = cs_file_format_find(t->format);
    if (!fmt) return cs_pl_unsupported(c, "a relation in an unknown format");
    int nf = t->schema->n_fields, npc = t->n_partition_columns, nd = nf - npc;

    /* output: the data columns read (in the relation's order), then every partition column */
    int *read = cs_xcalloc((size_t)(nf + 1), sizeof *read);
    int n_read = 0;
    cs_sql_expr **attrs = cs_sql_alloc(c->arena, sizeof *attrs * (size_t)(rel->n_output + npc + 1));
    for (int i = 0; i < rel->n_output; i++) {
        int k = field_index(t->schema, rel->output[i]->name, 0, nd);
        if (k < 0) continue;
        read[n_read] = k;
        attrs[n_read++] = rel->output[i];
    }
    int n_attrs = n_read;
    for (int k = nd; k < nf; k++) {
        cs_sql_expr *a = NULL;
        for (int i = 0; i < rel->n_output && !a; i++)
            if (strcasecmp(rel->output[i]->name, t->schema->fields[k].name) == 0)
                a = rel->output[i];
        attrs[n_attrs++] =
            a ? a : cs_pl_new_attr(c, t->schema->fields[k].name, t->schema->fields[k].type, true);
    }

    cs_phys_node *n = cs_pl_node(c, CS_PH_FILE_SCAN, attrs, n_attrs, 0);
    n->format = cs_xstrdup(fmt->name);
    n->n_options = t->n_options;
    n->option_keys = cs_xcalloc((size_t)(t->n_options + 1), sizeof *n->option_keys);
    n->option_values = cs_xcalloc((size_t)(t->n_options + 1), sizeof *n->option_values);
    for (int i = 0; i < t->n_options; i++) {
        n->option_keys[i] = cs_xstrdup(t->option_keys[i]);
        n->option_values[i] = cs_xstrdup(t->option_values[i]);
    }
    int *data_idx = cs_xcalloc((size_t)(nd + 1), sizeof *data_idx);
    for (int i = 0; i < nd; i++)
        data_idx[i] = i;
    n->data_schema = struct_of(t->schema, data_idx, nd);
    n->read_schema = struct_of(t->schema, read, n_read);
    free(data_idx);
    free(read);
    n->table_name = cs_xstrdup(t->name ? t->name : t->location);

    cs_format_options opts = {(const char *const *)t->option_keys,
                              (const char *const *)t->option_values, t->n_options};
    /* the conjuncts over partition columns only, bound to the partition values' columns */
    cs_pexpr *prune = NULL;
    if (condition && npc > 0) {
        int cap = 64, ncj = 0, np = 0;
        const cs_sql_expr **cj = cs_sql_alloc(c->arena, sizeof *cj * (size_t)cap);
        const cs_sql_expr **pc = cs_sql_alloc(c->arena, sizeof *pc * (size_t)cap);
        conjuncts(condition, cj, &ncj, cap);
        for (int i = 0; i < ncj; i++)
            if (only_attrs(cj[i], attrs + n_read, npc)) pc[np++] = cj[i];
        cs_sql_expr *all = NULL;
        for (int i = 0; i < np; i++) {
            if (!all) {
                all = (cs_sql_expr *)pc[i];
                continue;
            }
            cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_FUNC, 2);
            a->fn = "and";
            a->args[0] = all;
            a->args[1] = (cs_sql_expr *)pc[i];
            a->type = pc[i]->type;
            a->nullable = true;
            a->resolved = true;
            all = a;
        }
        if (all && cs_pl_bind(c, all, attrs + n_read, npc, &prune) != 0) goto fail;
    }
    int rc = list_splits(c, n, t, &opts, fmt, prune);
    cs_pexpr_free(prune);
    if (rc != 0) goto fail;

    if (condition) {
        int cap = 64;
        const cs_sql_expr **cj = cs_sql_alloc(c->arena, sizeof *cj * (size_t)cap);
        int ncj = 0;
        conjuncts(condition, cj, &ncj, cap);
        n->filters = cs_xcalloc((size_t)(ncj + 1), sizeof *n->filters);
        for (int i = 0; i < ncj; i++) {
            if (!pushable(cj[i], attrs, n_read)) continue;
            if (cs_pl_bind(c, cj[i], attrs, n_attrs, &n->filters[n->n_filters]) != 0) goto fail;
            n->n_filters++;
        }
    }
    *out = (cs_pl_out){n, attrs, n_attrs, NULL, 0, 0};
    if (condition) {
        cs_phys_node *f = cs_pl_node(c, CS_PH_FILTER, attrs, n_attrs, 1);
        f->children[0] = n;
        out->node = f;
        if (cs_pl_bind(c, condition, attrs, n_attrs, &f->condition) != 0) {
            cs_phys_free(f);
            return -1;
        }
    }
    return 0;
fail:
    cs_phys_free(n);
    return -1;
}

/* Adds the files of every relation over files under p to *files (local paths as file:// uris,
 * as Hadoop's qualified paths print; a file read twice is listed twice until the caller's
 * unique pass). */
static int add_input_files(const cs_logical_plan *p, char ***files, int *n, int *cap, cs_error *err)
{
    const cs_catalog_table *t = p->kind == CS_LP_RELATION ? p->table : NULL;
    if (t && t->format && t->location) {
        cs_format_options opts = {(const char *const *)t->option_keys,
                                  (const char *const *)t->option_values, t->n_options};
        cs_ds_file_index ix = {0};
        const char *path = t->location;
        if (cs_ds_file_index_build(&path, 1, &opts, true, &ix, err) != 0) return -1;
        for (int i = 0; i < ix.n_files; i++) {
            const char *uri = ix.files[i].uri;
            size_t len = strlen(uri) + sizeof "file://";
            char *name = cs_xmalloc(len);
            snprintf(name, len, "%s%s", uri[0] == '/' ? "file://" : "", uri);
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *files = cs_xrealloc(*files, sizeof **files * (size_t)*cap);
            }
            (*files)[(*n)++] = name;
        }
        cs_ds_file_index_free(&ix);
    }
    for (int i = 0; i < p->n_children; i++)
        if (add_input_files(p->children[i], files, n, cap, err) != 0) return -1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cs_sql_plan_input_files(const cs_logical_plan *plan, char ***files, int *n_files, cs_error *err)
{
    char **list = NULL;
    int n = 0, cap = 0;
    if (add_input_files(plan, &list, &n, &cap, err) != 0) {
        for (int i = 0; i < n; i++)
            free(list[i]);
        free(list);
        return err->code ? err->code : CS_EINVAL;
    }
    /* each file once (Spark's inputFiles is a set): sorted, the repeats dropped */
    if (n > 1) qsort(list, (size_t)n, sizeof *list, by_name);
    int w = 0;
    for (int i = 0; i < n; i++) {
        if (w > 0 && strcmp(list[w - 1], list[i]) == 0)
            free(list[i]);
        else
            list[w++] = list[i];
    }
    *files = list;
    *n_files = w;
    return 0;
}
