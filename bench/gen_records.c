/*
 * gen_records.c — deterministic gensort-like records for sort benchmarks and tests.
 *
 * usage: gen_records [-s SEED] COUNT > FILE
 *
 * Writes exactly COUNT records of 100 bytes each: a 10-byte random key of printable ASCII
 * (' ' to '~', as gensort -a), two spaces, the record number as 32 upper-case hex digits, two
 * spaces, 53 filler letters derived from the record number, and '\n'. Every line is distinct
 * (it contains its record number), so a sorted output can be checked to be a permutation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
    uint64_t seed = 42;
    int opt;
    while ((opt = getopt(argc, argv, "s:")) != -1) {
        if (opt == 's')
            seed = strtoull(optarg, NULL, 10);
        else
            goto usage;
    }
    if (optind != argc - 1) goto usage;
    char *end;
    unsigned long long count = strtoull(argv[optind], &end, 10);
    if (*end || end == argv[optind]) goto usage;

    static char buf[100 * 1024];
    size_t used = 0;
    uint64_t s = seed;
    static const char hex[] = "0123456789ABCDEF";
    for (unsigned long long i = 0; i < count; i++) {
        char *r = buf + used;
        uint64_t a = splitmix64(&s), b = splitmix64(&s);
        for (int j = 0; j < 10; j++) {
            uint64_t *src = j < 5 ? &a : &b;
            r[j] = (char)(' ' + *src % 95);
            *src /= 95;
        }
        r[10] = r[11] = ' ';
        unsigned long long n = i;
        for (int j = 43; j >= 12; j--, n >>= 4)
            r[j] = hex[n & 15];
        r[44] = r[45] = ' ';
        for (int j = 46; j < 99; j++)
            r[j] = (char)('A' + (i + (unsigned long long)j) % 26);
        r[99] = '\n';
        used += 100;
        if (used == sizeof buf) {
            if (fwrite(buf, 1, used, stdout) != used) goto werr;
            used = 0;
        }
    }
    if (used && fwrite(buf, 1, used, stdout) != used) goto werr;
    if (fflush(stdout)) goto werr;
    return 0;
werr:
    perror("gen_records: write");
    return 1;
usage:
    fprintf(stderr, "usage: gen_records [-s SEED] COUNT > FILE\n");
    return 2;
}
