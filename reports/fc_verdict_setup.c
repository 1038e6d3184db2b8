/*
 * fc_verdict_setup.c - what the verdicts stand on: the records of
 * results.jsonl, read so that a torn or damaged line stays in place as a
 * marker (fc_verdict.h), and the run's frame from its plan record: which
 * stages it planned, selected and requires, and the racks and hosts of its
 * inventory (and whether an attempt ran on a rack's hosts). A plan that
 * cannot say these unambiguously is bad input.
 */
#include "fc_input.h"
#include "fc_verdict_scan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

fc_status_t fc_results_load(const char *path, long from, json_t **records_p,
                            int *bad_lines_p)
{
    FILE *f = fc_input_fopen(path, "results file", FC_INPUT_RESULTS_MAX);
    json_t *records;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int bad = 0;

    if (f == NULL)
        return FC_ERR_INVALID;
    records = json_array();
    if (from > 0)
        fseek(f, from, SEEK_SET);
    for (long lineno = 1; (len = getline(&line, &cap, f)) > 0; ++lineno) {
        /* a NUL anywhere (a crash leaves zero-filled holes) makes the line
         * unreadable, whatever json_loads would make of its prefix; so does
         * a key given twice ("verdict":"FAIL",...,"verdict":"PASS"): no
         * writer makes one, and which of the two counts is a parser's
         * whim */
        int has_nul = memchr(line, '\0', (size_t)len) != NULL;
        json_t *rec = has_nul ? NULL : json_loads(line, JSON_REJECT_DUPLICATES, NULL);
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
    /* a host the run left out of its rack cannot also be one that ran */
    json_array_foreach(json_object_get(json_object_get(plan, "inventory"), "left_out"), i, h)
        json_array_foreach(hosts, j, h2)
            if (strcmp(fc_json_str(h, "host"), fc_json_str(h2, "host")) == 0) {
                fprintf(stderr, "fabcert: the plan's inventory lists host '%s' both in "
                        "the run and as left out of it\n", fc_json_str(h, "host"));
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

fc_status_t fc_verdict_setup(json_t *records, fc_run_verdict_t *out)
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
    out->racks = fc_xcalloc(json_array_size(hosts) + 1, sizeof(*out->racks), "the racks");
    json_array_foreach(hosts, i, h) {
        const char *rack = fc_json_str(h, "rack");
        fc_rack_verdict_t *r = NULL;

        for (k = 0; k < (size_t)out->nracks; ++k)
            if (strcmp(out->racks[k].rack, rack) == 0)
                r = &out->racks[k];
        if (r == NULL) {
            r = &out->racks[out->nracks++];
            snprintf(r->rack, sizeof(r->rack), "%s", rack);
            r->hosts = fc_xcalloc(json_array_size(hosts), FC_VERDICT_NAME, "a rack's hosts");
            r->checks = json_array();
            r->quarantines = json_array();
            r->failed_checks = json_array();
            r->incomplete_checks = json_array();
            r->explained = json_array();
        }
        snprintf(r->hosts[r->nhosts++], FC_VERDICT_NAME, "%s", fc_json_str(h, "host"));
    }
    /* the rack map's hosts of each rack that the run left out (a plan
     * before they were recorded names none); those of a rack none of whose
     * hosts ran are not the plan's */
    json_array_foreach(json_object_get(json_object_get(plan, "inventory"), "left_out"), i, h)
        for (k = 0; k < (size_t)out->nracks; ++k)
            if (strcmp(out->racks[k].rack, fc_json_str(h, "rack")) == 0) {
                if (out->racks[k].hosts_left_out == NULL)
                    out->racks[k].hosts_left_out = json_array();
                json_array_append_new(out->racks[k].hosts_left_out,
                                      json_string(fc_json_str(h, "host")));
            }
    return FC_OK;
}

int fc_rack_has_host(const fc_rack_verdict_t *r, const char *host)
{
    for (int h = 0; h < r->nhosts; ++h)
        if (strcmp(r->hosts[h], host) == 0)
            return 1;
    return 0;
}

int fc_attempt_ran_on(const fc_attempt_t *at, const char *host)
{
    return at->host_set ? json_object_get(at->host_set, host) != NULL
                        : fc_json_has_string(at->hosts, host);
}

int fc_attempt_includes(const fc_attempt_t *at, const fc_rack_verdict_t *r)
{
    for (int h = 0; h < r->nhosts; ++h)
        if (fc_attempt_ran_on(at, r->hosts[h]))
            return 1;
    return 0;
}
