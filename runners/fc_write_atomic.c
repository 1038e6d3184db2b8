/*
 * fc_write_atomic.c - see fc_progress.h: a file written whole or not at
 * all (path.tmp, fsync, rename), a failure recorded as results.jsonl's
 * are (fc_write_failed). A leaf: progress.json and the metrics file are
 * both written so.
 */
#include "fc_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fc_results.h"

int fc_write_atomic(const char *path, const char *text)
{
    char tmp[PATH_MAX + 48];
    size_t len = strlen(text), off = 0;
    int fd;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        fc_write_failed(tmp, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fc_write_failed(tmp, errno);
            fprintf(stderr, "fabcert: cannot write %s: %s\n", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "fabcert: cannot replace %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
