#!/usr/bin/env python3
"""cases.py — writes the CSV/JSON corpus of hard cases and cases.json describing each read.

Used by tests/spark/csv_json_readers.sh: the same cases.json is read by spark_read.py (Apache
Spark's readers) and by csvjson_dump (cspark's parsers), both print the canonical form of
canon.py's rules, and the test compares the two outputs. Each case: name, format (csv|json), file
(relative to the corpus directory), options (Spark's reader options) and an optional schema in
DDL form ("a INT, b STRING"). Usage: cases.py DIR
"""
import json
import os
import sys

D = sys.argv[1]
os.makedirs(D, exist_ok=True)
cases = []


def case(name, fmt, text, options=None, schema=None, error_class=False):
    fname = name + "." + fmt
    with open(os.path.join(D, fname), "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)
    c = {"name": name, "format": fmt, "file": fname, "options": options or {}, "schema": schema}
    if error_class:  # the read fails: both sides print the error's class, "error: CLASS"
        c["error_class"] = True
    cases.append(c)


INFER = {"header": "true", "inferSchema": "true"}
# --- CSV: quoting ---------------------------------------------------------------------------
quoting = ('a,b,c\n'
           '1,"x, y",z\n'
           '2,"say ""hi""",q\n'
           '3,"back\\"slash",r\n'
           '4,"",\n'
           '5, spaced ,  \n'
           '6,"quoted"tail,t\n'
           '7,mid"quote,u\n')
case("csv_quoting", "csv", quoting, {"header": "true"})
case("csv_quoting_escape_quote", "csv", quoting, {"header": "true", "escape": '"'})
case("csv_quoting_trim", "csv", quoting,
     {"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"})
case("csv_no_header", "csv", "1,2,3\n4,5,6\n")
case("csv_sep_semicolon", "csv", "a;b\n1;x,y\n2;\"p;q\"\n", {"header": "true", "sep": ";"})
case("csv_sep_tab", "csv", "a\tb\n1\tx\n", {"header": "true", "sep": "\\t"})
case("csv_quote_single", "csv", "a,b\n1,'x,y'\n2,'it''s'\n", {"header": "true", "quote": "'"})
case("csv_comment", "csv", "a,b\n#skip me\n1,2\n# also\n3,4\n", {"header": "true", "comment": "#"})
case("csv_crlf", "csv", "a,b\r\n1,x\r\n2,y\r\n", {"header": "true"})
case("csv_no_trailing_newline", "csv", "a,b\n1,x\n2,y", {"header": "true"})
case("csv_blank_lines", "csv", "a,b\n1,x\n\n2,y\n\n", {"header": "true"})
# --- multiLine ------------------------------------------------------------------------------
ml = 'id,text\n1,"line one\nline two"\n2,"a ""q""\nb"\n3,plain\n'
case("csv_multiline", "csv", ml, {"header": "true", "multiLine": "true"})
case("csv_multiline_off", "csv", ml, {"header": "true"})
case("csv_multiline_crlf", "csv", 'id,text\r\n1,"x\r\ny"\r\n2,z\r\n',
     {"header": "true", "multiLine": "true"})
# --- nulls vs empty strings -----------------------------------------------------------------
nulls = 'a,b,c\n1,,""\nNA,x,NA\n,"",y\n'
case("csv_nulls_default", "csv", nulls, {"header": "true"})
case("csv_nulls_na", "csv", nulls, {"header": "true", "nullValue": "NA"})
case("csv_nulls_empty_value", "csv", nulls, {"header": "true", "nullValue": "NA", "emptyValue": "EMPTY"})
case("csv_nulls_infer", "csv", nulls, dict(INFER, nullValue="NA"))
# --- missing / extra columns and malformed rows in each mode ---------------------------------
bad = 'a,b,c\n1,2,3\n4,5\n6,7,8,9\nx,10,11\n12,13,14\n'
SCHEMA = "a INT, b INT, c INT"
SCHEMA_C = "a INT, b INT, c INT, _corrupt_record STRING"
for mode in ("PERMISSIVE", "DROPMALFORMED", "FAILFAST"):
    case("csv_bad_" + mode.lower(), "csv", bad, {"header": "true", "mode": mode}, SCHEMA)
    case("csv_bad_corrupt_" + mode.lower(), "csv", bad, {"header": "true", "mode": mode}, SCHEMA_C)
case("csv_bad_corrupt_renamed", "csv", bad,
     {"header": "true", "columnNameOfCorruptRecord": "oops"}, "a INT, b INT, c INT, oops STRING")
case("csv_bad_infer", "csv", bad, INFER)
# --- numbers at the int/long/decimal/double boundaries ---------------------------------------
case("csv_int", "csv", "v\n1\n-2147483648\n2147483647\n", INFER)
case("csv_long", "csv", "v\n1\n2147483648\n-9223372036854775808\n", INFER)
case("csv_decimal", "csv", "v\n1\n9223372036854775808\n-99999999999999999999\n", INFER)
case("csv_decimal38", "csv", "v\n" + "9" * 38 + "\n1\n", INFER)
case("csv_decimal39", "csv", "v\n" + "9" * 39 + "\n1\n", INFER)
case("csv_double", "csv", "v\n1\n1.5\n-0.25\n1e10\n", INFER)
case("csv_double_special", "csv", "v\n1.0\nNaN\nInf\n-Inf\n", INFER)
case("csv_long_then_decimal", "csv", "v\n5000000000\n123456789012345678901\n", INFER)
case("csv_decimal_then_double", "csv", "v\n123456789012345678901\n0.5\n", INFER)
case("csv_exponent", "csv", "v\n1e5\n2E-3\n", INFER)
case("csv_bool", "csv", "v\ntrue\nFALSE\nTrue\n", INFER)
case("csv_bool_mixed", "csv", "v\ntrue\n1\n", INFER)
case("csv_int_space", "csv", "v\n 1\n2\n", INFER)
case("csv_typed_read", "csv", "i,l,d,b,s\n1,5000000000,2.5,true,x\n,,,,\n",
     {"header": "true"}, "i INT, l BIGINT, d DOUBLE, b BOOLEAN, s STRING")
case("csv_decimal_read", "csv", "v\n1.25\n-3\n12345.678\n", {"header": "true"}, "v DECIMAL(10,2)")
# --- dates and timestamps in the default formats --------------------------------------------
case("csv_date", "csv", "d\n2024-01-31\n1999-12-01\n", INFER)
case("csv_timestamp", "csv", "t\n2024-01-31T10:20:30\n2024-02-01 01:02:03\n", INFER)
case("csv_timestamp_frac", "csv", "t\n2024-01-31T10:20:30.123\n2024-01-31T10:20:30.5Z\n", INFER)
case("csv_timestamp_zone", "csv", "t\n2024-01-31T10:20:30+02:00\n", INFER)
case("csv_date_and_timestamp", "csv", "v\n2024-01-31\n2024-01-31T10:20:30\n", INFER)
case("csv_date_format", "csv", "d\n31/01/2024\n01/12/1999\n", dict(INFER, dateFormat="dd/MM/yyyy"))
case("csv_timestamp_format", "csv", "t\n31/01/2024 10:20\n",
     dict(INFER, timestampFormat="dd/MM/yyyy HH:mm"))
case("csv_date_read", "csv", "d,t\n2024-01-31,2024-01-31 10:20:30.25\n", {"header": "true"},
     "d DATE, t TIMESTAMP")
case("csv_mixed_string", "csv", "a,b\n1,x\n2.5,y\nhello,3\n", INFER)
case("csv_before_1970", "csv", "d,t\n1969-12-31,1900-01-01T00:00:00\n1066-10-14,1969-12-31 23:59:59.999999\n",
     INFER)
case("csv_header_names", "csv", "a,,a,b\n1,2,3,4\n", {"header": "true"})
case("csv_backslash", "csv", 'a,b\n"x\\y",z\n"p\\",q\n', {"header": "true"})
case("csv_multiline_unclosed", "csv", 'a,b\n1,"open\nstill open\n', {"header": "true", "multiLine": "true"})
case("csv_quoted_numbers", "csv", 'a,b\n"1","2.5"\n"3",""\n', INFER)
case("csv_ragged_infer", "csv", "a,b,c\n1\n2,x\n3,y,4.5\n", INFER)

# --- JSON lines -----------------------------------------------------------------------------
case("json_basic", "json", '{"a":1,"b":"x"}\n{"a":2,"b":null}\n{"b":"z"}\n')
case("json_long_double", "json", '{"v":1}\n{"v":2.5}\n')
case("json_long_boundary", "json", '{"v":9223372036854775807}\n{"v":-9223372036854775808}\n')
case("json_mixed_to_string", "json", '{"v":1}\n{"v":"x"}\n{"v":true}\n')
case("json_bool", "json", '{"v":true}\n{"v":false}\n')
case("json_nested", "json",
     '{"s":{"x":1,"y":"a"},"arr":[1,2,3]}\n{"s":{"x":2,"z":[true]},"arr":[]}\n{"s":null,"arr":null}\n')
case("json_array_of_structs", "json", '{"a":[{"k":1},{"k":2,"m":"q"}]}\n')
case("json_array_mixed", "json", '{"a":[1,2.5]}\n{"a":[1,"x"]}\n')
case("json_struct_vs_scalar", "json", '{"v":{"x":1}}\n{"v":5}\n')
case("json_all_null", "json", '{"v":null}\n{"v":null}\n')
case("json_field_order", "json", '{"b":1,"a":2,"C":3}\n')
case("json_escapes", "json", '{"s":"tab\\tnew\\nline \\"q\\" \\u00e9 \\\\"}\n')
case("json_blank_lines", "json", '{"a":1}\n\n   \n{"a":2}\n')
badj = '{"a":1}\n{"a":\n{"a":"x"}\n[1,2]\n{"a":3}\n'
for mode in ("PERMISSIVE", "DROPMALFORMED", "FAILFAST"):
    case("json_bad_" + mode.lower(), "json", badj, {"mode": mode})
    case("json_bad_schema_" + mode.lower(), "json", badj, {"mode": mode},
         "a BIGINT, _corrupt_record STRING")
case("json_top_array", "json", '[{"a":1},{"a":2}]\n{"a":3}\n')
case("json_typed_read", "json", '{"i":1,"d":2,"s":5,"b":true,"t":"2024-01-31T10:20:30"}\n',
     schema="i INT, d DOUBLE, s STRING, b BOOLEAN, t TIMESTAMP")
case("json_date_read", "json", '{"d":"2024-01-31"}\n', schema="d DATE")
case("json_string_from_struct", "json", '{"v":{"x":1,"y":[1,2]}}\n{"v":"s"}\n')
case("json_nested_conflict", "json", '{"s":{"a":1}}\n{"s":{"a":"x","b":2.5}}\n')
case("json_empty_objects", "json", '{}\n{"a":{},"b":1}\n')
case("json_decimal_read", "json", '{"v":1.25}\n{"v":3}\n{"v":123456789.999}\n', schema="v DECIMAL(10,2)")
case("json_int_overflow", "json", '{"v":5000000000}\n{"v":7}\n', schema="v INT, _corrupt_record STRING")
case("json_multiline", "json", '[\n {"a": 1,\n  "b": [1, 2]},\n {"a": 2}\n]\n', {"multiLine": "true"})
case("json_multiline_object", "json", '{\n "a": {"x": "y"},\n "n": null\n}\n', {"multiLine": "true"})
# multiLine reads the first value of the file; what follows it is ignored (Jackson reads one value)
case("json_multiline_two_values", "json", '{"a": 1, "b": [1, 2]}\n{"a": 2}\n', {"multiLine": "true"})
case("json_before_1970", "json", '{"d":"1969-12-31","t":"1900-01-01T00:00:00"}\n', schema="d DATE, t TIMESTAMP")
case("json_unicode", "json", '{"s":"\u00fcber \u4e2d\u6587 \\ud83d\\ude00"}\n')

# the reader's scanner (src/formats/json/json_scan.c) on typed columns: escapes, edges, keys
case("json_scan_values", "json",
     '{"a":-9223372036854775808,"b":-2147483648,"d":-1.5e-3,"s":"x\\/y\\u0041\\ud83d\\ude00","t":false}\n'
     ' { "b" : 2147483647 , "zz" : [1, {"q": null}], "a" : 0 } \n'
     '{"d":12345678901234567890,"s":"tab\\there","t":true}\n'
     '{"a":1.0}\n{"a":01}\n{"a":2,"a":3}\n{"t":"true"}\n{"d":1E2,"\\u0061":7}\n',
     schema="a BIGINT, b INT, d DOUBLE, s STRING, t BOOLEAN, _corrupt_record STRING")
# samplingRatio: Spark's sample of the lines (seed 1; blank lines draw too) decides the schema
case("json_sampling", "json",
     "".join('{"k%02d":%d}\n' % (i, i) + ("\n" if i % 7 == 3 else "") for i in range(40)),
     {"samplingRatio": "0.3"})
case("csv_sampling", "csv",
     ",".join("c%02d" % c for c in range(30)) + "\n" +
     "".join(",".join("x" if c == i else str(i) for c in range(30)) + "\n" +
             ("\n" if i % 7 == 3 else "") for i in range(40)),
     dict(INFER, samplingRatio="0.3"))

# tinyint and smallint from a user schema (Byte.parseByte / Jackson's getByteValue ranges)
case("csv_byte_short", "csv", "a,b\n127,-32768\n-128,32767\n128,1\n1,40000\n 5,+7\n",
     {"header": "true"}, "a TINYINT, b SMALLINT, _corrupt_record STRING")
case("json_byte_short", "json",
     '{"a":127,"b":-32768}\n{"a":-128,"b":32767}\n{"a":200}\n{"a":255}\n{"a":256}\n'
     '{"a":-129}\n{"b":32768}\n{"a":1.5}\n{"a":"3"}\n',
     schema="a TINYINT, b SMALLINT, _corrupt_record STRING")

# float from a user schema (Float.parseFloat; nanValue/positiveInf/negativeInf; Jackson's
# getFloatValue; written as Float.toString); Spark infers no float, so no inference case
case("csv_float", "csv",
     "v\n1.5\n0.1\n-0.0\n3.4028235E38\n1e39\n1.4E-45\n16777217\n1.0000001\n2.5f\nNaN\nInf\n"
     "-Inf\n 7 \nx\n\n1e-50\n123456.79\n",
     {"header": "true"}, "v FLOAT, _corrupt_record STRING")
case("json_float", "json",
     '{"v":1.5}\n{"v":0.1}\n{"v":-0.0}\n{"v":3.4028235E38}\n{"v":1e39}\n{"v":1.4E-45}\n'
     '{"v":16777217}\n{"v":"NaN"}\n{"v":"Infinity"}\n{"v":"-Infinity"}\n{"v":"x"}\n'
     '{"v":true}\n{"v":123456.79}\n{"v":null}\n',
     schema="v FLOAT, _corrupt_record STRING")
# without a corrupt-record column, so that Spark's writer writes them too (Float.toString)
case("csv_float_write", "csv", "v\n1.5\n0.1\n-0.0\n3.4028235E38\n1.4E-45\n16777217\n1e10\n0.001\nNaN\n-Inf\n\n",
     {"header": "true", "nullValue": "NA"}, "v FLOAT")
case("json_float_write", "json",
     '{"v":1.5}\n{"v":0.1}\n{"v":3.4028235E38}\n{"v":1.4E-45}\n{"v":16777217}\n{"v":1e10}\n'
     '{"v":0.001}\n{"v":"NaN"}\n{"v":"-Infinity"}\n{"v":null}\n', schema="v FLOAT")
# binary and timestamp_ntz from a user schema. CSV: binary is the value's bytes (written as Spark
# prints bytes, "[68 69]"); timestamp_ntz refuses a zone. JSON: binary is base64 (Jackson's
# getBinaryValue: padding required, no blank inside a group of four), written in base64.
# (Spark's String.getBytes uses the JVM's default charset, ASCII in the tests' Java 17 under a
# POSIX locale, so the binary values are ASCII: cspark takes the bytes as they are, UTF-8)
ntz_csv = ("b,t\nhi,2024-01-31T10:20:30\nex~,2024-01-31 10:20:30.123456\n,2024-01-31T10:20:30Z\n"
           "zz,31/01/2024\n\"x,y\",2024-02-29\n\"\",1969-12-31T23:59:59.5\nq,2024-01-31T10:20:30+02:00\n")
case("csv_binary_ntz", "csv", ntz_csv, {"header": "true"},
     "b BINARY, t TIMESTAMP_NTZ, _corrupt_record STRING")
case("csv_binary_ntz_write", "csv", ntz_csv.replace("Z\n", "\n").replace("+02:00", "")
     .replace("31/01/2024", "2024-01-31 00:00:00.999999"), {"header": "true"},
     "b BINARY, t TIMESTAMP_NTZ")
case("csv_ntz_format", "csv", "t\n31/01/2024 10:20\n2024-01-31T10:20:30\n01/12/1999 23:59\n",
     {"header": "true", "timestampNTZFormat": "dd/MM/yyyy HH:mm"}, "t TIMESTAMP_NTZ")
case("csv_ntz_infer", "csv", "t\n2024-01-31T10:20:30\n2024-02-01 01:02:03.5\n", INFER)
# a row whose text is empty (one null column) is not written, as univocity's skipEmptyLines
case("csv_write_skips_empty_rows", "csv", 'v\nx\n""\ny\n\n', {"header": "true"}, "v STRING")
# CSV takes no nested column: Spark's UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE
case("csv_array_schema", "csv", "a\n1\n", {"header": "true"}, "a ARRAY<INT>", error_class=True)
case("csv_struct_schema", "csv", "a,b\n1,2\n", {"header": "true"}, "a INT, b STRUCT<x: INT>",
     error_class=True)
case("json_binary", "json",
     '{"b":"aGk="}\n{"b":""}\n{"b":"aGk"}\n{"b":"a Gk="}\n{"b":"!!!!"}\n{"b":5}\n'
     '{"b":"aGVsbG8gd29ybGQ="}\n{"b":"YQ=="}\n{"b":"YWI="}\n{"b":"YQ="}\n{"b":"YQ==="}\n'
     '{"b":"+/+/"}\n{"b":"-_-_"}\n{"b":"YW\\u0049="}\n{"b":null}\n',
     schema="b BINARY, _corrupt_record STRING")
case("json_ntz", "json",
     '{"t":"2024-01-31T10:20:30"}\n{"t":"2024-01-31 10:20:30.123456"}\n{"t":"2024-01-31T10:20:30Z"}\n'
     '{"t":"2024-01-31T10:20:30+02:00"}\n{"t":"2024-01-31"}\n{"t":5}\n{"t":"x"}\n'
     '{"t":"1969-12-31T23:59:59.5"}\n{"t":null}\n',
     schema="t TIMESTAMP_NTZ, _corrupt_record STRING")
case("json_ntz_format", "json", '{"t":"31/01/2024 10:20"}\n{"t":"2024-01-31T10:20:30"}\n',
     {"timestampNTZFormat": "dd/MM/yyyy HH:mm"}, "t TIMESTAMP_NTZ")
case("json_binary_ntz_write", "json",
     '{"b":"aGk=","t":"2024-01-31T10:20:30"}\n{"b":"","t":"2024-01-31 10:20:30.123456"}\n'
     '{"b":"w6l4LHkiJw==","t":"1969-12-31T23:59:59.5"}\n{"b":null,"t":null}\n{"b":"+/+/"}\n',
     schema="b BINARY, t TIMESTAMP_NTZ")

# map<string,T> from a user schema (JSON only: Spark never infers a map); a map keeps its null
# values and writes them; a value of another type makes the record malformed
case("json_map", "json",
     '{"m":{"x":1,"y":null,"z":-3}}\n{"m":{}}\n{"m":null}\n{"m":{"x":"q"}}\n{"m":5}\n'
     '{"m":{"b":2,"a":1}}\n{"m":{"k":[1]}}\n',
     schema="m MAP<STRING, INT>, _corrupt_record STRING")
case("json_map_write", "json",
     '{"m":{"x":1.5,"y":null,"z":1e10},"n":{"s":{"a":[1,2]},"t":null},"c":1}\n'
     '{"m":{},"n":{"u":{"a":[]}},"c":2}\n{"c":3}\n{"m":{"\\u00e9\\"q":0.1},"a":[{"k":"v"},null,{}]}\n',
     schema="m MAP<STRING, DOUBLE>, n MAP<STRING, STRUCT<a: ARRAY<INT>>>, c INT, "
            "a ARRAY<MAP<STRING, STRING>>")
case("json_map_int_key", "json", '{"m":{"1":2}}\n', schema="m MAP<INT, INT>", error_class=True)
case("csv_map_schema", "csv", "m\nx\n", {"header": "true"}, "m MAP<STRING, INT>",
     error_class=True)

# inferTimestamp: strings that parse as timestamps (Spark's lenient form, or timestampFormat)
# infer timestamp; with any other string the column is string
its = ('{"t":"2024-01-31T10:20:30","u":"2024","v":"2024-01-31","w":"31/01/2024 10:20"}\n'
       '{"t":"2024-01-31 10:20:30.5Z","v":"x","w":"01/12/1999 23:59"}\n'
       '{"t":"2024-01-31T10:20:30+02:00","u":"2024-02"}\n')
case("json_infer_timestamp", "json", its, {"inferTimestamp": "true"})
case("json_infer_timestamp_format", "json", its,
     {"inferTimestamp": "true", "timestampFormat": "dd/MM/yyyy HH:mm"})

# Spark 4's partial results: a malformed record keeps the fields that converted
case("json_partial", "json",
     '{"a":1,"b":"x","c":"k"}\n{"a":"q","b":true,"c":7}\n{"a":2,"b":false,"c":"ok"}\n'
     '{"a":3,"b":[1],"d":{"x":1}}\n{"a":5,"b":true\n',
     schema="a INT, b BOOLEAN, c STRING, d STRUCT<x: INT>, _corrupt_record STRING")
case("json_partial_no_corrupt", "json", '{"a":1,"b":"x"}\n{"a":"q","b":true}\n',
     schema="a INT, b BOOLEAN")

# floats and doubles inside arrays and structs: written in Java's text as at the top level
case("json_nested_float_write", "json",
     '{"a":[1e10,0.1,1e-5,4.9E-324,null,100,1e7,0.001,"NaN","-Infinity"],'
     '"s":{"f":1.4E-45,"d":1.0E-3,"g":16777217},"af":[3.4028235E38,0.1,1e10,null,"Infinity"]}\n'
     '{"a":[],"s":{"f":1e-5,"d":123456789.125},"af":[1.0000001,-0.0,1e-4]}\n'
     '{"s":{"g":2.5},"m":[{"x":[1.5e300,2.5E-8]}]}\n',
     schema="a ARRAY<DOUBLE>, s STRUCT<f: FLOAT, d: DOUBLE, g: FLOAT>, af ARRAY<FLOAT>, "
            "m ARRAY<STRUCT<x: ARRAY<DOUBLE>>>")

with open(os.path.join(D, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
