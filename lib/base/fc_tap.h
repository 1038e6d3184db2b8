/*
 * fc_tap.h - a small TAP 13 producer for stage programs and unit tests
 * (13, not 14: Debian 12's prove rejects 14, and YAML diagnostic blocks,
 * where measurements go, are a TAP 13 feature).
 *
 * Only the process that called fc_tap_plan() prints anything (under MPI,
 * rank 0 plans; the other ranks send their findings to it), so a forked or
 * parallel process can never interleave a stray "ok" into the stream.
 * Measurements go into the YAML diagnostic block of a test point
 * (fc_tap_yaml_*). The plan may be given up front or, when the number of
 * points is only known at the end, printed last (fc_tap_done).
 */
#ifndef FC_TAP_H
#define FC_TAP_H

#include <stdio.h>

#include "fc_status.h"

typedef struct fc_tap {
    FILE *out;          /* where TAP goes: stdout for stages */
    int active;         /* 1 in the one process that prints TAP */
    int planned;        /* number of points announced up front, or -1 */
    int current;        /* number of the last test point printed */
    int failed;         /* number of "not ok" points */
    int skipped;        /* number of skipped points */
} fc_tap_t;

void fc_tap_init(fc_tap_t *tap, FILE *out, int active);
/* Print "TAP version 14" and, if count >= 0, the plan "1..count". */
void fc_tap_plan(fc_tap_t *tap, int count);
/* One test point; status maps: ok -> ok, skip -> ok # SKIP, else not ok. */
void fc_tap_point(fc_tap_t *tap, fc_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fc_tap_ok(fc_tap_t *tap, int success, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ok when got == want; otherwise not ok, followed by "#   got: G" and
 * "# wanted: W" so a failure says what it saw. Return whether it passed. */
int fc_tap_is_int(fc_tap_t *tap, long long got, long long want, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for strings (NULL reads "(null)" and equals only NULL). */
int fc_tap_is_str(fc_tap_t *tap, const char *got, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for doubles: ok when |got - want| <= tol (tol 0: exactly
 * equal; NaN equals nothing); the diagnostic prints both with %.17g, so a
 * value that differs in its last bit still shows the difference. */
int fc_tap_is_double(fc_tap_t *tap, double got, double want, double tol, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void fc_tap_skip(fc_tap_t *tap, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fc_tap_diag(fc_tap_t *tap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* YAML block attached to the last point: begin, lines of "key: value", end. */
void fc_tap_yaml_begin(fc_tap_t *tap);
void fc_tap_yaml_line(fc_tap_t *tap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fc_tap_yaml_end(fc_tap_t *tap);
/* Print the trailing plan if none was given; returns 0 if all passed. */
int fc_tap_done(fc_tap_t *tap);
void fc_tap_bail(fc_tap_t *tap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* For tests that build their fixtures with the shell (a sysfs tree, a
 * scratch directory removed): run the command fmt formats through
 * system(3) and return its status as system(3) does (0: it exited 0).
 * Otherwise a diagnostic names the command and how it ended; what a
 * failure means (bail out, carry on) is the caller's. */
int fc_tap_sh(fc_tap_t *tap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
