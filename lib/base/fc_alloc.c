/*
 * fc_alloc.c - see fc_alloc.h. Messages go through fc_log (host, rank,
 * file, line) before the die function runs.
 */
#include "fc_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fc_log.h"
#include "fc_status.h"

static fc_die_func_t fc_die;

void fc_alloc_set_die(fc_die_func_t die)
{
    fc_die = die;
}

static void fc_die_now(void) __attribute__((noreturn));

static void fc_die_now(void)
{
    if (fc_die)
        fc_die();
    exit(FC_EXIT_FAIL);
}

static void fc_oom(const char *what, size_t n, size_t size, const char *file, int line)
    __attribute__((noreturn));

static void fc_oom(const char *what, size_t n, size_t size, const char *file, int line)
{
    if (n == 1)
        fc_log_error_at(file, line, "out of memory for %s (%zu bytes)", what, size);
    else
        fc_log_error_at(file, line, "out of memory for %s (%zu x %zu bytes)", what, n, size);
    fc_die_now();
}

void *fc_xcalloc_at(size_t n, size_t size, const char *what, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (p == NULL)
        fc_oom(what, n, size, file, line);
    return p;
}

void *fc_xmalloc_at(size_t size, const char *what, const char *file, int line)
{
    void *p = malloc(size ? size : 1);

    if (p == NULL)
        fc_oom(what, 1, size, file, line);
    return p;
}

void *fc_xrealloc_at(void *ptr, size_t n, size_t size, const char *what, const char *file,
                     int line)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        fc_oom(what, n, size, file, line);
    p = realloc(ptr, n && size ? n * size : 1);
    if (p == NULL)
        fc_oom(what, n, size, file, line);
    return p;
}

char *fc_xstrdup_at(const char *s, const char *what, const char *file, int line)
{
    char *p = strdup(s ? s : "");

    if (p == NULL)
        fc_oom(what, 1, strlen(s ? s : "") + 1, file, line);
    return p;
}

void fc_assert_fail(const char *cond, const char *file, int line)
{
    fc_log_error_at(file, line, "internal error: '%s' does not hold (a bug in fabcert: "
                    "please report it with this line)", cond);
    fc_die_now();
}
