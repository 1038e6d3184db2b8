/*
 * fc_input.c - see fc_input.h. open(2) with O_NONBLOCK (a FIFO opens at
 * once instead of waiting for a writer), fstat(2) on what was opened (no
 * window between the check and the open), then O_NONBLOCK cleared for the
 * reads of a regular file.
 */
#include "fc_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"

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

fc_status_t fc_input_open(const char *path, const char *what, size_t max, int *fd_p,
                          size_t *size_p)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0) {
        fprintf(stderr, "fabcert: %s: cannot open %s: %s\n", path, what, strerror(errno));
        return FC_ERR_INVALID;
    }
    if (fstat(fd, &st) != 0) {
        fprintf(stderr, "fabcert: %s: cannot read the %s: %s\n", path, what, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "fabcert: %s: the %s is %s; give a regular file\n", path, what,
                fc_input_kind(st.st_mode));
        goto fail;
    }
    if ((unsigned long long)st.st_size > (unsigned long long)max) {
        fprintf(stderr, "fabcert: %s: the %s has %lld bytes, more than the %zu MiB a %s may "
                "have\n", path, what, (long long)st.st_size, max >> 20 ? max >> 20 : 1, what);
        goto fail;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        fprintf(stderr, "fabcert: %s: cannot read the %s: %s\n", path, what, strerror(errno));
        goto fail;
    }
    *fd_p = fd;
    if (size_p)
        *size_p = (size_t)st.st_size;
    return FC_OK;
fail:
    close(fd);
    return FC_ERR_INVALID;
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

fc_status_t fc_input_read(const char *path, const char *what, size_t max, char **text_p,
                          size_t *len_p)
{
    size_t size = 0;
    fc_status_t st;
    int fd;

    if (fc_input_open(path, what, max, &fd, &size) != FC_OK)
        return FC_ERR_INVALID;
    st = fc_input_read_fd(fd, path, what, max, size, text_p, len_p);
    close(fd);
    return st;
}

fc_status_t fc_input_read_fd(int fd, const char *path, const char *what, size_t max,
                             size_t size, char **text_p, size_t *len_p)
{
    size_t len = 0, cap;
    char *text;

    cap = size + 4096;
    text = fc_xmalloc(cap + 1, "a file's text");
    for (;;) {
        ssize_t n;

        if (len == cap) {
            if (cap > max) {
                fprintf(stderr, "fabcert: %s: the %s grew past the %zu MiB a %s may have "
                        "while it was read\n", path, what, max >> 20 ? max >> 20 : 1, what);
                goto fail;
            }
            cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
            text = fc_xrealloc(text, cap + 1, 1, "a file's text");
        }
        n = read(fd, text + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
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
