/*
 * file_format.c — the registry of file formats (file_format_list.h) and the options lookup
 * every format shares. A format is found by its short name (any case, as Spark's
 * DataSourceRegister names), by the name of Spark's class for it, or by the older names Spark
 * still maps to that class (DataSource.backwardCompatibilityMap: "org.apache.spark.sql.json",
 * "com.databricks.spark.csv", ...; in any case, as the reader's format may come lower-cased).
 * Called by the data source layer; owns nothing (the tables are static).
 */
#include "formats/file_format.h"

#include <stddef.h>
#include <strings.h>

#include "formats/file_format_list.h"

#define CS_DECLARE_FORMAT(name) extern const cs_file_format cs_file_format_##name;
CS_FILE_FORMAT_LIST(CS_DECLARE_FORMAT)
#undef CS_DECLARE_FORMAT

#define CS_FORMAT_ENTRY(name) &cs_file_format_##name,
static const cs_file_format *const registered_formats[] = {CS_FILE_FORMAT_LIST(CS_FORMAT_ENTRY)
                                                               NULL};
#undef CS_FORMAT_ENTRY

/* Spark's provider class names and their older aliases, with the short name each stands for. */
static const struct {
    const char *class_name, *short_name;
} provider_classes[] = {
    {"org.apache.spark.sql.execution.datasources.csv.CSVFileFormat", "csv"},
    {"com.databricks.spark.csv", "csv"},
    {"org.apache.spark.sql.execution.datasources.json.JsonFileFormat", "json"},
    {"org.apache.spark.sql.json", "json"},
    {"org.apache.spark.sql.json.DefaultSource", "json"},
    {"org.apache.spark.sql.execution.datasources.json", "json"},
    {"org.apache.spark.sql.execution.datasources.json.DefaultSource", "json"},
    {"org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat", "parquet"},
    {"org.apache.spark.sql.parquet", "parquet"},
    {"org.apache.spark.sql.parquet.DefaultSource", "parquet"},
    {"org.apache.spark.sql.execution.datasources.parquet", "parquet"},
    {"org.apache.spark.sql.execution.datasources.parquet.DefaultSource", "parquet"},
    {"org.apache.spark.sql.execution.datasources.text.TextFileFormat", "text"},
};

static const cs_file_format *find_short_name(const char *name)
{
    for (size_t i = 0; registered_formats[i]; i++)
        if (strcasecmp(registered_formats[i]->name, name) == 0) return registered_formats[i];
    return NULL;
}

const cs_file_format *cs_file_format_find(const char *name)
{
    if (!name) return NULL;
    const cs_file_format *f = find_short_name(name);
    for (size_t i = 0; !f && i < sizeof provider_classes / sizeof *provider_classes; i++)
        if (strcasecmp(provider_classes[i].class_name, name) == 0)
            f = find_short_name(provider_classes[i].short_name);
    return f;
}

const char *cs_format_option(const cs_format_options *o, const char *key)
{
    if (!o) return NULL;
    const char *found = NULL;
    for (int i = 0; i < o->n; i++) /* the last value given wins, as in Spark's options map */
        if (strcasecmp(o->keys[i], key) == 0) found = o->values[i];
    return found;
}
