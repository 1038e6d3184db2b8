/*
 * tap_golden.c - golden-output test of the TAP producer: drives every call
 * of fc_tap.h into a memory stream and compares the bytes with
 * tests/golden/tap_producer.out. Also checks that an inactive producer (a
 * non-zero MPI rank) prints nothing at all, and what fc_tap_done returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_tap.h"

static void drive(fc_tap_t *t)
{
    fc_tap_plan(t, 11);
    fc_tap_diag(t, "stage %s on %d ranks", "node", 4);
    fc_tap_ok(t, 1, "all_reduce int32 sum %d KiB", 4);
    fc_tap_yaml_begin(t);
    fc_tap_yaml_line(t, "busbw_gbps: %.3f", 1.25);
    fc_tap_yaml_end(t);
    fc_tap_point(t, FC_ERR_FAIL, "all_gather uint8 1 MiB: rank %d wrong", 3);
    fc_tap_skip(t, "no GPU on host vm", "nccl all_reduce");
    fc_tap_point(t, FC_ERR_TIMEOUT, "broadcast float16 256 KiB");
    fc_tap_ok(t, 1, "sendrecv");
    fc_tap_is_int(t, 12, 12, "ranks");
    fc_tap_is_int(t, 11, 12, "ranks of %s", "rack2");
    fc_tap_is_str(t, "gpu07", "gpu07", "culprit");
    fc_tap_is_str(t, NULL, "gpu07", "culprit of %d", 2);
    fc_tap_is_double(t, 0.1 + 0.2, 0.3, 1e-12, "sum within %g", 1e-12);
    fc_tap_is_double(t, 0.1 + 0.2, 0.3, 0, "sum of %s exactly", "0.1 and 0.2");
    fc_tap_bail(t, "profile %s unreadable", "x.yaml");
}

static char *slurp(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 65536);

    *len_p = f ? fread(buf, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

int main(void)
{
    char *mem = NULL, *golden, *silent = NULL;
    size_t len = 0, glen, slen = 0;
    FILE *out = open_memstream(&mem, &len);
    FILE *quiet = open_memstream(&silent, &slen);
    fc_tap_t tap, inactive, t;
    int done_rc;

    fc_tap_init(&tap, out, 1);
    drive(&tap);
    done_rc = fc_tap_done(&tap);
    fclose(out);
    fc_tap_init(&inactive, quiet, 0);
    drive(&inactive);
    fc_tap_done(&inactive);
    fclose(quiet);
    golden = slurp("tests/golden/tap_producer.out", &glen);

    fc_tap_init(&t, stdout, 1);
    fc_tap_plan(&t, 6);
    fc_tap_ok(&t, glen > 0 && len == glen && memcmp(mem, golden, len) == 0,
              "TAP output matches tests/golden/tap_producer.out (%zu vs %zu bytes)",
              len, glen);
    if (len != glen || memcmp(mem, golden, len) != 0)
        fc_tap_diag(&t, "got:\n%s", mem);
    fc_tap_is_int(&t, (long long)slen, 0, "an inactive producer prints nothing");
    fc_tap_is_int(&t, done_rc, 1, "fc_tap_done reports failure after a not ok");
    fc_tap_is_int(&t, tap.failed, 5, "counts: failed points");
    fc_tap_is_int(&t, tap.skipped, 1, "counts: skipped points");
    fc_tap_is_int(&t, tap.current, 11, "counts: points");
    free(mem);
    free(silent);
    free(golden);
    return fc_tap_done(&t);
}
