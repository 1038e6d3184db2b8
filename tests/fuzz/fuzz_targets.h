/*
 * fuzz_targets.h - the fuzz targets, shared by the two drivers: the
 * deterministic one (fuzz_inputs.c, fixed seed, every build) and
 * libFuzzer's (fuzz_libfuzzer.c, where clang -fsanitize=fuzzer is found).
 * Each target takes one input and returns 1 if it was accepted, 0 if it
 * was rejected; a crash, a sanitizer report or an abort() (a property
 * broken) is a failure. Seeds live in tests/fuzz/corpus/NAME/.
 */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <stddef.h>

typedef struct fc_fuzz_target {
    const char *name;           /* its corpus: tests/fuzz/corpus/NAME */
    const char *label;
    int (*run)(const char *data, size_t n);
    int cost;                   /* the deterministic driver's iterations / this */
    int tamper_proof;           /* any change to a seed must be rejected */
} fc_fuzz_target_t;

extern const fc_fuzz_target_t fc_fuzz_targets[];
extern const int fc_fuzz_ntargets;

/* A scratch directory for the targets that read files (made once; the
 * run-directory target copies the golden run's frozen inputs into it). */
int fc_fuzz_setup(const char *tmpdir);
void fc_fuzz_cleanup(void);
const fc_fuzz_target_t *fc_fuzz_find(const char *name);

#endif
