"""canon.py — the canonical text of a Spark row, as csvjson_dump prints cspark's rows.

null -> null; strings JSON-quoted (non-ASCII kept); booleans true/false; integers in decimal;
doubles '%.17g' (nan, inf, -inf); decimals in fixed notation with their scale; dates
YYYY-MM-DD; timestamps 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC; timestamp_ntz as it is); binary 0x and
its bytes in hex; maps {key->value,...} (entries sorted by their text: the map's own order is checked by
comparing written files); structs {name=value,...}; arrays
[v,...]. Fields of a row are separated by a tab.
"""
import datetime
import decimal
import json
import math


def value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return "%.17g" % v
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (bytes, bytearray)):
        return "0x" + bytes(v).hex()
    if isinstance(v, dict):
        # sorted: PySpark hands a map over as a dict in the JVM HashMap's order, not the map's
        return "{" + ",".join(sorted("%s->%s" % (value(k), value(x)) for k, x in v.items())) + "}"
    if isinstance(v, list):
        return "[" + ",".join(value(x) for x in v) + "]"
    if hasattr(v, "asDict"):
        return "{" + ",".join("%s=%s" % (k, value(x)) for k, x in zip(v.__fields__, v)) + "}"
    raise TypeError(type(v))


def row(r):
    return "\t".join(value(x) for x in r)
