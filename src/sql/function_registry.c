/*
 * function_registry.c — Spark's builtin functions by name: canonical name, arity, kind and the
 * result type rule with Spark 4's implicit casts (see function_registry.h). Called by the
 * analyzer for every function call and operator.
 *
 * Most functions are described by a signature: `args` gives the type each argument is cast to
 * ('S' string, 'I' int, 'L' bigint, 'D' double, 'B' boolean, 'T' date, 'P' timestamp, 'N' any
 * numeric, 'X' anything, 'A' an array, 'M' a map or array; the last letter repeats for variadic
 * functions) and `ret` the result ('S', 'I', 'L', 'D', 'B', 'T', 'P' as above; '0' the first
 * argument's type; 'C' the common type of the arguments; 'Q' timestamp_ntz; 'a' array<string>;
 * 'E' the element
 * type of the first argument; 'R' array of the first argument's type; 'Y' binary; 'V' void;
 * 'Z' map<string,string>). Operators and the
 * aggregates whose types depend on decimals have rules of their own (the R_* rules).
 */
#include "sql/function_registry.h"
#include "sql/function_registry_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

#define S CS_FN_SCALAR
#define AG CS_FN_AGGREGATE
#define W CS_FN_WINDOW
#define G CS_FN_GENERATOR

static const fn_entry FUNCTIONS[] = {
    /* operators */
    FN("+", "+", 2, 2, S, R_ADD, "", ""),
    FN("-", "-", 2, 2, S, R_ADD, "", ""),
    FN("*", "*", 2, 2, S, R_MUL, "", ""),
    FN("/", "/", 2, 2, S, R_DIVIDE, "", ""),
    FN("%", "%", 2, 2, S, R_MOD, "", ""),
    FN("mod", "%", 2, 2, S, R_MOD, "", ""),
    FN("pmod", "pmod", 2, 2, S, R_MOD, "", ""),
    FN("div", "div", 2, 2, S, R_DIV, "", ""),
    FN("=", "=", 2, 2, S, R_COMPARE, "", ""),
    FN("==", "=", 2, 2, S, R_COMPARE, "", ""),
    FNN("<=>", "<=>", 2, 2, S, R_COMPARE, "", ""),
    FN("<", "<", 2, 2, S, R_COMPARE, "", ""),
    FN("<=", "<=", 2, 2, S, R_COMPARE, "", ""),
    FN(">", ">", 2, 2, S, R_COMPARE, "", ""),
    FN(">=", ">=", 2, 2, S, R_COMPARE, "", ""),
    FN("!=", "!=", 2, 2, S, R_COMPARE, "", ""),
    FN("<>", "!=", 2, 2, S, R_COMPARE, "", ""),
    FN("between", "between", 3, 3, S, R_BETWEEN, "", ""),
    FN("and", "and", 2, 2, S, R_SIG, "B", "B"),
    FN("or", "or", 2, 2, S, R_SIG, "B", "B"),
    FN("not", "not", 1, 1, S, R_SIG, "B", "B"),
    FN("!", "not", 1, 1, S, R_SIG, "B", "B"),
    FNN("isnull", "isnull", 1, 1, S, R_SIG, "X", "B"),
    FNN("isnotnull", "isnotnull", 1, 1, S, R_SIG, "X", "B"),
    FN("negative", "negative", 1, 1, S, R_SIG, "N", "0"),
    FN("positive", "positive", 1, 1, S, R_SIG, "N", "0"),
    FN("abs", "abs", 1, 1, S, R_SIG, "N", "0"),
    FN("&", "&", 2, 2, S, R_SIG, "LL", "C"),
    FN("|", "|", 2, 2, S, R_SIG, "LL", "C"),
    FN("^", "^", 2, 2, S, R_SIG, "LL", "C"),
    FN("~", "~", 1, 1, S, R_SIG, "X", "0"), /* BitwiseNot: the integral type it is given */
    FN("like", "like", 2, 3, S, R_SIG, "SSS", "B"),
    FN("ilike", "ilike", 2, 3, S, R_SIG, "SSS", "B"),
    FN("rlike", "rlike", 2, 2, S, R_SIG, "SS", "B"),
    FN("regexp", "rlike", 2, 2, S, R_SIG, "SS", "B"),
    FN("regexp_like", "rlike", 2, 2, S, R_SIG, "SS", "B"),
    /* conditional */
    FN("coalesce", "coalesce", 1, -1, S, R_SIG, "X", "C"),
    FN("nvl", "coalesce", 2, 2, S, R_SIG, "X", "C"),
    FN("ifnull", "coalesce", 2, 2, S, R_SIG, "X", "C"),
    FN("nullif", "nullif", 2, 2, S, R_SIG, "X", "C"),
    FN("if", "if", 3, 3, S, R_SIG, "BXX", "C"),
    FN("nvl2", "nvl2", 3, 3, S, R_SIG, "XXX", "C"),
    /* Spark's NullIfZero / ZeroIfNull: nullif(x, 0) / nvl(x, 0), the 0 added by the analyzer */
    FN("nullifzero", "nullif", 1, 1, S, R_SIG, "X", "C"),
    FN("zeroifnull", "coalesce", 1, 1, S, R_SIG, "X", "C"),
    FN("greatest", "greatest", 2, -1, S, R_SIG, "X", "C"),
    FN("least", "least", 2, -1, S, R_SIG, "X", "C"),
    FN("isnan", "isnan", 1, 1, S, R_SIG, "D", "B"),
    FN("nanvl", "nanvl", 2, 2, S, R_SIG, "DD", "D"),
    FNN("typeof", "typeof", 1, 1, S, R_SIG, "X", "S"),
    /* strings */
    FN("collate", "collate", 2, 2, S, R_SPECIAL, "", ""),
    FN("collation", "collation", 1, 1, S, R_SPECIAL, "", ""),
    FN("upper", "upper", 1, 1, S, R_SIG, "S", "S"),
    FN("ucase", "upper", 1, 1, S, R_SIG, "S", "S"),
    FN("lower", "lower", 1, 1, S, R_SIG, "S", "S"),
    FN("lcase", "lower", 1, 1, S, R_SIG, "S", "S"),
    FN("trim", "trim", 1, 2, S, R_SIG, "SS", "S"),
    FN("ltrim", "ltrim", 1, 2, S, R_SIG, "SS", "S"),
    FN("rtrim", "rtrim", 1, 2, S, R_SIG, "SS", "S"),
    FN("btrim", "btrim", 1, 2, S, R_SIG, "SS", "S"),
    FN("initcap", "initcap", 1, 1, S, R_SIG, "S", "S"),
    FN("reverse", "reverse", 1, 1, S, R_SPECIAL, "", ""),
    FN("substring", "substring", 2, 3, S, R_SIG, "SII", "S"),
    FN("substr", "substring", 2, 3, S, R_SIG, "SII", "S"),
    FN("left", "left", 2, 2, S, R_SIG, "SI", "S"),
    FN("right", "right", 2, 2, S, R_SIG, "SI", "S"),
    FN("concat", "concat", 0, -1, S, R_SIG, "S", "S"),
    FN("||", "concat", 2, 2, S, R_SIG, "S", "S"),
    FN("concat_ws", "concat_ws", 1, -1, S, R_SPECIAL, "", ""),
    FN("lpad", "lpad", 2, 3, S, R_SIG, "SIS", "S"),
    FN("rpad", "rpad", 2, 3, S, R_SIG, "SIS", "S"),
    FN("repeat", "repeat", 2, 2, S, R_SIG, "SI", "S"),
    FN("replace", "replace", 2, 3, S, R_SIG, "SSS", "S"),
    FN("translate", "translate", 3, 3, S, R_SIG, "SSS", "S"),
    FN("split", "split", 2, 3, S, R_SIG, "SSI", "a"),
    FN("regexp_extract", "regexp_extract", 2, 3, S, R_SIG, "SSI", "S"),
    FN("regexp_replace", "regexp_replace", 3, 4, S, R_SIG, "SSSI", "S"),
    FN("length", "length", 1, 1, S, R_SIG, "S", "I"),
    FN("char_length", "length", 1, 1, S, R_SIG, "S", "I"),
    FN("character_length", "length", 1, 1, S, R_SIG, "S", "I"),
    FN("len", "length", 1, 1, S, R_SIG, "S", "I"),
    FN("octet_length", "octet_length", 1, 1, S, R_SIG, "S", "I"),
    FN("instr", "instr", 2, 2, S, R_SIG, "SS", "I"),
    FN("locate", "locate", 2, 3, S, R_SIG, "SSI", "I"),
    FN("ascii", "ascii", 1, 1, S, R_SIG, "S", "I"),
    FN("startswith", "startswith", 2, 2, S, R_SIG, "SS", "B"),
    FN("endswith", "endswith", 2, 2, S, R_SIG, "SS", "B"),
    FN("contains", "contains", 2, 2, S, R_SIG, "SS", "B"),
    FN("md5", "md5", 1, 1, S, R_SIG, "S", "S"),
    FN("sha1", "sha1", 1, 1, S, R_SIG, "S", "S"),
    FN("sha2", "sha2", 2, 2, S, R_SIG, "SI", "S"),
    FN("crc32", "crc32", 1, 1, S, R_SIG, "S", "L"),
    /* dates and times */
    FN("year", "year", 1, 1, S, R_SIG, "T", "I"),
    FN("quarter", "quarter", 1, 1, S, R_SIG, "T", "I"),
    FN("month", "month", 1, 1, S, R_SIG, "T", "I"),
    FN("day", "day", 1, 1, S, R_SIG, "T", "I"),
    FN("dayofmonth", "day", 1, 1, S, R_SIG, "T", "I"),
    FN("dayofweek", "dayofweek", 1, 1, S, R_SIG, "T", "I"),
    FN("dayofyear", "dayofyear", 1, 1, S, R_SIG, "T", "I"),
    FN("weekofyear", "weekofyear", 1, 1, S, R_SIG, "T", "I"),
    FN("hour", "hour", 1, 1, S, R_SIG, "P", "I"),
    FN("minute", "minute", 1, 1, S, R_SIG, "P", "I"),
    FN("second", "second", 1, 1, S, R_SIG, "P", "I"),
    FN("date_add", "date_add", 2, 2, S, R_SIG, "TI", "T"),
    FN("dateadd", "date_add", 2, 2, S, R_SIG, "TI", "T"),
    FN("date_sub", "date_sub", 2, 2, S, R_SIG, "TI", "T"),
    FN("datediff", "datediff", 2, 2, S, R_SIG, "TT", "I"),
    FN("add_months", "add_months", 2, 2, S, R_SIG, "TI", "T"),
    FN("months_between", "months_between", 2, 3, S, R_SIG, "PPB", "D"),
    FN("last_day", "last_day", 1, 1, S, R_SIG, "T", "T"),
    FN("next_day", "next_day", 2, 2, S, R_SIG, "TS", "T"),
    FN("make_date", "make_date", 3, 3, S, R_SIG, "III", "T"),
    FN("to_date", "to_date", 1, 2, S, R_SIG, "XS", "T"),
    FN("to_timestamp", "to_timestamp", 1, 2, S, R_SIG, "XS", "P"),
    FN("to_timestamp_ltz", "to_timestamp", 1, 2, S, R_SIG, "XS", "P"),
    FN("to_timestamp_ntz", "to_timestamp", 1, 2, S, R_SIG, "XS", "Q"),
    FN("date_trunc", "date_trunc", 2, 2, S, R_SIG, "SP", "P"),
    FN("trunc", "trunc", 2, 2, S, R_SIG, "TS", "T"),
    FN("date_format", "date_format", 2, 2, S, R_SIG, "PS", "S"),
    FN("unix_timestamp", "unix_timestamp", 0, 2, S, R_SIG, "XS", "L"),
    FN("from_unixtime", "from_unixtime", 1, 2, S, R_SIG, "LS", "S"),
    FN("current_date", "current_date", 0, 0, S, R_SIG, "", "T"),
    FN("current_timestamp", "current_timestamp", 0, 0, S, R_SIG, "", "P"),
    FN("now", "current_timestamp", 0, 0, S, R_SIG, "", "P"),
    /* the user, release, database and catalog: literals of the optimizer (ReplaceCurrentLike) */
    FNN("current_user", "current_user", 0, 0, S, R_SIG, "", "S"),
    FNN("user", "current_user", 0, 0, S, R_SIG, "", "S"),
    FNN("session_user", "current_user", 0, 0, S, R_SIG, "", "S"),
    FNN("version", "version", 0, 0, S, R_SIG, "", "S"),
    FNN("current_database", "current_schema", 0, 0, S, R_SIG, "", "S"),
    FNN("current_schema", "current_schema", 0, 0, S, R_SIG, "", "S"),
    FNN("current_catalog", "current_catalog", 0, 0, S, R_SIG, "", "S"),
    FN("extract", "date_part", 2, 2, S, R_SIG, "SX", "I"),
    FN("date_part", "date_part", 2, 2, S, R_SIG, "SX", "I"),
    /* math */
    FN("sqrt", "sqrt", 1, 1, S, R_SIG, "D", "D"),
    FN("cbrt", "cbrt", 1, 1, S, R_SIG, "D", "D"),
    FN("exp", "exp", 1, 1, S, R_SIG, "D", "D"),
    FN("ln", "ln", 1, 1, S, R_SIG, "D", "D"),
    FN("log10", "log10", 1, 1, S, R_SIG, "D", "D"),
    FN("log2", "log2", 1, 1, S, R_SIG, "D", "D"),
    FN("log", "log", 1, 2, S, R_SIG, "DD", "D"),
    FN("pow", "power", 2, 2, S, R_SIG, "DD", "D"),
    FN("power", "power", 2, 2, S, R_SIG, "DD", "D"),
    FN("sin", "sin", 1, 1, S, R_SIG, "D", "D"),
    FN("cos", "cos", 1, 1, S, R_SIG, "D", "D"),
    FN("tan", "tan", 1, 1, S, R_SIG, "D", "D"),
    FN("asin", "asin", 1, 1, S, R_SIG, "D", "D"),
    FN("acos", "acos", 1, 1, S, R_SIG, "D", "D"),
    FN("atan", "atan", 1, 1, S, R_SIG, "D", "D"),
    FN("atan2", "atan2", 2, 2, S, R_SIG, "DD", "D"),
    FN("degrees", "degrees", 1, 1, S, R_SIG, "D", "D"),
    FN("radians", "radians", 1, 1, S, R_SIG, "D", "D"),
    FN("signum", "signum", 1, 1, S, R_SIG, "D", "D"),
    FN("sign", "signum", 1, 1, S, R_SIG, "D", "D"),
    FN("rand", "rand", 0, 1, S, R_SIG, "L", "D"),
    FN("random", "rand", 0, 1, S, R_SIG, "L", "D"),
    FN("randn", "randn", 0, 1, S, R_SIG, "L", "D"),
    FN("uniform", "uniform", 2, 3, S, R_SPECIAL, "", ""),
    FNN("randstr", "randstr", 1, 2, S, R_SIG, "IL", "S"),
    FN("shuffle", "shuffle", 1, 2, S, R_SIG, "AL", "0"),
    FN("ceil", "ceil", 1, 2, S, R_CEIL, "", ""),
    FN("ceiling", "ceil", 1, 2, S, R_CEIL, "", ""),
    FN("floor", "floor", 1, 2, S, R_CEIL, "", ""),
    FN("round", "round", 1, 2, S, R_ROUND, "", ""),
    FN("bround", "bround", 1, 2, S, R_ROUND, "", ""),
    /* hashing */
    FNN("hash", "hash", 1, -1, S, R_SIG, "X", "I"),
    FNN("xxhash64", "xxhash64", 1, -1, S, R_SIG, "X", "L"),
    /* collections */
    FN("size", "size", 1, 1, S, R_SPECIAL, "", ""),
    FN("cardinality", "size", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_sort", "array_sort", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_distinct", "array_distinct", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_max", "array_max", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_min", "array_min", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_position", "array_position", 2, 2, S, R_SPECIAL, "", ""),
    FN("array_remove", "array_remove", 2, 2, S, R_SPECIAL, "", ""),
    FN("array_union", "array_union", 2, 2, S, R_SPECIAL, "", ""),
    FN("array_intersect", "array_intersect", 2, 2, S, R_SPECIAL, "", ""),
    FN("array_except", "array_except", 2, 2, S, R_SPECIAL, "", ""),
    FN("arrays_overlap", "arrays_overlap", 2, 2, S, R_SPECIAL, "", ""),
    FN("slice", "slice", 3, 3, S, R_SPECIAL, "", ""),
    FN("array_join", "array_join", 2, 3, S, R_SPECIAL, "", ""),
    FN("flatten", "flatten", 1, 1, S, R_SPECIAL, "", ""),
    FN("array_repeat", "array_repeat", 2, 2, S, R_SPECIAL, "", ""),
    FN("map_keys", "map_keys", 1, 1, S, R_SPECIAL, "", ""),
    FN("map_values", "map_values", 1, 1, S, R_SPECIAL, "", ""),
    FN("map_entries", "map_entries", 1, 1, S, R_SPECIAL, "", ""),
    FN("map_contains_key", "map_contains_key", 2, 2, S, R_SPECIAL, "", ""),
    FN("map_from_arrays", "map_from_arrays", 2, 2, S, R_SPECIAL, "", ""),
    FN("map_from_entries", "map_from_entries", 1, 1, S, R_SPECIAL, "", ""),
    FN("map_concat", "map_concat", 0, -1, S, R_SPECIAL, "", ""),
    /* JSON (jansson) */
    FN("get_json_object", "get_json_object", 2, 2, S, R_SIG, "SS", "S"),
    FN("to_json", "to_json", 1, 2, S, R_SPECIAL, "", ""),
    FN("from_json", "from_json", 2, 3, S, R_SPECIAL, "", ""),
    FN("schema_of_json", "schema_of_json", 1, 1, S, R_SIG, "S", "S"),
    FN("array_contains", "array_contains", 2, 2, S, R_SPECIAL, "", ""),
    /* element_at(array, int) or (map, key): the key is cast by the analyzer */
    FN("element_at", "element_at", 2, 2, S, R_SIG, "MX", "E"),
    FN("try_element_at", "try_element_at", 2, 2, S, R_SIG, "MX", "E"),
    FNN("array", "array", 0, -1, S, R_SIG, "X", "C"), /* array<common type> */
    FNN("struct", "named_struct", 0, -1, S, R_STRUCT, "", ""),
    FNN("named_struct", "named_struct", 0, -1, S, R_NAMED_STRUCT, "", ""),
    FNN("map", "map", 0, -1, S, R_MAP, "", ""),
    /* math */
    FN("sinh", "sinh", 1, 1, S, R_SIG, "D", "D"),
    FN("cosh", "cosh", 1, 1, S, R_SIG, "D", "D"),
    FN("acosh", "acosh", 1, 1, S, R_SIG, "D", "D"),
    FN("asinh", "asinh", 1, 1, S, R_SIG, "D", "D"),
    FN("atanh", "atanh", 1, 1, S, R_SIG, "D", "D"),
    FN("sec", "sec", 1, 1, S, R_SIG, "D", "D"),
    FN("csc", "csc", 1, 1, S, R_SIG, "D", "D"),
    FN("cot", "cot", 1, 1, S, R_SIG, "D", "D"),
    FN("tanh", "tanh", 1, 1, S, R_SIG, "D", "D"),
    FN("log1p", "log1p", 1, 1, S, R_SIG, "D", "D"),
    FN("expm1", "expm1", 1, 1, S, R_SIG, "D", "D"),
    FNN("pi", "pi", 0, 0, S, R_SIG, "", "D"),
    FNN("e", "e", 0, 0, S, R_SIG, "", "D"),
    FN("bin", "bin", 1, 1, S, R_SIG, "L", "S"),
    /* strings */
    FN("bit_length", "bit_length", 1, 1, S, R_SIG, "S", "I"),
    FN("chr", "chr", 1, 1, S, R_SIG, "L", "S"),
    FN("char", "chr", 1, 1, S, R_SIG, "L", "S"),
    FN("space", "space", 1, 1, S, R_SIG, "I", "S"),
    FN("soundex", "soundex", 1, 1, S, R_SIG, "S", "S"),
    FN("split_part", "split_part", 3, 3, S, R_SIG, "SSI", "S"),
    FN("find_in_set", "find_in_set", 2, 2, S, R_SIG, "SS", "I"),
    FN("regexp_count", "regexp_count", 2, 2, S, R_SIG, "SS", "I"),
    FN("regexp_extract_all", "regexp_extract_all", 2, 3, S, R_SIG, "SSI", "a"),
    FN("sha", "sha1", 1, 1, S, R_SIG, "S", "S"),
    /* arrays */
    FN("sort_array", "sort_array", 1, 2, S, R_SIG, "AB", "0"),
    /* dates */
    FN("weekday", "weekday", 1, 1, S, R_SIG, "T", "I"),
    FN("date_from_unix_date", "date_from_unix_date", 1, 1, S, R_SIG, "I", "T"),
    FN("make_timestamp", "make_timestamp", 6, 7, S, R_SPECIAL, "", ""),
    FN("make_dt_interval", "make_dt_interval", 0, 4, S, R_SPECIAL, "", ""),
    FN("make_interval", "make_interval", 0, 7, S, R_SPECIAL, "", ""),
    FN("make_ym_interval", "make_ym_interval", 0, 2, S, R_SPECIAL, "", ""),
    FN("convert_timezone", "convert_timezone", 2, 3, S, R_SPECIAL, "", ""),
    FN("from_utc_timestamp", "from_utc_timestamp", 2, 2, S, R_SIG, "PS", "P"),
    FN("to_utc_timestamp", "to_utc_timestamp", 2, 2, S, R_SIG, "PS", "P"),
    FN("to_char", "to_char", 2, 2, S, R_SPECIAL, "", ""),
    FN("to_varchar", "to_char", 2, 2, S, R_SPECIAL, "", ""),
    FN("to_number", "to_number", 2, 2, S, R_SPECIAL, "", ""),
    FN("try_to_number", "try_to_number", 2, 2, S, R_SPECIAL, "", ""),
    FN("window", "window", 2, 4, S, R_SPECIAL, "", ""),
    FN("window_time", "window_time", 1, 1, S, R_SPECIAL, "", ""),
    FN("arrays_zip", "arrays_zip", 0, -1, S, R_SPECIAL, "", ""),
    FN("sentences", "sentences", 1, 3, S, R_SPECIAL, "", ""),
    FN("mask", "mask", 1, 5, S, R_SIG, "SSSSS", "S"),
    /* aggregates */
    FN("skewness", "skewness", 1, 1, AG, R_SIG, "D", "D"),
    FN("kurtosis", "kurtosis", 1, 1, AG, R_SIG, "D", "D"),
    FN("bit_and", "bit_and", 1, 1, AG, R_SIG, "X", "0"),
    FN("bit_or", "bit_or", 1, 1, AG, R_SIG, "X", "0"),
    FN("bit_xor", "bit_xor", 1, 1, AG, R_SIG, "X", "0"),
    FN("mode", "mode", 1, 1, AG, R_SIG, "X", "0"),
    FN("try_sum", "try_sum", 1, 1, AG, R_SUM, "", ""),
    /* try_ arithmetic: the operator's types, null instead of an error */
    FN("try_add", "try_add", 2, 2, S, R_ADD, "", ""),
    FN("try_subtract", "try_subtract", 2, 2, S, R_ADD, "", ""),
    FN("try_multiply", "try_multiply", 2, 2, S, R_MUL, "", ""),
    FN("try_divide", "try_divide", 2, 2, S, R_DIVIDE, "", ""),
    FN("try_mod", "try_mod", 2, 2, S, R_MOD, "", ""),
    FN("like_any", "like_any", 2, -1, S, R_SIG, "S", "B"),
    FN("like_all", "like_all", 2, -1, S, R_SIG, "S", "B"),
    FN("ilike_any", "ilike_any", 2, -1, S, R_SIG, "S", "B"),
    FN("ilike_all", "ilike_all", 2, -1, S, R_SIG, "S", "B"),
    FNN("equal_null", "equal_null", 2, 2, S, R_SIG, "XX", "B"),
    FN("hypot", "hypot", 2, 2, S, R_SIG, "DD", "D"),
    FN("rint", "rint", 1, 1, S, R_SIG, "D", "D"),
    FN("factorial", "factorial", 1, 1, S, R_SIG, "I", "L"),
    FN("bit_count", "bit_count", 1, 1, S, R_SIG, "X", "I"),
    FNN("uuid", "uuid", 0, 1, S, R_SIG, "L", "S"),
    FNN("spark_partition_id", "spark_partition_id", 0, 0, S, R_SIG, "", "I"),
    FNN("monotonically_increasing_id", "monotonically_increasing_id", 0, 0, S, R_SIG, "", "L"),
    FN("levenshtein", "levenshtein", 2, 3, S, R_SIG, "SSI", "I"),
    FN("substring_index", "substring_index", 3, 3, S, R_SIG, "SSI", "S"),
    FN("elt", "elt", 2, -1, S, R_SIG, "IS", "S"),
    FN("regexp_instr", "regexp_instr", 2, 3, S, R_SIG, "SSI", "I"),
    FN("format_string", "format_string", 1, -1, S, R_SIG, "SX", "S"),
    FN("printf", "format_string", 1, -1, S, R_SIG, "SX", "S"),
    FN("dayname", "dayname", 1, 1, S, R_SIG, "T", "S"),
    FN("monthname", "monthname", 1, 1, S, R_SIG, "T", "S"),
    FN("timestamp_seconds", "timestamp_seconds", 1, 1, S, R_SIG, "X", "P"),
    FN("timestamp_millis", "timestamp_millis", 1, 1, S, R_SIG, "L", "P"),
    FN("timestamp_micros", "timestamp_micros", 1, 1, S, R_SIG, "L", "P"),
    FN("unix_seconds", "unix_seconds", 1, 1, S, R_SIG, "P", "L"),
    FN("unix_date", "unix_date", 1, 1, S, R_SIG, "T", "I"),
    FN("to_unix_timestamp", "to_unix_timestamp", 1, 2, S, R_SIG, "XS", "L"),
    FN("try_to_timestamp", "try_to_timestamp", 1, 2, S, R_SIG, "SS", "P"),
    FN("base64", "base64", 1, 1, S, R_SIG, "X", "S"),
    FN("unbase64", "unbase64", 1, 1, S, R_SIG, "S", "Y"),
    FN("hex", "hex", 1, 1, S, R_SIG, "X", "S"),
    FN("unhex", "unhex", 1, 1, S, R_SIG, "S", "Y"),
    FN("conv", "conv", 3, 3, S, R_SIG, "SII", "S"),
    FN("encode", "encode", 2, 2, S, R_SIG, "SS", "Y"),
    FN("decode", "decode", 2, 2, S, R_SIG, "XS", "S"),
    FN("raise_error", "raise_error", 1, 1, S, R_SIG, "S", "V"),
    FN("width_bucket", "width_bucket", 4, 4, S, R_SIG, "DDDL", "L"),
    FN("overlay", "overlay", 3, 4, S, R_SIG, "SSII", "S"),
    FN("str_to_map", "str_to_map", 1, 3, S, R_SIG, "SSS", "Z"),
    FN("sequence", "sequence", 2, 3, S, R_SIG, "X", "R"),
    FN("assert_true", "assert_true", 1, 2, S, R_SIG, "BS", "V"),
    /* << >> >>> (the parser's names): int or bigint shifted by an int, the left's type */
    FN("shiftleft", "shiftleft", 2, 2, S, R_SIG, "XI", "0"),
    FN("shiftright", "shiftright", 2, 2, S, R_SIG, "XI", "0"),
    FN("shiftrightunsigned", "shiftrightunsigned", 2, 2, S, R_SIG, "XI", "0"),
    /* GROUPING SETS' grouping(x) / grouping_id(): replaced by the analyzer (analyzer_agg.c) */
    FNN("grouping", "grouping", 1, 1, S, R_SIG, "X", "I"),
    FNN("grouping_id", "grouping_id", 0, -1, S, R_SIG, "X", "L"),
    /* generators */
    FN("explode", "explode", 1, 1, G, R_SIG, "M", "E"),
    FN("explode_outer", "explode", 1, 1, G, R_SIG, "M", "E"),
    FN("posexplode", "posexplode", 1, 1, G, R_SIG, "M", "E"),
    FN("posexplode_outer", "posexplode", 1, 1, G, R_SIG, "M", "E"),
    FN("inline", "inline", 1, 1, G, R_SIG, "A", "E"),
    FN("inline_outer", "inline", 1, 1, G, R_SIG, "A", "E"),
    FN("stack", "stack", 2, -1, G, R_SPECIAL, "", ""),
    /* aggregates */
    FNN("count", "count", 1, -1, AG, R_SIG, "X", "L"),
    FNN("count_if", "count_if", 1, 1, AG, R_SIG, "B", "L"),
    FN("sum", "sum", 1, 1, AG, R_SUM, "", ""),
    FN("avg", "avg", 1, 1, AG, R_AVG, "", ""),
    FN("mean", "avg", 1, 1, AG, R_AVG, "", ""),
    FN("min", "min", 1, 1, AG, R_SIG, "X", "0"),
    FN("max", "max", 1, 1, AG, R_SIG, "X", "0"),
    FN("first", "first", 1, 2, AG, R_SIG, "XB", "0"),
    FN("first_value", "first", 1, 2, AG, R_SIG, "XB", "0"),
    FN("last", "last", 1, 2, AG, R_SIG, "XB", "0"),
    FN("last_value", "last", 1, 2, AG, R_SIG, "XB", "0"),
    FN("any_value", "any_value", 1, 2, AG, R_SIG, "XB", "0"),
    FN("max_by", "max_by", 2, 2, AG, R_SIG, "XX", "0"),
    FN("min_by", "min_by", 2, 2, AG, R_SIG, "XX", "0"),
    FNN("collect_list", "collect_list", 1, 1, AG, R_SIG, "X", "R"),
    FNN("array_agg", "collect_list", 1, 1, AG, R_SIG, "X", "R"),
    FNN("collect_set", "collect_set", 1, 1, AG, R_SIG, "X", "R"),
    FN("stddev", "stddev", 1, 1, AG, R_SIG, "D", "D"),
    FN("std", "stddev", 1, 1, AG, R_SIG, "D", "D"),
    FN("stddev_samp", "stddev", 1, 1, AG, R_SIG, "D", "D"),
    FN("stddev_pop", "stddev_pop", 1, 1, AG, R_SIG, "D", "D"),
    FN("variance", "variance", 1, 1, AG, R_SIG, "D", "D"),
    FN("var_samp", "variance", 1, 1, AG, R_SIG, "D", "D"),
    FN("var_pop", "var_pop", 1, 1, AG, R_SIG, "D", "D"),
    FN("corr", "corr", 2, 2, AG, R_SIG, "DD", "D"),
    FN("covar_pop", "covar_pop", 2, 2, AG, R_SIG, "DD", "D"),
    FN("covar_samp", "covar_samp", 2, 2, AG, R_SIG, "DD", "D"),
    FN("bool_and", "bool_and", 1, 1, AG, R_SIG, "B", "B"),
    FN("every", "bool_and", 1, 1, AG, R_SIG, "B", "B"),
    FN("bool_or", "bool_or", 1, 1, AG, R_SIG, "B", "B"),
    FN("some", "bool_or", 1, 1, AG, R_SIG, "B", "B"),
    FN("any", "bool_or", 1, 1, AG, R_SIG, "B", "B"),
    FNN("approx_count_distinct", "approx_count_distinct", 1, 2, AG, R_SIG, "XD", "L"),
    FN("percentile_approx", "percentile_approx", 2, 3, AG, R_SIG, "NXI", "0"),
    FN("approx_percentile", "percentile_approx", 2, 3, AG, R_SIG, "NXI", "0"),
    FN("percentile", "percentile", 2, 3, AG, R_SPECIAL, "", ""),
    FN("median", "median", 1, 1, AG, R_SPECIAL, "", ""),
    FN("histogram_numeric", "histogram_numeric", 2, 2, AG, R_SPECIAL, "", ""),
    FNN("regr_count", "regr_count", 2, 2, AG, R_SIG, "DD", "L"),
    FN("regr_avgx", "regr_avgx", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_avgy", "regr_avgy", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_slope", "regr_slope", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_intercept", "regr_intercept", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_r2", "regr_r2", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_sxx", "regr_sxx", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_syy", "regr_syy", 2, 2, AG, R_SIG, "DD", "D"),
    FN("regr_sxy", "regr_sxy", 2, 2, AG, R_SIG, "DD", "D"),
    /* window functions */
    FNN("row_number", "row_number", 0, 0, W, R_SIG, "", "I"),
    FNN("rank", "rank", 0, 0, W, R_SIG, "", "I"),
    FNN("dense_rank", "dense_rank", 0, 0, W, R_SIG, "", "I"),
    FNN("percent_rank", "percent_rank", 0, 0, W, R_SIG, "", "D"),
    FNN("cume_dist", "cume_dist", 0, 0, W, R_SIG, "", "D"),
    FN("ntile", "ntile", 1, 1, W, R_SIG, "I", "I"),
    FN("lag", "lag", 1, 3, W, R_SIG, "XIX", "0"),
    FN("lead", "lead", 1, 3, W, R_SIG, "XIX", "0"),
    FN("nth_value", "nth_value", 2, 3, W, R_SIG, "XIB", "0"),
};

#undef S
#undef AG
#undef W
#undef G

static const fn_entry *entry_of(const cs_fn_info *f)
{
    return (const fn_entry *)f;
}

const cs_fn_info *cs_fn_lookup(const char *name)
{
    for (int i = 0; i < cs_fn_count(); i++)
        if (cs_str_ieq(cs_fn_at(i)->name, name)) return cs_fn_at(i);
    return NULL;
}

int cs_fn_count(void)
{
    return (int)(sizeof FUNCTIONS / sizeof FUNCTIONS[0]) + cs_fn_variant_count;
}

const cs_fn_info *cs_fn_at(int i)
{
    int n = (int)(sizeof FUNCTIONS / sizeof FUNCTIONS[0]);
    if (i >= n && i < cs_fn_count()) return &cs_fn_variant_functions[i - n].info;
    return i >= 0 && i < n ? &FUNCTIONS[i].info : NULL;
}

/* The signature letters: the type an argument is cast to (none for the letters that accept a
 * family: N, A, M) and the type Spark's errors name. */
static const struct {
    char c;
    int type; /* a cs_type_id, or -1 */
    const char *sql;
} SIG_TYPES[] = {{'S', CS_TYPE_STRING, "\"STRING\""},
                 {'I', CS_TYPE_INT, "\"INT\""},
                 {'L', CS_TYPE_LONG, "\"BIGINT\""},
                 {'D', CS_TYPE_DOUBLE, "\"DOUBLE\""},
                 {'B', CS_TYPE_BOOLEAN, "\"BOOLEAN\""},
                 {'T', CS_TYPE_DATE, "\"DATE\""},
                 {'P', CS_TYPE_TIMESTAMP, "\"TIMESTAMP\""},
                 {'Y', CS_TYPE_BINARY, "\"ANY\""},
                 {'V', CS_TYPE_NULL, "\"ANY\""},
                 {'N', -1, "\"NUMERIC\""},
                 {'A', -1, "\"ARRAY\""},
                 {'M', -1, "(\"ARRAY\" or \"MAP\")"}};

static cs_col_type *sig_type(char c)
{
    for (size_t i = 0; i < sizeof SIG_TYPES / sizeof SIG_TYPES[0]; i++)
        if (SIG_TYPES[i].c == c && SIG_TYPES[i].type >= 0)
            return cs_col_type_primitive((cs_type_id)SIG_TYPES[i].type);
    return NULL;
}

static const char *sig_type_sql(char c)
{
    for (size_t i = 0; i < sizeof SIG_TYPES / sizeof SIG_TYPES[0]; i++)
        if (SIG_TYPES[i].c == c) return SIG_TYPES[i].sql;
    return "\"ANY\"";
}

static cs_sql_expr *new_call(cs_sql_arena *a, const cs_fn_info *f, const cs_sql_expr *call,
                             cs_sql_expr **args, int n)
{
    cs_sql_expr *e = cs_sql_expr_new(a, f->kind == CS_FN_AGGREGATE ? CS_EX_AGG : CS_EX_FUNC, n);
    for (int i = 0; i < n; i++)
        e->args[i] = args[i];
    e->fn = f->canonical;
    e->name = call && call->name ? call->name : f->name;
    if (strcmp(e->name, "||") == 0) e->name = f->canonical; /* Spark prints concat(a, b) */
    if (call) {
        e->line = call->line;
        e->pos = call->pos;
        e->distinct = call->distinct;
        e->filter = call->filter;
        e->ignore_nulls = call->ignore_nulls;
        e->negated = call->negated; /* NOT LIKE / NOT RLIKE / NOT LIKE ANY (sql_expr.h) */
    }
    e->resolved = true;
    bool nullable = false;
    for (int i = 0; i < n; i++)
        nullable |= args[i]->nullable;
    e->nullable = nullable;
    return e;
}

cs_col_type *cs_fn_coerce_common(cs_sql_arena *a, cs_sql_expr **args, int n)
{
    if (n == 0) return cs_col_type_primitive(CS_TYPE_NULL);
    if (cs_fn_coerce_collations(a, NULL, args, n, NULL)) return NULL;
    cs_col_type *t = args[0]->type;
    for (int i = 1; i < n && t; i++)
        t = cs_tc_wider(a, t, args[i]->type);
    if (!t) return NULL;
    for (int i = 0; i < n; i++)
        args[i] = cs_tc_cast(a, args[i], t);
    return t;
}

/* Casts args to a signature; the last letter repeats. */
static int coerce_sig(cs_sql_arena *a, cs_sql_expr *e, const char *sig, cs_error *err)
{
    size_t len = strlen(sig);
    for (int i = 0; i < e->n_args; i++) {
        if (len == 0) break;
        char c = sig[(size_t)i < len ? (size_t)i : len - 1];
        cs_sql_expr *arg = e->args[i];
        cs_col_type *want = sig_type(c);
        if (c == 'S' && cs_col_type_is_collated(arg->type)) continue; /* keeps its collation */
        if (want) {
            if (arg->type->id == CS_TYPE_NULL || cs_tc_can_implicit_cast(arg->type, want) ||
                (c == 'I' && cs_tc_can_implicit_cast_to(arg->type, want)) || /* IntegerType */
                (c == 'S' && cs_tc_is_atomic(arg->type)) ||
                (c == 'P' && cs_tc_is_datetime(arg->type)) ||
                (c == 'T' &&
                 (arg->type->id == CS_TYPE_TIMESTAMP || arg->type->id == CS_TYPE_TIMESTAMP_NTZ))) {
                if (!(c == 'P' && cs_tc_is_datetime(arg->type) && arg->type->id != CS_TYPE_DATE))
                    e->args[i] = cs_tc_cast(a, arg, want);
                continue;
            }
            return cs_fn_err_unexpected_type(err, e, i, sig_type_sql(c), arg);
        }
        bool ok = true;
        switch (c) {
        case 'N':
            if (cs_tc_is_string(arg->type))
                e->args[i] = cs_tc_cast(a, arg, cs_col_type_primitive(CS_TYPE_DOUBLE));
            else if (arg->type->id == CS_TYPE_NULL)
                e->args[i] = cs_tc_cast(a, arg, cs_col_type_primitive(CS_TYPE_DOUBLE));
            else
                ok = cs_tc_is_numeric(arg->type) || cs_tc_is_interval(arg->type);
            break;
        case 'A':
            ok = arg->type->id == CS_TYPE_ARRAY;
            break;
        case 'M':
            ok = arg->type->id == CS_TYPE_ARRAY || arg->type->id == CS_TYPE_MAP;
            break;
        default:
            break;
        }
        if (!ok) return cs_fn_err_unexpected_type(err, e, i, sig_type_sql(c), arg);
    }
    return 0;
}

static cs_col_type *sig_result(cs_sql_arena *a, cs_sql_expr *e, char r)
{
    cs_col_type *t = sig_type(r);
    if (t) return t;
    switch (r) {
    case '0':
        return e->n_args ? e->args[0]->type : cs_col_type_primitive(CS_TYPE_NULL);
    case 'Q':
        return cs_col_type_primitive(CS_TYPE_TIMESTAMP_NTZ);
    case 'a':
        return cs_sql_arena_keep_type(
            a, cs_col_type_array(cs_col_type_primitive(CS_TYPE_STRING), true));
    case 'E': {
        cs_col_type *c = e->args[0]->type;
        if (c->id == CS_TYPE_ARRAY) return c->fields[0].type;
        if (c->id == CS_TYPE_MAP) return c->fields[1].type;
        return c;
    }
    case 'Z': /* str_to_map */
        return cs_sql_arena_keep_type(a,
                                      cs_col_type_map(cs_col_type_primitive(CS_TYPE_STRING),
                                                      cs_col_type_primitive(CS_TYPE_STRING), true));
    case 'R':
        return cs_sql_arena_keep_type(
            a, cs_col_type_array(cs_col_type_ref(e->n_args ? e->args[0]->type
                                                           : cs_col_type_primitive(CS_TYPE_NULL)),
                                 true));
    default:
        return NULL;
    }
}

static bool is_double_like(const cs_col_type *t)
{
    return t->id == CS_TYPE_FLOAT || t->id == CS_TYPE_DOUBLE;
}

/* Strings in arithmetic take the wider type with the other side (ANSI: long or double). */
static void promote_strings(cs_sql_arena *a, cs_sql_expr *e)
{
    cs_sql_expr *l = e->args[0], *r = e->args[1];
    if (cs_tc_is_string(l->type) != cs_tc_is_string(r->type)) {
        cs_col_type *t = cs_tc_wider(a, l->type, r->type);
        if (t && cs_tc_is_numeric(t)) {
            e->args[0] = cs_tc_cast(a, l, t);
            e->args[1] = cs_tc_cast(a, r, t);
        }
    } else if (cs_tc_is_string(l->type)) {
        e->args[0] = cs_tc_cast(a, l, cs_col_type_primitive(CS_TYPE_DOUBLE));
        e->args[1] = cs_tc_cast(a, r, cs_col_type_primitive(CS_TYPE_DOUBLE));
    }
    if (e->args[0]->type->id == CS_TYPE_NULL && e->args[1]->type->id != CS_TYPE_NULL)
        e->args[0] = cs_tc_cast(a, e->args[0], e->args[1]->type);
    if (e->args[1]->type->id == CS_TYPE_NULL && e->args[0]->type->id != CS_TYPE_NULL)
        e->args[1] = cs_tc_cast(a, e->args[1], e->args[0]->type);
}

/* Numeric operands of + - * % under ANSI: both decimal (exact literal digits for integral
 * literals) when one is a decimal and the other is not fractional; double when one is
 * float/double; else the wider type. Returns the common type or NULL (not numeric). */
static cs_col_type *numeric_operands(cs_sql_arena *a, cs_sql_expr *e, char op)
{
    cs_sql_expr *l = e->args[0], *r = e->args[1];
    if (!cs_tc_is_numeric(l->type) || !cs_tc_is_numeric(r->type)) return NULL;
    bool ld = l->type->id == CS_TYPE_DECIMAL, rd = r->type->id == CS_TYPE_DECIMAL;
    if ((ld || rd) && !is_double_like(l->type) && !is_double_like(r->type)) {
        cs_col_type *lt = cs_tc_decimal_of(a, l), *rt = cs_tc_decimal_of(a, r);
        e->args[0] = cs_tc_cast(a, l, lt);
        e->args[1] = cs_tc_cast(a, r, rt);
        return cs_tc_decimal_result(a, op, lt, rt);
    }
    cs_col_type *t = cs_tc_wider(a, l->type, r->type);
    if (op == '/') t = cs_col_type_primitive(CS_TYPE_DOUBLE);
    e->args[0] = cs_tc_cast(a, l, t);
    e->args[1] = cs_tc_cast(a, r, t);
    return t;
}

static cs_col_type *interval_dt(cs_sql_arena *a, int start, int end)
{
    return cs_sql_arena_keep_type(a, cs_col_type_interval(CS_TYPE_INTERVAL_DT, start, end, NULL));
}

/* + and -: numbers, and Spark's date/time arithmetic (date + int is date_add, date - date an
 * interval day, timestamp - timestamp an interval day to second, datetime +- interval). */
static int resolve_add(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    bool minus = strcmp(e->fn, "-") == 0 || strcmp(e->fn, "try_subtract") == 0;
    promote_strings(a, e);
    cs_col_type *l = e->args[0]->type, *r = e->args[1]->type;
    if (l->id == CS_TYPE_NULL && r->id == CS_TYPE_NULL) {
        e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_primitive(CS_TYPE_DOUBLE));
        e->args[1] = cs_tc_cast(a, e->args[1], cs_col_type_primitive(CS_TYPE_DOUBLE));
        e->type = cs_col_type_primitive(CS_TYPE_DOUBLE);
        return 0;
    }
    cs_col_type *t = numeric_operands(a, e, minus ? '-' : '+');
    if (t) {
        e->type = t;
        return 0;
    }
    if (l->id == CS_TYPE_DATE && cs_tc_is_integral(r)) {
        e->fn = e->name = minus ? "date_sub" : "date_add";
        e->args[1] = cs_tc_cast(a, e->args[1], cs_col_type_primitive(CS_TYPE_INT));
        e->type = l;
        return 0;
    }
    if (!minus && r->id == CS_TYPE_DATE && cs_tc_is_integral(l)) {
        cs_sql_expr *d = e->args[1];
        e->args[1] = cs_tc_cast(a, e->args[0], cs_col_type_primitive(CS_TYPE_INT));
        e->args[0] = d;
        e->fn = e->name = "date_add";
        e->type = r;
        return 0;
    }
    if (minus && cs_tc_is_datetime(l) && cs_tc_is_datetime(r)) {
        if (l->id == CS_TYPE_DATE && r->id == CS_TYPE_DATE) {
            e->type = interval_dt(a, CS_INTERVAL_DAY, CS_INTERVAL_DAY);
        } else {
            cs_col_type *w = cs_tc_wider(a, l, r);
            e->args[0] = cs_tc_cast(a, e->args[0], w);
            e->args[1] = cs_tc_cast(a, e->args[1], w);
            e->type = interval_dt(a, CS_INTERVAL_DAY, CS_INTERVAL_SECOND);
        }
        e->nullable = e->args[0]->nullable || e->args[1]->nullable;
        return 0;
    }
    if (cs_tc_is_datetime(l) && cs_tc_is_interval(r)) {
        if (l->id == CS_TYPE_DATE && r->id == CS_TYPE_INTERVAL_DT && r->scale > CS_INTERVAL_DAY)
            e->type = cs_col_type_primitive(CS_TYPE_TIMESTAMP);
        else
            e->type = l;
        return 0;
    }
    if (!minus && cs_tc_is_interval(l) && cs_tc_is_datetime(r)) {
        cs_sql_expr *d = e->args[1];
        e->args[1] = e->args[0];
        e->args[0] = d;
        e->type = r->id == CS_TYPE_DATE && l->id == CS_TYPE_INTERVAL_DT && l->scale > 0
                      ? cs_col_type_primitive(CS_TYPE_TIMESTAMP)
                      : r;
        return 0;
    }
    if (cs_tc_is_interval(l) && l->id == r->id) {
        e->type = cs_tc_wider(a, l, r);
        return 0;
    }
    return cs_fn_err_add_operands(e, minus, err);
}

/* Spark's Multiply/Divide of an interval give the whole range: year to month, day to second */
static cs_col_type *full_interval(cs_sql_arena *a, const cs_col_type *t)
{
    if (t->id == CS_TYPE_INTERVAL_DT) return interval_dt(a, CS_INTERVAL_DAY, CS_INTERVAL_SECOND);
    return cs_sql_arena_keep_type(
        a, cs_col_type_interval(CS_TYPE_INTERVAL_YM, CS_INTERVAL_YEAR, CS_INTERVAL_MONTH, NULL));
}

static int resolve_arith(cs_sql_arena *a, cs_sql_expr *e, char op, cs_error *err)
{
    promote_strings(a, e);
    if (e->args[0]->type->id == CS_TYPE_NULL && e->args[1]->type->id == CS_TYPE_NULL) {
        for (int i = 0; i < 2; i++)
            e->args[i] = cs_tc_cast(a, e->args[i], cs_col_type_primitive(CS_TYPE_DOUBLE));
    }
    cs_col_type *t = numeric_operands(a, e, op);
    if (t) {
        e->type = t;
        if (op == '/' || op == '%') e->nullable = true; /* x / 0 is null under try_ */
        return 0;
    }
    if (op == '*' && (cs_tc_is_interval(e->args[0]->type) || cs_tc_is_interval(e->args[1]->type))) {
        int iv = cs_tc_is_interval(e->args[0]->type) ? 0 : 1;
        e->type = full_interval(a, e->args[iv]->type);
        return 0;
    }
    if (op == '/' && cs_tc_is_interval(e->args[0]->type) && cs_tc_is_numeric(e->args[1]->type)) {
        e->type = full_interval(a, e->args[0]->type);
        return 0;
    }
    return cs_fn_err_binary_diff(err, e);
}

static int resolve_div(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    promote_strings(a, e);
    cs_col_type *l = e->args[0]->type, *r = e->args[1]->type;
    bool ok = (cs_tc_is_integral(l) || l->id == CS_TYPE_DECIMAL || l->id == CS_TYPE_NULL) &&
              (cs_tc_is_integral(r) || r->id == CS_TYPE_DECIMAL || r->id == CS_TYPE_NULL);
    if (!ok) {
        if (!cs_tc_is_integral(l) && l->id != CS_TYPE_DECIMAL)
            return cs_fn_err_unexpected_type(err, e, 0, "(\"INTEGRAL\" or \"DECIMAL\")",
                                             e->args[0]);
        return cs_fn_err_unexpected_type(err, e, 1, "(\"INTEGRAL\" or \"DECIMAL\")", e->args[1]);
    }
    if (l->id == CS_TYPE_DECIMAL || r->id == CS_TYPE_DECIMAL) {
        e->args[0] = cs_tc_cast(a, e->args[0], cs_tc_decimal_of(a, e->args[0]));
        e->args[1] = cs_tc_cast(a, e->args[1], cs_tc_decimal_of(a, e->args[1]));
    } else {
        e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_primitive(CS_TYPE_LONG));
        e->args[1] = cs_tc_cast(a, e->args[1], cs_col_type_primitive(CS_TYPE_LONG));
    }
    e->type = cs_col_type_primitive(CS_TYPE_LONG);
    e->nullable = true;
    return 0;
}

static int resolve_compare(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    if (cs_fn_check_variant_order(err, e, NULL)) return CS_EINVAL;
    if (cs_fn_coerce_collations(a, e, e->args, 2, err)) return CS_EINVAL;
    cs_tc_reduce_integral_decimal(a, e);
    cs_col_type *t = cs_tc_wider(a, e->args[0]->type, e->args[1]->type);
    if (!t) return cs_fn_err_binary_diff(err, e);
    e->args[0] = cs_tc_cast(a, e->args[0], t);
    e->args[1] = cs_tc_cast(a, e->args[1], t);
    e->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    return 0;
}

static int resolve_sum_avg(cs_sql_arena *a, cs_sql_expr *e, bool avg, cs_error *err)
{
    cs_sql_expr *x = e->args[0];
    cs_col_type *t = x->type;
    if (cs_tc_is_string(t) || t->id == CS_TYPE_NULL) {
        x = e->args[0] = cs_tc_cast(a, x, cs_col_type_primitive(CS_TYPE_DOUBLE));
        t = x->type;
    }
    if (cs_tc_is_integral(t)) {
        e->type = cs_col_type_primitive(avg ? CS_TYPE_DOUBLE : CS_TYPE_LONG);
    } else if (t->id == CS_TYPE_FLOAT || t->id == CS_TYPE_DOUBLE) {
        e->type = cs_col_type_primitive(CS_TYPE_DOUBLE);
    } else if (t->id == CS_TYPE_DECIMAL) {
        int p = t->precision + (avg ? 4 : 10), s = t->scale + (avg ? 4 : 0);
        e->type = cs_tc_decimal(a, p > 38 ? 38 : p, s > 38 ? 38 : s);
    } else if (cs_tc_is_interval(t)) {
        e->type = t;
    } else {
        return cs_fn_err_unexpected_type(err, e, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")", x);
    }
    e->nullable = true;
    return 0;
}

static int resolve_ceil_round(cs_sql_arena *a, cs_sql_expr *e, bool round, cs_error *err)
{
    cs_sql_expr *x = e->args[0];
    if (cs_tc_is_string(x->type) || x->type->id == CS_TYPE_NULL)
        x = e->args[0] = cs_tc_cast(a, x, cs_col_type_primitive(CS_TYPE_DOUBLE));
    if (!cs_tc_is_numeric(x->type)) return cs_fn_err_unexpected_type(err, e, 0, "\"NUMERIC\"", x);
    if (e->n_args == 2) {
        if (!cs_tc_is_integral(e->args[1]->type))
            return cs_fn_err_unexpected_type(err, e, 1, "\"INT\"", e->args[1]);
        e->args[1] = cs_tc_cast(a, e->args[1], cs_col_type_primitive(CS_TYPE_INT));
    }
    const cs_col_type *t = x->type;
    int target = 0;
    if (e->n_args == 2 && e->args[1]->kind == CS_EX_LITERAL && e->args[1]->literal &&
        e->args[1]->literal->null_count == 0)
        target = ((const int32_t *)e->args[1]->literal->values)[0];
    if (t->id == CS_TYPE_DECIMAL) {
        /* RoundBase / RoundCeil: keep the integral digits, scale to the target (>= 0) */
        int s = target < 0 ? 0 : (target < t->scale ? target : t->scale);
        int int_digits = t->precision - t->scale + (round ? 1 : 1);
        int p = int_digits + s;
        e->type = cs_tc_decimal(a, p > 38 ? 38 : (p < 1 ? 1 : p), s);
    } else if (round) {
        e->type = (cs_col_type *)t;
    } else {
        e->type = e->n_args == 2 ? cs_tc_decimal(a, 38, target < 0 ? 0 : target)
                                 : cs_col_type_primitive(CS_TYPE_LONG);
    }
    return 0;
}

cs_sql_expr *cs_fn_resolve(cs_sql_arena *a, const cs_fn_info *f, const cs_sql_expr *call,
                           cs_sql_expr **args, int n, cs_error *err)
{
    const char *name = call && call->name ? call->name : f->name;
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
        cs_fn_err_num_args(err, name, f, n);
        return NULL;
    }
    const fn_entry *fe = entry_of(f);
    cs_sql_expr *e = new_call(a, f, call, args, n);
    int rc = 0;
    switch (f->rule) {
    case R_ADD:
        rc = resolve_add(a, e, err);
        break;
    case R_MUL:
        rc = resolve_arith(a, e, '*', err);
        break;
    case R_DIVIDE:
        rc = resolve_arith(a, e, '/', err);
        break;
    case R_MOD:
        rc = resolve_arith(a, e, '%', err);
        break;
    case R_DIV:
        rc = resolve_div(a, e, err);
        break;
    case R_COMPARE:
        rc = resolve_compare(a, e, err);
        break;
    case R_BETWEEN: {
        cs_col_type *t = cs_fn_coerce_common(a, e->args, 3);
        if (!t) {
            rc = cs_fn_err_binary_diff(err, e);
            break;
        }
        e->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        break;
    }
    case R_SUM:
        rc = resolve_sum_avg(a, e, false, err);
        break;
    case R_AVG:
        rc = resolve_sum_avg(a, e, true, err);
        break;
    case R_CEIL:
        rc = resolve_ceil_round(a, e, false, err);
        break;
    case R_ROUND:
        rc = resolve_ceil_round(a, e, true, err);
        break;
    case R_STRUCT:
    case R_NAMED_STRUCT:
        rc = cs_fn_resolve_struct(a, e, f->rule == R_NAMED_STRUCT, err);
        break;
    case R_MAP:
        rc = cs_fn_resolve_map(a, e, err);
        break;
    case R_SPECIAL:
        rc = cs_fn_resolve_special(a, e, err);
        break;
    default: {
        if (fe->ret[0] == 'C') {
            int first = strcmp(f->canonical, "if") == 0 ? 1 : 0;
            if (first) { /* if(cond, x, y): the condition alone is boolean */
                cs_sql_expr *cond = e->args[0];
                if (cond->type->id == CS_TYPE_NULL || cs_tc_is_string(cond->type))
                    e->args[0] = cs_tc_cast(a, cond, cs_col_type_primitive(CS_TYPE_BOOLEAN));
                else if (cond->type->id != CS_TYPE_BOOLEAN) {
                    rc = cs_fn_err_unexpected_type(err, e, 0, "\"BOOLEAN\"", cond);
                    break;
                }
            }
            int m = strcmp(f->canonical, "nvl2") == 0 ? 2 : n - first;
            if (strcmp(f->canonical, "nvl2") == 0) first = 1;
            cs_col_type *t = cs_fn_coerce_common(a, e->args + first, m);
            if (!t) {
                cs_sbuf expr = {0}, types = {0};
                cs_fn_sql_expr_quoted(e, &expr);
                cs_sbuf_putc(&types, '(');
                for (int i = first; i < first + m; i++) {
                    if (i > first) cs_sbuf_puts(&types, " or ");
                    cs_sbuf_putc(&types, '"');
                    cs_tc_type_sql(e->args[i]->type, &types);
                    cs_sbuf_putc(&types, '"');
                }
                cs_sbuf_putc(&types, ')');
                rc = cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.DATA_DIFF_TYPES", "42K09",
                                      "Cannot resolve %s due to data type mismatch: Input to `%s` "
                                      "should all be the same type, but it's %s.",
                                      cs_sbuf_str(&expr), name, cs_sbuf_str(&types));
                cs_sbuf_free(&expr);
                cs_sbuf_free(&types);
                break;
            }
            e->type = t;
            if (strcmp(f->canonical, "array") == 0) {
                bool contains_null = false;
                for (int i = 0; i < n; i++)
                    contains_null |= e->args[i]->nullable;
                e->type = cs_sql_arena_keep_type(
                    a, cs_col_type_array(cs_col_type_ref(t), contains_null || n == 0));
            }
            if (strcmp(f->canonical, "coalesce") == 0 || strcmp(f->canonical, "greatest") == 0 ||
                strcmp(f->canonical, "least") == 0) {
                bool all = true, any = false;
                for (int i = 0; i < n; i++) {
                    all &= e->args[i]->nullable;
                    any |= !e->args[i]->nullable;
                }
                e->nullable = strcmp(f->canonical, "coalesce") == 0 ? !any : all;
            }
            if (strcmp(f->canonical, "nullif") == 0) e->nullable = true;
            break;
        }
        if (strchr(fe->args, 'S') && (rc = cs_fn_coerce_collations(a, e, e->args, e->n_args, err)))
            break;
        if ((rc = coerce_sig(a, e, fe->args, err)) != 0) break;
        if ((rc = cs_fn_check_hash_args(err, e, f->canonical)) != 0) break;
        e->type = sig_result(a, e, fe->ret[0]);
        for (int i = 0; fe->ret[0] == 'S' && strchr(fe->args, 'S') && i < e->n_args; i++)
            if (cs_col_type_is_collated(e->args[i]->type)) /* Spark: the inputs' collation */
                e->type = e->args[i]->type;
        if (strcmp(f->canonical, "date_part") == 0) {
            cs_col_type *t = cs_fn_date_part_type(a, e);
            if (t) e->type = t;
        }
        if (f->kind == CS_FN_WINDOW && strcmp(f->canonical, "ntile") != 0 && fe->ret[0] == '0')
            e->nullable = true;
        if (f->kind == CS_FN_AGGREGATE && !fe->null_intolerant_not_nullable) e->nullable = true;
        if (strstr(f->canonical, "to_") == f->canonical ||
            strcmp(f->canonical, "element_at") == 0 || strcmp(f->canonical, "try_element_at") == 0)
            e->nullable = true;
        break;
    }
    }
    if (rc != 0) return NULL;
    if (fe->null_intolerant_not_nullable) e->nullable = false;
    return e;
}
