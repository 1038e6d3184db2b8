/*
 * fuzz_libfuzzer.c - the fuzz targets (fuzz_targets.h) under clang's
 * libFuzzer: coverage-guided, from the committed seeds. The target is
 * named by FC_FUZZ_TARGET (tests/fuzz/libfuzzer.t runs each for a few
 * seconds):
 *
 *   FC_FUZZ_TARGET=frame build/tests/fuzz_libfuzzer -max_total_time=60 \
 *       NEW_DIR tests/fuzz/corpus/frame
 *
 * A crash, a sanitizer's report or a broken property (abort) stops it
 * with the input that did it saved (crash-*).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_targets.h"

static const fc_fuzz_target_t *fc_target;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *name = getenv("FC_FUZZ_TARGET");

    (void)argc;
    (void)argv;
    if (name == NULL || (fc_target = fc_fuzz_find(name)) == NULL) {
        fprintf(stderr, "fuzz: set FC_FUZZ_TARGET to one of:");
        for (int t = 0; t < fc_fuzz_ntargets; ++t)
            fprintf(stderr, " %s", fc_fuzz_targets[t].name);
        fprintf(stderr, "\n");
        exit(2);
    }
    if (fc_fuzz_setup(getenv("TMPDIR")) != 0) {
        perror("fuzz: the scratch directory");
        exit(2);
    }
    atexit(fc_fuzz_cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fc_target->run((const char *)data, size);
    return 0;
}
