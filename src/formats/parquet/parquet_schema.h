/* parquet_schema.h — a Parquet file's schema as Spark sees it (ParquetToSparkSchemaConverter):
 * the footer's schema tree turned into Spark types, one node per Spark field, each knowing the
 * definition and repetition levels at which it exists, and the conversion its leaf values need.
 *
 * Mapping (Spark 4's defaults): BOOLEAN boolean; INT32 int, INT(8)/INT(16) byte/short,
 * UINT_8/UINT_16 short/int, UINT_32 long, DATE date, DECIMAL decimal; INT64 long, UINT_64
 * decimal(20,0), DECIMAL, TIMESTAMP(MILLIS|MICROS|NANOS) timestamp when isAdjustedToUTC, else
 * timestamp_ntz (TIMESTAMP_MILLIS/MICROS converted types: timestamp); INT96 timestamp (as Spark
 * and Impala write it: nanoseconds of the day, then the Julian day); FLOAT, DOUBLE; BYTE_ARRAY
 * string (STRING/UTF8, ENUM, JSON), decimal (DECIMAL), else binary; FIXED_LEN_BYTE_ARRAY decimal
 * (DECIMAL) or binary. LIST groups (3-level, and the legacy 2-level forms with Spark's rules:
 * a repeated primitive, a repeated group of several fields, one named "array" or "<list>_tuple"
 * is the element) become arrays; MAP / MAP_KEY_VALUE groups maps; other groups structs; a
 * repeated field outside a LIST an array of non-null elements. TIME, INTERVAL, FLOAT16 and
 * decimals over 38 digits are refused with one line naming the column, as Spark refuses them.
 *
 * When the footer has Spark's key `org.apache.spark.sql.parquet.row.metadata` (Spark's schema as
 * JSON), cs_parquet_spark_schema returns that schema, as Spark's readSchemaFromFooter does.
 *
 * Called by the Parquet format (parquet_format.c) and the scan (parquet_scan.c). Ownership: a
 * cs_pq_schema owns its nodes, names and types; it borrows the cs_parquet_file it was made from.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_SCHEMA_H
#define CSPARK_FORMATS_PARQUET_PARQUET_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "columnar/col_type.h"
#include "common/err.h"
#include "formats/parquet/parquet_file.h"

typedef enum cs_pq_node_kind {
    CS_PQ_NODE_LEAF,
    CS_PQ_NODE_STRUCT,
    CS_PQ_NODE_LIST,
    CS_PQ_NODE_MAP
} cs_pq_node_kind;

/* How a leaf's physical values become the Spark type's values. */
typedef enum cs_pq_conv {
    CS_PQ_CONV_BOOL,      /* bytes 0/1 -> bitmap */
    CS_PQ_CONV_COPY,      /* same width: int, long, float, double, date, timestamp micros */
    CS_PQ_CONV_I32_TO_I8, /* INT(8) */
    CS_PQ_CONV_I32_TO_I16,
    CS_PQ_CONV_U32_TO_I16, /* UINT_8 */
    CS_PQ_CONV_U32_TO_I32, /* UINT_16 */
    CS_PQ_CONV_U32_TO_I64, /* UINT_32 */
    CS_PQ_CONV_I32_TO_DEC, /* decimal stored as INT32 */
    CS_PQ_CONV_I64_TO_DEC, /* decimal stored as INT64 */
    CS_PQ_CONV_U64_TO_DEC, /* UINT_64 -> decimal(20,0) */
    CS_PQ_CONV_BE_TO_DEC,  /* BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY big-endian two's complement */
    CS_PQ_CONV_MILLIS,     /* INT64 milliseconds -> microseconds */
    CS_PQ_CONV_NANOS,      /* INT64 nanoseconds -> microseconds (floor) */
    CS_PQ_CONV_INT96,      /* INT96 -> microseconds */
    CS_PQ_CONV_BYTES,      /* BYTE_ARRAY -> string/binary */
    CS_PQ_CONV_FIXED_BYTES /* FIXED_LEN_BYTE_ARRAY -> binary */
} cs_pq_conv;

typedef struct cs_pq_node cs_pq_node;
struct cs_pq_node {
    char *name;
    cs_col_type *type; /* the Spark type (one reference) */
    bool nullable;
    cs_pq_node_kind kind;
    int16_t def, rep;         /* levels at which this node is present (not null) */
    int16_t entry_def;        /* list/map: the level at which an entry (element, key) exists */
    int16_t entry_rep;        /* list/map: the repetition level of its entries */
    int n_children;           /* struct: fields; list: 1 (element); map: 2 (key, value) */
    cs_pq_node *children;     /* owned */
    cs_pq_node *parent;       /* NULL at the top */
    int leaf;                 /* leaf: index into the file's columns; else -1 */
    int first_leaf, end_leaf; /* the leaves under this node: [first_leaf, end_leaf) */
    cs_pq_conv conv;          /* leaf */
};

typedef struct cs_pq_schema {
    cs_pq_node root; /* a struct of the top-level fields */
    const cs_parquet_file *file;
} cs_pq_schema;

/* A decimal's unscaled value from its big-endian two's complement bytes (BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY decimals, their statistics); more than 16 bytes keep the last 16. */
static inline __int128 cs_pq_decimal_from_be(const uint8_t *p, size_t len)
{
    if (len > 16) {
        p += len - 16;
        len = 16;
    }
    unsigned __int128 v = len && (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++)
        v = v << 8 | p[i];
    return (__int128)v;
}

/* Builds the node tree of f's schema; fails naming the column Spark could not read. */
int cs_pq_schema_build(const cs_parquet_file *f, cs_pq_schema *out, cs_error *err);
void cs_pq_schema_free(cs_pq_schema *s);

/* The Spark schema of the file: Spark's own when the footer has it (parsable), else the
 * converted root (a new reference either way). */
cs_col_type *cs_parquet_spark_schema(const cs_pq_schema *s);

/* The child of a struct node called name (exact, then case-insensitive as Spark's default
 * spark.sql.caseSensitive=false), or NULL. */
const cs_pq_node *cs_pq_node_field(const cs_pq_node *n, const char *name);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_SCHEMA_H */
