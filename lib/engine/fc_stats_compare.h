/*
 * fc_stats_compare.h - is one set of per-iteration times slower than
 * another beyond the noise, and how small a slowdown could the two have
 * shown? The statistics behind `fabcert compare`, `fabcert baseline` and
 * the sensitivity of every judged point; MPI-free, deterministic (the
 * same inputs and seed give the same figures, bit for bit).
 *
 *  - Ratio of medians (AFTER / BEFORE, of times: above 1 is slower) with
 *    a percentile bootstrap confidence interval (Efron & Tibshirani, An
 *    Introduction to the Bootstrap, 1993, ch. 13): each side resampled
 *    with replacement FC_CMP_BOOT times by a fixed-seed xoshiro256**
 *    generator, the interval the alpha/2 and 1 - alpha/2 quantiles of the
 *    resampled ratios (nearest rank).
 *  - The Mann-Whitney U test (Mann & Whitney 1947), one-sided (AFTER
 *    stochastically larger), by the normal approximation with the tie
 *    correction of the variance, sigma^2 = nb na / 12 x ((N + 1) -
 *    sum(t^3 - t) / (N (N - 1))), and a continuity correction of 0.5
 *    (Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed.,
 *    1999, sec. 4.1).
 *  - The minimum detectable slowdown: the standard two-sample power
 *    calculation on log-times (e.g. Chow, Shao & Wang, Sample Size
 *    Calculations in Clinical Research, 2nd ed., 2008, sec. 3.2), a shift
 *    delta = (z(1-alpha) + z(power)) x s x sqrt(1/nb + 1/na), widened by
 *    the rank test's asymptotic relative efficiency against the t test
 *    under normal noise, 3/pi (Noether, JASA 82:645, 1987): delta /
 *    sqrt(3/pi); the slowdown is exp(delta) - 1. s is the pooled robust
 *    standard deviation of the two sides' log-times (1.4826 x the median
 *    absolute deviation, so one stalled iteration does not inflate it).
 */
#ifndef FC_STATS_COMPARE_H
#define FC_STATS_COMPARE_H

#include <stdint.h>

#define FC_CMP_BOOT 2000        /* bootstrap resamples */
#define FC_CMP_MIN_SAMPLES 3    /* fewer on either side: no test */
/* The least noise a comparison assumes: samples kept to 3 significant
 * digits (fc_samples.h) are exact to 0.05%-0.5% of their value, so noise
 * below that (a MAD of 0: more than half the samples alike) is their
 * rounding, not a quiet fabric, and must not claim a 0% detectable
 * slowdown. */
#define FC_CMP_MIN_NOISE 0.005

/* xoshiro256** (Blackman & Vigna), seeded through splitmix64. */
typedef struct fc_prng {
    uint64_t s[4];
} fc_prng_t;

void fc_prng_seed(fc_prng_t *g, uint64_t seed);
uint64_t fc_prng_next(fc_prng_t *g);
/* Uniform on [0, 1) with 53 random bits; an index below n. */
double fc_prng_unit(fc_prng_t *g);
uint32_t fc_prng_below(fc_prng_t *g, uint32_t n);
/* A standard normal deviate (Box-Muller; for the tests' known
 * distributions). */
double fc_prng_normal(fc_prng_t *g);

/* The standard normal distribution function and its inverse (Acklam's
 * rational approximation refined by one Halley step: relative error below
 * 1e-9 over (0, 1)). */
double fc_norm_cdf(double z);
double fc_norm_quantile(double p);

/* 1.4826 x the median absolute deviation of log(x), n >= 1 (0 for one
 * value): a robust standard deviation of relative noise (0.05 is about
 * 5%). Values must be positive. */
double fc_robust_sd_log(const double *x, int n);

/* The smallest slowdown (a fraction: 0.04 is 4%) that the rank test at
 * one-sided level alpha detects with the given power between samples of
 * nb and na values whose log-times have standard deviation s. */
double fc_cmp_mds(double s, int nb, int na, double alpha, double power);

typedef struct fc_cmp_result {
    int nb, na;                 /* samples on each side */
    double median_b, median_a;  /* of each side, in the samples' unit */
    double ratio;               /* median_a / median_b: > 1 is slower */
    double ci_lo, ci_hi;        /* bootstrap interval of ratio at 1 - alpha */
    double u;                   /* Mann-Whitney U of AFTER over BEFORE */
    double z;                   /* its normal approximation */
    double p;                   /* one-sided: AFTER slower */
    double noise;               /* pooled robust sd of the log-times, at
                                 * least FC_CMP_MIN_NOISE */
    double mds;                 /* fc_cmp_mds at alpha, power */
} fc_cmp_result_t;

/* Compare AFTER with BEFORE (times, positive). alpha is the one-sided
 * level of the test and 1 - alpha the interval's confidence; seed drives
 * the bootstrap. Returns 0, or -1 when a side has fewer than
 * FC_CMP_MIN_SAMPLES values or a value that is not positive (*r_p then
 * holds the counts and zeros). */
int fc_cmp_samples(const double *before, int nb, const double *after, int na, double alpha,
                   double power, uint64_t seed, fc_cmp_result_t *r_p);

/* The Mann-Whitney test alone (what fc_cmp_samples reports as u, z, p):
 * the one-sided p-value that AFTER is stochastically larger. */
double fc_mann_whitney_p(const double *before, int nb, const double *after, int na);

/* Holm's step-down (Holm, Scand. J. Statist. 6:65, 1979) over m p-values:
 * reject[k] is 1 when p[k] is rejected at family-wise level alpha. */
void fc_holm(const double *p, int m, double alpha, int *reject);

#endif
