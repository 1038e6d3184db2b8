/*
 * stats_compare.c - unit tests of lib/engine/fc_stats_compare.c against known
 * distributions (log-normal times: a relative noise, as a fabric's is):
 * a planted 10% slowdown is found and its interval holds it; a null shift
 * is found at no more than the stated rate over 1000 draws; the rank test
 * detects a shift of its own minimum detectable slowdown about as often as
 * the stated power says, and that slowdown shrinks with more samples; the
 * normal functions, the tie correction and Holm's step-down against hand
 * figures; the same inputs give the same bits.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_stats_compare.h"
#include "fc_tap.h"

static void draw(fc_prng_t *g, double *x, int n, double median, double sd)
{
    for (int k = 0; k < n; ++k)
        x[k] = median * exp(sd * fc_prng_normal(g));
}

int main(void)
{
    fc_tap_t tap;
    fc_prng_t g;
    fc_cmp_result_t r, r2;
    double b[256], a[256];
    int hits;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 16);
    fc_prng_seed(&g, 20261202);

    fc_tap_ok(&tap, fabs(fc_norm_quantile(0.975) - 1.959963985) < 1e-8 &&
                  fabs(fc_norm_quantile(0.05) + 1.644853627) < 1e-8 &&
                  fabs(fc_norm_cdf(1.644853627) - 0.95) < 1e-9,
              "normal quantiles and distribution: z(0.975) %.9f, z(0.05) %.9f",
              fc_norm_quantile(0.975), fc_norm_quantile(0.05));

    /* U of {4,5,6} over {1,2,3}: 9; mean 4.5; variance 3*3/12*7 = 5.25 */
    double lo3[] = { 1, 2, 3 }, hi3[] = { 4, 5, 6 }, tie[] = { 2, 2, 2 };
    fc_tap_ok(&tap, fabs(fc_mann_whitney_p(lo3, 3, hi3, 3) -
                         fc_norm_cdf(-(9 - 4.5 - 0.5) / sqrt(5.25))) < 1e-12,
              "Mann-Whitney by hand: U 9 of 9, p %.4f; every value tied: p 1",
              fc_mann_whitney_p(lo3, 3, hi3, 3));
    fc_tap_is_double(&tap, fc_mann_whitney_p(tie, 3, tie, 3), 1, 0,
                     "Mann-Whitney by hand: U 9 of 9, p %.4f; every value tied: p 1"
                     " [fc_mann_whitney_p(tie, 3, tie, 3)]", fc_mann_whitney_p(lo3, 3, hi3, 3));
    /* ties: {1,2,2} vs {2,2,3}: ranks 1, 3.5 x4, 6; U_a = 13 - 6 = 7;
     * variance 9/12 x (7 - 60/30) = 3.75 */
    double tb[] = { 1, 2, 2 }, ta[] = { 2, 2, 3 };
    fc_tap_ok(&tap, fabs(fc_mann_whitney_p(tb, 3, ta, 3) -
                         fc_norm_cdf(-(7 - 4.5 - 0.5) / sqrt(3.75))) < 1e-12,
              "the tie correction shrinks the variance (3.75, not 5.25)");

    /* a planted 10% slowdown, 5% noise, 64 samples a side */
    int found = 0, covered = 0;
    double worst_lo = 10;
    for (int d = 0; d < 200; ++d) {
        draw(&g, b, 64, 100, 0.05);
        draw(&g, a, 64, 110, 0.05);
        fc_cmp_samples(b, 64, a, 64, 0.05, 0.8, (uint64_t)d, &r);
        found += r.p < 0.05 && r.ci_lo > 1;
        covered += r.ci_lo <= 1.1 && 1.1 <= r.ci_hi;
        worst_lo = fmin(worst_lo, r.ci_lo);
    }
    fc_tap_ok(&tap, found >= 198, "a planted 10%% slowdown (5%% noise, 64 a side) is found "
              "by the test and the interval in %d of 200 draws", found);
    fc_tap_ok(&tap, covered >= 180 && covered <= 198, "the 95%% bootstrap interval holds the "
              "true ratio 1.10 in %d of 200 draws (90-99%% expected)", covered);

    /* a null shift: 1000 draws at 5% */
    hits = 0;
    for (int d = 0; d < 1000; ++d) {
        draw(&g, b, 30, 100, 0.05);
        draw(&g, a, 30, 100, 0.05);
        hits += fc_mann_whitney_p(b, 30, a, 30) < 0.05;
    }
    fc_tap_ok(&tap, hits >= 20 && hits <= 80, "no shift: the rank test at 5%% says slower "
              "in %d of 1000 draws (20-80 expected)", hits);
    hits = 0;
    for (int d = 0; d < 200; ++d) {
        draw(&g, b, 30, 100, 0.05);
        draw(&g, a, 30, 100, 0.05);
        fc_cmp_samples(b, 30, a, 30, 0.05, 0.8, (uint64_t)d, &r);
        hits += r.ci_lo > 1;
    }
    fc_tap_ok(&tap, hits <= 12, "no shift: the interval lies above 1 in %d of 200 draws "
              "(about 2.5%% expected)", hits);

    /* the minimum detectable slowdown is honest: a shift of that size is
     * found about as often as the power says (80%) */
    double mds = fc_cmp_mds(0.05, 64, 64, 0.05, 0.8);
    hits = 0;
    for (int d = 0; d < 1000; ++d) {
        draw(&g, b, 64, 100, 0.05);
        draw(&g, a, 64, 100 * (1 + mds), 0.05);
        hits += fc_mann_whitney_p(b, 64, a, 64) < 0.05;
    }
    fc_tap_ok(&tap, hits >= 740 && hits <= 860, "a shift of the minimum detectable "
              "slowdown (%.2f%% at 5%% noise, 64 a side) is found in %d of 1000 draws "
              "(power 80%%)", 100 * mds, hits);
    fc_tap_ok(&tap, fabs(mds - expm1((1.644853627 + 0.841621234) * 0.05 * sqrt(2.0 / 64) /
                                     sqrt(3 / M_PI))) < 1e-8,
              "the formula: exp((z(0.95) + z(0.8)) s sqrt(2/64) / sqrt(3/pi)) - 1");
    double m8 = fc_cmp_mds(0.05, 8, 8, 0.05, 0.8), m32 = fc_cmp_mds(0.05, 32, 32, 0.05, 0.8);
    fc_tap_ok(&tap, m8 > m32 && m32 > mds && m8 / mds > 2.5 && m8 / mds < 3.2,
              "more samples, a smaller detectable slowdown: 8 a side %.1f%%, 32 %.1f%%, "
              "64 %.1f%%", 100 * m8, 100 * m32, 100 * mds);

    /* robust noise: one stalled iteration does not inflate it */
    draw(&g, b, 64, 100, 0.05);
    double sd = fc_robust_sd_log(b, 64);
    b[10] = 1e6;
    fc_tap_ok(&tap, fabs(fc_robust_sd_log(b, 64) - sd) < 0.2 * sd && sd > 0.03 && sd < 0.07,
              "robust noise %.4f (true 0.05), %.4f with one iteration 10000 times slower",
              sd, fc_robust_sd_log(b, 64));

    /* the same inputs give the same bits; too few samples: no test */
    draw(&g, a, 40, 105, 0.05);
    fc_cmp_samples(b, 64, a, 40, 0.05, 0.8, 7, &r);
    fc_cmp_samples(b, 64, a, 40, 0.05, 0.8, 7, &r2);
    fc_tap_ok(&tap, memcmp(&r, &r2, sizeof(r)) == 0,
              "deterministic (ratio %.4f, CI %.4f-%.4f twice the same); 2 samples: no test",
              r.ratio, r.ci_lo, r.ci_hi);
    fc_tap_is_int(&tap, fc_cmp_samples(b, 2, a, 40, 0.05, 0.8, 7, &r2), -1,
                  "deterministic (ratio %.4f, CI %.4f-%.4f twice the same); 2 samples: no test"
                  " [fc_cmp_samples(b, 2, a, 40, 0.05, 0.8, 7, &r2)]", r.ratio, r.ci_lo, r.ci_hi);
    fc_tap_is_int(&tap, fc_cmp_samples(b, 64, tie, 3, 0.05, 0.8, 7, &r2), 0,
                  "deterministic (ratio %.4f, CI %.4f-%.4f twice the same); 2 samples: no test"
                  " [fc_cmp_samples(b, 64, tie, 3, 0.05, 0.8, 7, &r2)]", r.ratio, r.ci_lo, r.ci_hi);

    double p[] = { 0.01, 0.04, 0.03, 0.5, 0.012 };
    int rej[5];
    fc_holm(p, 5, 0.05, rej);
    fc_tap_ok(&tap, rej[0] && rej[4] && !rej[1] && !rej[2] && !rej[3],
              "Holm: 0.01 <= 0.05/5, 0.012 <= 0.05/4, then 0.03 > 0.05/3 stops it");
    return fc_tap_done(&tap);
}
