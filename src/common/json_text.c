/*
 * json_text.c — see json_text.h.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/json_text.h"

/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 if s does not start one. */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

json_t *cs_json_text(const char *s)
{
    if (!s) s = "";
    json_t *j = json_string(s);
    if (j) return j;
    /* not UTF-8: every byte that does not start a valid sequence becomes '?' */
    char *copy = cs_xstrdup(s);
    for (unsigned char *p = (unsigned char *)copy; *p;) {
        size_t n = utf8_seq(p);
        if (n == 0)
            *p++ = '?';
        else
            p += n;
    }
    j = json_string(copy);
    free(copy);
    return j ? j : json_string("");
}
