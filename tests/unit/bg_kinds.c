/*
 * bg_kinds.c - unit tests of the background kinds' table (lib/background/fc_bg_kind.h):
 * every fc_bg_kind_t has an ops entry under the name its profile section
 * has, with every function the engine calls (a kind added to the profile
 * but not to the engine, or the other way round, fails here); the shared
 * pacing (the rate schedule, the on/off bursts) and the first-error rule
 * of a phase's tally. No MPI: nothing here sends.
 */
#include <stdio.h>
#include <string.h>

#include "fc_bg_kind.h"
#include "fc_tap.h"

int main(void)
{
    fc_bg_profile_t b = { .enabled = 1, .block = 1000000, .rate_mbps = 1, .duty = 1,
                          .period_s = 1 };
    fc_bg_tally_t tally;
    fc_tap_t tap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 2 * FC_BG_KINDS + 10);

    for (int k = 0; k < FC_BG_KINDS; ++k) {
        const fc_bg_kind_ops_t *ops = fc_bg_kind_ops(k);

        fc_tap_is_str(&tap, ops != NULL ? ops->name : "(no ops entry)", fc_bg_kind_name(k),
                      "kind %d has an ops entry named as its profile section (%s)", k,
                      fc_bg_kind_name(k));
        fc_tap_ok(&tap, ops != NULL && ops->init_func && ops->start_func && ops->drain_func &&
                        ops->tally_func && ops->fini_func,
                  "%s: init, start, drain, tally and fini are there (poll is optional)",
                  fc_bg_kind_name(k));
    }
    fc_tap_ok(&tap, fc_bg_kind_ops(FC_BG_KINDS) == NULL && fc_bg_kind_ops(-1) == NULL,
              "no ops past the table");

    fc_tap_ok(&tap, fc_bg_may_start(&b, 0, 0), "the first block starts at once");
    fc_tap_ok(&tap, !fc_bg_may_start(&b, 1e6, 0.5) && fc_bg_may_start(&b, 1e6, 1.0),
              "at 1 MB/s a second 1 MB block waits until 1 s");
    b.duty = 0.5;
    fc_tap_ok(&tap, fc_bg_is_on(&b, 0.2) && !fc_bg_is_on(&b, 0.7) && fc_bg_is_on(&b, 1.2),
              "duty 0.5 of a 1 s period: on for its first half, off for the second");
    fc_tap_ok(&tap, !fc_bg_may_start(&b, 1e6, 1.5) && fc_bg_may_start(&b, 1e6, 2.0),
              "... and the rate counts on time only: the second block waits until 2 s");
    b.duty = 1;
    fc_tap_ok(&tap, fc_bg_is_on(&b, 0.7),
              "duty 1 is always on; blocks are rounded up to the O_DIRECT alignment");
    fc_tap_is_int(&tap, fc_bg_aligned(1), FC_BG_ALIGN,
                  "duty 1 is always on; blocks are rounded up to the O_DIRECT alignment"
                  " [fc_bg_aligned(1)]");
    fc_tap_is_int(&tap, fc_bg_aligned(FC_BG_ALIGN), FC_BG_ALIGN,
                  "duty 1 is always on; blocks are rounded up to the O_DIRECT alignment"
                  " [fc_bg_aligned(FC_BG_ALIGN)]");

    memset(&tally, 0, sizeof(tally));
    fc_bg_tally_error(&tally, FC_BG_TENANT, "");
    fc_bg_tally_error(&tally, FC_BG_STORAGE_FILE, "first");
    fc_bg_tally_error(&tally, FC_BG_TENANT, "second");
    fc_tap_is_str(&tap, tally.error, "first",
                  "a phase's tally keeps its first error and the kind that logged it");
    fc_tap_is_int(&tap, tally.error_kind, FC_BG_STORAGE_FILE,
                  "a phase's tally keeps its first error and the kind that logged it"
                  " [tally.error_kind]");
    return fc_tap_done(&tap);
}
