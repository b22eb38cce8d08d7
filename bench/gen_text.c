/*
 * gen_text.c — deterministic Zipf-distributed text of an exact byte size, for word count
 * benchmarks and tests.
 *
 * usage: gen_text [-s SEED] [-v VOCAB] [-m] BYTES > FILE
 *
 * Builds a vocabulary of VOCAB distinct words (default 200000; random lower-case words of 1 to 12
 * letters, drawn from SEED), then writes words whose ranks follow Zipf's law (s = 1) in lines of 5
 * to 20 words, until exactly BYTES bytes are written; the output always ends with '\n' (the last
 * word may be cut short to fit). The same arguments always give the same bytes.
 * -m ("messy") exercises word splitting: separators mix spaces, runs of spaces, tabs, \v and \f;
 * some lines end in "\r\n", some are empty or start with whitespace, and 1% of the vocabulary
 * holds non-ASCII (UTF-8) bytes and punctuation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}
static uint64_t rnd(void)
{
    return splitmix64(&rng_state);
}
static double rnd_unit(void)
{
    return (double)(rnd() >> 11) * 0x1.0p-53;
}

struct word {
    char *s;
    uint32_t len;
};

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
    return h;
}

static char outbuf[1 << 16];
static size_t outlen;
static uint64_t remaining;

static void put(const char *s, size_t n)
{
    if (outlen + n > sizeof outbuf) {
        if (fwrite(outbuf, 1, outlen, stdout) != outlen) {
            perror("gen_text: write");
            exit(1);
        }
        outlen = 0;
    }
    memcpy(outbuf + outlen, s, n);
    outlen += n;
    remaining -= n;
}

int main(int argc, char **argv)
{
    uint64_t seed = 42;
    long vocab = 200000;
    int messy = 0, opt;
    while ((opt = getopt(argc, argv, "s:v:m")) != -1) {
        switch (opt) {
        case 's':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'v':
            vocab = strtol(optarg, NULL, 10);
            break;
        case 'm':
            messy = 1;
            break;
        default:
            goto usage;
        }
    }
    if (optind != argc - 1 || vocab < 1 || vocab > 50000000) goto usage;
    char *end;
    unsigned long long bytes = strtoull(argv[optind], &end, 10);
    if (*end || end == argv[optind]) goto usage;
    remaining = bytes;
    rng_state = seed;

    /* Vocabulary: distinct random words (an open-addressing set rejects repeats). */
    struct word *words = calloc((size_t)vocab, sizeof *words);
    size_t setcap = 1;
    while (setcap < (size_t)vocab * 2)
        setcap <<= 1;
    int64_t *set = malloc(setcap * sizeof *set);
    if (!words || !set) return 1;
    memset(set, 0xff, setcap * sizeof *set);
    static const char *odd[] = {"café", "naïve", "über", "日本", "—", "don't", "x,y", "(a)", "ü"};
    for (long i = 0; i < vocab;) {
        char buf[32];
        uint32_t len = 1 + (uint32_t)(rnd() % 12);
        for (uint32_t j = 0; j < len; j++)
            buf[j] = (char)('a' + rnd() % 26);
        if (messy && rnd() % 100 == 0) {
            const char *o = odd[rnd() % (sizeof odd / sizeof *odd)];
            size_t ol = strlen(o);
            if (len + ol < sizeof buf) {
                memcpy(buf + len, o, ol);
                len += (uint32_t)ol;
            }
        }
        uint64_t h = fnv1a(buf, len);
        size_t slot = h & (setcap - 1);
        int dup = 0;
        while (set[slot] >= 0) {
            struct word *w = &words[set[slot]];
            if (w->len == len && !memcmp(w->s, buf, len)) {
                dup = 1;
                break;
            }
            slot = (slot + 1) & (setcap - 1);
        }
        if (dup) continue;
        words[i].s = malloc(len);
        memcpy(words[i].s, buf, len);
        words[i].len = len;
        set[slot] = i++;
    }
    free(set);

    /* Zipf(s = 1) cumulative distribution over ranks. */
    double *cdf = malloc((size_t)vocab * sizeof *cdf), acc = 0;
    if (!cdf) return 1;
    for (long i = 0; i < vocab; i++)
        cdf[i] = (acc += 1.0 / (double)(i + 1));
    for (long i = 0; i < vocab; i++)
        cdf[i] /= acc;

    static const char *seps[] = {" ", " ", " ", " ", "  ", "\t", " \t ", "   ", "\v", "\f"};
    int in_line = 0, line_words = 0, line_target = 0;
    while (remaining > 0) {
        if (!in_line) {
            line_target = 5 + (int)(rnd() % 16);
            line_words = 0;
            in_line = 1;
            if (messy && rnd() % 50 == 0 && remaining > 1) {
                put("\n", 1); /* an empty line */
                continue;
            }
            if (messy && rnd() % 20 == 0 && remaining > 1) put(" ", 1);
            continue;
        }
        double u = rnd_unit();
        long lo = 0, hi = vocab - 1;
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        const struct word *w = &words[lo];
        int last = ++line_words >= line_target;
        const char *sep = last ? (messy && rnd() % 10 == 0 ? "\r\n" : "\n")
                               : (messy ? seps[rnd() % (sizeof seps / sizeof *seps)] : " ");
        size_t seplen = strlen(sep);
        if ((uint64_t)w->len + seplen + 1 > remaining) {
            /* The end: cut (or pad) the last word to fit, then '\n'. */
            uint64_t room = remaining - 1;
            size_t take = room < w->len ? (size_t)room : w->len;
            put(w->s, take);
            while (remaining > 1)
                put("z", 1);
            put("\n", 1);
            break;
        }
        put(w->s, w->len);
        put(sep, seplen);
        if (last) in_line = 0;
    }
    if (outlen && fwrite(outbuf, 1, outlen, stdout) != outlen) {
        perror("gen_text: write");
        return 1;
    }
    if (fflush(stdout)) {
        perror("gen_text: write");
        return 1;
    }
    for (long i = 0; i < vocab; i++)
        free(words[i].s);
    free(words);
    free(cdf);
    return 0;
usage:
    fprintf(stderr, "usage: gen_text [-s SEED] [-v VOCAB] [-m] BYTES > FILE\n");
    return 2;
}
