/*
 * gen_graph.c — deterministic directed graphs as "src dst" edge lines, for PageRank.
 *
 * usage: gen_graph [-s SEED] [-c] NODES EDGES > FILE
 *
 * Nodes are named by their numbers 0..NODES-1. Each edge has a uniformly drawn source and a
 * destination drawn from a Zipf law (s = 1) over the nodes, so in-degrees are skewed; duplicate
 * edges and self-loops occur, as in crawled link data. The file starts with a '#' comment line
 * and, without -c, has a blank line every 1000 edges (both must be ignored by readers).
 * -c ("closed"): the first NODES edges form the cycle i -> i+1 (mod NODES), so every node has an
 * in-link and an out-link; EDGES counts them (EDGES >= NODES).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    int closed = 0, opt;
    while ((opt = getopt(argc, argv, "s:c")) != -1) {
        if (opt == 's')
            seed = strtoull(optarg, NULL, 10);
        else if (opt == 'c')
            closed = 1;
        else
            goto usage;
    }
    if (optind != argc - 2) goto usage;
    long nodes = strtol(argv[optind], NULL, 10), edges = strtol(argv[optind + 1], NULL, 10);
    if (nodes < 1 || edges < 0 || (closed && edges < nodes)) goto usage;

    double *cdf = malloc((size_t)nodes * sizeof *cdf), acc = 0;
    if (!cdf) return 1;
    for (long i = 0; i < nodes; i++)
        cdf[i] = (acc += 1.0 / (double)(i + 1));
    /* Zipf rank r is node (r * 2654435761 + 12345) % NODES (a permutation: the factor is prime),
     * so popular nodes are spread over the names. */
    uint64_t s = seed;
    printf("# gen_graph nodes=%ld edges=%ld seed=%llu%s\n", nodes, edges, (unsigned long long)seed,
           closed ? " closed" : "");
    for (long e = 0; e < edges; e++) {
        long src, dst;
        if (closed && e < nodes) {
            src = e;
            dst = (e + 1) % nodes;
        } else {
            src = (long)(splitmix64(&s) % (uint64_t)nodes);
            double u = (double)(splitmix64(&s) >> 11) * 0x1.0p-53 * acc;
            long lo = 0, hi = nodes - 1;
            while (lo < hi) {
                long mid = (lo + hi) / 2;
                if (cdf[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            dst = (long)(((uint64_t)lo * 2654435761ULL + 12345) % (uint64_t)nodes);
        }
        printf("%ld %ld\n", src, dst);
        if (!closed && e % 1000 == 999) putchar('\n');
    }
    free(cdf);
    if (fflush(stdout)) {
        perror("gen_graph: write");
        return 1;
    }
    return 0;
usage:
    fprintf(stderr, "usage: gen_graph [-s SEED] [-c] NODES EDGES > FILE\n");
    return 2;
}
