/*
 * fc_verdict_attempts.c - each stage's attempts, and whether the one that
 * speaks for a rack is complete. The first pass over the records opens an
 * attempt at each stage_start and closes it at its stage_end, counting
 * what the attempt's records hold against what its end record says, and
 * sets aside what is no evidence of any attempt (another run's records,
 * a check before its stage began or after it ended). Then, per rack and
 * stage, the latest attempt that included the rack must have run,
 * finished, agreed with its records and judged something there: anything
 * less is INCOMPLETE, with the reason.
 */
#include "fc_verdict_scan.h"

#include <stdio.h>
#include <string.h>

/* A record of the stage after its latest attempt's stage_end that only
 * the runner or the retest may write there (the record-type table says
 * which types those are, fc_record.h): the runner's accounts (a hang, a
 * crash, a quarantine, a skip or launch error of the next attempt) and
 * the retest's records follow the end; the stage's own records (its
 * checks, its context, a second end), whatever `source` they claim, do
 * not. A stage_start opens the next attempt. */
static int fc_record_after_end(json_t *rec, const fc_record_type_t *t,
                               const fc_stage_attempts_t *att)
{
    if (att->n == 0 || !att->a[att->n - 1].ended || t->id == FC_RECORD_STAGE_START)
        return 0;
    return !fc_record_may_follow_end(rec);
}

/* A count of a stage_end record: a whole number >= 0, else -1. */
static json_int_t fc_end_count(json_t *end, const char *key)
{
    json_t *v = json_object_get(end, key);

    return json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v) : -1;
}

void fc_verdict_scan(json_t *records, const fc_run_verdict_t *out, fc_verdict_scan_t *scan)
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
        if (!fc_record_source_ok(rec)) {
            /* a stage's check that says the runner or the retest wrote
             * it, a hang that says a stage did: no writer makes those */
            scan->forged++;
            scan->ignored[i] = 1;
            continue;
        }
        if (t->id == FC_RECORD_RESUME) {
            /* the attempts begun before a resume of each stage it runs
             * again are superseded (docs/operators-guide.md, "Resuming a run") */
            json_t *x;
            size_t k;

            json_array_foreach(json_object_get(rec, "superseded"), k, x) {
                int ss = fc_stage_from_name(fc_json_str(x, "stage"));

                for (int a = 0; ss >= 0 && a < att[ss].n; ++a)
                    att[ss].a[a].superseded = 1;
            }
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
            /* the stage's own record (a check, a second end) after its
             * attempt ended: not evidence of that attempt (docs/verdicts.md, rule 7) */
            scan->misplaced++;
            scan->ignored[i] = 1;
            continue;
        }
        if (t->check && !att[s].a[att[s].n - 1].ended &&
            strcmp(fc_json_str(rec, "verdict"), "PASS") != 0)
            att[s].a[att[s].n - 1].not_pass++;
        /* every record with a verdict of a type the stage writes counts
         * against its end record: the runner's accounts of the attempt (a
         * hang, a crash) are the only ones it does not write */
        if (att[s].n > 0 && !att[s].a[att[s].n - 1].ended &&
            json_object_get(rec, "verdict") != NULL && t->id != FC_RECORD_STAGE_END &&
            fc_record_stage_writes(rec)) {
            att[s].a[att[s].n - 1].judged_seen++;
            att[s].a[att[s].n - 1].judged_np_seen +=
                strcmp(fc_json_str(rec, "verdict"), "PASS") != 0;
        }
        if (t->id == FC_RECORD_STAGE_SKIP)
            scan->skip_reason[s] = fc_json_str(rec, "reason");   /* the runner's */
        if (t->id == FC_RECORD_DEVICES && att[s].n > 0 && !att[s].a[att[s].n - 1].ended)
            att[s].a[att[s].n - 1].devices = rec;
        if (t->id == FC_RECORD_STAGE_START && att[s].n == FC_VERDICT_MAX_ATTEMPTS) {
            att[s].beyond++;
            open_stage = s;
        } else if (t->id == FC_RECORD_STAGE_START) {
            json_t *h;
            size_t k;

            att[s].a[att[s].n].hosts = json_object_get(rec, "rank_hosts");
            att[s].a[att[s].n].host_set = json_object();
            json_array_foreach(att[s].a[att[s].n].hosts, k, h)
                if (json_is_string(h))
                    json_object_set(att[s].a[att[s].n].host_set, json_string_value(h),
                                    json_true());
            att[s].a[att[s].n].start = rec;
            att[s].a[att[s].n].first = i;
            att[s].a[att[s].n].end = json_array_size(records);
            att[s].a[att[s].n].other_profile =
                strcmp(fc_json_str(rec, "profile_sha256"),
                       fc_json_str(out->plan, "profile_sha256")) != 0;
            att[s].n++;
            open_stage = s;
        } else if (t->id == FC_RECORD_STAGE_END && att[s].n > 0) {
            fc_attempt_t *a = &att[s].a[att[s].n - 1];

            a->ended = 1;
            a->end = i;
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
        if (!quarantined && !fc_attempt_ran_on(a, r->hosts[h])) {
            snprintf(text, len, "required stage %s did not run on host %s of the rack",
                     stage, r->hosts[h]);
            return r->hosts[h];
        }
    }
    return NULL;
}

/* The GPUs of a host of rack r that an nccl attempt did not test: the
 * devices record gives each rank's GPU and how many GPUs its host has
 * visible; a host with fewer ranks than GPUs (the node stage at --ppn 2 on
 * an 8-GPU node) tested only some of them. A finding per such host, naming
 * the GPUs left untested; 1 if there was one. */
static int fc_attempt_untested_gpus(const fc_attempt_t *a, fc_rack_verdict_t *r,
                                    const char *stage)
{
    int found = 0;

    for (int h = 0; h < r->nhosts && a->devices; ++h) {
        unsigned char used[1024] = { 0 };
        int visible = -1, nused = 0, ranks = 0, first = -1, last = -1;
        char text[FC_VERDICT_TEXT], list[300] = "";
        size_t i, len = 0;
        json_t *d;

        json_array_foreach(json_object_get(a->devices, "devices"), i, d) {
            json_int_t dev = json_integer_value(json_object_get(d, "device"));

            if (strcmp(fc_json_str(d, "host"), r->hosts[h]) != 0)
                continue;
            ++ranks;
            visible = (int)json_integer_value(json_object_get(d, "visible_gpus"));
            if (dev >= 0 && dev < (json_int_t)sizeof(used) && !used[dev]) {
                used[dev] = 1;
                ++nused;
            }
        }
        if (ranks == 0 || visible <= nused || visible > (int)sizeof(used))
            continue;
        /* the untested GPUs as ranges: "2-7", "1, 3, 5-7" */
        for (int g = 0; g <= visible; ++g) {
            if (g < visible && !used[g]) {
                if (first < 0)
                    first = g;
                last = g;
                continue;
            }
            if (first >= 0 && len + 24 < sizeof(list))
                len += (size_t)(first == last
                    ? snprintf(list + len, sizeof(list) - len, "%s%d", len ? ", " : "", first)
                    : snprintf(list + len, sizeof(list) - len, "%s%d-%d", len ? ", " : "",
                               first, last));
            first = -1;
        }
        snprintf(text, sizeof(text), "the %s stage ran %d rank(s) on host %s, which has %d "
                 "GPU(s) visible: GPU(s) %s were not tested (run it with --ppn %d, one rank "
                 "per GPU)", stage, ranks, r->hosts[h], visible, list, visible);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, stage, "gpus", r->hosts[h], text, 0);
        found = 1;
    }
    return found;
}

/* An attempt on the nccl backend measured by the test stand-in plugin
 * (its devices record names the GPU "stand-in": tests/standin), or one on
 * nccl whose devices record is missing (which GPUs measured cannot be
 * known): a finding, and 1. */
static int fc_attempt_standin(const fc_attempt_t *a, fc_rack_verdict_t *r, const char *stage,
                              const fc_stage_verdict_t *sv)
{
    char text[FC_VERDICT_TEXT];
    json_t *d;
    size_t i;

    json_array_foreach(json_object_get(a->devices, "devices"), i, d)
        if (strcmp(fc_json_str(d, "gpu"), "stand-in") == 0) {
            snprintf(text, sizeof(text), "the %s stage was measured by the test stand-in "
                     "plugin, not a GPU (its devices record names rank %lld's GPU "
                     "\"stand-in\"; plugin %.200s, sha256 %.16s)", stage,
                     (long long)json_integer_value(json_object_get(d, "rank")),
                     fc_json_str(sv->gpu_plugin, "path"), fc_json_str(sv->gpu_plugin, "sha256"));
            fc_add_finding(r, FC_VERDICT_INCOMPLETE, stage, "gpus", "", text, 0);
            return 1;
        }
    if (strcmp(sv->backend, "nccl") == 0 && a->devices == NULL) {
        snprintf(text, sizeof(text), "the %s stage ran on nccl but wrote no devices record: "
                 "which GPUs measured cannot be known", stage);
        fc_add_finding(r, FC_VERDICT_INCOMPLETE, stage, "gpus", "", text, 0);
        return 1;
    }
    return 0;
}

/* One stage on one rack, after its records were judged: was it left out,
 * did it run and finish, did it judge anything, can all its records be
 * read? Anything less than that is INCOMPLETE, never PASS; the reason is
 * a finding when the stage is required, or when the stage ran on the rack
 * and what it left cannot be trusted whole (a record was lost, it ended in
 * error, it did not finish: any of these could hide a failure), optional
 * or not. Also notes the backend the stage ran on. */
void fc_verdict_stage_completeness(const fc_run_verdict_t *out, fc_rack_verdict_t *r,
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
            sv->backend_note[0] == '\0') {
            json_t *built = json_object_get(sv->gpu_plugin, "built");
            const char *sha = fc_json_str(sv->gpu_plugin, "sha256");
            char also[160] = "";

            /* against the one built beside the program, where there is one */
            if (json_is_object(built) && strcmp(sha, fc_json_str(built, "sha256")) != 0)
                snprintf(also, sizeof(also), "; it differs from the one built beside the "
                         "program (sha256 %.16s)", fc_json_str(built, "sha256"));
            else if (json_is_object(built))
                snprintf(also, sizeof(also), "; the same bytes as the one built beside the "
                         "program");
            snprintf(sv->backend_note, sizeof(sv->backend_note), "the GPU plugin came from "
                     "$FABCERT_GPU_PLUGIN, not the build: %.200s (sha256 %.16s)%s",
                     fc_json_str(sv->gpu_plugin, "path"), sha, also);
        }
    }
    if (att->beyond > 0) {
        /* the runner makes FC_RUN_MAX_ATTEMPTS (2) at most; records past
         * the verdict's limit are not judged, and one of them could be a
         * failure */
        snprintf(text, sizeof(text), "the %s stage has %d attempts in results.jsonl, more "
                 "than the %d the verdict follows (too many attempts): the records of "
                 "the attempts past the %dth are not judged", name, att->n + att->beyond,
                 FC_VERDICT_MAX_ATTEMPTS, FC_VERDICT_MAX_ATTEMPTS);
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
    /* the test stand-in plugin (tests/standin) measured host memory, not
     * a GPU: whatever its checks say, nothing about a GPU is certified */
    if (sv->ran && fc_attempt_standin(last, r, name, sv) && sv->verdict != FC_VERDICT_FAIL)
        sv->verdict = FC_VERDICT_INCOMPLETE;
    /* a GPU a stage of one rank per GPU never ran on is not certified,
     * whatever the stage is (optional too: its PASS would cover it) */
    if (sv->ran && strcmp(sv->backend, "nccl") == 0 &&
        fc_attempt_untested_gpus(last, r, name) && sv->verdict != FC_VERDICT_FAIL)
        sv->verdict = FC_VERDICT_INCOMPLETE;
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
