/* kubesim quantity parser (see quantity.h). The grammar is Kubernetes':
 *   quantity ::= signedNumber suffix;  signedNumber ::= [+-] (digits | digits. | digits.digits |
 *   .digits);  suffix ::= binarySI (Ki Mi Gi Ti Pi Ei) | decimalSI (n u m "" k M G T P E) |
 *   (e|E) signedInteger. */
#include "quantity.h"

#include <stddef.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Multiplier of a suffix, or 0 when it is not one. */
static long double suffix_mult(const char *s)
{
    static const struct {
        const char *s;
        long double m;
    } sfx[] = {{"Ki", 1024.0L},
               {"Mi", 1048576.0L},
               {"Gi", 1073741824.0L},
               {"Ti", 1099511627776.0L},
               {"Pi", 1125899906842624.0L},
               {"Ei", 1152921504606846976.0L},
               {"n", 1e-9L},
               {"u", 1e-6L},
               {"m", 1e-3L},
               {"", 1.0L},
               {"k", 1e3L},
               {"M", 1e6L},
               {"G", 1e9L},
               {"T", 1e12L},
               {"P", 1e15L},
               {"E", 1e18L}};
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++)
        if (!strcmp(s, sfx[i].s)) return sfx[i].m;
    if ((s[0] == 'e' || s[0] == 'E') && s[1]) {
        const char *p = s + 1;
        int neg = 0;
        if (*p == '+' || *p == '-') neg = *p++ == '-';
        if (!*p) return 0;
        int exp = 0;
        for (; *p; p++) {
            if (!is_digit(*p) || exp > 1000) return 0;
            exp = exp * 10 + (*p - '0');
        }
        long double m = 1.0L;
        for (int i = 0; i < exp; i++)
            m = neg ? m / 10 : m * 10;
        return m;
    }
    return 0;
}

int ks_quantity_parse(const char *q, long double *value, const char **msg)
{
    const char *p = q ? q : "";
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    long double v = 0;
    int digits = 0;
    for (; is_digit(*p); p++, digits++)
        v = v * 10 + (*p - '0');
    if (*p == '.') {
        long double scale = 0.1L;
        for (p++; is_digit(*p); p++, digits++, scale /= 10)
            v += (*p - '0') * scale;
    }
    if (!digits) {
        if (msg) *msg = KS_QUANTITY_FORMAT_MSG;
        return -1;
    }
    long double mult = suffix_mult(p);
    if (mult == 0) {
        if (msg) *msg = KS_QUANTITY_SUFFIX_MSG;
        return -1;
    }
    if (value) *value = (neg ? -v : v) * mult;
    return 0;
}

long long ks_quantity_scaled(const char *q, int scale)
{
    long double v;
    if (!q || !*q || ks_quantity_parse(q, &v, NULL) < 0) return -1;
    long double x = v * scale;
    if (x >= 9.2e18L) return -1;
    long long r = (long long)x;
    if (x - (long double)r > 1e-6L) r++; /* round up, as Kubernetes does */
    return r;
}
