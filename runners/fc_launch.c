/*
 * fc_launch.c - see fc_launch.h. One poll loop reads both pipes, so a
 * launcher that fills one pipe cannot block on it, and checks the clock
 * every half second.
 */
#include "fc_launch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fc_watchdog.h"

static volatile sig_atomic_t fc_signal_seen;
static fc_launch_tick_func_t fc_tick;
static void *fc_tick_arg;

void fc_launch_set_tick(fc_launch_tick_func_t tick, void *arg)
{
    fc_tick = tick;
    fc_tick_arg = arg;
}

static void fc_on_signal(int sig)
{
    fc_signal_seen = sig;
}

void fc_launch_catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fc_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int fc_launch_interrupted(void)
{
    return fc_signal_seen;
}

double fc_monotonic_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double fc_elapsed(const struct timespec *start)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) +
           (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

/* The JSON after `tag` in line, appended to list. */
static void fc_scan_tagged(const char *line, const char *tag, json_t *list)
{
    const char *at = strstr(line, tag);
    json_t *j;

    if (at && (j = json_loads(at + strlen(tag), 0, NULL)) != NULL)
        json_array_append_new(list, j);
}

void fc_launch_scan_line(const char *line, fc_launch_result_t *res)
{
    fc_scan_tagged(line, FC_WATCHDOG_TAG, res->watchdog);
    fc_scan_tagged(line, FC_WATCHDOG_DOWN_TAG, res->down);
    if (res->mpierr)
        fc_scan_tagged(line, FC_WATCHDOG_MPIERR_TAG, res->mpierr);
    if (res->started)
        fc_scan_tagged(line, FC_WATCHDOG_START_TAG, res->started);
    /* Open MPI's words: a process failed, or could not be launched */
    if (strstr(line, "the job has been aborted") ||
        strstr(line, " was unable to launch the specified application") ||
        strstr(line, " was unable to start the specified application"))
        res->abort_said = 1;
}

/* Keep complete stderr lines; pick out the watchdog's and the tear-down
 * lines of the ranks. */
static void fc_scan_stderr(char *pending, size_t *plen, fc_launch_result_t *res)
{
    char *line = pending, *nl;

    while ((nl = memchr(line, '\n', *plen - (size_t)(line - pending))) != NULL) {
        *nl = '\0';
        fc_launch_scan_line(line, res);
        line = nl + 1;
    }
    *plen -= (size_t)(line - pending);
    memmove(pending, line, *plen);
    if (*plen > 16384)      /* an absurd line: drop it */
        *plen = 0;
}

void fc_launch(char *const argv[], const char *tap_path, const char *log_path,
               double limit_s, fc_launch_result_t *res)
{
    int out[2], err[2], status = 0, open_fds = 2, reaped = 0;
    FILE *tap = fopen(tap_path, "w"), *log = fopen(log_path, "w");
    static char pending[32768];
    size_t plen = 0;
    double aborted_at = -1;     /* when the launcher said it aborts the job */
    struct timespec start;
    pid_t pid;

    memset(res, 0, sizeof(*res));
    res->watchdog = json_array();
    res->down = json_array();
    res->mpierr = json_array();
    res->started = json_array();
    if (tap == NULL || log == NULL || pipe(out) != 0 || pipe(err) != 0) {
        fprintf(stderr, "fabcert: cannot create %s or %s: %s\n", tap_path,
                log_path, strerror(errno));
        if (tap)
            fclose(tap);
        if (log)
            fclose(log);
        res->not_started = 1;
        res->exit_status = 127;
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]); close(out[1]); close(err[0]); close(err[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "fabcert: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    setpgid(pid, pid);
    while (open_fds > 0) {
        struct pollfd pfd[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
        char buf[8192];

        if (res->abort_said && aborted_at < 0)
            aborted_at = fc_elapsed(&start);
        res->abort_hung = aborted_at >= 0 &&
                          fc_elapsed(&start) - aborted_at > FC_LAUNCH_ABORT_GRACE_S;
        if (fc_elapsed(&start) > limit_s || fc_signal_seen || res->abort_hung) {
            if (fc_signal_seen)
                fprintf(log, "fabcert: interrupted by signal %d; stopping the launcher\n",
                        (int)fc_signal_seen);
            else if (res->abort_hung)
                fprintf(log, "fabcert: the launcher said it aborted the job %.0f s ago and "
                        "has not ended; stopping it\n", FC_LAUNCH_ABORT_GRACE_S);
            else
                fprintf(log, "fabcert: the launcher ran past %.0f s; killing it\n", limit_s);
            kill(-pid, SIGTERM);
            for (int i = 0; i < 20 && !reaped; ++i) {
                reaped = waitpid(pid, &status, WNOHANG) == pid;
                if (!reaped)
                    usleep(100000);
            }
            kill(-pid, SIGKILL);
            res->interrupted = fc_signal_seen != 0;
            res->timed_out = !res->interrupted && !res->abort_hung;
            break;
        }
        if (pfd[0].fd < 0 && pfd[1].fd < 0)
            break;
        if (fc_tick)
            fc_tick(fc_tick_arg);
        if (poll(pfd, 2, 500) <= 0)
            continue;
        for (int k = 0; k < 2; ++k) {
            ssize_t n;

            if (pfd[k].fd < 0 || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            n = read(pfd[k].fd, buf, sizeof(buf));
            if (n <= 0) {
                close(k == 0 ? out[0] : err[0]);
                if (k == 0)
                    out[0] = -1;
                else
                    err[0] = -1;
                --open_fds;
                continue;
            }
            if (k == 0) {
                fwrite(buf, 1, (size_t)n, tap);
                fflush(tap);
            } else {
                fwrite(buf, 1, (size_t)n, log);
                fflush(log);
                if (plen + (size_t)n > sizeof(pending))
                    plen = 0;
                memcpy(pending + plen, buf, (size_t)n);
                plen += (size_t)n;
                fc_scan_stderr(pending, &plen, res);
            }
        }
    }
    if (out[0] >= 0)
        close(out[0]);
    if (err[0] >= 0)
        close(err[0]);
    /* the pipes are closed; the launcher must exit now (bounded wait) */
    for (int i = 0; i < 100 && !reaped; ++i) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            break;
        if (i == 60) {
            kill(-pid, SIGKILL);
        }
        usleep(100000);
    }
    kill(-pid, SIGKILL);    /* leftovers of the group, if any */
    if (!reaped)
        waitpid(pid, &status, WNOHANG);
    res->seconds = fc_elapsed(&start);
    res->exit_status = res->timed_out || res->interrupted || res->abort_hung ? -1 :
                       WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    fclose(tap);
    fclose(log);
}

void fc_launch_result_free(fc_launch_result_t *res)
{
    json_decref(res->watchdog);
    json_decref(res->down);
    json_decref(res->mpierr);
    json_decref(res->started);
    res->watchdog = res->down = res->mpierr = res->started = NULL;
}

int fc_launch_hosts_argv(fc_launch_hosts_t *lh, json_t *hosts, const char **args, int max,
                         char *err, size_t errlen)
{
    size_t i, len = 0, n = json_array_size(hosts);
    int nargs = 0;
    json_t *h;

    snprintf(lh->np, sizeof(lh->np), "%zu", n * (size_t)lh->per_node);
    args[nargs++] = lh->mpirun;
    if (lh->srun) {
        lh->nodelist[0] = '\0';
        json_array_foreach(hosts, i, h)
            if (len + strlen(json_string_value(h)) + 2 < sizeof(lh->nodelist))
                len += (size_t)snprintf(lh->nodelist + len, sizeof(lh->nodelist) - len, "%s%s",
                                        len ? "," : "", json_string_value(h));
        snprintf(lh->nodes, sizeof(lh->nodes), "--nodes=%zu", n);
        snprintf(lh->tasks, sizeof(lh->tasks), "--ntasks-per-node=%d", lh->per_node);
        args[nargs++] = "--mpi=pmix";
        args[nargs++] = "--kill-on-bad-exit=0";
        args[nargs++] = "-n";
        args[nargs++] = lh->np;
        args[nargs++] = lh->nodes;
        args[nargs++] = "--nodelist";
        args[nargs++] = lh->nodelist;
        args[nargs++] = lh->tasks;
    } else {
        FILE *f = fopen(lh->hostfile, "w");

        if (f == NULL) {
            snprintf(err, errlen, "cannot write %s: %s", lh->hostfile, strerror(errno));
            return -1;
        }
        json_array_foreach(hosts, i, h)
            fprintf(f, "%s slots=%d\n", json_string_value(h), lh->per_node);
        fclose(f);
        if (lh->oversubscribe) {
            args[nargs++] = "--oversubscribe";
            args[nargs++] = "--bind-to";
            args[nargs++] = "none";
        }
        args[nargs++] = "-np";
        args[nargs++] = lh->np;
        args[nargs++] = "--hostfile";
        args[nargs++] = lh->hostfile;
        args[nargs++] = "--map-by";
        args[nargs++] = "node";
    }
    for (int k = 0; k < lh->nmpirun_args && nargs < max - 16; ++k)
        args[nargs++] = lh->mpirun_args[k];
    args[nargs] = NULL;
    return nargs;
}
