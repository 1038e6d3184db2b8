/*
 * fc_progress.c - see fc_progress.h. The follower keeps an open descriptor
 * on results.jsonl and reads what was appended since its last look, whole
 * lines only (a line still being written stays pending until its newline
 * comes); each record of the stage being run moves the stage's counters.
 * Times are the runner's own monotonic clock at the moment a record was
 * read (records carry times of one-second resolution), so a rate is
 * measured the way an operator would measure it with a watch.
 *
 * What "done" means per unit: `points`, the distinct test points of the
 * sweep among the `point` records (one record per group, so a point with
 * 128 racks counts once); `rounds`, the last `pairs_round`; `seconds`, the
 * soak's clock, whose start is bounded below by the stage_start and
 * above by each window's end read back (now - end_s): the tighter bound is
 * kept. ETA: points and rounds from the rate measured since the stage
 * began; the soak's from its duration.
 */
#include "fc_launch.h"
#include "fc_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_metrics.h"
#include "fc_report.h"
#include "fc_results.h"

#define FC_PROGRESS_EVERY_S 10.0    /* a line at least this often */
#define FC_PROGRESS_WRITE_S 1.0     /* progress.json at most this often */

struct fc_progress {
    char path[PATH_MAX + 32];       /* DIR/progress.json */
    char run_id[64];
    int print;
    int fd;                         /* results.jsonl, read-only */
    char *pending;                  /* a line not yet whole */
    size_t plen, pcap;
    int order[FC_STAGE_COUNT];      /* the stages to run, in order */
    int nstages;
    /* the stage being run */
    int stage, attempt, number;     /* stage id (-1: none), attempt, 1.. */
    int started, ended;             /* its stage_start, stage_end read */
    double t_launch, t_start, t_done;   /* launched, start read, last progress */
    char unit[16];                  /* points, rounds, seconds or "" */
    double total, done;             /* total <= 0: not known */
    long records, failures;         /* its records; checks not PASS */
    json_t *keys;                   /* test points seen */
    json_t *wrong;                  /* soak points with wrong elements so far */
    double soak_t0;                 /* the soak's clock started (bound) */
    int windows, new_window;
    double last_print, last_write;
    int dirty;
    json_t *finished;               /* the stages this invocation ended */
    fc_metrics_t *metrics;          /* --metrics, or NULL */
    int metrics_due;                /* something it shows changed */
    double last_metrics;
};


static double fc_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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

/* The stage's ETA in seconds (-1: not known yet) and how much is done. */
static double fc_progress_eta(fc_progress_t *p, double now)
{
    if (!p->started)
        return -1;
    if (strcmp(p->unit, "seconds") == 0) {
        p->done = now - p->soak_t0;
        if (p->done > p->total)
            p->done = p->total;
        return p->ended ? 0 : p->total - p->done;
    }
    if (p->ended || (p->total > 0 && p->done >= p->total))
        return 0;
    if (p->total <= 0 || p->done <= 0 || p->t_done <= p->t_start)
        return -1;
    {
        double rate = p->done / (p->t_done - p->t_start);
        double eta = (p->total - p->done) / rate - (now - p->t_done);

        return eta < 0 ? 0 : eta;
    }
}

static void fc_progress_write(fc_progress_t *p, const char *state, const char *verdict)
{
    double now = fc_monotonic_s(), wall = fc_wall(), eta = fc_progress_eta(p, now);
    char updated[32], *text;
    json_t *doc;

    fc_results_time(updated, sizeof(updated));
    doc = json_pack("{s:s, s:s, s:s, s:f, s:i, s:O}", "run_id", p->run_id, "state", state,
                    "updated", updated, "updated_unix", wall, "stages", p->nstages,
                    "finished", p->finished);
    if (p->stage >= 0 && strcmp(state, "running") == 0) {
        json_object_set_new(doc, "stage", json_string(fc_stage_name((fc_stage_id_t)p->stage)));
        json_object_set_new(doc, "stage_number", json_integer(p->number));
        json_object_set_new(doc, "attempt", json_integer(p->attempt));
        json_object_set_new(doc, "phase", json_string(!p->started ? "starting" :
                                                      p->ended ? "ending" : "running"));
        json_object_set_new(doc, "unit", p->unit[0] ? json_string(p->unit) : json_null());
        json_object_set_new(doc, "done", json_real(p->done));
        json_object_set_new(doc, "total", p->total > 0 ? json_real(p->total) : json_null());
        json_object_set_new(doc, "records", json_integer(p->records));
        json_object_set_new(doc, "failures", json_integer(p->failures +
                                                          (long)json_object_size(p->wrong)));
        if (strcmp(p->unit, "seconds") == 0)
            json_object_set_new(doc, "windows", json_integer(p->windows));
        json_object_set_new(doc, "elapsed_s", json_real(now - p->t_launch));
        json_object_set_new(doc, "eta_s", eta >= 0 ? json_real(eta) : json_null());
        json_object_set_new(doc, "eta_unix", eta >= 0 ? json_real(wall + eta) : json_null());
    }
    if (verdict)
        json_object_set_new(doc, "verdict", verdict[0] ? json_string(verdict) : json_null());
    text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(doc);
    if (text) {
        size_t n = strlen(text);
        char *line = fc_xmalloc(n + 2, "progress.json");

        memcpy(line, text, n);
        memcpy(line + n, "\n", 2);
        fc_write_atomic(p->path, line);
        free(line);
        free(text);
    }
    p->last_write = now;
    p->dirty = 0;
}

static void fc_progress_print(fc_progress_t *p, double now)
{
    double eta = fc_progress_eta(p, now);
    char what[160], when[64];
    const char *name = fc_stage_name((fc_stage_id_t)p->stage);
    long failed = p->failures + (long)json_object_size(p->wrong);

    p->last_print = now;
    if (!p->print)
        return;
    if (!p->started)
        snprintf(what, sizeof(what), "starting (%.0f s)", now - p->t_launch);
    else if (strcmp(p->unit, "seconds") == 0)
        snprintf(what, sizeof(what), "%.1f of %.1f s, window %d, %ld failed", p->done,
                 p->total, p->windows, failed);
    else if (strcmp(p->unit, "rounds") == 0)
        snprintf(what, sizeof(what), "round %.0f of %.0f, %ld failed%s", p->done, p->total,
                 failed, p->done >= p->total ? " (confirming and judging)" : "");
    else if (p->unit[0] && p->total > 0)
        snprintf(what, sizeof(what), "%.0f of %.0f %s, %ld failed", p->done, p->total,
                 p->unit, failed);
    else
        snprintf(what, sizeof(what), "%ld record(s), %ld failed", p->records, failed);
    if (!p->started)
        when[0] = '\0';
    else if (eta < 0)
        snprintf(when, sizeof(when), ", ETA not known yet");
    else
        snprintf(when, sizeof(when), ", ETA %.0f s", eta);
    if (p->attempt > 1)
        printf("progress: stage %s (%d of %d, attempt %d): %s%s\n", name, p->number,
               p->nstages, p->attempt, what, when);
    else
        printf("progress: stage %s (%d of %d): %s%s\n", name, p->number, p->nstages, what,
               when);
    fflush(stdout);
}

/* One record read from results.jsonl. */
static void fc_progress_record(fc_progress_t *p, json_t *rec, double now)
{
    const char *type = fc_json_str(rec, "type");
    const char *verdict = fc_json_str(rec, "verdict");

    if (p->stage < 0 || strcmp(fc_json_str(rec, "stage"), fc_stage_name((fc_stage_id_t)p->stage)))
        return;
    p->dirty = 1;
    if (strcmp(type, "stage_start") == 0) {
        json_t *work = json_object_get(rec, "work");

        p->started = 1;
        p->ended = 0;
        p->t_start = p->t_done = p->soak_t0 = now;
        p->done = p->total = 0;
        p->records = p->failures = 0;
        p->windows = 0;
        json_object_clear(p->keys);
        json_object_clear(p->wrong);
        snprintf(p->unit, sizeof(p->unit), "%s", fc_json_str(work, "unit"));
        p->total = json_number_value(json_object_get(work, "total"));
        return;
    }
    if (!p->started)
        return;
    ++p->records;
    if ((fc_record_is_check(type) || strcmp(type, "hang") == 0 || strcmp(type, "crash") == 0) &&
        verdict[0] && strcmp(verdict, "PASS") != 0)
        ++p->failures;
    if (strcmp(type, "stage_end") == 0) {
        p->ended = 1;
        json_object_clear(p->wrong);    /* now in its checks' verdicts */
    } else if (strcmp(type, "point") == 0 && strcmp(p->unit, "points") == 0) {
        char key[256];

        snprintf(key, sizeof(key), "%s %s %s %lld", fc_json_str(rec, "collective"),
                 fc_json_str(rec, "dtype"), fc_json_str(rec, "op"),
                 (long long)json_integer_value(json_object_get(rec, "requested_bytes")));
        if (json_object_get(p->keys, key) == NULL) {
            json_object_set_new(p->keys, key, json_true());
            p->done = (double)json_object_size(p->keys);
            p->t_done = now;
        }
    } else if (strcmp(type, "pairs_round") == 0 || strcmp(type, "rails_round") == 0) {
        p->done = json_number_value(json_object_get(rec, "round"));
        p->total = json_number_value(json_object_get(rec, "rounds"));
        p->t_done = now;
    } else if (strcmp(type, "soak_window") == 0) {
        double t0 = now - json_number_value(json_object_get(rec, "end_s"));
        size_t i;
        json_t *pt;

        if (t0 < p->soak_t0 || p->windows == 0)
            p->soak_t0 = t0;
        ++p->windows;
        p->new_window = 1;
        json_array_foreach(json_object_get(rec, "points"), i, pt)
            if (json_integer_value(json_object_get(pt, "wrong")) > 0) {
                char key[256];

                snprintf(key, sizeof(key), "%s %s %s %lld", fc_json_str(pt, "collective"),
                         fc_json_str(pt, "dtype"), fc_json_str(pt, "op"),
                         (long long)json_integer_value(json_object_get(pt, "bytes")));
                json_object_set_new(p->wrong, key, json_true());
            }
    }
}

/* Read what was appended since the last look: whole lines only. */
static void fc_progress_read(fc_progress_t *p)
{
    double now = fc_monotonic_s();

    for (;;) {
        char *line, *nl;
        ssize_t n;

        if (p->pcap - p->plen < 65536) {
            p->pcap = p->pcap * 2 + 65536;
            p->pending = fc_xrealloc(p->pending, p->pcap, 1, "the results being followed");
        }
        n = read(p->fd, p->pending + p->plen, p->pcap - p->plen - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p->plen += (size_t)n;
        line = p->pending;
        while ((nl = memchr(line, '\n', p->plen - (size_t)(line - p->pending))) != NULL) {
            json_t *rec;

            *nl = '\0';
            if ((rec = json_loads(line, 0, NULL)) != NULL) {
                p->metrics_due |= fc_metrics_record(p->metrics, rec);
                fc_progress_record(p, rec, now);
                json_decref(rec);
            }
            line = nl + 1;
        }
        p->plen -= (size_t)(line - p->pending);
        memmove(p->pending, line, p->plen);
    }
}

/* The metrics file, with the running stage's progress. */
static void fc_progress_metrics(fc_progress_t *p, double now)
{
    if (p->stage >= 0 && p->started) {
        double eta = fc_progress_eta(p, now);

        fc_metrics_progress(p->metrics, fc_stage_name((fc_stage_id_t)p->stage),
                            p->total > 0 ? p->done / p->total : -1, eta);
    }
    fc_metrics_flush(p->metrics);
    p->metrics_due = 0;
    p->last_metrics = now;
}

void fc_progress_tick(void *arg)
{
    fc_progress_t *p = arg;
    double now;

    if (p == NULL)
        return;
    fc_progress_read(p);
    now = fc_monotonic_s();
    if (p->stage >= 0 && (p->new_window || now - p->last_print >= FC_PROGRESS_EVERY_S)) {
        fc_progress_print(p, now);
        p->dirty = 1;
    }
    if (p->stage >= 0 && (p->new_window || (p->dirty && now - p->last_write >= FC_PROGRESS_WRITE_S)))
        fc_progress_write(p, "running", NULL);
    p->new_window = 0;
    if (p->metrics && (p->metrics_due || now - p->last_metrics >= FC_PROGRESS_EVERY_S))
        fc_progress_metrics(p, now);
}

fc_progress_t *fc_progress_open(const fc_run_state_t *st, long offset, int print)
{
    fc_progress_t *p = fc_xcalloc(1, sizeof(*p), "the run's progress");

    snprintf(p->path, sizeof(p->path), "%s/progress.json", st->o.out_dir);
    snprintf(p->run_id, sizeof(p->run_id), "%s", st->o.run_id);
    p->print = print;
    p->stage = -1;
    p->keys = json_object();
    p->wrong = json_object();
    p->finished = json_array();
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (st->profile.stages[s].present && st->o.stages[s])
            p->order[p->nstages++] = s;
    if ((p->fd = open(st->results_path, O_RDONLY | O_CLOEXEC)) < 0 ||
        lseek(p->fd, offset, SEEK_SET) < 0)
        fprintf(stderr, "fabcert: cannot follow %s for progress: %s\n", st->results_path,
                strerror(errno));
    fc_progress_write(p, "running", NULL);
    if (st->o.metrics[0])
        p->metrics = fc_metrics_open(st->o.metrics, st);
    return p;
}

/* The stage being run is over (another is launched, or the run ends). */
static void fc_progress_stage_over(fc_progress_t *p)
{
    double now = fc_monotonic_s();

    if (p->stage < 0)
        return;
    json_array_append_new(p->finished, json_pack("{s:s, s:i, s:b, s:I, s:f}", "stage",
        fc_stage_name((fc_stage_id_t)p->stage), "attempt", p->attempt, "ended", p->ended,
        "failures", (json_int_t)p->failures, "seconds", now - p->t_launch));
    p->stage = -1;
}

void fc_progress_stage(fc_progress_t *p, fc_stage_id_t s, int attempt)
{
    double now = fc_monotonic_s();

    fc_progress_read(p);
    fc_progress_stage_over(p);
    p->stage = (int)s;
    p->attempt = attempt;
    p->number = 0;
    for (int k = 0; k < p->nstages; ++k)
        if (p->order[k] == (int)s)
            p->number = k + 1;
    p->started = p->ended = 0;
    p->unit[0] = '\0';
    p->done = p->total = 0;
    p->records = p->failures = 0;
    p->windows = 0;
    p->t_launch = p->last_print = now;
    fc_progress_write(p, "running", NULL);
    if (p->metrics)
        fc_progress_metrics(p, now);
}

void fc_progress_close(fc_progress_t *p, const char *state, const char *verdict,
                       json_t *racks)
{
    if (p == NULL)
        return;
    if (p->fd >= 0)
        fc_progress_read(p);
    fc_progress_stage_over(p);
    fc_progress_write(p, state, verdict);
    fc_metrics_close(p->metrics, state, racks);
    if (p->fd >= 0)
        close(p->fd);
    json_decref(p->keys);
    json_decref(p->wrong);
    json_decref(p->finished);
    free(p->pending);
    free(p);
}
