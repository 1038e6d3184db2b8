/*
 * fc_results.c - see fc_results.h. Each record is written with one
 * fwrite of a complete line followed by fflush, so a reader never sees half
 * a record from a live writer, and a killed writer loses at most the record
 * it was making.
 */
#include "fc_results.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

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

fc_status_t fc_results_open(const char *dir, fc_results_t *results_p)
{
    FC_CHECK(fc_mkdir_p(dir));
    snprintf(results_p->path, sizeof(results_p->path), "%s/results.jsonl", dir);
    results_p->file = fopen(results_p->path, "a");
    if (results_p->file == NULL) {
        fc_error("cannot open %s for appending: %m", results_p->path);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_results_append(fc_results_t *results, json_t *obj)
{
    char *line = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    fc_status_t status = FC_OK;

    json_decref(obj);
    if (line == NULL) {
        fc_error("cannot encode a result record as JSON");
        return FC_ERR_INTERNAL;
    }
    if (fprintf(results->file, "%s\n", line) < 0 || fflush(results->file) != 0) {
        fc_error("cannot write %s: %m", results->path);
        status = FC_ERR_INTERNAL;
    }
    free(line);
    return status;
}

void fc_results_close(fc_results_t *results)
{
    if (results->file != NULL)
        fclose(results->file);
    results->file = NULL;
}

void fc_results_time(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
