/*
 * fc_check_avx512.c - the CPU checker's hot loops and XXH3 digest for
 * AVX-512: fc_check_body.h compiled with -march=x86-64-v4 (AVX512F, BW,
 * CD, DQ, VL) and -mprefer-vector-width=512 (Makefile). The width is
 * stated because it depends on tuning: GCC 12 vectorises this file with
 * 512-bit registers under its generic tuning, but with 256-bit ones under
 * -mtune=skylake-avx512 (about 145 zmm instructions instead of 1500,
 * counted with objdump). fc_kernels_cpu.c calls it only where the CPU has
 * x86-64-v4.
 */
#define FC_CHECK_ISA avx512
#define FC_CHECK_ISA_STRING "avx512"
#include "fc_check_body.h"
