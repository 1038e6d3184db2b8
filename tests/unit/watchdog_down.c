/*
 * watchdog_down.c - unit test of the tear-down line (lib/base/fc_watchdog.c):
 * a child process starts its watchdog with a 10 s deadline and waits; the
 * parent sends it SIGTERM, as mpirun's tear-down does, and reads its
 * stderr. The child writes one FABCERT-DOWN line, whole JSON, saying where
 * it was, how long before its own deadline the tear-down came (about 9.7 s
 * here) and how long ago its watchdog thread last sampled (under a second:
 * it was running), and ends by SIGTERM. A second child is stopped
 * (SIGSTOP) for 3 s first, then woken and torn down as Open MPI does
 * (SIGCONT, then SIGTERM 0.3 s later, after its watchdog sampled again):
 * its line still shows the 3 s gap. The runner reads both
 * figures to tell a rank torn down before its deadline (it started late)
 * from one that did not arrive (tests/unit/diagnose.c).
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fc_tap.h"
#include "fc_watchdog.h"

static fc_tap_t tap;

/* A child with a 10 s watchdog, stopped for stop_s seconds (0: never),
 * then torn down 0.3 s later; its tear-down line (NULL if none) and how
 * it ended into *status_p. */
static json_t *teardown(int stop_s, int *status_p)
{
    int pipefd[2];
    char buf[2048] = "";
    ssize_t n, got = 0;
    pid_t pid;
    struct timespec wait_ts = { 0, 300000000L };
    const char *at;

    if (pipe(pipefd) != 0)
        fc_tap_bail(&tap, "pipe: %m");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        close(pipefd[0]);
        if (fc_watchdog_start(10.0, "node", 3, "h1") != FC_OK)
            _exit(3);
        fc_watchdog_progress(2, "all_reduce \"int32\" sum 4 KiB");
        for (;;)
            pause();
    }
    close(pipefd[1]);
    nanosleep(&wait_ts, NULL);
    if (stop_s > 0) {
        struct timespec stop_ts = { stop_s, 0 };

        kill(pid, SIGSTOP);
        nanosleep(&stop_ts, NULL);
        kill(pid, SIGCONT);
        nanosleep(&wait_ts, NULL);  /* its watchdog samples again first */
    }
    kill(pid, SIGTERM);
    while ((n = read(pipefd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += n;
    close(pipefd[0]);
    buf[got > 0 ? got : 0] = '\0';
    waitpid(pid, status_p, 0);
    at = strstr(buf, FC_WATCHDOG_DOWN_TAG);
    if (at == NULL) {
        fc_tap_diag(&tap, "stderr: %s", buf);
        return NULL;
    }
    return json_loads(at + strlen(FC_WATCHDOG_DOWN_TAG), JSON_DISABLE_EOF_CHECK, NULL);
}

int main(void)
{
    int status = 0;
    json_t *line;
    long long before, gap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 8);

    line = teardown(0, &status);
    fc_tap_ok(&tap, line != NULL, "one tear-down line, whole JSON, saying where the rank was");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(line, "rank")), 3,
                  "one tear-down line, whole JSON, saying where the rank was"
                  " [json_integer_value(json_object_get(line, \"rank\"))]");
    fc_tap_is_str(&tap, json_string_value(json_object_get(line, "at")),
                  "all_reduce \"int32\" sum 4 KiB",
                  "one tear-down line, whole JSON, saying where the rank was"
                  " [json_string_value(json_object_get(line, \"at\"))]");
    before = json_integer_value(json_object_get(line, "before_deadline_ms"));
    gap = json_integer_value(json_object_get(line, "since_sample_ms"));
    fc_tap_ok(&tap, json_is_integer(json_object_get(line, "before_deadline_ms")) &&
                  before > 8000 && before < 9900,
              "it came %lld ms before the rank's own deadline (10 s after its start)", before);
    fc_tap_ok(&tap, json_is_integer(json_object_get(line, "since_sample_ms")) && gap >= 0 &&
                  gap < 1500,
              "its watchdog had sampled %lld ms before: the process was running", gap);
    fc_tap_ok(&tap, WIFSIGNALED(status), "the rank ends as SIGTERM would have ended it");
    fc_tap_is_int(&tap, WTERMSIG(status), SIGTERM, "the rank ends as SIGTERM would have ended it"
                  " [WTERMSIG(status)]");
    json_decref(line);

    line = teardown(3, &status);
    gap = json_integer_value(json_object_get(line, "since_sample_ms"));
    fc_tap_ok(&tap, line != NULL && gap >= 2500,
              "stopped for 3 s, then woken and torn down: a gap of %lld ms since its last "
              "sample", gap);
    json_decref(line);
    return fc_tap_done(&tap);
}
