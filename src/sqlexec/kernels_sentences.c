/*
 * kernels_sentences.c — sentences(str[, lang, country]): a string split into sentences and each
 * sentence into its words, as Spark's Sentences with java.text.BreakIterator's sentence and word
 * instances: a sentence ends after a run of terminators (. ? !), the closing quotes or brackets
 * after it and the spaces after those, except that a period followed by a lower-case letter ends
 * none (an abbreviation); the words of a sentence are its runs of letters and digits (an
 * apostrophe or a period between letters, a period or comma between digits, stays inside the
 * word), and the pieces between them (spaces, punctuation) are dropped as Spark drops every
 * piece that does not start with a letter or digit. Bytes beyond ASCII count as letters. The
 * locale arguments pick no other rules (Java's differ little by locale). A null string gives
 * null. One builder per batch. Called through cs_px_sentences_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static bool is_alpha(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_close(uint8_t c)
{
    return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}';
}

/* The end of the sentence starting at `from` in s[0..n). */
static int32_t sentence_end(const uint8_t *s, int32_t n, int32_t from)
{
    for (int32_t i = from; i < n; i++) {
        uint8_t c = s[i];
        if (c != '.' && c != '?' && c != '!') continue;
        bool only_periods = true;
        while (i < n && (s[i] == '.' || s[i] == '?' || s[i] == '!'))
            only_periods = only_periods && s[i++] == '.';
        while (i < n && is_close(s[i]))
            i++;
        int32_t sp = i;
        while (i < n && is_space(s[i]))
            i++;
        if (i == n) return n;
        if (i == sp) { /* "3.14", "a.b": no space, no break */
            i--;
            continue;
        }
        if (only_periods && s[i] >= 'a' && s[i] <= 'z') {
            i--;
            continue;
        }
        return i;
    }
    return n;
}

/* The end of the word starting at s[i] (a letter or digit) before `end`. */
static int32_t word_end(const uint8_t *s, int32_t end, int32_t i)
{
    while (i < end) {
        if (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_') {
            i++;
            continue;
        }
        bool mid_letter = (s[i] == '\'' || s[i] == '.') && i + 1 < end && is_alpha(s[i - 1]) &&
                          is_alpha(s[i + 1]);
        bool mid_num =
            (s[i] == '.' || s[i] == ',') && i + 1 < end && is_digit(s[i - 1]) && is_digit(s[i + 1]);
        if (!mid_letter && !mid_num) break;
        i++;
    }
    return i;
}

/* Counts the words of s[from..end), appending them to `words` unless it is NULL. */
static int32_t append_words(cs_col_builder *words, const uint8_t *s, int32_t from, int32_t end)
{
    int32_t count = 0;
    for (int32_t i = from; i < end;) {
        if (!is_alpha(s[i]) && !is_digit(s[i])) {
            i++;
            continue;
        }
        int32_t w = word_end(s, end, i);
        if (words) cs_col_builder_append_string(words, s + i, (size_t)(w - i));
        count++;
        i = w;
    }
    return count;
}

static int sentences_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sc = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder *lists = cs_col_builder_child(b, 0);
    cs_col_builder *words = cs_col_builder_child(lists, 0);
    uint8_t invalid = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sc)) {
            int32_t zero = 0;
            cs_col_builder_append_lists(b, &zero, 1, &invalid);
            continue;
        }
        int32_t len;
        const uint8_t *s = cs_column_bytes(a[0], i * sc, &len);
        int32_t count = 0;
        for (int32_t at = 0; at < len; at = sentence_end(s, len, at))
            count++;
        cs_col_builder_append_lists(b, &count, 1, NULL);
        for (int32_t at = 0; at < len;) {
            int32_t end = sentence_end(s, len, at);
            int32_t count_words = append_words(NULL, s, at, end);
            cs_col_builder_append_lists(lists, &count_words, 1, NULL);
            append_words(words, s, at, end);
            at = end;
        }
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

cs_px_kernel cs_px_sentences_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    if (strcmp(fn, "sentences") != 0 || n < 1 || n > 3 || result->id != CS_TYPE_ARRAY) return NULL;
    for (int i = 0; i < n; i++)
        if (t[i]->id != CS_TYPE_STRING) return NULL;
    return sentences_kernel;
}
