/*
 * wordcount.c — counts the words of text files and prints the most frequent ones.
 *
 * Spark equivalent (JavaWordCount / the classic Scala one-liner):
 *
 *     val counts = sc.textFile(input).flatMap(_.split("\\s+")).map((_, 1)).reduceByKey(_ + _)
 *     counts.map { case (w, c) => s"$w\t$c" }.saveAsTextFile(outdir)
 *
 * A word is a maximal run of bytes that are not ASCII whitespace (space, \t, \n, \r, \v, \f); any
 * other byte (including non-ASCII) is part of a word. Output: OUTDIR/part-NNNNN files with one
 * "word<TAB>count" line per distinct word (order free within and across parts). Then stdout gets
 *
 *     N distinct words, M total
 *     word<TAB>count            (the 10 most frequent: count descending, then word bytes ascending)
 *
 * The top 10 come from a second, small job over the saved result (text_file of OUTDIR/part-*, a
 * per-partition top-10 in map_partitions, collect, final merge here): cspark.h has no cache(),
 * so reading the saved counts back is far cheaper than recomputing the counts. Usage:
 * wordcount.so INPUT OUTDIR (INPUT: file, directory, glob or comma-separated list).
 */
#include <cspark.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define WC_TOP 10

/* 1 for the bytes that separate words. */
static const uint8_t wc_space[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\v'] = 1, ['\f'] = 1,
};

/* End of the word starting at p: the first whitespace byte, or end. Bytes above 0x20 are never
 * whitespace, so 8 bytes at a time are checked for a byte <= 0x20 (the lowest such byte is
 * found exactly by the borrow trick below; the table then decides, since control bytes other
 * than whitespace belong to words). */
static inline const uint8_t *wc_word_end(const uint8_t *p, const uint8_t *end)
{
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t low = (x - 0x2121212121212121ULL) & ~x & 0x8080808080808080ULL;
        if (!low) {
            p += 8;
            continue;
        }
        const uint8_t *q = p + (__builtin_ctzll(low) >> 3); /* little-endian: lowest = first */
        if (wc_space[*q]) return q;
        p = q + 1;
    }
    while (p < end && !wc_space[*p])
        p++;
    return p;
}

/* memcpy for short words without a library call: overlapping loads and stores. */
static inline void wc_copy(uint8_t *d, const uint8_t *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0 && n < 4) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    } else {
        memcpy(d, s, n);
    }
}

/* flatMap(_.split(ws)).map((_, 1)): one (word, i64 1) record per word of the line. */
void wc_split(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *p = in->key.ptr, *end = p + in->key.len;
    while (p < end) {
        while (p < end && wc_space[*p])
            p++;
        if (p == end) break;
        const uint8_t *w = p;
        p = wc_word_end(p, end);
        uint8_t *v;
        uint8_t *k = cspark_emit_reserve(out, (size_t)(p - w), 8, &v);
        wc_copy(k, w, (size_t)(p - w));
        cspark_i64_encode(1, v);
    }
}

/* map { case (w, c) => s"$w\t$c" }: the output line as the key, empty value. */
void wc_format(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    /* the count in decimal, written backwards (no snprintf per distinct word) */
    char num[24];
    int64_t c = cspark_slice_i64(in->value);
    uint64_t u = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
    int n = 0;
    do {
        num[sizeof num - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (c < 0) num[sizeof num - 1 - n++] = '-';
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, in->key.len + 1 + (size_t)n, 0, &v);
    memcpy(k, in->key.ptr, in->key.len);
    k[in->key.len] = '\t';
    memcpy(k + in->key.len + 1, num + sizeof num - n, (size_t)n);
}

/* One candidate of a top-N list; the word is owned (grown on demand). */
struct wc_top_entry {
    int64_t count;
    uint8_t *word;
    uint32_t len, cap;
};

/* Order of the report: count descending, then word bytes ascending (shorter prefix first). */
static int wc_before(int64_t ca, const uint8_t *wa, uint32_t la, int64_t cb, const uint8_t *wb,
                     uint32_t lb)
{
    if (ca != cb) return ca > cb;
    uint32_t m = la < lb ? la : lb;
    int c = m ? memcmp(wa, wb, m) : 0;
    return c ? c < 0 : la < lb;
}

/* Keeps the WC_TOP best (count, word) pairs seen in this partition, plus the number of lines
 * (distinct words) and the sum of counts. Emits ('T' ++ i64(-count) ++ word, "") per top entry,
 * whose key bytes sort in report order, and one ("S", i64(distinct) ++ i64(total)). */
void wc_top(cspark_iterator *it, cspark_emitter *out, cspark_task_context *tc)
{
    struct wc_top_entry top[WC_TOP] = {0};
    int used = 0;
    int64_t distinct = 0, total = 0;
    cspark_record r;
    while (cspark_iterator_next(it, &r)) {
        const uint8_t *line = r.key.ptr;
        uint32_t len = r.key.len, tab = len;
        while (tab > 0 && line[tab - 1] != '\t')
            tab--;
        if (tab == 0) continue; /* not a "word<TAB>count" line */
        int64_t count = 0;
        for (uint32_t i = tab; i < len && line[i] >= '0' && line[i] <= '9'; i++)
            count = count * 10 + (line[i] - '0');
        uint32_t wlen = tab - 1;
        distinct++;
        total += count;
        if (used == WC_TOP && !wc_before(count, line, wlen, top[used - 1].count, top[used - 1].word,
                                         top[used - 1].len))
            continue;
        /* Insert in order; the last entry falls off when full. */
        struct wc_top_entry slot = used == WC_TOP ? top[used - 1] : (struct wc_top_entry){0};
        int pos = used == WC_TOP ? used - 1 : used++;
        while (pos > 0 && wc_before(count, line, wlen, top[pos - 1].count, top[pos - 1].word,
                                    top[pos - 1].len)) {
            top[pos] = top[pos - 1];
            pos--;
        }
        if (slot.cap < wlen) {
            uint8_t *p = realloc(slot.word, wlen);
            if (!p) cspark_task_fail(tc, "wordcount: out of memory");
            slot.word = p;
            slot.cap = wlen;
        }
        if (wlen) memcpy(slot.word, line, wlen);
        slot.len = wlen;
        slot.count = count;
        top[pos] = slot;
    }
    for (int i = 0; i < used; i++) {
        uint8_t *v;
        uint8_t *k = cspark_emit_reserve(out, 9 + (size_t)top[i].len, 0, &v);
        k[0] = 'T';
        cspark_i64_encode(-top[i].count, k + 1);
        if (top[i].len) memcpy(k + 9, top[i].word, top[i].len);
        free(top[i].word);
    }
    uint8_t s[16];
    cspark_i64_encode(distinct, s);
    cspark_i64_encode(total, s + 8);
    cspark_emit(out, "S", 1, s, sizeof s);
}

static int wc_cmp_key(const void *a, const void *b)
{
    const cspark_slice *x = a, *y = b;
    uint32_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, m);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: wordcount.so INPUT OUTDIR\n");
        return 2;
    }
    const char *input = argv[1], *outdir = argv[2];

    /* Job 1: the counts, saved. */
    cspark_rdd *words = cspark_flat_map(cspark_text_file(sc, input, 0), wc_split, NULL, 0);
    cspark_rdd *counts = cspark_reduce_by_key(words, cspark_sum_i64, NULL, 0, 0);
    if (cspark_save_as_text_file(cspark_map(counts, wc_format, NULL, 0), outdir) < 0)
        return 1; /* cspark-submit prints the reason as its last line */

    /* Job 2: summary and top 10 from the saved counts. */
    size_t plen = strlen(outdir) + sizeof "/part-*";
    char *parts = malloc(plen);
    if (!parts) return 1;
    snprintf(parts, plen, "%s/part-*", outdir);
    cspark_records *rs = NULL;
    int rc =
        cspark_collect(cspark_map_partitions(cspark_text_file(sc, parts, 0), wc_top, NULL, 0), &rs);
    free(parts);
    if (rc < 0) return 1;

    size_t n = cspark_records_count(rs), ntop = 0;
    int64_t distinct = 0, total = 0;
    cspark_slice *tops = malloc((n ? n : 1) * sizeof *tops);
    if (!tops) {
        cspark_records_free(rs);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        cspark_record r = cspark_records_get(rs, i);
        if (r.key.len == 1 && r.key.ptr[0] == 'S' && r.value.len == 16) {
            distinct += cspark_i64_decode(r.value.ptr);
            total += cspark_i64_decode(r.value.ptr + 8);
        } else if (r.key.len >= 9 && r.key.ptr[0] == 'T') {
            tops[ntop++] = r.key;
        }
    }
    qsort(tops, ntop, sizeof *tops, wc_cmp_key);
    printf("%" PRId64 " distinct words, %" PRId64 " total\n", distinct, total);
    for (size_t i = 0; i < ntop && i < WC_TOP; i++)
        printf("%.*s\t%" PRId64 "\n", (int)(tops[i].len - 9), (const char *)tops[i].ptr + 9,
               -cspark_i64_decode(tops[i].ptr + 1));
    free(tops);
    cspark_records_free(rs);
    return 0;
}
