/*
 * fc_input.c - see fc_input.h. open(2) with O_NONBLOCK (a FIFO opens at
 * once instead of waiting for a writer), fstat(2) on what was opened (no
 * window between the check and the open), then O_NONBLOCK cleared for the
 * reads of a regular file. A pipe given to fc_input_read is first read
 * without blocking: none of its writers there (read returns 0 at once) is
 * refused at once; else it is read as its writer writes, each wait
 * bounded.
 */
#include "fc_input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"

/* how long a pipe's writer may stay silent before the read gives up */
#define FC_INPUT_PIPE_WAIT_MS 30000

static const char *fc_input_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (a named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* Open path without blocking; its status into *st. */
static fc_status_t fc_input_open_any(const char *path, const char *what, int *fd_p,
                                     struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0) {
        fprintf(stderr, "fabcert: %s: cannot open %s: %s\n", path, what, strerror(errno));
        return FC_ERR_INVALID;
    }
    if (fstat(fd, st) != 0) {
        fprintf(stderr, "fabcert: %s: cannot read the %s: %s\n", path, what, strerror(errno));
        close(fd);
        return FC_ERR_INVALID;
    }
    *fd_p = fd;
    return FC_OK;
}

/* A regular file of at most max bytes, now blocking. */
static fc_status_t fc_input_regular(int fd, const struct stat *st, const char *path,
                                    const char *what, size_t max)
{
    if (!S_ISREG(st->st_mode)) {
        fprintf(stderr, "fabcert: %s: the %s is %s; give a regular file\n", path, what,
                fc_input_kind(st->st_mode));
        return FC_ERR_INVALID;
    }
    if ((unsigned long long)st->st_size > (unsigned long long)max) {
        fprintf(stderr, "fabcert: %s: the %s has %lld bytes, more than the %zu MiB a %s may "
                "have\n", path, what, (long long)st->st_size, max >> 20 ? max >> 20 : 1, what);
        return FC_ERR_INVALID;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        fprintf(stderr, "fabcert: %s: cannot read the %s: %s\n", path, what, strerror(errno));
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_input_open(const char *path, const char *what, size_t max, int *fd_p,
                          size_t *size_p)
{
    struct stat st;
    int fd;

    if (fc_input_open_any(path, what, &fd, &st) != FC_OK)
        return FC_ERR_INVALID;
    if (fc_input_regular(fd, &st, path, what, max) != FC_OK) {
        close(fd);
        return FC_ERR_INVALID;
    }
    *fd_p = fd;
    if (size_p)
        *size_p = (size_t)st.st_size;
    return FC_OK;
}

FILE *fc_input_fopen(const char *path, const char *what, size_t max)
{
    FILE *f;
    int fd;

    if (fc_input_open(path, what, max, &fd, NULL) != FC_OK)
        return NULL;
    if ((f = fdopen(fd, "r")) == NULL) {
        fprintf(stderr, "fabcert: %s: cannot read the %s: %s\n", path, what, strerror(errno));
        close(fd);
    }
    return f;
}

/* Read fd to its end into a growing buffer, at most max bytes, after the
 * byte `first` already read from it (-1: none); a pipe (nonblocking) is
 * waited for with poll, FC_INPUT_PIPE_WAIT_MS at most each time. */
static fc_status_t fc_input_slurp(int fd, int pipe, const char *path, const char *what,
                                  size_t max, size_t size, int first, char **text_p,
                                  size_t *len_p)
{
    size_t len = 0, cap = size + 4096;
    char *text = fc_xmalloc(cap + 1, "a file's text");

    if (first >= 0)
        text[len++] = (char)first;

    for (;;) {
        ssize_t n;

        if (len == cap) {
            if (cap > max) {
                fprintf(stderr, "fabcert: %s: the %s is more than the %zu MiB a %s may "
                        "have\n", path, what, max >> 20 ? max >> 20 : 1, what);
                goto fail;
            }
            cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
            text = fc_xrealloc(text, cap + 1, 1, "a file's text");
        }
        n = read(fd, text + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && pipe && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = { fd, POLLIN, 0 };
            int r = poll(&p, 1, FC_INPUT_PIPE_WAIT_MS);

            if (r == 0) {
                fprintf(stderr, "fabcert: %s: the %s's writer sent nothing for %d s\n", path,
                        what, FC_INPUT_PIPE_WAIT_MS / 1000);
                goto fail;
            }
            continue;
        }
        if (n < 0) {
            fprintf(stderr, "fabcert: %s: read error in the %s: %s\n", path, what,
                    strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > max) {
        fprintf(stderr, "fabcert: %s: the %s grew past the %zu MiB a %s may have while it "
                "was read\n", path, what, max >> 20 ? max >> 20 : 1, what);
        goto fail;
    }
    text[len] = '\0';
    *text_p = text;
    if (len_p)
        *len_p = len;
    return FC_OK;
fail:
    free(text);
    return FC_ERR_INVALID;
}

/* A pipe: read now, without blocking; 0 bytes at once means no writer is
 * there (a FIFO nobody opened for writing: it would never end) */
static fc_status_t fc_input_pipe(int fd, const char *path, const char *what, size_t max,
                                 char **text_p, size_t *len_p)
{
    unsigned char first;
    ssize_t n;

    while ((n = read(fd, &first, 1)) < 0 && errno == EINTR)
        ;
    if (n == 0) {
        fprintf(stderr, "fabcert: %s: the %s is %s that no one writes to (or that is "
                "empty); give a regular file, or a pipe a command writes\n", path, what,
                fc_input_kind(S_IFIFO));
        return FC_ERR_INVALID;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        fprintf(stderr, "fabcert: %s: read error in the %s: %s\n", path, what, strerror(errno));
        return FC_ERR_INVALID;
    }
    return fc_input_slurp(fd, 1, path, what, max, 0, n == 1 ? first : -1, text_p, len_p);
}

fc_status_t fc_input_read(const char *path, const char *what, size_t max, char **text_p,
                          size_t *len_p)
{
    struct stat st;
    fc_status_t s;
    int fd;

    if (fc_input_open_any(path, what, &fd, &st) != FC_OK)
        return FC_ERR_INVALID;
    if (S_ISFIFO(st.st_mode))
        s = fc_input_pipe(fd, path, what, max, text_p, len_p);
    else if ((s = fc_input_regular(fd, &st, path, what, max)) == FC_OK)
        s = fc_input_slurp(fd, 0, path, what, max, (size_t)st.st_size, -1, text_p, len_p);
    close(fd);
    return s;
}

fc_status_t fc_input_read_fd(int fd, const char *path, const char *what, size_t max,
                             size_t size, char **text_p, size_t *len_p)
{
    return fc_input_slurp(fd, 0, path, what, max, size, -1, text_p, len_p);
}

fc_status_t fc_input_plain_text(const char *path, const char *what, char *text, size_t *len_p)
{
    static const char bom[] = "\xEF\xBB\xBF";
    size_t len = *len_p;
    const char *nul;

    if (len >= 3 && memcmp(text, bom, 3) == 0) {
        memmove(text, text + 3, len - 3 + 1);
        len -= 3;
        *len_p = len;
    }
    if ((nul = memchr(text, '\0', len)) != NULL) {
        int line = 1, col = 1;

        for (const char *c = text; c < nul; ++c) {
            if (*c == '\n')
                ++line, col = 1;
            else
                ++col;
        }
        fprintf(stderr, "fabcert: %s:%d:%d: a NUL byte in the %s: it is read as text, and "
                "the lines after it would be lost\n", path, line, col, what);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_input_read_plain(const char *path, const char *what, size_t max, char **text_p)
{
    size_t len;

    if (fc_input_read(path, what, max, text_p, &len) != FC_OK)
        return FC_ERR_INVALID;
    if (fc_input_plain_text(path, what, *text_p, &len) != FC_OK) {
        free(*text_p);
        *text_p = NULL;
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* The length of the UTF-8 sequence at p (of n bytes left), 0 if it is not
 * one (RFC 3629, table 3-7 of the Unicode standard). */
static size_t fc_utf8_seq(const unsigned char *p, size_t n)
{
    unsigned char lo = 0x80, hi = 0xBF;
    size_t k;

    if (p[0] >= 0x01 && p[0] <= 0x7F)
        return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF)
        k = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF)
        k = 3, lo = p[0] == 0xE0 ? 0xA0 : 0x80, hi = p[0] == 0xED ? 0x9F : 0xBF;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4)
        k = 4, lo = p[0] == 0xF0 ? 0x90 : 0x80, hi = p[0] == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return k;
}

size_t fc_input_utf8_end(const char *text, size_t len, int *line_p, int *col_p)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t at = 0, k;
    int line = 1, col = 1;

    while (at < len && (k = fc_utf8_seq(p + at, len - at)) != 0) {
        if (p[at] == '\n')
            ++line, col = 0;
        ++col;
        at += k;
    }
    *line_p = line;
    *col_p = col;
    return at;
}
