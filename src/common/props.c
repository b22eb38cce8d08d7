/* props.c — Java .properties reading and writing for cs_conf (conf.h).
 *
 * Implements the java.util.Properties.load grammar as Spark applies it to spark-defaults.conf
 * and --properties-file (UTF-8 text; values trimmed afterwards as Spark's
 * Utils.getPropertiesFromFile does): natural lines end in \n, \r or \r\n; blank lines and
 * lines whose first non-blank char is # or ! are comments (never continued); an odd number of
 * trailing backslashes joins the next line with its leading blanks dropped; the key ends at the
 * first unescaped '=', ':' or blank, then blanks and one optional '=' or ':' are skipped;
 * escapes \t \n \r \f \uXXXX (surrogate pairs combined, emitted as UTF-8), any other \x is x.
 * cs_conf_to_properties writes the inverse. Called by cspark-submit (defaults, --properties-file)
 * and by the driver/executor start-up (spark.properties from the ConfigMap).
 */
#include "common/conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strutil.h"

#define PROPS_MAX_FILE (64LL * 1024 * 1024)

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\f';
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static void put_utf8(cs_sbuf *b, uint32_t cp)
{
    uint8_t u[4];
    cs_sbuf_append(b, u, cs_utf8_put(cp, u));
}

/* Reader state over the whole text. */
typedef struct props_reader {
    const char *p, *end;
    int line; /* 1-based number of the natural line at p */
} props_reader;

/* Consumes one line terminator at r->p if present. */
static bool eat_eol(props_reader *r)
{
    if (r->p < r->end && *r->p == '\r') {
        r->p++;
        if (r->p < r->end && *r->p == '\n') r->p++;
        r->line++;
        return true;
    }
    if (r->p < r->end && *r->p == '\n') {
        r->p++;
        r->line++;
        return true;
    }
    return false;
}

/* Reads the next logical line (continuations joined, raw escapes kept except the joining
 * backslashes) into out. Returns false at end of input. *start_line gets its first line. */
static bool next_logical_line(props_reader *r, cs_sbuf *out, int *start_line)
{
    for (;;) {
        if (r->p >= r->end) return false;
        /* skip leading blanks of a natural line */
        while (r->p < r->end && is_blank(*r->p))
            r->p++;
        if (eat_eol(r)) continue; /* blank line */
        if (r->p >= r->end) return false;
        if (*r->p == '#' || *r->p == '!') { /* comment line: skip to end of line */
            while (r->p < r->end && *r->p != '\n' && *r->p != '\r')
                r->p++;
            eat_eol(r);
            continue;
        }
        break;
    }
    *start_line = r->line;
    out->len = 0;
    if (out->data) out->data[0] = '\0';
    for (;;) {
        const char *s = r->p;
        while (r->p < r->end && *r->p != '\n' && *r->p != '\r')
            r->p++;
        size_t n = (size_t)(r->p - s);
        size_t bs = 0;
        while (bs < n && s[n - 1 - bs] == '\\')
            bs++;
        bool cont = (bs % 2) == 1;
        cs_sbuf_append(out, s, cont ? n - 1 : n);
        bool had_eol = eat_eol(r);
        if (!cont || !had_eol) return true;
        while (r->p < r->end && is_blank(*r->p)) /* leading blanks of the continuation */
            r->p++;
    }
}

/* Unescapes [s, e) into b. Returns 0, or CS_EINVAL with a description in err. */
static int unescape(const char *s, const char *e, cs_sbuf *b, cs_error *err)
{
    while (s < e) {
        char ch = *s++;
        if (ch != '\\') {
            if (ch == '\0') return cs_error_set(err, CS_EINVAL, "contains a NUL character");
            cs_sbuf_putc(b, ch);
            continue;
        }
        if (s >= e) /* a lone trailing backslash (end of file) is dropped, as Java does */
            break;
        ch = *s++;
        switch (ch) {
        case 't':
            cs_sbuf_putc(b, '\t');
            break;
        case 'n':
            cs_sbuf_putc(b, '\n');
            break;
        case 'r':
            cs_sbuf_putc(b, '\r');
            break;
        case 'f':
            cs_sbuf_putc(b, '\f');
            break;
        case 'u': {
            uint32_t cp = 0;
            for (int i = 0; i < 4; i++) {
                int h = s < e ? hexval(*s) : -1;
                if (h < 0)
                    return cs_error_set(err, CS_EINVAL,
                                        "malformed \\uXXXX escape (expected 4 hex digits)");
                cp = cp * 16 + (uint32_t)h;
                s++;
            }
            if (cp == 0) return cs_error_set(err, CS_EINVAL, "contains a NUL character (\\u0000)");
            /* combine a UTF-16 surrogate pair written as two escapes */
            if (cp >= 0xD800 && cp <= 0xDBFF && e - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                uint32_t lo = 0;
                bool ok = true;
                for (int i = 0; i < 4; i++) {
                    int h = hexval(s[2 + i]);
                    if (h < 0) ok = false;
                    lo = lo * 16 + (uint32_t)(h < 0 ? 0 : h);
                }
                if (ok && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* unpaired surrogate */
            put_utf8(b, cp);
            break;
        }
        default:
            cs_sbuf_putc(b, ch);
            break;
        }
    }
    return CS_OK;
}

/* Java String.trim: strips chars <= ' ' at both ends. */
static char *java_trim_dup(const char *s, size_t n)
{
    while (n && (unsigned char)*s <= ' ') {
        s++;
        n--;
    }
    while (n && (unsigned char)s[n - 1] <= ' ')
        n--;
    return cs_xstrndup(s, n);
}

int cs_conf_parse_properties(cs_conf *c, const char *name, const char *text, size_t len,
                             bool overwrite, cs_error *err)
{
    props_reader r = {text, text + len, 1};
    cs_sbuf line = CS_SBUF_INIT, key = CS_SBUF_INIT, val = CS_SBUF_INIT;
    cs_conf *parsed = cs_conf_new();
    int rc = CS_OK, at = 0;
    if (!name) name = "properties";
    while (next_logical_line(&r, &line, &at)) {
        const char *s = cs_sbuf_str(&line), *e = s + line.len;
        /* key: up to the first unescaped '=', ':' or blank */
        const char *k = s;
        while (k < e) {
            if (*k == '\\' && k + 1 < e) {
                k += 2;
                continue;
            }
            if (*k == '=' || *k == ':' || is_blank(*k)) break;
            k++;
        }
        const char *v = k;
        while (v < e && is_blank(*v))
            v++;
        if (v < e && (*v == '=' || *v == ':')) {
            v++;
            while (v < e && is_blank(*v))
                v++;
        }
        key.len = val.len = 0;
        if (key.data) key.data[0] = '\0';
        if (val.data) val.data[0] = '\0';
        cs_error detail;
        if (unescape(s, k, &key, &detail) != CS_OK || unescape(v, e, &val, &detail) != CS_OK) {
            rc = cs_error_set(err, CS_EINVAL, "properties file %s: line %d: %s", name, at,
                              detail.msg);
            goto out;
        }
        if (strlen(cs_sbuf_str(&key)) != key.len || strlen(cs_sbuf_str(&val)) != val.len) {
            rc = cs_error_set(err, CS_EINVAL,
                              "properties file %s: line %d: contains a NUL character", name, at);
            goto out;
        }
        char *kt = java_trim_dup(cs_sbuf_str(&key), key.len);
        char *vt = java_trim_dup(cs_sbuf_str(&val), val.len);
        if (*kt) /* a line such as "=x" has an empty key; Java keeps it, Spark ignores it */
            cs_conf_set(parsed, kt, vt);
        free(kt);
        free(vt);
    }
    cs_conf_merge(c, parsed, overwrite);
out:
    cs_conf_free(parsed);
    cs_sbuf_free(&line);
    cs_sbuf_free(&key);
    cs_sbuf_free(&val);
    return rc;
}

int cs_conf_load_properties(cs_conf *c, const char *path, bool overwrite, cs_error *err)
{
    int rc = CS_OK;
    cs_sbuf text = CS_SBUF_INIT;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; only regular files are read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return cs_error_set(err, CS_ENOTFOUND, "properties file %s not found", path);
        return cs_error_set(err, CS_EIO, "properties file %s cannot be read: %s", path,
                            strerror(errno));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cs_error_set(err, CS_EINVAL, "properties file %s is %s", path,
                            S_ISDIR(st.st_mode) ? "a directory (expected a file of key=value lines)"
                                                : "not a regular file (expected a file of "
                                                  "key=value lines)");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return cs_error_set(err, CS_EIO, "properties file %s cannot be read: %s", path,
                            strerror(errno));
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        cs_sbuf_append(&text, buf, n);
        if ((long long)text.len > PROPS_MAX_FILE) {
            rc = cs_error_set(err, CS_EINVAL, "properties file %s is larger than %lld bytes", path,
                              PROPS_MAX_FILE);
            goto out;
        }
    }
    if (ferror(f)) {
        /* reading a directory fails here with EISDIR */
        rc = cs_error_set(err, CS_EIO, "properties file %s cannot be read: %s", path,
                          strerror(errno));
        goto out;
    }
    rc = cs_conf_parse_properties(c, path, cs_sbuf_str(&text), text.len, overwrite, err);
out:
    fclose(f);
    cs_sbuf_free(&text);
    return rc;
}

/* Escapes as java.util.Properties.store, except that non-ASCII UTF-8 is kept as is (Spark
 * reads properties as UTF-8) and only control characters use \uXXXX. */
static void escape(cs_sbuf *b, const char *s, bool is_key)
{
    for (size_t i = 0; s[i]; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case ' ':
            if (is_key || i == 0) cs_sbuf_putc(b, '\\');
            cs_sbuf_putc(b, ' ');
            break;
        case '\t':
            cs_sbuf_puts(b, "\\t");
            break;
        case '\n':
            cs_sbuf_puts(b, "\\n");
            break;
        case '\r':
            cs_sbuf_puts(b, "\\r");
            break;
        case '\f':
            cs_sbuf_puts(b, "\\f");
            break;
        case '=':
        case ':':
        case '#':
        case '!':
        case '\\':
            cs_sbuf_putc(b, '\\');
            cs_sbuf_putc(b, (char)ch);
            break;
        default:
            if (ch < 0x20 || ch == 0x7F)
                cs_sbuf_printf(b, "\\u%04X", ch);
            else
                cs_sbuf_putc(b, (char)ch);
        }
    }
}

struct to_props_ctx {
    cs_sbuf *b;
};

static void to_props_one(void *arg, const char *key, const char *value)
{
    struct to_props_ctx *ctx = arg;
    escape(ctx->b, key, true);
    cs_sbuf_putc(ctx->b, '=');
    escape(ctx->b, value, false);
    cs_sbuf_putc(ctx->b, '\n');
}

char *cs_conf_to_properties(const cs_conf *c, size_t *len)
{
    cs_sbuf b = CS_SBUF_INIT;
    struct to_props_ctx ctx = {&b};
    cs_conf_foreach(c, to_props_one, &ctx);
    return cs_sbuf_detach(&b, len);
}
