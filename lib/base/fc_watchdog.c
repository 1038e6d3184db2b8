/*
 * fc_watchdog.c - see fc_watchdog.h. One thread waits on a condition
 * variable until the deadline or fc_watchdog_stop(), waking every half
 * second to sample the main thread's CPU clock and call counters (the
 * last seconds of those samples go into the report); the state it reports
 * is copied under a mutex. The tear-down line is formatted ahead, at each
 * progress mark, into one of two buffers, so that the SIGTERM handler only
 * calls write(2).
 */
#include "fc_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_log.h"

/* how long the ranks that fired wait for the others' lines to get out */
#define FC_WATCHDOG_GRACE_S 3
/* samples of the main thread's CPU clock and counters: every half second,
 * the last 16 s kept; the report covers the last few seconds */
#define FC_WATCHDOG_SAMPLE_NS 500000000L
#define FC_WATCHDOG_SAMPLES 32
#define FC_WATCHDOG_WINDOW_S 5.0

typedef struct fc_wd_sample {
    double t, cpu;
    long done;
} fc_wd_sample_t;

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running, stop;
    struct timespec deadline, started;
    double timeout_s;
    char stage[32], host[256];
    int rank, index;
    int peer;                       /* point-to-point partner, -1 */
    char what[160];
    clockid_t main_cpu;             /* the main thread's CPU clock */
    int have_cpu;
    fc_wd_sample_t samples[FC_WATCHDOG_SAMPLES];
    int nsamples;
    long entered, done;             /* measured calls (atomic) */
    long long last_sample_ms;       /* CLOCK_MONOTONIC of the newest sample,
                                     * and the longest gap between two in
                                     * the last 10 s, ending when (atomic):
                                     * the handler's "since_sample_ms" */
    long long max_gap_ms, max_gap_at_ms;
    char down[2][768];              /* the tear-down line, two copies */
    volatile sig_atomic_t down_cur; /* which copy is whole */
    size_t down_len[2];
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

static double fc_wd_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Called with the lock held. */
static void fc_wd_sample(void)
{
    fc_wd_sample_t *s = &fc_wd.samples[fc_wd.nsamples % FC_WATCHDOG_SAMPLES];
    struct timespec ts;

    s->t = fc_wd_now();
    s->cpu = fc_wd.have_cpu && clock_gettime(fc_wd.main_cpu, &ts) == 0
                 ? (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 : -1.0;
    long long now_ms = (long long)(s->t * 1000);
    long long gap = fc_wd.nsamples > 0 ? now_ms - fc_wd.last_sample_ms : 0;

    s->done = __atomic_load_n(&fc_wd.done, __ATOMIC_RELAXED);
    ++fc_wd.nsamples;
    /* a process stopped and woken samples once at once: the gap it
     * leaves is kept a while, so the tear-down line still shows it */
    if (gap >= fc_wd.max_gap_ms || now_ms - fc_wd.max_gap_at_ms > 10000) {
        __atomic_store_n(&fc_wd.max_gap_ms, gap, __ATOMIC_RELAXED);
        __atomic_store_n(&fc_wd.max_gap_at_ms, now_ms, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&fc_wd.last_sample_ms, now_ms, __ATOMIC_RELAXED);
}

/* The main thread's CPU seconds and completed calls over the last window
 * of samples (the newest one is taken now); window_s 0 if too few. */
static void fc_wd_window(double *window_s_p, double *cpu_s_p, long *done_p)
{
    const fc_wd_sample_t *last, *first;
    int n, k;

    fc_wd_sample();
    n = fc_wd.nsamples < FC_WATCHDOG_SAMPLES ? fc_wd.nsamples : FC_WATCHDOG_SAMPLES;
    last = &fc_wd.samples[(fc_wd.nsamples - 1) % FC_WATCHDOG_SAMPLES];
    first = last;
    for (k = 1; k < n; ++k) {
        const fc_wd_sample_t *s = &fc_wd.samples[(fc_wd.nsamples - 1 - k) % FC_WATCHDOG_SAMPLES];

        first = s;
        if (last->t - s->t >= FC_WATCHDOG_WINDOW_S)
            break;
    }
    *window_s_p = last->t - first->t;
    *cpu_s_p = last->cpu >= 0 && first->cpu >= 0 ? last->cpu - first->cpu : -1.0;
    *done_p = last->done - first->done;
}

static void fc_wd_report(void)
{
    char what[sizeof(fc_wd.what) * 2], host[sizeof(fc_wd.host) * 2];
    double late_s, window_s, cpu_s;
    long done_in_window;

    /* a rank that was stopped (SIGSTOP) or starved fires late, when it
     * runs again: the runner counts it among those that did not arrive */
    late_s = fc_wd_now() - ((double)fc_wd.deadline.tv_sec + (double)fc_wd.deadline.tv_nsec * 1e-9);
    fc_wd_window(&window_s, &cpu_s, &done_in_window);
    fc_json_escape(fc_wd.what, what, sizeof(what));
    fc_json_escape(fc_wd.host, host, sizeof(host));
    fprintf(stderr, FC_WATCHDOG_TAG "{\"stage\":\"%s\",\"rank\":%d,"
            "\"host\":\"%s\",\"index\":%d,\"at\":\"%s\",\"timeout_s\":%.0f,"
            "\"late_s\":%.3f,\"calls_entered\":%ld,\"calls_done\":%ld,"
            "\"window_s\":%.2f,\"cpu_s\":%.4f,\"done_in_window\":%ld}\n",
            fc_wd.stage, fc_wd.rank, host, fc_wd.index, what, fc_wd.timeout_s,
            late_s, __atomic_load_n(&fc_wd.entered, __ATOMIC_RELAXED),
            __atomic_load_n(&fc_wd.done, __ATOMIC_RELAXED), window_s, cpu_s,
            done_in_window);
    fflush(stderr);
    fc_error("stage %s passed its timeout of %.0f s at %s; ending rank %d",
             fc_wd.stage, fc_wd.timeout_s, fc_wd.what, fc_wd.rank);
}

static void *fc_watchdog_main(void *arg)
{
    int fired = 0;

    (void)arg;
    pthread_mutex_lock(&fc_wd.lock);
    while (!fc_wd.stop) {
        struct timespec next;

        clock_gettime(CLOCK_MONOTONIC, &next);
        next.tv_nsec += FC_WATCHDOG_SAMPLE_NS;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        if (next.tv_sec > fc_wd.deadline.tv_sec ||
            (next.tv_sec == fc_wd.deadline.tv_sec && next.tv_nsec > fc_wd.deadline.tv_nsec))
            next = fc_wd.deadline;
        if (pthread_cond_timedwait(&fc_wd.cond, &fc_wd.lock, &next) != ETIMEDOUT ||
            fc_wd.stop)
            continue;
        if (fc_wd_now() >= (double)fc_wd.deadline.tv_sec +
                           (double)fc_wd.deadline.tv_nsec * 1e-9) {
            fired = 1;
            break;
        }
        fc_wd_sample();
    }
    if (fired) {
        fc_wd_report();
        pthread_mutex_unlock(&fc_wd.lock);
        sleep(FC_WATCHDOG_GRACE_S);
        _exit(FC_EXIT_FAIL);
    }
    pthread_mutex_unlock(&fc_wd.lock);
    return NULL;
}

/* Format the tear-down line into the copy the handler is not reading. */
static void fc_wd_format_down(void)
{
    char what[sizeof(fc_wd.what) * 2], host[sizeof(fc_wd.host) * 2];
    int next = !fc_wd.down_cur, n;

    fc_json_escape(fc_wd.what, what, sizeof(what));
    fc_json_escape(fc_wd.host, host, sizeof(host));
    /* left open: the handler appends how long before this rank's own
     * deadline it came, and closes it */
    n = snprintf(fc_wd.down[next], sizeof(fc_wd.down[next]) - 32, FC_WATCHDOG_DOWN_TAG
                 "{\"stage\":\"%s\",\"rank\":%d,\"host\":\"%s\",\"index\":%d,"
                 "\"at\":\"%s\",\"signal\":%d,\"before_deadline_ms\":", fc_wd.stage,
                 fc_wd.rank, host, fc_wd.index, what, SIGTERM);
    fc_wd.down_len[next] = n < 0 ? 0 : (size_t)n < sizeof(fc_wd.down[next]) - 32
                                          ? (size_t)n : sizeof(fc_wd.down[next]) - 33;
    fc_wd.down_cur = next;
}

/* v in decimal at line + *len (async-signal-safe). */
static void fc_wd_put_ll(char *line, size_t *len, long long v)
{
    char digits[24];
    size_t nd = 0;

    if (v < 0)
        line[(*len)++] = '-';
    for (unsigned long long u = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
         nd == 0 || u > 0; u /= 10)
        digits[nd++] = (char)('0' + u % 10);
    while (nd > 0)
        line[(*len)++] = digits[--nd];
}

/* The launcher is tearing the job down: say where this rank was, how long
 * before its own deadline the tear-down came (negative: after it) and how
 * long ago the watchdog thread last sampled (a process that was stopped,
 * SIGSTOP, and is woken by the tear-down has a gap of seconds: it was not
 * running, whatever its deadline), then end as SIGTERM would have ended
 * it. Only async-signal-safe calls: clock_gettime, write, signal, raise. */
static void fc_wd_on_term(int sig)
{
    static const char gap_key[] = ",\"since_sample_ms\":";
    int cur = fc_wd.down_cur;
    char line[sizeof(fc_wd.down[0])];
    size_t len = fc_wd.down_len[cur];
    struct timespec now;
    long long ms = 0, gap = -1;
    ssize_t rc;

    for (size_t i = 0; i < len; ++i)
        line[i] = fc_wd.down[cur][i];
    if (clock_gettime(CLOCK_MONOTONIC, &now) == 0) {
        long long now_ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
        long long held = __atomic_load_n(&fc_wd.max_gap_ms, __ATOMIC_RELAXED);

        ms = ((long long)fc_wd.deadline.tv_sec - (long long)now.tv_sec) * 1000 +
             ((long long)fc_wd.deadline.tv_nsec - (long long)now.tv_nsec) / 1000000;
        gap = now_ms - __atomic_load_n(&fc_wd.last_sample_ms, __ATOMIC_RELAXED);
        if (now_ms - __atomic_load_n(&fc_wd.max_gap_at_ms, __ATOMIC_RELAXED) <= 10000 &&
            held > gap)
            gap = held;
    }
    fc_wd_put_ll(line, &len, ms);
    for (size_t i = 0; gap_key[i]; ++i)
        line[len++] = gap_key[i];
    fc_wd_put_ll(line, &len, gap);
    line[len++] = '}';
    line[len++] = '\n';
    rc = write(STDERR_FILENO, line, len);
    (void)rc;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void fc_wd_catch_term(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fc_wd_on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
}

void fc_watchdog_identify(const char *stage, int rank, const char *host)
{
    pthread_mutex_lock(&fc_wd.lock);
    snprintf(fc_wd.stage, sizeof(fc_wd.stage), "%s", stage);
    snprintf(fc_wd.host, sizeof(fc_wd.host), "%s", host);
    snprintf(fc_wd.what, sizeof(fc_wd.what), "start-up");
    fc_wd.rank = rank;
    fc_wd.index = -1;
    pthread_mutex_unlock(&fc_wd.lock);
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
    fc_watchdog_identify(stage, rank, host);
    fc_wd.peer = -1;
    fc_wd.stop = 0;
    fc_wd.nsamples = 0;
    fc_wd.max_gap_ms = fc_wd.max_gap_at_ms = 0;
    fc_wd.have_cpu = pthread_getcpuclockid(pthread_self(), &fc_wd.main_cpu) == 0;
    fc_wd_sample();
    fc_wd_format_down();
    fc_wd_catch_term();
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
    fc_wd_format_down();
    pthread_mutex_unlock(&fc_wd.lock);
}

void fc_watchdog_call_enter(void)
{
    __atomic_add_fetch(&fc_wd.entered, 1, __ATOMIC_RELAXED);
}

void fc_watchdog_call_done(void)
{
    __atomic_add_fetch(&fc_wd.done, 1, __ATOMIC_RELAXED);
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
    signal(SIGTERM, SIG_DFL);   /* the stage is over: nothing left to say */
}

void fc_watchdog_peer(int world_rank)
{
    __atomic_store_n(&fc_wd.peer, world_rank, __ATOMIC_RELAXED);
}

void fc_watchdog_mpi_error(const char *error, int error_class)
{
    char what[sizeof(fc_wd.what) * 2], host[sizeof(fc_wd.host) * 2], err[512];

    pthread_mutex_lock(&fc_wd.lock);
    fc_json_escape(fc_wd.what, what, sizeof(what));
    fc_json_escape(fc_wd.host, host, sizeof(host));
    fc_json_escape(error, err, sizeof(err));
    fprintf(stderr, FC_WATCHDOG_MPIERR_TAG "{\"stage\":\"%s\",\"rank\":%d,\"host\":\"%s\","
            "\"index\":%d,\"at\":\"%s\",\"peer\":%d,\"error\":\"%s\",\"class\":%d}\n",
            fc_wd.stage, fc_wd.rank, host, fc_wd.index, what,
            __atomic_load_n(&fc_wd.peer, __ATOMIC_RELAXED), err, error_class);
    fflush(stderr);
    pthread_mutex_unlock(&fc_wd.lock);
}

void fc_watchdog_control_error(const char *what, int from_world, const char *why)
{
    char where[sizeof(fc_wd.what) * 2], host[sizeof(fc_wd.host) * 2], err[1024], ctl[256];

    pthread_mutex_lock(&fc_wd.lock);
    fc_json_escape(fc_wd.what, where, sizeof(where));
    fc_json_escape(fc_wd.host, host, sizeof(host));
    fc_json_escape(why, err, sizeof(err));
    fc_json_escape(what, ctl, sizeof(ctl));
    fprintf(stderr, FC_WATCHDOG_MPIERR_TAG "{\"stage\":\"%s\",\"rank\":%d,\"host\":\"%s\","
            "\"index\":%d,\"at\":\"%s\",\"peer\":%d,\"error\":\"%s\",\"class\":-1,"
            "\"control\":\"%s\"}\n", fc_wd.stage, fc_wd.rank, host, fc_wd.index, where,
            from_world, err, ctl);
    fflush(stderr);
    pthread_mutex_unlock(&fc_wd.lock);
}

void fc_watchdog_started(const char *stage)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID",
                                        "PMI_RANK" };
    char host[256] = "", esc[sizeof(host) * 2], *end;
    const char *v = NULL;
    long rank;

    for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]) && v == NULL; ++k)
        v = getenv(vars[k]);
    if (v == NULL || (rank = strtol(v, &end, 10)) < 0 || end == v || *end != '\0')
        return;
    if (gethostname(host, sizeof(host) - 1) != 0)
        snprintf(host, sizeof(host), "unknown-host");
    fc_json_escape(host, esc, sizeof(esc));
    fprintf(stderr, FC_WATCHDOG_START_TAG "{\"stage\":\"%s\",\"rank\":%ld,\"host\":\"%s\","
            "\"pid\":%ld}\n", stage, rank, esc, (long)getpid());
    fflush(stderr);
}
