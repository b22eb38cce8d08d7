/*
 * partitioning.h — Spark's PartitioningUtils: `key=value` folders as partition columns. Reading:
 * the leaf directories of a table are parsed up to their base path into (column, raw value)
 * lists, each value's type is inferred (int, long, decimal(p,0), double, timestamp, date, else
 * string; __HIVE_DEFAULT_PARTITION__ is null; names and string values unescaped from %XX), the
 * columns' types are widened across directories as Spark's findWiderTypeForPartitionColumn, and
 * the values become one row per directory of a column batch. Writing: the folder of a row's
 * partition values, escaped as Spark's ExternalCatalogUtils.escapePathName.
 *
 * Called by file_index.c (reading) and ds_write.c (writing); unit-tested alone. Ownership: the
 * spec's strings, schema and batch belong to it (cs_ds_partition_spec_free).
 */
#ifndef CSPARK_DATASOURCE_PARTITIONING_H
#define CSPARK_DATASOURCE_PARTITIONING_H

#include <stdbool.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"

#define CS_DEFAULT_PARTITION_NAME "__HIVE_DEFAULT_PARTITION__"

typedef struct cs_ds_partition_spec {
    cs_col_type *schema;  /* struct of the partition columns (0 fields: not partitioned) */
    cs_col_batch *values; /* one row per partition directory; NULL when not partitioned */
    char **dirs;          /* the directory of each row */
    int n_dirs;
} cs_ds_partition_spec;

/* Infers the partitioning of leaf_dirs[0..n) (directories holding data files; duplicates
 * allowed) under base_paths[0..n_base). dir_row[i] receives the row of leaf_dirs[i], or -1 when
 * it has no partition values (its files then belong to no partition). type_inference is
 * spark.sql.sources.partitionColumnTypeInference.enabled. Errors as Spark's: conflicting
 * column names, conflicting directory structures, an empty name or value. */
int cs_ds_infer_partitions(const char *const *base_paths, int n_base, const char *const *leaf_dirs,
                           int n, bool type_inference, cs_ds_partition_spec *out, int *dir_row,
                           cs_error *err);
void cs_ds_partition_spec_free(cs_ds_partition_spec *s);

/* Spark's unescapePathName (%XX -> the byte) and escapePathName, appended to out. */
void cs_ds_unescape_path_name(const char *s, size_t n, cs_sbuf *out);
void cs_ds_escape_path_name(const char *s, size_t n, cs_sbuf *out);
/* "name=value" of one partition column (a NULL or empty value is __HIVE_DEFAULT_PARTITION__). */
void cs_ds_partition_path_part(const char *name, const char *value, size_t len, cs_sbuf *out);

#endif
