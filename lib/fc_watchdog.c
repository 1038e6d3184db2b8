/*
 * fc_watchdog.c - see fc_watchdog.h. One detached-in-spirit thread waits
 * on a condition variable until the deadline or fc_watchdog_stop(); the
 * state it reports is copied under a mutex.
 */
#include "fc_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_log.h"

/* how long the ranks that fired wait for the others' lines to get out */
#define FC_WATCHDOG_GRACE_S 3

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running, stop;
    struct timespec deadline, started;
    double timeout_s;
    char stage[32], host[256];
    int rank, index;
    char what[160];
} fc_wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void fc_json_escape(const char *in, char *out, size_t len)
{
    size_t o = 0;

    for (; *in && o + 3 < len; ++in) {
        if (*in == '"' || *in == '\\')
            out[o++] = '\\';
        out[o++] = (*in >= 0x20) ? *in : ' ';
    }
    out[o] = '\0';
}

static void *fc_watchdog_main(void *arg)
{
    int fired = 0;

    (void)arg;
    pthread_mutex_lock(&fc_wd.lock);
    while (!fc_wd.stop) {
        if (pthread_cond_timedwait(&fc_wd.cond, &fc_wd.lock, &fc_wd.deadline) ==
            ETIMEDOUT && !fc_wd.stop) {
            fired = 1;
            break;
        }
    }
    if (fired) {
        char what[sizeof(fc_wd.what) * 2], host[sizeof(fc_wd.host) * 2];
        struct timespec now;
        double late_s;

        /* a rank that was stopped (SIGSTOP) or starved fires late, when it
         * runs again: the runner counts it among those that did not arrive */
        clock_gettime(CLOCK_MONOTONIC, &now);
        late_s = (double)(now.tv_sec - fc_wd.deadline.tv_sec) +
                 (double)(now.tv_nsec - fc_wd.deadline.tv_nsec) * 1e-9;
        fc_json_escape(fc_wd.what, what, sizeof(what));
        fc_json_escape(fc_wd.host, host, sizeof(host));
        fprintf(stderr, FC_WATCHDOG_TAG "{\"stage\":\"%s\",\"rank\":%d,"
                "\"host\":\"%s\",\"index\":%d,\"at\":\"%s\",\"timeout_s\":%.0f,"
                "\"late_s\":%.3f}\n",
                fc_wd.stage, fc_wd.rank, host, fc_wd.index, what, fc_wd.timeout_s,
                late_s);
        fflush(stderr);
        fc_error("stage %s passed its timeout of %.0f s at %s; ending rank %d",
                 fc_wd.stage, fc_wd.timeout_s, fc_wd.what, fc_wd.rank);
        pthread_mutex_unlock(&fc_wd.lock);
        sleep(FC_WATCHDOG_GRACE_S);
        _exit(FC_EXIT_FAIL);
    }
    pthread_mutex_unlock(&fc_wd.lock);
    return NULL;
}

fc_status_t fc_watchdog_start(double timeout_s, const char *stage, int rank,
                              const char *host)
{
    pthread_condattr_t attr;
    int rc;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&fc_wd.cond, &attr);
    pthread_condattr_destroy(&attr);
    clock_gettime(CLOCK_MONOTONIC, &fc_wd.started);
    fc_wd.deadline = fc_wd.started;
    fc_wd.deadline.tv_sec += (time_t)timeout_s;
    fc_wd.deadline.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
    if (fc_wd.deadline.tv_nsec >= 1000000000L) {
        fc_wd.deadline.tv_sec++;
        fc_wd.deadline.tv_nsec -= 1000000000L;
    }
    fc_wd.timeout_s = timeout_s;
    snprintf(fc_wd.stage, sizeof(fc_wd.stage), "%s", stage);
    snprintf(fc_wd.host, sizeof(fc_wd.host), "%s", host);
    snprintf(fc_wd.what, sizeof(fc_wd.what), "start-up");
    fc_wd.rank = rank;
    fc_wd.index = -1;
    fc_wd.stop = 0;
    if ((rc = pthread_create(&fc_wd.thread, NULL, fc_watchdog_main, NULL)) != 0) {
        fc_error("cannot start the watchdog thread: %s", strerror(rc));
        return FC_ERR_INTERNAL;
    }
    fc_wd.running = 1;
    return FC_OK;
}

void fc_watchdog_progress(int index, const char *what)
{
    pthread_mutex_lock(&fc_wd.lock);
    fc_wd.index = index;
    snprintf(fc_wd.what, sizeof(fc_wd.what), "%s", what);
    pthread_mutex_unlock(&fc_wd.lock);
}

void fc_watchdog_stop(void)
{
    if (!fc_wd.running)
        return;
    pthread_mutex_lock(&fc_wd.lock);
    fc_wd.stop = 1;
    pthread_cond_signal(&fc_wd.cond);
    pthread_mutex_unlock(&fc_wd.lock);
    pthread_join(fc_wd.thread, NULL);
    fc_wd.running = 0;
}
