/*
 * fc_verdict.c - see fc_verdict.h. The plan and the racks come from the
 * plan record; one pass over the records finds each stage's attempts (a
 * stage_start opens an attempt, its stage_end closes it) and what is no
 * evidence of any; then rack by rack its records are judged into
 * findings, each stage is checked for missing evidence, and what holds for
 * the whole run is added. What each type of record is comes from the
 * record-type table (fc_record.h). Failures are grouped by (stage, part,
 * host) so that a node failing 200 checks is one finding with a count,
 * not 200 lines.
 */
#include "fc_verdict.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_record.h"
#include "fc_verdict_figures.h"
#include "fc_verdict_retest.h"

#define FC_MAX_ATTEMPTS 8

typedef struct fc_attempt {
    json_t *hosts;          /* rank_hosts of its stage_start */
    json_t *start;          /* its stage_start record */
    int ended, skipped;     /* its stage_end was read; it said SKIP */
    const char *reason;     /* why it was skipped */
    const char *status;     /* its stage_end's status: ok, fail, ... */
    const char *error;      /* the stage's first error, when it gave one */
    const char *end_verdict;    /* its stage_end's verdict */
    /* its stage_end's counts, each a whole number >= 0, or -1 when it is
     * missing or not one (the end record then contradicts itself) */
    json_int_t failed_points;   /* TAP points that failed */
    json_int_t points;          /* TAP points */
    json_int_t judged_written;  /* records with a verdict it wrote */
    json_int_t judged_np_written;   /* ... of which not PASS */
    int unreadable;         /* records of its time that could not be read */
    long not_pass;          /* its own check records that did not pass */
    long judged_seen;       /* its own records with a verdict, as read */
    long judged_np_seen;    /* ... of which not PASS */
    int other_profile;      /* it judged against another profile's bytes */
} fc_attempt_t;

typedef struct fc_stage_attempts {
    fc_attempt_t a[FC_MAX_ATTEMPTS];    /* in the order they began */
    int n;                  /* attempts in a[] */
    int beyond;             /* stage_starts past FC_MAX_ATTEMPTS: their
                             * records are not followed, so the stage
                             * cannot be judged whole */
} fc_stage_attempts_t;

/* What the first pass over the records found, for every rack's pass. */
typedef struct fc_verdict_scan {
    fc_stage_attempts_t att[FC_STAGE_COUNT];    /* each stage's attempts */
    const char *skip_reason[FC_STAGE_COUNT];    /* why the runner skipped a
                                                 * stage or could not launch it */
    int unreadable_early;   /* unreadable records before any stage */
    int misplaced;          /* records of another run, or judged records
                             * outside any attempt of a known stage */
    unsigned char *ignored; /* per record: misplaced, not evidence */
    unsigned char *unplaced;    /* per record: names no rack of the plan
                                 * (1 failing, 2 INCOMPLETE) */
} fc_verdict_scan_t;

fc_status_t fc_results_load(const char *path, long from, json_t **records_p,
                            int *bad_lines_p)
{
    FILE *f = fopen(path, "r");
    json_t *records;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int bad = 0;

    if (f == NULL) {
        fprintf(stderr, "fabcert: %s: %s\n", path, strerror(errno));
        return FC_ERR_INVALID;
    }
    records = json_array();
    if (from > 0)
        fseek(f, from, SEEK_SET);
    for (long lineno = 1; (len = getline(&line, &cap, f)) > 0; ++lineno) {
        /* a NUL anywhere (a crash leaves zero-filled holes) makes the line
         * unreadable, whatever json_loads would make of its prefix */
        int has_nul = memchr(line, '\0', (size_t)len) != NULL;
        json_t *rec = has_nul ? NULL : json_loads(line, 0, NULL);
        ssize_t k = 0;

        while (k < len && strchr(" \t\r\n", line[k]) != NULL && line[k] != '\0')
            ++k;
        if (json_is_object(rec)) {
            json_array_append_new(records, rec);
        } else if (k < len) {
            /* a record cut off by a kill, a full disk, or damaged: it
             * stays in place as a marker, so the verdicts know which
             * stage's records cannot all be known */
            json_decref(rec);
            json_array_append_new(records, json_pack("{s:s, s:I}", "type",
                                  FC_UNREADABLE_RECORD, "line", (json_int_t)lineno));
            ++bad;
        } else {
            json_decref(rec);
        }
    }
    free(line);
    fclose(f);
    *records_p = records;
    if (bad_lines_p)
        *bad_lines_p = bad;
    return FC_OK;
}

int fc_rack_name_ok(const char *name)
{
    if (name[0] == '\0' || name[0] == '.' || strlen(name) >= FC_VERDICT_NAME)
        return 0;
    for (const char *c = name; *c; ++c)
        if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
            return 0;
    return 1;
}

/* The plan record says which stages the verdicts require: it must say it
 * unambiguously (known stage names, once each, booleans where booleans
 * belong) and its racks must be usable as file names. */
static fc_status_t fc_verdict_check_plan(json_t *plan)
{
    json_t *stages = json_object_get(plan, "stages"), *st, *h;
    int seen[FC_STAGE_COUNT] = { 0 };
    size_t i;

    if (!json_is_array(stages)) {
        fprintf(stderr, "fabcert: the plan record has no list of stages\n");
        return FC_ERR_INVALID;
    }
    json_array_foreach(stages, i, st) {
        int s = fc_stage_from_name(fc_json_str(st, "name"));
        json_t *sel = json_object_get(st, "selected");

        if (s < 0 || seen[s]++ || !json_is_boolean(json_object_get(st, "required")) ||
            (sel != NULL && !json_is_boolean(sel))) {
            fprintf(stderr, "fabcert: the plan record's stage %zu ('%s') is malformed: an "
                    "unknown or repeated name, or required/selected not a boolean\n",
                    i + 1, fc_json_str(st, "name"));
            return FC_ERR_INVALID;
        }
    }
    json_t *hosts = json_object_get(json_object_get(plan, "inventory"), "hosts"), *h2;
    size_t j;

    json_array_foreach(hosts, i, h)
        for (j = 0; j < i; ++j)
            if ((h2 = json_array_get(hosts, j)) &&
                strcmp(fc_json_str(h, "host"), fc_json_str(h2, "host")) == 0) {
                fprintf(stderr, "fabcert: the plan's inventory lists host '%s' twice (in "
                        "racks '%s' and '%s'): a host is in exactly one rack\n",
                        fc_json_str(h, "host"), fc_json_str(h2, "rack"),
                        fc_json_str(h, "rack"));
                return FC_ERR_INVALID;
            }
    json_array_foreach(hosts, i, h)
        if (!fc_rack_name_ok(fc_json_str(h, "rack"))) {
            fprintf(stderr, "fabcert: the plan's rack '%s' (of host '%s') cannot name a "
                    "certificate file: letters, digits, '-', '_' and '.' only, not first\n",
                    fc_json_str(h, "rack"), fc_json_str(h, "host"));
            return FC_ERR_INVALID;
        }
    return FC_OK;
}

static fc_status_t fc_verdict_setup(json_t *records, fc_run_verdict_t *out)
{
    json_t *plan = NULL, *rec, *hosts, *h;
    size_t i, k;
    int nplans = 0;

    json_array_foreach(records, i, rec)
        if (fc_record_id(rec) == FC_RECORD_PLAN) {
            plan = rec;
            ++nplans;
        }
    if (plan == NULL) {
        fprintf(stderr, "fabcert: the results hold no plan record (not written "
                "by `fabcert run`?)\n");
        return FC_ERR_INVALID;
    }
    if (nplans > 1) {
        fprintf(stderr, "fabcert: the results hold %d plan records: more than one run "
                "wrote into this directory, and no verdict can be drawn from them\n",
                nplans);
        return FC_ERR_INVALID;
    }
    if (fc_verdict_check_plan(plan) != FC_OK)
        return FC_ERR_INVALID;
    /* a plan from before overrides and --stages were recorded cannot say
     * what ran: not certifiable */
    out->plan_legacy = json_object_get(plan, "overrides") == NULL;
    out->plan = json_incref(plan);
    snprintf(out->run_id, sizeof(out->run_id), "%s", fc_json_str(plan, "run_id"));
    json_array_foreach(records, i, rec) {
        const char *t = fc_json_str(rec, "time");

        if (t[0] && (out->started[0] == '\0' || strcmp(t, out->started) < 0))
            snprintf(out->started, sizeof(out->started), "%s", t);
        if (strcmp(t, out->finished) > 0)
            snprintf(out->finished, sizeof(out->finished), "%s", t);
    }
    json_array_foreach(json_object_get(plan, "stages"), i, rec) {
        int s = fc_stage_from_name(fc_json_str(rec, "name"));

        if (s >= 0) {
            json_t *sel = json_object_get(rec, "selected");

            out->planned[s] = 1;
            out->required[s] = json_is_true(json_object_get(rec, "required"));
            /* plans written before --stages was recorded list run stages only */
            out->selected[s] = sel == NULL || json_is_true(sel);
        }
    }
    hosts = json_object_get(json_object_get(plan, "inventory"), "hosts");
    out->racks = calloc(json_array_size(hosts) + 1, sizeof(*out->racks));
    if (out->racks == NULL)
        return FC_ERR_INTERNAL;
    json_array_foreach(hosts, i, h) {
        const char *rack = fc_json_str(h, "rack");
        fc_rack_verdict_t *r = NULL;

        for (k = 0; k < (size_t)out->nracks; ++k)
            if (strcmp(out->racks[k].rack, rack) == 0)
                r = &out->racks[k];
        if (r == NULL) {
            r = &out->racks[out->nracks++];
            snprintf(r->rack, sizeof(r->rack), "%s", rack);
            r->hosts = calloc(json_array_size(hosts), FC_VERDICT_NAME);
            r->checks = json_array();
            r->quarantines = json_array();
            r->failed_checks = json_array();
            r->incomplete_checks = json_array();
            if (r->hosts == NULL)
                return FC_ERR_INTERNAL;
        }
        snprintf(r->hosts[r->nhosts++], FC_VERDICT_NAME, "%s", fc_json_str(h, "host"));
    }
    return FC_OK;
}

static int fc_rack_has_host(const fc_rack_verdict_t *r, const char *host)
{
    for (int h = 0; h < r->nhosts; ++h)
        if (strcmp(r->hosts[h], host) == 0)
            return 1;
    return 0;
}

static int fc_attempt_includes(const fc_attempt_t *at, const fc_rack_verdict_t *r)
{
    for (int h = 0; h < r->nhosts; ++h)
        if (fc_json_has_string(at->hosts, r->hosts[h]))
            return 1;
    return 0;
}

/* Does this judged record concern rack r (was the rack measured by it)? */
static int fc_record_concerns(json_t *rec, const fc_rack_verdict_t *r,
                              const fc_attempt_t *at)
{
    if (fc_record_whole_job(rec))
        return at != NULL && fc_attempt_includes(at, r);
    return fc_record_names_rack(rec, r->rack);
}

/* Does this failing record implicate rack r? What its `implicates` names
 * (every rack of its attempt for the part "cluster"), else the racks it
 * concerns. */
static int fc_record_implicates(json_t *rec, const fc_rack_verdict_t *r,
                                const fc_attempt_t *at)
{
    json_t *imp = json_object_get(rec, "implicates");

    if (!json_is_object(imp))
        return fc_record_concerns(rec, r, at);
    if (strcmp(fc_json_str(imp, "part"), "cluster") == 0)
        return at != NULL && fc_attempt_includes(at, r);
    if (fc_json_has_string(json_object_get(imp, "racks"), r->rack))
        return 1;
    if (strcmp(fc_json_str(imp, "rack"), r->rack) == 0)
        return 1;
    return fc_rack_has_host(r, fc_json_str(imp, "host"));
}

/* primary: the text is the verdict on the part itself (a quarantine, a
 * node's localisation, a hang) and replaces a measurement's text */
static void fc_add_finding(fc_rack_verdict_t *r, fc_verdict_t verdict, const char *stage,
                           const char *part, const char *host, const char *text, int primary)
{
    for (int i = 0; i < r->nfindings; ++i) {
        fc_finding_t *f = &r->findings[i];

        if (f->verdict == verdict && strcmp(f->stage, stage) == 0 &&
            strcmp(f->part, part) == 0 && strcmp(f->host, host) == 0) {
            /* the same part failing again: count it, keep the first text */
            char *more = strstr(f->text, " [and ");
            int n = more ? atoi(more + 6) : 0;

            if (more)
                *more = '\0';
            if (primary)
                snprintf(f->text, sizeof(f->text), "%s", text);
            snprintf(f->text + strlen(f->text), sizeof(f->text) - strlen(f->text),
                     " [and %d more]", n + 1);
            return;
        }
    }
    if (r->nfindings == FC_VERDICT_MAX_REASONS) {
        r->more_findings++;
        return;
    }
    fc_finding_t *f = &r->findings[r->nfindings++];

    f->verdict = verdict;
    snprintf(f->stage, sizeof(f->stage), "%s", stage);
    snprintf(f->part, sizeof(f->part), "%s", part);
    snprintf(f->host, sizeof(f->host), "%s", host);
    snprintf(f->text, sizeof(f->text), "%s", text);
}

/* Does the attempt include a host of any rack of the plan? */
static int fc_attempt_includes_a_rack(const fc_run_verdict_t *out, const fc_attempt_t *at)
{
    for (int k = 0; k < out->nracks; ++k)
        if (fc_attempt_includes(at, &out->racks[k]))
            return 1;
    return 0;
}

/* Records that say something failed (or could not be certified) but name
 * no rack of the plan: a rack "ghost", a host of no rack, an implicates
 * with no host. Rack by rack they would each be skipped; instead they
 * count against every rack of their attempt (README: "a failure that names
 * no rack of the plan"). */
static void fc_verdict_find_unplaced(json_t *records, const fc_run_verdict_t *out,
                                     fc_verdict_scan_t *scan)
{
    int cur[FC_STAGE_COUNT];
    json_t *rec;
    size_t i;

    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        cur[s] = -1;
    json_array_foreach(records, i, rec) {
        const fc_record_type_t *t = fc_record_type_of(rec);
        int s = fc_stage_from_name(fc_json_str(rec, "stage")), placed = 0;
        const fc_attempt_t *at;
        const char *verdict;

        if (s < 0 || scan->ignored[i] || (fc_json_str(rec, "run_id")[0] &&
                                          strcmp(fc_json_str(rec, "run_id"), out->run_id) != 0))
            continue;
        if (t->id == FC_RECORD_STAGE_START) {
            cur[s]++;
            continue;
        }
        at = cur[s] >= 0 && cur[s] < FC_MAX_ATTEMPTS ? &scan->att[s].a[cur[s]] : NULL;
        if ((!t->check && !t->stop) || at == NULL)
            continue;
        verdict = fc_record_verdict(rec);
        if (strcmp(verdict, "PASS") == 0)
            continue;
        if (strcmp(verdict, "INCOMPLETE") == 0) {
            for (int k = 0; k < out->nracks && !placed; ++k)
                placed = fc_record_concerns(rec, &out->racks[k], at);
            scan->unplaced[i] = placed ? 0 : 2;
        } else if (!fc_retest_supersedes(records, i)) {
            for (int k = 0; k < out->nracks && !placed; ++k)
                placed = fc_record_implicates(rec, &out->racks[k], at);
            scan->unplaced[i] = placed ? 0 : 1;
        }
    }
}

/* An unplaced record (fc_verdict_find_unplaced) against rack r, one of
 * its attempt's racks (or any rack, when the attempt has none of them). */
static void fc_verdict_unplaced(fc_rack_verdict_t *r, fc_stage_id_t s, json_t *rec,
                                int failing)
{
    json_t *imp = json_object_get(rec, "implicates");
    const char *rack = fc_json_str(rec, "rack")[0] ? fc_json_str(rec, "rack")
                                                   : fc_json_str(imp, "rack");
    const char *host = fc_json_str(rec, "host")[0] ? fc_json_str(rec, "host")
                                                   : fc_json_str(imp, "host");
    char what[300], text[FC_VERDICT_TEXT];

    fc_record_text(rec, NULL, what, sizeof(what));
    snprintf(text, sizeof(text), "a %s that names no rack of the plan (rack '%s', host "
             "'%s'), so it counts against every rack of its attempt: %s",
             failing ? "failure" : "measurement not certified", rack, host, what);
    json_array_append(r->checks, rec);
    r->stages[s].checks++;
    if (failing) {
        r->stages[s].failed++;
        json_array_append(r->failed_checks, rec);
        r->stages[s].verdict = FC_VERDICT_FAIL;
        fc_add_finding(r, FC_VERDICT_FAIL, fc_stage_name(s), "unplaced", "", text, 0);
    } else {
        json_array_append(r->incomplete_checks, rec);
        if (r->stages[s].verdict != FC_VERDICT_FAIL)
            r->stages[s].verdict = FC_VERDICT_INCOMPLETE;
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, fc_stage_name(s), "measurement", "",
                       text, 0);
    }
}

/* A quarantine of one of r's hosts fails the rack, on the part named. */
static void fc_verdict_quarantine(fc_rack_verdict_t *r, json_t *rec)
{
    char text[FC_VERDICT_TEXT];

    if (!fc_rack_has_host(r, fc_json_str(rec, "host")))
        return;
    json_array_append(r->quarantines, rec);
    snprintf(text, sizeof(text), "host %s quarantined after the %s stage: %s",
             fc_json_str(rec, "host"), fc_json_str(rec, "stage"), fc_json_str(rec, "reason"));
    fc_add_finding(r, FC_VERDICT_FAIL, fc_json_str(rec, "stage"), fc_json_str(rec, "part"),
                   fc_json_str(rec, "host"), text, 1);
}

/* A judged record (records[i], of type t) that concerns or implicates r,
 * in stage s's attempt at: a check of the rack; not certified when it
 * concerns r and is INCOMPLETE; a failure of the rack when it implicates
 * r and is anything but PASS or INCOMPLETE (and no retest judged it). */
static void fc_verdict_judge_record(json_t *records, size_t i, const fc_record_type_t *t,
                                    fc_rack_verdict_t *r, fc_stage_id_t s,
                                    const fc_attempt_t *at)
{
    json_t *rec = json_array_get(records, i);
    char text[FC_VERDICT_TEXT], wrong_why[256], wrong_text[400];
    const char *verdict;
    int wrong;

    /* zero tolerance, applied again from the record's own figures: wrong
     * bits fail it whatever its verdict says */
    wrong = fc_record_wrong_bits(rec, wrong_why, sizeof(wrong_why)) &&
            strcmp(fc_json_str(rec, "verdict"), "FAIL") != 0;
    verdict = wrong ? "FAIL" : fc_json_str(rec, "verdict");
    if (wrong)
        snprintf(wrong_text, sizeof(wrong_text), "its own figures show wrong bits "
                 "(%s), though its verdict says '%s': wrong bits are never "
                 "tolerated", wrong_why, fc_json_str(rec, "verdict"));
    if (strcmp(verdict, "INCOMPLETE") == 0 && fc_record_concerns(rec, r, at)) {
        /* measured, but not as the profile demands (e.g. the background
         * load was not applied): not certified */
        json_array_append(r->incomplete_checks, rec);
        if (r->stages[s].verdict != FC_VERDICT_FAIL)
            r->stages[s].verdict = FC_VERDICT_INCOMPLETE;
        fc_record_text(rec, NULL, text, sizeof(text));
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, fc_stage_name(s), "measurement", "",
                       text, 0);
        return;
    }
    /* anything but PASS that is not INCOMPLETE counts as a failure,
     * whatever its spelling; a wrong result a retest has judged fails
     * through the retest's record instead */
    if (strcmp(verdict, "PASS") == 0 ||
        !fc_record_implicates(rec, r, at) || fc_retest_supersedes(records, i))
        return;
    json_t *imp = json_object_get(rec, "implicates");
    const char *part = json_is_object(imp) ? fc_json_str(imp, "part") : "rack";
    const char *host = json_is_object(imp) ? fc_json_str(imp, "host") : "";

    r->stages[s].failed++;
    json_array_append(r->failed_checks, rec);
    r->stages[s].verdict = FC_VERDICT_FAIL;
    fc_record_text(rec, wrong ? wrong_text : NULL, text, sizeof(text));
    fc_add_finding(r, FC_VERDICT_FAIL, fc_stage_name(s), part, host, text, t->names_part);
}

static void fc_verdict_judge_rack(json_t *records, const fc_run_verdict_t *out,
                                  const fc_verdict_scan_t *scan, fc_rack_verdict_t *r,
                                  const int last[FC_STAGE_COUNT], int last_checks[FC_STAGE_COUNT])
{
    int cur[FC_STAGE_COUNT];
    json_t *rec;
    size_t i;

    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        cur[s] = -1;
        last_checks[s] = 0;
    }
    json_array_foreach(records, i, rec) {
        const fc_record_type_t *t = fc_record_type_of(rec);
        int s = fc_stage_from_name(fc_json_str(rec, "stage"));
        const fc_attempt_t *at;

        if (s < 0 || scan->ignored[i] || (fc_json_str(rec, "run_id")[0] &&
                      strcmp(fc_json_str(rec, "run_id"), out->run_id) != 0))
            continue;       /* another run's records, and records after
                             * their attempt's end, are counted already */
        if (t->id == FC_RECORD_STAGE_START) {
            cur[s]++;
            continue;
        }
        at = cur[s] >= 0 && cur[s] < FC_MAX_ATTEMPTS ? &scan->att[s].a[cur[s]] : NULL;
        if (t->id == FC_RECORD_QUARANTINE) {
            fc_verdict_quarantine(r, rec);
            continue;
        }
        if ((!t->check && !t->stop) || at == NULL)
            continue;       /* (a judged record before its stage began is
                             * counted as misplaced) */
        if (scan->unplaced[i]) {
            if (fc_attempt_includes(at, r) || !fc_attempt_includes_a_rack(out, at))
                fc_verdict_unplaced(r, (fc_stage_id_t)s, rec, scan->unplaced[i] == 1);
            continue;
        }
        if (!fc_record_concerns(rec, r, at) && !fc_record_implicates(rec, r, at))
            continue;
        json_array_append(r->checks, rec);
        if (!t->stop) {
            r->stages[s].checks++;
            last_checks[s] += cur[s] == last[s];
        }
        fc_verdict_judge_record(records, i, t, r, (fc_stage_id_t)s, at);
    }
}

/* A record of the stage's latest attempt that comes after its stage_end
 * and that only the stage writes: a judged check (the runner's accounts,
 * hangs and crashes, and the retest's records legitimately come after the
 * end) or a second stage_end. */
static int fc_record_after_end(json_t *rec, const fc_record_type_t *t,
                               const fc_stage_attempts_t *att)
{
    const char *source = fc_json_str(rec, "source");

    if (att->n == 0 || !att->a[att->n - 1].ended)
        return 0;
    if (t->id == FC_RECORD_STAGE_END)
        return 1;
    return t->check && strcmp(source, "runner") != 0 && strcmp(source, "retest") != 0;
}

/* A count of a stage_end record: a whole number >= 0, else -1. */
static json_int_t fc_end_count(json_t *end, const char *key)
{
    json_t *v = json_object_get(end, key);

    return json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v) : -1;
}

static void fc_verdict_scan(json_t *records, const fc_run_verdict_t *out,
                            fc_verdict_scan_t *scan)
{
    fc_stage_attempts_t *att = scan->att;
    int open_stage = -1;        /* the stage whose attempt started last */
    json_t *rec;
    size_t i;

    json_array_foreach(records, i, rec) {
        const fc_record_type_t *t = fc_record_type_of(rec);
        int s = fc_stage_from_name(fc_json_str(rec, "stage"));
        int judged = t->check || t->stop;

        if (t->id == FC_RECORD_UNREADABLE) {
            /* stages run one after another: a line that cannot be read
             * belongs to the attempt that started last (its own records or
             * the runner's account of it) */
            if (open_stage >= 0)
                att[open_stage].a[att[open_stage].n - 1].unreadable++;
            else
                scan->unreadable_early++;
            continue;
        }
        if (fc_json_str(rec, "run_id")[0] &&
            strcmp(fc_json_str(rec, "run_id"), out->run_id) != 0) {
            scan->misplaced++;
            continue;
        }
        if (judged && (s < 0 || att[s].n == 0)) {
            scan->misplaced++;
            continue;
        }
        if (s < 0)
            continue;
        if (judged && !out->planned[s]) {
            scan->misplaced++;      /* a stage the plan does not have */
            scan->ignored[i] = 1;
            continue;
        }
        if (fc_record_after_end(rec, t, &att[s])) {
            /* the stage's own judged record, or a second end, after its
             * attempt ended: not evidence of that attempt (README rule 7) */
            scan->misplaced++;
            scan->ignored[i] = 1;
            continue;
        }
        if (t->check && !att[s].a[att[s].n - 1].ended &&
            strcmp(fc_json_str(rec, "verdict"), "PASS") != 0)
            att[s].a[att[s].n - 1].not_pass++;
        if (att[s].n > 0 && !att[s].a[att[s].n - 1].ended &&
            json_object_get(rec, "verdict") != NULL && t->id != FC_RECORD_STAGE_END &&
            strcmp(fc_json_str(rec, "source"), "runner") != 0) {
            att[s].a[att[s].n - 1].judged_seen++;
            att[s].a[att[s].n - 1].judged_np_seen +=
                strcmp(fc_json_str(rec, "verdict"), "PASS") != 0;
        }
        if (t->id == FC_RECORD_STAGE_SKIP)
            scan->skip_reason[s] = fc_json_str(rec, "reason");   /* the runner's */
        if (t->id == FC_RECORD_STAGE_START && att[s].n == FC_MAX_ATTEMPTS) {
            att[s].beyond++;
            open_stage = s;
        } else if (t->id == FC_RECORD_STAGE_START) {
            att[s].a[att[s].n].hosts = json_object_get(rec, "rank_hosts");
            att[s].a[att[s].n].start = rec;
            att[s].a[att[s].n].other_profile =
                strcmp(fc_json_str(rec, "profile_sha256"),
                       fc_json_str(out->plan, "profile_sha256")) != 0;
            att[s].n++;
            open_stage = s;
        } else if (t->id == FC_RECORD_STAGE_END && att[s].n > 0) {
            fc_attempt_t *a = &att[s].a[att[s].n - 1];

            a->ended = 1;
            a->skipped = strcmp(fc_json_str(rec, "verdict"), "SKIP") == 0;
            a->reason = fc_json_str(rec, "reason");
            a->status = fc_json_str(rec, "status");
            a->error = fc_json_str(rec, "error");
            a->end_verdict = fc_json_str(rec, "verdict");
            a->failed_points = fc_end_count(rec, "failed_points");
            a->points = fc_end_count(rec, "points");
            a->judged_written = fc_end_count(rec, "judged_records");
            a->judged_np_written = fc_end_count(rec, "judged_not_pass");
        } else if (t->id == FC_RECORD_STAGE_ERROR) {
            /* the runner's account of an attempt that did not end (the
             * run was interrupted) or of a launch that never started */
            if (att[s].n > 0 && !att[s].a[att[s].n - 1].ended)
                att[s].a[att[s].n - 1].reason = fc_json_str(rec, "reason");
            else if (att[s].n == 0)
                scan->skip_reason[s] = fc_json_str(rec, "reason");
        }
    }
}

/* A stage's end record must agree with itself and with what it wrote:
 * every count there (points, judged_records, judged_not_pass,
 * failed_points) as a whole number; as many judged records, and as many
 * of them not PASS, as results.jsonl holds for the attempt (a record the
 * stage wrote is not there, or one is there that it did not write); a TAP
 * point has at least one record, and records come from points; no more
 * failed points than points; a pass ends ok with no failed point; a fail
 * names failed points, and results.jsonl holds at least as many failing
 * records (a failure that was counted but never written is a lost
 * record). 1 if so, else 0 and why. */
static int fc_attempt_end_consistent(const fc_attempt_t *a, char *why, size_t len)
{
    static const char *const names[] = {
        "points", "judged_records", "judged_not_pass", "failed_points",
    };
    const json_int_t counts[] = {
        a->points, a->judged_written, a->judged_np_written, a->failed_points,
    };

    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); ++k)
        if (counts[k] < 0) {
            snprintf(why, len, "its '%s' is missing or not a whole number", names[k]);
            return 0;
        }
    if (a->judged_seen != a->judged_written || a->judged_np_seen != a->judged_np_written) {
        snprintf(why, len, "%lld judged record(s) written, %ld read; %lld not PASS "
                 "written, %ld read", (long long)a->judged_written, a->judged_seen,
                 (long long)a->judged_np_written, a->judged_np_seen);
        return 0;
    }
    if (a->points > a->judged_seen || (a->points == 0) != (a->judged_seen == 0)) {
        snprintf(why, len, "%lld point(s) but %ld judged record(s): every point has a "
                 "record", (long long)a->points, a->judged_seen);
        return 0;
    }
    if (a->failed_points > a->points) {
        snprintf(why, len, "%lld failed point(s) of %lld", (long long)a->failed_points,
                 (long long)a->points);
        return 0;
    }
    snprintf(why, len, "%lld failed point(s), %ld failing record(s) in results.jsonl",
             (long long)a->failed_points, a->not_pass);
    if (strcmp(a->status, "ok") == 0)
        return strcmp(a->end_verdict, "PASS") == 0 && a->failed_points == 0;
    if (strcmp(a->status, "fail") == 0 && a->failed_points > 0)
        return strcmp(a->end_verdict, "FAIL") == 0 && a->not_pass >= a->failed_points;
    return 1;           /* errors and failures outside checks: judged below */
}

/* A host of the rack that did not take part in the attempt that speaks for
 * the rack (not quarantined: that FAILs the rack anyway) was not tested. */
static const char *fc_attempt_missing_host(const fc_attempt_t *a, const fc_rack_verdict_t *r,
                                           char *text, size_t len, const char *stage)
{
    for (int h = 0; h < r->nhosts; ++h) {
        size_t i;
        json_t *q;
        int quarantined = 0;

        json_array_foreach(r->quarantines, i, q)
            quarantined |= strcmp(fc_json_str(q, "host"), r->hosts[h]) == 0;
        if (!quarantined && !fc_json_has_string(a->hosts, r->hosts[h])) {
            snprintf(text, len, "required stage %s did not run on host %s of the rack",
                     stage, r->hosts[h]);
            return r->hosts[h];
        }
    }
    return NULL;
}

/* One stage on one rack, after its records were judged: was it left out,
 * did it run and finish, did it judge anything, can all its records be
 * read? Anything less than that is INCOMPLETE, never PASS; the reason is
 * a finding when the stage is required, or when the stage ran on the rack
 * and what it left cannot be trusted whole (a record was lost, it ended in
 * error, it did not finish: any of these could hide a failure), optional
 * or not. Also notes the backend the stage ran on. */
static void fc_verdict_stage_completeness(const fc_run_verdict_t *out, fc_rack_verdict_t *r,
                                          fc_stage_id_t s, const fc_stage_attempts_t *att,
                                          int last_index, int last_checks, const char *skip_reason)
{
    fc_stage_verdict_t *sv = &r->stages[s];
    const fc_attempt_t *last = last_index >= 0 ? &att->a[last_index] : NULL;
    const char *name = fc_stage_name(s);
    char text[FC_VERDICT_TEXT];
    const char *missing = NULL;     /* a host the stage did not run on */
    const char *kind = out->required[s] ? "required" : "optional";
    char contradiction[200];
    int unreadable = 0, broken = 0;

    if (last && last->start) {
        snprintf(sv->backend, sizeof(sv->backend), "%s", fc_json_str(last->start, "backend"));
        snprintf(sv->backend_requested, sizeof(sv->backend_requested), "%s",
                 fc_json_str(last->start, "backend_requested"));
        snprintf(sv->backend_note, sizeof(sv->backend_note), "%s",
                 fc_json_str(last->start, "backend_note"));
        sv->gpu_plugin = json_incref(json_object_get(last->start, "gpu_plugin"));
        if (sv->gpu_plugin && !json_is_true(json_object_get(sv->gpu_plugin, "beside_program")) &&
            sv->backend_note[0] == '\0')
            snprintf(sv->backend_note, sizeof(sv->backend_note), "the GPU plugin came from "
                     "$FABCERT_GPU_PLUGIN, not the build: %s (sha256 %.16s)",
                     fc_json_str(sv->gpu_plugin, "path"), fc_json_str(sv->gpu_plugin, "sha256"));
    }
    if (att->beyond > 0) {
        /* the runner makes two attempts at most; records past the limit
         * are not judged, and one of them could be a failure */
        snprintf(text, sizeof(text), "the %s stage has %d attempts in results.jsonl, more "
                 "than the %d the verdict follows (too many attempts): the records of "
                 "the attempts past the %dth are not judged", name, att->n + att->beyond,
                 FC_MAX_ATTEMPTS, FC_MAX_ATTEMPTS);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, name, "results", "", text, 0);
        if (sv->verdict != FC_VERDICT_FAIL)
            sv->verdict = FC_VERDICT_INCOMPLETE;
    }
    for (int a = 0; a < att->n; ++a)
        if (fc_attempt_includes(&att->a[a], r))
            unreadable += att->a[a].unreadable;
    if (unreadable > 0) {
        snprintf(text, sizeof(text), "%d record(s) of the %s stage could not be read "
                 "(results.jsonl has a torn or damaged line): its checks cannot all be "
                 "known", unreadable, name);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, name, "results", "", text, 0);
        if (sv->verdict != FC_VERDICT_FAIL)
            sv->verdict = FC_VERDICT_INCOMPLETE;
    }
    sv->ran = last && last->ended && !last->skipped;
    if (sv->verdict == FC_VERDICT_FAIL)
        return;         /* its failures are the evidence, and the worse verdict */
    /* what a stage that was not run leaves missing counts only when the
     * stage is required; what a stage that ran on the rack left broken (it
     * did not finish, ended in error or FAIL outside its checks, judged
     * against other profile bytes, an end record that contradicts its
     * records) counts even when it is optional: its failures may be the
     * ones that are missing */
    if (!out->selected[s]) {
        snprintf(text, sizeof(text), "%s stage %s was left out of this run "
                 "(--stages): the profile's plan was not run whole", kind, name);
    } else if (!sv->ran) {
        const char *why = last ? last->reason : skip_reason;

        broken = last != NULL && !last->skipped;
        snprintf(text, sizeof(text), "%s stage %s %s%s%s", kind, name,
                 last == NULL ? "did not run on any node of the rack" :
                 last->skipped ? "was skipped" : "did not finish",
                 why && why[0] ? ": " : "", why ? why : "");
    } else if ((broken = last->other_profile)) {
        snprintf(text, sizeof(text), "%s stage %s was judged against a profile "
                 "with sha256 %.12s, not the plan's %.12s (the profile changed during the "
                 "run)", kind, name, fc_json_str(last->start, "profile_sha256"),
                 fc_json_str(out->plan, "profile_sha256"));
    } else if ((broken = !fc_attempt_end_consistent(last, contradiction,
                                                    sizeof(contradiction)))) {
        snprintf(text, sizeof(text), "%s stage %s has an end record that contradicts "
                 "itself or its records (status '%s', verdict '%s': %s)", kind, name,
                 last->status, last->end_verdict, contradiction);
    } else if ((broken = strcmp(last->status, "ok") != 0 && strcmp(last->status, "fail") != 0)) {
        snprintf(text, sizeof(text), "%s stage %s ended with status '%s'%s%s",
                 kind, name, last->status, last->error[0] ? ": " : "", last->error);
    } else if ((broken = strcmp(last->status, "fail") == 0 && last->failed_points == 0)) {
        snprintf(text, sizeof(text), "%s stage %s ended FAIL without a failing "
                 "check%s%s", kind, name, last->error[0] ? ": " : "", last->error);
    } else if (last_checks == 0) {
        snprintf(text, sizeof(text), "%s stage %s finished but judged no check "
                 "on this rack", kind, name);
    } else if ((missing = fc_attempt_missing_host(last, r, text, sizeof(text), name))) {
        ;
    } else {
        return;
    }
    if (sv->verdict != FC_VERDICT_FAIL)
        sv->verdict = FC_VERDICT_INCOMPLETE;
    if (out->required[s] || broken)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, name, "stage", missing ? missing : "",
                       text, 0);
}

const char *fc_verdict_name(fc_verdict_t v)
{
    switch (v) {
    case FC_VERDICT_PASS: return "PASS";
    case FC_VERDICT_FAIL: return "FAIL";
    default: return "INCOMPLETE";
    }
}

/* What holds for the whole run, found once and given to every rack. */
static void fc_verdict_run_findings(const fc_run_verdict_t *out, fc_rack_verdict_t *r,
                                    int unreadable_early, int misplaced)
{
    char text[FC_VERDICT_TEXT];
    int checks = 0;

    if (unreadable_early > 0)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "",
                       "a record before the first stage could not be read "
                       "(results.jsonl is damaged there)", 0);
    if (misplaced > 0) {
        snprintf(text, sizeof(text), "%d record(s) in results.jsonl belong to another run "
                 "or to no attempt of a stage of this plan (judged before it began, or "
                 "after it ended): the directory does not hold one run whole", misplaced);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "", text, 0);
    }
    if (out->plan_legacy)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "",
                       "the plan record predates recording command-line overrides and "
                       "stage selection: what ran cannot be certified", 0);
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        checks += r->stages[s].checks;
    if (checks == 0)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "stage", "",
                       "no check judged this rack: nothing is certified for it", 0);
}

fc_status_t fc_verdict_compute(json_t *records, fc_run_verdict_t *out)
{
    fc_verdict_scan_t scan;
    fc_status_t st;

    memset(out, 0, sizeof(*out));
    memset(&scan, 0, sizeof(scan));
    if ((st = fc_verdict_setup(records, out)) != FC_OK) {
        fc_verdict_free(out);
        return st;
    }
    /* records counted as misplaced that the racks' pass must not judge */
    scan.ignored = calloc(json_array_size(records) + 1, 1);
    scan.unplaced = calloc(json_array_size(records) + 1, 1);
    if (scan.ignored == NULL || scan.unplaced == NULL) {
        free(scan.ignored);
        free(scan.unplaced);
        fc_verdict_free(out);
        return FC_ERR_INTERNAL;
    }
    fc_verdict_scan(records, out, &scan);
    fc_verdict_find_unplaced(records, out, &scan);
    for (int k = 0; k < out->nracks; ++k) {
        fc_rack_verdict_t *r = &out->racks[k];
        int last[FC_STAGE_COUNT], last_checks[FC_STAGE_COUNT];

        /* per stage, the latest attempt that included the rack speaks
         * for it */
        for (int s = 0; s < FC_STAGE_COUNT; ++s) {
            last[s] = -1;
            for (int a = 0; a < scan.att[s].n; ++a)
                if (fc_attempt_includes(&scan.att[s].a[a], r))
                    last[s] = a;
        }
        /* judged records and quarantines, each against the attempt it
         * belongs to */
        fc_verdict_judge_rack(records, out, &scan, r, last, last_checks);
        /* stages that did not run, finish or judge anything for this rack */
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            if (out->planned[s])
                fc_verdict_stage_completeness(out, r, (fc_stage_id_t)s, &scan.att[s],
                                              last[s], last_checks[s], scan.skip_reason[s]);
        fc_verdict_run_findings(out, r, scan.unreadable_early, scan.misplaced);
        r->verdict = FC_VERDICT_PASS;
        for (int f = 0; f < r->nfindings; ++f)
            if (r->findings[f].verdict > r->verdict)
                r->verdict = r->findings[f].verdict;
        if (r->verdict > out->overall)
            out->overall = r->verdict;
    }
    if (out->nracks == 0)
        out->overall = FC_VERDICT_INCOMPLETE;
    free(scan.ignored);
    free(scan.unplaced);
    return FC_OK;
}

void fc_verdict_add_run_finding(fc_run_verdict_t *v, fc_verdict_t verdict, const char *text)
{
    for (int k = 0; k < v->nracks; ++k) {
        fc_rack_verdict_t *r = &v->racks[k];

        fc_add_finding(r, verdict, "run", "results", "", text, 0);
        if (verdict > r->verdict)
            r->verdict = verdict;
        if (r->verdict > v->overall)
            v->overall = r->verdict;
    }
}

void fc_verdict_free(fc_run_verdict_t *v)
{
    for (int k = 0; k < v->nracks; ++k) {
        free(v->racks[k].hosts);
        json_decref(v->racks[k].checks);
        json_decref(v->racks[k].quarantines);
        json_decref(v->racks[k].failed_checks);
        json_decref(v->racks[k].incomplete_checks);
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            json_decref(v->racks[k].stages[s].gpu_plugin);
    }
    json_decref(v->plan);
    free(v->racks);
    memset(v, 0, sizeof(*v));
}
