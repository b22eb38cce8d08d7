/*
 * col_collation.c — collation names (see col_collation.h): Spark's canonical names, the parse of a
 * name with its case / accent specifiers, and the proposals of COLLATION_INVALID_NAME computed as
 * CollationFactory computes them (the closest root names by Levenshtein distance, the
 * specifiers kept), over the roots built here. Called by the SQL parser, the analyzer and the
 * Connect type conversion.
 */
#include "columnar/col_collation.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[CS_COLLATION_COUNT] = {
    [CS_COLLATION_UTF8_BINARY] = "UTF8_BINARY", [CS_COLLATION_UTF8_LCASE] = "UTF8_LCASE",
    [CS_COLLATION_UNICODE] = "UNICODE",         [CS_COLLATION_UNICODE_CI] = "UNICODE_CI",
    [CS_COLLATION_UNICODE_AI] = "UNICODE_AI",   [CS_COLLATION_UNICODE_CI_AI] = "UNICODE_CI_AI",
};

const char *cs_collation_name(int id)
{
    return id >= 0 && id < CS_COLLATION_COUNT ? names[id] : names[0];
}

static void upper_copy(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; s[n] && n + 1 < cap; n++)
        out[n] = (char)toupper((unsigned char)s[n]);
    out[n] = '\0';
}

int cs_collation_lookup(const char *name)
{
    char up[64];
    if (strlen(name) >= sizeof up) return -1;
    upper_copy(name, up, sizeof up);
    /* SYSTEM.BUILTIN.NAME is the fully qualified spelling */
    const char *p = up;
    if (strchr(p, '.')) {
        if (strncmp(p, "SYSTEM.BUILTIN.", 15) != 0 || strchr(p + 15, '.')) return -1;
        p += 15;
    }
    if (strncmp(p, "UTF8_", 5) == 0) {
        if (strcmp(p, "UTF8_BINARY") == 0) return CS_COLLATION_UTF8_BINARY;
        if (strcmp(p, "UTF8_LCASE") == 0) return CS_COLLATION_UTF8_LCASE;
        return -1;
    }
    if (strncmp(p, "UNICODE", 7) != 0) return -1;
    p += 7;
    bool ci = false, ai = false, case_set = false, accent_set = false;
    while (*p) {
        if (*p != '_' || strlen(p) < 3 || (p[3] != '\0' && p[3] != '_')) return -1;
        if (p[1] == 'C' && (p[2] == 'I' || p[2] == 'S')) {
            if (case_set) return -1;
            case_set = true;
            ci = p[2] == 'I';
        } else if (p[1] == 'A' && (p[2] == 'I' || p[2] == 'S')) {
            if (accent_set) return -1;
            accent_set = true;
            ai = p[2] == 'I';
        } else {
            return -1;
        }
        p += 3;
    }
    return ci ? (ai ? CS_COLLATION_UNICODE_CI_AI : CS_COLLATION_UNICODE_CI)
              : (ai ? CS_COLLATION_UNICODE_AI : CS_COLLATION_UNICODE);
}

/* Levenshtein distance of two short upper-case names (bytes). */
static int distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    int row[72];
    if (nb >= sizeof row / sizeof row[0]) return (int)(na > nb ? na : nb);
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

void cs_collation_proposals(const char *name, cs_sbuf *out)
{
    static const char *const utf8_roots[] = {"UTF8_BINARY", "UTF8_LCASE"};
    static const char *const icu_roots[] = {"UNICODE"};
    static const char *const modifiers[] = {"_CI", "_AI", "_CS", "_AS"};
    bool utf8 = strncmp(name, "UTF8_", 5) == 0;
    const char *const *roots = utf8 ? utf8_roots : icu_roots;
    int n_roots = utf8 ? 2 : 1;
    char locale[64], upname[64];
    if (strlen(name) >= sizeof locale) {
        cs_sbuf_puts(out, utf8 ? "UTF8_BINARY" : "UNICODE");
        return;
    }
    upper_copy(name, locale, sizeof locale);
    upper_copy(name, upname, sizeof upname);
    /* strip trailing modifiers (ICU names only), kept in their written order, each once */
    const char *mods[16];
    int n_mods = 0;
    for (size_t len = strlen(locale); !utf8 && len >= 3;) {
        int m = -1;
        for (int k = 0; k < 4; k++)
            if (strcmp(locale + len - 3, modifiers[k]) == 0) m = k;
        if (m < 0 || n_mods == 16) break;
        mods[n_mods++] = modifiers[m];
        len -= 3;
        locale[len] = '\0';
    }
    const char *uniq[4];
    int n_uniq = 0;
    for (int i = n_mods - 1; i >= 0; i--) {
        bool seen = false;
        for (int k = 0; k < n_uniq; k++)
            seen |= uniq[k] == mods[i];
        if (!seen) uniq[n_uniq++] = mods[i];
    }
    bool has[4] = {false};
    for (int k = 0; k < n_uniq; k++)
        for (int m = 0; m < 4; m++)
            has[m] |= uniq[k] == modifiers[m];
    cs_sbuf suffix = {0};
    for (int k = 0; k < n_uniq; k++) {
        if (uniq[k] == modifiers[0] && has[2]) continue; /* _CI beside _CS */
        if (uniq[k] == modifiers[1] && has[3]) continue; /* _AI beside _AS */
        cs_sbuf_puts(&suffix, uniq[k]);
    }
    /* roots by distance to the locale part (stable, as Arrays.sort on objects) */
    int order[2] = {0, 1};
    if (n_roots == 2 && distance(roots[1], locale) < distance(roots[0], locale)) {
        order[0] = 1;
        order[1] = 0;
    }
    int written = 0;
    for (int i = 0; i < n_roots && i < 3; i++) {
        char sugg[128];
        snprintf(sugg, sizeof sugg, "%s%s", roots[order[i]], suffix.len ? suffix.data : "");
        if (written && distance(sugg, upname) >= 3) break;
        if (written) cs_sbuf_puts(out, ", ");
        cs_sbuf_puts(out, sugg);
        written++;
    }
    cs_sbuf_free(&suffix);
}
