/*
 * fc_status.h - the one status type that travels up every call chain.
 *
 * Every function that can fail returns an fc_status_t. The error is logged
 * where it is first detected (with host, rank, file and line); callers only
 * propagate. Exactly one place maps a status to a TAP directive
 * (fc_tap_point) and one place maps it to a process exit status
 * (fc_status_exit_code), so a skip can never turn into a pass and bad input
 * always exits 2.
 */
#ifndef FC_STATUS_H
#define FC_STATUS_H

typedef enum fc_status {
    FC_OK = 0,          /* done, and correct */
    FC_ERR_FAIL,        /* measured, and below a limit or wrong bits */
    FC_ERR_SKIP,        /* could not run here (no GPU, no NIC): never a pass */
    FC_ERR_TIMEOUT,     /* a bounded wait ran out */
    FC_ERR_INVALID,     /* bad input: profile, inventory, command line */
    FC_ERR_INTERNAL,    /* a system call or library failed */
} fc_status_t;

/* Exit statuses documented in README.md. */
enum {
    FC_EXIT_PASS = 0,   /* everything passed */
    FC_EXIT_FAIL = 1,   /* something failed, timed out or is incomplete */
    FC_EXIT_USAGE = 2,  /* bad usage or input */
};

const char *fc_status_str(fc_status_t status);
int fc_status_exit_code(fc_status_t status);
/* The worse of two statuses, for folding many results into one. */
fc_status_t fc_status_worst(fc_status_t a, fc_status_t b);

#define FC_CHECK(expr)                                                   \
    do {                                                                 \
        fc_status_t fc_check_status_ = (expr);                           \
        if (fc_check_status_ != FC_OK)                                   \
            return fc_check_status_;                                     \
    } while (0)

#endif
