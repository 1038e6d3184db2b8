/*
 * alloc_die.c - unit tests of lib/base/fc_alloc.c: an allocation that cannot be
 * met ends the process through the die function, after a message naming
 * what was allocated, how much and where; a broken invariant does the
 * same with the condition's text; allocations that can be met return
 * zeroed memory (n == 0 included). Each dying case runs in a child with
 * its stderr captured.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_tap.h"

static void die_7(void)
{
    _exit(7);
}

/* Run what in a child whose stderr goes to buf; returns its exit status. */
static int in_child(int what, char *buf, size_t len)
{
    int fds[2], status = -1;
    pid_t pid;
    ssize_t got;

    if (pipe(fds) != 0 || (pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fc_alloc_set_die(die_7);
        if (what == 0)
            (void)fc_xmalloc(SIZE_MAX / 2, "the test's huge buffer");
        else if (what == 1)
            (void)fc_xcalloc(SIZE_MAX / 16, 64, "the pairs' send buffers");
        else if (what == 2)
            (void)fc_xrealloc(NULL, SIZE_MAX / 2, 4, "a grown table");
        else
            FC_ASSERT(what == 42);
        _exit(0);
    }
    close(fds[1]);
    got = read(fds[0], buf, len - 1);
    buf[got > 0 ? got : 0] = '\0';
    for (char *c = buf; *c; ++c)
        if (*c == '\n')
            *c = ' ';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
    fc_tap_t tap;
    char err[2048];
    int rc;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 10);

    rc = in_child(0, err, sizeof(err));
    fc_tap_is_int(&tap, rc, 7,
                  "an impossible malloc dies through the die function, naming what and where "
                  "(%d: %.*s)", rc, 120, err);
    fc_tap_ok(&tap, strstr(err, "out of memory for the test's huge buffer (") &&
                  strstr(err, "alloc_die.c:"),
              "an impossible malloc dies through the die function, naming what and where "
              "(%d: %.*s)"
              " [names 'out of memory for the test's huge buffer (', 'alloc_die.c:']", rc, 120,
              err);
    rc = in_child(1, err, sizeof(err));
    fc_tap_is_int(&tap, rc, 7, "an impossible calloc says n x size (%d)", rc);
    fc_tap_ok(&tap, strstr(err, "out of memory for the pairs' send buffers (") &&
                  strstr(err, " x 64 bytes)"), "an impossible calloc says n x size (%d)"
              " [names 'out of memory for the pairs' send buffers (', ' x 64 bytes)']", rc);
    rc = in_child(2, err, sizeof(err));
    fc_tap_is_int(&tap, rc, 7, "a realloc whose size overflows dies, not wraps (%d)", rc);
    fc_tap_ok(&tap, strstr(err, "out of memory for a grown table") != NULL,
              "a realloc whose size overflows dies, not wraps (%d)"
              " [names 'out of memory for a grown table']", rc);
    rc = in_child(3, err, sizeof(err));
    fc_tap_is_int(&tap, rc, 7, "a broken invariant names its condition (%d: %.*s)", rc, 120, err);
    fc_tap_ok(&tap, strstr(err, "internal error: 'what == 42' does not hold") != NULL,
              "a broken invariant names its condition (%d: %.*s)"
              " [names 'internal error: 'what == 42' does not hold']", rc, 120, err);

    unsigned char *z = fc_xcalloc(0, 8, "nothing");
    int zeroed = z != NULL;
    unsigned char *b = fc_xcalloc(1000, 8, "a table");

    for (int k = 0; k < 8000 && zeroed; ++k)
        zeroed = b[k] == 0;
    fc_tap_ok(&tap, zeroed, "calloc of 0 gives a pointer, of 8000 bytes zeroed memory");
    free(z);
    b = fc_xrealloc(b, 2000, 8, "a grown table");
    b[15999] = 1;
    char *s = fc_xstrdup("rack2", "a name");
    fc_tap_is_str(&tap, s, "rack2", "strdup copies");
    free(b);
    free(s);
    return fc_tap_done(&tap);
}
