/*
 * col_type.h — Spark's data types for column batches: boolean, byte (tinyint), short (smallint),
 * int, long (bigint), float, double, decimal(p,s) up to 38 digits, string, binary, date,
 * timestamp (microseconds since the epoch, UTC), timestamp_ntz (microseconds, no time zone), and
 * the nested array<element>, struct<fields> and map<key,value>, and the ANSI interval types SQL
 * computes with (interval year to month, interval day to second), and Spark 4's variant. A
 * batch's schema is a struct type.
 *
 * Physical layout (Arrow's, see column.h): boolean is a bitmap; byte/short/int/long/float/double
 * are 1/2/4/8/4/8-byte values; decimal is a 16-byte two's-complement unscaled integer (Arrow's
 * decimal128); date is int32 days; both timestamps are int64 microseconds; string and binary are
 * int32 offsets + bytes; a year-month interval is int32 months, a day-time interval int64
 * microseconds (Arrow's interval[months] / duration[us]); array is int32 offsets + one child; map
 * is int32 offsets + a key child and a value child (Arrow's entries struct is implied); struct is
 * one child per field. A variant (Spark's VariantType, a VariantVal per row) is laid out as the
 * struct<value: binary, metadata: binary> of its two encoded parts (common/variant's binary
 * encoding, sqlexec/variant_codec.h) and marked `variant`, so every columnar path that moves a
 * struct moves a variant; only its name, equality and the functions over it differ.
 *
 * A string type carries Spark 4's collation (col_collation.h): UTF8_BINARY is the plain string
 * type, the others are their own static string types whose values are laid out alike and compare,
 * group and hash by the collation (sqlexec/collation_keys.h); their simpleString is "string
 * collate NAME".
 *
 * Types are immutable and reference counted; primitive types are static singletons (ref/unref
 * are no-ops on them). Constructors of nested types take over the references passed to them
 * (the caller's reference to element/key/value/field types moves into the new type) and copy
 * field names. Used by columns, builders, batches and every format reader/writer.
 */
#ifndef CSPARK_COLUMNAR_COL_TYPE_H
#define CSPARK_COLUMNAR_COL_TYPE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columnar/col_collation.h"
#include "common/err.h"
#include "common/strutil.h"

typedef enum cs_type_id {
    CS_TYPE_NULL,
    CS_TYPE_BOOLEAN,
    CS_TYPE_BYTE,
    CS_TYPE_SHORT,
    CS_TYPE_INT,
    CS_TYPE_LONG,
    CS_TYPE_FLOAT,
    CS_TYPE_DOUBLE,
    CS_TYPE_DECIMAL,
    CS_TYPE_STRING,
    CS_TYPE_BINARY,
    CS_TYPE_DATE,
    CS_TYPE_TIMESTAMP,
    CS_TYPE_TIMESTAMP_NTZ,
    CS_TYPE_ARRAY,
    CS_TYPE_STRUCT,
    CS_TYPE_MAP,
    CS_TYPE_INTERVAL_YM, /* Spark's YearMonthIntervalType: int32 months */
    CS_TYPE_INTERVAL_DT, /* Spark's DayTimeIntervalType: int64 microseconds */
    CS_TYPE_INTERVAL_CAL /* Spark's CalendarIntervalType in Arrow's month_day_nano layout: 16
                            bytes, int32 months, int32 days, int64 nanoseconds (Spark keeps
                            microseconds: always a multiple of 1000) */
} cs_type_id;

/* The fields an interval type spans (Spark's startField/endField), kept in cs_col_type's
 * precision (start) and scale (end): year-month intervals YEAR..MONTH, day-time DAY..SECOND. */
enum { CS_INTERVAL_YEAR = 0, CS_INTERVAL_MONTH = 1 };
enum { CS_INTERVAL_DAY = 0, CS_INTERVAL_HOUR = 1, CS_INTERVAL_MINUTE = 2, CS_INTERVAL_SECOND = 3 };

#define CS_DECIMAL_MAX_PRECISION 38

typedef struct cs_col_type cs_col_type;

typedef struct cs_col_field {
    char *name;
    cs_col_type *type;
    bool nullable;
} cs_col_field;

struct cs_col_type {
    _Atomic int32_t refs; /* < 0: a static singleton */
    cs_type_id id;
    int precision, scale; /* decimal */
    int n_fields;         /* struct: its fields; array: 1 (element); map: 2 (key, value) */
    cs_col_field *fields;
    bool variant;      /* a CS_TYPE_STRUCT that is Spark's variant (cs_col_type_variant) */
    uint8_t collation; /* CS_TYPE_STRING: its collation (CS_COLLATION_*, 0: UTF8_BINARY) */
};

/* The static type of a primitive id (not decimal, array, struct or map). */
cs_col_type *cs_col_type_primitive(cs_type_id id);
/* decimal(precision, scale): 1 <= precision <= 38, 0 <= scale <= precision; NULL + err else. */
cs_col_type *cs_col_type_decimal(int precision, int scale, cs_error *err);
/* interval year to month / interval day to second spanning start..end (the CS_INTERVAL_* field
 * numbers of its kind, start <= end); NULL + err else. */
cs_col_type *cs_col_type_interval(cs_type_id id, int start, int end, cs_error *err);
/* array<element>; takes over the element reference. */
cs_col_type *cs_col_type_array(cs_col_type *element, bool contains_null);
/* map<key,value>; takes over both references. Keys are never null (Spark's and Arrow's rule). */
cs_col_type *cs_col_type_map(cs_col_type *key, cs_col_type *value, bool value_contains_null);
/* struct<fields>: copies the names, takes over each fields[i].type. n may be 0. */
cs_col_type *cs_col_type_struct(const cs_col_field *fields, int n);
/* Spark's variant: the static struct<value: binary not null, metadata: binary not null> marked
 * variant (ref/unref are no-ops). */
cs_col_type *cs_col_type_variant(void);
/* The static string type of a collation id (col_collation.h; UTF8_BINARY: the primitive string
 * type); NULL for an unknown id. */
cs_col_type *cs_col_type_string(int collation);
/* t is a string type with a collation other than UTF8_BINARY (NULL: false). */
static inline bool cs_col_type_is_collated(const cs_col_type *t)
{
    return t && t->id == CS_TYPE_STRING && t->collation != 0;
}
/* t is a variant (NULL: false). */
static inline bool cs_col_type_is_variant(const cs_col_type *t)
{
    return t && t->variant;
}

cs_col_type *cs_col_type_ref(cs_col_type *t);
void cs_col_type_unref(cs_col_type *t);
bool cs_col_type_equal(const cs_col_type *a, const cs_col_type *b);

/* Bytes per value of the fixed-width types (boolean: 0, a bit each; variable and nested: 0). */
int cs_col_type_width(cs_type_id id);
/* Bytes per value of the types held as integers (byte, short, int, long, date, timestamps,
 * intervals), which operators may hash and compare as integer words; 0 for every other type. */
int cs_col_type_integral_width(cs_type_id id);
/* Uses int32 offsets: string, binary, array, map. */
bool cs_col_type_has_offsets(cs_type_id id);
/* Spark's simpleString: "int", "decimal(10,2)", "array<string>", "struct<a:int,b:bigint>",
 * "map<string,int>", "timestamp_ntz", ... appended to out. */
void cs_col_type_simple_string(const cs_col_type *t, cs_sbuf *out);
/* Spark's StructType.treeString of a struct type: "root", then one line per field
 * (" |-- a: integer (nullable = false)"), nested types indented, to max_depth levels (0: all). */
void cs_col_type_tree_string(const cs_col_type *schema, int max_depth, cs_sbuf *out);
/* Spark's name of a primitive id ("tinyint", "bigint", ...). */
const char *cs_type_id_name(cs_type_id id);

#endif /* CSPARK_COLUMNAR_COL_TYPE_H */
