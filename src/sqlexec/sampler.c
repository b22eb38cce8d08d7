/*
 * sampler.c — java.util.Random's nextLong, commons-math3's Well19937c and PoissonDistribution's
 * sample() (sampler.h), written from their published algorithms: Spark's PoissonSampler draws a
 * row's count of copies from these, so cspark keeps Spark's counts for a seed and a partition.
 *
 * Ownership: none (the caller's structs).
 */
#include "sqlexec/sampler.h"

#include <math.h>

#define JR_MULT 0x5DEECE66DULL
#define JR_MASK ((1ULL << 48) - 1)

/* java.util.Random.next(32) as the int Java returns */
static int32_t jr_next32(uint64_t *s)
{
    *s = (*s * JR_MULT + 0xBULL) & JR_MASK;
    return (int32_t)(uint32_t)(*s >> 16);
}

int64_t cs_java_random_nth_long(int64_t seed, int64_t n)
{
    uint64_t s = ((uint64_t)seed ^ JR_MULT) & JR_MASK;
    uint64_t v = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t hi = jr_next32(&s), lo = jr_next32(&s);
        v = ((uint64_t)(int64_t)hi << 32) + (uint64_t)(int64_t)lo; /* Java's long arithmetic */
    }
    return (int64_t)v;
}

enum { WELL_R = 624, WELL_M1 = 70, WELL_M2 = 179, WELL_M3 = 449 };

void cs_well_seed(cs_well19937c *w, int64_t seed)
{
    w->v[0] = (uint32_t)((uint64_t)seed >> 32);
    w->v[1] = (uint32_t)seed;
    for (int i = 2; i < WELL_R; i++) {
        /* (int) ((1812433253L * (l ^ (l >> 30)) + i) & 0xffffffffL), l the sign-extended int:
         * the low 32 bits see an arithmetic shift of the int */
        int32_t l = (int32_t)w->v[i - 2];
        uint32_t x = (uint32_t)l ^ (uint32_t)(l >> 30);
        w->v[i] = 1812433253u * x + (uint32_t)i;
    }
    w->index = 0;
}

/* Well19937c.next(bits), Matsumoto-Kurita tempered */
static uint32_t well_next(cs_well19937c *w, int bits)
{
    uint32_t *v = w->v;
    int i = w->index;
    int rm1 = (i + WELL_R - 1) % WELL_R, rm2 = (i + WELL_R - 2) % WELL_R;
    uint32_t v0 = v[i], vm1 = v[(i + WELL_M1) % WELL_R], vm2 = v[(i + WELL_M2) % WELL_R],
             vm3 = v[(i + WELL_M3) % WELL_R];
    uint32_t z0 = (0x80000000u & v[rm1]) ^ (0x7FFFFFFFu & v[rm2]);
    uint32_t z1 = (v0 ^ (v0 << 25)) ^ (vm1 ^ (vm1 >> 27));
    uint32_t z2 = (vm2 >> 9) ^ (vm3 ^ (vm3 >> 1));
    uint32_t z3 = z1 ^ z2;
    uint32_t z4 = z0 ^ (z1 ^ (z1 << 9)) ^ (z2 ^ (z2 << 21)) ^ (z3 ^ (z3 >> 21));
    v[i] = z3;
    v[rm1] = z4;
    v[rm2] &= 0x80000000u;
    w->index = rm1;
    z4 ^= (z4 << 7) & 0xe46e1700u;
    z4 ^= (z4 << 15) & 0x9b868000u;
    return z4 >> (32 - bits);
}

double cs_well_next_double(cs_well19937c *w)
{
    uint64_t high = (uint64_t)well_next(w, 26) << 26;
    uint64_t low = well_next(w, 26);
    return (double)(high | low) * 0x1.0p-52;
}

void cs_poisson_init(cs_poisson *p, double mean, int64_t seed)
{
    cs_well_seed(&p->rng, seed);
    p->mean = mean;
    /* commons-math3 turns to a rejection method at 40 (other draws than these): a sum of
     * independent Poisson counts whose means add up to the mean has the same distribution */
    p->parts = mean < 40.0 ? 1 : (int)ceil(mean / 39.0);
    p->part = p->parts == 1 ? mean : mean / p->parts;
    p->exp_neg = exp(-p->part);
}

/* PoissonDistribution.nextPoisson for a mean under 40 (exp_neg = exp(-mean)) */
static int64_t knuth(cs_well19937c *rng, double mean, double exp_neg)
{
    int64_t n = 0;
    double r = 1.0;
    while ((double)n < 1000 * mean) {
        r *= cs_well_next_double(rng);
        if (r < exp_neg) return n;
        n++;
    }
    return n;
}

int cs_poisson_next(cs_poisson *p)
{
    int64_t n = 0;
    for (int k = 0; k < p->parts; k++)
        n += knuth(&p->rng, p->part, p->exp_neg);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}
