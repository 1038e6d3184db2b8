/*
 * ctl_check.c - unit tests of the range checks on control values another
 * rank sent (lib/base/fc_ctl_check.h) that the retests rely on: a retest's
 * exchange tally (none, a right one, a wrong one; ranks out of range, more
 * wrong buffers than buffers, wrong elements without a wrong buffer, a time
 * that is not a number), and a point summary's one-host flag. No MPI:
 * nothing here sends.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_ctl_check.h"
#include "fc_tap.h"

int main(void)
{
    fc_exchange_t none = { -1, -1, 0, 0, 0, 0, 0, 0, 0 }, zero, ok, e;
    fc_point_summary_t s;
    fc_tap_t tap;

    memset(&zero, 0, sizeof(zero));
    ok = (fc_exchange_t){ 1, 2, 10, 3, 17, 5, 1, 0, 0.001 };
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 11);

    fc_tap_ok(&tap, fc_ctl_exchange_ok(&none, 4) && fc_ctl_exchange_ok(&zero, 4),
              "no exchange (a bye, or a partner never met) passes");
    fc_tap_ok(&tap, fc_ctl_exchange_ok(&ok, 4), "10 buffers from rank 1 to 2, 3 wrong, passes");
    e = ok, e.receiver = 4;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "a receiver past the last rank fails");
    e = ok, e.sender = -1;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "a bye that exchanged buffers fails");
    e = ok, e.iters = -1;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "a negative count of buffers fails");
    e = ok, e.wrong_iters = 11;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "more wrong buffers than buffers fails");
    e = ok, e.wrong = 0;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "wrong buffers with no wrong element fail");
    e = ok, e.wrong_iters = 0;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4), "wrong elements in no wrong buffer fail");
    e = ok, e.seconds = NAN;
    fc_tap_ok(&tap, !fc_ctl_exchange_ok(&e, 4) && (e.seconds = -1, !fc_ctl_exchange_ok(&e, 4)),
              "a time that is not a number, or negative, fails");

    memset(&s, 0, sizeof(s));
    s.valid = 1;
    s.nranks = 2;
    s.first_bad_rank = s.arrival_last_rank = s.disagree_rank = -1;
    s.bad_one_host = 1;
    fc_tap_ok(&tap, fc_ctl_summary_ok(&s, 2), "a summary whose wrong bits sat on one host passes");
    s.bad_one_host = 2;
    fc_tap_ok(&tap, !fc_ctl_summary_ok(&s, 2), "a one-host flag other than 0 or 1 fails");
    return fc_tap_done(&tap);
}
