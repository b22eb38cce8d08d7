/*
 * csv_options.c — Spark's CSV options (CSVOptions) from key/value pairs, checked one by one: a
 * bad value fails with one line naming the key and what it takes. See csv.h for the keys and
 * their defaults. Called by the CSV readers and writers' callers and the tools.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"

bool cs_parse_mode_from_name(const char *name, cs_parse_mode *mode)
{
    if (cs_str_ieq(name, "PERMISSIVE"))
        *mode = CS_MODE_PERMISSIVE;
    else if (cs_str_ieq(name, "DROPMALFORMED"))
        *mode = CS_MODE_DROPMALFORMED;
    else if (cs_str_ieq(name, "FAILFAST"))
        *mode = CS_MODE_FAILFAST;
    else
        return false;
    return true;
}

/* CSVExprUtils.toChar: one character, or "\t", "\"", "\\", "\u0000"; '\0' for an empty one
 * when allowed (quote and escape: off). */
static bool option_char(const char *v, bool allow_empty, char *out)
{
    size_t n = strlen(v);
    if (n == 0 && allow_empty) return *out = '\0', true;
    if (n == 1) return *out = v[0], true;
    if (n == 2 && v[0] == '\\') {
        switch (v[1]) {
        case 't':
            *out = '\t';
            return true;
        case 'r':
            *out = '\r';
            return true;
        case 'b':
            *out = '\b';
            return true;
        case 'f':
            *out = '\f';
            return true;
        case '"':
            *out = '"';
            return true;
        case '\'':
            *out = '\'';
            return true;
        case '\\':
            *out = '\\';
            return true;
        default:
            return false;
        }
    }
    if (!strcmp(v, "\\u0000")) return *out = '\0', true;
    return false;
}

static bool option_bool(const char *v, bool *out)
{
    return cs_tv_parse_boolean(v, strlen(v), out);
}

static void set_str(char **slot, const char *v)
{
    free(*slot);
    *slot = cs_xstrdup(v);
}

cs_csv_options *cs_csv_options_new(const char *const *keys, const char *const *values, int n,
                                   cs_error *err)
{
    cs_csv_options *o = cs_xcalloc(1, sizeof *o);
    o->sep = ',';
    o->quote = '"';
    o->escape = '\\';
    o->prefers_date = true;
    o->sampling_ratio = 1.0;
    o->ignore_leading_ws_write = o->ignore_trailing_ws_write = true;
    o->escape_quotes = true;
    o->null_value = cs_xstrdup("");
    o->empty_value_read = cs_xstrdup("");
    o->empty_value_write = cs_xstrdup("\"\"");
    o->nan_value = cs_xstrdup("NaN");
    o->positive_inf = cs_xstrdup("Inf");
    o->negative_inf = cs_xstrdup("-Inf");
    o->corrupt_column = cs_xstrdup("_corrupt_record");
    bool ok = true;
    const char *bad_key = NULL, *expected = NULL;
    for (int i = 0; i < n && ok; i++) {
        const char *k = keys[i], *v = values[i];
        bad_key = k;
        if (cs_str_ieq(k, "sep") || cs_str_ieq(k, "delimiter")) {
            ok = option_char(v, false, &o->sep) && o->sep;
            expected = "one character (or \\t, \\u0000 ...)";
        } else if (cs_str_ieq(k, "quote")) {
            ok = option_char(v, true, &o->quote);
            expected = "one character or nothing";
        } else if (cs_str_ieq(k, "escape")) {
            ok = option_char(v, true, &o->escape);
            expected = "one character or nothing";
        } else if (cs_str_ieq(k, "comment")) {
            ok = option_char(v, true, &o->comment);
            expected = "one character";
        } else if (cs_str_ieq(k, "header") || cs_str_ieq(k, "inferSchema") ||
                   cs_str_ieq(k, "multiLine") || cs_str_ieq(k, "prefersDate") ||
                   cs_str_ieq(k, "ignoreLeadingWhiteSpace") ||
                   cs_str_ieq(k, "ignoreTrailingWhiteSpace") || cs_str_ieq(k, "quoteAll") ||
                   cs_str_ieq(k, "escapeQuotes")) {
            bool b;
            ok = option_bool(v, &b);
            expected = "true or false";
            if (cs_str_ieq(k, "header"))
                o->header = b;
            else if (cs_str_ieq(k, "inferSchema"))
                o->infer_schema = b;
            else if (cs_str_ieq(k, "multiLine"))
                o->multi_line = b;
            else if (cs_str_ieq(k, "prefersDate"))
                o->prefers_date = b;
            else if (cs_str_ieq(k, "ignoreLeadingWhiteSpace"))
                o->ignore_leading_ws = o->ignore_leading_ws_write = b;
            else if (cs_str_ieq(k, "ignoreTrailingWhiteSpace"))
                o->ignore_trailing_ws = o->ignore_trailing_ws_write = b;
            else if (cs_str_ieq(k, "quoteAll"))
                o->quote_all = b;
            else
                o->escape_quotes = b;
        } else if (cs_str_ieq(k, "nullValue")) {
            set_str(&o->null_value, v);
        } else if (cs_str_ieq(k, "emptyValue")) {
            set_str(&o->empty_value_read, v);
            set_str(&o->empty_value_write, v);
        } else if (cs_str_ieq(k, "nanValue")) {
            set_str(&o->nan_value, v);
        } else if (cs_str_ieq(k, "positiveInf")) {
            set_str(&o->positive_inf, v);
        } else if (cs_str_ieq(k, "negativeInf")) {
            set_str(&o->negative_inf, v);
        } else if (cs_str_ieq(k, "columnNameOfCorruptRecord")) {
            set_str(&o->corrupt_column, v);
        } else if (cs_str_ieq(k, "mode")) {
            ok = cs_parse_mode_from_name(v, &o->mode);
            expected = "PERMISSIVE, DROPMALFORMED or FAILFAST";
        } else if (cs_str_ieq(k, "dateFormat") || cs_str_ieq(k, "timestampFormat") ||
                   cs_str_ieq(k, "timestampNTZFormat")) {
            char bad = 0;
            cs_tv_pattern *p = cs_tv_pattern_new(v, &bad);
            ok = p != NULL;
            expected = "a date-time pattern of y M d H m s S X and 'text'";
            bool date = cs_str_ieq(k, "dateFormat"), ntz = cs_str_ieq(k, "timestampNTZFormat");
            cs_tv_pattern **slot = date  ? &o->date_pattern
                                   : ntz ? &o->ntz_pattern
                                         : &o->timestamp_pattern;
            cs_tv_pattern_free(*slot);
            *slot = p;
            set_str(date ? &o->date_format : ntz ? &o->ntz_format : &o->timestamp_format, v);
        } else if (cs_str_ieq(k, "samplingRatio")) {
            ok = cs_tv_parse_sampling_ratio(v, &o->sampling_ratio);
            expected = "a number greater than 0";
        } else if (cs_str_ieq(k, "compression") || cs_str_ieq(k, "codec")) {
            set_str(&o->compression, v);
        }
    }
    if (!ok) {
        for (int i = 0; i < n; i++)
            if (keys[i] == bad_key)
                cs_error_set(err, CS_EINVAL, "CSV option %s=%s: expected %s", bad_key, values[i],
                             expected);
        cs_csv_options_free(o);
        return NULL;
    }
    char bad = 0;
    o->write_date_pattern = cs_tv_pattern_new(o->date_format ? o->date_format : "yyyy-MM-dd", &bad);
    o->write_ts_pattern = cs_tv_pattern_new(
        o->timestamp_format ? o->timestamp_format : "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &bad);
    o->write_ntz_pattern =
        cs_tv_pattern_new(o->ntz_format ? o->ntz_format : "yyyy-MM-dd'T'HH:mm:ss[.SSS]", &bad);
    return o;
}

void cs_csv_options_free(cs_csv_options *o)
{
    if (!o) return;
    free(o->null_value);
    free(o->empty_value_read);
    free(o->empty_value_write);
    free(o->nan_value);
    free(o->positive_inf);
    free(o->negative_inf);
    free(o->corrupt_column);
    free(o->date_format);
    free(o->timestamp_format);
    free(o->ntz_format);
    free(o->compression);
    cs_tv_pattern_free(o->date_pattern);
    cs_tv_pattern_free(o->timestamp_pattern);
    cs_tv_pattern_free(o->write_date_pattern);
    cs_tv_pattern_free(o->write_ts_pattern);
    cs_tv_pattern_free(o->ntz_pattern);
    cs_tv_pattern_free(o->write_ntz_pattern);
    free(o);
}
