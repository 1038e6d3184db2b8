/*
 * fc_tap.c - see fc_tap.h. Output is flushed after every point so that a
 * stage killed by its watchdog still leaves every finished point readable.
 */
#include "fc_tap.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

void fc_tap_init(fc_tap_t *tap, FILE *out, int active)
{
    tap->out = out;
    tap->active = active;
    tap->planned = -1;
    tap->current = 0;
    tap->failed = 0;
    tap->skipped = 0;
}

void fc_tap_plan(fc_tap_t *tap, int count)
{
    if (!tap->active)
        return;
    fprintf(tap->out, "TAP version 13\n");
    if (count >= 0)
        fprintf(tap->out, "1..%d\n", count);
    tap->planned = count;
    fflush(tap->out);
}

static void fc_tap_vpoint(fc_tap_t *tap, fc_status_t status,
                          const char *reason, const char *fmt, va_list ap)
{
    if (!tap->active)
        return;
    ++tap->current;
    if (status != FC_OK && status != FC_ERR_SKIP)
        ++tap->failed;
    fprintf(tap->out, "%s %d - ",
            (status == FC_OK || status == FC_ERR_SKIP) ? "ok" : "not ok",
            tap->current);
    vfprintf(tap->out, fmt, ap);
    if (status == FC_ERR_SKIP) {
        ++tap->skipped;
        fprintf(tap->out, " # SKIP %s", reason ? reason : "");
    } else if (status == FC_ERR_TIMEOUT) {
        fprintf(tap->out, " (timeout)");
    }
    fputc('\n', tap->out);
    fflush(tap->out);
}

void fc_tap_point(fc_tap_t *tap, fc_status_t status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, status, NULL, fmt, ap);
    va_end(ap);
}

void fc_tap_ok(fc_tap_t *tap, int success, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, success ? FC_OK : FC_ERR_FAIL, NULL, fmt, ap);
    va_end(ap);
}

int fc_tap_is_int(fc_tap_t *tap, long long got, long long want, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, got == want ? FC_OK : FC_ERR_FAIL, NULL, fmt, ap);
    va_end(ap);
    if (got != want) {
        fc_tap_diag(tap, "    got: %lld", got);
        fc_tap_diag(tap, " wanted: %lld", want);
    }
    return got == want;
}

int fc_tap_is_str(fc_tap_t *tap, const char *got, const char *want, const char *fmt, ...)
{
    int same = got && want ? strcmp(got, want) == 0 : got == want;
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, same ? FC_OK : FC_ERR_FAIL, NULL, fmt, ap);
    va_end(ap);
    if (!same) {
        fc_tap_diag(tap, "    got: '%s'", got ? got : "(null)");
        fc_tap_diag(tap, " wanted: '%s'", want ? want : "(null)");
    }
    return same;
}

int fc_tap_is_double(fc_tap_t *tap, double got, double want, double tol, const char *fmt, ...)
{
    int same = fabs(got - want) <= tol;    /* false when either is NaN */
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, same ? FC_OK : FC_ERR_FAIL, NULL, fmt, ap);
    va_end(ap);
    if (!same) {
        fc_tap_diag(tap, "    got: %.17g", got);
        fc_tap_diag(tap, " wanted: %.17g (within %g)", want, tol);
    }
    return same;
}

void fc_tap_skip(fc_tap_t *tap, const char *reason, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_tap_vpoint(tap, FC_ERR_SKIP, reason, fmt, ap);
    va_end(ap);
}

void fc_tap_diag(fc_tap_t *tap, const char *fmt, ...)
{
    va_list ap;

    if (!tap->active)
        return;
    fputs("# ", tap->out);
    va_start(ap, fmt);
    vfprintf(tap->out, fmt, ap);
    va_end(ap);
    fputc('\n', tap->out);
    fflush(tap->out);
}

void fc_tap_yaml_begin(fc_tap_t *tap)
{
    if (tap->active)
        fputs("  ---\n", tap->out);
}

void fc_tap_yaml_line(fc_tap_t *tap, const char *fmt, ...)
{
    va_list ap;

    if (!tap->active)
        return;
    fputs("  ", tap->out);
    va_start(ap, fmt);
    vfprintf(tap->out, fmt, ap);
    va_end(ap);
    fputc('\n', tap->out);
}

void fc_tap_yaml_end(fc_tap_t *tap)
{
    if (!tap->active)
        return;
    fputs("  ...\n", tap->out);
    fflush(tap->out);
}

int fc_tap_done(fc_tap_t *tap)
{
    if (!tap->active)
        return 0;
    if (tap->planned < 0)
        fprintf(tap->out, "1..%d\n", tap->current);
    fflush(tap->out);
    return tap->failed == 0 && (tap->planned < 0 || tap->planned == tap->current)
               ? 0 : 1;
}

void fc_tap_bail(fc_tap_t *tap, const char *fmt, ...)
{
    va_list ap;

    if (!tap->active)
        return;
    fputs("Bail out! ", tap->out);
    va_start(ap, fmt);
    vfprintf(tap->out, fmt, ap);
    va_end(ap);
    fputc('\n', tap->out);
    fflush(tap->out);
}

int fc_tap_sh(fc_tap_t *tap, const char *fmt, ...)
{
    va_list ap;
    char *cmd;
    int len, status;

    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0 || (cmd = malloc((size_t)len + 1)) == NULL) {
        fc_tap_diag(tap, "sh: cannot format the command '%s'", fmt);
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(cmd, (size_t)len + 1, fmt, ap);
    va_end(ap);
    fflush(tap->out);       /* the command's output after what came before */
    status = system(cmd);
    if (status == -1)
        fc_tap_diag(tap, "sh: could not run '%s': %s", cmd, strerror(errno));
    else if (WIFSIGNALED(status))
        fc_tap_diag(tap, "sh: '%s' was killed by signal %d", cmd, WTERMSIG(status));
    else if (status != 0)
        fc_tap_diag(tap, "sh: '%s' failed (exit status %d)", cmd, WEXITSTATUS(status));
    free(cmd);
    return status;
}
