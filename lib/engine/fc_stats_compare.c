/*
 * fc_stats_compare.c - see fc_stats_compare.h. Everything here is plain
 * arithmetic on copies of the inputs in a fixed order, so the same inputs
 * give the same bits on every run: the bootstrap's generator is seeded by
 * the caller, and sorting breaks no tie by address.
 */
#include "fc_stats_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

static uint64_t fc_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void fc_prng_seed(fc_prng_t *g, uint64_t seed)
{
    for (int k = 0; k < 4; ++k)
        g->s[k] = fc_splitmix64(&seed);
}

static uint64_t fc_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t fc_prng_next(fc_prng_t *g)
{
    uint64_t *s = g->s, result = fc_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = fc_rotl(s[3], 45);
    return result;
}

double fc_prng_unit(fc_prng_t *g)
{
    return (double)(fc_prng_next(g) >> 11) * 0x1.0p-53;
}

uint32_t fc_prng_below(fc_prng_t *g, uint32_t n)
{
    /* Lemire's multiply-shift; the bias (n / 2^32) is far below the
     * bootstrap's own resolution */
    return (uint32_t)(((fc_prng_next(g) >> 32) * (uint64_t)n) >> 32);
}

double fc_prng_normal(fc_prng_t *g)
{
    double u1 = fc_prng_unit(g), u2 = fc_prng_unit(g);

    return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

double fc_norm_cdf(double z)
{
    return 0.5 * erfc(-z / M_SQRT2);
}

double fc_norm_quantile(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00 };
    double q, r, x, e, u;

    if (!(p > 0))
        return -INFINITY;
    if (!(p < 1))
        return INFINITY;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    e = fc_norm_cdf(x) - p;         /* one Halley step */
    u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

static int fc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double fc_median_sorted(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Median of n values, sorting them in place. */
static double fc_median_inplace(double *x, int n)
{
    qsort(x, (size_t)n, sizeof(*x), fc_cmp_double);
    return fc_median_sorted(x, n);
}

/* The k-th smallest of n values (0-based), reordering them (Hoare's
 * selection, middle pivot: deterministic). */
static double fc_select(double *x, int n, int k)
{
    int lo = 0, hi = n - 1;

    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;

        while (i <= j) {
            while (x[i] < pivot)
                ++i;
            while (x[j] > pivot)
                --j;
            if (i <= j) {
                double t = x[i];

                x[i++] = x[j];
                x[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return x[k];
}

/* Median of n values, reordering them: the mean of the two middle ones
 * for n even, as fc_stats_median. */
static double fc_median_select(double *x, int n)
{
    double hi = fc_select(x, n, n / 2), lo = hi;

    if (n % 2 == 0) {
        lo = x[0];
        for (int k = 1; k < n / 2; ++k)   /* the largest below the middle */
            lo = x[k] > lo ? x[k] : lo;
    }
    return 0.5 * (lo + hi);
}

double fc_robust_sd_log(const double *x, int n)
{
    double *l, m, sd;

    if (n < 2)
        return 0;
    l = fc_xcalloc((size_t)n, sizeof(*l), "the log-times of a sample");
    for (int k = 0; k < n; ++k)
        l[k] = log(x[k]);
    m = fc_median_inplace(l, n);
    for (int k = 0; k < n; ++k)
        l[k] = fabs(l[k] - m);
    sd = 1.4826 * fc_median_inplace(l, n);
    free(l);
    return sd;
}

double fc_cmp_mds(double s, int nb, int na, double alpha, double power)
{
    double delta;

    if (nb < 1 || na < 1)
        return INFINITY;
    delta = (fc_norm_quantile(1 - alpha) + fc_norm_quantile(power)) * s *
            sqrt(1.0 / nb + 1.0 / na) / sqrt(3.0 / M_PI);
    return expm1(delta);
}

/* Mann-Whitney U of a over b (midranks for ties), its tie-corrected normal
 * approximation with continuity correction, and the one-sided p-value
 * that a is stochastically larger. Each value is sorted with its side
 * (AFTER: 1) so that the ranks AFTER holds are summed in one pass. */
typedef struct fc_ranked {
    double v;
    int after;
} fc_ranked_t;

static int fc_cmp_ranked(const void *x, const void *y)
{
    const fc_ranked_t *a = x, *b = y;

    return (a->v > b->v) - (a->v < b->v);
}

static void fc_mann_whitney(const double *b, int nb, const double *a, int na,
                            fc_cmp_result_t *r)
{
    int n = nb + na;
    fc_ranked_t *v = fc_xcalloc((size_t)n, sizeof(*v), "the Mann-Whitney ranks");
    double ra = 0, ties = 0, mu, var;

    r->u = r->z = 0;
    r->p = 1;
    for (int k = 0; k < nb; ++k)
        v[k] = (fc_ranked_t){ b[k], 0 };
    for (int k = 0; k < na; ++k)
        v[nb + k] = (fc_ranked_t){ a[k], 1 };
    qsort(v, (size_t)n, sizeof(*v), fc_cmp_ranked);
    for (int i = 0; i < n;) {
        int j = i, in_a = 0;

        for (; j < n && v[j].v == v[i].v; ++j)
            in_a += v[j].after;
        ra += in_a * (i + 1 + j) / 2.0;     /* the midrank of slots i+1 .. j */
        ties += pow(j - i, 3) - (j - i);
        i = j;
    }
    free(v);
    r->u = ra - na * (na + 1) / 2.0;
    mu = nb * (double)na / 2.0;
    var = nb * (double)na / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
    if (var > 0) {          /* every value tied: no evidence either way */
        double d = r->u - mu;

        d = d > 0.5 ? d - 0.5 : d < -0.5 ? d + 0.5 : 0;
        r->z = d / sqrt(var);
        r->p = fc_norm_cdf(-r->z);
    }
}

double fc_mann_whitney_p(const double *before, int nb, const double *after, int na)
{
    fc_cmp_result_t r;

    memset(&r, 0, sizeof(r));
    fc_mann_whitney(before, nb, after, na, &r);
    return r.p;
}

int fc_cmp_samples(const double *before, int nb, const double *after, int na, double alpha,
                   double power, uint64_t seed, fc_cmp_result_t *r_p)
{
    double *sb, *sa, *ratios, *rb, *ra, lb, la;
    fc_prng_t g;
    int ok = nb >= FC_CMP_MIN_SAMPLES && na >= FC_CMP_MIN_SAMPLES, lo, hi;

    memset(r_p, 0, sizeof(*r_p));
    r_p->nb = nb;
    r_p->na = na;
    r_p->p = 1;
    for (int k = 0; ok && k < nb; ++k)
        ok = before[k] > 0 && isfinite(before[k]);
    for (int k = 0; ok && k < na; ++k)
        ok = after[k] > 0 && isfinite(after[k]);
    if (!ok)
        return -1;
    sb = fc_xcalloc((size_t)nb, sizeof(*sb), "the before sample's copy");
    sa = fc_xcalloc((size_t)na, sizeof(*sa), "the after sample's copy");
    rb = fc_xcalloc((size_t)nb, sizeof(*rb), "the before sample's resample");
    ra = fc_xcalloc((size_t)na, sizeof(*ra), "the after sample's resample");
    ratios = fc_xcalloc(FC_CMP_BOOT, sizeof(*ratios), "the bootstrap's ratios");
    memcpy(sb, before, (size_t)nb * sizeof(*sb));
    memcpy(sa, after, (size_t)na * sizeof(*sa));
    r_p->median_b = fc_median_inplace(sb, nb);
    r_p->median_a = fc_median_inplace(sa, na);
    r_p->ratio = r_p->median_a / r_p->median_b;
    fc_prng_seed(&g, seed);
    for (int i = 0; i < FC_CMP_BOOT; ++i) {
        for (int k = 0; k < nb; ++k)
            rb[k] = sb[fc_prng_below(&g, (uint32_t)nb)];
        for (int k = 0; k < na; ++k)
            ra[k] = sa[fc_prng_below(&g, (uint32_t)na)];
        ratios[i] = fc_median_select(ra, na) / fc_median_select(rb, nb);
    }
    qsort(ratios, FC_CMP_BOOT, sizeof(*ratios), fc_cmp_double);
    lo = (int)floor(FC_CMP_BOOT * alpha / 2);
    hi = (int)ceil(FC_CMP_BOOT * (1 - alpha / 2)) - 1;
    r_p->ci_lo = ratios[lo < 0 ? 0 : lo];
    r_p->ci_hi = ratios[hi >= FC_CMP_BOOT ? FC_CMP_BOOT - 1 : hi];
    fc_mann_whitney(before, nb, after, na, r_p);
    lb = fc_robust_sd_log(before, nb);
    la = fc_robust_sd_log(after, na);
    r_p->noise = sqrt(((nb - 1) * lb * lb + (na - 1) * la * la) / (nb + na - 2));
    if (r_p->noise < FC_CMP_MIN_NOISE)      /* the samples resolve no finer */
        r_p->noise = FC_CMP_MIN_NOISE;
    r_p->mds = fc_cmp_mds(r_p->noise, nb, na, alpha, power);
    free(sb), free(sa), free(rb), free(ra), free(ratios);
    return 0;
}

typedef struct fc_pidx {
    double p;
    int k;
} fc_pidx_t;

/* by p, ties by index: the same order on every run */
static int fc_cmp_pidx(const void *x, const void *y)
{
    const fc_pidx_t *a = x, *b = y;

    return a->p < b->p ? -1 : a->p > b->p ? 1 : (a->k > b->k) - (a->k < b->k);
}

void fc_holm(const double *p, int m, double alpha, int *reject)
{
    fc_pidx_t *order = fc_xcalloc((size_t)(m > 0 ? m : 1), sizeof(*order),
                                  "the Holm step-down's order");

    for (int k = 0; k < m; ++k)
        reject[k] = 0;
    for (int k = 0; k < m; ++k)
        order[k] = (fc_pidx_t){ isnan(p[k]) ? 1 : p[k], k };
    qsort(order, (size_t)(m > 0 ? m : 1), sizeof(*order), fc_cmp_pidx);
    for (int i = 0; i < m && order[i].p <= alpha / (m - i); ++i)
        reject[order[i].k] = 1;
    free(order);
}
