/*
 * fc_results.c - see fc_results.h. Several processes append to one
 * results.jsonl at once (rank 0 of a stage, the runner, a re-run), so each
 * record is built in memory as one complete line and handed to the kernel
 * with ONE write(2) on a descriptor opened with O_APPEND: the kernel moves
 * to the end and writes the whole buffer under the file's lock, so two
 * writers never interleave inside a line (on a local filesystem; NFS does
 * not honour O_APPEND across clients). A short write (a full disk) is
 * reported as an error and never completed by a second write, which could
 * land after another writer's line: the torn line is left for the reader
 * to see. stdio is not used: it may split a long line into several writes.
 */
#include "fc_results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_log.h"

fc_status_t fc_mkdir_p(const char *dir)
{
    char path[4096];
    size_t len = strlen(dir);

    if (len == 0 || len >= sizeof(path)) {
        fc_error("bad output directory '%s'", dir);
        return FC_ERR_INVALID;
    }
    memcpy(path, dir, len + 1);
    for (char *p = path + 1; ; ++p) {
        if (*p == '/' || *p == '\0') {
            char c = *p;

            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                fc_error("cannot create directory %s: %m", path);
                return FC_ERR_INVALID;
            }
            *p = c;
            if (c == '\0')
                break;
        }
    }
    return FC_OK;
}

void fc_path_beside_exe(const char *rel, char *buf, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        n = 0;
    exe[n] = '\0';
    snprintf(buf, len, "%s/%s", n ? dirname(exe) : ".", rel);
}

void fc_path_shipped(const char *build_rel, const char *installed_rel, char *buf, size_t len)
{
    fc_path_beside_exe(build_rel, buf, len);
    if (access(buf, F_OK) == 0)
        return;
    fc_path_beside_exe(installed_rel, buf, len);
    if (access(buf, F_OK) != 0) {
        fc_path_beside_exe(build_rel, buf, len);
    } else {
        char real[PATH_MAX];    /* PREFIX/share/..., not PREFIX/bin/../share/... */

        if (realpath(buf, real) != NULL && strlen(real) < len)
            memcpy(buf, real, strlen(real) + 1);
    }
}

void fc_path_program(const char *name, char *buf, size_t len)
{
    char build[256], installed[256];

    snprintf(build, sizeof(build), "suites/%s", name);
    snprintf(installed, sizeof(installed), "../libexec/fabcert/%s", name);
    fc_path_shipped(build, installed, buf, len);
}

static char fc_failed_path[4096];
static int fc_failed_errno;

void fc_write_failed(const char *path, int err)
{
    int saved = errno;  /* the caller's message reads it next */

    if (fc_failed_path[0] == '\0') {
        snprintf(fc_failed_path, sizeof(fc_failed_path), "%s", path);
        fc_failed_errno = err ? err : EIO;
    }
    errno = saved;
}

int fc_write_failure(char *buf, size_t len)
{
    if (fc_failed_path[0] == '\0')
        return 0;
    snprintf(buf, len, "%s: %s", fc_failed_path, strerror(fc_failed_errno));
    return 1;
}

fc_status_t fc_results_open(const char *dir, fc_results_t *results_p)
{
    FC_CHECK(fc_mkdir_p(dir));
    results_p->judged = results_p->judged_not_pass = 0;
    snprintf(results_p->path, sizeof(results_p->path), "%s/results.jsonl", dir);
    results_p->fd = open(results_p->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (results_p->fd < 0) {
        fc_write_failed(results_p->path, errno);
        fc_error("cannot open %s for appending: %m", results_p->path);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_results_write_line(fc_results_t *results, const char *line, size_t len)
{
    ssize_t n;

    if (len == 0 || line[len - 1] != '\n') {
        fc_error("internal: a results line must end with a newline");
        return FC_ERR_INTERNAL;
    }
    do
        n = write(results->fd, line, len);     /* EINTR: nothing was written */
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        fc_write_failed(results->path, errno);
        fc_error("cannot append to %s: %m", results->path);
        return FC_ERR_INTERNAL;
    }
    if ((size_t)n != len) {
        fc_write_failed(results->path, ENOSPC);
        fc_error("short write to %s: %zd of %zu bytes (disk full?); the record is "
                 "torn and is not completed", results->path, n, len);
        return FC_ERR_INTERNAL;
    }
    return FC_OK;
}

fc_status_t fc_results_append(fc_results_t *results, json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    const char *verdict = json_string_value(json_object_get(obj, "verdict"));
    fc_status_t status;
    size_t len;

    if (verdict != NULL) {
        results->judged++;
        results->judged_not_pass += strcmp(verdict, "PASS") != 0;
    }
    json_decref(obj);
    if (text == NULL) {
        fc_error("cannot encode a result record as JSON");
        return FC_ERR_INTERNAL;
    }
    len = strlen(text);
    {
        char *line = fc_xrealloc(text, len + 2, 1, "a result record");

        line[len] = '\n';
        line[len + 1] = '\0';
        status = fc_results_write_line(results, line, len + 1);
        free(line);
    }
    return status;
}

void fc_results_close(fc_results_t *results)
{
    if (results->fd >= 0)
        close(results->fd);
    results->fd = -1;
}

void fc_results_time(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
