/*
 * watchdog_down.c - unit test of the tear-down line (lib/fc_watchdog.c):
 * a child process starts its watchdog with a 10 s deadline and waits; the
 * parent sends it SIGTERM, as mpirun's tear-down does, and reads its
 * stderr. The child writes one FABCERT-DOWN line, whole JSON, saying where
 * it was and how long before its own deadline the tear-down came (about
 * 9.7 s here), and ends by SIGTERM. The runner reads that figure to tell
 * a rank torn down before its deadline (it started late) from one that
 * did not arrive (tests/unit/diagnose.c).
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

int main(void)
{
    fc_tap_t tap;
    int pipefd[2], status = 0;
    char buf[2048] = "";
    ssize_t n, got = 0;
    pid_t pid;
    struct timespec wait_ts = { 0, 300000000L };
    json_t *line = NULL;
    const char *at;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 3);
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
    kill(pid, SIGTERM);
    while ((n = read(pipefd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += n;
    buf[got > 0 ? got : 0] = '\0';
    waitpid(pid, &status, 0);
    at = strstr(buf, FC_WATCHDOG_DOWN_TAG);
    if (at)
        line = json_loads(at + strlen(FC_WATCHDOG_DOWN_TAG), JSON_DISABLE_EOF_CHECK, NULL);
    fc_tap_ok(&tap, line != NULL && json_integer_value(json_object_get(line, "rank")) == 3 &&
                  strcmp(json_string_value(json_object_get(line, "at")),
                         "all_reduce \"int32\" sum 4 KiB") == 0,
              "one tear-down line, whole JSON, saying where the rank was");
    {
        json_t *ms = json_object_get(line, "before_deadline_ms");
        long long v = json_integer_value(ms);

        fc_tap_ok(&tap, json_is_integer(ms) && v > 8000 && v < 9900,
                  "it came %lld ms before the rank's own deadline (10 s after its start)", v);
    }
    fc_tap_ok(&tap, WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
              "the rank ends as SIGTERM would have ended it");
    if (line == NULL)
        fc_tap_diag(&tap, "stderr: %s", buf);
    json_decref(line);
    return fc_tap_done(&tap);
}
