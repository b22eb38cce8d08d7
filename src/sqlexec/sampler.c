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

/* ExponentialDistribution's EXPONENTIAL_SA_QI: sum_{j=1..i} ln(2)^j / j!, as commons-math3
 * computes them (FastMath.pow over the factorials), until 1 */
static const double SA_QI[16] = {
    0x1.62e42fefa39efp-1, 0x1.dde327edaeb52p-1, 0x1.fa4e30c4b355ep-1, 0x1.ff3adba0a1e98p-1,
    0x1.ffe99f9fde3ccp-1, 0x1.fffdd0310dc38p-1, 0x1.ffffcffd0a1c1p-1, 0x1.fffffc550e636p-1,
    0x1.ffffffbf58dddp-1, 0x1.fffffffbf2c8p-1,  0x1.ffffffffc45d9p-1, 0x1.fffffffffcd54p-1,
    0x1.ffffffffffd8p-1,  0x1.fffffffffffe3p-1, 0x1.fffffffffffffp-1, 0x1.0p0};

/* ExponentialDistribution(1).sample(): Ahrens-Dieter (1972) SA */
static double exponential(cs_well19937c *rng)
{
    double a = 0, u = cs_well_next_double(rng);
    while (u < 0.5) {
        a += SA_QI[0];
        u *= 2;
    }
    u += u - 1;
    if (u <= SA_QI[0]) return a + u;
    int i = 0;
    double umin = cs_well_next_double(rng);
    do {
        ++i;
        double u2 = cs_well_next_double(rng);
        if (u2 < umin) umin = u2;
    } while (u > SA_QI[i]);
    return a + umin * SA_QI[0];
}

/* BitsStreamGenerator.nextGaussian(): Box-Muller, the second deviate kept */
static double gaussian(cs_poisson *p)
{
    if (p->have_gauss) {
        p->have_gauss = 0;
        return p->gauss;
    }
    double x = cs_well_next_double(&p->rng), y = cs_well_next_double(&p->rng);
    double alpha = 2 * 0x1.921fb54442d18p1 * x, r = sqrt(-2 * log(y));
    p->gauss = r * sin(alpha);
    p->have_gauss = 1;
    return r * cos(alpha);
}

/* CombinatoricsUtils.factorialLog(n) */
static double factorial_log(int n)
{
    if (n < 21) { /* FastMath.log(FACTORIALS[n]) */
        int64_t f = 1;
        for (int i = 2; i <= n; i++)
            f *= i;
        return log((double)f);
    }
    double sum = 0;
    for (int i = 2; i <= n; i++)
        sum += log((double)i);
    return sum;
}

void cs_poisson_init(cs_poisson *p, double mean, int64_t seed)
{
    cs_well_seed(&p->rng, seed);
    p->have_gauss = 0;
    p->mean = mean;
    p->exp_neg = exp(-mean);
    if (mean < 40.0) return;
    double lambda = floor(mean);
    p->lambda = lambda;
    p->frac = mean - lambda;
    p->log_lambda = log(lambda);
    p->log_lambda_fact = factorial_log((int)lambda);
    p->delta = sqrt(lambda * log(32 * lambda / 0x1.921fb54442d18p1 + 1));
    p->half_delta = p->delta / 2;
    p->twolpd = 2 * lambda + p->delta;
    double a1 = sqrt(0x1.921fb54442d18p1 * p->twolpd) * exp(1 / (8 * lambda));
    double a2 = (p->twolpd / p->delta) * exp(-p->delta * (1 + p->delta) / p->twolpd);
    double a_sum = a1 + a2 + 1;
    p->p1 = a1 / a_sum;
    p->p2 = a2 / a_sum;
    p->c1 = 1 / (8 * lambda);
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

/* PoissonDistribution.nextPoisson for a mean of 40 or more */
static int64_t rejection(cs_poisson *p)
{
    double lambda = p->lambda, delta = p->delta, twolpd = p->twolpd;
    int64_t y2 = p->frac < 0x1p-1074 ? 0 : knuth(&p->rng, p->frac, exp(-p->frac));
    double x = 0, y = 0, v = 0;
    for (;;) {
        double u = cs_well_next_double(&p->rng);
        if (u <= p->p1) {
            double n = gaussian(p);
            x = n * sqrt(lambda + p->half_delta) - 0.5;
            if (x > delta || x < -lambda) continue;
            y = x < 0 ? floor(x) : ceil(x);
            double e = exponential(&p->rng);
            v = -e - (n * n / 2) + p->c1;
        } else {
            if (u > p->p1 + p->p2) {
                y = lambda;
                break;
            }
            x = delta + (twolpd / delta) * exponential(&p->rng);
            y = ceil(x);
            v = -exponential(&p->rng) - delta * (x + 1) / twolpd;
        }
        int a = x < 0 ? 1 : 0;
        double t = y * (y + 1) / (2 * lambda);
        if (v < -t && a == 0) {
            y = lambda + y;
            break;
        }
        double qr = t * ((2 * y + 1) / (6 * lambda) - 1);
        double qa = qr - (t * t) / (3 * (lambda + a * (y + 1)));
        if (v < qa) {
            y = lambda + y;
            break;
        }
        if (v > qr) continue;
        if (v < y * p->log_lambda - factorial_log((int)(y + lambda)) + p->log_lambda_fact) {
            y = lambda + y;
            break;
        }
    }
    return y2 + (int64_t)y;
}

int cs_poisson_next(cs_poisson *p)
{
    int64_t n = p->mean < 40.0 ? knuth(&p->rng, p->mean, p->exp_neg) : rejection(p);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}
