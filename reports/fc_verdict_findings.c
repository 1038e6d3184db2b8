/*
 * fc_verdict_findings.c - one rack's findings from the records: each
 * quarantine of its hosts, and each judged record (a check or the runner's
 * account of a hang or crash) that concerns the rack or whose failure
 * implicates it, judged against the attempt it belongs to. Which racks a
 * record concerns comes from the record-type table (fc_record.h); what it
 * implicates from its own `implicates`. A record that fails or could not
 * be certified but names no rack of the plan counts against every rack of
 * its attempt. Failures are grouped by (stage, part, host) so that a node
 * failing 200 checks is one finding with a count, not 200 lines.
 */
#include "fc_verdict_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_counters_check.h"
#include "fc_verdict_figures.h"
#include "fc_verdict_retest.h"

/* Does this judged record concern rack r (was the rack measured by it)? */
static int fc_record_concerns(json_t *rec, const fc_rack_verdict_t *r,
                              const fc_attempt_t *at)
{
    if (fc_record_whole_job(rec))
        return at != NULL && fc_attempt_includes(at, r);
    return fc_record_names_rack(rec, r->rack);
}

/* Does this failing record implicate rack r? What its `implicates` names
 * (every rack of its attempt for the part "cluster", unless it lists the
 * racks it measured: the contention stage's background racks are not
 * judged by it), else the racks it concerns. */
static int fc_record_implicates(json_t *rec, const fc_rack_verdict_t *r,
                                const fc_attempt_t *at)
{
    json_t *imp = json_object_get(rec, "implicates");

    if (!json_is_object(imp))
        return fc_record_concerns(rec, r, at);
    if (strcmp(fc_json_str(imp, "part"), "cluster") == 0 &&
        !json_is_array(json_object_get(imp, "racks")))
        return at != NULL && fc_attempt_includes(at, r);
    if (fc_json_has_string(json_object_get(imp, "racks"), r->rack))
        return 1;
    if (strcmp(fc_json_str(imp, "rack"), r->rack) == 0)
        return 1;
    return fc_rack_has_host(r, fc_json_str(imp, "host"));
}

/* primary: the text is the verdict on the part itself (a quarantine, a
 * node's localisation, a hang) and replaces a measurement's text */
void fc_add_finding(fc_rack_verdict_t *r, fc_verdict_t verdict, const char *stage,
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

/* rec fails rack r: a failed check of stage s, with text as its finding on
 * part and host (primary: as fc_add_finding). */
static void fc_verdict_mark_failed(fc_rack_verdict_t *r, fc_stage_id_t s, json_t *rec,
                                   const char *part, const char *host, const char *text,
                                   int primary)
{
    r->stages[s].failed++;
    json_array_append(r->failed_checks, rec);
    r->stages[s].verdict = FC_VERDICT_FAIL;
    fc_add_finding(r, FC_VERDICT_FAIL, fc_stage_name(s), part, host, text, primary);
}

/* rec could not be certified for rack r: a check of stage s left
 * INCOMPLETE (unless the stage failed already), with text as its finding
 * on part. */
static void fc_verdict_mark_incomplete_at(fc_rack_verdict_t *r, fc_stage_id_t s, json_t *rec,
                                          const char *part, const char *host,
                                          const char *text)
{
    json_array_append(r->incomplete_checks, rec);
    if (r->stages[s].verdict != FC_VERDICT_FAIL)
        r->stages[s].verdict = FC_VERDICT_INCOMPLETE;
    fc_add_finding(r, FC_VERDICT_INCOMPLETE, fc_stage_name(s), part, host, text, 0);
}

static void fc_verdict_mark_incomplete(fc_rack_verdict_t *r, fc_stage_id_t s, json_t *rec,
                                       const char *part, const char *text)
{
    fc_verdict_mark_incomplete_at(r, s, rec, part, "", text);
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
 * count against every rack of their attempt (docs/verdicts.md: "a failure that names
 * no rack of the plan"). */
void fc_verdict_find_unplaced(json_t *records, const fc_run_verdict_t *out,
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
        at = cur[s] >= 0 && cur[s] < FC_VERDICT_MAX_ATTEMPTS ? &scan->att[s].a[cur[s]] : NULL;
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
    if (failing)
        fc_verdict_mark_failed(r, s, rec, "unplaced", "", text, 0);
    else
        fc_verdict_mark_incomplete(r, s, rec, "measurement", text);
}

/* rec, a failure of a wrong result, is explained for rack r by the host
 * the bounded retest `by` placed: said, not failed, not counted. */
static void fc_verdict_explained(fc_rack_verdict_t *r, json_t *rec, json_t *by)
{
    json_t *culprit = json_object_get(by, "culprit");
    char label[256], text[FC_VERDICT_TEXT];

    fc_check_label(rec, label, sizeof(label));
    snprintf(text, sizeof(text), "explained by %s (rack %s), placed by the retest after the "
             "%s stage: %s", fc_json_str(culprit, "host"), fc_json_str(culprit, "rack"),
             fc_json_str(by, "stage"),
             json_string_value(json_array_get(json_object_get(by, "reasons"), 0))
                 ? json_string_value(json_array_get(json_object_get(by, "reasons"), 0)) : "");
    json_array_append_new(r->explained, json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s}", "stage", fc_json_str(rec, "stage"), "check", label,
        "verdict_recorded", fc_json_str(rec, "verdict"), "host", fc_json_str(culprit, "host"),
        "rack", fc_json_str(culprit, "rack"), "evidence", text));
}

/* A quarantine of one of r's hosts fails the rack, on the part named. */
static void fc_verdict_quarantine(fc_rack_verdict_t *r, json_t *rec)
{
    char text[FC_VERDICT_TEXT];

    if (!fc_rack_has_host(r, fc_json_str(rec, "host")))
        return;
    json_array_append(r->quarantines, rec);
    if (json_is_string(json_object_get(rec, "nic")))   /* a NIC, for its rail */
        snprintf(text, sizeof(text), "NIC %s of host %s quarantined for rail %lld after the "
                 "%s stage: %s", fc_json_str(rec, "nic"), fc_json_str(rec, "host"),
                 (long long)json_integer_value(json_object_get(rec, "rail")),
                 fc_json_str(rec, "stage"), fc_json_str(rec, "reason"));
    else
        snprintf(text, sizeof(text), "host %s quarantined after the %s stage: %s",
                 fc_json_str(rec, "host"), fc_json_str(rec, "stage"), fc_json_str(rec, "reason"));
    fc_add_finding(r, FC_VERDICT_FAIL, fc_json_str(rec, "stage"), fc_json_str(rec, "part"),
                   fc_json_str(rec, "host"), text, 1);
}

/* A judged record (records[i], of type t) that concerns or implicates r,
 * in stage s's attempt at: a check of the rack; not certified when it
 * concerns or implicates r and is INCOMPLETE; a failure of the rack when
 * it implicates r and is anything but PASS or INCOMPLETE (and no retest
 * judged it). */
static void fc_verdict_judge_record(json_t *records, size_t i, const fc_record_type_t *t,
                                    fc_rack_verdict_t *r, fc_stage_id_t s,
                                    const fc_attempt_t *at)
{
    json_t *rec = json_array_get(records, i);
    char text[FC_VERDICT_TEXT], wrong_why[256], wrong_text[512];
    const char *verdict, *cverdict;
    int wrong;

    /* the record's own figures judged again: wrong bits fail it whatever
     * its verdict says, and so does a limit its PASS fails that no
     * confirmation alone cleared (fc_verdict_figures.h) */
    wrong = fc_record_rejudged(rec, wrong_text, sizeof(wrong_text));
    verdict = wrong ? "FAIL" : fc_json_str(rec, "verdict");
    if (!wrong && fc_record_contradiction(rec, wrong_why, sizeof(wrong_why)) &&
        (fc_record_concerns(rec, r, at) || fc_record_implicates(rec, r, at))) {
        fc_record_text(rec, NULL, wrong_text, sizeof(wrong_text));
        snprintf(text, sizeof(text), "a record contradicts itself (%.200s), so it "
                 "certifies nothing: %.200s", wrong_why, wrong_text);
        fc_verdict_mark_incomplete(r, s, rec, "measurement", text);
        return;
    }
    /* a PASS whose link counters show its traffic went elsewhere
     * (fc_counters_check.h): the figure measured something else */
    if (!wrong && strcmp(verdict, "PASS") == 0 && fc_record_concerns(rec, r, at) &&
        (cverdict = fc_counters_rejudged(rec, wrong_text, sizeof(wrong_text))) != NULL &&
        strcmp(cverdict, "INCOMPLETE") == 0) {
        fc_record_text(rec, wrong_text, text, sizeof(text));
        fc_verdict_mark_incomplete(r, s, rec, "measurement", text);
        return;
    }
    if (strcmp(verdict, "INCOMPLETE") == 0) {
        /* measured, but not as the profile demands (e.g. the background
         * load was not applied): not certified; one held by a host's CPU
         * (a pair or node of the pairs stage, part "cpu") names that
         * host, which is then uncertified whatever its rack's verdict,
         * and leaves that host's rack INCOMPLETE too, never FAILed */
        json_t *imp = json_object_get(rec, "implicates");
        int cpu = strcmp(fc_json_str(imp, "part"), "cpu") == 0;

        if (!fc_record_concerns(rec, r, at) && !fc_record_implicates(rec, r, at))
            return;
        fc_record_text(rec, NULL, text, sizeof(text));
        fc_verdict_mark_incomplete_at(r, s, rec, cpu ? "cpu" : "measurement",
                                      cpu ? fc_json_str(imp, "host") : "", text);
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

    fc_record_text(rec, wrong ? wrong_text : NULL, text, sizeof(text));
    fc_verdict_mark_failed(r, s, rec, part, host, text, t->names_part);
}

/* A record judged against another limit than the frozen profile's
 * (INCOMPLETE), or whose PASS the profile's limit fails (FAIL):
 * fc_verdict_limits.c found it once, for every rack it concerns. */
static void fc_verdict_limit_finding(const fc_verdict_scan_t *scan, size_t i,
                                     fc_rack_verdict_t *r, fc_stage_id_t s, json_t *rec)
{
    const char *text = NULL, *issue = fc_verdict_limit_issue(scan, i, &text);

    if (issue == NULL)
        return;
    if (strcmp(issue, "FAIL") == 0)
        fc_verdict_mark_failed(r, s, rec, "limit", "", text, 0);
    else
        fc_verdict_mark_incomplete(r, s, rec, "limit", text);
}

void fc_verdict_judge_rack(json_t *records, const fc_run_verdict_t *out,
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
        const fc_record_type_t *t = scan->type[i];
        int s = scan->stage[i];
        const fc_attempt_t *at;
        json_t *by;

        if (s < 0 || scan->ignored[i] || scan->other_run[i])
            continue;       /* another run's records, and records after
                             * their attempt's end, are counted already */
        if (t->id == FC_RECORD_STAGE_START) {
            cur[s]++;
            continue;
        }
        at = cur[s] >= 0 && cur[s] < FC_VERDICT_MAX_ATTEMPTS ? &scan->att[s].a[cur[s]] : NULL;
        if (t->id == FC_RECORD_QUARANTINE) {
            fc_verdict_quarantine(r, rec);
            continue;
        }
        if ((!t->check && !t->stop) || at == NULL)
            continue;       /* (a judged record before its stage began is
                             * counted as misplaced) */
        if (at->superseded && t->check &&
            (strcmp(fc_record_verdict(rec), "PASS") == 0 ||
             strcmp(fc_record_verdict(rec), "INCOMPLETE") == 0)) {
            const char *issue_text = NULL, *issue = fc_verdict_limit_issue(scan, i, &issue_text);

            /* a resume ran its stage again from the start: its passes
             * are measured again there, its failures stay (a verdict
             * never improves with less evidence), those the profile's
             * limit finds among its passes too */
            if (issue == NULL || strcmp(issue, "FAIL") != 0)
                continue;
        }
        if (scan->unplaced[i]) {
            if (fc_attempt_includes(at, r) || !fc_attempt_includes_a_rack(out, at))
                fc_verdict_unplaced(r, (fc_stage_id_t)s, rec, scan->unplaced[i] == 1);
            continue;
        }
        if (!fc_record_concerns(rec, r, at) && !fc_record_implicates(rec, r, at))
            continue;
        if ((by = fc_retest_explained_by(records, i, r->rack)) != NULL) {
            fc_verdict_explained(r, rec, by);
            continue;
        }
        json_array_append(r->checks, rec);
        if (!t->stop) {
            r->stages[s].checks++;
            last_checks[s] += cur[s] == last[s];
        }
        fc_verdict_judge_record(records, i, t, r, (fc_stage_id_t)s, at);
        fc_verdict_limit_finding(scan, i, r, (fc_stage_id_t)s, rec);
    }
}
