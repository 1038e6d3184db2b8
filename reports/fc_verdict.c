/*
 * fc_verdict.c - see fc_verdict.h. The verdict of a run is reached in
 * passes over its records (fc_verdict_scan.h says which file does what):
 * the plan and the racks (fc_verdict_setup.c), then one pass for each
 * stage's attempts (fc_verdict_attempts.c), one for the records that name
 * no rack of the plan, and then rack by rack: its records judged into
 * findings (fc_verdict_findings.c), each stage checked for missing
 * evidence, and what holds for the whole run (here). A rack's verdict is
 * the worst of its findings.
 */
#include "fc_verdict_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

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
                                    const fc_verdict_scan_t *scan)
{
    char text[FC_VERDICT_TEXT];
    int checks = 0;

    if (scan->unreadable_early > 0)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "",
                       "a record before the first stage could not be read "
                       "(results.jsonl is damaged there)", 0);
    if (scan->misplaced > 0) {
        snprintf(text, sizeof(text), "%d record(s) in results.jsonl belong to another run "
                 "or to no attempt of a stage of this plan (judged before it began, or "
                 "after it ended): the directory does not hold one run whole",
                 scan->misplaced);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "", text, 0);
    }
    if (scan->forged > 0) {
        snprintf(text, sizeof(text), "%d record(s) in results.jsonl name a writer "
                 "(`source`) that never writes their type (a stage's check said to come "
                 "from the runner or the retest): not evidence, and the directory does not "
                 "hold one run whole", scan->forged);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "", text, 0);
    }
    if (out->plan_legacy)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "results", "",
                       "the plan record predates recording command-line overrides and "
                       "stage selection: what ran cannot be certified", 0);
    if (json_array_size(r->hosts_left_out) > 0) {
        size_t n = json_array_size(r->hosts_left_out), i, used;
        json_t *h;

        used = (size_t)snprintf(text, sizeof(text), "%zu of the %zu hosts the rack map "
                                "gives rack %s were not in the run (not in the host list, "
                                "or outside the allocation): the rack is tested in part: ",
                                n, n + (size_t)r->nhosts, r->rack);
        json_array_foreach(r->hosts_left_out, i, h) {
            if (used + 80 > sizeof(text)) {
                snprintf(text + used, sizeof(text) - used, " [and %zu more]", n - i);
                break;
            }
            used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", i ? ", " : "",
                                     json_string_value(h));
        }
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "inventory", "", text, 0);
    }
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        checks += r->stages[s].checks;
    if (checks == 0)
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, "run", "stage", "",
                       "no check judged this rack: nothing is certified for it", 0);
}

fc_status_t fc_verdict_compute(json_t *records, const fc_profile_t *profile,
                               fc_run_verdict_t *out)
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
    scan.ignored = fc_xcalloc(json_array_size(records) + 1, 1, "the records ignored");
    scan.unplaced = fc_xcalloc(json_array_size(records) + 1, 1, "the records unplaced");
    scan.type = fc_xcalloc(json_array_size(records) + 1, sizeof(*scan.type),
                           "the records' types");
    scan.stage = fc_xcalloc(json_array_size(records) + 1, 1, "the records' stages");
    scan.other_run = fc_xcalloc(json_array_size(records) + 1, 1,
                                "the records of another run");
    {
        json_t *rec;
        size_t i;

        json_array_foreach(records, i, rec) {
            scan.type[i] = fc_record_type_of(rec);
            scan.stage[i] = (signed char)fc_stage_from_name(fc_json_str(rec, "stage"));
            scan.other_run[i] = fc_json_str(rec, "run_id")[0] &&
                                strcmp(fc_json_str(rec, "run_id"), out->run_id) != 0;
        }
    }
    fc_verdict_scan(records, out, &scan);
    fc_verdict_find_unplaced(records, out, &scan);
    fc_verdict_sweep_scan(records, out, profile, &scan);
    fc_verdict_limits_scan(records, out, profile, &scan);
    /* when the run was resumed, and what each resume did again */
    out->resumes = json_array();
    {
        json_t *rec;
        size_t i;

        json_array_foreach(records, i, rec)
            if (fc_record_id(rec) == FC_RECORD_RESUME && fc_record_source_ok(rec) &&
                strcmp(fc_json_str(rec, "run_id"), out->run_id) == 0)
                json_array_append_new(out->resumes, json_pack(
                    "{s:s, s:O?, s:O?, s:O?}", "time", fc_json_str(rec, "time"), "kept",
                    json_object_get(rec, "kept"), "to_run", json_object_get(rec, "to_run"),
                    "superseded", json_object_get(rec, "superseded")));
    }
    for (int k = 0; k < out->nracks; ++k) {
        fc_rack_verdict_t *r = &out->racks[k];
        int last[FC_STAGE_COUNT], last_checks[FC_STAGE_COUNT];

        /* per stage, the latest attempt that included the rack speaks
         * for it */
        for (int s = 0; s < FC_STAGE_COUNT; ++s) {
            last[s] = -1;
            for (int a = 0; a < scan.att[s].n; ++a)
                if (fc_attempt_includes(&scan.att[s].a[a], r) && !scan.att[s].a[a].superseded)
                    last[s] = a;
        }
        /* judged records and quarantines, each against the attempt it
         * belongs to */
        fc_verdict_judge_rack(records, out, &scan, r, last, last_checks);
        /* stages that did not run, finish or judge anything for this rack */
        for (int s = 0; s < FC_STAGE_COUNT; ++s) {
            if (!out->planned[s])
                continue;
            fc_verdict_stage_completeness(out, r, (fc_stage_id_t)s, &scan.att[s],
                                          last[s], last_checks[s], scan.skip_reason[s]);
            /* what it measured against what the plan says, unless it
             * failed here (its failures are the evidence) */
            if (last[s] >= 0 && r->stages[s].ran && r->stages[s].verdict != FC_VERDICT_FAIL)
                fc_verdict_sweep_findings(r, (fc_stage_id_t)s, &scan.att[s].a[last[s]]);
        }
        fc_verdict_run_findings(out, r, &scan);
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
    free(scan.type);
    free(scan.stage);
    free(scan.other_run);
    fc_verdict_sweep_free(&scan);
    json_decref(scan.limits);
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        for (int a = 0; a < scan.att[s].n; ++a)
            json_decref(scan.att[s].a[a].host_set);
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

void fc_verdict_add_stage_finding(fc_run_verdict_t *v, fc_rack_verdict_t *r, fc_stage_id_t s,
                                  fc_verdict_t verdict, const char *part, const char *text)
{
    fc_add_finding(r, verdict, fc_stage_name(s), part, "", text, 0);
    if (verdict > r->stages[s].verdict)
        r->stages[s].verdict = verdict;
    if (verdict > r->verdict)
        r->verdict = verdict;
    if (r->verdict > v->overall)
        v->overall = r->verdict;
}

void fc_verdict_free(fc_run_verdict_t *v)
{
    for (int k = 0; k < v->nracks; ++k) {
        free(v->racks[k].hosts);
        json_decref(v->racks[k].hosts_left_out);
        json_decref(v->racks[k].checks);
        json_decref(v->racks[k].quarantines);
        json_decref(v->racks[k].failed_checks);
        json_decref(v->racks[k].incomplete_checks);
        json_decref(v->racks[k].explained);
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            json_decref(v->racks[k].stages[s].gpu_plugin);
    }
    json_decref(v->plan);
    json_decref(v->resumes);
    free(v->racks);
    memset(v, 0, sizeof(*v));
}
