/*
 * fc_check_base.c - the CPU checker's hot loops and XXH3 digest for the
 * x86-64 baseline (SSE2): fc_check_body.h compiled with the project's
 * flags alone. The fallback wherever AVX2 is missing.
 */
#define FC_CHECK_ISA base
#define FC_CHECK_ISA_STRING "base"
#include "fc_check_body.h"
