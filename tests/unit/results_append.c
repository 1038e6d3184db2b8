/*
 * results_append.c - unit tests of lib/base/fc_results.c's writer. Several
 * processes append to one results.jsonl at once (a stage's rank 0 and the
 * runner), so every record must reach the file as one whole line. Two
 * writer processes append many records at the same time, long ones (up to
 * 192 KiB, far beyond a stdio buffer, which would split them into several
 * writes) among short ones; the file must then hold exactly every record,
 * each line whole and valid JSON, each writer's records in its order. And
 * a write cut short (a file size limit standing in for a full disk) is an
 * error, and is not completed by a second write that could land after
 * another writer's line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc_results.h"
#include "fc_tap.h"

#define WRITERS 2
#define RECORDS 1500

static fc_tap_t tap;

/* Record i of a writer: payload length varies, a few are very long. */
static size_t payload_len(int writer, int i)
{
    unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(writer * 40503u);

    if (h % 23 == 0)
        return 64 * 1024 + h % (128 * 1024);
    return 1 + h % 6000;
}

static int writer_main(const char *dir, int writer)
{
    fc_results_t r;
    char *pay = malloc(200 * 1024);

    if (pay == NULL || fc_results_open(dir, &r) != FC_OK)
        return 1;
    for (int i = 0; i < RECORDS; ++i) {
        size_t n = payload_len(writer, i);

        memset(pay, 'a' + writer, n);
        pay[n] = '\0';
        if (fc_results_append(&r, json_pack("{s:i, s:i, s:s}", "writer", writer,
                                            "seq", i, "payload", pay)) != FC_OK)
            return 1;
    }
    fc_results_close(&r);
    free(pay);
    return 0;
}

/* Every line whole: valid JSON, the payload the writer wrote, in order. */
static void check_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, why[256] = "";
    size_t cap = 0;
    ssize_t n;
    int next[WRITERS] = { 0 }, lines = 0, bad = 0;

    while (f && (n = getline(&line, &cap, f)) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        int w = (int)json_integer_value(json_object_get(rec, "writer"));
        int seq = (int)json_integer_value(json_object_get(rec, "seq"));
        const char *pay = json_string_value(json_object_get(rec, "payload"));

        ++lines;
        if (bad == 0 && (rec == NULL || line[n - 1] != '\n' || w < 0 || w >= WRITERS ||
                         seq != next[w] || pay == NULL ||
                         strlen(pay) != payload_len(w, seq) ||
                         strspn(pay, (char[]){ (char)('a' + w), 0 }) != strlen(pay))) {
            snprintf(why, sizeof(why), "line %d (%zd bytes) is not a whole record: "
                     "%.60s...", lines, n, line);
            bad = 1;
        }
        if (rec && w >= 0 && w < WRITERS && seq == next[w])
            next[w]++;
        json_decref(rec);
    }
    if (f)
        fclose(f);
    free(line);
    fc_tap_ok(&tap, !bad, "every line is one whole record%s%s", bad ? ": " : "", why);
    fc_tap_is_int(&tap, lines, WRITERS * RECORDS,
                  "%d lines, %d + %d records in order (want %d each)", lines, next[0], next[1],
                  RECORDS);
    fc_tap_is_int(&tap, next[0], RECORDS, "%d lines, %d + %d records in order (want %d each)"
                  " [next[0]]", lines, next[0], next[1], RECORDS);
    fc_tap_is_int(&tap, next[1], RECORDS, "%d lines, %d + %d records in order (want %d each)"
                  " [next[1]]", lines, next[0], next[1], RECORDS);
}

static void test_concurrent(const char *dir)
{
    pid_t pid[WRITERS];
    int ok = 1, st;
    char path[4300];

    for (int w = 0; w < WRITERS; ++w)
        if ((pid[w] = fork()) == 0)
            _exit(writer_main(dir, w));
    for (int w = 0; w < WRITERS; ++w)
        ok &= pid[w] > 0 && waitpid(pid[w], &st, 0) == pid[w] && WIFEXITED(st) &&
              WEXITSTATUS(st) == 0;
    fc_tap_ok(&tap, ok, "%d writers appended %d records each", WRITERS, RECORDS);
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    check_lines(path);
}

/* In a child: a 100-byte file size limit, then a 300-byte record. */
static int short_write_main(const char *dir)
{
    struct rlimit lim = { 100, 100 };
    fc_results_t r;
    char pay[300];

    signal(SIGXFSZ, SIG_IGN);
    memset(pay, 'x', sizeof(pay) - 1);
    pay[sizeof(pay) - 1] = '\0';
    if (fc_results_open(dir, &r) != FC_OK || setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 3;
    return fc_results_append(&r, json_pack("{s:s}", "payload", pay)) == FC_OK ? 0 : 1;
}

static void test_short_write(const char *dir)
{
    char path[4300];
    struct stat sb;
    pid_t pid;
    int st = 0;

    if ((pid = fork()) == 0)
        _exit(short_write_main(dir));
    waitpid(pid, &st, 0);
    fc_tap_ok(&tap, WIFEXITED(st), "a write cut short is reported as an error (exit %d)",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    fc_tap_is_int(&tap, WEXITSTATUS(st), 1, "a write cut short is reported as an error (exit %d)"
                  " [WEXITSTATUS(st)]", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if (stat(path, &sb) != 0)
        sb.st_size = -1;
    fc_tap_is_int(&tap, sb.st_size, 100,
                  "and is not completed by a second write (file holds %lld bytes: the "
                  "torn line, for the reader to see)", (long long)sb.st_size);
}

int main(void)
{
    char base[] = "/tmp/fc_results_append.XXXXXX", dir[4200];

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 8);
    if (mkdtemp(base) == NULL)
        fc_tap_bail(&tap, "mkdtemp: %s", strerror(errno));
    snprintf(dir, sizeof(dir), "%s/concurrent", base);
    test_concurrent(dir);
    snprintf(dir, sizeof(dir), "%s/short", base);
    test_short_write(dir);
    if (getenv("FC_KEEP_TMP") == NULL)
        fc_tap_sh(&tap, "rm -rf '%s'", base);
    return fc_tap_done(&tap);
}
