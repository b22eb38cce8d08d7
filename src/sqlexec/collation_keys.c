/*
 * collation_keys.c — collation keys (see collation_keys.h): UTF8_LCASE's lower-case code points
 * and ICU sort keys of the UNICODE collations, one string at a time into a caller's scratch
 * buffer, or a whole column at once into one builder. Called by the comparison kernels, the
 * collationkey() kernel the planner puts under grouping, join and sort keys, and the unit tests.
 */
#include "sqlexec/collation_keys.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>

#include "columnar/col_collation.h"
#include "common/err.h"
#include "common/log.h"
#include "common/strutil.h"

static UCollator *collators[CS_COLLATION_COUNT];
static pthread_once_t collators_once = PTHREAD_ONCE_INIT;

/* Spark's ICU settings (CollationSpecICU.buildCollation): ks=level3 (UNICODE), level2 (_CI),
 * level1 with kc=true (_AI: the case level on), level1 (_CI_AI). */
static void open_collators(void)
{
    static const struct {
        int id;
        UCollationStrength strength;
        bool case_level;
    } spec[] = {{CS_COLLATION_UNICODE, UCOL_TERTIARY, false},
                {CS_COLLATION_UNICODE_CI, UCOL_SECONDARY, false},
                {CS_COLLATION_UNICODE_AI, UCOL_PRIMARY, true},
                {CS_COLLATION_UNICODE_CI_AI, UCOL_PRIMARY, false}};
    for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
        UErrorCode st = U_ZERO_ERROR;
        UCollator *c = ucol_open("", &st);
        if (U_FAILURE(st) || !c) {
            /* ICU's root collator is compiled into libicudata: only a broken install lacks it */
            CS_ERROR("collation", "msg=\"ICU cannot open its root collator\" status=%s",
                     u_errorName(st));
            abort();
        }
        ucol_setStrength(c, spec[i].strength);
        if (spec[i].case_level) ucol_setAttribute(c, UCOL_CASE_LEVEL, UCOL_ON, &st);
        collators[spec[i].id] = c;
    }
}

void cs_collation_scratch_free(cs_collation_scratch *sc)
{
    free(sc->key);
    free(sc->u16);
    *sc = (cs_collation_scratch){0};
}

static void reserve_key(cs_collation_scratch *sc, size_t need)
{
    if (need <= sc->key_cap) return;
    size_t cap = sc->key_cap ? sc->key_cap : 64;
    while (cap < need)
        cap *= 2;
    sc->key = cs_xrealloc(sc->key, cap);
    sc->key_cap = cap;
}

static size_t lcase_key(const uint8_t *s, size_t len, cs_collation_scratch *sc)
{
    /* a code point of n bytes lowers to at most 4 bytes, U+0130 to 3: 3 bytes a byte is enough */
    reserve_key(sc, len * 3 + 4);
    size_t o = 0;
    int32_t i = 0, n = (int32_t)len;
    while (i < n) {
        if (s[i] < 0x80) {
            uint8_t c = s[i++];
            sc->key[o++] = c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
            continue;
        }
        int32_t start = i;
        UChar32 c;
        U8_NEXT(s, i, n, c);
        if (c < 0) { /* an invalid sequence is kept as its bytes (Spark compares them so) */
            memcpy(sc->key + o, s + start, (size_t)(i - start));
            o += (size_t)(i - start);
            continue;
        }
        if (c == 0x0130) {
            sc->key[o++] = 'i';
            o += cs_utf8_put(0x0307, sc->key + o);
        } else {
            o += cs_utf8_put((uint32_t)(c == 0x03C2 ? 0x03C3 : u_tolower(c)), sc->key + o);
        }
    }
    return o;
}

static size_t icu_key(int collation, const uint8_t *s, size_t len, cs_collation_scratch *sc)
{
    pthread_once(&collators_once, open_collators);
    if (len + 1 > sc->u16_cap) {
        sc->u16_cap = len + 16;
        sc->u16 = cs_xrealloc(sc->u16, sc->u16_cap * sizeof *sc->u16);
    }
    UErrorCode st = U_ZERO_ERROR;
    int32_t ulen = 0;
    u_strFromUTF8WithSub(sc->u16, (int32_t)sc->u16_cap, &ulen, (const char *)s, (int32_t)len,
                         0xFFFD, NULL, &st);
    if (U_FAILURE(st)) ulen = 0; /* cannot happen: UTF-16 never outgrows the UTF-8 units */
    reserve_key(sc, len * 4 + 16);
    for (;;) {
        int32_t need =
            ucol_getSortKey(collators[collation], sc->u16, ulen, sc->key, (int32_t)sc->key_cap);
        if ((size_t)need <= sc->key_cap)
            return need > 0 ? (size_t)need - 1 : 0; /* without the final 0 */
        reserve_key(sc, (size_t)need);
    }
}

size_t cs_collation_key(int collation, const uint8_t *s, size_t len, cs_collation_scratch *sc)
{
    switch (collation) {
    case CS_COLLATION_UTF8_LCASE:
        return lcase_key(s, len, sc);
    case CS_COLLATION_UNICODE:
    case CS_COLLATION_UNICODE_CI:
    case CS_COLLATION_UNICODE_AI:
    case CS_COLLATION_UNICODE_CI_AI:
        return icu_key(collation, s, len, sc);
    default:
        reserve_key(sc, len + 1);
        memcpy(sc->key, s, len);
        return len;
    }
}

cs_column *cs_collation_key_column(const cs_column *c, int collation, cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, cs_col_type_primitive(CS_TYPE_BINARY));
    cs_collation_scratch sc = {0};
    for (int64_t i = 0; i < c->length; i++) {
        if (!cs_column_is_valid(c, i)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t l;
        const uint8_t *s = cs_column_bytes(c, i, &l);
        size_t kl = cs_collation_key(collation, s, (size_t)l, &sc);
        cs_col_builder_append_string(b, sc.key, kl);
    }
    cs_collation_scratch_free(&sc);
    cs_column *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return out;
}

const char *cs_collation_icu_version(void)
{
    return U_ICU_VERSION;
}
