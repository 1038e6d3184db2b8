/*
 * fc_log.c - see fc_log.h. The identity is process-wide state set once at
 * start-up; it is the only file-scope mutable state in the engine, kept so
 * that a message from any depth can name its host and rank.
 */
#include "fc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char fc_log_hostname[256];
static int fc_log_rankno = -1;
static char fc_log_first[512];      /* the first error, for the stage_end */

void fc_log_set_identity(const char *host, int rank)
{
    snprintf(fc_log_hostname, sizeof(fc_log_hostname), "%s", host);
    fc_log_rankno = rank;
}

const char *fc_log_host(void)
{
    if (fc_log_hostname[0] == '\0' &&
        gethostname(fc_log_hostname, sizeof(fc_log_hostname) - 1) != 0)
        snprintf(fc_log_hostname, sizeof(fc_log_hostname), "unknown-host");
    return fc_log_hostname;
}

int fc_log_rank(void)
{
    return fc_log_rankno;
}

static void fc_log_prefix(char *buf, size_t len)
{
    if (fc_log_rankno >= 0)
        snprintf(buf, len, "fabcert[%s:rank %d]", fc_log_host(), fc_log_rankno);
    else
        snprintf(buf, len, "fabcert[%s]", fc_log_host());
}

/* One message: prefix, text and, for errors, the source place. */
static void fc_log_vprint(const char *kind, const char *file, int line,
                          const char *fmt, va_list ap)
{
    char prefix[320], msg[2048];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (file != NULL && fc_log_first[0] == '\0')
        snprintf(fc_log_first, sizeof(fc_log_first), "host %.64s rank %d: %.360s (%s:%d)",
                 fc_log_host(), fc_log_rankno, msg, file, line);
    fc_log_prefix(prefix, sizeof(prefix));
    if (file != NULL)
        fprintf(stderr, "%s %s%s (%s:%d)\n", prefix, kind, msg, file, line);
    else
        fprintf(stderr, "%s %s%s\n", prefix, kind, msg);
    fflush(stderr);
}

void fc_log_error_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_log_vprint("error: ", file, line, fmt, ap);
    va_end(ap);
}

const char *fc_log_first_error(void)
{
    return fc_log_first;
}

void fc_log_info(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_log_vprint("", NULL, 0, fmt, ap);
    va_end(ap);
}
