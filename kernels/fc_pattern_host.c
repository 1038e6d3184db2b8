/*
 * fc_pattern_host.c - see fc_pattern_host.h. The exactness argument for each
 * op is in fc_pattern.h; this file only picks the numbers that make it hold:
 *  - sum: every partial sum is bounded by K * max|v|; we keep that below
 *    2^exact_bits by giving each value at most cap = 2^exact_bits / n.
 *  - prod: at most prod_ecap factors of 2 times one odd g <= g_mask.
 *  - min/max: no rounding is possible; values just stay exact in the type.
 */
#include "fc_pattern_host.h"

#include <string.h>

static const fc_dtype_info_t fc_dtype_table[FC_DTYPE_COUNT] = {
    [FC_INT32]    = { "int32",    4, 1, 30 },
    [FC_INT64]    = { "int64",    8, 1, 52 },
    [FC_UINT8]    = { "uint8",    1, 0, 8 },
    [FC_FLOAT32]  = { "float32",  4, 1, 24 },
    [FC_FLOAT64]  = { "float64",  8, 1, 53 },
    [FC_FLOAT16]  = { "float16",  2, 1, 11 },
    [FC_BFLOAT16] = { "bfloat16", 2, 1, 8 },
};

static const char *const fc_op_names[FC_OP_COUNT] = {
    [FC_OP_SUM] = "sum", [FC_OP_PROD] = "prod", [FC_OP_MIN] = "min",
    [FC_OP_MAX] = "max", [FC_OP_NONE] = "none",
};

const fc_dtype_info_t *fc_dtype_info(fc_dtype_t dtype)
{
    return &fc_dtype_table[dtype];
}

const char *fc_op_name(fc_op_t op)
{
    return fc_op_names[op];
}

int fc_dtype_from_name(const char *name)
{
    for (int t = 0; t < FC_DTYPE_COUNT; ++t)
        if (strcmp(name, fc_dtype_table[t].name) == 0)
            return t;
    return -1;
}

int fc_op_from_name(const char *name)
{
    for (int o = 0; o < FC_OP_COUNT; ++o)
        if (strcmp(name, fc_op_names[o]) == 0)
            return o;
    return -1;
}

int fc_reduce_op_from_name(const char *name)
{
    int op = fc_op_from_name(name);

    return op == FC_OP_NONE ? -1 : op;
}

/* Largest power of two m with m <= limit (limit >= 1). */
static int64_t fc_pow2_floor(int64_t limit)
{
    int64_t m = 1;

    while (m * 2 <= limit)
        m *= 2;
    return m;
}

static void fc_pattern_make_sum(const fc_dtype_info_t *info,
                                int dtype_is_int64, int nranks,
                                fc_pattern_t *p)
{
    /* all types but int64 keep values below 2^30 (see fc_value_to_bits) */
    int bits = dtype_is_int64 ? info->exact_bits
               : (info->exact_bits < 30 ? info->exact_bits : 30);
    int64_t budget = (int64_t)1 << bits;
    int64_t cap = budget / nranks;
    int64_t m;

    if (cap >= 4) {
        /* g + w <= 2(m - 1) < cap, and K = n: sum < 2^exact_bits */
        m = fc_pow2_floor(cap / 2);
        if (m > 65536)
            m = 65536;
        p->active = nranks;
    } else {
        /* even 1 per rank would overflow: only K ranks contribute */
        m = 2;
        p->active = (int32_t)(budget / 4);
    }
    p->g_mask = (uint32_t)(m - 1);
    p->w_mask = (uint32_t)(m - 1);
    p->bias = info->is_signed ? m - 1 : 0;
    p->w_term = 0;
    for (int j = 0; j < p->active; ++j)
        p->w_term += fc_pattern_w(p, j);
}

static void fc_pattern_make_prod(fc_dtype_t dtype, int nranks,
                                 fc_pattern_t *p)
{
    /* uint8: 7 * 2^5 = 224 < 256; float16: 255 * 2^8 < 65504 */
    p->g_mask = dtype == FC_UINT8 ? 0x7u : 0xFFu;
    p->prod_ecap = dtype == FC_UINT8 ? 5 :
                   dtype == FC_FLOAT16 ? 8 : FC_PATTERN_PROD_E_CAP_MAX;
    if (p->prod_ecap > nranks)
        p->prod_ecap = nranks;
    p->active = nranks;
    p->prod_exp = 0;
    p->prod_neg = 0;
    for (int j = 0; j < nranks; ++j) {
        p->prod_exp += fc_pattern_e(p, j);
        p->prod_neg ^= fc_pattern_neg(p, j);
    }
}

static void fc_pattern_make_minmax(const fc_dtype_info_t *info, fc_op_t op,
                                   int nranks, fc_pattern_t *p)
{
    int bits = info->exact_bits - 2 < 16 ? info->exact_bits - 2 : 16;
    int64_t m = (int64_t)1 << bits;

    p->g_mask = (uint32_t)(m - 1);
    p->w_mask = (uint32_t)(m - 1);
    p->bias = info->is_signed ? m : 0;
    p->active = nranks;
    p->w_term = fc_pattern_w(p, 0);
    for (int j = 1; j < nranks; ++j) {
        int64_t w = fc_pattern_w(p, j);
        if (op == FC_OP_MIN ? w < p->w_term : w > p->w_term)
            p->w_term = w;
    }
}

void fc_pattern_make(fc_dtype_t dtype, fc_op_t op, int nranks, uint32_t seed,
                     fc_pattern_t *pattern_p)
{
    const fc_dtype_info_t *info = fc_dtype_info(dtype);
    fc_pattern_t p;

    memset(&p, 0, sizeof(p));
    p.seed = seed;
    p.dtype = dtype;
    p.op = op;
    p.nranks = nranks;
    p.active = nranks;
    p.is_signed = info->is_signed;
    switch (op) {
    case FC_OP_SUM:
        fc_pattern_make_sum(info, dtype == FC_INT64, nranks, &p);
        break;
    case FC_OP_PROD:
        fc_pattern_make_prod(dtype, nranks, &p);
        break;
    case FC_OP_MIN:
    case FC_OP_MAX:
        fc_pattern_make_minmax(info, op, nranks, &p);
        break;
    default:
        break;
    }
    *pattern_p = p;
}
