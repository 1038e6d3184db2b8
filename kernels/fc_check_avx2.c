/*
 * fc_check_avx2.c - the CPU checker's hot loops and XXH3 digest for AVX2:
 * fc_check_body.h compiled with -march=x86-64-v3 (AVX2, FMA, F16C, BMI2;
 * Makefile). fc_kernels_cpu.c calls it only where the CPU has x86-64-v3.
 */
#define FC_CHECK_ISA avx2
#define FC_CHECK_ISA_STRING "avx2"
#include "fc_check_body.h"
