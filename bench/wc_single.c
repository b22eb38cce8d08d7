/*
 * wc_single.c — the single-threaded C peer of the word count benchmark.
 *
 * usage: wc_single INPUT [OUTPUT]
 *
 * The same job as examples/wordcount.c without any framework: mmap the file, split it into
 * words (maximal runs of bytes that are not ASCII whitespace: space \t \n \r \v \f), count them
 * in an open-addressing hash table (XXH3) whose keys point into the mapping, then write
 * "word<TAB>count" lines to OUTPUT (when given) and print, like the example,
 *     N distinct words, M total
 * and the 10 most frequent words (count descending, then bytes ascending).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

struct entry {
    uint64_t hash;
    const uint8_t *word; /* NULL: empty slot */
    uint32_t len;
    int64_t count;
};

static struct entry *table;
static size_t cap, used;

static void grow(void)
{
    size_t ncap = cap ? cap * 2 : 1 << 16;
    struct entry *nt = calloc(ncap, sizeof *nt);
    if (!nt) {
        fprintf(stderr, "wc_single: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < cap; i++) {
        if (!table[i].word) continue;
        size_t j = table[i].hash & (ncap - 1);
        while (nt[j].word)
            j = (j + 1) & (ncap - 1);
        nt[j] = table[i];
    }
    free(table);
    table = nt;
    cap = ncap;
}

static inline void add(const uint8_t *w, uint32_t len)
{
    uint64_t h = XXH3_64bits(w, len);
    size_t j = h & (cap - 1);
    for (;;) {
        struct entry *e = &table[j];
        if (!e->word) {
            e->hash = h;
            e->word = w;
            e->len = len;
            e->count = 1;
            if (++used * 2 > cap) grow();
            return;
        }
        if (e->hash == h && e->len == len && !memcmp(e->word, w, len)) {
            e->count++;
            return;
        }
        j = (j + 1) & (cap - 1);
    }
}

static int before(const struct entry *a, const struct entry *b)
{
    if (a->count != b->count) return a->count > b->count;
    uint32_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->word, b->word, m);
    return c ? c < 0 : a->len < b->len;
}

int main(int argc, char **argv)
{
    static const uint8_t space[256] = {
        [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\v'] = 1, ['\f'] = 1};
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: wc_single INPUT [OUTPUT]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        perror(argv[1]);
        return 1;
    }
    size_t size = (size_t)st.st_size;
    const uint8_t *data = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (size && data == MAP_FAILED) {
        perror("wc_single: mmap");
        return 1;
    }
    if (size) madvise((void *)data, size, MADV_SEQUENTIAL);
    grow();
    int64_t total = 0;
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        while (p < end && space[*p])
            p++;
        const uint8_t *w = p;
        while (p < end && !space[*p])
            p++;
        if (p > w) {
            add(w, (uint32_t)(p - w));
            total++;
        }
    }

    struct entry top[10];
    int ntop = 0;
    FILE *out = NULL;
    if (argc == 3 && !(out = fopen(argv[2], "w"))) {
        perror(argv[2]);
        return 1;
    }
    for (size_t i = 0; i < cap; i++) {
        const struct entry *e = &table[i];
        if (!e->word) continue;
        if (out) {
            fwrite(e->word, 1, e->len, out);
            fprintf(out, "\t%" PRId64 "\n", e->count);
        }
        if (ntop == 10 && !before(e, &top[9])) continue;
        int pos = ntop < 10 ? ntop++ : 9;
        while (pos > 0 && before(e, &top[pos - 1])) {
            top[pos] = top[pos - 1];
            pos--;
        }
        top[pos] = *e;
    }
    if (out && fclose(out)) {
        perror(argv[2]);
        return 1;
    }
    printf("%zu distinct words, %" PRId64 " total\n", used, total);
    for (int i = 0; i < ntop; i++)
        printf("%.*s\t%" PRId64 "\n", (int)top[i].len, (const char *)top[i].word, top[i].count);
    return 0;
}
