/*
 * fc_status.c - names for statuses and the single mapping from a status to
 * the process exit status. A skipped or timed-out stage is not a pass: it
 * exits 1 so that a wrapper script cannot mistake "did not run" for "ok".
 */
#include "fc_status.h"

const char *fc_status_str(fc_status_t status)
{
    switch (status) {
    case FC_OK:           return "ok";
    case FC_ERR_FAIL:     return "fail";
    case FC_ERR_SKIP:     return "skipped";
    case FC_ERR_TIMEOUT:  return "timeout";
    case FC_ERR_INVALID:  return "invalid input";
    case FC_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

int fc_status_exit_code(fc_status_t status)
{
    switch (status) {
    case FC_OK:         return FC_EXIT_PASS;
    case FC_ERR_INVALID: return FC_EXIT_USAGE;
    default:            return FC_EXIT_FAIL;
    }
}

/* Order of badness: invalid input trumps everything, then internal errors,
 * timeouts, failures, skips, and ok last. */
static int fc_status_rank(fc_status_t status)
{
    switch (status) {
    case FC_OK:           return 0;
    case FC_ERR_SKIP:     return 1;
    case FC_ERR_FAIL:     return 2;
    case FC_ERR_TIMEOUT:  return 3;
    case FC_ERR_INTERNAL: return 4;
    case FC_ERR_INVALID:  return 5;
    }
    return 6;
}

fc_status_t fc_status_worst(fc_status_t a, fc_status_t b)
{
    return fc_status_rank(a) >= fc_status_rank(b) ? a : b;
}
