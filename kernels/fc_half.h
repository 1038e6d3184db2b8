/*
 * fc_half.h - float16 and bfloat16 to and from float32, round to nearest
 * even, for hosts and GPUs alike (no half-precision hardware needed). The
 * mpi backend's user-defined reduction ops and the exactness tests use
 * these; fabcert's data never needs rounding, but the ops are correct for
 * any data.
 */
#ifndef FC_HALF_H
#define FC_HALF_H

#include <stdint.h>

#include "fc_pattern.h"

/* Round a non-negative float below 2^23 to the nearest integer, ties to
 * even, without libm. */
FC_HD uint32_t fc_round_even(float a)
{
    uint32_t i = (uint32_t)a;
    float frac = a - (float)i;

    if (frac > 0.5f || (frac == 0.5f && (i & 1u)))
        ++i;
    return i;
}

FC_HD float fc_f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t u;
    union { uint32_t u; float f; } c;

    if (exp == 0x1F) {
        u = sign | 0x7F800000u | (mant << 13);
    } else if (exp == 0) {
        /* zero or subnormal: mant * 2^-24 */
        c.f = (float)mant * 5.9604644775390625e-8f;
        c.u |= sign;
        return c.f;
    } else {
        u = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    c.u = u;
    return c.f;
}

FC_HD uint16_t fc_float_to_f16(float f)
{
    union { float f; uint32_t u; } c = { f };
    uint32_t sign = (c.u >> 16) & 0x8000u;
    float a = f < 0 ? -f : f;
    uint32_t u;

    if (a != a)
        return (uint16_t)(sign | 0x7E00u);
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7C00u);
    if (a < 6.103515625e-5f) {
        /* subnormal: round a * 2^24 to nearest even */
        return (uint16_t)(sign | (uint32_t)fc_round_even(a * 16777216.0f));
    }
    c.f = a;
    u = c.u + 0xFFFu + ((c.u >> 13) & 1u);   /* round to nearest even */
    return (uint16_t)(sign | (((u >> 23) - 112u) << 10) | ((u >> 13) & 0x3FFu));
}

FC_HD float fc_bf16_to_float(uint16_t h)
{
    union { uint32_t u; float f; } c = { (uint32_t)h << 16 };
    return c.f;
}

FC_HD uint16_t fc_float_to_bf16(float f)
{
    union { float f; uint32_t u; } c = { f };

    if (f != f)
        return (uint16_t)((c.u >> 16) | 0x40u);
    return (uint16_t)((c.u + 0x7FFFu + ((c.u >> 16) & 1u)) >> 16);
}

#endif
