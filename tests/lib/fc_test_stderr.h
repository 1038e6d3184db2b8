/*
 * fc_test_stderr.h - what a call prints on stderr, caught for a unit test
 * that checks an error message (the parsers print theirs where they find
 * the fault): fc_test_stderr_begin() sends stderr to a temporary file,
 * fc_test_stderr_end() puts it back and gives what was written.
 */
#ifndef FC_TEST_STDERR_H
#define FC_TEST_STDERR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct fc_test_stderr {
    char path[32];
    int fd, saved;
} fc_test_stderr_t;

static inline void fc_test_stderr_begin(fc_test_stderr_t *c)
{
    snprintf(c->path, sizeof(c->path), "/tmp/fc-test-err.XXXXXX");
    c->fd = mkstemp(c->path);
    c->saved = dup(2);
    fflush(stderr);
    dup2(c->fd, 2);
}

/* stderr back; msg holds what was written (at most len - 1 bytes) */
static inline void fc_test_stderr_end(fc_test_stderr_t *c, char *msg, size_t len)
{
    FILE *f;

    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    msg[0] = '\0';
    if ((f = fopen(c->path, "r")) != NULL) {
        size_t got = fread(msg, 1, len - 1, f);

        msg[got] = '\0';
        fclose(f);
    }
    close(c->fd);
    unlink(c->path);
}

#endif
