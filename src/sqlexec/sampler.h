/*
 * sampler.h — the random state machines of Spark's sampling with replacement (SampleExec over a
 * PoissonSampler), so that cspark draws Spark's counts for a seed:
 *  - java.util.Random's nextLong sequence, which gives each partition its sampler's seed (Spark
 *    takes the (i + 1)-th nextLong of new Random(seed) for partition i);
 *  - commons-math3's Well19937c (the generator of its PoissonDistribution), seeded by
 *    setSeed(long), and its nextDouble;
 *  - PoissonDistribution.sample() over it, draw for draw commons-math3's: for a mean under 40
 *    Knuth's product of uniforms against exp(-mean); for a larger mean its rejection method
 *    (Box-Muller Gaussians, Ahrens-Dieter exponentials, log-factorials) plus a count of the
 *    mean's fraction.
 *
 * Used by op_sample.c; plain values, no allocation. Ownership: the caller's structs.
 */
#ifndef CSPARK_SQLEXEC_SAMPLER_H
#define CSPARK_SQLEXEC_SAMPLER_H

#include <stdint.h>

/* The n-th (n >= 1) nextLong() of java.util.Random(seed). */
int64_t cs_java_random_nth_long(int64_t seed, int64_t n);

typedef struct cs_well19937c {
    uint32_t v[624];
    int index;
} cs_well19937c;

/* Well19937c.setSeed(long) */
void cs_well_seed(cs_well19937c *w, int64_t seed);
/* BitsStreamGenerator.nextDouble(): 52 random bits (two next(26)) in [0, 1) */
double cs_well_next_double(cs_well19937c *w);

/* A PoissonSampler's draws: a PoissonDistribution of mean (> 0) over a Well19937c. A mean of 40
 * or more takes commons-math3's rejection method (its constants below, computed once). */
typedef struct cs_poisson {
    cs_well19937c rng;
    double mean;
    double exp_neg; /* exp(-mean), a mean under 40 */
    double gauss;   /* BitsStreamGenerator's second Gaussian deviate */
    int have_gauss;
    double lambda, frac, log_lambda; /* a mean of 40 or more: floor(mean), mean - lambda */
    double log_lambda_fact, delta, half_delta, twolpd, p1, p2, c1;
} cs_poisson;

/* new PoissonDistribution(mean) then reseedRandomGenerator(seed). */
void cs_poisson_init(cs_poisson *p, double mean, int64_t seed);
/* PoissonDistribution.sample(): the next count. */
int cs_poisson_next(cs_poisson *p);

#endif /* CSPARK_SQLEXEC_SAMPLER_H */
