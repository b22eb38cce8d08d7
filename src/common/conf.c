/* conf.c — the cs_conf map and Spark's typed value parsers (conf.h).
 *
 * The map is a sorted array of owned (key, value) strings searched by binary search, which
 * gives sorted iteration for free (cs_conf_foreach, cs_conf_to_properties). Confs are small (tens
 * to a few hundred keys), written at start-up and read afterwards. The parsers follow Spark's
 * JavaUtils.byteStringAs / timeStringAs and ConfigBuilder's int/bool/double converters; error
 * messages always name the key and the offending value. Properties-file reading and writing
 * live in props.c. Used by cspark-submit, the context, schedulers, backends and executors.
 */
#include "common/conf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_entries.h"
#include "common/strutil.h"

typedef struct conf_entry {
    char *key;
    char *value;
} conf_entry;

struct cs_conf {
    conf_entry *e;
    size_t n, cap;
};

cs_conf *cs_conf_new(void)
{
    return cs_xcalloc(1, sizeof(cs_conf));
}

void cs_conf_free(cs_conf *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->e[i].key);
        free(c->e[i].value);
    }
    free(c->e);
    free(c);
}

cs_conf *cs_conf_clone(const cs_conf *c)
{
    if (!c) return NULL;
    cs_conf *d = cs_conf_new();
    if (c->n) {
        d->e = cs_xmalloc(c->n * sizeof(conf_entry));
        d->cap = c->n;
        for (size_t i = 0; i < c->n; i++) {
            d->e[i].key = cs_xstrdup(c->e[i].key);
            d->e[i].value = cs_xstrdup(c->e[i].value);
        }
        d->n = c->n;
    }
    return d;
}

/* Index of key if found (and *found = true), else the insertion point. */
static size_t conf_find(const cs_conf *c, const char *key, bool *found)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = strcmp(c->e[mid].key, key);
        if (r == 0) {
            *found = true;
            return mid;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static void conf_put(cs_conf *c, const char *key, const char *value, bool overwrite)
{
    if (!c || !key) return;
    if (!value) value = "";
    bool found;
    size_t i = conf_find(c, key, &found);
    if (found) {
        if (!overwrite) return;
        if (c->e[i].value == value) return;
        char *v = cs_xstrdup(value);
        free(c->e[i].value);
        c->e[i].value = v;
        return;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->e = cs_xrealloc(c->e, c->cap * sizeof(conf_entry));
    }
    memmove(&c->e[i + 1], &c->e[i], (c->n - i) * sizeof(conf_entry));
    c->e[i].key = cs_xstrdup(key);
    c->e[i].value = cs_xstrdup(value);
    c->n++;
}

void cs_conf_set(cs_conf *c, const char *key, const char *value)
{
    conf_put(c, key, value, true);
}

void cs_conf_set_if_missing(cs_conf *c, const char *key, const char *value)
{
    conf_put(c, key, value, false);
}

void cs_conf_unset(cs_conf *c, const char *key)
{
    if (!c || !key) return;
    bool found;
    size_t i = conf_find(c, key, &found);
    if (!found) return;
    free(c->e[i].key);
    free(c->e[i].value);
    memmove(&c->e[i], &c->e[i + 1], (c->n - i - 1) * sizeof(conf_entry));
    c->n--;
}

const char *cs_conf_get(const cs_conf *c, const char *key)
{
    if (!c || !key) return NULL;
    bool found;
    size_t i = conf_find(c, key, &found);
    return found ? c->e[i].value : NULL;
}

bool cs_conf_contains(const cs_conf *c, const char *key)
{
    return cs_conf_get(c, key) != NULL;
}

void cs_conf_merge(cs_conf *dst, const cs_conf *src, bool overwrite)
{
    if (!dst || !src || dst == src) return;
    for (size_t i = 0; i < src->n; i++)
        conf_put(dst, src->e[i].key, src->e[i].value, overwrite);
}

void cs_conf_foreach(const cs_conf *c, void (*fn)(void *arg, const char *key, const char *value),
                     void *arg)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++)
        fn(arg, c->e[i].key, c->e[i].value);
}

size_t cs_conf_size(const cs_conf *c)
{
    return c ? c->n : 0;
}

/* ---- value parsers ---------------------------------------------------------------------- */

#define EXPECT_INT "an integer"
#define EXPECT_BOOL "true or false"
#define EXPECT_DOUBLE "a number"
#define EXPECT_SIZE "a size such as 512m or 2g"
#define EXPECT_DURATION "a duration such as 120s, 500ms or 5min"

static int bad_value(cs_error *err, const char *what, const char *s, const char *expected)
{
    return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (expected %s)",
                        what ? what : "value", s ? s : "", expected);
}

/* Copies the trimmed value into buf (lowercased if lower); false if it does not fit. */
static bool trimmed(const char *s, char *buf, size_t cap, bool lower)
{
    size_t n = strlen(s);
    const char *t = cs_str_trim(s, &n);
    if (n >= cap) return false;
    for (size_t i = 0; i < n; i++)
        buf[i] = lower ? (char)tolower((unsigned char)t[i]) : t[i];
    buf[n] = '\0';
    return true;
}

/* Parses an optional sign and decimal digits (the whole of [p, end)) into *out. */
int cs_conf_parse_int(const char *what, const char *s, int64_t *out, cs_error *err)
{
    char buf[64];
    int64_t v;
    if (!s || !trimmed(s, buf, sizeof buf, false) ||
        !cs_str_parse_i64(buf, buf + strlen(buf), true, &v))
        return bad_value(err, what, s, EXPECT_INT);
    *out = v;
    return CS_OK;
}

int cs_conf_parse_bool(const char *what, const char *s, bool *out, cs_error *err)
{
    char buf[16];
    if (s && trimmed(s, buf, sizeof buf, true)) {
        if (strcmp(buf, "true") == 0) {
            *out = true;
            return CS_OK;
        }
        if (strcmp(buf, "false") == 0) {
            *out = false;
            return CS_OK;
        }
    }
    return bad_value(err, what, s, EXPECT_BOOL);
}

int cs_conf_parse_double(const char *what, const char *s, double *out, cs_error *err)
{
    char buf[128];
    if (!s || !trimmed(s, buf, sizeof buf, false) || !buf[0])
        return bad_value(err, what, s, EXPECT_DOUBLE);
    /* Reject hex floats, "inf", "nan": Spark users write plain decimals. */
    for (const char *p = buf; *p; p++) {
        if (!strchr("0123456789+-.eE", *p)) return bad_value(err, what, s, EXPECT_DOUBLE);
    }
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return bad_value(err, what, s, EXPECT_DOUBLE);
    *out = v;
    return CS_OK;
}

/* Splits "<digits><letters>" into number and unit; rejects fractions, spaces, other chars. */
static bool split_number_unit(const char *buf, bool allow_sign, int64_t *num, const char **unit)
{
    const char *p = buf;
    if (allow_sign && (*p == '-' || *p == '+')) p++;
    while (*p >= '0' && *p <= '9')
        p++;
    if (!cs_str_parse_i64(buf, p, allow_sign, num)) return false;
    for (const char *q = p; *q; q++) {
        if (*q < 'a' || *q > 'z') return false;
    }
    *unit = p;
    return true;
}

int cs_conf_parse_size(const char *what, const char *s, int64_t default_unit, int64_t *out_bytes,
                       cs_error *err)
{
    static const struct {
        const char *suffix;
        int64_t mult;
    } units[] = {{"b", 1},       {"k", CS_KiB},        {"kb", CS_KiB},       {"m", CS_MiB},
                 {"mb", CS_MiB}, {"g", CS_GiB},        {"gb", CS_GiB},       {"t", CS_TiB},
                 {"tb", CS_TiB}, {"p", CS_TiB * 1024}, {"pb", CS_TiB * 1024}};
    char buf[64];
    int64_t num;
    const char *unit;
    if (!s || !trimmed(s, buf, sizeof buf, true) || !split_number_unit(buf, false, &num, &unit))
        return bad_value(err, what, s, EXPECT_SIZE);
    int64_t mult = 0;
    if (!*unit) {
        mult = default_unit > 0 ? default_unit : 1;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            if (strcmp(unit, units[i].suffix) == 0) mult = units[i].mult;
        }
    }
    if (!mult) return bad_value(err, what, s, EXPECT_SIZE);
    if (num > INT64_MAX / mult)
        return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (size too large)",
                            what ? what : "value", s);
    *out_bytes = num * mult;
    return CS_OK;
}

int cs_conf_parse_duration_ms(const char *what, const char *s, int64_t default_unit_ms,
                              int64_t *out_ms, cs_error *err)
{
    /* Multipliers in microseconds so that "us" is exact before truncating to ms. */
    static const struct {
        const char *suffix;
        int64_t us;
    } units[] = {{"us", 1},
                 {"ms", 1000},
                 {"s", 1000000LL},
                 {"m", 60LL * 1000000},
                 {"min", 60LL * 1000000},
                 {"h", 3600LL * 1000000},
                 {"d", 86400LL * 1000000}};
    char buf[64];
    int64_t num;
    const char *unit;
    if (!s || !trimmed(s, buf, sizeof buf, true) || !split_number_unit(buf, true, &num, &unit))
        return bad_value(err, what, s, EXPECT_DURATION);
    int64_t us = 0;
    if (!*unit) {
        if (default_unit_ms <= 0) default_unit_ms = 1;
        if (num > INT64_MAX / default_unit_ms || num < -(INT64_MAX / default_unit_ms))
            goto too_large;
        *out_ms = num * default_unit_ms;
        return CS_OK;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].suffix) == 0) us = units[i].us;
    }
    if (!us) return bad_value(err, what, s, EXPECT_DURATION);
    if (us == 1) {
        *out_ms = num / 1000;
        return CS_OK;
    }
    int64_t ms_mult = us / 1000;
    if (num > INT64_MAX / ms_mult || num < -(INT64_MAX / ms_mult)) goto too_large;
    *out_ms = num * ms_mult;
    return CS_OK;
too_large:
    return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (duration too large)",
                        what ? what : "value", s);
}

/* ---- typed getters ---------------------------------------------------------------------- */

/* Returns the value to parse (set value, else dflt), or NULL when neither exists. */
static const char *value_or_default(const cs_conf *c, const char *key, const char *dflt)
{
    const char *v = cs_conf_get(c, key);
    return v ? v : dflt;
}

int cs_conf_get_int(const cs_conf *c, const char *key, const char *dflt, int64_t *out,
                    cs_error *err)
{
    const char *v = value_or_default(c, key, dflt);
    if (!v) return CS_ENOTFOUND;
    return cs_conf_parse_int(key, v, out, err);
}

int cs_conf_get_bool(const cs_conf *c, const char *key, const char *dflt, bool *out, cs_error *err)
{
    const char *v = value_or_default(c, key, dflt);
    if (!v) return CS_ENOTFOUND;
    return cs_conf_parse_bool(key, v, out, err);
}

int cs_conf_get_double(const cs_conf *c, const char *key, const char *dflt, double *out,
                       cs_error *err)
{
    const char *v = value_or_default(c, key, dflt);
    if (!v) return CS_ENOTFOUND;
    return cs_conf_parse_double(key, v, out, err);
}

int cs_conf_get_size(const cs_conf *c, const char *key, const char *dflt, int64_t default_unit,
                     int64_t *out_bytes, cs_error *err)
{
    const char *v = value_or_default(c, key, dflt);
    if (!v) return CS_ENOTFOUND;
    return cs_conf_parse_size(key, v, default_unit, out_bytes, err);
}

int cs_conf_get_duration_ms(const cs_conf *c, const char *key, const char *dflt,
                            int64_t default_unit_ms, int64_t *out_ms, cs_error *err)
{
    const char *v = value_or_default(c, key, dflt);
    if (!v) return CS_ENOTFOUND;
    return cs_conf_parse_duration_ms(key, v, default_unit_ms, out_ms, err);
}

/* ---- redaction -------------------------------------------------------------------------- */

/* Spark's default spark.redaction.regex: (?i)secret|password|token|access[.]key */
static bool matches_redaction(const char *s)
{
    return s && (cs_str_icontains(s, "secret") || cs_str_icontains(s, "password") ||
                 cs_str_icontains(s, "token") || cs_str_icontains(s, "access.key"));
}

bool cs_conf_is_sensitive(const char *key)
{
    return matches_redaction(key) || cs_conf_entry_is_secret(key);
}

const char *cs_conf_redact(const char *key, const char *value)
{
    /* As Spark's Utils.redact: the value is hidden if the regex matches the key or the value. */
    if (cs_conf_is_sensitive(key) || matches_redaction(value)) return CS_REDACTED;
    return value;
}

/* Compiles spark.redaction.regex from c into *re; false if unset or invalid. */
static bool compile_redaction(const cs_conf *c, regex_t *re)
{
    const char *pat = cs_conf_get(c, "spark.redaction.regex");
    if (!pat) return false;
    int flags = REG_EXTENDED | REG_NOSUB;
    if (strncmp(pat, "(?i)", 4) == 0) {
        pat += 4;
        flags |= REG_ICASE;
    }
    return regcomp(re, pat, flags) == 0;
}

const char *cs_conf_redact_with(const cs_conf *c, const char *key, const char *value)
{
    if (cs_conf_entry_is_secret(key)) return CS_REDACTED; /* a credential, whatever the regex */
    regex_t re;
    if (!compile_redaction(c, &re)) return cs_conf_redact(key, value);
    bool hit = (key && regexec(&re, key, 0, NULL, 0) == 0) ||
               (value && regexec(&re, value, 0, NULL, 0) == 0);
    regfree(&re);
    return hit ? CS_REDACTED : value;
}

int cs_conf_check_redaction_regex(const cs_conf *c, cs_error *err)
{
    const char *pat = cs_conf_get(c, "spark.redaction.regex");
    if (!pat) return CS_OK;
    regex_t re;
    if (!compile_redaction(c, &re))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.redaction.regex: '%s' (expected a regular "
                            "expression)",
                            pat);
    regfree(&re);
    return CS_OK;
}
