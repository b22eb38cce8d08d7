/*
 * table_describe.c — a catalog table's details as Spark 4 prints them for its data source
 * tables (the session catalog without Hive):
 *   DESCRIBE TABLE EXTENDED t's "# Detailed Table Information" section (CatalogTable's
 *     toLinkedHashMap: Catalog, Database, Table, Created Time, Last Access, Created By, Type,
 *     Provider, the bucket spec's Num Buckets / Bucket Columns / Sort Columns, Comment, Storage
 *     Properties, Location, Partition Provider), after the columns and the partition section;
 *   SHOW CREATE TABLE t (ShowCreateTableCommand's data source form: the columns, USING,
 *     OPTIONS, PARTITIONED BY, CLUSTERED BY ... [SORTED BY ...] INTO n BUCKETS, LOCATION for an
 *     external table, COMMENT).
 *
 * Called by sql_session.c's DESCRIBE and SHOW. Ownership: the table is the catalog's, borrowed
 * for the call; rows are copied into the result.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "session/session_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static void row3(cs_rows_builder *b, const char *name, const char *value)
{
    cs_rows_string(b, 0, name);
    cs_rows_string(b, 1, value);
    cs_rows_string(b, 2, "");
    cs_rows_end_row(b);
}

/* `a`, `b` in brackets, as Spark prints a bucket spec's column lists. */
static void column_list(cs_sbuf *out, const char *const *names, int n)
{
    cs_sbuf_putc(out, '[');
    for (int i = 0; i < n; i++)
        cs_sbuf_printf(out, "%s`%s`", i ? ", " : "", names[i]);
    cs_sbuf_putc(out, ']');
}

/* Whether the storage option key is shown (Spark keeps the path out of them). */
static bool shown_option(const char *key)
{
    return strcasecmp(key, "path") != 0;
}

void cs_session_describe_detail(const cs_catalog_table *t, cs_rows_builder *b)
{
    row3(b, "", "");
    row3(b, "# Detailed Table Information", "");
    row3(b, "Catalog", "spark_catalog");
    row3(b, "Database", t->database);
    row3(b, "Table", t->name);
    char when[64] = "";
    time_t created = (time_t)t->created_s;
    struct tm tm;
    if (localtime_r(&created, &tm)) /* java.util.Date's toString */
        strftime(when, sizeof when, "%a %b %d %H:%M:%S %Z %Y", &tm);
    row3(b, "Created Time", when);
    row3(b, "Last Access", "UNKNOWN");
    row3(b, "Created By", "Spark 4.0.1");
    row3(b, "Type", t->managed ? "MANAGED" : "EXTERNAL");
    row3(b, "Provider", t->format);
    cs_sbuf v = CS_SBUF_INIT;
    if (t->num_buckets > 0) {
        cs_sbuf_printf(&v, "%d", t->num_buckets);
        row3(b, "Num Buckets", cs_sbuf_str(&v));
        v.len = 0;
        column_list(&v, t->bucket_columns, t->n_bucket_columns);
        row3(b, "Bucket Columns", cs_sbuf_str(&v));
        v.len = 0;
        column_list(&v, t->sort_columns, t->n_sort_columns);
        row3(b, "Sort Columns", cs_sbuf_str(&v));
    }
    if (t->comment) row3(b, "Comment", t->comment);
    v.len = 0;
    for (int i = 0; i < t->n_options; i++)
        if (shown_option(t->option_keys[i]))
            cs_sbuf_printf(&v, "%s%s=%s", v.len ? ", " : "[", t->option_keys[i],
                           t->option_values[i]);
    if (v.len) {
        cs_sbuf_putc(&v, ']');
        row3(b, "Storage Properties", cs_sbuf_str(&v));
    }
    v.len = 0;
    cs_session_location_uri(t->location, &v);
    row3(b, "Location", cs_sbuf_str(&v));
    if (t->n_partition_columns > 0) row3(b, "Partition Provider", "Catalog");
    cs_sbuf_free(&v);
}

/* A name as Spark's quoteIfNeeded writes it: bare when letters, digits and underscores. */
static void quote_if_needed(cs_sbuf *out, const char *name)
{
    bool plain = *name != '\0';
    for (const char *p = name; *p; p++)
        plain &= isalnum((unsigned char)*p) || *p == '_';
    if (plain) {
        cs_sbuf_puts(out, name);
        return;
    }
    cs_sbuf_putc(out, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`') cs_sbuf_putc(out, '`');
        cs_sbuf_putc(out, *p);
    }
    cs_sbuf_putc(out, '`');
}

static void name_list(cs_sbuf *out, const char *head, const char *const *names, int n)
{
    cs_sbuf_printf(out, "%s (", head);
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        quote_if_needed(out, names[i]);
    }
    cs_sbuf_puts(out, ")\n");
}

/* A string in single quotes, its quotes and backslashes escaped. */
static void single_quoted(cs_sbuf *out, const char *s)
{
    cs_sbuf_putc(out, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'' || *p == '\\') cs_sbuf_putc(out, '\\');
        cs_sbuf_putc(out, *p);
    }
    cs_sbuf_putc(out, '\'');
}

int cs_session_show_create_table(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err)
{
    const cs_catalog_table *t = cs_catalog_lookup_relation(s->catalog, st->parts, st->n_parts);
    if (!t) return cs_catalog_not_found_error(st->parts, st->n_parts, err);
    if (t->kind != CS_CATALOG_TABLE)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: SHOW CREATE TABLE of a temporary "
                                "view (`%s`).",
                                t->name);
    cs_sbuf q = CS_SBUF_INIT;
    cs_sbuf_puts(&q, "CREATE TABLE spark_catalog.");
    quote_if_needed(&q, t->database);
    cs_sbuf_putc(&q, '.');
    quote_if_needed(&q, t->name);
    cs_sbuf_puts(&q, " (\n");
    for (int i = 0; i < t->schema->n_fields; i++) {
        cs_sbuf_puts(&q, "  ");
        quote_if_needed(&q, t->schema->fields[i].name);
        cs_sbuf_putc(&q, ' ');
        cs_tc_type_sql(t->schema->fields[i].type, &q);
        cs_sbuf_puts(&q, i + 1 < t->schema->n_fields ? ",\n" : ")\n");
    }
    cs_sbuf_printf(&q, "USING %s\n", t->format);
    bool any = false;
    for (int i = 0; i < t->n_options; i++) {
        if (!shown_option(t->option_keys[i])) continue;
        cs_sbuf_puts(&q, any ? ",\n  " : "OPTIONS (\n  ");
        single_quoted(&q, t->option_keys[i]);
        cs_sbuf_puts(&q, " = ");
        single_quoted(&q, t->option_values[i]);
        any = true;
    }
    if (any) cs_sbuf_puts(&q, ")\n");
    int np = t->n_partition_columns, first = t->schema->n_fields - np;
    if (np > 0) {
        const char **parts = cs_xcalloc((size_t)np + 1, sizeof *parts);
        for (int i = 0; i < np; i++)
            parts[i] = t->schema->fields[first + i].name;
        name_list(&q, "PARTITIONED BY", parts, np);
        free(parts);
    }
    if (t->num_buckets > 0) {
        name_list(&q, "CLUSTERED BY", t->bucket_columns, t->n_bucket_columns);
        if (t->n_sort_columns > 0) name_list(&q, "SORTED BY", t->sort_columns, t->n_sort_columns);
        cs_sbuf_printf(&q, "INTO %d BUCKETS\n", t->num_buckets);
    }
    if (!t->managed) {
        cs_sbuf loc = CS_SBUF_INIT;
        cs_session_location_uri(t->location, &loc);
        cs_sbuf_puts(&q, "LOCATION ");
        single_quoted(&q, cs_sbuf_str(&loc));
        cs_sbuf_putc(&q, '\n');
        cs_sbuf_free(&loc);
    }
    if (t->comment) {
        cs_sbuf_puts(&q, "COMMENT ");
        single_quoted(&q, t->comment);
        cs_sbuf_putc(&q, '\n');
    }
    static const char *const names[] = {"createtab_stmt"};
    static const cs_type_id types[] = {CS_TYPE_STRING};
    cs_rows_builder b;
    cs_rows_begin(&b, names, types, 1);
    cs_rows_string(&b, 0, cs_sbuf_str(&q));
    cs_rows_end_row(&b);
    cs_sbuf_free(&q);
    return cs_rows_finish(&b, out, err);
}
