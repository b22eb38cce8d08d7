/*
 * partitioning.c — partition discovery and partition folder names (partitioning.h), after
 * Spark's PartitioningUtils.parsePartitions / inferPartitionColumnValue / resolvePartitions and
 * ExternalCatalogUtils.escapePathName. Timestamps are read in UTC (cspark has no session time
 * zone yet) as spark.sql.timestampType's default, TIMESTAMP (with local time zone).
 */
#define _GNU_SOURCE /* memrchr */
#include "datasource/partitioning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"

/* ---- escaping ------------------------------------------------------------------------------ */

static bool needs_escaping(unsigned char c)
{
    if (c >= 1 && c <= 0x1F) return true;
    return c == 0x7F || (c != 0 && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

void cs_ds_escape_path_name(const char *s, size_t n, cs_sbuf *out)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (needs_escaping(c))
            cs_sbuf_printf(out, "%%%02X", c);
        else
            cs_sbuf_putc(out, (char)c);
    }
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void cs_ds_unescape_path_name(const char *s, size_t n, cs_sbuf *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < n && (hi = hex_digit(s[i + 1])) >= 0 &&
            (lo = hex_digit(s[i + 2])) >= 0) {
            cs_sbuf_putc(out, (char)(hi * 16 + lo));
            i += 2;
        } else {
            cs_sbuf_putc(out, s[i]);
        }
    }
}

void cs_ds_partition_path_part(const char *name, const char *value, size_t len, cs_sbuf *out)
{
    cs_ds_escape_path_name(name, strlen(name), out);
    cs_sbuf_putc(out, '=');
    if (!value || len == 0)
        cs_sbuf_puts(out, CS_DEFAULT_PARTITION_NAME);
    else
        cs_ds_escape_path_name(value, len, out);
}

/* ---- inference of one value ------------------------------------------------------------------ */

typedef struct part_value {
    cs_type_id type; /* NULL, INT, LONG, DECIMAL, DOUBLE, TIMESTAMP, DATE, STRING */
    int precision;   /* DECIMAL (scale 0) */
    int64_t i64;     /* INT, LONG, DATE (days), TIMESTAMP (micros) */
    double f64;
    __int128 dec;
    char *str; /* STRING: the unescaped value */
} part_value;

static char *unescaped(const char *s, size_t n)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_ds_unescape_path_name(s, n, &b);
    if (!b.data) return cs_xstrdup("");
    return cs_sbuf_detach(&b, NULL);
}

/* Spark's TimestampFormatter "yyyy-MM-dd HH:mm:ss[.S]" (the fraction up to microseconds). */
static bool parse_partition_timestamp(const char *s, int64_t *micros)
{
    size_t n = strlen(s);
    if (n < 19) return false;
    for (size_t i = 0; i < 19; i++) {
        bool digit = s[i] >= '0' && s[i] <= '9';
        char sep = i == 4 || i == 7 ? '-' : i == 10 ? ' ' : i == 13 || i == 16 ? ':' : 0;
        if (sep ? s[i] != sep : !digit) return false;
    }
    if (n > 19) {
        if (s[19] != '.' || n == 20 || n > 26) return false;
        for (size_t i = 20; i < n; i++)
            if (s[i] < '0' || s[i] > '9') return false;
    }
    bool zone;
    return cs_tv_parse_timestamp_lenient(s, n, micros, &zone) && !zone;
}

static void infer_value(const char *raw, bool type_inference, part_value *v)
{
    memset(v, 0, sizeof *v);
    size_t n = strlen(raw);
    if (type_inference) {
        int64_t i;
        double d;
        __int128 dec;
        int prec, scale;
        bool too_long;
        if (cs_tv_parse_int(raw, n, &i)) {
            v->type = CS_TYPE_INT;
            v->i64 = i;
            return;
        }
        if (cs_tv_parse_long(raw, n, &i)) {
            v->type = CS_TYPE_LONG;
            v->i64 = i;
            return;
        }
        if (cs_tv_parse_decimal(raw, n, &dec, &prec, &scale, &too_long) && scale <= 0) {
            for (; scale < 0 && prec < CS_DECIMAL_MAX_PRECISION; scale++, prec++) /* setScale(0) */
                dec *= 10;
            if (scale == 0 && prec <= CS_DECIMAL_MAX_PRECISION) {
                v->type = CS_TYPE_DECIMAL;
                v->dec = dec;
                v->precision = prec;
                return;
            }
        }
        if (cs_tv_parse_double(raw, n, &d)) {
            v->type = CS_TYPE_DOUBLE;
            v->f64 = d;
            return;
        }
        char *u = unescaped(raw, n);
        bool ts = parse_partition_timestamp(u, &v->i64);
        free(u);
        if (ts) {
            v->type = CS_TYPE_TIMESTAMP;
            return;
        }
        int32_t days;
        if (cs_tv_parse_date_iso(raw, n, &days)) {
            v->type = CS_TYPE_DATE;
            v->i64 = days;
            return;
        }
    }
    if (strcmp(raw, CS_DEFAULT_PARTITION_NAME) == 0) {
        v->type = CS_TYPE_NULL;
        return;
    }
    v->type = CS_TYPE_STRING;
    v->str = unescaped(raw, n);
}

/* Spark's findWiderTypeForPartitionColumn over the types ids met here. */
static cs_type_id wider(cs_type_id a, int pa, cs_type_id b, int pb, int *prec)
{
    *prec = pa > pb ? pa : pb;
    if (a == b) return a;
    if (a == CS_TYPE_NULL) {
        *prec = pb;
        return b;
    }
    if (b == CS_TYPE_NULL) {
        *prec = pa;
        return a;
    }
    if (a > b) { /* order the pair: a < b in the enum */
        cs_type_id t = a;
        a = b;
        b = t;
        int tp = pa;
        pa = pb;
        pb = tp;
    }
    if (a == CS_TYPE_INT && b == CS_TYPE_LONG) return CS_TYPE_LONG;
    if (a == CS_TYPE_INT && b == CS_TYPE_DOUBLE) return CS_TYPE_DOUBLE;
    if ((a == CS_TYPE_INT || a == CS_TYPE_LONG) && b == CS_TYPE_DECIMAL) {
        int need = a == CS_TYPE_INT ? 10 : 20;
        *prec = pb > need ? pb : need;
        return CS_TYPE_DECIMAL;
    }
    if (a == CS_TYPE_DATE && b == CS_TYPE_TIMESTAMP) return CS_TYPE_TIMESTAMP;
    return CS_TYPE_STRING; /* double with long or decimal, and everything else */
}

/* Spark's Cast of a value to string. */
static void value_to_string(const part_value *v, cs_sbuf *out)
{
    switch (v->type) {
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
        cs_sbuf_printf(out, "%lld", (long long)v->i64);
        break;
    case CS_TYPE_DECIMAL:
        cs_tv_format_decimal(v->dec, 0, out);
        break;
    case CS_TYPE_DOUBLE:
        cs_tv_format_double(v->f64, out);
        break;
    case CS_TYPE_DATE:
        cs_tv_format_date(v->i64, out);
        break;
    case CS_TYPE_TIMESTAMP: {
        int64_t day = cs_tv_day_of(v->i64), us = v->i64 - day * CS_MICROS_PER_DAY;
        cs_tv_format_date(day, out);
        int64_t secs = us / 1000000, frac = us % 1000000;
        cs_sbuf_printf(out, " %02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                       (int)(secs % 60));
        if (frac) {
            char f[8];
            snprintf(f, sizeof f, "%06lld", (long long)frac);
            for (int k = 5; k > 0 && f[k] == '0'; k--)
                f[k] = 0;
            cs_sbuf_printf(out, ".%s", f);
        }
        break;
    }
    case CS_TYPE_STRING:
        cs_sbuf_puts(out, v->str);
        break;
    default:
        break;
    }
}

/* Appends v cast to (type, prec) to builder b. */
static void append_cast(cs_col_builder *b, const part_value *v, cs_type_id type)
{
    if (v->type == CS_TYPE_NULL) {
        cs_col_builder_append_nulls(b, 1);
        return;
    }
    switch (type) {
    case CS_TYPE_INT: {
        int32_t x = (int32_t)v->i64;
        cs_col_builder_append_values(b, &x, 1, NULL);
        break;
    }
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP: {
        int64_t x = v->type == CS_TYPE_DATE ? v->i64 * CS_MICROS_PER_DAY : v->i64;
        cs_col_builder_append_values(b, &x, 1, NULL);
        break;
    }
    case CS_TYPE_DATE: {
        int32_t x = (int32_t)v->i64;
        cs_col_builder_append_values(b, &x, 1, NULL);
        break;
    }
    case CS_TYPE_DOUBLE: {
        double x = v->type == CS_TYPE_DOUBLE ? v->f64 : (double)v->i64;
        cs_col_builder_append_values(b, &x, 1, NULL);
        break;
    }
    case CS_TYPE_DECIMAL: {
        __int128 x = v->type == CS_TYPE_DECIMAL ? v->dec : (__int128)v->i64;
        cs_col_builder_append_values(b, &x, 1, NULL);
        break;
    }
    default: {
        cs_sbuf s = CS_SBUF_INIT;
        value_to_string(v, &s);
        cs_col_builder_append_string(b, s.data ? s.data : "", s.len);
        cs_sbuf_free(&s);
        break;
    }
    }
}

/* ---- parsing directories --------------------------------------------------------------------- */

typedef struct parsed_dir {
    const char *dir;
    char *base; /* where parsing stopped */
    int n;
    char **names; /* unescaped */
    part_value *values;
} parsed_dir;

static void parsed_free(parsed_dir *p)
{
    free(p->base);
    for (int i = 0; i < p->n; i++) {
        free(p->names[i]);
        free(p->values[i].str);
    }
    free(p->names);
    free(p->values);
}

static bool is_base(const char *path, size_t len, const char *const *bases, int n_base)
{
    for (int i = 0; i < n_base; i++)
        if (strlen(bases[i]) == len && strncmp(bases[i], path, len) == 0) return true;
    return false;
}

/* Spark's parsePartition: walks from dir up to a base path, collecting name=value folders. 1:
 * ignored (a _temporary folder), 0: parsed, <0: an empty name or value. */
static int parse_dir(const char *dir, const char *const *bases, int n_base, bool type_inference,
                     parsed_dir *p, cs_error *err)
{
    memset(p, 0, sizeof *p);
    p->dir = dir;
    size_t len = strlen(dir);
    int cap = 0;
    for (;;) {
        const char *slash = len ? memrchr(dir, '/', len) : NULL;
        const char *name = slash ? slash + 1 : dir;
        size_t nlen = len - (size_t)(name - dir);
        if (nlen == 10 && strncasecmp(name, "_temporary", 10) == 0) return 1;
        if (is_base(dir, len, bases, n_base)) break;
        const char *eq = memchr(name, '=', nlen);
        if (eq) {
            size_t klen = (size_t)(eq - name), vlen = nlen - klen - 1;
            if (klen == 0 || vlen == 0)
                return cs_error_set(err, CS_EINVAL, "Empty partition column %s in '%.*s'",
                                    klen == 0 ? "name" : "value", (int)nlen, name);
            if (p->n == cap) {
                cap = cap ? cap * 2 : 4;
                p->names = cs_xrealloc(p->names, (size_t)cap * sizeof *p->names);
                p->values = cs_xrealloc(p->values, (size_t)cap * sizeof *p->values);
            }
            p->names[p->n] = unescaped(name, klen);
            char *raw = cs_xstrndup(eq + 1, vlen);
            infer_value(raw, type_inference, &p->values[p->n]);
            free(raw);
            p->n++;
        }
        bool finished = (!eq && p->n > 0) || !slash || slash == dir;
        if (finished) break;
        len = (size_t)(slash - dir);
    }
    p->base = cs_xstrndup(dir, len);
    /* collected leaf first: reverse into path order */
    for (int i = 0, j = p->n - 1; i < j; i++, j--) {
        char *tn = p->names[i];
        p->names[i] = p->names[j];
        p->names[j] = tn;
        part_value tv = p->values[i];
        p->values[i] = p->values[j];
        p->values[j] = tv;
    }
    return 0;
}

static bool same_columns(const parsed_dir *a, const parsed_dir *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcasecmp(a->names[i], b->names[i]) != 0) return false;
    return true;
}

static void list_columns(const parsed_dir *p, cs_sbuf *out)
{
    for (int i = 0; i < p->n; i++)
        cs_sbuf_printf(out, "%s%s", i ? ", " : "", p->names[i]);
}

int cs_ds_infer_partitions(const char *const *base_paths, int n_base, const char *const *leaf_dirs,
                           int n, bool type_inference, cs_ds_partition_spec *out, int *dir_row,
                           cs_error *err)
{
    memset(out, 0, sizeof *out);
    parsed_dir *dirs = cs_xcalloc((size_t)n + 1, sizeof *dirs);
    int *first = cs_xcalloc((size_t)n + 1, sizeof *first); /* index of the first equal leaf */
    int rc = 0, n_parsed = 0, ref = -1;
    for (int i = 0; i < n && rc == 0; i++) {
        first[i] = i;
        dir_row[i] = -1;
        for (int j = 0; j < i; j++)
            if (strcmp(leaf_dirs[j], leaf_dirs[i]) == 0) {
                first[i] = j;
                break;
            }
        if (first[i] != i) continue;
        int prc = parse_dir(leaf_dirs[i], base_paths, n_base, type_inference, &dirs[i], err);
        n_parsed = i + 1;
        if (prc < 0) rc = prc;
        if (prc != 0 || dirs[i].n == 0) continue;
        if (ref < 0) ref = i;
        if (strcmp(dirs[ref].base, dirs[i].base) != 0)
            rc = cs_error_set(err, CS_EINVAL,
                              "Conflicting directory structures detected. Suspicious paths: %s, "
                              "%s. If provided paths are partition directories, please set "
                              "\"basePath\" in the options of the data source to specify the root "
                              "directory of the table.",
                              dirs[ref].base, dirs[i].base);
        else if (!same_columns(&dirs[ref], &dirs[i])) {
            cs_sbuf m = CS_SBUF_INIT;
            cs_sbuf_puts(&m, "[CONFLICTING_PARTITION_COLUMN_NAMES] Conflicting partition column "
                             "names detected: Partition column name list #0: ");
            list_columns(&dirs[ref], &m);
            cs_sbuf_puts(&m, "; Partition column name list #1: ");
            list_columns(&dirs[i], &m);
            cs_sbuf_printf(&m,
                           ". For partitioned table directories, data files should only live in "
                           "leaf directories. And directories at the same level should have the "
                           "same partition column name. Please check the following directories "
                           "for unexpected files or inconsistent partition column names: %s, %s",
                           dirs[ref].dir, dirs[i].dir);
            rc = cs_error_set(err, CS_EINVAL, "%s", cs_sbuf_str(&m));
            cs_sbuf_free(&m);
        }
    }
    if (rc == 0 && ref >= 0) {
        int nc = dirs[ref].n;
        cs_col_field *fields = cs_xcalloc((size_t)nc, sizeof *fields);
        cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
        int rows = 0;
        for (int i = 0; i < n; i++)
            if (first[i] == i && dirs[i].n > 0) rows++;
        out->dirs = cs_xcalloc((size_t)rows + 1, sizeof *out->dirs);
        for (int c = 0; c < nc; c++) {
            cs_type_id t = CS_TYPE_NULL;
            int prec = 0;
            for (int i = 0; i < n; i++)
                if (first[i] == i && dirs[i].n > 0)
                    t = wider(t, prec, dirs[i].values[c].type, dirs[i].values[c].precision, &prec);
            if (t == CS_TYPE_NULL) t = CS_TYPE_STRING; /* no column of NullType */
            fields[c].name = dirs[ref].names[c];
            fields[c].nullable = true;
            fields[c].type = t == CS_TYPE_DECIMAL ? cs_col_type_decimal(prec, 0, NULL)
                                                  : cs_col_type_primitive(t);
            cs_col_builder *b = cs_col_builder_new(NULL, fields[c].type);
            for (int i = 0; i < n; i++)
                if (first[i] == i && dirs[i].n > 0) append_cast(b, &dirs[i].values[c], t);
            cols[c] = cs_col_builder_finish(b);
            cs_col_builder_free(b);
        }
        for (int i = 0; i < n; i++) {
            if (first[i] == i && dirs[i].n > 0) {
                dir_row[i] = out->n_dirs;
                out->dirs[out->n_dirs++] = cs_xstrdup(leaf_dirs[i]);
            } else if (first[i] != i) {
                dir_row[i] = dir_row[first[i]];
            }
        }
        out->schema = cs_col_type_struct(fields, nc);
        out->values = cs_col_batch_new(cs_col_type_ref(out->schema), cols, nc, rows, err);
        free(fields);
        free(cols);
        if (!out->values) rc = err->code;
    }
    if (rc == 0 && !out->schema) out->schema = cs_col_type_struct(NULL, 0);
    for (int i = 0; i < n_parsed; i++)
        if (first[i] == i) parsed_free(&dirs[i]);
    free(dirs);
    free(first);
    if (rc < 0) cs_ds_partition_spec_free(out);
    return rc;
}

void cs_ds_partition_spec_free(cs_ds_partition_spec *s)
{
    if (s->schema) cs_col_type_unref(s->schema);
    if (s->values) cs_col_batch_unref(s->values);
    for (int i = 0; i < s->n_dirs; i++)
        free(s->dirs[i]);
    free(s->dirs);
    memset(s, 0, sizeof *s);
}
